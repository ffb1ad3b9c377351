"""The pace of the checks: a service asked no more often than it asks.

Every wait goes through a clock, so that tests and the benchmark count the
requests and the sleeps asked for (``VirtualClock``) instead of timing them.
"""

import datetime
import time

from django.utils import timezone


class Clock:
    """The real clock: ``now`` for pacing (monotonic), ``wall`` for what is
    recorded (``checked_at``)."""

    def now(self):
        return time.monotonic()

    def sleep(self, seconds):
        time.sleep(seconds)

    def wall(self):
        return timezone.now()


class VirtualClock(Clock):
    """A clock that moves only when asked to sleep (or ``advance``): every
    sleep is kept in ``sleeps``, and no time passes while waiting."""

    def __init__(self, wall=None):
        self.elapsed = 0.0
        self.sleeps = []
        self.started = wall or timezone.now()

    def now(self):
        return self.elapsed

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.elapsed += seconds

    def advance(self, seconds):
        """Let ``seconds`` pass (a day between two runs), no sleep asked."""
        self.elapsed += seconds

    def wall(self):
        return self.started + datetime.timedelta(seconds=self.elapsed)


class Pace:
    """At most one request every ``interval`` seconds on ``clock``: ``wait``
    before each request sleeps for what is left of the interval since the
    last one began."""

    def __init__(self, interval, clock):
        self.interval = interval
        self.clock = clock
        self.last = None

    def wait(self):
        if self.last is not None:
            left = self.last + self.interval - self.clock.now()
            if left > 0:
                self.clock.sleep(left)
        self.last = self.clock.now()
