"""The package's rows are the command line's: every row and every trace of a set of grids
(every model, lifecycle hooks, spot capacity, warm pools, formulas, scenarios, demand
curves, summaries) compared with the command line's ``--format json``.

Two checks each: the JSON the package reads is the command line's stdout byte for byte (the
same pairs through ``capsim._capsim.text``), and the rows it returns, as a DataFrame and as
a list of dicts, hold the values of the command line's JSON text value for value (ints as
ints, floats as the same float, keys in the same order; see conftest.same_value).
"""

import numpy
import pandas
import pytest

import capsim
from conftest import EXAMPLES, assert_dicts_are, assert_frame_is, cli_ok, json_rows

EX = str(EXAMPLES)
FORMULAS = f"{EX}/formulas"
SCENARIOS = f"{EX}/scenarios"

# A formula given as text, and a demand curve given as numbers: the command line reads the
# same bytes from files of the names the package gives them.
FORMULA_TEXT = "$TargetDedicatedNodes = max(2, min(20, $CurrentDedicatedNodes + 1));\n"
CURVE = [300.0, 450.5, 900, 1200, 1800, 1800, 1500, 600] * 5

# (python keyword arguments, command line flags, files the command line reads in its
# directory). Every model, and the autoscale group's lifecycle, spot, warm pool, formula,
# scenario and demand options.
GRIDS = {
    "done-when": (dict(threshold=[2, 5]), ["autoscale", "--threshold", "2,5"], {}),
    "lesson-1800": (
        dict(threshold=[2, 3, 5], cooldown=[0, 3, 8], seed="1..=200"),
        ["autoscale", "--threshold", "2,3,5", "--cooldown", "0,3,8", "--seed", "1..=200"],
        {},
    ),
    "ranges-and-numpy": (
        dict(threshold=range(1, 5), cooldown=numpy.array([0, 8]), seed=pandas.Series([7, 8])),
        ["autoscale", "--threshold", "1,2,3,4", "--cooldown", "0,8", "--seed", "7,8"],
        {},
    ),
    "capacity-floats": (
        dict(capacity=[100, 37.5], transient_failure=0.1, seed="1..=5"),
        ["autoscale", "--capacity", "100,37.5", "--transient-failure", "0.1", "--seed", "1..=5"],
        {},
    ),
    "lifecycle-delays": (
        dict(apply_delay=[0, 2, 4], count_pending=[False, True]),
        ["autoscale", "--apply-delay", "0,2,4", "--count-pending", "no,yes"],
        {},
    ),
    "lifecycle-hooks": (
        dict(launch_hook=[None, 3, "4:abandon"], terminate_hook=[None, 2]),
        ["autoscale", "--launch-hook", "none,3,4:abandon", "--terminate-hook", "none,2"],
        {},
    ),
    "stockouts-and-bounds": (
        dict(stockout_rounds=[None, "150..190"], min_instances=[None, 8], max_instances=[None, 20]),
        ["autoscale", "--stockout-rounds", "none,150..190", "--min-instances", "none,8",
         "--max-instances", "none,20"],
        {},
    ),
    "check-latency": (
        dict(check_latency=[0, 1, 2, 3], removal_policy=["lesson", "oldest"]),
        ["autoscale", "--check-latency", "0,1,2,3", "--removal-policy", "lesson,oldest"],
        {},
    ),
    "target-tracking": (
        dict(policy="target-tracking", target_utilization=[40, 70], disable_scale_in=[False, True]),
        ["autoscale", "--policy", "target-tracking", "--target-utilization", "40,70",
         "--disable-scale-in", "no,yes"],
        {},
    ),
    "step-scaling": (
        dict(policy="step", steps=["..40:-1/80..:+2", "..30:-10%/70..:=12"], seed=[1, 2]),
        ["autoscale", "--policy", "step", "--steps", "..40:-1/80..:+2,..30:-10%/70..:=12",
         "--seed", "1,2"],
        {},
    ),
    "spot": (
        dict(on_demand_base=4, on_demand_percent=50, preemption_rounds=150,
             preemption_notice=[0, 2], on_preemption=["stay", "replace"]),
        ["autoscale", "--on-demand-base", "4", "--on-demand-percent", "50",
         "--preemption-rounds", "150", "--preemption-notice", "0,2", "--on-preemption", "stay,replace"],
        {},
    ),
    "spot-formula": (
        dict(formula=f"{FORMULAS}/preempted-nodes.formula", preemption_rate=[None, 0, 0.02, 0.3]),
        ["autoscale", "--formula", f"{FORMULAS}/preempted-nodes.formula",
         "--preemption-rate", "none,0,0.02,0.3"],
        {},
    ),
    "warm-pool-priced": (
        dict(reclaim=["release", "stop"], warm_pool=[0, 6, "6:running"], price="1:0.2:0.05"),
        ["autoscale", "--reclaim", "release,stop", "--warm-pool", "0,6,6:running",
         "--price", "1:0.2:0.05"],
        {},
    ),
    "formulas-swept": (
        dict(formula=[None, f"{FORMULAS}/demand.formula", f"{FORMULAS}/cpu-busy.formula"],
             evaluation_interval=[5, 15]),
        ["autoscale", "--formula",
         f"none,{FORMULAS}/demand.formula,{FORMULAS}/cpu-busy.formula",
         "--evaluation-interval", "5,15"],
        {},
    ),
    "formula-text": (
        dict(formula=FORMULA_TEXT, sample_delay=[0, 60]),
        ["autoscale", "--formula", "<formula>", "--sample-delay", "0,60"],
        {"<formula>": FORMULA_TEXT},
    ),
    "formula-texts-swept": (
        dict(formula=[FORMULA_TEXT, "$TargetDedicatedNodes = 6;", None]),
        ["autoscale", "--formula", "<formula 1>,<formula 2>,none"],
        {"<formula 1>": FORMULA_TEXT, "<formula 2>": "$TargetDedicatedNodes = 6;"},
    ),
    "demand-curve-list": (
        dict(demand_file=CURVE, threshold=[2, 5]),
        ["autoscale", "--demand-file", "<demand>", "--threshold", "2,5"],
        {"<demand>": "".join(f"{v!r}\n" if isinstance(v, float) else f"{v}\n" for v in CURVE)},
    ),
    "demand-curves-numpy-and-series": (
        dict(demand_file=[numpy.array(CURVE), pandas.Series(CURVE[::-1]), f"{EX}/demand/flash-crowd.csv"]),
        ["autoscale", "--demand-file", f"<demand 1>,<demand 2>,{EX}/demand/flash-crowd.csv"],
        {"<demand 1>": "".join(f"{float(v)!r}\n" for v in CURVE),
         "<demand 2>": "".join(f"{float(v)!r}\n" for v in CURVE[::-1])},
    ),
    "scenario-grid": (
        dict(scenario=f"{SCENARIOS}/lesson-grid.toml"),
        ["autoscale", "--scenario", f"{SCENARIOS}/lesson-grid.toml"],
        {},
    ),
    "scenario-hooks-overridden": (
        dict(scenario=f"{SCENARIOS}/alibaba-hooks.toml", threshold=[2, 3]),
        ["autoscale", "--scenario", f"{SCENARIOS}/alibaba-hooks.toml", "--threshold", "2,3"],
        {},
    ),
    "scenario-heartbeats": (
        dict(scenario=f"{SCENARIOS}/aws-heartbeats.toml"),
        ["autoscale", "--scenario", f"{SCENARIOS}/aws-heartbeats.toml"],
        {},
    ),
    "scenario-operator-day": (
        dict(scenario=f"{SCENARIOS}/operator-day.toml"),
        ["autoscale", "--scenario", f"{SCENARIOS}/operator-day.toml"],
        {},
    ),
    "scenario-formula-swap": (
        dict(scenario=f"{SCENARIOS}/formula-swap.toml"),
        ["autoscale", "--scenario", f"{SCENARIOS}/formula-swap.toml"],
        {},
    ),
    "columns": (
        dict(threshold=[2, 3], columns=["launched", "min_size"]),
        ["autoscale", "--threshold", "2,3", "--columns", "launched,min_size"],
        {},
    ),
    "consumers": (
        dict(consumers=[1, 2, 4, 6, 8], slots=2),
        ["consumers", "--consumers", "1,2,4,6,8", "--slots", "2"],
        {},
    ),
    "consumers-routing": (
        dict(routing=["shared", "keyed"], consumers=[1, 8], slots=[2, 4], shipments=500),
        ["consumers", "--routing", "shared,keyed", "--consumers", "1,8", "--slots", "2,4",
         "--shipments", "500"],
        {},
    ),
    "consumers-outage": (
        dict(consumers=8, slots=4, arrival_rate=0.25, outage=[None, "1000..2200"], buffer=[None, 500, 2216]),
        ["consumers", "--consumers", "8", "--slots", "4", "--arrival-rate", "0.25",
         "--outage", "none,1000..2200", "--buffer", "none,500,2216"],
        {},
    ),
    "bulkhead": (
        dict(split=["shared", 24], mode=["healthy", "slowdown"], seed="1..=4"),
        ["bulkhead", "--split", "shared,24", "--mode", "healthy,slowdown", "--seed", "1..=4"],
        {},
    ),
    "bulkhead-breaker": (
        dict(mode="slowdown", breaker=[None, "0.5:9"], retries=[0, 1, 2, 10], failure_end=[None, 2000]),
        ["bulkhead", "--mode", "slowdown", "--breaker", "none,0.5:9", "--retries", "0,1,2,10",
         "--failure-end", "none,2000"],
        {},
    ),
}

