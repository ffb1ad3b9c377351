"""Names in text become links for readers; pages show who names them."""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from catalogue.models import Preface
from catalogue.references import resolve, write_references
from public.links import link_names
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    TopicFactory,
)

pytestmark = pytest.mark.django_db


def linked_html(text):
    return str(link_names(text, resolve([text])))


def test_a_name_of_a_public_document_links_to_it():
    DocumentFactory(number=325, published=True)

    html = linked_html("As LIT-325 shows, <b>bold</b> stays text.")

    soup = BeautifulSoup(html, "html.parser")
    assert [(a.get_text(), a["href"]) for a in soup.find_all("a")] == [
        ("LIT-325", "/LIT-325/")
    ]
    assert soup.get_text() == "As LIT-325 shows, <b>bold</b> stays text."


@pytest.mark.parametrize("trait", ["draft", "in_review"])
def test_a_name_of_an_unpublished_or_missing_record_stays_plain_text(trait):
    DocumentFactory(number=325, **{trait: True})

    html = linked_html("Compare LIT-325, LIT-999 and ADR-001.")

    assert html == "Compare LIT-325, LIT-999 and ADR-001."


def test_a_name_of_a_retired_document_says_so_and_links_its_successor():
    successor = DocumentFactory(number=10, published=True)
    DocumentFactory(number=4, status="superseded", superseded_by=successor)
    DocumentFactory(number=5, withdrawn=True)

    soup = BeautifulSoup(linked_html("See LIT-004 and LIT-005."), "html.parser")

    assert soup.get_text() == (
        "See LIT-004 (superseded by LIT-010) and LIT-005 (withdrawn)."
    )
    assert [a["href"] for a in soup.find_all("a")] == [
        "/LIT-004/",
        "/LIT-010/",
        "/LIT-005/",
    ]


def test_a_name_of_an_old_version_says_a_newer_one_exists():
    DocumentFactory(number=4, version=4, published=True)

    soup = BeautifulSoup(linked_html("As LIT-004 v2 argued."), "html.parser")

    assert soup.get_text() == "As LIT-004 v2 (a newer version, v4, exists) argued."


def test_decision_record_names_link_to_decision_pages():
    DecisionRecordFactory(number=26)

    soup = BeautifulSoup(linked_html("Filed by ADR-026."), "html.parser")

    assert soup.a["href"] == reverse(
        "catalogue:decision-detail", kwargs={"identifier": "ADR-026"}
    )


def with_references(document):
    write_references(documents=[document])
    return document


def test_document_page_lists_public_records_that_name_it(client):
    target = DocumentFactory(number=325, published=True)
    citing = with_references(
        DocumentFactory(number=7, summary="Extends LIT-325.", published=True)
    )
    with_references(DocumentFactory(number=8, summary="Drafts LIT-325.", draft=True))
    decision = DecisionRecordFactory(number=32, body="We follow LIT-325.")
    write_references(decisions=[decision])

    soup = BeautifulSoup(client.get(target.get_absolute_url()).content, "html.parser")

    assert [a.get_text() for a in soup.select(".referenced-by a")] == [
        "ADR-032",
        "LIT-007",
    ]
    assert citing.references.get().number == 325


def test_summaries_link_their_names_on_the_topic_page(client):
    topic = TopicFactory()
    DocumentFactory(number=325, topic=topic, published=True)
    DocumentFactory(
        number=7,
        topic=topic,
        source_identifier="ARXIV-1604.06174",
        summary="Extends LIT-325 and LIT-999, as DOI:10.1109/TAC.2003.812781 did.",
        published=True,
    )

    soup = BeautifulSoup(client.get(topic.get_absolute_url()).content, "html.parser")

    summary = soup.select("td.summary")[0]
    assert [(a.get_text(), a["href"]) for a in summary.find_all("a")] == [
        ("ARXIV-1604.06174", "https://arxiv.org/abs/1604.06174"),
        ("LIT-325", "/LIT-325/"),
        ("DOI:10.1109/TAC.2003.812781", "https://doi.org/10.1109/TAC.2003.812781"),
    ]


def test_the_preface_links_its_decision_records(client):
    Preface.objects.create(text="The axis (ADR-026), not ADR-059.")
    DecisionRecordFactory(number=26)

    soup = BeautifulSoup(client.get(reverse("catalogue:index")).content, "html.parser")

    assert [a.get_text() for a in soup.select(".preface a")] == ["ADR-026"]
