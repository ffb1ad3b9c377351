"""Benchmark of the staff CSV export and import, on PostgreSQL.

    make bench-export                      # 100,000 sample documents
    make bench-export BENCH_DOCUMENTS=20000

Fills its own database (BENCH_DATABASE_URL, default anthology_bench) with
generate_sample, serves it with gunicorn on 127.0.0.1:8020 and prints, as
ratios measured in this one run:

- the export URL over HTTP against ``\\copy`` of the documents table (what a
  database administrator would take out: PostgreSQL's COPY of the table, every
  column as stored) and against COPY of the export's own SELECT;
- time to first byte against the export's total time;
- the worker's peak memory growth exporting all documents against a tenth;
- rows per second importing a tenth through the admin import (dry run, then
  confirmation).

The figures are written to bench/results/export.md; with ``--json PATH`` (as
`make bench` runs it) its ratios go to PATH instead, each as a time (or memory)
against its baseline, lower being better.
"""

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pg_database import ensure_database

ROOT = Path(__file__).resolve().parent.parent
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "export.md"
PORT = int(os.environ.get("BENCH_PORT", "8020"))
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
sys.path.insert(0, str(ROOT))


def setup():
    import django

    django.setup()


def fill(documents):
    from django.core.management import call_command

    from catalogue.models import Document

    call_command("migrate", verbosity=0)
    # The admin import renders templates with DEBUG off: the manifest must exist.
    call_command("collectstatic", interactive=False, verbosity=0)
    if Document.objects.count() != documents:
        call_command("flush", interactive=False, verbosity=0)
        started = time.perf_counter()
        call_command("generate_sample", documents=documents)
        print(f"generate_sample: {time.perf_counter() - started:.1f} s")
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def session_cookie():
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    user, _ = User.objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


