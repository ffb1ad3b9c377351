"""The queue background jobs run on: RQ on Redis, through django-rq."""

import django_rq
from django.conf import settings
from rq.exceptions import InvalidJobOperation
from rq.job import JobStatus
from rq.registry import StartedJobRegistry

# What the queue says of a job it will not finish: failed (its work horse
# died, it overran its time, or its worker's heartbeats stopped), stopped or
# cancelled.
GIVEN_UP = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


def get_queue():
    return django_rq.get_queue(settings.JOBS_QUEUE)


def check():
    """Raise unless the queue's Redis answers."""
    django_rq.get_connection(settings.JOBS_QUEUE).ping()


def status(job_id):
    """The queue's status of the job ``job_id`` (RQ's ``JobStatus``), or None
    when it holds no such job. Jobs whose worker stopped its heartbeats, on
    any host, are first moved to the failed (RQ's cleanup of its register of
    started jobs, which a worker also runs now and then)."""
    queue = get_queue()
    StartedJobRegistry(queue=queue).cleanup()
    try:
        return queue.job_class(str(job_id), connection=queue.connection).get_status()
    except InvalidJobOperation:
        return None
