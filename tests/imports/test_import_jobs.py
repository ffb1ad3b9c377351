"""The admin's CSV import as background jobs: a dry run, then the import, each
a job with a page showing its progress and result; the same documents as the
import run in one go; uploads bounded in size and kept nowhere on disk."""

import csv
import io
import pickle
import tempfile
from pathlib import Path

import pytest
from auditlog.context import set_actor
from auditlog.models import LogEntry
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import override_settings
from django.urls import reverse
from import_export.formats.base_formats import CSV
from rq.job import JobStatus
from taggit.models import Tag, TaggedItem

from catalogue.models import Document, DocumentVersion, Reference
from imports.resources import DocumentResource
from jobs import runner
from jobs.models import Job
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.imports.test_import_csv import (
    confirm,
    csv_text,
    export_documents,
    preview,
    row,
)

# The jobs these tests start go through the test queue, which RQ keeps in Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def rows(count, first=1):
    """``count`` documents' rows, numbered from ``first``."""
    return [
        row(
            identifier=f"LIT-{number:03d}",
            number=str(number),
            title=f"Study “{number}” — memory",
            summary=f"Builds on LIT-{number + 1:03d}.",
            tags="memory, pipelines",
            topic="optimisation",
        )
        for number in range(first, first + count)
    ]


def test_the_dry_run_and_the_import_are_jobs_with_pages_and_progress(admin_client):
    TopicFactory(slug="optimisation")
    checked = preview(admin_client, csv_text(rows(300)))

    dry_run = Job.objects.get()
    assert checked.redirect_chain == [(dry_run.page, 302)]
    assert dry_run.state == Job.State.FINISHED
    assert dry_run.summary == "Checked: 300 new, 0 updated, 0 unchanged."
    assert runner.progress_of(dry_run) == (300, 300)
    assert Document.objects.count() == 0
    assert "300 new, 0 updated, 0 unchanged." in checked.content.decode()

    confirmed = confirm(admin_client, checked)
    imported = Job.objects.exclude(pk=dry_run.pk).get()
    assert confirmed.url == imported.page
    assert imported.summary == "Imported: 300 new, 0 updated, 0 unchanged."
    assert Document.objects.count() == 300
    page = admin_client.get(imported.page).content.decode()
    assert "Imported: 300 new, 0 updated, 0 unchanged." in page
    listed = admin_client.get(reverse("admin:jobs_job_changelist")).content.decode()
    assert "Import of record.csv (documents)" in listed
    assert '<progress value="300" max="300">' in listed


def exported(client):
    """The export's rows, less the times the import stamps when it runs."""
    lines = csv.DictReader(io.StringIO(export_documents(client).decode()))
    return [
        {k: v for k, v in line.items() if k not in {"created", "last_changed"}}
        for line in lines
    ]


def what_is_written(client):
    """The record as an import leaves it: the export (less its times), and the
    versions, tags, cross-references and audit trail behind it."""
    return {
        "export": exported(client),
        "versions": sorted(
            DocumentVersion.objects.values_list(
                "document__registry__prefix",
                "document__number",
                "number",
                "title",
                "summary",
                "note",
                "published_by__username",
            )
        ),
        "tags": sorted(Tag.objects.values_list("name", flat=True)),
        "tagged": TaggedItem.objects.count(),
        "references": sorted(
            Reference.objects.values_list(
                "document__registry__prefix", "document__number", "prefix", "number"
            )
        ),
        # The factories' creations name no actor: they sort first.
        "audit": sorted(
            (model, name, action, actor or "")
            for model, name, action, actor in LogEntry.objects.values_list(
                "content_type__model", "object_repr", "action", "actor__username"
            )
        ),
    }


def realistic_file(client, topic):
    """The record's export with a revision, a publication and an unchanged
    row, and new documents as an editor's copy would have them: typographic
    text, tags, cross-references, drafts, a withdrawal, a successor named
    before its row, a registry the record lacks."""
    lines = list(csv.DictReader(io.StringIO(export_documents(client).decode())))
    revised, drafted, _ = lines
    revised.update(
        version="2",
        summary="Checkpointing revisited — 48G × 7G; see LIT-012.",
        tags="Amdahl’s law, memory",
    )
    drafted.update(status="active", title="Pipelines, “finally” published")
    statuses = ["active", "draft", "active", "withdrawn", "in_review", "active"]
    for number in range(11, 41):
        lines.append(
            row(
                identifier=f"LIT-{number:03d}",
                number=str(number),
                title=f"Study “{number}” — {number}× memory",
                citation_note="OSDI ‘20" if number % 3 else "",
                summary=f"Builds on LIT-{number - 1:03d} and ADR-026 ≈ twice.",
                status=statuses[number % len(statuses)],
                topic=topic.slug if number % 4 else "",
                tags=", ".join(["memory", "pipelines", "Zero‑bubble"][: number % 4]),
                created=f"2025-03-{number % 28 + 1:02d}T09:30:00.000000Z",
                last_changed="2025-04-01T10:00:00.000000Z",
            )
        )
    lines[3].update(status="superseded", successor="LIT-038")
    lines.append(row(identifier="PRA-001", registry="PRA", number="1"))
    return csv_text(lines)


