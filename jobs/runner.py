"""Enqueue a job, run it on a worker, report its progress and keep its result.

A job is a function of keyword arguments (named by its dotted path, so the
worker imports it) that returns ``(summary, result)``, or raises ValueError
saying why it refused the work. The summary, a line for editors, is kept with
the job; the result (any picklable value, an import's
preview) is kept in the shared cache for the page that shows it. The function
reports progress with ``progress(done, total)``.

Once the function has returned, the job's process runs ``JOBS_FINISHERS``
(dotted paths of functions without arguments), such as sending the purges its
change asked for, before the job is marked finished or failed: a worker's
work horse ends as soon as the job does, and its background threads with it.

A job's writes are the function's own, which makes each one transaction: a
worker that dies midway leaves nothing written, and the job is marked failed
once that is seen (``refresh``); until its end is seen, a job whose worker
stopped answering is said to be so, never failed, since its work horse may
still be writing.

Work nobody waits for, asked for again and again (``request``), is
coalesced: jobs of one key run one at a time, and at most one waits; a
request while one waits adds its work to that one and makes no job. The
database decides both (a waiting job's key, a running job's lock, each unique
among such jobs), so that requests in many processes at once make one job.
Under ``JOBS_IN_PROCESS`` such a job runs in a thread of a web process,
started once the response of the request that asked for it has been sent
(Django's ``request_finished``): it is work of the whole record, which no one
should wait for in a request. A command that asks for one (an import, the
sample generator) leaves it waiting: a command's process ends with its work,
and would take a thread's half-done work with it or wait for it. The next
web process to do its chores (``resume_waiting``) runs it after its
response, or ``recompute_related`` runs it at once.
"""

import contextvars
import datetime
import logging
import os
import socket
import threading
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.signals import request_finished
from django.db import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    connection,
    connections,
    transaction,
)
from django.db.models import Sum
from django.template.defaultfilters import filesizeformat
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
DATABASE_FAILED = (
    "The database stopped answering while the job ran ({error}); its work was "
    "one transaction, so nothing was written. Start it again once the "
    "database is back."
)
# What the database driver raises when the database itself stopped answering
# (restarted, shut down, the connection cut), unlike a query it refused.
DATABASE_LOST = (OperationalError, InterfaceError)
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


class QuotaReached(Exception):
    """The user may start no more jobs, or keep no more uploads, now: nothing
    was started."""


def enqueue(
    *,
    title,
    function,
    arguments,
    user=None,
    page="",
    id=None,
    lock="",
    upload="",
    upload_bytes=0,
    queue_name=None,
):
    """A new job, queued for a worker (or, with ``JOBS_IN_PROCESS``, run here
    and now); QueueUnavailable (the job kept as failed) when the queue cannot
    be reached; AlreadyRunning when a job of the same ``lock`` is unfinished
    (the database's constraint decides, so two requests at once cannot both
    start one); QuotaReached when ``user`` has ``JOBS_MAX_UNFINISHED_PER_USER``
    jobs unfinished, or their kept uploads with this one's ``upload_bytes``
    would pass ``JOBS_MAX_UPLOAD_BYTES_PER_USER``. ``upload`` is the shared
    cache's key of the upload the job reads: refused or failed, the job takes
    it along. ``queue_name``: the queue it waits on (``JOBS_QUEUE`` when
    None)."""
    try:
        with transaction.atomic():
            _check_quotas(user, upload_bytes)
            job = Job.objects.create(
                **({"id": id} if id else {}),
                title=title,
                function=function,
                arguments=arguments,
                created_by=user,
                page=page,
                lock=lock,
                upload=upload,
                upload_bytes=upload_bytes,
            )
    except IntegrityError:
        _forget_upload(upload)
        running = Job.objects.unfinished().filter(lock=lock).first()
        if not lock or running is None:
            raise
        raise AlreadyRunning(running) from None
    except QuotaReached:
        _forget_upload(upload)
        raise
    if settings.JOBS_IN_PROCESS:
        run(str(job.pk))
        job.refresh_from_db()
        return job
    _put_on_queue(job, queue_name)
    return job


def _put_on_queue(job, queue_name):
    """Queue ``job`` on ``queue_name`` (``JOBS_QUEUE`` when None); failed and
    QueueUnavailable when the queue cannot be reached."""
    try:
        queue.get_queue(queue_name).enqueue(
            run,
            str(job.pk),
            job_id=str(job.pk),
            result_ttl=0,
            failure_ttl=settings.JOBS_RESULT_SECONDS,
            description=job.title,
        )
    except (RedisError, OSError) as error:
        logger.error("Job %s (%s) could not be queued: %r", job.pk, job.title, error)
        _fail(job, UNREACHABLE)
        raise QueueUnavailable(UNREACHABLE) from error


