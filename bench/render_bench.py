"""Benchmark of a decision page's body: rendered on each request (as before)
against read stored and placed (as now), in one run, in this process.

    make bench-render

For the largest body a decision may hold, in the shapes that cost the
renderer most (a wide table, a run of brackets, headings) and in prose, it
times, best of ``--repeat`` runs each:

- what a reader's request did before: the Markdown rendered and sanitised,
  then names linked;
- what it does now: the stored HTML's links and images placed, then names
  linked;
- what a save does now: the Markdown rendered once.

The figures, with the ratio of the request's work before to now, are written
to bench/results/render.md. With ``--json PATH`` (as `make bench` runs it) the
ratios go to PATH instead, as now / before, lower being better; the bodies are
always of the limit's size, so ``--documents`` changes nothing here.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# BENCH_RESULTS_DIR: elsewhere than bench/results/ (the guard's small runs).
RESULTS_DIR = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "bench" / "results")
RESULTS = RESULTS_DIR / "render.md"

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
sys.path.insert(0, str(ROOT))


def bodies(limit):
    row = "|a" * 2000 + "|\n"
    return {
        "wide table": (row + "|-" * 2000 + "|\n" + row * 30)[:limit],
        "brackets": "[" * limit,
        "headings": ("# a\n" * limit)[:limit],
        "prose": ("Names LIT-004 and [the next](0002-next.md). *So* it goes. " * limit)[
            :limit
        ],
    }


def best(repeat, work):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--documents", type=int, help="accepted; not used")
    parser.add_argument("--json", help="write the ratios to this file instead")
    args = parser.parse_args()
    import django

    django.setup()
    from catalogue.markdown import render_markdown
    from catalogue.models.decision import BODY_MAX_CHARACTERS
    from public.links import link_names_in_html, place_files

    files = {"0002-next.md": "/decisions/ADR-002/"}
    lines = [
        "# Decision bodies: rendered per request (before) and stored (now)",
        "",
        f"Bodies of {BODY_MAX_CHARACTERS:,} characters (the limit); best of "
        f"{args.repeat} runs each, in one process (`make bench-render`).",
        "",
        "| body | request before (render) | request now (stored) | before / now "
        "| save now (render once) |",
        "|---|---:|---:|---:|---:|",
    ]
    ratios = {}
    for shape, body in bodies(BODY_MAX_CHARACTERS).items():
        stored = render_markdown(body)

        def before(body=body):
            link_names_in_html(render_markdown(body, files=files, images={}), {})

        def now(stored=stored):
            link_names_in_html(place_files(stored, files=files, images={}), {})

        then, today = best(args.repeat, before), best(args.repeat, now)
        save = best(args.repeat, lambda body=body: render_markdown(body))
        lines.append(
            f"| {shape} | {then * 1000:,.1f} ms | {today * 1000:,.2f} ms | "
            f"{then / today:,.0f}× | {save * 1000:,.1f} ms |"
        )
        print(lines[-1], flush=True)
        ratios[f"request now / before, {shape}"] = today / then
    if args.json:
        Path(args.json).write_text(json.dumps({"ratios": ratios}, indent=2))
        return
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"Written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
