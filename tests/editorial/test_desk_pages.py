"""The document admin's own pages: review, withdraw and reinstate, and the
messages that say what a save did."""

import io

import pytest
from auditlog.models import LogEntry
from bs4 import BeautifulSoup
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.core.management import CommandError, call_command
from django.urls import reverse

import actions.documents
from catalogue.models import Document
from tests.factories import (
    PASSWORD,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db


def admin_url(name, document):
    return reverse(f"admin:catalogue_document_{name}", args=[document.pk])


def said(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


@pytest.fixture
def published(publisher):
    """LIT-004 v1, tagged and filed, published by a publisher."""
    document = DocumentFactory(number=4, draft=True, title="Sublinear memory")
    document.tags.add("memory")
    actions.documents.publish(document=document, user=publisher)
    document.refresh_from_db()
    return document


@pytest.fixture
def revised(published, editor):
    """LIT-004 with a pending revision by an editor: new title, new tag."""
    actions.documents.edit_document(
        document=published,
        user=editor,
        changes={"title": "Sublinear memory cost", "tags": ["memory", "pipelines"]},
        note="The paper's own title",
    )
    return published


def test_saving_a_public_document_says_the_edit_is_held(client, published, editor):
    client.force_login(editor)
    url = admin_url("change", published)
    data = form_data(client.get(url))
    data["title"] = "Held title"

    response = client.post(url, data, follow=True)

    assert said(response) == ["Held as a pending revision: readers still see LIT-004."]


def test_publishing_from_the_form_names_the_new_version(client, revised, publisher):
    client.force_login(publisher)
    url = admin_url("change", revised)
    data = form_data(client.get(url))
    data["_publish"] = "Save and publish"

    response = client.post(url, data, follow=True)

    assert said(response) == ["Published LIT-004 v2."]


def test_the_review_shows_only_the_changed_fields_the_note_and_the_writer(
    client, revised, publisher, editor
):
    client.force_login(publisher)

    soup = soup_of(client.get(admin_url("review", revised)))

    assert [dt.get_text() for dt in soup.select(".comparison dt")] == ["Title", "Tags"]
    assert soup.select_one(".comparison dd ins").get_text().strip() == "cost"
    assert "The paper's own title" in soup.select_one(".review-note").get_text()
    assert editor.username in soup.select_one(".review-facts").get_text()
    assert {
        button["name"] for button in soup.select(".review-decision [type=submit]")
    } == {
        "_publish",
        "_discard_revision",
    }


def test_publishing_from_the_review_records_who_wrote_and_who_published(
    client, revised, publisher, editor
):
    client.force_login(publisher)

    response = client.post(admin_url("review", revised), {"_publish": "Publish"})

    assert response.status_code == 302
    version = revised.versions.get(number=2)
    assert (version.written_by, version.published_by) == (editor, publisher)
    assert sorted(Document.objects.get(pk=revised.pk).tags.names()) == [
        "memory",
        "pipelines",
    ]


def test_an_editor_reviews_but_only_discards(client, revised, editor):
    client.force_login(editor)

    soup = soup_of(client.get(admin_url("review", revised)))
    refused = client.post(admin_url("review", revised), {"_publish": "Publish"})

    assert [
        button["name"] for button in soup.select(".review-decision [type=submit]")
    ] == ["_discard_revision"]
    assert refused.status_code == 403
    assert Document.objects.get(pk=revised.pk).version == 1


def test_the_preview_shows_the_revisions_tags(client, revised, editor):
    client.force_login(editor)

    soup = soup_of(client.get(admin_url("preview", revised)))

    assert soup.h1.get_text() == "Sublinear memory cost"
    assert [a.get_text() for a in soup.select(".facts a[href^='/tags/']")] == [
        "memory",
        "pipelines",
    ]


def test_withdrawing_asks_for_a_reason_then_shows_it_to_readers(
    client, published, publisher
):
    client.force_login(publisher)
    url = admin_url("withdraw", published)

    refused = client.post(url, {"reason": ""})
    assert refused.status_code == 200
    assert Document.objects.get(pk=published.pk).status == "active"

    response = client.post(url, {"reason": "The results did not replicate."})

    assert response.status_code == 302
    client.logout()
    notice = soup_of(client.get("/LIT-004/")).select_one(".notice").get_text()
    assert notice.startswith("Withdrawn: kept for the record")
    assert notice.endswith("Reason: The results did not replicate.")
    feed = client.get(reverse("catalogue:feed")).content.decode()
    assert "Reason: The results did not replicate." in feed


def test_an_editor_cannot_open_the_withdrawal(client, published, editor):
    client.force_login(editor)

    assert client.get(admin_url("withdraw", published)).status_code == 403


def test_a_publisher_reinstates_and_the_audit_trail_keeps_both(
    client, published, publisher
):
    actions.documents.withdraw(document=published, user=publisher, reason="Doubts.")
    client.force_login(publisher)
    url = admin_url("change", published)
    data = form_data(client.get(url))
    data["_reinstate"] = "Reinstate"

    response = client.post(url, data, follow=True)

    document = Document.objects.get(pk=published.pk)
    assert (document.status, document.withdrawal_reason) == ("active", "")
    assert said(response) == ["Reinstated LIT-004: readers see it active again."]
    statuses = [
        entry.changes["status"]
        for entry in LogEntry.objects.get_for_object(document).order_by("pk")
        if "status" in (entry.changes or {})
    ]
    assert statuses[-2:] == [["active", "withdrawn"], ["withdrawn", "active"]]


def test_the_bulk_withdrawal_asks_for_a_reason_first(client, publisher):
    documents = DocumentFactory.create_batch(2, topic=TopicFactory(), published=True)
    client.force_login(publisher)
    changelist = reverse("admin:catalogue_document_changelist")
    selection = {
        "action": "withdraw_action",
        "_selected_action": [str(document.pk) for document in documents],
    }

    asked = client.post(changelist, selection)
    done = client.post(changelist, {**selection, "reason": "Retracted.", "post": "yes"})

    assert asked.status_code == 200
    soup = BeautifulSoup(asked.content, "html.parser")
    assert soup.select_one("textarea[name=reason]") is not None
    assert done.status_code == 302
    assert {d.withdrawal_reason for d in Document.objects.all()} == {"Retracted."}


def test_members_of_the_editorial_groups_sign_in_without_the_staff_flag(client):
    user = UserFactory(editor=True, is_staff=False)
    client.force_login(user)

    assert client.get(reverse("admin:index")).status_code == 200


def test_an_editor_who_is_not_staff_signs_in_through_the_login_page(client):
    UserFactory(username="ada", editor=True, is_staff=False)

    response = client.post(
        reverse("admin:login"),
        {"username": "ada", "password": PASSWORD, "next": reverse("admin:index")},
    )

    assert response.status_code == 302
    assert client.get(reverse("admin:index")).status_code == 200


def test_an_account_outside_the_groups_cannot_sign_in(client):
    UserFactory(username="visitor", is_staff=False)

    response = client.post(
        reverse("admin:login"), {"username": "visitor", "password": PASSWORD}
    )

    assert response.status_code == 200
    assert client.get(reverse("admin:index")).status_code == 302


def test_add_editor_lets_an_account_in_as_a_publisher(client):
    user = UserFactory(username="grace", is_staff=False)

    call_command("add_editor", "grace", "--publisher", stdout=io.StringIO())

    user.refresh_from_db()
    assert user.is_staff
    assert [group.name for group in user.groups.all()] == ["Publisher"]
    assert user.has_perm("catalogue.publish_document")


def test_the_desk_shows_each_queue_with_its_count(client, editor, publisher):
    DocumentFactory(number=1, in_review=True)
    mine = DocumentFactory.build(
        registry=RegistryFactory(), number=None, draft=True, topic=None
    )
    actions.documents.save_document(document=mine, user=editor)
    actions.documents.edit_document(
        document=DocumentFactory(number=3, published=True),
        user=editor,
        changes={"title": "Held"},
    )
    client.force_login(editor)

    soup = soup_of(client.get(reverse("admin:index")))

    queues = {
        item.a.get_text(" ", strip=True) for item in soup.select(".desk .queues li")
    }
    assert {"1 In review", "1 Pending revisions", "1 My drafts", "1 Unfiled"} <= queues
    assert soup.select_one("#site-name").get_text(strip=True) == "Anthology"


class Terminal:
    """A terminal where the person running a command types ``answers``."""

    def __init__(self, monkeypatch, *answers):
        self.answers = list(answers)
        self.prompts = []
        monkeypatch.setattr("sys.stdin.isatty", lambda: True)
        monkeypatch.setattr(
            "editorial.management.commands.add_editor.getpass", self.getpass
        )

    def getpass(self, prompt):
        self.prompts.append(prompt)
        return self.answers.pop(0)


def test_add_editor_asks_for_a_new_accounts_password_twice(monkeypatch):
    terminal = Terminal(monkeypatch, "a long passphrase", "a long passphrase")

    call_command("add_editor", "ada", stdout=io.StringIO())

    assert terminal.prompts == ["Password for ada: ", "The same password again: "]
    assert User.objects.get(username="ada").check_password("a long passphrase")


def test_add_editor_makes_no_account_when_the_passwords_differ(monkeypatch):
    Terminal(monkeypatch, "a long passphrase", "a long passphrse")

    with pytest.raises(CommandError, match="The two passwords differ"):
        call_command("add_editor", "ada", stdout=io.StringIO())

    assert not User.objects.filter(username="ada").exists()
