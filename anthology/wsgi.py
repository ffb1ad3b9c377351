"""WSGI entry point: exposes ``application`` for WSGI servers."""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")

application = get_wsgi_application()

# What a worker loads once (settings, apps, the URLconf and its views) lives
# as long as the worker: it is moved out of the garbage collector's sight, so
# that a full collection, which the thousands of short-lived objects of a long
# page set off, looks only at what requests made rather than at every module.
get_resolver().url_patterns  # noqa: B018 (loads the views before freezing)
gc.freeze()
