"""Benchmark of the 1,000-row topic page rendered uncached: the worker's CPU,
the database's time and the requests a second it makes, each against a
baseline of the same run.

    make bench-topic                                   # 100,000 documents
    make bench-topic BENCH_DOCUMENTS=20000
    .venv/bin/python bench/topic_page_bench.py --documents 2000 --json out.json

Fills its own PostgreSQL database (BENCH_TOPIC_DATABASE_URL, default
anthology_bench_topic) with ``generate_sample`` and ``VACUUM ANALYZE``
(``--reuse`` keeps one that holds the documents asked for), and measures the
busiest topic's page (its first 1,000 rows):

- in one process (``anthology.wsgi`` loaded as gunicorn loads it, Django's
  test client, a session cookie so that no page cache answers): the worker's
  CPU per page (mean of ``--requests``), against reading the same rows'
  stored HTML with plain psycopg and joining it (the essential work);
- the database's time per page: planning and execution of each of the page's
  queries as ``EXPLAIN ANALYZE`` reports them, against the same for the one
  query reading the rows' stored HTML;
- through gunicorn (2 sync workers; ``search_render_bench.topic_figures``),
  requests a second against a static file of the same bytes.

Ratios are ours over the baseline's (lower is better). The issue's targets are printed
beside the absolute figures: at most 25 ms of CPU and 10 ms of database time
a page, at least 40 requests a second.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
PYTHON = str(ROOT / ".venv" / "bin" / "python")
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_topic"
PG_URL = os.environ.get("BENCH_TOPIC_DATABASE_URL", DEFAULT_URL)
# search_render_bench serves the database it is told of.
os.environ.setdefault("BENCH_SEARCH_DATABASE_URL", PG_URL)
os.environ.setdefault("BENCH_SEARCH_PORT", os.environ.get("BENCH_TOPIC_PORT", "8038"))

import search_render_bench as served  # noqa: E402

# A session cookie (of nobody) makes every request a live render.
LIVE = {"HTTP_COOKIE": "sessionid=none"}


def in_process(path, requests):
    """The page's figures in this process, as a dict (run with Django set up
    for the benchmark's database)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    import anthology.wsgi  # noqa: F401  (the URLconf loaded, gc.freeze, as gunicorn)

    client = Client(**LIVE)
    page = client.get(path)
    assert page.status_code == 200
    body = page.content

    def cpu_per_page():
        client.get(path)
        spent = []
        for _ in range(requests):
            started = time.process_time()
            response = client.get(path)
            spent.append(time.process_time() - started)
            assert response.content == body
        return statistics.mean(spent) * 1000

    cpu_ms = cpu_per_page()

    with CaptureQueriesContext(connection) as captured:
        client.get(path)
    queries = [query["sql"] for query in captured.captured_queries]

    def server_ms(sql):
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
            plan = cursor.fetchone()[0]
        plan = json.loads(plan) if isinstance(plan, str) else plan
        return plan[0]["Planning Time"] + plan[0]["Execution Time"]

    rows_sql = [sql for sql in queries if '"catalogue_documentrow"' in sql]
    db_page, db_rows = [], []
    for _ in range(5):
        db_page.append(sum(server_ms(sql) for sql in queries))
        db_rows.append(sum(server_ms(sql) for sql in rows_sql))

    # The essential work: the same rows' HTML read raw and joined.
    import psycopg

    slug = path.strip("/").split("/")[-1]
    dsn = connection.get_connection_params()
    conn = psycopg.connect(
        **{k: v for k, v in dsn.items() if k in {"dbname", "user", "host", "port"}}
    )
    essential_sql = """
        SELECT r.html FROM catalogue_document d
        JOIN catalogue_registry g ON g.id = d.registry_id
        JOIN catalogue_topic t ON t.id = d.topic_id
        JOIN catalogue_documentrow r ON r.document_id = d.id
        WHERE t.slug = %s AND d.status IN ('active', 'superseded', 'withdrawn')
        ORDER BY g.prefix, d.number LIMIT 1000"""
    conn.execute(essential_sql, [slug]).fetchall()
    spent = []
    for _ in range(requests):
        started = time.process_time()
        "".join(row[0] for row in conn.execute(essential_sql, [slug]).fetchall())
        spent.append(time.process_time() - started)
    conn.close()
    return {
        "bytes": len(body),
        "rows": body.count(b'<td class="label">'),
        "queries": len(queries),
        "cpu_ms": cpu_ms,
        "essential_cpu_ms": statistics.mean(spent) * 1000,
        "db_ms": statistics.median(db_page),
        "db_rows_ms": statistics.median(db_rows),
    }


def measure_in_process(path, requests):
    """``in_process`` in a process of its own, set up for the database."""
    env = {**served.environment(PG_URL), "PAGE_CACHE": "1"}
    code = (
        "import json, sys, django; sys.path.insert(0, 'bench'); django.setup();"
        "import topic_page_bench as b;"
        f"print(json.dumps(b.in_process({path!r}, {requests})))"
    )
    out = subprocess.run(
        [PYTHON, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True
    )
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()

    served.fill_pg(args.documents, args.reuse)
    served.manage(PG_URL, "collectstatic", "--no-input", "--verbosity", "0")
    path = served.topic_path()
    figures = measure_in_process(path, args.requests)
    _, _, live = served.topic_figures(args.rounds)
    (name,) = live
    ours, static, _ = live[name]
    load = os.getloadavg()[0]

    print(
        f"\n{args.documents:,} documents; {path}: {figures['rows']:,} rows, "
        f"{figures['bytes']:,} bytes, {figures['queries']} queries; "
        f"{os.cpu_count()} cores (shared), load {load:.1f}.\n"
    )
    table = [
        (
            "worker CPU a page (ms), against reading its rows' HTML raw",
            figures["cpu_ms"],
            figures["essential_cpu_ms"],
            figures["cpu_ms"] / figures["essential_cpu_ms"],
            "≤ 25 ms",
        ),
        (
            "database time a page (ms), against its rows' query alone",
            figures["db_ms"],
            figures["db_rows_ms"],
            figures["db_ms"] / figures["db_rows_ms"],
            "≤ 10 ms",
        ),
        (
            "live render, gunicorn 2 workers (req/s), against a static file",
            ours,
            static,
            static / ours,
            "≥ 40 req/s",
        ),
    ]
    print("| figure | ours | baseline | ratio | target |")
    print("|---|---:|---:|---:|---|")
    ratios = {}
    for label, value, base, ratio, target in table:
        ratios[label] = round(ratio, 3)
        print(f"| {label} | {value:,.1f} | {base:,.1f} | {ratio:.2f} | {target} |")
    if args.json:
        args.json.write_text(json.dumps({"ratios": ratios}, indent=2) + "\n")


if __name__ == "__main__":
    main()
