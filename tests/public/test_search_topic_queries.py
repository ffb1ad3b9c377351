"""A search and a full topic page cost the same queries at any size of the
record; a topic page reads its rows as stored, and builds those not stored
into the same bytes."""

import pytest
from django.core.cache import cache
from django.db import connection

from catalogue.models import Document, DocumentRow
from tests.public.test_query_counts import fill

pytestmark = pytest.mark.django_db

# 3,900 documents put a full page (1,000 rows) on the busiest topic.
SIZES = [50, 3900]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("in_titles", [True, False])
def test_a_search_matching_every_document_costs_eight_queries(
    client, django_assert_num_queries, n, in_titles
):
    fill(n)
    if in_titles:
        Document.objects.update(title="What it builds on")
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
