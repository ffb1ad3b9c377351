"""Benchmark of check_sources over a large record, on PostgreSQL.

    make bench-sources                          # 100,000 documents
    make bench-sources BENCH_DOCUMENTS=20000
    .venv/bin/python bench/check_sources_bench.py --documents 1000 --small 100

Fills its own database (BENCH_DATABASE_URL, default anthology_sources_bench)
with ``--documents`` documents written by SQL from one generate_sample
document (generate_sample itself takes half an hour for 100,000): nine in
ten public; of every ten, six cite an arXiv id (one in seven of them a
version, v1), one in twenty a DOI (one in 97 of those does not resolve),
the rest nothing; one in a hundred summaries names a link (half of them
answering 404).

Then, in this one process, against the in-process fakes of
tests/sources/fake_checks.py (arXiv's Atom, Crossref's JSON, the handle
API, link targets; arXiv's generated papers whose id ends in 3 are at v2)
and with the pacing clock virtual (``VirtualClock``: the sleeps are counted,
not slept), it runs every check over the first ``--small`` documents and
then over all of them, each under tracemalloc (after an untraced-in-the-
figures run of the first size that imports, compiles and connects what the
checks use), the findings of each run removed before the next, and prints and writes to
bench/results/check-sources.md: the requests per service (arXiv's must be
ceil(documents citing arXiv / batch)), the virtual time arXiv's pace
takes, the findings, and the peak traced memory of each run and their
ratio (flat: close to 1).
"""

import argparse
import logging
import math
import os
import sys
import time
import tracemalloc
from pathlib import Path

from pg_database import ensure_database

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "check-sources.md"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_sources_bench"
# The fakes' port is fixed: the summaries' links name it.
PORT = 8031
FAKE = f"http://127.0.0.1:{PORT}"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
os.environ["DEBUG"] = "0"
os.environ["SOURCES_LINKS_PRIVATE"] = "1"
os.environ["METADATA_ARXIV_URL"] = f"{FAKE}/arxiv/api/query"
os.environ["METADATA_CROSSREF_URL"] = f"{FAKE}/crossref"
os.environ["SOURCES_DOI_URL"] = f"{FAKE}/doi/api/handles"
sys.path.insert(0, str(ROOT))

# Numbers of the written documents start here, above generate_sample's.
FIRST_NUMBER = 1_000_000


def fill(documents):
    from django.core.management import call_command
    from django.db import connection

    from catalogue.models import Document

    call_command("migrate", verbosity=0)
    if Document.objects.filter(number__gt=FIRST_NUMBER).count() == documents and (
        Document.objects.filter(source_key__startswith="doi:").count()
        == documents // 20 + (documents % 20 >= 6)
    ):
        return
    call_command("flush", interactive=False, verbosity=0)
    started = time.perf_counter()
    call_command("generate_sample", documents=1, verbosity=0)
    template = Document.objects.get()
    columns = [
        field.column
        for field in Document._meta.concrete_fields
        if field.column not in {"id"}
    ]
    written = {
        "number": f"{FIRST_NUMBER} + g",
        "status": "CASE WHEN mod(g, 10) = 0 THEN 'draft' ELSE 'active' END",
        "source_identifier": (
            "CASE WHEN mod(g, 10) < 6 THEN 'ARXIV-' || n.arxiv_id || "
            "CASE WHEN mod(g, 7) = 0 THEN 'v1' ELSE '' END "
            "WHEN mod(g, 20) = 6 THEN 'DOI:' || n.work_doi ELSE '' END"
        ),
        "source_key": (
            "CASE WHEN mod(g, 10) < 6 THEN 'arxiv:' || n.arxiv_id "
            "WHEN mod(g, 20) = 6 THEN 'doi:' || n.work_doi ELSE '' END"
        ),
        "summary": (
            f"CASE WHEN mod(g, 100) = 25 THEN 'See {FAKE}/links/' || "
            "CASE WHEN mod(g, 200) = 25 THEN '404' ELSE '200' END || '/' || g || "
            "' for the code.' ELSE t.summary END"
        ),
        "doi": "''",
    }
    selected = ", ".join(written.get(column, f't."{column}"') for column in columns)
    names = ", ".join(f'"{column}"' for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO catalogue_document ({names}) "
            f"SELECT {selected} FROM catalogue_document t, ("
            "SELECT g, '24' || lpad((mod(g / 100000, 12) + 1)::text, 2, '0') || '.' "
            "|| lpad((mod(g, 100000))::text, 5, '0') AS arxiv_id, "
            "CASE WHEN mod(g, 97) = 0 THEN '10.5555/unresolved.bench.' ELSE "
            "'10.5555/bench.' END || g AS work_doi "
            "FROM generate_series(1, %s) g) n WHERE t.id = %s",
            [documents, template.pk],
        )
        cursor.execute("VACUUM ANALYZE")
    print(f"filled: {time.perf_counter() - started:.1f} s", flush=True)


def forget_findings():
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM catalogue_correction")
        cursor.execute("DELETE FROM catalogue_linkcheck")


