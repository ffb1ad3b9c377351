"""The health endpoint: database, cache and queue, at one query."""

import pytest
from django.db import DatabaseError
from django.test import override_settings

from anthology import health

pytestmark = pytest.mark.django_db


@pytest.mark.redis  # The queue is healthy: its Redis answers.
def test_health_checks_each_part_at_one_query(client, django_assert_num_queries):
    with django_assert_num_queries(1):
        response = client.get("/health/")

    assert response.status_code == 200
    assert response.json() == {"database": "ok", "cache": "ok", "queue": "ok"}
    assert "no-store" in response["Cache-Control"]


def test_a_queue_that_cannot_be_reached_makes_the_site_unhealthy(client):
    with override_settings(
        RQ_QUEUES={"anthology": {"URL": "redis://127.0.0.1:1/0"}},
        JOBS_QUEUE="anthology",
    ):
        response = client.get("/health/")

    assert response.status_code == 503
    assert response.json()["queue"] == "failing: ConnectionError"


@pytest.mark.redis
def test_a_failing_database_is_named(client, monkeypatch):
    def refuse():
        raise DatabaseError("down")

    monkeypatch.setitem(health.CHECKS, "database", (refuse, DatabaseError))

    response = client.get("/health/")

    assert response.status_code == 503
    assert response.json() == {
        "database": "failing: DatabaseError",
        "cache": "ok",
        "queue": "ok",
    }


def test_jobs_run_in_the_web_process_need_no_queue(client):
    with override_settings(
        JOBS_IN_PROCESS=True,
        RQ_QUEUES={"anthology": {"URL": "redis://127.0.0.1:1/0"}},
        JOBS_QUEUE="anthology",
    ):
        response = client.get("/health/")

    assert response.status_code == 200
    assert response.json()["queue"] == health.IN_PROCESS
