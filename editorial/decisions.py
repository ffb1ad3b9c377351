"""The decision records' workflow: saving, publishing and supersession.

A decision record is a draft, which readers never see, until a publisher
publishes it.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from catalogue.models import DecisionRecord, DecisionRelation
from catalogue.references import write_references
from editorial.steps import Step, audited, require, taking
from public import scopes

PUBLISH_DECISION = Step(
    permission="catalogue.publish_decisionrecord",
    doing="publish decision records",
)
EDIT_DECISION = Step(
    permission="catalogue.change_decisionrecord",
    doing="edit decision records",
)


def save_decision(*, decision, user, supersedes):
    """Save a decision record as the admin's form gives it, with the records
    it supersedes (``set_supersedes``) and its references."""
    with transaction.atomic(), audited(user):
        decision.save()
        write_references(decisions=[decision])
        set_supersedes(decision=decision, superseded=supersedes, user=user)
        scopes.decision_changed(decision)
    return decision


def publish_decision(*, decision, user):
    """Make a decision record public; only a publisher may."""
    with taking(PUBLISH_DECISION, decision, user) as (decision, _):
        if decision.published_at is None:
            decision.published_at, decision.published_by = timezone.now(), user
            decision.save(update_fields=["published_at", "published_by", "updated_at"])
            scopes.decision_changed(decision)
    return decision


def set_supersedes(*, decision, superseded, user):
    """Make ``decision`` supersede exactly the records in ``superseded``.

    Supersession is one relation, shown on both records, so marking ADR-061
    as superseding ADR-026 shows "superseded by ADR-061" on ADR-026 without a
    second edit, and marks ADR-026 superseded. A record no longer superseded
    by anything goes back to accepted.
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
        changed = DecisionRecord.objects.select_for_update().filter(
            pk__in=superseded ^ current
        )
        still_superseded = set(
            DecisionRelation.objects.filter(
                kind=kind, target__in=superseded ^ current
            ).values_list("target", flat=True)
        )
        for other in changed:
            status = (
                other.Status.SUPERSEDED
                if other.pk in still_superseded
                else other.Status.ACCEPTED
            )
            if (other.status, other.status_text) != (status, ""):
                other.status, other.status_text = status, ""
                other.save(update_fields=["status", "status_text", "updated_at"])
            scopes.decision_changed(other)
