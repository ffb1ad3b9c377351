"""Fragments: pieces of HTML many pages and many renders share, kept with
the pages.

A fragment is stored under a key that is a digest of everything it is built
from, so a change to any of those makes a new key, never a stale hit: a
fragment needs no expiry of its own, and one built before a change is simply
never asked for again and ages out with the page cache's lifetime
(``PAGE_CACHE_SECONDS``). Expiring every scope (``expire_everything``) also
retires every fragment: the keys name the ``EVERYTHING`` generation.

Each process keeps copies of the fragments it used last (up to
``PAGE_CACHE_LOCAL_BYTES`` of them, beside its pages) and asks the shared
cache for the others in one round trip. With the page cache off, a process
keeps its own copies only; with its shared cache unreachable, fragments are
built every time.
"""

import hashlib
import threading
from collections import OrderedDict

from django.conf import settings
from django.core.cache import cache

from pagecache import generations
from pagecache.backends import CACHE_ERRORS


def key(*parts):
    """The key of a fragment built from ``parts`` (values whose ``repr``
    says all they hold: strings, numbers, tuples, named tuples, None)."""
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def many(keys, build):
    """``{key: fragment}`` for ``keys``: kept ones where there are, and the
    rest from ``build(missing_keys)`` (a dict), kept for the next render."""
    shared = settings.PAGE_CACHE
    try:
        namespace = _namespace() if shared else "fragment:v1:local:"
    except CACHE_ERRORS:
        generations.distrust()
        return build(list(keys))
    found = local_fragments.get_many(namespace, keys)
    missing = [k for k in keys if k not in found]
    if missing and shared:
        kept = _shared_get(namespace, missing)
        for fragment_key, fragment in kept.items():
            local_fragments.put(namespace + fragment_key, fragment)
        found |= kept
        missing = [k for k in missing if k not in kept]
    if missing:
        built = build(missing)
        if shared:
            _shared_set(namespace, built)
        for fragment_key, fragment in built.items():
            local_fragments.put(namespace + fragment_key, fragment)
        found |= built
    return found


def _namespace():
    # The EVERYTHING generation, as every cached page's: expiring everything
    # retires every fragment too.
    generation = cache.get(generations._generation_key(generations.EVERYTHING))
    return f"fragment:v1:{generation}:"


def _shared_get(namespace, keys):
    try:
        found = cache.get_many([namespace + k for k in keys])
    except CACHE_ERRORS:
        generations.distrust()
        return {}
    return {k.removeprefix(namespace): v for k, v in found.items()}


def _shared_set(namespace, fragments):
    try:
        cache.set_many(
            {namespace + k: v for k, v in fragments.items()},
            timeout=settings.PAGE_CACHE_SECONDS,
        )
    except CACHE_ERRORS:
        generations.distrust()


class LocalFragments:
    """The fragments this process used last, up to ``limit`` characters."""

    def __init__(self, limit):
        self.limit = limit
        self.fragments = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def get_many(self, namespace, keys):
        """``{key: fragment}`` for those of ``keys`` kept under ``namespace``:
        one lock for a page's thousand rows rather than one a row."""
        found = {}
        with self.lock:
            fragments = self.fragments
            for fragment_key in keys:
                fragment = fragments.get(namespace + fragment_key)
                if fragment is not None:
                    fragments.move_to_end(namespace + fragment_key)
                    found[fragment_key] = fragment
        return found

    def put(self, fragment_key, fragment):
        with self.lock:
            if fragment_key in self.fragments:
                return
            self.fragments[fragment_key] = fragment
            self.size += len(fragment)
            while self.size > self.limit:
                self.size -= len(self.fragments.popitem(last=False)[1])

    def clear(self):
        with self.lock:
            self.fragments.clear()
            self.size = 0


local_fragments = LocalFragments(settings.PAGE_CACHE_LOCAL_BYTES)
