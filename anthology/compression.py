"""Responses compressed with gzip for the clients that accept it."""

from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware

# Bodies that are compressed files already: gzip again, they would shrink by
# nothing and lose their Content-Length.
COMPRESSED_TYPES = {"application/gzip", "application/x-gzip"}


class GZipMiddleware(DjangoGZipMiddleware):
    """Django's, leaving a compressed file (a ``.gz`` download) as it is."""

    def process_response(self, request, response):
        content_type = response.get("Content-Type", "").split(";")[0].strip()
        if content_type.lower() in COMPRESSED_TYPES:
            return response
        return super().process_response(request, response)
