"""A reader suggests a correction without an account: the form holds what
readers see, only what the reader changed is proposed, the action's
refusals show on the fields they concern, a robot filling the honeypot is
answered as a reader is and writes nothing, and the answer is the private
page where the reader follows the request."""

from pathlib import Path

import pytest
from django.core import mail
from django.test import Client
from django.urls import resolve, reverse

import actions.corrections
import actions.documents
from catalogue.models import Correction
from public import scopes
from tests.factories import (
    DecisionLogFactory,
    DecisionRecordFactory,
    DocumentFactory,
    UserFactory,
)
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
FORM = "form.correction-form"
AUTHORS = [
    {"family": "Chen", "given": "Tianqi"},
    {"family": "Xu", "given": "Bing"},
]


@pytest.fixture
def document():
    """LIT-219, public, with two of its authors recorded."""
    return DocumentFactory(
        number=219,
        title="Memory-efficient training",
        authors="Chen and Xu",
        author_list=AUTHORS,
        year=2016,
        venue="",
        publication_date="2016-04",
        source_identifier="ARXIV-1604.06174",
        published=True,
    )


def form_url(document):
    return reverse("corrections:document", kwargs={"identifier": document.identifier})


def the_form(client, path):
    """What a browser posts of the form at ``path``, untouched."""
    response = client.get(path)
    assert response.status_code == 200
    return form_data(response, FORM)


def test_the_form_holds_what_readers_see(client, document):
    soup = soup_of(client.get(form_url(document)))

    assert form_data_of(soup) == {
        "title": "Memory-efficient training",
        "authors": "Chen and Xu",
        "author_list": "Chen, Tianqi\nXu, Bing",
        "year": "2016",
        "venue": "",
        "publication_date": "2016-04",
        "source_identifier": "ARXIV-1604.06174",
        "doi": "",
        "note": "",
        "reason": "",
        "email": "",
        "website": "",
    }
    assert soup.select_one("h1").get_text() == "Suggest a correction"
    # Every input has its label.
    for field in soup.select(f"{FORM} input:not([type=hidden]), {FORM} textarea"):
        assert soup.select_one(f"label[for={field['id']}]") is not None, field["id"]


def form_data_of(soup):
    data = {}
    for field in soup.select(f"{FORM} input[name], {FORM} textarea[name]"):
        if field["name"] == "csrfmiddlewaretoken":
            continue
        if field.name == "textarea":
            data[field["name"]] = field.get_text().removeprefix("\n")
        else:
            data[field["name"]] = field.get("value", "")
    return data


def test_a_citations_names_are_offered_when_no_list_is_recorded(client):
    document = DocumentFactory(
        number=4, authors="Chen et al.", author_list=[], published=True
    )
    data = the_form(client, form_url(document))
    assert data["author_list"] == "Chen"

    data["author_list"] = "Chen\r\nXu, Bing\r\nCoreWeave\r\n{Wan Team, Alibaba}"
    response = client.post(form_url(document), data)

    assert response.status_code == 302
    assert Correction.objects.get().changes == {
        "author_list": [
            {"family": "Chen"},
            {"family": "Xu", "given": "Bing"},
            {"literal": "CoreWeave"},
            {"literal": "Wan Team, Alibaba"},
        ]
    }


def test_a_reader_adds_a_coauthor_and_lands_on_the_private_page(client, document):
    data = the_form(client, form_url(document))
    # A browser sends a textarea's lines with CRLF.
    data["author_list"] = "Chen, Tianqi\r\nXu, Bing\r\nGuestrin, Carlos"
    data["reason"] = "The arXiv listing names a third author."
    data["email"] = "reader@example.org"

    response = client.post(form_url(document), data)

    correction = Correction.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "corrections:follow", kwargs={"token": correction.token()}
    )
    assert correction.changes == {
        "author_list": [*AUTHORS, {"family": "Guestrin", "given": "Carlos"}]
    }
    assert correction.current == {"author_list": AUTHORS}
    assert (correction.origin, correction.status) == ("reader", "pending")
    assert correction.reason == "The arXiv listing names a third author."
    assert correction.email == "reader@example.org"
    document.refresh_from_db()
    assert document.author_list == AUTHORS
    assert mail.outbox == []


