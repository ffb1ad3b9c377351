"""A reader sorts a document table by number, title or year from its header,
both ways, with the filters kept; the order is kept in the URL, cached as a
page of its own and refreshed with the topic."""

import copy

import pytest

import actions.documents
from public import rows
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory
from tests.html import form_data, is_warm, soup_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def shelf():
    """A topic of five documents: two of one title but for its case, two of
    one year, and one of a second registry."""
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    practice = RegistryFactory(prefix="PRA", name="Practice")
    made = {}
    for prefix, number, title, year in [
        ("LIT", 1, "Zero redundancy", 2020),
        ("LIT", 2, "adaptive batches", 2018),
        ("LIT", 3, "Mixture of experts", 2020),
        ("LIT", 4, "Adaptive batches", 2016),
        ("PRA", 1, "Benchmarks", 2018),
    ]:
        made[f"{prefix}-{number:03d}"] = DocumentFactory(
            registry=practice if prefix == "PRA" else RegistryFactory(),
            number=number,
            title=title,
            year=year,
            topic=topic,
            published=True,
        )
    return {"topic": topic, **made}


def identifiers(soup):
    """The table's rows by identifier, in their order (versions left out)."""
    return [cell.get_text().split()[0] for cell in soup.select("td.label")]


def headers(soup):
    """The table's headers as a screen reader names them: (name, aria-sort)."""
    named = []
    for th in map(copy.copy, soup.select("table.documents th")):
        for hidden in th.select("[aria-hidden=true]"):
            hidden.extract()
        named.append((th.get_text(), th.get("aria-sort")))
    return named


def links(soup):
    """The addresses of the sortable headers' links: number, title, year."""
    return [a["href"] for a in soup.select("table.documents th a")]


NUMBER_ORDER = ["LIT-001", "LIT-002", "LIT-003", "LIT-004", "PRA-001"]


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("", NUMBER_ORDER),
        ("number", NUMBER_ORDER),
        ("-number", ["PRA-001", "LIT-004", "LIT-003", "LIT-002", "LIT-001"]),
        # Whatever their case; one title twice: in number order.
        ("title", ["LIT-002", "LIT-004", "PRA-001", "LIT-003", "LIT-001"]),
        ("-title", ["LIT-001", "LIT-003", "PRA-001", "LIT-002", "LIT-004"]),
        # One year twice, and twice again: in number order, either way.
        ("year", ["LIT-004", "LIT-002", "PRA-001", "LIT-001", "LIT-003"]),
        ("-year", ["LIT-001", "LIT-003", "LIT-002", "PRA-001", "LIT-004"]),
    ],
)
def test_a_topic_sorts_by_each_column_both_ways_ties_in_number_order(
    client, shelf, sort, expected
):
    # An empty sort is the table's own order, at the address without it.
    soup = soup_of(client.get(f"/topics/distributed/?sort={sort}", follow=True))

    assert identifiers(soup) == expected


def test_an_unsorted_table_is_in_number_order_and_its_header_says_so(client, shelf):
    soup = soup_of(client.get("/topics/distributed/"))

    assert identifiers(soup) == NUMBER_ORDER
    assert headers(soup) == [
        ("Number", "ascending"),
        ("Title", None),
        ("Summary · Year", None),
        ("Status", None),
    ]
    assert soup.select_one("th[aria-sort] .sort-arrow").get_text() == "▲"
    assert links(soup) == ["?sort=-number", "?sort=title", "?sort=year"]
    assert soup.select(".filters input[name=sort]") == []


def test_the_sorted_column_is_marked_and_a_second_click_reverses_it(client, shelf):
    ascending = soup_of(client.get("/topics/distributed/?sort=year"))
    descending = soup_of(client.get("/topics/distributed/" + links(ascending)[2]))

    assert headers(ascending)[2] == ("Summary · Year", "ascending")
    assert [name for name, sort in headers(ascending) if sort] == ["Summary · Year"]
    assert ascending.select_one("th[aria-sort] .sort-arrow").get_text() == "▲"
    assert links(ascending) == ["/topics/distributed/", "?sort=title", "?sort=-year"]
    assert headers(descending)[2] == ("Summary · Year", "descending")
    assert descending.select_one("th[aria-sort] .sort-arrow").get_text() == "▼"
    assert identifiers(descending) == identifiers(
        soup_of(client.get("/topics/distributed/?sort=-year"))
    )
    # Back to the table's own order: its plain address.
    number = soup_of(client.get("/topics/distributed/?sort=-number"))
    assert headers(number)[0] == ("Number", "descending")
    assert links(number)[0] == "/topics/distributed/"


def test_header_links_keep_the_filters_and_start_on_the_first_page(client, shelf):
    # The empty status a form sends is left out of the address first.
    response = client.get(
        "/topics/distributed/?year_from=2018&status=&sort=year&page=1", follow=True
    )
    soup = soup_of(response)

    assert response.redirect_chain == [
        ("/topics/distributed/?year_from=2018&sort=year&page=1", 301)
    ]
    assert links(soup) == [
        "?year_from=2018",
        "?year_from=2018&sort=title",
        "?year_from=2018&sort=-year",
    ]


