"""Decision logs in Chromium: a publisher imports a team's zipped folder as a
log named on the form; a reader finds it from /decisions/, browses and
filters it, follows its own ADR-026 and ADR-027 within it, and the preface's
ADR-026 still leads to the record's own."""

import io

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command

from tests.browser.test_editorial_journeys import Desk, desk_record
from tests.factories import DecisionRecordFactory
from tests.imports.test_decision_logs import GOVUK, TWINS
from tests.imports.zips import zipped

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["desk_record"]


def test_a_team_folder_imported_as_a_named_log_leaves_the_prefaces_adr_026_alone(
    browser, live_server, desk_record, seed_path, tmp_path
):
    call_command("import_index", str(seed_path), stdout=io.StringIO())
    DecisionRecordFactory(number=26, title="One list of topics for both registries")
    reader = browser.new_context().new_page()
    # The index is read, and cached, before the import.
    reader.goto(f"{live_server.url}/")
    reader.goto(f"{live_server.url}/decisions/")
    upload = tmp_path / "govuk-aws-main.zip"
    upload.write_bytes(zipped({**GOVUK, **TWINS}, prefix="govuk-aws-main/docs/adr/"))
    publisher = Desk(browser, live_server, desk_record["publisher"])

    publisher.go("/admin/catalogue/decisionrecord/")
    publisher.press("text=Import a decision folder")
    publisher.page.fill("#id_log", "GOV.UK AWS")
    publisher.page.set_input_files("input[type=file]", str(upload))
    publisher.press("input[type=submit][value='Import the folder']")

    assert publisher.page.locator(".import-summary").inner_text() == (
        "Imported govuk-aws-main.zip (govuk-aws-main/docs/adr/). Decision records: "
        "6 created, 0 updated, 0 unchanged."
    )
    assert "number 64 is also 0064-pipeline-cache-type-key.md's" in (
        publisher.page.locator(".import-report").inner_text()
    )
    publisher.accessible()
    assert publisher.violations() == []

    reader.goto(f"{live_server.url}/")
    reader.locator(".preface").get_by_role("link", name="ADR-026").click()
    reader.wait_for_load_state()
    assert reader.url == f"{live_server.url}/decisions/ADR-026/"
    assert reader.locator("h1").inner_text() == "One list of topics for both registries"

    reader.goto(f"{live_server.url}/decisions/")
    reader.get_by_role("link", name="GOV.UK AWS").click()
    reader.wait_for_load_state()
    assert reader.url == f"{live_server.url}/decisions/govuk-aws/"
    labels = reader.locator("td.label").all_inner_texts()
    assert labels == [
        "ADR-026",
        "ADR-027",
        "ADR-063",
        "ADR-064",
        "ADR-064 (2)",
        "ADR-065",
    ]
    assert Axe().run(reader).violations_count == 0
    reader.click(".filters summary")
    reader.select_option("#status-filter", "accepted")
    reader.click(".filters button")
    reader.wait_for_load_state()
    assert reader.url == f"{live_server.url}/decisions/govuk-aws/?status=accepted"
    reader.get_by_role("link", name="ADR-026", exact=True).click()
    reader.wait_for_load_state()
    assert reader.url == f"{live_server.url}/decisions/govuk-aws/ADR-026/"
    assert reader.locator("h1").inner_text() == "Use Terraform workspaces"
    reader.locator(".body").get_by_role("link", name="ADR-027").click()
    reader.wait_for_load_state()
    assert reader.url == f"{live_server.url}/decisions/govuk-aws/ADR-027/"

    reader.goto(f"{live_server.url}/decisions/govuk-aws/ADR-064/")
    reader.get_by_role("link", name="the runner images").click()
    reader.wait_for_load_state()
    assert reader.url == f"{live_server.url}/decisions/govuk-aws/ADR-064/2/"
    assert reader.locator(".label").first.inner_text().startswith("ADR-064 (2)")
    feed = reader.request.get(f"{live_server.url}/decisions/govuk-aws/feed/")
    assert feed.status == 200
    assert "ADR-064 (2): Use the runner images" in feed.text()
