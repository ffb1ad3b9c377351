"""Benchmark of the admin's CSV import as background jobs, on PostgreSQL.

    make bench-jobs                         # a 100,000-row file
    make bench-jobs BENCH_ROWS=20000

Fills a base database of its own (BENCH_JOBS_DATABASE_URL, default
anthology_bench_jobs; the base is <name>_base) with generate_sample and a
publisher, writes a CSV of BENCH_ROWS rows in the export's format (the export
of some of the record's documents, a share of them changed: new versions,
summaries, tags, publications; the rest new documents with tags, topics,
typographic citations, cross-references, successors), then, from this one run:

- starts gunicorn as `make serve` does (2 workers, DEBUG off, the Redis cache)
  on 127.0.0.1:8052 and a real `rqworker` on a queue of its own (Redis DB 7,
  a key prefix of this run's), on a copy of the base;
- drives the admin as the publisher over HTTP: signs in, uploads the file,
  reads the dry run's page every two seconds as its refresh does, confirms,
  reads the import's page; kills the worker (SIGKILL, its work horse too)
  once the import has read a third of the file, shows the record unchanged
  and the job failed on its page, vacuums (as autovacuum soon would), starts
  a new worker, confirms again and reads the page to the end, timing every
  request;
- imports the same file into a second copy of the base synchronously (the
  resource's import_data in one process, as the admin did before jobs) and
  compares the two records: the documents' export (less its times) and the
  counts of versions, tags, references and audit entries;
- prints the slowest request and the 99th percentile against the target
  (< 2 s), the progress values seen, rows per second of each import and the
  job's time against the synchronous import's;
- with --baseline COMMIT (BENCH_JOBS_BASELINE), imports the file
  synchronously once more with that commit's code, on a third copy, for the
  rows per second before and after.

The figures go to bench/results/jobs.md; with ``--json PATH`` (as `make bench`
runs it) the ratios go to PATH instead, lower being better: the import job's
time against the synchronous import's, the slowest request and the 99th
percentile against the 2 s target.
"""

import argparse
import contextlib
import csv
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "jobs.md"
PORT = int(os.environ.get("BENCH_JOBS_PORT", "8052"))
SITE = f"http://127.0.0.1:{PORT}"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench_jobs"
DATABASE_URL = os.environ.get("BENCH_JOBS_DATABASE_URL", DEFAULT_URL)
SERVER, NAME = DATABASE_URL.rsplit("/", 1)
DATABASES = {
    "base": f"{NAME}_base",
    "job": NAME,
    "sync": f"{NAME}_sync",
    "baseline": f"{NAME}_baseline",
}
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
PREFIX = f"anthology-bench-jobs-{uuid.uuid4().hex[:8]}"
PUBLISHER = "bench-publisher"
TARGET_SECONDS = 2.0
POLL_SECONDS = 2.0  # as the job page's <meta http-equiv="refresh">
PUBLIC_BASE = "http://127.0.0.1/"

sys.path.insert(0, str(ROOT))


def environment(database, **extra):
    """The settings `make serve` runs with, on ``database``."""
    return {
        **os.environ,
        "DATABASE_URL": f"{SERVER}/{DATABASES[database]}",
        "DJANGO_SETTINGS_MODULE": "anthology.settings",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DEBUG": "0",
        "CONN_MAX_AGE": "60",
        "REDIS_URL": REDIS_URL,
        "CACHE_KEY_PREFIX": PREFIX,
        "JOBS_QUEUE": PREFIX,
        **extra,
    }


# The parts that run inside Django, each in a process on one database.


def inner(command, database, *args, code=ROOT, **env):
    """Run ``command`` of this file (as ``code`` has it) on ``database``; its
    JSON answer."""
    output = subprocess.run(
        [
            sys.executable,
            str(code / "bench" / "jobs_bench.py"),
            "--inner",
            command,
            *map(str, args),
        ],
        cwd=code,
        env=environment(database, **env),
        check=True,
        stdout=subprocess.PIPE,
    ).stdout
    return json.loads(output.decode().strip().splitlines()[-1] or "null")


