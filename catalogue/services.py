"""Writes that touch several rows, each one transaction.

The admin and the importers call these; nothing important happens in a signal.
"""

from collections import Counter
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone
from django.utils.text import slugify

from catalogue.models import (
    DecisionRecord,
    Document,
    DocumentVersion,
    Preface,
    Reference,
    Registry,
    Topic,
    format_identifier,
)
from catalogue.pages import PageError, Problem
from catalogue.references import find_names

# Which column of a page row each model field is printed in.
ROW_COLUMNS = {
    "title": "Title",
    "authors": "Summary",
    "year": "Summary",
    "source_identifier": "Summary",
    "citation_note": "Summary",
    "summary": "Summary",
    "status": "Status",
}


def allocate_number(*, registry):
    """The registry's next number: one more than the highest ever issued.

    The registry's row stays locked until the transaction ends, so two editors
    creating documents at once never get the same number. Numbers written
    without this service (bulk loads) count too: the highest in use is taken
    into account.
    """
    with transaction.atomic():
        locked = Registry.objects.select_for_update().get(pk=registry.pk)
        in_use = locked.documents.aggregate(highest=Max("number"))["highest"] or 0
        locked.last_number = max(locked.last_number, in_use) + 1
        locked.save(update_fields=["last_number"])
    registry.last_number = locked.last_number
    return locked.last_number


def record_number(*, registry, number):
    """Note that ``number`` is used, so it is never issued again."""
    Registry.objects.filter(pk=registry.pk, last_number__lt=number).update(
        last_number=number
    )


def record_version(*, document, user=None, note="", published_at=None):
    """Snapshot the document's published text as version ``document.version``."""
    return DocumentVersion.objects.create(
        document=document,
        number=document.version,
        published_at=published_at or timezone.now(),
        published_by=user,
        note=note,
        **document.content(),
    )


def record_references(*, documents=(), decisions=()):
    """Rewrite the references the texts of these records make.

    A name counts when its prefix is a registry's or the decision records'
    (so ``ARXIV-1604`` is not one) and it is not the record's own.
    """
    with transaction.atomic():
        prefixes = {*Registry.objects.values_list("prefix", flat=True)}
        prefixes.add(DecisionRecord.PREFIX)
        Reference.objects.filter(document__in=[d.pk for d in documents]).delete()
        Reference.objects.filter(decision__in=[d.pk for d in decisions]).delete()
        rows = []
        sources = [("document", d, d.reference_text) for d in documents]
        sources += [("decision", d, f"{d.title}\n{d.body}") for d in decisions]
        for field, record, text in sources:
            named = {
                (name.prefix, name.number, name.version)
                for name in find_names(text, prefixes)
                if format_identifier(name.prefix, name.number) != record.identifier
            }
            rows.extend(
                Reference(
                    prefix=prefix, number=number, version=version, **{field: record}
                )
                for prefix, number, version in sorted(named, key=str)
            )
        Reference.objects.bulk_create(rows)


def save_document(*, document, user=None, note=""):
    """Save a document from the admin, keeping numbers and versions right.

    A new document without a number takes its registry's next one. A public
    document whose title, citation or summary differs from its latest version
    is published as the next version, with a version row of its own.
    """
    with transaction.atomic():
        if not document.number:
            document.number = allocate_number(registry=document.registry)
        else:
            record_number(registry=document.registry, number=document.number)
        latest = document.versions.first() if document.pk else None
        publishes = document.is_public and (
            latest is None or latest.content() != document.content()
        )
        if publishes and latest is not None:
            document.version = latest.number + 1
        document.save()
        if publishes:
            record_version(document=document, user=user, note=note)
        record_references(documents=[document])
    return document


@dataclass
class ImportReport:
    """What an import created, updated and left unchanged, by kind of record."""

    tallies: dict = field(default_factory=dict)
    # (prefix, total stated on the page, public documents in the record)
    totals: list = field(default_factory=list)

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
            f"{tally['unchanged']} unchanged."
            for kind, tally in self.tallies.items()
        ]
        lines.extend(
            f"The page counts {stated} {prefix} documents in all; "
            f"the record now lists {listed} public ones."
            for prefix, stated, listed in self.totals
        )
        if not self.changed:
            lines.append("Nothing changed.")
        return "\n".join(lines)


def import_index_page(page, *, source=""):
    """Create or update the registries, the topic and the documents of a page.

    All or nothing: any problem raises PageError and nothing is written.
    """
    _check_field_limits(page)
    report = ImportReport()
    note = f"Imported from {source}" if source else "Imported"
    with transaction.atomic():
        _import_preface(page, report)
        registries = _import_registries(page, report)
        topic = _import_topic(page, report)
        _import_documents(page, registries, topic, report, note)
        public = dict(
            Document.objects.public()
            .filter(registry__in=registries.values())
            .values_list("registry__prefix")
            .annotate(n=Count("pk"))
        )
        report.totals = [
            (count.prefix, count.total, public.get(count.prefix, 0))
            for count in page.counts
        ]
    return report