# Summaries (``--summary``): capsim.summary.
SUMMARIES = {
    "autoscale": (
        dict(threshold=[2, 5], seed="1..=50"),
        ["autoscale", "--threshold", "2,5", "--seed", "1..=50"],
    ),
    "bulkhead-columns": (
        dict(split=["shared", 24], mode="slowdown", seed="1..=30", columns="tracking_dropped,event_dropped"),
        ["bulkhead", "--split", "shared,24", "--mode", "slowdown", "--seed", "1..=30",
         "--columns", "tracking_dropped,event_dropped"],
    ),
    "consumers": (
        dict(consumers=[1, 4], shipments=300, seed="1..=10"),
        ["consumers", "--consumers", "1,4", "--shipments", "300", "--seed", "1..=10"],
    ),
}

# One run each, round by round: capsim.trace.
TRACES = {
    "autoscale": (dict(), ["autoscale"], {}),
    "autoscale-patient": (dict(threshold=5, cooldown=8), ["autoscale", "--threshold", "5", "--cooldown", "8"], {}),
    "autoscale-formula": (
        dict(formula=f"{FORMULAS}/cpu-busy.formula"),
        ["autoscale", "--formula", f"{FORMULAS}/cpu-busy.formula"],
        {},
    ),
    "autoscale-formula-text": (
        dict(formula=FORMULA_TEXT, rounds=90),
        ["autoscale", "--formula", "<formula>", "--rounds", "90"],
        {"<formula>": FORMULA_TEXT},
    ),
    "autoscale-warm-pool": (dict(warm_pool=6), ["autoscale", "--warm-pool", "6"], {}),
    "autoscale-spot": (
        dict(on_demand_base=4, on_demand_percent=50, preemption_rounds=150, on_preemption="replace"),
        ["autoscale", "--on-demand-base", "4", "--on-demand-percent", "50",
         "--preemption-rounds", "150", "--on-preemption", "replace"],
        {},
    ),
    "autoscale-scenario": (
        dict(scenario=f"{SCENARIOS}/alibaba-hooks.toml"),
        ["autoscale", "--scenario", f"{SCENARIOS}/alibaba-hooks.toml"],
        {},
    ),
    "autoscale-demand-curve": (
        dict(demand_file=numpy.array(CURVE)),
        ["autoscale", "--demand-file", "<demand>"],
        {"<demand>": "".join(f"{float(v)!r}\n" for v in CURVE)},
    ),
    "consumers": (dict(shipments=200), ["consumers", "--shipments", "200"], {}),
    "consumers-outage": (
        dict(consumers=8, slots=4, arrival_rate=0.25, outage="1000..2200", buffer=500, shipments=1000),
        ["consumers", "--consumers", "8", "--slots", "4", "--arrival-rate", "0.25",
         "--outage", "1000..2200", "--buffer", "500", "--shipments", "1000"],
        {},
    ),
    "bulkhead-slowdown": (dict(split=24, mode="slowdown"), ["bulkhead", "--split", "24", "--mode", "slowdown"], {}),
    "bulkhead-breaker": (
        dict(mode="slowdown", breaker="0.5:9", retries=2, horizon=3000),
        ["bulkhead", "--mode", "slowdown", "--breaker", "0.5:9", "--retries", "2", "--horizon", "3000"],
        {},
    ),
}

