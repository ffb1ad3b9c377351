"""The review of a draft or pending revision, through the admin's forms: a
comment anchored to a field, a draft sent back and resubmitted, a pending
revision and a decision record sent back, assignments and claims with due
dates, the desk's review queue and its cost, and the review kept with the
version it became."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

import actions.decisions
import actions.documents
import actions.review
from catalogue.models import (
    Document,
    ReviewComment,
    ReviewThread,
)
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    UserFactory,
)
from tests.html import soup_of

pytestmark = pytest.mark.django_db


def texts(soup, selector):
    return [" ".join(e.get_text(" ").split()) for e in soup.select(selector)]


@pytest.fixture
def draft(editor):
    """LIT-012, written by ``editor`` and submitted for review."""
    document = actions.documents.save_document(
        document=DocumentFactory.build(
            registry=RegistryFactory(),
            number=12,
            title="Sequence parallelism",
            topic=None,
        ),
        user=editor,
    )
    return actions.documents.submit_for_review(document=document, user=editor)


def conversation(subject):
    model = subject._meta.model_name
    return reverse(f"admin:catalogue_{model}_conversation", args=[subject.pk])


def change(subject):
    model = subject._meta.model_name
    return reverse(f"admin:catalogue_{model}_change", args=[subject.pk])


def review_page(document):
    return reverse("admin:catalogue_document_review", args=[document.pk])


def post(client, subject, button, **data):
    return client.post(
        conversation(subject), {button: "x", "next": change(subject), **data}
    )


def test_a_publisher_sends_a_draft_back_with_a_comment_on_its_summary(
    client, publisher, editor, draft
):
    client.force_login(publisher)

    response = post(
        client,
        draft,
        "_send_back",
        field="summary",
        body="Say which “sequence” is split — tokens or layers?",
    )

    assert response.status_code == 302
    assert response["Location"] == change(draft)
    draft.refresh_from_db()
    assert draft.status == Document.Status.DRAFT
    [thread] = ReviewThread.objects.all()
    assert thread.state == ReviewThread.State.CHANGES_REQUESTED
    assert [
        (comment.kind, comment.field, comment.body, comment.author)
        for comment in thread.comments.all()
    ] == [
        (
            ReviewComment.Kind.CHANGES_REQUESTED,
            "summary",
            "Say which “sequence” is split — tokens or layers?",
            publisher,
        )
    ]
    # The editor reads it on the edit form, marked, with its field.
    client.force_login(editor)
    soup = soup_of(client.get(change(draft)))
    assert texts(soup, ".changes-requested-note .badge") == ["Changes requested"]
    assert texts(soup, ".review-comment .review-anchor") == ["Summary"]
    assert texts(soup, ".review-comment-body") == [
        "Say which “sequence” is split — tokens or layers?"
    ]


def test_a_draft_resubmitted_is_in_review_and_its_review_is_kept_with_v1(
    client, publisher, editor, draft
):
    actions.review.send_back(
        subject=draft, user=publisher, body="Too long.", field="summary"
    )
    client.force_login(editor)

    client.post(
        change(draft),
        {
            **form_of(client, draft),
            "summary": "Shorter.",
            "_submit_for_review": "Save and submit for review",
        },
    )

    draft.refresh_from_db()
    assert (draft.status, draft.summary) == (Document.Status.IN_REVIEW, "Shorter.")
    thread = ReviewThread.objects.get()
    assert thread.state == ReviewThread.State.OPEN
    assert [comment.kind for comment in thread.comments.all()] == [
        ReviewComment.Kind.CHANGES_REQUESTED,
        ReviewComment.Kind.RESUBMITTED,
    ]

    client.force_login(publisher)
    client.post(review_page(draft), {"_publish": "Publish"})

    thread.refresh_from_db()
    version = draft.versions.get()
    assert (thread.state, thread.version) == (ReviewThread.State.PUBLISHED, version)
    # Kept with v1, for staff: on the version's page.
    page = soup_of(
        client.get(reverse("admin:catalogue_document_version", args=[draft.pk, 1]))
    )
    assert "Too long." in texts(page, ".kept-reviews .review-comment-body")


def form_of(client, document):
    """The change form's fields as the page fills them in."""
    form = client.get(change(document)).context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if value is None:
            continue
        data[name] = field.widget.format_value(value) if name == "tags" else value
    data["tags"] = ""
    data["author_list"] = ""
    return {key: value for key, value in data.items() if value is not None}


