"""The decision records' actions: saving, publishing and supersession.

A decision record is a draft, which readers never see, until a publisher
publishes it. Then, as with documents, an edit to it is held as its pending
revision (with the records it will supersede) until a publisher publishes
that too; a draft is edited in place.
"""

from auditlog.models import LogEntry
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from actions import errata, pages, review, rows
from actions.batch import AuditEntries
from actions.staging import Staging
from actions.steps import Step, audited, discard_held, publish_held, require, taking
from catalogue.models import (
    OWN_LOG,
    DecisionImage,
    DecisionLog,
    DecisionRecord,
    DecisionRelation,
    DecisionRevision,
)
from catalogue.references import write_references


def _pending(decision, revision):
    """Only an edit held as a pending revision can be discarded."""
    if revision is None:
        message = f"{decision.identifier} has no pending revision to discard."
        raise ValidationError(message, code="nothing_to_discard")


PUBLISH_DECISION = Step(
    "catalogue.publish_decisionrecord",
    "publish decision records",
    reads_revision=True,
)
ADD_DECISION = Step("catalogue.add_decisionrecord", "add decision records")
EDIT_DECISION = Step(
    "catalogue.change_decisionrecord", "edit decision records", reads_revision=True
)
DISCARD_DECISION = Step(
    "catalogue.change_decisionrecord",
    "discard revisions",
    _pending,
    reads_revision=True,
)


# Addresses under /decisions/ that are the record's own log's pages.
RESERVED_SLUGS = {"feed"}


def own_log():
    """The record's own decision log, made with the first of its decisions."""
    log = DecisionLog.objects.own()
    if log is None:
        log, _ = DecisionLog.objects.get_or_create(is_own=True, defaults=OWN_LOG)
    return log


def open_log(*, name, user, prefix=None, log_format=None, via=""):
    """The decision log named ``name`` (in any case), made if new: its slug
    from its name, its prefix ADR unless told; the record's own log when
    ``name`` is empty. The log is checked as ``check_log`` checks it. The
    log remembers ``log_format``, the shape its files were last read in. A
    log is opened to import its folder, by one who may import decision
    records (``IMPORT_DECISIONS``).
    """
    _require_import(user, via)
    name = log_name(name)
    with transaction.atomic(), audited(user, via):
        if not name:
            own_log()
        try:
            log = check_log(name=name, prefix=prefix, log_format=log_format)
        except ValidationError as error:
            if not hasattr(error, "error_dict"):
                raise
            raise ValidationError(
                f"The decision log “{name}”: {' '.join(error.messages)}",
                code="log_invalid",
            ) from error
        log.save()
    return log


def log_name(name):
    """A log's name as it is kept: its words, one space apart."""
    return " ".join(str(name or "").split())


def check_log(*, name, prefix=None, log_format=None):
    """The decision log ``open_log`` opens for ``name`` (the record's own for
    none), unsaved, with ``prefix`` (a new log's only) and ``log_format``;
    a ValidationError when it cannot be: a name without letters or digits,
    or whose address is another log's or the record's own log's pages', is
    refused (with its code); a value its fields refuse (a name over 200
    characters, a prefix that is not capital letters and digits or that is
    a registry's, a format not read) is refused by field (``error_dict``).
    Writes nothing: the form, the command and a folder's list of logs ask
    it before anything is imported.
    """
    name = log_name(name)
    if name:
        log = _named_log(name)
    else:
        log = DecisionLog.objects.own() or DecisionLog(**OWN_LOG)
    if log.pk is None and prefix:
        log.prefix = prefix
    if log_format:
        log.format = log_format
    log.full_clean()
    return log


