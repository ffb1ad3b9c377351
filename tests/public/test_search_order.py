"""The order of a search's documents on PostgreSQL, page by page: documents
whose title (or identifier) matches come first, then the others, each part
best first by ``ts_rank`` with ties in identifier order; the count, exact up
to a bound past the page and "more than" beyond; and ``document_search``,
the narrow table a page is read from, following every write."""

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connection
from django.db.models import F
from django.urls import reverse

from actions import documents as document_actions
from catalogue.models import Document
from public import search as search_module
from tests.factories import DocumentFactory, RegistryFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="document_search and the title-first order are PostgreSQL's",
    ),
]


def labels_on(client, **params):
    response = client.get(reverse("catalogue:search"), params)
    assert response.status_code == 200
    soup = BeautifulSoup(response.content, "html.parser")
    labels = [a.get_text().split(":")[0] for a in soup.select(".result-title a")]
    return soup, labels


def walked(client, query):
    """Every document the search lists, page after page."""
    labels, page = [], 1
    while True:
        soup, found = labels_on(client, q=query, page=str(page))
        labels += found
        if soup.select_one("a[rel=next]") is None:
            return labels
        page += 1


def stated_order(query):
    """Every public match, in the stated order, worked out without
    ``document_search`` or the vector's weights: whether the title matches
    is read from a vector of the title made here."""
    words = SearchQuery(query, search_type="websearch", config="english")
    titled = set(
        Document.objects.annotate(title_vector=SearchVector("title", config="english"))
        .filter(title_vector=words)
        .values_list("pk", flat=True)
    )
    matches = (
        Document.objects.public()
        .select_related("registry")
        .filter(search_vector=words)
        .annotate(rank=SearchRank(F("search_vector"), words))
    )
    ordered = sorted(
        matches,
        key=lambda d: (d.pk not in titled, -d.rank, d.registry.prefix, d.number),
    )
    return [document.label for document in ordered]


@pytest.mark.parametrize(
    "query", ["training", "distributed training", "pipeline parallelism", "memory"]
)
def test_title_matches_come_first_on_every_page_of_the_seed(
    client, imported_seed, monkeypatch, query
):
    # Pages of four walk the seed's matches across the title matches' end.
    monkeypatch.setattr(search_module, "RESULTS_PER_PAGE", 4)
    expected = stated_order(query)

    assert len(expected) > 4
    assert walked(client, query) == expected


def test_a_title_match_ranks_above_a_summary_that_repeats_the_words(client):
    # By ts_rank alone the summary's many close pairs would come first.
    DocumentFactory(
        number=1,
        title="Pipeline notes",
        summary=" ".join(["pipeline parallelism"] * 30),
        published=True,
    )
    DocumentFactory(
        number=2,
        title="Parallelism in a pipeline of stages",
        summary="Stages.",
        published=True,
    )

    assert labels_on(client, q="pipeline parallelism")[1] == ["LIT-002", "LIT-001"]


def test_ties_in_each_part_keep_identifier_order_across_registries(client):
    practice = RegistryFactory(prefix="PRA", name="Practice registry")
    for registry in [RegistryFactory(), practice]:
        for number in [2, 1]:
            DocumentFactory(
                registry=registry,
                number=number,
                title="Sharding",
                summary="Sharding.",
                published=True,
            )
            DocumentFactory(
                registry=registry,
                number=number + 10,
                title="Notes",
                summary="Sharding.",
                published=True,
            )

    assert labels_on(client, q="sharding")[1] == [
        "LIT-001",
        "LIT-002",
        "PRA-001",
        "PRA-002",
        "LIT-011",
        "LIT-012",
        "PRA-011",
        "PRA-012",
    ]


def test_filters_narrow_both_parts(client):
    DocumentFactory(number=1, year=2016, title="Sharding", published=True)
    DocumentFactory(number=2, year=2023, title="Sharding", published=True)
    DocumentFactory(number=3, year=2023, title="Notes", summary="Sharding.")
    DocumentFactory(
        number=4, year=2023, title="Notes", summary="Sharding.", published=True
    )

    soup, labels = labels_on(client, q="sharding", year_from="2020")

    assert labels == ["LIT-002", "LIT-004"]
    assert soup.select_one("#document-results").get_text() == "Documents (2)"


def test_past_the_bound_the_count_says_more_than_and_pages_go_on(client, monkeypatch):
    monkeypatch.setattr(search_module, "RESULTS_PER_PAGE", 2)
    monkeypatch.setattr(search_module, "COUNTED", 5)
    for number in range(1, 9):
        DocumentFactory(number=number, title="Sharding", published=True)
    for number in range(9, 13):
        DocumentFactory(
            number=number, title="Notes", summary="Sharding.", published=True
        )

    first, _ = labels_on(client, q="sharding")
    fourth, _ = labels_on(client, q="sharding", page="4")
    last, labels = labels_on(client, q="sharding", page="6")

    assert first.select_one("#document-results").get_text() == (
        "Documents (more than 5)"
    )
    assert first.select_one(".pagination span").get_text() == "Page 1 of more than 2"
    assert fourth.select_one("#document-results").get_text() == (
        "Documents (more than 11)"
    )
    assert last.select_one("#document-results").get_text() == "Documents (12)"
    assert last.select_one(".pagination span").get_text() == "Page 6 of 6"
    assert last.select_one("a[rel=next]") is None
    assert labels == ["LIT-011", "LIT-012"]
    assert walked(client, "sharding") == [f"LIT-{n:03d}" for n in range(1, 13)]


def search_rows():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT document_id, status, topic_id, year, search_vector::text "
            "FROM document_search ORDER BY document_id"
        )
        return cursor.fetchall()


def public_rows():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, status, topic_id, year, search_vector::text "
            "FROM catalogue_document "
            "WHERE status IN ('active', 'superseded', 'withdrawn') ORDER BY id"
        )
        return cursor.fetchall()


def test_document_search_follows_every_write(client, imported_seed):
    user = get_user_model().objects.create_superuser("publisher")
    draft = DocumentFactory(number=990, title="Sharding plans", draft=True)
    public = DocumentFactory(number=991, title="Pipelines", published=True)
    gone = DocumentFactory(number=992, title="Stages", published=True)
    assert search_rows() == public_rows()
    assert labels_on(client, q="sharding plans")[1] == []

    document_actions.publish(document=draft, user=user)
    Document.objects.filter(pk=public.pk).update(title="Sharding pipelines")
    document_actions.withdraw(document=gone, user=user, reason="Retracted.")
    Document.objects.bulk_create(
        DocumentFactory.build(
            registry=public.registry,
            topic=public.topic,
            number=n,
            title="Sharding in bulk",
            status="active",
        )
        for n in range(993, 996)
    )

    assert search_rows() == public_rows()
    found = walked(client, "sharding")
    assert found == stated_order("sharding")
    assert {"LIT-990", "LIT-991", "LIT-993", "LIT-994", "LIT-995"} <= set(found)
    assert walked(client, "stages") == stated_order("stages")
    assert "LIT-992" in walked(client, "stages")

    Document.objects.filter(pk__in=[draft.pk, public.pk]).update(status="draft")
    Document.objects.filter(number=993).delete()

    # Writes outside the actions expire no cached page: the table is read.
    assert search_rows() == public_rows()


def test_document_search_is_emptied_with_the_documents():
    DocumentFactory(published=True)
    with connection.cursor() as cursor:
        # The foreign keys' checks of the writes above run first.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("TRUNCATE catalogue_document CASCADE")

    assert search_rows() == []
