"""What the correction form takes: bodies up to ``CORRECTIONS_MAX_BYTES``,
and proposals up to ``CORRECTIONS_RATE`` from one client address and
``CORRECTIONS_TOTAL_RATE`` from everyone together.

The client's address is the one the login lockout counts
(``AXES_CLIENT_IP_CALLABLE``: behind ``PROXY_COUNT`` trusted proxies, read
from X-Forwarded-For), so a client that writes its own X-Forwarded-For
counts as itself. The counts are django-ratelimit's, in the shared cache
every process reads.
"""

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.module_loading import import_string
from django_ratelimit.core import get_usage
from redis.exceptions import RedisError

ADDRESS_GROUP = "corrections.address"
TOTAL_GROUP = "corrections.total"

# What the shared cache fails with when it cannot be reached.
CACHE_ERRORS = (RedisError, OSError)
# How long a reader is asked to wait when the counts cannot be read.
UNCOUNTED_RETRY_SECONDS = 60


def too_large(length):
    limit = settings.CORRECTIONS_MAX_BYTES
    return HttpResponse(
        f"The correction is {length:,} bytes or more; the form takes at most "
        f"{limit:,} bytes.",
        status=413,
        content_type="text/plain; charset=utf-8",
    )


def bounded_body(request):
    """A 413 answer if the request's body is larger than the form takes, read
    no further than that; else None, with a body of no stated length (sent
    chunked) read, within the limit, for the form to parse."""
    limit = settings.CORRECTIONS_MAX_BYTES
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        # As Django reads it: a length that is not a number is none.
        length = 0
    if length > limit:
        return too_large(length)
    if length or "HTTP_TRANSFER_ENCODING" not in request.META:
        return None
    stream = request.environ["wsgi.input"]
    body = b""
    while len(body) <= limit:
        chunk = stream.read(limit + 1 - len(body))
        if not chunk:
            break
        body += chunk
    if len(body) > limit:
        return too_large(len(body))
    # Django reads a body of CONTENT_LENGTH bytes, none without one: the form
    # parses what was read here.
    request._body = body
    return None


def client_address(group, request):
    return import_string(settings.AXES_CLIENT_IP_CALLABLE)(request)


def everyone(group, request):
    return "everyone"


LIMITS = [
    (ADDRESS_GROUP, client_address, "CORRECTIONS_RATE"),
    (TOTAL_GROUP, everyone, "CORRECTIONS_TOTAL_RATE"),
]


def refusal(request, *, count):
    """A 429 answer if the request is over a limit, else None.

    With ``count``, the request counts (a proposal about to be kept, or what
    looks like one): the address first, and everyone's only if the address
    is within its own, so that one address's flood does not spend the
    others' share. Without, the counts are only read: a client already over
    is told at once, before its form is read.
    """
    for group, key, setting in LIMITS:
        try:
            usage = get_usage(
                request,
                group=group,
                key=key,
                rate=getattr(settings, setting),
                increment=count,
            )
        except CACHE_ERRORS:
            # Nothing can be counted: nothing is taken, rather than a flood.
            return limited(request, UNCOUNTED_RETRY_SECONDS)
        if usage is None:
            continue
        over = usage["should_limit"] if count else usage["count"] >= usage["limit"]
        if over:
            return limited(request, max(1, usage["time_left"]))
    return None


def limited(request, seconds):
    response = render(
        request,
        "catalogue/corrections/limited.html",
        {"seconds": seconds, "minutes": -(-seconds // 60)},
        status=429,
    )
    response["Retry-After"] = str(seconds)
    return response
