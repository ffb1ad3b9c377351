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

from functools import lru_cache

from django.conf import settings
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve
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


def _limit(view_name):
    """``(group, rate, is_search)`` of the page ``view_name`` names."""
    if view_name in SEARCHES:
        return SEARCH_GROUP, settings.READER_SEARCH_RATE, True
    return PAGE_GROUP, settings.READER_PAGE_RATE, False


def _usage(request, view_name, *, count):
    group, rate, _ = _limit(view_name)
    try:
        return get_usage(request, group=group, key=_client, rate=rate, increment=count)
    except CACHE_ERRORS:
        return None


class ReaderLimitMiddleware:
    """Counts each request that reaches a view (the page cache answered none
    of them; authentication has told a signed-in editor from a reader)
    against its client's limit, and answers one over it with 429 before the
    view runs.

    It sits near the top of the middleware, so that a client already over
    its limit is answered at once, for one read of its count: a request with
    no session whose client is over is refused before the session, the page
    cache or the view is looked at. Every other request is counted in
    ``process_view``, which Django calls once the URL is resolved, below
    every middleware's ``__call__``.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        refused = self._refused_early(request)
        return refused or self.get_response(request)

    def _refused_early(self, request):
        if settings.SESSION_COOKIE_NAME in request.COOKIES or not is_counted(request):
            return None
        try:
            view_name = resolve(request.path_info).view_name
        except Resolver404:
            return None
        usage = _usage(request, view_name, count=False)
        if usage is None or usage["count"] < usage["limit"]:
            return None
        return limited(request, max(1, usage["time_left"]), view_name=view_name)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not is_counted(request) or request.resolver_match is None:
            return None
        view_name = request.resolver_match.view_name
        usage = _usage(request, view_name, count=True)
        if usage is None or not usage["should_limit"]:
            return None
        return limited(request, max(1, usage["time_left"]), view_name=view_name)


def limited(request, seconds, *, view_name):
    """The 429 answer: the page saying how long to wait, and Retry-After."""
    response = HttpResponse(_refusal_page(_limit(view_name)[2], seconds), status=429)
    response["Retry-After"] = str(seconds)
    patch_cache_control(response, no_store=True)
    return response


@lru_cache(maxsize=256)
def _refusal_page(is_search, seconds):
    # The same for every client over a limit: rendered once a process, so a
    # flood of refused requests costs no rendering.
    return render_to_string(
        "catalogue/limited.html", {"seconds": seconds, "is_search": is_search}
    )
