"""One person's share of the queue and of the shared cache: an upload waits
for its job an hour at most and goes with its job when the job fails; a
person has JOBS_MAX_UNFINISHED_PER_USER jobs waiting or running and
JOBS_MAX_UPLOAD_BYTES_PER_USER bytes of uploads kept at most; past either, the
upload page says so, and neither a job nor the upload is kept."""

import socket

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from imports import job_functions
from jobs import runner
from jobs.models import Job
from tests.factories import UserFactory
from tests.tools import RUN_PREFIX, TEST_REDIS_URL, redis_client

# The jobs these tests start go through the test queue, which RQ keeps in Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.redis]

UPLOAD_PAGE = "admin:catalogue_topic_import_page"


def upload(client, name, content):
    return client.post(
        reverse(UPLOAD_PAGE),
        {"page": SimpleUploadedFile(name, content, content_type="text/plain")},
        follow=True,
    )


def kept(job):
    return cache.get(job_functions.upload_storage(job.arguments["file_name"]).key)


def messages_of(response):
    return [str(message) for message in response.context["messages"]]


def waiting(user, count):
    """``count`` jobs of ``user``'s, waiting for a worker."""
    return [
        Job.objects.create(title="Import of a.txt", function="x.y", created_by=user)
        for _ in range(count)
    ]


def test_a_failed_jobs_upload_goes_with_it(admin_client, seed_text):
    broken = seed_text.replace("| # | Title | Summary | Status |", "| # | Title |")

    upload(admin_client, "broken.txt", broken.encode())

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert kept(job) is None
    assert job.upload == ""


def test_a_job_given_up_as_failed_takes_its_upload_along(admin_user, dead_pid):
    storage = job_functions.upload_storage()
    storage.save(b"Topics - Optimisation\n")
    job = Job.objects.create(
        title="Import of a.txt",
        function="imports.job_functions.import_page",
        arguments={"file_name": storage.name},
        state=Job.State.RUNNING,
        created_by=admin_user,
        worker=f"{socket.gethostname()}:{dead_pid}",
        upload=storage.key,
        upload_bytes=22,
    )

    runner.refresh(job)

    assert (job.state, job.upload) == (Job.State.FAILED, "")
    assert kept(job) is None


def test_past_the_unfinished_jobs_a_person_may_have_the_upload_page_says_so(
    admin_client, admin_user, seed_path, settings
):
    settings.JOBS_MAX_UNFINISHED_PER_USER = 2
    before = waiting(admin_user, 2)

    response = upload(admin_client, "seed.txt", seed_path.read_bytes())

    assert response.redirect_chain == [(reverse(UPLOAD_PAGE), 302)]
    assert messages_of(response) == [
        "You have 2 jobs waiting or running, the most one person may have at "
        "once: start this one once one of them has finished."
    ]
    assert list(Job.objects.order_by("created_at")) == before
    assert not any(
        job_functions.UploadStorage.CACHE_PREFIX in key
        for key in cache._cache  # the test's own memory cache
    )


def test_another_persons_jobs_do_not_count(
    admin_client, admin_user, seed_path, settings, editorial_groups
):
    settings.JOBS_MAX_UNFINISHED_PER_USER = 2
    waiting(UserFactory(publisher=True), 2)

    upload(admin_client, "seed.txt", seed_path.read_bytes())

    assert Job.objects.filter(created_by=admin_user).get().state == "finished"


def test_past_the_upload_bytes_a_person_may_keep_the_upload_page_says_so(
    admin_client, admin_user, seed_path, settings
):
    size = len(seed_path.read_bytes())
    settings.JOBS_MAX_UPLOAD_BYTES_PER_USER = size + 100
    # A dry run's upload, kept for its import.
    Job.objects.create(
        title="Dry run of big.csv",
        function="imports.job_functions.import_csv",
        state=Job.State.FINISHED,
        created_by=admin_user,
        upload="django-import-export-kept",
        upload_bytes=200,
    )

    response = upload(admin_client, "seed.txt", seed_path.read_bytes())

    assert messages_of(response) == [
        "Your uploads waiting for their jobs hold 200\xa0bytes; with this file's "
        f"{size / 1024:.1f}\xa0KB they would pass the {(size + 100) / 1024:.1f}\xa0KB "
        "one person may keep. Wait for an import to finish, or for an upload to "
        "expire (an hour after it was sent)."
    ]
    assert Job.objects.count() == 1


def test_an_upload_no_longer_kept_does_not_count(
    admin_client, admin_user, seed_path, settings
):
    size = len(seed_path.read_bytes())
    settings.JOBS_MAX_UPLOAD_BYTES_PER_USER = size + 100
    for state in (Job.State.FAILED, Job.State.FINISHED):
        Job.objects.create(
            title="Dry run of big.csv",
            function="imports.job_functions.import_csv",
            state=state,
            created_by=admin_user,
            # A failed job's upload is gone; a finished import's was removed.
            upload="django-import-export-gone" if state == "failed" else "",
            upload_bytes=size,
        )

    upload(admin_client, "seed.txt", seed_path.read_bytes())

    assert Job.objects.filter(state=Job.State.FINISHED, upload="").count() == 2


def test_an_upload_waits_in_redis_an_hour_at_most():
    prefix = f"{RUN_PREFIX}-uploads"
    with override_settings(
        CACHES={
            "default": {
                "BACKEND": "pagecache.backends.RedisCache",
                "LOCATION": TEST_REDIS_URL,
                "KEY_PREFIX": prefix,
            }
        }
    ):
        storage = job_functions.upload_storage()
        storage.save(b"Topics - Optimisation\n")
        (key,) = redis_client().scan_iter(f"{prefix}:*")
        lifetime = redis_client().ttl(key)
        redis_client().delete(key)

    assert 3590 < lifetime <= 3600
