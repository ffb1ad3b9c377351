"""A reader on a phone suggests a correction in Chromium: from the document's
page to its form, a co-author added on a line of their own, an address for
the outcome, sent; the private page shows the request. Nothing runs past the
screen's edge, the pages pass axe-core, the Content-Security-Policy refuses
nothing, and a refusal is read out with its field."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from catalogue.models import Correction
from tests.factories import DocumentFactory
from tests.html import csp_refusals

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}
AUTHORS = [
    {"family": "Chen", "given": "Tianqi"},
    {"family": "Xu", "given": "Bing"},
]


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def document(db):
    """LIT-219 with two of its authors recorded, and a long title."""
    return DocumentFactory(
        number=219,
        title="Memory-efficient training of very deep networks with "
        "gradient checkpointing and recomputation",
        authors="Chen and Xu",
        author_list=AUTHORS,
        year=2016,
        source_identifier="ARXIV-1604.06174",
        published=True,
    )


def fits(page):
    """Whether the page keeps to the screen's width."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def accessible(page):
    found = Axe().run(page)
    assert found.violations_count == 0, found.generate_report()


def test_a_reader_on_a_phone_adds_a_coauthor_and_follows_the_request(
    phone, live_server, document
):
    refused = csp_refusals(phone)
    phone.goto(f"{live_server.url}/LIT-219/")
    phone.get_by_role("link", name="Suggest a correction").tap()
    phone.wait_for_url("**/LIT-219/correct/")

    assert phone.get_by_label("Title", exact=True).input_value() == document.title
    assert fits(phone)
    accessible(phone)
    authors = phone.get_by_label("Every author, one a line")
    assert authors.input_value() == "Chen, Tianqi\nXu, Bing"
    authors.tap()
    phone.keyboard.press("Control+End")
    phone.keyboard.press("Enter")
    phone.keyboard.type("Guestrin, Carlos")
    phone.get_by_label("How you know").fill("The arXiv listing names three authors.")
    phone.get_by_label("Your e-mail address").fill("reader@example.org")
    phone.get_by_role("button", name="Send the correction").tap()
    phone.wait_for_url("**/corrections/*/")

    correction = Correction.objects.get()
    assert correction.changes == {
        "author_list": [*AUTHORS, {"family": "Guestrin", "given": "Carlos"}]
    }
    assert correction.email == "reader@example.org"
    assert phone.locator("h1").inner_text() == "Your correction of LIT-219"
    assert phone.locator(".correction-status").inner_text() == "Waiting"
    assert phone.locator("table.proposed td.proposed-value").inner_text() == (
        "Chen, Tianqi\nXu, Bing\nGuestrin, Carlos"
    )
    assert fits(phone)
    accessible(phone)
    assert refused == []


def test_a_refusal_is_shown_and_read_out_with_its_field(phone, live_server, document):
    phone.goto(f"{live_server.url}/LIT-219/correct/")
    phone.get_by_label("Year").fill("216")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Send the correction").tap()

    year = phone.get_by_label("Year")
    assert year.get_attribute("aria-invalid") == "true"
    described = year.get_attribute("aria-describedby")
    message = phone.locator(f"#{described}").inner_text()
    assert "greater than or equal to 1000" in message
    assert phone.get_by_role("alert").inner_text() == (
        "Please look at the fields marked below."
    )
    assert fits(phone)
    accessible(phone)
    assert not Correction.objects.exists()
