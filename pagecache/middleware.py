"""Anonymous readers' pages, answered from the shared cache and never stale.

Which pages are cached, and on which scopes each depends, the site says
through ``PAGE_CACHE_SCOPES``: the dotted path of a function that takes a
``ResolverMatch`` and returns the page's scopes, or None for a page that is
never cached. ``PAGE_CACHE_PARAMETERS`` names the query parameters each cached
page reads (``queries.Parameters``); a reader's request with others, or
spelling them otherwise than their one spelling, is redirected to it, so
that only what changes a page makes a cache entry. Everything else here knows
nothing of what the pages show.

The generations of a page's scopes are also its validators: its ``ETag`` is
a digest of them and of the page's encoding (gzip or plain: one ETag a
representation) and its ``Last-Modified`` the newest of their times, so a
conditional request is answered ``304`` from the cache alone, with no SQL
query. ``If-None-Match`` compares weakly, as RFC 9110 (13.1.2) has it for
GET and HEAD: ``W/"…"``, which a proxy that compresses sends back, matches
the page's own ETag. A reader's page the cache does not hold, because it is
off (no Redis) or out of reach, still gets an ETag, a digest of its content,
and its 304.

With shared caches in front (``PAGE_CACHE_FRONTENDS``), a cached page also
gives them a lifetime (``s-maxage``, and ``stale-if-error`` for when the site
is down) and the keys it shows, its scopes, by which a change purges it.
Every other response is ``private``: what the page cache does not vouch for,
no shared cache keeps.
"""

import gzip
import hashlib
import re
import time
from email.utils import formatdate
from functools import cache, lru_cache
from urllib.parse import urlsplit

from django.conf import settings
from django.http import (
    HttpResponse,
    HttpResponseNotModified,
    HttpResponsePermanentRedirect,
)
from django.http.response import HttpResponseBase
from django.urls import Resolver404
from django.urls import resolve as match_path
from django.utils.cache import (
    get_conditional_response,
    patch_cache_control,
    patch_vary_headers,
)
from django.utils.http import parse_etags, parse_http_date_safe, quote_etag
from django.utils.module_loading import import_string

from pagecache import frontends, generations

# A stored page keeps its headers, ETag and caching ones included (the page
# is served only under the generations they were made for), but not its
# Last-Modified: it is sent once the second of the change is over.
UNKEPT_HEADERS = {"last-modified", "set-cookie"}


# As Django's GZipMiddleware reads Accept-Encoding.
ACCEPTS_GZIP_RE = re.compile(r"\bgzip\b")


@cache
def _scopes_of_match():
    return import_string(settings.PAGE_CACHE_SCOPES)


def page_scopes(match):
    """The scopes of the page a URL matched, or None if it is never cached."""
    if match is None:
        return None
    scopes = _scopes_of_match()(match)
    return None if scopes is None else (generations.EVERYTHING, *scopes)


@cache
def _parameters_of_match():
    return import_string(settings.PAGE_CACHE_PARAMETERS)


@lru_cache(maxsize=1024)
def _path_parameters(path):
    """The ``queries.Parameters`` the page at ``path`` reads (it is cached)."""
    return _parameters_of_match()(match_path(path))


def _to_canonical_query(request):
    """A redirect to the page's address with its query spelled canonically,
    or None: a parameter the page ignores (``utm_source``) or another
    spelling of the same value (``page=01``) never makes a cache entry of
    its own."""
    canonical = _path_parameters(request.path_info).canonical(request.GET)
    if canonical is None or canonical == request.META.get("QUERY_STRING", ""):
        return None
    response = HttpResponsePermanentRedirect(
        request.path + (f"?{canonical}" if canonical else "")
    )
    patch_cache_control(response, public=True, max_age=3600)
    return response


@lru_cache(maxsize=1024)
def _path_scopes(path):
    """``page_scopes`` of the page at ``path``, matched once per process."""
    try:
        return page_scopes(match_path(path))
    except Resolver404:
        return None


