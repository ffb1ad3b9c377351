"""Benchmark of the shared cache in front: Varnish before gunicorn, purged by key.

    make bench-edge                         # 100,000 sample documents
    make bench-edge BENCH_DOCUMENTS=20000

Fills its own database (BENCH_EDGE_DATABASE_URL, default anthology_bench_edge)
with generate_sample, starts gunicorn as `make serve` does (2 workers, the
Redis page cache, VARNISH_URL set) on 127.0.0.1:8044 and varnishd with
deploy/varnish/anthology.vcl in front of it on 127.0.0.1:8045, and prints,
from this one run:

- the largest sample topic page through Varnish, requests per second with wrk
  (16 connections), against nginx serving the same bytes as a file (8046);
- application requests per 10,000 warm page views through Varnish (gunicorn's
  access log, counted);
- 100 publications of a revision (through the workflow, in this process, so
  its purges go out as the site's do): the time from the publication's commit
  to its document page and its topic page both fresh through Varnish, p50 and
  p99;
- the hit ratio through Varnish of the topic pages no publication touched.

The figures go to bench/results/edge.md.
"""

import argparse
import http.client
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "edge.md"
SITE, FRONT, NGINX = 8044, 8045, 8046
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_edge"
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
PREFIX = f"anthology-bench-edge-{uuid.uuid4().hex[:8]}"
WORK = Path(tempfile.mkdtemp(prefix="anthology-bench-edge-"))
VARNISHD = shutil.which("varnishd") or "/usr/sbin/varnishd"
NGINX_BIN = shutil.which("nginx") or "/usr/sbin/nginx"

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
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402
from django.test import override_settings  # noqa: E402

from catalogue.models import Document, Topic  # noqa: E402
from editorial import workflow  # noqa: E402
from pagecache import frontends  # noqa: E402


def ensure_database():
    import psycopg

    name = connection.settings_dict["NAME"]
    with psycopg.connect(
        "host=127.0.0.1 user=postgres dbname=postgres", autocommit=True
    ) as conn:
        found = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if not found:
            conn.execute(
                f"CREATE DATABASE \"{name}\" ENCODING 'UTF8' TEMPLATE template0"
            )


def fill(documents):
    # Nothing is in front yet: the sample's expiry purges nothing.
    with override_settings(PAGE_CACHE_FRONTENDS={}):
        call_command("migrate", verbosity=0)
        have = Document.objects.count()
        if have < documents:
            call_command("generate_sample", documents=documents - have)
    return Document.objects.count()


def wait_for(port, path="/"):
    for _ in range(300):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", path)
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing answers on port {port}")


def start_site(access_log):
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=ROOT,
        check=True,
    )
    return subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "anthology.wsgi",
            *("--bind", f"127.0.0.1:{SITE}", "--workers", "2"),
            *("--access-logfile", str(access_log)),
        ],
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
    )


