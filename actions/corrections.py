"""Corrections: readers and the checks of the sources propose, a publisher
decides.

A proposal never edits the record. ``propose`` keeps it with what readers
saw of the fields it changes; ``accept`` turns it into the document's (or
decision record's) pending revision, attributed to it, which is reviewed and
published the usual way (``errata.settle_revision`` then marks it
published); an erratum is a notice at once, a retraction a withdrawal.
``decline`` keeps the reasons, the public one for the reader. Each is one
transaction, audited, naming where the proposal came from.
"""

import datetime

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from actions import errata, pages
from actions.decisions import save_decision
from actions.documents import EDITABLE_FIELDS, edit_document, withdraw
from actions.steps import Step, audited, require, taking
from catalogue.models import (
    Correction,
    DecisionRecord,
    DecisionRevision,
    Document,
    Revision,
)
from catalogue.models.correction import DECISION_FIELDS, DOCUMENT_FIELDS

Status = Correction.Status
Proposes = Correction.Proposes
Origin = Correction.Origin

# What a publisher may set in accepting a document's proposal: any field an
# editor edits, the summary included (a reader's note is about it), but not
# the filing.
ACCEPTED_DOCUMENT_FIELDS = [
    name for name in EDITABLE_FIELDS if name not in {"topic", "tags"}
]


def _waiting(correction, revision):
    """Only a proposal still waiting is decided."""
    if correction.status != Status.PENDING:
        raise ValidationError(
            f"The correction of {correction.target_label} is "
            f"{correction.get_status_display().lower()}, not waiting.",
            code="not_waiting",
        )


DECIDE = Step("catalogue.decide_correction", "decide corrections", _waiting)


def fields_of(target):
    """The fields a reader may correct on ``target``."""
    return DOCUMENT_FIELDS if isinstance(target, Document) else DECISION_FIELDS


def public_values(target, fields=None):
    """What readers see of ``fields`` of ``target`` (all it may have
    corrected by default), in the JSON shape a proposal keeps."""
    values = {}
    for name in fields or fields_of(target):
        value = getattr(target, name)
        if isinstance(value, datetime.date):
            value = value.isoformat()
        values[name] = value
    return values


def _is_public(target):
    if isinstance(target, Document):
        return target.is_public
    return target.published_at is not None


def propose(
    *,
    target,
    changes=None,
    note="",
    reason="",
    email="",
    origin=Origin.READER,
    proposes=Proposes.EDIT,
    finding="",
    via="",
):
    """Keep a proposed correction of the public ``target`` (a document or a
    decision record): ``changes`` ({field: value}) of the fields a reader may
    correct, a ``note``, the ``reason``, the reader's ``email``.

    Values equal to what readers see are left out. A check's ``finding``
    already proposed for the document (whatever became of it) is not proposed
    again: None is returned. ValidationError names the field at fault.
    """
    changes = dict(changes or {})
    unknown = set(changes) - set(fields_of(target))
    if unknown:
        raise ValidationError(
            f"Not a field a correction changes: {', '.join(sorted(unknown))}.",
            code="unknown_field",
        )
    with transaction.atomic(), audited(None, via or _via(origin)):
        model = type(target)
        target = model.objects.select_for_update().get(pk=target.pk)
        if not _is_public(target):
            raise ValidationError(
                f"{target.identifier} is not public: only what readers see is "
                "corrected this way.",
                code="not_public",
            )
        current = public_values(target, list(changes))
        changes = {
            name: value for name, value in changes.items() if value != current[name]
        }
        current = {name: current[name] for name in changes}
        if proposes == Proposes.EDIT and not changes and not note.strip():
            raise ValidationError(
                "The correction changes no field and has no note: say what is "
                "wrong, or change a field.",
                code="empty",
            )
        if changes:
            _check_values(target, changes)
        correction = Correction(
            origin=origin,
            proposes=proposes,
            changes=changes,
            current=current,
            note=note.strip(),
            reason=reason.strip(),
            email=email.strip(),
            finding=finding,
        )
        if isinstance(target, Document):
            correction.document = target
            correction.based_on_version = target.version
        else:
            correction.decision = target
        correction.full_clean(exclude=["document", "decision"])
        # A decision record's finding is looked up on its own relation: the
        # document's would refuse a decision record.
        whose = "document" if isinstance(target, Document) else "decision"
        if finding and (
            Correction.objects.filter(**{whose: target}, finding=finding).exists()
        ):
            return None
        try:
            with transaction.atomic():
                correction.save()
        except IntegrityError:
            # The same finding, proposed at the same moment by another run.
            return None
    return correction


def _via(origin):
    if origin == Origin.READER:
        return "correction form"
    return f"check_sources ({origin})"


def _check_values(target, changes):
    """Refuse values the field would refuse, as a held edit would."""
    if isinstance(target, Document):
        held = Revision.held_from(target, user=None)
        exclude = ["document", "topic"]
    else:
        held = DecisionRevision(decision=target, **target.content())
        exclude = ["decision"]
    for name, value in _as_values(changes).items():
        setattr(held, name, value)
    held.full_clean(exclude=exclude)


