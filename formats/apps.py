from django.apps import AppConfig


class FormatsConfig(AppConfig):
    """The file formats, read and written: pure, no database writes."""

    name = "formats"