def _check_field_limits(page):
    """Report values the models refuse (too long, out of range) by line and column."""
    problems = []
    checks = [
        (1, "", Preface(heading=page.heading, text=page.intro), ["id"]),
        (2, "", Topic(name=page.topic_name, scope=page.topic_scope, position=1), []),
    ]
    checks.extend(
        (3, "", Registry(prefix=count.prefix, name=count.prefix), [])
        for count in page.counts
    )
    checks.extend(
        (row.line, None, _document_for(row), ["registry", "topic", "number"])
        for row in page.rows
    )
    for line, column, instance, exclude in checks:
        try:
            instance.clean_fields(exclude=[*exclude, "slug"])
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                where = ROW_COLUMNS.get(name, name) if column is None else column
                problems.extend(
                    Problem(line, f"{name}: {message}", column=where)
                    for message in messages
                )
    if problems:
        raise PageError(problems)


def _document_for(row):
    return Document(
        number=row.number,
        version=row.version,
        status=row.status,
        **_row_content(row),
    )


def _row_content(row):
    return {
        "title": row.title,
        "authors": row.citation.authors,
        "year": row.citation.year,
        "source_identifier": row.citation.identifier,
        "citation_note": row.citation.note,
        "summary": row.summary,
    }


def _import_preface(page, report):
    preface = Preface.objects.filter(pk=1).first()
    if preface is None:
        Preface.objects.create(heading=page.heading, text=page.intro)
        report.count("Preface", "created")
    elif (preface.heading, preface.text) != (page.heading, page.intro):
        preface.heading, preface.text = page.heading, page.intro
        preface.save()
        report.count("Preface", "updated")
    else:
        report.count("Preface", "unchanged")


def _import_registries(page, report):
    registries = {}
    for count in page.counts:
        registry, created = Registry.objects.get_or_create(
            prefix=count.prefix, defaults={"name": count.prefix}
        )
        report.count("Registries", "created" if created else "unchanged")
        registries[count.prefix] = registry
    return registries


def _import_topic(page, report):
    topic = Topic.objects.filter(name=page.topic_name).first()
    if topic is None:
        slug = slugify(page.topic_name)
        if Topic.objects.filter(slug=slug).exists():
            raise PageError(
                [Problem(2, f"another topic already has the slug {slug!r}")]
            )
        last = Topic.objects.order_by("-position").first()
        topic = Topic.objects.create(
            name=page.topic_name,
            slug=slug,
            scope=page.topic_scope,
            position=last.position + 1 if last else 1,
        )
        report.count("Topics", "created")
    elif topic.scope != page.topic_scope:
        topic.scope = page.topic_scope
        topic.save(update_fields=["scope"])
        report.count("Topics", "updated")
    else:
        report.count("Topics", "unchanged")
    return topic


def _import_documents(page, registries, topic, report, note):
    existing = {
        (document.registry.prefix, document.number): document
        for document in Document.objects.select_related("registry").filter(
            registry__in=registries.values(),
            number__in=[row.number for row in page.rows],
        )
    }
    problems, created, versions = [], [], []
    now = timezone.now()
    for row in page.rows:
        content = _row_content(row)
        document = existing.get((row.prefix, row.number))
        if document is None:
            document = Document(
                registry=registries[row.prefix],
                number=row.number,
                version=row.version,
                status=row.status,
                topic=topic,
                **content,
            )
            created.append(document)
            continue
        if document.version > row.version:
            problems.append(
                Problem(
                    row.line,
                    f"the record already holds {document.identifier} "
                    f"v{document.version}; the page lists v{row.version}",
                    column="#",
                )
            )
            continue
        if document.version == row.version and document.content() != content:
            changed = [
                name for name in content if getattr(document, name) != content[name]
            ]
            problems.append(
                Problem(
                    row.line,
                    f"{document.identifier} v{row.version} differs from the recorded "
                    f"v{row.version} ({', '.join(changed)}); a changed text needs a "
                    "new version number",
                    column="#",
                )
            )
            continue
        update = {}
        if row.version > document.version:
            update.update(content, version=row.version)
        if document.status != row.status:
            update["status"] = row.status
        if document.topic_id != topic.pk:
            update["topic"] = topic
        if not update:
            report.count("Documents", "unchanged")
            continue
        for name, value in update.items():
            setattr(document, name, value)
        document.save(update_fields=[*update, "updated_at"])
        if "version" in update:
            versions.append(_version_of(document, now, note))
        report.count("Documents", "updated")
    if problems:
        raise PageError(problems)
    Document.objects.bulk_create(created)
    versions.extend(_version_of(document, now, note) for document in created)
    DocumentVersion.objects.bulk_create(versions)
    record_references(documents=[version.document for version in versions])
    report.count("Documents", "created", len(created))
    for prefix, registry in registries.items():
        numbers = [row.number for row in page.rows if row.prefix == prefix]
        if numbers:
            record_number(registry=registry, number=max(numbers))


def _version_of(document, published_at, note):
    return DocumentVersion(
        document=document,
        number=document.version,
        published_at=published_at,
        note=note,
        **document.content(),
    )
