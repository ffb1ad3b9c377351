import re

from django.core import signing
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalogue.citations import author_lines
from catalogue.models.decision import DecisionRecord, DecisionRevision
from catalogue.models.document import Document
from catalogue.models.fields import RecordTextChecked, one_of, user_field
from catalogue.models.revision import Revision

# What a reader may propose to change, by target: the fields a reader can
# check against the work itself. A document's summary is the editors' own
# text: a reader's word on it is the proposal's note.
DOCUMENT_FIELDS = [
    "title",
    "authors",
    "author_list",
    "year",
    "venue",
    "publication_date",
    "source_identifier",
    "doi",
]
DECISION_FIELDS = ["title", "status_text", "decided_on"]
# A proposal's texts are bounded far above a real correction (a title is 500
# characters, a long author list a few thousand), so a page listing them
# stays a bounded amount of work.
NOTE_MAX_CHARACTERS = 10_000
TOKEN_SALT = "catalogue.correction"
# What a publisher may set besides, accepting a document's correction.
EDITED_FIELDS = ["summary", "citation_note", "publication_type"]
ARXIV_VERSION_RE = re.compile(r"v(?P<number>\d+)$")


class CorrectionOrigin(models.TextChoices):
    READER = "reader", _("a reader")
    ARXIV = "arxiv", _("the arXiv check")
    CROSSREF = "crossref", _("the Crossref check")
    DOI = "doi", _("the DOI check")
    LINKS = "links", _("the link check")


class CorrectionStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    ACCEPTED = "accepted", _("Accepted, waiting for publication")
    PUBLISHED = "published", _("Published")
    DECLINED = "declined", _("Declined")


class CorrectionProposes(models.TextChoices):
    EDIT = "edit", _("An edit of the fields")
    ERRATUM = "erratum", _("An erratum notice")
    WITHDRAWAL = "withdrawal", _("A withdrawal (retraction)")


class CorrectionQuerySet(models.QuerySet):
    def waiting(self):
        return self.filter(status=CorrectionStatus.PENDING)

    def shown(self):
        """What readers see listed on a page: corrections published."""
        return self.filter(status=CorrectionStatus.PUBLISHED)


