from typing import NamedTuple

from auditlog.registry import auditlog
from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from taggit.managers import TaggableManager
from taggit.models import Tag

from catalogue.citations import (
    Citation,
    author_names,
    identifier_url,
    identifier_value,
    join_summary,
)

PREFIX_VALIDATOR = RegexValidator(
    r"^[A-Z][A-Z0-9]*\Z",
    "A prefix is capital letters and digits, starting with a letter (LIT).",
    code="prefix_form",
)


# Citation's field names as the models spell them.
CITATION_FIELDS = {
    "authors": "authors",
    "year": "year",
    "identifier": "source_identifier",
    "note": "citation_note",
}


class TopicFlavour(models.TextChoices):
    KIND = "kind", _("Kind of claim")
    DOMAIN = "domain", _("Domain")


class DocumentStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    IN_REVIEW = "in_review", _("In review")
    ACTIVE = "active", _("Active")
    SUPERSEDED = "superseded", _("Superseded")
    WITHDRAWN = "withdrawn", _("Withdrawn")


class RevisionStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    PUBLISHED = "published", _("Published")
    DISCARDED = "discarded", _("Discarded")


class DecisionStatus(models.TextChoices):
    PROPOSED = "proposed", _("Proposed")
    ACCEPTED = "accepted", _("Accepted")
    SUPERSEDED = "superseded", _("Superseded")
    DEPRECATED = "deprecated", _("Deprecated")


def format_identifier(prefix, number):
    """The permanent identifier: prefix and number, zero-padded to three digits."""
    return f"{prefix}-{number:03d}"


def format_label(identifier, version):
    """The identifier as listed: the version is shown from v2 on."""
    return f"{identifier} v{version}" if version > 1 else identifier


class RegistryCount(NamedTuple):
    """``listed`` of ``total`` public documents of a registry (67 of 737 LIT)."""

    prefix: str
    listed: int
    total: int


class RegistryQuerySet(models.QuerySet):
    def with_public_counts(self):
        """Each registry annotated with ``public_count``, its public documents."""
        return self.annotate(
            public_count=Count(
                "documents", filter=Q(documents__status__in=Document.PUBLIC_STATUSES)
            )
        ).order_by("prefix")


class Registry(models.Model):
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
        return f"{self.name} ({self.prefix})"

    def get_absolute_url(self):
        return reverse("catalogue:registry-detail", kwargs={"prefix": self.prefix})


