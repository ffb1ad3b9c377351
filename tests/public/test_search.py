"""One search box: identifiers jump, words match, results rank and highlight."""

import pytest
from bs4 import BeautifulSoup
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import F
from django.urls import reverse

from catalogue.models import Document
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
)

pytestmark = pytest.mark.django_db

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the search_vector columns and their index are PostgreSQL's",
)


def search(client, **params):
    response = client.get(reverse("catalogue:search"), params)
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def document_labels(soup):
    return [a.get_text().split(":")[0] for a in soup.select(".result-title a")]


@pytest.mark.parametrize(
    ("query", "location"),
    [
        ("LIT-325", "/LIT-325/"),
        ("lit-325", "/LIT-325/"),
        ("lit 325", "/LIT-325/"),
        ("  LIT-0325 ", "/LIT-325/"),
        ("LIT-325 v2", "/LIT-325/"),
        ("ADR-59", "/decisions/ADR-059/"),
        ("adr 059", "/decisions/ADR-059/"),
    ],
)
def test_typing_an_identifier_goes_straight_to_the_record(client, query, location):
    DocumentFactory(number=325, published=True)
    DecisionRecordFactory(number=59)

    response = client.get(reverse("catalogue:search"), {"q": query})

    assert response.status_code == 302
    assert response["Location"] == location


def test_an_identifier_of_a_draft_is_searched_as_words(client):
    DocumentFactory(number=325, draft=True, title="LIT-325 secret")

    soup = search(client, q="LIT-325")

    assert document_labels(soup) == []


def test_documents_decision_records_and_topics_are_searched_together(client):
    TopicFactory(name="Distributed optimization", scope="sharding and checkpointing")
    DecisionRecordFactory(title="Checkpointing policy", body="We checkpoint hourly.")
    DocumentFactory(
        number=4,
        title="Sublinear memory",
        summary="Gradient checkpointing.",
        published=True,
    )
    DocumentFactory(
        number=5, title="Unrelated", summary="Nothing to see.", published=True
    )

    soup = search(client, q="checkpointing")

    assert [a.get_text() for a in soup.select("#topic-results ~ ul a")] == [
        "Distributed optimization"
    ]
    assert (
        "Checkpointing policy" in soup.select_one("#decision-results").parent.get_text()
    )
    assert document_labels(soup) == ["LIT-004"]


def test_each_record_appears_once_whatever_matches_it(client):
    document = DocumentFactory(
        title="Checkpointing",
        authors="Checkpointing Group",
        summary="Checkpointing.",
        published=True,
    )
    document.tags.add("checkpointing", "memory")

    soup = search(client, q="checkpointing")

    assert document_labels(soup) == [document.identifier]


def test_exclusion_and_alternatives(client):
    DocumentFactory(
        number=1, title="DiLoCo", summary="Rare synchronisation.", published=True
    )
    DocumentFactory(
        number=2, title="Streaming DiLoCo", summary="Overlapping.", published=True
    )
    DocumentFactory(
        number=3, title="ZeRO", summary="Sharded optimizer state.", published=True
    )

    assert document_labels(search(client, q="diloco -streaming")) == ["LIT-001"]
    assert sorted(document_labels(search(client, q="zero or streaming"))) == [
        "LIT-002",
        "LIT-003",
    ]


def test_a_phrase_matches_its_words_in_order(client):
    DocumentFactory(
        number=1, title="T", summary="Deep gradient compression works.", published=True
    )
    DocumentFactory(
        number=2, title="T", summary="Compression of the gradient.", published=True
    )

    assert document_labels(search(client, q='"gradient compression"')) == ["LIT-001"]


def test_matching_passage_is_highlighted_and_escaped(client):
    DocumentFactory(
        summary="<script>x()</script> Gradient checkpointing saves memory.",
        published=True,
    )

    soup = search(client, q="checkpointing")

    passage = soup.select_one(".passage")
    assert [mark.get_text().lower() for mark in passage.find_all("mark")] == [
        "checkpointing"
    ]
    assert passage.find("script") is None
    assert "<script>x()</script>" in passage.get_text()


