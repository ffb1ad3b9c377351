"""A reader follows what they filtered, in Chromium: a topic narrowed by the
filter form, then a search narrowed by a year, each followed by its page's
feed link; the feed holds the documents the page listed, and nothing a
draft or a pending revision holds."""

from urllib.parse import urlsplit

import pytest
from lxml import etree

import actions.documents
from catalogue.addresses import absolute_url
from tests.browser import follow
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.feeds_rules import assert_valid_atom

pytestmark = pytest.mark.django_db(transaction=True)

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def shelf():
    """A topic of four public documents of two years and tags, a draft in it
    and a pending revision of one of them."""
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    filed = {"topic": topic, "published": True}
    documents = {
        "zero": DocumentFactory(
            number=11, year=2021, tags=["memory"], title="ZeRO memory", **filed
        ),
        "gpipe": DocumentFactory(
            number=12, year=2019, tags=["memory"], title="GPipe memory", **filed
        ),
        "bytes": DocumentFactory(
            number=13, year=2022, tags=["comms"], title="BytePS memory", **filed
        ),
        "other": DocumentFactory(
            number=14,
            year=2022,
            tags=["memory"],
            title="Elsewhere memory",
            topic=TopicFactory(name="Evaluation", slug="evaluation"),
            published=True,
        ),
    }
    DocumentFactory(
        number=15, year=2023, tags=["memory"], title="Draft memory", topic=topic
    )
    actions.documents.edit_document(
        document=documents["zero"],
        user=UserFactory(publisher=True, username="grace"),
        changes={"title": "Pending memory"},
    )
    return documents


def feed_from(page, link_name):
    """Follow the page's visible feed link; the feed Chromium received."""
    link = page.locator(".feed-link a", has_text=link_name)
    with page.expect_navigation() as navigation:
        link.click()
    response = navigation.value
    assert response.status == 200
    assert response.headers["content-type"].startswith("application/atom+xml")
    return page.url, response.body()


def canonical(url):
    """The address the site names ``url`` by: under its canonical origin
    (``SITE_URL``), whatever host the live server listens on."""
    parts = urlsplit(url)
    return absolute_url(f"{parts.path}?{parts.query}")


def entry_titles(content):
    feed = etree.fromstring(content)
    return sorted(title.text for title in feed.iterfind(f"{ATOM}entry/{ATOM}title"))


def test_a_reader_follows_a_filtered_topic_and_a_search_by_their_feed_links(
    page, live_server, shelf
):
    page.goto(f"{live_server.url}/topics/distributed/")
    page.locator("details.filters summary").click()
    page.get_by_label("From year").fill("2020")
    page.get_by_label("memory").check()
    follow(page, page.get_by_role("button", name="Apply filters"))
    listed = page.locator("tbody tr", has_text="LIT-0").all_inner_texts()
    alternate = page.locator(
        'head link[rel="alternate"][title="Distributed optimization '
        '(from 2020, tagged memory)"]'
    )
    assert alternate.count() == 1
    named = alternate.get_attribute("href")

    url, content = feed_from(page, "Atom feed of Distributed optimization")

    assert url == f"{live_server.url}{named}"
    assert_valid_atom(content, canonical(url))
    assert entry_titles(content) == ["LIT-011: ZeRO memory"]
    assert len(listed) == 1 and "ZeRO memory" in listed[0]

    page.goto(f"{live_server.url}/search/?q=memory")
    page.locator("details.filters summary").click()
    page.get_by_label("To year").fill("2021")
    follow(page, page.get_by_role("button", name="Apply filters"))
    url, content = feed_from(page, "Atom feed of Search for “memory”")

    assert "q=memory" in url and "year_to=2021" in url
    assert_valid_atom(content, canonical(url))
    assert entry_titles(content) == ["LIT-011: ZeRO memory", "LIT-012: GPipe memory"]
    assert "Pending memory" not in content.decode()
    assert "Draft memory" not in content.decode()
