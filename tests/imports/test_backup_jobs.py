"""Backups started from the admin: a superuser starts one, a background job
writes it with its progress, the backups page lists it with its size and
time, and its download restores into an empty database. A backup that fails
keeps nothing; nobody but a superuser reaches any of it."""

import io
import os
import socket

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from editorial.backups import BACKUP_JOB
from imports import backups
from imports.backups import BackupFileSystemStorage, backup_storage
from imports.snapshots import import_record
from jobs import runner
from jobs.models import Job
from tests.factories import UserFactory
from tests.imports.test_backup import empty_the_record, rich_record, snapshot

# The jobs these tests start go through the test queue, which RQ keeps in Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.redis]

__all__ = ["rich_record"]

BACKUPS = reverse("admin:backups")


def start(client):
    return client.post(BACKUPS, follow=True)


def download(client, name):
    response = client.get(reverse("admin:backup_download", args=[name]))
    assert response.status_code == 200
    return response, b"".join(response.streaming_content)


def test_a_backup_started_in_the_admin_restores_into_an_empty_database(
    admin_client, rich_record, backup_dir
):
    before = snapshot()

    started = start(admin_client)

    job = Job.objects.get()
    assert started.redirect_chain == [(job.page, 302)]
    assert (job.title, job.state) == ("Backup of the whole record", Job.State.FINISHED)
    (kept,) = backups.finished_backups()
    assert job.summary == (
        f"Wrote the backup {kept.name} ({kept.size / 1024:.1f}\xa0KB)."
    )
    done, total = runner.progress_of(job)
    assert (
        done
        == total
        == sum(len(rows) for rows in before.values()) - len(before["user groups"])
    )
    page = started.content.decode()
    assert reverse("admin:backup_download", args=[kept.name]) in page
    response, data = download(admin_client, kept.name)
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == (f'attachment; filename="{kept.name}"')
    assert len(data) == kept.size == (backup_dir / kept.name).stat().st_size
    assert oct((backup_dir / kept.name).stat().st_mode & 0o777) == oct(0o600)

    empty_the_record()
    assert all(not rows for rows in snapshot().values())
    import_record(io.StringIO(data.decode("utf-8")))

    assert snapshot() == before


def test_a_download_is_never_kept_by_a_cache(admin_client, backup_dir):
    start(admin_client)
    (kept,) = backups.finished_backups()

    response, _ = download(admin_client, kept.name)

    assert set(response["Cache-Control"].split(", ")) >= {"private", "no-store"}


def test_the_backups_page_lists_them_newest_first_with_size_and_time(
    admin_client, backup_dir
):
    start(admin_client)
    start(admin_client)

    page = admin_client.get(BACKUPS)

    kept = page.context["backups"]
    assert len(kept) == 2
    assert kept == sorted(kept, key=lambda backup: backup.made_at, reverse=True)
    assert [backup.name for backup in kept] == sorted(
        os.listdir(backup_dir), key=lambda name: -os.stat(backup_dir / name).st_mtime
    )
    text = page.content.decode()
    for backup in kept:
        assert reverse("admin:backup_download", args=[backup.name]) in text
        assert f"{backup.made_at:%Y-%m-%d %H:%M:%S}" in text
    assert "Start a backup" in text


def test_a_backup_that_fails_midway_keeps_nothing(
    admin_client, backup_dir, monkeypatch
):
    def export_half(stream):
        stream.write('{"format": "anthology-record", "objects": [')
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backups, "export_record", export_half)

    start(admin_client)

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.summary == "Failed: OSError: [Errno 28] No space left on device"
    assert backups.finished_backups() == []
    assert not backup_dir.exists() or os.listdir(backup_dir) == []
    page = admin_client.get(job.page).content.decode()
    assert "No backup was kept from it." in page


class Broken(ContentFile):
    """A file that cannot be read past its first chunk."""

    def chunks(self, chunk_size=None):
        yield b'{"format": "anthology-record", '
        raise OSError(5, "Input/output error")


def test_the_storage_keeps_a_file_whole_or_not_at_all(tmp_path):
    storage = BackupFileSystemStorage(location=tmp_path)

    with pytest.raises(OSError, match="Input/output error"):
        storage.save("anthology-2026-01-31-093000.json", Broken(b""))

    assert os.listdir(tmp_path) == []
    saved = storage.save("anthology-2026-01-31-093000.json", ContentFile(b"{}"))
    again = storage.save("anthology-2026-01-31-093000.json", ContentFile(b"[]"))
    assert saved == "anthology-2026-01-31-093000.json"
    assert again != saved and again.startswith("anthology-2026-01-31-093000_")
    assert sorted(os.listdir(tmp_path)) == sorted([saved, again])
    assert (tmp_path / saved).read_bytes() == b"{}"


