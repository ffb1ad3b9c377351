"""The importer of a topic's text, and the report every importer gives.

An import is all or nothing: the input is checked whole, every problem is
reported by place (``ImportRefused``), and nothing is written unless there is
none. Documents are written through the one ``DocumentWriter``. (A folder of
decision records is imported by ``imports.decision_folders``.)
"""

import copy
from collections import Counter
from dataclasses import dataclass, field

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count
from django.utils.text import slugify

from actions import filing
from actions.batch import (
    DocumentWrite,
    DocumentWriter,
    bulk_change,
    collecting_cycles_later,
)
from catalogue.models import Document, Preface, Registry, Topic, Venue
from catalogue.venues import read_venue
from formats.problems import ImportRefused, Problem
from imports import progress

# Which column of a topic page's table each model field is printed in.
ROW_COLUMNS = {
    "title": "Title",
    "authors": "Summary",
    "year": "Summary",
    "source_identifier": "Summary",
    "citation_note": "Summary",
    "summary": "Summary",
    "status": "Status",
}


@dataclass
class ImportReport:
    """What an import created, updated and left unchanged, by kind."""

    tallies: dict = field(default_factory=dict)
    # (prefix, total the count line states, public documents in the record)
    totals: list = field(default_factory=list)
    # What was read otherwise than written, or left out (``Problem``s).
    notes: list = field(default_factory=list)

    def count(self, kind, outcome, n=1):
        self.tallies.setdefault(kind, Counter())[outcome] += n

    @property
    def changed(self):
        return any(
            tally["created"] or tally["updated"] for tally in self.tallies.values()
        )

    def __str__(self):
        lines = [
            f"{kind}: {tally['created']} created, {tally['updated']} updated, "
            f"{tally['unchanged']} unchanged"
            + (
                f", {tally['kept as edited']} kept as an editor changed them"
                if tally["kept as edited"]
                else ""
            )
            + (
                f", {tally['held']} held as pending revisions."
                if tally["held"]
                else "."
            )
            for kind, tally in self.tallies.items()
        ]
        lines.extend(
            f"The page counts {stated} {prefix} documents in all; "
            f"the record now lists {listed} public ones."
            for prefix, stated, listed in self.totals
        )
        if not self.changed:
            lines.append("Nothing changed.")
        lines.extend(f"Note: {note}" for note in self.notes)
        return "\n".join(lines)


# A topic's text in the topic page format


def import_topic_text(parsed, *, source="", user=None):
    """Create or update the preface, the registries, the topic and the
    documents of a ``TopicText``; the audit trail names ``user``, or says
    the text was imported.

    All or nothing: any problem raises ImportRefused and nothing is written.
    The rows are checked, as they are written, without the cycle collector
    (``collecting_cycles_later``).
    """
    with collecting_cycles_later():
        return _import_topic_text(parsed, source=source, user=user)


def _import_topic_text(parsed, *, source, user):
    documents = _check_field_limits(parsed)
    report = ImportReport()
    # Version notes are read by readers, on the version pages; the audit trail
    # names the file.
    writer = DocumentWriter(
        note="Carried over from the record’s earlier topic pages.",
        user=user,
        via=f"import_index {source}".strip(),
    )
    # A topic's text brings a preface, a topic, registries and many documents.
    with bulk_change(user=user, via=writer.via):
        _import_preface(parsed, report, writer)
        registries = _import_registries(parsed, report, writer)
        topic = _import_topic(parsed, report, writer)
        # The documents are staged, then written by one short switch-over.
        with writer.staged():
            _import_documents(parsed, documents, registries, topic, report, writer)
        public = dict(
            Document.objects.public()
            .filter(registry__in=registries.values())
            .values_list("registry__prefix")
            .annotate(n=Count("pk"))
        )
        report.totals = [
            (count.prefix, count.total, public.get(count.prefix, 0))
            for count in parsed.counts
        ]
    return report


def _check_field_limits(parsed):
    """Report values the models refuse (too long, out of range) by line and
    column. Returns a document for each row, as checked: a new document is
    written from it."""
    problems = []
    documents = [_document_for(row) for row in parsed.rows]
    checks = [
        (1, "", Preface(heading=parsed.heading, text=parsed.intro), ["id"]),
        (
            2,
            "",
            Topic(name=parsed.topic_name, scope=parsed.topic_scope, position=1),
            [],
        ),
    ]
    checks.extend(
        (3, "", Registry(prefix=count.prefix, name=count.prefix), [])
        for count in parsed.counts
    )
    # A row sets the fields of its columns and its version; every other field
    # holds the model's default, the same in every row: it is checked in the
    # first row alone.
    untouched = [
        field.name
        for field in Document._meta.concrete_fields
        if field.name not in {*ROW_COLUMNS, "version"}
    ]
    checks.extend(
        (
            row.line,
            None,
            document,
            ["registry", "topic", "number", *(untouched if n else ())],
        )
        for n, (row, document) in enumerate(zip(parsed.rows, documents, strict=True))
    )
    for line, column, instance, exclude in checks:
        try:
            instance.clean_fields(exclude={*exclude, "slug"})
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                where = ROW_COLUMNS.get(name, name) if column is None else column
                problems.extend(
                    Problem(line, f"{name}: {message}", column=where)
                    for message in messages
                )
    if problems:
        raise ImportRefused(problems)
    return documents


