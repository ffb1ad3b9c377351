"""What the site takes from the edge: who the client is and whether it came
over HTTPS only from the proxies in front, and request bodies only within
their limits. Both run before any other middleware, so nothing reads a
header a client forged or a body larger than it may send.

``client_address`` is whose request it is, as every limit counts it: the
login lockout (``AXES_CLIENT_IP_CALLABLE``), the correction form, the API and
the readers' pages."""

import ipaddress

from django.conf import settings
from django.http import HttpResponse

# What a proxy says of the request it passes on: the client's address, the
# scheme and the host it was asked for.
FORWARDED = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST")


# One client holds a whole IPv6 /64: a home or an office is given at least
# one, and picks a new address in it at will (RFC 4941's temporary addresses).
IPV6_CLIENT_PREFIX = 64
IPV6_CLIENT_MASK = (2**128 - 1) ^ (2 ** (128 - IPV6_CLIENT_PREFIX) - 1)


def client_address(request):
    """The client a request counts against: its address, one spelling of it.

    Served directly, that is ``REMOTE_ADDR``. Behind ``PROXY_COUNT`` proxies,
    each appends the address it received the request from to
    ``X-Forwarded-For``, so the client is that many entries from the right;
    entries further left were written by the client and are not trusted. A
    request with fewer entries than proxies did not come through them all,
    and counts as the nearest peer's. A request from anywhere but a trusted
    proxy (``TRUSTED_PROXIES``) has lost its X-Forwarded-For before this
    reads it (``TrustedProxyMiddleware``): it counts as its peer's.

    The address is written one way (``client_spelling``), so no client
    counts apart by spelling its address otherwise.
    """
    hops = settings.PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    addresses = [part.strip() for part in forwarded.split(",") if part.strip()]
    if hops and len(addresses) >= hops:
        return client_spelling(addresses[-hops])
    return client_spelling(request.META.get("REMOTE_ADDR"))


def client_spelling(address):
    """``address`` as every limit counts it: an IPv4 address as it is written
    (``203.0.113.7``), an IPv4 address mapped into IPv6 (``::ffff:203.0.113.7``)
    as that IPv4 address, and any other IPv6 address as the first address of
    its /64, compressed and in lower case (``2001:db8::1`` and
    ``2001:DB8:0:0::ffff`` both ``2001:db8::``); a zone (``%eth0``) and the
    brackets of a URL's host are dropped. It stays a plain address, as the
    lockout's records keep one. What is not an address is kept as given."""
    text = (address or "").strip()
    try:
        parsed = ipaddress.ip_address(text.removeprefix("[").removesuffix("]"))
    except ValueError:
        return text or None
    if parsed.version == 6 and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    if parsed.version == 4:
        return str(parsed)
    return str(ipaddress.IPv6Address(int(parsed) & IPV6_CLIENT_MASK))


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
