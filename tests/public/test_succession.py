"""Supersession is told both ways (pages, feeds, citation notes), and every
withdrawal and reinstatement is a feed entry whatever the document's age."""

import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

import actions.documents
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def entries(client, path):
    """(title, summary, id) of each entry of the feed at ``path``."""
    feed = ET.fromstring(client.get(path).content)
    return [
        (
            entry.findtext(f"{ATOM}title"),
            entry.findtext(f"{ATOM}summary"),
            entry.findtext(f"{ATOM}id"),
        )
        for entry in feed.iter(f"{ATOM}entry")
    ]


@pytest.fixture
def pair():
    topic = TopicFactory(slug="distributed")
    older = DocumentFactory(number=98, topic=topic, title="GPipe", published=True)
    newer = DocumentFactory(number=784, topic=topic, title="PipeDream", published=True)
    return older, newer


def test_the_newer_documents_page_says_what_it_supersedes(client, pair, committed):
    older, newer = pair
    client.get("/LIT-784/")
    assert client.get("/LIT-784/").status_code == 200  # Cached.

    with committed():
        actions.documents.supersede(
            document=older, successor=newer, user=UserFactory(publisher=True)
        )

    notice = soup_of(client.get("/LIT-784/")).select_one(".notice.supersedes")
    assert notice.get_text() == "Supersedes LIT-098: GPipe."
    assert notice.a["href"] == "/LIT-098/"
    older_notice = soup_of(client.get("/LIT-098/")).select_one(".notice")
    assert older_notice.get_text() == "Superseded by LIT-784: PipeDream."


def test_supersession_is_in_both_documents_feed_entries_and_citations(client, pair):
    older, newer = pair
    actions.documents.supersede(
        document=older, successor=newer, user=UserFactory(publisher=True)
    )

    found = entries(client, reverse("catalogue:feed"))

    assert found[0][0] == "LIT-098 superseded: GPipe"
    assert found[0][1].startswith("Superseded by LIT-784: PipeDream (")
    summaries = {title: summary for title, summary, _ in found}
    assert summaries["LIT-784: PipeDream"].startswith("Supersedes LIT-098.\n\n")
    assert summaries["LIT-098: GPipe"].startswith("Superseded by LIT-784.\n\n")
    bibtex = client.get("/LIT-784/cite.bib").content.decode()
    assert "Supersedes LIT-098." in bibtex
    ris = client.get("/LIT-098/cite.ris").content.decode()
    assert "Superseded by LIT-784." in ris


def test_withdrawing_and_reinstating_an_old_document_are_feed_entries(
    client, committed
):
    topic = TopicFactory(slug="distributed")
    old = DocumentFactory(number=56, topic=topic, title="Old work", published=True)
    for number in range(100, 160):
        DocumentFactory(number=number, topic=topic, published=True)
    publisher = UserFactory(publisher=True)
    for path in [reverse("catalogue:feed"), "/topics/distributed/feed/"]:
        client.get(path)
        assert "LIT-056" not in client.get(path).content.decode()  # Cached.

    with committed():
        actions.documents.withdraw(
            document=old, user=publisher, reason="Retracted by its authors."
        )
    with committed():
        actions.documents.reinstate(document=old, user=publisher)

    for path in [reverse("catalogue:feed"), "/topics/distributed/feed/"]:
        found = entries(client, path)
        assert len(found) == 50
        (reinstated, _, first_id), (withdrawn, reason, second_id) = found[:2]
        assert reinstated == "LIT-056 reinstated: Old work"
        assert withdrawn == "LIT-056 withdrawn: Old work"
        assert reason.endswith("Reason: Retracted by its authors.")
        assert reason.startswith("Withdrawn on ")
        assert first_id != second_id
        assert first_id.split("#")[0].endswith("/LIT-056/")


def test_a_drafts_notices_never_reach_a_feed(client):
    draft = DocumentFactory(title="Unpublished")
    published = DocumentFactory(published=True)
    actions.documents.withdraw(
        document=published, user=UserFactory(publisher=True), reason="x"
    )

    titles = [title for title, _, _ in entries(client, reverse("catalogue:feed"))]

    assert not any(draft.title in title for title in titles)