def django_setup():
    import django

    django.setup()


def prepare_base(documents, password):
    """The base record: ``documents`` sample documents and a publisher."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from catalogue.models import Document
    from editorial.roles import make_editor

    call_command("migrate", verbosity=0)
    seconds = None
    if not Document.objects.exists():
        started = time.perf_counter()
        call_command("generate_sample", documents=documents, stdout=io.StringIO())
        seconds = time.perf_counter() - started
    users = get_user_model()
    user = users.objects.filter(username=PUBLISHER).first() or users(username=PUBLISHER)
    user.set_password(password)
    user.save()
    make_editor(user, publisher=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return {"documents": Document.objects.count(), "generate_seconds": seconds}


# New documents' tags: the sample's, and some with typographic characters.
EXTRA_TAGS = ["Amdahl’s law", "long‑context", "memory", "pipelines", "2× speed-up"]


def write_csv(path, rows, changed, unchanged, seed):
    """A CSV of ``rows`` rows in the export's format: ``changed`` of the
    record's documents revised, ``unchanged`` as exported, the rest new."""
    from django.utils import timezone
    from taggit.models import Tag

    from catalogue.citations import Citation
    from catalogue.identifiers import Identifier
    from catalogue.models import PUBLIC_STATUSES, Document, Registry, Topic
    from formats import exports
    from imports.management.commands.generate_sample import Command, words

    rng = random.Random(seed)
    existing = list(
        Document.objects.filter(registry__prefix="SLIT").values_list("pk", flat=True)
    )
    picked = rng.sample(existing, min(len(existing), changed + unchanged))
    exported = b"".join(
        exports.document_chunks(
            Document.objects.filter(pk__in=picked), base_url=PUBLIC_BASE
        )
    ).decode()
    lines = list(csv.DictReader(io.StringIO(exported)))
    tags = [tag.name for tag in Tag.objects.all()] + EXTRA_TAGS
    for line in rng.sample(lines, min(changed, len(lines))):
        revise(line, rng, tags)

    topics = list(Topic.objects.filter(slug__startswith="sample-topic-"))
    registries = list(Registry.objects.filter(prefix__in=["SLIT", "SPRA"]))
    sample = Command()
    made = []
    numbers = {registry.pk: registry.last_number for registry in registries}
    started = timezone.now() - timezone.timedelta(days=400)
    for i in range(rows - len(lines)):
        registry = registries[1] if i % 10 == 9 else registries[0]
        numbers[registry.pk] += 1
        document = sample.document(rng, registry, numbers[registry.pk], topics)
        document.title = document.title.removeprefix("[Sample] ")
        if rng.random() < 0.2:
            document.title = f"“{document.title}” — {words(rng, 3)}"
        document.title = f"[Sample] {document.title}"
        if rng.random() < 0.6:
            # One sentence after the citation, as most of the seed's are.
            document.summary = document.summary.split(". ")[0] + "."
        document.created_at = started + timezone.timedelta(seconds=i * 300)
        document.updated_at = document.created_at + timezone.timedelta(days=3)
        made.append(document)
    public = [document for document in made if document.status == "active"]
    new_lines = []
    for document in made:
        identifier = Identifier(document.registry.prefix, document.number)
        successor = ""
        if document.status == "superseded" and rng.random() < 0.8:
            successor = str(rng.choice(public).identifier)
        new_lines.append(
            {
                "identifier": identifier,
                "registry": document.registry.prefix,
                "number": document.number,
                "version": document.version,
                "title": document.title,
                "authors": document.authors,
                "year": document.year,
                "source_identifier": document.source_identifier,
                "citation_note": document.citation_note,
                "citation": Citation(
                    document.authors,
                    document.year,
                    document.source_identifier,
                    document.citation_note,
                ).render(),
                "summary": document.summary,
                "status": document.status,
                "topic": document.topic.slug if document.topic else "",
                "tags": ", ".join(sorted(rng.sample(tags, rng.randint(0, 3)))),
                "successor": successor,
                "created": exports.timestamp(document.created_at),
                "last_changed": exports.timestamp(document.updated_at),
                "public_url": (
                    f"{PUBLIC_BASE}{identifier}/"
                    if document.status in PUBLIC_STATUSES
                    else ""
                ),
            }
        )
    # Cells of the export's own rows are written as it wrote them (neutralised
    # already); the new ones as the export would write them.
    everything = [(line, True) for line in lines] + [
        (line, False) for line in new_lines
    ]
    everything.sort(key=lambda item: (item[0]["registry"], int(item[0]["number"])))
    with open(path, "wb") as out:
        out.write(exports.csv_line(exports.DOCUMENT_COLUMNS).encode())
        for line, written in everything:
            cells = [line.get(column, "") for column in exports.DOCUMENT_COLUMNS]
            if written:
                cells = [exports.restore(cell) for cell in cells]
            out.write(exports.csv_line(cells).encode())
    return {
        "rows": len(everything),
        "existing": len(lines),
        "changed": min(changed, len(lines)),
        "bytes": Path(path).stat().st_size,
    }


