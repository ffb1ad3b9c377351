"""The public pages: what they show, what they never show, what they cost."""

import pytest
from django.urls import reverse

from catalogue.models import Preface
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db


def test_full_index_lists_topics_in_editorial_order_with_counts(client):
    later = TopicFactory(name="Evaluation", position=2)
    first = TopicFactory(name="Architectures", position=1)
    DocumentFactory.create_batch(2, topic=later, published=True)
    DocumentFactory(topic=first, registry=RegistryFactory(prefix="PRA"), published=True)
    DocumentFactory(topic=first, draft=True)
    DocumentFactory.create_batch(3, unfiled=True, published=True)

    soup = soup_of(client.get(reverse("catalogue:index")))

    rows = [
        [cell.get_text() for cell in row.find_all("td")]
        for row in soup.select("table.topics tbody tr, table.topics tfoot tr")
    ]
    assert [(name, count) for name, _, count in rows] == [
        ("Architectures", "1 PRA"),
        ("Evaluation", "2 LIT"),
        ("Unfiled", "3 LIT"),
    ]


def test_topic_page_counts_its_documents_of_all_public_ones(client):
    topic = TopicFactory()
    DocumentFactory.create_batch(2, topic=topic, published=True)
    DocumentFactory(topic=TopicFactory(), published=True)
    DocumentFactory(unfiled=True, published=True)
    DocumentFactory(topic=topic, in_review=True)

    soup = soup_of(client.get(topic.get_absolute_url()))

    assert soup.select_one(".counts").get_text() == (
        "2 of 4 LIT documents. Back to the full index."
    )


def test_topic_page_lists_rows_in_number_order_with_versions(client):
    topic = TopicFactory()
    DocumentFactory(topic=topic, number=16, version=2, published=True)
    DocumentFactory(topic=topic, number=4, version=1, published=True)
    DocumentFactory(topic=topic, number=1000, version=3, published=True)

    soup = soup_of(client.get(topic.get_absolute_url()))

    labels = [cell.get_text() for cell in soup.select("td.label")]
    assert labels == ["LIT-004", "LIT-016 v2", "LIT-1000 v3"]


def test_document_page_shows_citation_summary_status_and_topic(client):
    document = DocumentFactory(
        sublinear_memory=True, summary="Gradient checkpointing.", published=True
    )
    document.tags.add("memory")

    soup = soup_of(client.get("/LIT-004/"))

    assert soup.select_one(".label").get_text() == "LIT-004 v4"
    assert soup.h1.get_text() == "Training Deep Nets with Sublinear Memory Cost"
    # The identifier as arXiv writes it, linking to arXiv's page.
    assert soup.select_one(".citation").get_text() == (
        "Chen et al. (2016), arXiv:1604.06174."
    )
    assert soup.select_one(".citation a")["href"] == "https://arxiv.org/abs/1604.06174"
    assert soup.select_one(".summary").get_text() == "Gradient checkpointing."
    facts = [dd.get_text() for dd in soup.select(".facts dd")]
    # The citation names Chen alone, whose page the name links to.
    assert facts == [
        "Chen et al.",
        "Active",
        document.topic.name,
        "memory",
        "Reading list",
    ]
    assert soup.select_one(".facts dd a")["href"] == "/people/chen/"


def test_document_page_of_a_venue_citation_has_no_link(client):
    DocumentFactory(
        number=51,
        authors="Jiang et al.",
        year=2020,
        source_identifier="",
        citation_note="OSDI ‘20",
        published=True,
    )

    soup = soup_of(client.get("/LIT-051/"))

    assert soup.select_one(".citation").get_text() == "Jiang et al. (2020), OSDI ‘20."
    assert soup.select_one(".citation a") is None


def test_unpadded_identifier_redirects_to_the_permanent_one(client):
    DocumentFactory(number=4, published=True)

    response = client.get("/LIT-0004/")

    assert response.status_code == 301
    assert response["Location"] == "/LIT-004/"


@pytest.mark.parametrize(
    "path", ["/LIT-999/", "/LIT-99999999999999999999/", "/lit-004/", "/LIT-4/"]
)
def test_unknown_or_malformed_identifiers_are_not_found(client, path):
    DocumentFactory(number=4, published=True)

    assert client.get(path).status_code == 404


