from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import (
    MaxLengthValidator,
    MaxValueValidator,
    MinValueValidator,
    RegexValidator,
)
from django.db import models
from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from taggit.managers import TaggableManager
from taggit.models import Tag

from catalogue.citations import (
    Citation,
    author_list_cell,
    cited_authors,
    identifier_pdf_url,
    identifier_url,
    identifier_value,
    join_summary,
    render_citation,
    source_key,
)
from catalogue.identifiers import Identifier
from catalogue.models.choices import (
    PUBLIC_STATUSES,
    DocumentStatus,
    PublicationType,
    RevisionStatus,
)
from catalogue.models.fields import (
    RecordTextChecked,
    StampedTimeField,
    at_least_one,
    one_of,
    search_vector_field,
    successor_field,
    topic_field,
)
from catalogue.models.registry import Registry, RegistryCount

# Citation's field names as the models spell them.
CITATION_FIELDS = {
    "authors": "authors",
    "year": "year",
    "identifier": "source_identifier",
    "note": "citation_note",
}


# A publication date as precise as the source gives it: 2016, 2016-04, 2016-04-21.
PUBLICATION_DATE_VALIDATOR = RegexValidator(
    r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$",
    "A date reads 2016, 2016-04 or 2016-04-21.",
    code="publication_date_form",
)


class DocumentQuerySet(models.QuerySet):
    def public(self):
        """Documents a reader may see: active, superseded, withdrawn."""
        return self.filter(status__in=PUBLIC_STATUSES)

    def with_incomplete_authors(self):
        """Documents known only by a citation's "First et al.": no author list
        is recorded and the citation says there are more authors."""
        return self.filter(author_list=[], authors__contains=" et al.")

    def in_registry(self, registry):
        return self.filter(registry=registry)

    def in_topic(self, topic):
        """Documents filed under ``topic``; None gives the unfiled ones."""
        return self.filter(topic=topic)

    def unfiled(self):
        """Documents filed against no topic: legal, and listed as unfiled."""
        return self.filter(topic__isnull=True)

    def by_person(self, person):
        """Documents whose text now names ``person`` at an author position
        (their versions' positions aside)."""
        # Authorship is defined after Document, whose reverse relation names it.
        positions = self.model._meta.get_field("authorships").related_model.objects
        return self.filter(
            Exists(
                positions.filter(
                    document=OuterRef("pk"), version__isnull=True, person=person
                )
            )
        )

    def in_number_order(self):
        return self.select_related("registry").order_by("registry__prefix", "number")

    def tags(self):
        """The tags these documents carry, each once.

        An EXISTS per tag, not a DISTINCT over every tagging, so the cost
        follows the number of tags rather than the size of the record.
        """
        return Tag.objects.filter(Exists(self.filter(tags=OuterRef("pk"))))

    def tag_counts(self):
        """The tags these documents carry, each with ``document_count``, how
        many of them carry it. One query."""
        count = Subquery(
            self.filter(tags=OuterRef("pk"))
            .order_by()
            .values("tags")
            .annotate(n=Count("*"))
            .values("n")
        )
        return self.tags().annotate(document_count=count)

    def naming(self, identifier, log=None):
        """Documents whose text names ``identifier``: in the decision ``log``
        for a decision record's name."""
        named = {"references__log": log} if log is not None else {}
        return self.filter(
            references__prefix=identifier.prefix,
            references__number=identifier.number,
            **named,
        ).distinct()

    def registry_counts(self, *, topic):
        """Per registry: how many of these documents ``topic`` holds, of all.

        ``topic=None`` counts the unfiled documents. One query.
        """
        return self.registry_shares(self.filter(topic=topic))

    def registry_shares(self, listed):
        """Per registry: how many of these documents ``listed`` (some of them:
        a topic's, a person's) holds, of all. One query."""

        # A count per registry; the totals and a topic's are each an
        # index-only scan of the index document_registry_counts: no table row
        # is read, however large the record grows.
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
            Registry.objects.annotate(listed=count(listed), total=count(self))
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


SUMMARY_MAX_CHARACTERS = 10_000


