"""Benchmark of what readers wait on: search, and a topic page rendered live.

    make bench-search                                  # 100,000 documents
    make bench-search BENCH_DOCUMENTS=20000
    .venv/bin/python bench/search_render_bench.py --documents 2000 --json out.json

Fills its own PostgreSQL database (BENCH_SEARCH_DATABASE_URL, default
anthology_bench_search) with ``generate_sample`` and ``VACUUM ANALYZE``, serves
it with gunicorn (2 sync workers, DEBUG off, persistent connections) on
127.0.0.1:8037, and measures, each beside a baseline taken in this run:

- search, random two-word queries that each match between 1% and 30% of the
  documents, the page cache off: one client's p50 and p99, against the
  search's essential SQL (the 50 best matches ranked with their passages,
  and the count) run raw through psycopg; then 8 connections' requests per
  second and p99, against that SQL from 8 psycopg connections;
- a topic page of 1,000 rows rendered live (a session cookie: the page cache
  does not answer it), requests per second against a static file of the
  same bytes from the same gunicorn and WhiteNoise;
- the SQLite/FTS5 search the same way at min(N, 10,000) documents, against
  the same FTS5 query run raw through sqlite3;
- what one PostgreSQL search costs, in one process (``anthology.wsgi``
  loaded as gunicorn loads it, Django's test client, the page cache off):
  the worker's CPU per search (mean over the queries), against the CPU of
  running the essential SQL raw through psycopg; and the database's time per
  search, the planning and execution of each of its queries as
  ``EXPLAIN ANALYZE`` reports them, against the same for the essential SQL;
  with the queries a search makes.

Every ratio is ours over the baseline's, so lower is better; ``--json``
writes them as ``{"ratios": {...}}``. ``--reuse`` keeps a database that
already holds the documents asked for; ``--template NAME``
(``BENCH_SEARCH_TEMPLATE``) copies a database already filled (such as
``anthology_bench100k_template``) and migrates it rather than generating the
documents; ``--only search`` (or ``cpu``, ``topic``, ``sqlite``, repeatable)
measures only those. The machine is assumed shared: the
figures are medians of alternating rounds.
"""

import argparse
import http.client
import json
import os
import random
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
PORT = int(os.environ.get("BENCH_SEARCH_PORT", "8037"))
BIND = f"127.0.0.1:{PORT}"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_search"
PG_URL = os.environ.get("BENCH_SEARCH_DATABASE_URL", DEFAULT_URL)
SQLITE_PATH = Path(
    os.environ.get(
        "BENCH_SEARCH_SQLITE", Path(tempfile.gettempdir()) / "anthology-bench.sqlite3"
    )
)
STATIC_ROOT = Path(tempfile.mkdtemp(prefix="anthology-bench-search-static-"))
PUBLIC = ("active", "superseded", "withdrawn")
# The sample text's most common words (generate_sample draws by Zipf's law):
# pairs of them match thousands of documents at 100,000.
COMMON_WORDS = [
    "model",
    "training",
    "method",
    "data",
    "results",
    "performance",
    "approach",
    "network",
    "learning",
    "large",
    "show",
    "models",
    "using",
    "neural",
    "time",
    "paper",
    "propose",
    "system",
    "deep",
    "accuracy",
    "task",
    "tasks",
    "scale",
    "parallel",
    "parallelism",
    "memory",
    "compute",
    "efficient",
    "distributed",
    "workers",
    "cost",
    "batch",
    "layer",
    "layers",
    "gradient",
    "across",
    "single",
    "set",
    "based",
    "framework",
    "new",
    "optimization",
    "algorithm",
    "inference",
    "hardware",
    "throughput",
    "latency",
]

