"""Benchmark of serving, on PostgreSQL and Redis.

    make bench-serve                        # 100,000 sample documents
    make bench-serve BENCH_DOCUMENTS=20000

Fills its own database (BENCH_SERVE_DATABASE_URL, default
anthology_bench_serve) with generate_sample in steps (50, 1,000, a tenth,
all), measuring at each step what the targets compare, and prints every figure
as a ratio of two timings taken in this one run:

- a topic page of 1,000 rows rendered uncached, against fetching the same
  rows with plain psycopg and joining them into the same HTML (checked to be
  in the page), cross-references linked;
- that page from the cache through gunicorn, requests per second against a
  static file of the same bytes served by the same gunicorn and WhiteNoise;
- a 304 answer against a full uncached render, through gunicorn;
- a full-text search against the same search with the vector computed at
  query time; the search page's 95th percentile at all documents against a
  tenth (and the query's alone, which grows with the matches); the plan;
- the admin document list at all documents against 1,000;
- queries per page type at 50 documents and at all.

Gunicorn listens on 127.0.0.1:8036, Redis DB 7 under a prefix of this run's.
The figures go to bench/results/serving.md; with ``--json PATH`` (as `make
bench` runs it) the ratios go to PATH instead, each as ours against its
baseline, lower being better (requests per second turned into times).
"""

import argparse
import html
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "serving.md"
PORT = int(os.environ.get("BENCH_SERVE_PORT", "8036"))
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_serve"
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
PREFIX = f"anthology-bench-{uuid.uuid4().hex[:8]}"
STATIC_ROOT = Path(tempfile.mkdtemp(prefix="anthology-bench-static-"))

os.environ["DATABASE_URL"] = os.environ.get("BENCH_SERVE_DATABASE_URL", DEFAULT_URL)
os.environ["DJANGO_SETTINGS_MODULE"] = "anthology.settings"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
os.environ["STATIC_ROOT"] = str(STATIC_ROOT)
os.environ["REDIS_URL"] = REDIS_URL
os.environ["CACHE_KEY_PREFIX"] = PREFIX
os.environ["DEBUG"] = "0"
sys.path.insert(0, str(ROOT))

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.postgres.search import SearchQuery, SearchVector  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models.expressions import RawSQL  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from catalogue.citations import Citation, join_summary  # noqa: E402
from catalogue.models import Document  # noqa: E402
from catalogue.references import Target, find_names  # noqa: E402
from public.links import link_names  # noqa: E402
from public.structured import coins  # noqa: E402

SEARCHES = ["gradient compression", "sparse attention", "federated robust"]
SEARCHES += ["pipeline parallelism", "memory checkpointing", "quantised inference"]


def ensure_database():
    import psycopg

    name = os.environ["DATABASE_URL"].rsplit("/", 1)[1]
    with psycopg.connect(
        "host=127.0.0.1 user=postgres dbname=postgres", autocommit=True
    ) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name} ENCODING 'UTF8' TEMPLATE template0")
    call_command("migrate", verbosity=0)


