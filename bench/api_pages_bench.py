"""Benchmark of what one uncached API page costs, by its size, on PostgreSQL.

    make bench-api-pages                             # 20,000 sample documents
    .venv/bin/python bench/api_pages_bench.py --documents 20000

Fills its own database (BENCH_DATABASE_URL, default anthology_api_bench) with
generate_sample, serves it with one gunicorn sync worker on 127.0.0.1:8028
(BENCH_PORT), the page cache off and the page size cap lifted to 1,000, so
that every page is rendered at every size, and measures the time (best of
``--runs``) and the bytes of the first page of /api/documents/ at each size,
and the sitemap's index and its documents' section; as ratios in this one
run, a page at the cap (API_MAX_PAGE_SIZE's default) against one of 1,000.

The figures are written to bench/results/api-pages.md and, with ``--json
PATH``, to PATH as ``{"ratios": {metric: value}}``.
"""

import argparse
import http.client
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/anthology_api_bench"
)
os.environ.setdefault("BENCH_PORT", "8028")
# Every page rendered, at every size, none refused: one client asking.
os.environ["PAGE_CACHE"] = "0"
os.environ["API_ANONYMOUS_RATE"] = "1000000/minute"
os.environ["API_MAX_PAGE_SIZE"] = "1000"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from export_bench import PORT, RESULTS_DIR, Server, ensure_database, fill, setup

RESULTS = RESULTS_DIR / "api-pages.md"
SIZES = [100, 200, 500, 1000]
# API_MAX_PAGE_SIZE's default, against the old cap.
CAP, OLD_CAP = 200, 1000


def get(path):
    """(seconds, bytes) of one answer, uncompressed."""
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=600)
    started = time.perf_counter()
    conn.request("GET", path, headers={"Accept-Encoding": "identity"})
    response = conn.getresponse()
    body = response.read()
    seconds = time.perf_counter() - started
    assert response.status == 200, (path, response.status, body[:200])
    return seconds, len(body)


def best(path, runs):
    results = [get(path) for _ in range(runs)]
    return min(seconds for seconds, _ in results), results[0][1]


def measure(runs):
    figures = {}
    with Server():
        get("/api/")  # Connections and code warmed.
        get("/api/documents/?page_size=10")
        for size in SIZES:
            figures[size] = best(f"/api/documents/?page_size={size}", runs)
        figures["sitemap"] = best("/sitemap.xml", runs)
        figures["sitemap-documents"] = best("/sitemap-documents.xml", runs)
    return figures


def ratios(f):
    return {
        "cap_time_per_old_cap": f[CAP][0] / f[OLD_CAP][0],
        "cap_bytes_per_old_cap": f[CAP][1] / f[OLD_CAP][1],
    }


def report(f, documents, runs):
    r = ratios(f)
    lines = [
        "# What one uncached API page costs, by its size",
        "",
        f"Sample record: {documents:,} generated documents on PostgreSQL; one "
        "gunicorn sync worker, the page cache off, the first page of "
        f"/api/documents/ at each size, best of {runs}; {os.cpu_count()} cores "
        "shared with other work (only the ratios, measured in this one run, "
        "mean anything). Written by `make bench-api-pages`.",
        "",
        "| page_size | time | bytes | ms per row |",
        "|---|---|---|---|",
        *(
            f"| {size:,} | {f[size][0] * 1000:.0f} ms | {f[size][1]:,} | "
            f"{f[size][0] * 1000 / size:.2f} |"
            for size in SIZES
        ),
        "",
        "| figure | measured | ratio |",
        "|---|---|---|",
        f"| a page at the cap ({CAP}) vs one of {OLD_CAP:,}, time | "
        f"{f[CAP][0] * 1000:.0f} ms vs {f[OLD_CAP][0] * 1000:.0f} ms | "
        f"{r['cap_time_per_old_cap']:.2f}× |",
        f"| a page at the cap ({CAP}) vs one of {OLD_CAP:,}, bytes | "
        f"{f[CAP][1]:,} vs {f[OLD_CAP][1]:,} | {r['cap_bytes_per_old_cap']:.2f}× |",
        "",
        "The sitemap, uncached: the index "
        f"{f['sitemap'][0] * 1000:.0f} ms ({f['sitemap'][1]:,} bytes), its "
        f"documents' first section {f['sitemap-documents'][0] * 1000:.0f} ms "
        f"({f['sitemap-documents'][1]:,} bytes).",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text, encoding="utf-8")
    return r


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the ratios here as JSON")
    args = parser.parse_args()
    ensure_database()
    setup()
    fill(args.documents)
    figures = measure(args.runs)
    result = report(figures, args.documents, args.runs)
    if args.json:
        args.json.write_text(json.dumps({"ratios": result}, indent=2) + "\n")


if __name__ == "__main__":
    main()
