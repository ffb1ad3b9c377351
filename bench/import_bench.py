"""Benchmark of the imports against PostgreSQL's COPY of the same rows.

    make bench-import                           # 100,000 rows
    make bench-import BENCH_DOCUMENTS=5000
    .venv/bin/python bench/import_bench.py --documents 2000 --json ratios.json

Uses its own database (BENCH_DATABASE_URL, default anthology_bench_import),
emptied first. In one run it

- writes a topic page of N generated rows (marked as sample data, some naming
  others) and imports it with ``import_index``;
- copies the same document rows with COPY into an empty table shaped like the
  documents' (same columns, constraints and indexes): the baseline;
- exports the documents as the staff CSV, takes them out of the record and
  imports the file as the admin does (the dry run, then the write);
- times search and two renders right after that import, then again once
  ``VACUUM ANALYZE`` has settled the statistics: the state a deployment is in
  after a large import against the same a day later;
- imports ``--record-rows`` rows (5,000; at most N) into a copy of a record
  of N documents and the same file into a copy of an empty record, with
  ``import_index``, the CSV import's job and a decision folder's import
  (``--folder-files`` records, 1,000, at most a fifth of the rows), each
  against COPY of the rows it wrote: an import costs what its file costs,
  not what the record holds. The record is a copy of ``BENCH_RECORD_TEMPLATE``
  (``anthology_bench100k_template``) when N is 100,000 and it exists, else
  generated once (``generate_sample``) into ``<database>_record`` and kept;
  each import runs in a fresh copy (``<database>_run``), migrated first.

Every figure is a ratio in which lower is better; ``--json PATH`` writes them
as ``{"ratios": {name: value}}``. The table goes to bench/results/import.md
(``--results`` names another file).
"""

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from pg_database import ensure_database

ROOT = Path(__file__).resolve().parent.parent
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "import.md"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_import"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
sys.path.insert(0, str(ROOT))

PREFIX = "BLIT"
WORDS = [
    "model",
    "training",
    "data",
    "results",
    "performance",
    "network",
    "learning",
    "large",
    "deep",
    "accuracy",
    "parallel",
    "memory",
    "compute",
    "efficient",
    "distributed",
    "gradient",
    "batch",
    "throughput",
    "latency",
    "communication",
    "bandwidth",
    "cluster",
    "sharding",
    "pipeline",
    "tensor",
    "attention",
    "transformer",
    "optimizer",
    "checkpointing",
    "compression",
    "sparse",
]
SEARCHES = ["gradient compression", "pipeline memory", "sparse attention"]


def setup():
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    # The pages are rendered with DEBUG off: the manifest must exist.
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("flush", interactive=False, verbosity=0)


def page_text(rows):
    """A topic page of ``rows`` generated rows; every tenth names another."""
    import random

    rng = random.Random(26)
    lines = [
        "Topics — [Sample] generated for the import benchmark.",
        "Benchmark topic — generated rows, sample data only.",
        f"{rows} of {rows} {PREFIX} documents. Back to the full index.",
        "| # | Title | Summary | Status |",
        "|---|---|---|---|",
    ]
    for number in range(1, rows + 1):
        version = 1 + number % 3
        label = f"{PREFIX}-{number:03d}" + (f" v{version}" if version > 1 else "")
        title = "[Sample] " + " ".join(rng.choices(WORDS, k=6)).capitalize()
        text = " ".join(rng.choices(WORDS, k=24)).capitalize()
        if number % 10 == 0:
            text += f" Builds on {PREFIX}-{rng.randint(1, rows):03d}."
        summary = (
            f"Chen et al. ({2000 + number % 25}), ARXIV-{2000 + number % 25}."
            f"{number % 100000:05d}. {text}"
        )
        lines.append(f"| {label} | {title} | {summary} | Active |")
    return "\n".join(lines) + "\n"


# When each switch-over began (perf_counter), for the time the record's locks
# are held: from the switch-over to the commit.
SWITCHES = []
# When each commit's hooks began and how long they ran: what an import runs
# in-process once it has committed (the jobs it starts, without a queue).
COMMITS = []
# This process's CPU seconds in the last ``timed`` call: the import's own
# Python, less sensitive than the wall clock to what else the machine runs.
CPU = {}


