"""The choices the record's models share, and which statuses are public."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class TopicFlavour(models.TextChoices):
    """What a topic files: a kind of claim, or claims about a domain."""

    KIND = "kind", _("Kind of claim")
    DOMAIN = "domain", _("Domain")


class DocumentStatus(models.TextChoices):
    """Where a document stands: drafts and documents in review are the
    editors' alone; active, superseded and withdrawn ones are public."""

    DRAFT = "draft", _("Draft")
    IN_REVIEW = "in_review", _("In review")
    ACTIVE = "active", _("Active")
    SUPERSEDED = "superseded", _("Superseded")
    WITHDRAWN = "withdrawn", _("Withdrawn")


# The statuses of documents a reader may see.
PUBLIC_STATUSES = [
    DocumentStatus.ACTIVE,
    DocumentStatus.SUPERSEDED,
    DocumentStatus.WITHDRAWN,
]


class RevisionStatus(models.TextChoices):
    """An edit to a public document: held, then published or discarded."""

    PENDING = "pending", _("Pending")
    PUBLISHED = "published", _("Published")
    DISCARDED = "discarded", _("Discarded")


class DecisionStatus(models.TextChoices):
    """A decision record's standing, in the words ADR tools use."""

    PROPOSED = "proposed", _("Proposed")
    ACCEPTED = "accepted", _("Accepted")
    SUPERSEDED = "superseded", _("Superseded")
    DEPRECATED = "deprecated", _("Deprecated")
