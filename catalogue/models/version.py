from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from catalogue.models.document import CitedText, Document


class DocumentVersion(CitedText):
    """A published version of a document: a snapshot that is never edited."""

    document = models.ForeignKey(
        Document,
        # A published document cannot be deleted, so its number is never freed.
        on_delete=models.PROTECT,
        related_name="versions",
    )
    number = models.PositiveIntegerField()
    published_at = models.DateTimeField()
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="published_versions",
    )
    note = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["document", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "number"], name="unique_document_version"
            ),
            models.CheckConstraint(
                condition=Q(number__gte=1), name="document_version_number_positive"
            ),
        ]

    def __str__(self):
        return f"{self.document.identifier} v{self.number}"

    @classmethod
    def snapshot(
        cls, document, *, number=None, published_at=None, published_by=None, note=""
    ):
        """The document's text as version ``number`` (its own version by
        default), unsaved: every version row is made here."""
        return cls(
            document=document,
            number=number or document.version,
            published_at=published_at or timezone.now(),
            published_by=published_by,
            note=note,
            **document.content(),
        )
