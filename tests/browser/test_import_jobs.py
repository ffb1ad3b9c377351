"""A publisher imports a CSV through the admin in Chromium: the dry run and
the import run as background jobs whose pages show their progress and result;
the topic page a reader had cached shows the new and the revised documents on
the next request."""

import pytest
from rq.job import JobStatus

from catalogue.models import Document
from jobs import runner
from jobs.models import Job
from tests.browser.test_editorial_journeys import Desk, desk_record, public_text
from tests.factories import UserFactory
from tests.imports.test_import_csv import csv_text, row

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["desk_record"]


def test_a_csv_import_runs_as_jobs_with_progress_and_shows_on_the_public_page(
    browser, live_server, desk_record, tmp_path
):
    tagged = desk_record["tagged"]
    topic = tagged.topic
    revised = row(
        identifier="LIT-004",
        number="4",
        version="2",
        title=tagged.title,
        authors=tagged.authors,
        year=str(tagged.year),
        source_identifier=tagged.source_identifier,
        summary="Revised — recompute 2× fewer activations.",
        topic=topic.slug,
        tags="memory",
    )
    new = [
        row(
            identifier=f"LIT-{number:03d}",
            number=str(number),
            title=f"Pipelines for “long” contexts — part {number}",
            topic=topic.slug,
            tags="memory",
        )
        for number in range(11, 131)
    ]
    upload = tmp_path / "new-documents.csv"
    upload.write_bytes(csv_text([revised, *new]))
    publisher = Desk(browser, live_server, desk_record["publisher"])
    # A reader has the topic page, cached, before the import.
    for _ in range(2):
        cached = public_text(browser, live_server, topic.get_absolute_url(), "main")
    assert "Revised — recompute" not in cached

    publisher.go("/admin/catalogue/document/import/")
    publisher.page.set_input_files("input[type=file]", str(upload))
    publisher.press("input[type=submit][value=Submit]")
    assert "/import/jobs/" in publisher.page.url
    assert publisher.page.locator(".import-summary").inner_text() == (
        "120 new, 1 updated, 0 unchanged."
    )
    rows = publisher.page.locator(".import-outcomes tbody tr")
    assert rows.count() == 100
    assert rows.first.locator("td").all_inner_texts() == [
        "1",
        "Updated",
        "LIT-004 v2: Sublinear memory",
        "version, summary, tags",
    ]
    assert "Rows 1–100 of 121, page 1 of 2." in (
        publisher.page.locator(".import-pages").inner_text()
    )
    publisher.accessible()
    publisher.press(".import-pages a[rel=next]")
    assert rows.count() == 21
    assert rows.first.locator("td").all_inner_texts() == [
        "101",
        "New",
        "LIT-110: Pipelines for “long” contexts — part 110",
        "",
    ]
    publisher.go("/admin/jobs/job/")
    listed = publisher.page.locator("#result_list tbody tr").first
    assert "Dry run of new-documents.csv (documents)" in listed.inner_text()
    assert listed.locator("progress").get_attribute("value") == "121"
    assert "Checked: 120 new, 1 updated, 0 unchanged." in listed.inner_text()
    publisher.accessible()

    publisher.page.go_back()
    publisher.press("input[name=confirm]")
    assert publisher.page.locator(".import-summary").inner_text() == (
        "Imported: 120 new, 1 updated, 0 unchanged."
    )
    assert Document.objects.get(number=11).status == Document.Status.ACTIVE
    assert sorted(Document.objects.get(number=4).tags.names()) == ["memory"]
    fresh = public_text(browser, live_server, topic.get_absolute_url(), "main")
    assert "Pipelines for “long” contexts — part 11" in fresh
    assert "Revised — recompute 2× fewer activations." in fresh
    assert publisher.violations() == []


def test_a_running_jobs_page_shows_its_progress_then_its_result_by_itself(
    browser, live_server, desk_record, on_the_queue
):
    publisher = desk_record["publisher"]
    job = Job.objects.create(
        title="Import of big.csv (documents)",
        function="imports.job_functions.import_csv",
        arguments={"dry_run": False},
        state=Job.State.RUNNING,
        created_by=publisher,
    )
    job.page = f"/admin/catalogue/document/import/jobs/{job.pk}/"
    job.save()
    on_the_queue(job, JobStatus.STARTED)
    runner.cache.set(runner._progress_key(job.pk), (1250, 5000))
    desk = Desk(browser, live_server, publisher)

    desk.go(job.page)
    assert desk.page.locator("progress").get_attribute("value") == "1250"
    assert desk.page.locator(".job-count").inner_text() == "1250 of 5000 rows read."
    Job.objects.filter(pk=job.pk).update(
        state=Job.State.FINISHED, summary="Imported: 5000 new, 0 updated, 0 unchanged."
    )
    runner.cache.set(runner._result_key(job.pk), object())

    # The page looks again by itself.
    desk.page.wait_for_selector(".import-summary", timeout=10_000)
    assert desk.page.locator(".import-summary").inner_text() == (
        "Imported: 5000 new, 0 updated, 0 unchanged."
    )
    assert desk.violations() == []


def test_an_administrator_imports_a_topic_page_as_a_job(
    browser, live_server, desk_record, seed_path
):
    administrator = UserFactory(username="root", is_superuser=True)
    desk = Desk(browser, live_server, administrator)

    desk.go("/admin/catalogue/topic/")
    desk.press("text=Import a topic page")
    desk.page.set_input_files("input[type=file]", str(seed_path))
    desk.press("input[type=submit][value='Import the page']")

    assert desk.page.locator(".import-summary").inner_text() == (
        f"Imported {seed_path.name}."
    )
    assert "Documents: " in desk.page.locator(".import-report").inner_text()
    desk.accessible()
    assert "Distributed optimization" in public_text(browser, live_server, "/", "main")
    assert desk.violations() == []