def noting_switches():
    """Note when every DocumentWriter switch-over begins (the code before it
    had none: its locks are held from its first write)."""
    from actions import batch

    switch = getattr(batch.DocumentWriter, "switch", None)
    if switch is None:
        return

    def noted(self):
        SWITCHES.append(time.perf_counter())
        return switch(self)

    batch.DocumentWriter.switch = noted


def noting_commits():
    """Note when the commit's hooks begin and how long they take."""
    from django.db.backends.base.base import BaseDatabaseWrapper

    run_hooks = BaseDatabaseWrapper.run_and_clear_commit_hooks

    def noted(self):
        started = time.perf_counter()
        try:
            return run_hooks(self)
        finally:
            COMMITS.append((started, time.perf_counter() - started))

    BaseDatabaseWrapper.run_and_clear_commit_hooks = noted


def timed(function):
    """(seconds, seconds the record was locked, seconds of the commit's
    in-process hooks, result) of ``function()``. Without a worker, the
    related work it asked for runs in a thread of this process once it has
    committed: it is waited for after the figure is taken, so that it never
    races the benchmark's next step."""
    from jobs import runner

    SWITCHES.clear()
    COMMITS.clear()
    started, cpu = time.perf_counter(), time.process_time()
    result = function()
    ended = time.perf_counter()
    CPU["last"] = time.process_time() - cpu
    runner.wait_for_background()
    hooks = sum(seconds for _, seconds in COMMITS)
    committed = COMMITS[-1][0] if COMMITS else ended
    locked = committed - (SWITCHES[-1] if SWITCHES else started)
    return ended - started, locked, hooks, result


def import_index(rows):
    from django.core.management import call_command

    from catalogue.models import Document

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bench-topic.txt"
        path.write_text(page_text(rows), encoding="utf-8")
        seconds, locked, hooks, _ = timed(
            lambda: call_command("import_index", str(path), stdout=io.StringIO())
        )
    assert Document.objects.count() == rows, Document.objects.count()
    print(f"import_index: {CPU['last']:.2f} s of CPU in this process", flush=True)
    return seconds, locked, hooks


def copy_seconds():
    """COPY of the record's document rows into an empty table of their shape,
    best of three."""
    from django.db import connection

    with connection.cursor() as cursor:
        buffer = io.BytesIO()
        with cursor.copy("COPY catalogue_document TO STDOUT") as copy:
            for data in copy:
                buffer.write(data)
        data = buffer.getvalue()
        runs = []
        for _ in range(3):
            cursor.execute("DROP TABLE IF EXISTS bench_copy")
            cursor.execute(
                "CREATE TABLE bench_copy (LIKE catalogue_document INCLUDING ALL)"
            )
            started = time.perf_counter()
            with cursor.copy("COPY bench_copy FROM STDIN") as copy:
                copy.write(data)
            runs.append(time.perf_counter() - started)
        cursor.execute("DROP TABLE bench_copy")
    return min(runs)


def exported_csv():
    from catalogue.models import Document
    from formats.exports import document_chunks

    return b"".join(
        document_chunks(Document.objects.all(), base_url="http://127.0.0.1/")
    )


