from django.apps import AppConfig


class OaiConfig(AppConfig):
    """The OAI-PMH 2.0 endpoint scholarly indexes harvest the record from."""

    name = "oai"
    verbose_name = "OAI-PMH"
