"""The editors' desk: what waits for whom, with counts, in a fixed number of
queries however large the record grows."""

from dataclasses import dataclass

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, OuterRef, Prefetch, Q
from django.urls import reverse

from catalogue.models import (
    Authorship,
    BrokenReference,
    CandidateTopic,
    Correction,
    Document,
    DocumentVersion,
    PersonProposal,
    Revision,
)
from editorial import review_queue
from editorial.schedules import desk_schedules

RECENT = 8
# How many of the people to check the desk itself lists.
PEOPLE_SHOWN = 8


@dataclass(frozen=True)
class Queue:
    label: str
    count: int
    url: str
    description: str
    key: str = ""  # the document list's queue filter, if it is one


def created_by(user):
    """Documents ``user`` created, as the audit trail records it."""
    created = LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Document),
        object_id=OuterRef("pk"),
        action=LogEntry.Action.CREATE,
        actor=user,
    )
    return Exists(created)


def queue_conditions(user):
    """The document list's queues, as conditions on documents."""
    return {
        "in_review": Q(status=Document.Status.IN_REVIEW),
        "pending": Q(revisions__status=Revision.Status.PENDING),
        "mine": Q(created_by(user), status=Document.Status.DRAFT),
        "unfiled": Q(topic__isnull=True),
    }


def _document_queue(key, label, count, description):
    url = reverse("admin:catalogue_document_changelist")
    return Queue(label, count, f"{url}?queue={key}", description, key=key)


def document_queues(user):
    """The queues of documents, each with its count and the list's filter."""
    mine = Document.objects.filter(queue_conditions(user)["mine"])
    return [
        _document_queue(
            "in_review",
            "In review",
            Document.objects.filter(status=Document.Status.IN_REVIEW).count(),
            "Drafts their editors submitted: a publisher publishes them.",
        ),
        _document_queue(
            "pending",
            "Pending revisions",
            Revision.objects.filter(status=Revision.Status.PENDING).count(),
            "Edits to public documents, held for a publisher to review.",
        ),
        _document_queue(
            "mine", "My drafts", mine.count(), "Drafts you created, not yet submitted."
        ),
        _document_queue(
            "unfiled",
            "Unfiled",
            Document.objects.unfiled().count(),
            "Documents no topic takes yet: evidence the list is short.",
        ),
    ]


def open_proposals():
    """The open proposals that two people are one, oldest first, each with
    the position it is about (its person and document) and the candidate's
    positions in documents' texts now (``candidate.positions``)."""
    candidates = Authorship.objects.filter(version__isnull=True).select_related(
        "document__registry"
    )
    return (
        PersonProposal.objects.filter(status=PersonProposal.Status.OPEN)
        .select_related(
            "authorship__person", "authorship__document__registry", "candidate"
        )
        .prefetch_related(
            Prefetch(
                "candidate__authorships",
                queryset=candidates.order_by(
                    "document__registry__prefix", "document__number", "position"
                ),
                to_attr="positions",
            )
        )
        .order_by("created_at", "pk")
    )


def people_to_check():
    """The desk's queue of open proposals, and the oldest of them."""
    count = PersonProposal.objects.filter(status=PersonProposal.Status.OPEN).count()
    queue = Queue(
        "People to check",
        count,
        reverse("admin:catalogue_personproposal_check"),
        "Names the record could not tell apart: one person, or two?",
    )
    return queue, (list(open_proposals()[:PEOPLE_SHOWN]) if count else [])


def review_queues(user, *, mine):
    """The queues of reviews, and the review queue itself (``mine``: only the
    reviews ``user`` is assigned)."""
    desk = reverse("admin:index")
    assigned = Queue(
        "Assigned to me",
        review_queue.assigned_count(user),
        f"{desk}?review=mine#review-queue",
        "Drafts and pending revisions you review.",
    )
    sent_back = Queue(
        "Changes requested",
        review_queue.sent_back_count(),
        f"{desk}#review-queue",
        "Sent back to their editors with a comment, to revise and resubmit.",
    )
    return [assigned, sent_back], review_queue.review_queue(user, mine=mine)


def queues(user, *, mine=False):
    """The desk for ``user``: the queues, the review queue, the oldest people
    to check, and the documents published last."""
    broken = Queue(
        "Broken references",
        BrokenReference.objects.broken().count(),
        reverse("admin:catalogue_brokenreference_changelist"),
        "Names in texts that point at nothing a reader can open.",
    )
    candidates = Queue(
        "Candidate topics",
        CandidateTopic.objects.open().count(),
        reverse("admin:catalogue_topic_candidates"),
        "Groups of documents the topic list cannot place: topics it may lack.",
    )
    corrections = Queue(
        "Corrections waiting",
        Correction.objects.waiting().count(),
        reverse("admin:catalogue_correction_changelist") + "?status__exact=pending",
        "Corrections readers and the source checks propose: a publisher decides.",
    )
    people, proposals = people_to_check()
    reviews, waiting = review_queues(user, mine=mine)
    return {
        "queues": [
            *document_queues(user),
            *reviews,
            broken,
            candidates,
            people,
            corrections,
        ],
        "reviews": waiting,
        "mine": mine,
        "people": people,
        "proposals": proposals,
        "duplicates": reverse("admin:catalogue_document_duplicates"),
        # Changes scheduled ahead, the late and the failed marked.
        "schedules": desk_schedules(),
        "published": DocumentVersion.objects.select_related(
            "document__registry", "published_by", "written_by"
        ).order_by("-published_at", "-pk")[:RECENT],
    }
