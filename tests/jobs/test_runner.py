"""Whether a job can still finish, told wherever its worker ran: a job the
queue gave up (failed, stopped, cancelled) or no longer holds is marked
failed only once its work can no longer be running (its process is seen
dead, or it never began); otherwise it is said to have stopped answering,
since its work horse may still be writing. One the queue still holds is left
to its worker; a job that finished keeps its verdict."""

import datetime
import os
import socket

import pytest
from django.urls import reverse
from django.utils import timezone
from rq.job import JobStatus

from jobs import runner
from jobs.models import Job

# The jobs these tests start go through the test queue, which RQ keeps in Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def job_of(user, state=Job.State.RUNNING, **fields):
    """A job as a worker on another host left it: nothing on this host can
    tell whether its process lives."""
    return Job.objects.create(
        title="Import of big.csv (documents)",
        function="imports.job_functions.import_csv",
        arguments={"dry_run": False},
        state=state,
        created_by=user,
        **{"worker": "elsewhere.example.org:4242", **fields},
    )


@pytest.mark.parametrize(
    "status", [JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED, None]
)
def test_a_job_the_queue_gave_up_whose_end_is_not_seen_may_still_finish(
    admin_user, on_the_queue, status
):
    job = job_of(admin_user)
    if status is not None:
        on_the_queue(job, status)

    runner.refresh(job)

    assert (job.state, job.summary, job.finished_at) == (
        Job.State.RUNNING,
        runner.STOPPED_ANSWERING,
        None,
    )


@pytest.mark.parametrize(
    "status", [JobStatus.FAILED, JobStatus.STOPPED, JobStatus.STARTED, None]
)
def test_a_job_whose_process_is_seen_dead_here_is_marked_failed(
    admin_user, on_the_queue, status, dead_pid
):
    job = job_of(admin_user, worker=f"{socket.gethostname()}:{dead_pid}")
    if status is not None:
        on_the_queue(job, status)

    runner.refresh(job)

    assert (job.state, job.summary) == (Job.State.FAILED, runner.GONE)
    assert job.finished_at is not None


@pytest.mark.parametrize("status", [JobStatus.FAILED, JobStatus.STOPPED])
def test_a_queued_job_the_queue_gave_up_is_marked_failed(
    admin_user, on_the_queue, status
):
    job = job_of(admin_user, state=Job.State.QUEUED, worker="")
    on_the_queue(job, status)

    runner.refresh(job)

    assert (job.state, job.summary) == (Job.State.FAILED, runner.GONE)


@pytest.mark.parametrize(
    ("state", "status"),
    [
        (Job.State.RUNNING, JobStatus.STARTED),
        (Job.State.QUEUED, JobStatus.QUEUED),
        (Job.State.QUEUED, JobStatus.STARTED),
    ],
)
def test_a_job_the_queue_holds_is_left_to_its_worker(
    admin_user, on_the_queue, state, status
):
    job = job_of(admin_user, state=state)
    on_the_queue(job, status)

    runner.refresh(job)

    assert (job.state, job.summary, job.finished_at) == (state, "", None)


def test_a_queued_job_the_queue_never_got_is_marked_lost_after_a_minute(admin_user):
    lost = job_of(
        admin_user,
        state=Job.State.QUEUED,
        created_at=timezone.now() - datetime.timedelta(minutes=2),
    )
    just_queued = job_of(admin_user, state=Job.State.QUEUED)

    runner.refresh(lost)
    runner.refresh(just_queued)

    assert (lost.state, lost.summary) == (Job.State.FAILED, runner.LOST)
    assert just_queued.state == Job.State.QUEUED


def test_a_finished_job_keeps_its_verdict(admin_user):
    job = job_of(admin_user, state=Job.State.FINISHED, summary="Imported: 3 new.")

    runner.refresh(job)

    assert (job.state, job.summary) == (Job.State.FINISHED, "Imported: 3 new.")


def test_the_jobs_list_tells_each_job_as_it_is(
    admin_client, admin_user, on_the_queue, dead_pid
):
    dead = job_of(admin_user, worker=f"{socket.gethostname()}:{dead_pid}")
    unanswered, running = job_of(admin_user), job_of(admin_user)
    on_the_queue(dead, JobStatus.FAILED)
    on_the_queue(unanswered, JobStatus.FAILED)
    on_the_queue(running, JobStatus.STARTED)

    page = admin_client.get(reverse("admin:jobs_job_changelist")).content.decode()

    assert [
        (job.state, job.summary)
        for job in Job.objects.filter(
            pk__in=[dead.pk, unanswered.pk, running.pk]
        ).order_by("created_at")
    ] == [
        (Job.State.FAILED, runner.GONE),
        (Job.State.RUNNING, runner.STOPPED_ANSWERING),
        (Job.State.RUNNING, ""),
    ]
    assert "the job may still finish" in page


def test_a_job_whose_process_is_seen_running_here_is_left_be_though_the_queue_lost_it(
    admin_user,
):
    job = job_of(admin_user, worker=f"{socket.gethostname()}:{os.getpid()}")

    runner.refresh(job)

    assert job.state == Job.State.RUNNING
