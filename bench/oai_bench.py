"""Benchmark of a full OAI-PMH harvest, on PostgreSQL.

    make bench-api                         # 100,000 sample documents
    .venv/bin/python bench/oai_bench.py --documents 20000 --json out.json

Fills its own database (BENCH_DATABASE_URL, default anthology_bench) with
generate_sample (``--generate N``: N of them, the rest copies of those,
renumbered, with their tags), serves it with gunicorn (one sync worker) on
127.0.0.1:8021 and measures, in this one run:

- a whole harvest, ListRecords (oai_dc and mods) and ListIdentifiers, every
  page over HTTP following the resumption tokens as a harvester does, against
  PostgreSQL's COPY of the same rows (the public documents with their
  registry, topic and tags, in the harvest's order);
- the worker's peak memory growth over a whole harvest against one page.

The figures are written to bench/results/oai.md and, with --json PATH, as
``{"ratios": {metric: value}}`` (lower is better) for `make bench-api`.
"""

import argparse
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from pg_database import ensure_database

ROOT = Path(__file__).resolve().parent.parent
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "oai.md"
PORT = int(os.environ.get("BENCH_OAI_PORT", "8021"))
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_bench"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
os.environ["ALLOWED_HOSTS"] = "127.0.0.1,testserver"
sys.path.insert(0, str(ROOT))

TOKEN_RE = re.compile(rb"<resumptionToken[^>]*>([^<]*)</resumptionToken>")
HEADER_RE = re.compile(rb"<header[ >]")

# The rows a harvest shows, as one SELECT for COPY: each public document with
# its registry's prefix, its topic and its tags, in (updated_at, id) order.
COPY_SELECT = """
SELECT d.id, d.updated_at, d.status, r.prefix, d.number, d.version, d.title,
       d.authors, d.year, d.source_identifier, d.citation_note, d.summary,
       d.author_list, d.venue, d.publication_type, d.publication_date, d.doi,
       t.slug, t.name, s.number AS successor,
       (SELECT string_agg(tag.name, ',' ORDER BY tag.name)
          FROM taggit_taggeditem item JOIN taggit_tag tag ON tag.id = item.tag_id
         WHERE item.object_id = d.id AND item.content_type_id = {content_type})
  FROM catalogue_document d
  JOIN catalogue_registry r ON r.id = d.registry_id
  LEFT JOIN catalogue_topic t ON t.id = d.topic_id
  LEFT JOIN catalogue_document s ON s.id = d.superseded_by_id
 WHERE d.status IN ('active', 'superseded', 'withdrawn')
 ORDER BY d.updated_at, d.id
"""


def setup():
    import django

    django.setup()


def fill(documents, generated):
    from django.core.management import call_command
    from django.db import connection

    from catalogue.models import Document

    call_command("migrate", verbosity=0)
    if Document.objects.count() != documents:
        call_command("flush", interactive=False, verbosity=0)
        started = time.perf_counter()
        call_command("generate_sample", documents=min(generated, documents))
        replicate(documents)
        print(f"filled: {time.perf_counter() - started:.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


# Copies are numbered this far above the documents they copy.
COPY_NUMBER_STEP = 1_000_000


def replicate(documents):
    """Copies of the generated documents, renumbered, with their tags, in SQL,
    until the record holds ``documents``: generate_sample's bookkeeping makes
    100,000 documents a long wait on a shared machine, and a harvest reads
    only the documents and their tags."""
    from django.contrib.contenttypes.models import ContentType
    from django.db import connection

    from catalogue.models import Document

    columns = [
        field.column
        for field in Document._meta.concrete_fields
        if field.column not in {"id", "number"}
    ]
    names = ", ".join(f'"{column}"' for column in columns)
    content_type = ContentType.objects.get_for_model(Document).pk
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), max(id) FROM catalogue_document")
        count, last = cursor.fetchone()
        generated, copy = count, 0
        while count < documents:
            copy += 1
            step = copy * COPY_NUMBER_STEP
            cursor.execute(
                f"INSERT INTO catalogue_document ({names}, number) "
                f"SELECT {names}, number + %s FROM catalogue_document "
                "WHERE id <= %s ORDER BY id LIMIT %s",
                [step, last, min(generated, documents - count)],
            )
            cursor.execute(
                "INSERT INTO taggit_taggeditem (tag_id, object_id, content_type_id) "
                "SELECT item.tag_id, copy.id, item.content_type_id "
                "FROM taggit_taggeditem item "
                "JOIN catalogue_document original ON original.id = item.object_id "
                "JOIN catalogue_document copy ON copy.registry_id = "
                "original.registry_id AND copy.number = original.number + %s "
                "WHERE item.content_type_id = %s",
                [step, content_type],
            )
            cursor.execute("SELECT count(*) FROM catalogue_document")
            count = cursor.fetchone()[0]


class Server:
    """gunicorn with one sync worker."""

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
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        for _ in range(300):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT).connect()
                if workers := children.read_text().split():
                    self.worker = int(workers[0])
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("gunicorn did not start")

    def memory_kb(self, field):
        for line in Path(f"/proc/{self.worker}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
        raise LookupError(field)

    def __exit__(self, *exc):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def ask(conn, **arguments):
    conn.request("GET", f"/oai/?{urlencode(arguments)}")
    response = conn.getresponse()
    body = response.read()
    assert response.status == 200, response.status
    assert b"<error" not in body, body[:500]
    return body


def harvest(verb, prefix, *, pages=None):
    """(seconds, records, pages, bytes) of a harvest, whole or its first pages."""
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=600)
    started = time.perf_counter()
    body = ask(conn, verb=verb, metadataPrefix=prefix)
    records, count, size = len(HEADER_RE.findall(body)), 1, len(body)
    while (match := TOKEN_RE.search(body)) and match[1]:
        if pages is not None and count >= pages:
            break
        body = ask(conn, verb=verb, resumptionToken=match[1].decode())
        records += len(HEADER_RE.findall(body))
        count += 1
        size += len(body)
    return time.perf_counter() - started, records, count, size


