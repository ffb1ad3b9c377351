"""The benchmarks' regression guard (bench/guard.py): each ratio against its
last recorded figure and the noise band measured from repeated runs."""

import ast
import json
from types import SimpleNamespace

import pytest

from bench import guard
from bench.guard import NOISE_FLOOR, Benchmark, compare, merged, summarise, table


def recorded(last, noise=0.0):
    return {"last": last, "noise": noise, "runs": 3}


def verdicts(rows):
    return {(name, metric): what for name, metric, *_, what in rows}


def test_a_ratio_within_its_measured_noise_has_not_moved():
    rows = compare(
        {"export": {"export / COPY": recorded(2.0, noise=0.30)}},
        {"export": {"export / COPY": 2.5}},
    )
    assert rows == [("export", "export / COPY", 2.0, 2.5, 0.25, 0.30, "")]


def test_a_ratio_past_its_noise_moved_slower_or_faster():
    rows = compare(
        {"serve": {"up": recorded(1.0, 0.2), "down": recorded(1.0, 0.2)}},
        {"serve": {"up": 1.3, "down": 0.7}},
    )
    assert verdicts(rows) == {("serve", "up"): "slower", ("serve", "down"): "faster"}


def test_a_band_is_never_narrower_than_the_floor():
    """Three identical runs measure no spread; the floor still holds."""
    inside = 1 + NOISE_FLOOR / 2
    outside = 1 + NOISE_FLOOR * 1.5
    rows = compare(
        {"render": {"a": recorded(1.0, 0.0), "b": recorded(1.0, 0.0)}},
        {"render": {"a": inside, "b": outside}},
    )
    assert verdicts(rows) == {("render", "a"): "", ("render", "b"): "slower"}
    assert [row[5] for row in rows] == [NOISE_FLOOR, NOISE_FLOOR]


def test_without_a_record_every_metric_is_new():
    rows = compare({}, {"jobs": {"job / synchronous": 1.2}})
    assert rows == [("jobs", "job / synchronous", None, 1.2, None, None, "new")]


def test_a_new_metric_is_new_beside_the_recorded_ones():
    rows = compare(
        {"serve": {"old": recorded(1.0)}},
        {"serve": {"old": 1.01, "added": 3.0}},
    )
    assert verdicts(rows) == {("serve", "old"): "", ("serve", "added"): "new"}


def test_a_recorded_metric_not_measured_is_not_run():
    rows = compare({"edge": {"gone": recorded(0.5)}}, {})
    assert rows == [("edge", "gone", 0.5, None, None, NOISE_FLOOR, "not run")]


def test_a_ratio_recorded_at_zero_moves_on_any_rise():
    rows = compare(
        {"edge": {"missed": recorded(0.0), "still": recorded(0.0)}},
        {"edge": {"missed": 0.1, "still": 0.0}},
    )
    assert verdicts(rows) == {("edge", "missed"): "slower", ("edge", "still"): ""}


def test_recording_keeps_the_median_and_the_spread_of_the_runs():
    runs = [
        {"export": {"a": 1.0, "b": 2.0}},
        {"export": {"a": 1.2, "b": 2.0}},
        {"export": {"a": 0.9, "b": 2.0}},
    ]
    assert summarise(runs) == {
        "export": {
            "a": {"last": 1.0, "noise": pytest.approx(0.3), "runs": 3},
            "b": {"last": 2.0, "noise": 0.0, "runs": 3},
        }
    }


def test_recording_keeps_the_figures_of_benchmarks_that_did_not_run():
    before = {"edge": {"a": recorded(1.0)}, "serve": {"old": recorded(2.0)}}
    after = merged(before, {"serve": {"new": recorded(3.0)}})
    assert after == {"edge": {"a": recorded(1.0)}, "serve": {"new": recorded(3.0)}}


def test_the_table_names_what_moved():
    rows = compare(
        {"serve": {"topic page / psycopg": recorded(2.0, 0.05)}},
        {"serve": {"topic page / psycopg": 3.0}},
    )
    text = table(rows)
    assert text.splitlines()[0].split() == [
        "benchmark",
        "metric",
        "last",
        "now",
        "change",
        "noise",
    ]
    assert text.splitlines()[1].split() == [
        *("serve", "topic", "page", "/", "psycopg"),
        *("2", "3", "+50.0%", "±10%", "SLOWER"),
    ]


