"""Benchmark of linking the whole record's authors to people, on PostgreSQL.

    make bench-people                       # 100,000 sample documents
    make bench-people BENCH_DOCUMENTS=20000
    .venv/bin/python bench/people_bench.py --documents 1000 --json /tmp/people.json

Fills its own database (BENCH_DATABASE_URL, default anthology_people_bench)
with generate_sample (its documents carry author lists drawn from groups of
people who write together, one author in ten written with an initial), then,
in this one process and run:

- reads every author list of the record, documents' and versions', through
  the ORM, and nothing else: the baseline, best of ``--repeat``;
- takes every person, position and proposal out and links the whole record
  again from nothing (``link_people``, ``actions.people.link_record``): what
  a record from before people were kept costs once;
- links it again with everything linked: what running the command on a
  linked record costs (every position kept, nothing written).

Ratios (lower is better) go to ``--json`` as ``{"ratios": {...}}`` and every
figure to bench/results/people.md.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

from pg_database import ensure_database

ROOT = Path(__file__).resolve().parent.parent
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "people.md"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_people_bench"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
sys.path.insert(0, str(ROOT))


def fill(documents):
    from django.core.management import call_command
    from django.db import connection

    from catalogue.models import Document

    call_command("migrate", verbosity=0)
    if Document.objects.count() != documents:
        call_command("flush", interactive=False, verbosity=0)
        started = time.perf_counter()
        call_command("generate_sample", documents=documents)
        print(f"generate_sample: {time.perf_counter() - started:.1f} s", flush=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def best(repeat, work):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def unlinked():
    """The record as it was before people were kept: no person, position or
    proposal (the benchmark's own setup, not a change to the record)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE catalogue_personproposal, catalogue_authorship, "
            "catalogue_personaddress_persons, catalogue_personaddress, "
            "catalogue_person, catalogue_documentvenue CASCADE"
        )
        cursor.execute("VACUUM ANALYZE")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="where to write the ratios")
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from actions.people import link_record
    from catalogue.models import (
        Authorship,
        Document,
        DocumentVersion,
        Person,
        PersonProposal,
    )

    fill(args.documents)

    def read_author_lists():
        list(Document.objects.values_list("pk", "authors", "author_list"))
        list(DocumentVersion.objects.values_list("pk", "authors", "author_list"))

    reading = best(args.repeat, read_author_lists)
    unlinked()
    started = time.perf_counter()
    documents, _, _ = link_record(via="people_bench")
    first = time.perf_counter() - started
    positions = Authorship.objects.count()
    started = time.perf_counter()
    _, again_made, again_proposals = link_record(via="people_bench")
    again = time.perf_counter() - started
    assert (again_made, again_proposals) == (0, 0)
    people = Person.objects.count()
    open_proposals = PersonProposal.objects.count()

    ratios = {
        "link_record_over_reading_author_lists": round(first / reading, 2),
        "link_record_again_over_reading_author_lists": round(again / reading, 2),
    }
    lines = [
        "# Linking the whole record's authors to people",
        "",
        f"{documents:,} sample documents, PostgreSQL, in one process "
        "(`make bench-people`). The machine was shared with other work while "
        "it ran: read the ratios, measured side by side, rather than the times.",
        "",
        f"Linked: {positions:,} positions (documents' and versions'), "
        f"{people:,} people, {open_proposals:,} proposals on the desk.",
        "",
        "| what | time |",
        "|---|---:|",
        f"| reading every author list alone (best of {args.repeat}) "
        f"| {reading * 1000:,.0f} ms |",
        f"| linking the whole record from nothing | {first * 1000:,.0f} ms |",
        f"| linking it again, everything linked | {again * 1000:,.0f} ms |",
        "",
        "| ratio (lower is better) | value |",
        "|---|---:|",
        *(f"| {name} | {value} |" for name, value in ratios.items()),
        "",
    ]
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps({"ratios": ratios}, indent=2) + "\n")


if __name__ == "__main__":
    main()
