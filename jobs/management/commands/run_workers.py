"""Start the background-job workers and keep them running."""

import signal
import sys
import time
from pathlib import Path
from subprocess import Popen

from django.conf import settings
from django.core.management.base import BaseCommand

# A worker that ran this long before it exited is started again at once;
# one that exits sooner (its Redis or database refuses it at start) waits
# longer each time, up to LONGEST_PAUSE seconds.
STEADY_SECONDS = 60
LONGEST_PAUSE = 30
MANAGE = Path(settings.BASE_DIR) / "manage.py"


class Worker:
    """One ``rqworker`` process on ``queue``, started again when it exits."""

    def __init__(self, queue):
        self.queue = queue
        self.process = None
        self.started_at = 0.0
        self.pause = 0.0
        self.due_at = 0.0

    def start(self):
        self.process = Popen(
            [sys.executable, str(MANAGE), "rqworker", self.queue],
            # A session of its own: a terminal's Ctrl-C reaches this command
            # alone, which asks each worker to stop once (a second signal
            # would stop a worker's running job cold).
            start_new_session=True,
        )
        self.started_at = time.monotonic()

    def exited(self):
        """The exit code once the process has ended and was not yet seen to."""
        if self.process is None or self.process.poll() is None:
            return None
        code, self.process = self.process.returncode, None
        ran = time.monotonic() - self.started_at
        self.pause = (
            0.0
            if ran >= STEADY_SECONDS
            else min(max(1.0, 2 * self.pause), LONGEST_PAUSE)
        )
        self.due_at = time.monotonic() + self.pause
        return code


class Command(BaseCommand):
    help = (
        "Start the background-job workers (rqworker) on JOBS_QUEUE and on "
        "JOBS_RELATED_QUEUE, start again any that exits, and stop them all, "
        "each letting its running job finish, on SIGTERM or SIGINT."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="Workers on JOBS_QUEUE (imports, backups).",
        )
        parser.add_argument(
            "--related-workers",
            type=int,
            default=1,
            help="Workers on JOBS_RELATED_QUEUE (related work, candidate topics).",
        )

    def handle(self, *args, workers, related_workers, **options):
        self.stopping = False
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        pool = [Worker(settings.JOBS_QUEUE) for _ in range(workers)] + [
            Worker(settings.JOBS_RELATED_QUEUE) for _ in range(related_workers)
        ]
        self.pool = pool
        for worker in pool:
            worker.start()
        while not self.stopping:
            for worker in pool:
                code = worker.exited()
                if code is not None:
                    self.stderr.write(
                        f"A worker on {worker.queue} exited ({code}); starting "
                        f"another in {worker.pause:.0f} s."
                    )
                if worker.process is None and time.monotonic() >= worker.due_at:
                    worker.start()
            time.sleep(0.5)
        for worker in pool:
            if worker.process is not None:
                worker.process.wait()

    def stop(self, signum, frame):
        if self.stopping:
            return
        self.stopping = True
        for worker in getattr(self, "pool", []):
            if worker.process is not None and worker.process.poll() is None:
                worker.process.send_signal(signal.SIGTERM)
