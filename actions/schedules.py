"""Schedules: a publication, a withdrawal or a reinstatement a publisher asks
for at a set time, made then by the same action as the admin's button.

Until its time a schedule changes nothing readers see. Once due, a runner
(``run_due``: the job workers' chore, ``manage.py run_schedules``, or, with
jobs run in the web process, the next request) takes it and calls the
document's action on behalf of the publisher who scheduled it, the audit
trail naming the schedule as what took the step (``via``); the action keeps
its promises itself (version, notice, pages expired and purged, feeds, OAI
datestamps and the API following from the row). A schedule is taken by one
runner only: its claim is a conditional update in the run's own transaction,
which a second runner waits for and then finds done; a runner that dies
mid-run leaves it waiting, to be taken again.

A schedule whose action now refuses (the document was withdrawn meanwhile,
the pending revision was discarded, the text scheduled was edited since, the
publisher lost the right) is marked failed with the refusal's words; the
desk shows it. One whose time passed ``SCHEDULE_LATE_SECONDS`` ago without a
run is late: the desk flags it and ``/health/ready/`` says so.
"""

import datetime
import hashlib
import json
import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Min
from django.utils import timezone
from django.utils.formats import date_format

from actions import documents
from actions.steps import Step, audited, require, taking
from catalogue.models import Document, Schedule

logger = logging.getLogger(__name__)

SCHEDULE = Step("catalogue.publish_document", "schedule changes to documents")
CANCEL = Step("catalogue.publish_document", "cancel scheduled changes")

# The step each kind of schedule takes when it runs, checked when it is made.
STEPS = {
    Schedule.Kind.PUBLISH: documents.PUBLISH,
    Schedule.Kind.WITHDRAW: documents.WITHDRAW,
    Schedule.Kind.REINSTATE: documents.REINSTATE,
}


