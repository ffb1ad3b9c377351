"""An import into a record costs what its file changes, not what the record
holds: it expires the cached pages of the documents, topics and decision
records it touched and leaves the others cached; it tells ``RECORD_CHANGED``
(related work) of the documents it changed, never of the whole record; and it
analyses a table only when it changed a sizable share of it.

Each test caches the pages first (GET twice), imports through the import's
entry point (the command, the CSV job's function), then reads them again. A
page served from the cache costs no SQL query (``is_warm``)."""

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from actions.staging import ANALYZE_ROWS, ANALYZE_SHARE
from catalogue.models import DecisionRecord, Document
from imports.job_functions import import_csv, upload_storage
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.html import is_warm, text_of
from tests.imports.test_import_csv import csv_text, row
from tests.imports.test_madr_import import write_folder
from tests.imports.test_set_based_writes import (
    highest_number_known_to_the_planner,
    page,
)

pytestmark = pytest.mark.django_db

told = []


def remember(pks):
    told.append(pks)


@pytest.fixture
def listening(settings):
    settings.RECORD_CHANGED = f"{__name__}.remember"
    told.clear()
    yield told
    told.clear()


def run_import_index(tmp_path, text):
    path = tmp_path / "page.txt"
    path.write_text(text, encoding="utf-8")
    call_command("import_index", str(path), stdout=io.StringIO())


@pytest.fixture
def record(tmp_path, committed):
    """A topic page of 20 LIT rows imported, and another topic with a public
    document of its own: ``{"topic": path, "row": path, "other": path,
    "other_row": path}`` of their pages."""
    with committed():
        run_import_index(tmp_path, page(20))
    other = TopicFactory(name="Evaluation", slug="evaluation")
    elsewhere = DocumentFactory(
        topic=other, number=700, title="Held-out evaluation", published=True
    )
    return {
        "topic": reverse("catalogue:topic-detail", args=["distributed-optimization"]),
        "row": Document.objects.get(number=2).get_absolute_url(),
        "other": reverse("catalogue:topic-detail", args=["evaluation"]),
        "other_row": elsewhere.get_absolute_url(),
        "registry": reverse("catalogue:registry-detail", args=["LIT"]),
    }


def cache_pages(client, paths):
    for path in paths:
        text_of(client, path)
        text_of(client, path)


def test_a_reimported_topic_page_refreshes_its_topic_and_leaves_another_cached(
    client, record, tmp_path, committed, django_assert_num_queries
):
    cache_pages(client, record.values())

    # Two rows at a new version, with a new title: no row becomes public or
    # stops being so, so no registry's total changes.
    changed = (
        page(20)
        .replace("| LIT-002 v2 | Row 2 ", "| LIT-002 v3 | Revised 2 ")
        .replace("| LIT-005 v2 | Row 5 ", "| LIT-005 v3 | Revised 5 ")
    )
    with committed():
        run_import_index(tmp_path, changed)

    assert "Revised 2" in text_of(client, record["topic"])
    assert "Revised 2" in text_of(client, record["row"])
    assert "Revised 5" in text_of(client, record["registry"])
    is_warm(client, record["other"], django_assert_num_queries)
    is_warm(client, record["other_row"], django_assert_num_queries)


def test_new_public_rows_refresh_every_topic_page_for_the_registrys_total(
    client, record, tmp_path, committed
):
    cache_pages(client, record.values())

    with committed():
        run_import_index(tmp_path, page(5, first=21))

    assert "LIT-021" in text_of(client, record["topic"])
    # A new public document changes its registry's total, which every topic
    # page prints: the other topic's page is made again.
    with CaptureQueriesContext(connection) as rendering:
        assert "Held-out evaluation" in text_of(client, record["other"])
    assert rendering.captured_queries


def test_the_csv_import_job_refreshes_what_its_rows_change_and_nothing_else(
    client, record, committed, django_assert_num_queries
):
    cache_pages(client, record.values())
    user = UserFactory(is_superuser=True)
    storage = upload_storage()
    storage.save(
        csv_text(
            [
                row(
                    identifier="LIT-002",
                    number="2",
                    version="3",
                    title="Revised by CSV",
                    summary="Memory — 2×.",
                    authors="Chen et al.",
                    status="active",
                    topic="distributed-optimization",
                )
            ]
        )
    )

    with committed():
        summary, _ = import_csv(
            resource="imports.resources.DocumentResource",
            file_name=storage.name,
            original_name="rows.csv",
            dry_run=False,
            user_id=user.pk,
        )

    assert summary == "Imported: 0 new, 1 updated, 0 unchanged."
    assert "Revised by CSV" in text_of(client, record["topic"])
    assert "Revised by CSV" in text_of(client, record["row"])
    is_warm(client, record["other"], django_assert_num_queries)
    is_warm(client, record["other_row"], django_assert_num_queries)


FOLDER = {
    "0001-record-architecture-decisions.md": """# 1. Record architecture decisions

Date: 2024-01-05

## Status

Accepted

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records.

## Consequences

See Michael Nygard's article.
""",
}


def test_a_folder_import_refreshes_the_decision_pages_and_leaves_topics_cached(
    client, record, tmp_path, committed, django_assert_num_queries
):
    decisions = reverse("catalogue:decision-list")
    cache_pages(client, [*record.values(), decisions])

    with committed():
        call_command(
            "import_decisions",
            str(write_folder(tmp_path / "adr", FOLDER)),
            stdout=io.StringIO(),
        )

    assert "Record architecture decisions" in text_of(client, decisions)
    for path in [record["topic"], record["row"], record["other"]]:
        is_warm(client, path, django_assert_num_queries)


def test_an_import_tells_related_work_of_the_rows_it_changed_alone(
    record, tmp_path, committed, listening
):
    changed = page(20).replace("| LIT-002 v2 | Row 2 ", "| LIT-002 v3 | Revised 2 ")

    with committed():
        run_import_index(tmp_path, changed)

    assert listening == [[Document.objects.get(number=2).pk]]


def test_a_folder_import_tells_related_work_of_nothing(
    record, tmp_path, committed, listening
):
    with committed():
        call_command(
            "import_decisions",
            str(write_folder(tmp_path / "adr", FOLDER)),
            stdout=io.StringIO(),
        )

    assert DecisionRecord.objects.count() == 1
    assert listening == []


def test_a_small_import_leaves_the_statistics_to_autovacuum_and_a_large_one_analyses(
    tmp_path,
):
    # Statistics that count the tables as they are: empty.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    run_import_index(tmp_path, page(200))
    assert highest_number_known_to_the_planner() == 200
    few = int(ANALYZE_ROWS + ANALYZE_SHARE * 200) // 3

    # Fewer rows than autovacuum waits for (50 and a tenth of the table),
    # however many statements: the statistics stay as they were.
    run_import_index(tmp_path, page(few, first=201))
    assert highest_number_known_to_the_planner() == 200

    run_import_index(tmp_path, page(300, first=201 + few))
    assert highest_number_known_to_the_planner() == 500 + few
