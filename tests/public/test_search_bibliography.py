"""Search finds what the record knows of a work (every author of the full
list, the venue, the DOI) below the title; a pasted address jumps to its
document; a query that finds nothing is offered the record's own words."""

import pytest
from django.urls import reverse

from tests.factories import DocumentFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db

SEARCH = reverse("catalogue:search")
PIPEDREAM_AUTHORS = [
    {"family": "Narayanan", "given": "Deepak"},
    {"family": "Harlap", "given": "Aaron"},
    {"family": "Phanishayee", "given": "Amar"},
    {"family": "Seshadri", "given": "Vivek"},
    {"family": "Devanur", "given": "Nikhil R."},
    {"family": "Ganger", "given": "Gregory R."},
    {"family": "Gibbons", "given": "Phillip B."},
]


@pytest.fixture
def pipedream():
    return DocumentFactory(
        number=784,
        title="PipeDream: generalized pipeline parallelism for DNN training",
        authors="Narayanan et al.",
        year=2019,
        source_identifier="ARXIV-1806.03377",
        author_list=PIPEDREAM_AUTHORS,
        venue="SOSP",
        doi="10.1145/3341301.3359646",
        summary="Splits a model into stages.",
        published=True,
    )


def found(client, query):
    soup = soup_of(client.get(SEARCH, {"q": query}))
    return [p.a.get_text().split(":")[0] for p in soup.select(".result-title")]


# A person's name as their page shows it ("Nikhil R. Devanur") goes to that
# page (tests/public/test_people.py); another form of it is searched.
@pytest.mark.parametrize(
    "query",
    ["Phanishayee", "Gibbons", "Nikhil Devanur", "SOSP", "10.1145/3341301.3359646"],
)
def test_the_full_author_list_venue_and_doi_are_searched(client, pipedream, query):
    assert found(client, query) == ["LIT-784"]


def test_a_title_ranks_above_an_author_of_the_list(client, pipedream):
    DocumentFactory(number=5, title="Gibbons sampling revisited", published=True)

    assert found(client, "Gibbons") == ["LIT-005", "LIT-784"]


def test_an_author_added_later_is_found(client, pipedream):
    pipedream.author_list = [*PIPEDREAM_AUTHORS, {"literal": "Microsoft Research"}]
    pipedream.save()

    assert found(client, "Microsoft") == ["LIT-784"]


@pytest.mark.parametrize(
    "pasted",
    [
        "https://arxiv.org/abs/1806.03377",
        "arxiv.org/pdf/1806.03377v2.pdf",
        "arXiv:1806.03377",
        "https://doi.org/10.1145/3341301.3359646",
        " doi:10.1145/3341301.3359646 ",
    ],
)
def test_a_pasted_address_goes_straight_to_its_document(client, pipedream, pasted):
    response = client.get(SEARCH, {"q": pasted})

    assert response.status_code == 302
    assert response["Location"] == "/LIT-784/"


def test_an_address_no_document_holds_is_searched_as_words(client, pipedream):
    response = client.get(SEARCH, {"q": "https://arxiv.org/abs/2001.00001"})

    assert response.status_code == 200


def test_a_typo_is_offered_the_records_own_word(client, pipedream):
    soup = soup_of(client.get(SEARCH, {"q": "pipline parallelism"}))

    suggestion = soup.select_one(".suggestion")
    assert suggestion.get_text() == "Did you mean pipeline parallelism?"
    assert found(client, suggestion.a.get_text()) == ["LIT-784"]
    # Spelled as forms write a query, the one spelling the page cache keeps.
    assert suggestion.a["href"] == f"{SEARCH}?q=pipeline+parallelism"


def test_a_misspelt_author_is_offered_the_right_spelling(client, pipedream):
    soup = soup_of(client.get(SEARCH, {"q": "Phanishaye"}))

    assert soup.select_one(".suggestion").a.get_text() == "phanishayee"


def test_nothing_is_offered_when_the_query_finds_something(client, pipedream):
    soup = soup_of(client.get(SEARCH, {"q": "pipeline"}))

    assert soup.select_one(".suggestion") is None


def test_a_drafts_words_are_never_offered(client, pipedream):
    DocumentFactory(title="Zyxwvut secret draft")

    soup = soup_of(client.get(SEARCH, {"q": "zyxwvu"}))

    assert soup.select_one(".suggestion") is None


def test_a_search_with_a_suggestion_costs_the_same_queries_at_any_size(
    client, pipedream, django_assert_num_queries
):
    for number in range(10, 40):
        DocumentFactory(number=number, title=f"Work {number}", published=True)
    client.get(SEARCH, {"q": "warmup"})

    # Documents, their count, decision records, topics, registries (for the
    # identifier notice, none here), the suggestion, the filter's choices, and
    # the people whose names match.
    with django_assert_num_queries(8):
        response = client.get(SEARCH, {"q": "pipline"})

    assert soup_of(response).select_one(".suggestion a").get_text() == "pipeline"
