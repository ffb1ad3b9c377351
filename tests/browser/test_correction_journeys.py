"""Corrections from end to end, in Chromium: a reader on a phone suggests a
co-author for LIT-219 through the public form, with an address; a publisher
sees the diff and the source check on the desk, accepts, reviews and
publishes; the reader's mail arrives at the test's SMTP server, the private
link says so and the page lists the correction. A declined proposal's
reason reaches the reader the same ways. And the sources propose too:
check_sources against a fake arXiv and a fake Crossref proposes a newer
version and a retraction, which the desk accepts, and readers see both."""

import io
import re

import pytest
from django.core.management import call_command

from catalogue.models import Correction, Document
from tests.browser.test_correction_desk import AUTHORS, TITLE
from tests.browser.test_correction_form import PHONE, fits
from tests.browser.test_editorial_journeys import Desk
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.sources.fake_checks import FakeChecks

pytestmark = pytest.mark.django_db(transaction=True)

FOLLOW_RE = re.compile(r"https?://\S+/corrections/[^/\s]+/")


@pytest.fixture
def publisher(editorial_groups):
    return UserFactory(publisher=True, username="grace")


@pytest.fixture
def lit_219():
    """The seed's LIT-219 with the authors arXiv lists, but the last."""
    return DocumentFactory(
        number=219,
        topic=TopicFactory(name="Distributed optimization"),
        title=TITLE,
        authors="Li et al.",
        year=2020,
        source_identifier="ARXIV-2006.15704",
        author_list=AUTHORS,
        published=True,
    )


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    yield page
    context.close()


def suggest(phone, live_server, *, fill):
    """The reader opens LIT-219, follows "Suggest a correction", fills it in
    (``fill(page)``) with a reason and an address, and sends it."""
    phone.goto(f"{live_server.url}/LIT-219/")
    phone.get_by_role("link", name="Suggest a correction").tap()
    phone.wait_for_url("**/LIT-219/correct/")
    fill(phone)
    phone.get_by_label("How you know").fill("The paper’s first page.")
    phone.get_by_label("Your e-mail address").fill("reader@example.org")
    phone.get_by_role("button", name="Send the correction").tap()
    phone.wait_for_url("**/corrections/*/")
    assert phone.locator(".correction-status").inner_text() == "Waiting"
    assert fits(phone)
    return phone.url


def add_chintala(page):
    authors = page.get_by_label("Every author, one a line")
    authors.tap()
    page.keyboard.press("Control+End")
    page.keyboard.press("Enter")
    page.keyboard.type("Chintala, Soumith")


def open_waiting(desk, what):
    page = desk.go("/admin/")
    page.get_by_role("link", name="Corrections waiting").click()
    page.wait_for_load_state()
    page.get_by_role("link", name=what).first.click()
    page.wait_for_load_state()
    return page


def followed_link(mail_server):
    [message] = mail_server.messages()
    [link] = FOLLOW_RE.findall(message.get_content())
    return message, link


def test_a_readers_co_author_is_accepted_published_mailed_and_listed(
    browser, live_server, metadata_sources, mail_server, publisher, lit_219, phone
):
    followed = suggest(phone, live_server, fill=add_chintala)

    desk = Desk(browser, live_server, publisher)
    page = open_waiting(desk, "Authors")
    assert page.locator(".comparison ins").all_inner_texts() == ["Chintala, Soumith"]
    assert "arXiv and the proposal name the same authors" in (
        page.locator(".source-check").inner_text()
    )
    desk.press("input[name=_accept]")
    page.get_by_role("link", name="Review and publish it").click()
    page.wait_for_load_state()
    desk.press("input[name=_publish]")
    assert desk.said() == ["Published LIT-219 v2."]

    message, link = followed_link(mail_server)
    assert message["To"] == "reader@example.org"
    assert message["Subject"] == "Your correction of LIT-219 is published"
    assert link.endswith(followed.removeprefix(live_server.url))
    phone.goto(followed)
    assert phone.locator(".correction-status").inner_text() == "Published"
    phone.goto(f"{live_server.url}/LIT-219/")
    listed = phone.locator("section.corrections li").all_inner_texts()
    assert [text.split(": ", 1)[1] for text in listed] == [
        "authors corrected (a reader’s correction)"
    ]
    assert "Soumith Chintala" in phone.locator(".authors").inner_text()
    assert fits(phone)
    assert desk.violations() == []


def test_a_declined_proposals_public_reason_reaches_the_reader(
    browser, live_server, metadata_sources, mail_server, publisher, lit_219, phone
):
    def later_year(page):
        page.get_by_label("Year").fill("2021")

    followed = suggest(phone, live_server, fill=later_year)

    desk = Desk(browser, live_server, publisher)
    page = open_waiting(desk, "Year")
    page.get_by_label("Public reason").fill("The paper appeared in PVLDB 13(12), 2020.")
    page.get_by_label("Private reason").fill("Checked <b>dblp</b>.")
    desk.press("input[name=_decline]")

    message, _ = followed_link(mail_server)
    body = message.get_content()
    assert "The paper appeared in PVLDB 13(12), 2020." in body
    assert "dblp" not in body
    phone.goto(followed)
    assert phone.locator(".correction-status").inner_text() == "Declined"
    assert "PVLDB 13(12), 2020." in phone.locator("main").inner_text()
    assert "dblp" not in phone.content()
    assert Document.objects.get(number=219).year == 2020


@pytest.fixture
def checked_sources(settings):
    """The checks ask a fake arXiv (Atom) and Crossref (JSON), with no wait."""
    with FakeChecks() as fake:
        settings.METADATA_ARXIV_URL = f"{fake.url}/arxiv/api/query"
        settings.METADATA_CROSSREF_URL = f"{fake.url}/crossref"
        settings.SOURCES_DOI_URL = f"{fake.url}/doi/api/handles"
        for name in ["ARXIV", "CROSSREF", "DOI", "LINKS"]:
            setattr(settings, f"SOURCES_{name}_INTERVAL", 0)
        yield fake


def test_the_sources_propose_a_newer_version_and_a_retraction(
    browser, live_server, checked_sources, publisher
):
    DocumentFactory(number=26, source_identifier="ARXIV-2403.00026v2", published=True)
    DocumentFactory(
        number=27, source_identifier="DOI:10.5555/retracted.2024.112", published=True
    )
    call_command("check_sources", "--only", "arxiv,crossref", stdout=io.StringIO())
    assert Correction.objects.waiting().count() == 2

    desk = Desk(browser, live_server, publisher)
    page = open_waiting(desk, "arXiv v3 noted")
    assert "arXiv has v3 of LIT-026, the record cites v2." in (
        page.locator("main, #content").first.inner_text()
    )
    desk.press("input[name=_accept]")
    page.get_by_role("link", name="Review and publish it").click()
    page.wait_for_load_state()
    desk.press("input[name=_publish]")

    page = open_waiting(desk, "Retraction")
    assert "Crossref: retracted 2026-05-02" in page.locator("#content").inner_text()
    desk.press("input[name=_accept]")
    assert desk.said() == ["Accepted the retraction of LIT-027: it is withdrawn."]

    reader = browser.new_page()
    reader.goto(f"{live_server.url}/LIT-026/")
    assert (
        reader.locator("section.corrections li")
        .inner_text()
        .endswith("arXiv v3 noted (found by the arXiv check)")
    )
    reader.goto(f"{live_server.url}/LIT-027/")
    assert "Crossref: retracted 2026-05-02" in (
        reader.locator(".notice.withdrawn").inner_text()
    )
    reader.close()
    assert desk.violations() == []