def revise(line, rng, tags):
    """A document's exported row, changed as an editor's copy would be."""
    from imports.management.commands.generate_sample import words

    public = line["status"] in {"active", "superseded", "withdrawn"}
    line["summary"] += f" Revised: {words(rng, 6)} — ≈{rng.randint(2, 9)}× less memory."
    if public:
        line["version"] = str(int(line["version"]) + 1)
    elif rng.random() < 0.3:
        line["status"] = "active"  # published by the import, its version written
    names = [name for name in line["tags"].split(", ") if name]
    if names and rng.random() < 0.5:
        names.remove(rng.choice(names))
    names.append(rng.choice(tags))
    line["tags"] = ", ".join(sorted(set(names)))


def sync_import(path):
    """The file imported in this process, as the admin did before jobs."""
    from auditlog.context import set_actor
    from django.contrib.auth import get_user_model
    from import_export.formats.base_formats import CSV

    from imports.resources import DocumentResource

    data = Path(path).read_bytes()
    started = time.perf_counter()
    dataset = CSV(encoding="utf-8-sig").create_dataset(data)
    read = time.perf_counter() - started
    user = get_user_model().objects.get(username=PUBLISHER)
    started = time.perf_counter()
    # As in the request that imported before jobs, its user the actor.
    with set_actor(user):
        result = DocumentResource().import_data(
            dataset,
            dry_run=False,
            raise_errors=False,
            use_transactions=True,
            rollback_on_validation_errors=True,
            file_name=Path(path).name,
            user=user,
        )
    seconds = time.perf_counter() - started
    assert not result.has_errors() and not result.has_validation_errors(), (
        result.base_errors,
        result.invalid_rows[:3],
    )
    return {"read_seconds": read, "seconds": seconds, "totals": dict(result.totals)}


def record(path):
    """The documents' export written to ``path``, and the record's counts."""
    from formats import exports

    with open(path, "wb") as out:
        from catalogue.models import Document

        for chunk in exports.document_chunks(
            Document.objects.all(), base_url=PUBLIC_BASE
        ):
            out.write(chunk)
    return counts()


def counts():
    from auditlog.models import LogEntry
    from taggit.models import Tag, TaggedItem

    from catalogue.models import Document, DocumentVersion, Reference, Registry

    return {
        "documents": Document.objects.count(),
        "versions": DocumentVersion.objects.count(),
        "tags": Tag.objects.count(),
        "tagged": TaggedItem.objects.count(),
        "references": Reference.objects.count(),
        "audit entries": LogEntry.objects.count(),
        "registry numbers": sorted(
            Registry.objects.values_list("prefix", "last_number")
        ),
    }


