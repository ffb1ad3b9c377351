"""Each public document's row in the document tables, stored
(``catalogue.DocumentRow``) and kept in step with what it shows.

A row shows its document's published values and what the names in its
summary cell lead to. So:

- a change to a document builds again its own row (or drops it, when the
  document is not public), every row naming it (its links say whether it is
  public, retired, superseded and by what, and which version is its newest)
  and every row naming a document it succeeds (a successor is shown once it
  is public);
- a change to a decision record builds again the rows naming its number
  under its log's prefix, and those naming the records it supersedes.

Nothing else is in a row: topics, tags and registries' names are not (a list
that mixes topics adds the topic cell as it reads the row), and a pending
revision changes no published value. ``pages.changed`` builds the rows of
every change it is told of; the bulk writers call ``documents_changed`` for
what they wrote. The work grows with the rows a change shows in, never with
the record.

A row says where its document is listed (registry and topic), and
``ListedCount`` keeps how many rows each registry has under each topic: the
count line of a page. Every write of rows adds what it writes and takes off
what it drops, in the same transaction, so the counts follow the public
documents through every change that publishes, moves or retires one, an
import's bulk writes and a restore.

The public site builds the rows (``ROWS_BUILDER``: the dotted path of a
function taking document pks and returning ``(form, {pk: (html, names,
title, (registry_id, topic_id))})``,
``public.rows.built_rows``), reached through a setting as the page map is:
the layer that writes the record imports no view.
"""

from collections import Counter

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F
from django.utils.module_loading import import_string

from actions import staging
from catalogue.lookups import AnyOf
from catalogue.models import (
    DecisionRelation,
    Document,
    DocumentRow,
    ListedCount,
    RowName,
)

# Rows built and written at a time: one query's parameters stay well under
# SQLite's limit, and an import of 100,000 documents holds a batch's HTML
# at a time.
BATCH = 1000
# The advisory lock that one transaction at a time holds while it builds rows.
ROWS_LOCK = 0x526F7773


def documents_changed(pks):
    """Build again the rows a change to the documents ``pks`` shows in."""
    pks = set(pks)
    if not pks:
        return
    _one_builder_at_a_time()
    keys = set()
    for some in _batches(sorted(pks)):
        keys.update(
            Document.objects.filter(
                AnyOf(F("pk"), some) | AnyOf(F("superseded_by"), some)
            )
            .order_by()
            .values_list("registry__prefix", "number")
        )
    _build(pks | _naming(keys))


def decisions_changed(decisions):
    """Build again the rows naming ``decisions`` (DecisionRecords, each with
    its log), or the records they supersede."""
    _one_builder_at_a_time()
    keys = {(decision.log.prefix, decision.number) for decision in decisions}
    superseded = DecisionRelation.objects.filter(
        source__in=[decision.pk for decision in decisions if decision.pk],
        kind=DecisionRelation.Kind.SUPERSEDES,
    ).values_list("target__log__prefix", "target__number")
    names_changed(keys | set(superseded))


def names_changed(keys):
    """Build again the rows naming any of ``keys``, ``(prefix, number)``."""
    _one_builder_at_a_time()
    _build(_naming(keys))


def rebuild():
    """Build every public document's row again, and drop every other: after a
    restore, or a new row format."""
    with transaction.atomic():
        _one_builder_at_a_time()
        RowName.objects.all().delete()
        DocumentRow.objects.all().delete()
        ListedCount.objects.all().delete()
        pks = Document.objects.public().order_by("pk").values_list("pk", flat=True)
        _build(list(pks), fresh=True)


def recount():
    """Count again the rows each registry has under each topic: after a
    topic's deletion moves its documents (and their rows) to the unfiled."""
    with transaction.atomic():
        _one_builder_at_a_time()
        ListedCount.objects.all().delete()
        _count(
            Counter(
                {
                    (registry, topic): n
                    for registry, topic, n in DocumentRow.objects.order_by()
                    .values_list("registry_id", "topic_id")
                    .annotate(n=Count("*"))
                }
            )
        )


def _naming(keys):
    """The pks of the documents whose rows name any of ``keys``."""
    numbers = {}
    for prefix, number in keys:
        numbers.setdefault(prefix, []).append(number)
    found = set()
    for prefix, some in numbers.items():
        for batch in _batches(sorted(some)):
            found.update(
                RowName.objects.filter(
                    AnyOf(F("number"), batch), prefix=prefix
                ).values_list("document", flat=True)
            )
    return found


def _build(pks, *, fresh=False):
    """Write the rows of the documents ``pks`` as they stand now: those no
    longer public have none. ``fresh``: none of them has a row yet."""
    if not pks:
        return
    builder = import_string(settings.ROWS_BUILDER)
    with transaction.atomic():
        for batch in _batches(sorted(pks)):
            form, built = builder(batch)
            listed = Counter(listing for *_, listing in built.values())
            if not fresh:
                listed.subtract(
                    DocumentRow.objects.filter(AnyOf(F("document"), batch)).values_list(
                        "registry_id", "topic_id"
                    )
                )
                RowName.objects.filter(AnyOf(F("document"), batch)).delete()
                DocumentRow.objects.filter(AnyOf(F("document"), batch)).delete()
            # Copied in, on PostgreSQL: an import writes thousands of rows.
            staging.inserted(
                DocumentRow,
                ["document", "html", "title", "form", "registry", "topic"],
                (
                    (pk, html, title, form, registry, topic)
                    for pk, (html, _, title, (registry, topic)) in built.items()
                ),
            )
            staging.inserted(
                RowName,
                ["document", "prefix", "number"],
                (
                    (pk, prefix, number)
                    for pk, (_, names, _, _) in built.items()
                    for prefix, number in names
                ),
            )
            _count(listed)


def _count(listed):
    """Add ``listed`` (``{(registry_id, topic_id): n}``, n negative for rows
    dropped) to the stored counts: one query for each listing whose count
    moves, none for a row built again where it was."""
    for (registry, topic), n in listed.items():
        if not n:
            continue
        counts = ListedCount.objects.filter(registry=registry, topic=topic)
        if not counts.update(documents=F("documents") + n):
            ListedCount.objects.create(
                registry_id=registry, topic_id=topic, documents=n
            )


def _one_builder_at_a_time():
    """Wait until no other transaction builds rows, and let none build until
    this one ends (within a transaction: outside one, the lock is released
    at once). Two changes committed together may touch one row (two
    documents it names, published at once): the later finds and builds it
    once the earlier has committed, from what both changed, and never writes
    it over with what it read before."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ROWS_LOCK])


def _batches(items):
    items = list(items)
    for start in range(0, len(items), BATCH):
        yield items[start : start + BATCH]