class CitedText(RecordTextChecked, models.Model):
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
    # A summary is a paragraph or two; the bound keeps every page that lists
    # summaries (a topic's hundred rows) a bounded amount of work.
    summary = models.TextField(
        validators=[MaxLengthValidator(SUMMARY_MAX_CHARACTERS)],
        help_text=_("The text that follows the citation."),
    )
    author_list = models.JSONField(
        default=list,
        blank=True,
        help_text=_(
            "Every author, in order, when known: CSL names, a person as "
            "{family, given}, an organisation as {literal}."
        ),
    )
    venue = models.CharField(
        max_length=500,
        blank=True,
        help_text=_("The journal or conference: ‘OSDI’, ‘IEEE Trans. Autom. Control’."),
    )
    publication_type = models.CharField(
        max_length=20, choices=PublicationType, blank=True
    )
    publication_date = models.CharField(
        max_length=10,
        blank=True,
        validators=[PUBLICATION_DATE_VALIDATOR],
        help_text=_("As precise as known: 2016, 2016-04 or 2016-04-21."),
    )
    doi = models.CharField(
        max_length=200,
        blank=True,
        verbose_name=_("DOI"),
        help_text=_("The published work's DOI, 10.1109/TAC.2003.812781, when known."),
    )

    # The text the topic page format prints and versions compare.
    CONTENT_FIELDS = [
        "title",
        "authors",
        "year",
        "source_identifier",
        "citation_note",
        "summary",
    ]
    # What the citation abbreviates: kept with the text, edited and held with it.
    BIBLIOGRAPHIC_FIELDS = [
        "author_list",
        "venue",
        "publication_type",
        "publication_date",
        "doi",
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
    def pdf_url(self):
        """The cited work's PDF, where its identifier tells (arXiv), or ""."""
        return identifier_pdf_url(self.source_identifier)

    @property
    def known_authors(self):
        """The authors as far as known, as CSL names, and whether that is all
        of them: the full list when recorded, else the citation's names."""
        if self.author_list:
            return self.author_list, True
        return cited_authors(self.authors)

    @property
    def has_complete_authors(self):
        return self.known_authors[1]

    @property
    def arxiv_id(self):
        return identifier_value(self.source_identifier, "ARXIV-")

    @property
    def work_doi(self):
        """The work's DOI: the recorded one, else the citation's identifier's."""
        return self.doi or identifier_value(self.source_identifier, "DOI:")

    @property
    def summary_with_citation(self):
        """The summary as the record prints it: citation first."""
        return join_summary(self.citation, self.summary)

    def content(self):
        return {field: getattr(self, field) for field in self.CONTENT_FIELDS}

    def bibliography(self):
        """The fields the citation abbreviates, by name."""
        return {field: getattr(self, field) for field in self.BIBLIOGRAPHIC_FIELDS}

    def edited_content(self):
        """What an editor edits and a publisher publishes: text and bibliography."""
        return {**self.content(), **self.bibliography()}

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


class Document(CitedText):
    """A document of a registry: a paper or report, summarised by editors."""

    Status = DocumentStatus

    PUBLIC_STATUSES = PUBLIC_STATUSES

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
    topic = topic_field(related_name="documents")
    superseded_by = successor_field()
    tags = TaggableManager(blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True, editable=False)
    withdrawal_reason = models.TextField(
        blank=True,
        editable=False,
        help_text=_("Why the document was withdrawn, as readers see it."),
    )
    # The source identifier as every spelling of it reads (source_key()), so
    # that a second document citing the same source is found by one lookup.
    source_key = models.CharField(max_length=250, blank=True, editable=False)
    # The citation and the author list in one line each, as the record prints
    # them, written by the functions the pages print them with: the staff CSV
    # copies them as they are, and no second spelling of either exists.
    citation_text = models.TextField(blank=True, editable=False)
    author_list_text = models.TextField(blank=True, editable=False)
    created_at = StampedTimeField(auto_now_add=True)
    updated_at = StampedTimeField(auto_now=True)
    search_vector = search_vector_field()

    # The fields ``derive()`` writes, for a bulk write that names its fields.
    DERIVED_FIELDS = ["source_key", "citation_text", "author_list_text"]

    objects = DocumentManager()

    class Meta:
        ordering = ["registry__prefix", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["registry", "number"], name="unique_document_number"
            ),
            at_least_one("number", "document_number_positive"),
            at_least_one("version", "document_version_positive"),
            one_of("status", DocumentStatus, "document_status_valid"),
            one_of(
                "publication_type",
                PublicationType,
                "document_publication_type_valid",
            ),
        ]
        indexes = [
            # A topic's public documents in number order, and per year for its
            # chart, read from the index alone: a list reads its rows' HTML
            # (``DocumentRow``) for the page it shows only.
            models.Index(
                fields=["topic", "status"],
                include=["registry", "number", "year", "id"],
                name="document_topic_listing",
            ),
            models.Index(fields=["status"], name="document_status"),
            models.Index(fields=["source_key"], name="document_source_key"),
            # Covers registry_counts: per registry, public, in a topic.
            models.Index(
                fields=["registry", "status", "topic"],
                name="document_registry_counts",
            ),
            # A harvest walks the record in (updated_at, id) order, a page
            # from the key the last one ended at (oai/records.py).
            models.Index(fields=["updated_at", "id"], name="document_datestamp_order"),
        ]
        permissions = [
            ("publish_document", "Can publish, supersede and withdraw documents"),
        ]

    def __str__(self):
        return f"{self.label}: {self.title}"

    def save(self, *args, **kwargs):
        self.derive()
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse(
            "catalogue:document-detail", kwargs={"identifier": self.identifier}
        )

    def derive(self):
        """Set the fields derived from this row's own (``DERIVED_FIELDS``):
        ``save()`` calls it, and a bulk write, which calls no ``save()``."""
        self.source_key = source_key(self.source_identifier)
        self.citation_text = render_citation(
            self.authors, self.year, self.source_identifier, self.citation_note
        )
        self.author_list_text = author_list_cell(self.author_list)

    @property
    def identifier(self):
        """The permanent identifier, LIT-004 (the citation's is source_identifier)."""
        return Identifier(self.registry.prefix, self.number)

    @property
    def label(self):
        """The identifier as listed: the version is shown from v2 on."""
        return self.identifier.label(self.version)

    @property
    def is_public(self):
        return self.status in PUBLIC_STATUSES

    @property
    def known_venue(self):
        """The known venue the document's venue or citation names, or None."""
        try:
            return self.venue_listing.venue
        except ObjectDoesNotExist:
            return None

    @property
    def reference_text(self):
        """The text whose names of other documents count as references."""
        return f"{self.title}\n{self.summary}"

    def pending_revision(self):
        """The edit held for a publisher, or None."""
        return self.revisions.filter(status=RevisionStatus.PENDING).first()
