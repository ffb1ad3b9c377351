"""A reader's correction decided on the desk, in Chromium: a publisher opens
the queue from the desk, reads the diff and the source check, accepts, then
reviews and publishes the pending revision; or declines with a reason. The
reader's mail arrives at a real SMTP server the test starts. Each page is
checked for Content-Security-Policy violations, the queue and the proposal
with axe-core."""

import pytest

import actions.corrections
from catalogue.models import Correction
from tests.browser.test_editorial_journeys import Desk, public_text
from tests.factories import DocumentFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = "PyTorch Distributed: Experiences on Accelerating Data Parallel Training"
# LIT-219's authors as arXiv lists them, but the last.
AUTHORS = [
    {"family": family, "given": given}
    for given, family in [
        ("Shen", "Li"),
        ("Yanli", "Zhao"),
        ("Rohan", "Varma"),
        ("Omkar", "Salpekar"),
        ("Pieter", "Noordhuis"),
        ("Teng", "Li"),
        ("Adam", "Paszke"),
        ("Jeff", "Smith"),
        ("Brian", "Vaughan"),
        ("Pritam", "Damania"),
    ]
]
CHINTALA = {"family": "Chintala", "given": "Soumith"}


@pytest.fixture
def publisher(editorial_groups):
    return UserFactory(publisher=True, username="grace")


@pytest.fixture
def lit_219():
    return DocumentFactory(
        number=219,
        topic=TopicFactory(name="Distributed optimization"),
        title=TITLE,
        authors="Li et al.",
        year=2020,
        source_identifier="ARXIV-2006.15704",
        author_list=AUTHORS,
        summary="The design and evaluation of PyTorch’s DistributedDataParallel.",
        published=True,
    )


@pytest.fixture
def coauthor(lit_219):
    """A reader's proposal, as the public form makes it: the co-author the
    record lacks, and an address for the outcome."""
    return actions.corrections.propose(
        target=lit_219,
        changes={"author_list": [*AUTHORS, CHINTALA]},
        reason="The paper’s first page lists Soumith Chintala last.",
        email="reader@example.org",
    )


def open_proposal(desk):
    page = desk.go("/admin/")
    page.get_by_role("link", name="1 Corrections waiting").click()
    page.wait_for_load_state()
    desk.accessible()
    page.get_by_role("link", name="Authors").click()
    page.wait_for_load_state()
    desk.accessible()
    return page


def test_a_publisher_accepts_a_readers_co_author_then_reviews_and_publishes(
    browser, live_server, metadata_sources, mail_server, publisher, lit_219, coauthor
):
    desk = Desk(browser, live_server, publisher)

    page = open_proposal(desk)

    assert page.locator("h1").inner_text() == "Correction of LIT-219"
    assert page.locator(".comparison dt").all_inner_texts() == ["Author list"]
    assert page.locator(".comparison ins").all_inner_texts() == ["Chintala, Soumith"]
    assert page.locator(".source-check").inner_text() == (
        "ARXIV-2006.15704: arXiv agrees on the title; arXiv lists 11 authors, the "
        "proposal 11; arXiv and the proposal name the same authors; arXiv agrees on "
        "the year, 2020."
    )
    assert (
        page.locator(".correction-email").inner_text().startswith("reader@example.org")
    )
    desk.press("input[name=_accept]")
    assert desk.said() == [
        "Accepted the correction of LIT-219 (authors): it waits in the pending "
        "revision. Review and publish it."
    ]
    assert mail_server.envelopes == []  # Accepted; not yet published.

    page.get_by_role("link", name="Review and publish it").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == ("Review the pending revision of LIT-219")
    assert "Correction" in page.locator(".review-note").inner_text()
    desk.press("input[name=_publish]")

    assert desk.said() == ["Published LIT-219 v2."]
    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.PUBLISHED
    [envelope] = mail_server.envelopes
    assert envelope.rcpt_tos == ["reader@example.org"]
    [message] = mail_server.messages()
    assert message["Subject"] == "Your correction of LIT-219 is published"
    assert f"/corrections/{coauthor.token()}/" in message.get_content()
    authors = public_text(browser, live_server, "/LIT-219/", ".authors")
    assert "Soumith Chintala" in authors
    assert desk.violations() == []


def test_a_publisher_declines_and_the_reader_is_mailed_the_public_reason(
    browser, live_server, metadata_sources, mail_server, publisher, lit_219, coauthor
):
    desk = Desk(browser, live_server, publisher)
    page = open_proposal(desk)

    page.get_by_label("Public reason").fill(
        "Soumith Chintala is thanked in v1, not listed as an author."
    )
    page.get_by_label("Private reason").fill("Checked the PDF of v1.")
    desk.press("input[name=_decline]")

    assert desk.said() == [
        "Declined the correction of LIT-219: the reader is mailed your public reason."
    ]
    assert page.locator(".correction-public-reason").inner_text() == (
        "Soumith Chintala is thanked in v1, not listed as an author."
    )
    [message] = mail_server.messages()
    assert message["To"] == "reader@example.org"
    assert message["Subject"] == "Your correction of LIT-219 was declined"
    body = message.get_content()
    assert "Their reason: Soumith Chintala is thanked in v1, not listed" in body
    assert "Checked the PDF" not in body
    authors = public_text(browser, live_server, "/LIT-219/", ".authors")
    assert "Chintala" not in authors
    assert desk.violations() == []
