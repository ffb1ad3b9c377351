"""Benchmark of the statistics page, rendered uncached, on PostgreSQL.

    make bench-stats                       # 100,000 sample documents
    make bench-stats BENCH_DOCUMENTS=20000
    .venv/bin/python bench/stats_bench.py --documents 1000 --json /tmp/stats.json

Fills its own database (BENCH_DATABASE_URL, default anthology_stats_bench)
with generate_sample, then times, best of ``--repeat`` runs each, in this one
process and run:

- the statistics page, asked through Django's test client with the page
  cache off (every query and every chart drawn, as on the first request
  after a publication);
- its baseline: the very SQL the page ran, captured and sent again through
  psycopg, with nothing drawn or rendered;
- a topic page (the busiest sample topic), uncached, and its chart's one
  query alone, for the chart's share of that page.

Ratios (lower is better) go to ``--json`` as ``{"ratios": {...}}`` and every
figure to bench/results/stats.md.
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
RESULTS = RESULTS_DIR / "stats.md"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_stats_bench"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
os.environ.setdefault("PAGE_CACHE", "0")
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


def page_and_its_sql(client, path):
    """Ask for ``path`` once; return the SQL it ran, as PostgreSQL got it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return [query["sql"] for query in captured.captured_queries]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="where to write the ratios")
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    import psycopg
    from django.db.models import Count
    from django.test import Client, override_settings

    from catalogue.models import Document, Topic
    from public.statistics import topic_year_figure

    fill(args.documents)
    client = Client()
    busiest = (
        Document.objects.public()
        .exclude(topic=None)
        .values("topic")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .first()["topic"]
    )
    topic = Topic.objects.get(pk=busiest)
    statistics, topic_page = "/statistics/", topic.get_absolute_url()
    public = Document.objects.public().count()

    from django.conf import settings

    # Static addresses without the collected manifest: nothing is collected.
    storages = {
        **settings.STORAGES,
        "staticfiles": {
            "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        },
    }
    with override_settings(PAGE_CACHE=False, DEBUG=False, STORAGES=storages):
        sql = page_and_its_sql(client, statistics)
        dsn = (
            "host=127.0.0.1 user=postgres dbname="
            + (os.environ["DATABASE_URL"].rsplit("/", 1)[1])
        )
        with psycopg.connect(dsn) as raw:

            def baseline():
                for query in sql:
                    raw.execute(query).fetchall()

            page = best(args.repeat, lambda: client.get(statistics))
            queries = best(args.repeat, baseline)
        topic_time = best(args.repeat, lambda: client.get(topic_page))
        chart_time = best(args.repeat, lambda: topic_year_figure(topic))

    ratios = {
        "statistics_page_over_its_sql": round(page / queries, 3),
        "topic_chart_share_of_topic_page": round(chart_time / topic_time, 3),
    }
    lines = [
        "# The statistics page, rendered uncached",
        "",
        f"{args.documents:,} sample documents ({public:,} public), PostgreSQL, "
        f"best of {args.repeat} runs each, in one process (`make bench-stats`). "
        "The machine was shared with other work while it ran: read the ratios, "
        "which were measured side by side, rather than the times.",
        "",
        "| what | time |",
        "|---|---:|",
        f"| statistics page, uncached ({len(sql)} queries) | {page * 1000:,.1f} ms |",
        f"| the same SQL through psycopg, nothing drawn | {queries * 1000:,.1f} ms |",
        f"| a topic page ({topic.name}), uncached | {topic_time * 1000:,.1f} ms |",
        f"| that topic's chart alone (its query, drawn) | {chart_time * 1000:,.1f} ms "
        "|",
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
