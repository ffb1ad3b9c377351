"""The document change form, posted as a browser posts it: every status, every
button, a document with tags, a topic and a pending revision."""

import pytest
from django.urls import reverse

import actions.documents
from catalogue.models import Document
from tests.databases import WEB_LAYER
from tests.factories import DocumentFactory, TopicFactory
from tests.html import form_data

pytestmark = [pytest.mark.django_db, WEB_LAYER]


def change_url(document):
    return reverse("admin:catalogue_document_change", args=[document.pk])


@pytest.fixture
def tagged(request):
    """A document with two tags and a topic, in the status the test names."""
    document = DocumentFactory(
        number=4, topic=TopicFactory(), status=request.param, title="Old title"
    )
    document.tags.add("memory", "Sharding")
    return document


def post_change(client, document, button=None, **changes):
    url = change_url(document)
    data = form_data(client.get(url))
    data.update(changes)
    if button:
        data[button] = "pressed"
    return client.post(url, data)


@pytest.mark.parametrize(
    "tagged",
    ["draft", "in_review", "active", "superseded", "withdrawn"],
    indirect=True,
)
@pytest.mark.parametrize("button", [None, "_continue", "_save"])
def test_a_tagged_document_saves_through_its_change_form_in_each_status(
    client, publisher, tagged, button
):
    client.force_login(publisher)

    response = post_change(client, tagged, button, title="New title")

    assert response.status_code == 302, response.content.decode()[:2000]
    document = Document.objects.get(pk=tagged.pk)
    if document.is_public:
        assert document.title == "Old title"
        assert document.pending_revision().title == "New title"
    else:
        assert document.title == "New title"
    assert sorted(actions.documents.editable_state(document)["tags"]) == [
        "Sharding",
        "memory",
    ]


@pytest.mark.parametrize("tagged", ["draft"], indirect=True)
def test_a_tagged_draft_is_submitted_and_published_from_its_form(
    client, publisher, tagged
):
    client.force_login(publisher)

    assert post_change(client, tagged, "_submit_for_review").status_code == 302
    assert post_change(client, tagged, "_publish").status_code == 302

    document = Document.objects.get(pk=tagged.pk)
    assert (document.status, document.version) == ("active", 1)
    assert sorted(document.tags.names()) == ["Sharding", "memory"]


@pytest.mark.parametrize("tagged", ["active"], indirect=True)
def test_a_revision_of_a_tagged_document_is_published_or_discarded_from_its_form(
    client, publisher, tagged
):
    client.force_login(publisher)
    post_change(client, tagged, "_continue", title="Revised", tags="memory, pipelines")

    assert post_change(client, tagged, "_publish").status_code == 302
    document = Document.objects.get(pk=tagged.pk)
    assert (document.title, document.version) == ("Revised", 2)
    assert sorted(document.tags.names()) == ["memory", "pipelines"]

    post_change(client, tagged, "_continue", title="Revised again")
    assert post_change(client, tagged, "_discard_revision").status_code == 302
    assert Document.objects.get(pk=tagged.pk).pending_revision() is None