def _named_log(name):
    log = DecisionLog.objects.filter(name__iexact=name).first()
    if log is None and name.lower() == OWN_LOG["name"].lower():
        return DecisionLog.objects.own() or DecisionLog(**OWN_LOG)
    if log is not None:
        return log
    slug = slugify(name)
    if not slug:
        raise ValidationError(
            f"“{name}” is not a name for a decision log: give it letters or digits.",
            code="log_name",
        )
    if slug in RESERVED_SLUGS:
        raise ValidationError(
            f"“{name}” would have the address /decisions/{slug}/, which is the "
            "record's own log's: give the log another name.",
            code="log_slug_reserved",
        )
    taken = DecisionLog.objects.filter(slug=slug).first()
    if taken is not None:
        raise ValidationError(
            f"The log “{taken.name}” has the address /decisions/{slug}/ already: "
            f"import into “{taken.name}”, or give the log another name.",
            code="log_slug_taken",
        )
    return DecisionLog(name=name, slug=slug)


def save_decision(*, decision, user, supersedes, note=""):
    """Save a decision record as the admin's form gives it, with the records
    it supersedes (``set_supersedes``) and its references.

    A published record keeps what readers see: the edit is held as its
    pending revision, which is returned (None when the edit changes nothing
    readers see, or the record is a draft, saved in place).
    """
    if decision.pk and DecisionRecord.objects.public().filter(pk=decision.pk).exists():
        return _hold(decision, user, supersedes, note)
    step = EDIT_DECISION if decision.pk else ADD_DECISION
    require(user, step.permission, step.doing)
    # A draft changes nothing readers see: no page is expired for it.
    with transaction.atomic(), audited(user):
        if decision.log_id is None:
            decision.log = own_log()
        decision.save()
        write_references(decisions=[decision])
        set_supersedes(decision=decision, superseded=supersedes, user=user)
    return None


def _hold(edited, user, supersedes, note):
    with taking(EDIT_DECISION, edited, user) as (decision, revision):
        if revision is None:
            revision = DecisionRevision(
                decision=decision,
                created_by=user,
                supersedes=decision.superseded_pks(),
                **decision.content(),
            )
        for name, value in edited.content().items():
            setattr(revision, name, value)
        revision.supersedes = sorted(other.pk for other in supersedes)
        if note:
            revision.note = note
        revision.updated_by = user
        held = (revision.content(), revision.supersedes)
        if held == (decision.content(), decision.superseded_pks()):
            # The edit takes the record back to what readers see.
            if revision.pk:
                discard_held(revision, user=user)
                review.settle(decision, published=False)
            return None
        revision.save()
        return revision


def publish_decision(*, decision, user):
    """Make a decision record, or its pending revision, what readers see;
    only a publisher may."""
    with taking(PUBLISH_DECISION, decision, user) as (decision, revision):
        now = timezone.now()
        if decision.published_at is None:
            decision.published_at, decision.published_by = now, user
            decision.save(update_fields=["published_at", "published_by", "updated_at"])
            _settle_supersession(decision.superseded_pks())
            pages.changed(decision)
        elif revision is not None:
            before = pages.before_change(decision)
            revision.applied_to(decision).save()
            write_references(decisions=[decision])
            others = DecisionRecord.objects.filter(pk__in=revision.supersedes)
            set_supersedes(decision=decision, superseded=others, user=user)
            publish_held(revision, user=user, at=now)
            errata.settle_decision_revision(revision, user=user, at=now)
            pages.changed(decision, before=before)
        review.settle(decision, published=True)
    return decision


def delete_decisions(*, decisions, user):
    """Delete decision records; the pages of the public ones are expired."""
    with transaction.atomic(), audited(user):
        for decision in decisions:
            require(user, "catalogue.delete_decisionrecord", "delete decision records")
            if decision.is_public:
                pages.changed(decision)
            decision.delete()
            if decision.is_public:
                rows.decisions_changed([decision])


# A team's folder is its own record: what it brings into its log is
# published as it is imported, so importing takes the right to add, change
# and publish decision records, as the admin's folder import asks.
IMPORT_DECISIONS = [
    "catalogue.add_decisionrecord",
    "catalogue.change_decisionrecord",
    "catalogue.publish_decisionrecord",
]


def _require_import(user, via):
    for permission in IMPORT_DECISIONS:
        require(user, permission, "import decision records", via=via)


