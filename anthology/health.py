"""Health for the shared cache's probe and for operators.

``/health/`` is the probe's (Varnish, a load balancer): it answers 200 while
the site can serve pages, that is while the database answers. The cache and
the queue are reported, and a failing one makes the site ``degraded``, not
down: pages are then rendered from the database and jobs refused with a
message, which beats every reader getting the probe's 503. ``/health/ready/``
is the operators': 200 only while every part answers, 503 naming what fails;
for it the queue answers only while a worker listens on each of its queues
(``jobs.queue.unattended``): a queue nobody takes jobs from would keep them
waiting for ever; and each of ``READINESS_CHECKS`` must say ``ok`` (no
scheduled change is late). The probe costs one query and two Redis round trips, the
readiness page two more, each bounded by the Redis timeouts
(``REDIS_CONNECT_TIMEOUT``, ``REDIS_SOCKET_TIMEOUT``).
"""

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from redis.exceptions import RedisError

from jobs import queue


def check_database():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def check_cache():
    # A read crosses the network to the shared cache like a write would.
    cache.get("health:probe")


CHECKS = {
    "database": (check_database, DatabaseError),
    "cache": (check_cache, (RedisError, OSError)),
    "queue": (queue.check, (RedisError, OSError)),
}

# Without it no page can be served; without the others the site still serves.
ESSENTIAL = {"database"}

IN_PROCESS = "not used: jobs run in the web process"


def states():
    """Each part's state: ``ok``, or what failed. Jobs run in the web process
    (``JOBS_IN_PROCESS``) need no queue."""
    found = {}
    for name, (check, errors) in CHECKS.items():
        if name == "queue" and settings.JOBS_IN_PROCESS:
            found[name] = IN_PROCESS
            continue
        try:
            check()
        except errors as error:
            found[name] = f"failing: {type(error).__name__}"
        else:
            found[name] = "ok"
    return found


def _is_ok(state):
    return state in {"ok", IN_PROCESS}


@never_cache
@require_safe
def health(request):
    """Whether pages can be served: 200 while the database answers, with
    ``status`` ``ok``, or ``degraded`` while the cache or the queue fails;
    503 (``down``) when the database fails."""
    parts = states()
    if not all(_is_ok(parts[name]) for name in ESSENTIAL):
        return JsonResponse({"status": "down", **parts}, status=503)
    status = "ok" if all(map(_is_ok, parts.values())) else "degraded"
    return JsonResponse({"status": status, **parts})


def queue_attended(parts):
    """``parts`` with the queue failing when no worker listens on one of its
    queues (unless it already fails, or is not used)."""
    if parts["queue"] != "ok":
        return parts
    try:
        silent = queue.unattended()
    except (RedisError, OSError) as error:
        return {**parts, "queue": f"failing: {type(error).__name__}"}
    if silent:
        return {**parts, "queue": f"failing: no worker listens on {', '.join(silent)}"}
    return parts


def further_checks():
    """The state of each of ``READINESS_CHECKS`` (a scheduled change left
    past its time), or what failed in asking."""
    found = {}
    for name, path in settings.READINESS_CHECKS.items():
        try:
            found[name] = import_string(path)()
        except DatabaseError as error:
            found[name] = f"failing: {type(error).__name__}"
    return found


@never_cache
@require_safe
def readiness(request):
    """Every part's state for operators: 200 only while all answer, a worker
    listens on each queue, and each of ``READINESS_CHECKS`` is ``ok``."""
    parts = {**queue_attended(states()), **further_checks()}
    ready = all(map(_is_ok, parts.values()))
    return JsonResponse(
        {"status": "ready" if ready else "not ready", **parts},
        status=200 if ready else 503,
    )
