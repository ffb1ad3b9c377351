from django.apps import AppConfig

# Registers the deployment check of the shared cache's memory limit.
from pagecache import checks  # noqa: F401


class PageCacheConfig(AppConfig):
    """A cache of anonymous readers' pages that is never stale."""

    name = "pagecache"
    verbose_name = "Page cache"