def save_imported(*, decisions, user, at, via=""):
    """Save the records a team's folder brings or changes, as their files
    give them: a new one is published at ``at`` as it is imported; the
    references each one's text makes are written again; the pages of these
    records, and of the texts they name now or named before, are expired."""
    _require_import(user, via)
    if not decisions:
        return decisions
    with transaction.atomic(), audited(user, via):
        stored = DecisionRecord.objects.filter(
            pk__in=[decision.pk for decision in decisions if decision.pk],
            published_at__isnull=False,
        )
        before = {decision.pk: pages.before_change(decision) for decision in stored}
        new = [decision for decision in decisions if decision.pk is None]
        for decision in decisions:
            if decision.pk is not None:
                decision.save()
        for decision in new:
            decision.published_at, decision.published_by = at, user
            decision.render()
        _insert_audited(DecisionRecord, new, user=user, via=via)
        write_references(decisions=decisions)
        pages.decisions_changed(
            [decision for decision in decisions if decision.is_public], before=before
        )
        rows.decisions_changed(decisions)
    return decisions


def _insert_audited(model, instances, *, user, via):
    """Insert the new rows ``instances`` at once, each with the audit entry
    its save would log (in the caller's ``audited(user, via)``)."""
    if not instances:
        return
    staging = Staging()
    staging.insert(model, instances)
    staging.append(LogEntry, AuditEntries(user=user, via=via).created(instances))
    staging.switch()


def place_twins(*, places, user, via=""):
    """Give records of one number their new places among its files
    (``places``: ``[(decision, twin)]``), as a folder's file named to sort
    before them moves them: first out of the way, so that no two records
    hold one place while they move."""
    _require_import(user, via)
    with transaction.atomic(), audited(user, via):
        for offset, (decision, _) in enumerate(places, start=1):
            DecisionRecord.objects.filter(pk=decision.pk).update(twin=10000 + offset)
        for decision, twin in places:
            decision.twin = twin
            DecisionRecord.objects.filter(pk=decision.pk).update(twin=twin)
        # Their addresses moved.
        pages.decisions_changed(
            [decision for decision, _ in places if decision.is_public]
        )
        # A name leads to the first of its number's files.
        rows.decisions_changed([decision for decision, _ in places])


def hold_imported_change(*, decision, content, digest, user, note, via=""):
    """Hold a folder's change to a public decision record an editor changed
    since its last import as its pending revision, for a publisher to weigh;
    its relations stay as they are. The file as it now reads (``digest``)
    counts as seen: a re-import of it holds nothing more."""
    _require_import(user, via)
    with transaction.atomic(), audited(user, via):
        revision = DecisionRevision.objects.create(
            decision=decision,
            created_by=user,
            updated_by=user,
            supersedes=decision.superseded_pks(),
            note=note,
            **content,
        )
        decision.source_digest = digest
        decision.save(update_fields=["source_digest"])
    return revision


def set_images(*, images, user, via=""):
    """Make each record's stored images those its file shows: ``images`` is
    ``{decision: {name: (data, content_type, digest)}}``. An image whose bytes
    are unchanged stays. Returns the pks of the records whose images changed."""
    require(user, EDIT_DECISION.permission, "change decision records' images", via=via)
    changed = set()
    with transaction.atomic(), audited(user, via):
        # Every record's stored images named at once, their bytes unread.
        kept = {}
        for pk, name, digest in DecisionImage.objects.filter(
            decision__in=[decision.pk for decision in images]
        ).values_list("decision", "name", "digest"):
            kept.setdefault(pk, {})[name] = digest
        for decision, wanted in images.items():
            stored = kept.get(decision.pk, {})
            stale = [
                name
                for name, digest in stored.items()
                if name not in wanted or wanted[name][2] != digest
            ]
            fresh = [
                name
                for name, (_, _, digest) in wanted.items()
                if stored.get(name) != digest
            ]
            if not stale and not fresh:
                continue
            decision.images.filter(name__in=stale).delete()
            DecisionImage.objects.bulk_create(
                DecisionImage(
                    decision=decision,
                    name=name,
                    data=wanted[name][0],
                    content_type=wanted[name][1],
                    digest=wanted[name][2],
                )
                for name in fresh
            )
            changed.add(decision.pk)
        pages.decisions_changed([d for d in images if d.pk in changed and d.is_public])
    return changed