def grow_to(n):
    have = Document.objects.count()
    if n > have:
        started = time.perf_counter()
        call_command("generate_sample", documents=n - have, seed=n, verbosity=0)
        print(f"generate_sample to {n:,}: {time.perf_counter() - started:.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def timed(fn, runs=7):
    """Median seconds of ``runs`` calls, after one to warm up."""
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def sample_topic():
    """The topic of the first public sample document: one with rows at 50
    documents, and with over 1,000 at 100,000 (each holds about 1/28)."""
    return (
        Document.objects.public()
        .filter(topic__slug__startswith="sample-topic-")
        .order_by("pk")
        .first()
        .topic
    )


def uncached_client():
    settings.PAGE_CACHE = False
    return Client()


# Figures


ROWS_SQL = """
    SELECT r.prefix, d.number, d.version, d.status, d.title, d.authors, d.year,
           d.source_identifier, d.citation_note, d.summary
    FROM catalogue_document d JOIN catalogue_registry r ON r.id = d.registry_id
    WHERE d.topic_id = %s AND d.status IN ('active', 'superseded', 'withdrawn')
    ORDER BY r.prefix, d.number LIMIT 1000
"""
TARGETS_SQL = """
    SELECT r.prefix, d.number, d.status, d.version,
           sr.prefix, s.number, s.status, s.version
    FROM catalogue_document d JOIN catalogue_registry r ON r.id = d.registry_id
    LEFT JOIN catalogue_document s ON s.id = d.superseded_by_id
    LEFT JOIN catalogue_registry sr ON sr.id = s.registry_id
    WHERE d.status IN ('active', 'superseded', 'withdrawn')
      AND r.prefix = ANY(%s) AND d.number = ANY(%s)
"""
PUBLIC = {"active", "superseded", "withdrawn"}
LABELS = {value: str(label) for value, label in Document.Status.choices}


def plain_rows(conn, topic_id):
    """The topic's table rows, from plain psycopg: two queries and f-strings.

    The same HTML as the page's rows, cross-references linked (with the pure
    functions the page uses to find and link them), so the comparison is of
    the same work.
    """
    e = html.escape
    rows = conn.execute(ROWS_SQL, [topic_id]).fetchall()
    texts = [join_summary(Citation(*row[5:9]), row[9]) for row in rows]
    names = {name.key for text in texts for name in find_names(text)}
    targets = {}
    found = conn.execute(
        TARGETS_SQL, [list({p for p, _ in names}), list({n for _, n in names})]
    )
    for prefix, number, status, version, *successor in found:
        if (prefix, number) not in names:
            continue
        after = None
        if successor[0] is not None and successor[2] in PUBLIC:
            label = f"{successor[0]}-{successor[1]:03d}"
            after = Target(
                label, f"/{label}/", successor[2], LABELS[successor[2]], successor[3]
            )
        label = f"{prefix}-{number:03d}"
        targets[(prefix, number)] = Target(
            label, f"/{label}/", status, LABELS[status], version, after
        )
    out = []
    for (prefix, number, version, status, title, *cited), text in zip(
        rows, texts, strict=True
    ):
        identifier = f"{prefix}-{number:03d}"
        label = f"{identifier} v{version}" if version > 1 else identifier
        # The bench's rows read the citation's fields only: their COinS say
        # what the citation does, of a work of a type not known.
        row = SimpleNamespace(
            title=title,
            citation=Citation(*cited[:4]),
            author_list=[],
            venue="",
            publication_type="",
            publication_date="",
            doi="",
        )
        usual = status == "active"
        out.append(
            ("<tr>\n" if usual else f'<tr class="status-{status}">\n')
            + f'      <td class="label"><a href="/{identifier}/">{e(label)}</a>'
            f'</td>\n      <td class="title"><a href="/{identifier}/">{e(title)}</a>'
            f"{coins(row)}</td>\n"
            f'      <td class="summary">{link_names(text, targets)}</td>\n'
            f'      <td class="status"><span class="'
            f'{"status-usual" if usual else "status-flag"}">'
            f"{e(LABELS[status])}</span></td>\n    </tr>\n    "
        )
    return len(rows), "".join(out)


def topic_page_against_psycopg(topic):
    import psycopg

    client = uncached_client()
    path = topic.get_absolute_url()
    page = client.get(path)
    assert page.status_code == 200
    django_time = timed(lambda: client.get(path))
    dsn = "host=127.0.0.1 user=postgres dbname=" + connection.settings_dict["NAME"]
    with psycopg.connect(dsn) as conn:
        count, rows = plain_rows(conn, topic.pk)
        assert rows in page.content.decode(), "the rows differ from the page's"
        plain_time = timed(lambda: plain_rows(conn, topic.pk))
    return django_time, plain_time, count


class Server:
    def __enter__(self):
        self.process = subprocess.Popen(
            [
                str(ROOT / ".venv" / "bin" / "gunicorn"),
                "anthology.wsgi",
                "--bind",
                f"127.0.0.1:{PORT}",
                "--workers",
                "2",
            ],
            cwd=ROOT,
            env={**os.environ, "PAGE_CACHE": "1"},
            stderr=subprocess.DEVNULL,
        )
        for _ in range(200):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT).connect()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("gunicorn did not start")

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=30)


