"""Writes that touch several rows, each one transaction.

The admin and the importers call these; nothing important happens in a signal.
"""

from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field

from auditlog.context import set_actor
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.text import slugify

from catalogue import caching
from catalogue.decisions import DecisionImportError, DecisionProblem, parse_folder
from catalogue.models import (
    DecisionRecord,
    Document,
    DocumentVersion,
    Preface,
    Reference,
    Registry,
    Revision,
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


# What an editor edits on a document (issue 3): the content, then the filing.
EDITABLE_FIELDS = [*Document.CONTENT_FIELDS, "topic", "tags"]
CONTENT_CHANGING = set(Document.CONTENT_FIELDS)


def _require(user, permission, doing):
    """Refuse with PermissionDenied unless ``user`` holds ``permission``."""
    if user is None or not user.has_perm(permission):
        raise PermissionDenied(f"{user or 'Nobody'} may not {doing}.")


def _audited(user):
    """Attribute the audit trail's entries to ``user`` (the admin's middleware
    does it for requests; services called from elsewhere name the user)."""
    return set_actor(user) if user is not None else nullcontext()


def editable_state(document):
    """The values an editor sees and edits: the pending revision's if there is
    one, else the document's. Tags as sorted names, the topic as its id."""
    revision = document.pending_revision() if document.pk else None
    if revision is not None:
        state = {name: getattr(revision, name) for name in Document.CONTENT_FIELDS}
        state["topic"] = revision.topic_id
        state["tags"] = sorted(revision.tag_names)
        return state
    state = {name: getattr(document, name) for name in Document.CONTENT_FIELDS}
    state["topic"] = document.topic_id
    state["tags"] = sorted(document.tags.names()) if document.pk else []
    return state


def published_state(document):
    """The values readers see now, in the shape of editable_state()."""
    state = {name: getattr(document, name) for name in Document.CONTENT_FIELDS}
    state["topic"] = document.topic_id
    state["tags"] = sorted(document.tags.names())
    return state


def save_document(*, document, user=None, tags=None):
    """Create or save a document that is not public, in place.

    A new document without a number takes its registry's next one. A public
    document is never saved this way: its edits go to ``edit_document``, which
    holds them as a pending revision.
    """
    with transaction.atomic(), _audited(user):
        if document.pk and (Document.objects.public().filter(pk=document.pk).exists()):
            raise ValidationError(
                f"{document.identifier} is public: an edit is held as a pending "
                "revision until a publisher publishes it.",
                code="public_document",
            )
        if document.is_public and not document.pk:
            raise ValidationError(
                "A new document starts as a draft; a publisher publishes it.",
                code="new_document_public",
            )
        if not document.number:
            document.number = allocate_number(registry=document.registry)
        else:
            record_number(registry=document.registry, number=document.number)
        document.save()
        if tags is not None:
            document.tags.set(tags, clear=False)
        record_references(documents=[document])
    return document


def edit_document(*, document, user, changes, note=""):
    """Apply an editor's ``changes`` ({field: value}, fields of EDITABLE_FIELDS).

    A document readers can see keeps its published text: the changes go into
    its pending revision (made from the published text if there is none), for
    a publisher to publish. An unpublished document is edited in place.
    Returns the pending revision, or None for an in-place edit.
    """
    _require(user, "catalogue.change_document", "edit documents")
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValueError(f"not editable: {', '.join(sorted(unknown))}")
    with transaction.atomic(), _audited(user):
        document = Document.objects.select_for_update().get(pk=document.pk)
        if not document.is_public:
            for name, value in changes.items():
                if name not in {"tags", "topic"}:
                    setattr(document, name, value)
            if "topic" in changes:
                document.topic_id = _pk(changes["topic"])
            document.full_clean(exclude=["tags"])
            document.save()
            if "tags" in changes:
                document.tags.set(list(changes["tags"]), clear=False)
            return None
        revision = document.pending_revision()
        if revision is None:
            revision = Revision(
                document=document,
                based_on_version=document.version,
                created_by=user,
                **document.content(),
                topic_id=document.topic_id,
                tag_names=sorted(document.tags.names()),
            )
        for name, value in changes.items():
            if name == "topic":
                revision.topic_id = _pk(value)
            elif name == "tags":
                revision.tag_names = sorted(value)
            else:
                setattr(revision, name, value)
        if note:
            revision.note = note
        revision.updated_by = user
        revision.full_clean(exclude=["document"])
        if _revision_state(revision) == published_state(document):
            # The edit takes the document back to what readers see: nothing waits.
            if revision.pk:
                revision.status = Revision.Status.DISCARDED
                revision.save()
            return None
        revision.save()
        return revision


def add_tags(*, document, user, names):
    """Add tags to what an editor sees of ``document``, keeping every other tag.

    The tags are read under the document's lock, so two editors or bulk
    actions tagging the same document at once both keep their tags.
    """
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document.pk)
        tags = editable_state(document)["tags"]
        known = {name.lower() for name in tags}
        added = [name for name in names if name.lower() not in known]
        if not added:
            return None
        return edit_document(
            document=document, user=user, changes={"tags": [*tags, *added]}
        )


