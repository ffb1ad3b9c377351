"""The pages a change shows on, made fresh once it commits.

Which page shows what is the public site's knowledge, its page map: the
actions reach it through two settings, as the page cache reaches the map of
pages to scopes, so the layer that writes the record imports no view.

- ``PAGE_CACHE_BEFORE_CHANGE``: the dotted path of a function taking a public
  document or decision record as it is before a change and returning what the
  map needs to know of it then (the topic it leaves, the names its text drops);
- ``PAGE_CACHE_CHANGE_SCOPES``: the dotted path of a function taking the
  changed document or decision record (with ``before=`` and ``listing=``) and
  returning the scopes it affects.

Expiry goes through the page cache's outbox (``pagecache.generations.expire``):
written in the change's own transaction, applied once it commits.
"""

from django.conf import settings
from django.utils.module_loading import import_string

from pagecache.generations import expire, expire_everything

__all__ = ["before_change", "changed", "everything_changed"]


def before_change(obj):
    """What ``changed`` needs to know of ``obj`` before it changes."""
    return import_string(settings.PAGE_CACHE_BEFORE_CHANGE)(obj)


def changed(obj, *, before=None, listing=False):
    """Expire the pages a change to the public ``obj`` shows on.

    ``listing``: the change alters what every document list shows besides its
    rows (a registry's total, the public tags), as a first publication does.
    """
    scopes = import_string(settings.PAGE_CACHE_CHANGE_SCOPES)(
        obj, before=before, listing=listing
    )
    expire(*scopes)


def everything_changed():
    """Expire every page: a change whose pages are too many to name (a
    registry's, a topic's or a tag's name, an import of many rows)."""
    expire_everything()