def text_digest(document):
    """The digest of what a publication of ``document`` would make public:
    its pending revision's values, or its own for a document never published."""
    state = documents.editable_state(document)
    encoded = json.dumps(state, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(encoded.encode()).hexdigest()


def when(moment):
    """A schedule's time as the admin writes it, in the site's time zone."""
    local = timezone.localtime(moment)
    return f"{date_format(local, 'j M Y, H:i')} {local.tzname()}"


def is_late(schedule, now=None):
    """Whether ``schedule`` waited past its time longer than a runner takes."""
    return schedule.state == Schedule.State.WAITING and schedule.at < late_since(now)


def late_since(now=None):
    """Waiting schedules due before this moment were missed by every runner."""
    now = now or timezone.now()
    return now - datetime.timedelta(seconds=settings.SCHEDULE_LATE_SECONDS)


def schedule(*, document, kind, at, user, note="", reason=""):
    """Have the ``kind`` change made to ``document`` at ``at`` by the action
    its button takes, on ``user``'s behalf.

    Refused, with nothing written, unless ``user`` may both schedule and
    take that step, the step may be taken now (a publication needs a
    document never published or a pending revision; a withdrawal a public
    document; a reinstatement a withdrawn one), ``at`` is still to come, and
    no change of that kind already waits for the document. A publication
    pins the text it publishes: an edit made before its time fails it.
    """
    kind = Schedule.Kind(kind)
    require(user, SCHEDULE.permission, SCHEDULE.doing)
    with taking(STEPS[kind], document, user) as (document, revision):
        if at <= timezone.now():
            raise ValidationError(
                f"{when(at)} has passed: schedule {document.identifier} for a "
                "time still to come, or take the step now.",
                code="schedule_past",
            )
        waiting = document.schedules.waiting().filter(kind=kind).first()
        if waiting is not None:
            raise ValidationError(
                f"{document.identifier} is already scheduled to "
                f"{waiting.get_kind_display().lower()} at {when(waiting.at)}: "
                "cancel that first.",
                code="schedule_waiting",
            )
        planned = Schedule(
            document=document,
            kind=kind,
            at=at,
            note=note.strip() if kind == Schedule.Kind.PUBLISH else "",
            reason=reason.strip() if kind == Schedule.Kind.WITHDRAW else "",
            scheduled_by=user,
        )
        if kind == Schedule.Kind.PUBLISH:
            planned.revision = revision
            planned.digest = text_digest(document)
        planned.full_clean()
        planned.save()
    return planned


def cancel(*, schedule, user):
    """Call off a waiting schedule; nothing it would have done is done."""
    require(user, CANCEL.permission, CANCEL.doing)
    with transaction.atomic(), audited(user):
        schedule = Schedule.objects.select_for_update().get(pk=schedule.pk)
        if schedule.state != Schedule.State.WAITING:
            raise ValidationError(
                f"The schedule to {schedule.get_kind_display().lower()} "
                f"{schedule.document.identifier} at {when(schedule.at)} is "
                f"{schedule.get_state_display().lower()}: there is nothing to cancel.",
                code="schedule_not_waiting",
            )
        schedule.state = Schedule.State.CANCELLED
        schedule.cancelled_by = user
        schedule.cancelled_at = timezone.now()
        schedule.save(update_fields=["state", "cancelled_by", "cancelled_at"])
    return schedule


def run_due(*, now=None, limit=50):
    """Run the schedules due at ``now`` (by default, now), oldest first; how
    many this runner ran (done or failed). A job workers' chore."""
    now = now or timezone.now()
    due = list(Schedule.objects.due(now).values_list("pk", flat=True)[:limit])
    return sum(run(pk, now=now) is not None for pk in due)


def run(pk, *, now=None):
    """Run the schedule ``pk`` if it is due and no runner took it: the
    schedule as it ended (done or failed), or None when there was nothing to
    run."""
    now = now or timezone.now()
    with transaction.atomic():
        # The claim: one runner's update finds the row waiting; another's
        # waits for this transaction and then finds it taken.
        claimed = Schedule.objects.filter(
            pk=pk, state=Schedule.State.WAITING, at__lte=now, ran_at__isnull=True
        ).update(ran_at=timezone.now())
        if not claimed:
            return None
        planned = Schedule.objects.select_related(
            "document__registry", "scheduled_by"
        ).get(pk=pk)
        via = f"the scheduler (schedule {planned.pk})"
        try:
            with transaction.atomic():
                outcome = _perform(planned, via)
        except (ValidationError, PermissionDenied) as refusal:
            planned.state = Schedule.State.FAILED
            planned.outcome = _words(refusal)
            logger.warning("Schedule %s failed: %s", planned.pk, planned.outcome)
        else:
            planned.state = Schedule.State.DONE
            planned.outcome = outcome
        with audited(planned.scheduled_by, via):
            planned.save(update_fields=["state", "outcome"])
    return planned


def _words(refusal):
    if isinstance(refusal, ValidationError):
        return " ".join(refusal.messages)
    return str(refusal)


def _perform(planned, via):
    """Take the schedule's step for its publisher; what it did, in words."""
    user = planned.scheduled_by
    if user is None:
        raise PermissionDenied(
            "The account that scheduled it was deleted: nobody is left to act for."
        )
    document = Document.objects.select_for_update().get(pk=planned.document_id)
    kind = planned.kind
    if kind == Schedule.Kind.PUBLISH:
        _check_text(planned, document)
        version = documents.publish(
            document=document, user=user, note=planned.note, via=via
        )
        document.refresh_from_db()
        if version is None:
            return f"Published the new filing of {document.identifier}."
        return f"Published {document.identifier} v{version.number}."
    if kind == Schedule.Kind.WITHDRAW:
        documents.withdraw(document=document, user=user, reason=planned.reason, via=via)
        return f"Withdrew {document.identifier}."
    documents.reinstate(document=document, user=user, via=via)
    return f"Reinstated {document.identifier}."


def _check_text(planned, document):
    """A publication publishes the text it was scheduled with, or nothing."""
    identifier = document.identifier
    revision = document.pending_revision() if document.is_public else None
    if planned.revision_id is None and document.is_public:
        raise ValidationError(
            f"{identifier} was published by hand since it was scheduled.",
            code="published_since",
        )
    if planned.revision_id is not None and (
        revision is None or revision.pk != planned.revision_id
    ):
        raise ValidationError(
            f"The pending revision of {identifier} scheduled for publication was "
            "published or discarded since.",
            code="revision_gone",
        )
    if text_digest(document) != planned.digest:
        raise ValidationError(
            f"{identifier} was edited after its publication was scheduled: "
            "review the edit and schedule it again.",
            code="changed_since",
        )


def readiness():
    """``ok``, or how many schedules are late and since when, in one query
    (``/health/ready/``)."""
    late = Schedule.objects.missed(late_since()).aggregate(
        count=Count("pk"), first=Min("at")
    )
    count = late["count"]
    if not count:
        return "ok"
    return (
        f"failing: {count} scheduled change{'s' if count > 1 else ''} not run, "
        f"due since {when(late['first'])}"
    )
