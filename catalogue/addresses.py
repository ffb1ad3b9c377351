"""The site's one canonical origin, for every absolute address it writes.

Feed ids, sitemaps, canonical links, ``og:url``, JSON-LD and exports name
pages by an absolute address. Built from the request, that address would
follow whatever Host header and scheme a client sent (an Atom id changing
with them, which RFC 4287 forbids); built from ``SITE_URL`` it never moves.
"""

from urllib.parse import urlsplit

from django.conf import settings


def site_origin():
    """``SITE_URL`` as an origin: ``https://anthology.example.org``."""
    return settings.SITE_URL.rstrip("/")


def absolute_url(path):
    """The absolute address of ``path`` (``/LIT-004/``) under the canonical
    origin; an address that is already absolute is returned as it is."""
    if urlsplit(path).scheme:
        return path
    return f"{site_origin()}{path}"
