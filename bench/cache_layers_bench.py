"""Benchmark of the page cache's layers: each turned off in turn.

    make bench-layers                       # 20,000 sample documents
    make bench-layers BENCH_LAYERS_DOCUMENTS=100000

Fills its own database (BENCH_LAYERS_DATABASE_URL, default
anthology_bench_layers) with generate_sample, and serves it as `make serve`
does (gunicorn, 2 workers, DEBUG off, the Redis page cache in DB 7 under a key
prefix of this run's, VARNISH_URL set) on 127.0.0.1:8140, with varnishd and
the shipped VCL in front on 8141 and nginx serving the topic page's bytes as a
file on 8142. Each layer is measured on the figure it exists for, with the
layer and without it, in this one run:

- **the edge** (Varnish): the largest topic's cached first page, requests per
  second through Varnish against the site alone;
- **Redis generations** (the shared page cache, ``PAGE_CACHE``): the cached
  topic page and a document page, requests per second with the page cache
  against rendered live (``PAGE_CACHE=0``), through Varnish and without it;
- **the outbox's in-process fast path** (the changing process writes the new
  generations and purges the edge once its change commits): the time from a
  publication's commit to its document and topic pages answered fresh through
  Varnish, against the fallback alone (the expiry left to the outbox's drain,
  which an idle job worker runs every ``JOBS_CHORE_SECONDS``, due at once).

Requests per second are wrk's (2 threads, 16 connections, a client taking
gzip, as browsers do), the targets of a figure taking turns round after
round; the medians are compared. A layer that buys less than 1.3× on its own
figure does not earn its place. nginx serving the same bytes is the
reference. The figures go to bench/results/cache-layers.md; with ``--json
PATH`` the ratios go to PATH, each as the time with the layer against the
time without it (lower is better).
"""

import argparse
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

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "cache-layers.md"
SITE, FRONT, NGINX = 8140, 8141, 8142
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_layers"
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
PREFIX = f"anthology-bench-layers-{uuid.uuid4().hex[:8]}"
WORK = Path(tempfile.mkdtemp(prefix="anthology-bench-layers-"))
VCL = ROOT / "deploy" / "varnish" / "anthology.vcl"
EARNS = 1.3

os.environ["DATABASE_URL"] = os.environ.get("BENCH_LAYERS_DATABASE_URL", DEFAULT_URL)
os.environ["DJANGO_SETTINGS_MODULE"] = "anthology.settings"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
os.environ["STATIC_ROOT"] = str(WORK / "static")
os.environ["REDIS_URL"] = REDIS_URL
os.environ["CACHE_KEY_PREFIX"] = PREFIX
os.environ["PAGE_CACHE"] = "1"
os.environ["DEBUG"] = "0"
os.environ["VARNISH_URL"] = f"http://127.0.0.1:{FRONT}"
os.environ["PURGE_RETRY_PAUSES"] = "0.1,0.5,1"
# Every request comes from one address: readers' limits would answer the
# pages rendered live with 429s, and the live figures are the baselines.
os.environ["READER_SEARCH_RATE"] = os.environ["READER_PAGE_RATE"] = "1000000/minute"
sys.path.insert(0, str(ROOT))

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count, Q  # noqa: E402
from django.test import override_settings  # noqa: E402

import actions.documents  # noqa: E402
from bench.pg_database import ensure_database, fill_sample, listing_page  # noqa: E402
from bench.serving import (  # noqa: E402
    BROWSER,
    VARNISHD,
    get,
    require,
    shows,
    start_gunicorn,
    start_nginx,
    start_varnish,
    stop,
    wrk,
)
from catalogue.models import PUBLIC_STATUSES, Document, Topic  # noqa: E402
from pagecache import frontends, generations, outbox  # noqa: E402

# The site as `make serve` runs it, and each layer turned off.
CONFIGURATIONS = {
    "every layer": {},
    "no page cache": {"PAGE_CACHE": "0"},
}


