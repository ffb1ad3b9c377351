from django.apps import AppConfig


class PublicConfig(AppConfig):
    """The reading room: the pages, feeds and sitemaps readers see."""

    name = "public"
    verbose_name = "Public site"
