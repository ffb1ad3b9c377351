"""Every way an editor or a reader types text into the record refuses a
character XML cannot carry (a control character, a noncharacter) on the
field it was typed in, and writes nothing; what a lookup's answer holds of
them, which nobody typed, is dropped from it."""

import pytest
from django.urls import reverse
from django.utils import timezone

from catalogue.models import CandidateTopic, Correction, Document, Person, Topic
from sources.metadata import look_up
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory
from tests.html import form_data

pytestmark = pytest.mark.django_db


def holds(what):
    return f"holds {what}, which no text of the record may hold; remove it"


VT = holds("a control character (U+000B)")
SOH = holds("a control character (U+0001)")
FFFE = holds("a noncharacter (U+FFFE)")


def add_document(client, **fields):
    return client.post(
        reverse("admin:catalogue_document_add"),
        {
            "registry": RegistryFactory().pk,
            "authors": "Chen et al.",
            "year": "2016",
            "title": "Training Deep Nets",
            "summary": "Gradient checkpointing.",
            "versions-TOTAL_FORMS": "0",
            "versions-INITIAL_FORMS": "0",
            **fields,
        },
    )


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"title": "Training\x01 Deep Nets"}, "title", SOH),
        ({"summary": "Gradient\ufffe checkpointing."}, "summary", FFFE),
        ({"author_list": "Chen, Ti\x01anqi"}, "author_list", SOH),
        ({"tags": "memory, check\x0bpointing"}, "tags", VT),
        # The change note is the form's own field: the model never sees it.
        ({"note": "First\x0b draft"}, "note", VT),
    ],
    ids=["title", "summary", "author list", "tag", "change note"],
)
def test_the_document_form_refuses_it_on_its_field(
    admin_client, fields, field, message
):
    response = add_document(admin_client, **fields)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors[field] == [message]
    assert not Document.objects.exists()


def test_a_withdrawal_reason_is_refused_on_its_field(client, publisher):
    document = DocumentFactory(published=True)
    client.force_login(publisher)
    url = reverse("admin:catalogue_document_withdraw", args=[document.pk])

    response = client.post(url, {"reason": "Retracted\x1b."})

    assert response.status_code == 200
    assert response.context["form"].errors["reason"] == [
        holds("a control character (U+001B)")
    ]
    assert Document.objects.get().status == Document.Status.ACTIVE


def test_a_tag_added_to_many_documents_is_refused_naming_it(admin_client):
    document = DocumentFactory()

    response = admin_client.post(
        reverse("admin:catalogue_document_changelist"),
        {
            "action": "add_tag_action",
            "_selected_action": [document.pk],
            "index": 0,
            "tag": "memory\ufffe",
        },
        follow=True,
    )

    assert [str(message) for message in response.context["messages"]] == [
        f"The tag {FFFE}; nothing was changed."
    ]
    assert list(document.tags.names()) == []


def test_a_tag_renamed_in_its_admin_is_refused_on_its_name(admin_client):
    document = DocumentFactory(tags=["memory"])
    tag = document.tags.get()
    url = reverse("admin:taggit_tag_change", args=[tag.pk])

    response = admin_client.post(url, {"name": "mem\x0bory", "slug": "memory"})

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["name"] == [VT]
    assert list(document.tags.names()) == ["memory"]


def test_a_topic_made_in_its_admin_is_refused_on_its_field(admin_client):
    response = admin_client.post(
        reverse("admin:catalogue_topic_add"),
        {
            "name": "Memory\uffff",
            "slug": "memory",
            "scope": "Checkpointing",
            "flavour": "kind",
            "position": "1",
        },
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["name"] == [
        holds("a noncharacter (U+FFFF)")
    ]
    assert not Topic.objects.exists()


def test_a_person_name_is_refused_on_its_field(admin_client):
    DocumentFactory(
        author_list=[{"family": "Rajbhandari", "given": "Samyam"}], published=True
    )
    person = Person.objects.get()
    url = reverse("admin:catalogue_person_change", args=[person.pk])
    data = form_data(admin_client.get(url))
    data.update(name_line="Rajbhandari, Sam\x01yam", affiliation="Micro\ufffesoft")

    response = admin_client.post(url, data)

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["name_line"] == [SOH]
    assert errors["affiliation"] == [FFFE]
    person.refresh_from_db()
    assert person.name == {"family": "Rajbhandari", "given": "Samyam"}


def test_a_readers_correction_is_refused_on_its_field(client):
    document = DocumentFactory(
        number=219, title="Memory-efficient training", published=True
    )
    url = reverse("corrections:document", kwargs={"identifier": document.identifier})
    data = form_data(client.get(url), "form.correction-form")
    data.update(title="Memory-efficient\x0b training", note="See\ufffe the paper.")

    response = client.post(url, data)

    assert response.status_code == 200
    errors = response.context["form"].errors
    assert errors["title"] == [VT]
    assert errors["note"] == [FFFE]
    assert not Correction.objects.exists()


def test_a_topic_made_of_a_candidate_is_refused_naming_its_field(admin_client):
    candidate = CandidateTopic.objects.create(
        name="Pipelines", members_key="pipelines", computed_at=timezone.now()
    )
    TopicFactory()

    response = admin_client.post(
        reverse("admin:catalogue_topic_candidate"),
        {"candidate": candidate.pk, "name": "Pipe\x1blines", "scope": ""},
        follow=True,
    )

    assert [str(message) for message in response.context["messages"]] == [
        f"The topic's name: {holds('a control character (U+001B)')}"
    ]
    assert Topic.objects.count() == 1


def test_a_crossref_answer_holding_them_is_cleaned_not_refused(metadata_sources):
    work = look_up("10.5555/control.characters")

    assert work.title == "Sparse k-means on GPU clusters: a study"
    assert work.author_list == [{"family": "Li", "given": "Chen"}]
    assert work.venue == "Journal of Parallel Learning"
    assert work.form_fields()["authors"] == "Li"
