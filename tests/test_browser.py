"""What a reader sees in a real browser (Debian's Chromium, via Playwright)."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_reader_opens_the_seed_topic_from_the_full_index(
    page, live_server, imported_seed, seed_rows
):
    page.goto(live_server.url)
    page.get_by_role("link", name="Distributed optimization").click()

    rows = page.locator("table.documents tbody tr")
    assert page.locator("h1").inner_text() == "Distributed optimization"
    assert rows.count() == len(seed_rows)
    assert rows.first.locator("td").all_text_contents() == seed_rows[0]
    page.get_by_role("link", name="Back to the full index.").click()
    assert page.url == f"{live_server.url}/"
