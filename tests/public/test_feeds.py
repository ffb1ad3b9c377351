"""Every feed the site serves, read as the W3C Feed Validator reads it
(tests/feeds_rules.py), and every list a reader follows with a feed of the
same selection: linked from its page, followed from there, holding exactly
the public documents the page lists (never a draft or a pending revision),
cached and expired with the page, at a fixed number of queries."""

from urllib.parse import urlencode, urlsplit

import pytest
from django.contrib.syndication.views import Feed
from django.core.cache import cache
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import actions.corrections
import actions.decisions
import actions.documents
from catalogue.models import Person, Venue
from public import urls as public_urls
from tests.factories import (
    CorrectionFactory,
    DecisionImageFactory,
    DecisionLogFactory,
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    make_known_venues,
)
from tests.feeds_rules import assert_valid_atom, atom_problems
from tests.html import is_warm, soup_of

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
ORIGIN = "http://testserver"
CHEN = [{"family": "Chen", "given": "Tianqi"}]


def fresh():
    """Nothing cached: the next request renders."""
    cache.clear()


@pytest.fixture
def followed(publisher):
    """Documents of two registries, topics, years and tags; a draft, a
    pending revision and a withdrawal; two decision logs with records of two
    statuses, one whose Markdown links a sibling file and shows an image."""
    make_known_venues()
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    practice = RegistryFactory(name="Practice registry", prefix="PRA")
    memory = {"topic": topic, "tags": ["memory"], "published": True}
    docs = {
        "old": DocumentFactory(year=2015, title="Old memory", **memory),
        "new": DocumentFactory(
            year=2021,
            title="Checkpointing memory",
            authors="Chen",
            author_list=CHEN,
            venue="OSDI",
            **memory,
        ),
        "comms": DocumentFactory(
            topic=topic,
            year=2022,
            tags=["comms"],
            title="Gradient compression",
            # A summary of the factory's random words may say "memory", which
            # the search's selection must not find here.
            summary="Top-k sparsification of the gradients sent between workers.",
            published=True,
        ),
        "practice": DocumentFactory(
            registry=practice, year=2021, title="Practice memory", **memory
        ),
        "unfiled": DocumentFactory(
            topic=None,
            year=2021,
            tags=["memory"],
            title="Unfiled memory",
            published=True,
        ),
        "withdrawn": DocumentFactory(
            topic=topic,
            year=2021,
            tags=["memory"],
            title="Withdrawn memory",
            withdrawn=True,
        ),
    }
    DocumentFactory(topic=topic, year=2021, tags=["memory"], title="Draft memory")
    actions.documents.edit_document(
        document=docs["new"], user=publisher, changes={"title": "Pending memory"}
    )
    own = DecisionLogFactory(own=True)
    accepted = DecisionRecordFactory(
        log=own,
        number=1,
        title="Use PostgreSQL",
        body="## Context\n\nSee [the next one](0002-use-redis.md) and *why*.\n\n"
        "![Diagram](img/diagram.png)\n",
    )
    DecisionImageFactory(decision=accepted)
    DecisionRecordFactory(
        log=own,
        number=2,
        title="Use Redis",
        source_name="0002-use-redis.md",
        status="proposed",
    )
    team = DecisionLogFactory(name="Platform team")
    DecisionRecordFactory(log=team, number=1, title="Use Kafka")
    DecisionRecordFactory(log=own, number=3, title="Draft decision", draft=True)
    return {
        "docs": docs,
        "topic": topic,
        "team": team,
        "person": Person.objects.public().get(name__family="Chen"),
        "venue": Venue.objects.get(name="OSDI"),
    }


def feed_names():
    """The URL names of every feed the public site serves."""
    return {
        pattern.name
        for pattern in public_urls.urlpatterns
        if isinstance(pattern.callback, Feed)
    }


def feed_paths(followed):
    docs = followed["docs"]
    return {
        "feed": reverse("catalogue:feed"),
        "topic-feed": reverse("catalogue:topic-feed", args=["distributed"]),
        "unfiled-feed": reverse("catalogue:unfiled-feed"),
        "registry-feed": reverse("catalogue:registry-feed", args=["LIT"]),
        "tag-feed": reverse("catalogue:tag-feed", args=["memory"]),
        "search-feed": reverse("catalogue:search-feed") + "?q=memory",
        "person-feed": reverse("catalogue:person-feed", args=[followed["person"].slug]),
        "venue-feed": reverse("catalogue:venue-feed", args=[followed["venue"].slug]),
        "document-feed": reverse(
            "catalogue:document-feed",
            kwargs={"identifier": docs["withdrawn"].identifier},
        ),
        "decision-feed": reverse("catalogue:decision-feed"),
        "log-decision-feed": reverse(
            "catalogue:log-decision-feed", kwargs={"log": followed["team"].slug}
        ),
    }


