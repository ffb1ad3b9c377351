from django.apps import AppConfig


class JobsConfig(AppConfig):
    """Long work in the background, on a queue; the site's health."""

    name = "jobs"
    verbose_name = "Background jobs"
