"""The workers' chores, done by the web process when there are no workers.

With ``JOBS_CHORES_IN_PROCESS`` (on with ``JOBS_IN_PROCESS``, as under
``make run``: no Redis, no worker) nothing would run the chores a worker
runs between jobs (``JOBS_CHORES``: a scheduled
change whose time has come, the page cache's outbox), so a request does
them first, at most once every ``JOBS_CHORE_SECONDS`` in each process, and
then goes on as usual; one that fails is logged, and the request is served
all the same.
"""

import logging
import threading
import time

from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_last = {"at": None}


def chores_due():
    """Whether this process's chores are due, claiming them if so."""
    now = time.monotonic()
    with _lock:
        last = _last["at"]
        if last is not None and now - last < settings.JOBS_CHORE_SECONDS:
            return False
        _last["at"] = now
        return True


def run_chores_here():
    """Run each of ``JOBS_CHORES`` in this process; a failure is logged."""
    for path in settings.JOBS_CHORES:
        try:
            import_string(path)()
        except Exception:
            logger.exception("The chore %s failed", path)


class InProcessChoresMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if settings.JOBS_CHORES_IN_PROCESS and chores_due():
            run_chores_here()
        return self.get_response(request)
