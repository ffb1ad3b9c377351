"""Long work started from the admin, in Chromium: a publisher imports a team's
decision folder zipped, then again once an editor changed a record (the
file's change waits as its pending revision); a superuser starts a backup,
watches its progress and downloads it."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from catalogue.models import DecisionRecord
from imports import backups
from jobs import runner
from jobs.models import Job
from jobs.queue import get_queue
from tests.browser.test_decision_folder import FOLDER
from tests.browser.test_editorial_journeys import Desk, desk_record, public_text
from tests.conftest import TEST_QUEUE, TEST_REDIS_URL
from tests.factories import UserFactory, png_bytes
from tests.imports.zips import zipped

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["desk_record"]


def team_archive(folder=FOLDER):
    files = {**folder, "img/cache.png": png_bytes(width=40, height=20)}
    return zipped(files, prefix="team-main/docs/adr/")


def test_a_publisher_imports_a_zipped_folder_and_a_changed_file_waits_for_review(
    browser, live_server, desk_record, tmp_path
):
    upload = tmp_path / "team-main.zip"
    upload.write_bytes(team_archive())
    publisher = Desk(browser, live_server, desk_record["publisher"])

    publisher.go("/admin/catalogue/decisionrecord/")
    publisher.press("text=Import a decision folder")
    publisher.page.set_input_files("input[type=file]", str(upload))
    publisher.press("input[type=submit][value='Import the folder']")

    assert publisher.page.locator(".import-summary").inner_text() == (
        "Imported team-main.zip (team-main/docs/adr/). Decision records: 2 created, "
        "0 updated, 0 unchanged."
    )
    # Nothing to report beyond the totals (no note on 0001-choose-a-cache.md):
    # the totals are said once, in the summary, and no report follows.
    assert publisher.page.locator(".import-report").count() == 0
    publisher.accessible()
    reader = browser.new_page()
    reader.goto(f"{live_server.url}/decisions/ADR-001/")
    image = reader.get_by_role("img", name="The cache in front of the database")
    assert image.evaluate("img => img.complete && img.naturalWidth") == 40
    reader.close()

    # An editor's reading of ADR-002, published; then the team's file changes.
    publisher.go(f"/admin/catalogue/decisionrecord/{number_pk(2)}/change/")
    publisher.page.fill("#id_title", "Networking outline — our reading")
    publisher.press("input[name=_publish]")
    changed = dict(FOLDER)
    changed["0002-networking-outline.md"] = changed[
        "0002-networking-outline.md"
    ].replace("| a     | b     |", "| a     | b     |\n| c     | d     |")
    upload.write_bytes(team_archive(changed))
    publisher.go("/admin/catalogue/decisionrecord/import-folder/")
    publisher.page.set_input_files("input[type=file]", str(upload))
    publisher.press("input[type=submit][value='Import the folder']")

    assert publisher.page.locator(".import-summary").inner_text() == (
        "Imported team-main.zip (team-main/docs/adr/). Decision records: 0 created, "
        "0 updated, 1 unchanged, 1 held as pending revisions."
    )
    assert (
        "ADR-002 was changed by an editor since it was last imported: kept as they "
        "left it; the file's change is held as its pending revision"
    ) in publisher.page.locator(".import-report").inner_text()
    publisher.go(f"/admin/catalogue/decisionrecord/{number_pk(2)}/change/")
    assert (
        "A revision is pending" in publisher.page.locator(".workflow-note").inner_text()
    )
    assert publisher.page.input_value("#id_title") == "Networking outline"
    assert "| c     | d     |" in publisher.page.input_value("#id_body")
    assert public_text(browser, live_server, "/decisions/ADR-002/", "h1") == (
        "Networking outline — our reading"
    )
    assert publisher.violations() == []


def number_pk(number):
    return DecisionRecord.objects.get(number=number).pk


def test_an_archive_that_leads_outside_itself_is_refused_on_the_form(
    browser, live_server, desk_record, tmp_path
):
    upload = tmp_path / "adr.zip"
    upload.write_bytes(
        zipped(
            {"adr/0001-a.md": "# A\n", "adr/../../0002-b.md": "# B\n"},
            directories=False,
        )
    )
    publisher = Desk(browser, live_server, desk_record["publisher"])

    publisher.go("/admin/catalogue/decisionrecord/import-folder/")
    publisher.page.set_input_files("input[type=file]", str(upload))
    publisher.press("input[type=submit][value='Import the folder']")

    assert publisher.page.locator(".errorlist").inner_text() == (
        "adr.zip: the entry “adr/../../0002-b.md” is refused: it leads out of its "
        "folder (..). Nothing in an archive may lead outside it."
    )
    assert not DecisionRecord.objects.exists()
    assert not Job.objects.exists()
    assert publisher.violations() == []


def test_a_superuser_starts_a_backup_watches_its_progress_and_downloads_it(
    browser, live_server, desk_record, backup_dir, monkeypatch
):
    # Enough rows for the backup to report progress before it is done.
    call_command("generate_sample", documents=150, stdout=io.StringIO())
    administrator = UserFactory(username="root", is_superuser=True)
    desk = Desk(browser, live_server, administrator)

    desk.go("/admin/")
    desk.press("#jobs-backup >> text=Backups")
    assert desk.page.locator(".backups-none").inner_text() == ("No backup is kept yet.")
    desk.accessible()
    # Jobs wait for a worker, as in production: the test plays the worker.
    with override_settings(RQ_QUEUES={TEST_QUEUE: {"URL": TEST_REDIS_URL}}):
        desk.press("input[type=submit][value='Start a backup']")
    assert desk.page.locator(".job-state").inner_text() == (
        "Waiting for a worker: Backup of the whole record"
    )
    job = Job.objects.get()
    watched = []
    report = runner.progress

    def watch(done, total):
        report(done, total)
        if done < total and not watched:
            # The page looks again by itself and shows how far the job is.
            desk.page.wait_for_selector(
                f".job-count:text-is('{done} of {total} rows written.')",
                timeout=10_000,
            )
            watched.append(desk.page.locator("progress").get_attribute("value"))

    monkeypatch.setattr(runner, "progress", watch)
    try:
        runner.run(str(job.pk))
    finally:
        get_queue().empty()

    assert watched == ["500"]
    desk.page.wait_for_selector(".backup-download", timeout=10_000)
    job.refresh_from_db()
    assert desk.page.locator(".backup-summary").inner_text() == job.summary
    desk.accessible()
    with desk.page.expect_download() as download:
        desk.page.click(".backup-download")
    data = Path(download.value.path()).read_bytes()
    (kept,) = backups.finished_backups()
    assert download.value.suggested_filename == kept.name
    # What the browser saved is the backup kept; a download's restore, field
    # by field, is test_backup_jobs'.
    assert data == (backup_dir / kept.name).read_bytes()
    desk.go("/admin/jobs/backups/")
    assert desk.page.locator(".backup-list tbody tr").count() == 1
    assert desk.violations() == []
