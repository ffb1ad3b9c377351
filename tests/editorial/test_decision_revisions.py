"""A published decision record keeps what readers see: an edit through the
admin's form is held as its pending revision until a publisher publishes it."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

import actions.decisions
from catalogue.models import DecisionRecord, DecisionRevision
from tests.factories import DecisionRecordFactory
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db


def change_url(decision):
    return reverse("admin:catalogue_decisionrecord_change", args=[decision.pk])


def post_change(client, decision, button=None, **changes):
    data = form_data(client.get(change_url(decision)))
    data.update(changes)
    if button:
        data[button] = "pressed"
    return client.post(change_url(decision), data, follow=True)


def said(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


@pytest.fixture
def published():
    return DecisionRecordFactory(number=26, title="One axis for both registries")


def test_an_edit_to_a_published_record_is_held(client, publisher, published):
    client.force_login(publisher)

    response = post_change(client, published, title="One axis", note="Shorter")

    assert said(response) == ["Held as a pending revision: readers still see ADR-026."]
    assert DecisionRecord.objects.get(pk=published.pk).title == (
        "One axis for both registries"
    )
    revision = published.pending_revision()
    assert (revision.title, revision.note, revision.created_by) == (
        "One axis",
        "Shorter",
        publisher,
    )
    client.logout()
    page = soup_of(client.get(published.get_absolute_url()))
    assert page.h1.get_text() == "One axis for both registries"


def test_the_form_shows_the_held_edit_and_publishes_it(client, publisher, published):
    older = DecisionRecordFactory(number=20, title="Older")
    client.force_login(publisher)
    post_change(client, published, title="One axis", supersedes=str(older.pk))
    assert older.status == DecisionRecord.Status.ACCEPTED  # Not before publication.

    shown = form_data(client.get(change_url(published)))
    response = post_change(client, published, "_publish")

    assert shown["title"] == "One axis"
    assert said(response) == ["Published ADR-026."]
    published.refresh_from_db()
    older.refresh_from_db()
    assert published.title == "One axis"
    assert older.status == DecisionRecord.Status.SUPERSEDED
    assert published.pending_revision() is None
    assert DecisionRevision.objects.get().state == "published"


def test_a_held_edit_is_discarded(client, publisher, published):
    client.force_login(publisher)
    post_change(client, published, title="Not this")

    response = post_change(client, published, "_discard_revision")

    assert said(response) == ["Discarded the pending revision of ADR-026."]
    assert published.pending_revision() is None
    assert DecisionRecord.objects.get(pk=published.pk).title == (
        "One axis for both registries"
    )


def test_a_draft_is_edited_in_place(client, publisher):
    draft = DecisionRecordFactory(number=30, draft=True, title="Draft")
    client.force_login(publisher)

    response = post_change(client, draft, title="Better draft")

    assert said(response) == ["Saved ADR-030."]
    assert DecisionRecord.objects.get(pk=draft.pk).title == "Better draft"
    assert not DecisionRevision.objects.exists()


def test_an_edit_back_to_the_published_text_holds_nothing(publisher, published):
    edited = DecisionRecord.objects.get(pk=published.pk)
    edited.title = "Changed"
    actions.decisions.save_decision(decision=edited, user=publisher, supersedes=[])
    edited.title = published.title

    held = actions.decisions.save_decision(
        decision=edited, user=publisher, supersedes=[]
    )

    assert held is None
    assert published.pending_revision() is None


def test_the_held_edit_offers_publish_and_discard_and_stays_out_of_search(
    client, publisher, published
):
    client.force_login(publisher)
    post_change(client, published, title="Quixotic secret wording")

    soup = soup_of(client.get(change_url(published)))
    client.logout()
    found = client.get(reverse("catalogue:search"), {"q": "quixotic"})

    assert [b["name"] for b in soup.select(".workflow-buttons input")] == [
        "_publish",
        "_discard_revision",
    ]
    assert "Quixotic" not in found.content.decode()
