"""FAIR Signposting, levels 1 and 2, as the ``signposting`` library (the
reference client of signposting.org's FAIR profile) reads it: the Link
headers of every document and version page of the seed, and each document's
link sets in both RFC 9264 formats."""

import pytest
import requests
from signposting import (
    find_signposting_http_link,
    find_signposting_linkset,
)

import actions
from catalogue.models import Authorship, Document, Person
from tests.databases import WEB_LAYER
from tests.factories import DocumentFactory, UserFactory

pytestmark = [pytest.mark.django_db, WEB_LAYER]

ORIGIN = "http://testserver"
TYPES = {"https://schema.org/ScholarlyArticle", "https://schema.org/AboutPage"}
DESCRIBED_BY = {
    "cite.bib": ("application/x-bibtex", None),
    "cite.ris": ("application/x-research-info-systems", None),
    "cite.json": (
        "application/vnd.citationstyles.csl+json",
        "https://resource.citationstyles.org/schema/v1.0/input/json/csl-data.json",
    ),
    "metadata.jsonld": ("application/ld+json", "https://schema.org"),
}


@pytest.fixture
def seed(module_seed, db):
    """The seed, one of its people's ORCID iD verified, and a pending
    revision and a draft that no header may name."""
    superuser = UserFactory(is_superuser=True, username="signposts")
    authorship = (
        Authorship.objects.filter(version__isnull=True, document__number__gt=0)
        .select_related("person", "document")
        .order_by("document__number", "position")
        .first()
    )
    verified = actions.people.edit_person(
        person=authorship.person,
        user=superuser,
        changes={"orcid": "0000-0002-1825-0097", "state": Person.State.VERIFIED},
    )
    actions.documents.edit_document(
        document=authorship.document,
        user=superuser,
        changes={"source_identifier": "ARXIV-9999.99999"},
    )
    draft = DocumentFactory(
        number=990, draft=True, source_identifier="ARXIV-8888.88888"
    )
    return verified, authorship.document, draft


class ThroughTestClient(requests.adapters.BaseAdapter):
    """requests answered by Django's test client: the library fetches link
    sets with requests."""

    def __init__(self, client):
        super().__init__()
        self.client = client

    def send(self, request, **kwargs):
        answer = self.client.get(
            request.url.removeprefix(ORIGIN), HTTP_ACCEPT=request.headers["Accept"]
        )
        response = requests.Response()
        response.status_code = answer.status_code
        response.headers.update(answer.headers)
        response._content = answer.content
        response.url = request.url
        response.request = request
        return response

    def close(self):
        pass


@pytest.fixture
def via_client(client, monkeypatch):
    session = requests.Session()
    session.mount(ORIGIN, ThroughTestClient(client))
    monkeypatch.setattr(requests, "get", session.get)


def signposts(client, path):
    response = client.head(path)
    assert response.status_code == 200, path
    return find_signposting_http_link([response["Link"]], f"{ORIGIN}{path}")


def assert_level_two(found, document, page):
    assert found.citeAs.target == f"{ORIGIN}{page}"
    assert {signpost.target for signpost in found.types} == TYPES
    described = {
        signpost.target.removeprefix(f"{ORIGIN}{document.get_absolute_url()}"): (
            signpost.type,
            next(iter(map(str, signpost.profiles)), None),
        )
        for signpost in found.describedBy
    }
    assert described == DESCRIBED_BY, page
    if document.pdf_url:
        (item,) = found.items
        assert (item.target, item.type) == (document.pdf_url, "application/pdf")
    else:
        assert not found.items
    assert {(str(s.target), s.type) for s in found.linksets} == {
        (f"{ORIGIN}{document.get_absolute_url()}linkset", "application/linkset"),
        (
            f"{ORIGIN}{document.get_absolute_url()}linkset.json",
            "application/linkset+json",
        ),
    }


def test_every_document_and_version_page_signposts(client, seed):
    verified, revised, draft = seed
    documents = list(Document.objects.public().in_number_order())
    assert len(documents) == 67

    for document in documents:
        pages = [document.get_absolute_url()] + [
            f"{document.get_absolute_url()}v{version.number}/"
            for version in document.versions.all()
        ]
        for page in pages:
            found = signposts(client, page)

            assert_level_two(found, document, page)
            authors = {str(signpost.target) for signpost in found.authors}
            assert authors == (
                {verified.orcid_url} if document == revised else set()
            ), page
            # The pending revision's identifier and the draft are nowhere.
            header = client.head(page)["Link"]
            assert "9999.99999" not in header and "8888.88888" not in header
            assert draft.identifier not in header


def test_each_documents_link_sets_say_what_its_page_does(client, seed, via_client):
    for document in Document.objects.public().in_number_order():
        page = f"{ORIGIN}{document.get_absolute_url()}"
        header = signposts(client, document.get_absolute_url())

        for name, media_type in [
            ("linkset.json", "application/linkset+json"),
            ("linkset", "application/linkset"),
        ]:
            found = find_signposting_linkset(f"{page}{name}", media_type)

            # Every signpost is about the page (its anchor), as its header's.
            assert found.for_context(page) == header, (document.identifier, name)


def test_link_sets_and_json_ld_of_a_draft_are_not_found(client, seed):
    _, _, draft = seed

    for name in ["linkset", "linkset.json", "metadata.jsonld"]:
        assert client.get(f"{draft.get_absolute_url()}{name}").status_code == 404


def test_the_json_ld_is_the_pages_own(client, seed):
    document = Document.objects.public().in_number_order().first()

    response = client.get(f"{document.get_absolute_url()}metadata.jsonld")

    assert response["Content-Type"] == "application/ld+json"
    graph = response.json()["@graph"]
    assert [node["@type"] for node in graph] == ["WebPage", "ScholarlyArticle"]
    assert graph[1]["name"] == document.title
