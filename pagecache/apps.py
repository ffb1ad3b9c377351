from django.apps import AppConfig


class PageCacheConfig(AppConfig):
    """A cache of anonymous readers' pages that is never stale."""

    name = "pagecache"
    verbose_name = "Page cache"
