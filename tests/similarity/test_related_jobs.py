"""Related work recomputed after changes, as jobs that cannot flood a queue:
however many changes commit, one recomputation waits (holding every document
they changed, or the whole record) behind the one running, on a queue of its
own, so imports and backups never wait behind them; under JOBS_IN_PROCESS
(``make run``) it runs after the request that asked, never inside it."""

import inspect
import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils.module_loading import import_string

import actions.documents
import actions.filing
from catalogue.models import Document, RelatedDocument
from jobs import queue, runner
from jobs.models import Job
from similarity.queueing import RELATED_JOB, documents_changed
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.pagecache.processes import in_a_new_process
from tests.similarity.test_related import PIPELINE
from tests.tools import RUN_PREFIX, TEST_REDIS_URL, require_redis

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def record(settings):
    """Three public documents on pipelines; changes tell related work from
    here on."""
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    documents = [
        DocumentFactory(
            number=number,
            topic=topic,
            title=f"Pipeline parallel training, {number}",
            summary=PIPELINE,
            tags=["pipelining"],
            published=True,
        )
        for number in (16, 98, 99)
    ]
    settings.RECORD_CHANGED = "similarity.queueing.documents_changed"
    return documents


@pytest.fixture
def queued(settings):
    """Jobs wait on the test Redis for a worker (none comes); emptied after."""
    settings.RQ_QUEUES = {
        name: {**found, "ASYNC": True} for name, found in settings.RQ_QUEUES.items()
    }
    queues = [queue.get_queue(name) for name in queue.names()]
    yield dict(zip(queue.names(), queues, strict=True))
    for each in queues:
        each.empty()


def related_jobs():
    return Job.objects.filter(function=RELATED_JOB)


@pytest.mark.redis
def test_withdrawals_and_reinstatements_leave_one_recomputation_waiting(
    record, publisher, queued, settings
):
    document = record[1]
    for _ in range(20):
        actions.documents.withdraw(document=document, user=publisher, reason="Why.")
        actions.documents.reinstate(document=document, user=publisher)

    [job] = related_jobs()
    assert (job.state, job.arguments) == (
        Job.State.QUEUED,
        {"documents": [document.pk]},
    )
    # On the related-work queue alone: an import queued now is next on its own.
    assert queued[settings.JOBS_RELATED_QUEUE].job_ids == [str(job.pk)]
    assert queued[settings.JOBS_QUEUE].job_ids == []


@pytest.mark.redis
def test_while_one_runs_one_more_waits_and_a_whole_record_one_takes_all_in(
    record, publisher, queued
):
    superuser = UserFactory(is_superuser=True)
    first, second, third = record
    actions.documents.withdraw(document=first, user=publisher, reason="Why.")
    [running] = related_jobs()
    assert runner._begin(running)  # What a worker taking it does first.

    actions.documents.withdraw(document=second, user=publisher, reason="Why.")
    actions.documents.withdraw(document=third, user=publisher, reason="Why.")
    waiting = related_jobs().get(state=Job.State.QUEUED)
    assert waiting.arguments == {"documents": sorted([second.pk, third.pk])}

    # A topic renamed changes every document: the waiting job takes in all.
    topic = first.topic
    topic.name = "Distributed training"
    actions.filing.save(obj=topic, user=superuser)
    actions.documents.reinstate(document=second, user=publisher)

    assert sorted(
        (job.state, job.arguments["documents"]) for job in related_jobs()
    ) == [("queued", None), ("running", [first.pk])]
    waiting.refresh_from_db()
    assert waiting.title == "Related work of every document"


def test_under_jobs_in_process_a_withdrawal_is_answered_before_its_related_work(
    record, publisher, client, settings, django_assert_num_queries
):
    settings.JOBS_IN_PROCESS = True
    document = record[1]
    client.force_login(publisher)
    url = reverse("admin:catalogue_document_withdraw", args=[document.pk])

    # The request's own queries, the job's row among them; the related work
    # is another thread's, on a connection of its own.
    with django_assert_num_queries(WITHDRAWAL_QUERIES):
        response = client.post(url, {"reason": "Retracted by its authors."})
    runner.wait_for_background()

    assert response.status_code == 302
    [job] = related_jobs()
    assert job.state == Job.State.FINISHED
    assert not RelatedDocument.objects.filter(related=document).exists()


# What the withdrawal costs, first to last: the session, the user and their
# rights, the document, its withdrawal written and audited, the pages'
# expiries written and applied, its stored row and the rows naming it built
# again (in a savepoint; on PostgreSQL under the rows' lock), the count of the
# listing its row left taken down by one, and the related-work job's row
# (found waiting, or made).
WITHDRAWAL_QUERIES = 34 + (connection.vendor == "postgresql")


