"""Benchmark of related work and candidate topics, on PostgreSQL.

    make bench-map                          # 100,000 sample documents
    make bench-map BENCH_DOCUMENTS=20000
    .venv/bin/python bench/map_bench.py --documents 100000 --json map.json

Fills its own database (BENCH_DATABASE_URL, default anthology_map_bench) with
``generate_sample``'s sample documents, in bulk (a database that already
holds that many documents, such as a copy of one ``generate_sample`` filled,
is used as it is), then times, in this one run:

- the baseline: reading the same public texts, tags and references with raw
  SQL (what any computation over the record must read at least);
- the model: reading the public record (``corpus``) and vectorising it
  (``compute.build``), which every recomputation does first;
- the neighbour search of the whole record alone (``compute.related``), and,
  up to ``--reference-up-to`` documents (20,000), the comparison of every
  pair the record used before (kept as the reference in
  tests/similarity/test_related_as_before.py), on the same model;
- related work of the whole record (read, vectorise, search, store);
- related work after one changed document (its list and those it affects),
  end to end: with the model kept by the last recomputation
  (``similarity.store``, in a directory of the benchmark's own), and without
  one (the job reads and vectorises the whole record first, as every job did
  before the model was kept), in the same run; and its search alone
  (``affected`` and ``related`` on a model already built);
- candidate topics of the whole record; a changed document recomputes them
  whole, so that figure is the same job.

``--changes-only`` leaves out the whole-record searches and candidate
topics (minutes at 100,000 documents) and times the rest.

Each is given as a ratio to the baseline (LOWER is better), written with
``--json`` as ``{"ratios": {...}, "seconds": {...}}``; bench/results/map.md
is written by hand from what it prints.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pg_database import ensure_database

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_map_bench"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
# The benchmark runs each recomputation itself: none on a change.
os.environ["RECORD_CHANGED"] = ""
# The related-work model kept between jobs is the benchmark's own.
os.environ["RELATED_MODEL_DIR"] = tempfile.mkdtemp(prefix="map-bench-model-")
sys.path.insert(0, str(ROOT))


def fill(documents):
    """``documents`` sample documents as ``generate_sample`` writes them (its
    registries, topics, tags and text), inserted in bulk: the benchmark times
    reading and computing, not the writing of its own fixture, so it skips the
    versions and audit entries an import keeps."""
    import random

    from django.contrib.contenttypes.models import ContentType
    from django.core.management import call_command
    from django.db import connection, transaction
    from taggit.models import Tag, TaggedItem

    from catalogue.models import Document, Reference, Registry
    from catalogue.references import find_names
    from imports.management.commands import generate_sample

    call_command("migrate", verbosity=0)
    if Document.objects.count() == documents:
        return
    call_command("flush", interactive=False, verbosity=0)
    started = time.perf_counter()
    rng = random.Random(5)
    sample = generate_sample.Command()
    # Authors come from a generator of their own, as generate_sample's do.
    sample.authors_rng = random.Random(6)
    sample.groups = generate_sample.sample_groups(sample.authors_rng)
    with transaction.atomic():
        registry = Registry.objects.create(
            prefix="SLIT", name=generate_sample.REGISTRIES[0][1]
        )
        topics = sample.topics()
        tags = [
            Tag.objects.create(name=f"sample-{word}", slug=f"sample-{word}")
            for word in generate_sample.TAG_WORDS
        ]
        kind = ContentType.objects.get_for_model(Document)
        for start in range(0, documents, 5000):
            batch = Document.objects.bulk_create(
                sample.document(rng, registry, number, topics)
                for number in range(start + 1, min(documents, start + 5000) + 1)
            )
            TaggedItem.objects.bulk_create(
                TaggedItem(content_type=kind, object_id=document.pk, tag=tag)
                for document in batch
                for tag in rng.sample(tags, rng.randint(0, 3))
            )
            Reference.objects.bulk_create(
                Reference(document=document, prefix=name.prefix, number=name.number)
                for document in batch
                for name in find_names(document.summary)
            )
    print(f"filled {documents} documents: {time.perf_counter() - started:.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


SCAN = [
    "SELECT d.id, r.prefix, d.number, d.topic_id, d.title, d.summary "
    "FROM catalogue_document d JOIN catalogue_registry r ON r.id = d.registry_id "
    "WHERE d.status IN ('active', 'superseded') ORDER BY d.id",
    "SELECT t.object_id, t.tag_id FROM taggit_taggeditem t "
    "JOIN django_content_type c ON c.id = t.content_type_id "
    "WHERE c.app_label = 'catalogue' AND c.model = 'document'",
    "SELECT f.document_id, f.prefix, f.number FROM catalogue_reference f "
    "JOIN catalogue_document d ON d.id = f.document_id "
    "WHERE f.log_id IS NULL AND d.status IN ('active', 'superseded')",
]


def scan():
    """Read what the computation reads, by raw SQL: the baseline."""
    from django.db import connection

    with connection.cursor() as cursor:
        for sql in SCAN:
            cursor.execute(sql)
            cursor.fetchall()


def timed(function, repeat=1):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--reference-up-to", type=int, default=20_000)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--changes-only", action="store_true")
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from catalogue.models import Document, RelatedDocument
    from similarity import compute, store
    from similarity.corpus import public_entries
    from similarity.jobs import affected, recompute_candidates, recompute_related

    fill(args.documents)
    RelatedDocument.objects.all().delete()
    seconds = {"scan": timed(scan, repeat=3)}
    print(f"baseline scan: {seconds['scan']:.2f} s")
    found = {}
    seconds["read"] = timed(lambda: found.update(entries=public_entries()))
    seconds["vectorise"] = timed(
        lambda: found.update(model=compute.build(found["entries"]))
    )
    seconds["model"] = seconds["read"] + seconds["vectorise"]
    model = found["model"]
    print(
        f"model of {len(model.entries)} public documents: read "
        f"{seconds['read']:.2f} s, vectorised {seconds['vectorise']:.2f} s"
    )
    if not args.changes_only:
        seconds["related_search"] = timed(lambda: compute.related(model))
        print(f"related, whole record, search alone: {seconds['related_search']:.1f} s")
    if args.documents <= args.reference_up_to and not args.changes_only:
        from tests.similarity.test_related_as_before import reference_related

        seconds["reference_search"] = timed(lambda: reference_related(model))
        print(
            "related, whole record, every pair compared (as before): "
            f"{seconds['reference_search']:.1f} s"
        )
    if args.changes_only:
        # What the whole-record job keeps: the model, as of a mark read first.
        since = store.mark()
        seconds["model_saved"] = timed(lambda: store.save(model, since))
        print(f"model kept: {seconds['model_saved']:.2f} s")
    else:
        seconds["related_whole"] = timed(lambda: recompute_related())
        print(f"related, whole record, end to end: {seconds['related_whole']:.1f} s")
    print(f"model file: {store.path().stat().st_size / 1e6:.1f} MB")
    one = (
        Document.objects.filter(status="active", topic__isnull=False)
        .order_by("pk")
        .values_list("pk", flat=True)[len("map") * 1000 % max(args.documents, 1)]
    )
    kept = store.path().read_bytes()

    def without_model():
        store.path().unlink()
        recompute_related(documents=[one])

    seconds["related_one_rebuilt"] = timed(without_model, 3)
    print(
        "related, one changed document, end to end, no model kept (read and "
        f"vectorise the record): {seconds['related_one_rebuilt']:.2f} s"
    )
    store.path().write_bytes(kept)
    seconds["related_one"] = timed(lambda: recompute_related(documents=[one]), 3)
    print(
        "related, one changed document, end to end, model kept: "
        f"{seconds['related_one']:.2f} s"
    )
    seconds["related_one_search"] = timed(
        lambda: compute.related(model, affected(model, [one])), 3
    )
    print(
        "related, one changed document, search alone: "
        f"{seconds['related_one_search']:.3f} s"
    )
    if args.changes_only:
        return report(args, seconds)
    seconds["candidates_whole"] = timed(recompute_candidates)
    print(f"candidates, whole record: {seconds['candidates_whole']:.1f} s")
    seconds["candidates_one"] = seconds["candidates_whole"]
    return report(args, seconds)


def report(args, seconds):
    ratios = {
        name: round(value / seconds["scan"], 2)
        for name, value in seconds.items()
        if name not in ("scan", "read", "vectorise")
    }
    ratios["one_change_rebuilt_over_kept"] = round(
        seconds["related_one_rebuilt"] / seconds["related_one"], 2
    )
    if "reference_search" in seconds:
        ratios["search_before_over_now"] = round(
            seconds["reference_search"] / seconds["related_search"], 2
        )
    if args.json:
        args.json.write_text(json.dumps({"ratios": ratios, "seconds": seconds}))
    print(json.dumps({"ratios": ratios, "seconds": seconds}, indent=2))


if __name__ == "__main__":
    main()
