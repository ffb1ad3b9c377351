"""The rows of a document table and the items of a search's results: the
one place their HTML is built.

A topic page lists up to 1,000 documents, so a row is made from plain values
rather than a model instance, and its HTML by string formatting of escaped
values, with the URL reversed once and the status labels translated once,
rather than by a loop in the template.

The four cells are the record's own (identifier, title, summary, status);
registry, tag and venue pages, which mix topics, add the topic after the
title. The title cell carries the row's citation as COinS, for reference
managers. A row's HTML is built when what it shows changes and stored with
its document (``built_rows``, ``actions.rows``); a page reads it with the
documents it lists (``document_rows``). A search's 50 results are built the
same way, each with its marked passage, as the search is read.
"""

import hashlib
from html import escape

from django.db.models import F
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from catalogue.citations import Citation, cited_summary
from catalogue.identifiers import Identifier, identifier_path, permanent_form
from catalogue.lookups import AnyOf
from catalogue.models import CitedText, Document, DocumentRow
from catalogue.references import names_in, resolve
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
    # asked for only as the row's HTML is built.
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
    """``documents`` in number order, as the values a ``ListedRow`` is made of."""
    return documents.order_by("registry__prefix", "number").values_list(
        *ListedRow.FIELDS
    )


class ListedRow:
    """A public document as a list reads it: what the page says of it beside
    its row (its topic, its year), then its title and its row's HTML, read
    for the page's rows alone (``stored_rows``)."""

    FIELDS = [
        "registry__prefix",
        "number",
        "topic__name",
        "topic__slug",
        "year",
        "pk",
    ]
    __slots__ = ["html", "title", "values"]

    def __init__(self, *values):
        self.values = values
        self.title = self.html = None

    @property
    def name(self):
        """The identifier's permanent form, ``LIT-004``, as a plain string."""
        return permanent_form(self.values[0], self.values[1])

    @property
    def topic_name(self):
        return self.values[2]

    @property
    def topic_slug(self):
        return self.values[3]

    @property
    def year(self):
        return self.values[4]

    @property
    def pk(self):
        return self.values[5]


def stored_rows(values):
    """ListedRows of ``values`` (``ListedRow.FIELDS``), each with its title
    and its row's HTML as stored (``catalogue.DocumentRow``), in one query;
    rows not stored, or stored for another form (``row_form``), are built
    here: three queries more for any number of them."""
    rows = [ListedRow(*row) for row in values]
    if not rows:
        return rows
    form = row_form()
    stored = {
        pk: (html, title)
        for pk, html, title, stored_form in DocumentRow.objects.filter(
            AnyOf(F("pk"), [row.pk for row in rows])
        ).values_list("pk", "html", "title", "form")
        if stored_form == form
    }
    missing = [row.pk for row in rows if row.pk not in stored]
    if missing:
        stored |= {
            pk: (html, title)
            for pk, (html, _, title, _) in built_rows(missing)[1].items()
        }
    for row in rows:
        row.html, row.title = stored[row.pk]
    return rows


def row_form():
    """What a row's HTML is built for besides its document: the row's format,
    the document pages' address (under the script's prefix) and the language
    of its status labels. A stored row built for another is built again as a
    page reads it."""
    path = identifier_path("catalogue:document-detail")
    parts = (ROW_FORMAT, path(Identifier("X", 0)), get_language())
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


# The shape of a row's HTML: a row stored in another shape is built again.
ROW_FORMAT = 2


def built_rows(pks):
    """``(form, {pk: (html, names, title, listing)})`` for the public
    documents among ``pks``: each row's HTML without its topic cell, the
    ``(prefix, number)`` of every other entry its summary cell names, which
    it shows as they stand now, its title, and where it is listed (its
    registry's and topic's pks). Three queries at most, for any number of
    rows."""
    rows, listings = {}, {}
    for pk, registry_id, topic_id, *values in (
        Document.objects.public()
        .filter(AnyOf(F("pk"), list(pks)))
        .values_list("pk", "registry_id", "topic_id", *TableRow.FIELDS)
    ):
        rows[pk] = TableRow(*values)
        listings[pk] = (registry_id, topic_id)
    targets = resolve([row.summary_with_citation for row in rows.values()])
    html = _rows_html(list(rows.values()), targets, topic_column=False)
    built = {}
    for (pk, row), row_html in zip(rows.items(), html, strict=True):
        own = (row.values[0], row.values[1])
        names = {name.key for name in names_in(row.summary_with_citation)}
        built[pk] = (row_html, sorted(names - {own}), row.title, listings[pk])
    return row_form(), built


def document_rows(rows, *, topic_column=False):
    """The ``<tr>`` elements of ``rows`` (from ``stored_rows``), as one piece
    of HTML; a list that mixes topics adds each row's topic cell."""
    if not topic_column:
        return mark_safe("".join(row.html for row in rows))
    topic_cell = _topic_cell()
    html = []
    for row in rows:
        # The summary cell follows the title cell; no cell before it holds its
        # tag, as every value in them is escaped.
        at = row.html.index(SUMMARY_CELL)
        html.append(row.html[:at] + topic_cell(row) + row.html[at:])
    # Every value was escaped as the rows were built: link_names returns safe
    # HTML.
    return mark_safe("".join(html))


SUMMARY_CELL = '      <td class="summary">'


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
            + SUMMARY_CELL
            + f"{link_names(row.summary_with_citation, targets)}</td>\n"
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
    """The ``<li>`` elements of a search's ``documents`` (``FoundDocument``s),
    as one piece of HTML.

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
        topic = document.topic_name
        topic = "Unfiled" if topic is None else escape(topic)
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
