//! `--summary`: the statistics against values worked out by hand, and the command's output
//! against the per-run output aggregated here with numpy's definitions written out.

mod common;

use capsim::summary::{stats, STATS};
use common::stdout_ok as capsim;
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

/// Returns the metrics a summary row aggregates: the keys it has a `_mean` for.
fn metrics_of(summary_row: &serde_json::Map<String, Value>) -> Vec<String> {
    let metrics: Vec<String> = summary_row
        .keys()
        .filter_map(|k| k.strip_suffix("_mean"))
        .map(str::to_owned)
        .collect();
    assert!(!metrics.is_empty(), "{summary_row:?}");
    metrics
}

/// Runs `args` per run and with `--summary` (JSON), and checks the summary against the runs.
fn check_summary(args: &[&str], combinations: usize, seeds: usize) {
    let runs = json_lines(&capsim(&[args, &["--format", "json"]].concat()));
    let summary = json_lines(&capsim(
        &[args, &["--format", "json", "--summary"]].concat(),
    ));
    assert_eq!(runs.len(), combinations * seeds, "{args:?}");
    assert_eq!(summary.len(), combinations, "{args:?}");
    // The seed is the innermost list: each combination's runs are consecutive.
    for (combination, runs) in summary.iter().zip(runs.chunks(seeds)) {
        assert_eq!(combination["seeds"], seeds, "{combination:?}");
        let metrics = metrics_of(combination);
        // A run's keys are the combination's parameters, the seed and the metrics: every
        // metric is summarized, every parameter but the seed carried over unchanged.
        for (key, value) in runs.iter().flatten() {
            if key == "seed" || metrics.contains(key) {
                assert!(!combination.contains_key(key), "{key}");
            } else {
                assert_eq!(combination.get(key), Some(value), "{key}");
            }
        }
        let parameters = runs[0].len() - 1 - metrics.len();
        let columns = parameters + 1 + metrics.len() * STATS.len();
        assert_eq!(combination.len(), columns, "{combination:?}");
        for metric in &metrics {
            // A metric that is a word in some run ('none': bulkhead's breaker_opened_round
            // without a breaker) has no statistics: each is null.
            if runs.iter().any(|r| r[metric].is_string()) {
                for name in STATS {
                    assert!(
                        combination[&format!("{metric}_{name}")].is_null(),
                        "{metric}"
                    );
                }
                continue;
            }
            let values: Vec<f64> = runs
                .iter()
                .map(|r| r[metric].as_f64().unwrap_or_else(|| panic!("{metric}")))
                .collect();
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

#[test]
fn json_summary_aggregates_each_combination_over_its_seeds() {
    let bulkhead = "bulkhead --split shared,24 --mode slowdown --seed 1..=7";
    let autoscale = "autoscale --threshold 2,5 --cooldown 0,8 --seed 3,1,2";
    let consumers = "consumers --consumers 1,4 --shipments 300 --seed 5";
    for (args, combinations, seeds) in [(bulkhead, 2, 7), (autoscale, 4, 3), (consumers, 2, 1)] {
        let args: Vec<&str> = args.split(' ').collect();
        check_summary(&args, combinations, seeds);
    }
}

#[test]
fn table_summary_is_one_line_per_combination_and_metric() {
    let args: Vec<&str> = "bulkhead --split shared,24 --mode slowdown --seed 1..=4 --summary"
        .split(' ')
        .collect();
    let table = capsim(&args);
    let summary = json_lines(&capsim(&[&args[..], &["--format", "json"]].concat()));
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        ["split", "mode", "seeds", "metric", "mean", "std", "min", "p5", "p50", "p95", "max"]
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    // The table summarizes the headline metrics (JSON every one; --columns all too).
    let headline = capsim::query::headline("bulkhead").unwrap();
    let mut metrics = metrics_of(&summary[0]);
    let every = metrics.len();
    metrics.retain(|m| headline.contains(&m.as_str()));
    assert_eq!(metrics.len(), headline.len());
    assert_eq!(rows.len(), summary.len() * metrics.len());
    let all = capsim(&[&args[..], &["--columns", "all"]].concat());
    assert_eq!(all.lines().count(), 1 + summary.len() * every);
    for (combination, rows) in summary.iter().zip(rows.chunks(metrics.len())) {
        let split = match &combination["split"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut listed: Vec<&str> = rows.iter().map(|row| row[3]).collect();
        listed.sort();
        let mut want: Vec<&str> = metrics.iter().map(String::as_str).collect();
        want.sort();
        assert_eq!(listed, want, "each metric once");
        for row in rows {
            assert_eq!(row[..3], [split.as_str(), "slowdown", "4"], "{row:?}");
            // Three decimals of the same statistic.
            for (cell, name) in row[4..].iter().zip(STATS) {
                // A null statistic (a metric that was a word) reads NaN.
                let want = combination[&format!("{}_{name}", row[3])]
                    .as_f64()
                    .unwrap_or(f64::NAN);
                assert_eq!(*cell, format!("{want:.3}"), "{row:?} {name}");
            }
        }
    }
}

#[test]
fn csv_summary_is_one_line_per_combination() {
    let args: Vec<&str> = "bulkhead --split shared,20,24 --seed 1..=3 --summary"
        .split(' ')
        .collect();
    let csv = capsim(&[&args[..], &["--format", "csv"]].concat());
    let summary = json_lines(&capsim(&[&args[..], &["--format", "json"]].concat()));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 3, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let mut columns = header.clone();
    columns.sort();
    let mut want: Vec<&str> = summary[0].keys().map(String::as_str).collect();
    want.sort();
    assert_eq!(columns, want, "the JSON summary's keys");
    assert!(!header.contains(&"seed"));
    for line in &lines[1..] {
        assert_eq!(line.split(',').count(), header.len(), "{line}");
    }
}