def test_a_sort_combines_with_filters_and_the_count_line_stays_true(client, shelf):
    unsorted = soup_of(client.get("/topics/distributed/?year_from=2018"))
    soup = soup_of(client.get("/topics/distributed/?year_from=2018&sort=-year"))

    assert identifiers(soup) == ["LIT-001", "LIT-003", "LIT-002", "PRA-001"]
    counts = (
        "4 of 4 LIT documents, 1 of 1 PRA documents. 4 of 5 shown, as filtered. "
        "Back to the full index."
    )
    assert soup.select_one(".counts").get_text() == counts
    assert unsorted.select_one(".counts").get_text() == counts
    assert soup.select_one(".filters summary").get_text() == "Filter (4 matches)"
    # The downloads hold the documents shown, whatever their order.
    cite = [a["href"] for a in soup.select(".cite-links a")]
    assert cite == [a["href"] for a in unsorted.select(".cite-links a")]
    assert cite[0] == "/topics/distributed/cite.bib?year_from=2018"


def test_a_sort_alone_is_no_filter(client, shelf):
    soup = soup_of(client.get("/topics/distributed/?sort=title"))

    assert soup.select_one(".counts").get_text() == (
        "4 of 4 LIT documents, 1 of 1 PRA documents. Back to the full index."
    )
    assert not soup.select_one("details.filters").has_attr("open")
    assert soup.select_one(".filters summary").get_text() == "Filter"


def test_the_filter_form_keeps_the_sort(client, shelf):
    response = client.get("/topics/distributed/?sort=-title")
    soup = soup_of(response)
    submitted = {**form_data(response, ".filters form"), "year_from": "2018"}

    assert soup.select_one(".filters input[name=sort]")["value"] == "-title"
    assert soup.select_one(".filters a").get("href") == "?sort=-title"  # Clear.
    assert submitted["sort"] == "-title"
    # The form's empty fields are left out of the address, by one redirect.
    filtered = soup_of(client.get("/topics/distributed/", submitted, follow=True))
    assert identifiers(filtered) == ["LIT-001", "LIT-003", "PRA-001", "LIT-002"]
    assert headers(filtered)[1] == ("Title", "descending")


@pytest.mark.parametrize(
    "sort", ["bogus", "Year", "-", "--year", "year,title", "summary", "registry"]
)
def test_an_unknown_sort_or_a_sort_by_two_columns_is_a_client_error(
    client, shelf, sort
):
    # A comma is spelled %2C first.
    response = client.get(f"/topics/distributed/?sort={sort}", follow=True)

    assert response.status_code == 400
    assert "sort" in response.content.decode()


@pytest.mark.parametrize(
    "path", ["/unfiled/", "/registries/LIT/", "/tags/memory/", "/topics/distributed/"]
)
def test_every_document_table_sorts_by_year(client, path):
    topic = TopicFactory(slug="distributed")
    for number, year in [(1, 2021), (2, 2016), (3, 2019)]:
        DocumentFactory(
            number=number,
            year=year,
            topic=None if path == "/unfiled/" else topic,
            tags=["memory"],
            published=True,
        )

    newest = soup_of(client.get(f"{path}?sort=-year"))
    oldest = soup_of(client.get(f"{path}?sort=year"))

    assert identifiers(newest) == ["LIT-001", "LIT-003", "LIT-002"]
    assert identifiers(oldest) == ["LIT-002", "LIT-003", "LIT-001"]
    assert headers(newest)[-2] == ("Summary · Year", "descending")


def test_a_sorted_page_reorders_the_rows_the_unsorted_one_kept(
    client, shelf, monkeypatch
):
    unsorted = soup_of(client.get("/topics/distributed/"))
    built = []
    building = rows._rows_html

    def counted(found, targets, topic_column):
        built.extend(found)
        return building(found, targets, topic_column)

    monkeypatch.setattr(rows, "_rows_html", counted)
    by_year = soup_of(client.get("/topics/distributed/?sort=year"))

    assert built == []  # Every row was kept.
    assert sorted(map(str, by_year.select("tbody tr"))) == sorted(
        map(str, unsorted.select("tbody tr"))
    )
    assert identifiers(by_year) != identifiers(unsorted)


def test_a_sorted_page_is_cached_as_its_own_and_refreshed_with_its_topic(
    client, shelf, publisher, committed, django_assert_num_queries
):
    for path in ["/topics/distributed/", "/topics/distributed/?sort=year"]:
        client.get(path)
    by_year = soup_of(
        is_warm(client, "/topics/distributed/?sort=year", django_assert_num_queries)
    )
    unsorted = soup_of(
        is_warm(client, "/topics/distributed/", django_assert_num_queries)
    )
    assert identifiers(by_year) == [
        "LIT-004",
        "LIT-002",
        "PRA-001",
        "LIT-001",
        "LIT-003",
    ]
    assert identifiers(unsorted) == NUMBER_ORDER

    with committed():
        actions.documents.edit_document(
            document=shelf["LIT-004"], user=publisher, changes={"year": 2024}
        )
        actions.documents.publish(document=shelf["LIT-004"], user=publisher)

    by_year = soup_of(client.get("/topics/distributed/?sort=year"))
    assert identifiers(by_year) == [
        "LIT-002",
        "PRA-001",
        "LIT-001",
        "LIT-003",
        "LIT-004",
    ]
    assert "LIT-004 v2" in by_year.select_one("table.documents tbody").get_text()
    assert identifiers(soup_of(client.get("/topics/distributed/"))) == NUMBER_ORDER
