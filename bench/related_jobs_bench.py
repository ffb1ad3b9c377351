"""Related work after changes, coalesced and out of the request.

    make bench-related                      # 3,000 sample documents

Fills a PostgreSQL database (``BENCH_DATABASE_URL``, by default
``anthology_related_bench``) with ``generate_sample``'s documents, then, with
jobs run in the process (``JOBS_IN_PROCESS``, as under ``make run``) and
related work told of each change, times in this one run:

- a withdrawal with its related work recomputed inline, as it was, against
  the withdrawal alone, its related work left to the thread after it
  (the median of five each);
- a topic renamed (a whole-record recomputation) inline against alone;
- 100 withdrawal and reinstatement pairs, one commit each: the related-work
  jobs they made, against the 200 changes.

Prints the figures and ratios; writes ``bench/results/related-jobs.md``.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from pg_database import ensure_database

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "related-jobs.md"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/anthology_related_bench"

os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
os.environ["JOBS_IN_PROCESS"] = "1"
os.environ["RECORD_CHANGED"] = "similarity.queueing.documents_changed"
sys.path.insert(0, str(ROOT))


def median_seconds(function, repeat=5):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=3000)
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import override_settings

    import actions.documents
    import actions.filing
    from catalogue.models import Document, Topic
    from jobs import runner
    from jobs.models import Job
    from similarity.jobs import recompute_related
    from similarity.queueing import RELATED_JOB

    call_command("migrate", verbosity=0)
    if Document.objects.count() != args.documents:
        call_command("flush", "--no-input", verbosity=0)
        with override_settings(RECORD_CHANGED=""):
            call_command("generate_sample", documents=args.documents, verbosity=0)
            recompute_related()
    user, _ = get_user_model().objects.get_or_create(
        username="bench-superuser", defaults={"is_superuser": True}
    )
    document = Document.objects.public().order_by("pk")[5]
    topic = Topic.objects.order_by("pk").first()

    def withdraw_and_reinstate():
        actions.documents.withdraw(document=document, user=user, reason="Bench.")
        actions.documents.reinstate(document=document, user=user)

    def inline(change, documents):
        # As it was: the change, then its related work in the same request.
        def run():
            with override_settings(RECORD_CHANGED=""):
                change()
            recompute_related(documents=documents)

        return run

    def rename():
        topic.name = f"{topic.name.rstrip(' *')} *"
        actions.filing.save(obj=topic, user=user)

    seconds = {}
    seconds["withdrawal inline"] = median_seconds(
        inline(withdraw_and_reinstate, [document.pk])
    )
    seconds["withdrawal"] = median_seconds(withdraw_and_reinstate)
    runner.start_after_response()
    runner.wait_for_background()
    seconds["rename inline"] = median_seconds(inline(rename, None), 3)
    seconds["rename"] = median_seconds(rename, 3)
    runner.start_after_response()
    runner.wait_for_background()

    Job.objects.filter(function=RELATED_JOB).delete()
    for _ in range(100):
        withdraw_and_reinstate()
    made = Job.objects.filter(function=RELATED_JOB).count()
    runner.start_after_response()
    runner.wait_for_background()

    rows = [
        (
            "A withdrawal and its reinstatement, related work inline (as it was)",
            f"{seconds['withdrawal inline']:.3f} s",
        ),
        (
            "The same, related work after, in the thread",
            f"{seconds['withdrawal']:.3f} s",
        ),
        (
            "Ratio, after / inline",
            f"{seconds['withdrawal'] / seconds['withdrawal inline']:.3f}",
        ),
        (
            "A topic renamed, whole-record recomputation inline (as it was)",
            f"{seconds['rename inline']:.3f} s",
        ),
        ("The same, recomputation after, in the thread", f"{seconds['rename']:.3f} s"),
        (
            "Ratio, after / inline",
            f"{seconds['rename'] / seconds['rename inline']:.3f}",
        ),
        ("Related-work jobs made by 200 changes (was one each: 200)", str(made)),
    ]
    text = (
        f"# Related work after changes: {args.documents:,} documents\n\n"
        "`make bench-related` (bench/related_jobs_bench.py), JOBS_IN_PROCESS, "
        "PostgreSQL; medians of five (renames: three), in one run.\n\n"
        "| measure | figure |\n|---|---|\n"
        + "".join(f"| {name} | {value} |\n" for name, value in rows)
    )
    print(text)
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
