"""ASGI entry point: exposes ``application`` for ASGI servers."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")

application = get_asgi_application()
