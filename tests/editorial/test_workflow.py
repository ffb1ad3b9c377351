"""The editorial workflow: roles, pending revisions, publishing, versions."""

import pytest
from auditlog.models import LogEntry
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

import actions.documents
from catalogue.models import Document, Revision
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
)
from tests.html import form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(publisher):
    """LIT-004, active as v1 with its version row."""
    document = DocumentFactory(number=4, draft=True, title="Old title")
    actions.documents.publish(document=document, user=publisher)
    document.refresh_from_db()
    return document


def test_editor_and_publisher_groups_exist_with_their_rights(editor, publisher):
    assert editor.has_perm("catalogue.change_document")
    assert not editor.has_perm("catalogue.publish_document")
    assert not editor.has_perm("catalogue.change_decisionrecord")
    assert publisher.has_perm("catalogue.publish_document")
    assert publisher.has_perm("catalogue.change_decisionrecord")


@pytest.mark.parametrize(
    "verb",
    [
        lambda d, u: actions.documents.publish(document=d, user=u),
        lambda d, u: actions.documents.withdraw(document=d, user=u),
        lambda d, u: actions.documents.supersede(
            document=d, successor=Document.objects.exclude(pk=d.pk).get(), user=u
        ),
    ],
    ids=["publish", "withdraw", "supersede"],
)
def test_an_editor_is_refused_the_publishers_verbs(verb, editor):
    document, _successor = DocumentFactory.create_batch(2, published=True)

    with pytest.raises(PermissionDenied):
        verb(document, editor)

    assert {d.status for d in Document.objects.all()} == {Document.Status.ACTIVE}


def test_an_editor_posting_publish_to_the_admin_is_refused_and_nothing_is_written(
    client, editor
):
    document = DocumentFactory(draft=True, title="Draft title")
    client.force_login(editor)
    url = reverse("admin:catalogue_document_change", args=[document.pk])
    data = form_data(client.get(url))
    data.update(title="Changed", _publish="Save and publish")

    response = client.post(url, data)

    assert response.status_code == 403
    document.refresh_from_db()
    assert (document.status, document.title) == (Document.Status.DRAFT, "Draft title")


def test_an_editor_drafts_and_submits_a_publisher_publishes_as_v1(editor, publisher):
    document = actions.documents.save_document(
        document=DocumentFactory.build(
            registry=RegistryFactory(), number=None, topic=None, draft=True
        ),
        user=editor,
    )
    actions.documents.submit_for_review(document=document, user=editor)
    assert not Document.objects.public().exists()

    version = actions.documents.publish(
        document=document, user=publisher, note="First."
    )

    document.refresh_from_db()
    assert document.status == Document.Status.ACTIVE
    assert (version.number, version.published_by, version.note) == (
        1,
        publisher,
        "First.",
    )
    assert version.content() == document.content()


def test_an_edit_to_a_public_document_waits_unseen_until_published(
    client, published, editor, publisher, django_capture_on_commit_callbacks
):
    actions.documents.edit_document(
        document=published,
        user=editor,
        changes={"title": "New “title” — sharper"},
        note="Sharper.",
    )

    page = client.get(published.get_absolute_url()).content.decode()
    assert "Old title" in page and "sharper" not in page
    assert Document.objects.get().title == "Old title"

    # The cached page is expired when the publication commits.
    with django_capture_on_commit_callbacks(execute=True):
        version = actions.documents.publish(document=published, user=publisher)

    published.refresh_from_db()
    assert published.title == "New “title” — sharper"
    assert (published.version, version.number, version.note) == (2, 2, "Sharper.")
    assert version.published_by == publisher
    assert (
        "New “title” — sharper"
        in client.get(published.get_absolute_url()).content.decode()
    )
    assert published.pending_revision() is None


