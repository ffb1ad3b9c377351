"""Load and faults: 64 clients against the production server.

Three phases against gunicorn on PostgreSQL with the Redis cache, each with
the same mix of topic pages, document pages and searches:

1. steady load for ``--seconds`` (60): errors, throughput, p99 latency;
2. PostgreSQL restarted halfway through: requests may fail only while it is
   down; afterwards none fails, and throughput over the 30 seconds after it
   is back is compared with the 30 seconds before it went down;
3. Redis stopped halfway through: pages keep coming from the database, and
   the cache fills again once Redis is back.

Then three hostile ones, which restart nothing:

4. citation downloads under load: a cached topic page's median latency for
   one reader alone, then while four clients download a search's citations
   with no query (each with a year filter of its own, so the cache cannot
   answer): a download holds a thousand entries at most;
5. cache flooding: clients request topic pages with a random ``utm_source``
   each; the new entries in Redis per thousand requests say whether unknown
   parameters make new cached pages;
6. slow clients: more half-sent requests than gunicorn has workers, held
   open, then one reader's requests for ``--seconds / 2``: sent to gunicorn
   directly, then through varnishd with the production VCL
   (deploy/varnish/), which buffers requests before they reach a worker.

7. hostile work through Varnish: one reader's page times (a topic page and
   a search, alternately) through varnishd with the production VCL, quiet,
   then while four clients ask for a decision whose body is a 2.2 MB
   Markdown table (with a made-up ``sessionid``, which skips both caches),
   while four editors' lookups wait on a metadata service that drips a byte
   a second (a local fake), and in front of an instance whose Redis accepts
   and never answers; each against the quiet figure of the same run.

Phases 2 and 3 restart this machine's PostgreSQL and Redis, so run them on a
machine of their own (not while tests run); ``--phases
downloads,flood,slow,hostile`` runs only the hostile ones. Figures go to
bench/results/load.md, those of some phases to load-<phases>.md beside it.

    make bench-load            # or: python bench/load_faults.py --seconds 60
"""

import argparse
import http.client
import os
import platform
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "load.md"
PORT = 8050
SLOW_FRONT = 8051
REDIS_URL = "redis://127.0.0.1:6379/7"
REDIS_START = [
    "redis-server",
    "--daemonize", "yes",
    "--bind", "127.0.0.1", "-::1",
    "--port", "6379",
    "--save", "",
    "--appendonly", "no",
    "--dir", "/var/lib/redis",
    "--logfile", "/var/log/redis/ci.log",
]  # fmt: skip


def pg_cluster():
    version = sorted(os.listdir("/etc/postgresql"))[-1]
    return ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main"]


def run(*command, env=None):
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)


def prepare(database_url, documents):
    """A database of its own, migrated and filled with sample documents."""
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres") as conn:
        conn.autocommit = True
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": database_url}
    run(PYTHON, "manage.py", "migrate", "--no-input", env=env)
    run(
        PYTHON,
        "manage.py",
        "import_index",
        "seeds/000_173d26dda2e0601e.txt",
        env=env,
    )
    run(PYTHON, "manage.py", "generate_sample", "--documents", str(documents), env=env)
    with psycopg.connect(database_url) as conn:
        topics = [row[0] for row in conn.execute("SELECT slug FROM catalogue_topic")]
        documents = [
            f"{prefix}-{number:03d}"
            for prefix, number in conn.execute(
                "SELECT r.prefix, d.number FROM catalogue_document d "
                "JOIN catalogue_registry r ON r.id = d.registry_id "
                "WHERE d.status IN ('active', 'superseded', 'withdrawn') "
                "ORDER BY random() LIMIT 2000"
            )
        ]
    words = [
        "sharding",
        "checkpointing",
        "gradient",
        '"pipeline parallelism"',
        "memory -offload",
        "diloco or zero",
        "communication",
        "attention",
    ]
    return (
        [f"/topics/{slug}/" for slug in topics],
        [f"/{identifier}/" for identifier in documents],
        [f"/search/?q={word.replace(' ', '+')}" for word in words],
    )


