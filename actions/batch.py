"""The actions in batch form: what every import and restore writes through.

A save of one document through the admin brings number bookkeeping,
cross-references, tags, a version row once it is public, an entry in the
audit trail and fresh pages. ``DocumentWriter`` brings the same to many
documents at once, each step in one or a few queries for the whole batch, so
that what an import leaves behind does not depend on which importer made it.
Its rows go through ``actions.staging``: on PostgreSQL copied into temporary
tables as the batches come, then moved into the record by one short
switch-over, within ``DocumentWriter.staged()``.
``bulk_change`` is the frame of a bulk write of anything else (a preface, a
folder of decision records, a restored backup): one transaction, the audit
trail naming who or what made it, and the planner's statistics of every
table it changed by a sizable share brought up to date. What a bulk write
expires, audits and tells ``RECORD_CHANGED`` is what it changed, found a
batch at a time, never the whole record (but for a restore).
"""

import copy
import datetime
import functools
import gc
import operator
from contextlib import contextmanager
from dataclasses import dataclass, field

from auditlog.cid import get_cid
from auditlog.context import disable_auditlog
from auditlog.diff import get_field_value, is_primitive, model_instance_diff
from auditlog.models import LogEntry
from auditlog.registry import auditlog
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.db.models import DateTimeField, JSONField, Q
from django.db.models.base import ModelState
from django.utils import timezone
from django.utils.encoding import smart_str
from taggit.models import Tag, TaggedItem

from actions import pages, rows, vocabulary
from actions.filing import tags_named
from actions.people import PeopleIndex, link_documents
from actions.staging import ChangedRows, Staging, analysed, noting_changes
from actions.steps import audited, require
from catalogue.models import Document, DocumentVersion, Reference
from catalogue.models.fields import keeping_given_times
from catalogue.numbering import mark_issued
from catalogue.references import reference_rows

