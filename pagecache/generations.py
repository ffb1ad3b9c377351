"""Generations: what makes a cached page current.

Every cached page depends on a few *scopes*, named by the site (a setting,
``PAGE_CACHE_SCOPES``, maps a page to its scopes) plus ``EVERYTHING``, which
every page depends on. Each scope has a *generation* in the shared cache: a
token of when it last changed and a random part. A cached page is stored with
the generations it was rendered under and served only while they are all
current, so a change makes its pages fresh by replacing a few tokens
(``expire``), on every instance that shares the cache, without finding or
deleting pages.

Callers expire scopes after their change commits (the shared caches in front,
``frontends``, are then purged of the same scopes); a generation missing from
the cache (evicted, or a flushed Redis) is minted anew, so a lost token can
only make pages miss, never serve an old one.

When the shared cache cannot be reached (Redis stopped), pages are rendered
live without validators, and the expirations that could not be written are
written first thing once it answers again.
"""

import logging
import secrets
import threading
import time
from collections import OrderedDict

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from redis.exceptions import RedisError

from pagecache import frontends

# The scope every page depends on: expiring it makes every page fresh.
EVERYTHING = "everything"

logger = logging.getLogger(__name__)

# What the shared cache fails with when it cannot be reached.
CACHE_ERRORS = (RedisError, OSError)

# Scopes whose expiry could not be written while the cache was unreachable;
# written before this process next trusts a generation.
_unwritten = set()


class CacheUnavailable(Exception):
    """The shared cache did not answer: serve live, trust no generation."""


def _generation_key(scope):
    return f"gen:{scope}"


def _new_generation():
    # Milliseconds since the epoch (for Last-Modified), then a random part so
    # that two instances expiring at once never mint the same token.
    return f"{time.time_ns() // 1_000_000}.{secrets.token_hex(6)}"


def changed_at_ms(generation):
    """When a generation was minted, in milliseconds since the epoch."""
    return int(generation.split(".", 1)[0])


def read(scopes, page_key):
    """The current generation of each scope, minting those the cache lacks,
    and the page stored at ``page_key`` under them (or None).

    The page comes from this process's copies when it holds the one stored
    under these very generations; from the shared cache otherwise. Raise
    CacheUnavailable when the cache cannot be reached or keep a token.
    """
    try:
        if _unwritten:
            _write_expiry(set(_unwritten))
            _unwritten.clear()
        current = _current(scopes)
        page = local_pages.get(page_key, current)
        if page is None:
            page = cache.get(page_key)
            if page is None or page[0] != current:
                return current, None
            local_pages.put(page_key, page)
        return current, page
    except CACHE_ERRORS as error:
        raise CacheUnavailable(str(error)) from error


def _current(scopes):
    keys = {scope: _generation_key(scope) for scope in scopes}
    found = cache.get_many(keys.values())
    current = {}
    for scope, key in keys.items():
        value = found.get(key)
        if value is None:
            # add() keeps a token another process minted meanwhile.
            cache.add(key, _new_generation(), timeout=None)
            value = cache.get(key)
            if value is None:
                raise CacheUnavailable(f"{key} could not be kept")
        current[scope] = value
    return current


def still_current(current):
    """Whether the generations in ``current`` are all still the cache's own."""
    keys = {scope: _generation_key(scope) for scope in current}
    try:
        found = cache.get_many(keys.values())
    except CACHE_ERRORS:
        return False
    return all(found.get(key) == current[scope] for scope, key in keys.items())


def store(page_key, page):
    """Keep ``page`` (its generations first) in the shared cache and here."""
    try:
        cache.set(page_key, page, timeout=settings.PAGE_CACHE_SECONDS)
    except CACHE_ERRORS:
        logger.warning("Shared cache unreachable; page %s not stored", page_key)
    else:
        local_pages.put(page_key, page)


class LocalPages:
    """The pages this process served last, up to ``limit`` bytes of them.

    A page read from the shared cache crosses the network whole; a copy kept
    here costs nothing to read. A copy is served only while the generations
    it was stored under are the current ones, read from the shared cache for
    every request, so a change on any instance retires it at once.
    """

    def __init__(self, limit):
        self.limit = limit
        self.pages = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def get(self, key, current):
        with self.lock:
            page = self.pages.get(key)
            if page is None:
                return None
            if page[0] != current:
                self._drop(key)
                return None
            self.pages.move_to_end(key)
            return page

    def put(self, key, page):
        size = len(page[2])
        if size > self.limit:
            return
        with self.lock:
            if key in self.pages:
                self._drop(key)
            self.pages[key] = page
            self.size += size
            while self.size > self.limit:
                self._drop(next(iter(self.pages)))

    def clear(self):
        with self.lock:
            self.pages.clear()
            self.size = 0

    def _drop(self, key):
        self.size -= len(self.pages.pop(key)[2])


local_pages = LocalPages(settings.PAGE_CACHE_LOCAL_BYTES)


def expire(*scopes):
    """Make every page of ``scopes`` fresh, once the transaction commits."""
    scopes = set(scopes)
    if scopes:
        transaction.on_commit(lambda: _expire_now(scopes))


def expire_everything():
    """Make every cached page fresh, once the transaction commits."""
    expire(EVERYTHING)


def _expire_now(scopes):
    try:
        _write_expiry(scopes)
    except CACHE_ERRORS:
        logger.warning("Shared cache unreachable; expiry of %s kept for later", scopes)
        _unwritten.update(scopes)
    # The shared caches in front drop the same pages once the new generations
    # are written, so their next request renders under them.
    frontends.purge(scopes)


def _write_expiry(scopes):
    cache.set_many(
        {_generation_key(scope): _new_generation() for scope in scopes},
        timeout=None,
    )
