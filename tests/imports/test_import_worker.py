"""The admin's CSV import on a real worker process: the requests return at
once, the job's page shows its progress, and a worker killed mid-import
leaves nothing written and its job marked failed; another worker then
imports the file whole."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import override_settings
from django.urls import reverse

from catalogue.models import Document
from jobs.models import Job
from jobs.models import _alive as process_alive
from tests.factories import TopicFactory
from tests.imports.test_import_csv import csv_text
from tests.imports.test_import_jobs import rows
from tests.tools import RUN_PREFIX, TEST_REDIS_URL, redis_client

ROOT = Path(__file__).resolve().parents[2]
ROWS = 1500

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").split(":", 1)[0]
        not in {"postgres", "postgresql"},
        reason="the worker shares the test database: run the suite with "
        "DATABASE_URL=postgres://… (CI does)",
    ),
]


@pytest.fixture
def queue():
    """A queue and cache prefix of this test's own, in the test Redis, shared
    with the worker processes the test starts; keys removed after."""
    name = f"{RUN_PREFIX}-worker"
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


def forget_queue(name):
    """Remove from the test Redis the queue ``name``, its cache keys (kept
    under the same prefix) and the jobs and workers RQ registered for it."""
    client = redis_client()
    keys = [*client.scan_iter(f"{name}:*"), *client.scan_iter(f"rq:*{name}*")]
    # The queue's jobs and workers are kept under keys of their own ids: a
    # killed worker leaves its job and itself registered.
    for key in client.scan_iter("rq:job:*"):
        if client.hget(key, "origin") == name.encode():
            job_id = key.decode().rpartition(":")[2]
            keys += [key, *client.scan_iter(f"rq:execution*:{job_id}*")]
    for key in client.scan_iter("rq:worker:*"):
        if client.type(key) == b"hash" and client.hget(key, "queues") == name.encode():
            keys += [key, *client.scan_iter(f"{key.decode()}:*")]
            client.srem("rq:workers", key)
    client.srem("rq:queues", f"rq:queue:{name}")
    if keys:
        client.delete(*keys)


@pytest.fixture
def start_worker(queue, tmp_path):
    """Start an RQ worker on the queue, in a process group of its own, with
    the settings given (environment variables). What the workers logged is
    printed after the test, which pytest shows when it failed."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "REDIS_URL": TEST_REDIS_URL,
        "CACHE_KEY_PREFIX": queue,
        "JOBS_QUEUE": queue,
    }
    workers = []

    logs = []

    def start(**settings):
        """A worker, with ``settings`` in its environment besides the test's."""
        logs.append(tmp_path / f"worker-{len(logs) + 1}.log")
        with logs[-1].open("wb") as log:
            worker = subprocess.Popen(
                [sys.executable, "manage.py", "rqworker", queue],
                cwd=ROOT,
                env={**env, **settings},
                start_new_session=True,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=30)
    for log in logs:
        print(f"== {log.name}", log.read_text(errors="replace"), sep="\n")


def until(check, what):
    for _ in range(600):
        found = check()
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"never: {what}")


def progress_on(page):
    """``(done, total)`` as the job's page shows it, or None."""
    found = re.search(r'<progress value="(\d+)" max="(\d+)">', page)
    return found and (int(found[1]), int(found[2]))


def upload_and_confirm(client, content):
    """Upload, wait for the dry run's page to offer Confirm, confirm; the
    import job's page URL."""
    response = client.post(
        reverse("admin:catalogue_document_import"),
        {
            "format": "0",
            "import_file": SimpleUploadedFile("record.csv", content),
            "resource": "0",
        },
    )
    assert response.status_code == 302  # Straight to the job's page.
    page = until(
        lambda: (
            "Confirm import" in (text := client.get(response.url).content.decode())
            and text
        ),
        "the dry run finished",
    )
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', page))
    confirmed = client.post(
        reverse("admin:catalogue_document_process_import"),
        {
            name: fields.get(name, "")
            for name in [
                "csrfmiddlewaretoken",
                "import_file_name",
                "original_file_name",
                "format",
                "resource",
            ]
        },
    )
    assert confirmed.status_code == 302
    return confirmed.url


def midway(client, job_page):
    """``(done, total)`` once the job's page shows it midway."""
    return until(
        lambda: (
            (found := progress_on(client.get(job_page).content.decode()))
            and 0 < found[0] < found[1]
            and found
        ),
        "progress midway through the import",
    )


def kill(worker, horse):
    """The worker and the process it forked for the job (RQ's work horse, in a
    session of its own) die at once, as when the machine goes down."""
    os.kill(horse, signal.SIGKILL)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    # A signal is delivered when the kernel next schedules the process.
    until(lambda: not process_alive(horse), "the killed job's process gone")


def test_a_killed_worker_leaves_nothing_written_and_its_job_failed(
    admin_client, start_worker
):
    TopicFactory(slug="optimisation")
    content = csv_text(rows(ROWS))
    worker = start_worker()

    job_page = upload_and_confirm(admin_client, content)
    done, total = midway(admin_client, job_page)
    kill(worker, int(Job.objects.get(page=job_page).worker.rpartition(":")[2]))

    page = admin_client.get(job_page).content.decode()
    assert (done, total) == (done, ROWS)
    assert "The worker stopped before the job finished" in page
    job = Job.objects.get(page=job_page)
    assert job.state == Job.State.FAILED
    assert Document.objects.count() == 0

    start_worker()
    again = upload_and_confirm(admin_client, content)
    until(
        lambda: Job.objects.get(page=again).state == Job.State.FINISHED,
        "the second import finished",
    )
    assert Job.objects.get(page=again).summary == (
        f"Imported: {ROWS} new, 0 updated, 0 unchanged."
    )
    assert Document.objects.count() == ROWS


def test_a_job_whose_worker_died_on_another_host_is_failed_once_its_session_is_gone(
    admin_client, start_worker
):
    TopicFactory(slug="optimisation")
    # A heartbeat a second: the queue gives the job up three seconds after.
    worker = start_worker(JOBS_HEARTBEAT_SECONDS="1")
    job_page = upload_and_confirm(admin_client, csv_text(rows(ROWS)))
    midway(admin_client, job_page)
    job = Job.objects.get(page=job_page)
    horse = int(job.worker.rpartition(":")[2])
    # As if it ran elsewhere: no process of this host can tell it died, but
    # PostgreSQL tells its session ended (the queue gives it up too).
    Job.objects.filter(pk=job.pk).update(worker="elsewhere.example.org:4242")

    kill(worker, horse)

    assert not Job.objects.get(pk=job.pk).worker_is_gone()
    until(
        lambda: (
            "The worker stopped before the job finished"
            in admin_client.get(job_page).content.decode()
        ),
        "the job given up by the queue",
    )
    assert Job.objects.get(pk=job.pk).state == Job.State.FAILED
    assert Document.objects.count() == 0
