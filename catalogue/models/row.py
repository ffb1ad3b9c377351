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
"""

from django.db import models

from catalogue.models.document import Document


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