# The formula's evaluations, as Batch's AutoScaleRun records them.
EVALUATIONS = {
    "file": (dict(formula=f"{FORMULAS}/cpu-busy.formula"), ["--formula", f"{FORMULAS}/cpu-busy.formula"], {}),
    "text": (dict(formula=FORMULA_TEXT, evaluation_interval=5), ["--formula", "<formula>", "--evaluation-interval", "5"],
             {"<formula>": FORMULA_TEXT}),
    "scenario": (dict(scenario=f"{SCENARIOS}/formula-swap.toml"), ["--scenario", f"{SCENARIOS}/formula-swap.toml"], {}),
}


def in_dir(tmp_path, files):
    """Writes `files` (name: text) into `tmp_path`; returns it (the command line's cwd)."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def same_json(kind, model, kwargs, extra, out):
    """The JSON the package reads for these arguments is the command line's `out`."""
    pairs, files = capsim._command(kind, model, kwargs, extra)
    assert capsim._capsim.text(pairs, files).encode() == out


@pytest.mark.parametrize("name", GRIDS)
def test_grid_rows_are_the_command_lines(name, tmp_path, monkeypatch):
    kwargs, args, files = GRIDS[name]
    out = cli_ok(*args, "--format", "json", cwd=in_dir(tmp_path, files))
    rows = json_rows(out)
    model = args[0]
    same_json("model", model, kwargs, [("format", "json")], out)
    assert_frame_is(capsim.grid(model, **kwargs), rows)
    monkeypatch.setattr(capsim, "_pandas", None)
    assert_dicts_are(capsim.grid(model, **kwargs), rows)


