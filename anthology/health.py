"""Health for load balancers and the shared cache's probe: the database, the
cache and the queue each answer, at the cost of one query and two round trips
to Redis, so it can be asked every second."""

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import JsonResponse
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

IN_PROCESS = "not used: jobs run in the web process"


@never_cache
@require_safe
def health(request):
    """Each part's state, ``ok`` or what failed; 503 unless all are ok. Jobs
    run in the web process (``JOBS_IN_PROCESS``) need no queue."""
    states = {}
    for name, (check, errors) in CHECKS.items():
        if name == "queue" and settings.JOBS_IN_PROCESS:
            states[name] = IN_PROCESS
            continue
        try:
            check()
        except errors as error:
            states[name] = f"failing: {type(error).__name__}"
        else:
            states[name] = "ok"
    healthy = all(state in {"ok", IN_PROCESS} for state in states.values())
    return JsonResponse(states, status=200 if healthy else 503)
