"""Which documents are records, in which sets, and in what order a list
walks them: the queries of the endpoint, a fixed number a page."""

from dataclasses import dataclass

from django.conf import settings
from django.db.models import F, Q
from taggit.models import TaggedItem

from catalogue.addresses import absolute_url
from catalogue.citations import doi_url
from catalogue.identifiers import Identifier, identifier_path
from catalogue.models import Authorship, Document, PersonState, Registry, Topic
from catalogue.orcid import orcid_url
from oai.protocol import OAIError

# Records a list page holds: a harvest of any size is walked in pages of this
# many, so an answer's memory and queries do not grow with the record.
PAGE_SIZE = 100

REGISTRY_SETS = "registry"
TOPIC_SETS = "topic"


def oai_identifier(identifier):
    """``oai:anthology.example.org:LIT-004``, the record of LIT-004: under the
    repository identifier the operator set, so a record keeps its name when
    the site's address changes."""
    return f"oai:{settings.OAI_REPOSITORY_IDENTIFIER}:{identifier}"


def read_oai_identifier(text):
    """The document identifier an OAI identifier names; OAIError
    (idDoesNotExist) for one this repository never issues."""
    head = f"oai:{settings.OAI_REPOSITORY_IDENTIFIER}:"
    try:
        if not text.startswith(head):
            raise ValueError(text)
        return Identifier.parse(text.removeprefix(head))
    except ValueError:
        raise OAIError(
            "idDoesNotExist",
            f"{text!r} is not the identifier of a record here; they read "
            f"{head}LIT-004.",
        ) from None


def records():
    """Every record: the public documents, a withdrawn one as a deleted
    record (the protocol's "persistent" deletion)."""
    return Document.objects.public()


def earliest():
    """The record changed longest ago (its registry with it), or None."""
    return records().select_related("registry").order_by("updated_at", "pk").first()


def find(identifier, *, orcids=False):
    """The public document of ``identifier`` with what its record shows (its
    authors' verified ORCID iDs too, with ``orcids``), or
    OAIError(idDoesNotExist): a draft has no record, as it has no page."""
    document = (
        _with_facts(records())
        .filter(registry__prefix=identifier.prefix, number=identifier.number)
        .first()
    )
    if document is None:
        raise OAIError(
            "idDoesNotExist", f"{oai_identifier(identifier)} is no record here."
        )
    _attach_tags([document])
    if orcids:
        _attach_orcids([document])
    return document


def in_set(documents, spec):
    """The documents of the set ``spec``: ``registry:LIT``, ``topic:memory``,
    or ``registry`` and ``topic``, the sets above them (every document, and
    every filed one). A set there is not selects nothing."""
    kind, _, name = spec.partition(":")
    if kind == REGISTRY_SETS:
        return documents.filter(registry__prefix=name) if name else documents
    if kind == TOPIC_SETS and ":" not in name:
        if name:
            return documents.filter(topic__slug=name)
        return documents.filter(topic__isnull=False)
    return documents.none()


def selected(bounds, spec):
    """The records a list's ``from``, ``until`` and ``set`` select."""
    documents = records()
    if bounds.start is not None:
        documents = documents.filter(updated_at__gte=bounds.start)
    if bounds.end is not None:
        documents = documents.filter(updated_at__lt=bounds.end)
    if spec is not None:
        documents = in_set(documents, spec)
    return documents


def page(documents, after=None, *, metadata=True, orcids=False):
    """The next page of ``documents`` in (datestamp, id) order after the key
    ``after``, with one more record than a page holds when more follow. One
    query, one more for the tags when the records carry ``metadata``, and one
    for the authors' verified ORCID iDs with ``orcids``."""
    if after is not None:
        at, pk = after
        documents = documents.filter(Q(updated_at__gt=at) | Q(updated_at=at, pk__gt=pk))
    documents = documents.order_by("updated_at", "pk")
    if not metadata:
        documents = documents.select_related("registry").annotate(
            topic_slug=F("topic__slug")
        )
        return list(documents[: PAGE_SIZE + 1])
    found = list(_with_facts(documents)[: PAGE_SIZE + 1])
    _attach_tags(found)
    if orcids:
        _attach_orcids(found)
    return found


