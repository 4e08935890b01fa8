//! `--summary`: the statistics against values worked out by hand, and the command's output
//! against the per-run output aggregated here with numpy's definitions written out.

use std::process::Command;

use capsim::summary::{stats, STATS};
use serde_json::Value;

/// Asserts `got` equals `want` to 12 significant digits (NaN equals NaN).
fn assert_close(got: f64, want: f64, what: &str) {
    let same = (got.is_nan() && want.is_nan()) || (got - want).abs() <= 1e-12 * want.abs().max(1.0);
    assert!(same, "{what}: got {got}, want {want}");
}

fn assert_stats(values: &[f64], want: [f64; 7]) {
    let got = stats(&mut values.to_vec());
    for ((name, g), w) in STATS.iter().zip(got).zip(want) {
        assert_close(g, w, &format!("{name} of {values:?}"));
    }
}

#[test]
fn the_statistics_are_in_output_order() {
    assert_eq!(STATS, ["mean", "std", "min", "p5", "p50", "p95", "max"]);
}

#[test]
fn statistics_of_samples_worked_by_hand() {
    // 1, 2, 3, 4 (given unsorted): mean 10/4; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5,
    // over n - 1 = 3; percentile p at rank h = 3p between the sorted values:
    // p5: h = 0.15 -> 1 + 0.15; p50: h = 1.5 -> 2.5; p95: h = 2.85 -> 3 + 0.85.
    assert_stats(
        &[4.0, 1.0, 3.0, 2.0],
        [2.5, (5.0f64 / 3.0).sqrt(), 1.0, 1.15, 2.5, 3.85, 4.0],
    );
    // -2, -2, 10: mean 2; deviations 16 + 16 + 64 = 96, over 2 -> std sqrt(48);
    // ranks h = 2p: p5 at 0.1 (between the two -2s), p50 at 1 (-2), p95 at 1.9 -> -2 + 0.9 x 12.
    assert_stats(
        &[10.0, -2.0, -2.0],
        [2.0, 48.0f64.sqrt(), -2.0, -2.0, -2.0, 8.8, 10.0],
    );
    // One run: no spread, every percentile is the run.
    assert_stats(&[7.0], [7.0, 0.0, 7.0, 7.0, 7.0, 7.0, 7.0]);
    // Nothing to summarize.
    assert_stats(&[], [f64::NAN; 7]);
}

