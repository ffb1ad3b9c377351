"""Citations name the authors as each document writes them: renaming a
person or merging two changes no BibTeX, RIS or CSL-JSON entry and no
``citation_author`` tag, which keep the document's author list (or its
citation's names), never the person's name."""

import json

import pytest
from django.core.cache import cache

import actions.people
from catalogue.models import Person
from tests.factories import DocumentFactory, TopicFactory, factory_publisher
from tests.html import soup_of

pytestmark = pytest.mark.django_db

DOWNLOADS = [
    *(f"/LIT-009/cite.{fmt}" for fmt in ("bib", "ris", "json")),
    *(f"/LIT-010/cite.{fmt}" for fmt in ("bib", "ris", "json")),
    "/topics/distributed/cite.json",
]
PAGES = ["/LIT-009/", "/LIT-010/"]


@pytest.fixture
def spelled_two_ways():
    """LIT-009 by "Tianqi Chén" and "C. Guestrin", LIT-010 by "Chen et al."
    (Carlos Guestrin's full list): one topic, so the record links Chén and
    Chen as one person and proposes that C. Guestrin is Carlos."""
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    DocumentFactory(
        number=9,
        topic=topic,
        authors="Chén and Guestrin",
        author_list=[
            {"family": "Chén", "given": "Tianqi"},
            {"family": "Guestrin", "given": "C."},
        ],
        published=True,
    )
    DocumentFactory(
        number=10,
        topic=topic,
        authors="Chen et al.",
        author_list=[
            {"family": "Chen", "given": "Tianqi"},
            {"family": "Xu", "given": "Bing"},
            {"family": "Guestrin", "given": "Carlos"},
        ],
        published=True,
    )


def citation_authors(client, path):
    soup = soup_of(client.get(path))
    return [
        tag["content"]
        for tag in soup.find_all("meta", attrs={"name": "citation_author"})
    ]


def test_a_renamed_and_merged_person_is_cited_as_each_document_writes_them(
    client, spelled_two_ways, committed
):
    before = {path: client.get(path).content for path in DOWNLOADS}
    tags = {path: citation_authors(client, path) for path in PAGES}
    chen = Person.objects.get(slug="tianqi-chen")
    assert set(chen.authorships.values_list("document__number", flat=True)) == {9, 10}

    with committed():
        actions.people.edit_person(
            person=chen,
            user=factory_publisher(),
            changes={
                "name": {"family": "Chen", "given": "T. Q."},
                "slug": "tq-chen",
                "orcid": "0000-0002-1825-0097",
                "state": "verified",
            },
        )
        actions.people.merge_people(
            source=Person.objects.get(slug="c-guestrin"),
            target=Person.objects.get(slug="carlos-guestrin"),
            user=factory_publisher(),
        )

    assert Person.objects.get(slug="carlos-guestrin").authorships.count() == 4
    # Rendered afresh, not served from the page cache.
    cache.clear()
    assert {path: client.get(path).content for path in DOWNLOADS} == before
    assert {path: citation_authors(client, path) for path in PAGES} == tags
    assert tags["/LIT-009/"] == ["Chén, Tianqi", "Guestrin, C."]
    assert tags["/LIT-010/"] == ["Chen, Tianqi", "Xu, Bing", "Guestrin, Carlos"]
    assert "author = {{Ch{\\'{e}}n}, {Tianqi} and {Guestrin}, {C.}}" in (
        before["/LIT-009/cite.bib"].decode()
    )
    assert "AU  - Guestrin, C.\r\n" in before["/LIT-009/cite.ris"].decode()
    assert json.loads(before["/LIT-009/cite.json"])[0]["author"] == [
        {"family": "Chén", "given": "Tianqi"},
        {"family": "Guestrin", "given": "C."},
    ]
    assert b"T. Q." not in b"".join(before.values())
