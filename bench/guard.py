"""The benchmarks' regression guard: every benchmark, small, against its last
recorded figures.

    make bench                  # run, compare, print what moved
    make bench RECORD=1         # run each BENCH_RUNS times, record the figures
    make bench BENCH_ONLY=export,render

Every benchmark listed in ``BENCHMARKS`` takes ``--documents N`` (its size)
and ``--json PATH``, and writes ``{"ratios": {"metric": value}}`` there: each
value a ratio of two timings (or sizes) from the same run, ours against a
baseline, so lower is better and the machine's speed cancels out. The guard
runs each at a size that fits a minute or two, and compares every ratio with
the one recorded in bench/results/guard.json: a ratio that changed by more
than its noise band is printed as moved (slower or faster).

The noise band of a metric is measured: recording (``--record``) runs every
benchmark ``--runs`` times and keeps, per metric, the median as the figure and
the spread of the runs ((max - min) / median) as the band, never narrower than
``NOISE_FLOOR``, since a few runs on a shared machine understate the spread.

A listed script that is not there (a benchmark not merged yet), or whose
programs are missing, is skipped with a line saying so. The guard exits 1 when
a ratio moved slower or a benchmark failed, 0 otherwise; CI prints its table
and goes on either way.
"""

import argparse
import contextlib
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "bench" / "results" / "guard.json"

# A ratio moves only past its measured spread and never within this share of
# its last figure: three runs on a shared machine understate the spread.
NOISE_FLOOR = 0.10

# The guard's benchmarks fill databases of their own, so a full-size run's
# database (make bench-export and the rest) is never emptied to a small one.
DATABASE_PREFIX = os.environ.get("BENCH_GUARD_DATABASE_PREFIX", "anthology_guard")


def database(name):
    return f"postgres://postgres@127.0.0.1:5432/{DATABASE_PREFIX}_{name}"


@dataclass(frozen=True)
class Benchmark:
    """One benchmark as the guard runs it: ``script`` (from the repository's
    root) at ``documents``, with ``extra`` arguments and ``env`` added to the
    environment; skipped when one of the ``needs`` programs is missing."""

    name: str
    script: str
    documents: int | None
    extra: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    def command(self, json_path):
        size = () if self.documents is None else ("--documents", str(self.documents))
        return [sys.executable, self.script, *size, *self.extra, "--json", json_path]

    def missing(self):
        """Why this benchmark cannot run here, or None."""
        if not (ROOT / self.script).exists():
            return f"{self.script} is not on this branch"
        for program in self.needs:
            if not shutil.which(program):
                return f"{program} is not installed"
        return None


# bench/load_faults.py is left out: it restarts this machine's PostgreSQL and
# Redis, holds 64 clients for a minute a phase, and reports failures and
# latencies under faults, not ratios against a baseline. bench/attack_bench.py
# too: its ratio is a latency under a flood, which the readers' limits and
# their fixed minute windows shape, and a run takes minutes at any size.
BENCHMARKS = [
    Benchmark("render", "bench/render_bench.py", None, ("--repeat", "2")),
    Benchmark(
        "export",
        "bench/export_bench.py",
        2_000,
        env={"BENCH_DATABASE_URL": database("export"), "BENCH_PORT": "8021"},
    ),
    Benchmark(
        "serve",
        "bench/serve_bench.py",
        2_000,
        env={"BENCH_SERVE_DATABASE_URL": database("serve"), "BENCH_SERVE_PORT": "8037"},
    ),
    Benchmark(
        "edge",
        "bench/edge_bench.py",
        2_000,
        ("--publications", "10", "--seconds", "2", "--rounds", "1"),
        needs=("wrk",),
        env={"BENCH_EDGE_DATABASE_URL": database("edge")},
    ),
    Benchmark(
        "jobs",
        "bench/jobs_bench.py",
        1_000,
        ("--rows", "1000"),
        env={"BENCH_JOBS_DATABASE_URL": database("jobs"), "BENCH_JOBS_PORT": "8057"},
    ),
    Benchmark(
        "search-render",
        "bench/search_render_bench.py",
        2_000,
        env={"BENCH_SEARCH_DATABASE_URL": database("search")},
    ),
    Benchmark(
        "import",
        "bench/import_bench.py",
        2_000,
        env={"BENCH_DATABASE_URL": database("import")},
    ),
    Benchmark(
        "api",
        "bench/api_bench.py",
        2_000,
        env={"BENCH_DATABASE_URL": database("api")},
    ),
    Benchmark(
        "oai",
        "bench/oai_bench.py",
        2_000,
        env={"BENCH_DATABASE_URL": database("oai")},
    ),
    Benchmark(
        "map",
        "bench/map_bench.py",
        2_000,
        env={"BENCH_DATABASE_URL": database("map")},
    ),
    Benchmark(
        "stats",
        "bench/stats_bench.py",
        2_000,
        env={"BENCH_DATABASE_URL": database("stats")},
    ),
]