def test_results_are_ranked_by_relevance(client):
    DocumentFactory(
        number=1, title="A survey", summary="Mentions sharding once.", published=True
    )
    DocumentFactory(
        number=2,
        title="Sharding everything",
        summary="Sharding, sharding, sharding.",
        published=True,
    )

    assert document_labels(search(client, q="sharding")) == ["LIT-002", "LIT-001"]


def test_words_match_their_stems(client):
    DocumentFactory(
        number=1, summary="The optimizer checkpoints its state.", published=True
    )
    DocumentFactory(
        number=2, title="T", summary="One pipeline stage per device.", published=True
    )

    assert document_labels(search(client, q="checkpointing")) == ["LIT-001"]
    assert document_labels(search(client, q="pipelines")) == ["LIT-002"]
    assert document_labels(search(client, q="pipeline")) == ["LIT-002"]


def test_a_title_match_ranks_above_a_summary_match(client):
    DocumentFactory(
        number=1, title="A survey", summary="Touches on sharding.", published=True
    )
    DocumentFactory(
        number=2, title="Sharding at scale", summary="A long study.", published=True
    )

    assert document_labels(search(client, q="sharding")) == ["LIT-002", "LIT-001"]


def test_title_matches_are_highlighted_and_escaped(client):
    DocumentFactory(
        number=1, title="<b>Pipeline</b> parallelism", summary="Stages.", published=True
    )

    title = search(client, q="pipeline").select_one(".result-title a")

    assert [mark.get_text() for mark in title.find_all("mark")] == ["Pipeline"]
    assert title.find("b") is None
    assert title.get_text() == "LIT-001: <b>Pipeline</b> parallelism"


def test_a_passage_starts_and_ends_on_word_boundaries(client):
    words = [f"filler{n}" for n in range(200)]
    words[100] = "checkpointing"
    DocumentFactory(title="T", summary=" ".join(words) + ".", published=True)

    passage = search(client, q="checkpointing").select_one(".passage").get_text()

    assert passage.startswith("…") and passage.endswith("…")
    shown = passage.strip("…").split()
    assert set(shown) <= set(words)
    assert "checkpointing" in shown


@pytest.mark.parametrize(
    ("query", "notice"),
    [
        ("ADR-026", "No published decision record is numbered ADR-026."),
        ("LIT-999", "No published document is numbered LIT-999."),
        (
            "XYZ-12",
            "The record holds no XYZ documents: its identifiers are LIT-…, ADR-….",
        ),
    ],
)
def test_an_identifier_the_record_does_not_hold_says_so(client, query, notice):
    DocumentFactory(number=1, published=True)

    soup = search(client, q=query)

    assert soup.select_one(".notice").get_text() == notice


def test_the_search_page_has_one_search_box(client):
    DocumentFactory(published=True)

    soup = search(client, q="anything")

    assert len(soup.select("input[type=search]")) == 1
    assert "simple matching" not in soup.get_text()


@pytest.mark.parametrize(
    "query", ["-" * 40, "- " * 40, "a " + "-" * 40 + " b", '""', "--a", "or or", "—"]
)
def test_queries_of_operators_alone_answer_a_page(client, query):
    DocumentFactory(title="a b", published=True)

    assert client.get(reverse("catalogue:search"), {"q": query}).status_code == 200