def read_feed(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    assert response["Content-Type"].startswith("application/atom+xml")
    return response.content


def test_every_feed_the_site_serves_passes_the_feed_validators_rules(client, followed):
    paths = feed_paths(followed)
    assert set(paths) == feed_names()

    for name, path in paths.items():
        content = read_feed(client, path)
        assert atom_problems(content, ORIGIN + path) == [], name
        feed = etree.fromstring(content)
        assert feed.find(f"{ATOM}entry") is not None, name
        # The editors answer for every feed, so every entry has an author.
        assert feed.findtext(f"{ATOM}author/{ATOM}name") == "The anthology's editors"


def test_the_rules_refuse_a_feed_without_an_author_or_with_a_stray_self_link():
    feed = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><id>http://a.example/f</id>'
        b"<title>F</title><updated>2026-01-02T03:04:05Z</updated>"
        b'<link rel="self" href="http://a.example/other"/>'
        b"<entry><id>http://a.example/1</id><title>E</title>"
        b"<updated>2026-01-02 03:04</updated><link href='/1'/>"
        b'<content type="html">&lt;a href="../x"&gt;x&lt;/a&gt;</content></entry>'
        b"</feed>"
    )

    problems = atom_problems(feed, "http://a.example/f")

    assert [problem.split(": ", 2)[1] for problem in problems] == [
        "RFC 4287 §4.1.1 (the validator's SelfDoesntMatchLocation)",
        "RFC 4287 §3.3 (RFC 3339)",
        "RFC 4287 §4.2.7.1",
        "RFC 4287 §4.1.1",
        "RFC 4287 §3.1.1.2",
    ]


def test_a_decisions_entry_has_its_text_as_plain_text_and_its_html_placed(
    client, followed
):
    path = reverse("catalogue:decision-feed")
    feed = etree.fromstring(read_feed(client, path))
    entry = next(
        entry
        for entry in feed.iterfind(f"{ATOM}entry")
        if entry.findtext(f"{ATOM}title") == "ADR-001: Use PostgreSQL"
    )
    summary = entry.find(f"{ATOM}summary")
    content = entry.find(f"{ATOM}content")

    assert summary.get("type") == "text"
    assert summary.text == "Accepted.\n\nContext\n\nSee the next one and why."
    assert content.get("type") == "html"
    html = etree.fromstring(content.text, etree.HTMLParser())
    assert html.findtext(".//h2") == "Context"
    assert [a.get("href") for a in html.iterfind(".//a")] == [
        f"{ORIGIN}/decisions/ADR-002/"
    ]
    (image,) = html.iterfind(".//img")
    assert urlsplit(image.get("src"))[:3] == (
        "http",
        "testserver",
        "/decisions/ADR-001/images/img/diagram.png",
    )
    assert "Draft decision" not in str(etree.tostring(feed))


def page_feed_link(client, path):
    """The feed a page names in its head, its title, and the one its visible
    link follows, which is the same."""
    soup = soup_of(client.get(path))
    (head,) = [
        link
        for link in soup.select(
            'head link[rel="alternate"][type="application/atom+xml"]'
        )
        if link["href"] != reverse("catalogue:feed")
    ]
    (visible,) = soup.select(".feed-link a")
    assert visible["href"] == head["href"]
    return head["href"], head["title"]


def followed_documents(content):
    """The document pages a feed's entries lead to."""
    feed = etree.fromstring(content)
    return {
        urlsplit(link.get("href")).path
        for link in feed.iterfind(f"{ATOM}entry/{ATOM}link[@rel='alternate']")
    }


# Each list page's feed.
FEEDS = {
    "catalogue:topic-detail": "catalogue:topic-feed",
    "catalogue:unfiled": "catalogue:unfiled-feed",
    "catalogue:registry-detail": "catalogue:registry-feed",
    "catalogue:tag-detail": "catalogue:tag-feed",
    "catalogue:search": "catalogue:search-feed",
}

