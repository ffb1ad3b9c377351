from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue.identifiers import Identifier
from catalogue.models.choices import DecisionStatus
from catalogue.models.fields import (
    at_least_one,
    one_of,
    search_vector_field,
    successor_field,
    user_field,
)


class DecisionRecordQuerySet(models.QuerySet):
    def public(self):
        """Decision records a reader may see: the published ones."""
        return self.filter(published_at__isnull=False)

    def drafts(self):
        return self.filter(published_at__isnull=True)

    def naming(self, identifier):
        """Decision records whose text names ``identifier``."""
        return self.filter(
            references__prefix=identifier.prefix, references__number=identifier.number
        ).distinct()


class DecisionRecord(models.Model):
    """An architecture decision record of the anthology itself (ADR-026)."""

    PREFIX = "ADR"

    Status = DecisionStatus

    number = models.PositiveIntegerField(unique=True)
    title = models.CharField(max_length=500)
    status = models.CharField(max_length=20, choices=Status, default=Status.PROPOSED)
    decided_on = models.DateField(null=True, blank=True)
    body = models.TextField(
        blank=True, help_text=_("Context, decision and consequences, in Markdown.")
    )
    superseded_by = successor_field()
    published_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text=_("Empty while the record is a draft, which readers never see."),
    )
    published_by = user_field(editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    search_vector = search_vector_field()

    objects = DecisionRecordQuerySet.as_manager()

    class Meta:
        ordering = ["number"]
        permissions = [
            ("publish_decisionrecord", "Can publish decision records"),
        ]
        constraints = [
            at_least_one("number", "decision_record_number_positive"),
            one_of("status", DecisionStatus, "decision_record_status_valid"),
        ]

    def __str__(self):
        return f"{self.identifier}: {self.title}"

    def save(self, *args, **kwargs):
        # A record with a successor is superseded, whoever set the successor.
        if self.superseded_by_id is not None:
            self.status = self.Status.SUPERSEDED
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse(
            "catalogue:decision-detail", kwargs={"identifier": self.identifier}
        )

    @property
    def identifier(self):
        return Identifier(self.PREFIX, self.number)

    @property
    def is_public(self):
        return self.published_at is not None

    @property
    def reference_text(self):
        """The text whose names of other documents count as references."""
        return f"{self.title}\n{self.body}"
