"""Every public page type: it opens, it says what it should, it leaks nothing."""

from xml.etree import ElementTree

import pytest
from django.urls import reverse

import actions.documents
import actions.rows
from catalogue.models import Document, DocumentVersion
from catalogue.references import write_references
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)
from tests.html import facts_of, soup_of

pytestmark = pytest.mark.django_db

XML = {
    "atom": "http://www.w3.org/2005/Atom",
    "sm": "http://www.sitemaps.org/schemas/sitemap/0.9",
}


PAGES = {
    "full index": lambda r: reverse("catalogue:index"),
    "topic": lambda r: r["topic"].get_absolute_url(),
    "unfiled": lambda r: reverse("catalogue:unfiled"),
    "registries": lambda r: reverse("catalogue:registry-list"),
    "registry": lambda r: reverse("catalogue:registry-detail", args=["LIT"]),
    "tag": lambda r: reverse("catalogue:tag-detail", args=["memory"]),
    "document": lambda r: r["cited"].get_absolute_url(),
    "decisions": lambda r: reverse("catalogue:decision-list"),
    "decision": lambda r: reverse("catalogue:decision-detail", args=["ADR-026"]),
    "search": lambda r: reverse("catalogue:search") + "?q=memory",
}
FEEDS = {
    "site feed": lambda r: reverse("catalogue:feed"),
    "topic feed": lambda r: reverse("catalogue:topic-feed", args=["distributed"]),
    "sitemap": lambda r: reverse("catalogue:sitemap"),
    "sitemap of documents": lambda r: reverse(
        "catalogue:sitemap-section", args=["documents"]
    ),
    "sitemap of tags": lambda r: reverse("catalogue:sitemap-section", args=["tags"]),
}


@pytest.mark.parametrize("page", PAGES, ids=list(PAGES))
def test_every_page_type_opens_with_a_title_and_the_search_box(
    client, public_record, page
):
    soup = soup_of(client.get(PAGES[page](public_record)))

    assert soup.title.get_text().endswith("Anthology")
    # A document's page describes itself to social cards alone: a reference
    # manager saves a description tag as the work's abstract.
    name = "twitter:description" if page == "document" else "description"
    assert soup.find("meta", attrs={"name": name})["content"]
    assert soup.select_one("form[role=search] input[name=q]") is not None
    assert len(soup.find_all("h1")) == 1


@pytest.mark.parametrize("trait", ["draft", "in_review"])
def test_unpublished_documents_appear_nowhere_public(client, public_record, trait):
    secret = DocumentFactory(
        number=9,
        topic=public_record["topic"],
        title="Secret memory plan",
        summary="Names LIT-004 and LIT-007.",
        **{trait: True},
    )
    secret.tags.add("memory", "secret-tag")
    write_references(documents=[secret])
    # A version row of a document that has gone back into review.
    DocumentVersion.snapshot(secret).save()

    for name, url in {**PAGES, **FEEDS}.items():
        response = client.get(url(public_record))
        assert response.status_code == 200, name
        content = response.content.decode()
        assert "Secret memory plan" not in content, name
        assert "LIT-009" not in content, name
        assert "secret-tag" not in content, name
    assert client.get(secret.get_absolute_url()).status_code == 404
    assert (
        client.get(reverse("catalogue:tag-detail", args=["secret-tag"])).status_code
        == 404
    )
    topic = soup_of(client.get(public_record["topic"].get_absolute_url()))
    assert topic.select_one(".counts").get_text().startswith("2 of 2 LIT documents")


def test_registry_page_lists_its_public_documents_in_number_order(
    client, public_record
):
    DocumentFactory(
        number=2,
        registry=RegistryFactory(prefix="PRA", name="Practices"),
        published=True,
    )
    DocumentFactory(number=1, draft=True)

    soup = soup_of(client.get(reverse("catalogue:registry-detail", args=["LIT"])))

    assert [td.get_text() for td in soup.select("td.label")] == ["LIT-004", "LIT-007"]
    registries = soup_of(client.get(reverse("catalogue:registry-list")))
    counts = [
        [td.get_text() for td in row.find_all("td")]
        for row in registries.select("tbody tr")
    ]
    assert [(prefix, count) for prefix, _, count in counts] == [
        ("LIT", "2"),
        ("PRA", "1"),
    ]


