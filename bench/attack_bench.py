"""Benchmark of a search attack: fresh nonsense searches from several clients
at once against a reader's uncached pages, through varnishd.

    make bench-attack                           # 20,000 sample documents
    make bench-attack ATTACK_DOCUMENTS=5000 ATTACKERS=6

Fills its own database (BENCH_ATTACK_DATABASE_URL, default
anthology_bench_attack) with generate_sample, and runs the site as `make
serve` does behind a proxy (BEHIND_PROXY=1, two gunicorn web workers, the
health listener beside them, the Redis page cache) with varnishd and the
shipped VCL and probe (deploy/varnish/) in front. Then, in one run, for each
setting of the readers' limits (the defaults, and none at all, so that the
vocabulary alone is measured):

- quiet: a reader opens document pages no cache holds (a new document each
  time), one after another; the health probe's path is asked meanwhile;
- under attack: the same, while ``ATTACKERS`` clients, each from an address
  of its own (127.0.0.10, .11, … as Varnish sees them), send fresh
  three-word nonsense searches back to back: every one a page no cache
  holds, and one that finds nothing, so "Did you mean" runs each time.

It prints the reader's p50 and p90 quiet and under attack and their ratio
(the target: within 2×), the probe's p50 and worst answer on the health
listener, what the attackers were answered (200, 429), and how often the
probe's backend was sick; the figures go to bench/results/attack.md.
"""

import argparse
import http.client
import json
import os
import platform
import random
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "attack.md"
WEB, HEALTH, FRONT, ADMIN = 8064, 8065, 8066, 8067
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_attack"
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
PREFIX = f"anthology-bench-attack-{uuid.uuid4().hex[:8]}"
WORK = Path(tempfile.mkdtemp(prefix="anthology-bench-attack-"))
VARNISHD = shutil.which("varnishd") or "/usr/sbin/varnishd"
VARNISHADM = shutil.which("varnishadm") or "/usr/bin/varnishadm"
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))
# Between the reader's pages: a fast reader's pace, within the page limit.
READER_PAUSE = 0.3
# Readers' limits off: the attack reaches the web workers whole.
UNLIMITED = "1000000/minute"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_ATTACK_DATABASE_URL", DEFAULT_URL)
os.environ["DJANGO_SETTINGS_MODULE"] = "anthology.settings"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
os.environ["STATIC_ROOT"] = str(WORK / "static")
os.environ["REDIS_URL"] = REDIS_URL
os.environ["CACHE_KEY_PREFIX"] = PREFIX
os.environ["JOBS_QUEUE"] = PREFIX
os.environ["PAGE_CACHE"] = "1"
os.environ["DEBUG"] = "0"
os.environ["CONN_MAX_AGE"] = "60"
os.environ["BEHIND_PROXY"] = "1"
os.environ["VARNISH_URL"] = f"http://127.0.0.1:{FRONT}"
sys.path.insert(0, str(ROOT))

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import override_settings  # noqa: E402

from bench.pg_database import ensure_database  # noqa: E402
from catalogue.models import Document, Word  # noqa: E402