def start_varnish():
    (WORK / "backend.vcl").write_text(
        f'backend default {{ .host = "127.0.0.1"; .port = "{SITE}"; '
        ".first_byte_timeout = 60s; }\n"
    )
    return subprocess.Popen(
        [
            *(VARNISHD, "-F", "-a", f"127.0.0.1:{FRONT}", "-n", str(WORK / "v")),
            *("-f", str(ROOT / "deploy" / "varnish" / "anthology.vcl")),
            *("-p", f"vcl_path={WORK}:{ROOT / 'deploy' / 'varnish'}"),
            *("-s", "malloc,512m", "-T", "none", "-j", "none"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def start_nginx(page):
    """nginx serving ``page``'s bytes as a file, or None without nginx."""
    if not Path(NGINX_BIN).exists():
        return None
    root = WORK / "nginx"
    root.mkdir()
    (root / "page.html").write_bytes(page)
    config = WORK / "nginx.conf"
    config.write_text(
        f"""daemon off; worker_processes 2; pid {WORK}/nginx.pid;
error_log {WORK}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; sendfile on; keepalive_requests 100000;
  server {{ listen 127.0.0.1:{NGINX}; root {root}; }} }}
"""
    )
    return subprocess.Popen([NGINX_BIN, "-c", str(config), "-e", str(WORK / "e.log")])


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    response = conn.getresponse()
    return response.read(), response.getheader("X-Cache")


def wrk(port, path, seconds):
    output = subprocess.run(
        ["wrk", "-t2", "-c16", f"-d{seconds}s", f"http://127.0.0.1:{port}{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1])


def warm_views(paths, views, access_log):
    """Application requests while ``views`` warm page views go through Varnish."""
    for path in paths:
        get(FRONT, path)
    before = len(access_log.read_text().splitlines())
    conn = http.client.HTTPConnection("127.0.0.1", FRONT, timeout=60)
    for n in range(views):
        conn.request("GET", paths[n % len(paths)])
        conn.getresponse().read()
    time.sleep(1)  # gunicorn writes its log line after the response.
    return len(access_log.read_text().splitlines()) - before


def publications(count, topics, user):
    """Seconds from each revision's commit to its pages fresh through Varnish."""
    latencies = []
    documents = list(
        Document.objects.public().filter(topic__in=topics).order_by("pk")[:count]
    )
    for n, document in enumerate(documents):
        pages = [document.get_absolute_url(), document.topic.get_absolute_url()]
        for path in pages:
            get(FRONT, path), get(FRONT, path)  # Kept by Varnish.
        title = f"[Sample] Revised for the edge benchmark {n} {uuid.uuid4().hex[:6]}"
        workflow.edit_document(
            document=document, user=user, changes={"title": title}, note="bench"
        )
        workflow.publish(document=document, user=user)
        committed = time.perf_counter()
        fresh = set()
        while len(fresh) < len(pages):
            for path in pages:
                if path not in fresh and title.encode() in get(FRONT, path)[0]:
                    fresh.add(path)
        latencies.append(time.perf_counter() - committed)
    frontends.wait()
    return latencies


def hit_ratio(paths):
    hits = sum(get(FRONT, path)[1] == "HIT" for path in paths)
    return hits / len(paths)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--publications", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    for tool in ["wrk", VARNISHD]:
        if not shutil.which(tool) and not Path(tool).exists():
            raise SystemExit(f"{tool} is missing: apt-get install wrk varnish")
    ensure_database()
    total = fill(args.documents)
    user = get_user_model().objects.filter(is_superuser=True).first()
    if user is None:
        user = get_user_model().objects.create_superuser("bench-edge", "", None)
    topics = list(
        Topic.objects.annotate(n=Count("documents")).order_by("-n", "position")
    )
    biggest = topics[0]
    access_log = WORK / "access.log"
    processes = [start_site(access_log), start_varnish()]
    try:
        wait_for(SITE, "/health/")
        wait_for(FRONT, "/health/")
        path = biggest.get_absolute_url()
        page, _ = get(FRONT, path)
        get(FRONT, path)
        nginx = start_nginx(page)
        if nginx is not None:
            processes.append(nginx)
            wait_for(NGINX, "/page.html")
        varnish_rps = wrk(FRONT, path, args.seconds)
        nginx_rps = wrk(NGINX, "/page.html", args.seconds) if nginx else None

        warm = [topic.get_absolute_url() for topic in topics[:10]]
        app_requests = warm_views(warm, 10_000, access_log)

        # Publications touch the first half of the topics; the rest stay put.
        touched, untouched = topics[: len(topics) // 2], topics[len(topics) // 2 :]
        untouched_paths = [topic.get_absolute_url() for topic in untouched]
        for untouched_path in untouched_paths:
            get(FRONT, untouched_path)
        latencies = publications(args.publications, touched, user)
        ratio = hit_ratio(untouched_paths)
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
    report(
        total=total,
        biggest=biggest,
        page=page,
        varnish_rps=varnish_rps,
        nginx_rps=nginx_rps,
        app_requests=app_requests,
        latencies=latencies,
        ratio=ratio,
        untouched=len(untouched_paths),
        seconds=args.seconds,
    )


def report(**figures):
    latencies = sorted(figures["latencies"])
    p99 = latencies[max(0, round(0.99 * len(latencies)) - 1)]
    nginx_rps = figures["nginx_rps"]
    versus = (
        f"{figures['varnish_rps'] / nginx_rps:.2f}× nginx serving the same bytes as "
        f"a file ({nginx_rps:,.0f}/s)"
        if nginx_rps
        else "nginx not installed: no comparison"
    )
    version = connection.cursor().connection.info.server_version
    lines = [
        "# Edge: Varnish in front, purged by key",
        "",
        f"{figures['total']:,} documents on PostgreSQL "
        f"{version // 10000}.{version % 100}, Redis page cache, "
        f"gunicorn with 2 workers behind varnishd "
        f"({subprocess.run([VARNISHD, '-V'], capture_output=True, text=True).stderr.splitlines()[0]}), "  # noqa: E501
        f"{platform.machine()}, {os.cpu_count()} CPUs. Written by `make bench-edge`; "
        "every figure comes from this one run.",
        "",
        f"- Cached topic page ({figures['biggest'].name}, "
        f"{figures['biggest'].n:,} rows, {len(figures['page']):,} bytes) through "
        f"Varnish, wrk with 16 connections for {figures['seconds']} s: "
        f"{figures['varnish_rps']:,.0f} requests/s, {versus}.",
        f"- Application requests per 10,000 warm page views through Varnish: "
        f"{figures['app_requests']}.",
        f"- Publication of a revision → its document page and topic page fresh "
        f"through Varnish, over {len(latencies)} publications: p50 "
        f"{statistics.median(latencies) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
        f"max {latencies[-1] * 1000:.0f} ms.",
        f"- Topic pages no publication touched ({figures['untouched']}), read "
        f"again after the publications: hit ratio {figures['ratio']:.0%} (a "
        "revision also purges the topics of the entries whose text names it, "
        "whose links say it has a newer version).",
        "",
    ]
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
