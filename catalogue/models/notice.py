from django.db import models

from catalogue.models.document import Document
from catalogue.models.fields import RecordTextChecked, user_field


class DocumentNotice(RecordTextChecked, models.Model):
    """A change of a public document's standing that readers are told of: a
    withdrawal (with its reason), a reinstatement, a supersession, or an
    erratum (a published correction: what was corrected, and whose). A row is
    written by the action that makes the change and never edited, so the
    feeds carry it whatever the document's age, and a reinstatement does
    not erase the withdrawal before it."""

    class Kind(models.TextChoices):
        WITHDRAWN = "withdrawn", "Withdrawn"
        REINSTATED = "reinstated", "Reinstated"
        SUPERSEDED = "superseded", "Superseded"
        CORRECTED = "corrected", "Corrected"

    document = models.ForeignKey(
        Document, on_delete=models.PROTECT, related_name="notices"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    at = models.DateTimeField()
    reason = models.TextField(blank=True)
    successor = models.ForeignKey(
        Document,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="succession_notices",
    )
    by = user_field(related_name="document_notices")

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            # The feeds list the newest notices first, read from this index.
            models.Index(fields=["-at", "-id"], name="notice_order"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(
                    kind__in=["withdrawn", "reinstated", "superseded", "corrected"]
                ),
                name="document_notice_kind_valid",
            ),
        ]

    def __str__(self):
        return f"{self.document.identifier} {self.get_kind_display().lower()}"

    def sentence(self):
        """The notice as readers read it: "Withdrawn on 1 December 2026.
        Reason: …", "Reinstated on …", "Superseded by LIT-784: Title."."""
        when = f"{self.at:%-d %B %Y}"
        if self.kind == self.Kind.SUPERSEDED and self.successor is not None:
            successor = self.successor
            return f"Superseded by {successor.label}: {successor.title} ({when})."
        if self.kind == self.Kind.CORRECTED:
            return f"Correction of {when}: {self.reason}."
        said = f"{self.get_kind_display()} on {when}."
        return f"{said} Reason: {self.reason}" if self.reason else said
