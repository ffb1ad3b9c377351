from typing import NamedTuple

from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Count, Exists, OuterRef, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue.identifiers import PREFIX
from catalogue.models.choices import PUBLIC_STATUSES
from catalogue.models.fields import RecordTextChecked

PREFIX_VALIDATOR = RegexValidator(
    rf"^{PREFIX}\Z",
    "A prefix is capital letters and digits, starting with a letter (LIT).",
    code="prefix_form",
)


class RegistryCount(NamedTuple):
    """``listed`` of ``total`` public documents of a registry (67 of 737 LIT)."""

    prefix: str
    listed: int
    total: int


class RegistryQuerySet(models.QuerySet):
    def public(self):
        """Registries holding a public document: one of drafts only is not
        listed, linked or offered as a filter anywhere readers look."""
        return self.filter(
            Exists(
                self.model.documents.rel.related_model.objects.filter(
                    registry=OuterRef("pk"), status__in=PUBLIC_STATUSES
                )
            )
        )

    def with_public_counts(self):
        """Each registry annotated with ``public_count``, its public documents."""
        return self.annotate(
            public_count=Count(
                "documents", filter=Q(documents__status__in=PUBLIC_STATUSES)
            )
        ).order_by("prefix")


class Registry(RecordTextChecked, models.Model):
    """A register of documents with its own prefix and numbering (LIT-nnn)."""

    name = models.CharField(max_length=200)
    prefix = models.CharField(
        max_length=20,
        unique=True,
        validators=[PREFIX_VALIDATOR],
        help_text=_("Capital letters, as in the identifiers: LIT for LIT-004."),
    )
    description = models.TextField(blank=True)
    last_number = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text=_(
            "The highest number this registry has ever issued. New documents take "
            "the next one; a number is never issued twice."
        ),
    )

    objects = RegistryQuerySet.as_manager()

    class Meta:
        ordering = ["prefix"]
        verbose_name_plural = "registries"

    def __str__(self):
        # An imported registry is named by its prefix: "LIT", not "LIT (LIT)".
        if self.name == self.prefix:
            return self.prefix
        return f"{self.name} ({self.prefix})"

    def get_absolute_url(self):
        return reverse("catalogue:registry-detail", kwargs={"prefix": self.prefix})