def request(
    *, coalesce, function, arguments, merge, title, queue_name=None, here=False
):
    """The job that will run ``function(**arguments)``, coalesced under the
    key ``coalesce``: while a job of that key waits for a worker, its
    arguments become ``merge(its arguments, arguments)`` and no job is made;
    otherwise a new one waits (behind the one running, if any). ``title``
    names the job from its arguments. Under ``JOBS_IN_PROCESS`` it runs in
    this process's thread for such work once the current request's response
    is sent (none in a command); otherwise on ``queue_name``. ``here``: the
    caller runs it (``run``), so it is queued nowhere. QueueUnavailable as
    ``enqueue``. No user: the work is the record's, and coalescing bounds it,
    not a quota."""
    for _ in range(10):
        try:
            with transaction.atomic():
                waiting = (
                    Job.objects.select_for_update()
                    .filter(state=Job.State.QUEUED, coalesce=coalesce)
                    .first()
                )
                if waiting is None:
                    job = Job.objects.create(
                        title=title(arguments),
                        function=function,
                        arguments=arguments,
                        coalesce=coalesce,
                    )
                else:
                    merged = merge(waiting.arguments, arguments)
                    if merged == waiting.arguments:
                        return _after_response(waiting, here)
                    if Job.objects.filter(pk=waiting.pk, state=Job.State.QUEUED).update(
                        arguments=merged, title=title(merged)
                    ):
                        waiting.arguments, waiting.title = merged, title(merged)
                        return _after_response(waiting, here)
                    # It began meanwhile: this work waits in a new job.
                    continue
        except IntegrityError:
            # Another request made the waiting job first: add to it.
            continue
        if settings.JOBS_IN_PROCESS or here:
            return _after_response(job, here)
        _put_on_queue(job, queue_name)
        return job
    raise RuntimeError(f"No job of {coalesce} could be made or added to.")


# While a job of its key runs, a coalesced job that a worker took waits this
# long between its tries to begin.
COALESCED_PAUSE = 1.0


def _begin(job):
    """Mark ``job`` running, with the process and database session it runs in;
    False when it no longer waits (given up meanwhile). A coalesced job first
    waits for the running one of its key, still waiting itself (so requests
    still add to it): it runs under its key as its lock, which the database
    allows one unfinished job at a time."""
    started = {
        "state": Job.State.RUNNING,
        "started_at": timezone.now(),
        "worker": f"{socket.gethostname()}:{os.getpid()}",
        "session": database_session(),
    }
    if not job.coalesce:
        for name, value in started.items():
            setattr(job, name, value)
        job.save(update_fields=list(started))
        return True
    while True:
        try:
            with transaction.atomic():
                begun = Job.objects.filter(pk=job.pk, state=Job.State.QUEUED).update(
                    lock=job.coalesce, **started
                )
        except IntegrityError:
            # Its worker gone, the running one is failed here, and this begins.
            refresh_all(list(Job.objects.unfinished().filter(lock=job.coalesce)))
            time.sleep(COALESCED_PAUSE)
            continue
        if begun:
            # With whatever was added to it while it waited.
            job.refresh_from_db()
        return bool(begun)


def _check_quotas(user, upload_bytes):
    """Raise QuotaReached past the user's share of the queue or of the cache.
    The user's row is locked first, so that two requests of theirs at once
    are counted one after the other (PostgreSQL; SQLite writes one at a time
    anyway)."""
    if user is None or not user.pk:
        return
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    theirs = Job.objects.filter(created_by=user)
    most = settings.JOBS_MAX_UNFINISHED_PER_USER
    if theirs.unfinished().count() >= most:
        raise QuotaReached(
            f"You have {most} jobs waiting or running, the most one person may "
            "have at once: start this one once one of them has finished."
        )
    kept = theirs.keeping_uploads().aggregate(kept=Sum("upload_bytes"))["kept"] or 0
    limit = settings.JOBS_MAX_UPLOAD_BYTES_PER_USER
    if upload_bytes and kept + upload_bytes > limit:
        raise QuotaReached(
            f"Your uploads waiting for their jobs hold {filesizeformat(kept)}; "
            f"with this file's {filesizeformat(upload_bytes)} they would pass the "
            f"{filesizeformat(limit)} one person may keep. Wait for an import "
            "to finish, or for an upload to expire (an hour after it was sent)."
        )


def _forget_upload(key):
    """Remove the upload kept under ``key`` (nothing without one)."""
    if not key:
        return
    try:
        cache.delete(key)
    except (RedisError, OSError) as error:
        # It expires on its own within JOBS_UPLOAD_SECONDS.
        logger.warning("The upload %s could not be removed: %r", key, error)


def _verdict_key(job_id):
    return f"job:{job_id}:verdict"


def _fail(job, why):
    """Mark ``job`` failed for ``why`` and remove its upload, unless it finished
    meanwhile: its own verdict stands."""
    failed = (
        Job.objects.unfinished()
        .filter(pk=job.pk)
        .update(
            state=Job.State.FAILED, summary=why, finished_at=timezone.now(), upload=""
        )
    )
    if failed:
        _forget_upload(job.upload)
    job.refresh_from_db()


