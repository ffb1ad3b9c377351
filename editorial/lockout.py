"""Whose failed logins count together: the client's address, as django-axes
keys its lockouts."""

from django.conf import settings


def client_address(request):
    """The address the request came from.

    Served directly, that is ``REMOTE_ADDR``. Behind ``PROXY_COUNT`` proxies,
    each appends the address it received the request from to
    ``X-Forwarded-For``, so the client is that many entries from the right;
    entries further left were written by the client and are not trusted. A
    request with fewer entries than proxies did not come through them all,
    and counts as the nearest peer's. A request from anywhere but a trusted
    proxy (``TRUSTED_PROXIES``) has lost its X-Forwarded-For before this
    reads it (``anthology.edge``): it counts as its peer's.
    """
    hops = settings.PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    addresses = [part.strip() for part in forwarded.split(",") if part.strip()]
    if hops and len(addresses) >= hops:
        return addresses[-hops]
    return request.META.get("REMOTE_ADDR")
