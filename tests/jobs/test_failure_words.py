"""A failed job says what happened: a database that stopped answering is not
a worker that was killed. And a dry run whose upload went with its failed
import (or expired) no longer offers to confirm it, saying why."""

import os
import socket

import pytest
from django.core.cache import cache
from django.db import connection
from django.urls import reverse

from editorial.admin.csv_import import IMPORT_JOB
from jobs import runner
from jobs.models import Job
from tests.factories import TopicFactory
from tests.imports.test_import_csv import csv_text, preview
from tests.imports.test_import_jobs import rows
from tests.imports.test_import_worker import queue, start_worker, until

__all__ = ["queue", "start_worker"]

# The jobs these tests start go through the test queue, which RQ keeps in Redis.
pytestmark = pytest.mark.redis

on_postgresql = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").split(":", 1)[0]
    not in {"postgres", "postgresql"},
    reason="database sessions are PostgreSQL's: run with DATABASE_URL=postgres://…",
)


def running_here(user, pid, **fields):
    """A running job whose process, on this host, is ``pid``."""
    return Job.objects.create(
        title="Import of record.csv (documents)",
        function=IMPORT_JOB,
        state=Job.State.RUNNING,
        created_by=user,
        worker=f"{socket.gethostname()}:{pid}",
        **fields,
    )


# -- The dry run's page ------------------------------------------------------


@pytest.fixture
def dry_run(admin_client):
    """A dry run of three new documents, its page offering to confirm."""
    TopicFactory(slug="optimisation")
    page = preview(admin_client, csv_text(rows(3)))
    assert "Confirm import" in page.content.decode()
    job = Job.objects.get()
    job.confirmation = page.context["confirm_form"].initial
    return job


@pytest.mark.django_db
def test_a_failed_import_that_took_its_upload_offers_no_confirm_and_says_why(
    admin_client, admin_user, dry_run, dead_pid
):
    # The import's process died mid-way: seen dead, its job is failed and
    # takes the upload along.
    imported = running_here(
        admin_user,
        dead_pid,
        arguments={**dry_run.arguments, "dry_run": False},
        upload=dry_run.upload,
    )
    runner.refresh(imported)
    assert cache.get(dry_run.upload) is None

    page = admin_client.get(dry_run.page)

    assert "Confirm import" not in page.content.decode()
    assert page.context["upload_gone"] == (
        "record.csv can no longer be imported from this dry run. Its import "
        f"failed, and the upload went with it: {runner.GONE} Upload the file "
        "again for a new dry run."
    )
    assert page.context["upload_gone"] in page.content.decode()


@pytest.mark.django_db
def test_an_expired_upload_offers_no_confirm_and_a_stale_confirm_starts_nothing(
    admin_client, dry_run
):
    cache.delete(dry_run.upload)

    page = admin_client.get(dry_run.page)
    confirmed = admin_client.post(
        reverse("admin:catalogue_document_process_import"), dry_run.confirmation
    )

    assert "Confirm import" not in page.content.decode()
    assert page.context["upload_gone"] == (
        "record.csv can no longer be imported from this dry run. The upload is "
        "no longer kept: an upload waits for its import 60 minutes at most. "
        "Upload the file again for a new dry run."
    )
    # Sent from the page as it was, the confirmation leads back to it.
    assert (confirmed.status_code, confirmed.url) == (302, dry_run.page)
    assert list(Job.objects.all()) == [dry_run]


@pytest.mark.django_db
def test_a_kept_upload_is_still_offered_for_confirmation(admin_client, dry_run):
    page = admin_client.get(dry_run.page)

    assert "Confirm import" in page.content.decode()
    assert "upload_gone" not in page.context


# -- What the failure says ---------------------------------------------------


@pytest.mark.django_db
def test_a_job_that_kept_why_it_failed_is_told_so_once_its_end_is_seen(
    admin_user, dead_pid
):
    said = runner.DATABASE_FAILED.format(
        error="OperationalError: server closed the connection unexpectedly"
    )
    lost = running_here(admin_user, dead_pid)
    killed = running_here(admin_user, dead_pid)
    # What the job's own process keeps when it cannot write its verdict.
    cache.set(runner._verdict_key(lost.pk), said, 60)

    runner.refresh_all([lost, killed])

    assert (lost.state, lost.summary) == (Job.State.FAILED, said)
    assert lost.summary.startswith("The database stopped answering while the job")
    assert (killed.state, killed.summary) == (Job.State.FAILED, runner.GONE)


def cut_off_from_the_database():
    """A job whose database session ends under it, as a restarted server
    ends every session."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
    return "Never.", None


@pytest.mark.workers
@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_job_whose_database_went_away_says_so_not_that_its_worker_died(
    admin_user, queue, start_worker
):
    start_worker()
    job = runner.enqueue(
        title="Import of big.csv (documents)",
        function="tests.jobs.test_failure_words.cut_off_from_the_database",
        arguments={},
        user=admin_user,
    )

    until(lambda: Job.objects.get(pk=job.pk).is_done, "the job done")
    told = runner.refresh(Job.objects.get(pk=job.pk))

    assert told.state == Job.State.FAILED
    assert told.summary.startswith(
        "The database stopped answering while the job ran (OperationalError: "
        "terminating connection due to administrator command"
    )
    assert told.summary.endswith(
        "its work was one transaction, so nothing was written. Start it again "
        "once the database is back."
    )
    assert "killed" not in told.summary
