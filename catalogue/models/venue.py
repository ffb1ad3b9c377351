from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue.models.choices import PublicationType
from catalogue.models.fields import RecordTextChecked, one_of


class Venue(RecordTextChecked, models.Model):
    """A journal or conference citations name, and what kind of publication
    a work it published is: read from a citation at import (``OSDI ‘20``, a
    DOI under ``10.1109/TAC.``) into the document's venue and type."""

    name = models.CharField(
        max_length=100,
        unique=True,
        help_text=_(
            "As citations abbreviate it, before the year: ‘OSDI’ for ‘OSDI ‘20’."
        ),
    )
    full_name = models.CharField(
        max_length=300,
        blank=True,
        help_text=_(
            "The venue's whole name, ‘IEEE Transactions on Automatic Control’."
        ),
    )
    slug = models.SlugField(
        max_length=100,
        unique=True,
        help_text=_("The venue's page, /venues/<slug>/: ‘osdi’, ‘ieee-tac’."),
    )
    kind = models.CharField(
        max_length=20,
        choices=PublicationType,
        help_text=_("What a work the venue published is."),
    )
    doi_prefix = models.CharField(
        max_length=100,
        blank=True,
        verbose_name=_("DOI prefix"),
        help_text=_(
            "The start every DOI of the venue's works shares, when it has one: "
            "‘10.1109/TAC.’."
        ),
    )

    class Meta:
        ordering = ["name"]
        constraints = [one_of("kind", PublicationType, "venue_kind_valid")]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("catalogue:venue-detail", kwargs={"slug": self.slug})


class DocumentVenue(models.Model):
    """The known venue a document's venue or citation names, found as its
    authors are linked to people (``actions.people``); the document's venue
    text stays as written. Kept beside the document's row, not in it: the
    venue pages read it, and nothing else of the document changes."""

    document = models.OneToOneField(
        "catalogue.Document",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="venue_listing",
    )
    venue = models.ForeignKey(Venue, on_delete=models.CASCADE, related_name="listings")

    class Meta:
        indexes = [models.Index(fields=["venue", "document"], name="document_venue")]

    def __str__(self):
        return f"{self.document_id} at {self.venue}"
