"""Requests no page can answer, refused before any view runs."""

from django.core.exceptions import BadRequest

NUL = "\x00"


class RejectNulMiddleware:
    """A NUL character in the path or in a query parameter is a client error.

    No text the record holds can contain one (PostgreSQL refuses it in any
    text value), so such a request can name nothing: it is answered 400
    before a lookup sends it to the database.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if NUL in request.path_info:
            raise BadRequest("A NUL character cannot appear in a request.")
        for key, values in request.GET.lists():
            if NUL in key or any(NUL in value for value in values):
                # The parameter is named, as the API's problems name it (a
                # name holding the NUL is written with it escaped).
                error = BadRequest(
                    f"A NUL character cannot appear in a request: in the "
                    f"parameter {key!r}."
                )
                error.parameter = key.replace(NUL, "\\x00")
                raise error
        return self.get_response(request)
