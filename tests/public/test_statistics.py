"""The statistics page and a topic's chart: public documents only, fresh
after every change, their numbers in a table beside each chart, within the
site's Content-Security-Policy."""

import pytest
from django.urls import reverse

import actions.documents
from catalogue.models import Document
from catalogue.references import write_references
from tests.factories import DocumentFactory, TopicFactory
from tests.html import is_warm, soup_of

pytestmark = pytest.mark.django_db

STATISTICS = "/statistics/"

# The site's policy as the settings state it: the charts change none of it.
POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def directives(header):
    """A policy header as {directive: sources}: its order is not its meaning."""
    pairs = (part.strip().split(" ", 1) for part in header.split(";"))
    return dict(pairs)


def numbers(client, path, slug):
    """The table of the chart ``slug`` on ``path``: {row heading: cells}."""
    soup = soup_of(client.get(path))
    figure = soup.select_one(f"figure#{slug}")
    assert figure.select_one("svg") is not None
    return {
        row.th.get_text(): [cell.get_text() for cell in row.select("td")]
        for row in figure.select("tbody tr")
        if row.th
    }


@pytest.fixture
def record(publisher):
    """Two topics; three public documents (one withdrawn) naming each other,
    one unfiled; a draft, a document in review and a pending revision, each
    of which would change every figure if it counted."""
    memory = TopicFactory(name="Memory", slug="memory")
    evaluation = TopicFactory(name="Evaluation", slug="evaluation")
    cited = DocumentFactory(
        number=4, topic=memory, year=2016, title="Sublinear memory", published=True
    )
    citing = DocumentFactory(
        number=7, topic=memory, year=2020, summary="Builds on LIT-004.", published=True
    )
    unfiled = DocumentFactory(
        number=9,
        topic=None,
        year=2020,
        summary="Also LIT-004 and LIT-007.",
        withdrawn=True,
    )
    write_references(documents=[cited, citing, unfiled])
    draft = DocumentFactory(
        number=11, topic=evaluation, year=1999, summary="LIT-007 LIT-007.", draft=True
    )
    DocumentFactory(number=12, topic=evaluation, year=1999, in_review=True)
    write_references(documents=[draft])
    actions.documents.edit_document(
        document=citing,
        user=publisher,
        changes={"year": 1999, "topic": evaluation.pk},
    )
    assert citing.pending_revision() is not None
    return {"memory": memory, "evaluation": evaluation, "cited": cited}


def test_the_statistics_count_public_documents_only(client, record):
    topics = numbers(client, STATISTICS, "topics")
    years = numbers(client, STATISTICS, "years")
    statuses = numbers(client, STATISTICS, "statuses")
    referenced = numbers(client, STATISTICS, "referenced")
    growth = numbers(client, STATISTICS, "growth")

    assert topics == {"Memory": ["2"], "Evaluation": ["0"], "Unfiled": ["1"]}
    # Columns: Memory, Unfiled, All; no year holds a draft's 1999.
    assert years == {"2016": ["1", "0", "1"], "2020": ["1", "1", "2"]}
    assert statuses == {"Active": ["2"], "Superseded": ["0"], "Withdrawn": ["1"]}
    assert referenced == {
        "LIT-004: Sublinear memory": ["2"],
        f"LIT-007: {Document.objects.get(number=7).title}": ["1"],
    }
    assert [cells[1] for cells in growth.values()] == ["3"]


def test_each_topic_bar_and_row_links_to_its_topic(client, record):
    soup = soup_of(client.get(STATISTICS))
    figure = soup.select_one("figure#topics")

    bars = {a.select_one("text").get_text(): a["href"] for a in figure.select("svg a")}
    rows = {a.get_text(): a["href"] for a in figure.select("table a")}
    assert (
        bars
        == rows
        == {
            "Memory": "/topics/memory/",
            "Evaluation": "/topics/evaluation/",
            "Unfiled": "/unfiled/",
        }
    )


def test_every_chart_is_a_titled_image_or_group_with_its_table(client, record):
    for path in [STATISTICS, record["memory"].get_absolute_url()]:
        soup = soup_of(client.get(path))
        figures = soup.select("figure.chart-figure")
        assert figures
        for figure in figures:
            svg = figure.select_one("svg")
            assert svg["role"] in {"img", "group"}
            title = svg.select_one("title")
            assert title["id"] == svg["aria-labelledby"]
            assert figure.select_one("details summary").get_text() == "The numbers"
            assert figure.select("details table tbody tr")


def test_a_topic_page_charts_its_public_documents_per_year(client, record):
    path = record["memory"].get_absolute_url()

    assert numbers(client, path, "topic-years") == {"2016": ["1"], "2020": ["1"]}
    assert numbers(client, record["evaluation"].get_absolute_url(), "topic-years") == {}


def test_publishing_refreshes_the_cached_statistics_and_topic_chart(
    client, record, publisher, committed, django_assert_num_queries
):
    topic = record["memory"].get_absolute_url()
    for path in [STATISTICS, topic]:
        client.get(path)
        is_warm(client, path, django_assert_num_queries)
    draft = DocumentFactory(
        number=20, topic=record["memory"], year=2016, summary="On LIT-004.", draft=True
    )

    with committed():
        actions.documents.publish(document=draft, user=publisher)

    assert numbers(client, STATISTICS, "topics")["Memory"] == ["3"]
    assert numbers(client, STATISTICS, "referenced")["LIT-004: Sublinear memory"] == [
        "3"
    ]
    assert numbers(client, topic, "topic-years")["2016"] == ["2"]


def test_withdrawing_and_publishing_a_revision_refresh_the_statistics(
    client, record, publisher, committed
):
    client.get(STATISTICS)
    cited = record["cited"]

    with committed():
        actions.documents.withdraw(document=cited, user=publisher, reason="Wrong.")
    assert numbers(client, STATISTICS, "statuses")["Withdrawn"] == ["2"]

    citing = Document.objects.get(number=7)
    with committed():
        actions.documents.publish(document=citing, user=publisher)
    assert numbers(client, STATISTICS, "topics")["Evaluation"] == ["1"]
    assert "1999" in numbers(client, STATISTICS, "years")


def test_the_charts_keep_the_sites_policy(client, record):
    statistics = client.get(STATISTICS)
    index = client.get(reverse("catalogue:index"))

    assert directives(statistics["Content-Security-Policy"]) == POLICY
    assert directives(index["Content-Security-Policy"]) == POLICY
    figures = soup_of(statistics).select("figure")
    assert len(figures) == 5
    for figure in figures:
        assert figure.select("script, style, [style]") == []