def job_times():
    """Each import job's run, in the order they were started."""
    from jobs.models import Job

    return [
        {
            "title": job.title,
            "state": job.state,
            "summary": job.summary,
            "seconds": (
                (job.finished_at - job.started_at).total_seconds()
                if job.finished_at and job.started_at
                else None
            ),
        }
        for job in Job.objects.order_by("created_at")
    ]


def job_worker(page):
    from jobs.models import Job

    return Job.objects.get(page=page).worker


INNER = {
    "prepare-base": lambda documents, password: prepare_base(int(documents), password),
    "write-csv": lambda path, rows, changed, unchanged, seed: write_csv(
        path, int(rows), int(changed), int(unchanged), int(seed)
    ),
    "sync-import": sync_import,
    "record": record,
    "counts": counts,
    "job-times": job_times,
    "job-worker": job_worker,
}


# The run, from outside: databases, processes, HTTP.


def postgres(statement):
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        cursor = conn.execute(statement)
        return cursor.fetchall() if cursor.description else None


def postgres_on(database, statement):
    import psycopg

    with psycopg.connect(f"{SERVER}/{DATABASES[database]}", autocommit=True) as conn:
        conn.execute(statement)


def ensure_base(documents):
    """The base database, made again unless it holds ``documents`` documents."""
    import psycopg

    name = DATABASES["base"]
    try:
        with psycopg.connect(f"{SERVER}/{name}") as conn:
            have = conn.execute("SELECT count(*) FROM catalogue_document").fetchone()
    except psycopg.Error:
        have = None
    if have != (documents,):
        postgres(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        postgres(f"CREATE DATABASE \"{name}\" ENCODING 'UTF8' TEMPLATE template0")


def copy_base(database):
    """``database`` made afresh as a copy of the base."""
    name = DATABASES[database]
    postgres(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    postgres(f'CREATE DATABASE "{name}" TEMPLATE "{DATABASES["base"]}"')


class Processes:
    """gunicorn and the workers, stopped at the end whatever happens."""

    def __init__(self, static_root):
        self.env = environment("job", STATIC_ROOT=str(static_root))
        self.started = []

    def __enter__(self):
        return self

    def collectstatic(self):
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )

    def start(self, command, log):
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            start_new_session=True,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.started.append(process)
        return process

    def gunicorn(self, log):
        return self.start(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "anthology.wsgi",
                *("--bind", f"127.0.0.1:{PORT}", "--workers", "2"),
                "--access-logfile",
                "-",
            ],
            log,
        )

    def worker(self, log):
        return self.start(
            [sys.executable, "manage.py", "rqworker", PREFIX],
            log,
        )

    def __exit__(self, *exc):
        for process in self.started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