def test_unknown_registry_tag_topic_and_decision_are_not_found(client, public_record):
    for url in [
        reverse("catalogue:registry-detail", args=["NOPE"]),
        reverse("catalogue:tag-detail", args=["nope"]),
        reverse("catalogue:topic-detail", args=["nope"]),
        reverse("catalogue:topic-feed", args=["nope"]),
        "/decisions/ADR-999/",
        "/decisions/LIT-004/",
    ]:
        assert client.get(url).status_code == 404, url


def test_document_page_meta_tags_give_the_full_list_venue_and_date(client):
    DocumentFactory(
        number=7,
        authors="Jiang et al.",
        author_list=[
            {"family": "Jiang", "given": "Yimin"},
            {"family": "Zhu", "given": "Yibo"},
            {"literal": "ByteDance Inc., AI Lab"},
        ],
        venue="OSDI ‘20",
        publication_type="conference_paper",
        publication_date="2020-11-04",
        source_identifier="DOI:10.5555/osdi.2020.byteps",
        published=True,
    )

    soup = soup_of(client.get("/LIT-007/"))

    def meta(name):
        return [tag["content"] for tag in soup.find_all("meta", attrs={"name": name})]

    # Zotero splits at the first comma: an organisation's own are left out,
    # and its trailing comma keeps it whole, as a family name.
    assert meta("citation_author") == [
        "Jiang, Yimin",
        "Zhu, Yibo",
        "ByteDance Inc. AI Lab,",
    ]
    assert meta("citation_conference_title") == ["OSDI ‘20"]
    assert meta("citation_publication_date") == ["2020/11/04"]
    assert meta("citation_journal_title") == []


def test_tag_page_lists_documents_with_the_tag(client, public_record):
    soup = soup_of(client.get(reverse("catalogue:tag-detail", args=["memory"])))

    assert [td.get_text() for td in soup.select("td.label")] == ["LIT-007"]


def test_document_page_carries_citation_metadata(client):
    DocumentFactory(
        number=285,
        title="Coordination of groups of mobile autonomous agents",
        authors="Jadbabaie, Lin and Morse",
        year=2003,
        source_identifier="DOI:10.1109/TAC.2003.812781",
        summary="Nearest-neighbour heading averaging.",
        published=True,
    )
    DocumentFactory(
        number=4,
        authors="Chen et al.",
        source_identifier="ARXIV-1604.06174",
        published=True,
    )

    soup = soup_of(client.get("/LIT-285/"))
    arxiv = soup_of(client.get("/LIT-004/"))

    def meta(soup, name):
        return [tag["content"] for tag in soup.find_all("meta", attrs={"name": name})]

    assert meta(soup, "citation_title") == [
        "Coordination of groups of mobile autonomous agents"
    ]
    assert meta(soup, "citation_author") == ["Jadbabaie,", "Lin,", "Morse,"]
    assert meta(soup, "citation_publication_date") == ["2003"]
    assert meta(soup, "citation_doi") == ["10.1109/TAC.2003.812781"]
    assert meta(arxiv, "citation_arxiv_id") == ["1604.06174"]
    # "Chen et al." names its first author, and invents none after.
    assert meta(arxiv, "citation_author") == ["Chen,"]
    og = {
        tag["property"]: tag["content"] for tag in soup.find_all("meta", property=True)
    }
    assert (
        og["og:title"] == "LIT-285: Coordination of groups of mobile autonomous agents"
    )
    assert og["og:url"] == "http://testserver/LIT-285/"


def test_retired_document_says_so_and_links_its_successor(client):
    successor = DocumentFactory(number=10, title="The better method", published=True)
    DocumentFactory(number=4, status="superseded", superseded_by=successor)

    soup = soup_of(client.get("/LIT-004/"))

    assert soup.select_one(".notice").get_text() == (
        "Superseded by LIT-010: The better method."
    )
    assert soup.select_one(".notice a")["href"] == "/LIT-010/"