def fill(documents):
    with override_settings(PAGE_CACHE_FRONTENDS={}):
        call_command("migrate", verbosity=0)
        have = Document.objects.count()
        if have < documents:
            call_command("generate_sample", documents=documents - have)
        if not Word.objects.exists():
            call_command("rebuild_vocabulary", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return Document.objects.public().count(), Word.objects.count()


def ask(port, path, source="127.0.0.1"):
    """``(status, seconds)`` of one GET from the address ``source``."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=120, source_address=(source, 0)
    )
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        conn.close()


def wait_for(port, path="/health/"):
    for _ in range(600):
        try:
            if ask(port, path)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"nothing answers {path} on port {port}")


def start(rate):
    """The site behind varnishd, with readers' limits ``rate`` (None: the
    defaults)."""
    env = dict(os.environ)
    if rate:
        env["READER_SEARCH_RATE"] = env["READER_PAGE_RATE"] = rate
    backends = (
        (ROOT / "deploy" / "varnish" / "backend.vcl")
        .read_text()
        .replace('"8000"', f'"{WEB}"')
        .replace('"8001"', f'"{HEALTH}"')
    )
    (WORK / "backend.vcl").write_text(backends)
    secret = WORK / "secret"
    secret.write_text(secrets.token_hex(16))
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    name = f"v{uuid.uuid4().hex[:6]}"
    processes = [
        subprocess.Popen(
            [
                *(GUNICORN, "anthology.wsgi", "--bind", f"127.0.0.1:{WEB}"),
                *("--workers", "2"),
            ],
            cwd=ROOT,
            env=env,
            **quiet,
        ),
        subprocess.Popen(
            [
                *(GUNICORN, "anthology.health_wsgi", "--bind", f"127.0.0.1:{HEALTH}"),
                *("--workers", "1", "--threads", "4"),
            ],
            cwd=ROOT,
            env=env,
            **quiet,
        ),
        subprocess.Popen(
            [
                *(VARNISHD, "-F", "-a", f"0.0.0.0:{FRONT}", "-n", str(WORK / name)),
                *("-f", str(ROOT / "deploy" / "varnish" / "anthology.vcl")),
                *("-p", f"vcl_path={WORK}:{ROOT / 'deploy' / 'varnish'}"),
                *("-s", "malloc,256m", "-j", "none"),
                *("-T", f"127.0.0.1:{ADMIN}", "-S", str(secret)),
            ],
            **quiet,
        ),
    ]
    wait_for(WEB)
    wait_for(HEALTH)
    wait_for(FRONT)
    return processes, secret


def stop(processes):
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=30)


def backend_health(secret):
    listed = subprocess.run(
        [VARNISHADM, "-T", f"127.0.0.1:{ADMIN}", "-S", str(secret), "backend.list"],
        capture_output=True,
        text=True,
    ).stdout
    found = re.search(r"^\S*health\s+\S+\s+\S+\s+(\S+)", listed, re.MULTILINE)
    return found[1] if found else "unknown"


def nonsense(rng):
    letters = "bcdfghjklmnpqrstvwxz"
    return "+".join("".join(rng.choices(letters, k=7)) for _ in range(3))


def attacker(number, stop_at, answered):
    rng = random.Random(number)
    source = f"127.0.0.{10 + number}"
    while time.monotonic() < stop_at.value:
        try:
            status, _ = ask(FRONT, f"/search/?q={nonsense(rng)}", source)
        except OSError:
            status = "no answer"
        answered[status] += 1


class Deadline:
    value = float("inf")


def reader(paths, secret, seconds):
    """The reader's times and the probe's for ``seconds``, one request each
    in turn (a page of ``paths``, then the probe's path), and the backend's
    health as Varnish saw it meanwhile."""
    times, probes, states = [], [], Counter()
    stop_at = time.monotonic() + seconds
    while time.monotonic() < stop_at:
        path = next(paths)
        status, took = ask(FRONT, path)
        if status != 200:
            raise SystemExit(f"the reader got {status} for {path}")
        times.append(took)
        probes.append(ask(HEALTH, "/health/")[1])
        states[backend_health(secret)] += 1
        # A reader reads: well within READER_PAGE_RATE (300 a minute).
        time.sleep(READER_PAUSE)
    return times, probes, states


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(rate, paths, attackers, seconds):
    """Quiet for a third of ``seconds``, then under attack for the rest."""
    processes, secret = start(rate)
    try:
        for _ in range(10):
            ask(FRONT, next(paths))
        quiet = reader(paths, secret, seconds / 3)
        answered = Counter()
        deadline = Deadline()
        threads = [
            threading.Thread(target=attacker, args=(n, deadline, answered))
            for n in range(attackers)
        ]
        for thread in threads:
            thread.start()
        attacked = reader(paths, secret, seconds * 2 / 3)
        deadline.value = 0
        for thread in threads:
            thread.join()
        return quiet, attacked, answered
    finally:
        stop(processes)


def describe(name, quiet, attacked, answered):
    (q_times, q_probes, q_states), (a_times, a_probes, a_states) = quiet, attacked
    q50, a50 = statistics.median(q_times), statistics.median(a_times)
    probe50 = statistics.median(a_probes)
    return {
        "limits": name,
        "reader pages quiet / attack": f"{len(q_times)} / {len(a_times)}",
        "reader p50 quiet (ms)": f"{q50 * 1000:.1f}",
        "reader p50 under attack (ms)": f"{a50 * 1000:.1f}",
        "ratio": f"{a50 / q50:.2f}×",
        "reader p90 quiet / attack (ms)": f"{percentile(q_times, 0.9) * 1000:.0f} / "
        f"{percentile(a_times, 0.9) * 1000:.0f}",
        "probe p50 / worst under attack (ms)": f"{probe50 * 1000:.1f}"
        f" / {max(a_probes) * 1000:.1f}",
        "probe p50 quiet (ms)": f"{statistics.median(q_probes) * 1000:.1f}",
        "attack searches answered": ", ".join(
            f"{count} × {status}" for status, count in sorted(answered.items(), key=str)
        ),
        "backend sick (samples)": f"{(q_states + a_states)['sick']} of "
        f"{sum((q_states + a_states).values())}",
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=20_000)
    parser.add_argument("--attackers", type=int, default=6)
    parser.add_argument(
        "--seconds", type=int, default=180, help="each run: a third quiet"
    )
    parser.add_argument("--json", help="also write the ratios to this file")
    args = parser.parse_args()
    for address in range(10, 10 + args.attackers):
        with socket.socket() as probe:
            probe.bind((f"127.0.0.{address}", 0))  # Loopback holds 127/8.
    ensure_database()
    documents, words = fill(args.documents)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=ROOT,
        check=True,
    )
    public = Document.objects.public().select_related("registry").order_by("?")
    # Every page the reader opens is one no cache holds yet.
    paths = (document.get_absolute_url() for document in public.iterator())
    rows, ratios = [], {}
    for name, rate in [("the defaults", None), ("none", UNLIMITED)]:
        quiet, attacked, answered = run(rate, paths, args.attackers, args.seconds)
        rows.append(describe(name, quiet, attacked, answered))
        ratios[f"reader p50 attacked / quiet, limits {name}"] = round(
            statistics.median(attacked[0]) / statistics.median(quiet[0]), 3
        )
        print(rows[-1], flush=True)
    write(rows, documents, words, args)
    if args.json:
        Path(args.json).write_text(json.dumps({"ratios": ratios}))


def write(rows, documents, words, args):
    columns = list(rows[0])
    lines = [
        "# A search attack through Varnish",
        "",
        f"`make bench-attack` on {platform.node()} ({os.cpu_count()} cores), "
        f"{time.strftime('%Y-%m-%d')}: {documents:,} public documents, "
        f"{words:,} words in the vocabulary; two gunicorn web workers and the "
        f"health listener behind varnishd with the shipped VCL; "
        f"{args.attackers} attackers, each from its own address, sending fresh "
        "three-word nonsense searches back to back; the reader opens a new "
        f"document page each time, {args.seconds // 3} s quiet then "
        f"{args.seconds * 2 // 3} s under attack, the probe's path asked of the "
        "health listener after each. Readers' limits: the defaults "
        "(`READER_SEARCH_RATE` 60/minute a client), or none (the vocabulary "
        "alone). The machine is shared: its load is printed below.",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
        *("| " + " | ".join(row[column] for column in columns) + " |" for row in rows),
        "",
    ]
    lines.append(f"Load average at the end: {', '.join(map(str, os.getloadavg()))}.")
    lines.append("")
    RESULTS.write_text("\n".join(lines))
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
