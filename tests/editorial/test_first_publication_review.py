"""A document never published is reviewed whole before its first
publication, as a pending revision is."""

import pytest
from django.urls import reverse

from catalogue.models import Document
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def in_review():
    topic = TopicFactory(name="Distributed optimization")
    return DocumentFactory(
        number=12,
        in_review=True,
        topic=topic,
        title="PipeDream",
        authors="Narayanan et al.",
        year=2019,
        summary="Builds on LIT-004.",
        tags=["pipelining", "memory"],
    )


def review(document):
    return reverse("admin:catalogue_document_review", args=[document.pk])


def test_the_review_shows_the_whole_document_with_publish_and_back(client, in_review):
    client.force_login(UserFactory(publisher=True))
    change = client.get(reverse("admin:catalogue_document_change", args=[in_review.pk]))
    links = [a.get_text() for a in soup_of(change).select(".object-tools a")]
    assert "Review and publish" in links

    soup = soup_of(client.get(review(in_review)))

    view = soup.select_one(".reader-view")
    assert view.h2.get_text() == "PipeDream"
    assert (
        view.select_one(".reference").get_text().startswith("Narayanan et al. (2019)")
    )
    facts = [dd.get_text() for dd in view.select("dd")]
    assert facts[:2] == ["Distributed optimization", "memory, pipelining"]
    buttons = soup.select(".review-decision input[type=submit], .review-decision a")
    assert [b.get("value") or b.get_text() for b in buttons] == [
        "Publish",
        "Back to editing",
        "Preview the page",
    ]


def test_publishing_from_the_review_makes_v1(client, in_review):
    client.force_login(UserFactory(publisher=True))

    response = client.post(review(in_review), {"_publish": "Publish"}, follow=True)

    assert [str(m) for m in response.context["messages"]] == ["Published LIT-012 v1."]
    in_review.refresh_from_db()
    assert in_review.status == Document.Status.ACTIVE
    assert list(in_review.versions.values_list("number", flat=True)) == [1]


def test_an_editor_sees_the_review_without_publish(client, in_review):
    client.force_login(UserFactory(editor=True))

    soup = soup_of(client.get(review(in_review)))

    assert soup.select(".review-decision input[name=_publish]") == []


def test_the_add_form_shows_no_number_nobody_can_edit(admin_client):
    soup = soup_of(admin_client.get(reverse("admin:catalogue_document_add")))

    for name in ["number", "version", "status"]:
        assert soup.select(f".field-{name}") == [], name
    assert soup.select(".field-registry")
