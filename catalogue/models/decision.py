import hashlib
import json

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue.identifiers import Identifier
from catalogue.markdown import render_inline, render_markdown
from catalogue.models.choices import (
    DecisionFormat,
    DecisionRelationKind,
    DecisionStatus,
    RevisionStatus,
)
from catalogue.models.fields import (
    RecordTextChecked,
    one_of,
    search_vector_field,
    user_field,
)
from catalogue.models.held import HeldEdit, held_constraints
from catalogue.models.registry import PREFIX_VALIDATOR, Registry

OWN_LOG_SLUG = "anthology"
# The record's own log, as the first decision of a new record makes it.
OWN_LOG = {
    "name": "The anthology",
    "slug": OWN_LOG_SLUG,
    "prefix": "ADR",
    "format": DecisionFormat.MADR,
    "is_own": True,
}


class DecisionLogQuerySet(models.QuerySet):
    def public(self):
        """Decision logs a reader may see: the record's own, and those holding
        a published decision record (a log of drafts only has no page)."""
        published = DecisionRecord.objects.public().filter(log=models.OuterRef("pk"))
        return self.filter(Q(is_own=True) | models.Exists(published))

    def own(self):
        """The record's own log (the preface's ADR-026), or None before any."""
        return self.filter(is_own=True).first()


