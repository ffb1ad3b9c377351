"""The queue background jobs run on: RQ on Redis, through django-rq."""

import django_rq
from django.conf import settings


def get_queue():
    return django_rq.get_queue(settings.JOBS_QUEUE)


def check():
    """Raise unless the queue's Redis answers."""
    django_rq.get_connection(settings.JOBS_QUEUE).ping()
