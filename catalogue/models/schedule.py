"""What a publisher arranges ahead: a change run at a set time, and a link
that shows a document's unpublished text to someone without an account.

A ``Schedule`` is a row, so it survives restarts and is listed and cancelled
like any other; it is run by ``actions.schedules`` as the very action its
button takes. A ``PreviewLink`` is a row too, so it can be listed and
revoked; the address handed out carries its number, signed with the site's
secret key (``actions.previews``).
"""

from django.core import signing
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalogue.models.document import Document
from catalogue.models.fields import RecordTextChecked, one_of, user_field
from catalogue.models.revision import Revision

PREVIEW_SALT = "catalogue.preview-link"


class ScheduleQuerySet(models.QuerySet):
    def waiting(self):
        """Schedules that have not run, nor been cancelled."""
        return self.filter(state=ScheduleState.WAITING)

    def due(self, now=None):
        """Waiting schedules whose time has come."""
        return self.waiting().filter(at__lte=now or timezone.now())

    def missed(self, since):
        """Waiting schedules whose time passed before ``since``: no runner
        ran them in time."""
        return self.waiting().filter(at__lt=since)


class ScheduleKind(models.TextChoices):
    PUBLISH = "publish", _("Publish")
    WITHDRAW = "withdraw", _("Withdraw")
    REINSTATE = "reinstate", _("Reinstate")


class ScheduleState(models.TextChoices):
    WAITING = "waiting", _("Waiting")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")
    CANCELLED = "cancelled", _("Cancelled")


class Schedule(RecordTextChecked, models.Model):
    """A change to a document a publisher asked for at a set time.

    Until ``at`` the document stays as readers see it; then a runner takes
    the schedule and makes the change through the same action as the admin's
    button, on ``scheduled_by``'s behalf. The text scheduled is pinned by its
    digest: an edit made since is not published unseen, the schedule fails.
    """

    Kind = ScheduleKind
    State = ScheduleState

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="schedules"
    )
    kind = models.CharField(max_length=20, choices=Kind)
    at = models.DateTimeField(help_text=_("When the change is made."))
    revision = models.ForeignKey(
        Revision,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="schedules",
        help_text=_("The pending revision to publish, if the document is public."),
    )
    digest = models.CharField(
        max_length=64,
        blank=True,
        help_text=_("The text scheduled for publication, as its digest."),
    )
    note = models.CharField(
        max_length=500, blank=True, help_text=_("The publication's change note.")
    )
    reason = models.TextField(
        blank=True, help_text=_("The withdrawal's reason, which readers see.")
    )
    state = models.CharField(max_length=20, choices=State, default=State.WAITING)
    outcome = models.TextField(
        blank=True, help_text=_("What the run did, or why it could not.")
    )
    scheduled_by = user_field()
    created_at = models.DateTimeField(auto_now_add=True)
    ran_at = models.DateTimeField(null=True, blank=True)
    cancelled_by = user_field()
    cancelled_at = models.DateTimeField(null=True, blank=True)

    objects = ScheduleQuerySet.as_manager()

    class Meta:
        ordering = ["at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "kind"],
                condition=Q(state="waiting"),
                name="one_waiting_schedule_per_change",
            ),
            one_of("kind", ScheduleKind, "schedule_kind_valid"),
            one_of("state", ScheduleState, "schedule_state_valid"),
        ]
        indexes = [
            # Runners and the desk read the waiting ones by time.
            models.Index(fields=["state", "at"], name="schedule_state_at"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.document.identifier} at {self.at}"


class PreviewLink(models.Model):
    """A link that shows ``document``'s unpublished text (a draft, or its
    pending revision) to whoever holds it, until ``expires_at`` or until it
    is revoked."""

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="preview_links"
    )
    created_by = user_field()
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_by = user_field()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"Preview link {self.pk} of {self.document.identifier}"

    def get_absolute_url(self):
        return reverse("catalogue:preview", kwargs={"token": self.token})

    @property
    def token(self):
        """The link's number, signed with the site's secret: the same address
        every time it is asked for, and no other link's."""
        return signing.Signer(salt=PREVIEW_SALT).sign(str(self.pk))

    @classmethod
    def pk_from_token(cls, token):
        """The link's number a token names, or None for a token not ours."""
        try:
            pk = signing.Signer(salt=PREVIEW_SALT).unsign(token)
        except signing.BadSignature:
            return None
        return int(pk) if pk.isdigit() else None

    def is_open(self, now=None):
        """Whether the link still shows its document."""
        return self.revoked_at is None and (now or timezone.now()) < self.expires_at
