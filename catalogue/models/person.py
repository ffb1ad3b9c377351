from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue.models.choices import PUBLIC_STATUSES
from catalogue.models.fields import RecordTextChecked, one_of, user_field
from catalogue.names import display_name, index_letter, sort_key, sort_name
from catalogue.orcid import orcid_url, validate_orcid


class PersonState(models.TextChoices):
    """How far the record vouches that a person's positions are one person."""

    VERIFIED = "verified", _("Verified")
    ASSERTED = "asserted", _("Asserted")
    INFERRED = "inferred", _("Inferred")


class ProposalStatus(models.TextChoices):
    OPEN = "open", _("Open")
    ACCEPTED = "accepted", _("Accepted")
    REJECTED = "rejected", _("Rejected")


class PersonQuerySet(models.QuerySet):
    def public(self):
        """People a reader may see: those named by a public document."""
        return self.filter(
            models.Exists(
                Authorship.objects.filter(
                    person=models.OuterRef("pk"),
                    version__isnull=True,
                    document__status__in=PUBLIC_STATUSES,
                )
            )
        )


class Person(RecordTextChecked, models.Model):
    """Someone (or an organisation) the record names as an author.

    A person's positions (``authorships``) are the author positions of
    documents and versions linked to them; each position keeps the name as
    written. ``name`` is the spelling the person's page shows.
    """

    State = PersonState

    name = models.JSONField(
        help_text=_(
            "The name the person's page shows, as a CSL name: {family, given}, "
            "or {literal} for an organisation."
        )
    )
    display_name = models.CharField(max_length=500, editable=False)
    sort_name = models.CharField(max_length=500, editable=False)
    # The sort name folded (case and accents aside): what the index orders
    # by, the same on every database and collation.
    sort_key = models.CharField(max_length=500, editable=False)
    slug = models.SlugField(
        max_length=200,
        unique=True,
        allow_unicode=False,
        help_text=_("The person's address, /people/<slug>/; kept as a redirect."),
    )
    orcid = models.CharField(
        max_length=19,
        blank=True,
        validators=[validate_orcid],
        verbose_name=_("ORCID iD"),
        help_text=_("0000-0002-1825-0097; verified only once an editor confirms it."),
    )
    affiliation = models.CharField(max_length=300, blank=True)
    homepage = models.URLField(max_length=500, blank=True)
    state = models.CharField(
        max_length=10, choices=PersonState, default=PersonState.INFERRED
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = PersonQuerySet.as_manager()

    class Meta:
        ordering = ["sort_key", "slug"]
        constraints = [
            one_of("state", PersonState, "person_state_valid"),
            models.UniqueConstraint(
                fields=["orcid"], condition=~Q(orcid=""), name="unique_person_orcid"
            ),
        ]
        indexes = [models.Index(fields=["sort_key", "slug"], name="person_sort_key")]
        permissions = [
            ("merge_person", "Can merge and split people"),
        ]

    def __str__(self):
        return self.display_name

    def save(self, *args, **kwargs):
        self.derive_names()
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("catalogue:person-detail", kwargs={"slug": self.slug})

    def derive_names(self):
        """Set the names derived from ``name``, as a save does (a bulk insert
        calls it itself)."""
        self.display_name = display_name(self.name)
        self.sort_name = sort_name(self.name)
        self.sort_key = sort_key(self.name)

    @property
    def orcid_url(self):
        return orcid_url(self.orcid)

    @property
    def is_verified(self):
        return self.state == PersonState.VERIFIED and bool(self.orcid)

    @property
    def index_letter(self):
        return index_letter(self.sort_name)


class Authorship(RecordTextChecked, models.Model):
    """One author position of a document (``version`` empty: its text now) or
    of one of its published versions, linked to the person it names.

    ``name`` is the name as the document writes it at ``position`` (from its
    author list, else its citation's names); ``key`` and ``family`` are its
    folded forms (``catalogue.names``), what people are found by.
    """

    document = models.ForeignKey(
        "catalogue.Document", on_delete=models.CASCADE, related_name="authorships"
    )
    version = models.ForeignKey(
        "catalogue.DocumentVersion",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="authorships",
    )
    position = models.PositiveSmallIntegerField()
    name = models.JSONField()
    key = models.CharField(max_length=600)
    family = models.CharField(max_length=500)
    person = models.ForeignKey(
        Person, on_delete=models.PROTECT, related_name="authorships"
    )

    class Meta:
        ordering = ["document", "version", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "position"],
                condition=Q(version__isnull=True),
                name="unique_document_authorship",
            ),
            models.UniqueConstraint(
                fields=["version", "position"],
                condition=Q(version__isnull=False),
                name="unique_version_authorship",
            ),
        ]
        indexes = [
            models.Index(fields=["person", "document"], name="authorship_person"),
            models.Index(fields=["family"], name="authorship_family"),
            # Linking reads the documents whose current positions name a
            # family (``PeopleIndex.need``): from this index alone, where the
            # family's index leads to every version's positions too.
            models.Index(
                fields=["family", "document"],
                condition=Q(version__isnull=True),
                name="authorship_current_family",
            ),
        ]

    def __str__(self):
        return f"{display_name(self.name)} ({self.position + 1})"


class PersonAddress(models.Model):
    """An address a person had: a slug merged away or renamed answers 301 to
    the one person it now names; a split name's lists the people it names."""

    slug = models.SlugField(max_length=200, unique=True)
    persons = models.ManyToManyField(Person, related_name="former_addresses")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]
        verbose_name_plural = _("person addresses")

    def __str__(self):
        return self.slug


class PersonProposal(RecordTextChecked, models.Model):
    """The record's suggestion that the person at ``authorship`` may be
    ``candidate``: left for an editor to accept (a merge) or reject."""

    Status = ProposalStatus

    authorship = models.ForeignKey(
        Authorship, on_delete=models.CASCADE, related_name="proposals"
    )
    candidate = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="proposed_as"
    )
    reason = models.CharField(max_length=500)
    status = models.CharField(
        max_length=10, choices=ProposalStatus, default=ProposalStatus.OPEN
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = user_field()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            one_of("status", ProposalStatus, "person_proposal_status_valid"),
            models.UniqueConstraint(
                fields=["authorship", "candidate"], name="unique_person_proposal"
            ),
        ]

    def __str__(self):
        return self.reason
