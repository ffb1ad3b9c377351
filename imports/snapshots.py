"""A lossless, versioned snapshot of the whole record, and its restore.

The file is JSON: a small envelope (format, version, when, which models)
around Django's own serialisation of every row of ``RECORD_MODELS``. Primary
keys are kept, so every reference inside the record survives; content types,
permissions and users are referred to by natural key (``["catalogue",
"document"]``, a username), which do not depend on the database's numbering.
"""

import datetime
import json
from contextlib import contextmanager
from itertools import chain

from django.apps import apps
from django.core import serializers
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction

from actions import rows, vocabulary
from actions.batch import bulk_change
from actions.people import link_documents
from catalogue.models import OWN_LOG, DecisionRecord, Document
from catalogue.models.decision import RENDERED
from imports import progress

FORMAT = "anthology-record"
VERSION = 3
# Snapshots of version 1 kept a decision record's successor on the record
# (``superseded_by``); version 2 keeps it as the successor's relation;
# version 3 keeps decision logs, where the earlier ones' decision records
# are all the record's own.
READABLE_VERSIONS = {1, 2, 3}

# Every model the record is made of, in the order a restore saves them (a
# model after the ones it refers to). Adding a model to the record is one line
# here; a model of the project in neither this list nor ``NOT_BACKED_UP``
# fails ``tests/imports/test_backup.py``.
RECORD_MODELS = [
    "auth.Group",
    "auth.User",
    # A staff member's tokens, as stored: their digests, never their secrets,
    # so a restored token still authenticates its scripts.
    "api.ApiToken",
    "catalogue.Registry",
    "catalogue.Topic",
    "catalogue.Preface",
    "catalogue.Venue",
    "catalogue.DecisionLog",
    "catalogue.DecisionRecord",
    "catalogue.DecisionRelation",
    "catalogue.DecisionImage",
    "catalogue.DecisionRevision",
    "catalogue.Document",
    "catalogue.DocumentVersion",
    "catalogue.DocumentNotice",
    "catalogue.Revision",
    # Changes a publisher scheduled: a restored site still makes them.
    "catalogue.Schedule",
    # The review conversation: staff's own record of how each version came
    # to be published (comments, who reviewed it, when it was sent back).
    "catalogue.ReviewThread",
    "catalogue.ReviewComment",
    "catalogue.ReviewerPreference",
    "catalogue.Reference",
    "catalogue.DocumentVenue",
    "catalogue.Person",
    "catalogue.PersonAddress",
    "catalogue.Authorship",
    "catalogue.PersonProposal",
    "catalogue.Correction",
    "catalogue.LinkCheck",
    # Related work and candidate topics are computed, but an editor's verdict
    # on a candidate (dismissed, made into a topic) is not, and a restored
    # site shows the related work it showed without a whole-record job.
    "catalogue.RelatedDocument",
    "catalogue.CandidateTopic",
    "catalogue.CandidateMember",
    "taggit.Tag",
    "taggit.TaggedItem",
    # The audit trail: who changed what, when. A restore brings it back as it
    # was and adds nothing of its own.
    "auditlog.LogEntry",
]

# The project's models a backup leaves out, and why a restore need not bring
# them back.
NOT_BACKED_UP = {
    "admin.LogEntry": "the admin's list of recent actions; the audit trail "
    "(auditlog.LogEntry) is backed up and holds every change",
    "auth.Permission": "made by migrate; rows refer to permissions by natural key",
    "contenttypes.ContentType": "made by migrate; rows refer to them by natural key",
    "sessions.Session": "sign-ins, which a restore ends",
    "axes.AccessAttempt": "failed sign-ins counted for the lockout; they expire",
    "axes.AccessAttemptExpiration": "when a lockout's count expires",
    "axes.AccessFailureLog": "the lockout's log of failed sign-ins",
    "axes.AccessLog": "the lockout's log of sign-ins",
    "catalogue.BrokenReference": "a proxy of catalogue.Reference, which is backed up",
    "jobs.Job": "background work in flight and done; its uploads are in the "
    "shared cache, which a restore does not bring back",
    "pagecache.PendingExpiry": "the page caches' outbox of expiries, not the "
    "record's: a restore writes into an empty record",
    "django_rq.Dashboard": "no table: django-rq's admin page",
    "catalogue.Word": "the public record's vocabulary, counted from its "
    "documents: a restore counts it again",
    "catalogue.DocumentWords": "what each public document gave the "
    "vocabulary, counted again by a restore",
    "catalogue.DocumentRow": "each public document's row in the document "
    "tables, as HTML, built from the record: a restore builds them again",
    "catalogue.RowName": "the names in each stored row, kept with it: a "
    "restore finds them again",
    "catalogue.ListedCount": "how many stored rows each registry has under "
    "each topic, kept with them: a restore counts them again",
    "catalogue.PreviewLink": "links to unpublished text handed to people "
    "without accounts: a restore ends them, as it ends sign-ins",
}

# What makes a database "not empty" for a restore.
CONTENT_MODELS = [
    "catalogue.Registry",
    "catalogue.Topic",
    "catalogue.Document",
    "catalogue.DecisionLog",
    "catalogue.DecisionRecord",
]


class LosslessEncoder(DjangoJSONEncoder):
    """Django's encoder, but times keep their microseconds (it cuts them to ms)."""

    def default(self, o):
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


class BackupError(Exception):
    """A snapshot that cannot be restored, with the reason."""


def record_models():
    return [apps.get_model(label) for label in RECORD_MODELS]