def take_out_documents():
    """The documents and what hangs on them gone; the registry's numbers
    free again, as before the first import."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE catalogue_document CASCADE")
        cursor.execute("DELETE FROM taggit_taggeditem")
        cursor.execute("DELETE FROM auditlog_logentry")
        cursor.execute("UPDATE catalogue_registry SET last_number = 0")


def csv_import(content, rows):
    from django.contrib.auth.models import User

    from catalogue.models import Document
    from imports.job_functions import read_csv
    from imports.resources import DocumentResource

    user, _ = User.objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    seconds, locked, hooks = {}, 0, 0
    for label, dry_run in [("dry run", True), ("write", False)]:
        dataset = read_csv(content, "bench.csv")
        resource = DocumentResource()
        seconds[label], locked, hooks, result = timed(
            lambda resource=resource, dataset=dataset, dry_run=dry_run: (
                resource.import_data(
                    dataset,
                    dry_run=dry_run,
                    raise_errors=True,
                    use_transactions=True,
                    rollback_on_validation_errors=True,
                    user=user,
                )
            )
        )
        assert not result.has_validation_errors(), result.invalid_rows[:3]
        print(f"CSV {label}: {CPU['last']:.2f} s of CPU in this process", flush=True)
    assert Document.objects.count() == rows
    return seconds, locked, hooks


def reading_seconds(rounds=3):
    """Seconds for the searches, the index and a document page, each the
    best of ``rounds``, with the page cache out of the way."""
    from django.test import Client
    from django.test.utils import override_settings

    from catalogue.models import Document

    document = Document.objects.order_by("number")[len(SEARCHES)]
    paths = [f"/search/?q={query.replace(' ', '+')}" for query in SEARCHES]
    paths += ["/", document.get_absolute_url()]
    client = Client()
    figures = {}
    with override_settings(PAGE_CACHE=False):
        for path in paths:
            runs = []
            for _ in range(rounds):
                started = time.perf_counter()
                response = client.get(path, HTTP_HOST="127.0.0.1")
                runs.append(time.perf_counter() - started)
                assert response.status_code == 200, (path, response.status_code)
            figures[path] = min(runs)
    return sum(figures.values())


def settle():
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


# Into a record of many documents against into an empty one.

RECORD_TEMPLATE = os.environ.get(
    "BENCH_RECORD_TEMPLATE", "anthology_bench100k_template"
)
# What the imports told RECORD_CHANGED in the phase into a record: the
# documents handed to related work.
TOLD = []


def told(pks):
    """RECORD_CHANGED for the phase into a record: notes what would be handed
    to related work, which is not this benchmark's to time."""
    TOLD.append(pks)


def _admin():
    import psycopg

    return psycopg.connect(
        "host=127.0.0.1 user=postgres dbname=postgres", autocommit=True
    )


def _exists(name):
    with _admin() as conn:
        return bool(
            conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [name]
            ).fetchone()
        )


def _copy_database(template, name):
    """The database ``name`` made anew as a copy of ``template``."""
    from django.db import connections

    connections.close_all()
    with _admin() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {template}")


def use_database(name, *, migrated=True):
    """Point Django's connection at the database ``name`` (migrated first)."""
    from django.core.management import call_command
    from django.db import connections

    connections.close_all()
    connections["default"].settings_dict["NAME"] = name
    if migrated:
        call_command("migrate", verbosity=0)


def prepared_templates(documents):
    """The names of an empty record's database and of one holding
    ``documents`` sample documents, made if missing, both migrated."""
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import override_settings

    from catalogue.models import Document

    base = os.environ["DATABASE_URL"].rsplit("/", 1)[1]
    empty, record = f"{base}_empty", f"{base}_record"
    if not _exists(empty):
        _copy_database("template0", empty)
    use_database(empty)
    if _exists(record):
        use_database(record)
        if Document.objects.count() == documents:
            return empty, record
    if documents == 100_000 and _exists(RECORD_TEMPLATE):
        _copy_database(RECORD_TEMPLATE, record)
        use_database(record)
        if Document.objects.count() == documents:
            return empty, record
    _copy_database("template0", record)
    use_database(record)
    print(f"Generating a record of {documents:,} documents in {record}", flush=True)
    with override_settings(RECORD_CHANGED=""):
        call_command("generate_sample", documents=documents, stdout=io.StringIO())
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return empty, record


def folder_files(count):
    """A team's folder of ``count`` MADR decision records, each naming a
    sample document; every tenth supersedes the one before it."""
    files = {}
    for n in range(1, count + 1):
        status = "Accepted"
        if n > 1 and n % 10 == 0:
            status += f"\n\nSupersedes [{n - 1}. Option {n - 1}](" + (
                f"{n - 1:04d}-option-{n - 1}.md)"
            )
        files[f"{n:04d}-option-{n}.md"] = (
            f"# {n}. Option {n} for the pipeline\n\nDate: 2024-03-01\n\n"
            f"## Status\n\n{status}\n\n## Context\n\nThe team weighs option {n} "
            f"against what SLIT-{n:03d} measured.\n\n## Decision\n\nWe take "
            f"option {n}.\n\n## Consequences\n\nThe pipeline keeps its memory.\n"
        )
    return files