class Topic(models.Model):
    """One of the topics documents are filed against, in editorial order."""

    Flavour = TopicFlavour

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=200, unique=True)
    scope = models.CharField(
        max_length=500,
        blank=True,
        help_text=_("One line, without a closing full stop: what the topic covers."),
    )
    flavour = models.CharField(
        max_length=10,
        choices=Flavour,
        default=Flavour.KIND,
        help_text=_(
            "A document takes a domain topic only when its claim is about that "
            "domain; a claim merely discovered in a domain takes its kind."
        ),
    )
    position = models.PositiveIntegerField(
        unique=True, help_text=_("Editorial order on the full index.")
    )
    # Kept by a PostgreSQL trigger (migration 0004); unused on SQLite.
    search_vector = SearchVectorField(null=True, editable=False)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.CheckConstraint(
                condition=Q(flavour__in=TopicFlavour.values),
                name="topic_flavour_valid",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("catalogue:topic-detail", kwargs={"slug": self.slug})


class DocumentQuerySet(models.QuerySet):
    def public(self):
        """Documents a reader may see: active, superseded, withdrawn."""
        return self.filter(status__in=Document.PUBLIC_STATUSES)

    def in_registry(self, registry):
        return self.filter(registry=registry)

    def in_topic(self, topic):
        return self.filter(topic=topic)

    def unfiled(self):
        """Documents filed against no topic: legal, and listed as unfiled."""
        return self.filter(topic__isnull=True)

    def in_number_order(self):
        return self.select_related("registry").order_by("registry__prefix", "number")

    def as_table_rows(self):
        """In number order, as the values a ``TableRow`` is made of (issue 6)."""
        return self.order_by("registry__prefix", "number").values_list(*TableRow.FIELDS)

    def tags(self):
        """The tags these documents carry, each once.

        An EXISTS per tag, not a DISTINCT over every tagging, so the cost
        follows the number of tags rather than the size of the record.
        """
        return Tag.objects.filter(Exists(self.filter(tags=OuterRef("pk"))))

    def naming(self, prefix, number):
        """Documents whose text names the record ``prefix``-``number``."""
        return self.filter(
            references__prefix=prefix, references__number=number
        ).distinct()

    def unpublished(self):
        """Documents never published: drafts and those in review (issue 3)."""
        return self.filter(status__in=Document.UNPUBLISHED_STATUSES)

    def with_pending_revision(self):
        """Public documents with an edit waiting for a publisher (issue 3)."""
        return self.filter(revisions__status=RevisionStatus.PENDING)

    def registry_counts(self, *, topic):
        """Per registry: how many of these documents ``topic`` holds, of all.

        ``topic=None`` counts the unfiled documents. One query.
        """

        # A count per registry, each an index-only scan of the index
        # document_registry_counts: no table row is read, however large the
        # record grows (issue 6).
        def count(documents):
            return Coalesce(
                Subquery(
                    documents.filter(registry=OuterRef("pk"))
                    .order_by()
                    .values("registry")
                    .annotate(n=Count("*"))
                    .values("n")
                ),
                0,
            )

        rows = (
            Registry.objects.annotate(
                listed=count(self.filter(topic=topic)), total=count(self)
            )
            .order_by("prefix")
            .values_list("prefix", "listed", "total")
        )
        return [RegistryCount(*row) for row in rows if row[2]]

    def topic_counts(self):
        """``{topic_id: {prefix: n}}`` for these documents, unfiled under None."""
        counts = {}
        rows = self.values_list("topic_id", "registry__prefix").annotate(n=Count("pk"))
        for topic_id, prefix, n in rows.order_by():
            counts.setdefault(topic_id, {})[prefix] = n
        return counts


class DocumentManager(models.Manager.from_queryset(DocumentQuerySet)):
    def get_queryset(self):
        # The search vector is the database's to read and write (migration
        # 0004); loading it would double the bytes of every list.
        return super().get_queryset().defer("search_vector")


class CitedText(models.Model):
    """The citation fields and the summary: what a published version fixes."""

    title = models.CharField(max_length=500)
    authors = models.CharField(
        max_length=500,
        help_text=_("As printed: ‘Chen et al.’, ‘Jadbabaie, Lin and Morse’."),
    )
    year = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1000), MaxValueValidator(9999)]
    )
    source_identifier = models.CharField(
        max_length=200,
        blank=True,
        help_text=_(
            "The citation's identifier, if any: ARXIV-1604.06174 or "
            "DOI:10.1109/TAC.2003.812781."
        ),
    )
    citation_note = models.CharField(
        max_length=500,
        blank=True,
        help_text=_(
            "Venue or remark printed after the identifier: ‘OSDI ‘20’, "
            "‘(SoCC ‘25)’, ‘— CoCoNet (ASPLOS 2022)’."
        ),
    )
    summary = models.TextField(help_text=_("The text that follows the citation."))

    CONTENT_FIELDS = [
        "title",
        "authors",
        "year",
        "source_identifier",
        "citation_note",
        "summary",
    ]

    class Meta:
        abstract = True

    @property
    def citation(self):
        return Citation(
            authors=self.authors,
            year=self.year,
            identifier=self.source_identifier,
            note=self.citation_note,
        )

    @property
    def source_url(self):
        """Where the cited work lives: the arXiv abstract page or the DOI resolver."""
        return identifier_url(self.source_identifier)

    @property
    def author_list(self):
        """The authors one by one, for reference managers."""
        return author_names(self.authors)[0]

    @property
    def arxiv_id(self):
        return identifier_value(self.source_identifier, "ARXIV-")

    @property
    def doi(self):
        return identifier_value(self.source_identifier, "DOI:")

    @property
    def summary_with_citation(self):
        """The summary as the record prints it: citation first."""
        return join_summary(self.citation, self.summary)

    def content(self):
        return {field: getattr(self, field) for field in self.CONTENT_FIELDS}

    def clean(self):
        super().clean()
        if self.year is None or not self.authors:
            return  # clean_fields() reports the missing values.
        try:
            self.citation.validate()
        except ValidationError as error:
            raise ValidationError(
                {
                    CITATION_FIELDS[field]: messages
                    for field, messages in error.message_dict.items()
                }
            ) from error


class TableRow:
    """A public document as a table row shows it, made from plain values.

    A topic page lists up to 1,000 documents: from the values of
    ``DocumentQuerySet.as_table_rows()`` they cost a third of the time of
    model instances (issue 6).
    """

    FIELDS = [
        "registry__prefix",
        "number",
        "version",
        "status",
        *CitedText.CONTENT_FIELDS,
    ]
    __slots__ = ["identifier", "label", "status", "summary_with_citation", "title"]

    def __init__(self, prefix, number, version, status, title, *cited):
        # After the title: the citation's fields, then the summary.
        *citation, summary = cited
        self.identifier = format_identifier(prefix, number)
        self.label = format_label(self.identifier, version)
        self.status = status
        self.title = title
        self.summary_with_citation = join_summary(Citation(*citation), summary)