class Correction(RecordTextChecked, models.Model):
    """A proposed correction of a public document or decision record: a
    reader's, or a finding of a check of the sources (arXiv, Crossref, the
    DOI resolver, the links). Never an edit by itself: a publisher accepts
    it (it becomes a pending revision, published the usual way) or declines
    it, with a reason.

    ``changes`` are the proposed values, by field; ``current`` what readers
    saw of those fields when it was proposed, for the diff. ``finding``
    names a check's finding with the state of the source (``arxiv:…:v3``),
    so the same finding is never proposed twice while the source stands.
    """

    Origin = CorrectionOrigin
    Status = CorrectionStatus
    Proposes = CorrectionProposes

    document = models.ForeignKey(
        Document,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="corrections",
    )
    decision = models.ForeignKey(
        DecisionRecord,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="corrections",
    )
    origin = models.CharField(max_length=20, choices=Origin, default=Origin.READER)
    proposes = models.CharField(max_length=20, choices=Proposes, default=Proposes.EDIT)
    status = models.CharField(max_length=20, choices=Status, default=Status.PENDING)
    changes = models.JSONField(default=dict, blank=True)
    accepted_changes = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("What the publisher accepted, where it differs from the proposal."),
    )
    current = models.JSONField(default=dict, blank=True)
    based_on_version = models.PositiveIntegerField(null=True, blank=True)
    note = models.TextField(
        blank=True,
        validators=[MaxLengthValidator(NOTE_MAX_CHARACTERS)],
        help_text=_("The reader's word on the summary, or what a check found."),
    )
    reason = models.TextField(
        blank=True,
        validators=[MaxLengthValidator(NOTE_MAX_CHARACTERS)],
        help_text=_("Why the reader proposes it, or where the finding comes from."),
    )
    email = models.EmailField(
        blank=True, help_text=_("Where the reader hears of the outcome.")
    )
    finding = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = user_field()
    published_at = models.DateTimeField(null=True, blank=True)
    public_reason = models.TextField(
        blank=True,
        validators=[MaxLengthValidator(NOTE_MAX_CHARACTERS)],
        help_text=_("Why it was declined, as the reader is told."),
    )
    private_reason = models.TextField(
        blank=True,
        validators=[MaxLengthValidator(NOTE_MAX_CHARACTERS)],
        help_text=_("Why it was declined, for the editors alone."),
    )
    revision = models.ForeignKey(
        Revision,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="corrections",
    )
    decision_revision = models.ForeignKey(
        DecisionRevision,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="corrections",
    )

    objects = CorrectionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(document__isnull=False, decision__isnull=True)
                    | Q(document__isnull=True, decision__isnull=False)
                ),
                name="correction_one_target",
            ),
            one_of("origin", CorrectionOrigin, "correction_origin_valid"),
            one_of("status", CorrectionStatus, "correction_status_valid"),
            one_of("proposes", CorrectionProposes, "correction_proposes_valid"),
            # A check's finding is proposed once for a document while its
            # source stands; a new state of the source is a new finding.
            models.UniqueConstraint(
                fields=["document", "finding"],
                condition=~Q(finding=""),
                name="correction_finding_once",
            ),
        ]
        permissions = [
            ("decide_correction", "Can accept and decline proposed corrections"),
        ]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="correction_queue"),
            models.Index(
                fields=["document", "status"], name="correction_document_status"
            ),
        ]

    def __str__(self):
        return f"Correction of {self.target_label} ({self.get_status_display()})"

    @property
    def target(self):
        return self.document if self.document_id else self.decision

    @property
    def target_label(self):
        target = self.target
        if target is None:
            return "?"
        return str(target.identifier)

    @property
    def by_reader(self):
        return self.origin == self.Origin.READER

    @property
    def final_changes(self):
        """What it changes: what the publisher accepted, else the proposal."""
        return self.accepted_changes or self.changes

    def proposed_fields(self):
        """The fields as proposed, in the order the form shows them."""
        order = DOCUMENT_FIELDS if self.document_id else DECISION_FIELDS
        return [name for name in order if name in self.changes]

    def changed_fields(self):
        """The fields it changes (as accepted, once accepted), in the order
        the form shows them."""
        order = DOCUMENT_FIELDS if self.document_id else DECISION_FIELDS
        changes = self.final_changes
        return [name for name in [*order, *EDITED_FIELDS] if name in changes]

    def readable_changes(self):
        """``(label, was, now)`` for each field it changes (as accepted, once
        accepted), as text: an author list one author a line (``Chen,
        Tianqi``)."""
        changes = self.final_changes
        return [
            (
                FIELD_NAMES.get(name, name),
                readable_value(self.current.get(name, "")),
                readable_value(changes[name]),
            )
            for name in self.changed_fields()
        ]

    def what(self):
        """What it corrects, as readers read it: "authors", "title and year",
        "arXiv v3 noted", "erratum", "retraction"."""
        if self.proposes == self.Proposes.ERRATUM:
            return "erratum"
        if self.proposes == self.Proposes.WITHDRAWAL:
            return "retraction"
        if noted := self.arxiv_version_noted():
            return noted
        names = []
        for name in self.changed_fields():
            label = FIELD_LABELS.get(name, name)
            if label not in names:
                names.append(label)
        if not names:
            return "note"
        if len(names) == 1:
            return names[0]
        return f"{', '.join(names[:-1])} and {names[-1]}"

    def arxiv_version_noted(self):
        """ "arXiv v3 noted" when all it changes is the cited arXiv version,
        else ""."""
        changes = self.final_changes
        if set(changes) != {"source_identifier"}:
            return ""
        version = ARXIV_VERSION_RE.search(str(changes["source_identifier"]))
        if version is None or not str(changes["source_identifier"]).startswith(
            "ARXIV-"
        ):
            return ""
        return f"arXiv v{version['number']} noted"

    def sentence(self):
        """The correction as a document's page lists it: "authors corrected
        (a reader's correction)"."""
        if self.origin == self.Origin.READER:
            whose = "a reader’s correction"
        else:
            whose = f"found by {self.get_origin_display()}"
        what = self.what()
        if self.proposes == self.Proposes.EDIT and not self.arxiv_version_noted():
            what = f"{what} corrected"
        return f"{what} ({whose})"

    # The private link: the reader follows a request at a signed token, which
    # names this proposal alone.

    def token(self):
        """The proposal's key, signed with the site's secret: the same link
        every time it is asked for, and no other proposal's."""
        return signing.Signer(salt=TOKEN_SALT).sign(str(self.pk))

    @classmethod
    def pk_from_token(cls, token):
        """The proposal's key a token names, or None for a token not ours."""
        try:
            pk = signing.Signer(salt=TOKEN_SALT).unsign(token)
        except signing.BadSignature:
            return None
        return int(pk) if pk.isdigit() else None


# The fields as the public lists name them.
FIELD_LABELS = {
    "title": "title",
    "authors": "authors",
    "author_list": "authors",
    "year": "year",
    "venue": "venue",
    "publication_date": "date",
    "source_identifier": "identifier",
    "doi": "DOI",
    "status_text": "status",
    "decided_on": "date",
}


# The fields as a form or a mail names them.
FIELD_NAMES = {
    "title": "Title",
    "authors": "Authors as cited",
    "author_list": "Authors",
    "year": "Year",
    "venue": "Venue",
    "publication_date": "Publication date",
    "source_identifier": "Identifier",
    "doi": "DOI",
    "status_text": "Status",
    "decided_on": "Date",
    "summary": "Summary",
    "citation_note": "Citation note",
    "publication_type": "Type",
}


def readable_value(value):
    """A proposed or public value as text: an author list one author a line."""
    if isinstance(value, list):
        return author_lines(value)
    return "" if value is None else str(value)


class LinkCheck(RecordTextChecked, models.Model):
    """What the link check last heard from an address named in a summary or
    a decision record: a link is dead once two checks at least a day apart
    both answered 404 or 410."""

    url = models.URLField(max_length=2000, unique=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    checked_at = models.DateTimeField()
    failing_since = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return self.url