def test_under_jobs_in_process_a_whole_record_recomputation_leaves_the_action_at_once(
    record, settings, django_assert_num_queries
):
    settings.JOBS_IN_PROCESS = True
    topic = record[0].topic
    topic.name = "Distributed training"

    superuser = UserFactory(is_superuser=True)

    with django_assert_num_queries(RENAME_QUERIES):
        actions.filing.save(obj=topic, user=superuser)

    # Outside a request nothing runs it: it waits.
    assert runner._background["thread"] is None
    [job] = related_jobs()
    assert (job.state, job.arguments) == (Job.State.QUEUED, {"documents": None})


# The topic and its documents restamped, audited, every page expired, and the
# related-work job's row.
RENAME_QUERIES = 15


def job_state(job):
    return Job.objects.values_list("state", flat=True).get(pk=job.pk)


def test_a_command_leaves_related_work_waiting_for_the_next_request_after_its_response(
    record, settings, client, monkeypatch
):
    settings.JOBS_IN_PROCESS = True
    settings.JOBS_CHORES_IN_PROCESS = True
    settings.JOBS_CHORE_SECONDS = 0

    before = set(Document.objects.values_list("pk", flat=True))
    call_command("generate_sample", documents=3, stdout=io.StringIO())

    # The command ended without computing, or leaving a thread to.
    assert runner._background["thread"] is None
    [job] = related_jobs()
    # The related work of the documents it made, and of no other.
    made = sorted(
        Document.objects.public().exclude(pk__in=before).values_list("pk", flat=True)
    )
    assert len(made) == 3
    assert (job.state, job.arguments) == (Job.State.QUEUED, {"documents": made})
    assert not RelatedDocument.objects.exists()

    started = []
    start = runner._run_in_background

    def starting():
        # Who starts the thread, and how the job stands then.
        callers = [frame.function for frame in inspect.stack()]
        started.append(("start_after_response" in callers, job_state(job)))
        start()

    monkeypatch.setattr(runner, "_run_in_background", starting)
    response = client.get(reverse("catalogue:index"))
    runner.wait_for_background()

    assert response.status_code == 200
    # Once, by request_finished: the response was whole, the job not begun.
    assert started == [(True, Job.State.QUEUED)]
    job.refresh_from_db()
    assert job.state == Job.State.FINISHED
    # The documents it made, and those whose lists they may enter.
    assert job.summary.startswith("Related work of ")
    assert int(job.summary.split()[3]) >= len(made)


def test_recompute_related_runs_the_recomputation_a_command_left_waiting(
    record, publisher, settings
):
    settings.JOBS_IN_PROCESS = True
    first, second, _ = record
    actions.documents.withdraw(document=first, user=publisher, reason="Why.")
    [waiting] = related_jobs()

    out = io.StringIO()
    call_command("recompute_related", "LIT-098", stdout=out)

    # One job, holding both the withdrawal's document and the named one.
    [job] = related_jobs()
    assert job.pk == waiting.pk
    assert (job.state, job.arguments) == (
        Job.State.FINISHED,
        {"documents": sorted([first.pk, second.pk])},
    )
    assert out.getvalue() == f"{job.summary}\n"
    assert RelatedDocument.objects.filter(document=second).exists()
    assert not RelatedDocument.objects.filter(related=first).exists()


NUMERIC = ("numpy", "scipy", "sklearn")
# Libraries some of the site's work needs, imported by that work alone.
ON_DEMAND = (*NUMERIC, "boto3")


@pytest.mark.redis
def test_the_site_starts_without_the_numeric_libraries_and_a_related_worker_with_them():
    """A web process (the WSGI application, every admin module and URL) and a
    worker on the jobs' queue start without NumPy, SciPy or scikit-learn, nor
    boto3 (CloudFront's purges alone need it); a worker on the related-work
    queue imports the first three before it forks a job."""
    require_redis()
    answer, finished = in_a_new_process(
        f"""
        import json, sys
        from django.conf import settings
        from django.urls import resolve
        from redis import Redis
        from rq import Queue
        import anthology.wsgi
        from jobs.worker import Worker

        def loaded():
            return [name for name in {ON_DEMAND!r} if name in sys.modules]

        resolve("/")
        seen = {{"site": loaded()}}
        connection = Redis.from_url({TEST_REDIS_URL!r})
        for name in [settings.JOBS_QUEUE, settings.JOBS_RELATED_QUEUE]:
            Worker([Queue(name, connection=connection)], connection=connection)
            seen[name] = loaded()
        print(json.dumps(seen))
        """,
        JOBS_QUEUE=f"{RUN_PREFIX}-imports",
    )
    assert finished.returncode == 0, finished.stderr
    assert answer == {
        "site": [],
        f"{RUN_PREFIX}-imports": [],
        f"{RUN_PREFIX}-imports-related": list(NUMERIC),
    }


def test_a_record_changed_setting_naming_the_hook_where_it_was_still_reaches_it():
    """``RECORD_CHANGED`` named ``similarity.jobs.documents_changed`` until the
    hook moved to ``similarity.queueing``: a site that set it keeps its
    related work."""
    assert import_string("similarity.jobs.documents_changed") is documents_changed
