"""Review mail, through a real SMTP server the test starts (aiosmtpd, the
``mail_server`` fixture): the assignee hears of an assignment, the editor of
a comment and of a draft sent back, the reviewer of a resubmission; nobody
hears of their own step, and a person who turned review mail off hears
nothing."""

import datetime

import pytest
from django.urls import reverse

import actions.documents
import actions.review
from tests.editorial.test_review_conversation import conversation, draft
from tests.factories import UserFactory

__all__ = ["draft"]

pytestmark = pytest.mark.django_db


def sent(mail_server):
    return [
        (envelope.rcpt_tos, message["Subject"], message.get_content())
        for envelope, message in zip(
            mail_server.envelopes, mail_server.messages(), strict=True
        )
    ]


def test_an_assignment_mails_the_assignee_with_the_due_date_and_the_page(
    client, publisher, draft, committed, mail_server
):
    reviewer = UserFactory(publisher=True, username="ada")
    client.force_login(publisher)

    with committed():
        client.post(
            conversation(draft),
            {"_assign": "Assign", "assignee": reviewer.pk, "due_on": "2030-01-31"},
        )

    [(to, subject, body)] = sent(mail_server)
    assert to == ["ada@example.org"]
    assert subject == "You are asked to review LIT-012"
    assert f"{publisher} asks you to review LIT-012 (Sequence parallelism)" in body
    assert "by 31 January 2030" in body
    page = reverse("admin:catalogue_document_change", args=[draft.pk])
    assert f"http://testserver{page}" in body


def test_a_comment_mails_the_editor_and_the_reviewer_but_not_its_author(
    client, publisher, editor, draft, committed, mail_server
):
    reviewer = UserFactory(publisher=True, username="ada")
    actions.review.assign(subject=draft, user=reviewer, assignee=reviewer)
    client.force_login(publisher)

    with committed():
        client.post(
            conversation(draft),
            {"_comment": "Comment", "field": "summary", "body": "Tokens — or layers?"},
        )

    mails = sent(mail_server)
    assert sorted(to for to, _, _ in mails) == [
        ["ada@example.org"],
        [editor.email],
    ]
    _, subject, body = mails[0]
    assert subject == "A comment on LIT-012"
    assert "on its summary" in body
    assert "Tokens — or layers?" in body  # As written, in plain text.


def test_sending_back_mails_the_editor_and_resubmitting_the_reviewer(
    client, publisher, editor, draft, committed, mail_server
):
    actions.review.assign(
        subject=draft,
        user=publisher,
        assignee=publisher,
        due_on=datetime.date(2030, 1, 1),
    )
    client.force_login(publisher)
    with committed():
        client.post(conversation(draft), {"_send_back": "x", "body": "Shorter."})
    client.force_login(editor)
    with committed():
        client.post(conversation(draft), {"_resubmit": "x", "body": "Done."})

    assert [(to, subject) for to, subject, _ in sent(mail_server)] == [
        ([editor.email], "LIT-012 is sent back to you"),
        ([publisher.email], "LIT-012 is resubmitted for review"),
    ]


def test_a_person_who_turned_review_mail_off_gets_none(
    client, publisher, editor, draft, committed, mail_server
):
    client.force_login(editor)
    response = client.post(reverse("admin:review_mail"), {})
    assert response.status_code == 302
    assert not actions.review.wants_review_mail(editor)
    client.force_login(publisher)

    with committed():
        client.post(conversation(draft), {"_send_back": "x", "body": "Shorter."})

    assert mail_server.envelopes == []
    # Turned on again, the next one arrives.
    client.force_login(editor)
    client.post(reverse("admin:review_mail"), {"wants_review_mail": "on"})
    client.force_login(publisher)
    with committed():
        client.post(conversation(draft), {"_comment": "x", "body": "And?"})
    assert [to for to, _, _ in sent(mail_server)] == [[editor.email]]