fn capsim(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_capsim"))
        .args(args)
        .output()
        .expect("capsim runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn json_lines(text: &str) -> Vec<serde_json::Map<String, Value>> {
    text.lines()
        .map(|l| match serde_json::from_str(l) {
            Ok(Value::Object(o)) => o,
            other => panic!("not a JSON object: {l}: {other:?}"),
        })
        .collect()
}

/// numpy's `mean`, `std(ddof=1)`, `min`, `percentile(q)` (linear), `max`, written out.
fn numpy_style(values: &[f64]) -> [f64; 7] {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let std = if v.len() < 2 {
        0.0
    } else {
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    };
    let percentile = |q: f64| {
        let rank = (n - 1.0) * q / 100.0;
        let (below, above) = (rank.floor() as usize, rank.ceil() as usize);
        v[below] + (rank - below as f64) * (v[above] - v[below])
    };
    [
        mean,
        std,
        v[0],
        percentile(5.0),
        percentile(50.0),
        percentile(95.0),
        v[v.len() - 1],
    ]
}

/// Runs `args` per run and with `--summary` (JSON), and checks the summary against the runs.
fn check_summary(args: &[&str], metrics: &[&str], combinations: usize, seeds: usize) {
    let runs = json_lines(&capsim(&[args, &["--format", "json"]].concat()));
    let summary = json_lines(&capsim(
        &[args, &["--format", "json", "--summary"]].concat(),
    ));
    assert_eq!(runs.len(), combinations * seeds, "{args:?}");
    assert_eq!(summary.len(), combinations, "{args:?}");
    // The seed is the innermost list: each combination's runs are consecutive.
    for (combination, runs) in summary.iter().zip(runs.chunks(seeds)) {
        assert_eq!(combination["seeds"], seeds, "{combination:?}");
        assert!(!combination.contains_key("seed"), "{combination:?}");
        // Every parameter but the seed is carried over, and is the same in all its runs.
        for (key, value) in &runs[0] {
            if key != "seed" && !metrics.contains(&key.as_str()) {
                assert_eq!(&combination[key], value, "{key}");
                assert!(runs.iter().all(|r| &r[key] == value), "{key}");
            }
        }
        for metric in metrics {
            let values: Vec<f64> = runs.iter().map(|r| r[*metric].as_f64().unwrap()).collect();
            for (name, want) in STATS.iter().zip(numpy_style(&values)) {
                let key = format!("{metric}_{name}");
                let got = combination[&key]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{key}"));
                assert_close(got, want, &key);
            }
        }
    }
}

const BULKHEAD_METRICS: [&str; 6] = [
    "tracking_served",
    "tracking_dropped",
    "event_served",
    "event_dropped",
    "idle_slots",
    "busy_slot_rounds",
];

#[test]
fn json_summary_aggregates_each_combination_over_its_seeds() {
    check_summary(
        &[
            "bulkhead",
            "--split",
            "shared,24",
            "--mode",
            "slowdown",
            "--seed",
            "1..=7",
        ],
        &BULKHEAD_METRICS,
        2,
        7,
    );
    check_summary(
        &[
            "autoscale",
            "--threshold",
            "2,5",
            "--cooldown",
            "0,8",
            "--seed",
            "3,1,2",
        ],
        &[
            "min_size",
            "max_size",
            "max_launching",
            "max_launching_ratio",
            "under_capacity_rounds",
            "launched",
            "false_replacements",
            "broken_rounds",
            "scaling_actions",
            "replacements",
        ],
        4,
        3,
    );
    check_summary(
        &[
            "consumers",
            "--consumers",
            "1,4",
            "--shipments",
            "300",
            "--seed",
            "5",
        ],
        &[
            "rounds",
            "reordered_shipments",
            "wrong_final_state",
            "throughput",
        ],
        2,
        1,
    );
}

#[test]
fn table_summary_is_one_line_per_combination_and_metric() {
    let args = [
        "bulkhead",
        "--split",
        "shared,24",
        "--mode",
        "slowdown",
        "--seed",
        "1..=4",
    ];
    let table = capsim(&[&args[..], &["--summary"]].concat());
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        ["split", "mode", "seeds", "metric", "mean", "std", "min", "p5", "p50", "p95", "max"]
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 2 * BULKHEAD_METRICS.len());
    let summary = json_lines(&capsim(
        &[&args[..], &["--summary", "--format", "json"]].concat(),
    ));
    for (row, (split, metric)) in rows.iter().zip(
        ["shared", "24"]
            .iter()
            .flat_map(|s| BULKHEAD_METRICS.iter().map(move |m| (s, m))),
    ) {
        assert_eq!(row[..4], [*split, "slowdown", "4", *metric], "{row:?}");
        let combination = &summary[usize::from(*split != "shared")];
        // Three decimals of the same statistic.
        for (cell, name) in row[4..].iter().zip(STATS) {
            let want = combination[&format!("{metric}_{name}")].as_f64().unwrap();
            assert_eq!(*cell, format!("{want:.3}"), "{split} {metric} {name}");
        }
    }
}

#[test]
fn csv_summary_is_one_line_per_combination() {
    let csv = capsim(&[
        "bulkhead",
        "--split",
        "shared,20,24",
        "--seed",
        "1..=3",
        "--summary",
        "--format",
        "csv",
    ]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 3, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header[0], "split");
    assert!(!header.contains(&"seed"));
    assert!(header.contains(&"seeds"));
    for metric in BULKHEAD_METRICS {
        for name in STATS {
            let column = format!("{metric}_{name}");
            assert!(header.contains(&column.as_str()), "{column}");
        }
    }
    for line in &lines[1..] {
        assert_eq!(line.split(',').count(), header.len(), "{line}");
    }
}
