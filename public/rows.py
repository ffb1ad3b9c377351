"""The rows of a document table: the one place their HTML is built.

A topic page lists up to 1,000 documents, so a row is made from plain values
rather than a model instance, and its HTML by string formatting of escaped
values, with the URL reversed once and the status labels translated once,
rather than by a loop in the template.

The four cells are the record's own (identifier, title, summary, status);
registry and tag pages, which mix topics, add the topic after the title. The
title cell carries the row's citation as COinS, for reference managers.
"""

from html import escape

from django.urls import reverse
from django.utils.safestring import mark_safe

from catalogue.citations import Citation, join_summary
from catalogue.identifiers import Identifier, identifier_path
from catalogue.models import CitedText, Document
from public.links import link_names
from public.structured import coins


class TableRow:
    """A public document as a table row shows it, made from plain values."""

    FIELDS = [
        "registry__prefix",
        "number",
        "version",
        "status",
        "topic__name",
        "topic__slug",
        *CitedText.CONTENT_FIELDS,
    ]
    __slots__ = [
        "citation",
        "identifier",
        "label",
        "status",
        "summary_with_citation",
        "title",
        "topic_name",
        "topic_slug",
    ]

    def __init__(self, prefix, number, version, status, topic_name, topic_slug, *cited):
        # The title, then the citation's fields, then the summary.
        title, *citation, summary = cited
        self.identifier = Identifier(prefix, number)
        self.label = self.identifier.label(version)
        self.status = status
        self.topic_name = topic_name
        self.topic_slug = topic_slug
        self.title = title
        self.citation = Citation(*citation)
        self.summary_with_citation = join_summary(self.citation, summary)


def row_values(documents):
    """``documents`` in number order, as the values a ``TableRow`` is made of."""
    return documents.order_by("registry__prefix", "number").values_list(
        *TableRow.FIELDS
    )


def document_rows(rows, targets, *, topic_column=False):
    """The ``<tr>`` elements of ``rows`` (TableRows), as one piece of HTML.

    ``targets`` come from ``references.resolve`` for the rows' summaries.
    Active is the usual status and is printed quietly; any other is flagged,
    and its row marked, so the unusual stands out.
    """
    path = identifier_path("catalogue:document-detail")
    statuses = {value: escape(str(label)) for value, label in Document.Status.choices}
    topic_cell = _topic_cell() if topic_column else None
    html = []
    for row in rows:
        url = escape(path(row.identifier))
        usual = row.status == Document.Status.ACTIVE
        html.append(
            (f'<tr class="status-{row.status}">\n' if not usual else "<tr>\n")
            + f'      <td class="label"><a href="{url}">{escape(row.label)}</a></td>\n'
            f'      <td class="title"><a href="{url}">{escape(row.title)}</a>'
            f"{coins(row)}</td>\n"
            + (topic_cell(row) if topic_cell else "")
            + f'      <td class="summary">'
            f"{link_names(row.summary_with_citation, targets)}</td>\n"
            f'      <td class="status"><span class="'
            f'{"status-usual" if usual else "status-flag"}">'
            f"{statuses[row.status]}</span></td>\n"
            f"    </tr>\n    "
        )
    # Every value is escaped: link_names returns safe HTML.
    return mark_safe("".join(html))


def _topic_cell():
    """A function giving a row's topic cell, its URL reversed once."""
    sample = "x-topic"
    head, tail = reverse("catalogue:topic-detail", args=[sample]).split(sample)
    unfiled = reverse("catalogue:unfiled")

    def cell(row):
        if row.topic_slug is None:
            url, name = unfiled, "Unfiled"
        else:
            url, name = f"{head}{row.topic_slug}{tail}", row.topic_name
        return (
            f'      <td class="topic"><a href="{escape(url)}">{escape(name)}</a></td>\n'
        )

    return cell
