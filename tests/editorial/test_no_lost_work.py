"""Two editors on one document: the second save is refused and merged."""

import pytest
from auditlog.models import LogEntry
from django.test import Client
from django.urls import reverse

import actions.documents
from catalogue.models import Document
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.html import form_data

pytestmark = pytest.mark.django_db


def signed_in(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def two_editors():
    return signed_in(UserFactory(editor=True)), signed_in(UserFactory(editor=True))


@pytest.mark.parametrize("trait", ["draft", "public"])
def test_the_second_save_is_refused_and_offers_a_merge_losing_nothing(
    two_editors, trait
):
    document = DocumentFactory(
        draft=trait == "draft",
        title="Title",
        summary="Summary.",
        citation_note="",
        published=True,
    )
    url = reverse("admin:catalogue_document_change", args=[document.pk])
    alice, bob = two_editors
    alice_form, bob_form = (
        form_data(alice.get(url)),
        form_data(bob.get(url)),
    )

    alice_form.update(title="Alice’s title", summary="Alice’s summary.")
    assert alice.post(url, alice_form).status_code == 302
    bob_form.update(summary="Bob’s summary — longer.", citation_note="(SoCC ‘25)")
    refused = bob.post(url, bob_form)

    assert refused.status_code == 200
    form = refused.context["adminform"].form
    assert [e.code for e in form.non_field_errors().as_data()] == ["edit_conflict"]
    assert form.merge.conflicts == ["summary"]
    assert actions.documents.editable_state(Document.objects.get())["summary"] == (
        "Alice’s summary."
    )
    # The form comes back merged: Alice's title, Bob's note, Bob's summary kept.
    page = refused.content.decode()
    assert form["title"].value() == "Alice’s title"
    assert form["citation_note"].value() == "(SoCC ‘25)"
    assert form["summary"].value() == "Bob’s summary — longer."
    assert "Alice’s summary." in page and 'name="_theirs_summary"' in page

    # Bob keeps his summary: the merge saves.
    merged = form_data(refused)
    assert bob.post(url, merged).status_code == 302
    state = actions.documents.editable_state(Document.objects.get())
    assert (state["title"], state["summary"], state["citation_note"]) == (
        "Alice’s title",
        "Bob’s summary — longer.",
        "(SoCC ‘25)",
    )


def test_the_merge_screen_can_take_the_other_editors_value(two_editors):
    document = DocumentFactory(draft=True, summary="Summary.")
    url = reverse("admin:catalogue_document_change", args=[document.pk])
    alice, bob = two_editors
    alice_form, bob_form = (
        form_data(alice.get(url)),
        form_data(bob.get(url)),
    )
    alice_form.update(summary="Alice’s.")
    alice.post(url, alice_form)
    bob_form.update(summary="Bob’s.")

    merged = form_data(bob.post(url, bob_form))
    merged["_theirs_summary"] = "1"

    assert bob.post(url, merged).status_code == 302
    assert Document.objects.get().summary == "Alice’s."


def test_a_bulk_refile_between_open_and_save_is_not_overwritten(two_editors):
    document = DocumentFactory(draft=True, topic=None)
    topic = TopicFactory()
    url = reverse("admin:catalogue_document_change", args=[document.pk])
    alice, bob = two_editors
    bob_form = form_data(bob.get(url))

    alice.post(
        reverse("admin:catalogue_document_changelist"),
        {
            "action": "refile_action",
            "_selected_action": [document.pk],
            "topic": topic.pk,
        },
    )
    bob_form.update(title="Bob’s title")
    refused = bob.post(url, bob_form)

    assert refused.status_code == 200
    assert Document.objects.get().topic == topic
    assert bob.post(url, form_data(refused)).status_code == 302
    document.refresh_from_db()
    assert (document.topic, document.title) == (topic, "Bob’s title")


def test_a_bulk_action_asks_first_then_acts_on_what_its_check_allows_audited():
    publisher = signed_in(UserFactory(publisher=True))
    drafts = DocumentFactory.create_batch(2, draft=True)
    active = DocumentFactory(published=True)
    changelist = reverse("admin:catalogue_document_changelist")
    selection = {
        "action": "submit_for_review_action",
        "_selected_action": [d.pk for d in [*drafts, active]],
    }

    asked = publisher.post(changelist, selection)

    assert f"{active.identifier} is active and will be left alone" in (
        asked.content.decode()
    )
    assert set(Document.objects.values_list("status", flat=True)) == {
        "draft",
        "active",
    }

    publisher.post(changelist, {**selection, "post": "yes"})

    assert {d.pk: d.status for d in Document.objects.all()} == {
        drafts[0].pk: "in_review",
        drafts[1].pk: "in_review",
        active.pk: "active",
    }
    submitted = LogEntry.objects.get_for_object(drafts[1]).latest("timestamp")
    assert submitted.changes_dict["status"] == ["draft", "in_review"]
    assert (
        not LogEntry.objects.get_for_object(active)
        .filter(timestamp__gt=submitted.timestamp)
        .exists()
    )

    publisher.post(
        changelist,
        {
            "action": "add_tag_action",
            "_selected_action": [drafts[0].pk],
            "tag": "memory",
        },
    )
    tagged = LogEntry.objects.get_for_object(drafts[0]).latest("timestamp")
    assert tagged.changes_dict["tags"]["objects"] == ["memory"]
    assert tagged.actor.groups.get().name == "Publisher"


def test_an_editor_cannot_use_the_publish_bulk_action():
    editor = signed_in(UserFactory(editor=True))
    draft = DocumentFactory(draft=True)

    editor.post(
        reverse("admin:catalogue_document_changelist"),
        {"action": "publish_action", "_selected_action": [draft.pk]},
    )

    assert Document.objects.get().status == Document.Status.DRAFT


@pytest.mark.parametrize("trait", ["draft", "public"])
def test_a_merge_on_a_document_that_gained_a_tag_meanwhile_saves(two_editors, trait):
    document = DocumentFactory(
        draft=trait == "draft", summary="Summary.", published=True
    )
    document.tags.add("memory")
    url = reverse("admin:catalogue_document_change", args=[document.pk])
    alice, bob = two_editors
    alice_form, bob_form = form_data(alice.get(url)), form_data(bob.get(url))
    alice_form.update(tags="memory, checkpointing")
    assert alice.post(url, alice_form).status_code == 302
    bob_form.update(summary="Bob’s summary.")

    refused = bob.post(url, bob_form)
    resaved = bob.post(url, form_data(refused))

    assert refused.status_code == 200
    assert resaved.status_code == 302
    state = actions.documents.editable_state(Document.objects.get())
    assert (sorted(state["tags"]), state["summary"]) == (
        ["checkpointing", "memory"],
        "Bob’s summary.",
    )
