"""Benchmark of the shared cache in front: Varnish before gunicorn, purged by key.

    make bench-edge                         # 100,000 sample documents
    make bench-edge BENCH_DOCUMENTS=20000

Fills its own database (BENCH_EDGE_DATABASE_URL, default anthology_bench_edge)
with generate_sample, starts gunicorn as `make serve` does (2 workers, the
Redis page cache, VARNISH_URL set) on 127.0.0.1:8044, varnishd with
deploy/varnish/anthology.vcl in front of it on 8045, a stock varnishd with a
fixed lifetime in front of the same site on 8047 (the baseline the VCL must
not fall behind), and nginx serving the page's bytes as files on 8046, and
prints, from this one run:

- the largest sample topic's first page through Varnish, requests per second
  with wrk (16 connections), for a client that takes no gzip (wrk's default)
  and for one that does (as browsers do), against nginx serving the same bytes
  (the gzip ones by gzip_static) and against the stock Varnish: rounds
  alternate between the three, and the medians are compared;
- application requests per 10,000 warm page views through Varnish, half of
  them taking gzip (gunicorn's access log, counted);
- 100 publications of a revision (through the workflow, in this process, so
  its purges go out as the site's do): the time from the publication's commit
  to every page that shows the document fresh through Varnish (its page, the
  topic, registry and tag pages listing it, the site's and the topic's
  feeds), p50 and p99;
- the hit ratio through Varnish of the topic pages no publication touched.

The figures go to bench/results/edge.md; with ``--json PATH`` (as `make bench`
runs it) the ratios go to PATH instead, lower being better: requests per second
turned into times against nginx's and the stock Varnish's, application requests
per page view, and the share of untouched pages missed.
"""

import argparse
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "edge.md"
SITE, FRONT, NGINX, STOCK = 8044, 8045, 8046, 8047
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_edge"
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
PREFIX = f"anthology-bench-edge-{uuid.uuid4().hex[:8]}"
WORK = Path(tempfile.mkdtemp(prefix="anthology-bench-edge-"))

os.environ["DATABASE_URL"] = os.environ.get("BENCH_EDGE_DATABASE_URL", DEFAULT_URL)
os.environ["DJANGO_SETTINGS_MODULE"] = "anthology.settings"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
os.environ["STATIC_ROOT"] = str(WORK / "static")
os.environ["REDIS_URL"] = REDIS_URL
os.environ["CACHE_KEY_PREFIX"] = PREFIX
os.environ["PAGE_CACHE"] = "1"
os.environ["DEBUG"] = "0"
os.environ["VARNISH_URL"] = f"http://127.0.0.1:{FRONT}"
os.environ["PURGE_RETRY_PAUSES"] = "0.1,0.5,1"
sys.path.insert(0, str(ROOT))

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count, Q  # noqa: E402
from django.urls import reverse  # noqa: E402

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
from pagecache import frontends  # noqa: E402
from public.views import ROWS_PER_PAGE  # noqa: E402


def start_site(access_log):
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=ROOT,
        check=True,
    )
    return start_gunicorn(SITE, access_log=access_log)


def start_fronts():
    """varnishd with the site's VCL, and a stock one keeping every page for
    an hour, both in front of the site."""
    stock = WORK / "stock.vcl"
    stock.write_text(
        'vcl 4.1;\ninclude "backend.vcl";\n'
        "sub vcl_backend_response { set beresp.ttl = 1h; }\n"
    )
    vcl = ROOT / "deploy" / "varnish" / "anthology.vcl"
    return [
        start_varnish(FRONT, vcl, site=SITE, work=WORK),
        start_varnish(STOCK, stock, site=SITE, work=WORK),
    ]


def throughput(targets, seconds, rounds):
    """Median requests/s of each ``(name, port, path, accept_encoding)``, the
    targets taking turns round after round, so that a busy moment of the
    machine falls on all of them."""
    measured = {target: [] for target in targets}
    for _ in range(rounds):
        for target in targets:
            _, port, path, accept_encoding = target
            measured[target].append(wrk(port, path, seconds, accept_encoding))
    return {target: statistics.median(values) for target, values in measured.items()}


