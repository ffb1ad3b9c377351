from django.apps import AppConfig


class JobsConfig(AppConfig):
    """Long work in the background, on a queue."""

    name = "jobs"
    verbose_name = "Background jobs"