class Load:
    """``clients`` threads requesting the mix until stopped; every answer kept
    as (finished at, seconds taken, ok)."""

    def __init__(self, clients, paths, weights=(4, 4, 2), expected=200):
        self.clients, self.paths, self.weights = clients, paths, list(weights)
        self.expected = expected
        self.results, self.lock = [], threading.Lock()
        self.stopping = threading.Event()

    def client(self, seed):
        chooser = random.Random(seed)
        connection = None
        while not self.stopping.is_set():
            kind = chooser.choices(self.paths, weights=self.weights)[0]
            path = chooser.choice(kind)
            started = time.perf_counter()
            ok = False
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(
                        "127.0.0.1", PORT, timeout=30
                    )
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                ok = response.status == self.expected
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
                    connection = None
            except OSError:
                if connection is not None:
                    connection.close()
                connection = None
            finished = time.perf_counter()
            with self.lock:
                self.results.append((finished, finished - started, ok))
            if not ok:
                time.sleep(0.05)  # A failing server is not hammered in a loop.

    def __enter__(self):
        self.started = time.perf_counter()
        self.threads = [
            threading.Thread(target=self.client, args=(n,), daemon=True)
            for n in range(self.clients)
        ]
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for thread in self.threads:
            thread.join(60)

    def window(self, start, end):
        """(requests, errors, throughput, p99 seconds) between two offsets."""
        rows = [
            (took, ok)
            for finished, took, ok in self.results
            if start <= finished - self.started < end
        ]
        errors = sum(1 for _, ok in rows if not ok)
        times = sorted(took for took, ok in rows if ok)
        p99 = times[int(len(times) * 0.99) - 1] if times else float("nan")
        return len(rows), errors, (len(rows) - errors) / (end - start), p99

    def median(self):
        times = sorted(took for _, took, ok in self.results if ok)
        return times[len(times) // 2] if times else float("nan")

    def failures(self):
        return [finished - self.started for finished, _, ok in self.results if not ok]


def start_server(database_url, workers, port=PORT, redis_url=REDIS_URL):
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        # Metadata lookups go to the dripping fake of phase 7.
        "METADATA_ARXIV_URL": f"http://127.0.0.1:{DRIP_PORT}/api/query",
        "METADATA_CROSSREF_URL": f"http://127.0.0.1:{DRIP_PORT}/crossref",
        "DEBUG": "0",
        "SECRET_KEY": "load-test-" + "k" * 50,
        "CONN_MAX_AGE": "60",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    run(PYTHON, "manage.py", "collectstatic", "--no-input", env=env)
    server = subprocess.Popen(
        [str(Path(PYTHON).with_name("gunicorn")), "anthology.wsgi",
         "--workers", str(workers), "--bind", f"127.0.0.1:{port}",
         "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    for _ in range(100):
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=2).request("GET", "/")
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not start")


def wait_for_postgresql():
    for _ in range(300):
        if subprocess.run(["pg_isready", "-h", "127.0.0.1", "-q"]).returncode == 0:
            return
        time.sleep(0.1)


def downloads_under_load(topic, seconds):
    """Table rows: a cached topic page's median latency alone, then beside
    four clients downloading whole-record citation files."""
    with Load(1, [[topic]], weights=[1]) as alone:
        time.sleep(seconds)
    downloads = [
        f"/search/cite.{fmt}?year_from={year}"
        for fmt in ("json", "bib", "ris")
        for year in range(1000, 2000)
    ]
    with (
        Load(4, [downloads], weights=[1]) as attack,
        Load(1, [[topic]], weights=[1]) as beside,
    ):
        time.sleep(seconds)
    return [
        f"| topic page alone, median | {len(alone.results)} | "
        f"{len(alone.failures())} | — | {alone.median() * 1000:.1f} ms |",
        f"| topic page beside 4 download clients, median | {len(beside.results)} | "
        f"{len(beside.failures())} | {beside.median() / alone.median():.1f}× alone | "
        f"{beside.median() * 1000:.1f} ms |",
        f"| whole-record citation downloads, median | {len(attack.results)} | "
        f"{len(attack.failures())} | {len(attack.results) / seconds:.0f}/s | "
        f"{attack.median() * 1000:.0f} ms |",
    ]


def redis_keys():
    result = subprocess.run(
        ["redis-cli", "-n", REDIS_URL.rsplit("/", 1)[1], "dbsize"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(result.stdout.strip())


def cache_flood(topics, seconds):
    """A table row: new cache entries per thousand requests that each carry a
    random ``utm_source``."""
    flood = [
        f"{topic}?utm_source={random.getrandbits(64):x}"
        for topic in topics[:5]
        for _ in range(4000)
    ]
    before = redis_keys()
    # Answered by a redirect to the page without the parameter.
    with Load(8, [flood], weights=[1], expected=301) as load:
        time.sleep(seconds)
    grown = redis_keys() - before
    requests = len(load.results)
    return [
        f"| cache flood, random utm_source | {requests} | {len(load.failures())} | "
        f"{grown * 1000 / max(requests, 1):.0f} new entries per 1,000 requests, "
        f"{requests / seconds:.0f}/s | "
        f"{load.median() * 1000:.0f} ms median |"
    ]


def start_varnish(work):
    """varnishd with the production VCL in front of the site, on SLOW_FRONT."""
    (work / "backend.vcl").write_text(
        f'backend default {{ .host = "127.0.0.1"; .port = "{PORT}"; }}\n'
    )
    varnishd = shutil.which("varnishd") or "/usr/sbin/varnishd"
    return subprocess.Popen(
        [
            *(varnishd, "-F", "-a", f"127.0.0.1:{SLOW_FRONT}", "-n", str(work / "v")),
            *("-f", str(ROOT / "deploy" / "varnish" / "anthology.vcl")),
            *("-p", f"vcl_path={work}:{ROOT / 'deploy' / 'varnish'}"),
            *("-s", "malloc,256m", "-T", "none", "-j", "none"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def reader_beside_slow_clients(port, path, slow_clients, seconds):
    """(answered, failed, median seconds) of one reader's requests to
    ``port`` while ``slow_clients`` half-sent requests are held open."""
    held = []
    for _ in range(slow_clients):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0".encode())
        held.append(connection)
    answered, failed, times = 0, 0, []
    deadline = time.perf_counter() + seconds
    try:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", path)
                ok = connection.getresponse().status == 200
                connection.close()
            except OSError:
                ok = False
            answered, failed = answered + ok, failed + (not ok)
            if ok:
                times.append(time.perf_counter() - started)
    finally:
        for connection in held:
            connection.close()
    times.sort()
    return answered, failed, times[len(times) // 2] if times else float("nan")


def slow_clients(args, topic):
    slow = args.workers * 4
    work = Path(tempfile.mkdtemp(prefix="bench-slow-"))
    varnish = start_varnish(work)
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", SLOW_FRONT, timeout=2).request(
                    "GET", topic
                )
                break
            except OSError:
                time.sleep(0.1)
        rows = []
        for label, port in [
            ("to gunicorn directly", PORT),
            ("through Varnish", SLOW_FRONT),
        ]:
            seconds = args.seconds / 2
            answered, failed, median = reader_beside_slow_clients(
                port, topic, slow, seconds
            )
            rows.append(
                f"| a reader beside {slow} slow clients, {label} | "
                f"{answered + failed} | {failed} | {answered / seconds:.1f}/s | "
                f"{median * 1000:.0f} ms median |"
            )
        return rows
    finally:
        varnish.terminate()
        varnish.wait(30)
        shutil.rmtree(work, ignore_errors=True)


HOSTILE_FRONT = 8052
DRIP_PORT = 8053
OUTAGE_PORT = 8054
OUTAGE_FRONT = 8055
# A decision record's body of 2.2 MB: a table 10,000 columns wide.
HOSTILE_BODY = "\n".join(
    ["|a" * 10_000 + "|", "|-" * 10_000 + "|", *(["|a" * 10_000 + "|"] * 110)]
)


class Drip(threading.Thread):
    """A metadata service that answers one byte a second, forever."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.listener = socket.create_server(("127.0.0.1", port))

    def run(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.drip, args=(connection,), daemon=True).start()

    @staticmethod
    def drip(connection):
        try:
            connection.recv(65536)
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
            )
            while True:
                connection.sendall(b" ")
                time.sleep(1)
        except OSError:
            connection.close()


class Silent(threading.Thread):
    """A Redis that accepts every connection and never answers."""

    def __init__(self):
        super().__init__(daemon=True)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.held = []

    def run(self):
        while True:
            try:
                self.held.append(self.listener.accept()[0])
            except OSError:
                return


def reader(port, paths, seconds, cookie=None):
    """(requests, failed, median seconds, p90 seconds) of one reader asking
    for ``paths`` in turn through ``port`` for ``seconds``."""
    times, failed, turn = [], 0, 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        path = paths[turn % len(paths)].replace("{n}", str(turn))
        turn += 1
        started = time.perf_counter()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", path, headers={"Cookie": cookie or ""})
            ok = connection.getresponse().status == 200
            connection.close()
        except OSError:
            ok = False
        if ok:
            times.append(time.perf_counter() - started)
        else:
            failed += 1
    times.sort()
    if not times:
        return turn, failed, float("nan"), float("nan")
    return turn, failed, times[len(times) // 2], times[int(len(times) * 0.9)]


def hammer(port, path, clients, cookie, stopping):
    """``clients`` threads asking for ``path`` until ``stopping`` is set."""

    def ask():
        while not stopping.is_set():
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                connection.request("GET", path, headers={"Cookie": cookie})
                connection.getresponse().read()
                connection.close()
            except OSError:
                time.sleep(0.1)

    threads = [threading.Thread(target=ask, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    return threads


def hostile_decision(database_url):
    """The path of a decision whose body is HOSTILE_BODY, imported as an
    editor would import it; None when the import refuses it."""
    folder = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    (folder / "0008-wide-table.md").write_text(
        f"# 8. A wide table\n\nDate: 2024-02-01\n\n## Status\n\nAccepted\n\n"
        f"## Context\n\n{HOSTILE_BODY}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "DATABASE_URL": database_url}
    done = subprocess.run(
        [PYTHON, "manage.py", "import_decisions", str(folder)],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    shutil.rmtree(folder, ignore_errors=True)
    if done.returncode != 0:
        print(f"The hostile decision was refused: {done.stderr.strip()[-300:]}")
        return None
    import psycopg

    with psycopg.connect(database_url) as conn:
        (number,) = conn.execute(
            "SELECT number FROM catalogue_decisionrecord ORDER BY id DESC LIMIT 1"
        ).fetchone()
    return f"/decisions/ADR-{number:03d}/"


def admin_session(port, database_url):
    """A superuser's session cookie, signed in through ``port``."""
    env = {**os.environ, "DATABASE_URL": database_url}
    subprocess.run(
        [PYTHON, "manage.py", "shell", "-c",
         "from django.contrib.auth.models import User; "
         "User.objects.filter(username='bench').delete(); "
         "User.objects.create_superuser('bench', '', 'bench-password-1')"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/admin/login/")
    response = connection.getresponse()
    page = response.read().decode()
    csrf = response.getheader("Set-Cookie").split("csrftoken=")[1].split(";")[0]
    token = page.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    connection.request(
        "POST",
        "/admin/login/",
        body=f"csrfmiddlewaretoken={token}&username=bench&password=bench-password-1",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf}",
            "Referer": f"http://127.0.0.1:{port}/admin/login/",
        },
    )
    response = connection.getresponse()
    response.read()
    cookies = response.getheader("Set-Cookie", "")
    session = cookies.split("sessionid=")[1].split(";")[0]
    return f"sessionid={session}; csrftoken={csrf}"


def front(port, backend, work):
    """varnishd with the production VCL on ``port``, in front of ``backend``."""
    (work / "backend.vcl").write_text(
        f'backend default {{ .host = "127.0.0.1"; .port = "{backend}"; }}\n'
    )
    varnishd = shutil.which("varnishd") or "/usr/sbin/varnishd"
    process = subprocess.Popen(
        [
            *(varnishd, "-F", "-a", f"127.0.0.1:{port}", "-n", str(work / "v")),
            *("-f", str(ROOT / "deploy" / "varnish" / "anthology.vcl")),
            *("-p", f"vcl_path={work}:{ROOT / 'deploy' / 'varnish'}"),
            *("-s", "malloc,256m", "-T", "none", "-j", "none"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=2).request("GET", "/")
            break
        except OSError:
            time.sleep(0.1)
    return process


def hostile(args, paths):
    """Table rows: a reader through Varnish, quiet and beside each hostile
    load, its median and p90 against the quiet ones."""
    print("Phase 7: hostile work through Varnish", flush=True)
    seconds = args.seconds / 2
    read = [paths[0][0], "/search/?q=gradient+{n}"]
    work = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    (work / "main").mkdir()
    (work / "outage").mkdir()
    varnishes, extra, rows = [front(HOSTILE_FRONT, PORT, work / "main")], [], []
    try:
        quiet = reader(HOSTILE_FRONT, read, seconds)
        figures = [("quiet", quiet)]
        decision = hostile_decision(args.database_url)
        if decision is not None:
            stopping = threading.Event()
            threads = hammer(HOSTILE_FRONT, decision, 4, "sessionid=bogus", stopping)
            figures.append(
                ("beside 4 clients asking for a 2.2 MB decision body",
                 reader(HOSTILE_FRONT, read, seconds))
            )  # fmt: skip
            stopping.set()
            for thread in threads:
                thread.join(90)
        session = admin_session(HOSTILE_FRONT, args.database_url)
        stopping = threading.Event()
        threads = hammer(
            HOSTILE_FRONT,
            "/admin/catalogue/document/add/?identifier=arXiv:2401.{n}",
            4,
            session,
            stopping,
        )
        figures.append(
            ("beside 4 lookups on a service dripping a byte a second",
             reader(HOSTILE_FRONT, read, seconds))
        )  # fmt: skip
        stopping.set()
        silent = Silent()
        silent.start()
        extra.append(
            start_server(
                args.database_url,
                args.workers,
                port=OUTAGE_PORT,
                redis_url=silent.url,
            )
        )
        varnishes.append(front(OUTAGE_FRONT, OUTAGE_PORT, work / "outage"))
        figures.append(
            ("in front of an instance whose Redis never answers",
             reader(OUTAGE_FRONT, read, seconds))
        )  # fmt: skip
        for label, (requests, failed, median, p90) in figures:
            rows.append(
                f"| hostile: reader through Varnish, {label} | {requests} | "
                f"{failed} | {requests / seconds:.1f}/s | "
                f"{median * 1000:.0f} ms median ({median / quiet[2]:.1f}× quiet), "
                f"{p90 * 1000:.0f} ms p90 ({p90 / quiet[3]:.1f}× quiet) |"
            )
        if decision is None:
            rows.append(
                "| hostile: the 2.2 MB decision body | refused at import | — | — | — |"
            )
        return rows
    finally:
        for process in [*varnishes, *extra]:
            process.terminate()
            process.wait(30)
        shutil.rmtree(work, ignore_errors=True)


PHASES = ["steady", "postgresql", "redis", "downloads", "flood", "slow", "hostile"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help=f"comma-separated, of {', '.join(PHASES)}",
    )
    parser.add_argument(
        "--database-url",
        default="postgres://postgres@127.0.0.1:5432/anthology_bench_load",
    )
    args = parser.parse_args()
    phases = set(args.phases.split(","))
    if phases - set(PHASES):
        parser.error(f"unknown phases: {', '.join(sorted(phases - set(PHASES)))}")
    print(f"Preparing {args.documents} sample documents…", flush=True)
    paths = prepare(args.database_url, args.documents)
    Drip(DRIP_PORT).start()
    server = start_server(args.database_url, args.workers)
    lines = []
    try:
        half = args.seconds / 2

        if "steady" in phases:
            lines += steady(args, paths)
        if "postgresql" in phases:
            lines += postgresql_restart(args, paths)
        if "redis" in phases:
            lines += redis_stopped(args, paths)
        if "downloads" in phases:
            print("Phase 4: citation downloads under load", flush=True)
            lines += downloads_under_load(paths[0][0], half)
        if "flood" in phases:
            print("Phase 5: cache flood", flush=True)
            lines += cache_flood(paths[0], half)
        if "slow" in phases:
            print("Phase 6: slow clients", flush=True)
            lines += slow_clients(args, paths[0][0])
        if "hostile" in phases:
            lines += hostile(args, paths)
    finally:
        server.terminate()
        server.wait(30)
        subprocess.run(["redis-cli", "ping"], capture_output=True)
    write_report(args, lines)


def steady(args, paths):
    print("Phase 1: steady load", flush=True)
    with Load(args.clients, paths) as load:
        time.sleep(args.seconds)
    requests, errors, throughput, p99 = load.window(0, args.seconds)
    return [
        f"| steady, {args.clients} clients, {args.seconds} s | {requests} | "
        f"{errors} | {throughput:.0f}/s | {p99 * 1000:.0f} ms |"
    ]


def postgresql_restart(args, paths):
    print("Phase 2: PostgreSQL restarted", flush=True)
    with Load(args.clients, paths) as load:
        time.sleep(args.seconds / 2)
        down = time.perf_counter() - load.started
        run(*pg_cluster(), "restart")
        wait_for_postgresql()
        up = time.perf_counter() - load.started
        time.sleep(30)
    before = load.window(max(0, down - 30), down)
    after = load.window(up, up + 30)
    late = [t for t in load.failures() if t >= up]
    return [
        f"| PostgreSQL restart: 30 s before | {before[0]} | {before[1]} | "
        f"{before[2]:.0f}/s | {before[3] * 1000:.0f} ms |",
        f"| PostgreSQL restart: down {up - down:.1f} s | — | "
        f"{len(load.failures()) - len(late)} | — | — |",
        f"| PostgreSQL restart: 30 s after | {after[0]} | {len(late)} | "
        f"{after[2]:.0f}/s ({after[2] / before[2]:.2f}× before) | "
        f"{after[3] * 1000:.0f} ms |",
    ]


def redis_stopped(args, paths):
    print("Phase 3: Redis stopped", flush=True)
    half = args.seconds / 2
    with Load(args.clients, paths) as load:
        time.sleep(half)
        stopped = time.perf_counter() - load.started
        subprocess.run(["redis-cli", "shutdown", "nosave"], capture_output=True)
        time.sleep(half)
        restarted = time.perf_counter() - load.started
        run(*REDIS_START)
        time.sleep(half)
    phases = [
        ("Redis up", load.window(0, stopped)),
        ("Redis stopped", load.window(stopped, restarted)),
        ("Redis back", load.window(restarted + 2, restarted + half)),
    ]
    return [
        f"| {label} | {figures[0]} | {figures[1]} | {figures[2]:.0f}/s | "
        f"{figures[3] * 1000:.0f} ms |"
        for label, figures in phases
    ]


def write_report(args, lines):
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {args.workers} gunicorn workers, "
        f"{args.documents} sample documents plus the seed page"
    )
    report = "\n".join(
        [
            "# Load and faults",
            "",
            f"Machine: {machine}. Written by `make bench-load --phases {args.phases}`.",
            "",
            "| phase | requests | errors | throughput | p99 (or median) |",
            "|---|---|---|---|---|",
            *lines,
            "",
        ]
    )
    # A run of some phases keeps the full run's figures: it writes its own file.
    phases = args.phases.split(",")
    results = (
        RESULTS
        if set(phases) == set(PHASES)
        else RESULTS.with_name(f"load-{'-'.join(phases)}.md")
    )
    results.parent.mkdir(exist_ok=True)
    results.write_text(report, encoding="utf-8")
    print(report)
    print(f"Written to {results.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
