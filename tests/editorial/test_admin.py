"""The editors' admin over the record."""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from catalogue.models import BrokenReference, Document
from catalogue.references import write_references
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "model", ["registry", "topic", "document", "decisionrecord", "preface"]
)
def test_every_changelist_and_add_form_opens(admin_client, model):
    DocumentFactory(published=True)
    DecisionRecordFactory()

    changelist = admin_client.get(reverse(f"admin:catalogue_{model}_changelist"))
    add = admin_client.get(reverse(f"admin:catalogue_{model}_add"))

    assert changelist.status_code == 200
    assert add.status_code in {200, 403}  # The preface is added once, by import.


def test_a_document_added_without_a_number_takes_the_next_one_as_a_draft(
    admin_client,
):
    registry = RegistryFactory()
    DocumentFactory(registry=registry, number=783, published=True)
    topic = TopicFactory()

    response = admin_client.post(
        reverse("admin:catalogue_document_add"),
        {
            "registry": registry.pk,
            "number": "",
            "topic": topic.pk,
            "tags": "memory, checkpointing",
            "authors": "Chen et al.",
            "year": "2016",
            "source_identifier": "ARXIV-1604.06174",
            "citation_note": "",
            "title": "Training Deep Nets with Sublinear Memory Cost",
            "summary": "Gradient checkpointing.",
            "superseded_by": "",
            "versions-TOTAL_FORMS": "0",
            "versions-INITIAL_FORMS": "0",
        },
    )

    assert response.status_code == 302, response.context["errors"]
    document = Document.objects.get(title__startswith="Training Deep Nets")
    assert document.number == 784
    assert sorted(document.tags.names()) == ["checkpointing", "memory"]
    assert document.status == Document.Status.DRAFT
    assert not document.versions.exists()  # Published by a publisher, later.


def test_the_admin_refuses_a_citation_that_would_not_print_back(admin_client):
    registry = RegistryFactory()

    response = admin_client.post(
        reverse("admin:catalogue_document_add"),
        {
            "registry": registry.pk,
            "status": Document.Status.DRAFT,
            "authors": "Chen et al.",
            "year": "2016",
            "source_identifier": "ISBN 978-0262035613",
            "title": "T",
            "summary": "S",
            "versions-TOTAL_FORMS": "0",
            "versions-INITIAL_FORMS": "0",
        },
    )

    assert response.status_code == 200
    assert "source_identifier" in response.context["adminform"].form.errors
    assert not Document.objects.exists()


def test_documents_cannot_be_deleted_from_the_admin(admin_client):
    document = DocumentFactory(published=True)

    response = admin_client.get(
        reverse("admin:catalogue_document_delete", args=[document.pk])
    )

    assert response.status_code == 403


def test_broken_references_are_listed_for_editors(admin_client):
    RegistryFactory(prefix="LIT")
    DocumentFactory(number=325, published=True)
    naming = DocumentFactory(
        number=7, summary="LIT-325, LIT-998, ADR-041, ARXIV-1604.", published=True
    )
    write_references(documents=[naming])
    DocumentFactory(number=998, draft=True)

    broken = BrokenReference.objects.broken()

    assert sorted(str(reference) for reference in broken) == ["ADR-041", "LIT-998"]
    response = admin_client.get(reverse("admin:catalogue_brokenreference_changelist"))
    assert response.status_code == 200
    assert "LIT-998" in response.content.decode()


def test_broken_references_in_the_preface_are_listed_for_editors(
    admin_client, imported_seed
):
    DecisionRecordFactory(number=32)
    DecisionRecordFactory(number=59, draft=True)

    response = admin_client.get(reverse("admin:catalogue_brokenreference_changelist"))

    soup = BeautifulSoup(response.content, "html.parser")
    assert [name.get_text() for name in soup.select(".preface-broken strong")] == [
        "ADR-026",
        "ADR-059",
    ]
    assert soup.select_one(".preface-broken a")["href"] == reverse(
        "admin:catalogue_preface_change", args=[1]
    )