def warm_views(paths, views, access_log):
    """Application requests while ``views`` warm page views go through Varnish,
    every other one from a client taking gzip."""
    encodings = [None, BROWSER]
    for path in paths:
        for accept_encoding in encodings:
            get(FRONT, path, accept_encoding)
    before = len(access_log.read_text().splitlines())
    conn = http.client.HTTPConnection("127.0.0.1", FRONT, timeout=60)
    for n in range(views):
        accept_encoding = encodings[n % 2]
        headers = {"Accept-Encoding": accept_encoding} if accept_encoding else {}
        conn.request("GET", paths[(n // 2) % len(paths)], headers=headers)
        conn.getresponse().read()
    time.sleep(1)  # gunicorn writes its log line after the response.
    return len(access_log.read_text().splitlines()) - before


def pages_showing(document):
    """Every page that shows ``document``'s title, by kind: its own, the lists
    holding it (at the page listing it), the feeds."""
    public = Document.objects.public()
    topic = document.topic
    pages = {
        "document": document.get_absolute_url(),
        "topic": listing_page(
            topic.get_absolute_url(), public.filter(topic=topic), document
        ),
        "registry": listing_page(
            document.registry.get_absolute_url(),
            public.filter(registry=document.registry),
            document,
        ),
        "site feed": reverse("catalogue:feed"),
        "topic feed": reverse("catalogue:topic-feed", args=[topic.slug]),
    }
    tag = document.tags.order_by("name").first()
    if tag is not None:
        path = reverse("catalogue:tag-detail", args=[tag.slug])
        pages["tag"] = listing_page(path, public.filter(tags=tag), document)
    return pages


def fresh_at(path, text):
    """When a reader asking for ``path`` again and again is first answered
    with a page showing ``text``."""
    while not shows(FRONT, path, text):
        pass
    return time.perf_counter()


def publications(count, topics, user):
    """For each revision, seconds from its commit to each page showing it
    answered fresh through Varnish, by kind of page: a reader per page asks
    again and again, all at once, as readers do."""
    published = []
    documents = list(
        Document.objects.public()
        .filter(topic__in=topics)
        .select_related("registry", "topic")
        .order_by("?")[:count]
    )
    with ThreadPoolExecutor(max_workers=8) as readers:
        for n, document in enumerate(documents):
            pages = pages_showing(document)
            for path in pages.values():
                get(FRONT, path, BROWSER), get(FRONT, path, BROWSER)  # Kept.
            title = (
                f"[Sample] Revised for the edge benchmark {n} {uuid.uuid4().hex[:6]}"
            )
            actions.documents.edit_document(
                document=document, user=user, changes={"title": title}, note="bench"
            )
            actions.documents.publish(document=document, user=user)
            committed = time.perf_counter()
            fresh = {
                kind: readers.submit(fresh_at, path, title)
                for kind, path in pages.items()
            }
            published.append(
                {kind: future.result() - committed for kind, future in fresh.items()}
            )
    frontends.wait()
    return published


def hit_ratio(paths):
    hits = sum(get(FRONT, path)[1] == "HIT" for path in paths)
    return hits / len(paths)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--publications", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write the ratios to this file instead")
    args = parser.parse_args()
    require("wrk", VARNISHD)
    ensure_database()
    total = fill_sample(args.documents)
    user = get_user_model().objects.filter(is_superuser=True).first()
    if user is None:
        user = get_user_model().objects.create_superuser("bench-edge", "", None)
    topics = list(
        Topic.objects.annotate(
            n=Count("documents", filter=Q(documents__status__in=PUBLIC_STATUSES))
        ).order_by("-n", "position")
    )
    biggest = topics[0]
    access_log = WORK / "access.log"
    processes = [start_site(access_log), *start_fronts()]
    try:
        path = biggest.get_absolute_url()
        for port in FRONT, STOCK:
            for accept_encoding in None, BROWSER:
                get(port, path, accept_encoding)
        plain, _ = get(FRONT, path)
        zipped, _ = get(FRONT, path, BROWSER)
        servers = [("ours", FRONT, path), ("stock", STOCK, path)]
        nginx = start_nginx(NGINX, WORK, plain, zipped)
        if nginx is not None:
            processes.append(nginx)
            servers.append(("nginx", NGINX, "/page.html"))
        targets = [
            (name, port, target_path, accept_encoding)
            for accept_encoding in [None, BROWSER]
            for name, port, target_path in servers
        ]
        rates = throughput(targets, args.seconds, args.rounds)

        warm = [topic.get_absolute_url() for topic in topics[:10]]
        app_requests = warm_views(warm, 10_000, access_log)

        # Publications touch the first half of the topics; the rest stay put.
        touched, untouched = topics[: len(topics) // 2], topics[len(topics) // 2 :]
        untouched_paths = [topic.get_absolute_url() for topic in untouched]
        for untouched_path in untouched_paths:
            get(FRONT, untouched_path)
        published = publications(args.publications, touched, user)
        ratio = hit_ratio(untouched_paths)
    finally:
        stop(*reversed(processes))
    report(
        total=total,
        biggest=biggest,
        plain=plain,
        zipped=zipped,
        rates={
            (name, accept_encoding): rate
            for (name, _, _, accept_encoding), rate in rates.items()
        },
        app_requests=app_requests,
        published=published,
        ratio=ratio,
        untouched=len(untouched_paths),
        seconds=args.seconds,
        rounds=args.rounds,
        json_path=args.json,
    )


def percentiles(seconds):
    """p50, p99 and max of ``seconds``, in milliseconds."""
    ordered = sorted(seconds)
    p99 = ordered[max(0, round(0.99 * len(ordered)) - 1)]
    return statistics.median(ordered) * 1000, p99 * 1000, ordered[-1] * 1000


def report(**figures):
    rates = figures["rates"]
    version = connection.cursor().connection.info.server_version
    varnish = subprocess.run([VARNISHD, "-V"], capture_output=True, text=True)
    rows = []
    for accept_encoding, client, body in [
        (None, "takes no gzip (wrk's default)", figures["plain"]),
        (BROWSER, f"takes gzip (`{BROWSER}`)", figures["zipped"]),
    ]:
        ours = rates[("ours", accept_encoding)]
        stock = rates[("stock", accept_encoding)]
        nginx = rates.get(("nginx", accept_encoding))
        rows.append(
            f"| {client} | {len(body):,} | {ours:,.0f} | {stock:,.0f} | "
            + (f"{nginx:,.0f} | **{ours / nginx:.2f}×** | " if nginx else "— | — | ")
            + f"{ours / stock:.2f}× |"
        )
    published = figures["published"]
    every = percentiles([max(pages.values()) for pages in published])
    kinds = {kind: [] for pages in published for kind in pages}
    for pages in published:
        for kind, seconds in pages.items():
            kinds[kind].append(seconds)
    pages_each = sum(map(len, published)) / len(published)
    lines = [
        "# Edge: Varnish in front, purged by key",
        "",
        f"{figures['total']:,} documents on PostgreSQL "
        f"{version // 10000}.{version % 100}, Redis page cache, "
        f"gunicorn with 2 workers behind varnishd "
        f"({varnish.stderr.splitlines()[0]}), "
        f"{platform.machine()}, {os.cpu_count()} CPUs. Written by `make bench-edge`; "
        "every figure comes from this one run.",
        "",
        "## A cached page through Varnish",
        "",
        f"The first page of the largest topic ({figures['biggest'].name}, "
        f"{figures['biggest'].n:,} public documents, {ROWS_PER_PAGE:,} rows a "
        f"page), requests/s with wrk (2 threads, 16 connections), median of "
        f"{figures['rounds']} rounds of {figures['seconds']} s taking turns: "
        "through Varnish with `deploy/varnish/` (ours), through a stock Varnish "
        "keeping every page for an hour, and from nginx serving the same bytes "
        "as a file (sendfile, 2 workers; the gzip bytes by `gzip_static`).",
        "",
        "| client | bytes | ours | stock Varnish | nginx | ours ÷ nginx | "
        "ours ÷ stock |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        "A stock Varnish keeps the gzip copy only and unpacks it for every "
        "client that takes no gzip; ours keeps a plain copy too.",
        "",
        "## Purged on publication",
        "",
        f"- Application requests per 10,000 warm page views through Varnish "
        f"(half of them taking gzip): {figures['app_requests']}.",
        f"- Publication of a revision → every page showing it answered fresh "
        f"through Varnish, over {len(published)} publications "
        f"({pages_each:.1f} pages each, a reader per page asking again and "
        "again, all at once): p50 {:.0f} ms, p99 {:.0f} ms, max {:.0f} ms.".format(
            *every
        ),
        "  By page (p50 / p99 / max, ms): "
        + "; ".join(
            f"{kind} {{:.0f}} / {{:.0f}} / {{:.0f}}".format(*percentiles(seconds))
            for kind, seconds in kinds.items()
        )
        + ".",
        f"- Topic pages no publication touched ({figures['untouched']}), read "
        f"again after the publications: hit ratio {figures['ratio']:.0%} (a "
        "revision also purges the topics of the entries whose text names it, "
        "whose links say it has a newer version).",
        "",
    ]
    print("\n".join(lines))
    if not figures["json_path"]:
        RESULTS.write_text("\n".join(lines))
        return
    ratios = {
        "app requests per warm page view": figures["app_requests"] / 10_000,
        "untouched topic pages missed": 1 - figures["ratio"],
    }
    for accept_encoding, client in [(None, "plain"), (BROWSER, "gzip")]:
        ours = rates[("ours", accept_encoding)]
        ratios[f"cached page via Varnish / stock Varnish, {client}"] = (
            rates[("stock", accept_encoding)] / ours
        )
        if nginx := rates.get(("nginx", accept_encoding)):
            ratios[f"cached page via Varnish / nginx, {client}"] = nginx / ours
    Path(figures["json_path"]).write_text(json.dumps({"ratios": ratios}, indent=2))


if __name__ == "__main__":
    main()