SELECTIONS = [
    # (page, its query, the documents it lists, the feed's title)
    (
        ("catalogue:topic-detail", ["distributed"]),
        "?registry=LIT&year_from=2020&tag=memory",
        ["new", "withdrawn"],
        "Distributed optimization (LIT, from 2020, tagged memory)",
    ),
    (
        ("catalogue:unfiled", []),
        "?year_from=2020",
        ["unfiled"],
        "Unfiled documents (from 2020)",
    ),
    (
        ("catalogue:registry-detail", ["PRA"]),
        "",
        ["practice"],
        "Practice registry (PRA)",
    ),
    (
        ("catalogue:registry-detail", ["LIT"]),
        "?status=withdrawn",
        ["withdrawn"],
        "Reading list (LIT) (withdrawn)",
    ),
    (
        ("catalogue:tag-detail", ["memory"]),
        "?topic=distributed&year_to=2020",
        ["old"],
        "Tagged “memory” (Distributed optimization, to 2020)",
    ),
    (
        ("catalogue:search", []),
        "?q=memory&year_from=2020",
        ["new", "practice", "unfiled", "withdrawn"],
        "Search for “memory” (from 2020)",
    ),
]


@pytest.mark.parametrize(("listing", "query", "listed", "title"), SELECTIONS)
def test_a_lists_feed_follows_exactly_what_its_page_lists(
    client, followed, listing, query, listed, title
):
    name, args = listing
    path = reverse(name, args=args) + query
    page_text = client.get(path).content.decode()

    feed_path, feed_title = page_feed_link(client, path)
    content = read_feed(client, feed_path)

    assert feed_title == title
    assert feed_path == reverse(FEEDS[name], args=args) + query
    assert_valid_atom(content, ORIGIN + feed_path)
    docs = followed["docs"]
    assert followed_documents(content) == {
        docs[key].get_absolute_url() for key in listed
    }
    for key in listed:
        assert docs[key].label in page_text
    feed = etree.fromstring(content)
    assert feed.findtext(f"{ATOM}title") == f"Anthology: {title}"
    assert feed.find(f"{ATOM}link[@rel='alternate']").get("href") == ORIGIN + path
    assert "Draft memory" not in content.decode()
    assert "Pending memory" not in content.decode()


def test_a_decision_logs_feed_keeps_the_pages_status(client, followed):
    path = reverse("catalogue:decision-list") + "?status=proposed"

    feed_path, feed_title = page_feed_link(client, path)
    content = read_feed(client, feed_path)

    assert feed_path == reverse("catalogue:decision-feed") + "?status=proposed"
    assert feed_title == "The anthology: decision records (proposed)"
    assert_valid_atom(content, ORIGIN + feed_path)
    titles = [
        title.text
        for title in etree.fromstring(content).iterfind(f"{ATOM}entry/{ATOM}title")
    ]
    assert titles == ["ADR-002: Use Redis"]


def test_a_search_of_nothing_has_no_feed_and_its_feed_is_empty(client, followed):
    soup = soup_of(client.get(reverse("catalogue:search")))
    content = read_feed(client, reverse("catalogue:search-feed"))

    assert soup.select(".feed-link") == []
    assert etree.fromstring(content).find(f"{ATOM}entry") is None


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/topics/distributed/feed/?year_from=12", "year"),
        ("/tags/memory/feed/?registry=NOPE", "registry"),
        ("/decisions/feed/?status=parked", "parked"),
    ],
)
def test_a_filter_the_page_refuses_the_feed_refuses_alike(
    client, followed, path, words
):
    response = client.get(path)

    assert response.status_code == 400
    assert words in response.content.decode().lower()


def publish_into(selection, followed, publisher):
    """Publish, through the publish action, a document each list shows."""
    if selection == "decisions":
        decision = DecisionRecordFactory(
            number=9, title="Use Valkey", status="proposed", draft=True
        )
        actions.decisions.publish_decision(decision=decision, user=publisher)
        return "ADR-009"
    document = DocumentFactory(
        topic=None if selection == "unfiled" else followed["topic"],
        year=2024,
        tags=["memory"],
        title="Fresh memory",
        authors="Chen",
        author_list=CHEN,
        venue="OSDI",
    )
    actions.documents.publish(document=document, user=publisher)
    return document.label


