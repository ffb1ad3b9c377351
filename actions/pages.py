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

- ``PAGE_CACHE_DOCUMENTS_SCOPES``: the dotted path of a function taking
  ``[(document, before)]`` (``before`` the document as read before a bulk
  write, None for a new one; with ``listing=``) and returning the scopes
  the change to them all affects, found in a few queries for them all;

- ``PAGE_CACHE_DECISIONS_SCOPES``: the same for decision records, taking
  ``[(decision record, before)]``, ``before`` what
  ``PAGE_CACHE_BEFORE_CHANGE`` gave for it;

- ``PAGE_CACHE_PEOPLE_SCOPES``: the dotted path of a function taking people
  and the documents that name them and returning the scopes a change to those
  people (a merge, a split, a new name) affects.

- ``PAGE_CACHE_OWN_PAGE_SCOPES``: the dotted path of a function taking
  document pks and returning the scopes of those documents' own pages alone
  (what their related work shows on).

Expiry goes through the page cache's outbox (``pagecache.generations.expire``):
written in the change's own transaction, applied once it commits.

What is derived from the public text (related work, candidate topics) is told
of the documents a change touched once it commits, through the setting
``RECORD_CHANGED``: the dotted path of a function taking their pks (None:
any of them), or empty for nothing. It is called once a transaction, however
many documents it changed.
"""

import threading

from django.conf import settings
from django.db import transaction
from django.utils.module_loading import import_string

from actions import rows
from catalogue.models import Document
from pagecache.generations import expire, expire_everything

__all__ = [
    "before_change",
    "changed",
    "decisions_changed",
    "documents_changed",
    "everything_changed",
    "own_pages_changed",
    "people_changed",
]

_told = threading.local()


def before_change(obj):
    """What ``changed`` needs to know of ``obj`` before it changes."""
    return import_string(settings.PAGE_CACHE_BEFORE_CHANGE)(obj)


def changed(obj, *, before=None, listing=False):
    """Expire the pages a change to the public ``obj`` shows on, and build
    again the stored rows it shows in (``rows``).

    ``listing``: the change alters what every document list shows besides its
    rows (a registry's total, the public tags), as a first publication does.
    """
    scopes = import_string(settings.PAGE_CACHE_CHANGE_SCOPES)(
        obj, before=before, listing=listing
    )
    expire(*scopes)
    if isinstance(obj, Document):
        rows.documents_changed([obj.pk])
        _tell_after_commit(obj.pk)
    else:
        rows.decisions_changed([obj])


def decisions_changed(decisions, *, before=None):
    """Expire the pages a change to many public decision records shows on
    (``before`` maps a record's pk to what ``before_change`` gave for it),
    found in a few queries for them all, as one expiry: a folder's import."""
    before = before or {}
    changes = [(decision, before.get(decision.pk)) for decision in decisions]
    if changes:
        expire(*import_string(settings.PAGE_CACHE_DECISIONS_SCOPES)(changes))


def documents_changed(changes, *, listing=False):
    """Expire the pages a bulk write of documents shows on: ``changes`` is
    ``[(document, before)]``, ``before`` the document as read before the
    write (None for a new one). Only the documents public before or after
    show anywhere; those are told to ``RECORD_CHANGED``. What is expired and
    told is theirs alone, however large the record.

    ``listing``: as for ``changed``.
    """
    scopes, pks = documents_scopes(changes, listing=listing)
    expire_documents(scopes, pks)


def documents_scopes(changes, *, listing=False):
    """``(scopes, pks)``: the pages ``documents_changed(changes, listing)``
    expires, and the documents it tells ``RECORD_CHANGED`` of; for a bulk
    write that expires the pages of all its batches at once
    (``expire_documents``)."""
    changes = [
        (document, before)
        for document, before in changes
        if document.is_public or (before is not None and before.is_public)
    ]
    if not changes:
        return set(), []
    scopes = import_string(settings.PAGE_CACHE_DOCUMENTS_SCOPES)(
        changes, listing=listing
    )
    return set(scopes), [document.pk for document, _ in changes]


def expire_documents(scopes, pks):
    """Expire ``scopes`` and tell ``RECORD_CHANGED`` of the documents ``pks``
    (``documents_scopes``)."""
    if pks:
        expire(*scopes)
        _tell_after_commit(*pks)


def everything_changed(*, record=True):
    """Expire every page: a change whose pages are too many to name (a
    registry's, a topic's or a tag's name, a restore).

    ``record``: the record changed, so what derives from it is recomputed;
    False when it is that derived data, stored, which changed.
    """
    expire_everything()
    if record:
        _tell_after_commit(None)


def own_pages_changed(pks):
    """Expire the own pages of the documents ``pks`` (their related work
    changed), and nothing else."""
    expire(*import_string(settings.PAGE_CACHE_OWN_PAGE_SCOPES)(pks))


def people_changed(persons, documents=()):
    """Expire the pages that show ``persons`` (merged, split or renamed) and
    those of ``documents``, which name them."""
    expire(*import_string(settings.PAGE_CACHE_PEOPLE_SCOPES)(persons, documents))


def _tell_after_commit(*pks):
    """Have ``RECORD_CHANGED`` told of ``pks`` (None: of any document) once
    the transaction commits, with every other document it changed: the first
    callback to run tells them all, the others find nothing left.

    A transaction rolled back takes its callbacks with it, not the documents
    it added here: those are told with the next transaction to commit. Telling
    is idempotent (what derives from a document is computed again from the
    record as it stands), so a change undone costs a recomputation, never a
    wrong answer."""
    if not settings.RECORD_CHANGED:
        return
    if getattr(_told, "pending", None) is None:
        _told.pending = set()
    _told.pending.update(pks)
    transaction.on_commit(_tell, robust=True)


def _tell():
    pending, _told.pending = getattr(_told, "pending", None), None
    if pending:
        pks = None if None in pending else sorted(pending)
        import_string(settings.RECORD_CHANGED)(pks)
