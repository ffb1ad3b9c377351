"""Expiries go through an outbox: kept in the change's own transaction,
applied at once after it commits, and left in the outbox until both the new
generations and the purge of the shared caches in front have landed, for
the drains (the job workers, ``drain_outbox``) to retry."""

import io
import subprocess
import sys
import threading

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import transaction
from django.test import override_settings

from jobs import runner
from jobs.models import Job
from pagecache import frontends, generations, outbox
from pagecache.models import PendingExpiry
from tests.factories import DocumentFactory, TopicFactory
from tests.fake_server import FakeServer
from tests.imports.test_import_worker import forget_queue
from tests.pagecache.processes import ROOT, in_a_new_process, site_environment
from tests.pagecache.test_middleware import UNREACHABLE
from tests.tools import RUN_PREFIX, TEST_REDIS_URL

pytestmark = pytest.mark.django_db


@pytest.fixture
def varnish(settings):
    """A fake Varnish in front, answering PURGE; failed purges are tried
    twice, and the drains may take an expiry at once."""
    fake = FakeServer()
    settings.PAGE_CACHE_FRONTENDS = {
        "varnish": {"BACKEND": "pagecache.frontends.Varnish", "LOCATION": fake.url}
    }
    settings.PAGE_CACHE_PURGE_RETRY_PAUSES = [0]
    settings.PAGE_CACHE_OUTBOX_RETRY_SECONDS = 0
    yield fake
    fake.close()


def purges(fake):
    return [
        request.headers["xkey-purge"]
        for request in fake.received
        if request.method == "PURGE"
    ]


