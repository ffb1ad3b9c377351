"""Public pages cached for anonymous readers, and never stale (issue 6).

Every cached page depends on a few *scopes*: ``record`` (everything: the
preface, registries, topics, imports), ``listing`` (what every document list
shows besides its rows: registry totals and the public tags offered as
filters), ``lists`` (the full index, unfiled, registries, tags, feeds,
sitemaps, search), ``topic:<slug>``, ``doc:<identifier>`` and ``decisions``.
Each scope has a *generation* in the shared cache: a token of when it last
changed and a random part. A cached page is stored with the generations it
was rendered under and served only while they are all current, so a change
makes its pages fresh by replacing a few tokens (``expire``), on every
instance that shares the cache, without finding or deleting pages.

The services call ``expire`` (through ``document_changed`` and friends) after
their transaction commits; nothing is done in a signal. A generation missing
from the cache (evicted, or a flushed Redis) is created anew, so a lost token
can only make pages miss, never serve an old one.

The generations are also the validators: a page's ``ETag`` is a digest of
them and its ``Last-Modified`` the newest of their times, so a conditional
request is answered ``304`` from the cache alone, with no SQL query.

When the shared cache cannot be reached (Redis stopped), pages are rendered
live from the database without validators, and the expirations that could
not be written are written first thing once it answers again (issue 7).
"""

import hashlib
import logging
import secrets
import threading
import time
from collections import OrderedDict
from email.utils import formatdate
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse, HttpResponseNotModified
from django.http.response import HttpResponseBase
from django.urls import Resolver404, resolve
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_http_date_safe, quote_etag
from redis.exceptions import RedisError

from catalogue.references import find_names

RECORD = "record"
LISTING = "listing"
LISTS = "lists"
DECISIONS = "decisions"

# Which scopes each public page depends on, by URL name. Pages not named here
# (the admin, exports, citation downloads) are never cached.
PAGES = {
    "catalogue:index": lambda kw: [LISTS],
    "catalogue:search": lambda kw: [LISTS],
    "catalogue:unfiled": lambda kw: [LISTS, LISTING],
    "catalogue:registry-list": lambda kw: [LISTS],
    "catalogue:registry-detail": lambda kw: [LISTS, LISTING],
    "catalogue:tag-detail": lambda kw: [LISTS, LISTING],
    "catalogue:feed": lambda kw: [LISTS],
    "catalogue:sitemap": lambda kw: [LISTS, DECISIONS],
    "catalogue:sitemap-section": lambda kw: [LISTS, DECISIONS],
    "catalogue:topic-detail": lambda kw: [LISTING, topic_scope(kw["slug"])],
    "catalogue:topic-feed": lambda kw: [topic_scope(kw["slug"])],
    "catalogue:document-detail": lambda kw: [document_scope(kw["identifier"])],
    "catalogue:document-version": lambda kw: [document_scope(kw["identifier"])],
    "catalogue:decision-list": lambda kw: [DECISIONS],
    "catalogue:decision-detail": lambda kw: [DECISIONS],
}


def topic_scope(slug):
    return f"topic:{slug}"


def document_scope(identifier):
    return f"doc:{identifier}"


def _generation_key(scope):
    return f"gen:{scope}"


def _new_generation():
    # Milliseconds since the epoch (for Last-Modified), then a random part so
    # that two instances expiring at once never mint the same token.
    return f"{time.time_ns() // 1_000_000}.{secrets.token_hex(6)}"


logger = logging.getLogger(__name__)

# What the shared cache fails with when it cannot be reached.
CACHE_ERRORS = (RedisError, OSError)

# Scopes whose expiry could not be written while the cache was unreachable;
# written before this process next trusts a generation.
_unwritten = set()


class CacheUnavailable(Exception):
    """The shared cache did not answer: serve live, trust no generation."""


def _read(scopes, page_key):
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
        page = local_pages.get(page_key, current)
        if page is None:
            page = cache.get(page_key)
            if page is None or page[0] != current:
                return current, None
            local_pages.put(page_key, page)
        return current, page
    except CACHE_ERRORS as error:
        raise CacheUnavailable(str(error)) from error


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


def _expire_now(scopes):
    try:
        _write_expiry(scopes)
    except CACHE_ERRORS:
        logger.warning("Shared cache unreachable; expiry of %s kept for later", scopes)
        _unwritten.update(scopes)


def _write_expiry(scopes):
    cache.set_many(
        {_generation_key(scope): _new_generation() for scope in scopes},
        timeout=None,
    )


