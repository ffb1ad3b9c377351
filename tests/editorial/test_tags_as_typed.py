"""Tags as editors type them, on every path that writes them: one tag a
comma-separated entry, shown back without quotes, and a name whose slug is an
existing tag's taken as that tag, never a second tag with a ``_1`` slug."""

import pytest
from django.urls import reverse
from taggit.models import Tag

import actions.documents
import actions.filing
from catalogue.models import Document
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db

ADD = reverse("admin:catalogue_document_add")
CHANGELIST = reverse("admin:catalogue_document_changelist")


def change_url(document):
    return reverse("admin:catalogue_document_change", args=[document.pk])


def post_form(client, url, **changes):
    data = form_data(client.get(url))
    data.update(changes)
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    return response


@pytest.fixture
def existing():
    """ "pipeline parallelism", held by a public document."""
    DocumentFactory(number=1, tags=["pipeline parallelism"], published=True)
    return Tag.objects.get()


def slugs():
    return sorted(Tag.objects.values_list("slug", flat=True))


def test_a_tag_typed_with_spaces_is_one_tag_shown_back_without_quotes(client, editor):
    client.force_login(editor)
    draft = DocumentFactory(number=4, topic=TopicFactory())

    post_form(client, change_url(draft), tags="sequence parallelism, memory")

    assert sorted(draft.tags.names()) == ["memory", "sequence parallelism"]
    shown = soup_of(client.get(change_url(draft))).select_one("#id_tags")
    assert shown["value"] == "memory, sequence parallelism"


def test_a_tag_holding_a_comma_is_typed_in_quotes_and_shown_in_them(client, editor):
    client.force_login(editor)
    draft = DocumentFactory(number=4, topic=TopicFactory())

    post_form(client, change_url(draft), tags='"Smith, Jones", memory')

    assert sorted(draft.tags.names()) == ["Smith, Jones", "memory"]
    shown = soup_of(client.get(change_url(draft))).select_one("#id_tags")
    assert shown["value"] == '"Smith, Jones", memory'


def test_a_new_document_typed_with_a_slug_alike_takes_the_existing_tag(
    client, editor, existing
):
    client.force_login(editor)
    registry = RegistryFactory()

    post_form(
        client,
        ADD,
        registry=registry.pk,
        title="GPipe",
        authors="Huang et al.",
        year="2019",
        summary="Pipelines micro-batches.",
        tags="Pipeline-Parallelism",
    )

    document = Document.objects.get(title="GPipe")
    assert list(document.tags.all()) == [existing]
    assert slugs() == ["pipeline-parallelism"]


def test_a_draft_edited_with_a_slug_alike_takes_the_existing_tag(
    client, editor, existing
):
    client.force_login(editor)
    draft = DocumentFactory(number=4)

    post_form(client, change_url(draft), tags="pipeline-parallelism")

    assert list(draft.tags.all()) == [existing]
    assert slugs() == ["pipeline-parallelism"]


def test_a_pending_revision_holds_the_existing_tag_and_publishes_it(
    client, publisher, existing
):
    client.force_login(publisher)
    public = DocumentFactory(number=4, published=True)

    post_form(client, change_url(public), tags="pipeline-parallelism")
    assert public.pending_revision().tag_names == ["pipeline parallelism"]
    actions.documents.publish(document=public, user=publisher)

    assert list(public.tags.all()) == [existing]
    assert slugs() == ["pipeline-parallelism"]


def test_new_names_alike_by_slug_are_one_new_tag_as_first_typed(editor):
    draft = DocumentFactory(number=4)

    actions.documents.edit_document(
        document=draft,
        user=editor,
        changes={"tags": ["large batch", "large-batch", "Large Batch"]},
    )

    assert list(draft.tags.names()) == ["large batch"]
    assert slugs() == ["large-batch"]


def test_the_bulk_tag_takes_the_existing_tag_and_says_its_name(
    client, publisher, existing
):
    client.force_login(publisher)
    draft = DocumentFactory(number=4)

    response = client.post(
        CHANGELIST,
        {
            "action": "add_tag_action",
            "_selected_action": [draft.pk],
            "index": 0,
            "tag": "pipeline-parallelism",
        },
        follow=True,
    )

    said = [str(message) for message in response.context["messages"]]
    assert said == ["Added “pipeline parallelism” to 1 unpublished document."]
    assert list(draft.tags.all()) == [existing]
    assert slugs() == ["pipeline-parallelism"]


def test_the_bulk_tag_reads_its_field_as_the_tags_field_does(client, publisher):
    client.force_login(publisher)
    draft = DocumentFactory(number=4)

    def add(tag):
        response = client.post(
            CHANGELIST,
            {
                "action": "add_tag_action",
                "_selected_action": [draft.pk],
                "index": 0,
                "tag": tag,
            },
            follow=True,
        )
        return [str(message) for message in response.context["messages"]]

    assert add("memory, pipelines") == [
        "Type one tag (a tag holding a comma goes in double quotes); "
        "nothing was changed."
    ]
    assert add('"Smith, Jones"') == ["Added “Smith, Jones” to 1 unpublished document."]
    assert list(draft.tags.names()) == ["Smith, Jones"]


def test_merging_into_a_slug_alike_keeps_the_existing_tag(publisher, existing):
    folded = Tag.objects.create(name="pipelining")
    DocumentFactory(number=4, tags=["pipelining"], published=True)

    kept, held = actions.filing.merge_tags(
        tags=[folded], into="pipeline-parallelism", user=publisher
    )

    assert (kept, held) == (existing, 2)
    assert slugs() == ["pipeline-parallelism"]


def test_a_tag_longer_than_the_table_holds_is_refused_by_name(client, editor):
    client.force_login(editor)
    draft = DocumentFactory(number=4)
    url = change_url(draft)
    data = form_data(client.get(url))
    data["tags"] = "memory, " + "x" * 101

    response = client.post(url, data)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["tags"] == [
        f"The tag “{'x' * 40}…” is 101 characters long; a tag holds at most 100."
    ]
    assert list(draft.tags.names()) == []
