from django.apps import AppConfig


class ImportsConfig(AppConfig):
    """Imports, restores and exports of whole files, through the actions."""

    name = "imports"
