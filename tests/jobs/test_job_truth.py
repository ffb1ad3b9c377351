"""A job is failed only once its work can no longer be running. A worker
killed while its work horse goes on writing leaves a job that stopped
answering, which later finishes; on PostgreSQL a job whose database session
has ended is failed wherever it ran. The jobs list asks the queue once for
the whole page, however many jobs it shows, even of a Redis that never
answers."""

import os
import signal
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from rq.job import JobStatus

from anthology.settings import redis_server
from jobs import queue as job_queue
from jobs import runner
from jobs.models import Job, database_session
from tests.imports.test_import_worker import queue, start_worker, until
from tests.tools import SilentServer, free_port

__all__ = ["queue", "start_worker"]

on_postgresql = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").split(":", 1)[0]
    not in {"postgres", "postgresql"},
    reason="database sessions are PostgreSQL's: run with DATABASE_URL=postgres://…",
)


def elsewhere(user, **fields):
    """A running job as a worker on another host left it."""
    return Job.objects.create(
        title="Import of big.csv (documents)",
        function="imports.job_functions.import_csv",
        state=Job.State.RUNNING,
        created_by=user,
        worker="elsewhere.example.org:4242",
        **fields,
    )


@on_postgresql
@pytest.mark.django_db
@pytest.mark.redis
def test_a_job_whose_database_session_ended_is_failed_wherever_it_ran(
    admin_user, on_the_queue
):
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        dbname=db["NAME"],
    ) as other:
        # The work's own session, as its worker recorded it.
        (pid, began), *_ = other.execute(
            "SELECT pid, backend_start FROM pg_stat_activity "
            "WHERE pid = pg_backend_pid()"
        ).fetchall()
        session = f"{pid}:{began.isoformat()}"
        alive = elsewhere(admin_user, session=session)
        on_the_queue(alive, JobStatus.FAILED)
        runner.refresh(alive)
        assert (alive.state, alive.summary) == (
            Job.State.RUNNING,
            runner.STOPPED_ANSWERING,
        )
    # Its connection closed: its transaction can no longer commit.
    until(lambda: alive.session_is_gone(), "the session ended")

    runner.refresh(alive)

    assert (alive.state, alive.summary) == (Job.State.FAILED, runner.GONE)


@on_postgresql
@pytest.mark.django_db
def test_a_running_job_records_its_database_session(admin_user):
    session = database_session()
    pid, _, began = session.partition(":")

    assert int(pid) == connection.connection.info.backend_pid
    assert began
    assert not elsewhere(admin_user, session=session).session_is_gone()


def unfinished(user, count):
    return [elsewhere(user) for _ in range(count)]


@pytest.mark.django_db
def test_the_jobs_list_asks_a_silent_queue_once_whatever_its_jobs(
    admin_client, admin_user
):
    accepted = []
    for count in (1, 6):
        Job.objects.all().delete()
        unfinished(admin_user, count)
        with (
            SilentServer() as silent,
            override_settings(
                # The production settings' connection, with its timeouts.
                RQ_QUEUES={settings.JOBS_QUEUE: redis_server(silent.url)}
            ),
        ):
            response = admin_client.get(reverse("admin:jobs_job_changelist"))
            accepted.append(len(silent.accepted))
        assert response.status_code == 200
        # The queue could not say: nothing is marked failed.
        assert set(Job.objects.values_list("state", flat=True)) == {"running"}

    assert accepted[0] == accepted[1]
    assert accepted[0] >= 1


# The work a killed worker's horse goes on with: it waits for the test's word,
# then finishes.
def wait_then_finish(*, path):
    until(lambda: Path(path).exists(), "the test's word")
    return "Imported big.csv: 3000 updated.", None


@pytest.mark.redis
@pytest.mark.workers
@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_job_whose_worker_was_killed_while_its_work_goes_on_is_never_failed(
    admin_client, admin_user, queue, start_worker, tmp_path
):
    worker = start_worker(JOBS_HEARTBEAT_SECONDS="1")
    word = tmp_path / "finish"
    job = runner.enqueue(
        title="Import of big.csv (documents)",
        function="tests.jobs.test_job_truth.wait_then_finish",
        arguments={"path": str(word)},
        user=admin_user,
    )
    until(lambda: Job.objects.get(pk=job.pk).state == "running", "the job begun")
    # The worker's parent dies; the process it forked for the job goes on.
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    until(
        lambda: job_queue.status(job.pk) == job_queue.UNANSWERED,
        "the worker's heartbeats lapsed",
    )

    listed = admin_client.get(reverse("admin:jobs_job_changelist")).content.decode()
    page = admin_client.get(reverse("admin:jobs_job_change", args=[job.pk]))
    told = runner.refresh(Job.objects.get(pk=job.pk))

    assert (told.state, told.summary) == (Job.State.RUNNING, runner.STOPPED_ANSWERING)
    for shown in (listed, page.content.decode()):
        assert "the job may still finish" in shown
        assert "Start it again" not in shown

    word.touch()
    until(lambda: Job.objects.get(pk=job.pk).is_done, "the job done")
    done = runner.refresh(Job.objects.get(pk=job.pk))
    assert (done.state, done.summary) == (
        Job.State.FINISHED,
        "Imported big.csv: 3000 updated.",
    )


@pytest.mark.django_db
def test_the_jobs_list_answers_with_its_queue_unreachable(admin_client, admin_user):
    unfinished(admin_user, 3)
    unreachable = f"redis://127.0.0.1:{free_port()}/0"

    with override_settings(RQ_QUEUES={settings.JOBS_QUEUE: redis_server(unreachable)}):
        response = admin_client.get(reverse("admin:jobs_job_changelist"))

    assert response.status_code == 200
    assert set(Job.objects.values_list("state", flat=True)) == {"running"}
