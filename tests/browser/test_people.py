"""A reader finds an author's other work in Chromium: from a document to its
author's page and on to their other document, or by typing their name."""

import pytest

from tests.browser import follow

pytestmark = pytest.mark.django_db(transaction=True)


def test_reader_goes_from_a_document_to_its_authors_page_and_their_other_work(
    page, live_server, imported_seed
):
    page.goto(f"{live_server.url}/LIT-027/")
    assert page.locator("h1").inner_text() == (
        "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models"
    )

    authors = page.locator(".facts .authors")
    follow(page, authors.get_by_role("link", name="Rajbhandari"))

    assert page.url == f"{live_server.url}/people/rajbhandari/"
    assert page.locator("h1").inner_text() == "Rajbhandari"
    assert page.locator(".unverified").inner_text() == "Unverified"
    assert page.locator(".person-documents .counts").inner_text() == (
        "2 of 67 LIT documents. Back to the full index."
    )
    assert page.locator("td.label").all_inner_texts() == ["LIT-027", "LIT-102 v3"]

    follow(page, page.get_by_role("link", name="LIT-102 v3"))

    assert page.url == f"{live_server.url}/LIT-102/"
    assert page.locator("h1").inner_text().startswith("ZeRO++")
    assert page.locator(".facts .authors").inner_text() == "Rajbhandari et al."


def test_reader_types_an_authors_name_and_lands_on_their_page(
    page, live_server, imported_seed
):
    page.goto(live_server.url)
    banner = page.get_by_role("banner")
    banner.get_by_role("searchbox", name="Search the record").fill("RAJBHANDARI")
    follow(page, banner.get_by_role("button", name="Search"))

    assert page.url == f"{live_server.url}/people/rajbhandari/"

    follow(page, page.get_by_role("link", name="People", exact=True).first)
    # A letter leads to its place on the page.
    page.locator("nav.letters").get_by_role("link", name="R").click()
    page.wait_for_url(f"{live_server.url}/people/#letter-R")
    assert page.locator("#letter-R + ul li").first.inner_text() == (
        "Rajbhandari 2 documents"
    )
