"""WSGI entry point: exposes ``application`` for WSGI servers."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")

application = get_wsgi_application()
