from django.apps import AppConfig


class EditorialConfig(AppConfig):
    """The editorial workflow and the editors' admin: who may do what."""

    name = "editorial"
    verbose_name = "Editorial"