def _fail_here(job, why):
    """``_fail`` from the job's own process, whose database may have gone:
    tried again on a new connection, and else ``why`` is kept in the shared
    cache, so that whoever sees the job ended tells what happened, not that
    its worker died."""
    try:
        _fail(job, why)
        return
    except DATABASE_LOST:
        if connection.in_atomic_block:
            raise
        connection.close()
    try:
        _fail(job, why)
    except DATABASE_LOST:
        try:
            cache.set(_verdict_key(job.pk), why, settings.JOBS_RESULT_SECONDS)
        except (RedisError, OSError):
            logger.warning("Job %s: why it failed could not be kept", job.pk)
        raise


def run(job_id):
    """Run the job ``job_id``: what the worker calls."""
    job = Job.objects.get(pk=job_id)
    if not _begin(job):
        return
    token = _current.set(job_id)
    try:
        summary, result = import_string(job.function)(**job.arguments)
    except ValueError as error:
        # The job's own refusal (a file it cannot read): told, not logged.
        why = str(error)
    except DATABASE_LOST as error:
        logger.exception("Job %s (%s) lost its database", job_id, job.title)
        why = DATABASE_FAILED.format(error=f"{type(error).__name__}: {error}".strip())
    except Exception as error:
        logger.exception("Job %s (%s) failed", job_id, job.title)
        why = f"Failed: {type(error).__name__}: {error}"
    else:
        why = None
        cache.set(_result_key(job_id), result, settings.JOBS_RESULT_SECONDS)
    finally:
        _current.reset(token)
        _run_finishers()
    if why is not None:
        _fail_here(job, why)
        return
    job.state = Job.State.FINISHED
    job.summary = summary
    job.finished_at = timezone.now()
    job.save(update_fields=["state", "summary", "finished_at"])
    if job.upload and cache.get(job.upload) is None:
        # The job was done with its upload: it no longer counts as kept.
        Job.objects.filter(upload=job.upload).update(upload="")


# This process's thread for coalesced jobs under JOBS_IN_PROCESS, whether one
# was asked for since it last looked, and whether one waits for the end of a
# response to be started.
_background = {"thread": None, "asked": False, "due": False}
_background_lock = threading.Lock()


def _after_response(job, here=False):
    """``job``, to be run by this process's thread once the current
    response is sent (``JOBS_IN_PROCESS``; ``here``: by the caller)."""
    if settings.JOBS_IN_PROCESS and not here:
        with _background_lock:
            _background["due"] = True
    return job


def start_after_response(**kwargs):
    """Start the thread of coalesced jobs if a request asked for one: what
    ``request_finished`` calls once a response has been sent."""
    with _background_lock:
        due, _background["due"] = _background["due"], False
    if due and settings.JOBS_IN_PROCESS:
        _run_in_background()


# Whatever asks for such work in this process has imported this module.
request_finished.connect(start_after_response, dispatch_uid="jobs-after-response")


def resume_waiting():
    """Under ``JOBS_IN_PROCESS``, have the coalesced jobs waiting (left by a
    command, or by a process that ended) run after the current response: a
    chore of the web processes."""
    if not settings.JOBS_IN_PROCESS:
        return
    waiting = Job.objects.filter(state=Job.State.QUEUED).exclude(coalesce="")
    if waiting.exists():
        with _background_lock:
            _background["due"] = True


def _run_in_background():
    """Have this process's thread run the coalesced jobs waiting (started
    when none runs)."""
    with _background_lock:
        _background["asked"] = True
        if _background["thread"] is None:
            thread = threading.Thread(
                target=_run_waiting, name="coalesced-jobs", daemon=True
            )
            _background["thread"] = thread
            thread.start()


def _run_waiting():
    """Run the coalesced jobs waiting, oldest first, until none is left and
    none was asked for since; then end, closing the thread's connections."""
    try:
        while True:
            with _background_lock:
                if not _background["asked"]:
                    _background["thread"] = None
                    return
                _background["asked"] = False
            waiting = (
                Job.objects.filter(state=Job.State.QUEUED)
                .exclude(coalesce="")
                .order_by("created_at")
            )
            for job_id in list(waiting.values_list("pk", flat=True)):
                run(str(job_id))
    except Exception:
        logger.exception("The coalesced jobs of this process stopped")
        with _background_lock:
            _background["thread"] = None
    finally:
        connections.close_all()


def wait_for_background():
    """Return once this process's thread of coalesced jobs has ended."""
    thread = _background["thread"]
    if thread is not None:
        thread.join()


def _run_finishers():
    """Run each of ``JOBS_FINISHERS``; one that fails is logged, not fatal:
    the job's own verdict stands."""
    for path in settings.JOBS_FINISHERS:
        try:
            import_string(path)()
        except Exception:
            logger.exception("The finisher %s failed", path)


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
            job.refresh_from_db()
        elif why:
            if why == GONE:
                # Its process ended after saying why it failed.
                why = _recorded_verdict(job) or why
            _fail(job, why)


def _recorded_verdict(job):
    """Why the job's own process said it failed, when it could not write it
    (``_fail_here``), or None."""
    try:
        return cache.get(_verdict_key(job.pk))
    except (RedisError, OSError):
        return None


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
