"""Django's Redis cache, with one Redis client per connection pool.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` for every
cache operation, and redis-py fills a table of about 170 response callbacks
each time it makes one, which costs as much as the round trip that reads a
cached page's generations. A client is thread-safe over its pool, so one per
pool is kept and reused.
"""

from django.core.cache.backends import redis as django_redis
from redis.exceptions import RedisError

# What the shared cache fails with when it cannot be reached.
CACHE_ERRORS = (RedisError, OSError)


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