def copied_rows_seconds(table, where):
    """COPY of ``table``'s rows that ``where`` picks into an empty table of
    its shape (columns, constraints, indexes), best of three."""
    from django.db import connection

    with connection.cursor() as cursor:
        buffer = io.BytesIO()
        with cursor.copy(
            f"COPY (SELECT * FROM {table} WHERE {where}) TO STDOUT"
        ) as copy:
            for data in copy:
                buffer.write(data)
        data = buffer.getvalue()
        runs = []
        for _ in range(3):
            cursor.execute("DROP TABLE IF EXISTS bench_copy")
            cursor.execute(f"CREATE TABLE bench_copy (LIKE {table} INCLUDING ALL)")
            started = time.perf_counter()
            with cursor.copy("COPY bench_copy FROM STDIN") as copy:
                copy.write(data)
            runs.append(time.perf_counter() - started)
        cursor.execute("DROP TABLE bench_copy")
    return min(runs)


def run_import_index(text):
    from django.core.management import call_command

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bench-topic.txt"
        path.write_text(text, encoding="utf-8")
        return timed(
            lambda: call_command("import_index", str(path), stdout=io.StringIO())
        )


def run_csv_job(content):
    """The CSV import's job function, as a worker runs it, on an upload kept
    as the admin keeps one; the page's topic made first, as an editor would."""
    from django.contrib.auth.models import User

    from actions import filing
    from catalogue.models import Topic
    from imports.job_functions import import_csv, upload_storage

    user, _ = User.objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    if not Topic.objects.filter(slug="benchmark-topic").exists():
        topic = Topic(name="Benchmark topic", slug="benchmark-topic", position=999)
        filing.save(obj=topic, user=user)
    storage = upload_storage()
    storage.save(content)
    result = timed(
        lambda: import_csv(
            resource="imports.resources.DocumentResource",
            file_name=storage.name,
            original_name="bench.csv",
            dry_run=False,
            user_id=user.pk,
        )
    )
    summary = result[-1][0]
    assert summary.startswith("Imported"), summary
    return result


def run_folder(files):
    from django.core.management import call_command

    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory) / "team"
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
        return timed(
            lambda: call_command(
                "import_decisions",
                str(folder),
                "--log",
                "Bench team",
                "--prefix",
                "BT",
                stdout=io.StringIO(),
            )
        )


WHERE = {"empty": "an empty record", "record": "the record"}


def into_record(documents, rows, folder_count):
    """Each import of the same file into a copy of an empty record and into
    a copy of the record of ``documents``, and COPY of what it wrote."""
    from django.test.utils import override_settings

    from catalogue.models import DecisionRecord, Document

    empty, record = prepared_templates(documents)
    run = os.environ["DATABASE_URL"].rsplit("/", 1)[1] + "_run"
    text = page_text(rows)
    files = folder_files(folder_count)
    figures = {"record": documents, "rows": rows, "files": folder_count}
    content = None
    kinds = [
        ("import_index", lambda: run_import_index(text)),
        ("csv_job", lambda: run_csv_job(content)),
        ("folder", lambda: run_folder(files)),
    ]
    for kind, run_it in kinds:
        for where, template in [("empty", empty), ("record", record)]:
            _copy_database(template, run)
            use_database(run)
            TOLD.clear()
            with override_settings(RECORD_CHANGED="__main__.told"):
                seconds, _, hooks, _ = run_it()
            told_pks = set()
            for pks in TOLD:
                told_pks |= {None} if pks is None else set(pks)
            figures[f"{kind}_{where}"] = seconds
            figures[f"{kind}_{where}_hooks"] = hooks
            figures[f"{kind}_{where}_told"] = (
                "all" if None in told_pks else len(told_pks)
            )
            print(
                f"{kind} into {WHERE[where]}: {seconds:.2f} s, "
                f"{CPU['last']:.2f} s of CPU, told {figures[f'{kind}_{where}_told']}",
                flush=True,
            )
            if where == "empty":
                if kind == "folder":
                    figures[f"{kind}_copy"] = copied_rows_seconds(
                        DecisionRecord._meta.db_table, "TRUE"
                    )
                else:
                    figures[f"{kind}_copy"] = copied_rows_seconds(
                        Document._meta.db_table, "TRUE"
                    )
                if kind == "import_index":
                    content = exported_csv()
    use_database(run, migrated=False)
    return figures


