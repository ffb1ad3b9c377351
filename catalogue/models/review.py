from django.conf import settings
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalogue.models.decision import DecisionRecord, DecisionRevision
from catalogue.models.document import Document
from catalogue.models.fields import RecordTextChecked, one_of, user_field
from catalogue.models.revision import Revision
from catalogue.models.version import DocumentVersion

# The fields a comment on a document may be anchored to, as the form names them.
DOCUMENT_ANCHORS = {
    "title": _("Title"),
    "authors": _("Authors"),
    "author_list": _("Author list"),
    "year": _("Year"),
    "source_identifier": _("Identifier"),
    "summary": _("Summary"),
    "topic": _("Topic"),
    "tags": _("Tags"),
}
# The same for a decision record.
DECISION_ANCHORS = {
    "title": _("Title"),
    "status": _("Status"),
    "decided_on": _("Decided on"),
    "body": _("Body"),
    "supersedes": _("Supersedes"),
}

COMMENT_MAX_CHARACTERS = 5_000


class ReviewState(models.TextChoices):
    """Where the review of a draft or pending revision stands."""

    OPEN = "open", _("Open")
    CHANGES_REQUESTED = "changes_requested", _("Changes requested")
    PUBLISHED = "published", _("Published")
    DISCARDED = "discarded", _("Discarded")


# A review that still waits on someone: the editor or a publisher.
LIVE_STATES = [ReviewState.OPEN, ReviewState.CHANGES_REQUESTED]


class ReviewThreadQuerySet(models.QuerySet):
    def live(self):
        """Reviews of a draft or pending revision still unpublished and kept."""
        return self.filter(state__in=LIVE_STATES)

    def assigned_to(self, user):
        return self.filter(assignee=user)

    def overdue(self, today=None):
        """Live reviews whose due date has passed."""
        today = today or timezone.localdate()
        return self.live().filter(due_on__lt=today)


class ReviewThread(models.Model):
    """The conversation about one draft or pending revision of a document or
    decision record: its comments, who reviews it and by when, and whether it
    went back to its editor. Kept once published (with the version it made)
    or discarded, for staff; never shown to readers."""

    State = ReviewState

    document = models.ForeignKey(
        Document,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="review_threads",
    )
    revision = models.ForeignKey(
        Revision,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="review_threads",
        help_text=_("The pending revision reviewed; empty for a draft."),
    )
    version = models.ForeignKey(
        DocumentVersion,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="review_threads",
        help_text=_("The version its publication made, if it raised one."),
    )
    decision = models.ForeignKey(
        DecisionRecord,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="review_threads",
    )
    decision_revision = models.ForeignKey(
        DecisionRevision,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="review_threads",
        help_text=_("The pending revision reviewed; empty for a draft."),
    )
    state = models.CharField(max_length=20, choices=State, default=State.OPEN)
    assignee = user_field(
        related_name="review_assignments",
        help_text=_("Who reviews it."),
    )
    due_on = models.DateField(
        null=True, blank=True, help_text=_("When the review should be done.")
    )
    assigned_by = user_field()
    assigned_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    objects = ReviewThreadQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            one_of("state", ReviewState, "review_thread_state_valid"),
            models.CheckConstraint(
                condition=(
                    Q(document__isnull=False, decision__isnull=True)
                    | Q(document__isnull=True, decision__isnull=False)
                ),
                name="review_thread_of_one_subject",
            ),
            models.CheckConstraint(
                condition=Q(revision__isnull=True) | Q(document__isnull=False),
                name="review_thread_revision_of_its_document",
            ),
            models.CheckConstraint(
                condition=Q(decision_revision__isnull=True) | Q(decision__isnull=False),
                name="review_thread_revision_of_its_decision",
            ),
            models.UniqueConstraint(
                fields=["document"],
                condition=Q(state__in=LIVE_STATES),
                name="one_live_review_per_document",
            ),
            models.UniqueConstraint(
                fields=["decision"],
                condition=Q(state__in=LIVE_STATES),
                name="one_live_review_per_decision",
            ),
        ]
        indexes = [
            models.Index(fields=["assignee", "state"], name="review_assignee_state"),
        ]

    def __str__(self):
        return f"Review of {self.subject.label}"

    @property
    def subject(self):
        """The document or decision record reviewed."""
        return self.document if self.document_id else self.decision

    @property
    def anchors(self):
        """The fields a comment may be anchored to, by name."""
        return DOCUMENT_ANCHORS if self.document_id else DECISION_ANCHORS

    @property
    def is_live(self):
        return self.state in LIVE_STATES

    @property
    def changes_requested(self):
        return self.state == ReviewState.CHANGES_REQUESTED

    def is_overdue(self, today=None):
        today = today or timezone.localdate()
        return self.is_live and self.due_on is not None and self.due_on < today


class CommentKind(models.TextChoices):
    """A plain comment, or the one a review was sent back or resubmitted with."""

    COMMENT = "comment", _("Comment")
    CHANGES_REQUESTED = "changes_requested", _("Sent back")
    RESUBMITTED = "resubmitted", _("Resubmitted")


class ReviewComment(RecordTextChecked, models.Model):
    """One comment of a review, anchored to a field or to the whole draft;
    sending back and resubmitting are comments too, marked by ``kind``."""

    Kind = CommentKind

    thread = models.ForeignKey(
        ReviewThread, on_delete=models.CASCADE, related_name="comments"
    )
    author = user_field()
    kind = models.CharField(
        max_length=20, choices=CommentKind, default=CommentKind.COMMENT
    )
    field = models.CharField(
        max_length=40,
        blank=True,
        help_text=_("The field it is about; empty for the whole draft."),
    )
    body = models.TextField(
        blank=True, validators=[MaxLengthValidator(COMMENT_MAX_CHARACTERS)]
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            one_of("kind", CommentKind, "review_comment_kind_valid"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} by {self.author or 'a former account'}"

    @property
    def field_label(self):
        """The anchored field's name as the form shows it, or ""."""
        return self.thread.anchors.get(self.field, self.field) if self.field else ""


class ReviewerPreference(models.Model):
    """What review mail one account wants: a person may turn it off."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reviewer_preference",
    )
    wants_review_mail = models.BooleanField(
        _("mail me about reviews"),
        default=True,
        help_text=_(
            "Mail when you are assigned a review, and when someone comments "
            "on or sends back a draft you wrote or review."
        ),
    )

    def __str__(self):
        return f"Review mail for {self.user}"
