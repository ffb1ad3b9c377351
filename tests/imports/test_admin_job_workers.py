"""The decision folder import and the backup on a real worker process: the
upload and the backup cross between the web process and the worker through
what they share (the cache, the backups storage), the job's page follows the
worker's progress, and a backup whose worker is killed midway keeps nothing
and is marked failed; another worker then writes the whole record.

That a downloaded backup restores is shown in-process (test_backup_jobs) and
in Chromium: restoring a record this size would cost the suite seconds."""

import io
import json
import os
import signal
from collections import Counter

from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from catalogue.models import DecisionImage, DecisionRecord
from imports import backups
from imports.snapshots import RECORD_MODELS
from jobs.models import Job
from jobs.models import _alive as process_alive
from tests.imports.test_backup import snapshot
from tests.imports.test_folder_import_job import team_folder
from tests.imports.test_import_worker import (
    progress_on,
    pytestmark,
    queue,
    start_worker,
    until,
)
from tests.imports.zips import zipped

__all__ = ["pytestmark", "queue", "start_worker"]


def test_a_worker_imports_a_zipped_folder_the_web_process_kept(
    admin_client, start_worker
):
    start_worker()

    response = admin_client.post(
        reverse("admin:catalogue_decisionrecord_import_folder"),
        {
            "archive": SimpleUploadedFile(
                "adr.zip", zipped(team_folder(), prefix="adr/")
            )
        },
    )

    assert response.status_code == 302  # Straight to the job's page.
    page = until(
        lambda: (
            "import-summary"
            in (text := admin_client.get(response.url).content.decode())
            and text
        ),
        "the folder imported",
    )
    assert (
        "Imported adr.zip (adr/). Decision records: 2 created, 0 updated, 0 unchanged."
    ) in page
    assert DecisionRecord.objects.count() == 2
    assert DecisionImage.objects.get().name == "img/cache.png"


def test_a_killed_backup_keeps_nothing_and_the_next_one_is_whole(
    admin_client, start_worker, backup_dir
):
    call_command("generate_sample", documents=1200, stdout=io.StringIO())
    rows = snapshot()
    worker = start_worker(BACKUP_DIR=str(backup_dir))

    started = admin_client.post(reverse("admin:backups"))
    job_page = started.url
    until(
        lambda: (
            (found := progress_on(admin_client.get(job_page).content.decode()))
            and 0 < found[0] < found[1]
        ),
        "progress midway through the backup",
    )
    # The worker and the process it forked for the job die at once.
    horse = int(Job.objects.get(page=job_page).worker.rpartition(":")[2])
    os.kill(horse, signal.SIGKILL)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    until(lambda: not process_alive(horse), "the killed job's process gone")

    page = admin_client.get(job_page).content.decode()
    assert "The worker stopped before the job finished" in page
    assert Job.objects.get(page=job_page).state == Job.State.FAILED
    assert backups.finished_backups() == []
    assert not backup_dir.exists() or os.listdir(backup_dir) == []

    start_worker(BACKUP_DIR=str(backup_dir))
    again = admin_client.post(reverse("admin:backups")).url
    until(lambda: Job.objects.get(page=again).is_done, "the second backup done")
    second = Job.objects.get(page=again)
    assert (second.state, second.summary) == (Job.State.FINISHED, second.summary)
    assert second.summary.startswith("Wrote the backup ")
    (kept,) = backups.finished_backups()
    download = admin_client.get(reverse("admin:backup_download", args=[kept.name]))
    objects = json.loads(b"".join(download.streaming_content))["objects"]
    assert Counter(obj["model"] for obj in objects) == {
        label.lower(): len(rows[label]) for label in RECORD_MODELS if rows[label]
    }