def test_only_finished_backups_are_listed_or_downloaded(admin_client, backup_dir):
    backup_dir.mkdir()
    (backup_dir / ".anthology-2026-01-31-093000.json.1234.partial").write_bytes(b"{")
    (backup_dir / "notes.txt").write_bytes(b"x")

    assert admin_client.get(BACKUPS).context["backups"] == []
    for name in [
        ".anthology-2026-01-31-093000.json.1234.partial",
        "notes.txt",
        "anthology-2026-01-31-093000.json",
    ]:
        response = admin_client.get(reverse("admin:backup_download", args=[name]))
        assert response.status_code == 404, name


def running_backup(user):
    """A backup running on a worker of this host that is alive (this process)."""
    job = Job.objects.create(
        title="Backup of the whole record",
        function=BACKUP_JOB,
        state=Job.State.RUNNING,
        created_by=user,
        worker=f"{socket.gethostname()}:{os.getpid()}",
        lock=BACKUP_JOB,
    )
    job.page = reverse("admin:backup_job", args=[job.pk])
    job.save()
    runner.cache.set(runner._progress_key(job.pk), (1500, 6000))
    return job


def test_a_running_backup_shows_its_progress_and_another_waits_for_it(
    admin_client, admin_user, backup_dir
):
    job = running_backup(admin_user)

    listed = admin_client.get(BACKUPS).content.decode()
    followed = admin_client.get(job.page).content.decode()
    refused = admin_client.post(BACKUPS, follow=True)

    for page in (listed, followed):
        assert '<progress value="1500" max="6000">' in page
        assert "1500 of 6000 rows written." in page
        assert '<meta http-equiv="refresh" content="2">' in page
    assert "Start a backup" not in listed
    assert [str(message) for message in refused.context["messages"]] == [
        "“Backup of the whole record” is already running (started "
        f"{job.created_at:%Y-%m-%d %H:%M} UTC): wait for it to finish."
    ]
    assert Job.objects.count() == 1


def test_a_backup_whose_worker_died_is_marked_failed_and_another_may_start(
    admin_client, admin_user, backup_dir
):
    job = running_backup(admin_user)
    # A process of this host that is gone.
    Job.objects.filter(pk=job.pk).update(worker=f"{socket.gethostname()}:999999999")

    admin_client.post(BACKUPS)

    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert Job.objects.filter(state=Job.State.FINISHED).count() == 1
    assert len(backups.finished_backups()) == 1


@pytest.mark.parametrize("role", ["staff", "editor", "publisher"])
def test_nobody_but_a_superuser_backs_up_or_downloads(
    client, admin_client, editorial_groups, backup_dir, role
):
    start(admin_client)
    (kept,) = backups.finished_backups()
    job = Job.objects.get()
    user = {
        "staff": UserFactory(username="staff-only"),
        "editor": UserFactory(editor=True),
        "publisher": UserFactory(publisher=True),
    }[role]
    client.force_login(user)

    answers = [
        client.get(BACKUPS).status_code,
        client.post(BACKUPS).status_code,
        client.get(job.page).status_code,
        client.get(reverse("admin:backup_download", args=[kept.name])).status_code,
    ]

    assert answers == [403, 403, 403, 403]
    assert Job.objects.count() == 1
    assert BACKUPS not in client.get(reverse("admin:index")).content.decode()


def test_the_admin_lists_backups_under_background_jobs_for_superusers(admin_client):
    index = admin_client.get(reverse("admin:index"))

    (jobs,) = [app for app in index.context["app_list"] if app["app_label"] == "jobs"]
    assert [(model["name"], model["admin_url"]) for model in jobs["models"]] == [
        ("Jobs", reverse("admin:jobs_job_changelist")),
        ("Backups", BACKUPS),
    ]


def test_the_jobs_list_links_each_job_to_its_page(admin_client, backup_dir):
    start(admin_client)
    job = Job.objects.get()

    listed = admin_client.get(reverse("admin:jobs_job_changelist")).content.decode()

    assert (
        f'<a href="{job.page}" class="job-page">Backup of the whole record</a>'
    ) in listed
    assert reverse("admin:jobs_job_change", args=[job.pk]) in listed
    assert backup_storage().exists(backups.finished_backups()[0].name)


def test_two_backups_cannot_both_start_whatever_their_requests_saw(admin_user):
    # Both requests looked before either started its job: the database's
    # constraint, not a check, lets one through.
    first = running_backup(admin_user)

    with pytest.raises(runner.AlreadyRunning) as refused:
        runner.enqueue(
            title="Backup of the whole record",
            function="tests.imports.test_backup_jobs.never_run",
            arguments={},
            user=admin_user,
            lock=BACKUP_JOB,
        )

    assert refused.value.running == first
    assert list(Job.objects.values_list("pk", flat=True)) == [first.pk]


def never_run():
    raise AssertionError("a backup job of this test ran")