def copy_time():
    """PostgreSQL's own COPY of the harvest's rows, read to the end."""
    import psycopg
    from django.conf import settings
    from django.contrib.contenttypes.models import ContentType

    from catalogue.models import Document

    db = settings.DATABASES["default"]
    content_type = ContentType.objects.get_for_model(Document).pk
    statement = f"COPY ({COPY_SELECT.format(content_type=content_type)}) TO STDOUT"
    with psycopg.connect(
        host=db["HOST"], user=db["USER"], dbname=db["NAME"], autocommit=True
    ) as conn:
        started = time.perf_counter()
        rows = size = 0
        with conn.cursor().copy(statement) as copy:
            for row in copy.rows():
                rows += 1
                size += sum(len(value or "") for value in row)
        return time.perf_counter() - started, rows, size


def measure(documents):
    from catalogue.models import Document

    public = Document.objects.public().count()
    figures = {"documents": documents, "public": public}
    copies = [copy_time() for _ in range(3)]
    figures["copy_seconds"], copy_rows, figures["copy_bytes"] = min(copies)
    assert copy_rows == public, (copy_rows, public)
    with Server() as server:
        harvest("ListRecords", "oai_dc", pages=2)  # warm up
        before = server.memory_kb("VmRSS")
        harvest("ListRecords", "oai_dc", pages=1)
        figures["growth_page_kb"] = max(server.memory_kb("VmHWM") - before, 1)
        for verb, prefix in [
            ("ListRecords", "oai_dc"),
            ("ListRecords", "mods"),
            ("ListIdentifiers", "oai_dc"),
        ]:
            seconds, records, pages, size = harvest(verb, prefix)
            assert records == public, (verb, records, public)
            figures[f"{verb}:{prefix}"] = (seconds, pages, size)
        figures["growth_all_kb"] = max(server.memory_kb("VmHWM") - before, 1)
    return figures


def ratios(f):
    copy = f["copy_seconds"]
    return {
        "oai_listrecords_oai_dc_harvest_over_copy": f["ListRecords:oai_dc"][0] / copy,
        "oai_listrecords_mods_harvest_over_copy": f["ListRecords:mods"][0] / copy,
        "oai_listidentifiers_harvest_over_copy": f["ListIdentifiers:oai_dc"][0] / copy,
        "oai_memory_growth_harvest_over_page": f["growth_all_kb"] / f["growth_page_kb"],
    }


def report(f, results=RESULTS):
    r = ratios(f)
    rows = []
    for key, label in [
        ("ListRecords:oai_dc", "ListRecords, oai_dc"),
        ("ListRecords:mods", "ListRecords, mods"),
        ("ListIdentifiers:oai_dc", "ListIdentifiers"),
    ]:
        seconds, pages, size = f[key]
        rows.append(
            f"| a whole harvest, {label} ({pages:,} pages, {size:,} bytes) vs "
            f"COPY | {seconds:.1f} s vs {f['copy_seconds']:.2f} s | "
            f"{seconds / f['copy_seconds']:.1f}× |"
        )
    lines = [
        "# OAI-PMH harvest benchmark",
        "",
        f"Sample record: {f['documents']:,} documents ({f['public']:,} public; "
        f"{f['generated']:,} made by generate_sample, the others copies of them, "
        "renumbered, with their tags) on PostgreSQL; one gunicorn sync worker; "
        f"{os.cpu_count()} cores, "
        "shared with other work while it ran (ratios are within this one run). "
        "Written by `bench/oai_bench.py` (`make bench-api`).",
        "",
        "COPY reads the same rows the harvest shows (each public document with "
        "its registry, topic, successor and tags, in the harvest's order) "
        f"straight from PostgreSQL: {f['copy_bytes']:,} bytes of values.",
        "",
        "| figure | measured | ratio |",
        "|---|---|---|",
        *rows,
        f"| worker peak memory growth, three whole harvests vs one page | "
        f"{f['growth_all_kb']:,} KiB vs {f['growth_page_kb']:,} KiB | "
        f"{r['oai_memory_growth_harvest_over_page']:.2f}× |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    results.parent.mkdir(exist_ok=True)
    results.write_text(text, encoding="utf-8")
    return r


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument(
        "--generate",
        type=int,
        help="how many of them generate_sample makes (all by default); the "
        "rest are copies of those, renumbered",
    )
    parser.add_argument("--json", type=Path, help="write the ratios here")
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help="the Markdown report's path"
    )
    args = parser.parse_args()
    ensure_database()
    setup()
    fill(args.documents, args.generate or args.documents)
    figures = measure(args.documents)
    figures["generated"] = min(args.generate or args.documents, args.documents)
    found = report(figures, args.results)
    if args.json:
        args.json.write_text(json.dumps({"ratios": found}, indent=2) + "\n")


if __name__ == "__main__":
    main()
