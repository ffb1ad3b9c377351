from django.apps import AppConfig


class ActionsConfig(AppConfig):
    """The changes to the record: the only code that writes it."""

    name = "actions"
    verbose_name = "Actions"