def rates(pages, seconds, rounds):
    """Requests/s of each page, alone and through Varnish: the targets take
    turns, round after round, and the medians are kept."""
    targets = [(port, path) for path in pages.values() for port in (SITE, FRONT)]
    for port, path in targets:
        get(port, path, BROWSER), get(port, path, BROWSER)  # Kept where kept.
    measured = {target: [] for target in targets}
    for _ in range(rounds):
        for port, path in targets:
            measured[(port, path)].append(wrk(port, path, seconds, BROWSER))
    return {
        (kind, "varnish" if port == FRONT else "alone"): statistics.median(
            measured[(port, path)]
        )
        for kind, path in pages.items()
        for port in (SITE, FRONT)
    }


def fresh_after(document, user, n, pages):
    """Seconds from a revision's commit to each page showing it through Varnish."""
    for path in pages.values():
        get(FRONT, path, BROWSER), get(FRONT, path, BROWSER)
    title = f"[Sample] Revised for the layers benchmark {n} {uuid.uuid4().hex[:6]}"
    actions.documents.edit_document(
        document=document, user=user, changes={"title": title}, note="bench"
    )
    actions.documents.publish(document=document, user=user)
    committed = time.perf_counter()
    seen = {}
    deadline = committed + 60
    while len(seen) < len(pages) and time.perf_counter() < deadline:
        for kind, path in pages.items():
            if kind not in seen and shows(FRONT, path, title):
                seen[kind] = time.perf_counter() - committed
    return max(seen.values()) if len(seen) == len(pages) else 60.0


class Drain(threading.Thread):
    """An idle job worker's chore: the outbox drained every JOBS_CHORE_SECONDS."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.wait(settings.JOBS_CHORE_SECONDS):
            outbox.drain()
            connection.close()


def freshness(documents, user, fast):
    """Commit-to-fresh seconds of each publication, with the in-process fast
    path or with the outbox's drain alone."""
    seconds = []
    apply_now = generations._apply_now
    drain = None
    if not fast:
        # The fast path off: the expiry stays in the outbox, due at once,
        # for the drain to land.
        generations._apply_now = lambda pending: None
        drain = Drain()
        drain.start()
    try:
        with override_settings(PAGE_CACHE_OUTBOX_RETRY_SECONDS=0 if not fast else 60):
            for n, document in enumerate(documents):
                pages = {
                    "document": document.get_absolute_url(),
                    "topic": listing_page(
                        document.topic.get_absolute_url(),
                        Document.objects.public().filter(topic=document.topic),
                        document,
                    ),
                }
                seconds.append(fresh_after(document, user, n, pages))
    finally:
        generations._apply_now = apply_now
        if drain is not None:
            drain.stopped.set()
            drain.join()
    frontends.wait()
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=20_000)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--publications", type=int, default=10)
    parser.add_argument("--json", help="write the ratios to this file instead")
    args = parser.parse_args()
    require("wrk", VARNISHD)
    ensure_database()
    total = fill_sample(args.documents)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=ROOT,
        check=True,
    )
    user = get_user_model().objects.filter(is_superuser=True).first()
    if user is None:
        user = get_user_model().objects.create_superuser("bench-layers", "", None)
    topics = list(
        Topic.objects.annotate(
            n=Count("documents", filter=Q(documents__status__in=PUBLIC_STATUSES))
        ).order_by("-n", "position")
    )
    biggest = topics[0]
    document = (
        Document.objects.public().filter(topic=topics[-1]).order_by("number").first()
    )
    pages = {
        "topic": biggest.get_absolute_url(),
        "document": document.get_absolute_url(),
    }

    measured, nginx_rate, fresh = {}, None, {}
    for name, overrides in CONFIGURATIONS.items():
        site = start_gunicorn(SITE, overrides=overrides)
        front = start_varnish(FRONT, VCL, site=SITE, work=WORK)
        try:
            measured[name] = rates(pages, args.seconds, args.rounds)
            if name == "every layer":
                plain, _ = get(SITE, pages["topic"])
                zipped, _ = get(SITE, pages["topic"], BROWSER)
                nginx = start_nginx(NGINX, WORK, plain, zipped)
                if nginx is not None:
                    try:
                        nginx_rate = statistics.median(
                            wrk(NGINX, "/page.html", args.seconds, BROWSER)
                            for _ in range(args.rounds)
                        )
                    finally:
                        stop(nginx)
                published = list(
                    Document.objects.public()
                    .filter(topic__in=topics[1:])
                    .select_related("registry", "topic")
                    .order_by("?")[: 2 * args.publications]
                )
                fresh["with"] = freshness(
                    published[: args.publications], user, fast=True
                )
                fresh["without"] = freshness(
                    published[args.publications :], user, fast=False
                )
        finally:
            stop(front, site)
    report(
        total=total,
        biggest=biggest,
        measured=measured,
        nginx=nginx_rate,
        fresh=fresh,
        args=args,
    )


