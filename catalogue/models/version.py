from django.db import models
from django.utils import timezone

from catalogue.models.document import CitedText, Document
from catalogue.models.fields import at_least_one, user_field


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
    published_by = user_field(related_name="published_versions")
    written_by = user_field(related_name="written_versions")
    note = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["document", "number"], name="unique_document_version"
            ),
            at_least_one("number", "document_version_number_positive"),
        ]
        ordering = ["document", "-number"]
        indexes = [
            # The feeds list the newest versions first: read from this index,
            # not sorted from every version of the record.
            models.Index(
                fields=["-published_at", "-id"], name="version_publication_order"
            ),
        ]

    def __str__(self):
        return f"{self.document.identifier} v{self.number}"

    @classmethod
    def snapshot(cls, document, *, number=None, published_at=None, **people):
        """The document's text as version ``number`` (its own version by
        default), unsaved: every version row is made here. ``people``:
        ``published_by``, ``written_by`` and the change ``note``."""
        return cls(
            document=document,
            number=number or document.version,
            published_at=published_at or timezone.now(),
            **people,
            **document.edited_content(),
        )
