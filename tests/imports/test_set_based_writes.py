"""Bulk writes, set by set: what a 1,000-row import leaves is what a save of
each row would (audit entry, version row, number, references both ways,
fresh pages); it costs a number of statements that does not grow with its
rows; it writes the record only in its switch-over, all or nothing; and it
leaves the planner statistics that know its rows."""

import copy
import gc
import io

import pytest
from auditlog.diff import model_instance_diff
from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from taggit.models import TaggedItem

from actions.batch import (
    AUDITED_FIELDS,
    DocumentWrite,
    DocumentWriter,
    audit_diff,
    bulk_change,
)
from catalogue.models import Document, DocumentVersion, Reference, Registry
from formats import topic_page
from formats.exports import document_chunks
from imports.job_functions import read_csv
from imports.resources import DocumentResource
from imports.topic_page import import_topic_text
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)
from tests.imports.test_backup import empty_the_record
from tests.imports.test_import_csv import csv_text, row

pytestmark = pytest.mark.django_db

# A topic page's import into an empty record, whatever its rows, on PostgreSQL,
# in a process that has looked up no content type yet: its preface, registry
# and topic are each saved by their action, in a savepoint of their own. Of
# them, 19 link the authors to people once the rows are in (the new documents
# and their versions are at hand, with no position or venue linked yet, so
# none is read): the people of the families met and their slugs, then people
# and positions staged and written, and their audit entries copied in. Four
# count the public words: the documents' words as last counted and their text
# read, then their words and the vocabulary's counts written. Four find the
# pages to expire and whether to analyse: the topics' slugs, the texts naming
# the rows, the preface, the tables' rows as the statistics count them.
# Fourteen store the documents' rows: the rows' lock, the documents' names
# (and those they succeed) and the stored rows naming them read, then in a
# savepoint the rows' values and their names' targets read, the old rows'
# listings read, the old rows and their names deleted and the new written,
# and the count of the one listing they are in kept (an UPDATE that finds
# none, then its INSERT).
QUERIES_PER_IMPORT = 99

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="staging tables are PostgreSQL's"
)


def page(rows, *, first=1, title="Row"):
    """A topic page of ``rows`` public LIT rows numbered from ``first``; every
    row names the one before it."""
    lines = [
        "Topics — The record.",
        "Distributed optimization — parallelism and sharding.",
        f"{rows} of {rows} LIT documents. Back to the full index.",
        "| # | Title | Summary | Status |",
        "|---|---|---|---|",
    ]
    for number in range(first, first + rows):
        named = f" Builds on LIT-{number - 1:03d}." if number > first else ""
        lines.append(
            f"| LIT-{number:03d} v2 | {title} {number} ‘quoted’ | Chen et al. "
            f"(2016), ARXIV-1604.{number:05d}. Memory — {number}×.{named} "
            "| Active |"
        )
    return "\n".join(lines) + "\n"


def imported(rows, **options):
    return import_topic_text(topic_page.parse(page(rows, **options)), source="p.txt")


def test_a_thousand_row_import_keeps_every_promise_for_every_row():
    document_type = ContentType.objects.get_for_model(Document)
    version_type = ContentType.objects.get_for_model(DocumentVersion)

    imported(1000)

    documents = Document.objects.order_by("number")
    assert [d.number for d in documents] == list(range(1, 1001))
    assert documents[0].title == "Row 1 ‘quoted’"
    assert Registry.objects.get(prefix="LIT").last_number == 1000
    # An audit entry for each document and each version row, naming the file.
    created = LogEntry.objects.filter(action=LogEntry.Action.CREATE)
    assert created.filter(content_type=document_type).count() == 1000
    assert created.filter(content_type=version_type).count() == 1000
    assert {e.additional_data["via"] for e in created} == {"import_index p.txt"}
    assert set(
        created.filter(content_type=document_type).values_list("object_id", flat=True)
    ) == set(documents.values_list("pk", flat=True))
    # A version row for each, of its own version.
    assert DocumentVersion.objects.filter(number=2).count() == 1000
    assert DocumentVersion.objects.count() == 1000
    # References both ways: LIT-500 names LIT-499, and LIT-499 is named by it.
    cited = Document.objects.get(number=499)
    citing = Document.objects.get(number=500)
    assert list(citing.references.values_list("prefix", "number")) == [("LIT", 499)]
    assert Reference.objects.count() == 999
    page_text = Client().get(cited.get_absolute_url()).content.decode()
    assert "LIT-500" in page_text


