from django.apps import AppConfig


class SourcesConfig(AppConfig):
    """Outside sources of metadata (arXiv, Crossref) and the enrichment they feed."""

    name = "sources"