# The comparison: pure functions of the recorded and the measured figures.


def band(noise):
    """The share a ratio may change by and still be noise."""
    return max(noise or 0.0, NOISE_FLOOR)


def change(last, now):
    """``now`` against ``last`` as a share of ``last`` (+0.25: 25% higher)."""
    if last == 0:
        return 0.0 if now == 0 else float("inf")
    return now / last - 1


def verdict(recorded, now):
    """What a metric did: "new" (no figure recorded), "not run", "slower" or
    "faster" (past its noise band; lower ratios are better), or "" (noise)."""
    if recorded is None:
        return "new"
    if now is None:
        return "not run"
    moved = change(recorded["last"], now)
    if abs(moved) <= band(recorded.get("noise")):
        return ""
    return "slower" if moved > 0 else "faster"


def compare(recorded, measured):
    """One row per metric, recorded or measured, in the order of the record
    then of the measurement: ``(benchmark, metric, last, now, change, noise,
    verdict)``. ``recorded`` maps a benchmark to its metrics'
    ``{"last": ratio, "noise": share}``; ``measured`` maps a benchmark that
    ran to its metrics' ratios."""
    names = list(dict.fromkeys([*recorded, *measured]))
    rows = []
    for name in names:
        before = recorded.get(name, {})
        now = measured.get(name, {})
        for metric in dict.fromkeys([*before, *now]):
            figure, value = before.get(metric), now.get(metric)
            moved = None
            if figure is not None and value is not None:
                moved = change(figure["last"], value)
            rows.append(
                (
                    name,
                    metric,
                    None if figure is None else figure["last"],
                    value,
                    moved,
                    None if figure is None else band(figure.get("noise")),
                    verdict(figure, value),
                )
            )
    return rows


def summarise(runs):
    """The figures to record from several runs of the same benchmarks: per
    metric, the median and the spread ((max - min) / median) of its runs."""
    values = {}
    for run in runs:
        for name, ratios in run.items():
            for metric, value in ratios.items():
                values.setdefault(name, {}).setdefault(metric, []).append(value)
    summary = {}
    for name, metrics in values.items():
        summary[name] = {}
        for metric, seen in metrics.items():
            middle = statistics.median(seen)
            spread = (max(seen) - min(seen)) / middle if middle else 0.0
            summary[name][metric] = {
                "last": middle,
                "noise": spread,
                "runs": len(seen),
            }
    return summary


def merged(recorded, summary):
    """The record after a calibration: the benchmarks it ran replaced whole,
    the others (skipped here) kept as they were."""
    return {**recorded, **summary}


# Running and printing.


def run(benchmark, budget):
    """The ratios ``benchmark`` writes, or None (after printing why)."""
    with tempfile.TemporaryDirectory(prefix="anthology-guard-") as work:
        output = Path(work) / "ratios.json"
        log = Path(work) / "output.log"
        started = time.monotonic()
        with log.open("wb") as sink:
            process = subprocess.Popen(
                benchmark.command(str(output)),
                cwd=ROOT,
                # Its Markdown report goes to the guard's directory, not
                # over the recorded one in bench/results/.
                env={**os.environ, **benchmark.env, "BENCH_RESULTS_DIR": work},
                stdout=sink,
                stderr=subprocess.STDOUT,
                # Its servers and workers form a group, ended with it.
                start_new_session=True,
            )
            try:
                status = process.wait(timeout=budget)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=60)
                status = None
            finally:
                with_group_ended(process)
        seconds = time.monotonic() - started
        if status is None or status != 0 or not output.exists():
            why = f"ran out of its {budget:.0f} s" if status is None else "failed"
            print(f"{benchmark.name}: {why} after {seconds:.0f} s; its last lines:")
            lines = log.read_text(errors="replace").splitlines()[-15:]
            print("\n".join(f"    {line}" for line in lines))
            return None
        ratios = json.loads(output.read_text())["ratios"]
        print(f"{benchmark.name}: {len(ratios)} ratios in {seconds:.0f} s")
        return ratios


