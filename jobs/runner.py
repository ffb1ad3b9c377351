"""Enqueue a job, run it on a worker, report its progress and keep its result.

A job is a function of keyword arguments (named by its dotted path, so the
worker imports it) that returns ``(summary, result)``, or raises ValueError
saying why it refused the work. The summary, a line for editors, is kept with
the job; the result (any picklable value, an import's
preview) is kept in the shared cache for the page that shows it. The function
reports progress with ``progress(done, total)``.

A job's writes are the function's own, which makes each one transaction: a
worker that dies midway leaves nothing written, and the job is marked failed
once that is seen (``refresh``); until its end is seen, a job whose worker
stopped answering is said to be so, never failed, since its work horse may
still be writing.
"""

import contextvars
import datetime
import logging
import os
import socket

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.module_loading import import_string
from redis.exceptions import RedisError

from jobs import queue
from jobs.models import Job, database_session

logger = logging.getLogger(__name__)

_current = contextvars.ContextVar("job", default=None)

GONE = (
    "The worker stopped before the job finished (it was killed or the machine "
    "went down); its work was one transaction, so nothing was written. Start "
    "it again."
)
STOPPED_ANSWERING = (
    "The worker stopped answering; the job may still finish. Look here again "
    "before starting it again: it is marked failed once its work is seen to "
    "have ended."
)
LOST = (
    "The queue lost the job before a worker began it (its Redis was emptied or "
    "did not answer); nothing was written. Start it again."
)
LOST_AFTER = datetime.timedelta(minutes=1)
UNREACHABLE = (
    "The background-job queue cannot be reached (its Redis does not answer), so "
    "the job was not started and nothing was written. Try again once it is back."
)


class QueueUnavailable(Exception):
    """The queue could not take the job: nothing was started."""


class AlreadyRunning(Exception):
    """A job of the same lock is unfinished: nothing was started."""

    def __init__(self, running):
        self.running = running
        super().__init__(
            f"“{running.title}” is already {running.get_state_display().lower()} "
            f"(started {running.created_at:%Y-%m-%d %H:%M} UTC): wait for it to "
            "finish."
        )


def _progress_key(job_id):
    return f"job:{job_id}:progress"


def _result_key(job_id):
    return f"job:{job_id}:result"


def enqueue(*, title, function, arguments, user=None, page="", id=None, lock=""):
    """A new job, queued for a worker (or, with ``JOBS_IN_PROCESS``, run here
    and now); QueueUnavailable (the job kept as failed) when the queue cannot
    be reached; AlreadyRunning when a job of the same ``lock`` is unfinished
    (the database's constraint decides, so two requests at once cannot both
    start one)."""
    try:
        with transaction.atomic():
            job = Job.objects.create(
                **({"id": id} if id else {}),
                title=title,
                function=function,
                arguments=arguments,
                created_by=user,
                page=page,
                lock=lock,
            )
    except IntegrityError:
        running = Job.objects.unfinished().filter(lock=lock).first()
        if not lock or running is None:
            raise
        raise AlreadyRunning(running) from None
    if settings.JOBS_IN_PROCESS:
        run(str(job.pk))
        job.refresh_from_db()
        return job
    try:
        queue.get_queue().enqueue(
            run,
            str(job.pk),
            job_id=str(job.pk),
            result_ttl=0,
            failure_ttl=settings.JOBS_RESULT_SECONDS,
            description=title,
        )
    except (RedisError, OSError) as error:
        logger.error("Job %s (%s) could not be queued: %r", job.pk, title, error)
        job.state = Job.State.FAILED
        job.summary = UNREACHABLE
        job.finished_at = timezone.now()
        job.save(update_fields=["state", "summary", "finished_at"])
        raise QueueUnavailable(UNREACHABLE) from error
    return job