def test_only_the_fields_a_reader_changed_are_proposed(client, document):
    data = the_form(client, form_url(document))
    # Untouched lines come back with CRLF and trailing spaces: not a change.
    data["author_list"] = "Chen, Tianqi  \r\nXu, Bing\r\n"
    data["year"] = "2017"
    data["title"] = "Memory-efficient training of deep nets"

    assert client.post(form_url(document), data).status_code == 302

    correction = Correction.objects.get()
    assert correction.changes == {
        "title": "Memory-efficient training of deep nets",
        "year": 2017,
    }
    assert correction.current == {"title": "Memory-efficient training", "year": 2016}


def test_a_note_alone_is_a_proposal(client, document):
    data = the_form(client, form_url(document))
    data["note"] = "The summary says 8×, the paper says ≈4×."

    assert client.post(form_url(document), data).status_code == 302
    correction = Correction.objects.get()
    assert (correction.changes, correction.note) == (
        {},
        "The summary says 8×, the paper says ≈4×.",
    )


def test_nothing_changed_and_no_note_is_said_and_nothing_kept(client, document):
    response = client.post(form_url(document), the_form(client, form_url(document)))

    soup = soup_of(response)
    assert (
        "Nothing is changed and there is no note"
        in soup.select_one("#form-errors").get_text()
    )
    assert not Correction.objects.exists()


def test_each_refusal_shows_on_its_field_linked_for_screen_readers(client, document):
    data = the_form(client, form_url(document))
    data["year"] = "sixteen"
    data["author_list"] = "Chen, Tianqi\nXu, Bing, Jr, III"
    data["email"] = "not an address"

    soup = soup_of(client.post(form_url(document), data))

    errors = {
        node["id"]: node.get_text(" ") for node in soup.select("ul.errorlist[id]")
    }
    assert sorted(errors) == [
        "id_author_list_errors",
        "id_email_errors",
        "id_year_errors",
    ]
    assert "Line 2 (‘Xu, Bing, Jr, III’)" in errors["id_author_list_errors"]
    year = soup.select_one("#id_year")
    assert year["aria-invalid"] == "true"
    assert year["aria-describedby"] == "id_year_errors"
    author_list = soup.select_one("#id_author_list")
    assert author_list["aria-describedby"] == (
        "id_author_list_helptext id_author_list_errors"
    )
    # What the reader typed stays.
    assert soup.select_one("#id_email")["value"] == "not an address"
    assert not Correction.objects.exists()


def test_the_actions_refusal_shows_on_the_field_it_names(client, document):
    data = the_form(client, form_url(document))
    data["publication_date"] = "April 2016"

    soup = soup_of(client.post(form_url(document), data))

    assert (
        "2016, 2016-04 or 2016-04-21"
        in soup.select_one("#id_publication_date_errors").get_text()
    )
    assert soup.select_one("#id_publication_date")["aria-invalid"] == "true"
    assert not Correction.objects.exists()


def test_a_filled_honeypot_is_answered_as_a_reader_is_and_keeps_nothing(
    client, document
):
    data = the_form(client, form_url(document))
    data["title"] = "Cheap pills"
    data["website"] = "http://spam.example/"

    response = client.post(form_url(document), data)

    assert response.status_code == 302
    assert response["Location"].startswith("/corrections/")
    assert not Correction.objects.exists()
    received = soup_of(client.get(response["Location"]))
    assert received.select_one(".correction-status").get_text() == "Waiting"
    assert "Cheap pills" not in str(received)


def test_the_honeypot_is_out_of_sight_and_reach(client, document):
    soup = soup_of(client.get(form_url(document)))

    trap = soup.select_one(".trap")
    assert trap["aria-hidden"] == "true"
    field = trap.select_one("input")
    assert (field["name"], field["tabindex"], field["autocomplete"]) == (
        "website",
        "-1",
        "off",
    )
    stylesheet = (ROOT / "static" / "css" / "corrections.css").read_text()
    assert ".correction-form .trap { display: none; }" in stylesheet


def test_a_post_without_the_csrf_token_is_refused(document):
    browser = Client(enforce_csrf_checks=True)
    data = the_form(browser, form_url(document))
    data["title"] = "A better title"
    forged = {
        name: value for name, value in data.items() if name != "csrfmiddlewaretoken"
    }

    assert (
        Client(enforce_csrf_checks=True).post(form_url(document), data).status_code
        == 403
    )
    assert browser.post(form_url(document), forged).status_code == 403
    assert not Correction.objects.exists()
    assert browser.post(form_url(document), data).status_code == 302
    assert Correction.objects.count() == 1