def has_credentials(request):
    """Whether the request carries credentials the site reads: a session, or
    an ``Authorization`` header at an address that takes one
    (``PAGE_CACHE_CREDENTIAL_PATHS``: the API's tokens). Elsewhere the header
    changes nothing on a page, and is no reason to render it again."""
    return settings.SESSION_COOKIE_NAME in request.COOKIES or (
        "HTTP_AUTHORIZATION" in request.META
        and request.path_info.startswith(tuple(settings.PAGE_CACHE_CREDENTIAL_PATHS))
    )


def _cacheable_request(request):
    # A reader without a session is anonymous: deciding it costs no query. A
    # signed-in editor (or anyone with a session) always gets the live page,
    # and so does a request carrying credentials where they count (an API
    # token).
    return (
        settings.PAGE_CACHE
        and request.method in {"GET", "HEAD"}
        and not has_credentials(request)
    )


def _page_key(request):
    # Pages print absolute URLs under the canonical origin (SITE_URL) whatever
    # Host a request names, so the key is that origin's, never the Host's:
    # another host or port the site answers to (ALLOWED_HOSTS allows every
    # port of a name) is no entry of its own. Request.get_host() still
    # refuses a host the site does not answer to, before the cache is read.
    # The scheme counts: under HTTPS a plain request is redirected.
    # The version names what a stored page holds: a page kept by an older
    # release (without its headers, or with an ETag shared by its gzip and
    # plain copies) is never served by this one.
    # A page is kept gzip-compressed for the readers whose browsers accept it
    # and as it is for the others: two entries.
    request.get_host()
    origin = urlsplit(settings.SITE_URL)
    url = f"{request.scheme}://{origin.netloc.lower()}{request.get_full_path()}"
    encoding = _encoding(request)
    return f"page:v3:{encoding}:" + hashlib.sha256(url.encode()).hexdigest()


def _encoding(request):
    """The representation a reader gets: ``gzip`` or ``identity``."""
    accepted = request.headers.get("Accept-Encoding", "")
    return "gzip" if ACCEPTS_GZIP_RE.search(accepted) else "identity"


def _validators(current, encoding):
    """The ETag and Last-Modified of a page under the generations ``current``,
    in ``encoding``: the gzip and the plain page are two representations, and
    each has an ETag of its own."""
    digest = hashlib.sha256(
        "|".join([*(f"{k}={v}" for k, v in sorted(current.items())), encoding]).encode()
    ).hexdigest()[:32]
    changed_ms = max(generations.changed_at_ms(value) for value in current.values())
    # Last-Modified has whole seconds: it is sent only once the second of the
    # newest change is over, so a later change always has a later date and an
    # If-Modified-Since can never be answered 304 across a change.
    last_modified = changed_ms // 1000
    if time.time() < last_modified + 1:
        last_modified = None
    return quote_etag(digest), last_modified


def _not_modified(request, etag, last_modified, stored):
    if_none_match = request.META.get("HTTP_IF_NONE_MATCH")
    if if_none_match is not None:
        if if_none_match.strip() == "*":
            # "Any representation": only a page known to exist has one; a
            # URL of nothing goes on to its 404.
            return stored is not None and stored[1] == 200
        # The weak comparison: W/"x" matches "x".
        return _opaque(etag) in {_opaque(tag) for tag in parse_etags(if_none_match)}
    since = request.META.get("HTTP_IF_MODIFIED_SINCE")
    if since is None or last_modified is None:
        return False
    since = parse_http_date_safe(since)
    return since is not None and last_modified <= since


def _opaque(etag):
    """An entity tag without its weakness: ``W/"x"`` and ``"x"`` are ``"x"``."""
    return etag.removeprefix("W/")


def _with_validators(response, etag, last_modified, shared_keys=()):
    response["ETag"] = etag
    _with_last_modified(response, last_modified)
    if shared_keys and settings.PAGE_CACHE_FRONTENDS:
        # The shared caches in front keep it until a change purges its keys;
        # browsers ask again each time.
        patch_cache_control(
            response,
            public=True,
            max_age=0,
            s_maxage=settings.PAGE_CACHE_SHARED_SECONDS,
            stale_if_error=settings.PAGE_CACHE_STALE_IF_ERROR_SECONDS,
        )
        for header, value in frontends.key_headers(shared_keys).items():
            response[header] = value
    else:
        # Shared caches may keep it, but must ask again each time (never stale).
        patch_cache_control(response, public=True, no_cache=True)
    # The ETag names the encoding too: a 304 varies as the page does.
    patch_vary_headers(response, ["Cookie", "Accept-Encoding"])
    return response


