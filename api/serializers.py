"""What the API says of each resource, in the record's own words.

Citation fields are read through ``catalogue.citations`` (the citation as the
record prints it, the authors as far as known) and the work's identifiers
through ``public.structured``, as the document pages give them to machines:
nothing here recomputes what those say.
"""

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from catalogue.addresses import absolute_url
from catalogue.models import DecisionRecord, Document, DocumentNotice, PersonState
from public import structured


def api_url(name, **kwargs):
    """The absolute address of the API's ``name`` under the canonical origin."""
    return absolute_url(reverse(f"api:{name}", kwargs=kwargs))


class AuthorSerializer(serializers.Serializer):
    """A CSL name: a person as family and given names, an organisation as a
    literal."""

    family = serializers.CharField(required=False)
    given = serializers.CharField(required=False)
    literal = serializers.CharField(required=False)


class LinkedAuthorSerializer(serializers.Serializer):
    """An author position of a document's text: the name as the document
    writes it there, and the person the record links it to."""

    position = serializers.IntegerField(help_text="From 0, in the author list.")
    name = AuthorSerializer(help_text="As the document writes it.")
    person = serializers.SerializerMethodField(
        help_text="The person's id (slug), or null while no public document names them."
    )
    person_url = serializers.SerializerMethodField()

    def _shown(self, authorship):
        # A person is shown once a public document names them: the author
        # of a draft alone has no address yet, for anyone.
        return authorship.person_is_public

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_person(self, authorship):
        return authorship.person.slug if self._shown(authorship) else None

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_person_url(self, authorship):
        if not self._shown(authorship):
            return None
        return api_url("person-detail", slug=authorship.person.slug)


class WorkIdentifierSerializer(serializers.Serializer):
    scheme = serializers.CharField(help_text="arXiv or DOI.")
    value = serializers.CharField()
    url = serializers.URLField()


class DocumentSerializer(serializers.Serializer):
    """A document as a list shows it: its citation fields, its full author
    list as far as known, its filing, tags and successor."""

    identifier = serializers.SerializerMethodField(help_text="LIT-004.")
    url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()
    registry = serializers.CharField(source="registry.prefix")
    number = serializers.IntegerField()
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Document.Status.choices)
    title = serializers.CharField()
    authors = serializers.CharField(help_text="As the citation prints them.")
    author_list = serializers.SerializerMethodField()
    authors_complete = serializers.SerializerMethodField()
    authors_linked = LinkedAuthorSerializer(
        source="current_authorships",
        many=True,
        help_text="Each position of the author list as far as known, with its person.",
    )
    year = serializers.IntegerField()
    source_identifier = serializers.CharField()
    citation_note = serializers.CharField()
    citation = serializers.SerializerMethodField()
    venue = serializers.CharField()
    publication_type = serializers.CharField()
    publication_date = serializers.CharField()
    doi = serializers.CharField(source="work_doi")
    work_identifiers = serializers.SerializerMethodField()
    summary = serializers.CharField()
    topic = serializers.CharField(
        source="topic.slug", allow_null=True, help_text="Its topic's slug, or null."
    )
    tags = serializers.SerializerMethodField()
    superseded_by = serializers.SerializerMethodField()
    withdrawn_at = serializers.DateTimeField(allow_null=True)
    withdrawal_reason = serializers.CharField()
    updated_at = serializers.DateTimeField()

    @extend_schema_field(OpenApiTypes.STR)
    def get_identifier(self, document):
        return str(document.identifier)

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, document):
        return api_url("document-detail", identifier=document.identifier)

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, document):
        return absolute_url(document.get_absolute_url())

    @extend_schema_field(AuthorSerializer(many=True))
    def get_author_list(self, document):
        return document.known_authors[0]

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_authors_complete(self, document):
        """Whether ``author_list`` names every author."""
        return document.known_authors[1]

    @extend_schema_field(OpenApiTypes.STR)
    def get_citation(self, document):
        return document.citation.render()

    @extend_schema_field(WorkIdentifierSerializer(many=True))
    def get_work_identifiers(self, document):
        return [
            {
                "scheme": value["propertyID"],
                "value": value["value"],
                "url": value["url"],
            }
            for value in structured.identifiers(document)
        ]

    @extend_schema_field(serializers.ListField(child=serializers.SlugField()))
    def get_tags(self, document):
        return sorted(tag.slug for tag in document.tags.all())

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_superseded_by(self, document):
        successor = document.superseded_by
        return None if successor is None else str(successor.identifier)


class VersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    title = serializers.CharField()
    note = serializers.CharField()
    published_at = serializers.DateTimeField()
    page_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, version):
        return absolute_url(
            reverse(
                "catalogue:document-version",
                kwargs={
                    "identifier": version.document.identifier,
                    "number": version.number,
                },
            )
        )


NAME_LIST = serializers.ListField(child=serializers.CharField())


