"""The tags offered as an editor types into a document's Tags field: a small
JSON list, for whoever may add or edit documents, at one query for the tags."""

import pytest
from django.urls import reverse
from taggit.models import Tag

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

OFFERS = reverse("admin:taggit_tag_names")


@pytest.fixture
def tags():
    for name in [
        "sequence parallelism",
        "Pipeline parallelism",
        "parallel prefix",
        "memory",
        "pipelines",
    ]:
        Tag.objects.create(name=name)


def offered(client, typed):
    response = client.get(OFFERS, {"q": typed})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()["tags"]


def test_names_starting_with_the_typed_text_come_first_then_names_holding_it(
    client, editor, tags
):
    client.force_login(editor)

    assert offered(client, "PARALLEL") == [
        "parallel prefix",
        "Pipeline parallelism",
        "sequence parallelism",
    ]
    assert offered(client, "pipe") == ["Pipeline parallelism", "pipelines"]


def test_a_slug_spelling_offers_the_tag_it_would_be_taken_as(client, editor, tags):
    client.force_login(editor)

    assert offered(client, "pipeline-par") == ["Pipeline parallelism"]


def test_nothing_typed_offers_nothing(client, editor, tags):
    client.force_login(editor)

    assert offered(client, "  ") == []
    assert offered(client, "zzz") == []


def test_at_most_ten_are_offered(client, editor):
    client.force_login(editor)
    for n in range(12):
        Tag.objects.create(name=f"batch {n:02}")

    assert offered(client, "batch") == [f"batch {n:02}" for n in range(10)]


def test_the_offers_cost_one_query_beyond_the_session_and_the_rights(
    client, editor, tags, django_assert_num_queries
):
    client.force_login(editor)
    # The session, the user, the user's and the group's permissions, the tags.
    with django_assert_num_queries(5):
        assert offered(client, "p") == [
            "parallel prefix",
            "Pipeline parallelism",
            "pipelines",
            "sequence parallelism",
        ]


def test_staff_who_may_not_edit_documents_are_refused(client, tags):
    client.force_login(UserFactory(is_staff=True))

    assert client.get(OFFERS, {"q": "p"}).status_code == 403