@postgresql_only
def test_the_search_vector_is_stored_and_indexed_once(client):
    """Each document's vector is stored with it, and the public ones' are
    indexed in document_search alone: every write updates one index of it."""
    indexed = "SELECT indexdef FROM pg_indexes WHERE tablename = %s"
    with connection.cursor() as cursor:
        cursor.execute(indexed, ["catalogue_document"])
        document_indexes = [row[0] for row in cursor.fetchall()]
        cursor.execute(indexed, ["document_search"])
        search_indexes = [row[0] for row in cursor.fetchall()]
    DocumentFactory(number=1, title="Sharding", published=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM catalogue_document")
        [(vector,)] = cursor.fetchall()

    assert not any("search_vector" in index for index in document_indexes)
    assert any("USING gin (search_vector)" in index for index in search_indexes)
    assert "'shard'" in vector
    assert document_labels(search(client, q="LIT-001 sharding")) == ["LIT-001"]


@pytest.mark.parametrize("trait", ["draft", "in_review"])
def test_unpublished_documents_are_never_found(client, trait):
    DocumentFactory(title="Secret sharding plan", **{trait: True})

    assert document_labels(search(client, q="sharding")) == []
    assert document_labels(search(client, q="secret")) == []


def test_filters_narrow_results_and_stay_in_the_url(client):
    topic = TopicFactory(slug="optimisation")
    DocumentFactory(
        number=1, year=2016, topic=topic, summary="Sharding.", published=True
    )
    DocumentFactory(
        number=2, year=2023, topic=topic, summary="Sharding.", published=True
    )
    DocumentFactory(number=3, year=2023, summary="Sharding.", published=True)

    soup = search(client, q="sharding", topic="optimisation", year_from="2020")

    assert document_labels(soup) == ["LIT-002"]
    assert soup.select_one("#document-results").get_text() == "Documents (1)"
    assert soup.select_one("input[name=year_from]")["value"] == "2020"


def test_filters_alone_list_matching_documents(client):
    DocumentFactory(number=1, year=2016, published=True)
    DocumentFactory(number=2, year=2023, published=True)

    assert document_labels(search(client, year_to="2020")) == ["LIT-001"]


def test_results_are_paginated(client):
    for number in range(1, 56):
        DocumentFactory(number=number, title="Sharding", published=True)

    first = search(client, q="sharding")
    second = search(client, q="sharding", page="2")

    assert len(document_labels(first)) == 50
    assert len(document_labels(second)) == 5
    assert first.select_one("a[rel=next]")["href"] == "?q=sharding&page=2"


def ranked_labels(word):
    """Every public document matching ``word``, best first, as one ranked
    query of all the matches reads them (ties in registry and number order)."""
    documents = Document.objects.public().select_related("registry")
    if connection.vendor == "postgresql":
        query = SearchQuery(word, search_type="websearch", config="english")
        ranked = (
            documents.filter(search_vector=query)
            .annotate(rank=SearchRank(F("search_vector"), query))
            .order_by("-rank", "registry__prefix", "number")
        )
    else:
        ranked = documents.extra(
            tables=["document_fts"],
            where=[
                "document_fts.rowid = catalogue_document.id",
                "document_fts MATCH %s",
            ],
            params=[f'"{word}"'],
            select={"rank": "bm25(document_fts, 10, 10, 4, 1)"},
        ).order_by("rank", "registry__prefix", "number")
    return [document.label for document in ranked]


def test_every_page_keeps_the_order_of_the_whole_ranking(client):
    practice = RegistryFactory(prefix="PRA", name="Practice registry")
    for number in range(1, 61):
        # Four levels of relevance, thirty documents tied on each.
        summary = "sharding " * (1 + number % 4) + "and the rest."
        for registry in [RegistryFactory(), practice]:
            DocumentFactory(
                registry=registry,
                number=number,
                title=f"Note {number}",
                summary=summary,
                published=True,
            )
    DocumentFactory(number=99, title="Sharding", summary="Sharding sharding.")

    pages = [search(client, q="sharding", page=page) for page in ["1", "2", "3"]]

    assert [len(document_labels(page)) for page in pages] == [50, 50, 20]
    labels = [label for page in pages for label in document_labels(page)]
    assert labels == ranked_labels("sharding")
    assert "LIT-099" not in labels
    assert pages[2].select_one("#document-results").get_text() == "Documents (120)"
    assert pages[2].select_one("ol.results")["start"] == "101"


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"q": "x", "page": "abc"}, 404),
        ({"q": "x", "page": "99"}, 404),
        ({"q": "x", "page": "0"}, 404),
        ({"q": "x", "page": "9" * 30}, 404),
        ({"year_from": "abc"}, 400),
        ({"year_to": "99999999999"}, 400),
        ({"status": "draft"}, 400),
        ({"q": "x" * 201}, 400),
    ],
)
def test_malformed_parameters_are_refused_with_a_client_error(client, params, status):
    DocumentFactory(published=True)

    assert client.get(reverse("catalogue:search"), params).status_code == status


def test_a_word_left_out_alone_lists_every_other_document(client):
    DocumentFactory(number=1, title="Sharding", summary="Sharding.", published=True)
    DocumentFactory(number=2, title="Pipelines", summary="Stages.", published=True)

    assert document_labels(search(client, q="-sharding")) == ["LIT-002"]