@pytest.mark.parametrize("kind", ["draft", "in_review", "unknown"])
def test_only_a_public_document_has_a_form(client, kind):
    if kind == "unknown":
        path = "/LIT-999/correct/"
    else:
        path = form_url(DocumentFactory(number=5, **{kind: True}))

    assert client.get(path).status_code == 404
    assert client.post(path, {"title": "x", "note": "y"}).status_code == 404
    assert not Correction.objects.exists()


def test_a_decision_records_form_holds_its_title_and_date(client):
    decision = DecisionRecordFactory(
        number=26, title="One axis for both registries", decided_on="2025-03-01"
    )
    path = reverse("corrections:decision", kwargs={"identifier": decision.identifier})
    data = the_form(client, path)
    assert (data["title"], data["decided_on"]) == (
        "One axis for both registries",
        "2025-03-01",
    )

    data["decided_on"] = "2025-03-02"
    assert client.post(path, data).status_code == 302

    correction = Correction.objects.get()
    assert correction.decision == decision
    assert correction.changes == {"decided_on": "2025-03-02"}
    assert correction.current == {"decided_on": "2025-03-01"}


def test_a_teams_decision_record_has_its_form_and_a_draft_none(client):
    log = DecisionLogFactory(name="Platform", slug="platform", prefix="ADR")
    decision = DecisionRecordFactory(log=log, number=3, title="Split the ledger")
    draft = DecisionRecordFactory(log=log, number=4, draft=True)
    kwargs = {"log": "platform", "identifier": decision.identifier}

    path = reverse("corrections:log-decision", kwargs=kwargs)
    assert client.get(path).status_code == 200
    assert (
        client.get(f"/decisions/platform/{draft.identifier}/correct/").status_code
        == 404
    )
    # The record's own log holds no ADR-003.
    assert client.get(f"/decisions/{decision.identifier}/correct/").status_code == 404


def test_the_pages_link_to_their_forms(client, document):
    decision = DecisionRecordFactory(number=26)

    page = soup_of(client.get(document.get_absolute_url()))
    record = soup_of(client.get(decision.get_absolute_url()))

    assert page.select_one(".suggest-correction a")["href"] == "/LIT-219/correct/"
    assert record.select_one(".suggest-correction a")["href"] == (
        f"/decisions/{decision.identifier}/correct/"
    )


def test_the_form_is_never_cached_nor_indexed(client, document):
    path = form_url(document)

    assert scopes.page_scopes(resolve(path)) is None
    first = client.get(path)
    client.get(path)
    edit = actions.documents.edit_document(
        document=document,
        user=UserFactory(publisher=True),
        changes={"title": "Training with sublinear memory"},
    )
    assert edit is not None
    actions.documents.publish(document=document, user=UserFactory(publisher=True))
    again = client.get(path)

    for response in first, again:
        cache_control = {part.strip() for part in response["Cache-Control"].split(",")}
        assert {"no-store", "private", "no-cache", "max-age=0"} <= cache_control
        assert response["X-Robots-Tag"] == "noindex, nofollow"
        robots = soup_of(response).select_one("meta[name=robots]")
        assert robots["content"] == "noindex, nofollow"
    assert form_data(again, FORM)["title"] == "Training with sublinear memory"


def test_the_form_takes_get_and_post_only(client, document):
    assert client.put(form_url(document), "title=x").status_code == 405
    assert client.delete(form_url(document)).status_code == 405


def test_a_proposal_becomes_the_desks_and_the_reader_is_told(client, document):
    """The whole way: the form, the desk's decision, the private page."""
    data = the_form(client, form_url(document))
    data["title"] = "Memory-efficient training of deep nets"
    data["email"] = "reader@example.org"
    follow = client.post(form_url(document), data)["Location"]
    correction = Correction.objects.get()

    actions.corrections.decline(
        correction=correction,
        user=UserFactory(publisher=True),
        public_reason="The paper's own title page reads as we have it.",
        private_reason="Spam-adjacent.",
    )
    page = soup_of(client.get(follow))

    assert page.select_one(".correction-status").get_text() == "Declined"
    assert page.select_one(".public-reason").get_text() == (
        "The paper's own title page reads as we have it."
    )
    assert "Spam-adjacent" not in str(page)


def test_a_pending_revision_is_not_what_the_form_holds(client, document):
    actions.documents.edit_document(
        document=document,
        user=UserFactory(editor=True),
        changes={"title": "An unpublished title", "year": 2017},
    )

    data = the_form(client, form_url(document))

    assert (data["title"], data["year"]) == ("Memory-efficient training", "2016")
    assert "An unpublished title" not in client.get(form_url(document)).content.decode()