def keep_relations(*, saved=(), deleted=(), user, via=""):
    """Save the relations ``saved`` (new or changed ``DecisionRelation``
    rows) and delete those ``deleted``, as a draft's form or a team's folder
    states them. The records' statuses stay as they are: a folder's files
    state their own, and the admin's form sets supersession apart, through
    ``set_supersedes``, which settles them."""
    saved, deleted = list(saved), list(deleted)
    verbs = {"delete": deleted, "add": [r for r in saved if r.pk is None]}
    verbs["change"] = [r for r in saved if r.pk is not None]
    for verb, relations in verbs.items():
        if relations:
            require(
                user,
                f"catalogue.{verb}_decisionrelation",
                f"{verb} decision records' relations",
                via=via,
            )
    with transaction.atomic(), audited(user, via):
        for relation in deleted:
            relation.delete()
        for relation in saved:
            if relation.pk is not None:
                relation.save()
        _insert_audited(
            DecisionRelation, [r for r in saved if r.pk is None], user=user, via=via
        )
        # A relation shows on the pages of both its records.
        related = {r.source_id for r in [*deleted, *saved]}
        related |= {r.target_id for r in [*deleted, *saved]}
        if related:
            pages.decisions_changed(
                DecisionRecord.objects.filter(
                    pk__in=related, published_at__isnull=False
                ).select_related("log")
            )


def discard_decision_revision(*, decision, user):
    """Drop a decision record's pending revision; readers never saw it."""
    with taking(DISCARD_DECISION, decision, user) as (decision, revision):
        discard_held(revision, user=user)
        errata.release(revision)
        review.settle(decision, published=False)
    return revision


def set_supersedes(*, decision, superseded, user):
    """Make ``decision`` supersede exactly the records in ``superseded``.

    Supersession is one relation, shown on both records, so marking ADR-061
    as superseding ADR-026 shows "superseded by ADR-061" on ADR-026 without a
    second edit, and marks ADR-026 superseded. A record no longer superseded
    by anything goes back to accepted. A draft's relations are kept, and
    change the records it names when it is published.
    """
    require(user, EDIT_DECISION.permission, EDIT_DECISION.doing)
    superseded = {other.pk for other in superseded}
    if decision.pk in superseded:
        raise ValidationError(
            f"{decision.identifier} cannot supersede itself.", code="supersedes_self"
        )
    kind = DecisionRelation.Kind.SUPERSEDES
    with transaction.atomic(), audited(user):
        relations = DecisionRelation.objects.filter(source=decision, kind=kind)
        current = set(relations.values_list("target", flat=True))
        for relation in relations.exclude(target__in=superseded):
            relation.delete()
        for pk in superseded - current:
            DecisionRelation.objects.create(source=decision, kind=kind, target_id=pk)
        if decision.published_at is not None:
            _settle_supersession(superseded ^ current)


def _settle_supersession(pks):
    """Mark the records ``pks`` superseded while a public record supersedes
    them, accepted when none does any more, and expire the pages of those
    that are public. A draft's relations wait for its publication: readers
    never learn of a successor they cannot see."""
    kind = DecisionRelation.Kind.SUPERSEDES
    still_superseded = set(
        DecisionRelation.objects.filter(
            kind=kind, target__in=pks, source__published_at__isnull=False
        ).values_list("target", flat=True)
    )
    for other in DecisionRecord.objects.select_for_update().filter(pk__in=pks):
        status = (
            other.Status.SUPERSEDED
            if other.pk in still_superseded
            else other.Status.ACCEPTED
        )
        if (other.status, other.status_text) != (status, ""):
            other.status, other.status_text = status, ""
            other.save(update_fields=["status", "status_text", "updated_at"])
        if other.published_at is not None:
            pages.changed(other)
