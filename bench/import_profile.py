"""Where one import's time goes: its CPU profile and its SQL statements.

    .venv/bin/python bench/import_profile.py import_index
    .venv/bin/python bench/import_profile.py csv_job --rows 5000 --top 40
    .venv/bin/python bench/import_profile.py folder --empty

Runs one of ``import_bench.py``'s imports (the same files: ``--rows``
generated rows, a folder of a fifth as many decision records) into a fresh
copy of its record of ``--documents`` documents (``BENCH_RECORD_TEMPLATE``
when 100,000; ``--empty``: of an empty record), under cProfile and a wrapper
that times every statement, COPY included. Prints the import's seconds and
CPU seconds, the profile's top functions by their own time and by their
cumulative time, and the statements grouped by shape (numbers, strings and
lists of values taken out): how many of each and how long they took. Uses
the databases of ``import_bench.py`` (``BENCH_DATABASE_URL``).
"""

import argparse
import cProfile
import io
import pstats
import re
import time
from collections import defaultdict

import import_bench as bench

SHAPE_RES = [
    (re.compile(r"'(?:[^']|'')*'"), "?"),
    (re.compile(r"\b\d+(?:\.\d+)?\b"), "N"),
    (re.compile(r"\((?:\s*(?:N|\?|%s)\s*,)+\s*(?:N|\?|%s)\s*\)"), "(…)"),
    (re.compile(r"(?:\(…\)\s*,\s*)+\(…\)"), "(…)"),
    (re.compile(r"stage_(\w+?)_N"), r"stage_\1"),
    (re.compile(r"\s+"), " "),
]


def shape(sql):
    for pattern, replacement in SHAPE_RES:
        sql = pattern.sub(replacement, sql)
    return sql.strip()


class Statements:
    """Every statement's shape, count and seconds, COPY included."""

    def __init__(self):
        self.seen = defaultdict(lambda: [0, 0.0])

    def note(self, sql, seconds):
        entry = self.seen[shape(sql)[:240]]
        entry[0] += 1
        entry[1] += seconds

    def wrapper(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.note(sql, time.perf_counter() - started)

    def report(self, top):
        total = sum(n for n, _ in self.seen.values())
        seconds = sum(s for _, s in self.seen.values())
        print(f"\n{total} statements, {seconds:.2f} s in the database")
        for sql, (n, s) in sorted(self.seen.items(), key=lambda item: -item[1][1])[
            :top
        ]:
            print(f"{s:8.3f} s {n:6d}×  {sql[:200]}")


def noting_copies(statements):
    """COPY goes past Django's execute wrapper: time ``Staging._copy``."""
    from actions import staging

    copy = staging.Staging._copy

    def timed(self, model, fields, columns, rows):
        started = time.perf_counter()
        try:
            return copy(self, model, fields, columns, rows)
        finally:
            statements.note(
                f"COPY stage_{model._meta.db_table} (rows built and copied)",
                time.perf_counter() - started,
            )

    staging.Staging._copy = timed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=["import_index", "csv_job", "folder"])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--empty", action="store_true", help="into an empty record")
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--profile", help="also write the cProfile stats here")
    args = parser.parse_args()
    bench.ensure_database()
    bench.setup()
    from django.db import connection
    from django.test.utils import override_settings

    empty, record = bench.prepared_templates(args.documents)
    run = bench.os.environ["DATABASE_URL"].rsplit("/", 1)[1] + "_run"
    content = None
    if args.kind == "csv_job":
        # The file: the rows import_index writes, exported from an empty record.
        bench._copy_database(empty, run)
        bench.use_database(run)
        with override_settings(RECORD_CHANGED="__main__.told"):
            bench.run_import_index(bench.page_text(args.rows))
        content = bench.exported_csv()
    bench._copy_database(empty if args.empty else record, run)
    bench.use_database(run)
    runs = {
        "import_index": lambda: bench.run_import_index(bench.page_text(args.rows)),
        "csv_job": lambda: bench.run_csv_job(content),
        "folder": lambda: bench.run_folder(bench.folder_files(args.rows // 5)),
    }
    statements = Statements()
    noting_copies(statements)
    profile = cProfile.Profile()
    with (
        override_settings(RECORD_CHANGED="__main__.told"),
        connection.execute_wrapper(statements.wrapper),
    ):
        profile.enable()
        seconds, _, _, _ = runs[args.kind]()
        profile.disable()
    print(
        f"{args.kind} into {'an empty record' if args.empty else 'the record'}: "
        f"{seconds:.2f} s, {bench.CPU['last']:.2f} s of CPU (profiled)"
    )
    if args.profile:
        profile.dump_stats(args.profile)
    for order in ["tottime", "cumulative"]:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats(order).print_stats(args.top)
        lines = out.getvalue().splitlines()
        start = next(n for n, line in enumerate(lines) if "ncalls" in line)
        print("\n".join(lines[start:]))
    statements.report(args.top)


def told(pks):
    """RECORD_CHANGED: related work is not this profile's to time."""


if __name__ == "__main__":
    main()