def _with_facts(documents):
    return documents.select_related("registry", "topic").annotate(
        successor_prefix=F("superseded_by__registry__prefix"),
        successor_number=F("superseded_by__number"),
    )


def _attach_tags(documents):
    """Each document's tag names as ``tag_names``, sorted, in one query for all
    (the tag manager's prefetch builds a queryset per document)."""
    names = {document.pk: [] for document in documents}
    items = TaggedItem.objects.filter(
        content_type__app_label="catalogue",
        content_type__model="document",
        object_id__in=list(names),
    ).values_list("object_id", "tag__name")
    for pk, name in items.order_by("tag__name"):
        names[pk].append(name)
    for document in documents:
        document.tag_names = names[document.pk]


def _attach_orcids(documents):
    """Each document's ORCID iDs by author position, as addresses, as
    ``orcids``: those of the people its text names whom the record has
    verified, in one query for all. A position linked to anyone else has
    none: an iD is only given once an editor confirmed it."""
    orcids = {document.pk: {} for document in documents}
    rows = (
        Authorship.objects.filter(
            document__in=list(orcids),
            version__isnull=True,
            person__state=PersonState.VERIFIED,
        )
        .exclude(person__orcid="")
        .values_list("document_id", "position", "person__orcid")
    )
    for pk, position, orcid in rows:
        orcids[pk][position] = orcid_url(orcid)
    for document in documents:
        document.orcids = orcids[document.pk]


def set_specs(document):
    """The sets a record is in, most specific only (the protocol counts it
    in the sets above them too)."""
    specs = [f"{REGISTRY_SETS}:{document.registry.prefix}"]
    slug = getattr(document, "topic_slug", None) or (
        document.topic.slug if document.topic_id else None
    )
    if slug:
        specs.append(f"{TOPIC_SETS}:{slug}")
    return specs


def is_deleted(document):
    """A withdrawn document is a deleted record: its header alone."""
    return document.status == Document.Status.WITHDRAWN


@dataclass(frozen=True)
class Facts:
    """What a record's metadata shows beside the document's own fields."""

    label: str
    page_url: str
    subjects: list
    work_urls: list
    successor_url: str
    # The ORCID iD addresses of the authors the record has verified, by
    # position in the author list; none unless the format writes them.
    orcids: dict


def facts(document, page_path):
    """The Facts of ``document`` (from ``page`` or ``find``); ``page_path`` is
    ``identifier_path("catalogue:document-detail")``, made once a page."""
    subjects = [document.topic.name] if document.topic_id else []
    subjects += document.tag_names
    work_urls = [document.source_url]
    if document.doi:
        work_urls.append(doi_url(document.doi))
    successor = ""
    if document.successor_prefix:
        successor = absolute_url(
            page_path(Identifier(document.successor_prefix, document.successor_number))
        )
    return Facts(
        label=document.label,
        page_url=absolute_url(page_path(document.identifier)),
        subjects=subjects,
        work_urls=list(dict.fromkeys(url for url in work_urls if url)),
        successor_url=successor,
        orcids=getattr(document, "orcids", {}),
    )


def document_page_path():
    return identifier_path("catalogue:document-detail")


def sets():
    """``[(spec, name, description)]``: the registries holding a public
    document, the topics, and the two sets above them."""
    rows = [(REGISTRY_SETS, "Registries", "Every document, by its registry.")]
    for registry in Registry.objects.public().order_by("prefix"):
        rows.append((f"{REGISTRY_SETS}:{registry.prefix}", registry.name, ""))
    rows.append((TOPIC_SETS, "Topics", "Every document filed under a topic."))
    for topic in Topic.objects.order_by("position"):
        rows.append((f"{TOPIC_SETS}:{topic.slug}", topic.name, topic.scope))
    return rows
