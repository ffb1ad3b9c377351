"""The rows of a document table and the items of a search's results: the
one place their HTML is built.

A topic page lists up to 1,000 documents, so a row is made from plain values
rather than a model instance, and its HTML by string formatting of escaped
values, with the URL reversed once and the status labels translated once,
rather than by a loop in the template.

The four cells are the record's own (identifier, title, summary, status);
registry and tag pages, which mix topics, add the topic after the title. The
title cell carries the row's citation as COinS, for reference managers. A
search's 50 results are built the same way, each with its marked passage.
"""

from html import escape

from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from catalogue.citations import Citation, cited_summary
from catalogue.identifiers import Identifier, identifier_path, permanent_form
from catalogue.models import CitedText, Document
from catalogue.references import names_in
from pagecache import fragments
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
        # What the row's COinS say beyond the citation: every author, the
        # type, the venue, the date and the DOI.
        *CitedText.BIBLIOGRAPHIC_FIELDS,
    ]
    # Only the values and the summary cell are kept: the other parts are
    # asked for only when a row's HTML is built, and a row kept as a fragment
    # is not built again.
    __slots__ = ["summary_with_citation", "values"]

    def __init__(self, *values):
        # ``FIELDS``' values: after the title, the citation's fields, then the
        # summary.
        self.values = values
        self.summary_with_citation = cited_summary(*values[7:12])

    @property
    def identifier(self):
        return Identifier(self.values[0], self.values[1])

    @property
    def name(self):
        """The identifier's permanent form, ``LIT-004``, as a plain string."""
        return permanent_form(self.values[0], self.values[1])

    @property
    def label(self):
        return self.identifier.label(self.values[2])

    @property
    def status(self):
        return self.values[3]

    @property
    def topic_name(self):
        return self.values[4]

    @property
    def topic_slug(self):
        return self.values[5]

    @property
    def title(self):
        return self.values[6]

    @property
    def citation(self):
        return Citation(*self.values[7:11])

    @property
    def author_list(self):
        return self.values[12]

    @property
    def venue(self):
        return self.values[13]

    @property
    def publication_type(self):
        return self.values[14]

    @property
    def publication_date(self):
        return self.values[15]

    @property
    def doi(self):
        return self.values[16]


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

    A row's HTML depends only on its values (the document as published) and
    on what the names in its summary resolve to, so it is built once for
    those and kept as a fragment with the page cache (``pagecache.fragments``):
    a page rendered again after a change builds only the rows it changed.
    """
    path = identifier_path("catalogue:document-detail")
    base = (ROW_FORMAT, topic_column, path(Identifier("X", 0)), get_language())
    # A target is keyed as a plain tuple of its fields: a named tuple's repr
    # is written in Python, a tuple's is not, and a page keys a thousand rows.
    plain = {name: tuple(target) for name, target in targets.items()}
    keys = [
        fragments.key(
            *base,
            row.values,
            [plain.get(name.key) for name in names_in(row.summary_with_citation)],
        )
        for row in rows
    ]
    by_key = dict(zip(keys, rows, strict=True))

    def build(missing):
        html = _rows_html([by_key[key] for key in missing], targets, topic_column)
        return dict(zip(missing, html, strict=True))

    built = fragments.many(keys, build)
    # Every value is escaped: link_names returns safe HTML.
    return mark_safe("".join(built[key] for key in keys))


# The shape of a row's HTML: a fragment kept in another shape is not reused.
ROW_FORMAT = 2


def _rows_html(rows, targets, topic_column):
    """The HTML of each of ``rows``, in order."""
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
    return html


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


def search_results(documents):
    """The ``<li>`` elements of a search's ``documents``, as one piece of HTML.

    Each document has its marked ``title_html`` and ``passage`` (safe HTML);
    every other value is escaped. As a table row's, the URL is reversed once
    and the status labels translated once for the page.
    """
    path = identifier_path("catalogue:document-detail")
    statuses = {value: escape(str(label)) for value, label in Document.Status.choices}
    items = []
    for document in documents:
        url = escape(path(document.identifier))
        status = document.status
        flag = (
            ""
            if status == Document.Status.ACTIVE
            else f' · <span class="status-flag status-{escape(status)}">'
            f"{statuses[status]}</span>"
        )
        topic = escape(document.topic.name) if document.topic else "Unfiled"
        items.append(
            "\n      <li>\n"
            f'        <p class="result-title"><a href="{url}">'
            f"{escape(document.label)}: {conditional_escape(document.title_html)}"
            "</a></p>\n"
            f'        <p class="citation">{escape(document.citation.render())}'
            f"{flag} · {topic}</p>\n"
            f'        <p class="passage">{conditional_escape(document.passage)}</p>\n'
            "      </li>\n      "
        )
    return mark_safe("".join(items))
