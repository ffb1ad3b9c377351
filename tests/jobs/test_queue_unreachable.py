"""When the queue's Redis does not answer, starting a job from the admin says
so on the page it was started from: nothing is started, nothing written, and
the job is listed as failed with the reason."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from catalogue.models import Document, Topic
from imports.backups import finished_backups
from jobs import runner
from jobs.models import Job
from tests.factories import TopicFactory
from tests.imports.test_import_csv import csv_text
from tests.imports.test_import_jobs import rows
from tests.tools import free_port

pytestmark = pytest.mark.django_db

QUEUE = "anthology-test-unreachable"


@pytest.fixture
def queue_down():
    """The jobs' queue in a Redis that nothing answers for."""
    with override_settings(
        JOBS_QUEUE=QUEUE,
        RQ_QUEUES={QUEUE: {"URL": f"redis://127.0.0.1:{free_port()}/0"}},
    ):
        yield


def start_csv_import(client, seed_text):
    return client.post(
        reverse("admin:catalogue_document_import"),
        {
            "format": "0",
            "import_file": SimpleUploadedFile("record.csv", csv_text(rows(3))),
            "resource": "0",
        },
        follow=True,
    )


def start_page_import(client, seed_text):
    return client.post(
        reverse("admin:catalogue_topic_import_page"),
        {"page": SimpleUploadedFile("seed.txt", seed_text.encode())},
        follow=True,
    )


def start_backup(client, seed_text):
    return client.post(reverse("admin:backups"), follow=True)


@pytest.mark.parametrize(
    ("start", "form_page"),
    [
        (start_csv_import, "admin:catalogue_document_import"),
        (start_page_import, "admin:catalogue_topic_import_page"),
        (start_backup, "admin:backups"),
    ],
)
def test_a_job_the_queue_cannot_take_is_refused_on_the_page_it_was_started_from(
    admin_client, seed_text, queue_down, start, form_page
):
    response = start(admin_client, seed_text)

    assert response.redirect_chain[-1] == (reverse(form_page), 302)
    assert [str(message) for message in response.context["messages"]] == [
        runner.UNREACHABLE
    ]
    assert runner.UNREACHABLE in response.content.decode()
    job = Job.objects.get()
    assert (job.state, job.summary) == (Job.State.FAILED, runner.UNREACHABLE)
    assert (Document.objects.count(), Topic.objects.count()) == (0, 0)
    assert finished_backups() == []


def test_without_a_shared_cache_jobs_run_in_the_web_process_with_no_queue(
    admin_client, seed_text, queue_down, settings
):
    # As `make run` serves: REDIS_URL unset, each process caching for itself.
    settings.JOBS_IN_PROCESS = True
    TopicFactory(slug="optimisation")

    checked = start_csv_import(admin_client, seed_text)
    confirmed = admin_client.post(
        reverse("admin:catalogue_document_process_import"),
        checked.context["confirm_form"].initial,
        follow=True,
    )
    imported = start_page_import(admin_client, seed_text)
    backed_up = start_backup(admin_client, seed_text)

    assert "Imported: 3 new, 0 updated, 0 unchanged." in confirmed.content.decode()
    assert "Imported seed.txt." in imported.content.decode()
    assert "Wrote the backup" in backed_up.content.decode()
    assert Document.objects.count() == 3 + 67
    assert len(finished_backups()) == 1
    assert set(Job.objects.values_list("state", flat=True)) == {Job.State.FINISHED}