def test_a_pending_revision_is_sent_back_and_resubmitted_from_its_review(
    client, publisher, editor
):
    document = DocumentFactory(number=4, published=True)
    actions.documents.edit_document(
        document=document, user=editor, changes={"title": "A held title"}
    )
    client.force_login(publisher)
    page = soup_of(client.get(review_page(document)))
    assert page.select_one(".review-conversation input[name=_send_back]")

    post(client, document, "_send_back", body="Keep the old title.", field="title")

    thread = ReviewThread.objects.get()
    assert thread.revision == document.pending_revision()
    assert thread.state == ReviewThread.State.CHANGES_REQUESTED
    client.force_login(editor)
    post(client, document, "_resubmit", body="Kept half of it.")
    thread.refresh_from_db()
    assert thread.state == ReviewThread.State.OPEN
    # Discarded, the revision's review is kept, settled.
    actions.documents.discard_revision(document=document, user=publisher)
    thread.refresh_from_db()
    assert thread.state == ReviewThread.State.DISCARDED


def test_a_decision_record_draft_is_sent_back_and_kept_with_its_record(
    client, publisher, editor
):
    decision = DecisionRecordFactory(number=61, draft=True, title="Use one log")
    client.force_login(publisher)

    post(client, decision, "_send_back", body="Name the log.", field="body")

    assert ReviewThread.objects.get(decision=decision).changes_requested
    client.force_login(editor)
    soup = soup_of(client.get(change(decision)))
    assert texts(soup, ".review-comment .review-anchor") == ["Body"]
    post(client, decision, "_resubmit")
    actions.decisions.publish_decision(decision=decision, user=publisher)
    thread = ReviewThread.objects.get(decision=decision)
    assert thread.state == ReviewThread.State.PUBLISHED
    client.force_login(publisher)
    soup = soup_of(client.get(change(decision)))
    assert "Name the log." in texts(soup, ".kept-reviews .review-comment-body")


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"body": "   "}, "Write the comment to add with."),
        (
            {"body": "Why?", "field": "venue"},
            "About: Select a valid choice. venue is not one of the available choices.",
        ),
        ({"body": "x" * 5001}, "Comment: Ensure this value has at most 5000"),
        # A control character no text of the record may hold.
        ({"body": "Tokens\x0bor layers?"}, "Comment: "),
    ],
)
def test_a_comment_that_cannot_be_kept_is_refused_by_name_and_writes_nothing(
    client, editor, draft, data, said
):
    client.force_login(editor)

    response = client.post(
        conversation(draft), {"_comment": "Comment", **data}, follow=True
    )

    messages = [str(message) for message in response.context["messages"]]
    assert len(messages) == 1 and messages[0].startswith(said)
    assert not ReviewComment.objects.exists()


def test_an_action_refuses_a_field_the_record_does_not_have():
    decision = DecisionRecordFactory(draft=True)
    publisher = UserFactory(is_superuser=True)

    with pytest.raises(ValidationError) as refused:
        actions.review.comment(
            subject=decision, user=publisher, body="On its summary?", field="summary"
        )

    assert refused.value.code == "unknown_field"
    assert not ReviewComment.objects.exists()


def test_a_public_document_with_nothing_held_has_no_review(client, publisher):
    document = DocumentFactory(published=True)
    client.force_login(publisher)

    response = post(client, document, "_comment", body="Hello")

    assert response.status_code == 302
    assert not ReviewThread.objects.exists()
    soup = soup_of(client.get(change(document)))
    assert soup.select_one(".review-comment-form") is None


def test_a_draft_not_submitted_is_commented_on_but_not_sent_back(
    client, publisher, editor
):
    document = DocumentFactory(draft=True)
    client.force_login(publisher)

    post(client, document, "_send_back", body="Not yet.")
    post(client, document, "_comment", body="Looks close.")

    assert [c.kind for c in ReviewComment.objects.all()] == ["comment"]
    soup = soup_of(client.get(change(document)))
    assert soup.select_one("input[name=_send_back]") is None


def test_a_publisher_assigns_a_reviewer_with_a_due_date_and_the_desk_shows_it(
    client, publisher, editor, draft
):
    reviewer = UserFactory(publisher=True, username="ada")
    client.force_login(publisher)

    post(
        client,
        draft,
        "_assign",
        assignee=reviewer.pk,
        due_on="2020-01-31",
    )

    thread = ReviewThread.objects.get()
    assert (thread.assignee, thread.due_on, thread.assigned_by) == (
        reviewer,
        datetime.date(2020, 1, 31),
        publisher,
    )
    desk = soup_of(client.get(reverse("admin:index")))
    [row] = desk.select(".review-queue .review-item")
    assert "overdue" in row["class"]
    assert texts(row, "th, td") == [
        "LIT-012",
        "Sequence parallelism",
        "First publication",
        "ada",
        "31 Jan 2020 Overdue",
    ]
    # Only the reviewer's own queue holds it.
    client.force_login(reviewer)
    mine = soup_of(client.get(reverse("admin:index"), {"review": "mine"}))
    assert texts(mine, ".review-queue th a") == ["LIT-012"]
    assert "1 Assigned to me" in texts(mine, ".desk .queues li a")
    client.force_login(publisher)
    theirs = soup_of(client.get(reverse("admin:index"), {"review": "mine"}))
    assert theirs.select(".review-queue") == []