class Document(CitedText):
    """A document of a registry: a paper or report, summarised by editors."""

    Status = DocumentStatus

    PUBLIC_STATUSES = [Status.ACTIVE, Status.SUPERSEDED, Status.WITHDRAWN]
    UNPUBLISHED_STATUSES = [Status.DRAFT, Status.IN_REVIEW]

    registry = models.ForeignKey(
        Registry, on_delete=models.PROTECT, related_name="documents"
    )
    number = models.PositiveIntegerField(
        blank=True,
        help_text=_(
            "Permanent, never reused. Leave blank for a new document to take the "
            "registry's next number."
        ),
    )
    version = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text=_("The published version; shown from v2 on (LIT-004 v4)."),
    )
    status = models.CharField(max_length=20, choices=Status, default=Status.DRAFT)
    topic = models.ForeignKey(
        Topic,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="documents",
        help_text=_("Leave empty to list the document as unfiled."),
    )
    superseded_by = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="supersedes",
    )
    tags = TaggableManager(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Kept by a PostgreSQL trigger (migration 0004); unused on SQLite.
    search_vector = SearchVectorField(null=True, editable=False)

    objects = DocumentManager()

    class Meta:
        ordering = ["registry__prefix", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["registry", "number"], name="unique_document_number"
            ),
            models.CheckConstraint(
                condition=Q(number__gte=1), name="document_number_positive"
            ),
            models.CheckConstraint(
                condition=Q(version__gte=1), name="document_version_positive"
            ),
            models.CheckConstraint(
                condition=Q(status__in=DocumentStatus.values),
                name="document_status_valid",
            ),
        ]
        indexes = [
            models.Index(fields=["topic", "status"], name="document_topic_status"),
            models.Index(fields=["status"], name="document_status"),
            # Covers registry_counts: per registry, public, in a topic.
            models.Index(
                fields=["registry", "status", "topic"],
                name="document_registry_counts",
            ),
        ]
        permissions = [
            ("publish_document", "Can publish, supersede and withdraw documents"),
        ]

    def __str__(self):
        return f"{self.label}: {self.title}"

    def get_absolute_url(self):
        return reverse(
            "catalogue:document-detail", kwargs={"identifier": self.identifier}
        )

    @property
    def identifier(self):
        """The permanent identifier, LIT-004 (the citation's is source_identifier)."""
        return format_identifier(self.registry.prefix, self.number)

    @property
    def label(self):
        """The identifier as listed: the version is shown from v2 on."""
        return format_label(self.identifier, self.version)

    @property
    def is_public(self):
        return self.status in self.PUBLIC_STATUSES

    @property
    def is_retired(self):
        return self.status in {self.Status.SUPERSEDED, self.Status.WITHDRAWN}

    @property
    def reference_text(self):
        """The text whose record names count as references."""
        return f"{self.title}\n{self.summary}"

    def pending_revision(self):
        """The edit held for a publisher, or None (issue 3)."""
        return self.revisions.filter(status=RevisionStatus.PENDING).first()


class Revision(CitedText):
    """An edit to a public document, held until a publisher publishes it.

    The Document row is what readers see, so an edit to a public document is
    kept here instead (issue 3); there is at most one pending per document.
    """

    Status = RevisionStatus

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="revisions"
    )
    topic = models.ForeignKey(
        Topic,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("Leave empty to list the document as unfiled."),
    )
    tag_names = models.JSONField(
        default=list, blank=True, help_text=_("The tags the document will have.")
    )
    status = models.CharField(max_length=20, choices=Status, default=Status.PENDING)
    note = models.CharField(
        max_length=500, blank=True, help_text=_("What changed and why.")
    )
    based_on_version = models.PositiveIntegerField(
        help_text=_("The published version this edit started from.")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    FILING_FIELDS = ["topic", "tag_names"]

    class Meta:
        ordering = ["document", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["document"],
                condition=Q(status=RevisionStatus.PENDING),
                name="one_pending_revision_per_document",
            ),
            models.CheckConstraint(
                condition=Q(status__in=RevisionStatus.values),
                name="revision_status_valid",
            ),
        ]

    def __str__(self):
        return f"{self.document.identifier}: {self.get_status_display()} revision"

    def applied_to(self, document):
        """``document`` as it would read with this revision published (unsaved)."""
        for name in self.CONTENT_FIELDS:
            setattr(document, name, getattr(self, name))
        document.topic = self.topic
        return document


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


