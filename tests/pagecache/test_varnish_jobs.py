"""What a background job changes shows through a real varnishd as soon as the
job has finished: the worker's work horse purges Varnish once the job's
change commits, as a request does, before it exits, rather than leaving the
purge to a drain of the outbox a minute later."""

import gzip
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from catalogue.models import DecisionRecord
from jobs.models import Job
from tests.imports.test_import_worker import forget_queue, start_worker, until
from tests.imports.zips import zipped
from tests.pagecache.test_varnish import pytestmark, raw, varnished
from tests.tools import TEST_REDIS_URL

__all__ = ["pytestmark", "start_worker", "varnished"]

BROWSER = "gzip, deflate, br"

ADOPTED = """# 2. Keep sessions in Redis

Date: 2024-02-01

## Status

Accepted

## Context

Sessions are lost when a web process restarts.

## Decision

Keep them in the shared Redis.
"""


@pytest.fixture
def queue(varnished):
    """The site's own queue and cache, shared by this test's process (whose
    admin keeps the upload there and queues its job) and the workers."""
    name = varnished["prefix"]
    with override_settings(
        JOBS_QUEUE=name,
        RQ_QUEUES={name: {"URL": TEST_REDIS_URL}},
        RQ={"COMMIT_MODE": "auto"},
        CACHES={
            "default": {
                "BACKEND": "pagecache.backends.RedisCache",
                "LOCATION": TEST_REDIS_URL,
                "KEY_PREFIX": name,
            }
        },
    ):
        yield name
    forget_queue(name)


def folder(second):
    """A team's adr-tools folder whose second record reads ``second``."""
    return {
        "0001-record-architecture-decisions.md": (
            "# 1. Record architecture decisions\n\nDate: 2024-01-05\n\n"
            "## Status\n\nAccepted\n\n## Context\n\nWe forget why.\n"
        ),
        "0002-keep-sessions.md": second,
    }


def import_folder(client, files):
    """Upload ``files`` zipped as the platform team's log; the job, once a
    worker finished it."""
    response = client.post(
        reverse("admin:catalogue_decisionrecord_import_folder"),
        {
            "log": "Platform team",
            "archive": SimpleUploadedFile("adr.zip", zipped(files, prefix="doc/adr/")),
        },
    )
    assert response.status_code == 302
    job = until(
        lambda: (
            Job.objects.filter(page=response.url)
            .exclude(state__in=[Job.State.QUEUED, Job.State.RUNNING])
            .first()
        ),
        "the import job finished",
    )
    assert job.state == Job.State.FINISHED, job.summary
    return job


def gzipped_page(front, path):
    """The page at ``path`` as a browser taking gzip reads it through
    Varnish, unpacked, and whether Varnish kept it."""
    body, headers = raw(front, path, BROWSER)
    if headers["Content-Encoding"] == "gzip":
        body = gzip.decompress(body)
    return body.decode(), headers["X-Cache"]


def test_a_reimported_decision_folder_shows_through_varnish_once_its_job_finished(
    admin_client, varnished, start_worker
):
    front = varnished["front"]
    start_worker(VARNISH_URL=front)
    import_folder(admin_client, folder(ADOPTED))
    decision = DecisionRecord.objects.select_related("log").get(number=2)
    pages = [
        decision.get_absolute_url(),
        decision.log.get_absolute_url(),
        reverse("catalogue:search") + "?q=valkey",
    ]
    for path in pages:
        gzipped_page(front, path)
        page, cache = gzipped_page(front, path)
        assert cache == "HIT"
        assert "Valkey" not in page

    import_folder(admin_client, folder(ADOPTED.replace("Redis", "Valkey")))

    # Read again until a second has passed since the job finished.
    deadline = time.monotonic() + 1
    while True:
        shown = {path: gzipped_page(front, path)[0] for path in pages}
        if all("Valkey" in page for page in shown.values()):
            break
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert {path: "Valkey" in page for path, page in shown.items()} == dict.fromkeys(
        pages, True
    )
