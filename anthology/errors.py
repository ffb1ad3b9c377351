"""The answer to an error no view handled: Django's 500 page, unless the
database cannot be reached.

In the first seconds of a database outage the shared cache's probe has not
yet marked the site down, so requests still reach it: each one that needs the
database then fails at its first query. That is the database refusing (or
losing) the connection, not a fault of the page, so it is answered 503 with
``Retry-After`` and the page for it (``503.html``, which needs no database):
a shared cache in front serves its kept copy instead (``stale-if-error``, or
Varnish's grace) and clients try again. Any other error stays a 500.
"""

import sys

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.views import defaults

# As Varnish says when the site cannot be reached (deploy/varnish/anthology.vcl).
RETRY_AFTER_SECONDS = 30


def _broken(wrapper):
    """Whether the database connection ``wrapper`` holds none, or a closed or
    broken one (the server refused it, or went away under it)."""
    raw = wrapper.connection
    return (
        raw is None
        or bool(getattr(raw, "closed", False))
        or bool(getattr(raw, "broken", False))
    )


def database_unreachable(error):
    """Whether ``error`` is a database connection refused or lost, rather than
    a query's own failure (which leaves its connection open and usable)."""
    if not isinstance(error, (OperationalError, InterfaceError)):
        return False
    return any(_broken(wrapper) for wrapper in connections.all(initialized_only=True))


def server_error(request, template_name=defaults.ERROR_500_TEMPLATE_NAME):
    """The 500 page (Django's view, ``500.html``); 503 with ``Retry-After``
    and ``503.html`` when the error being handled is the database out of
    reach. Django calls it while handling the error, so it is
    ``sys.exc_info()``'s."""
    if database_unreachable(sys.exc_info()[1]):
        response = HttpResponse(render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response["Cache-Control"] = "no-store"
        return response
    return defaults.server_error(request, template_name)
