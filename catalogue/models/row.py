"""Each public document's row in the document tables, stored as HTML.

A topic page lists up to 1,000 documents; building each row (its citation,
its COinS, its summary's names linked) costs more than the rest of the page.
So a row is built once, when what it shows changes, and a page reads the
rows' HTML with the documents it lists, as a decision record's page reads
the HTML stored with it.

A row shows its document's published values and what the names in its
summary cell lead to (a public document or decision record, retired or not,
its version, its successor). ``RowName`` keeps which entries each row names,
so that a change to one of them rebuilds exactly the rows naming it.

Like the vocabulary, rows are derived from the record and kept in step with
it by the actions that change it (``actions.rows``): no versions, no audit
entries, not in a backup (a restore builds them again).

Each row says where its document is listed (its registry and topic), and
``ListedCount`` keeps how many rows each registry has under each topic: a
page's count line ("67 of 737 LIT documents") reads those few numbers rather
than counting every public document of the record.
"""

from django.db import models
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce

from catalogue.models.document import Document
from catalogue.models.registry import Registry, RegistryCount
from catalogue.models.topic import Topic


class DocumentRow(models.Model):
    """A public document's table row as HTML, without the topic cell (the
    lists that mix topics add it as they read the row)."""

    document = models.OneToOneField(
        Document, on_delete=models.CASCADE, primary_key=True, related_name="row"
    )
    html = models.TextField(editable=False)
    # The title, as the page's structured data names the row.
    title = models.CharField(max_length=500, editable=False)
    # What the HTML was built for besides the document: the row's format,
    # the document pages' address and the language of its status. A page
    # built for another builds such a row as it reads it.
    form = models.CharField(max_length=32, editable=False)
    # Where the document was listed when its row was built: what its row
    # counts for in ``ListedCount``.
    registry = models.ForeignKey(
        Registry, on_delete=models.CASCADE, related_name="+", editable=False
    )
    topic = models.ForeignKey(
        Topic, on_delete=models.SET_NULL, null=True, related_name="+", editable=False
    )

    def __str__(self):
        return f"row of document {self.document_id}"


class RowName(models.Model):
    """A name (``LIT-004``, ``ADR-026``) in the summary cell of a stored row."""

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="row_names"
    )
    prefix = models.CharField(max_length=20, editable=False)
    number = models.PositiveIntegerField(editable=False)

    class Meta:
        indexes = [models.Index(fields=["prefix", "number"], name="row_name_target")]

    def __str__(self):
        return f"{self.prefix}-{self.number:03d} in the row of {self.document_id}"


class ListedCountQuerySet(models.QuerySet):
    def registry_counts(self, *, topic):
        """Per registry holding a public document: how many of them ``topic``
        holds (None: the unfiled ones), of all. One query, of a few rows
        whatever the record's size."""
        in_topic = Q(topic__isnull=True) if topic is None else Q(topic=topic)
        rows = (
            self.values("registry__prefix")
            .annotate(
                listed=Coalesce(Sum("documents", filter=in_topic), 0),
                total=Sum("documents"),
            )
            .filter(total__gt=0)
            .order_by("registry__prefix")
            .values_list("registry__prefix", "listed", "total")
        )
        return [RegistryCount(*row) for row in rows]


class ListedCount(models.Model):
    """How many public documents of a registry a topic holds (``topic``
    empty: how many are unfiled): the stored rows listed there, kept by the
    actions that store them (``actions.rows``)."""

    registry = models.ForeignKey(
        Registry, on_delete=models.CASCADE, related_name="+", editable=False
    )
    topic = models.ForeignKey(
        Topic, on_delete=models.CASCADE, null=True, related_name="+", editable=False
    )
    documents = models.PositiveIntegerField(default=0, editable=False)

    objects = ListedCountQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["registry", "topic"],
                condition=Q(topic__isnull=False),
                name="unique_listed_count",
            ),
            models.UniqueConstraint(
                fields=["registry"],
                condition=Q(topic__isnull=True),
                name="unique_unfiled_count",
            ),
        ]

    def __str__(self):
        return f"{self.documents} of registry {self.registry_id} in {self.topic_id}"
