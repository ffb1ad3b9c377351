"""What the record derives from its public text, stored: each document's
related work and the candidate topics (``catalogue.models.related``).

They are the record's reading of itself, not the record: no version, no audit
entry. But a document page shows its related work, so storing a list that
changed expires that page, through the page cache's scopes as every change
does.
"""

from django.db import transaction
from django.utils import timezone

from actions import pages
from actions.steps import require
from catalogue.models import CandidateMember, CandidateTopic, RelatedDocument

# Past this many pages to expire, expiring every page is cheaper to say.
MANY_PAGES = 500


def store_related(*, lists, user=None, via=""):
    """Store ``lists`` ({document pk: [(related pk, score, reasons)]}, nearest
    first) as those documents' related work, in one transaction; expire the
    page of each document whose list changed. Returns how many changed.
    The job or command computing them names itself in ``via``."""
    require(user, "catalogue.change_relateddocument", "store related work", via=via)
    with transaction.atomic():
        stored = {}
        rows = RelatedDocument.objects.filter(document_id__in=list(lists))
        for pk, related, reasons in rows.order_by("document_id", "rank").values_list(
            "document_id", "related_id", "reasons"
        ):
            stored.setdefault(pk, []).append((related, reasons))
        changed = [
            pk
            for pk, found in lists.items()
            if [(related, reasons) for related, _, reasons in found]
            != stored.get(pk, [])
        ]
        RelatedDocument.objects.filter(document_id__in=changed).delete()
        RelatedDocument.objects.bulk_create(
            (
                RelatedDocument(
                    document_id=pk,
                    related_id=related,
                    rank=rank,
                    score=round(score, 6),
                    reasons=reasons,
                )
                for pk in changed
                for rank, (related, score, reasons) in enumerate(lists[pk], start=1)
            ),
            batch_size=2000,
        )
        if len(changed) > MANY_PAGES:
            pages.everything_changed(record=False)
        elif changed:
            pages.own_pages_changed(changed)
    return len(changed)


def store_candidates(*, groups, user=None, via=""):
    """Replace the open candidate topics with ``groups`` (``compute.Group``);
    a group an editor dismissed, or made into a topic, is not offered again.
    Returns the open candidates. The job or command computing them names
    itself in ``via``."""
    require(user, "catalogue.change_candidatetopic", "store candidate topics", via=via)
    now = timezone.now()
    with transaction.atomic():
        CandidateTopic.objects.open().delete()
        decided = set(
            CandidateTopic.objects.exclude(state=CandidateTopic.State.OPEN).values_list(
                "members_key", flat=True
            )
        )
        made = []
        for group in groups:
            if group.members_key in decided:
                continue
            candidate = CandidateTopic.objects.create(
                name=group.name[:200],
                terms=group.terms,
                nearest_topic_id=group.nearest_topic,
                nearest_similarity=round(group.nearest_similarity, 6),
                members_key=group.members_key,
                computed_at=now,
            )
            CandidateMember.objects.bulk_create(
                CandidateMember(
                    candidate=candidate,
                    document_id=pk,
                    fit=round(fit, 6),
                    filed_fit=None if filed_fit is None else round(filed_fit, 6),
                )
                for pk, fit, filed_fit in group.members
            )
            made.append(candidate)
    return made