def with_group_ended(process):
    """Servers a benchmark left behind end with it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)


def run_all(benchmarks, budget, per_benchmark):
    """The ratios of every benchmark that ran, within ``budget`` seconds."""
    deadline = time.monotonic() + budget
    measured = {}
    for benchmark in benchmarks:
        if why := benchmark.missing():
            print(f"{benchmark.name}: skipped, {why}")
            continue
        left = deadline - time.monotonic()
        if left < 30:
            print(f"{benchmark.name}: skipped, the guard's {budget} s are spent")
            continue
        print(f"{benchmark.name}: {' '.join(benchmark.command('PATH')[1:])}")
        sys.stdout.flush()
        ratios = run(benchmark, min(per_benchmark, left))
        if ratios is not None:
            measured[benchmark.name] = ratios
    return measured


def figure(value, signed=False):
    if value is None:
        return "—"
    if value == float("inf"):
        return "+inf"
    return f"{value:+.1%}" if signed else f"{value:.3g}"


def table(rows):
    head = ("benchmark", "metric", "last", "now", "change", "noise", "")
    lines = [
        (
            name,
            metric,
            figure(last),
            figure(now),
            figure(moved, signed=True),
            "—" if noise is None else f"±{noise:.0%}",
            what.upper() if what in {"slower", "faster"} else what,
        )
        for name, metric, last, now, moved, noise, what in rows
    ]
    widths = [
        max(len(cell) for cell in column) for column in zip(head, *lines, strict=True)
    ]
    return "\n".join(
        "  ".join(
            cell.ljust(width) for cell, width in zip(line, widths, strict=True)
        ).rstrip()
        for line in [head, *lines]
    )


def load(path):
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["benchmarks"]


def save(path, benchmarks, runs):
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True
    ).stdout.decode()
    record = {
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit.strip(),
        "runs": runs,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "benchmarks": benchmarks,
    }
    text = json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True)
    path.write_text(text + "\n", encoding="utf-8")


def record(chosen, args):
    """Run every benchmark ``args.runs`` times and record their figures."""
    recorded = load(args.file)
    runs = []
    for number in range(1, args.runs + 1):
        print(f"== run {number} of {args.runs}")
        runs.append(run_all(chosen, args.budget, args.timeout))
    summary = summarise(runs)
    medians = {
        name: {metric: figures["last"] for metric, figures in metrics.items()}
        for name, metrics in summary.items()
    }
    print(table(compare(recorded, medians)))
    save(args.file, merged(recorded, summary), args.runs)
    print(f"Recorded {sum(map(len, summary.values()))} ratios in {args.file}")
    return 0


def check(chosen, args):
    """Run every benchmark once and print what moved against the record."""
    recorded = load(args.file)
    measured = run_all(chosen, args.budget, args.timeout)
    names = {benchmark.name for benchmark in chosen}
    rows = compare({n: f for n, f in recorded.items() if n in names}, measured)
    print(table(rows))
    slower = sum(row[-1] == "slower" for row in rows)
    faster = sum(row[-1] == "faster" for row in rows)
    failed = [b.name for b in chosen if b.name not in measured and not b.missing()]
    print(
        f"{slower} ratios moved slower, {faster} faster beyond their noise; "
        f"benchmarks that did not finish: {', '.join(failed) or 'none'}"
    )
    return 1 if slower or failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="record the figures")
    parser.add_argument("--runs", type=int, default=3, help="runs when recording")
    parser.add_argument("--only", help="comma-separated benchmark names")
    parser.add_argument("--budget", type=int, default=900, help="seconds a run")
    parser.add_argument("--timeout", type=int, default=300, help="seconds each")
    parser.add_argument("--file", type=Path, default=RECORD)
    args = parser.parse_args()
    # A CI step's timeout ends the benchmark running, with its servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    chosen = BENCHMARKS
    if args.only:
        names = set(args.only.split(","))
        if unknown := names - {benchmark.name for benchmark in BENCHMARKS}:
            parser.error(f"no benchmark named {', '.join(sorted(unknown))}")
        chosen = [benchmark for benchmark in BENCHMARKS if benchmark.name in names]
    return record(chosen, args) if args.record else check(chosen, args)


if __name__ == "__main__":
    sys.exit(main())