class DecisionLog(RecordTextChecked, models.Model):
    """A named collection of decision records with its own prefix and
    numbering: the record's own (ADR-026 of the preface) or a team's folder,
    imported under the name given at import."""

    Format = DecisionFormat

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(
        max_length=100,
        unique=True,
        help_text=_("Its part of the pages' addresses: /decisions/govuk-aws/."),
    )
    prefix = models.CharField(
        max_length=20,
        default="ADR",
        validators=[PREFIX_VALIDATOR],
        help_text=_(
            "How its records are named (ADR-026). Names in a text resolve in "
            "the text's own log first."
        ),
    )
    format = models.CharField(
        max_length=20,
        choices=Format,
        default=Format.MADR,
        help_text=_("The shape its files were read in, and are written back in."),
    )
    is_own = models.BooleanField(
        default=False,
        editable=False,
        help_text=_("The record's own decisions, which its references name."),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = DecisionLogQuerySet.as_manager()

    class Meta:
        ordering = ["-is_own", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_own"], condition=Q(is_own=True), name="one_own_decision_log"
            ),
            one_of("format", DecisionFormat, "decision_log_format_valid"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        if self.is_own:
            return reverse("catalogue:decision-list")
        return reverse("catalogue:log-decision-list", kwargs={"log": self.slug})

    def clean(self):
        # A new log's names must not read as a document's: LIT-004 names a
        # document of the registry LIT, in every text, whatever log it is in.
        if self._state.adding and not self.is_own and self.prefix:
            registry = Registry.objects.filter(prefix=self.prefix).first()
            if registry is not None:
                raise ValidationError(
                    {
                        "prefix": ValidationError(
                            f"{self.prefix} is the prefix of the registry "
                            f"“{registry.name}” ({self.prefix}-001 names one of "
                            "its documents): give the log a prefix of its own.",
                            code="prefix_of_registry",
                        )
                    }
                )


TITLE_MAX_LENGTH = 500
STATUS_TEXT_MAX_LENGTH = 500


class DecisionRecordQuerySet(models.QuerySet):
    def public(self):
        """Decision records a reader may see: the published ones."""
        return self.filter(published_at__isnull=False)

    def drafts(self):
        return self.filter(published_at__isnull=True)

    def naming(self, identifier, log=None):
        """Decision records whose text names ``identifier``: in ``log`` for a
        decision record's name."""
        named = {"references__log": log} if log is not None else {}
        return self.filter(
            references__prefix=identifier.prefix,
            references__number=identifier.number,
            **named,
        ).distinct()


class DecisionRecordManager(models.Manager.from_queryset(DecisionRecordQuerySet)):
    def get_queryset(self):
        # A record's name and address are its log's: read with it.
        return super().get_queryset().select_related("log")


class DecisionRecord(RecordTextChecked, models.Model):
    """An architecture decision record of a decision log: the anthology's own
    (ADR-026) or a team's."""

    PREFIX = "ADR"
    # What a decision's file says of it, and so what an import compares.
    CONTENT_FIELDS = [
        "title",
        "status",
        "status_text",
        "status_history",
        "decided_on",
        "metadata",
        "body",
    ]

    Status = DecisionStatus

    log = models.ForeignKey(
        DecisionLog,
        on_delete=models.PROTECT,
        related_name="decisions",
        help_text=_("The log the record belongs to, with its own numbering."),
    )
    # Teams number their first decision 0 (MADR ships 0000-use-markdown-...).
    number = models.PositiveIntegerField()
    twin = models.PositiveSmallIntegerField(
        default=1,
        editable=False,
        help_text=_(
            "Where a folder numbers two files alike, the second by file name is "
            "ADR-064 (2)."
        ),
    )
    title = models.CharField(max_length=TITLE_MAX_LENGTH)
    status = models.CharField(
        max_length=20, choices=Status, default=Status.PROPOSED, blank=True
    )
    status_text = models.CharField(
        _("status as written"),
        max_length=STATUS_TEXT_MAX_LENGTH,
        blank=True,
        help_text=_(
            "The status in the team's own words, where the choice above does not "
            "say it (“Approved”, “On hold”, a link to the pull request); "
            "empty when it does."
        ),
    )
    status_history = models.TextField(
        blank=True,
        help_text=_(
            "What the record's status section says after its status, in "
            "Markdown: its dated updates (“June 2020 update: …”), as written."
        ),
    )
    decided_on = models.DateField(null=True, blank=True)
    metadata = models.JSONField(
        default=dict,
        blank=True,
        help_text=_(
            "Other facts the record's file states (decision-makers, consulted, "
            "informed), as written."
        ),
    )
    # Rendering costs work in proportion to the text; a body longer than
    # catalogue.markdown renders as Markdown is kept, and shown as text.
    body = models.TextField(
        blank=True,
        help_text=_("Context, decision and consequences, in Markdown."),
    )
    # The HTML readers see, rendered from the Markdown when it is saved.
    title_html = models.TextField(blank=True, editable=False)
    status_html = models.TextField(blank=True, editable=False)
    status_history_html = models.TextField(blank=True, editable=False)
    body_html = models.TextField(blank=True, editable=False)
    source_name = models.CharField(
        max_length=255,
        blank=True,
        help_text=_(
            "The name of the file the record was imported from "
            "(0026-some-title.md); links to it from other records lead here."
        ),
    )
    source_digest = models.CharField(
        max_length=64,
        blank=True,
        editable=False,
        help_text=_("A digest of the content last imported from the file."),
    )
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

    objects = DecisionRecordManager()

    class Meta:
        ordering = ["number", "twin", "log_id"]
        permissions = [
            ("publish_decisionrecord", "Can publish decision records"),
        ]
        constraints = [
            one_of("status", DecisionStatus, "decision_record_status_valid"),
            models.UniqueConstraint(
                fields=["log", "number", "twin"], name="unique_decision_number"
            ),
            models.UniqueConstraint(
                fields=["log", "source_name"],
                condition=~Q(source_name=""),
                name="unique_decision_source_name",
            ),
        ]

    def __str__(self):
        return f"{self.label}: {self.title}"

    def save(self, *args, **kwargs):
        """Save, with the HTML of the Markdown saved rendered once, here: no
        reader's request renders it."""
        update_fields = kwargs.get("update_fields")
        rendered = self.render(update_fields)
        if update_fields is not None:
            kwargs["update_fields"] = [*update_fields, *rendered]
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse(self.url_name(), kwargs=self.url_kwargs())

    def render(self, fields=None):
        """Render the HTML of the Markdown ``fields`` (all of them if None), as
        a save does (a bulk insert does it itself); returns the names of the
        fields holding the HTML."""
        rendered = [
            (name, html)
            for name, html in RENDERED.items()
            if fields is None or name in fields
        ]
        for name, html in rendered:
            setattr(self, html, RENDERERS[name](getattr(self, name)))
        return [html for _, html in rendered]

    def url_name(self, page="decision-detail"):
        """The URL name of the record's ``page``: its log's own, unless it is
        the record's own log, whose addresses carry no log."""
        return f"catalogue:{page}" if self.log.is_own else f"catalogue:log-{page}"

    def url_kwargs(self):
        kwargs = {"identifier": self.identifier}
        if self.twin != 1:
            kwargs["twin"] = self.twin
        if not self.log.is_own:
            kwargs["log"] = self.log.slug
        return kwargs

    @property
    def identifier(self):
        return Identifier(self.log.prefix, self.number)

    @property
    def label(self):
        """The identifier as shown: a second file of one number is ADR-064 (2)."""
        return self.identifier if self.twin == 1 else f"{self.identifier} ({self.twin})"

    @property
    def is_public(self):
        return self.published_at is not None

    @property
    def reference_text(self):
        """The text whose names of other documents count as references."""
        return f"{self.title}\n{self.body}"

    def content(self):
        """What the record's file says of it: ``CONTENT_FIELDS`` by name."""
        return {name: getattr(self, name) for name in self.CONTENT_FIELDS}

    def pending_revision(self):
        """The edit held for a publisher, or None."""
        return self.revisions.filter(state=RevisionStatus.PENDING).first()

    def superseded_pks(self):
        """The primary keys of the records this one supersedes, sorted."""
        relations = self.relations.filter(kind=DecisionRelationKind.SUPERSEDES)
        return sorted(relations.values_list("target", flat=True))

    @property
    def content_digest(self):
        """A digest of ``content()``: equal digests, equal content."""
        return content_digest(self.content())


# Each Markdown field, the field holding its HTML, and how it renders.
RENDERED = {
    "title": "title_html",
    "status_text": "status_html",
    "status_history": "status_history_html",
    "body": "body_html",
}
RENDERERS = {
    "title": render_inline,
    "status_text": render_inline,
    "status_history": render_markdown,
    "body": render_markdown,
}


def content_digest(content):
    """The digest of a decision record's ``content()``, however it was read."""
    # A record with no status history reads as it did before records had one.
    if not content.get("status_history"):
        content = {
            name: value for name, value in content.items() if name != "status_history"
        }
    text = json.dumps(content, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class DecisionRelation(RecordTextChecked, models.Model):
    """One decision record's relation to another, kept once and shown on both:
    ADR-061 supersedes ADR-026, and ADR-026 is superseded by ADR-061."""

    Kind = DecisionRelationKind

    source = models.ForeignKey(
        DecisionRecord, on_delete=models.CASCADE, related_name="relations"
    )
    kind = models.CharField(max_length=20, choices=Kind)
    target = models.ForeignKey(
        DecisionRecord,
        on_delete=models.CASCADE,
        related_name="inverse_relations",
        help_text=_("The record this one supersedes, amends, clarifies or relates to."),
    )

    class Meta:
        ordering = ["source__number", "kind", "target__number"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "kind", "target"], name="unique_decision_relation"
            ),
            models.CheckConstraint(
                condition=~Q(source=models.F("target")),
                name="decision_relation_not_to_itself",
            ),
            one_of("kind", DecisionRelationKind, "decision_relation_kind_valid"),
        ]

    def __str__(self):
        return (
            f"{self.source.identifier} {self.get_kind_display().lower()} "
            f"{self.target.identifier}"
        )


class DecisionImage(RecordTextChecked, models.Model):
    """An image a decision record's body shows, kept with the record (in the
    database, so backups and every instance have it) and served at its name."""

    decision = models.ForeignKey(
        DecisionRecord, on_delete=models.CASCADE, related_name="images"
    )
    name = models.CharField(
        max_length=255,
        help_text=_("Its path in the record's folder, as the body names it."),
    )
    content_type = models.CharField(max_length=100)
    data = models.BinaryField()
    digest = models.CharField(max_length=64, help_text=_("SHA-256 of the bytes."))

    class Meta:
        ordering = ["decision", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["decision", "name"], name="unique_decision_image_name"
            ),
        ]

    def __str__(self):
        return f"{self.decision.label}: {self.name}"

    def get_absolute_url(self):
        decision = self.decision
        return reverse(
            decision.url_name("decision-image"),
            kwargs={**decision.url_kwargs(), "name": self.name},
        )