def get(path, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
    conn.request("GET", path, headers=headers or {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), body


def throughput(path, headers=None, seconds=4.0, threads=2):
    """Requests per second from ``threads`` clients, one connection each."""
    done = []
    stop = time.perf_counter() + seconds

    def work():
        n = 0
        while time.perf_counter() < stop:
            get(path, headers)
            n += 1
        done.append(n)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(done) / (time.perf_counter() - started)


def compare(first, second, rounds=5, seconds=2.0):
    """Requests per second of two answers, measured in alternating rounds.

    Each is the median of its rounds, and the ratio the median of the
    rounds' ratios, so a burst of noise on the shared machine sways one
    round, not the figure.
    """
    a, b = [], []
    for _ in range(rounds):
        a.append(throughput(*first, seconds=seconds))
        b.append(throughput(*second, seconds=seconds))
    ratio = statistics.median(x / y for x, y in zip(a, b, strict=True))
    return statistics.median(a), statistics.median(b), ratio


def served_figures(topic):
    path = topic.get_absolute_url()
    page = Client().get(path).content  # The cache is off in this process.
    (STATIC_ROOT / "bench-page.html").write_bytes(page)
    with Server():
        status, headers, body = get(path)
        assert status == 200, status
        assert body == page
        etag = headers["ETag"]
        assert get(path, {"If-None-Match": etag})[0] == 304
        static = "/static/bench-page.html"
        assert get(static)[2] == body
        cached = compare((path,), (static,))
        # A session cookie (of nobody) makes every request a live render.
        not_modified = compare(
            (path, {"If-None-Match": etag}),
            (path, {"Cookie": "sessionid=none"}),
            rounds=3,
            seconds=3.0,
        )
    return len(body), cached, not_modified


def search_times(queryset_for, runs=5):
    times = []
    for query in SEARCHES:
        for _ in range(runs):
            started = time.perf_counter()
            list(queryset_for(query)[:50])
            times.append(time.perf_counter() - started)
    return times


def search_page_times(runs=5):
    """Seconds of the whole search page, uncached, for each search and run."""
    client = uncached_client()
    times = []
    for query in SEARCHES:
        assert client.get("/search/", {"q": query}).status_code == 200
        for _ in range(runs):
            started = time.perf_counter()
            client.get("/search/", {"q": query})
            times.append(time.perf_counter() - started)
    return times


def matches():
    """How many public documents each search matches."""
    return [indexed(query).count() for query in SEARCHES]


def indexed(query):
    """The public documents matching ``query`` through the index of their
    stored vectors (``document_search``'s)."""
    matches = RawSQL(
        "SELECT document_id FROM document_search "
        "WHERE search_vector @@ websearch_to_tsquery('english', %s)",
        [query],
    )
    return Document.objects.public().filter(pk__in=matches).values_list("pk")


def computed(query):
    q = SearchQuery(query, search_type="websearch", config="english")
    vector = SearchVector(
        "title",
        "authors",
        "source_identifier",
        "citation_note",
        "summary",
        config="english",
    )
    return Document.objects.public().annotate(v=vector).filter(v=q).values_list("pk")


def p95(times):
    return statistics.quantiles(times, n=20)[-1]


def admin_list_time():
    user, _ = User.objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    client = uncached_client()
    client.force_login(user)
    path = "/admin/catalogue/document/"
    assert client.get(path).status_code == 200
    return timed(lambda: client.get(path))


def query_counts(topic):
    client = uncached_client()
    document = Document.objects.public().filter(topic=topic).first()
    pages = {
        "full index": "/",
        "topic": topic.get_absolute_url(),
        "unfiled": "/unfiled/",
        "registry": "/registries/SLIT/",
        "document": document.get_absolute_url(),
        "search": "/search/?q=gradient",
        "feed": "/feed/",
    }
    counts = {}
    for name, path in pages.items():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(path).status_code == 200, path
        counts[name] = len(queries)
    admin = User.objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )[0]
    client.force_login(admin)
    client.get("/admin/")
    with CaptureQueriesContext(connection) as queries:
        client.get("/admin/catalogue/document/")
    counts["admin document list"] = len(queries)
    return counts


def explain(query):
    with connection.cursor() as cursor:
        sql, params = indexed(query).query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--json", help="write the ratios to this file instead")
    args = parser.parse_args()
    n = args.documents
    tenth = max(n // 10, 1000)
    ensure_database()
    call_command("collectstatic", interactive=False, verbosity=0)

    grow_to(50)
    topic = sample_topic()
    small_counts = query_counts(topic)
    grow_to(1000)
    admin_small = admin_list_time()
    grow_to(tenth)
    search_small = search_times(indexed)
    page_small = search_page_times()
    matches_small = matches()
    grow_to(n)
    big_counts = query_counts(topic)
    admin_big = admin_list_time()
    search_big = search_times(indexed)
    page_big = search_page_times()
    matches_big = matches()
    search_computed = search_times(computed, runs=1)
    plan = explain(SEARCHES[0])
    django_time, plain_time, rows = topic_page_against_psycopg(topic)
    size, cached, not_modified = served_figures(topic)

    median_indexed = statistics.median(search_big)
    median_computed = statistics.median(search_computed)
    figures = [
        (
            f"topic page of {rows:,} rows uncached vs plain psycopg + joined HTML",
            f"{django_time * 1000:.1f} ms vs {plain_time * 1000:.1f} ms",
            f"{django_time / plain_time:.1f}×",
            "≤ 5×",
        ),
        (
            f"that page ({size:,} bytes) from the cache vs a static file of the "
            "same bytes, gunicorn + WhiteNoise (median of 5 alternating rounds)",
            f"{cached[0]:,.0f} vs {cached[1]:,.0f} requests/s",
            f"{cached[2]:.2f}×",
            "≥ 0.8×",
        ),
        (
            "304 answer vs full uncached render, through gunicorn",
            f"{not_modified[0]:,.0f} vs {not_modified[1]:,.0f} requests/s",
            f"{not_modified[2]:.1f}×",
            "≥ 10×",
        ),
        (
            f"full-text search at {n:,}: indexed vector vs computed at query time "
            "(median)",
            f"{median_indexed * 1000:.1f} ms vs {median_computed * 1000:.1f} ms",
            f"{median_indexed / median_computed:.3f}×",
            "≤ 0.1×",
        ),
        (
            f"search page, 95th percentile at {n:,} vs {tenth:,} documents "
            "(uncached, what a reader waits for)",
            f"{p95(page_big) * 1000:.1f} ms vs {p95(page_small) * 1000:.1f} ms",
            f"{p95(page_big) / p95(page_small):.2f}×",
            "≤ 1.5×",
        ),
        (
            "its matching query alone (first 50 ids), 95th percentile, for "
            "reference: it grows with the matches, "
            f"{sum(matches_big):,} vs {sum(matches_small):,} over the searches",
            f"{p95(search_big) * 1000:.1f} ms vs {p95(search_small) * 1000:.1f} ms",
            f"{p95(search_big) / p95(search_small):.2f}×",
            "—",
        ),
        (
            f"admin document list at {n:,} vs 1,000 documents",
            f"{admin_big * 1000:.1f} ms vs {admin_small * 1000:.1f} ms",
            f"{admin_big / admin_small:.2f}×",
            "≤ 2×",
        ),
    ]
    figures.extend(
        (
            f"queries: {name}, at 50 vs {n:,} documents",
            f"{small_counts[name]} vs {big_counts[name]}",
            "equal" if small_counts[name] == big_counts[name] else "DIFFERENT",
            "equal",
        )
        for name in small_counts
    )
    searched = ", ".join(
        f"“{query}” {small:,} → {big:,}"
        for query, small, big in zip(SEARCHES, matches_small, matches_big, strict=True)
    )
    notes = [f"Matches of each search at {tenth:,} → {n:,} documents: {searched}."]
    ratios = {
        "topic page uncached / plain psycopg": django_time / plain_time,
        "cached page / static file of its bytes": 1 / cached[2],
        "304 answer / full uncached render": 1 / not_modified[2],
        "search indexed / computed at query time": median_indexed / median_computed,
        "search page p95, all / a tenth": p95(page_big) / p95(page_small),
        "search query p95, all / a tenth": p95(search_big) / p95(search_small),
        "admin document list, all / 1,000": admin_big / admin_small,
        **{
            f"queries: {name}, all / 50": big_counts[name] / small_counts[name]
            for name in small_counts
        },
    }
    report(n, figures, plan, notes, write=not args.json)
    if args.json:
        Path(args.json).write_text(json.dumps({"ratios": ratios}, indent=2))
    cleanup_redis()


def cleanup_redis():
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(f"{PREFIX}:*"))
    if keys:
        client.delete(*keys)


def report(n, figures, plan, notes, write=True):
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, PostgreSQL "
        f"{connection.cursor().connection.info.server_version}, "
        f"gunicorn 2 sync workers, Redis at {REDIS_URL}"
    )
    lines = [
        "# Serving benchmark",
        "",
        f"Sample record: {n:,} generated documents on PostgreSQL. Machine: "
        f"{machine}. Written by `make bench-serve`; each ratio compares two "
        "timings taken in the same run.",
        "",
        "| figure | measured | ratio | target |",
        "|---|---|---|---|",
        *(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in figures),
        "",
        *notes,
        "",
        f"Plan of the search “{SEARCHES[0]}”:",
        "",
        "```",
        plan,
        "```",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
