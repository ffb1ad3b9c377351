from django.db import models
from django.utils.translation import gettext_lazy as _

from catalogue.models.choices import RevisionStatus
from catalogue.models.document import CitedText, Document
from catalogue.models.fields import topic_field
from catalogue.models.held import HeldEdit, held_constraints


class Revision(CitedText, HeldEdit):
    """An edit to a public document, held until a publisher publishes it.

    The Document row is what readers see, so an edit to a public document is
    kept here instead; there is at most one pending per document.
    """

    Status = RevisionStatus

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="revisions"
    )
    topic = topic_field(related_name="+")
    tag_names = models.JSONField(
        default=list, blank=True, help_text=_("The tags the document will have.")
    )
    status = models.CharField(max_length=20, choices=Status, default=Status.PENDING)
    based_on_version = models.PositiveIntegerField(
        help_text=_("The published version this edit started from.")
    )

    class Meta:
        ordering = ["document", "-created_at"]
        constraints = held_constraints(
            "document",
            "status",
            one_pending="one_pending_revision_per_document",
            valid_state="revision_status_valid",
        )

    def __str__(self):
        return f"{self.document.identifier}: {self.get_status_display()} revision"

    @classmethod
    def held_from(cls, document, *, user):
        """A pending revision of ``document`` as readers see it now (unsaved),
        for an edit to be held in: every held edit starts here."""
        return cls(
            document=document,
            based_on_version=document.version,
            created_by=user,
            **document.edited_content(),
            topic_id=document.topic_id,
            tag_names=sorted(document.tags.names()),
        )

    def applied_to(self, document):
        """``document`` as it would read with this revision published (unsaved)."""
        for name, value in self.edited_content().items():
            setattr(document, name, value)
        document.topic = self.topic
        return document