def test_only_a_reviewer_may_be_assigned(client, publisher, draft):
    outsider = UserFactory(username="outsider")  # Staff, no editorial rights.
    client.force_login(publisher)

    response = client.post(
        conversation(draft), {"_assign": "Assign", "assignee": outsider.pk}, follow=True
    )

    [said] = [str(message) for message in response.context["messages"]]
    assert said.startswith("Reviewer: Select a valid choice.")
    assert not ReviewThread.objects.exists()
    with pytest.raises(ValidationError) as refused:
        actions.review.assign(subject=draft, user=publisher, assignee=outsider)
    assert refused.value.code == "not_a_reviewer"
    response = client.post(
        conversation(draft),
        {"_assign": "Assign", "due_on": "31/01/2020"},
        follow=True,
    )
    [said] = [str(message) for message in response.context["messages"]]
    assert said.startswith("Due by: Enter a valid date.")


def test_a_publisher_claims_a_review_keeping_its_due_date(client, publisher, draft):
    other = UserFactory(publisher=True)
    due = timezone.localdate() + datetime.timedelta(days=3)
    actions.review.assign(subject=draft, user=other, assignee=other, due_on=due)
    client.force_login(publisher)

    post(client, draft, "_claim")

    thread = ReviewThread.objects.get()
    assert (thread.assignee, thread.due_on) == (publisher, due)
    assert not thread.is_overdue()


def test_an_editor_comments_and_resubmits_but_neither_sends_back_nor_assigns(
    client, editor, draft
):
    client.force_login(editor)
    soup = soup_of(client.get(review_page(draft)))

    assert soup.select_one(".review-comment-form input[name=_comment]")
    assert soup.select_one("input[name=_send_back]") is None
    assert soup.select_one(".review-assign-form") is None


def many_in_review(n):
    """``n`` drafts in review, every other one assigned with a due date, a
    pending revision and two decision records waiting."""
    registry = RegistryFactory()
    publisher = UserFactory(is_superuser=True, username="boss")
    documents = Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registry,
            number=i + 1,
            topic=None,
            status=Document.Status.IN_REVIEW,
        )
        for i in range(n)
    )
    for document in documents[::2]:
        actions.review.assign(
            subject=document,
            user=publisher,
            assignee=publisher,
            due_on=datetime.date(2030, 1, 1),
        )
    public = DocumentFactory(registry=registry, number=n + 1, published=True)
    actions.documents.edit_document(
        document=public, user=publisher, changes={"title": "Held"}
    )
    DecisionRecordFactory(draft=True)
    held = DecisionRecordFactory()
    held.title = "A held decision title"
    actions.decisions.save_decision(decision=held, user=publisher, supersedes=[])
    return publisher


@pytest.mark.parametrize("n", [5, 60])
def test_the_desk_with_its_review_queue_costs_the_same_queries_at_any_size(
    client, django_assert_num_queries, n
):
    publisher = many_in_review(n)
    client.force_login(publisher)
    client.get(reverse("admin:index"))  # Warm the session and content types.

    # The desk with its review queue, and the schedules the desk lists.
    with django_assert_num_queries(19):
        response = client.get(reverse("admin:index"))
    with django_assert_num_queries(19):
        mine = client.get(reverse("admin:index"), {"review": "mine"})

    rows = soup_of(response).select(".review-queue .review-item")
    # The soonest due first; at most twenty.
    assert len(rows) == min(n + 3, 20)
    assert texts(rows[0], ".review-due") == ["1 Jan 2030"]
    assert len(soup_of(mine).select(".review-item")) == min((n + 1) // 2, 20)
    assigned = f"{(n + 1) // 2} Assigned to me"
    assert assigned in texts(soup_of(mine), ".desk .queues li a")


def test_a_draft_sent_back_shows_on_the_desk_as_changes_requested(
    client, publisher, draft
):
    actions.review.send_back(subject=draft, user=publisher, body="Again.")
    client.force_login(publisher)

    desk = soup_of(client.get(reverse("admin:index")))

    assert "1 Changes requested" in texts(desk, ".desk .queues li a")
    assert "0 In review" in texts(desk, ".desk .queues li a")
    assert texts(desk, ".review-item td .badge") == ["Changes requested"]