def expire_everything():
    """A change every page may show (preface, registry, topic, an import)."""
    expire(RECORD)


def document_scopes(document, *, topic_slugs=(), names=()):
    """The scopes a change to a public ``document`` affects.

    Its own pages, its topic (and ``topic_slugs``, where it was filed before),
    the site-wide lists, the records its text names now or named before
    (``names``, for their "Referenced by"), and the records whose text names
    it, with their topics (their links say whether it is retired, superseded
    or has a newer version).
    """
    from catalogue.models import DecisionRecord, Reference

    scopes = {LISTS, document_scope(document.identifier)}
    scopes.update(topic_scope(slug) for slug in topic_slugs if slug)
    if document.topic_id is not None:
        scopes.add(topic_scope(document.topic.slug))
    for name in [*names, *find_names(document.reference_text)]:
        if name.prefix == DecisionRecord.PREFIX:
            scopes.add(DECISIONS)
        else:
            scopes.add(document_scope(f"{name.prefix}-{name.number:03d}"))
    scopes |= _naming_scopes(
        Reference.objects.filter(
            prefix=document.registry.prefix, number=document.number
        )
    )
    if _preface_names(document.registry.prefix, document.number):
        scopes.add(RECORD)
    return scopes


def _naming_scopes(references):
    """Scopes of the records whose text holds these references."""
    scopes = set()
    rows = references.values_list(
        "document__registry__prefix",
        "document__number",
        "document__topic__slug",
        "decision_id",
    )
    for prefix, number, slug, decision_id in rows:
        if decision_id is not None:
            scopes.add(DECISIONS)
        else:
            scopes.add(document_scope(f"{prefix}-{number:03d}"))
            if slug:
                scopes.add(topic_scope(slug))
    return scopes


def _preface_names(prefix, number):
    from catalogue.models import Preface

    preface = Preface.objects.first()
    return preface is not None and any(
        name.key == (prefix, number) for name in find_names(preface.text)
    )


def document_before(document):
    """What ``document_changed`` needs to know of a document before a change."""
    return {
        "topic_slugs": [document.topic.slug] if document.topic_id else [],
        "names": find_names(document.reference_text),
    }


def document_changed(document, *, before=None, listing=False):
    """Expire the pages a change to public ``document`` affects.

    ``listing``: the change alters what every document list shows besides its
    rows (a registry's total, the public tags), as a first publication does.
    """
    scopes = document_scopes(document, **(before or {}))
    if listing:
        scopes.add(LISTING)
    expire(*scopes)


def decision_changed(record):
    """Expire the pages a change to a decision record affects."""
    from catalogue.models import DecisionRecord, Reference

    scopes = {DECISIONS, LISTS}
    scopes |= _naming_scopes(
        Reference.objects.filter(prefix=DecisionRecord.PREFIX, number=record.number)
    )
    if _preface_names(DecisionRecord.PREFIX, record.number):
        scopes.add(RECORD)
    expire(*scopes)


# Serving


def _cacheable_request(request):
    # A reader without a session is anonymous: deciding it costs no query. A
    # signed-in editor (or anyone with a session) always gets the live page.
    return (
        settings.PAGE_CACHE
        and request.method in {"GET", "HEAD"}
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
    )


def page_scopes(match):
    """The scopes of the page a URL resolved to, or None if it is never cached."""
    if match is None or match.view_name not in PAGES:
        return None
    return [RECORD, *PAGES[match.view_name](match.kwargs)]


def _page_key(request):
    # Pages print absolute URLs (canonical links, feeds), so the host counts.
    # The version names what a stored page holds: a page kept by an older
    # release (without its headers) is never served by this one.
    url = f"{request.scheme}://{request.get_host()}{request.get_full_path()}"
    return "page:v2:" + hashlib.sha256(url.encode()).hexdigest()


def _validators(current):
    digest = hashlib.sha256(
        "|".join(f"{k}={v}" for k, v in sorted(current.items())).encode()
    ).hexdigest()[:32]
    changed_ms = max(int(value.split(".", 1)[0]) for value in current.values())
    # Last-Modified has whole seconds: it is sent only once the second of the
    # newest change is over, so a later change always has a later date and an
    # If-Modified-Since can never be answered 304 across a change.
    last_modified = changed_ms // 1000
    if time.time() < last_modified + 1:
        last_modified = None
    return quote_etag(digest), last_modified