class NoticeSerializer(serializers.Serializer):
    """A change of the document's standing readers are told of: a published
    correction (``corrected``: an erratum), a withdrawal, a reinstatement or
    a supersession."""

    kind = serializers.ChoiceField(choices=DocumentNotice.Kind.choices)
    at = serializers.DateTimeField()
    text = serializers.CharField(source="sentence")
    page_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, notice):
        return absolute_url(f"{notice.document.get_absolute_url()}#notice-{notice.pk}")


class DocumentDetailSerializer(DocumentSerializer):
    """A document with its versions, what it supersedes and its references
    both ways: the names its text gives, and the documents and decision
    records whose text names it."""

    versions = serializers.SerializerMethodField()
    notices = serializers.SerializerMethodField()
    supersedes = serializers.SerializerMethodField()
    references = serializers.SerializerMethodField()
    referenced_by = serializers.SerializerMethodField()
    decisions_referencing = serializers.SerializerMethodField()

    @extend_schema_field(VersionSerializer(many=True))
    def get_versions(self, document):
        versions = list(document.versions.all())
        for version in versions:
            version.document = document
        return VersionSerializer(versions, many=True).data

    @extend_schema_field(NoticeSerializer(many=True))
    def get_notices(self, document):
        notices = sorted(document.notices.all(), key=lambda n: (n.at, n.pk))
        for notice in notices:
            notice.document = document
        return NoticeSerializer(notices, many=True).data

    @extend_schema_field(NAME_LIST)
    def get_supersedes(self, document):
        return [str(older.identifier) for older in self.context["supersedes"]]

    @extend_schema_field(NAME_LIST)
    def get_references(self, document):
        return sorted({str(reference) for reference in document.references.all()})

    @extend_schema_field(NAME_LIST)
    def get_referenced_by(self, document):
        return [str(naming.identifier) for naming in self.context["referenced_by"]]

    @extend_schema_field(NAME_LIST)
    def get_decisions_referencing(self, document):
        return [str(decision.label) for decision in self.context["decisions"]]


class TopicSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    scope = serializers.CharField()
    flavour = serializers.CharField()
    position = serializers.IntegerField()
    document_count = serializers.IntegerField(help_text="Its public documents.")
    url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()
    documents_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, topic):
        return api_url("topic-detail", slug=topic.slug)

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, topic):
        return absolute_url(topic.get_absolute_url())

    @extend_schema_field(OpenApiTypes.URI)
    def get_documents_url(self, topic):
        return f"{api_url('document-list')}?topic={topic.slug}"


class RegistrySerializer(serializers.Serializer):
    prefix = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    document_count = serializers.IntegerField(
        source="public_count", help_text="Its public documents."
    )
    url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()
    documents_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, registry):
        return api_url("registry-detail", prefix=registry.prefix)

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, registry):
        return absolute_url(registry.get_absolute_url())

    @extend_schema_field(OpenApiTypes.URI)
    def get_documents_url(self, registry):
        return f"{api_url('document-list')}?registry={registry.prefix}"


class TagSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    document_count = serializers.IntegerField(help_text="Its public documents.")
    page_url = serializers.SerializerMethodField()
    documents_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, tag):
        return absolute_url(reverse("catalogue:tag-detail", kwargs={"slug": tag.slug}))

    @extend_schema_field(OpenApiTypes.URI)
    def get_documents_url(self, tag):
        return f"{api_url('document-list')}?tag={tag.slug}"


class PersonSerializer(serializers.Serializer):
    """A person a public document names: their name as their page shows it,
    their ORCID iD once an editor has verified it, and the public documents
    whose text names them."""

    id = serializers.SlugField(source="slug", help_text="Their address: yang-liu.")
    url = serializers.SerializerMethodField()
    name = serializers.CharField(source="display_name", help_text="Yang Liu.")
    sort_name = serializers.CharField(help_text="Liu, Yang.")
    csl_name = AuthorSerializer(source="name", help_text="The name as a CSL name.")
    orcid = serializers.SerializerMethodField(
        help_text="0000-0002-1825-0097, once verified; else null."
    )
    orcid_url = serializers.SerializerMethodField()
    orcid_verified = serializers.SerializerMethodField()
    state = serializers.ChoiceField(
        choices=PersonState.choices,
        help_text="How far the record vouches that their positions are one "
        "person: verified (by ORCID iD), asserted (by an editor) or inferred.",
    )
    affiliation = serializers.CharField()
    homepage = serializers.CharField(help_text="An address, or empty.")
    document_count = serializers.IntegerField(help_text="Their public documents.")
    documents = serializers.SerializerMethodField(
        help_text="Their public documents' identifiers, in number order."
    )

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, person):
        return api_url("person-detail", slug=person.slug)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_orcid(self, person):
        return person.orcid if person.is_verified else None

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_orcid_url(self, person):
        return person.orcid_url if person.is_verified else None

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_orcid_verified(self, person):
        return person.is_verified

    @extend_schema_field(NAME_LIST)
    def get_documents(self, person):
        named = (str(a.document.identifier) for a in person.public_authorships)
        return list(dict.fromkeys(named))


