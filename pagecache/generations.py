"""Generations: what makes a cached page current.

Every cached page depends on a few *scopes*, named by the site (a setting,
``PAGE_CACHE_SCOPES``, maps a page to its scopes) plus ``EVERYTHING``, which
every page depends on. Each scope has a *generation* in the shared cache: a
token of when it last changed and a random part. A cached page is stored with
the generations it was rendered under and served only while they are all
current, so a change makes its pages fresh by replacing a few tokens
(``expire``), on every instance that shares the cache, without finding or
deleting pages.

A generation missing from the cache (evicted, or a flushed Redis) is minted
anew, so a lost token can only make pages miss, never serve an old one.

Callers expire scopes inside their change's transaction: the expiry is kept
in the outbox (``PendingExpiry``) in that same transaction, so a change that
commits never loses it. Once the change commits, the process writes the new
generations at once, then has the shared caches in front (``frontends``)
purged of the same scopes; the row leaves the outbox when both have landed.
A stage that failed stays in the outbox until a drain lands it: the job
workers between jobs (``outbox.drain``), and every process, which applies the
outbox's unwritten expiries before it trusts a generation, from its start
and again after the shared cache failed it. When the shared cache cannot be
reached (Redis stopped), pages are rendered live without validators.
"""

import datetime
import logging
import secrets
import time

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from pagecache import frontends
from pagecache.backends import CACHE_ERRORS
from pagecache.models import PendingExpiry

# The scope every page depends on: expiring it makes every page fresh.
EVERYTHING = "everything"

logger = logging.getLogger(__name__)

# Whether this process must write the outbox's unwritten expiries before it
# trusts a generation: from its start (a process that died may have left
# some behind), and again whenever the shared cache failed it (its own may be
# among them).
_suspect = True
# Whether this process's purge thread has taken the purges the outbox held
# when it started (with PAGE_CACHE_DRAIN_IN_PROCESS only).
_purges_taken = False


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

    Raise CacheUnavailable when the cache cannot be reached or keep a token.
    """
    try:
        if _suspect:
            _write_unwritten()
        current = _current(scopes)
        page = cache.get(page_key)
        if page is None or page[0] != current:
            return current, None
        return current, page
    except (*CACHE_ERRORS, DatabaseError) as error:
        # Without the outbox read, no generation can be vouched for either.
        distrust()
        raise CacheUnavailable(str(error)) from error


def distrust():
    """Have this process write the outbox's unwritten expiries before it next
    trusts a generation."""
    global _suspect
    _suspect = True


def _write_unwritten():
    """Write the generations of every expiry the outbox holds unwritten (one
    query when there is none), then trust the shared cache's."""
    global _suspect, _purges_taken
    rows = PendingExpiry.objects.all()
    if not settings.PAGE_CACHE_DRAIN_IN_PROCESS:
        rows = rows.unwritten()
    pending = list(rows.values_list("pk", "scopes", "written_at"))
    unwritten = [(pk, scopes) for pk, scopes, written_at in pending if not written_at]
    if unwritten:
        write_expiry({scope for _, scopes in unwritten for scope in scopes})
        landed([pk for pk, _ in unwritten])
        logger.info("Wrote %d expiries left in the outbox", len(unwritten))
    if settings.PAGE_CACHE_DRAIN_IN_PROCESS and not _purges_taken:
        # No job workers drain the outbox: once started, this process's purge
        # thread takes the purges left behind (its own it keeps trying).
        for pk, scopes, _ in pending:
            _purge(pk, scopes, written=True)
        _purges_taken = True
    _suspect = False


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
        distrust()
        return False
    return all(found.get(key) == current[scope] for scope, key in keys.items())


def store(page_key, page):
    """Keep ``page`` (its generations first) in the shared cache."""
    try:
        cache.set(page_key, page, timeout=settings.PAGE_CACHE_SECONDS)
    except CACHE_ERRORS:
        distrust()
        logger.warning("Shared cache unreachable; page %s not stored", page_key)


def expire(*scopes):
    """Make every page of ``scopes`` fresh, once the transaction commits.

    The expiry is kept in the outbox in the caller's transaction, and applied
    at once when it commits; what fails then is applied by a drain.
    """
    scopes = set(scopes)
    if scopes:
        pending = PendingExpiry.objects.create(
            scopes=sorted(scopes),
            retry_at=timezone.now()
            + datetime.timedelta(seconds=settings.PAGE_CACHE_OUTBOX_RETRY_SECONDS),
        )
        # Robust: the change has committed; what fails now stays in the outbox.
        transaction.on_commit(lambda: _apply_now(pending), robust=True)


def expire_everything():
    """Make every cached page fresh, once the transaction commits."""
    expire(EVERYTHING)


def _apply_now(pending):
    try:
        write_expiry(pending.scopes)
    except CACHE_ERRORS:
        logger.warning(
            "Shared cache unreachable; expiry of %s left in the outbox",
            " ".join(pending.scopes),
        )
        distrust()
        written = False
    else:
        landed([pending.pk])
        written = True
    _purge(pending.pk, pending.scopes, written=written)


def _purge(pk, scopes, *, written):
    """Have the shared caches in front purged of ``scopes``, in the background.

    The purge of an expiry counts only once sent after its generations were
    written: sent before, a frontend could fetch the page again from an
    instance still serving it under the old ones, and keep it. One is sent at
    once anyway, as while the shared cache is down the pages are rendered live
    and no frontend keeps them.
    """
    if frontends.configured():
        frontends.purge(
            scopes,
            then=(lambda: _purge_landed(pk)) if written else None,
            keep_trying=settings.PAGE_CACHE_DRAIN_IN_PROCESS,
        )


def _purge_landed(pk):
    """The expiry ``pk`` is purged (on the purge thread): out of the outbox."""
    try:
        rows = PendingExpiry.objects.filter(pk=pk)
        # A read first: it waits for no other connection's lock, and a row
        # already taken out (by a drain) needs no write.
        if rows.exists():
            rows.delete()
    finally:
        # The purge thread holds no connection between purges.
        connection.close()


def landed(pks):
    """Record that the new generations of the expiries ``pks`` are written;
    without shared caches in front to purge, they leave the outbox."""
    rows = PendingExpiry.objects.filter(pk__in=pks)
    if frontends.configured():
        rows.update(written_at=timezone.now())
    else:
        rows.delete()


def write_expiry(scopes):
    """Replace the generations of ``scopes`` in the shared cache."""
    cache.set_many(
        {_generation_key(scope): _new_generation() for scope in scopes},
        timeout=None,
    )