# The essential SQL of a search: the 50 best public matches, ranked, with the
# summary's and the title's marked passages, and how many match; matched
# through the index of the public documents' vectors (document_search's).
PG_SEARCH_SQL = """
    SELECT d.id, r.prefix, d.number, d.title, d.summary,
        ts_headline('english', d.summary, q, 'MaxWords=40, MinWords=20'),
        ts_headline('english', d.title, q, 'HighlightAll=true')
    FROM (
        SELECT s.document_id AS id, ts_rank(s.search_vector, q) AS rank
        FROM document_search s, websearch_to_tsquery('english', %(q)s) q
        WHERE s.search_vector @@ q AND s.status = ANY(%(public)s)
        ORDER BY rank DESC LIMIT 50
    ) best
    JOIN catalogue_document d ON d.id = best.id
    JOIN catalogue_registry r ON r.id = d.registry_id,
    websearch_to_tsquery('english', %(q)s) q
    ORDER BY best.rank DESC
"""
PG_COUNT_SQL = """
    SELECT count(*) FROM document_search
    WHERE search_vector @@ websearch_to_tsquery('english', %(q)s)
        AND status = ANY(%(public)s)
"""
SQLITE_SEARCH_SQL = """
    SELECT d.id, d.title, snippet(document_fts, 3, '[', ']', '', 40),
        highlight(document_fts, 1, '[', ']')
    FROM document_fts JOIN catalogue_document d ON d.id = document_fts.rowid
    WHERE document_fts MATCH ? AND d.status IN ('active', 'superseded', 'withdrawn')
    ORDER BY bm25(document_fts, 10, 10, 4, 1) LIMIT 50
"""
SQLITE_COUNT_SQL = """
    SELECT count(*) FROM document_fts JOIN catalogue_document d
        ON d.id = document_fts.rowid
    WHERE document_fts MATCH ? AND d.status IN ('active', 'superseded', 'withdrawn')
"""


def environment(database_url):
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "anthology.settings",
        "ALLOWED_HOSTS": "127.0.0.1,testserver",
        "STATIC_ROOT": str(STATIC_ROOT),
        "DEBUG": "0",
        "CONN_MAX_AGE": "600",
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7"),
        "CACHE_KEY_PREFIX": f"anthology-bench-{uuid.uuid4().hex[:8]}",
        # Every request comes from one address: the readers' limits are
        # what a benchmark of throughput is not about.
        "READER_SEARCH_RATE": "1000000/minute",
        "READER_PAGE_RATE": "1000000/minute",
    }


def manage(database_url, *args):
    subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=environment(database_url),
        check=True,
        stdout=subprocess.DEVNULL,
    )


def pg_dsn():
    return "host=127.0.0.1 user=postgres dbname=" + PG_URL.rsplit("/", 1)[1]


def pg_count():
    try:
        with psycopg.connect(pg_dsn()) as conn:
            return conn.execute("SELECT count(*) FROM catalogue_document").fetchone()[0]
    except psycopg.Error:
        return None


