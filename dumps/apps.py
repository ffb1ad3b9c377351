from django.apps import AppConfig


class DumpsConfig(AppConfig):
    """The whole public record as files: dated dumps in the citation formats
    and the API's shape, written to the backups storage and served at /data/."""

    name = "dumps"