def test_an_empty_search_shows_the_form_only(client):
    DocumentFactory(published=True)

    soup = search(client)

    assert soup.select_one("#search-q") is not None
    assert soup.select_one("#document-results") is None


def test_search_results_download_as_citations(client):
    DocumentFactory(number=1, year=2016, title="Sharding early", published=True)
    DocumentFactory(number=2, year=2023, title="Sharding late", published=True)
    DocumentFactory(number=3, year=2023, title="Sharding secret", draft=True)
    DocumentFactory(number=4, year=2023, title="Unrelated", published=True)

    soup = search(client, q="sharding", year_from="2020")
    link = soup.select_one(".cite-links a")["href"]
    response = client.get(link)

    assert link == "/search/cite.bib?q=sharding&year_from=2020"
    assert response.status_code == 200
    entries = response.content.decode()
    assert [line for line in entries.splitlines() if line.startswith("@")] == [
        "@misc{LIT-002,"
    ]


sqlite_only = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the FTS5 tables exist on SQLite"
)


def fts_rows(table):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid")
        return cursor.fetchall()


@sqlite_only
def test_the_full_text_tables_follow_every_write(imported_seed):
    document = DocumentFactory(
        number=990,
        title="Sharding",
        authors="Chen et al.",
        source_identifier="ARXIV-1604.06174",
        citation_note="(SoCC ‘25)",
        summary="Stages.",
        published=True,
    )
    topic = TopicFactory(name="Evaluation", scope="benchmarks")
    decision = DecisionRecordFactory(number=77, title="Summaries", body="Claims.")

    assert fts_rows("document_fts")[-1] == (
        document.pk,
        "LIT-990",
        "Sharding",
        "Chen et al. ARXIV-1604.06174 (SoCC ‘25)",
        "Stages.",
    )
    assert fts_rows("decision_fts")[-1] == (
        decision.pk,
        "ADR-077",
        "Summaries",
        "Claims.",
    )

    Document.objects.filter(pk=document.pk).update(title="Pipelines")
    document.registry.prefix = "REA"
    document.registry.save()
    topic.scope = "leaderboards"
    topic.save()
    decision.delete()

    assert fts_rows("document_fts")[-1][:3] == (document.pk, "REA-990", "Pipelines")
    assert fts_rows("topic_fts")[-1] == (topic.pk, "Evaluation", "leaderboards")
    assert fts_rows("decision_fts") == []
    # The seed came in through the bulk writer: its rows are there too.
    assert [row[0] for row in fts_rows("document_fts")] == list(
        Document.objects.order_by("pk").values_list("pk", flat=True)
    )


def filter_choices(soup):
    """The filter form's topics and tags: (value, label, chosen) each."""
    topics = [
        (option["value"], option.get_text(), option.has_attr("selected"))
        for option in soup.select("select[name=topic] option")
    ]
    tags = [
        (box["value"], box.has_attr("checked"))
        for box in soup.select("input[name=tag]")
    ]
    return topics, tags


def test_the_filters_offer_what_readers_may_see_and_show_what_each_search_asked(
    client,
):
    memory = TopicFactory(name="Memory", slug="memory")
    DocumentFactory(
        number=1, title="Sharding", topic=memory, tags=["sparse"], published=True
    )
    DocumentFactory(number=2, title="Sharding draft", topic=memory, tags=["secret"])

    first = search(client, q="sharding", topic="memory", tag="sparse")
    # Other words, the same filters: the same fields, kept or not.
    second = search(client, q="other words", topic="memory", tag="sparse")
    third = search(client, q="sharding", topic="unfiled")

    asked = (
        [
            ("", "Any topic", False),
            ("unfiled", "Unfiled", False),
            ("memory", "Memory", True),
        ],
        [("sparse", True)],
    )
    assert filter_choices(first) == asked
    assert filter_choices(second) == asked
    assert filter_choices(third) == (
        [
            ("", "Any topic", False),
            ("unfiled", "Unfiled", True),
            ("memory", "Memory", False),
        ],
        [("sparse", False)],
    )