class Admin:
    """The publisher's browser, as far as HTTP goes: every request timed."""

    def __init__(self, password):
        import httpx

        self.client = httpx.Client(base_url=SITE, timeout=120, follow_redirects=False)
        self.password = password
        self.requests = []
        self.phase = "sign in"

    def send(self, method, path, label, **kwargs):
        started = time.perf_counter()
        response = self.client.request(method, path, **kwargs)
        seconds = time.perf_counter() - started
        self.requests.append(
            {
                "phase": self.phase,
                "request": f"{method} {label}",
                "seconds": seconds,
                "status": response.status_code,
                "bytes": len(response.content),
            }
        )
        return response

    def sign_in(self):
        page = self.send("GET", "/admin/login/", "/admin/login/").text
        response = self.send(
            "POST",
            "/admin/login/",
            "/admin/login/",
            data={
                "csrfmiddlewaretoken": token(page),
                "username": PUBLISHER,
                "password": self.password,
                "next": "/admin/",
            },
        )
        assert response.status_code == 302, response.text[:2000]

    def upload(self, path):
        url = "/admin/catalogue/document/import/"
        page = self.send("GET", url, url).text
        with open(path, "rb") as file:
            response = self.send(
                "POST",
                url,
                url,
                data={
                    "csrfmiddlewaretoken": token(page),
                    "format": "0",
                    "resource": "0",
                },
                files={"import_file": (Path(path).name, file, "text/csv")},
            )
        assert response.status_code == 302, response.text[:2000]
        return response.headers["location"]

    def job_page(self, url, label):
        response = self.send("GET", url, label)
        if response.status_code != 200:
            raise Stopped(
                f"GET {label} answered {response.status_code} after "
                f"{self.requests[-1]['seconds']:.1f} s"
            )
        return response.text

    def confirm(self, page):
        fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', page))
        action = re.search(r'<form action="([^"]*process_import[^"]*)"', page)[1]
        response = self.send(
            "POST",
            action,
            action,
            data={
                name: fields.get(name, "")
                for name in [
                    "csrfmiddlewaretoken",
                    "import_file_name",
                    "original_file_name",
                    "format",
                    "resource",
                ]
            },
        )
        assert response.status_code == 302, response.text[:2000]
        return response.headers["location"]


class Stopped(Exception):
    """The journey cannot go on: a page failed."""


def token(page):
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]


def progress_on(page):
    found = re.search(r'<progress value="(\d+)" max="(\d+)">', page)
    return found and (int(found[1]), int(found[2]))


def running(page):
    return 'http-equiv="refresh"' in page


def follow(admin, url, label, seen, until=None):
    """Read the job's page every two seconds, as its refresh does, until the
    job is done (or ``until(progress)`` holds); the last page."""
    while True:
        page = admin.job_page(url, label)
        found = progress_on(page)
        if found and running(page):
            seen.append(found[0])
            if until and until(found):
                return page
        if not running(page):
            return page
        time.sleep(POLL_SECONDS)


def summary_on(page):
    found = re.findall(r'<p class="import-summary">([^<]*)</p>', page)
    return found[0] if found else ""


def wait_for_site(gunicorn):
    import httpx

    for _ in range(600):
        if gunicorn.poll() is not None:
            raise SystemExit("gunicorn stopped")
        try:
            httpx.get(f"{SITE}/health/", timeout=5)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("gunicorn never answered")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def kill_worker(worker, horse):
    """SIGKILL the worker and its work horse at once, as when a machine dies."""
    os.kill(horse, signal.SIGKILL)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    for _ in range(300):
        if not alive(horse):
            return
        time.sleep(0.1)
    raise SystemExit(f"the work horse {horse} outlived SIGKILL")


def journey(path, password, work):
    """The admin import through gunicorn and the worker, killed once; the
    figures as far as it got."""
    figures = {"progress": {}, "requests": []}
    with contextlib.ExitStack() as stack:
        logs = {
            name: stack.enter_context(open(work / f"{name}.log", "wb"))
            for name in ["web", "w1", "w2"]
        }
        processes = stack.enter_context(Processes(work / "static"))
        processes.collectstatic()
        gunicorn = processes.gunicorn(logs["web"])
        first = processes.worker(logs["w1"])
        wait_for_site(gunicorn)
        admin = Admin(password)
        figures["requests"] = admin.requests
        try:
            steps(admin, processes, first, path, figures, logs)
        except Stopped as stopped:
            figures["failure"] = str(stopped)
    figures["jobs"] = inner("job-times", "job")
    return figures


