"""Tokens and rate limits at the edge of the API and the staff exports.

``TokenMiddleware`` runs before the page cache, so that a request is counted
and its token checked whether or not its answer is cached: a request with
``Authorization: Bearer <secret>`` to an address of ``API_TOKEN_PATHS`` is
answered 401 unless the secret is a usable token's; every request with a
token counts against its user's limit (``API_TOKEN_RATE``, one budget for
all of a member's tokens), and an
anonymous request to the API against its client's address
(``API_ANONYMOUS_RATE``), the address the login lockout counts (the proxy
rules of ``BEHIND_PROXY``, ``PROXY_COUNT`` and ``TRUSTED_PROXIES``). Over
its limit, a request is answered 429 with ``Retry-After``.

``TokenUserMiddleware`` runs after Django's authentication and makes the
token's user the request's user: a token has its user's permissions and
nothing more.
"""

import math
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.module_loading import import_string

from api import problems
from api.models import ApiToken, digest
from pagecache.backends import CACHE_ERRORS

# A token's last use is written at most this often: a script's every request
# must not cost a write.
LAST_USED_PRECISION = timedelta(minutes=1)


def parse_rate(rate):
    """``"600/minute"`` as (600, 60): requests per window of seconds."""
    count, _, period = rate.partition("/")
    seconds = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}[period]
    return int(count), seconds


def refusal(status, message, **headers):
    """A problem (RFC 9457), as every client error under the API is; the
    staff exports answer the same."""
    return problems.problem(status, message, headers=headers)


def over_limit(ident, rate, now=None):
    """Seconds until ``ident`` may ask again if this request is over its
    ``rate``, else None. Counts in fixed windows in the shared cache, so every
    process counts together; a cache that cannot be reached limits nothing."""
    limit, period = parse_rate(rate)
    now = time.time() if now is None else now
    window = int(now // period)
    key = f"ratelimit:{ident}:{window}"
    try:
        cache.add(key, 0, timeout=period + 1)
        count = cache.incr(key)
    except (*CACHE_ERRORS, ValueError):
        return None
    if count <= limit:
        return None
    return max(1, math.ceil((window + 1) * period - now))


def client_address(request):
    """The client's address as the login lockout counts it."""
    return import_string(settings.AXES_CLIENT_IP_CALLABLE)(request)


def find_token(header):
    """The usable token an ``Authorization`` header names, or None."""
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return (
        ApiToken.objects.usable()
        .select_related("user")
        .filter(key_digest=digest(secret.strip()))
        .first()
    )


def note_use(token):
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now


class TokenMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path_info
        if not path.startswith(tuple(settings.API_TOKEN_PATHS)):
            return self.get_response(request)
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if header:
            token = find_token(header)
            if token is None:
                return refusal(
                    401,
                    "The Authorization header names no usable API token: "
                    "send 'Bearer <token>' with a token that is neither "
                    "revoked nor expired.",
                    **{"WWW-Authenticate": 'Bearer realm="api", error="invalid_token"'},
                )
            request.api_token = token
            note_use(token)
            # One budget per member, whatever number of tokens they hold.
            ident, rate = f"user:{token.user_id}", settings.API_TOKEN_RATE
        elif path.startswith(settings.API_ANONYMOUS_PATH):
            ident = f"address:{client_address(request)}"
            rate = settings.API_ANONYMOUS_RATE
        else:
            return self.get_response(request)
        wait = over_limit(ident, rate)
        if wait is not None:
            return refusal(
                429,
                f"Too many requests: at most {rate} for "
                + (
                    "this token's user, all of their tokens together."
                    if header
                    else "this address without a token."
                ),
                **{"Retry-After": str(wait)},
            )
        return self.get_response(request)


class TokenUserMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = getattr(request, "api_token", None)
        if token is not None:
            request.user = token.user
        return self.get_response(request)
