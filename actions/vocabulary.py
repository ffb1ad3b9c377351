"""The public record's vocabulary (``catalogue.Word``) kept in step with the
public text, in the transaction of the change.

The actions that change what readers see of a document's text, or whether
they see it (a first publication, a revision whose text changed, every batch
an import writes), call ``refresh`` with the documents they changed: each
document's words as last counted (``DocumentWords``) are taken away and its
words now added, so the cost is that of the documents changed, never of the
record. Drafts, documents in review and pending revisions give no word:
only ``Document.objects.public()`` is read. A withdrawal, a reinstatement or
a supersession leaves a document public and its text as it was: its words
stay. ``rebuild`` counts it all again (a restore, and the command
``rebuild_vocabulary``).
"""

from collections import Counter
from itertools import islice

from django.db import connection, transaction
from django.db.models import F

from catalogue.lookups import AnyOf
from catalogue.models import Document, DocumentWords, Word
from catalogue.models.vocabulary import VOCABULARY_FIELDS, document_words

# Documents read at once, and words written a statement.
CHUNK = 1000
WORDS_A_STATEMENT = 400


def refresh(pks):
    """Bring the vocabulary up to date with the documents ``pks`` as they now
    are: a public one's words counted, any other's none."""
    pks = sorted({pk for pk in pks if pk is not None})
    # The change's own transaction holds it: no savepoint of its own.
    with transaction.atomic(savepoint=False):
        for chunk in batched(pks, CHUNK):
            _refresh(chunk)


def _refresh(pks):
    counted = dict(
        DocumentWords.objects.filter(AnyOf(F("document"), pks)).values_list(
            "document", "words"
        )
    )
    now = dict(_public_words(Document.objects.filter(AnyOf(F("pk"), pks))))
    change = Counter()
    kept = []
    for pk in pks:
        before = set(counted.get(pk, "").split())
        after = now.get(pk, set())
        change.update(dict.fromkeys(after - before, 1))
        change.update(dict.fromkeys(before - after, -1))
        words = " ".join(sorted(after))
        if pk in now and words != counted.get(pk):
            kept.append(DocumentWords(document_id=pk, words=words))
    gone = [pk for pk in counted if pk not in now]
    if gone:
        DocumentWords.objects.filter(document__in=gone).delete()
    if kept:
        DocumentWords.objects.bulk_create(
            kept,
            update_conflicts=True,
            unique_fields=["document"],
            update_fields=["words"],
        )
    _count(change)


def _public_words(documents):
    """``(pk, words)`` of the public ones of ``documents``."""
    rows = documents.public().values_list("pk", *VOCABULARY_FIELDS, "author_list")
    for pk, *row in rows.iterator(chunk_size=CHUNK):
        yield pk, document_words(row)


def _count(change):
    """Add ``change`` ({word: documents more or fewer}) to the words' counts;
    a word no document holds any longer goes. Words are written in code point
    order, so two changes at once lock their common words in the same order;
    on PostgreSQL each part is one statement however many words change."""
    added = sorted((word, n) for word, n in change.items() if n > 0)
    taken = sorted((word, -n) for word, n in change.items() if n < 0)
    table = connection.ops.quote_name(Word._meta.db_table)
    upsert = (
        f"ON CONFLICT (word) DO UPDATE SET frequency = "
        f"{table}.frequency + excluded.frequency"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            if added:
                cursor.execute(
                    f"INSERT INTO {table} (word, frequency) "
                    f"SELECT * FROM unnest(%s::text[], %s::int[]) {upsert}",
                    list(map(list, zip(*added, strict=True))),
                )
            if taken:
                words, counts = map(list, zip(*taken, strict=True))
                given = "unnest(%s::text[], %s::int[]) AS taken (word, n)"
                cursor.execute(
                    f"DELETE FROM {table} AS known USING {given} "
                    "WHERE known.word = taken.word AND known.frequency <= taken.n",
                    [words, counts],
                )
                cursor.execute(
                    f"UPDATE {table} AS known SET frequency = known.frequency - "
                    f"taken.n FROM {given} WHERE known.word = taken.word",
                    [words, counts],
                )
            return
        for rows in batched(added, WORDS_A_STATEMENT):
            cursor.execute(
                f"INSERT INTO {table} (word, frequency) VALUES "
                + ", ".join(["(%s, %s)"] * len(rows))
                + f" {upsert}",
                [value for row in rows for value in row],
            )
    by_count = {}
    for word, n in taken:
        by_count.setdefault(n, []).append(word)
    for n, words in sorted(by_count.items()):
        for some in batched(words, WORDS_A_STATEMENT):
            Word.objects.filter(word__in=some, frequency__lte=n).delete()
            Word.objects.filter(word__in=some).update(frequency=F("frequency") - n)


def rebuild():
    """Count the whole public record's words again; returns how many words
    it holds."""
    with transaction.atomic():
        DocumentWords.objects.all().delete()
        Word.objects.all().delete()
        counts = Counter()
        rows = []
        for pk, words in _public_words(Document.objects.all()):
            counts.update(words)
            rows.append(DocumentWords(document_id=pk, words=" ".join(sorted(words))))
            if len(rows) >= CHUNK:
                DocumentWords.objects.bulk_create(rows)
                rows = []
        DocumentWords.objects.bulk_create(rows)
        Word.objects.bulk_create(
            [Word(word=word, frequency=n) for word, n in sorted(counts.items())],
            batch_size=CHUNK,
        )
    return len(counts)


def batched(items, size):
    """``items`` in tuples of ``size`` (itertools.batched, from Python 3.12)."""
    items = iter(items)
    while chunk := tuple(islice(items, size)):
        yield chunk