def test_a_page_cached_before_a_thousand_row_import_is_fresh_after_it(committed):
    imported(3)
    reader = Client()
    document = Document.objects.get(number=2)
    reader.get(document.get_absolute_url())
    assert "Row 2 ‘quoted’" in reader.get(document.get_absolute_url()).text

    with committed():
        import_topic_text(
            topic_page.parse(page(1000, title="Renamed").replace(" v2 |", " v3 |")),
            source="p.txt",
        )

    assert "Renamed 2 ‘quoted’" in reader.get(document.get_absolute_url()).text
    assert DocumentVersion.objects.filter(document=document, number=3).exists()


def test_an_update_rewrites_references_and_writes_a_version_row():
    imported(20)
    changed = page(20).replace(
        "| LIT-010 v2 | Row 10 ‘quoted’ | Chen et al. (2016), ARXIV-1604.00010. "
        "Memory — 10×. Builds on LIT-009.",
        "| LIT-010 v3 | Row 10 ‘quoted’ | Chen et al. (2016), ARXIV-1604.00010. "
        "Memory — 10×. Builds on LIT-003.",
    )

    import_topic_text(topic_page.parse(changed), source="p.txt")

    document = Document.objects.get(number=10)
    assert document.version == 3
    assert list(document.references.values_list("number", flat=True)) == [3]
    assert list(document.versions.values_list("number", flat=True)) == [3, 2]
    assert (
        LogEntry.objects.get_for_object(document)
        .filter(action=LogEntry.Action.UPDATE)
        .count()
        == 1
    )


def statements(rows):
    """The statements an import of ``rows`` rows into an empty record makes
    (undone after)."""
    with transaction.atomic():
        savepoint = transaction.savepoint()
        with CaptureQueriesContext(connection) as queries:
            imported(rows)
        transaction.savepoint_rollback(savepoint)
    return [query["sql"] for query in queries.captured_queries]


def written(sql):
    """The statements but ANALYZE, which a write makes only when its rows are
    a sizable share of a table's."""
    return [s for s in sql if not s.startswith("ANALYZE")]


@postgresql_only
def test_an_import_makes_as_many_statements_for_a_thousand_rows_as_for_ten():
    assert len(written(statements(1000))) == len(written(statements(10)))


@postgresql_only
def test_an_import_of_a_thousand_rows_makes_a_known_number_of_statements(
    django_assert_num_queries,
):
    parsed = topic_page.parse(page(1000))
    # Counted as in a process that has looked up no content type yet, whatever
    # the tests before this one looked up.
    ContentType.objects.clear_cache()

    with django_assert_num_queries(QUERIES_PER_IMPORT):
        import_topic_text(parsed, source="p.txt")


@pytest.mark.skipif(
    connection.vendor == "postgresql", reason="PostgreSQL copies whole batches"
)
def test_on_sqlite_only_the_inserts_grow_with_the_rows():
    def others(sql):
        return [s for s in sql if not s.lstrip().upper().startswith("INSERT")]

    ten = others(written(statements(10)))
    thousand = others(written(statements(1000)))

    assert len(thousand) == len(ten)


@postgresql_only
def test_staged_batches_write_the_record_only_at_the_switch_over():
    registry = RegistryFactory()
    topic = TopicFactory()
    writer = DocumentWriter(note="Imported.", via="test")
    with bulk_change(via="test"):
        with writer.staged():
            for first in [1, 101]:
                writer.create(
                    [
                        DocumentWrite(
                            DocumentFactory.build(
                                registry=registry,
                                topic=topic,
                                number=number,
                                status=Document.Status.ACTIVE,
                            )
                        )
                        for number in range(first, first + 100)
                    ]
                )
                # Staged: none of the record's rows written yet, so none of
                # them locked; the rows already have their keys. Their audit
                # entries (a document's and its version's) are copied in at
                # once: adding rows locks nothing another session waits on.
                assert not Document.objects.exists()
                assert LogEntry.objects.filter(
                    additional_data__via="test"
                ).count() == 2 * (first + 99)
        assert Document.objects.count() == 200
    assert writer.switch_seconds > 0
    assert DocumentVersion.objects.count() == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'stage_%'")
        assert cursor.fetchone() == (0,)


def import_csv_file(user):
    DocumentResource().import_data(
        read_csv(csv_text([row(), row(number="5", identifier="LIT-005")]), "r.csv"),
        dry_run=False,
        raise_errors=True,
        use_transactions=True,
        user=user,
    )


@pytest.mark.parametrize(
    ("write", "documents"),
    [(lambda user: imported(20), 20), (import_csv_file, 2)],
    ids=["topic_page", "csv"],
)
def test_a_bulk_write_pauses_the_cycle_collector_and_turns_it_back_on(write, documents):
    # The file names the registry LIT, which the import makes.
    user = UserFactory(is_superuser=True)
    collecting = []

    def noting(execute, sql, params, many, context):
        collecting.append(gc.isenabled())
        return execute(sql, params, many, context)

    with connection.execute_wrapper(noting):
        write(user)

    assert Document.objects.count() == documents
    assert collecting and not any(collecting)
    assert gc.isenabled()