def report(*, total, biggest, measured, nginx, fresh, args):
    every = measured["every layer"]
    version = connection.cursor().connection.info.server_version
    rows, ratios = [], {}

    def row(layer, figure, with_layer, without, unit="req/s", inverse=False):
        ratio = without / with_layer if inverse else with_layer / without
        # As every benchmark's ratios: lower is better (with against without).
        ratios[f"{layer}: {figure}"] = 1 / ratio
        verdict = "earns its place" if ratio >= EARNS else "**does not earn it**"
        rows.append(
            f"| {layer} | {figure} | {with_layer:,.1f} {unit} | "
            f"{without:,.1f} {unit} | {ratio:.2f}× | {verdict} |"
        )

    for kind in ("topic", "document"):
        row(
            "the edge (Varnish)",
            f"cached {kind} page",
            every[(kind, "varnish")],
            every[(kind, "alone")],
        )
    for layer, name in [("Redis generations (page cache)", "no page cache")]:
        for kind in ("topic", "document"):
            for where, label in [("alone", "site alone"), ("varnish", "via Varnish")]:
                row(
                    layer,
                    f"cached {kind} page, {label}",
                    every[(kind, where)],
                    measured[name][(kind, where)],
                )
    with_fast, without_fast = (percentiles(fresh[k]) for k in ("with", "without"))
    for label, index in [("p50", 0), ("max", 1)]:
        row(
            "outbox fast path",
            f"publication → fresh pages via Varnish, {label}",
            with_fast[index] * 1000,
            without_fast[index] * 1000,
            unit="ms",
            inverse=True,
        )
    load = os.getloadavg()
    lines = [
        "# The page cache's layers, each turned off in turn",
        "",
        f"{total:,} documents on PostgreSQL {version // 10000}.{version % 100}, "
        "gunicorn with 2 workers (DEBUG off) on Redis, varnishd with the shipped "
        f"VCL in front; {platform.machine()}, {os.cpu_count()} CPUs, shared "
        f"(load average at the end {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}). "
        "Written by `make bench-layers`; every figure comes from this one run.",
        "",
        f"Pages: the largest topic's first page ({biggest.name}, {biggest.n:,} "
        "public documents) and a document's page. Requests/s by wrk (2 threads, "
        f"16 connections, gzip taken), median of {args.rounds} rounds of "
        f"{args.seconds} s taking turns. Freshness: {args.publications} "
        "publications each way, the time from the commit until the document's "
        "page and its topic's page both show the new title through Varnish.",
        "",
        "| layer | figure | with it | without it | buys | verdict |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
    ]
    if nginx:
        lines += [
            f"nginx serving the topic page's gzip bytes as a file: {nginx:,.0f} "
            f"req/s; through Varnish {every[('topic', 'varnish')] / nginx:.2f}× "
            f"nginx's rate, the site alone {every[('topic', 'alone')] / nginx:.2f}×.",
            "",
        ]
    text = "\n".join(lines)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"ratios": ratios}, indent=2))
    else:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(text, encoding="utf-8")


def percentiles(seconds):
    """The median and the slowest of ``seconds``."""
    return statistics.median(seconds), max(seconds)


if __name__ == "__main__":
    main()
