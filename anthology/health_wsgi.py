"""The health listener: a WSGI application answering ``/health/`` and
``/health/ready/`` alone, which ``make serve`` runs in a gunicorn of its own
(``HEALTH_BIND``) beside the web workers.

The proxy's probe asks it (deploy/varnish/backend.vcl), so its answer never
waits behind a page being rendered: however busy the web workers are, the
probe is answered by a process that renders no page. It runs the site's own
code and settings, so it answers for what the web workers depend on (the
database, the cache, the queue) as ``/health/`` on them would.
"""

from anthology.wsgi import application as site

PATHS = {"/health/", "/health/ready/"}


def application(environ, start_response):
    if environ.get("PATH_INFO") in PATHS:
        return site(environ, start_response)
    start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
    return [b"This is the health listener: it answers /health/ alone.\n"]
