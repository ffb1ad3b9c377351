"""Merging tags is the record's own action, from a page that lists the tags,
what each holds, and the name to keep."""

import pytest
from auditlog.models import LogEntry
from django.urls import NoReverseMatch, reverse
from taggit.models import Tag

import actions.documents
from tests.factories import DocumentFactory, UserFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db

TAGS = reverse("admin:taggit_tag_changelist")


@pytest.fixture
def tagged():
    """LIT-784 holds "pipeline parallelism", LIT-785 "pipelining", LIT-786 both."""
    return {
        "kept": DocumentFactory(
            number=784, tags=["pipeline parallelism"], published=True
        ),
        "folded": DocumentFactory(number=785, tags=["pipelining"], published=True),
        "both": DocumentFactory(
            number=786, tags=["pipeline parallelism", "pipelining"], published=True
        ),
    }


def text_of(response, selector):
    """The text of each element ``selector`` finds, its spaces folded."""
    return [
        " ".join(element.get_text(" ").split())
        for element in soup_of(response).select(selector)
    ]


def selected():
    return list(
        Tag.objects.filter(name__in=["pipeline parallelism", "pipelining"])
        .order_by("name")
        .values_list("pk", flat=True)
    )


def merge(client, **fields):
    return client.post(
        TAGS,
        {"action": "merge_tags_action", "_selected_action": selected(), **fields},
    )


def test_the_merge_page_lists_each_tag_with_the_documents_it_holds(
    admin_client, tagged
):
    page = merge(admin_client)

    assert page.status_code == 200
    rows = text_of(page, "table.merging tbody tr")
    assert rows == [
        "pipeline parallelism LIT-784, LIT-786",
        "pipelining LIT-785, LIT-786",
    ]
    buttons = soup_of(page).select(".submit-row input[type=submit], .submit-row a")
    assert [b.get("value") or b.get_text() for b in buttons] == ["Confirm", "Cancel"]
    assert buttons[1]["href"] == TAGS
    assert list(Tag.objects.order_by("name").values_list("name", flat=True)) == [
        "pipeline parallelism",
        "pipelining",
    ]


def test_every_document_that_held_either_tag_holds_the_kept_one(
    admin_client, client, tagged, committed
):
    kept = Tag.objects.get(name="pipeline parallelism")
    # The public pages are cached before the merge.
    for path in ["/tags/pipeline-parallelism/", "/tags/pipelining/"]:
        client.get(path)
        assert client.get(path).status_code == 200

    with committed():
        response = merge(admin_client, keep=str(kept.pk), confirm="Confirm")

    assert response.status_code == 302
    holders = {name: sorted(document.tags.names()) for name, document in tagged.items()}
    assert holders == {
        "kept": ["pipeline parallelism"],
        "folded": ["pipeline parallelism"],
        "both": ["pipeline parallelism"],
    }
    assert list(Tag.objects.values_list("name", flat=True)) == ["pipeline parallelism"]
    page = client.get("/tags/pipeline-parallelism/")
    rows = [row.split()[0] for row in text_of(page, "table.documents tbody tr")]
    assert rows == ["LIT-784", "LIT-785", "LIT-786"]
    assert client.get("/tags/pipelining/").status_code == 404
    said = [str(m) for m in admin_client.get(TAGS).context["messages"]]
    assert said == ["Merged 2 tags into “pipeline parallelism”: 3 documents hold it."]


def test_a_new_name_is_kept_and_each_document_change_is_audited(admin_client, tagged):
    merge(admin_client, keep="new", new_name="Pipeline parallelism (PP)", confirm="1")

    names = [sorted(document.tags.names()) for document in tagged.values()]
    assert names == [["Pipeline parallelism (PP)"]] * 3
    for document in tagged.values():
        entries = LogEntry.objects.get_for_object(document).filter(
            changes__icontains="Pipeline parallelism (PP)"
        )
        assert entries.count() == 1, document


def test_a_pending_revision_holds_the_kept_tag(admin_client, tagged, admin_user):
    document = tagged["folded"]
    actions.documents.edit_document(
        document=document, user=admin_user, changes={"title": "Held"}
    )
    kept = Tag.objects.get(name="pipeline parallelism")

    merge(admin_client, keep=str(kept.pk), confirm="Confirm")

    assert document.pending_revision().tag_names == ["pipeline parallelism"]


def test_a_new_name_left_empty_is_asked_for_again(admin_client, tagged):
    page = merge(admin_client, keep="new", new_name="  ", confirm="Confirm")

    assert page.status_code == 200
    assert text_of(page, ".errorlist") == [
        "Type the new name, or keep one of the tags'."
    ]
    assert Tag.objects.count() == 2


def test_a_publisher_merges_and_an_editor_is_not_offered_it(client, tagged):
    client.force_login(UserFactory(editor=True))
    page = client.get(TAGS)
    assert "merge_tags_action" not in page.content.decode()

    client.force_login(UserFactory(publisher=True))
    kept = Tag.objects.get(name="pipelining")
    assert merge(client, keep=str(kept.pk), confirm="Confirm").status_code == 302
    assert list(Tag.objects.values_list("name", flat=True)) == ["pipelining"]


def test_taggits_own_merge_page_is_gone(admin_client):
    with pytest.raises(NoReverseMatch):
        reverse("admin:taggit_tag_merge_tags")
    response = admin_client.post("/admin/taggit/tag/merge-tags/", {"new_tag_name": "x"})
    assert response.status_code in {302, 404}
    assert not Tag.objects.filter(name="x").exists()