def test_a_listed_script_not_on_the_branch_is_skipped(capsys):
    pending = Benchmark("pending", "bench/not_merged_yet_bench.py", 10)
    assert guard.run_all([pending], budget=60, per_benchmark=60) == {}
    assert capsys.readouterr().out == (
        "pending: skipped, bench/not_merged_yet_bench.py is not on this branch\n"
    )


def test_the_ratios_a_benchmark_writes_are_read_and_a_failure_is_shown(
    tmp_path, capsys
):
    good = tmp_path / "good.py"
    good.write_text(
        "import json, sys\n"
        "args = sys.argv[1:]\n"
        "assert args[:2] == ['--documents', '7']\n"
        "json.dump({'ratios': {'ours / baseline': 1.5}}, open(args[-1], 'w'))\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text("print('no database here')\nraise SystemExit(3)\n")
    measured = guard.run_all(
        [Benchmark("good", str(good), 7), Benchmark("bad", str(bad), 7)],
        budget=120,
        per_benchmark=60,
    )
    assert measured == {"good": {"ours / baseline": 1.5}}
    out = capsys.readouterr().out
    assert "good: 1 ratios in" in out
    assert "bad: failed after" in out
    assert "    no database here" in out


def arguments(source):
    """The option strings a script's argparse parser is given."""
    return {
        node.args[0].value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", None) == "add_argument"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }


@pytest.mark.parametrize(
    "benchmark",
    [b for b in guard.BENCHMARKS if not b.missing()],
    ids=lambda benchmark: benchmark.name,
)
def test_every_benchmark_on_the_branch_takes_the_contracts_arguments(benchmark):
    """`--documents N` and `--json PATH`, as the guard passes them."""
    source = (guard.ROOT / benchmark.script).read_text(encoding="utf-8")

    assert {"--documents", "--json"} <= arguments(source)


def test_the_record_holds_a_figure_and_a_band_for_every_ratio():
    record = json.loads(guard.RECORD.read_text(encoding="utf-8"))
    assert record["benchmarks"]
    for metrics in record["benchmarks"].values():
        for figures in metrics.values():
            assert set(figures) == {"last", "noise", "runs"}
            assert figures["last"] >= 0
            assert figures["noise"] >= 0


def test_a_run_prints_what_moved_and_says_so_in_its_status(tmp_path, capsys):
    script = tmp_path / "slower.py"
    script.write_text(
        "import json, sys\n"
        "json.dump({'ratios': {'ours / baseline': 2.0}}, open(sys.argv[-1], 'w'))\n"
    )
    record = tmp_path / "guard.json"
    guard.save(record, {"slower": {"ours / baseline": recorded(1.0, 0.2)}}, runs=3)
    args = SimpleNamespace(file=record, budget=120, timeout=60)

    status = guard.check([Benchmark("slower", str(script), 10)], args)

    assert status == 1
    out = capsys.readouterr().out
    assert "+100.0%  ±20%   SLOWER" in out
    assert "1 ratios moved slower, 0 faster" in out


def test_a_benchmarks_report_goes_to_the_guards_directory_not_bench_results(
    tmp_path,
):
    script = tmp_path / "reporting.py"
    script.write_text(
        "import json, os, pathlib, sys\n"
        "folder = pathlib.Path(os.environ['BENCH_RESULTS_DIR'])\n"
        "(folder / 'report.md').write_text('small run')\n"
        "json.dump({'ratios': {'where': float(folder.is_dir())}}, "
        "open(sys.argv[-1], 'w'))\n"
        "print(folder)\n"
    )
    reports = {path: path.read_bytes() for path in guard.RECORD.parent.iterdir()}

    measured = guard.run_all(
        [Benchmark("reporting", str(script), 7)], budget=120, per_benchmark=60
    )

    assert measured == {"reporting": {"where": 1.0}}
    assert {
        path: path.read_bytes() for path in guard.RECORD.parent.iterdir()
    } == reports


@pytest.mark.parametrize(
    "benchmark",
    [b for b in guard.BENCHMARKS if not b.missing()],
    ids=lambda benchmark: benchmark.name,
)
def test_every_benchmark_writes_its_report_where_the_guard_says(benchmark):
    """A report's path is under ``RESULTS_DIR`` (``BENCH_RESULTS_DIR`` when set),
    so the guard's small runs leave the recorded reports alone."""
    source = (guard.ROOT / benchmark.script).read_text(encoding="utf-8")
    for line in source.splitlines():
        if line.startswith("RESULTS ="):
            assert line.startswith("RESULTS = RESULTS_DIR / ")
