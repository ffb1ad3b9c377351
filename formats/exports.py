"""CSV out of the record, streamed: one module for the admin actions and the URLs.

Every export is a generator of byte chunks handed to a StreamingHttpResponse,
so the file is never built in memory. Documents have two paths that write
the same bytes:

- on PostgreSQL, the database formats the rows itself and streams them with
  ``COPY (SELECT ...) TO STDOUT WITH (FORMAT csv)`` through psycopg; no model
  instance is made;
- elsewhere (SQLite), rows are read in chunks and formatted here.

Both copy a document's citation and author list as the record stores them
(``Document.citation_text``, ``author_list_text``, written by the functions
the pages print them with), never spelling them again.

The CSV dialect is PostgreSQL's: comma, double quotes doubled, a cell quoted
when it holds a comma, a quote, a carriage return or a newline, rows ended by
``\\n``, an empty value written as nothing. Cells a spreadsheet would run as a
formula are neutralised (see ``neutralise``).
"""

import datetime
import re
from itertools import islice

from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import (
    Case,
    F,
    Func,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast, LPad, NullIf
from django.http import StreamingHttpResponse
from django.urls import reverse
from taggit.models import TaggedItem

from catalogue.addresses import absolute_url
from catalogue.citations import parse_author_line
from catalogue.identifiers import Identifier
from catalogue.models import PUBLIC_STATUSES, DecisionRelation, Document, Registry
from catalogue.tags import render_tags

BOM = "\ufeff".encode()
CHUNK_BYTES = 64 * 1024
CHUNK_ROWS = 2000

# The documents' columns, in order; README.md "Exports" describes each one.
DOCUMENT_COLUMNS = [
    "identifier",
    "registry",
    "number",
    "version",
    "title",
    "authors",
    "year",
    "source_identifier",
    "citation_note",
    "citation",
    "summary",
    "status",
    "topic",
    "tags",
    "successor",
    "created",
    "last_changed",
    "public_url",
    # What the citation abbreviates, in cells a spreadsheet user reads and
    # edits: the author list as ``Family, Given; Family, Given``.
    "author_list",
    "venue",
    "publication_type",
    "publication_date",
    "doi",
]
TOPIC_COLUMNS = ["position", "name", "slug", "flavour", "scope"]
DECISION_COLUMNS = [
    "identifier",
    # The decision log's slug: two logs may both have an ADR-026.
    "log",
    "number",
    "title",
    "status",
    "decided_on",
    "successor",
    "body",
    "created",
    "last_changed",
]

# OWASP's CSV injection advice: a cell opening with one of these is read by a
# spreadsheet as a formula, so it gets a leading apostrophe. A cell that
# already opens with apostrophes before one of them gets one more, so an
# import can take exactly one away and every text comes back as it was.
FORMULA_RE = re.compile(r"'*[=+\-@\t\r\0]")
NEEDS_QUOTES_RE = re.compile(r'[,"\r\n]')
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def neutralise(text):
    """The cell as written: a would-be formula gets a leading apostrophe."""
    return f"'{text}" if FORMULA_RE.match(text) else text


def restore(text):
    """The text a neutralised cell stands for: ``neutralise``'s inverse."""
    return text[1:] if FORMULA_RE.match(text) and text.startswith("'") else text


def author_list_parts(text):
    """The cell's authors as written, split at the semicolons outside braces."""
    parts, part, depth = [], [], 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == ";" and depth == 0:
            parts.append("".join(part))
            part = []
        else:
            part.append(char)
    parts.append("".join(part))
    return [part.strip() for part in parts if part.strip()]


def parse_author_list_cell(text):
    """An author list from its cell; ValueError naming the author that is not one."""
    authors = []
    for position, part in enumerate(author_list_parts(text), start=1):
        try:
            authors.append(parse_author_line(part))
        except ValueError as error:
            raise ValueError(f"author {position} (‘{part}’): {error}.") from error
    return authors


def csv_line(cells):
    """One CSV row in PostgreSQL's CSV dialect; ``None`` and "" are empty."""
    out = []
    for cell in cells:
        text = "" if cell is None else neutralise(str(cell))
        # PostgreSQL quotes a lone \. too (it ends COPY data in text form).
        if NEEDS_QUOTES_RE.search(text) or text == "\\.":
            text = '"' + text.replace('"', '""') + '"'
        out.append(text)
    return ",".join(out) + "\n"


def timestamp(value):
    return value.astimezone(datetime.UTC).strftime(TIMESTAMP_FORMAT)


def site_root(request):
    """The site's root URL (``https://host/``) under the canonical origin:
    public pages' URLs start with it."""
    return absolute_url(reverse("catalogue:index"))


def csv_response(chunks, *, filename, bom=False):
    """Stream ``chunks`` (bytes) as a CSV download, BOM first if asked."""

    def body():
        if bom:
            yield BOM
        yield from chunks

    response = StreamingHttpResponse(body(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def batched(iterable, size):
    iterator = iter(iterable)
    while chunk := list(islice(iterator, size)):
        yield chunk


def buffered(lines):
    """Join encoded lines into chunks of about CHUNK_BYTES."""
    buffer = bytearray()
    for line in lines:
        buffer += line
        if len(buffer) >= CHUNK_BYTES:
            yield bytes(buffer)
            buffer.clear()
    if buffer:
        yield bytes(buffer)


# Documents


def document_chunks(queryset, *, base_url):
    """The documents of ``queryset`` as CSV chunks, header first, in number order.

    ``base_url`` is the site's root (``https://host/``): a public document's
    page is ``base_url + identifier + "/"``.
    """
    yield csv_line(DOCUMENT_COLUMNS).encode()
    if connection.vendor == "postgresql":
        yield from _copy_documents(queryset, base_url=base_url)
    else:
        yield from buffered(
            csv_line(row).encode()
            for row in _document_rows(queryset, base_url=base_url)
        )


def documents_response(queryset, *, base_url, filename="documents.csv", bom=False):
    return csv_response(
        document_chunks(queryset, base_url=base_url), filename=filename, bom=bom
    )


def _document_rows(queryset, *, base_url):
    """Rows as lists of cells, formatted in Python (the path for SQLite)."""
    rows = queryset.order_by("registry__prefix", "number").values_list(
        "pk",
        "registry__prefix",
        "number",
        "version",
        *Document.CONTENT_FIELDS,
        "status",
        "topic__slug",
        "superseded_by__registry__prefix",
        "superseded_by__number",
        "created_at",
        "updated_at",
        "citation_text",
        "author_list_text",
        "venue",
        "publication_type",
        "publication_date",
        "doi",
    )
    content_type = ContentType.objects.get_for_model(Document)
    for chunk in batched(rows.iterator(chunk_size=CHUNK_ROWS), CHUNK_ROWS):
        tags = {}
        for pk, name in TaggedItem.objects.filter(
            content_type=content_type, object_id__in=[row[0] for row in chunk]
        ).values_list("object_id", "tag__name"):
            tags.setdefault(pk, []).append(name)
        for row in chunk:
            (pk, prefix, number, version, title, authors, year, source, note) = row[:9]
            (summary, status, topic, next_prefix, next_number) = row[9:14]
            identifier = Identifier(prefix, number)
            is_public = status in PUBLIC_STATUSES
            yield [
                identifier,
                prefix,
                number,
                version,
                title,
                authors,
                year,
                source,
                note,
                row[16],
                summary,
                status,
                topic,
                render_tags(sorted(tags.get(pk, []))),
                Identifier(next_prefix, next_number) if next_number else "",
                timestamp(row[14]),
                timestamp(row[15]),
                f"{base_url}{identifier}/" if is_public else "",
                *row[17:],
            ]


# ``neutralise`` in SQL, and the first characters of the cells it may change:
# its regular expression runs only for a cell opening with one of them.
NEUTRALISED = r"regexp_replace({}, '^(''*[-=+@\t\r])', '''\1')"
OPENINGS = r"'=', '+', '-', '@', E'\t', E'\r', ''''"


class Neutralised(Func):
    """SQL for ``neutralise``: an apostrophe before a would-be formula.

    Its text is named three times, so it is a column, never a subquery
    (the tags are aggregated once and joined). PostgreSQL's regular
    expressions read ``\\t`` and ``\\r`` themselves; its text cannot hold a
    NUL, so the class leaves it out.
    """

    template = (
        f"CASE WHEN left(%(expressions)s, 1) IN ({OPENINGS}) "
        f"THEN {NEUTRALISED.format('%(expressions)s')} "
        "ELSE %(expressions)s END"
    )
    output_field = TextField()

    def as_sql(self, compiler, connection, **extra_context):
        sql, params = super().as_sql(compiler, connection, **extra_context)
        # The text's own parameters, once for each time it is named.
        return sql, (*params, *params, *params)


class Joined(Func):
    """SQL text concatenation, ``a || b``: NULL if any part is NULL."""

    template = "(%(expressions)s)"
    arg_joiner = " || "
    output_field = TextField()


class UtcTimestamp(Func):
    """SQL for ``timestamp``: ISO 8601 in UTC with microseconds."""

    template = (
        "to_char(%(expressions)s AT TIME ZONE 'UTC', "
        '\'YYYY-MM-DD"T"HH24:MI:SS.US"Z"\')'
    )
    output_field = TextField()


def _identifier_sql(prefix, number):
    """SQL for ``Identifier``: LIT-004, LIT-1234."""
    digits = Cast(number, TextField())
    return Joined(
        prefix,
        Value("-"),
        Case(
            When(Q(**{f"{number.name}__lt": 1000}), then=LPad(digits, 3, Value("0"))),
            default=digits,
            output_field=TextField(),
        ),
        output_field=TextField(),
    )


def _text(name):
    """A text column: empty written as nothing, would-be formulas neutralised."""
    return Neutralised(NullIf(F(name), Value(""), output_field=TextField()))


def _document_columns_sql(*, base_url):
    identifier = _identifier_sql(F("registry__prefix"), F("number"))
    # Looked up for the few superseded documents alone: a join would read
    # every document of the record for each registry's statement.
    successor = Case(
        When(
            superseded_by__isnull=False,
            then=Subquery(
                Document.objects.filter(pk=OuterRef("superseded_by"))
                .annotate(label=_identifier_sql(F("registry__prefix"), F("number")))
                .values("label")
            ),
        ),
        default=None,
        output_field=TextField(),
    )
    public_url = Case(
        When(
            status__in=PUBLIC_STATUSES,
            then=Joined(
                Value(base_url), identifier, Value("/"), output_field=TextField()
            ),
        ),
        default=None,
        output_field=TextField(),
    )
    return {
        "c_identifier": identifier,
        "c_registry": F("registry__prefix"),
        "c_number": F("number"),
        "c_version": F("version"),
        "c_title": _text("title"),
        "c_authors": _text("authors"),
        "c_year": F("year"),
        "c_source": _text("source_identifier"),
        "c_note": _text("citation_note"),
        "c_citation": _text("citation_text"),
        "c_summary": _text("summary"),
        "c_status": F("status"),
        "c_topic": Neutralised(F("topic__slug")),
        "c_successor": successor,
        "c_created": UtcTimestamp(F("created_at")),
        "c_last_changed": UtcTimestamp(F("updated_at")),
        "c_public_url": public_url,
        **_bibliographic_columns_sql(),
    }


def _bibliographic_columns_sql():
    return {
        "c_author_list": _text("author_list_text"),
        "c_venue": _text("venue"),
        "c_publication_type": NullIf(
            F("publication_type"), Value(""), output_field=TextField()
        ),
        "c_publication_date": _text("publication_date"),
        "c_doi": _text("doi"),
    }


def copy_statement(queryset, *, base_url):
    """``COPY (SELECT ...) TO STDOUT WITH (FORMAT csv)`` for ``queryset``'s rows.

    One statement per registry, in prefix order, each ordered by number. The
    tags' cells are aggregated once for the registry's documents and joined:
    a subquery a row would run a join of its own for every document.
    """
    columns = _document_columns_sql(base_url=base_url)
    names = list(columns)
    names.insert(DOCUMENT_COLUMNS.index("tags"), "c_tags")
    outer = ", ".join(
        TAGS_CELL_SQL if name == "c_tags" else f"d.{name}" for name in names
    )
    for registry_id in Registry.objects.order_by("prefix").values_list("pk", flat=True):
        documents = queryset.filter(registry_id=registry_id)
        rows = documents.order_by().annotate(**columns).values_list("pk", *columns)
        select = (
            f"SELECT {outer} FROM ({_sql(rows)}) AS d "
            f"LEFT JOIN ({_sql(_tag_names(documents))}) AS t ON t.object_id = d.pk "
            "ORDER BY d.c_number"
        )
        yield f"COPY ({select}) TO STDOUT WITH (FORMAT csv)"


# A document's tags' cell from the joined names, neutralised as ``Neutralised``.
TAGS_CELL_SQL = NEUTRALISED.format("t.names")


def _tag_names(documents):
    """Each of ``documents`` that has tags, and its tags' cell."""
    return (
        TaggedItem.objects.filter(
            content_type=ContentType.objects.get_for_model(Document),
            object_id__in=documents.order_by().values("pk"),
        )
        .order_by()
        .values("object_id")
        .annotate(names=TagNames(F("tag__name")))
        .values("object_id", "names")
    )


class TagNames(Func):
    """SQL for ``catalogue.tags.render_tags``, an aggregate of tag names: a
    name holding a comma or opening with a quote in quotes, its quotes
    doubled; in code point order."""

    contains_aggregate = True
    template = (
        "string_agg(CASE WHEN strpos(%(expressions)s, ',') > 0 "
        "OR left(%(expressions)s, 1) = '\"' THEN '\"' || "
        "replace(%(expressions)s, '\"', '\"\"') || '\"' "
        "ELSE %(expressions)s END, ', ' ORDER BY "
        '%(expressions)s COLLATE "C")'
    )
    output_field = TextField()

    def get_group_by_cols(self):
        return []


def _sql(queryset):
    sql, params = queryset.query.sql_with_params()
    return connection.ops.compose_sql(sql, params)


def _copy_documents(queryset, *, base_url):
    with connection.cursor() as cursor:
        # The planner's estimate of a whole record's export passes the JIT's
        # thresholds, and compiling its many expressions takes longer than
        # running them: seconds for a statement that runs in one.
        cursor.execute("SET jit = off")
        try:
            for statement in copy_statement(queryset, base_url=base_url):
                with cursor.cursor.copy(statement) as copy:
                    yield from buffered(copy)
        finally:
            cursor.execute("RESET jit")


# Topics and decision records: small tables, formatted here on every database.


def topic_chunks(queryset):
    yield csv_line(TOPIC_COLUMNS).encode()
    rows = queryset.order_by("position").values_list(*TOPIC_COLUMNS)
    yield from buffered(csv_line(row).encode() for row in rows.iterator())


def decision_record_chunks(queryset):
    yield csv_line(DECISION_COLUMNS).encode()
    successors = Prefetch(
        "inverse_relations",
        DecisionRelation.objects.filter(
            kind=DecisionRelation.Kind.SUPERSEDES
        ).select_related("source__log"),
        to_attr="supersessions",
    )
    rows = (
        queryset.select_related("log")
        .order_by("-log__is_own", "log__slug", "number", "twin")
        .prefetch_related(successors)
    )
    yield from buffered(
        csv_line(
            [
                decision.label,
                decision.log.slug,
                decision.number,
                decision.title,
                decision.status,
                decision.decided_on.isoformat() if decision.decided_on else "",
                ", ".join(relation.source.label for relation in decision.supersessions),
                decision.body,
                timestamp(decision.created_at),
                timestamp(decision.updated_at),
            ]
        ).encode()
        for decision in rows.iterator(chunk_size=CHUNK_ROWS)
    )
