"""A search and a full topic page cost the same queries at any size of the
record; a topic page reads its rows as stored, and builds those not stored
into the same bytes."""

import pytest
from django.core.cache import cache
from django.db import connection

from catalogue.models import DecisionRecord, Document, DocumentRow, Topic
from tests.factories import DecisionLogFactory, DecisionRecordFactory
from tests.html import soup_of
from tests.public.test_query_counts import fill, fill_people

pytestmark = pytest.mark.django_db

# 3,900 documents put a full page (1,000 rows) on the busiest topic.
SIZES = [50, 3900]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("in_titles", [True, False])
def test_a_search_matching_every_document_costs_eight_queries(
    client, django_assert_num_queries, n, in_titles
):
    fill(n)
    # The factory's titles are random words, "build" among them: the titles
    # are set, so that the page either holds title matches alone or none.
    Document.objects.update(
        title="What it builds on" if in_titles else "What it rests on"
    )
    # The count, the page of documents, the decision records, the topics, the
    # people whose names match and the three filters' choices; on PostgreSQL,
    # one more for a page that goes past the documents whose title matches.
    past_titles = connection.vendor == "postgresql" and not in_titles
    with django_assert_num_queries(8 + past_titles):
        response = client.get("/search/?q=builds")
    assert response.status_code == 200
    assert response.content.count(b'<li>\n        <p class="result-title">') == min(
        50, response.context["paginator"].count
    )


@pytest.mark.parametrize("n", [50, 600])
def test_a_search_listing_people_decisions_topics_and_documents_costs_eight_queries(
    client, django_assert_num_queries, n
):
    fill_people(n)
    Document.objects.update(title="What Liu builds on")
    Topic.objects.filter(slug="busy").update(name="Work of Liu")
    DecisionRecordFactory(number=7, title="Liu's decision")
    DecisionRecordFactory(number=7, twin=2, title="Liu's second decision")
    DecisionRecordFactory(
        log=DecisionLogFactory(name="Platform decisions"),
        number=3,
        title="Liu's layout",
        status=DecisionRecord.Status.SUPERSEDED,
    )
    DecisionRecordFactory(number=8, title="Liu's draft", draft=True)
    # The page's ids with the count, its documents with their passages, the
    # decision records with their logs, the topics, the people named, and
    # the filters' choices of registry, topic and tag: nothing a result.
    with django_assert_num_queries(8):
        response = client.get("/search/", {"q": "Liu", "status": "active"})

    soup = soup_of(response)
    # Each record's label, log, title and status, and its address (in any
    # order here: their rank is another test's).
    decisions = soup.select("#decision-results ~ ul li")
    assert sorted((li.get_text(), li.a["href"]) for li in decisions) == [
        (
            "ADR-003 (Platform decisions): Liu's layout (superseded)",
            "/decisions/platform-decisions/ADR-003/",
        ),
        ("ADR-007 (2): Liu's second decision (accepted)", "/decisions/ADR-007/2/"),
        ("ADR-007: Liu's decision (accepted)", "/decisions/ADR-007/"),
    ]
    assert [a.get_text() for a in soup.select("#topic-results ~ ul a")] == [
        "Work of Liu"
    ]
    assert [a.get_text() for a in soup.select(".people-results a")] == [
        "Yang Liu",
        "Yang Liu",
    ]
    active = Document.objects.public().filter(status=Document.Status.ACTIVE)
    items = soup.select("ol.results > li")
    assert len(items) == min(50, active.count())
    assert all(
        item.select_one(".result-title").get_text().endswith(": What Liu builds on")
        for item in items
    )


@pytest.mark.parametrize("n", SIZES)
def test_a_full_topic_page_costs_nine_queries_and_three_more_without_stored_rows(
    client, django_assert_num_queries, n
):
    fill(n)
    # The topic, its count line, the page's documents, their stored rows, the
    # preface and its name's target, the documents per year of its chart,
    # the filters' registries and tags.
    with django_assert_num_queries(9):
        stored = client.get("/topics/busy/")
    assert stored.status_code == 200
    table = stored.content.split(b'<table class="documents">')[1].split(b"</table>")
    rows = table[0].count(b"<tr")
    assert rows - 1 == (1000 if n > 50 else len(stored.context["documents"]))
    # A record whose rows are not stored builds them: their values and the
    # targets of their names (documents, decision records).
    DocumentRow.objects.all().delete()
    cache.clear()
    with django_assert_num_queries(12):
        built = client.get("/topics/busy/")
    assert built.content == stored.content