def _as_values(changes):
    """A proposal's JSON values as the model's: a date from its ISO text."""
    values = dict(changes)
    if isinstance(values.get("decided_on"), str):
        text = values["decided_on"]
        try:
            values["decided_on"] = datetime.date.fromisoformat(text) if text else None
        except ValueError:
            raise ValidationError(
                {"decided_on": f"‘{text}’ is not a date (2026-12-04)."}
            ) from None
    return values


def accept(*, correction, user, changes=None, note=""):
    """Accept ``correction``, as proposed or with the publisher's ``changes``.

    An edit becomes the target's pending revision (the one already waiting,
    if any, takes it), noted with its origin: published the usual way, it
    publishes the correction. An erratum is noticed at once; a retraction
    withdraws the document. Returns the correction.
    """
    deciding = _deciding(correction)
    with taking(DECIDE, correction, user, via=deciding) as (correction, _):
        if changes is not None:
            allowed = (
                ACCEPTED_DOCUMENT_FIELDS if correction.document_id else DECISION_FIELDS
            )
            unknown = set(changes) - set(allowed)
            if unknown:
                raise ValidationError(
                    f"Not a field a correction changes: {', '.join(sorted(unknown))}.",
                    code="unknown_field",
                )
            if dict(changes) != correction.changes:
                correction.accepted_changes = dict(changes)
        now = timezone.now()
        correction.decided_at, correction.decided_by = now, user
        if correction.proposes == Proposes.ERRATUM:
            _notice_erratum(correction, user, now)
        elif correction.proposes == Proposes.WITHDRAWAL:
            withdraw(
                document=correction.document,
                user=user,
                reason=correction.note or correction.reason,
            )
            errata.published(correction, user=user, at=now)
        else:
            _hold(correction, user, note, deciding)
    return correction


def _deciding(correction):
    """What a decision's audit entries name besides the publisher: the
    proposal and where it came from."""
    return f"correction {correction.pk} (from {_origin(correction)})"


def _origin(correction):
    return "a reader" if correction.by_reader else correction.get_origin_display()


def _note(correction, note):
    said = f"Correction {correction.pk} (from {_origin(correction)})"
    return f"{said}: {note}" if note else said


def _hold(correction, user, note, deciding):
    if not correction.final_changes:
        raise ValidationError(
            "The correction changes no field: edit what it asks for, then "
            "accept it, or decline it.",
            code="nothing_to_change",
        )
    values = _as_values(correction.final_changes)
    if correction.document_id:
        revision = edit_document(
            document=correction.document,
            user=user,
            changes=values,
            note=_note(correction, note)[:500],
            via=deciding,
        )
        if revision is None:
            raise _already(correction)
        correction.revision = revision
    else:
        decision = DecisionRecord.objects.get(pk=correction.decision_id)
        for name, value in values.items():
            setattr(decision, name, value)
        revision = save_decision(
            decision=decision,
            user=user,
            supersedes=DecisionRecord.objects.filter(pk__in=decision.superseded_pks()),
            note=_note(correction, note)[:500],
        )
        if revision is None:
            raise _already(correction)
        correction.decision_revision = revision
    correction.status = Status.ACCEPTED
    correction.save()


def _already(correction):
    return ValidationError(
        f"{correction.target_label} already reads as the correction asks: "
        "decline it, saying so.",
        code="nothing_to_change",
    )


def _notice_erratum(correction, user, now):
    """An erratum changes no field: readers are told of it at once."""
    document = Document.objects.select_for_update().get(pk=correction.document_id)
    errata.published(correction, user=user, at=now)
    # The notice is news of the document: its datestamp moves, and its pages.
    document.save(update_fields=["updated_at"])
    pages.changed(document)


NO_REASON = "Give a public reason (the reader’s), a private one (the desk’s), or both."


def decline(*, correction, user, public_reason="", private_reason=""):
    """Decline ``correction`` with a reason, public or private or both: the
    ``public_reason`` is the reader's to read (on the private link, and by
    mail), the ``private_reason`` the desk's."""
    deciding = _deciding(correction)
    with taking(DECIDE, correction, user, via=deciding) as (correction, _):
        if not public_reason.strip() and not private_reason.strip():
            raise ValidationError(NO_REASON, code="no_reason")
        correction.status = Status.DECLINED
        correction.decided_at, correction.decided_by = timezone.now(), user
        correction.public_reason = public_reason.strip()
        correction.private_reason = private_reason.strip()
        correction.full_clean(exclude=["document", "decision"])
        correction.save()
        errata.tell_reader(correction)
    return correction


def require_deciding(user):
    """Refuse unless ``user`` may decide corrections."""
    require(user, DECIDE.permission, DECIDE.doing)
