"""The worker does the site's chores (``JOBS_CHORES``) before each wait for a
job: after every job, and every ``JOBS_CHORE_SECONDS`` while none comes; a
chore that fails is logged and the worker goes on."""

import logging

import pytest
from rq import Queue
from rq.exceptions import StopRequested

from jobs import queue
from jobs.worker import Worker, run_chores

# What the chores did, in the worker's own process (jobs run in a fork).
done = []


def chore():
    done.append("chore")


def failing_chore():
    raise RuntimeError("The outbox's table is gone")


def interrupted_chore():
    # What RQ raises from its signal handler when a stop is asked for while
    # the worker is idle.
    raise StopRequested()


def job():
    done.append("job")


@pytest.fixture
def chores(settings):
    done.clear()
    settings.JOBS_CHORES = ["tests.jobs.test_worker.chore"]
    settings.JOBS_CHORE_SECONDS = 1
    yield
    done.clear()


@pytest.fixture
def jobs_queue():
    """A queue of the test's own in the test Redis, whose jobs wait for a
    worker; emptied after."""
    connection = queue.get_queue().connection
    waiting = Queue(f"{queue.get_queue().name}-chores", connection=connection)
    yield waiting
    waiting.delete(delete_jobs=True)


def worker(jobs_queue):
    return Worker([jobs_queue], connection=jobs_queue.connection)


def test_a_worker_does_its_chores_before_and_after_each_job(chores, jobs_queue):
    enqueued = jobs_queue.enqueue(job)

    worker(jobs_queue).work(burst=True)

    assert enqueued.get_status(refresh=True) == "finished"
    # Before the job was taken, and before looking for the next.
    assert done == ["chore", "chore"]


def test_an_idle_worker_does_its_chores_every_chore_seconds(chores, jobs_queue):
    worker(jobs_queue).work(max_idle_time=2)

    # Before each of two one-second waits, and once more before it stops.
    assert done == ["chore"] * 3


def test_a_failing_chore_is_logged_and_the_others_still_run(
    chores, jobs_queue, settings, caplog
):
    settings.JOBS_CHORES = [
        "tests.jobs.test_worker.failing_chore",
        "tests.jobs.test_worker.chore",
    ]
    with caplog.at_level(logging.ERROR, logger="jobs.worker"):
        worker(jobs_queue).work(burst=True)

    assert done == ["chore"]
    assert "The chore tests.jobs.test_worker.failing_chore failed" in caplog.text


def test_a_stop_asked_for_during_a_chore_stops_the_worker(chores, settings):
    settings.JOBS_CHORES = [
        "tests.jobs.test_worker.interrupted_chore",
        "tests.jobs.test_worker.chore",
    ]

    with pytest.raises(StopRequested):
        run_chores()

    assert done == []