def _as_in_record(name):
    """A new field like DecisionRecord's ``name``: a revision holds the same."""
    return DecisionRecord._meta.get_field(name).clone()


class DecisionRevision(HeldEdit):
    """An edit to a published decision record, held until a publisher
    publishes it: readers see the record's row, so the edit is kept here,
    with the records it will supersede. At most one is pending per record."""

    State = RevisionStatus
    # "status" is the record's own, as edited.
    STATE = "state"

    decision = models.ForeignKey(
        DecisionRecord, on_delete=models.CASCADE, related_name="revisions"
    )
    title = _as_in_record("title")
    status = _as_in_record("status")
    status_text = _as_in_record("status_text")
    status_history = _as_in_record("status_history")
    decided_on = _as_in_record("decided_on")
    metadata = _as_in_record("metadata")
    body = _as_in_record("body")
    supersedes = models.JSONField(
        default=list,
        blank=True,
        help_text=_("The records (by primary key) it will supersede."),
    )
    state = models.CharField(max_length=20, choices=State, default=State.PENDING)

    class Meta:
        ordering = ["decision", "-created_at"]
        constraints = held_constraints(
            "decision",
            "state",
            one_pending="one_pending_revision_per_decision",
            valid_state="decision_revision_state_valid",
        )

    def __str__(self):
        return f"{self.decision.identifier}: {self.get_state_display()} revision"

    def content(self):
        """What the revision would make the record say, as ``content()``."""
        return {name: getattr(self, name) for name in DecisionRecord.CONTENT_FIELDS}

    def applied_to(self, decision):
        """``decision`` as it would read with this revision published (unsaved)."""
        for name, value in self.content().items():
            setattr(decision, name, value)
        return decision