def _pk(value):
    return getattr(value, "pk", value)


def _revision_state(revision):
    state = {name: getattr(revision, name) for name in Document.CONTENT_FIELDS}
    state["topic"] = revision.topic_id
    state["tags"] = sorted(revision.tag_names)
    return state


def submit_for_review(*, document, user):
    """A draft goes to review; an editor's verb."""
    _require(user, "catalogue.change_document", "submit documents for review")
    with transaction.atomic(), _audited(user):
        document = Document.objects.select_for_update().get(pk=document.pk)
        if document.status != Document.Status.DRAFT:
            raise ValidationError(
                f"{document.identifier} is {document.get_status_display().lower()}, "
                "not a draft.",
                code="not_a_draft",
            )
        document.status = Document.Status.IN_REVIEW
        document.save(update_fields=["status", "updated_at"])
    return document


def publish(*, document, user, note=""):
    """Make a document, or its pending revision, what readers see.

    A first publication makes a draft or a document in review active, as v1.
    A pending revision is copied into the document: a change to the title,
    citation or summary raises the version and snapshots it with who, when and
    the change note; a change to filing alone (topic, tags) raises nothing.
    Returns the new DocumentVersion, or None when no version was raised.
    """
    _require(user, "catalogue.publish_document", "publish documents")
    with transaction.atomic(), _audited(user):
        document = Document.objects.select_for_update().get(pk=document.pk)
        now = timezone.now()
        if not document.is_public:
            document.full_clean(exclude=["tags"])
            document.status = Document.Status.ACTIVE
            if document.versions.exists():
                document.version = document.versions.first().number + 1
            document.save()
            record_references(documents=[document])
            # A new public document changes its registry's total, printed on
            # every topic page, and may bring a tag into the public filters.
            caching.document_changed(document, listing=True)
            return record_version(
                document=document, user=user, note=note, published_at=now
            )
        revision = document.pending_revision()
        if revision is None:
            raise ValidationError(
                f"{document.identifier} has no pending revision to publish.",
                code="nothing_to_publish",
            )
        raises = revision.content() != document.content()
        before = caching.document_before(document)
        tags_change = sorted(revision.tag_names) != sorted(document.tags.names())
        revision.applied_to(document)
        if raises:
            document.version += 1
        document.save()
        record_references(documents=[document])
        document.tags.set(revision.tag_names, clear=False)
        revision.status = Revision.Status.PUBLISHED
        revision.published_at, revision.published_by = now, user
        if note:
            revision.note = note
        revision.save()
        caching.document_changed(document, before=before, listing=tags_change)
        if not raises:
            return None
        return record_version(
            document=document, user=user, note=revision.note, published_at=now
        )


def discard_revision(*, document, user):
    """Drop a document's pending revision; readers never saw it."""
    _require(user, "catalogue.change_document", "discard revisions")
    with transaction.atomic(), _audited(user):
        revision = document.pending_revision()
        if revision is not None:
            revision.status = Revision.Status.DISCARDED
            revision.updated_by = user
            revision.save()
    return revision


def withdraw(*, document, user, note=""):
    """Retire a public document: it stays listed, marked withdrawn."""
    _require(user, "catalogue.publish_document", "withdraw documents")
    with transaction.atomic(), _audited(user):
        document = Document.objects.select_for_update().get(pk=document.pk)
        if document.status not in {Document.Status.ACTIVE, Document.Status.SUPERSEDED}:
            raise ValidationError(
                f"{document.identifier} is {document.get_status_display().lower()}: "
                "only an active or superseded document can be withdrawn.",
                code="not_withdrawable",
            )
        document.status = Document.Status.WITHDRAWN
        document.save(update_fields=["status", "updated_at"])
        caching.document_changed(document)
    return document


def supersede(*, document, successor, user):
    """Mark a public document superseded by another public one."""
    _require(user, "catalogue.publish_document", "supersede documents")
    with transaction.atomic(), _audited(user):
        document = Document.objects.select_for_update().get(pk=document.pk)
        if successor is None or successor.pk == document.pk:
            raise ValidationError(
                f"{document.identifier} needs another document as its successor.",
                code="successor_missing",
            )
        if not document.is_public or not successor.is_public:
            raise ValidationError(
                "Only a public document can supersede or be superseded "
                f"({document.identifier} is {document.get_status_display().lower()}, "
                f"{successor.identifier} is {successor.get_status_display().lower()}).",
                code="not_public",
            )
        document.status = Document.Status.SUPERSEDED
        document.superseded_by = successor
        document.save(update_fields=["status", "superseded_by", "updated_at"])
        caching.document_changed(document)
    return document


