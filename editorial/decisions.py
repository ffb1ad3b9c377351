"""The decision records' workflow: saving, publishing and supersession.

A decision record is a draft, which readers never see, until a publisher
publishes it.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from catalogue.models import DecisionRecord
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
    """Make ``decision`` the successor of exactly the records in ``superseded``.

    Supersession is kept on the older record (``superseded_by``), so marking
    ADR-061 as superseding ADR-026 shows "superseded by ADR-061" on ADR-026
    without a second edit. Records no longer listed go back to accepted.
    """
    require(user, EDIT_DECISION.permission, EDIT_DECISION.doing)
    superseded = {other.pk for other in superseded}
    if decision.pk in superseded:
        raise ValidationError(
            f"{decision.identifier} cannot supersede itself.", code="supersedes_self"
        )
    with transaction.atomic(), audited(user):
        for other in DecisionRecord.objects.select_for_update().filter(
            Q(superseded_by=decision) | Q(pk__in=superseded)
        ):
            if other.pk in superseded and other.superseded_by_id != decision.pk:
                other.superseded_by = decision
                other.status = DecisionRecord.Status.SUPERSEDED
            elif other.pk not in superseded:
                other.superseded_by = None
                other.status = DecisionRecord.Status.ACCEPTED
            else:
                continue
            other.save()
            scopes.decision_changed(other)
