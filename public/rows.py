"""The rows of a document table: the one place their HTML is built.

A topic page lists up to 1,000 documents, so a row is made from plain values
rather than a model instance, and its HTML by string formatting of escaped
values, with the URL reversed once and the status labels translated once,
rather than by a loop in the template.
"""

from html import escape

from django.utils.safestring import mark_safe

from catalogue.citations import Citation, join_summary
from catalogue.identifiers import Identifier, identifier_path
from catalogue.models import CitedText, Document
from public.links import link_names


class TableRow:
    """A public document as a table row shows it, made from plain values."""

    FIELDS = [
        "registry__prefix",
        "number",
        "version",
        "status",
        *CitedText.CONTENT_FIELDS,
    ]
    __slots__ = ["identifier", "label", "status", "summary_with_citation", "title"]

    def __init__(self, prefix, number, version, status, title, *cited):
        # After the title: the citation's fields, then the summary.
        *citation, summary = cited
        self.identifier = Identifier(prefix, number)
        self.label = self.identifier.label(version)
        self.status = status
        self.title = title
        self.summary_with_citation = join_summary(Citation(*citation), summary)


def row_values(documents):
    """``documents`` in number order, as the values a ``TableRow`` is made of."""
    return documents.order_by("registry__prefix", "number").values_list(
        *TableRow.FIELDS
    )


def document_rows(rows, targets):
    """The ``<tr>`` elements of ``rows`` (TableRows), as one piece of HTML.

    ``targets`` come from ``references.resolve`` for the rows' summaries.
    """
    path = identifier_path("catalogue:document-detail")
    statuses = {value: escape(str(label)) for value, label in Document.Status.choices}
    return mark_safe(  # Every value is escaped: link_names returns safe HTML.
        "".join(
            f"<tr>\n"
            f'      <td class="label"><a href="{escape(path(row.identifier))}">'
            f"{escape(row.label)}</a></td>\n"
            f'      <td class="title">{escape(row.title)}</td>\n'
            f'      <td class="summary">'
            f"{link_names(row.summary_with_citation, targets)}</td>\n"
            f'      <td class="status">{statuses[row.status]}</td>\n'
            f"    </tr>\n    "
            for row in rows
        )
    )