@pytest.mark.parametrize("name", SUMMARIES)
def test_summaries_are_the_command_lines(name):
    kwargs, args = SUMMARIES[name]
    out = cli_ok(*args, "--summary", "--format", "json")
    rows = json_rows(out)
    same_json("model", args[0], kwargs, [("format", "json"), ("summary", "")], out)
    assert_frame_is(capsim.summary(args[0], **kwargs), rows)


@pytest.mark.parametrize("name", TRACES)
def test_traces_are_the_command_lines(name, tmp_path, monkeypatch):
    kwargs, args, files = TRACES[name]
    out = cli_ok("trace", *args, "--format", "json", cwd=in_dir(tmp_path, files))
    rows = json_rows(out)
    same_json("trace", args[0], kwargs, [("format", "json")], out)
    assert_frame_is(capsim.trace(args[0], **kwargs), rows)
    monkeypatch.setattr(capsim, "_pandas", None)
    assert_dicts_are(capsim.trace(args[0], **kwargs), rows)


@pytest.mark.parametrize("name", EVALUATIONS)
def test_evaluations_are_the_command_lines(name, tmp_path):
    kwargs, args, files = EVALUATIONS[name]
    out = cli_ok("trace", "autoscale", *args, "--evaluations", cwd=in_dir(tmp_path, files))
    rows = json_rows(out)
    assert list(rows[0]) == ["round", "timestamp", "results", "error"]
    same_json("trace", "autoscale", kwargs, [("evaluations", "")], out)
    assert_frame_is(capsim.trace("autoscale", evaluations=True, **kwargs), rows)


def test_the_comparison_covers_what_the_issue_asks():
    """At least 20 grids and 10 traces, every model among them."""
    assert len(GRIDS) >= 20 and len(TRACES) >= 10
    for model in capsim.MODELS:
        assert any(args[0] == model for _, args, _ in GRIDS.values())
        assert any(args[0] == model for _, args, _ in TRACES.values())


def test_the_done_when_line():
    """The issue's line: the two rows the command line gives, launched 46 and 24."""
    df = capsim.grid("autoscale", threshold=[2, 5])[["threshold", "launched"]]
    assert df.values.tolist() == [[2, 46], [5, 24]]
    rows = json_rows(cli_ok("autoscale", "--threshold", "2,5", "--format", "json"))
    assert [[r["threshold"], r["launched"]] for r in rows] == [[2, 46], [5, 24]]