@contextmanager
def one_moment():
    """A transaction reading the record as it stood when it began, whatever
    commits meanwhile, so that every row a snapshot holds refers to rows it
    holds too (PostgreSQL's repeatable read). Inside a transaction already
    begun, that one's; SQLite is left reading as it does, since a read
    transaction there holds every writer off until it ends."""
    if connection.in_atomic_block or connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def export_record(stream):
    """Write the whole record to ``stream`` (text), row by row, as it stood
    when the export began."""
    with one_moment():
        _export(stream)


def _export(stream):
    envelope = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": datetime.datetime.now(datetime.UTC).isoformat(),
        "models": RECORD_MODELS,
    }
    stream.write(json.dumps(envelope, ensure_ascii=False)[:-1] + ', "objects": ')
    total = sum(model._default_manager.count() for model in record_models())
    rows = progress.counted(
        chain.from_iterable(
            model._default_manager.order_by("pk").iterator(chunk_size=2000)
            for model in record_models()
        ),
        total,
    )
    serializers.serialize(
        "json",
        rows,
        stream=stream,
        indent=1,
        ensure_ascii=False,
        cls=LosslessEncoder,
        use_natural_foreign_keys=True,
        use_natural_primary_keys=False,
    )
    stream.write("}\n")


def import_record(stream):
    """Restore a snapshot into a record with no content; return rows per model.

    All or nothing: any problem raises BackupError and nothing is written.
    """
    try:
        data = json.load(stream)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BackupError(f"not a snapshot: {error}") from error
    except RecursionError as error:
        raise BackupError(
            "not a snapshot: it nests deeper than its JSON can be read"
        ) from error
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError(f"not a snapshot: no {FORMAT!r} format marker")
    if data.get("version") not in READABLE_VERSIONS:
        raise BackupError(
            f"snapshot version {data.get('version')!r} cannot be read; "
            f"this version reads versions {sorted(READABLE_VERSIONS)}"
        )
    if data["version"] == 1:
        data["objects"] = _successors_as_relations(data["objects"])
    if data["version"] < 3:
        data["objects"] = _in_own_log(data["objects"])
    unknown = sorted(set(data.get("models", [])) - set(RECORD_MODELS))
    if unknown:
        raise BackupError(f"the snapshot holds models this version lacks: {unknown}")
    for label in CONTENT_MODELS:
        if apps.get_model(label)._default_manager.exists():
            raise BackupError(
                f"the database already holds {label} rows; restore into an empty one"
            )
    counts = {}
    # The snapshot brings its own audit trail: the restore adds none.
    with bulk_change(via="import_record", audit=False, everything=True):
        with connection.constraint_checks_disabled():
            objects = serializers.deserialize(
                "python", data["objects"], handle_forward_references=True
            )
            deferred = []
            for obj in progress.counted(objects, len(data["objects"])):
                obj.save()
                if obj.deferred_fields:
                    deferred.append(obj)
                label = obj.object._meta.label
                counts[label] = counts.get(label, 0) + 1
            for obj in deferred:
                obj.save_deferred_fields()
        # Decisions' HTML is rendered from their Markdown, as a save renders
        # it: a snapshot written before the HTML was stored has none.
        for decision in DecisionRecord.objects.all():
            decision.save(update_fields=list(RENDERED))
        # Documents' citations and author lists as printed, derived as a save
        # derives them: a snapshot written before they were stored has none.
        unprinted = list(Document.objects.filter(citation_text=""))
        for document in unprinted:
            document.derive()
        Document.objects.bulk_update(unprinted, Document.DERIVED_FIELDS, batch_size=500)
        # A snapshot from before people were kept links its authors now, as
        # the record would have.
        if "catalogue.Authorship" not in data.get("models", []):
            link_documents(list(Document.objects.all()), via="import_record")
        # The vocabulary is derived from the public text: counted anew; the
        # document tables' rows are built anew.
        vocabulary.rebuild()
        rows.rebuild()
        tables = [model._meta.db_table for model in record_models()]
        connection.check_constraints(table_names=tables)
        _reset_sequences()
    return counts


def _in_own_log(objects):
    """Objects of a snapshot from before decision logs, its decision records
    (and the references naming them) in the record's own log."""
    own = {
        "model": "catalogue.decisionlog",
        "pk": 1,
        "fields": {
            **OWN_LOG,
            "created_at": datetime.datetime.now(datetime.UTC).isoformat(),
        },
    }
    moved = []
    for obj in objects:
        fields = obj.get("fields", {})
        if obj.get("model") == "catalogue.decisionrecord":
            obj = {**obj, "fields": {**fields, "log": 1, "twin": 1}}
        elif (
            obj.get("model") == "catalogue.reference" and fields.get("prefix") == "ADR"
        ):
            obj = {**obj, "fields": {**fields, "log": 1}}
        moved.append(obj)
    if not any(obj.get("model") == "catalogue.decisionrecord" for obj in moved):
        return moved
    return [own, *moved]


def _successors_as_relations(objects):
    """Version 1's objects with each decision record's successor as a relation."""
    relations = []
    for obj in objects:
        if obj.get("model") == "catalogue.decisionrecord":
            successor = obj["fields"].pop("superseded_by", None)
            if successor is not None:
                relations.append(
                    {
                        "model": "catalogue.decisionrelation",
                        "fields": {
                            "source": successor,
                            "kind": "supersedes",
                            "target": obj["pk"],
                        },
                    }
                )
    return [*objects, *relations]


def _reset_sequences():
    """Let new rows take numbers after the restored primary keys (PostgreSQL)."""
    statements = connection.ops.sequence_reset_sql(no_style(), record_models())
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)