FOLLOWED_FEEDS = [
    ("topic-feed", ["distributed"], "?registry=LIT&year_from=2020&tag=memory"),
    ("unfiled-feed", [], "?year_from=2020"),
    ("registry-feed", ["LIT"], "?year_from=2020"),
    ("tag-feed", ["memory"], "?topic=distributed"),
    ("search-feed", [], "?q=memory&year_from=2020"),
    ("person-feed", ["chen"], ""),
    ("venue-feed", ["osdi"], ""),
    ("decision-feed", [], "?status=proposed"),
]


@pytest.mark.parametrize(("name", "args", "query"), FOLLOWED_FEEDS)
def test_a_publication_expires_the_cached_feed_of_a_list_it_joins(
    client, followed, publisher, committed, django_assert_num_queries,
    name, args, query,
):  # fmt: skip
    if name == "person-feed":
        args = [followed["person"].slug]
    if name == "venue-feed":
        args = [followed["venue"].slug]
    path = reverse(f"catalogue:{name}", args=args) + query
    read_feed(client, path)
    is_warm(client, path, django_assert_num_queries)

    with committed():
        label = publish_into(
            {"decision-feed": "decisions", "unfiled-feed": "unfiled"}.get(
                name, "documents"
            ),
            followed,
            publisher,
        )

    assert label in read_feed(client, path).decode()


@pytest.mark.parametrize("extra", [1, 7])
def test_a_filtered_feed_costs_the_same_queries_whatever_its_entries(
    client, followed, publisher, django_assert_num_queries, extra
):
    for n in range(extra):
        DocumentFactory(
            topic=followed["topic"], year=2023, tags=["memory"], published=True
        )
        withdrawn = DocumentFactory(
            topic=followed["topic"], year=2023, tags=["memory"], published=True
        )
        actions.documents.withdraw(
            document=withdrawn, user=publisher, reason=f"Reason {n}."
        )
    path = reverse("catalogue:topic-feed", args=["distributed"])
    fresh()

    # The topic, the registry and the tag the filters name, the versions with
    # their documents, what those supersede, the notices.
    with django_assert_num_queries(6):
        content = read_feed(client, f"{path}?registry=LIT&year_from=2020&tag=memory")

    assert len(followed_documents(content)) == 2 + 2 * extra


def test_a_documents_feed_shows_a_correction_once_it_is_published(
    client, followed, publisher, committed, django_assert_num_queries
):
    document = followed["docs"]["old"]
    path = reverse(
        "catalogue:document-feed", kwargs={"identifier": document.identifier}
    )
    page = document.get_absolute_url()
    proposed = CorrectionFactory(
        document=document,
        changes={"title": "Old memory, corrected"},
        reason="The paper's first page says so.",
    )
    read_feed(client, path)

    with committed():
        actions.corrections.accept(correction=proposed, user=publisher)
    pending = read_feed(client, path).decode()
    feed_path, _ = page_feed_link(client, page)
    with committed():
        actions.documents.publish(document=document, user=publisher)
    published = read_feed(client, path)

    assert feed_path == path
    assert "Old memory, corrected" not in pending
    assert "corrected" not in pending.lower()
    assert_valid_atom(published, ORIGIN + path)
    titles = [
        title.text
        for title in etree.fromstring(published).iterfind(f"{ATOM}entry/{ATOM}title")
    ]
    document.refresh_from_db()
    # The correction's notice and the version it published, in either order:
    # they share their moment.
    assert set(titles[:2]) == {
        f"{document.label} corrected: Old memory, corrected",
        f"{document.identifier.label(2)}: Old memory, corrected",
    }


FILTERS = st.fixed_dictionaries(
    {},
    optional={
        "registry": st.sampled_from(["LIT", "PRA"]),
        "status": st.sampled_from(["active", "withdrawn"]),
        "year_from": st.sampled_from(["2015", "2021", "2022"]),
        "year_to": st.sampled_from(["2015", "2021"]),
        "tag": st.lists(st.sampled_from(["memory", "comms"]), min_size=1, unique=True),
    },
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(filters=FILTERS)
def test_whatever_the_filters_a_topics_feed_follows_the_documents_its_page_lists(
    client, followed, filters
):
    """The page's rows are the documents its feed's entries lead to, for any
    mix of the filters a reader can choose."""
    path = reverse("catalogue:topic-detail", args=["distributed"])
    query = urlencode(filters, doseq=True)
    page = soup_of(client.get(f"{path}?{query}"))
    listed = {link["href"] for link in page.select("td.label a")}

    feed_path, _ = page_feed_link(client, f"{path}?{query}")

    assert followed_documents(read_feed(client, feed_path)) == listed