def run(job_id):
    """Run the job ``job_id``: what the worker calls."""
    job = Job.objects.get(pk=job_id)
    job.state = Job.State.RUNNING
    job.started_at = timezone.now()
    job.worker = f"{socket.gethostname()}:{os.getpid()}"
    job.session = database_session()
    job.save(update_fields=["state", "started_at", "worker", "session"])
    token = _current.set(job_id)
    try:
        summary, result = import_string(job.function)(**job.arguments)
    except ValueError as error:
        # The job's own refusal (a file it cannot read): told, not logged.
        job.state = Job.State.FAILED
        job.summary = str(error)
    except Exception as error:
        logger.exception("Job %s (%s) failed", job_id, job.title)
        job.state = Job.State.FAILED
        job.summary = f"Failed: {type(error).__name__}: {error}"
    else:
        cache.set(_result_key(job_id), result, settings.JOBS_RESULT_SECONDS)
        job.state = Job.State.FINISHED
        job.summary = summary
    finally:
        _current.reset(token)
    job.finished_at = timezone.now()
    job.save(update_fields=["state", "summary", "finished_at"])


def progress(done, total):
    """Report the running job's progress (nothing outside a job)."""
    job_id = _current.get()
    if job_id is not None:
        cache.set(_progress_key(job_id), (done, total), settings.JOBS_RESULT_SECONDS)


def progress_of(job):
    """``(done, total)`` as the job last reported, or None before it did."""
    return cache.get(_progress_key(job.pk))


def progress_of_many(jobs):
    """Each job's ``progress_of`` by its key, those that reported any, at one
    round trip to the cache; none when the cache cannot be reached."""
    keys = {_progress_key(job.pk): job.pk for job in jobs}
    try:
        found = cache.get_many(list(keys))
    except (RedisError, OSError) as error:
        logger.warning("The cache cannot say how jobs progress: %r", error)
        return {}
    return {keys[key]: done_total for key, done_total in found.items()}


def result_of(job):
    """The finished job's result, or None once it has expired."""
    return cache.get(_result_key(job.pk))


def refresh(job):
    """``job`` as it is now (``refresh_all``)."""
    job.refresh_from_db()
    refresh_all([job])
    return job


def refresh_all(jobs):
    """Each of ``jobs`` told as it is, in place, at one round trip to the
    queue at most: marked failed once its work can no longer be running (its
    process is seen dead on this host, or its database session is gone, or
    the queue never began it), or said to have stopped answering while its
    work may still finish (its worker's heartbeats stopped, or the queue
    gave it up, and nothing shows its work ended)."""
    unfinished = [job for job in jobs if not job.is_done]
    if not unfinished:
        return
    try:
        found = queue.statuses([job.pk for job in unfinished])
    except (RedisError, OSError) as error:
        # The queue cannot say; the readiness page tells operators.
        logger.warning("The queue cannot say how jobs are: %r", error)
        found = None
    for job in unfinished:
        if found is None:
            why = GONE if job.worker_is_gone() else ""
        else:
            why = _verdict(job, found[str(job.pk)])
        if why == STOPPED_ANSWERING:
            if job.summary != why:
                Job.objects.unfinished().filter(pk=job.pk).update(summary=why)
        elif why:
            # Unless it finished meanwhile: its own verdict stands.
            Job.objects.unfinished().filter(pk=job.pk).update(
                state=Job.State.FAILED, summary=why, finished_at=timezone.now()
            )
        else:
            continue
        job.refresh_from_db()


def _verdict(job, status):
    """Why ``job`` failed, ``STOPPED_ANSWERING``, or "" while it runs as it
    should; ``status`` is the queue's word on it."""
    if job.worker_is_gone():
        return GONE
    given_up = status in queue.GIVEN_UP or status == queue.UNANSWERED
    if job.state == Job.State.RUNNING:
        if not given_up and status is not None:
            return ""
        if job.worker_is_seen_running():
            # Its work horse outlived its worker: it may still finish.
            return STOPPED_ANSWERING
        return GONE if job.session_is_gone() else STOPPED_ANSWERING
    # Queued: no work of its began, whatever the queue says.
    if given_up:
        return GONE
    if status is None and job.created_at < timezone.now() - LOST_AFTER:
        # A job is queued as the transaction that made its row commits.
        return LOST
    return ""
