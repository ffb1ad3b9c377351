"""Benchmark of the API's list pages, on PostgreSQL.

    make bench-api                                   # 100,000 sample documents
    .venv/bin/python bench/api_bench.py --documents 20000 --json out.json

Fills its own database (BENCH_DATABASE_URL, default anthology_api_bench) with
generate_sample, serves it with one gunicorn sync worker on 127.0.0.1:8027
(BENCH_PORT), the page cache off, so that every page is rendered, and
measures, as ratios in this one run (lower is better):

- ``walk_per_copy``: walking every page of /api/documents/ (a thousand
  documents a page, by cursor) against PostgreSQL's own COPY of the same
  documents' rows with their registry and topic;
- ``last_page_per_first_page``: the last page against the first: a cursor
  page costs the same however deep it is;
- ``memory_all_per_tenth``: the worker's peak memory growth walking every
  page against walking a tenth of them.

The figures are written to bench/results/api.md and, with ``--json PATH``,
to PATH as ``{"ratios": {metric: value}}``.
"""

import argparse
import http.client
import json
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

os.environ.setdefault(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/anthology_api_bench"
)
os.environ.setdefault("BENCH_PORT", "8027")
# Every page rendered, none refused: the benchmark is one client asking fast.
os.environ["PAGE_CACHE"] = "0"
os.environ["API_ANONYMOUS_RATE"] = "1000000/minute"
# Pages of a thousand, past the cap a reader meets (API_MAX_PAGE_SIZE): the
# walk is measured against COPY as it was first taken.
os.environ["API_MAX_PAGE_SIZE"] = "1000"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from export_bench import PORT, RESULTS_DIR, Server, ensure_database, fill, setup

RESULTS = RESULTS_DIR / "api.md"
PAGE_SIZE = 1000


def get(path):
    """(seconds, the page's JSON) of one API page."""
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=600)
    started = time.perf_counter()
    conn.request("GET", path, headers={"Accept-Encoding": "identity"})
    response = conn.getresponse()
    body = response.read()
    seconds = time.perf_counter() - started
    assert response.status == 200, (response.status, body[:200])
    return seconds, json.loads(body)


def walk(pages=None):
    """Seconds to walk the document list by cursor (``pages`` of it, or all),
    each page's seconds, and the documents seen."""
    path = f"/api/documents/?page_size={PAGE_SIZE}"
    times, seen = [], 0
    while path and (pages is None or len(times) < pages):
        seconds, page = get(path)
        times.append(seconds)
        seen += len(page["results"])
        path = page["next"] and "{0.path}?{0.query}".format(urlsplit(page["next"]))
    return sum(times), times, seen


def copy_time():
    """PostgreSQL's COPY of the rows the document list reads, read to the end."""
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    statement = (
        "COPY (SELECT d.*, r.prefix, t.slug FROM catalogue_document d "
        "JOIN catalogue_registry r ON r.id = d.registry_id "
        "LEFT JOIN catalogue_topic t ON t.id = d.topic_id "
        "WHERE d.status IN ('active', 'superseded', 'withdrawn') "
        "ORDER BY d.id) TO STDOUT (FORMAT csv)"
    )
    with psycopg.connect(
        host=db["HOST"], user=db["USER"], dbname=db["NAME"], autocommit=True
    ) as conn:
        started = time.perf_counter()
        rows = 0
        with conn.cursor().copy(statement) as copy:
            for data in copy:
                rows += bytes(data).count(b"\n")
        return time.perf_counter() - started, rows


def measure():
    figures = {}
    with Server() as server:
        get("/api/")  # Connections and code warmed.
        baseline = server.memory_kb("VmHWM")
        figures["walk_seconds"], times, figures["seen"] = walk()
        figures["growth_all_kb"] = server.memory_kb("VmHWM") - baseline
        figures["first_page"], figures["last_page"] = times[0], times[-1]
        figures["pages"] = len(times)
    with Server() as server:
        get("/api/")
        baseline = server.memory_kb("VmHWM")
        walk(pages=max(1, len(times) // 10))
        figures["growth_tenth_kb"] = max(1, server.memory_kb("VmHWM") - baseline)
    figures["copy_seconds"], figures["copy_rows"] = min(
        (copy_time() for _ in range(3)), key=lambda run: run[0]
    )
    return figures


def ratios(f):
    return {
        "walk_per_copy": f["walk_seconds"] / f["copy_seconds"],
        "last_page_per_first_page": f["last_page"] / f["first_page"],
        "memory_all_per_tenth": f["growth_all_kb"] / f["growth_tenth_kb"],
    }


def report(f, documents):
    r = ratios(f)
    lines = [
        "# API benchmark",
        "",
        f"Sample record: {documents:,} generated documents on PostgreSQL "
        f"({f['seen']:,} public); one gunicorn sync worker, the page cache "
        f"off; {os.cpu_count()} cores shared with other work (the machine was "
        "busy: only the ratios, measured in this one run, mean anything). "
        "Written by `make bench-api`. Lower is better.",
        "",
        "| figure | measured | ratio |",
        "|---|---|---|",
        f"| /api/documents/ walked by cursor ({f['pages']} pages of "
        f"{PAGE_SIZE:,}) vs COPY of the same rows | {f['walk_seconds']:.2f} s vs "
        f"{f['copy_seconds']:.3f} s ({f['copy_rows']:,} rows) | "
        f"{r['walk_per_copy']:.1f}× |",
        f"| last page vs first page | {f['last_page'] * 1000:.0f} ms vs "
        f"{f['first_page'] * 1000:.0f} ms | {r['last_page_per_first_page']:.2f}× |",
        f"| worker peak memory growth, all pages vs a tenth | "
        f"{f['growth_all_kb']:,} KiB vs {f['growth_tenth_kb']:,} KiB | "
        f"{r['memory_all_per_tenth']:.2f}× |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text, encoding="utf-8")
    return r


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--json", type=Path, help="write the ratios here as JSON")
    args = parser.parse_args()
    ensure_database()
    setup()
    fill(args.documents)
    figures = measure()
    result = report(figures, args.documents)
    if args.json:
        args.json.write_text(json.dumps({"ratios": result}, indent=2) + "\n")


if __name__ == "__main__":
    main()
