"""The deployment check of the shared cache's Redis memory settings."""

import pytest
from django.test import override_settings

from pagecache.checks import check_redis_memory, memory_problems
from tests.tools import TEST_REDIS_URL, redis_client


def test_a_limit_with_an_evicting_policy_is_fine():
    assert (
        memory_problems({"maxmemory": "1073741824", "maxmemory-policy": "allkeys-lru"})
        == []
    )


def test_no_limit_and_no_eviction_are_each_named():
    assert memory_problems({"maxmemory": "0", "maxmemory-policy": "noeviction"}) == [
        "Redis has no memory limit: set maxmemory (e.g. `maxmemory 1gb`).",
        "Redis evicts nothing when full: set `maxmemory-policy allkeys-lru`.",
    ]


@pytest.mark.redis
def test_the_check_reads_the_shared_caches_own_redis():
    config = redis_client().config_get("maxmemory*")
    with override_settings(
        CACHES={
            "default": {
                "BACKEND": "pagecache.backends.RedisCache",
                "LOCATION": TEST_REDIS_URL,
            }
        }
    ):
        found = check_redis_memory()

    assert [warning.msg for warning in found] == memory_problems(config)
    assert {warning.id for warning in found} <= {"pagecache.W001"}


def test_the_check_reports_a_redis_it_cannot_reach():
    with override_settings(
        CACHES={
            "default": {
                "BACKEND": "pagecache.backends.RedisCache",
                "LOCATION": "redis://127.0.0.1:1/0",
                "OPTIONS": {"socket_connect_timeout": 0.25},
            }
        }
    ):
        [warning] = check_redis_memory()

    assert warning.id == "pagecache.W002"


def test_a_local_memory_cache_is_not_checked():
    assert check_redis_memory() == []