def _not_modified(request, etag, last_modified):
    if_none_match = request.META.get("HTTP_IF_NONE_MATCH")
    if if_none_match is not None:
        return etag in {tag.strip() for tag in if_none_match.split(",")} or (
            if_none_match.strip() == "*"
        )
    since = request.META.get("HTTP_IF_MODIFIED_SINCE")
    if since is None or last_modified is None:
        return False
    since = parse_http_date_safe(since)
    return since is not None and last_modified <= since


def _with_validators(response, etag, last_modified):
    response["ETag"] = etag
    _with_last_modified(response, last_modified)
    # Shared caches may keep it, but must ask again each time (never stale).
    patch_cache_control(response, public=True, no_cache=True)
    patch_vary_headers(response, ["Cookie"])
    return response


def _with_last_modified(response, last_modified):
    if last_modified is not None:
        response["Last-Modified"] = formatdate(last_modified, usegmt=True)
    return response


# A stored page keeps its headers, ETag and caching ones included (the page
# is served only under the generations they were made for), but not its
# Last-Modified: it is sent once the second of the change is over.
UNKEPT_HEADERS = {"last-modified", "set-cookie"}


@lru_cache(maxsize=1024)
def _path_scopes(path):
    """``page_scopes`` of the page at ``path``, resolved once per process."""
    try:
        scopes = page_scopes(resolve(path))
    except Resolver404:
        return None
    return None if scopes is None else tuple(scopes)


class PublicPageCacheMiddleware:
    """Serve anonymous readers' public pages from the shared cache.

    Put it after SecurityMiddleware and WhiteNoise, before the rest. A page
    found in the cache (or a 304) is answered here, without the session,
    CSRF, authentication, CSP or any other middleware below and without
    resolving a view: it is stored with the headers those gave it when it
    was rendered (CSP, X-Frame-Options, Content-Type), and the middleware
    above adds its own to both alike. A page not found goes on and is stored
    on its way back, once everything below has had its say.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        page = self._lookup(request)
        if isinstance(page, HttpResponseBase):
            return page
        response = self.get_response(request)
        if page is None:
            if settings.SESSION_COOKIE_NAME in request.COOKIES and page_scopes(
                getattr(request, "resolver_match", None)
            ):
                # A live page of someone with a session: never for others.
                patch_cache_control(response, private=True, no_cache=True)
                patch_vary_headers(response, ["Cookie"])
            return response
        key, current, etag, last_modified = page
        if response.status_code == 200:
            _with_validators(response, etag, None)
        if self._storable(request, response):
            stored = (
                current,
                response.status_code,
                response.content,
                {
                    header: value
                    for header, value in response.items()
                    if header.lower() not in UNKEPT_HEADERS
                },
            )
            try:
                cache.set(key, stored, timeout=settings.PAGE_CACHE_SECONDS)
            except CACHE_ERRORS:
                logger.warning("Shared cache unreachable; page %s not stored", key)
            else:
                local_pages.put(key, stored)
        if response.status_code == 200:
            _with_last_modified(response, last_modified)
        return response

    def _lookup(self, request):
        """The response from the cache, what storing the page will need, or None.

        None: the page is never cached, or not for this request, or the cache
        cannot be reached (rendered live from the database, as for an editor).
        """
        if not _cacheable_request(request):
            return None
        scopes = _path_scopes(request.path_info)
        if scopes is None:
            return None
        # The generations are read before the view reads the database, so a
        # page rendered from data older than a change is stored under the
        # generation the change replaced, and never served after it.
        key = _page_key(request)
        try:
            current, stored = _read(scopes, key)
        except CacheUnavailable:
            return None
        etag, last_modified = _validators(current)
        if _not_modified(request, etag, last_modified):
            return _with_validators(HttpResponseNotModified(), etag, last_modified)
        if stored is None:
            return key, current, etag, last_modified
        _, status, content, headers = stored
        response = HttpResponse(content, status=status, headers=headers)
        return _with_last_modified(response, last_modified)

    def _storable(self, request, response):
        session = getattr(request, "session", None)
        return (
            request.method == "GET"
            and response.status_code == 200
            and not response.streaming
            and not response.cookies
            and not response.has_header("Set-Cookie")
            # Without a session cookie the session is empty, so reading it
            # (auditlog's middleware reads the user) is harmless; writing it,
            # or making a CSRF token, makes the page personal.
            and not (session is not None and session.modified)
            and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
            and "private" not in response.get("Cache-Control", "")
        )