def test_decision_record_page_shows_its_status_and_what_names_it(client):
    newer = DecisionRecordFactory(number=61)
    DecisionRecordFactory(
        number=26, status="superseded", superseded_by=newer, body="Text.\n\nMore."
    )
    citing = DocumentFactory(number=7, summary="As ADR-026 decided.", published=True)
    write_references(documents=[citing])

    soup = soup_of(client.get("/decisions/ADR-026/"))

    assert facts_of(soup) == [
        ("Status", "Superseded"),
        ("Date", "Not stated"),
        ("Superseded by", f"ADR-061: {newer.title}"),
    ]
    assert [p.get_text() for p in soup.select(".body p")] == ["Text.", "More."]
    assert [a.get_text() for a in soup.select(".referenced-by a")] == ["LIT-007"]


def test_feeds_list_published_versions_newest_first(client, public_record):
    publisher = UserFactory(publisher=True)
    document = public_record["cited"]
    actions.documents.edit_document(
        document=document, user=publisher, changes={"summary": "A revised summary."}
    )
    actions.documents.publish(document=document, user=publisher, note="Revised.")

    feed = ElementTree.fromstring(client.get(reverse("catalogue:feed")).content)
    topic_feed = ElementTree.fromstring(
        client.get(reverse("catalogue:topic-feed", args=["distributed"])).content
    )

    titles = [title.text for title in feed.iterfind("atom:entry/atom:title", XML)]
    assert titles[0] == "LIT-004 v2: Sublinear memory"
    assert len(titles) == 3
    assert [
        title.text for title in topic_feed.iterfind("atom:entry/atom:title", XML)
    ] == titles


def test_sitemap_lists_public_pages(client, public_record):
    sitemap = ElementTree.fromstring(
        client.get(reverse("catalogue:sitemap-section", args=["documents"])).content
    )

    assert [loc.text for loc in sitemap.iterfind("sm:url/sm:loc", XML)] == [
        "http://testserver/LIT-004/",
        "http://testserver/LIT-007/",
    ]


def test_a_topic_shows_up_to_a_thousand_rows_on_one_page(client):
    topic = TopicFactory()
    registry = RegistryFactory()
    Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registry,
            topic=topic,
            number=number,
            status=Document.Status.ACTIVE,
        )
        for number in range(1, 1002)
    )
    # The rows and counts the actions would have stored, written in bulk above.
    actions.rows.rebuild()

    first = soup_of(client.get(topic.get_absolute_url()))
    second = soup_of(client.get(topic.get_absolute_url() + "?page=2"))

    assert len(first.select("td.label")) == 1000
    assert first.select_one("a[rel=next]")["href"] == "?page=2"
    assert [td.get_text() for td in second.select("td.label")] == ["LIT-1001"]
    assert client.get(topic.get_absolute_url() + "?page=abc").status_code == 404


@pytest.mark.parametrize(
    "query", ["year_from=abc", "year_to=99999999999", "status=draft", "tag=nope"]
)
def test_malformed_filters_on_lists_are_client_errors(client, public_record, query):
    response = client.get(f"{public_record['topic'].get_absolute_url()}?{query}")

    assert response.status_code == 400


def test_topic_page_filters_by_year_and_shows_the_match_count(client, public_record):
    public_record["cited"].year = 2016
    public_record["cited"].save()
    public_record["citing"].year = 2023
    public_record["citing"].save()

    soup = soup_of(
        client.get(public_record["topic"].get_absolute_url() + "?year_from=2020")
    )

    assert [td.get_text() for td in soup.select("td.label")] == ["LIT-007"]
    assert soup.select_one(".filters summary").get_text() == "Filter (1 match)"


def test_decision_record_body_is_markdown_rendered_safely_with_links(client):
    DocumentFactory(number=325, published=True)
    DecisionRecordFactory(
        number=32,
        body=(
            "## Context\n\nWe follow LIT-325, not [LIT-325](https://example.org).\n\n"
            '<script>alert("x")</script> <img src=x onerror=alert(1)>'
        ),
    )

    soup = soup_of(client.get("/decisions/ADR-032/"))
    body = soup.select_one(".body")

    assert body.h2.get_text() == "Context"
    assert [(a.get_text(), a["href"]) for a in body.find_all("a")] == [
        ("LIT-325", "/LIT-325/"),
        ("LIT-325", "https://example.org"),
    ]
    assert body.find("script") is None
    assert body.find("img") is None
    assert '<script>alert("x")</script>' in body.get_text()