class DecisionRecordQuerySet(models.QuerySet):
    def public(self):
        """Decision records a reader may see: the published ones (issue 3)."""
        return self.filter(published_at__isnull=False)

    def drafts(self):
        return self.filter(published_at__isnull=True)

    def naming(self, prefix, number):
        """Decision records whose text names the record ``prefix``-``number``."""
        return self.filter(
            references__prefix=prefix, references__number=number
        ).distinct()


class DecisionRecord(models.Model):
    """An architecture decision record of the anthology itself (ADR-026)."""

    PREFIX = "ADR"

    Status = DecisionStatus

    number = models.PositiveIntegerField(unique=True)
    title = models.CharField(max_length=500)
    status = models.CharField(max_length=20, choices=Status, default=Status.PROPOSED)
    decided_on = models.DateField(null=True, blank=True)
    body = models.TextField(
        blank=True, help_text=_("Context, decision and consequences, in Markdown.")
    )
    superseded_by = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="supersedes",
    )
    published_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text=_("Empty while the record is a draft, which readers never see."),
    )
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Kept by a PostgreSQL trigger (migration 0004); unused on SQLite.
    search_vector = SearchVectorField(null=True, editable=False)

    objects = DecisionRecordQuerySet.as_manager()

    class Meta:
        ordering = ["number"]
        permissions = [
            ("publish_decisionrecord", "Can publish decision records"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(number__gte=1), name="decision_record_number_positive"
            ),
            models.CheckConstraint(
                condition=Q(status__in=DecisionStatus.values),
                name="decision_record_status_valid",
            ),
        ]

    def __str__(self):
        return f"{self.identifier}: {self.title}"

    def save(self, *args, **kwargs):
        # A record with a successor is superseded, whoever set the successor.
        if self.superseded_by_id is not None:
            self.status = self.Status.SUPERSEDED
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse(
            "catalogue:decision-detail", kwargs={"identifier": self.identifier}
        )

    @property
    def identifier(self):
        return format_identifier(self.PREFIX, self.number)

    @property
    def is_public(self):
        return self.published_at is not None

    @property
    def label(self):
        return self.identifier

    @property
    def is_retired(self):
        return self.status in {self.Status.SUPERSEDED, self.Status.DEPRECATED}


class ReferenceQuerySet(models.QuerySet):
    def broken(self):
        """References naming no public record: a typo, a draft, a deleted ADR."""
        public_document = Document.objects.public().filter(
            registry__prefix=OuterRef("prefix"), number=OuterRef("number")
        )
        public_decision = DecisionRecord.objects.public().filter(
            number=OuterRef("number")
        )
        return self.filter(
            (Q(prefix=DecisionRecord.PREFIX) & ~Exists(public_decision))
            | (~Q(prefix=DecisionRecord.PREFIX) & ~Exists(public_document))
        )


class Reference(models.Model):
    """A record's name (LIT-325, ADR-032 v2) in the text of another record.

    Kept by ``services.record_references`` whenever a text is written, so that
    "Referenced by" and the list of broken references are plain queries.
    """

    document = models.ForeignKey(
        Document,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="references",
    )
    decision = models.ForeignKey(
        DecisionRecord,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="references",
    )
    prefix = models.CharField(max_length=20)
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
        name = format_identifier(self.prefix, self.number)
        return f"{name} v{self.version}" if self.version else name

    @property
    def source(self):
        return self.document or self.decision


class BrokenReference(Reference):
    """The references editors must mend, listed on their own in the admin."""

    class Meta:
        proxy = True
        verbose_name = "broken reference"


class Preface(models.Model):
    """The paragraph that opens the full index and every topic page.

    There is one: its primary key is fixed.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    heading = models.CharField(max_length=200, default="Topics")
    text = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(id=1), name="single_preface"),
        ]

    def __str__(self):
        return self.heading


# Every change to the record is attributable (issue 3): django-auditlog keeps
# who, when and each field's old and new value. Tags are a taggit manager, not
# a plain many-to-many, so they are named here; taggit sends m2m_changed.
auditlog.register(Registry, exclude_fields=["last_number"])
auditlog.register(Topic)
auditlog.register(Document, m2m_fields={"tags"}, exclude_fields=["updated_at"])
auditlog.register(Revision, exclude_fields=["updated_at"])
auditlog.register(DocumentVersion)
auditlog.register(DecisionRecord, exclude_fields=["updated_at"])
auditlog.register(Preface, exclude_fields=["updated_at"])
