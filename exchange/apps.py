from django.apps import AppConfig
from django.urls import register_converter

from exchange.converters import CitationFormatConverter


class ExchangeConfig(AppConfig):
    """In and out: imports, exports, citation formats and backups."""

    name = "exchange"
    verbose_name = "Exchange"

    def ready(self):
        # Citation downloads end in their format: cite.bib, cite.ris, cite.json.
        register_converter(CitationFormatConverter, "citation_format")
