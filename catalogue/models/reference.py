from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext_lazy as _

from catalogue.identifiers import Identifier
from catalogue.models.decision import DecisionLog, DecisionRecord
from catalogue.models.document import Document
from catalogue.models.fields import RecordTextChecked


class ReferenceQuerySet(models.QuerySet):
    def broken(self):
        """References naming nothing public: a typo, a draft, a deleted ADR."""
        public_document = Document.objects.public().filter(
            registry__prefix=OuterRef("prefix"), number=OuterRef("number")
        )
        public_decision = DecisionRecord.objects.public().filter(
            log=OuterRef("log"), number=OuterRef("number")
        )
        return self.filter(
            (Q(log__isnull=False) & ~Exists(public_decision))
            | (Q(log__isnull=True) & ~Exists(public_document))
        )


class Reference(RecordTextChecked, models.Model):
    """A name (LIT-325, ADR-032 v2) in the text of a document or decision record.

    Kept by ``references.write_references`` whenever a text is written, so
    that "Referenced by" and the list of broken references are plain queries.
    """

    # A reference belongs to the text of one document or one decision record.
    document = models.ForeignKey(
        Document, models.CASCADE, null=True, blank=True, related_name="references"
    )
    decision = models.ForeignKey(
        DecisionRecord, models.CASCADE, null=True, blank=True, related_name="references"
    )
    prefix = models.CharField(max_length=20)
    log = models.ForeignKey(
        DecisionLog,
        models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text=_(
            "The decision log a decision record's name resolves in (the naming "
            "text's own, unless it names another); empty for a document's name."
        ),
    )
    number = models.PositiveIntegerField()
    version = models.PositiveIntegerField(null=True, blank=True)

    objects = ReferenceQuerySet.as_manager()

    class Meta:
        ordering = ["prefix", "number"]
        constraints = [
            models.CheckConstraint(
                condition=Q(document__isnull=False, decision__isnull=True)
                | Q(document__isnull=True, decision__isnull=False),
                name="reference_has_one_source",
            ),
        ]
        indexes = [models.Index(fields=["prefix", "number"], name="reference_target")]

    def __str__(self):
        name = Identifier(self.prefix, self.number)
        return f"{name} v{self.version}" if self.version else name

    @property
    def source(self):
        return self.document or self.decision


class BrokenReference(Reference):
    """The references editors must mend, listed on their own in the admin."""

    class Meta:
        proxy = True
        verbose_name = "broken reference"
