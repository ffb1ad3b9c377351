"""A team's decision log and its records fit the screen in Chromium, on a
desktop and on a phone, whatever the team wrote: titles with words of
hundreds of letters, long statuses with their links, a record whose body
holds a table of twelve columns, which scrolls in its own box. The log's
status filter offers the statuses its records state, and each one works."""
# The folder's files keep the long lines their tools write.
# ruff: noqa: E501

import io

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command

from tests.imports.test_madr_import import write_folder

pytestmark = pytest.mark.django_db(transaction=True)

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# A feature flag's name, as teams title the decision that adds it: one
# unbroken run of 300 letters.
FLAG = "_".join(
    ["PLATFORM", "CHECKOUT", "SERVICE", "ASYNC", "SETTLEMENT", "PIPELINE"] * 6
)[:292]
FLAG = f"{FLAG}_ENABLED"
assert len(FLAG) == 300
BUILD_LOG = (
    "https://github.com/example-org/platform/actions/runs/9876543210/job/"
    "27182818284?pr=4521#step:7:112-" + "retry-" * 40
)

WIDE_TABLE = """| Option | Cost | Latency | Throughput | Durability | Operations | Lock-in | Licence | Maturity | Community | Security | Verdict |
|--------|-----:|--------:|-----------:|------------|------------|---------|---------|----------|-----------|----------|---------|
| Kafka | £££ | 5 ms | 1M msg/s | Replicated | Heavy | None | Apache-2.0 | Mature | Large | mTLS | Chosen |
| RabbitMQ | ££ | 2 ms | 50k msg/s | Quorum queues | Moderate | None | MPL-2.0 | Mature | Large | TLS | Considered |
| Amazon SQS | £ | 20 ms | Unbounded | Managed | Light | AWS | Proprietary | Mature | Vendor | IAM | Rejected |
"""

TEAM_FOLDER = {
    "0001-add-the-settlement-flag.md": f"""# 1. Add the flag {FLAG}

Date: 2024-01-05

## Status

Accepted

## Context

Settlement moves to its own pipeline behind a flag.
""",
    "0002-use-kafka-for-settlement-events.md": """# 2. Use Kafka for settlement events, partitioned by merchant account and retained for the statutory seven years

Date: 2024-02-01

## Status

Accepted by the architecture review board on 12 March 2024, after [the discussion on the request for comments about event retention and partitioning](https://github.com/example-org/platform/pull/1234#issuecomment-1987654321)

## Context

Events are lost when a consumer restarts.

## Decision

"""
    + WIDE_TABLE,
    "0003-split-the-ledger.md": """# 3. Split the ledger by region

Date: 2024-03-01

## Status

Parked until [the capacity review of the ledger databases for 2024 Q3](https://wiki.example.org/display/PLAT/Capacity+Review+2024-Q3) reports

## Context

One ledger serves every region.
""",
    "0004-retry-failed-payouts.md": f"""# 4. Retry failed payouts

Date: 2024-04-02

## Status

Ongoing: the trial runs in {BUILD_LOG}

## Context

Payouts fail when the bank's gateway times out.
""",
    "0005-undecided.md": """# 5. Choose a search engine for the back office

## Context

Nobody has decided yet.
""",
}


@pytest.fixture
def team_log(db, tmp_path):
    """The platform team's log, imported from its folder: its address."""
    folder = write_folder(tmp_path / "adr", TEAM_FOLDER)
    call_command(
        "import_decisions", str(folder), "--log", "Platform", stdout=io.StringIO()
    )
    return "/decisions/platform/"


def widths(page, selector="html"):
    """``[scrollWidth, clientWidth]`` of the first element ``selector`` finds,
    and the viewport's width."""
    return page.evaluate(
        "(selector) => { const e = document.querySelector(selector);"
        " return [e.scrollWidth, e.clientWidth, window.innerWidth]; }",
        selector,
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_a_logs_table_of_long_titles_and_statuses_fits_the_screen(
    browser, live_server, team_log, viewport
):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()

    assert page.goto(live_server.url + team_log).status == 200

    scrolled, _, inner = widths(page)
    assert scrolled <= inner
    # Every cell is in sight, the dates too: none runs past either edge.
    cells = page.locator("table.decisions td").evaluate_all(
        "cells => cells.map(cell => {"
        " const box = cell.getBoundingClientRect();"
        " return [cell.className, box.left, box.right]; })"
    )
    assert len(cells) == 5 * 4
    assert [c for c in cells if c[1] < 0 or c[2] > inner] == []
    assert page.locator("td:nth-child(4) time").count() == 4
    assert page.locator("td.title").first.inner_text() == f"Add the flag {FLAG}"
    assert Axe().run(page).violations_count == 0
    context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_a_records_wide_table_scrolls_in_its_own_box_and_the_page_fits(
    browser, live_server, team_log, viewport
):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()

    assert page.goto(f"{live_server.url}{team_log}ADR-002/").status == 200

    scrolled, _, inner = widths(page)
    assert scrolled <= inner
    table_scrolled, table_shown, _ = widths(page, ".body .table-scroll")
    assert table_scrolled > table_shown
    assert page.locator(".body table th").count() == 12
    # Still a table to assistive technology, its cells under their headers.
    assert page.get_by_role("table").get_by_role("columnheader").count() == 12
    assert page.get_by_role("cell", name="Quorum queues").count() == 1
    found = Axe().run(page)
    assert found.violations_count == 0, found.generate_report()
    context.close()


def test_the_status_filter_offers_every_status_the_logs_records_state(
    browser, live_server, team_log
):
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(live_server.url + team_log)
    page.click(".filters summary")

    offered = page.locator("#status-filter option").all_inner_texts()
    # Ours, in their order ("Accepted by the board…" read as accepted), then
    # those kept as written, without their links and cut short.
    assert offered == [
        "Any",
        "Not stated",
        "Accepted",
        f"Ongoing: the trial runs in {BUILD_LOG}"[:79] + "…",
        "Parked until the capacity review of the ledger databases for 2024 Q3 reports",
    ]

    chosen = {}
    for label in offered[1:]:
        page.goto(live_server.url + team_log)
        page.click(".filters summary")
        page.select_option("#status-filter", label=label)
        page.click(".filters button")
        page.wait_for_load_state()
        chosen[label] = page.locator("td.label").all_inner_texts()
        assert widths(page)[0] <= PHONE["width"]
    assert list(chosen.values()) == [
        ["ADR-005"],
        ["ADR-001", "ADR-002"],
        ["ADR-004"],
        ["ADR-003"],
    ]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_every_page_showing_the_teams_longest_words_fits_the_screen(
    browser, live_server, team_log, viewport
):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    paths = [
        f"{team_log}ADR-001/",  # The title of 300 letters.
        f"{team_log}ADR-004/",  # The status with its build log's address.
        "/search/?q=settlement",
        f"{team_log}?status=none",
    ]
    too_wide = {}

    for path in paths:
        assert page.goto(live_server.url + path).status == 200
        scrolled, _, inner = widths(page)
        if scrolled > inner:
            too_wide[path] = scrolled

    assert too_wide == {}
    context.close()