def test_an_expiry_is_kept_in_the_changes_transaction_and_rolled_back_with_it(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks() as callbacks, transaction.atomic():
        generations.expire("topic:distributed", "listing")
        assert [row.scopes for row in PendingExpiry.objects.all()] == [
            ["listing", "topic:distributed"]
        ]
        transaction.set_rollback(True)

    assert not PendingExpiry.objects.exists()
    assert callbacks == []


def test_a_committed_expiry_is_written_at_once_and_leaves_the_outbox(committed):
    generations.write_expiry(["listing"])
    before = cache.get("gen:listing")

    with committed():
        generations.expire("listing")

    assert cache.get("gen:listing") != before
    assert not PendingExpiry.objects.exists()


def test_a_failed_purge_stays_pending_and_a_later_drain_sends_it(varnish, committed):
    varnish.answers = [(503, b"")]
    with committed():
        generations.expire("doc:LIT-004", "listing")
    frontends.wait()

    [pending] = PendingExpiry.objects.all()
    assert pending.written_at is not None
    assert purges(varnish) == ["doc:LIT-004 listing"] * 2

    assert outbox.drain() == 0  # Still refused: kept, with the reason.
    pending.refresh_from_db()
    assert "answered 503" in pending.last_error
    varnish.answers = [(200, b"")]
    assert outbox.drain() == 1

    assert purges(varnish) == ["doc:LIT-004 listing"] * 4
    assert not PendingExpiry.objects.exists()


def test_a_drain_leaves_an_expiry_to_its_own_process_until_its_retry_time(
    varnish, committed, settings
):
    settings.PAGE_CACHE_OUTBOX_RETRY_SECONDS = 60
    varnish.answers = [(503, b"")]
    with committed():
        generations.expire("listing")
    frontends.wait()

    assert outbox.drain() == 0
    assert len(purges(varnish)) == 2  # Its own process's attempts only.
    assert PendingExpiry.objects.get().attempts == 0


def test_an_expiry_the_cache_missed_is_purged_by_a_drain_only_once_written(
    varnish, committed, settings
):
    working = settings.CACHES
    settings.CACHES = UNREACHABLE
    with committed():
        generations.expire("listing")
    frontends.wait()
    # Sent at once all the same: pages are rendered live meanwhile.
    assert purges(varnish) == ["listing"]

    assert outbox.drain() == 0
    assert purges(varnish) == ["listing"]  # Not before the write lands.
    assert "Shared cache unreachable" in PendingExpiry.objects.get().last_error

    settings.CACHES = working
    generations.write_expiry(["listing"])
    before = cache.get("gen:listing")
    assert outbox.drain() == 1

    assert cache.get("gen:listing") != before
    assert purges(varnish) == ["listing", "listing"]
    assert not PendingExpiry.objects.exists()


def test_a_process_writes_the_unwritten_expiries_before_trusting_a_generation(
    client, filed, django_assert_num_queries, monkeypatch
):
    path = filed["first"].get_absolute_url()
    etag = client.get(path)["ETag"]
    PendingExpiry.objects.create(
        scopes=["topic:distributed"], retry_at="2026-01-01T00:00Z"
    )
    monkeypatch.setattr(generations, "_suspect", True)  # As a process starts.

    fresh = client.get(path, headers={"If-None-Match": etag})

    assert fresh.status_code == 200
    assert fresh["ETag"] != etag
    assert not PendingExpiry.objects.exists()
    with django_assert_num_queries(0):  # Trusted again: no query.
        assert (
            client.get(path, headers={"If-None-Match": fresh["ETag"]}).status_code
            == 304
        )


def test_a_process_with_nothing_pending_reads_the_outbox_once(
    client, filed, django_assert_num_queries, monkeypatch
):
    path = filed["first"].get_absolute_url()
    # The test's transaction never commits: the expiries of its changes are
    # taken out, as applying them after the commit would.
    PendingExpiry.objects.all().delete()
    etag = client.get(path)["ETag"]
    monkeypatch.setattr(generations, "_suspect", True)

    with django_assert_num_queries(1):
        assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
    with django_assert_num_queries(0):
        assert client.get(path, headers={"If-None-Match": etag}).status_code == 304


def test_a_cache_failure_makes_the_process_write_the_outbox_before_trusting_again(
    client, filed, settings
):
    path = filed["first"].get_absolute_url()
    working = settings.CACHES
    settings.CACHES = UNREACHABLE

    client.get(path)
    assert generations._suspect

    settings.CACHES = working
    client.get(path)
    assert not generations._suspect


def test_drain_outbox_says_what_it_applied_and_what_is_left(varnish, committed):
    varnish.answers = [(503, b"")]
    with committed():
        generations.expire("listing")
    frontends.wait()
    varnish.answers = [(200, b"")]
    out = io.StringIO()

    call_command("drain_outbox", stdout=out)

    assert out.getvalue() == "Applied 1 expiries; 0 left in the outbox.\n"


def test_without_workers_a_process_keeps_trying_a_purge_until_it_lands(
    varnish, committed, settings
):
    settings.PAGE_CACHE_DRAIN_IN_PROCESS = True
    varnish.answers = [(503, b""), (503, b""), (503, b""), (200, b"")]
    with override_settings(PAGE_CACHE_PURGE_RETRY_PAUSES=[0]):
        with committed():
            generations.expire("listing")
        frontends.wait()

    assert purges(varnish) == ["listing"] * 4


WITHDRAW_THEN_DIE = """
    import os
    from django.db import transaction
    from catalogue.models import Document
    from actions import pages

    with transaction.atomic():
        document = Document.objects.get(number=4)
        document.status = Document.Status.WITHDRAWN
        document.save(update_fields=["status"])
        pages.changed(document)
        # Killed once the change committed and its purge was handed to the
        # purge thread, before the frontend confirmed it.
        transaction.on_commit(lambda: os._exit(0))
"""


@pytest.mark.django_db(transaction=True)
def test_a_purge_lost_with_its_process_is_sent_by_a_job_worker(own_redis):
    topic = TopicFactory(slug="distributed")
    DocumentFactory(number=4, topic=topic, title="Sublinear memory", published=True)
    varnish = FakeServer()
    varnish.held.clear()  # It answers nothing until the process is dead.
    prefix = "anthology-test-lost-purge"
    site = {
        "REDIS_URL": own_redis.url,
        "CACHE_KEY_PREFIX": prefix,
        "JOBS_QUEUE": prefix,
        "VARNISH_URL": varnish.url,
        # The drains may take its expiry at once, not a minute after.
        "OUTBOX_RETRY_SECONDS": "0",
    }
    try:
        _, died = in_a_new_process(WITHDRAW_THEN_DIE, **site)
        assert died.returncode == 0, died.stderr
        [pending] = PendingExpiry.objects.all()
        assert pending.written_at is not None  # Its generations were written.
        varnish.held.set()
        before = len(varnish.received)

        worker = subprocess.run(
            [sys.executable, "manage.py", "rqworker", "--burst", prefix],
            cwd=ROOT,
            env=site_environment(**site),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        varnish.close()

    assert worker.returncode == 0, worker.stderr
    # Sent again by the worker, which heard it confirmed.
    assert len(varnish.received) > before
    assert {
        (request.method, request.path, request.headers["xkey-purge"])
        for request in varnish.received
    } == {("PURGE", "/", "doc:LIT-004 lists topic:distributed")}
    assert not PendingExpiry.objects.exists()


def answering_after(seconds):
    """A fake Varnish that holds each answer for ``seconds``: longer than a
    process takes to end once its change committed."""
    varnish = FakeServer()
    varnish.held.clear()
    threading.Timer(seconds, varnish.held.set).start()
    return varnish


@pytest.mark.django_db(transaction=True)
def test_a_command_ending_as_its_change_commits_has_its_purge_confirmed_first():
    varnish = answering_after(0.5)
    try:
        # As `make serve` runs it before the site starts.
        ended = subprocess.run(
            [sys.executable, "manage.py", "expire_pages"],
            cwd=ROOT,
            env=site_environment(VARNISH_URL=varnish.url),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        varnish.close()

    assert ended.returncode == 0, ended.stderr
    assert purges(varnish) == ["everything"]
    assert not PendingExpiry.objects.exists()


def expiring_job():
    """A job whose change commits as it returns."""
    generations.expire_everything()
    return "Every page expired.", None


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_job_whose_change_commits_as_it_ends_has_its_purge_confirmed_first():
    varnish = answering_after(0.5)
    name = f"{RUN_PREFIX}-finishing"
    site = {
        "REDIS_URL": TEST_REDIS_URL,
        "CACHE_KEY_PREFIX": name,
        "JOBS_QUEUE": name,
        "VARNISH_URL": varnish.url,
    }
    try:
        with override_settings(
            JOBS_QUEUE=name, RQ_QUEUES={name: {"URL": TEST_REDIS_URL}}
        ):
            job = runner.enqueue(
                title="Expire every page",
                function="tests.pagecache.test_outbox.expiring_job",
                arguments={},
            )
        worker = subprocess.run(
            [sys.executable, "manage.py", "rqworker", "--burst", name],
            cwd=ROOT,
            env=site_environment(**site),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        varnish.close()
        forget_queue(name)

    assert worker.returncode == 0, worker.stderr
    job.refresh_from_db()
    assert (job.state, job.summary) == (Job.State.FINISHED, "Every page expired.")
    # Confirmed by the job's own process, not left to a drain a minute later.
    assert purges(varnish) == ["everything"]
    assert not PendingExpiry.objects.exists()
