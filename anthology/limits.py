"""How many pages one client may have rendered: the readers' pages the caches
did not answer, counted per client address (``anthology.edge.client_address``,
the address the login lockout counts: behind the trusted proxies, the one the
outermost put in X-Forwarded-For).

A search costs more than a page and every new query is a page no cache
holds, so searches have a limit of their own (``READER_SEARCH_RATE``); every
other page counts against ``READER_PAGE_RATE``. A page a cache answers (the
page cache above this middleware, or Varnish in front) is never counted. The
admin, the API (which has its own limits, ``API_ANONYMOUS_RATE``) and the
health probes are not counted, nor is anyone signed in. Past a limit the
answer is 429 with Retry-After and a page saying so. The counts are
django-ratelimit's, in the shared cache every process reads; while that
cache cannot be reached nothing is counted and every page is served.
"""

from django.conf import settings
from django.shortcuts import render
from django.utils.cache import patch_cache_control
from django_ratelimit.core import get_usage
from redis.exceptions import RedisError

from anthology.edge import client_address

# What the shared cache fails with when it cannot be reached.
CACHE_ERRORS = (RedisError, OSError)

SEARCH_GROUP = "readers.search"
PAGE_GROUP = "readers.pages"
# The pages a search renders: its results, and their citations.
SEARCHES = {"catalogue:search", "catalogue:search-citation"}


def _client(group, request):
    return client_address(request)


def is_counted(request):
    """Whether ``request`` counts against a reader's limits."""
    if request.path_info.startswith(tuple(settings.READER_LIMIT_EXEMPT_PATHS)):
        return False
    user = getattr(request, "user", None)
    return not (user is not None and user.is_authenticated)


class ReaderLimitMiddleware:
    """Counts each request that reaches a view (after the page cache and
    authentication) against its client's limit, and answers one over it
    with 429 before the view runs."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not is_counted(request):
            return None
        match = request.resolver_match
        is_search = match is not None and match.view_name in SEARCHES
        group, rate = (
            (SEARCH_GROUP, settings.READER_SEARCH_RATE)
            if is_search
            else (PAGE_GROUP, settings.READER_PAGE_RATE)
        )
        try:
            usage = get_usage(
                request, group=group, key=_client, rate=rate, increment=True
            )
        except CACHE_ERRORS:
            return None
        if usage is None or not usage["should_limit"]:
            return None
        return limited(request, max(1, usage["time_left"]), is_search=is_search)


def limited(request, seconds, *, is_search):
    response = render(
        request,
        "catalogue/limited.html",
        {"seconds": seconds, "is_search": is_search},
        status=429,
    )
    response["Retry-After"] = str(seconds)
    patch_cache_control(response, no_store=True)
    return response
