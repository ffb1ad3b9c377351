"""What the site writes, checked against the standards readers' tools follow:
the Nu HTML checker on every page type, RFC 4287 on the Atom feeds, the
sitemaps.org schema on every sitemap file."""

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from lxml import etree

import actions.documents
import actions.people
from actions import previews
from catalogue.models import Document, Person, Topic
from catalogue.references import write_references
from tests.databases import WEB_LAYER
from tests.factories import (
    DecisionLogFactory,
    DecisionRecordFactory,
    DocumentFactory,
    UserFactory,
)
from tests.feeds_rules import assert_valid_atom
from tests.nu import nu_errors

pytestmark = [pytest.mark.django_db, WEB_LAYER]

SCHEMAS = Path(__file__).resolve().parent / "schemas"
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def record(imported_seed):
    """The seed, a decision record, tags, a revised and a retired document."""
    topic = Topic.objects.get(slug="distributed-optimization")
    DecisionRecordFactory(
        number=26,
        title="One axis for both registries",
        body="## Context\n\nSee LIT-004 and *ADR-059*.\n\n- one\n- two\n\n"
        "| Option | Cost |\n|:--|--:|\n| Redis | 2 × |\n",
    )
    publisher = UserFactory(publisher=True)
    lit4 = Document.objects.get(number=4)
    citing = DocumentFactory(
        number=900,
        registry=lit4.registry,
        topic=topic,
        title="Checkpointing <revisited>",
        summary="Revisits LIT-004 & LIT-007, as DOI:10.1109/TAC.2003.812781 did.",
        withdrawn=True,
    )
    write_references(documents=[citing])
    add_people(lit4.registry, topic)
    # LIT-004's revision is the record's newest version.
    lit4.tags.add("memory")
    actions.documents.edit_document(
        document=lit4,
        user=publisher,
        changes={"summary": lit4.summary.replace("48G", "48 GB")},
    )
    actions.documents.publish(document=lit4, user=publisher, note="Units spelled out.")
    return {"topic": topic}


def add_people(registry, topic):
    """Two Yang Lius, one verified by their ORCID iD, and a co-author's name
    split between two people."""
    yang_liu = {"family": "Liu", "given": "Yang"}
    written = [
        (910, topic, [yang_liu, {"family": "Douillard", "given": "Arthur"}]),
        (911, topic, [yang_liu, {"family": "Douillard", "given": "Arthur"}]),
        (912, None, [yang_liu, {"family": "Tan", "given": "Mingxing"}]),
    ]
    for number, filed, authors in written:
        DocumentFactory(
            number=number,
            registry=registry,
            topic=filed,
            author_list=authors,
            authors=" and ".join(author["family"] for author in authors),
            published=True,
        )
    chief = UserFactory(is_superuser=True, username="editor-in-chief")
    actions.people.edit_person(
        person=Person.objects.get(slug="yang-liu"),
        user=chief,
        changes={"orcid": "0000-0002-1825-0097", "state": Person.State.VERIFIED},
    )
    douillard = Person.objects.get(slug="arthur-douillard")
    positions = douillard.authorships.values_list("pk", "document__number")
    first, second = (
        [pk for pk, number in positions if number == wanted] for wanted in (910, 911)
    )
    actions.people.split_person(person=douillard, groups=[first, second], user=chief)


PAGES = [
    "/",
    "/topics/distributed-optimization/",
    "/topics/distributed-optimization/?year_from=2020&status=active",
    "/unfiled/",
    "/registries/",
    "/registries/LIT/",
    "/tags/",
    "/tags/memory/",
    "/LIT-004/",
    "/LIT-004/v5/",
    "/LIT-900/",
    "/decisions/",
    "/decisions/?status=accepted",
    "/decisions/ADR-026/",
    "/people/",
    "/people/rajbhandari/",
    "/people/yang-liu/",
    "/people/yang-liu-2/",
    # A name split in two: the list of the people it names.
    "/people/arthur-douillard/",
    "/venues/",
    "/venues/osdi/",
    "/search/?q=yang+liu",
    "/search/?q=pipeline+parallelism",
    "/search/?q=ADR-099",
    "/search/?q=nothing-matches-this",
    "/search/?year_from=2023",
    "/statistics/",
    "/api/docs/",
]
ERROR_PAGES = {
    "/topics/none/": 404,
    "/search/?year_from=abc": 400,
    "/topics/distributed-optimization/?year_from=%00": 400,
}
# Every error page the site renders from its own templates, with what each
# is given where it is rendered.
ERROR_TEMPLATES = {
    "400.html": {"message": "A NUL character cannot appear in a request."},
    "403.html": {},
    "404.html": {},
    "500.html": {},
    "503.html": {},
}


