"""Health: ``/health/`` (the probe's) answers 200 while pages can be served,
that is while the database answers, and names a failing cache or queue as
``degraded``; ``/health/ready/`` (the operators') is 200 only while every part
answers. Under each failure of Redis (unreachable, or accepting and never
answering) every Redis connection the site makes gives up at its timeouts."""

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import DatabaseError
from django.test import override_settings
from rq import Worker
from rq.utils import now, utcformat

from anthology import health
from jobs import queue
from tests.tools import SilentServer, free_port

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.redis  # The queue is healthy: its Redis answers.
def test_health_checks_each_part_at_one_query(client, django_assert_num_queries):
    with django_assert_num_queries(1):
        response = client.get("/health/")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "cache": "ok",
        "queue": "ok",
    }
    assert "no-store" in response["Cache-Control"]


@pytest.fixture
def listening():
    """A worker registered on both queues of the test Redis, as ``rqworker``
    registers itself, saying it is alive now; gone after."""
    worker = Worker(
        [queue.get_queue(name) for name in queue.names()],
        connection=queue.get_queue().connection,
    )
    worker.register_birth()
    yield worker
    worker.register_death()
    worker.connection.delete(worker.key)


@pytest.mark.redis
def test_readiness_names_every_part(client, listening, django_assert_num_queries):
    # The database's, and the one that looks for late schedules.
    with django_assert_num_queries(2):
        response = client.get("/health/ready/")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "database": "ok",
        "cache": "ok",
        "queue": "ok",
        "schedules": "ok",
    }
    assert "no-store" in response["Cache-Control"]


@pytest.mark.redis
def test_readiness_is_not_ready_while_no_worker_listens(client):
    response = client.get("/health/ready/")

    assert response.status_code == 503
    assert response.json()["status"] == "not ready"
    assert response.json()["queue"] == (
        f"failing: no worker listens on {settings.JOBS_QUEUE}, "
        f"{settings.JOBS_RELATED_QUEUE}"
    )


@pytest.mark.redis
def test_the_probe_does_not_ask_for_workers(client):
    # Pages are served without them: the probe's word is the site's.
    response = client.get("/health/")

    assert response.status_code == 200
    assert response.json()["queue"] == "ok"


@pytest.mark.redis
@pytest.mark.parametrize("left", ["the related queue", "lapsed", "dead"])
def test_readiness_is_not_ready_while_a_queue_has_no_live_worker(
    client, listening, left
):
    if left == "the related queue":
        worker = listening
        worker.register_death()
        worker.queues = worker.queues[:1]
        worker.register_birth()
    elif left == "lapsed":
        # Its process was killed: its last word is older than three heartbeats.
        silent_since = now() - timedelta(seconds=queue.worker_silence_seconds() + 1)
        listening.connection.hset(
            listening.key, "last_heartbeat", utcformat(silent_since)
        )
    else:
        listening.connection.hset(listening.key, "death", utcformat(now()))

    response = client.get("/health/ready/")

    assert response.status_code == 503
    silent = (
        [settings.JOBS_RELATED_QUEUE]
        if left == "the related queue"
        else [
            settings.JOBS_QUEUE,
            settings.JOBS_RELATED_QUEUE,
        ]
    )
    assert (
        response.json()["queue"] == f"failing: no worker listens on {', '.join(silent)}"
    )


def test_a_queue_that_cannot_be_reached_degrades_the_site_without_failing_it(client):
    unreachable = f"redis://127.0.0.1:{free_port()}/0"
    with override_settings(RQ_QUEUES={settings.JOBS_QUEUE: {"URL": unreachable}}):
        probe = client.get("/health/")
        ready = client.get("/health/ready/")

    assert probe.status_code == 200
    assert probe.json()["status"] == "degraded"
    assert probe.json()["queue"] == "failing: ConnectionError"
    assert ready.status_code == 503
    assert ready.json()["status"] == "not ready"
    assert ready.json()["queue"] == "failing: ConnectionError"


@pytest.mark.redis
def test_a_failing_database_fails_the_probe(client, monkeypatch):
    def refuse():
        raise DatabaseError("down")

    monkeypatch.setitem(health.CHECKS, "database", (refuse, DatabaseError))

    probe = client.get("/health/")
    ready = client.get("/health/ready/")

    assert probe.status_code == 503
    assert probe.json() == {
        "status": "down",
        "database": "failing: DatabaseError",
        "cache": "ok",
        "queue": "ok",
    }
    assert ready.status_code == 503
    assert ready.json()["database"] == "failing: DatabaseError"


def test_jobs_run_in_the_web_process_need_no_queue(client):
    unreachable = f"redis://127.0.0.1:{free_port()}/0"
    with override_settings(
        JOBS_IN_PROCESS=True, RQ_QUEUES={settings.JOBS_QUEUE: {"URL": unreachable}}
    ):
        response = client.get("/health/ready/")

    assert response.json()["queue"] == health.IN_PROCESS


PROBE = """
import json
from django.test import Client
answers = {}
for path in ["/health/", "/health/ready/"]:
    response = Client().get(path)
    answers[path] = [response.status_code, response.json()]
print(json.dumps(answers))
"""


def production_health(redis_url, database):
    """``/health/`` and ``/health/ready/`` in a process of their own, with the
    production settings and ``redis_url`` for the cache and the queue; a Redis
    connection without timeouts would hang it (the guard below fails the test
    then)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "anthology.settings",
        "REDIS_URL": redis_url,
        "JOBS_REDIS_URL": redis_url,
        "ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": f"sqlite:///{database}",
    }
    done = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup()\n{PROBE}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("failure", "error"),
    [("unreachable", "ConnectionError"), ("silent", "TimeoutError")],
)
def test_under_each_redis_failure_the_probe_is_healthy_and_readiness_names_it(
    failure, error, tmp_path
):
    with SilentServer() as silent:
        url = (
            silent.url if failure == "silent" else f"redis://127.0.0.1:{free_port()}/0"
        )
        answers = production_health(url, tmp_path / "db.sqlite3")

    failing = f"failing: {error}"
    assert answers["/health/"] == [
        200,
        {"status": "degraded", "database": "ok", "cache": failing, "queue": failing},
    ]
    # The database answers, but holds no tables: the process's file is new.
    assert answers["/health/ready/"] == [
        503,
        {
            "status": "not ready",
            "database": "ok",
            "cache": failing,
            "queue": failing,
            "schedules": "failing: OperationalError",
        },
    ]