@pytest.mark.parametrize("trait", ["draft", "in_review"])
def test_unpublished_documents_appear_on_no_public_page(client, trait):
    topic = TopicFactory()
    DocumentFactory(topic=topic, title="Published work", published=True)
    hidden = DocumentFactory(topic=topic, title="Secret draft", **{trait: True})
    DocumentFactory(unfiled=True, title="Unfiled draft", **{trait: True})
    pages = [
        reverse("catalogue:index"),
        topic.get_absolute_url(),
        reverse("catalogue:unfiled"),
    ]

    for path in pages:
        content = client.get(path).content.decode()
        assert "Secret draft" not in content
        assert "Unfiled draft" not in content
    assert "2 LIT" not in client.get(reverse("catalogue:index")).content.decode()
    assert client.get(hidden.get_absolute_url()).status_code == 404


def test_unfiled_page_lists_public_unfiled_documents(client):
    DocumentFactory(unfiled=True, number=9, published=True)
    DocumentFactory(unfiled=True, number=3, published=True)
    DocumentFactory(number=5, published=True)

    soup = soup_of(client.get(reverse("catalogue:unfiled")))

    assert [cell.get_text() for cell in soup.select("td.label")] == [
        "LIT-003",
        "LIT-009",
    ]
    assert soup.select_one(".counts").get_text() == (
        "2 of 3 LIT documents. Back to the full index."
    )


def test_topic_page_shows_the_preface(client):
    Preface.objects.create(heading="Topics", text="The kinds of claim (ADR-026).")
    topic = TopicFactory()

    soup = soup_of(client.get(topic.get_absolute_url()))

    assert soup.select_one(".preface").get_text() == (
        "Topics — The kinds of claim (ADR-026)."
    )


@pytest.mark.parametrize("documents", [5, 60])
def test_list_pages_cost_the_same_queries_whatever_their_size(
    client, django_assert_num_queries, documents
):
    topic = TopicFactory(slug="busy")
    first, *_ = DocumentFactory.create_batch(documents, topic=topic, published=True)
    DocumentFactory.create_batch(documents, unfiled=True, published=True)
    TopicFactory.create_batch(3)

    # Topics, documents per topic, preface.
    with django_assert_num_queries(3):
        soup_of(client.get(reverse("catalogue:index")))
    # Topic, row count, rows, preface, counts, registry and tag choices, and
    # the documents per year of its chart.
    with django_assert_num_queries(8):
        soup_of(client.get(topic.get_absolute_url()))
    # Row count, rows, counts, registry and tag choices.
    with django_assert_num_queries(5):
        soup_of(client.get(reverse("catalogue:unfiled")))
    # Document with registry and topic, its tags, the documents it supersedes,
    # its author positions with their people, its versions, documents and
    # decision records that name it, its related work, its corrections.
    path = first.get_absolute_url()
    with django_assert_num_queries(9):
        soup_of(client.get(path))


def test_topic_table_links_titles_and_flags_only_unusual_statuses(client):
    topic = TopicFactory()
    DocumentFactory(topic=topic, number=1, title="Active work", published=True)
    DocumentFactory(topic=topic, number=2, title="Retired work", withdrawn=True)

    soup = soup_of(client.get(topic.get_absolute_url()))

    titles = [(a.get_text(), a["href"]) for a in soup.select("td.title a")]
    assert titles == [("Active work", "/LIT-001/"), ("Retired work", "/LIT-002/")]
    assert [cell.get_text() for cell in soup.select("td.status")] == [
        "Active",
        "Withdrawn",
    ]
    assert [flag.get_text() for flag in soup.select("td .status-flag")] == ["Withdrawn"]
    assert soup.select("tr.status-withdrawn td.label a")[0].get_text() == "LIT-002"