def record_report(f):
    """The lines and ratios of the phase into a record."""
    ratios, lines = (
        {},
        [
            "",
            f"## {f['rows']:,} rows into a record of {f['record']:,} documents",
            "",
            "Each import of the same file into a copy of an empty record and into a "
            "copy of the record, one after the other; COPY of the rows it wrote "
            "into an empty table of their shape. Told: the documents handed to "
            "related work (`RECORD_CHANGED`).",
            "",
            "| import | into the empty record | into the record | record / empty "
            "| record / COPY | told (empty, record) | target |",
            "|---|---|---|---|---|---|---|",
        ],
    )
    names = {
        "import_index": f"`import_index`, {f['rows']:,} rows",
        "csv_job": f"CSV import job, {f['rows']:,} rows",
        "folder": f"decision folder, {f['files']:,} records",
    }
    for kind, name in names.items():
        empty, record = f[f"{kind}_empty"], f[f"{kind}_record"]
        ratios[f"{kind}_record_vs_empty"] = record / empty
        ratios[f"{kind}_record_vs_copy"] = record / f[f"{kind}_copy"]
        lines.append(
            f"| {name} | {empty:.2f} s | {record:.2f} s | "
            f"{ratios[f'{kind}_record_vs_empty']:.2f}× | "
            f"{ratios[f'{kind}_record_vs_copy']:.1f}× "
            f"(COPY {f[f'{kind}_copy']:.3f} s) | "
            f"{f[f'{kind}_empty_told']}, {f[f'{kind}_record_told']} | "
            "≤ 1.5×, ≤ 20× |"
        )
    return ratios, lines


