"""Preview links: a publisher makes one from a draft or a pending revision on
its admin page; whoever holds it reads the text as readers would, marked
"Preview", kept by no cache and no search engine; once revoked, expired or
published, the link answers 410 saying which."""

import datetime

import pytest
from bs4 import BeautifulSoup
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

import actions.documents
from actions import previews
from catalogue.models import PreviewLink
from tests.factories import DocumentFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db


def change_url(document):
    return reverse("admin:catalogue_document_change", args=[document.pk])


def make_url(document):
    return reverse("admin:catalogue_document_make_preview_link", args=[document.pk])


def revoke_url(document):
    return reverse("admin:catalogue_document_revoke_preview_link", args=[document.pk])


@pytest.fixture
def draft(filed):
    return DocumentFactory(
        number=12,
        draft=True,
        topic=filed["first"],
        title="A draft for the authors’ eyes",
        summary="Not yet public — a summary in progress.",
    )


def listed_addresses(client, document):
    """The preview links' addresses the change form lists, open or not."""
    soup = soup_of(client.get(change_url(document)))
    return [field["value"] for field in soup.select("#preview-links .preview-address")]


def test_a_publisher_makes_a_link_that_opens_the_draft_without_an_account(
    client, draft, publisher
):
    client.force_login(publisher)

    response = client.post(make_url(draft))

    assert response.status_code == 302
    link = PreviewLink.objects.get()
    assert link.created_by == publisher
    assert link.expires_at - link.created_at == datetime.timedelta(days=7)
    [address] = listed_addresses(client, draft)
    assert address == f"http://testserver{link.get_absolute_url()}"
    outsider = Client()
    page = outsider.get(link.get_absolute_url())
    assert page.status_code == 200
    soup = soup_of(page)
    assert soup.select_one("h1").get_text() == "A draft for the authors’ eyes"
    assert "Not yet public — a summary in progress." in soup.get_text()
    notice = soup.select_one(".notice.preview").get_text()
    assert notice.startswith("Preview of a draft: readers do not see this text")
    assert soup.select_one('meta[name="robots"]')["content"] == "noindex"
    assert page["X-Robots-Tag"] == "noindex, nofollow"
    assert page["Cache-Control"] == "private, no-store"
    # Read again: rendered again, never kept by the page cache.
    assert outsider.get(link.get_absolute_url())["Cache-Control"] == (
        "private, no-store"
    )
    assert not [key for key in cache._cache if "page:" in key]


def test_a_pending_revision_is_previewed_as_it_would_be_published(
    client, filed, publisher
):
    document = filed["document"]
    actions.documents.edit_document(
        document=document,
        user=publisher,
        changes={"title": "Retitled, not yet published", "tags": ["preview-only"]},
    )
    link = previews.make_link(document=document, user=publisher)

    soup = soup_of(Client().get(link.get_absolute_url()))
    public = soup_of(Client().get(document.get_absolute_url()))

    assert soup.select_one("h1").get_text() == "Retitled, not yet published"
    assert "Preview of a pending revision" in soup.select_one(".notice.preview").text
    assert "preview-only" in soup.select_one(".facts").get_text()
    assert public.select_one("h1").get_text() == "Old title"


def soup_of_gone(response):
    """The parsed page of a link that answers 410."""
    assert response.status_code == 410
    return BeautifulSoup(response.content, "html.parser")


def test_a_revoked_link_answers_410_at_once(client, draft, publisher):
    link = previews.make_link(document=draft, user=publisher)
    assert Client().get(link.get_absolute_url()).status_code == 200
    client.force_login(publisher)

    response = client.post(revoke_url(draft), {"link": link.pk})

    assert response.status_code == 302
    gone = Client().get(link.get_absolute_url())
    assert gone.status_code == 410
    assert soup_of_gone(gone).select_one("h1").get_text() == (
        "This preview link was revoked"
    )
    assert gone["Cache-Control"] == "private, no-store"
    assert "A draft for the authors’ eyes" not in gone.content.decode()
    link.refresh_from_db()
    assert link.revoked_by == publisher


def test_an_expired_link_answers_410(draft, publisher, settings):
    settings.PREVIEW_LINK_DAYS = 2
    link = previews.make_link(document=draft, user=publisher)
    assert link.expires_at - link.created_at == datetime.timedelta(days=2)
    PreviewLink.objects.filter(pk=link.pk).update(
        expires_at=timezone.now() - datetime.timedelta(seconds=1)
    )

    gone = Client().get(link.get_absolute_url())

    assert gone.status_code == 410
    assert soup_of_gone(gone).select_one("h1").get_text() == (
        "This preview link has expired"
    )


def test_a_link_whose_text_was_published_answers_410_and_leads_to_the_page(
    draft, publisher
):
    link = previews.make_link(document=draft, user=publisher)
    actions.documents.publish(document=draft, user=publisher)

    gone = Client().get(link.get_absolute_url())

    assert gone.status_code == 410
    soup = soup_of_gone(gone)
    assert soup.select_one("h1").get_text() == "This preview has ended"
    assert soup.select_one(".lead a")["href"] == "/LIT-012/"


@pytest.mark.parametrize("token", ["1", "1:forged", "nothing-at-all"])
def test_a_token_that_is_no_links_is_not_found(draft, publisher, token):
    previews.make_link(document=draft, user=publisher)

    assert Client().get(f"/preview/{token}/").status_code == 404


def test_nothing_public_has_nothing_to_preview(client, filed, publisher):
    client.force_login(publisher)

    response = client.post(make_url(filed["document"]), follow=True)

    assert "LIT-004 has nothing unpublished to preview" in response.content.decode()
    assert not PreviewLink.objects.exists()


def test_an_editor_may_neither_make_nor_revoke_a_link(client, draft, editor, publisher):
    link = previews.make_link(document=draft, user=publisher)
    client.force_login(editor)

    made = client.post(make_url(draft))
    revoked = client.post(revoke_url(draft), {"link": link.pk})

    assert (made.status_code, revoked.status_code) == (403, 403)
    assert PreviewLink.objects.count() == 1
    assert Client().get(link.get_absolute_url()).status_code == 200
    # The change form lists the link, with no revoke button for an editor.
    assert listed_addresses(client, draft) == [
        f"http://testserver{link.get_absolute_url()}"
    ]
    soup = soup_of(client.get(change_url(draft)))
    assert not soup.select("#preview-links input[value=Revoke]")
