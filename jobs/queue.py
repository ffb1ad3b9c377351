"""The queues background jobs run on: RQ on Redis, through django-rq.

Two queues in the one Redis: ``JOBS_QUEUE``, for the jobs people start
(imports, backups), and ``JOBS_RELATED_QUEUE``, for the record's reading of
itself (related work, candidate topics), each with workers of its own, so
that no import or backup waits behind a recomputation of the whole record.
"""

import django_rq
from django.conf import settings
from rq.job import JobStatus
from rq.registry import StartedJobRegistry
from rq.utils import current_timestamp, utcparse
from rq.worker_registration import WORKERS_BY_QUEUE_KEY

# What the queue says of a job it will not finish: failed (its work horse
# died, it overran its time), stopped or cancelled.
GIVEN_UP = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}
# A job the queue holds as started whose worker's heartbeats stopped: the
# worker is gone, its work horse may not be.
UNANSWERED = "unanswered"


def get_queue(name=None):
    """The queue ``name`` (``JOBS_QUEUE`` when None). Every queue lives in the
    jobs' Redis with the settings of ``JOBS_QUEUE``'s (``RQ_QUEUES``)."""
    main = django_rq.get_queue(settings.JOBS_QUEUE)
    if name is None or name == main.name:
        return main
    return type(main)(
        name,
        connection=main.connection,
        is_async=main._is_async,
        default_timeout=main._default_timeout,
        job_class=main.job_class,
        serializer=main.serializer,
        commit_mode=main._commit_mode,
    )


def names():
    """The queues workers must listen on."""
    return [settings.JOBS_QUEUE, settings.JOBS_RELATED_QUEUE]


def worker_silence_seconds():
    """How long a worker may say nothing and still be listening: it says so
    before each wait for a job (at least every ``JOBS_CHORE_SECONDS``) and
    every ``JOBS_HEARTBEAT_SECONDS`` while a job runs; three missed, it is
    gone."""
    return 3 * max(settings.JOBS_HEARTBEAT_SECONDS, settings.JOBS_CHORE_SECONDS)


def check():
    """Raise unless the queue's Redis answers."""
    django_rq.get_connection(settings.JOBS_QUEUE).ping()


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def statuses(job_ids):
    """The queue's status of each of ``job_ids`` (RQ's ``JobStatus``, None
    for a job it does not hold, ``UNANSWERED`` for a started job whose
    worker's heartbeats lapsed), in one round trip to its Redis whatever
    their number."""
    queue = get_queue()
    ids = [str(job_id) for job_id in job_ids]
    with queue.connection.pipeline(transaction=False) as pipeline:
        for job_id in ids:
            pipeline.hget(queue.job_class.key_for(job_id), "status")
        # Each register's entries are "job id:execution id", scored by when
        # their heartbeat lapses.
        for name in names():
            started = StartedJobRegistry(queue=get_queue(name))
            pipeline.zrangebyscore(started.key, 0, current_timestamp())
        answers = pipeline.execute()
    found, lapsed = answers[: len(ids)], answers[len(ids) :]
    lapsed_ids = {
        _text(entry).partition(":")[0] for entries in lapsed for entry in entries
    }
    answer = {}
    for job_id, status in zip(ids, found, strict=True):
        status = JobStatus(_text(status)) if status else None
        if status == JobStatus.STARTED and job_id in lapsed_ids:
            status = UNANSWERED
        answer[job_id] = status
    return answer


def status(job_id):
    """The queue's status of the job ``job_id``, as ``statuses`` tells it."""
    return statuses([job_id])[str(job_id)]


def unattended():
    """The queues (``names``) no worker listens on: none registered on it has
    said so within ``worker_silence_seconds``. Two round trips to Redis."""
    connection = get_queue().connection
    with connection.pipeline(transaction=False) as pipeline:
        for name in names():
            pipeline.smembers(WORKERS_BY_QUEUE_KEY % name)
        keys = dict(zip(names(), pipeline.execute(), strict=True))
    with connection.pipeline(transaction=False) as pipeline:
        for found in keys.values():
            for key in found:
                pipeline.hmget(key, "last_heartbeat", "death")
        beats = iter(pipeline.execute())
    since = current_timestamp() - worker_silence_seconds()
    silent = []
    for name, found in keys.items():
        heard = [
            utcparse(_text(last)).timestamp()
            for last, death in (next(beats) for _ in found)
            if last and not death
        ]
        if not any(when >= since for when in heard):
            silent.append(name)
    return silent