def report(f, results, record=None):
    rows = f["rows"]
    ratios = {
        "import_index_vs_copy": f["import_index"] / f["copy"],
        "csv_write_vs_copy": f["csv_write"] / f["copy"],
        "csv_dry_run_vs_copy": f["csv_dry_run"] / f["copy"],
        "import_index_to_commit_vs_copy": (f["import_index"] - f["import_index_hooks"])
        / f["copy"],
        "csv_write_to_commit_vs_copy": (f["csv_write"] - f["csv_hooks"]) / f["copy"],
        "import_index_locked_share": f["import_index_locked"] / f["import_index"],
        "csv_write_locked_share": f["csv_locked"] / f["csv_write"],
        "reads_after_import_vs_settled": f["reads_fresh"] / f["reads_settled"],
    }
    lines = [
        "# Import benchmark",
        "",
        f"{rows:,} generated rows on PostgreSQL, {os.cpu_count()} cores shared "
        "with other work (figures are ratios against a baseline from the same "
        "run). Written by `make bench-import`.",
        "",
        "| figure | measured | ratio | target |",
        "|---|---|---|---|",
        f"| `import_index` vs COPY of the same rows | {f['import_index']:.2f} s "
        f"({rows / f['import_index']:,.0f} rows/s) vs {f['copy']:.3f} s | "
        f"{ratios['import_index_vs_copy']:.1f}× | ≥ 5,000 rows/s, ≤ 20× |",
        f"| CSV import, the write, vs COPY | {f['csv_write']:.2f} s "
        f"({rows / f['csv_write']:,.0f} rows/s) vs {f['copy']:.3f} s | "
        f"{ratios['csv_write_vs_copy']:.1f}× | ≥ 5,000 rows/s, ≤ 20× |",
        f"| `import_index` to its commit (less the "
        f"{f['import_index_hooks']:.2f} s of jobs it runs in-process once "
        f"committed) vs COPY | {f['import_index'] - f['import_index_hooks']:.2f} s"
        f" | {ratios['import_index_to_commit_vs_copy']:.1f}× | report |",
        f"| CSV write to its commit (less the {f['csv_hooks']:.2f} s of jobs it "
        f"runs in-process once committed) vs COPY | "
        f"{f['csv_write'] - f['csv_hooks']:.2f} s | "
        f"{ratios['csv_write_to_commit_vs_copy']:.1f}× | report |",
        f"| CSV import, the dry run, vs COPY | {f['csv_dry_run']:.2f} s "
        f"({rows / f['csv_dry_run']:,.0f} rows/s) vs {f['copy']:.3f} s | "
        f"{ratios['csv_dry_run_vs_copy']:.1f}× | report |",
        f"| record locked by `import_index` (switch-over to commit) vs its "
        f"whole time | {f['import_index_locked']:.2f} s vs "
        f"{f['import_index']:.2f} s | "
        f"{ratios['import_index_locked_share']:.0%} | short |",
        f"| record locked by the CSV write (switch-over to commit) vs its "
        f"whole time | {f['csv_locked']:.2f} s vs {f['csv_write']:.2f} s | "
        f"{ratios['csv_write_locked_share']:.0%} | short |",
        f"| search ×{len(SEARCHES)}, index, document page: right after the CSV "
        f"import vs after VACUUM ANALYZE | {f['reads_fresh'] * 1000:.0f} ms vs "
        f"{f['reads_settled'] * 1000:.0f} ms | "
        f"{ratios['reads_after_import_vs_settled']:.2f}× | ≤ 1.10× |",
        "",
    ]
    if record is not None:
        record_ratios, record_lines = record_report(record)
        ratios.update(record_ratios)
        lines += [*record_lines, ""]
    text = "\n".join(lines)
    print(text)
    if results:
        results.parent.mkdir(exist_ok=True)
        results.write_text(text, encoding="utf-8")
    return ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--json", type=Path, help="write the ratios here")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument(
        "--record-rows",
        type=int,
        default=5000,
        help="rows imported into the record of --documents documents (0: none)",
    )
    parser.add_argument(
        "--folder-files",
        type=int,
        default=1000,
        help="the decision folder's records imported into that record (at most "
        "a fifth of the rows)",
    )
    parser.add_argument(
        "--only-record",
        action="store_true",
        help="only the imports into a record against into an empty one",
    )
    args = parser.parse_args()
    ensure_database()
    setup()
    record = None
    if args.record_rows:
        rows = min(args.record_rows, args.documents)
        # A folder of at most a fifth of the rows, so that a small run (the
        # guard's) stays small.
        record = into_record(args.documents, rows, min(args.folder_files, rows // 5))
        if args.only_record:
            ratios, lines = record_report(record)
            text = "\n".join(["# Import benchmark", *lines, ""])
            print(text)
            if args.results:
                args.results.write_text(text, encoding="utf-8")
            if args.json:
                args.json.write_text(json.dumps({"ratios": ratios}, indent=2) + "\n")
            return
        use_database(os.environ["DATABASE_URL"].rsplit("/", 1)[1])
        setup()
    figures = {"rows": args.documents}
    noting_switches()
    noting_commits()
    (
        figures["import_index"],
        figures["import_index_locked"],
        figures["import_index_hooks"],
    ) = import_index(args.documents)
    print(f"import_index: {figures['import_index']:.2f} s", flush=True)
    figures["copy"] = copy_seconds()
    content = exported_csv()
    take_out_documents()
    settle()
    seconds, figures["csv_locked"], figures["csv_hooks"] = csv_import(
        content, args.documents
    )
    figures["csv_dry_run"], figures["csv_write"] = seconds["dry run"], seconds["write"]
    print(f"CSV import: {seconds}", flush=True)
    figures["reads_fresh"] = reading_seconds()
    settle()
    figures["reads_settled"] = reading_seconds()
    ratios = report(figures, args.results, record)
    if args.json:
        args.json.write_text(json.dumps({"ratios": ratios}, indent=2) + "\n")


if __name__ == "__main__":
    main()
