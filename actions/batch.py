"""The actions in batch form: what every import and restore writes through.

A save of one document through the admin brings number bookkeeping,
cross-references, tags, a version row once it is public, an entry in the
audit trail and fresh pages. ``DocumentWriter`` brings the same to many
documents at once, each step in one or a few queries for the whole batch, so
that what an import leaves behind does not depend on which importer made it.
``bulk_change`` is the frame of a bulk write of anything else (a preface, a
folder of decision records, a restored backup): one transaction, the audit
trail naming who or what made it, every page expired once it commits.
"""

import copy
from contextlib import contextmanager
from dataclasses import dataclass, field

from auditlog.cid import get_cid
from auditlog.context import disable_auditlog
from auditlog.diff import model_instance_diff
from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from taggit.models import Tag, TaggedItem

from actions import pages
from actions.steps import audited
from catalogue.citations import source_key
from catalogue.models import Document, DocumentVersion
from catalogue.models.fields import keeping_given_times
from catalogue.numbering import mark_issued
from catalogue.references import write_references

# What a bulk update may change on a document it finds; the key (registry,
# number) and the creation time stay.
UPDATED_FIELDS = [
    *Document.CONTENT_FIELDS,
    *Document.BIBLIOGRAPHIC_FIELDS,
    "version",
    "status",
    "topic",
    "source_key",
    "updated_at",
]
# The audit trail's fields, as a save logs them (the registration leaves out
# updated_at); the search vector is the database's and reading it back would
# cost a query a document.
AUDITED_FIELDS = [
    field.name
    for field in Document._meta.concrete_fields
    if field.name not in {"search_vector", "updated_at"}
]


@dataclass
class DocumentWrite:
    """One document to write, with what a single save would know of it."""

    document: Document
    # The document as it was read, for the audit trail; None for a new one.
    before: Document | None = None
    # The names of the tags it will have; None leaves its tags as they are.
    tags: list | None = None
    # created_at and updated_at as the source gives them, for a new document.
    times: dict = field(default_factory=dict)


@contextmanager
def bulk_change(*, user=None, via="", audit=True):
    """One transaction for a bulk write: the audit trail of what is saved
    meanwhile names ``user`` and says what made it (``via``), and every
    cached page is expired once it commits; nothing, if it fails.

    ``audit=False`` writes no audit entry: a restore brings back the audit
    trail itself, as it was.
    """
    with transaction.atomic(), audited(user, via) if audit else disable_auditlog():
        pages.everything_changed()
        yield


