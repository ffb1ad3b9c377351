"""A publisher's schedule and preview link, in Chromium, through a real
varnishd running the shipped VCL in front of gunicorn, with a real worker:

- a pending revision scheduled a few seconds ahead is not on the page
  Varnish serves before its time, and is there once the worker (its chore)
  has run it, the worker's purge reaching Varnish;
- a preview link opens in a fresh browser context without an account, is
  never a Varnish hit, and answers 410 once revoked."""

import datetime
import subprocess
import time
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.utils import timezone
from playwright.sync_api import expect
from rq import Worker

import actions.documents
from catalogue.models import Document, PreviewLink, Schedule
from jobs.queue import get_queue
from tests.factories import PASSWORD, DocumentFactory, UserFactory
from tests.imports.test_import_worker import start_worker, until
from tests.pagecache.test_varnish import pytestmark as varnish_marks
from tests.pagecache.test_varnish import through, varnished, warm
from tests.pagecache.test_varnish_jobs import queue

__all__ = ["queue", "start_worker", "varnished"]

pytestmark = [
    *varnish_marks,
    pytest.mark.database(
        "postgresql",
        reason="the site behind Varnish and the worker share the test database",
    ),
]

PAGE = "/LIT-004/"


def sign_in(page, front, user):
    """``user`` signed in to the admin through Varnish, in Chromium."""
    # The site knows the production hashers; few iterations keep it quick.
    user.password = PBKDF2PasswordHasher().encode(PASSWORD, "salt", 1000)
    user.save(update_fields=["password"])
    page.goto(f"{front}/admin/login/?next=/admin/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#site-name")).to_be_visible()


def hits(varnished):
    """How many requests Varnish has answered from its cache so far."""
    out = subprocess.run(
        ["varnishstat", "-n", varnished["name"], "-1", "-f", "MAIN.cache_hit"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return int(out.split()[1])


def test_a_revision_scheduled_seconds_ahead_shows_through_varnish_once_run(
    editorial_groups, varnished, queue, start_worker, page
):
    front = varnished["front"]
    varnished["open_purges"]()
    publisher = UserFactory(publisher=True, username="publisher")
    document = DocumentFactory(number=4, title="Old title", published=True)
    actions.documents.edit_document(
        document=document, user=publisher, changes={"title": "A revised title"}
    )
    assert "Old title" in warm(front, PAGE)
    # The worker does its chores every second, while it waits for jobs.
    start_worker(VARNISH_URL=front, JOBS_CHORE_SECONDS="1")
    until(lambda: Worker.all(queue=get_queue()), "the worker listens")
    sign_in(page, front, publisher)

    page.goto(f"{front}/admin/catalogue/document/{document.pk}/change/")
    page.get_by_role("link", name="Schedule…").first.click()
    expect(page.locator(".schedule-form .help").first).to_contain_text(
        "In the site's time zone, UTC."
    )
    page.get_by_label("Publish").check()
    at = timezone.localtime() + datetime.timedelta(seconds=10)
    page.locator("#id_at").fill(at.strftime("%Y-%m-%dT%H:%M:%S"))
    page.locator("#id_note").fill("Retitled as the authors did.")
    page.get_by_role("button", name="Schedule", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("Scheduled: publish LIT-004")
    at = Schedule.objects.get().at

    # Until its time, Varnish serves the page it keeps, as it was; then the
    # worker publishes the revision and purges it.
    reads = []
    while True:
        body, headers = through(front, PAGE)
        reads.append((timezone.now(), "A revised title" in body, headers["X-Cache"]))
        if reads[-1][1] or len(reads) > 600:
            break
        time.sleep(0.1)

    before = [read for read in reads if read[0] < at]
    assert before, "no page was read before the schedule's time"
    assert {(shows, cache) for _, shows, cache in before} == {(False, "HIT")}
    assert reads[-1][1], "the revision never showed through Varnish"
    planned = Schedule.objects.get()
    assert planned.state == "done"
    assert planned.ran_at >= at
    document.refresh_from_db()
    assert (document.title, document.version) == ("A revised title", 2)
    # The desk says it is done.
    page.goto(f"{front}/admin/catalogue/document/{document.pk}/change/")
    expect(page.locator("#schedules tr.schedule.done")).to_contain_text(
        "Published LIT-004 v2."
    )


def test_a_preview_link_opens_without_an_account_and_is_never_kept(
    editorial_groups, varnished, page, browser
):
    front = varnished["front"]
    varnished["open_purges"]()
    publisher = UserFactory(publisher=True, username="publisher")
    draft = DocumentFactory(
        number=12, title="A draft for the authors’ eyes", status=Document.Status.DRAFT
    )
    sign_in(page, front, publisher)
    page.goto(f"{front}/admin/catalogue/document/{draft.pk}/change/")
    page.get_by_role("button", name="Make a preview link").click()
    expect(page.locator(".messagelist")).to_contain_text("Made a preview link")
    listed = page.locator("#preview-links .preview-address").input_value()
    # The address is under the site's canonical origin (SITE_URL), which here
    # is not Varnish's: the path is opened at Varnish.
    path = urlsplit(listed).path
    assert path == PreviewLink.objects.get().get_absolute_url()
    address = front + path

    outsider = browser.new_context()
    try:
        reader = outsider.new_page()
        counted = hits(varnished)
        answers = [reader.goto(address) for _ in range(3)]
        assert [answer.status for answer in answers] == [200, 200, 200]
        assert [answer.headers["x-cache"] for answer in answers] == ["MISS"] * 3
        assert hits(varnished) == counted
        expect(reader.locator("h1")).to_have_text("A draft for the authors’ eyes")
        expect(reader.locator(".notice.preview")).to_contain_text("Preview of a draft")
        assert answers[-1].headers["cache-control"] == "private, no-store"
        assert reader.locator('meta[name="robots"]').get_attribute("content") == (
            "noindex"
        )

        page.get_by_role("button", name="Revoke").click()
        expect(page.locator(".messagelist")).to_contain_text("Revoked the preview")
        gone = reader.goto(address)
        assert gone.status == 410
        assert gone.headers["x-cache"] == "MISS"
        expect(reader.locator("h1")).to_have_text("This preview link was revoked")
        assert "A draft for the authors’ eyes" not in reader.content()
    finally:
        outsider.close()