def steps(admin, processes, first, path, figures, logs):
    admin.sign_in()

    admin.phase = "upload and dry run"
    dry_run = admin.upload(path)
    seen = figures["progress"]["dry run"] = []
    checked = follow(admin, dry_run, "the dry run's page", seen)
    figures["dry run summary"] = summary_on(checked)
    if "Confirm import" not in checked:
        raise Stopped(f"the dry run offered no Confirm: {figures['dry run summary']}")

    admin.phase = "import, killed"
    before = inner("counts", "job")
    killed = admin.confirm(checked)
    seen = figures["progress"]["killed import"] = []
    page = follow(
        admin,
        killed,
        "the import's page",
        seen,
        until=lambda found: found[0] >= found[1] // 3,
    )
    if not running(page):
        raise Stopped("the import ended before the worker was killed")
    horse = int(inner("job-worker", "job", killed).rpartition(":")[2])
    kill_worker(first, horse)
    figures["killed at"] = seen[-1]
    page = admin.job_page(killed, "the import's page")
    figures["failed on its page"] = (
        "The worker stopped before the job finished" in page and not running(page)
    )
    figures["unchanged after the kill"] = before == inner("counts", "job")
    figures["counts before"] = before
    # The rows the killed import had inserted are dead; autovacuum would
    # clear them within a minute or so. Cleared now, the import that follows
    # meets the tables the synchronous import meets.
    postgres_on("job", "VACUUM ANALYZE")

    admin.phase = "import by a new worker"
    processes.worker(logs["w2"])
    again = admin.job_page(dry_run, "the dry run's page")
    started = time.perf_counter()
    imported = admin.confirm(again)
    seen = figures["progress"]["import"] = []
    done = follow(admin, imported, "the import's page", seen)
    figures["import wall seconds"] = time.perf_counter() - started
    figures["import summary"] = summary_on(done)


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def rising(values):
    distinct = sorted(set(values))
    return len(distinct), values == sorted(values)


def compare(work):
    """The two records' exports (less their times) and counts."""
    records = {}
    for database in ["job", "sync"]:
        path = work / f"{database}.csv"
        records[database] = {"counts": inner("record", database, path), "path": path}

    def rows(path):
        with open(path, encoding="utf-8") as file:
            return [
                {k: v for k, v in line.items() if k not in {"created", "last_changed"}}
                for line in csv.DictReader(file)
            ]

    job_rows, sync_rows = rows(records["job"]["path"]), rows(records["sync"]["path"])
    differing = sum(1 for a, b in zip(job_rows, sync_rows, strict=False) if a != b)
    return {
        "exports equal": job_rows == sync_rows,
        "exported rows": len(job_rows),
        "differing rows": differing + abs(len(job_rows) - len(sync_rows)),
        "job counts": records["job"]["counts"],
        "sync counts": records["sync"]["counts"],
    }


def ratios(journey_figures, sync):
    """The journey's figures as ratios against their baselines, lower better."""
    seconds = [request["seconds"] for request in journey_figures["requests"]]
    figures = {
        "slowest request / 2 s target": max(seconds) / TARGET_SECONDS,
        "request p99 / 2 s target": percentile(seconds, 0.99) / TARGET_SECONDS,
    }
    finished = [j for j in journey_figures["jobs"] if j["state"] == "finished"]
    if len(finished) == 2:
        synchronous = sync["read_seconds"] + sync["seconds"]
        figures["import job / synchronous import"] = (
            finished[-1]["seconds"] / synchronous
        )
    return figures


