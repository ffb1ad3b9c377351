from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The record for machines: a read-only JSON API, and staff's API tokens."""

    name = "api"
    verbose_name = "API"
