from django.apps import AppConfig
from django.urls import register_converter

from public.converters import CitationFormatConverter


class PublicConfig(AppConfig):
    """The reading room: the pages, feeds and sitemaps readers see."""

    name = "public"
    verbose_name = "Public site"

    def ready(self):
        # Citation downloads end in their format: cite.bib, cite.ris, cite.json.
        register_converter(CitationFormatConverter, "citation_format")
