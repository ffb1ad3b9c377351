"""The API's pages cost the same queries however many rows they hold: asked
once each, uncached, at 10 and at 1,000 documents, the largest page a list
gives (200 rows)."""

import pytest

from tests.public.test_query_counts import fill

pytestmark = pytest.mark.django_db

PAGES = [
    # The documents, then their tags, then their author positions with each
    # position's person (one query for the page: the positions link people).
    ("documents", "/api/documents/?page_size=200", 3),
    ("filtered documents", "/api/documents/?page_size=200&year_from=1990", 3),
    # The filter's registry, then the documents, their tags and positions.
    ("a registry's documents", "/api/documents/?page_size=200&registry=LIT", 4),
    # The document; its tags, author positions (with their people), versions,
    # references and notices (with their successors); what it supersedes,
    # what names it, the decision records naming it.
    ("document", "/api/documents/LIT-002/", 9),
    ("topics", "/api/topics/?page_size=200", 1),
    ("registries", "/api/registries/?page_size=200", 1),
    ("tags", "/api/tags/?page_size=200", 1),
    ("decision logs", "/api/decision-logs/?page_size=200", 1),
    ("decision records", "/api/decision-logs/team/records/?page_size=200", 2),
]


@pytest.mark.parametrize("n", [10, 1000])
def test_every_api_page_costs_the_same_queries_at_10_and_1000_documents(
    client, django_assert_num_queries, n
):
    fill(n)
    for name, path, queries in PAGES:
        with django_assert_num_queries(queries, info=name):
            response = client.get(path)
        assert response.status_code == 200, name
