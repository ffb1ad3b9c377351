"""The worker that runs jobs: RQ's, vouching for a running job every
``JOBS_HEARTBEAT_SECONDS``, and doing the site's chores between jobs.

While a job runs, its worker renews the job's entry in the queue's register
of started jobs; once three heartbeats are missed (its machine went down, it
was killed) the entry lapses, and the queue moves the job to its failed jobs
the next time anyone (a worker, or the job's page, ``runner.refresh``) cleans
the register, whichever host the worker ran on. RQ's own margin is fixed at
a minute; this one follows the heartbeat, three of which make RQ's ninety
seconds by default.

The chores (``JOBS_CHORES``, dotted paths of functions without arguments,
such as the page cache's outbox drain) run before each wait for a job, so
after every job, and every ``JOBS_CHORE_SECONDS`` while none comes.
"""

import logging

from django.conf import settings
from django.db import connections
from django.utils.module_loading import import_string
from rq import Worker as RQWorker
from rq.exceptions import StopRequested

logger = logging.getLogger(__name__)


def run_chores():
    """Run each of ``JOBS_CHORES``; one that fails is logged, not fatal."""
    try:
        for path in settings.JOBS_CHORES:
            try:
                import_string(path)()
            except StopRequested:
                # RQ's answer to a stop asked for while the worker is idle,
                # raised wherever the signal lands: the worker stops.
                raise
            except Exception:
                logger.exception("The chore %s failed", path)
    finally:
        # The work horse is forked from this process: it must not share a
        # database connection with it.
        connections.close_all()


class Worker(RQWorker):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("job_monitoring_interval", settings.JOBS_HEARTBEAT_SECONDS)
        super().__init__(*args, **kwargs)

    def get_heartbeat_ttl(self, job, working_time=0.0):
        interval = self.job_monitoring_interval
        if job.timeout and job.timeout > 0:
            interval = min(job.timeout - working_time, interval)
        return int(interval) + 2 * self.job_monitoring_interval

    def dequeue_job_and_maintain_ttl(self, timeout, max_idle_time=None):
        """RQ's wait for a job, in spells of ``JOBS_CHORE_SECONDS`` at most,
        each after the chores; None once ``max_idle_time`` passed without a
        job, or at once with none waiting in burst mode (``timeout`` None)."""
        idle = 0
        while True:
            run_chores()
            if timeout is None:
                return super().dequeue_job_and_maintain_ttl(None, max_idle_time)
            spell = min(timeout, settings.JOBS_CHORE_SECONDS)
            if max_idle_time is not None:
                spell = min(spell, max_idle_time - idle)
                if spell <= 0:
                    return None
            # RQ's own wait gives up (None) after ``spell`` idle seconds.
            found = super().dequeue_job_and_maintain_ttl(spell, spell)
            if found is not None:
                return found
            idle += spell
