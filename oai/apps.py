from django.apps import AppConfig

# Registers the checks of the repository identifier.
from oai import checks  # noqa: F401


class OaiConfig(AppConfig):
    """The OAI-PMH 2.0 endpoint scholarly indexes harvest the record from."""

    name = "oai"
    verbose_name = "OAI-PMH"