class PersonDocumentSerializer(serializers.Serializer):
    """A position of the person in a public document's text."""

    identifier = serializers.SerializerMethodField(help_text="LIT-027.")
    url = serializers.SerializerMethodField()
    position = serializers.IntegerField(help_text="From 0, in the author list.")
    name = AuthorSerializer(help_text="As the document writes it.")

    @extend_schema_field(OpenApiTypes.STR)
    def get_identifier(self, authorship):
        return str(authorship.document.identifier)

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, authorship):
        return api_url("document-detail", identifier=authorship.document.identifier)


class PersonDetailSerializer(PersonSerializer):
    """A person with each position of theirs in a public document: the
    document's identifier and API address, and the name as written there."""

    authorships = PersonDocumentSerializer(
        source="public_authorships", many=True, help_text="In number order."
    )


class DecisionLogSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    format = serializers.CharField()
    is_own = serializers.BooleanField(help_text="The record's own log.")
    url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()
    records_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, log):
        return api_url("decision-log-detail", log=log.slug)

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, log):
        return absolute_url(log.get_absolute_url())

    @extend_schema_field(OpenApiTypes.URI)
    def get_records_url(self, log):
        return api_url("decision-record-list", log=log.slug)


def decision_kwargs(decision):
    kwargs = {"log": decision.log.slug, "identifier": decision.identifier}
    if decision.twin != 1:
        kwargs["twin"] = decision.twin
    return kwargs


class DecisionRecordSerializer(serializers.Serializer):
    identifier = serializers.SerializerMethodField(help_text="ADR-026.")
    log = serializers.SlugField(source="log.slug")
    number = serializers.IntegerField()
    twin = serializers.IntegerField(
        help_text="1, or the place of a second file of one number."
    )
    title = serializers.CharField()
    status = serializers.ChoiceField(choices=DecisionRecord.Status.choices)
    status_text = serializers.CharField()
    decided_on = serializers.DateField(allow_null=True)
    published_at = serializers.DateTimeField(allow_null=True)
    updated_at = serializers.DateTimeField()
    url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.STR)
    def get_identifier(self, decision):
        return str(decision.identifier)

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, decision):
        name = "decision-record-twin" if decision.twin != 1 else "decision-record"
        return api_url(name, **decision_kwargs(decision))

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, decision):
        return absolute_url(decision.get_absolute_url())


RELATION = inline_serializer(
    "DecisionRelation",
    fields={
        "kind": serializers.CharField(help_text="Supersedes, Superseded by, …"),
        "identifier": serializers.CharField(),
        "log": serializers.SlugField(),
    },
    many=True,
)


class DecisionCorrectionSerializer(serializers.Serializer):
    """A published correction of a decision record, as its page lists it."""

    at = serializers.DateTimeField(source="published_at")
    text = serializers.CharField(source="sentence")
    page_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_page_url(self, correction):
        page = correction.decision.get_absolute_url()
        return absolute_url(f"{page}#correction-{correction.pk}")


class DecisionRecordDetailSerializer(DecisionRecordSerializer):
    """A decision record with its Markdown body, its metadata, its relations
    to other records, read from its side, and its published corrections."""

    body = serializers.CharField(help_text="Markdown, as imported or written.")
    metadata = serializers.JSONField()
    relations = serializers.SerializerMethodField()
    corrections = serializers.SerializerMethodField()

    @extend_schema_field(DecisionCorrectionSerializer(many=True))
    def get_corrections(self, decision):
        corrections = list(decision.corrections.shown().order_by("published_at", "pk"))
        for correction in corrections:
            correction.decision = decision
        return DecisionCorrectionSerializer(corrections, many=True).data

    @extend_schema_field(RELATION)
    def get_relations(self, decision):
        return [
            {
                "kind": str(kind),
                "identifier": str(other.identifier),
                "log": other.log.slug,
            }
            for kind, other in self.context["relations"]
        ]


class RemovedSerializer(serializers.Serializer):
    """Something readers could see and no longer can, or see withdrawn."""

    kind = serializers.ChoiceField(
        choices=["document", "topic", "decision_record"],
        help_text="What it was: a document, a topic or a decision record.",
    )
    change = serializers.ChoiceField(
        choices=["withdrawn", "deleted"],
        help_text="A document is withdrawn (its address stays); a topic or a "
        "decision record is deleted.",
    )
    identifier = serializers.CharField(
        help_text="LIT-004, a topic's slug, or ADR-026 (in ``log``)."
    )
    log = serializers.CharField(
        required=False, help_text="A decision record's log, by its slug."
    )
    at = serializers.DateTimeField(help_text="When it was withdrawn or deleted.")