class DocumentWriter:
    """Writes batches of documents with everything a single save brings.

    ``user`` is named in the audit trail and as the publisher of the version
    rows it writes; ``note`` is those versions' note, written for readers, who
    read it on the version pages. A version after the first says that the
    ones before it were not kept: an import brings only the version it holds.
    ``via`` says in the audit trail what wrote them (``import_index seed.txt``),
    for entries no user made. With ``history``, a new public document gets a
    version row for each of its versions, every one with ``note`` (sample
    data, made up whole).
    """

    EARLIER_VERSIONS = "Its earlier versions were not kept."

    def __init__(self, *, note, user=None, via="", history=False):
        self.note = note
        self.history = history
        self.user = user if getattr(user, "is_authenticated", False) else None
        self.via = via
        self.expired = False

    def create(self, writes):
        """Insert new documents: their times are the source's, if it gives any
        (the others are stamped now)."""
        documents = _derived([write.document for write in writes])
        for write in writes:
            for name, value in write.times.items():
                if value:
                    setattr(write.document, name, value)
        with keeping_given_times():
            Document.objects.bulk_create(documents)
        self._complete(writes, action=LogEntry.Action.CREATE)

    def update(self, writes):
        """Write changed documents: every field of ``UPDATED_FIELDS``."""
        now = timezone.now()
        for write in writes:
            write.document.updated_at = now
        Document.objects.bulk_update(
            _derived([write.document for write in writes]), UPDATED_FIELDS
        )
        self._complete(writes, action=LogEntry.Action.UPDATE)

    def set_successors(self, changes):
        """Set each document's successor: ``changes`` is ``[(document,
        successor or None)]``, every successor already checked."""
        if not changes:
            return
        entries = []
        for document, successor in changes:
            before = copy.copy(document)
            document.superseded_by = successor
            entries.append(
                self.log_entry(
                    document,
                    LogEntry.Action.UPDATE,
                    model_instance_diff(
                        before,
                        document,
                        fields_to_check=["superseded_by"],
                        use_json_for_changes=True,
                    ),
                )
            )
        documents = [document for document, _ in changes]
        Document.objects.bulk_update(documents, ["superseded_by"], batch_size=1000)
        LogEntry.objects.bulk_create([entry for entry in entries if entry])
        self._expire(documents)

    def _expire(self, documents):
        """Every cached page is expired, once, when the batch touches a public
        document: a bulk write names too many pages to find them one by one."""
        if not self.expired and any(document.is_public for document in documents):
            pages.everything_changed()
            self.expired = True

    def _complete(self, writes, *, action):
        documents = [write.document for write in writes]
        self._expire([*documents, *(write.before for write in writes if write.before)])
        highest = {}
        for document in documents:
            registry = document.registry
            highest[registry] = max(highest.get(registry, 0), document.number)
        for registry, number in highest.items():
            mark_issued(registry=registry, number=number)
        write_references(documents=documents)
        entries = [
            self.log_entry(
                write.document,
                action,
                model_instance_diff(
                    write.before,
                    write.document,
                    fields_to_check=AUDITED_FIELDS,
                    use_json_for_changes=True,
                ),
            )
            for write in writes
        ]
        tagged = [write for write in writes if write.tags is not None]
        entries += self._write_tags(tagged, new=action == LogEntry.Action.CREATE)
        entries += self._write_versions(documents, new=action == LogEntry.Action.CREATE)
        LogEntry.objects.bulk_create([entry for entry in entries if entry])

    def _write_tags(self, writes, *, new):
        """Set each document's tags to the names given, as ``tags.set()`` would:
        names match existing tags whatever their case (TAGGIT_CASE_INSENSITIVE).
        Returns the audit entries."""
        tags = _tags_named({name for write in writes for name in write.tags})
        content_type = ContentType.objects.get_for_model(Document)
        added, removed, entries = [], [], []
        for write in writes:
            document = write.document
            wanted = {tags[name.lower()] for name in write.tags}
            current = set() if new else set(document.tags.all())
            added += [
                TaggedItem(content_type=content_type, object_id=document.pk, tag=tag)
                for tag in wanted - current
            ]
            if current - wanted:
                removed.append(
                    Q(object_id=document.pk, tag__in=[t.pk for t in current - wanted])
                )
            entries += [
                self.log_entry(document, LogEntry.Action.UPDATE, _tag_change(*change))
                for change in [("delete", current - wanted), ("add", wanted - current)]
                if change[1]
            ]
        if removed:
            TaggedItem.objects.filter(
                Q(*removed, _connector=Q.OR), content_type=content_type
            ).delete()
        TaggedItem.objects.bulk_create(added)
        return entries

    def _write_versions(self, documents, *, new):
        """A version row for each public document that has none for its
        version. Returns the audit entries."""
        public = [document for document in documents if document.is_public]
        existing = set()
        if public and not new:
            existing = set(
                DocumentVersion.objects.filter(document__in=public).values_list(
                    "document", "number"
                )
            )
        now = timezone.now()
        versions = DocumentVersion.objects.bulk_create(
            DocumentVersion.snapshot(
                document,
                number=number,
                published_at=now,
                published_by=self.user,
                note=self.note if self.history else self.version_note(number),
            )
            for document in public
            for number in self._versions_of(document, new=new)
            if (document.pk, number) not in existing
        )
        return [
            self.log_entry(
                version,
                LogEntry.Action.CREATE,
                model_instance_diff(None, version, use_json_for_changes=True),
            )
            for version in versions
        ]

    def _versions_of(self, document, *, new):
        """The version numbers ``document`` gets rows for: its own, or all of
        them up to it when the batch makes up whole histories."""
        if self.history and new:
            return range(1, document.version + 1)
        return [document.version]

    def version_note(self, number):
        if number > 1:
            return f"{self.note} {self.EARLIER_VERSIONS}"
        return self.note

    def log_entry(self, instance, action, changes):
        """The audit entry a save would have logged (auditlog's log_create),
        unsaved, for one bulk insert; None when nothing changed."""
        if not changes:
            return None
        return LogEntry(
            content_type=ContentType.objects.get_for_model(instance),
            object_pk=str(instance.pk),
            object_id=instance.pk,
            object_repr=str(instance),
            action=action,
            changes=changes,
            actor=self.user,
            actor_email=getattr(self.user, "email", None),
            cid=get_cid(),
            additional_data={"via": self.via} if self.via else None,
        )


def _derived(documents):
    """``documents`` with the fields ``Document.save()`` derives, as a bulk
    write does not call it."""
    for document in documents:
        document.source_key = source_key(document.source_identifier)
    return documents


def _tags_named(names):
    """``{lowered name: Tag}`` for ``names``, making the tags that are missing."""
    tags = {}
    for tag in (
        Tag.objects.annotate(lowered=Lower("name"))
        .filter(lowered__in={name.lower() for name in names})
        .order_by("pk")
    ):
        tags.setdefault(tag.lowered, tag)
    for name in sorted(names):
        if name.lower() not in tags:
            tags[name.lower()] = Tag.objects.create(name=name)
    return tags


def _tag_change(operation, tags):
    """An audit trail's change of tags, as auditlog logs m2m_changed."""
    return {
        "tags": {
            "type": "m2m",
            "operation": operation,
            "objects": sorted(str(tag) for tag in tags),
        }
    }
