"""The list's bulk actions say what they did, counted by outcome, when they
are started from a filtered list or from one of the desk's queues: the rows
they changed often no longer match the filter they were chosen by."""

import pytest
from auditlog.context import set_actor
from django.urls import reverse

import actions.documents
from catalogue.models import Document
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:catalogue_document_changelist")


@pytest.fixture
def desk(client):
    user = UserFactory(publisher=True)
    client.force_login(user)
    client.user = user
    return client


def bulk(client, query, action, documents, **extra):
    """Post ``action`` on ``documents`` from the list filtered by ``query``,
    as the list's form does; the messages the next page shows."""
    response = client.post(
        f"{CHANGELIST}?{query}",
        {
            "action": action,
            "_selected_action": [document.pk for document in documents],
            "index": 0,
            **extra,
        },
        follow=True,
    )
    assert response.status_code == 200
    return [str(message) for message in response.context["messages"]]


def held(document, user, **changes):
    """``document`` published, with an edit held as its pending revision."""
    actions.documents.edit_document(document=document, user=user, changes=changes)
    return document


def test_publishing_from_the_pending_queue_counts_the_revisions(desk):
    documents = [
        held(DocumentFactory(published=True), desk.user, title=f"Revised {n}")
        for n in range(2)
    ]

    said = bulk(desk, "queue=pending", "publish_action", documents)

    assert said == ["Published 2 pending revisions."]
    assert [d.title for d in Document.objects.order_by("number")] == [
        "Revised 0",
        "Revised 1",
    ]


def test_publishing_from_the_in_review_queue_counts_the_new_documents(desk):
    documents = DocumentFactory.create_batch(3, in_review=True)

    said = bulk(desk, "queue=in_review", "publish_action", documents)

    assert said == ["Published 3 new documents."]
    assert Document.objects.public().count() == 3


def test_publishing_a_filtered_mix_says_what_was_already_published(desk):
    draft = DocumentFactory(in_review=True)
    revised = held(DocumentFactory(published=True), desk.user, title="Revised")
    current = DocumentFactory(published=True)

    said = bulk(
        desk, "topic__isnull=False", "publish_action", [draft, revised, current]
    )

    assert said == [
        "Published 1 new document; published 1 pending revision; "
        "1 was already published."
    ]


def test_withdrawing_from_a_filtered_list_counts_the_withdrawn(desk):
    documents = DocumentFactory.create_batch(2, published=True)
    gone = DocumentFactory(withdrawn=True)

    said = bulk(
        desk,
        "status__in=active,withdrawn",
        "withdraw_action",
        [*documents, gone],
        post="yes",
        reason="Retracted by the authors.",
    )

    assert said == ["Withdrew 2 documents; 1 was already withdrawn."]
    assert Document.objects.filter(status="withdrawn").count() == 3


def test_withdrawing_from_the_pending_queue_counts_the_withdrawn(desk):
    document = held(DocumentFactory(published=True), desk.user, title="Revised")

    said = bulk(
        desk,
        "queue=pending",
        "withdraw_action",
        [document],
        post="yes",
        reason="Retracted.",
    )

    assert said == ["Withdrew 1 document."]


def test_tagging_from_the_unfiled_queue_tells_drafts_from_pending_revisions(desk):
    draft = DocumentFactory(unfiled=True)
    public = DocumentFactory(unfiled=True, published=True)
    tagged = DocumentFactory(unfiled=True, tags=["memory"], published=True)

    said = bulk(
        desk, "queue=unfiled", "add_tag_action", [draft, public, tagged], tag="memory"
    )

    assert said == [
        "Added “memory” to 1 unpublished document; 1 public document holds "
        "“memory” as a pending revision, for a publisher to publish; "
        "1 already had it."
    ]
    assert list(draft.tags.names()) == ["memory"]
    assert list(public.tags.names()) == []
    assert public.pending_revision().tag_names == ["memory"]


