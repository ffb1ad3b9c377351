"""An imported decision folder in Chromium: tables, alignment, an image and a
link to a sibling file render within the Content-Security-Policy."""

import io

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command

from tests.browser import follow
from tests.factories import png_bytes
from tests.html import csp_refusals

pytestmark = pytest.mark.django_db(transaction=True)

FOLDER = {
    "0001-choose-a-cache.md": """---
status: accepted
date: 2024-03-01
decision-makers: [Ann Lee]
---
# Choose a `cache`

## Considered Options

| Option    | Latency | Cost |
|-----------|--------:|:----:|
| Redis     |    1 ms |  £2  |
| Memcached |    2 ms |  £1  |

![The cache in front of the database](img/cache.png)

Superseding [the networking outline](0002-networking-outline.md) in part.
<!-- optional: more information -->
""",
    "0002-networking-outline.md": """# 2. Networking outline

Date: 2024-02-01

## Status

Accepted

Clarified by [1. Choose a cache](0001-choose-a-cache.md)

## Context

| Plain | table |
|-------|-------|
| a     | b     |
""",
}

WATCH = """
window.violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture
def team_folder(tmp_path):
    for name, text in FOLDER.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "cache.png").write_bytes(png_bytes(width=40, height=20))
    call_command("import_decisions", str(tmp_path), stdout=io.StringIO())


def test_an_imported_record_renders_with_no_csp_violation(
    page, live_server, team_folder
):
    refused = csp_refusals(page)
    page.add_init_script(WATCH)

    page.goto(f"{live_server.url}/decisions/ADR-001/")

    assert page.locator("h1 code").inner_text() == "cache"
    cost = page.locator(".body td", has_text="£2")
    latency = page.locator(".body td", has_text="1 ms")
    assert cost.evaluate("cell => getComputedStyle(cell).textAlign") == "center"
    assert latency.evaluate("cell => getComputedStyle(cell).textAlign") == "right"
    image = page.get_by_role("img", name="The cache in front of the database")
    assert image.evaluate("img => img.complete && img.naturalWidth") == 40
    assert Axe().run(page).violations_count == 0
    assert page.evaluate("window.violations") == []

    follow(page, page.get_by_role("link", name="the networking outline"))

    assert page.url == f"{live_server.url}/decisions/ADR-002/"
    assert page.locator(".facts").inner_text().splitlines()[-2:] == [
        "Clarified by",
        "ADR-001: Choose a cache",
    ]
    assert page.locator(".body table").count() == 1
    assert page.evaluate("window.violations") == []
    assert refused == []