def fill_pg(documents, reuse, template=None):
    """The benchmark's database with ``documents`` sample documents, made
    with ``generate_sample``, or copied from the database ``template`` (one
    already filled, at any earlier schema) and migrated."""
    if reuse and pg_count() == documents:
        return
    name = PG_URL.rsplit("/", 1)[1]
    source = template or "template0"
    with psycopg.connect(
        "host=127.0.0.1 user=postgres dbname=postgres", autocommit=True
    ) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name} ENCODING 'UTF8' TEMPLATE {source}")
    started = time.perf_counter()
    manage(PG_URL, "migrate", "--no-input")
    if template is None:
        manage(PG_URL, "generate_sample", "--documents", str(documents))
    elif pg_count() != documents:
        raise SystemExit(
            f"{template} holds {pg_count():,} documents, not {documents:,}"
        )
    with psycopg.connect(pg_dsn(), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    how = f"copied from {template}" if template else "generated"
    seconds = time.perf_counter() - started
    print(f"PostgreSQL filled: {documents:,} {how} in {seconds:.0f} s")


def fill_sqlite(documents, reuse):
    url = f"sqlite:///{SQLITE_PATH}"
    if reuse and SQLITE_PATH.exists():
        with sqlite3.connect(SQLITE_PATH) as conn:
            count = conn.execute("SELECT count(*) FROM catalogue_document").fetchone()
        if count[0] == documents:
            return url
    SQLITE_PATH.unlink(missing_ok=True)
    manage(url, "migrate", "--no-input")
    manage(url, "generate_sample", "--documents", str(documents))
    with sqlite3.connect(SQLITE_PATH) as conn:
        conn.execute("ANALYZE")
    return url


def search_queries(count_matches, documents, n=40, seed=26):
    """``n`` two-word queries, each matching 1%–30% of the documents."""
    rng = random.Random(seed)
    low, high = max(documents // 100, 5), documents * 3 // 10
    queries, tried = [], set()
    while len(queries) < n and len(tried) < 600:
        pair = tuple(sorted(rng.sample(COMMON_WORDS, 2)))
        if pair in tried:
            continue
        tried.add(pair)
        if low <= count_matches(" ".join(pair)) <= high:
            queries.append(" ".join(pair))
    assert queries, "no two-word query matches 1%-30% of the documents"
    return [queries[i % len(queries)] for i in range(n)]


class Server:
    """gunicorn with 2 sync workers on ``database_url``."""

    def __init__(self, database_url, page_cache):
        self.env = {**environment(database_url), "PAGE_CACHE": page_cache}

    def __enter__(self):
        self.process = subprocess.Popen(
            [GUNICORN, "anthology.wsgi", "--workers", "2", "--bind", BIND],
            cwd=ROOT,
            env=self.env,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(300):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT).connect()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("gunicorn did not start")

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=30)


class Client:
    """One keep-alive-less HTTP client, as a browser's first request is."""

    def __init__(self, headers=None):
        self.headers = headers or {}

    def __call__(self, path):
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        conn.request("GET", path, headers=self.headers)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        assert response.status == 200, (path, response.status)
        return body


def search_path(query):
    return "/search/?" + urlencode({"q": query})


def urlencode(params):
    from urllib.parse import urlencode as encode

    return encode(params)


def one_client(work, items, rounds=2):
    """Seconds of each call of ``work`` over ``items``, one at a time."""
    times = []
    work(items[0])
    for _ in range(rounds):
        for item in items:
            started = time.perf_counter()
            work(item)
            times.append(time.perf_counter() - started)
    return times


def concurrent(make_worker, items, connections=8, seconds=6.0):
    """Requests per second and each call's seconds, ``connections`` at once."""
    times, lock = [], threading.Lock()
    stop = time.perf_counter() + seconds

    def run(offset):
        work = make_worker()
        mine, i = [], offset
        while time.perf_counter() < stop:
            started = time.perf_counter()
            work(items[i % len(items)])
            mine.append(time.perf_counter() - started)
            i += 1
        with lock:
            times.extend(mine)

    threads = [threading.Thread(target=run, args=(n * 5,)) for n in range(connections)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(times) / (time.perf_counter() - started), times


def quantile(times, q):
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def pg_worker(conn=None):
    conn = conn or psycopg.connect(pg_dsn(), autocommit=True)

    def work(query):
        params = {"q": query, "public": list(PUBLIC)}
        conn.execute(PG_SEARCH_SQL, params).fetchall()
        conn.execute(PG_COUNT_SQL, params).fetchone()

    return work


def sqlite_worker():
    conn = sqlite3.connect(SQLITE_PATH, check_same_thread=False)

    def work(query):
        match = " AND ".join(f'"{word}"' for word in query.split())
        conn.execute(SQLITE_SEARCH_SQL, [match]).fetchall()
        conn.execute(SQLITE_COUNT_SQL, [match]).fetchone()

    return work


def search_figures(name, baseline_worker, queries, rounds):
    """One client and 8 connections, ours and the baseline's, alternating."""
    figures = {}
    ours_one, base_one, ours_many, base_many = [], [], [], []
    http_work = Client()

    def http_search(query):
        return Client()(search_path(query))

    base_work = baseline_worker()
    for _ in range(rounds):
        ours_one += one_client(lambda q: http_work(search_path(q)), queries)
        base_one += one_client(base_work, queries)
        ours_many.append(concurrent(lambda: http_search, queries))
        base_many.append(concurrent(baseline_worker, queries))
    rate = statistics.median(r for r, _ in ours_many)
    base_rate = statistics.median(r for r, _ in base_many)
    many_times = [t for _, ts in ours_many for t in ts]
    base_many_times = [t for _, ts in base_many for t in ts]
    figures[f"{name} search, one client p50"] = (
        quantile(ours_one, 0.5) * 1000,
        quantile(base_one, 0.5) * 1000,
        "ms",
    )
    figures[f"{name} search, one client p99"] = (
        quantile(ours_one, 0.99) * 1000,
        quantile(base_one, 0.99) * 1000,
        "ms",
    )
    # Requests per second: the baseline's over ours, so lower is better.
    figures[f"{name} search, 8 connections req/s"] = (rate, base_rate, "req/s")
    figures[f"{name} search, 8 connections p99"] = (
        quantile(many_times, 0.99) * 1000,
        quantile(base_many_times, 0.99) * 1000,
        "ms",
    )
    return figures


def in_process(queries, rounds):
    """A PostgreSQL search's worker CPU and database time, ours and the
    essential SQL's, as a dict (run with Django set up for the benchmark's
    database, the page cache off)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    import anthology.wsgi  # noqa: F401  (the URLconf loaded, gc.freeze, as gunicorn)

    client = Client()
    paths = [search_path(query) for query in queries]
    for path in paths:
        assert client.get(path).status_code == 200
    spent = []
    for _ in range(rounds):
        for path in paths:
            started = time.process_time()
            client.get(path)
            spent.append(time.process_time() - started)

    def server_ms(sql, params=None):
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
            plan = cursor.fetchone()[0]
        plan = json.loads(plan) if isinstance(plan, str) else plan
        return plan[0]["Planning Time"] + plan[0]["Execution Time"]

    db, counts = [], []
    for path in paths:
        with CaptureQueriesContext(connection) as captured:
            client.get(path)
        counts.append(len(captured.captured_queries))
        db.append(sum(server_ms(query["sql"]) for query in captured))

    conn = psycopg.connect(pg_dsn(), autocommit=True)
    work, essential_spent, essential_db = pg_worker(conn), [], []
    for _ in range(rounds):
        for query in queries:
            started = time.process_time()
            work(query)
            essential_spent.append(time.process_time() - started)
    for query in queries:
        params = {"q": query, "public": list(PUBLIC)}
        essential_db.append(
            sum(server_ms(sql, params) for sql in (PG_SEARCH_SQL, PG_COUNT_SQL))
        )
    conn.close()
    return {
        "cpu_ms": statistics.mean(spent) * 1000,
        "essential_cpu_ms": statistics.mean(essential_spent) * 1000,
        "db_ms": statistics.mean(db),
        "essential_db_ms": statistics.mean(essential_db),
        "queries": sorted(set(counts)),
    }


def cpu_figures(queries, rounds):
    """``in_process`` in a process of its own, set up for the database."""
    env = {**environment(PG_URL), "PAGE_CACHE": "0"}
    code = (
        "import json, sys, django; sys.path.insert(0, 'bench'); django.setup();"
        "import search_render_bench as b;"
        f"print(json.dumps(b.in_process({queries!r}, {rounds})))"
    )
    out = subprocess.run(
        [PYTHON, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True
    )
    figures = json.loads(out.stdout.decode().strip().splitlines()[-1])
    print(f"PostgreSQL search, queries a search: {figures['queries']}", flush=True)
    return {
        "PostgreSQL search, worker CPU a search (ms)": (
            figures["cpu_ms"],
            figures["essential_cpu_ms"],
            "ms",
        ),
        "PostgreSQL search, database time a search (ms)": (
            figures["db_ms"],
            figures["essential_db_ms"],
            "ms",
        ),
    }


def topic_path():
    with psycopg.connect(pg_dsn()) as conn:
        slug = conn.execute(
            """SELECT t.slug FROM catalogue_topic t JOIN catalogue_document d
                ON d.topic_id = t.id WHERE d.status = ANY(%s)
            GROUP BY t.slug ORDER BY count(*) DESC, t.slug LIMIT 1""",
            [list(PUBLIC)],
        ).fetchone()[0]
    return f"/topics/{slug}/"


# A session cookie (of nobody) makes every request a live render.
LIVE = {"Cookie": "sessionid=none"}


def topic_figures(rounds):
    path = topic_path()
    with Server(PG_URL, "1"):
        page = Client(LIVE)(path)
    # WhiteNoise finds the static files when it starts.
    (STATIC_ROOT / "bench-topic.html").write_bytes(page)
    rows = page.count(b"<tr")
    ours, base = [], []
    with Server(PG_URL, "1"):
        live, static = Client(LIVE), Client()
        assert static("/static/bench-topic.html") == page
        for _ in range(rounds):
            ours.append(concurrent(lambda: live, [path], connections=2, seconds=5.0)[0])
            base.append(
                concurrent(
                    lambda: static,
                    ["/static/bench-topic.html"],
                    connections=2,
                    seconds=5.0,
                )[0]
            )
    return (
        rows,
        len(page),
        {
            "topic page of 1,000 rows, live render req/s": (
                statistics.median(ours),
                statistics.median(base),
                "req/s",
            )
        },
    )


def shown(figures):
    """``figures``, printed as soon as they are measured (a later step on a
    busy machine may fail)."""
    for name, (ours, base, unit) in figures.items():
        print(f"{name}: {ours:,.1f} vs {base:,.1f} {unit}", flush=True)
    return figures


def ratio(name, ours, base, unit):
    return base / ours if unit == "req/s" else ours / base


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--sqlite-documents", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument(
        "--template",
        default=os.environ.get("BENCH_SEARCH_TEMPLATE"),
        help="copy this database (already holding --documents) and migrate it, "
        "rather than generating the documents",
    )
    parser.add_argument(
        "--only",
        choices=["search", "cpu", "topic", "sqlite"],
        action="append",
        help="measure only these (repeatable); all by default",
    )
    args = parser.parse_args()
    n = args.documents
    n_sqlite = args.sqlite_documents or min(n, 10_000)
    only = set(args.only or ["search", "cpu", "topic", "sqlite"])

    fill_pg(n, args.reuse, args.template)
    manage(PG_URL, "collectstatic", "--no-input", "--verbosity", "0")
    with psycopg.connect(pg_dsn()) as conn:

        def count_pg(query):
            params = {"q": query, "public": list(PUBLIC)}
            return conn.execute(PG_COUNT_SQL, params).fetchone()[0]

        pg_queries = search_queries(count_pg, n)
        pg_matches = [count_pg(q) for q in pg_queries]
    figures, rows, size = {}, 0, 0
    if "search" in only:
        with Server(PG_URL, "0"):
            figures |= shown(
                search_figures("PostgreSQL", pg_worker, pg_queries, args.rounds)
            )
    if "cpu" in only:
        figures |= shown(cpu_figures(pg_queries, args.rounds))
    if "topic" in only:
        rows, size, topic = topic_figures(args.rounds)
        figures |= shown(topic)

    if "sqlite" in only:
        sqlite_url = fill_sqlite(n_sqlite, args.reuse)
        with sqlite3.connect(SQLITE_PATH) as conn:

            def count_sqlite(query):
                match = " AND ".join(f'"{word}"' for word in query.split())
                return conn.execute(SQLITE_COUNT_SQL, [match]).fetchone()[0]

            sqlite_queries = search_queries(count_sqlite, n_sqlite)
        with Server(sqlite_url, "0"):
            figures |= shown(
                search_figures(
                    f"SQLite ({n_sqlite:,})", sqlite_worker, sqlite_queries, args.rounds
                )
            )

    print(
        f"\n{n:,} documents on PostgreSQL, {n_sqlite:,} on SQLite; gunicorn 2 sync "
        f"workers; {os.cpu_count()} cores (shared), load {os.getloadavg()[0]:.1f}; "
        f"{args.rounds} rounds. "
        f"Searches match {min(pg_matches):,}–{max(pg_matches):,} documents; the "
        f"topic page has {rows:,} rows, {size:,} bytes.\n"
    )
    print("| figure | ours | baseline | ratio (lower is better) |")
    print("|---|---:|---:|---:|")
    ratios = {}
    for name, (ours, base, unit) in figures.items():
        ratios[name] = round(ratio(name, ours, base, unit), 3)
        print(f"| {name} | {ours:,.1f} {unit} | {base:,.1f} {unit} | {ratios[name]} |")
    if args.json:
        args.json.write_text(json.dumps({"ratios": ratios}, indent=2) + "\n")


if __name__ == "__main__":
    main()