def test_refiling_from_a_filtered_list_tells_drafts_from_pending_revisions(desk):
    old, new = TopicFactory(), TopicFactory(name="Evaluation")
    draft = DocumentFactory(topic=old)
    public = DocumentFactory(topic=old, published=True)
    there = DocumentFactory(topic=new)

    said = bulk(
        desk,
        "status__in=draft,active",
        "refile_action",
        [draft, public, there],
        topic=new.pk,
    )

    assert said == [
        "Refiled 1 unpublished document to Evaluation; 1 public document holds "
        "Evaluation as a pending revision, for a publisher to publish; "
        "1 was already filed under Evaluation."
    ]
    draft.refresh_from_db()
    assert draft.topic == new


def test_submitting_from_my_drafts_counts_the_submitted(desk):
    with set_actor(desk.user):
        mine = DocumentFactory.create_batch(2)

    said = bulk(desk, "queue=mine", "submit_for_review_action", mine)

    assert said == ["Submitted 2 drafts for review."]
    assert Document.objects.filter(status="in_review").count() == 2


def test_submitting_a_filtered_list_says_what_was_already_in_review(desk):
    drafts = DocumentFactory.create_batch(2)
    waiting = DocumentFactory(in_review=True)

    said = bulk(
        desk,
        "status__in=draft,in_review",
        "submit_for_review_action",
        [*drafts, waiting],
    )

    assert said == ["Submitted 2 drafts for review; 1 was already in review."]


def test_a_row_the_verb_refuses_is_left_alone_and_named(desk):
    draft = DocumentFactory(number=12)
    public = DocumentFactory(number=13, published=True)

    said = bulk(
        desk,
        "",
        "withdraw_action",
        [draft, public],
        post="yes",
        reason="Retracted.",
    )

    assert said == ["Withdrew 1 document; LIT-012 is a draft and was left alone."]
    assert dict(Document.objects.values_list("number", "status")) == {
        12: "draft",
        13: "withdrawn",
    }


def plan_of(client, action, documents, **extra):
    """The confirmation page's plan: its summary, then each row as listed."""
    response = client.post(
        CHANGELIST,
        {
            "action": action,
            "_selected_action": [document.pk for document in documents],
            "index": 0,
            **extra,
        },
    )
    assert response.status_code == 200
    page = soup_of(response).select_one(".bulk-plan")
    return [page.p.get_text()] + [
        span.get_text() for span in page.select("ul li .fate")
    ], page


def test_a_withdrawal_says_what_each_document_will_get_before_the_reason(desk):
    drafted = DocumentFactory(number=12)
    reviewed = DocumentFactory(number=14, in_review=True)
    public = DocumentFactory(number=13, published=True)
    gone = DocumentFactory(number=15, withdrawn=True)

    plan, page = plan_of(desk, "withdraw_action", [drafted, reviewed, public, gone])

    assert plan == [
        "1 of 4 will be withdrawn; LIT-012 is a draft and will be left alone; "
        "LIT-014 is in review and will be left alone; 1 is already withdrawn.",
        "is a draft and will be left alone",
        "will be withdrawn",
        "is in review and will be left alone",
        "is already withdrawn",
    ]
    assert page.select_one("textarea[name=reason]") is not None
    assert Document.objects.filter(status="withdrawn").count() == 1


def test_a_withdrawal_of_drafts_alone_asks_no_reason(desk):
    plan, page = plan_of(desk, "withdraw_action", [DocumentFactory(number=12)])

    assert (
        plan[0]
        == "0 of 1 will be withdrawn; LIT-012 is a draft and will be left alone."
    )
    assert page.select_one("textarea[name=reason]") is None
    assert page.select_one("input[type=submit]") is None


def test_submitting_a_selection_with_a_public_document_says_so_first(desk):
    drafts = [DocumentFactory(number=n) for n in (12, 14)]
    public = DocumentFactory(number=13, published=True)

    plan, page = plan_of(desk, "submit_for_review_action", [*drafts, public])

    assert plan[0] == (
        "2 of 3 will be submitted for review; LIT-013 is active and will be left alone."
    )
    assert page.select_one("input[type=submit]")["value"] == "Submit 2 documents"
    assert Document.objects.filter(status="in_review").count() == 0

    said = bulk(desk, "", "submit_for_review_action", [*drafts, public], post="yes")

    assert said == [
        "Submitted 2 drafts for review; LIT-013 is active and was left alone."
    ]
    assert dict(Document.objects.values_list("number", "status")) == {
        12: "in_review",
        13: "active",
        14: "in_review",
    }
