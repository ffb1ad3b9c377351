"""HTTP as the whole site keeps it, whichever layer answered: a HEAD answer
carries no body, and what is public to read is readable from other origins.

``HeadMiddleware`` is the outermost middleware: a view, a cached page
replayed by the page cache or any middleware may write the body a GET would
get, and a HEAD answer must not carry it (RFC 9110, 9.3.2); gunicorn drops
it and logs a warning each time.

``ReadingCorsMiddleware`` is django-cors-headers' middleware (configured by
its settings: ``CORS_URLS_REGEX`` names what is public to read, the API,
OAI-PMH, the feeds and the citation downloads) with one more rule: a request
carrying credentials, a session cookie or an ``Authorization`` header (an API
token), never gets a cross-origin header, so neither a token nor a session
is ever used across origins. It answers a preflight itself, before any
middleware below reads the database.
"""

from corsheaders.middleware import CorsMiddleware
from django.conf import settings


class HeadMiddleware:
    """A HEAD answer: the headers of the GET, without its body. A body's
    length is kept as ``Content-Length``, as the GET would send it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.method != "HEAD":
            return response
        if response.streaming:
            # The iterator's resources (an open file) are closed with the
            # response, as for a GET.
            response.streaming_content = []
        elif response.content:
            if not response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
            length = response["Content-Length"]
            response.content = b""
            response["Content-Length"] = length
        return response


def has_credentials(request):
    """Whether the request carries credentials: a session or a token."""
    return (
        settings.SESSION_COOKIE_NAME in request.COOKIES
        or "HTTP_AUTHORIZATION" in request.META
    )


class ReadingCorsMiddleware(CorsMiddleware):
    """Cross-origin reading of the public URLs (``CORS_URLS_REGEX``), never
    with credentials."""

    def is_enabled(self, request):
        return super().is_enabled(request) and not has_credentials(request)
