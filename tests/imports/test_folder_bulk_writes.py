"""A decision folder's new records and relations are written a set at a
time: each still gets the audit entry its own save would log, the import
costs a number of statements that does not grow with its files."""

import io
import json

import pytest
from auditlog.diff import model_instance_diff
from auditlog.models import LogEntry
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from catalogue.models import DecisionRecord, DecisionRelation
from tests.factories import UserFactory
from tests.imports.test_madr_import import write_folder

pytestmark = pytest.mark.django_db


def folder_files(count, *, title="Option"):
    """``count`` MADR records; every third supersedes the one before it."""
    files = {}
    for n in range(1, count + 1):
        status = "Accepted"
        if n % 3 == 0:
            status += f"\n\nSupersedes [{n - 1}. {title} {n - 1}]({n - 1:04d}-o.md)"
        files[f"{n:04d}-o.md"] = (
            f"# {n}. {title} {n} — “quoted”\n\nDate: 2024-03-01\n\n## Status\n\n"
            f"{status}\n\n## Context\n\nWe weigh *option* {n}.\n\n## Decision\n\n"
            f"We take it.\n"
        )
    return files


def imported(tmp_path, count, **options):
    folder = write_folder(tmp_path / f"team-{count}", folder_files(count))
    call_command(
        "import_decisions",
        str(folder),
        "--log",
        f"Team {count}",
        stdout=io.StringIO(),
        **options,
    )
    return folder


def statements(tmp_path, count):
    """The statements importing a folder of ``count`` new records makes
    (undone after), ANALYZE aside, once the process knows the content types
    (the first import in a process reads them into Django's cache)."""
    ContentType.objects.get_for_models(*apps.get_models())
    with transaction.atomic():
        savepoint = transaction.savepoint()
        with CaptureQueriesContext(connection) as queries:
            imported(tmp_path, count)
        transaction.savepoint_rollback(savepoint)
    return [
        query["sql"]
        for query in queries.captured_queries
        if not query["sql"].startswith("ANALYZE")
    ]


def as_saved(instance):
    """The audit trail's change of a save creating ``instance`` as it is now
    read (the search vector is the database's, never on the saved instance),
    as the trail stores it."""
    if hasattr(instance, "search_vector"):
        instance.search_vector = None
    return json.loads(
        json.dumps(model_instance_diff(None, instance, use_json_for_changes=True))
    )


def test_each_new_record_and_relation_has_the_entry_its_save_would_log(tmp_path):
    UserFactory(username="importer", publisher=True)

    folder = imported(tmp_path, 6, user="importer")

    decisions = list(DecisionRecord.objects.select_related("log").order_by("number"))
    relations = list(DecisionRelation.objects.order_by("source__number"))
    assert [d.title for d in decisions[:1]] == ["Option 1 — “quoted”"]
    assert [(r.source.number, r.target.number) for r in relations] == [(3, 2), (6, 5)]
    entries = LogEntry.objects.filter(action=LogEntry.Action.CREATE)
    for instance in [*decisions, *relations]:
        (entry,) = entries.filter(
            content_type__model=type(instance)._meta.model_name,
            object_id=instance.pk,
        )
        assert entry.changes == as_saved(instance)
        assert entry.object_repr == str(instance)
        assert entry.actor.username == "importer"
        assert entry.additional_data == {"via": f"import_decisions {folder}"}
    assert "<em>option</em>" in decisions[0].body_html


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite inserts in batches of rows"
)
def test_a_folder_import_makes_as_many_statements_for_sixty_files_as_for_six(
    tmp_path,
):
    assert len(statements(tmp_path, 60)) == len(statements(tmp_path, 6))


@pytest.mark.skipif(
    connection.vendor == "postgresql", reason="PostgreSQL copies whole sets"
)
def test_on_sqlite_only_a_folders_inserts_grow_with_its_files(tmp_path):
    def others(sql):
        return [s for s in sql if not s.lstrip().upper().startswith("INSERT")]

    assert len(others(statements(tmp_path, 60))) == len(others(statements(tmp_path, 6)))