def report(setup, journey_figures, sync, comparison, baseline=None):
    """The results page: every figure this run measured."""
    f = journey_figures
    requests = f["requests"]
    seconds = [request["seconds"] for request in requests]
    slowest = max(requests, key=lambda request: request["seconds"])
    rows = setup["rows"]
    lines = [
        "# The admin's CSV import as background jobs",
        "",
        f"A {rows:,}-row CSV ({setup['bytes'] / 1e6:.1f} MB) in the export's "
        f"format: {rows - setup['existing']:,} new documents and "
        f"{setup['existing']:,} of the record's {setup['documents']:,} "
        f"({setup['changed']:,} of them changed). PostgreSQL, gunicorn with 2 "
        f"workers as `make serve` runs it, one `rqworker`, Redis; "
        f"{os.cpu_count()} cores. Written by `make bench-jobs`; every figure is "
        "from this one run.",
        "",
    ]
    if f.get("failure"):
        lines += [f"**The journey stopped: {f['failure']}.**", ""]
    lines += [
        "| figure | measured | target |",
        "|---|---|---|",
        f"| requests of the journey (sign-in, upload, job pages every 2 s, "
        f"confirmations) | {len(requests)} | |",
        f"| slowest request | {slowest['seconds']:.2f} s ({slowest['request']}, "
        f"{slowest['phase']}, {slowest['bytes']:,} bytes) | < 2 s |",
        f"| 99th percentile | {percentile(seconds, 0.99):.2f} s | < 2 s |",
        f"| requests of 2 s or more | "
        f"{sum(1 for s in seconds if s >= TARGET_SECONDS)} | 0 |",
    ]
    for request in sorted({r["request"] for r in requests}):
        times = [r["seconds"] for r in requests if r["request"] == request]
        largest = max(r["bytes"] for r in requests if r["request"] == request)
        lines.append(
            f"| {request}: {len(times)} requests | max {max(times):.2f} s, "
            f"median {percentile(times, 0.5):.2f} s, largest {largest:,} bytes "
            "| < 2 s |"
        )
    for name, values in f["progress"].items():
        seen = list(dict.fromkeys(values))  # In the order they were seen.
        distinct = len(seen)
        shown = ", ".join(f"{v:,}" for v in seen[:3])
        if len(seen) > 3:
            shown += f" … {seen[-1]:,}"
        order = "rising" if values == sorted(values) else "NOT rising"
        lines.append(
            f"| progress seen, {name} | {distinct} distinct values, {order}: "
            f"{shown} | several, rising |"
        )
    for job in f["jobs"]:
        if job["state"] == "finished":
            lines.append(
                f"| job: {job['title'].split(' (')[0]} | {job['seconds']:.1f} s, "
                f"{rows / job['seconds']:.0f} rows/s: {job['summary']} | |"
            )
    synchronous = sync["read_seconds"] + sync["seconds"]
    lines.append(
        f"| synchronous import (the file read, then import_data in one "
        f"process) | {sync['read_seconds']:.1f} s + {sync['seconds']:.1f} s, "
        f"{rows / synchronous:.0f} rows/s | |"
    )
    if baseline:
        before = baseline["read_seconds"] + baseline["seconds"]
        lines.append(
            f"| the same, with the code of {baseline['ref']} (before) | "
            f"{baseline['read_seconds']:.1f} s + {baseline['seconds']:.1f} s, "
            f"{rows / before:.0f} rows/s: now {before / synchronous:.2f}× as "
            "fast | report |"
        )
    finished = [j for j in f["jobs"] if j["state"] == "finished"]
    if "import summary" in f and len(finished) == 2:
        job_seconds = finished[-1]["seconds"]
        lines.append(
            f"| import job vs synchronous import | "
            f"{job_seconds / synchronous:.2f}× (from Confirm to the page "
            f"saying done: {f['import wall seconds']:.1f} s) | report |"
        )
    if comparison:
        equal = "identical" if comparison["exports equal"] else "DIFFERENT"
        lines.append(
            f"| export of the job's record vs the synchronous one's, times left "
            f"out | {equal} ({comparison['exported rows']:,} rows, "
            f"{comparison['differing rows']} differ) | identical |"
        )
        for name in ["documents", "versions", "tags", "tagged", "references"]:
            a, b = comparison["job counts"][name], comparison["sync counts"][name]
            lines.append(f"| {name}: job vs synchronous | {a:,} vs {b:,} | equal |")
        a = comparison["job counts"]["audit entries"]
        b = comparison["sync counts"]["audit entries"]
        lines.append(f"| audit entries: job vs synchronous | {a:,} vs {b:,} | equal |")
    if "killed at" in f:
        unchanged = "unchanged" if f["unchanged after the kill"] else "CHANGED"
        failed = "failed" if f["failed on its page"] else "NOT failed"
        lines += [
            f"| worker killed (SIGKILL) at | {f['killed at']:,} of {rows:,} rows "
            "read | midway |",
            f"| record after the kill | {unchanged} "
            f"({f['counts before']['documents']:,} documents) | unchanged |",
            f"| the killed job on its page | {failed} | failed |",
        ]
    lines.append("")
    text = "\n".join(lines)
    print(text)
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--documents", type=int, default=20_000)
    parser.add_argument("--results", default=str(RESULTS))
    parser.add_argument("--json", help="write the ratios to this file instead")
    parser.add_argument(
        "--baseline",
        help="a commit: the file is also imported synchronously with its code",
    )
    parser.add_argument("--inner", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        django_setup()
        command, *rest = args.inner
        print(json.dumps(INNER[command](*rest), default=str))
        return

    work = Path(tempfile.mkdtemp(prefix="anthology-bench-jobs-"))
    password = uuid.uuid4().hex
    ensure_base(args.documents)
    setup = inner("prepare-base", "base", args.documents, password)
    csv_path = work / "record.csv"
    changed = max(args.rows // 40, 1)
    setup.update(inner("write-csv", "base", csv_path, args.rows, changed, changed, 5))
    print(f"{setup['rows']:,} rows, {setup['bytes']:,} bytes in {csv_path}")
    if setup["bytes"] > int(os.environ.get("IMPORT_MAX_BYTES", 64 * 1024 * 1024)):
        raise SystemExit("The file is larger than the import takes (IMPORT_MAX_BYTES).")
    copy_base("job")
    copy_base("sync")
    try:
        figures = journey(csv_path, password, work)
    finally:
        clean_redis()
    sync = inner("sync-import", "sync", csv_path)
    comparison = None if figures.get("failure") else compare(work)
    baseline = args.baseline and import_with(args.baseline, csv_path, work)
    text = report(setup, figures, sync, comparison, baseline)
    if args.json:
        ratio_figures = {"ratios": ratios(figures, sync)}
        Path(args.json).write_text(json.dumps(ratio_figures, indent=2))
    else:
        Path(args.results).write_text(text, encoding="utf-8")
    for database in ["job", "sync", "baseline"]:
        postgres(f'DROP DATABASE IF EXISTS "{DATABASES[database]}" WITH (FORCE)')
    print(f"Logs and the file in {work}")


def import_with(ref, csv_path, work):
    """The synchronous import of the file with the code of commit ``ref``, on
    another copy of the base."""
    code = work / "baseline"
    code.mkdir()
    archive = subprocess.run(
        ["git", "archive", ref], cwd=ROOT, check=True, stdout=subprocess.PIPE
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)
    copy_base("baseline")
    figures = inner("sync-import", "baseline", csv_path, code=code)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", ref],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return {**figures, "ref": commit}


def clean_redis():
    """This run's cache keys, and all RQ keeps of its queue: its jobs (a
    killed one stays), their executions and results, its workers."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = [*client.scan_iter(f"{PREFIX}:*"), *client.scan_iter(f"rq:*{PREFIX}*")]
    for key in client.scan_iter("rq:job:*"):
        if client.hget(key, "origin") == PREFIX.encode():
            job_id = key.decode().rpartition(":")[2]
            keys += [
                key,
                *client.scan_iter(f"rq:execution*:{job_id}*"),
                *client.scan_iter(f"rq:results:{job_id}"),
            ]
    for key in client.scan_iter("rq:worker:*"):
        if (
            client.type(key) == b"hash"
            and client.hget(key, "queues") == PREFIX.encode()
        ):
            keys += [key, *client.scan_iter(f"{key.decode()}:*")]
            client.srem("rq:workers", key)
    client.srem("rq:queues", f"rq:queue:{PREFIX}")
    if keys:
        client.delete(*keys)


if __name__ == "__main__":
    main()