def _document_for(row, **fields):
    return Document(
        number=row.number,
        version=row.version,
        status=row.status,
        **_row_content(row),
        **fields,
    )


def _venue_fields(row, venues):
    """The venue and publication type a new document's citation says."""
    venue, kind = read_venue(row.citation.identifier, row.citation.note, venues)
    return {"venue": venue, "publication_type": kind}


def _row_content(row):
    return {
        "title": row.title,
        "authors": row.citation.authors,
        "year": row.citation.year,
        "source_identifier": row.citation.identifier,
        "citation_note": row.citation.note,
        "summary": row.summary,
    }


def _filed(obj, writer, line):
    """Save ``obj`` (the preface, a registry, the topic) as the admin saves
    it, with its permission; a refusal is the page's problem at ``line``."""
    try:
        return filing.save(obj=obj, user=writer.user, via=writer.via)
    except PermissionDenied as error:
        raise ImportRefused([Problem(line, str(error))]) from None


def _import_preface(parsed, report, writer):
    preface = Preface.objects.filter(pk=1).first()
    if preface is None:
        _filed(Preface(heading=parsed.heading, text=parsed.intro), writer, 1)
        report.count("Preface", "created")
    elif (preface.heading, preface.text) != (parsed.heading, parsed.intro):
        preface.heading, preface.text = parsed.heading, parsed.intro
        _filed(preface, writer, 1)
        report.count("Preface", "updated")
    else:
        report.count("Preface", "unchanged")


def _import_registries(parsed, report, writer):
    known = Registry.objects.in_bulk(
        [count.prefix for count in parsed.counts], field_name="prefix"
    )
    registries = {}
    for count in parsed.counts:
        registry = known.get(count.prefix)
        if registry is None:
            registry = Registry(prefix=count.prefix, name=count.prefix)
            registry = _filed(registry, writer, 3)
            known[count.prefix] = registry
            report.count("Registries", "created")
        else:
            report.count("Registries", "unchanged")
        registries[count.prefix] = registry
    return registries


def _import_topic(parsed, report, writer):
    topic = Topic.objects.filter(name=parsed.topic_name).first()
    if topic is None:
        slug = slugify(parsed.topic_name)
        if Topic.objects.filter(slug=slug).exists():
            raise ImportRefused(
                [Problem(2, f"another topic already has the slug {slug!r}")]
            )
        last = Topic.objects.order_by("-position").first()
        topic = Topic(
            name=parsed.topic_name,
            slug=slug,
            scope=parsed.topic_scope,
            position=last.position + 1 if last else 1,
        )
        _filed(topic, writer, 2)
        report.count("Topics", "created")
    elif topic.scope != parsed.topic_scope:
        topic.scope = parsed.topic_scope
        _filed(topic, writer, 2)
        report.count("Topics", "updated")
    else:
        report.count("Topics", "unchanged")
    return topic


def _import_documents(parsed, documents, registries, topic, report, writer):
    """Write each row's document (``documents``, as checked, for the new
    ones); refuse the page if a row would take a document back in version."""
    existing = {
        (document.registry.prefix, document.number): document
        for document in Document.objects.select_related("registry").filter(
            registry__in=registries.values(),
            number__in=[row.number for row in parsed.rows],
        )
    }
    problems, created, updated = [], [], []
    venues = list(Venue.objects.all())
    rows = zip(parsed.rows, documents, strict=True)
    for row, new in progress.counted(rows, len(parsed.rows)):
        document = existing.get((row.prefix, row.number))
        if document is None:
            new.registry = registries[row.prefix]
            new.topic = topic
            for name, value in _venue_fields(row, venues).items():
                setattr(new, name, value)
            created.append(DocumentWrite(new))
        elif problem := _version_problem(row, document):
            problems.append(problem)
        elif write := _update(row, document, topic):
            updated.append(write)
        else:
            report.count("Documents", "unchanged")
    if problems:
        raise ImportRefused(problems)
    writer.create(created)
    writer.update(updated)
    report.count("Documents", "created", len(created))
    report.count("Documents", "updated", len(updated))


def _version_problem(row, document):
    """Why ``row`` cannot update ``document``, or None: a listed version is
    never older than the record's, and a changed text has a new number."""
    if document.version > row.version:
        return Problem(
            row.line,
            f"the record already holds {document.identifier} "
            f"v{document.version}; the page lists v{row.version}",
            column="#",
        )
    content = _row_content(row)
    if document.version == row.version and document.content() != content:
        changed = [name for name in content if getattr(document, name) != content[name]]
        return Problem(
            row.line,
            f"{document.identifier} v{row.version} differs from the recorded "
            f"v{row.version} ({', '.join(changed)}); a changed text needs a "
            "new version number",
            column="#",
        )
    return None


def _update(row, document, topic):
    """The write that brings ``document`` to what ``row`` lists, or None."""
    changes = {}
    if row.version > document.version:
        changes.update(_row_content(row), version=row.version)
    if document.status != row.status:
        changes["status"] = row.status
    if document.topic_id != topic.pk:
        changes["topic"] = topic
    if not changes:
        return None
    before = copy.copy(document)
    for name, value in changes.items():
        setattr(document, name, value)
    return DocumentWrite(document, before=before)
