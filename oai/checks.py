"""The repository identifier the record's OAI identifiers are built from:
refused when it is no domain name, and a deployment warned while it is the
development default."""

from django.conf import settings
from django.core.checks import Error, Warning, register

from oai.protocol import REPOSITORY_IDENTIFIER_RE

DEVELOPMENT_IDENTIFIER = "anthology.invalid"


@register("oai")
def check_repository_identifier(app_configs=None, **kwargs):
    identifier = settings.OAI_REPOSITORY_IDENTIFIER
    if REPOSITORY_IDENTIFIER_RE.fullmatch(identifier):
        return []
    return [
        Error(
            f"OAI_REPOSITORY_IDENTIFIER={identifier!r} is not a domain name: "
            "OAI identifiers (oai:<it>:LIT-004) need letters, digits and hyphens "
            "in at least two parts joined by dots, each part beginning with a "
            "letter.",
            hint="Set it to a domain name you own, such as anthology.example.org, "
            "without scheme, port or path.",
            id="oai.E001",
        )
    ]


@register("oai", deploy=True)
def check_repository_identifier_is_set(app_configs=None, **kwargs):
    if settings.OAI_REPOSITORY_IDENTIFIER != DEVELOPMENT_IDENTIFIER:
        return []
    return [
        Warning(
            f"OAI_REPOSITORY_IDENTIFIER is the development default "
            f"({DEVELOPMENT_IDENTIFIER}): harvesters would keep the record under "
            "a name nobody owns, and setting it later renames every record.",
            hint="Set it to a domain name you own, once, before the first harvest.",
            id="oai.W001",
        )
    ]