def revert(*, document, version, user, note=""):
    """Propose a published version's text again, as a new pending revision.

    History is never rewritten: a publisher publishes the revert as a new version.
    """
    changes = version.content()
    return edit_document(
        document=document,
        user=user,
        changes=changes,
        note=note or f"Reverted to v{version.number}.",
    )


def publish_decision(*, record, user):
    """Make a decision record public; only a publisher may."""
    _require(user, "catalogue.publish_decisionrecord", "publish decision records")
    with transaction.atomic(), _audited(user):
        record = DecisionRecord.objects.select_for_update().get(pk=record.pk)
        if record.published_at is None:
            record.published_at, record.published_by = timezone.now(), user
            record.save(update_fields=["published_at", "published_by", "updated_at"])
            caching.decision_changed(record)
    return record


def set_supersedes(*, record, superseded, user):
    """Make ``record`` the successor of exactly the records in ``superseded``.

    Supersession is kept on the older record (``superseded_by``), so marking
    ADR-061 as superseding ADR-026 shows "superseded by ADR-061" on ADR-026
    without a second edit. Records no longer listed go back to accepted.
    """
    _require(user, "catalogue.change_decisionrecord", "edit decision records")
    superseded = {other.pk for other in superseded}
    if record.pk in superseded:
        raise ValidationError(
            f"{record.identifier} cannot supersede itself.", code="supersedes_self"
        )
    with transaction.atomic(), _audited(user):
        for other in DecisionRecord.objects.select_for_update().filter(
            Q(superseded_by=record) | Q(pk__in=superseded)
        ):
            if other.pk in superseded and other.superseded_by_id != record.pk:
                other.superseded_by = record
                other.status = DecisionRecord.Status.SUPERSEDED
                other.save()
                caching.decision_changed(other)
            elif other.pk not in superseded:
                other.superseded_by = None
                other.status = DecisionRecord.Status.ACCEPTED
                other.save()
                caching.decision_changed(other)


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
        # A page brings a preface, a topic, registries and many documents.
        caching.expire_everything()
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


def import_decisions(folder):
    """Create or update the decision records of a folder of MADR files.

    All or nothing: any problem raises DecisionImportError and nothing is
    written. A re-import of the same folder changes nothing. Imported records
    are published (the folder is the team's own record); supersession is set
    both ways from either file's "Superseded by" or "Supersedes".
    """
    records, problems = parse_folder(folder)
    report = ImportReport()
    with transaction.atomic():
        caching.expire_everything()
        existing = {
            record.number: record
            for record in DecisionRecord.objects.select_for_update()
        }
        known = set(existing) | {record.number for record in records}
        successor_of = {}
        for parsed in records:
            if parsed.superseded_by is not None:
                successor_of[parsed.number] = (parsed.superseded_by, parsed)
            for older in parsed.supersedes:
                successor_of.setdefault(older, (parsed.number, parsed))
        for older, (newer, parsed) in successor_of.items():
            for number in (older, newer):
                if number not in known:
                    problems.append(
                        DecisionProblem(
                            parsed.path, 0, f"ADR-{number:03d} is not in the record"
                        )
                    )
        now = timezone.now()
        saved = {}
        for parsed in records:
            record = existing.get(parsed.number) or DecisionRecord(
                number=parsed.number, published_at=now
            )
            values = {
                "title": parsed.title,
                "status": parsed.status,
                "decided_on": parsed.decided_on,
                "body": parsed.body,
            }
            changed = {n: v for n, v in values.items() if getattr(record, n) != v}
            for name, value in changed.items():
                setattr(record, name, value)
            try:
                record.clean_fields(exclude=["superseded_by", "published_by"])
            except ValidationError as error:
                problems.extend(
                    DecisionProblem(parsed.path, 0, f"{name}: {message}")
                    for name, messages in error.message_dict.items()
                    for message in messages
                )
                continue
            saved[parsed.number] = (record, not record.pk, bool(changed))
        if problems:
            raise DecisionImportError(problems)
        written = [
            record for record, created, changed in saved.values() if created or changed
        ]
        for record in written:
            record.save()
        record_references(decisions=written)
        by_number = {**existing, **{n: r for n, (r, _, _) in saved.items()}}
        moved = set()
        for older, (newer, _) in successor_of.items():
            record = by_number[older]
            if record.superseded_by_id != by_number[newer].pk:
                record.superseded_by = by_number[newer]
                record.save()
                moved.add(older)
        for number, (_, created, changed) in saved.items():
            outcome = "created" if created else "updated"
            if not (created or changed or number in moved):
                outcome = "unchanged"
            report.count("Decision records", outcome)
    return report