def _for_this_reader_only(request, response):
    """Keep shared caches from a response the page cache does not vouch for,
    unless its view declared it the same for everyone."""
    if "public" in response.get("Cache-Control", ""):
        return
    if has_credentials(request):
        # Someone with a session (an editor) or credentials: never kept, never
        # shown to others.
        patch_cache_control(response, private=True, no_store=True)
        patch_vary_headers(response, ["Cookie"])
    else:
        patch_cache_control(response, private=True)


def _with_last_modified(response, last_modified):
    if last_modified is not None:
        response["Last-Modified"] = formatdate(last_modified, usegmt=True)
    return response


def _storable(request, response):
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


class PageCacheMiddleware:
    """Serve anonymous readers' pages from the shared cache.

    Put it after SecurityMiddleware and WhiteNoise, before the rest. A page
    found in the cache (or a 304) is answered here, without the session,
    CSRF, authentication, CSP or any other middleware below and without
    matching a view: it is stored with the headers those gave it when it
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
        if page is None or response.status_code != 200:
            _for_this_reader_only(request, response)
            return _with_content_validators(request, response)
        key, current, etag, last_modified = page
        storable = _storable(request, response)
        # A change that committed while the page was rendered may have been
        # purged from the shared caches before this page reaches them: they
        # get it to keep only if its generations are still current.
        shared = (
            storable
            and settings.PAGE_CACHE_FRONTENDS
            and generations.still_current(current)
        )
        _with_validators(response, etag, None, current if shared else ())
        if storable:
            headers = {
                header: value
                for header, value in response.items()
                if header.lower() not in UNKEPT_HEADERS
            }
            generations.store(
                key, (current, response.status_code, response.content, headers)
            )
        return _with_last_modified(response, last_modified)

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
        redirect = _to_canonical_query(request)
        if redirect is not None:
            return redirect
        # The generations are read before the view reads the database, so a
        # page rendered from data older than a change is stored under the
        # generation the change replaced, and never served after it.
        key = _page_key(request)
        try:
            current, stored = generations.read(scopes, key)
        except generations.CacheUnavailable:
            return None
        etag, last_modified = _validators(current, _encoding(request))
        if _not_modified(request, etag, last_modified, stored):
            return _with_validators(
                HttpResponseNotModified(), etag, last_modified, current
            )
        if stored is None:
            return key, current, etag, last_modified
        _, status, content, headers = stored
        response = HttpResponse(content, status=status, headers=headers)
        return _with_last_modified(response, last_modified)


def _with_content_validators(request, response):
    """A reader's page the cache did not answer (it is off, out of reach, or
    the page is never cached) with an ETag of its content and encoding (one
    a representation), and its 304 for a matching If-None-Match, compared
    weakly (Django's ``get_conditional_response``). Someone with a session
    or credentials gets the page as rendered, and so does an answer no cache
    may keep (``no-store``: OAI-PMH's, made anew at every request)."""
    if (
        request.method not in {"GET", "HEAD"}
        or response.status_code != 200
        or response.streaming
        or not response.content
        or response.has_header("ETag")
        or "no-store" in response.get("Cache-Control", "")
        or has_credentials(request)
    ):
        return response
    response["ETag"] = _content_etag(response)
    return get_conditional_response(
        request,
        etag=response["ETag"],
        last_modified=parse_http_date_safe(response.get("Last-Modified", "")),
        response=response,
    )


def _content_etag(response):
    """A digest of the page's text and the name of its encoding. Django's
    gzip output differs from one compression to the next (random bytes
    against BREACH), so a compressed page is digested as its text."""
    content = response.content
    encoding = response.get("Content-Encoding", "identity")
    if encoding == "gzip":
        content = gzip.decompress(content)
    digest = hashlib.sha256(content).hexdigest()[:32]
    return quote_etag(f"{digest}-{encoding}")