def test_the_job_writes_what_the_import_in_one_go_writes(admin_client, admin_user):
    topic = TopicFactory(slug="optimisation")
    revised = DocumentFactory(
        number=4, topic=topic, title="Sublinear memory", published=True
    )
    revised.tags.add("memory", "Checkpointing")
    DocumentFactory(number=7, topic=topic, draft=True).tags.add("pipelines")
    DocumentFactory(number=10, topic=None, published=True)
    content = realistic_file(admin_client, topic)
    # As the admin imported in the request, before jobs: its user the actor.
    with transaction.atomic(), set_actor(admin_user):
        dataset = CSV(encoding="utf-8-sig").create_dataset(content.decode())
        result = DocumentResource().import_data(dataset, dry_run=False, user=admin_user)
        assert not result.has_errors(), [e.error for e in result.base_errors]
        assert not result.has_validation_errors()
        assert dict(result.totals) == {
            "new": 31,
            "update": 2,
            "delete": 0,
            "skip": 1,
            "error": 0,
            "invalid": 0,
        }
        in_one_go = what_is_written(admin_client)
        transaction.set_rollback(True)
    assert Document.objects.count() == 3

    confirm(admin_client, preview(admin_client, content))

    assert len(in_one_go["export"]) == 34
    assert what_is_written(admin_client) == in_one_go


def test_a_running_jobs_page_shows_its_progress_and_looks_again(
    admin_client, admin_user, on_the_queue
):
    job = Job.objects.create(
        title="Import of big.csv (documents)",
        function="imports.job_functions.import_csv",
        arguments={"dry_run": False},
        state=Job.State.RUNNING,
        created_by=admin_user,
    )
    on_the_queue(job, JobStatus.STARTED)
    runner.cache.set(runner._progress_key(job.pk), (1250, 5000))

    page = admin_client.get(
        reverse("admin:catalogue_document_import_job", args=[job.pk])
    ).content.decode()

    assert '<progress value="1250" max="5000">' in page
    assert "1250 of 5000 rows read." in page
    assert '<meta http-equiv="refresh" content="2">' in page


def test_someone_elses_job_page_is_refused(client, admin_client):
    TopicFactory(slug="optimisation")
    preview(admin_client, csv_text(rows(1)))
    other = UserFactory(is_superuser=False, publisher=True)
    client.force_login(other)

    response = client.get(Job.objects.get().page)

    assert response.status_code == 403


def test_a_file_over_the_limit_is_refused_and_nothing_is_kept(admin_client):
    content = csv_text(rows(30))
    before = set(Path(tempfile.gettempdir()).iterdir())
    with override_settings(IMPORT_MAX_BYTES=1024):
        response = admin_client.post(
            reverse("admin:catalogue_document_import"),
            {
                "format": "0",
                "import_file": SimpleUploadedFile("big.csv", content),
                "resource": "0",
            },
        )

    assert response.context["form"].errors["import_file"] == [
        f"big.csv is {len(content) / 1024:.1f}\xa0KB; the import takes files of up "
        "to 1.0\xa0KB."
    ]
    assert Job.objects.count() == 0
    assert set(Path(tempfile.gettempdir()).iterdir()) == before


def test_an_upload_waits_for_its_job_in_the_cache_not_on_disk(admin_client):
    TopicFactory(slug="optimisation")
    before = set(Path(tempfile.gettempdir()).iterdir())

    preview(admin_client, csv_text(rows(2)))

    assert set(Path(tempfile.gettempdir()).iterdir()) == before
    stored = runner.cache.get(
        "django-import-export-" + Job.objects.get().arguments["file_name"]
    )
    assert stored.decode().startswith("identifier,")


def test_a_file_that_is_not_csv_we_can_read_is_refused_on_its_jobs_page(
    admin_client,
):
    content = csv_text(rows(2)) + b"," * 40 + b"\n"

    response = preview(admin_client, content)

    assert response.context["form"].errors["import_file"] == [
        "record.csv is not CSV we can read: a row has more cells than "
        "the header; nothing was written."
    ]
    assert Job.objects.get().state == Job.State.FAILED


def numbered(first, count):
    return csv_text(rows(count, first))


def test_a_job_pages_queries_and_its_kept_result_do_not_grow_with_the_file(
    admin_client, django_assert_num_queries
):
    TopicFactory(slug="optimisation")
    pages, sizes = [], []
    for first, count in [(1, 3), (100, 400)]:
        checked = preview(admin_client, numbered(first, count))
        imported = confirm(admin_client, checked)
        # The dry run's page, once its import took the upload, also reads
        # that import, to say why it offers no Confirm.
        for url, queries in [(checked.redirect_chain[-1][0], 6), (imported.url, 5)]:
            job = Job.objects.get(page=url)
            sizes.append(len(pickle.dumps(runner.result_of(job))))
            with django_assert_num_queries(queries):
                pages.append(admin_client.get(url + "?page=2"))

    assert [page.status_code for page in pages] == [200] * 4
    assert "Rows 101–200 of 400, page 2 of 4." in pages[2].content.decode()
    # Only the totals' digits differ.
    assert abs(sizes[0] - sizes[2]) < 8 and abs(sizes[1] - sizes[3]) < 8