def test_a_filing_only_change_is_recorded_but_raises_no_version(
    published, editor, publisher
):
    topic = TopicFactory(name="Inference")
    actions.documents.edit_document(
        document=published, user=editor, changes={"topic": topic, "tags": ["memory"]}
    )

    assert actions.documents.publish(document=published, user=publisher) is None

    published.refresh_from_db()
    assert (published.topic, published.version) == (topic, 1)
    assert list(published.tags.names()) == ["memory"]
    assert published.versions.count() == 1
    assert Revision.objects.get().status == Revision.Status.PUBLISHED


def test_editing_back_to_the_published_text_leaves_nothing_pending(published, editor):
    actions.documents.edit_document(
        document=published, user=editor, changes={"title": "X"}
    )
    actions.documents.edit_document(
        document=published, user=editor, changes={"title": "Old title"}
    )

    assert published.pending_revision() is None


def test_publishing_with_nothing_pending_is_refused(published, publisher):
    with pytest.raises(ValidationError) as raised:
        actions.documents.publish(document=published, user=publisher)

    assert raised.value.code == "nothing_to_publish"


def test_a_draft_is_edited_in_place(editor):
    document = DocumentFactory(draft=True)

    assert (
        actions.documents.edit_document(
            document=document, user=editor, changes={"title": "Better"}
        )
        is None
    )
    assert Document.objects.get().title == "Better"


def test_a_public_document_cannot_be_saved_in_place(editor):
    document = DocumentFactory(published=True)
    document.title = "Sneaked in"

    with pytest.raises(ValidationError) as raised:
        actions.documents.save_document(document=document, user=editor)

    assert raised.value.code == "public_document"


def test_superseded_and_withdrawn_documents_say_so_and_link_the_successor(
    client, publisher
):
    old, new = (
        DocumentFactory(number=26, published=True),
        DocumentFactory(number=61, title="Newer", published=True),
    )
    actions.documents.supersede(document=old, successor=new, user=publisher)
    gone = DocumentFactory(number=7, published=True)
    actions.documents.withdraw(document=gone, user=publisher)

    page = client.get(old.get_absolute_url()).content.decode()
    assert "Superseded by" in page and new.get_absolute_url() in page
    assert "Withdrawn" in client.get(gone.get_absolute_url()).content.decode()


def test_a_document_cannot_be_superseded_by_a_draft(publisher):
    with pytest.raises(ValidationError) as raised:
        actions.documents.supersede(
            document=DocumentFactory(published=True),
            successor=DocumentFactory(draft=True),
            user=publisher,
        )

    assert raised.value.code == "not_public"


def test_revert_proposes_an_old_version_as_a_new_pending_revision(
    published, editor, publisher
):
    actions.documents.edit_document(
        document=published, user=editor, changes={"title": "Two"}
    )
    actions.documents.publish(document=published, user=publisher)
    v1 = published.versions.get(number=1)

    actions.documents.revert(document=published, version=v1, user=editor)
    actions.documents.publish(document=published, user=publisher)

    published.refresh_from_db()
    assert (published.version, published.title) == (3, "Old title")
    assert [v.number for v in published.versions.all()] == [3, 2, 1]
    assert published.versions.get(number=1).title == "Old title"


def test_every_change_is_attributed_with_old_and_new_values(
    published, editor, publisher
):
    actions.documents.edit_document(
        document=published, user=editor, changes={"title": "Two"}
    )
    actions.documents.publish(document=published, user=publisher)
    published.tags.add("memory")

    entries = (
        LogEntry.objects.get_for_object(published)
        .filter(action=LogEntry.Action.UPDATE)
        .order_by("timestamp")
    )
    title_change = next(e for e in entries if "title" in e.changes_dict)
    assert title_change.actor == publisher
    assert title_change.changes_dict["title"] == ["Old title", "Two"]
    tag_change = next(e for e in entries if "tags" in e.changes_dict)
    assert tag_change.changes_dict["tags"]["objects"] == ["memory"]
    revision = Revision.objects.get()
    assert LogEntry.objects.get_for_object(revision).first().actor in {
        editor,
        publisher,
    }
