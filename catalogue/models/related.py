"""What the record says of itself, derived from its public text: each public
document's related work, and the candidate topics the unfiled documents
suggest ("content the list cannot place is evidence the list is short").

Both are computed in the background from published text only (``similarity``)
and stored here by ``actions.related``; neither is part of the record itself,
so they carry no versions and no audit entries of their own.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from catalogue.models.choices import DocumentStatus
from catalogue.models.document import Document
from catalogue.models.fields import RecordTextChecked
from catalogue.models.topic import Topic

# Related work points readers to documents they may read as they stand: public
# ones, but not those withdrawn.
RELATED_STATUSES = [DocumentStatus.ACTIVE, DocumentStatus.SUPERSEDED]


class RelatedDocumentQuerySet(models.QuerySet):
    def shown_with(self, document):
        """The related work a reader sees on ``document``'s page: public
        documents only, nearest first, with what their links need; none on
        a document withdrawn (its list goes when related work is next
        recomputed)."""
        return (
            self.filter(
                document=document,
                document__status__in=RELATED_STATUSES,
                related__status__in=RELATED_STATUSES,
            )
            .select_related("related__registry")
            .order_by("rank")
        )


class RelatedDocument(RecordTextChecked, models.Model):
    """One document of another's related work, with why it is related."""

    document = models.ForeignKey(Document, models.CASCADE, related_name="related_work")
    related = models.ForeignKey(Document, models.CASCADE, related_name="related_to")
    rank = models.PositiveSmallIntegerField(help_text=_("1 is the nearest."))
    score = models.FloatField()
    reasons = models.JSONField(
        default=list, help_text=_("What they share, one phrase each.")
    )

    objects = RelatedDocumentQuerySet.as_manager()

    class Meta:
        ordering = ["document", "rank"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "related"], name="unique_related_document"
            ),
        ]

    def __str__(self):
        return f"{self.document_id} → {self.related_id}"

    @property
    def reason(self):
        return "; ".join(self.reasons)


class CandidateTopicQuerySet(models.QuerySet):
    def open(self):
        """Candidates an editor has neither turned into a topic nor dismissed."""
        return self.filter(state=CandidateTopic.State.OPEN)


class CandidateTopic(RecordTextChecked, models.Model):
    """A group of documents the topic list does not place well, which could be
    a topic of its own: its suggested name, members and nearest topic."""

    class State(models.TextChoices):
        OPEN = "open", _("Open")
        DISMISSED = "dismissed", _("Dismissed")
        MADE = "made", _("Made into a topic")

    name = models.CharField(
        max_length=200, help_text=_("Its most telling terms, as a suggested name.")
    )
    terms = models.JSONField(default=list)
    nearest_topic = models.ForeignKey(
        Topic, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    nearest_similarity = models.FloatField(default=0)
    members_key = models.CharField(
        max_length=64,
        db_index=True,
        help_text=_("The members' ids, digested: a dismissed group stays dismissed."),
    )
    state = models.CharField(max_length=10, choices=State, default=State.OPEN)
    topic = models.ForeignKey(
        Topic,
        models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The topic it was made into."),
    )
    computed_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)

    objects = CandidateTopicQuerySet.as_manager()

    class Meta:
        ordering = ["-computed_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(state__in=["open", "dismissed", "made"]),
                name="candidate_topic_state_valid",
            ),
        ]

    def __str__(self):
        return self.name


class CandidateMember(RecordTextChecked, models.Model):
    """A document of a candidate topic; ``fit`` is its similarity to the
    group, ``filed_fit`` to the topic it is filed under (None when unfiled)."""

    candidate = models.ForeignKey(
        CandidateTopic, models.CASCADE, related_name="members"
    )
    document = models.ForeignKey(Document, models.CASCADE, related_name="+")
    fit = models.FloatField()
    filed_fit = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["candidate", "-fit"]
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "document"], name="unique_candidate_member"
            ),
        ]

    def __str__(self):
        return f"{self.candidate_id}: {self.document_id}"
