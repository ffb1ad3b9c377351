"""The desk's review queue: every draft or pending revision waiting on a
publisher or sent back to its editor, documents and decision records alike,
each with its reviewer and due date, the overdue ones marked; or only those
assigned to one publisher. A fixed number of queries, however long it is."""

from dataclasses import dataclass
from datetime import date

from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils import timezone

from catalogue.models import (
    DecisionRecord,
    DecisionRevision,
    Document,
    ReviewThread,
    Revision,
)

# How many the desk lists; the counts above it hold them all.
SHOWN = 20


@dataclass(frozen=True)
class ReviewItem:
    label: str
    title: str
    url: str
    waiting: str  # what it waits for: "First publication", "Pending revision"
    assignee: str
    due_on: date | None
    changes_requested: bool
    overdue: bool


def _review_of(owner):
    """The live review of the row a queryset is on, for annotations."""
    return ReviewThread.objects.live().filter(**{owner: OuterRef("pk")})


def _annotated(queryset, owner):
    review = _review_of(owner)
    return queryset.annotate(
        review_assignee=Subquery(review.values("assignee__username")[:1]),
        review_due=Subquery(review.values("due_on")[:1]),
        review_state=Subquery(review.values("state")[:1]),
    ).order_by(F("review_due").asc(nulls_last=True), "updated_at", "pk")


def _mine(queryset, owner, user):
    return queryset.filter(Exists(_review_of(owner).filter(assignee=user)))


def waiting_documents():
    """Documents in review, with a pending revision, or sent back."""
    pending = Revision.objects.filter(
        document=OuterRef("pk"), status=Revision.Status.PENDING
    )
    sent_back = _review_of("document").filter(
        state=ReviewThread.State.CHANGES_REQUESTED
    )
    return Document.objects.filter(
        Q(status=Document.Status.IN_REVIEW) | Exists(pending) | Exists(sent_back)
    ).annotate(has_pending=Exists(pending))


def waiting_decisions():
    """Decision records never published, or with a pending revision."""
    pending = DecisionRevision.objects.filter(
        decision=OuterRef("pk"), state=DecisionRevision.State.PENDING
    )
    return DecisionRecord.objects.filter(
        Q(published_at__isnull=True) | Exists(pending)
    ).annotate(has_pending=Exists(pending))


def review_queue(user, *, mine=False):
    """The first ``SHOWN`` items waiting for review, soonest due first (those
    with no due date last), then longest waiting; ``mine``: only those
    ``user`` reviews. Two queries."""
    documents = _annotated(waiting_documents(), "document").select_related("registry")
    decisions = _annotated(waiting_decisions(), "decision")
    if mine:
        documents = _mine(documents, "document", user)
        decisions = _mine(decisions, "decision", user)
    today = timezone.localdate()
    items = [
        *(_item(document, today) for document in documents[:SHOWN]),
        *(_item(decision, today) for decision in decisions[:SHOWN]),
    ]
    items.sort(key=lambda item: (item[0] is None, item[0] or today, item[1]))
    return [item for _, _, item in items[:SHOWN]]


def _item(row, today):
    is_document = isinstance(row, Document)
    if is_document:
        label = str(row.identifier)
        in_review = row.has_pending or row.status == row.Status.IN_REVIEW
        page = "review" if in_review else "change"
        url = reverse(f"admin:catalogue_document_{page}", args=[row.pk])
    else:
        label = str(row.label)
        url = reverse("admin:catalogue_decisionrecord_change", args=[row.pk])
    due = row.review_due
    if isinstance(due, str):  # SQLite hands a subquery's date back as text.
        due = date.fromisoformat(due)
    changes_requested = row.review_state == ReviewThread.State.CHANGES_REQUESTED
    if changes_requested:
        waiting = "Changes requested"
    elif row.has_pending:
        waiting = "Pending revision"
    else:
        waiting = "First publication"
    item = ReviewItem(
        label=label,
        title=row.title,
        url=url,
        waiting=waiting,
        assignee=row.review_assignee or "",
        due_on=due,
        changes_requested=changes_requested,
        overdue=due is not None and due < today,
    )
    return due, row.updated_at, item


def assigned_count(user):
    """How many live reviews ``user`` is the reviewer of."""
    return ReviewThread.objects.live().assigned_to(user).count()


def sent_back_count():
    """How many drafts and pending revisions wait on their editors."""
    return ReviewThread.objects.filter(
        state=ReviewThread.State.CHANGES_REQUESTED
    ).count()