def preview_pages(client):
    """A preview link's page of a draft's text as its holder opens it, and
    the page of a link since revoked."""
    publisher = UserFactory(publisher=True)
    draft = DocumentFactory(number=950, draft=True, title="A draft, previewed")
    link = previews.make_link(document=draft, user=publisher)
    revoked = previews.make_link(document=draft, user=publisher)
    previews.revoke_link(link=revoked, user=publisher)
    shown = client.get(link.get_absolute_url())
    gone = client.get(revoked.get_absolute_url())
    assert (shown.status_code, gone.status_code) == (200, 410)
    return {"preview": shown.content, "revoked preview": gone.content}


def team_log_pages(client):
    """A team's decision log, its record, and a second file of one number."""
    log = DecisionLogFactory(name="Platform team", prefix="PLAT")
    DecisionRecordFactory(log=log, number=1, title="Use Postgres", body="Yes.")
    own = DecisionRecordFactory(number=26, twin=2, title="A second file")
    paths = ["/decisions/platform-team/", "/decisions/platform-team/PLAT-001/"]
    paths.append(f"/decisions/{own.identifier}/2/")
    pages = {path: client.get(path) for path in paths}
    assert [page.status_code for page in pages.values()] == [200] * 3
    return {path: page.content for path, page in pages.items()}


@pytest.mark.java
@pytest.mark.node
def test_the_nu_html_checker_finds_no_error_on_any_page_type(client, record, tmp_path):
    pages = {}
    for path, status in [*((path, 200) for path in PAGES), *ERROR_PAGES.items()]:
        response = client.get(path)
        assert response.status_code == status, path
        pages[path] = response.content
    pages.update(preview_pages(client))
    pages.update(team_log_pages(client))
    for name, context in ERROR_TEMPLATES.items():
        pages[name] = render_to_string(name, context).encode()

    errors = nu_errors(pages, tmp_path)
    assert errors == [], "\n".join(errors)


def entry_ids(feed):
    return [entry.findtext(f"{ATOM}id") for entry in feed.iterfind(f"{ATOM}entry")]


def test_atom_feeds_follow_rfc_4287_with_unique_stable_ids(client, record):
    paths = [
        reverse("catalogue:feed"),
        reverse("catalogue:topic-feed", args=["distributed-optimization"]),
    ]
    contents = [client.get(path).content for path in paths]
    site, topic = (etree.fromstring(content) for content in contents)

    for path, content in zip(paths, contents, strict=True):
        assert_valid_atom(content, f"http://testserver{path}")
    ids = entry_ids(site)
    assert len(ids) == len(set(ids)) == 50
    # A version has the same id in every feed it is in, the version page's.
    assert entry_ids(topic)[0] == ids[0] == "http://testserver/LIT-004/v5/"
    assert site.findtext(f"{ATOM}id") != topic.findtext(f"{ATOM}id")


def test_a_summary_is_plain_text_that_feed_readers_show_literally(client, publisher):
    document = DocumentFactory(draft=True, summary="Uses <b>bold</b> claims & more.")
    actions.documents.publish(document=document, user=publisher)

    feed = etree.fromstring(client.get(reverse("catalogue:feed")).content)

    summary = feed.find(f"{ATOM}entry/{ATOM}summary")
    assert summary.get("type") == "text"
    assert summary.text.endswith("Uses <b>bold</b> claims & more.")


def schema(name):
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


def test_every_sitemap_file_is_valid_and_empty_sections_are_left_out(client, record):
    index = etree.fromstring(client.get(reverse("catalogue:sitemap")).content)
    schema("siteindex.xsd").assertValid(index)
    locations = [
        loc.text
        for loc in index.iterfind(
            "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemap/"
            "{http://www.sitemaps.org/schemas/sitemap/0.9}loc"
        )
    ]
    urlset = schema("sitemap.xsd")
    for location in locations:
        response = client.get(urlsplit(location).path)
        assert response.status_code == 200, location
        urlset.assertValid(etree.fromstring(response.content))

    assert [urlsplit(location).path for location in locations] == [
        "/sitemap-pages.xml",
        "/sitemap-topics.xml",
        "/sitemap-registries.xml",
        "/sitemap-documents.xml",
        "/sitemap-decisions.xml",
        "/sitemap-tags.xml",
        "/sitemap-people.xml",
        "/sitemap-venues.xml",
    ]


def test_a_fresh_record_lists_only_sections_with_pages(client, imported_seed):
    index = etree.fromstring(client.get(reverse("catalogue:sitemap")).content)

    schema("siteindex.xsd").assertValid(index)
    assert "sitemap-decisions.xml" not in etree.tostring(index).decode()
    assert "sitemap-tags.xml" not in etree.tostring(index).decode()
    assert client.get("/sitemap-decisions.xml").status_code == 404
    assert client.get("/sitemap-tags.xml").status_code == 404


def test_the_schema_refuses_an_empty_urlset():
    empty = etree.fromstring(
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>'
    )

    assert not schema("sitemap.xsd").validate(empty)