def test_a_failed_import_writes_nothing_it_staged():
    registry = RegistryFactory()
    writer = DocumentWriter(note="Imported.", via="test")
    with pytest.raises(RuntimeError), bulk_change(via="test"), writer.staged():
        writer.create(
            [
                DocumentWrite(
                    DocumentFactory.build(
                        registry=registry,
                        topic=TopicFactory(),
                        number=1,
                        status=Document.Status.ACTIVE,
                    )
                )
            ]
        )
        raise RuntimeError("a later batch fails")

    assert not Document.objects.exists()
    assert not DocumentVersion.objects.exists()
    assert not LogEntry.objects.filter(additional_data__via="test").exists()


# Every bulk write analyses the tables it changed, so that the first
# searches and pages after it are planned knowing its rows.


def highest_number_known_to_the_planner():
    """The highest document number the planner's statistics hold, or None."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT histogram_bounds::text FROM pg_stats "
                "WHERE tablename = 'catalogue_document' AND attname = 'number'"
            )
            row = cursor.fetchone()
            return row and int(row[0].strip("{}").split(",")[-1])
        cursor.execute(
            "SELECT stat FROM sqlite_stat1 WHERE tbl = 'catalogue_document' "
            "ORDER BY idx LIMIT 1"
        )
        row = cursor.fetchone()
        # SQLite keeps the rows an index holds, first.
        return row and int(row[0].split()[0])


def run_import_index(tmp_path):
    path = tmp_path / "page.txt"
    path.write_text(page(200), encoding="utf-8")
    call_command("import_index", str(path), stdout=io.StringIO())


def run_generate_sample(tmp_path):
    # Numbered in two registries: the highest is SLIT's 180th.
    call_command("generate_sample", documents=200, stdout=io.StringIO())


def run_restore(tmp_path):
    run_import_index(tmp_path)
    path = tmp_path / "record.json"
    call_command("export_record", str(path), stdout=io.StringIO())
    empty_the_record()
    # A smaller record analysed in between: the statistics must be the
    # restore's, not left over.
    imported(50)
    empty_the_record()
    call_command("import_record", str(path), stdout=io.StringIO())


def take_out_documents():
    """The documents gone, and their numbers free again."""
    Reference.objects.all().delete()
    TaggedItem.objects.all().delete()
    DocumentVersion.objects.all().delete()
    Document.objects.update(superseded_by=None)
    Document.objects.all().delete()
    Registry.objects.update(last_number=0)


def run_csv_import(tmp_path):
    run_import_index(tmp_path)
    content = b"".join(
        document_chunks(Document.objects.all(), base_url="http://testserver/")
    )
    take_out_documents()
    # A smaller import analysed in between: the statistics must be the CSV
    # import's, not left over.
    imported(50)
    take_out_documents()
    result = DocumentResource().import_data(
        read_csv(content, "record.csv"),
        dry_run=False,
        raise_errors=True,
        use_transactions=True,
        user=UserFactory(publisher=True),
    )
    assert not result.has_validation_errors()
    assert Document.objects.count() == 200


@pytest.mark.parametrize(
    ("write", "highest"),
    [
        (run_import_index, 200),
        (run_csv_import, 200),
        (run_generate_sample, 180),
        (run_restore, 200),
    ],
    ids=["import_index", "csv_import", "generate_sample", "import_record"],
)
def test_a_bulk_write_leaves_statistics_that_know_its_rows(tmp_path, write, highest):
    write(tmp_path)

    if connection.vendor == "postgresql":
        assert highest_number_known_to_the_planner() == highest
    else:
        assert highest_number_known_to_the_planner() == Document.objects.count()


def test_a_bulk_audit_entry_is_the_one_a_save_would_log():
    imported(3)
    document = Document.objects.get(number=2)
    before = copy.copy(document)
    document.title, document.version = "Another title", 3

    assert audit_diff(before, document, AUDITED_FIELDS) == model_instance_diff(
        before, document, fields_to_check=AUDITED_FIELDS, use_json_for_changes=True
    )
    assert audit_diff(None, document, AUDITED_FIELDS) == model_instance_diff(
        None, document, fields_to_check=AUDITED_FIELDS, use_json_for_changes=True
    )
    version = document.versions.get()
    assert audit_diff(None, version) == model_instance_diff(
        None, version, use_json_for_changes=True
    )