class Server:
    """gunicorn with one sync worker; a fresh one per memory measurement."""

    def __enter__(self):
        self.process = subprocess.Popen(
            [
                str(ROOT / ".venv" / "bin" / "gunicorn"),
                "anthology.wsgi",
                "--bind",
                f"127.0.0.1:{PORT}",
                "--workers",
                "1",
                "--timeout",
                "600",
            ],
            cwd=ROOT,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT).connect()
                break
            except OSError:
                time.sleep(0.1)
        # The master accepts connections before its worker is forked, which
        # takes seconds on a busy machine.
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        for _ in range(600):
            if workers := children.read_text().split():
                self.worker = int(workers[0])
                return self
            time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("gunicorn started no worker")

    def memory_kb(self, field):
        for line in Path(f"/proc/{self.worker}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
        raise LookupError(field)

    def __exit__(self, *exc):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def fetch(path, cookie):
    """(seconds to the first byte of the body, total seconds, bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=600)
    started = time.perf_counter()
    conn.request("GET", path, headers={"Cookie": cookie})
    response = conn.getresponse()
    assert response.status == 200, response.status
    first = response.read1(65536)
    first_byte = time.perf_counter() - started
    size = len(first)
    while chunk := response.read1(65536):
        size += len(chunk)
    return first_byte, time.perf_counter() - started, size


TABLE_COPY = "COPY catalogue_document TO STDOUT WITH (FORMAT csv)"


def copy_time(queryset=None):
    """PostgreSQL's own COPY of the export's SELECT (or, without a queryset,
    of the documents table), read to the end."""
    import psycopg
    from django.conf import settings

    from formats.exports import copy_statement

    db = settings.DATABASES["default"]
    statements = (
        [TABLE_COPY]
        if queryset is None
        else list(copy_statement(queryset, base_url="http://127.0.0.1/"))
    )
    with psycopg.connect(
        host=db["HOST"], user=db["USER"], dbname=db["NAME"], autocommit=True
    ) as conn:
        # As the export runs its statements (formats.exports).
        conn.execute("SET jit = off")
        started = time.perf_counter()
        size = 0
        for statement in statements:
            with conn.cursor().copy(statement) as copy:
                for data in copy:
                    size += len(data)
        return time.perf_counter() - started, size


def best(runs, key=lambda run: run):
    return min(runs, key=key)


def measure_export(cookie, documents):
    from catalogue.models import Document

    url = "/export/documents.csv"
    tenth = "/export/documents.csv?registry=SPRA"
    exports, copies, tables = [], [], []
    with Server():
        fetch(tenth, cookie)  # warm up
        # Rounds taking turns, so that a busy moment of the machine falls on
        # the export and its baselines alike.
        for _ in range(3):
            exports.append(fetch(url, cookie))
            copies.append(copy_time(Document.objects.all()))
            tables.append(copy_time())
    first_byte, total, size = best(exports, key=lambda run: run[1])
    copy_seconds, copy_size = best(copies, key=lambda run: run[0])
    table_seconds, table_size = best(tables, key=lambda run: run[0])

    growth = {}
    for label, path in [("all", url), ("tenth", tenth)]:
        with Server() as server:
            fetch("/export/documents.csv?year_from=9999", cookie)  # load the code
            before = server.memory_kb("VmRSS")
            fetch(path, cookie)
            growth[label] = max(server.memory_kb("VmHWM") - before, 1)
    return {
        "documents": documents,
        "export_seconds": total,
        "export_bytes": size,
        "copy_seconds": copy_seconds,
        "copy_bytes": copy_size,
        "table_seconds": table_seconds,
        "table_bytes": table_size,
        "first_byte_seconds": first_byte,
        "growth_all_kb": growth["all"],
        "growth_tenth_kb": growth["tenth"],
    }


def measure_import():
    """Export the SPRA tenth, take it out of the record, import it in the admin."""
    from django.contrib.auth.models import User
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client, override_settings
    from django.test.utils import setup_test_environment
    from django.urls import reverse
    from taggit.models import TaggedItem

    from catalogue.models import Document, DocumentVersion, Registry
    from formats.exports import document_chunks

    documents = Document.objects.filter(registry__prefix="SPRA")
    content = b"".join(document_chunks(documents, base_url="http://127.0.0.1/"))
    rows = documents.count()
    pks = list(documents.values_list("pk", flat=True))
    TaggedItem.objects.filter(object_id__in=pks).delete()
    DocumentVersion.objects.filter(document__in=pks).delete()
    documents.delete()
    Registry.objects.filter(prefix="SPRA").update(last_number=0)

    setup_test_environment()  # so the response carries the preview's context
    client = Client()
    client.force_login(User.objects.get(username="bench"))
    # The dry run and the import are jobs: run here, at once, each within the
    # request that starts it (make bench-jobs runs them on a worker).
    with override_settings(JOBS_IN_PROCESS=True):
        started = time.perf_counter()
        upload = SimpleUploadedFile("spra.csv", content, content_type="text/csv")
        response = client.post(
            reverse("admin:catalogue_document_import"),
            {"format": "0", "import_file": upload, "resource": "0"},
            follow=True,
        )
        preview = time.perf_counter() - started
        assert not response.context["outcome"].has_problems
        started = time.perf_counter()
        confirmed = client.post(
            reverse("admin:catalogue_document_process_import"),
            response.context["confirm_form"].initial,
            follow=True,
        )
        confirm = time.perf_counter() - started
    assert confirmed.status_code == 200
    assert Document.objects.filter(registry__prefix="SPRA").count() == rows
    return {"import_rows": rows, "preview_seconds": preview, "confirm_seconds": confirm}


def ratios(figures):
    """Each figure as ours against its baseline from the same run."""
    f = figures
    copy_per_row = f["copy_seconds"] / f["documents"]
    import_per_row = (f["preview_seconds"] + f["confirm_seconds"]) / f["import_rows"]
    return {
        "export over HTTP / COPY of the table": f["export_seconds"]
        / f["table_seconds"],
        "export over HTTP / COPY": f["export_seconds"] / f["copy_seconds"],
        "first byte / whole export": f["first_byte_seconds"] / f["export_seconds"],
        "memory growth, all / a tenth": f["growth_all_kb"] / f["growth_tenth_kb"],
        "admin import per row / COPY per row": import_per_row / copy_per_row,
    }


def report(figures, write=True):
    f = figures
    lines = [
        "# Export and import benchmark",
        "",
        f"Sample record: {f['documents']:,} generated documents on PostgreSQL; "
        f"one gunicorn sync worker; {os.cpu_count()} cores. "
        "Written by `make bench-export`.",
        "",
        "| figure | measured | ratio | target |",
        "|---|---|---|---|",
        f"| export URL over HTTP vs `\\copy` of the documents table | "
        f"{f['export_seconds']:.2f} s vs {f['table_seconds']:.2f} s "
        f"({f['export_bytes']:,} vs {f['table_bytes']:,} bytes) | "
        f"{f['export_seconds'] / f['table_seconds']:.2f}× | ≤ 1.5× |",
        f"| export URL over HTTP vs COPY of the same SELECT | "
        f"{f['export_seconds']:.2f} s vs {f['copy_seconds']:.2f} s "
        f"({f['export_bytes']:,} vs {f['copy_bytes']:,} bytes) | "
        f"{f['export_seconds'] / f['copy_seconds']:.2f}× | report |",
        f"| time to first byte vs total | {f['first_byte_seconds'] * 1000:.1f} ms"
        f" vs {f['export_seconds']:.2f} s | "
        f"{f['first_byte_seconds'] / f['export_seconds']:.1%} | < 5% |",
        f"| worker peak memory growth, all vs a tenth | "
        f"{f['growth_all_kb']:,} KiB vs {f['growth_tenth_kb']:,} KiB | "
        f"{f['growth_all_kb'] / f['growth_tenth_kb']:.2f}× | ≤ 1.5× |",
        f"| admin import of {f['import_rows']:,} rows (dry run + confirm) | "
        f"{f['preview_seconds']:.1f} s + {f['confirm_seconds']:.1f} s | "
        f"{f['import_rows'] / f['preview_seconds']:.0f} + "
        f"{f['import_rows'] / f['confirm_seconds']:.0f} rows/s | report |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if write:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(text, encoding="utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--json", help="write the ratios to this file instead")
    args = parser.parse_args()
    ensure_database()
    setup()
    fill(args.documents)
    cookie = session_cookie()
    figures = measure_export(cookie, args.documents)
    figures.update(measure_import())
    report(figures, write=not args.json)
    if args.json:
        Path(args.json).write_text(json.dumps({"ratios": ratios(figures)}, indent=2))


if __name__ == "__main__":
    main()