def measure(limit):
    """One run of every check over the first ``limit`` documents, traced:
    (figures, arXiv's report)."""
    from sources.checks import check_sources
    from sources.checks.pacing import VirtualClock

    forget_findings()
    arxiv_clock, other_clock = VirtualClock(), VirtualClock()
    tracemalloc.start()
    started = time.perf_counter()
    arxiv = check_sources(only=["arxiv"], limit=limit, clock=arxiv_clock)
    others = check_sources(
        only=["crossref", "doi", "links"], limit=limit, clock=other_clock
    )
    took = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figures = {
        "documents": arxiv.documents,
        "seconds": took,
        "peak": peak,
        "arxiv_virtual": arxiv_clock.elapsed,
        "other_virtual": other_clock.elapsed,
        "requests": arxiv.requests + others.requests,
        "proposed": arxiv.proposed + others.proposed,
        "already": arxiv.already + others.already,
        "failures": arxiv.failures + others.failures,
    }
    return figures, arxiv


def citing_arxiv(limit):
    from sources.checks.base import public_documents

    return public_documents(limit).filter(source_key__startswith="arxiv:").count()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000)
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.conf import settings

    from tests.sources.fake_checks import FakeChecks

    # A line a request in the log would be most of the run's work.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    fill(args.documents)
    with FakeChecks(port=PORT, record=False):
        # Modules imported, expressions compiled, connections and threads
        # made: in a run of the first size before either traced run counts.
        measure(args.small)
        small, _ = measure(args.small)
        large, _ = measure(None)
    batch = settings.SOURCES_ARXIV_BATCH
    runs = [small, large]
    for run in runs:
        run["citing"] = citing_arxiv(run["documents"])
        expected = math.ceil(run["citing"] / batch)
        assert run["requests"]["arxiv"] == expected, (run["requests"], expected)
        assert run["arxiv_virtual"] >= settings.SOURCES_ARXIV_INTERVAL * (expected - 1)
    lines = report(args, runs, batch, settings.SOURCES_ARXIV_INTERVAL)
    print("\n".join(lines))
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")


def report(args, runs, batch, interval):
    small, large = runs
    services = ["arxiv", "crossref", "doi", "links"]

    def row(name, value):
        return f"| {name} | {value(small)} | {value(large)} |"

    return [
        "# check_sources over a large record",
        "",
        f"{args.documents:,} documents written by SQL (nine in ten public; six in "
        "ten citing an arXiv id, one in twenty a DOI; one in a hundred summaries "
        "with a link), "
        "PostgreSQL, one process, against the in-process fakes of "
        "`tests/sources/fake_checks.py` with the pacing clock virtual "
        "(`make bench-sources`). The machine was shared with other work while "
        "it ran: the times are noisy; the counts are exact.",
        "",
        f"| | first {small['documents']:,} public | all {large['documents']:,} "
        "public |",
        "|---|---:|---:|",
        row("documents citing arXiv", lambda r: f"{r['citing']:,}"),
        *(
            row(f"requests: {service}", lambda r, s=service: f"{r['requests'][s]:,}")
            for service in services
        ),
        row(
            f"arXiv requests expected, ceil(citing / {batch})",
            lambda r: f"{math.ceil(r['citing'] / batch):,}",
        ),
        row(
            f"arXiv's pace, virtual ({interval:g} s between requests)",
            lambda r: (
                f"{r['arxiv_virtual']:,.0f} s ({r['arxiv_virtual'] / 3600:.2f} h)"
            ),
        ),
        row(
            "the other services' pace, virtual",
            lambda r: f"{r['other_virtual']:,.0f} s",
        ),
        *(
            row(f"proposed: {service}", lambda r, s=service: f"{r['proposed'][s]:,}")
            for service in services
        ),
        row("failures", lambda r: f"{sum(r['failures'].values()):,}"),
        row("wall time (traced)", lambda r: f"{r['seconds']:,.1f} s"),
        row("peak traced memory", lambda r: f"{r['peak'] / 2**20:,.1f} MiB"),
        "",
        f"Peak memory, all against the first {small['documents']:,}: "
        f"**{large['peak'] / small['peak']:.2f}×** for "
        f"{large['documents'] / small['documents']:.1f}× the documents "
        "(flat is close to 1).",
        "",
        "- The counts are the checks' own (each service's requests counted by "
        "the run's report); arXiv's are asserted to be ceil(documents citing "
        "arXiv / batch), and its virtual time at least the interval times the "
        "requests less one.",
        "- A link is dead only after two checks a day apart: one run proposes "
        "none (the tests run two, a virtual day apart).",
        "- The wall times are traced (tracemalloc slows Python) and the fakes "
        "answer in the same process: they say little of a real run, which "
        "arXiv's pace bounds.",
        "- Load average when it ended: "
        + ", ".join(f"{n:.1f}" for n in os.getloadavg())
        + f" ({os.cpu_count()} cores, shared with other work).",
    ]


if __name__ == "__main__":
    main()
