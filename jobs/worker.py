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

A worker outlives its Redis going away. RQ retries a lost Redis only while
it waits for a job; anywhere else in its loop (a heartbeat while a job runs,
the bookkeeping once the job's process ended, the check for suspension) the
error reaches RQ's loop, which quits. Here each of those says what it could
not tell the queue and goes on: the job's process keeps running and is
waited for (its work is one transaction and its own row in the database
says how it ended), and the wait for the next job is RQ's, which retries
until Redis answers. Once it does, the worker registers itself again should
Redis have come back empty, so the queue's readers (``/health/ready/``)
see it listening.
"""

import contextlib
import importlib
import logging
import os

from django.conf import settings
from django.db import connections
from django.utils.module_loading import import_string
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Worker as RQWorker
from rq import worker_registration
from rq.exceptions import StopRequested
from rq.worker import WorkerStatus

logger = logging.getLogger(__name__)

# What a Redis that went away or hangs raises; any other error is a fault of
# the worker's own, and RQ's loop stops on it as it always did.
OUTAGE = (RedisConnectionError, RedisTimeoutError)


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
    # RQ's wait for a job retries a lost Redis after 1, 2, 4… seconds: one
    # that is back is found within this many.
    max_connection_wait_time = 5.0

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("job_monitoring_interval", settings.JOBS_HEARTBEAT_SECONDS)
        super().__init__(*args, **kwargs)
        # Whether Redis failed since the worker last registered itself.
        self.lost_redis = False
        # Imported once here, and inherited by each job's forked process.
        for queue in self.queue_names():
            for module in settings.JOBS_WORKER_IMPORTS.get(queue, ()):
                importlib.import_module(module)

    def _outage(self, doing, error):
        if not self.lost_redis:
            logger.error(
                "Worker %s: the queue's Redis went away while %s (%r); the worker "
                "carries on and retries it",
                self.name,
                doing,
                error,
            )
        self.lost_redis = True

    def _registered_again(self):
        """Once Redis answers after an outage: register this worker anew, as
        its birth did (a Redis that restarted empty forgot it)."""
        if not self.lost_redis:
            return
        with self.connection.pipeline() as pipeline:
            pipeline.hset(self.key, mapping=self.serialize())
            worker_registration.register(self, pipeline)
            pipeline.expire(self.key, self.worker_ttl + 60)
            pipeline.execute()
        self.lost_redis = False
        logger.warning("Worker %s: the queue's Redis answers again", self.name)

    def heartbeat(self, timeout=None, pipeline=None):
        if pipeline is not None:
            # Sent with the pipeline, whose caller answers for it.
            return super().heartbeat(timeout, pipeline=pipeline)
        try:
            super().heartbeat(timeout)
            self._registered_again()
        except OUTAGE as error:
            self._outage("saying it is alive", error)

    def maintain_heartbeats(self, job, execution):
        # While the job's process runs, a heartbeat Redis cannot take is
        # missed, never fatal: the process is still waited for.
        try:
            super().maintain_heartbeats(job, execution)
            self._registered_again()
        except OUTAGE as error:
            self._outage(f"job {job.id} runs", error)

    def set_state(self, state, pipeline=None):
        try:
            super().set_state(state, pipeline=pipeline)
        except OUTAGE as error:
            self._outage("noting its state", error)

    def check_for_suspension(self, burst):
        try:
            super().check_for_suspension(burst)
        except OUTAGE as error:
            self._outage("looking for a suspension", error)

    def run_maintenance_tasks(self):
        try:
            super().run_maintenance_tasks()
        except OUTAGE as error:
            # Done again at the next interval.
            self._outage("cleaning the queue's registers", error)

    def execute_job(self, job, queue):
        """RQ's run of ``job`` in a work horse; when Redis goes away before
        the horse starts or after it ended, the queue is not told, the horse
        (if any) is waited for, and the worker goes on to the next job."""
        try:
            super().execute_job(job, queue)
        except OUTAGE as error:
            self._outage(f"job {job.id} ran or ended", error)
            if self.horse_pid:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(self.horse_pid, 0)
                self._horse_pid = 0
            self.executions.clear()
            self.set_state(WorkerStatus.IDLE)

    def _shutdown(self):
        # A stop asked for while the worker is idle is RQ's StopRequested,
        # raised wherever the signal lands; a chore's own error handling may
        # swallow it, so it is kept as well, and the wait for a job below
        # stops on it.
        if self.get_state() != WorkerStatus.BUSY:
            self._stop_requested = True
        super()._shutdown()

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
            if self._stop_requested:
                raise StopRequested()
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
