"""Documents that may be the same work: one source, or titles alike.

Two documents citing one source (``Document.source_key``: every spelling of
an arXiv id or DOI reads the same) are duplicates. Titles are compared by
trigram similarity, as PostgreSQL's pg_trgm computes it: the share of
three-letter runs two titles have in common. PostgreSQL answers with its own
``similarity()`` and a trigram index (migration 0007); SQLite gets the same
function (``catalogue.trigrams``), so both databases find the same pairs.
"""

from typing import NamedTuple

from django.db import connection
from django.db.models import BooleanField, F, FloatField, Func, Value
from django.db.models.functions import Lower

from catalogue.models import Document

# Titles at least this alike are worth an editor's second look.
TITLE_SIMILARITY = 0.6


class Similarity(Func):
    """SQL ``similarity(lower(a), lower(b))`` on either database."""

    function = "similarity"
    output_field = FloatField()

    def __init__(self, expression, text, **extra):
        super().__init__(Lower(expression), Lower(Value(text)), **extra)


class TrigramsShared(Func):
    """PostgreSQL's ``lower(a) % lower(b)``: the trigram index finds them."""

    arg_joiner = " %% "
    template = "%(expressions)s"
    output_field = BooleanField()

    def __init__(self, expression, text, **extra):
        super().__init__(Lower(expression), Lower(Value(text)), **extra)


class Pair(NamedTuple):
    """Two documents that may be one work, and why."""

    first: Document
    second: Document
    reason: str


def same_source(identifier_key, *, exclude=None):
    """Documents whose source identifier is ``identifier_key``'s source."""
    if not identifier_key:
        return Document.objects.none()
    documents = Document.objects.filter(source_key=identifier_key)
    if exclude is not None:
        documents = documents.exclude(pk=exclude)
    return documents.select_related("registry").order_by("registry__prefix", "number")


def similar_titles(title, *, exclude=None, limit=5):
    """Up to ``limit`` documents whose titles are most like ``title``."""
    documents = Document.objects.all()
    if connection.vendor == "postgresql":
        documents = documents.filter(TrigramsShared(F("title"), title))
    documents = documents.annotate(likeness=Similarity(F("title"), title)).filter(
        likeness__gte=TITLE_SIMILARITY
    )
    if exclude is not None:
        documents = documents.exclude(pk=exclude)
    return list(
        documents.select_related("registry").order_by("-likeness", "number")[:limit]
    )


def likely_pairs(limit=200):
    """The pairs of documents in the record that may be one work, most alike
    first: those citing one source, then titles alike."""
    pairs = []
    with connection.cursor() as cursor:
        cursor.execute(SAME_SOURCE_SQL)
        pairs += [(first, second, "same source") for first, second in cursor]
        cursor.execute(TITLE_PAIRS_SQL[connection.vendor], [TITLE_SIMILARITY, limit])
        pairs += [
            (first, second, f"titles {likeness:.0%} alike")
            for first, second, likeness in cursor
        ]
    pairs = pairs[:limit]
    documents = Document.objects.select_related("registry").in_bulk(
        {pk for first, second, _ in pairs for pk in (first, second)}
    )
    return [
        Pair(documents[first], documents[second], reason)
        for first, second, reason in pairs
    ]


SAME_SOURCE_SQL = """
SELECT a.id, b.id FROM catalogue_document a
JOIN catalogue_document b ON a.source_key = b.source_key AND a.id < b.id
WHERE a.source_key <> '' ORDER BY a.source_key, a.id, b.id
"""
# PostgreSQL narrows the join with the trigram index (the % operator); SQLite
# compares every pair, which suits the small records it holds.
TITLE_PAIRS_SQL = {
    "postgresql": """
SELECT a.id, b.id, similarity(lower(a.title), lower(b.title)) AS likeness
FROM catalogue_document a
JOIN catalogue_document b ON a.id < b.id AND lower(a.title) %% lower(b.title)
WHERE similarity(lower(a.title), lower(b.title)) >= %s
  AND NOT (a.source_key <> '' AND a.source_key = b.source_key)
ORDER BY likeness DESC, a.id, b.id LIMIT %s
""",
    "sqlite": """
SELECT a.id, b.id, similarity(lower(a.title), lower(b.title)) AS likeness
FROM catalogue_document a JOIN catalogue_document b ON a.id < b.id
WHERE similarity(lower(a.title), lower(b.title)) >= %s
  AND NOT (a.source_key <> '' AND a.source_key = b.source_key)
ORDER BY likeness DESC, a.id, b.id LIMIT %s
""",
}