# What a bulk update may change on a document it finds; the key (registry,
# number) and the creation time stay.
UPDATED_FIELDS = [
    *Document.CONTENT_FIELDS,
    *Document.BIBLIOGRAPHIC_FIELDS,
    "version",
    "status",
    "topic",
    *Document.DERIVED_FIELDS,
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
def bulk_change(*, user=None, via="", audit=True, everything=False):
    """One transaction for a bulk write: the audit trail of what is saved
    meanwhile names ``user`` and says what made it (``via``); nothing, if it
    fails.

    ``audit=False`` writes no audit entry: a restore brings back the audit
    trail itself, as it was.

    The actions it runs expire the pages of what they changed and tell
    ``RECORD_CHANGED`` of the documents they changed, as each does alone
    (``DocumentWriter`` for many documents at once). ``everything``: the
    write makes the record anew (a restore, sample data): every page is
    expired once it commits, and what derives from the record is
    recomputed whole.

    Every table it changes by a sizable share is analysed before it commits
    (``analysed``), so that the first searches and pages after a large
    import are planned with statistics that know its rows. It runs without
    the cycle collector (``collecting_cycles_later``).
    """
    changed = ChangedRows()
    with (
        collecting_cycles_later(),
        transaction.atomic(),
        audited(user, via) if audit else disable_auditlog(),
        connection.execute_wrapper(noting_changes(changed)),
    ):
        if everything:
            pages.everything_changed()
        yield
        # Still in the transaction, whose rows ANALYZE counts.
        analysed(changed)


@contextmanager
def collecting_cycles_later():
    """Pause Python's cycle collector for the block, unless it is paused
    already. A bulk write holds tens of thousands of new objects (instances,
    rows, audit entries) at once; each full collection walks every one of
    them again, and took about half of an import's own time. What the block
    leaves unreachable is collected once it has ended."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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

    Each call writes its batch at once, unless made within ``staged()`` (or
    by a writer made with ``staged=True``, until ``switch()``): then the
    batches are staged and written together by one switch-over
    (``switch_seconds`` says how long it took).
    """

    EARLIER_VERSIONS = "Its earlier versions were not kept."

    # A batch writes what readers see, new versions included: the right to
    # publish documents, besides the right to add or change them.
    PERMISSIONS = {
        "add": ["catalogue.add_document", "catalogue.publish_document"],
        "change": ["catalogue.change_document", "catalogue.publish_document"],
    }

    def __init__(self, *, note, user=None, via="", history=False, staged=False):
        self.note = note
        self.history = history
        self.actor = user
        self.user = user if getattr(user, "is_authenticated", False) else None
        self.via = via
        self.staging = Staging()
        self.entries = AuditEntries(user=user, via=via)
        self.staging_batches = staged
        self.switch_seconds = 0.0
        # The people its batches link to, read once for the whole write.
        self.people = PeopleIndex()
        # What the batches staged since the last switch-over bring after
        # them, done once for them all as it ends (``_follow_up``).
        self.following = None

    @contextmanager
    def staged(self):
        """Stage every batch written within; write them all, in one
        switch-over, as the block ends without an error. It must run in a
        transaction (``bulk_change``): the import stays all or nothing."""
        if not connection.in_atomic_block:
            raise RuntimeError("A staged bulk write runs in a transaction.")
        self.staging_batches = True
        try:
            yield self
        finally:
            self.staging_batches = False
        self.switch()

    def switch(self):
        """Write what is staged into the record."""
        self.staging.switch()
        self.switch_seconds = self.staging.switch_seconds

    def _batch_written(self):
        if not self.staging_batches:
            self.switch()

    def _require(self, verb, writes):
        if not writes:
            return
        for permission in self.PERMISSIONS[verb]:
            require(self.actor, permission, f"{verb} documents", via=self.via)

    def create(self, writes):
        """Insert new documents: their times are the source's, if it gives any
        (the others are stamped now)."""
        self._require("add", writes)
        documents = _derived([write.document for write in writes])
        for write in writes:
            for name, value in write.times.items():
                if value:
                    setattr(write.document, name, value)
        with transaction.atomic():
            with keeping_given_times():
                self.staging.insert(Document, documents)
            self._complete(writes, action=LogEntry.Action.CREATE)
            self._batch_written()

    def update(self, writes):
        """Write changed documents: every field of ``UPDATED_FIELDS``."""
        self._require("change", writes)
        now = timezone.now()
        for write in writes:
            write.document.updated_at = now
        with transaction.atomic():
            self.staging.update(
                Document, _derived([write.document for write in writes]), UPDATED_FIELDS
            )
            self._complete(writes, action=LogEntry.Action.UPDATE)
            self._batch_written()

    def set_successors(self, changes):
        """Set each document's successor: ``changes`` is ``[(document,
        successor or None)]``, every successor already checked."""
        if not changes:
            return
        self._require("change", changes)
        entries, befores = [], []
        for document, successor in changes:
            before = copy.copy(document)
            befores.append(before)
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
        with transaction.atomic():
            self.staging.update(Document, documents, ["superseded_by"])
            self.staging.append(LogEntry, [entry for entry in entries if entry])
            # The successor's page says what it supersedes, and so did the
            # former successor's.
            pages.documents_changed(list(zip(documents, befores, strict=True)))
            public = [
                (document, before)
                for document, before in zip(documents, befores, strict=True)
                if document.is_public or before.is_public
            ]
            successors = {d.superseded_by_id for d, _ in public}
            successors |= {before.superseded_by_id for _, before in public}
            successors.discard(None)
            if successors:
                pages.own_pages_changed(sorted(successors))
            self.staging.then(lambda: rows.documents_changed(d.pk for d in documents))
            self._batch_written()

    def _complete(self, writes, *, action):
        documents = [write.document for write in writes]
        new = action == LogEntry.Action.CREATE
        if action != LogEntry.Action.CREATE:
            self.staging.delete(
                Reference.objects.filter(document__in=[d.pk for d in documents])
            )
        self.staging.insert(Reference, reference_rows(documents=documents))
        entries = [
            self.log_entry(
                write.document,
                action,
                audit_diff(write.before, write.document, AUDITED_FIELDS),
            )
            for write in writes
        ]
        tagged = [write for write in writes if write.tags is not None]
        retagged = self._write_tags(tagged, new=new)
        entries += retagged
        versions, written = self._write_versions(documents, new=new)
        entries += written
        self.staging.append(LogEntry, [entry for entry in entries if entry])
        # The pages of these documents alone: a new public document changes
        # its registry's total, printed on every topic page, and so does one
        # no longer public; a public one's tags, the public filters.
        # Found for each batch, while it has the documents as they were read;
        # expired with the other batches' (``_followed``).
        public = {document.pk for document in documents if document.is_public}
        scopes, told = pages.documents_scopes(
            [(write.document, write.before) for write in writes],
            listing=any(
                write.document.is_public
                != (write.before is not None and write.before.is_public)
                for write in writes
            )
            or any(entry.object_id in public for entry in retagged),
        )
        self._follow_up(documents, new=new, versions=versions, scopes=scopes, told=told)

    def _follow_up(self, documents, *, new, versions, scopes, told):
        """Note ``documents``, just staged, for what follows their batch at
        the switch-over: the numbers issued, the public words, the stored
        rows, the people linked (new documents with their ``versions``, as
        staged) and the pages expired (``scopes``, and the documents ``told``
        to ``RECORD_CHANGED``). All the batches staged before one switch-over
        are followed up together, once (``_followed``), as one batch of them
        all would be."""
        if self.following is None:
            self.following = {
                "highest": {},
                "new": [],
                "new_versions": [],
                "changed": [],
                "scopes": set(),
                "told": [],
            }
            self.staging.then(self._followed)
        following = self.following
        following["scopes"] |= scopes
        following["told"] += told
        highest = following["highest"]
        for document in documents:
            registry = document.registry
            highest[registry] = max(highest.get(registry, 0), document.number)
        following["new" if new else "changed"] += documents
        if new:
            following["new_versions"] += versions

    def _followed(self):
        following, self.following = self.following, None
        pks = [document.pk for document in following["new"] + following["changed"]]
        for registry, number in following["highest"].items():
            mark_issued(registry=registry, number=number)
        # The public words are counted once the rows are in the record.
        vocabulary.refresh(pks)
        # The stored rows are built once the documents are in the record.
        rows.documents_changed(pks)
        # People are linked once the rows are in the record, versions too.
        link_documents(
            following["new"],
            user=self.user,
            via=self.via,
            index=self.people,
            new=True,
            versions=following["new_versions"],
        )
        link_documents(
            following["changed"], user=self.user, via=self.via, index=self.people
        )
        pages.expire_documents(following["scopes"], following["told"])

    def _write_tags(self, writes, *, new):
        """Set each document's tags to the names given, as the actions set them:
        names match existing tags whatever their case (TAGGIT_CASE_INSENSITIVE)
        or by the slug they would take.
        Returns the audit entries."""
        tags = _tags_named({name for write in writes for name in write.tags})
        content_type = ContentType.objects.get_for_model(Document)
        added, removed, entries = [], [], []
        for write in writes:
            document = write.document
            wanted = {tags[name] for name in write.tags}
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
            self.staging.delete(
                TaggedItem.objects.filter(
                    Q(*removed, _connector=Q.OR), content_type=content_type
                )
            )
        self.staging.insert(TaggedItem, added)
        return entries

    def _write_versions(self, documents, *, new):
        """A version row for each public document that has none for its
        version. Returns the versions and their audit entries."""
        public = [document for document in documents if document.is_public]
        existing = set()
        if public and not new:
            existing = set(
                DocumentVersion.objects.filter(document__in=public).values_list(
                    "document", "number"
                )
            )
        now = timezone.now()
        versions = self.staging.insert(
            DocumentVersion,
            (
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
            ),
        )
        return versions, [
            self.log_entry(
                version,
                LogEntry.Action.CREATE,
                audit_diff(None, version),
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
        return self.entries.entry(instance, action, changes)


class AuditEntries:
    """The audit entries auditlog's receivers log as rows are saved, unsaved,
    for one bulk insert: attributed to ``user`` and saying what made them
    (``via``), as ``audited(user, via)`` has a save's entry say."""

    def __init__(self, *, user=None, via=""):
        self.user = user if getattr(user, "is_authenticated", False) else None
        self.via = via
        self._fields = None

    def created(self, instances):
        """The entries saving each of ``instances`` anew logs: every field it
        set, from nothing to its value (``audit_diff``)."""
        entries = (
            self.entry(instance, LogEntry.Action.CREATE, audit_diff(None, instance))
            for instance in instances
        )
        return [entry for entry in entries if entry]

    def entry(self, instance, action, changes):
        """The entry a save of ``instance`` logs; None when nothing changed."""
        if not changes:
            return None
        # An entry's fields are those of the first entry but for the row and
        # the time it names: it is made from them, as unpickling makes an
        # instance, without Model.__init__ again for each of the thousands of
        # entries a bulk write logs.
        cid = get_cid()
        if self._fields is None or self._fields["cid"] != cid:
            fields = LogEntry(
                actor=self.user,
                actor_email=getattr(self.user, "email", None),
                cid=cid,
                additional_data={"via": self.via} if self.via else None,
            ).__dict__
            self._fields = {k: v for k, v in fields.items() if k != "_state"}
        entry = LogEntry.__new__(LogEntry)
        entry.__dict__.update(
            self._fields,
            content_type_id=_content_type_id(type(instance)),
            object_pk=str(instance.pk),
            object_id=instance.pk,
            object_repr=str(instance),
            action=action,
            changes=changes,
            timestamp=timezone.now(),
        )
        entry._state = ModelState()
        return entry


def _content_type_id(model):
    return ContentType.objects.get_for_model(model).pk


def _derived(documents):
    """``documents`` with the fields ``Document.save()`` derives, as a bulk
    write does not call it."""
    for document in documents:
        document.derive()
    return documents


def _tags_named(names):
    """``{name: Tag}`` for ``names``: the tags they stand for, whatever the
    case or a slug's spelling (``filing.tags_named``), making those missing."""
    named, made = tags_named(sorted(names)), {}
    for name, tag in named.items():
        if isinstance(tag, str):
            if tag not in made:
                made[tag] = Tag.objects.create(name=tag)
            named[name] = made[tag]
    return named


def _tag_change(operation, tags):
    """An audit trail's change of tags, as auditlog logs m2m_changed."""
    return {
        "tags": {
            "type": "m2m",
            "operation": operation,
            "objects": sorted(str(tag) for tag in tags),
        }
    }


def audit_diff(old, new, fields_to_check=None):
    """What auditlog's ``model_instance_diff(old, new, fields_to_check,
    use_json_for_changes=True)`` gives, with the fields it compares found
    once a model rather than once an instance, and each value read as
    ``get_field_value`` reads it: a bulk write logs thousands of rows."""
    model = type(new)
    compared = _compared_fields(model, tuple(fields_to_check or ()))
    if compared is None:
        return model_instance_diff(
            old, new, fields_to_check=fields_to_check, use_json_for_changes=True
        )
    if old is None:
        return _created_diff(new, compared)
    diff = {}
    for name, read, *_ in compared:
        before, after = read(old), read(new)
        if before != after:
            diff[name] = (
                before if is_primitive(before) else smart_str(before),
                after if is_primitive(after) else smart_str(after),
            )
    return diff or None


# The types ``is_primitive`` takes as they are, for a quick look before it.
_PRIMITIVE = frozenset({type(None), bool, int, float, str, list, tuple, dict, set})


def _created_diff(new, compared):
    """``audit_diff(None, new)``: each field's value for no instance is the
    same for every row, so its side of the change is written once a model."""
    diff = {}
    for name, read, no_value, no_value_written in compared:
        after = read(new)
        if after != no_value:
            diff[name] = (
                no_value_written,
                after
                if type(after) in _PRIMITIVE or is_primitive(after)
                else smart_str(after),
            )
    return diff or None


_COMPARED = {}


def _compared_fields(model, fields_to_check):
    """``[(name, read, no_value, no_value_written)]``: the fields
    model_instance_diff compares for ``model``, each with how it reads an
    instance's value and its value for no instance, as read and as a change
    writes it; None where it masks a field."""
    key = (model, fields_to_check)
    if key not in _COMPARED:
        from auditlog.diff import get_fields_in_model

        registered = auditlog.get_model_fields(model)
        if registered["mask_fields"]:
            _COMPARED[key] = None
            return None
        fields = set(get_fields_in_model(model()))
        if fields_to_check:
            fields = {
                field
                for field in fields
                if (field.name in fields_to_check)
                or (field.many_to_one and field.attname in fields_to_check)
            }
        if registered["include_fields"]:
            fields = [f for f in fields if f.name in registered["include_fields"]]
        if registered["exclude_fields"]:
            fields = [f for f in fields if f.name not in registered["exclude_fields"]]
        _COMPARED[key] = [
            (field.name, _reader(field), no_value, _written(no_value))
            for field in fields
            # get_field_value looks a field's default up on the instance it
            # is given: for no instance it finds none, whatever the field's
            # default is.
            for no_value in [get_field_value(None, field, True)]
        ]
    return _COMPARED[key]


def _written(value):
    """A value as a change writes it (``model_instance_diff``)."""
    return value if is_primitive(value) else smart_str(value)


def _reader(field):
    """How ``get_field_value`` reads ``field`` (JSON changes), as a function of
    the instance."""
    if isinstance(field, DateTimeField) and field.concrete:
        return functools.partial(_naive_utc, field=field)
    if isinstance(field, JSONField) or not field.concrete:
        return functools.partial(
            get_field_value, field=field, use_json_for_changes=True
        )
    if field.many_to_one or field.one_to_one:
        attname = field.attname

        def read(instance):
            return smart_str(getattr(instance, attname), strings_only=True)

        return read
    return operator.attrgetter(field.name)


def _naive_utc(instance, field):
    """An aware time as get_field_value gives it: naive, in UTC."""
    value = getattr(instance, field.attname)
    if (
        type(value) is datetime.datetime
        and settings.USE_TZ
        and value.utcoffset() is not None
    ):
        return value.astimezone(datetime.UTC).replace(tzinfo=None)
    return get_field_value(instance, field, True)
