"""Coalesced jobs (``runner.request``): of one key, at most one waits for a
worker and one runs. A request while one waits adds its work to it and makes
no job; while one runs, one more waits. The database holds both rules, and a
job a worker takes while another of its key runs waits for that one."""

import socket

import pytest
from django.db import IntegrityError, transaction

from jobs import queue, runner
from jobs.models import Job

pytestmark = pytest.mark.django_db

KEY = "test-work"
FUNCTION = "tests.jobs.test_coalesced.work"
done = []


def work(*, items):
    done.append(items)
    return f"Did {len(items)} items.", None


def merge(waiting, asked):
    return {"items": sorted({*waiting["items"], *asked["items"]})}


def title(arguments):
    return f"Work on {len(arguments['items'])} items"


def ask(*items):
    return runner.request(
        coalesce=KEY,
        function=FUNCTION,
        arguments={"items": list(items)},
        merge=merge,
        title=title,
    )


@pytest.fixture
def waiting_on_the_queue(settings):
    """Jobs are queued, not run: the queue does not run them at once."""
    settings.RQ_QUEUES = {
        name: {**found, "ASYNC": True} for name, found in settings.RQ_QUEUES.items()
    }
    yield
    queue.get_queue().empty()


def begin(job):
    """What a worker taking ``job`` does first."""
    assert runner._begin(job)


@pytest.mark.redis
def test_requests_while_one_waits_add_to_it_and_make_no_job(waiting_on_the_queue):
    first = ask(1, 2)
    again = [ask(2, 3), ask(4), ask(1)]

    assert {job.pk for job in again} == {first.pk}
    [job] = Job.objects.all()
    assert job.state == Job.State.QUEUED
    assert job.arguments == {"items": [1, 2, 3, 4]}
    assert job.title == "Work on 4 items"


@pytest.mark.redis
def test_while_one_runs_one_more_waits_with_all_asked_since(waiting_on_the_queue):
    running = ask(1)
    begin(running)

    ask(2)
    ask(3)
    ask(2)

    assert sorted(
        (job.state, job.arguments["items"]) for job in Job.objects.unfinished()
    ) == [("queued", [2, 3]), ("running", [1])]


def test_the_database_lets_one_job_of_a_key_wait_and_one_run():
    Job.objects.create(title="a", function=FUNCTION, coalesce=KEY)
    with pytest.raises(IntegrityError), transaction.atomic():
        Job.objects.create(title="b", function=FUNCTION, coalesce=KEY)
    Job.objects.create(
        title="c", function=FUNCTION, coalesce=KEY, state="running", lock=KEY
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Job.objects.create(
            title="d", function=FUNCTION, coalesce=KEY, state="running", lock=KEY
        )


def test_a_job_taken_while_another_of_its_key_runs_begins_once_that_one_is_gone(
    dead_pid, monkeypatch
):
    done.clear()
    monkeypatch.setattr(runner, "COALESCED_PAUSE", 0.01)
    # Its worker died on this host: the runner sees it, and fails it.
    gone = Job.objects.create(
        title="earlier",
        function=FUNCTION,
        coalesce=KEY,
        state=Job.State.RUNNING,
        lock=KEY,
        worker=f"{socket.gethostname()}:{dead_pid}",
    )
    waiting = Job.objects.create(
        title="later", function=FUNCTION, coalesce=KEY, arguments={"items": [5]}
    )

    runner.run(str(waiting.pk))

    gone.refresh_from_db()
    waiting.refresh_from_db()
    assert gone.state == Job.State.FAILED
    assert (waiting.state, waiting.summary) == (Job.State.FINISHED, "Did 1 items.")
    assert done == [[5]]


def test_a_job_given_up_before_a_worker_took_it_is_not_run():
    done.clear()
    job = Job.objects.create(
        title="lost", function=FUNCTION, coalesce=KEY, arguments={"items": [1]}
    )
    Job.objects.filter(pk=job.pk).update(state=Job.State.FAILED)

    runner.run(str(job.pk))

    assert done == []
