"""What the site takes from the edge: who the client is and whether it came
over HTTPS only from the proxies in front, and request bodies only within
their limits. Both run before any other middleware, so nothing reads a
header a client forged or a body larger than it may send."""

import ipaddress

from django.conf import settings
from django.http import HttpResponse

# What a proxy says of the request it passes on: the client's address, the
# scheme and the host it was asked for.
FORWARDED = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST")


def is_trusted_proxy(address):
    """Whether ``address`` is one of ``TRUSTED_PROXIES`` (addresses or
    networks), with ``BEHIND_PROXY`` on."""
    if not settings.BEHIND_PROXY:
        return False
    try:
        peer = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return any(
        peer in ipaddress.ip_network(proxy, strict=False)
        for proxy in settings.TRUSTED_PROXIES
    )


class TrustedProxyMiddleware:
    """A request from anywhere but a trusted proxy (gunicorn reached
    directly) loses the X-Forwarded-* headers its client wrote: it can then
    neither choose the address its failed logins count against nor claim
    HTTPS."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_trusted_proxy(request.META.get("REMOTE_ADDR")):
            for header in FORWARDED:
                request.META.pop(header, None)
        return self.get_response(request)


def body_limit(path):
    """The largest request body ``path`` takes: the admin's uploads up to
    ``ADMIN_BODY_MAX_BYTES``, every other address ``BODY_MAX_BYTES``."""
    if path.startswith("/admin/"):
        return settings.ADMIN_BODY_MAX_BYTES
    return settings.BODY_MAX_BYTES


class BodyLimitMiddleware:
    """A request whose declared body is larger than its address takes is
    answered 413 before a byte of it is read (nothing spooled to disk, no
    CSRF check parsing it). A body without a length is never read by Django
    (it reads ``CONTENT_LENGTH`` bytes), so it costs nothing either."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return HttpResponse(
                "The request's Content-Length is not a number.",
                status=400,
                content_type="text/plain; charset=utf-8",
            )
        limit = body_limit(request.path_info)
        if length > limit:
            return HttpResponse(
                f"The request's body is {length:,} bytes; {request.path_info} "
                f"takes at most {limit:,} bytes.",
                status=413,
                content_type="text/plain; charset=utf-8",
            )
        return self.get_response(request)
