"""A deployment check: the shared cache's Redis has a memory limit and evicts.

Every cached page is a Redis entry, and a reader can ask for many pages (each
search is one); without a limit Redis grows until the machine runs out of
memory, and with ``noeviction`` a full Redis refuses every new page and
generation. Any limit with an evicting policy is safe: an evicted page is
rendered again, an evicted generation is minted anew (pages miss, never serve
an old one).
"""

from django.core.cache import caches
from django.core.checks import Warning, register

from pagecache.backends import CACHE_ERRORS, RedisCache


def memory_problems(config):
    """What is wrong with Redis's ``maxmemory`` and ``maxmemory-policy``."""
    problems = []
    if int(config.get("maxmemory") or 0) == 0:
        problems.append(
            "Redis has no memory limit: set maxmemory (e.g. `maxmemory 1gb`)."
        )
    if config.get("maxmemory-policy", "noeviction") == "noeviction":
        problems.append(
            "Redis evicts nothing when full: set `maxmemory-policy allkeys-lru`."
        )
    return problems


@register("pagecache", deploy=True)
def check_redis_memory(app_configs=None, **kwargs):
    shared = caches["default"]
    if not isinstance(shared, RedisCache):
        return []
    try:
        config = shared._cache.get_client().config_get("maxmemory*")
    except CACHE_ERRORS as error:
        return [
            Warning(
                f"Could not read the shared cache's memory settings: {error}",
                hint="A managed Redis may hide CONFIG: check its limit and policy.",
                id="pagecache.W002",
            )
        ]
    return [
        Warning(problem, id="pagecache.W001") for problem in memory_problems(config)
    ]
