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


class PublicationType(models.TextChoices):
    """What kind of publication a cited work is; blank while not known."""

    UNKNOWN = "", _("Not known")
    PREPRINT = "preprint", _("Preprint")
    CONFERENCE_PAPER = "conference_paper", _("Conference paper")
    JOURNAL_ARTICLE = "journal_article", _("Journal article")
    REPORT = "report", _("Report")


class RevisionStatus(models.TextChoices):
    """An edit to a public document: held, then published or discarded."""

    PENDING = "pending", _("Pending")
    PUBLISHED = "published", _("Published")
    DISCARDED = "discarded", _("Discarded")


class DecisionStatus(models.TextChoices):
    """A decision record's standing, in the words MADR and Nygard use; not
    stated when the record's file says none or one these words cannot say
    (the words as written are kept beside it)."""

    NOT_STATED = "", _("Not stated")
    PROPOSED = "proposed", _("Proposed")
    ACCEPTED = "accepted", _("Accepted")
    REJECTED = "rejected", _("Rejected")
    DEPRECATED = "deprecated", _("Deprecated")
    SUPERSEDED = "superseded", _("Superseded")


class DecisionRelationKind(models.TextChoices):
    """How one decision record stands to another, read from the one that
    acts: ADR-061 supersedes ADR-026, which is superseded by ADR-061."""

    SUPERSEDES = "supersedes", _("Supersedes")
    AMENDS = "amends", _("Amends")
    CLARIFIES = "clarifies", _("Clarifies")
    RELATES_TO = "relates_to", _("Relates to")

    @property
    def inverse_label(self):
        """The relation read from the other record: "Superseded by"."""
        return INVERSE_LABELS[self]


INVERSE_LABELS = {
    DecisionRelationKind.SUPERSEDES: _("Superseded by"),
    DecisionRelationKind.AMENDS: _("Amended by"),
    DecisionRelationKind.CLARIFIES: _("Clarified by"),
    DecisionRelationKind.RELATES_TO: _("Relates to"),
}


class DecisionFormat(models.TextChoices):
    """The shape a decision log's files were written in, and are written back in."""

    MADR = "madr", _("MADR 3 and 4 (YAML front matter)")
    MADR2 = "madr2", _("MADR 2 (bullet lines)")
    ADR_TOOLS = "adr-tools", _("adr-tools and Nygard's format")