def test_filtered_topic_page_counts_what_it_shows_and_cites_only_that(client):
    topic = TopicFactory(slug="busy")
    DocumentFactory(topic=topic, number=1, year=2016, published=True)
    DocumentFactory(topic=topic, number=2, year=2021, published=True)
    DocumentFactory(topic=topic, number=3, year=2022, withdrawn=True)

    soup = soup_of(client.get("/topics/busy/?year_from=2020&page=1"))
    bib = soup.select_one(".cite-links a")["href"]
    entries = client.get(bib).content.decode()

    assert soup.select_one(".counts").get_text() == (
        "3 of 3 LIT documents. 2 of 3 shown, as filtered. Back to the full index."
    )
    assert bib == "/topics/busy/cite.bib?year_from=2020"
    assert [line for line in entries.splitlines() if line.startswith("@")] == [
        "@misc{LIT-002,"
    ]


def test_topic_download_keeps_withdrawn_documents_when_the_filter_asks(client):
    topic = TopicFactory(slug="busy")
    DocumentFactory(topic=topic, number=1, published=True)
    DocumentFactory(topic=topic, number=3, withdrawn=True)

    response = client.get("/topics/busy/cite.bib?status=withdrawn")

    assert [
        line for line in response.content.decode().splitlines() if line[:1] == "@"
    ] == ["@misc{LIT-003,"]
    assert client.get("/topics/busy/cite.bib?year_from=abc").status_code == 400


def test_cite_and_feed_links_come_before_the_table(client):
    topic = TopicFactory()
    DocumentFactory(topic=topic, published=True)

    html = client.get(topic.get_absolute_url()).content.decode()

    assert html.index('class="cite-links"') < html.index('class="documents"')
    assert html.index('class="feed-link"') < html.index('class="documents"')


def test_registry_and_tag_pages_show_each_documents_topic(client):
    topic = TopicFactory(name="Evaluation", slug="evaluation")
    DocumentFactory(number=1, topic=topic, published=True).tags.add("memory")
    DocumentFactory(number=2, unfiled=True, published=True).tags.add("memory")

    for path in ["/registries/LIT/", "/tags/memory/"]:
        soup = soup_of(client.get(path))
        headers = [
            th.get_text() for th in soup.select("table.documents th:not(:has(a))")
        ]
        sorting = [a.get_text() for a in soup.select("table.documents th a")]
        topics = [(a.get_text(), a["href"]) for a in soup.select("td.topic a")]
        assert headers == ["Topic", "Status"], path
        assert sorting == ["#Number▲", "Title", "Year"], path
        assert topics == [
            ("Evaluation", "/topics/evaluation/"),
            ("Unfiled", "/unfiled/"),
        ], path


def test_tag_index_lists_public_tags_with_their_counts(client):
    DocumentFactory.create_batch(2, published=True)[0].tags.add("memory", "scaling")
    DocumentFactory(published=True).tags.add("memory")
    DocumentFactory(draft=True).tags.add("memory", "secret")

    soup = soup_of(client.get(reverse("catalogue:tag-list")))

    rows = [[td.get_text() for td in tr.select("td")] for tr in soup.select("tbody tr")]
    assert rows == [["memory", "2"], ["scaling", "1"]]
    assert soup.select_one("tbody a")["href"] == "/tags/memory/"


def test_document_page_links_the_pdf_and_shows_the_citation_to_copy(client):
    DocumentFactory(
        sublinear_memory=True, summary="Gradient checkpointing.", published=True
    )

    soup = soup_of(client.get("/LIT-004/"))

    assert soup.select_one(".source-links a.button")["href"] == (
        "https://arxiv.org/pdf/1604.06174"
    )
    assert soup.select_one("#cite-reference").get_text() == (
        "Chen et al. (2016). Training Deep Nets with Sublinear Memory Cost. "
        "arXiv:1604.06174."
    )
    bibtex = soup.select_one("#cite-bibtex").get_text()
    assert bibtex == client.get("/LIT-004/cite.bib").content.decode()
    assert "annote = {Anthology summary (LIT-004 v4): Gradient" in bibtex
    assert "abstract" not in bibtex


def test_document_page_of_a_doi_links_the_resolver_and_offers_no_pdf(client):
    DocumentFactory(
        number=9, source_identifier="DOI:10.1109/TAC.2003.812781", published=True
    )

    soup = soup_of(client.get("/LIT-009/"))

    assert [a["href"] for a in soup.select(".source-links a")] == [
        "https://doi.org/10.1109/TAC.2003.812781"
    ]
