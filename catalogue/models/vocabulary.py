"""The public record's vocabulary: every word of what search indexes of the
public documents, with how many hold it, read by "Did you mean …?".

It is derived from the public text and kept in step with it by the actions
that change that text (``actions.vocabulary``), so a search that finds
nothing looks its words up here, in an index, and never reads the documents.
Like related work, it is not part of the record: no versions, no audit
entries, not in a backup (a restore rebuilds it).
"""

import re

from django.db import models
from django.utils.translation import gettext_lazy as _

from catalogue.models.document import Document
from catalogue.models.fields import NulRefused

# A word, as pg_trgm cuts one: letters and digits (catalogue.trigrams).
WORD_RE = re.compile(r"[^\W_]+")
# Longer runs are no one's word (digests, addresses run together): no reader
# types them, and none is kept.
MAX_WORD_LENGTH = 64
# The texts whose words are kept: what the search index holds of a document,
# and every name of its author list.
VOCABULARY_FIELDS = ["title", "authors", "venue", "citation_note", "summary"]


def words_of(texts):
    """The distinct words of ``texts``, lowercased, each at most
    ``MAX_WORD_LENGTH`` characters long."""
    found = set()
    for text in texts:
        found.update(WORD_RE.findall((text or "").lower()))
    return {word for word in found if len(word) <= MAX_WORD_LENGTH}


def author_names(authors):
    """Every name of a CSL author list, as text."""
    if not isinstance(authors, list):
        return []
    return [
        str(author.get(part) or "")
        for author in authors
        if isinstance(author, dict)
        for part in ["given", "family", "literal"]
    ]


def document_words(row):
    """The words of a document given as ``(*VOCABULARY_FIELDS, author_list)``."""
    *texts, authors = row
    return words_of([*texts, *author_names(authors)])


class Word(NulRefused, models.Model):
    """A word of the public documents' text, with how many of them hold it."""

    word = models.CharField(max_length=MAX_WORD_LENGTH, primary_key=True)
    frequency = models.PositiveIntegerField(
        help_text=_("How many public documents hold the word.")
    )

    class Meta:
        ordering = ["word"]
        # On PostgreSQL the word also has a trigram index (migration 0026),
        # which finds the words alike to one.
        constraints = [
            models.CheckConstraint(
                condition=models.Q(frequency__gt=0), name="word_frequency_positive"
            )
        ]

    def __str__(self):
        return f"{self.word} ({self.frequency})"


class DocumentWords(NulRefused, models.Model):
    """The words a public document gives the vocabulary, as last counted:
    what a change to it takes away again."""

    document = models.OneToOneField(
        Document,
        models.CASCADE,
        primary_key=True,
        related_name="vocabulary",
    )
    words = models.TextField(
        help_text=_("Its distinct words, in code point order, one space apart.")
    )

    class Meta:
        verbose_name_plural = _("document words")

    def __str__(self):
        return f"{self.document_id}: {len(self.words.split())} words"
