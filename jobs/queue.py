"""The queue background jobs run on: RQ on Redis, through django-rq."""

import django_rq
from django.conf import settings
from rq.job import JobStatus
from rq.registry import StartedJobRegistry
from rq.utils import current_timestamp

# What the queue says of a job it will not finish: failed (its work horse
# died, it overran its time), stopped or cancelled.
GIVEN_UP = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}
# A job the queue holds as started whose worker's heartbeats stopped: the
# worker is gone, its work horse may not be.
UNANSWERED = "unanswered"


def get_queue():
    return django_rq.get_queue(settings.JOBS_QUEUE)


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
    started = StartedJobRegistry(queue=queue)
    ids = [str(job_id) for job_id in job_ids]
    with queue.connection.pipeline(transaction=False) as pipeline:
        for job_id in ids:
            pipeline.hget(queue.job_class.key_for(job_id), "status")
        # The register's entries are "job id:execution id", scored by when
        # their heartbeat lapses.
        pipeline.zrangebyscore(started.key, 0, current_timestamp())
        *found, lapsed = pipeline.execute()
    lapsed_ids = {_text(entry).partition(":")[0] for entry in lapsed}
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
