//! Every formula evaluation on the record: `capsim trace autoscale --formula FILE` gains the
//! columns `target_dedicated`, `evaluated` and `evaluation_failed`, and `--evaluations`
//! prints one JSON Line per evaluation, as Batch's AutoScaleRun records it. Both views are
//! the run whose metrics row `capsim autoscale` prints.

mod common;

use common::{argv, capsim, error_naming, example, stdout_ok, temp_file, Csv};
use serde_json::Value;

/// The lesson's day: 240 rounds of one minute (the group lesson's `TUR`).
const LESSON_ROUNDS: u32 = 240;
/// Batch's default evaluation interval: 15 minutes.
const DEFAULT_INTERVAL: u32 = 15;

fn evaluations(formula: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["trace", "autoscale", "--formula", formula, "--evaluations"];
    args.extend_from_slice(extra);
    stdout_ok(&args)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The CSV trace of `capsim trace autoscale [--formula FORMULA] EXTRA`.
fn trace(formula: &str, extra: &[&str]) -> Csv {
    let mut args = vec!["trace", "autoscale"];
    if !formula.is_empty() {
        args.extend_from_slice(&["--formula", formula]);
    }
    args.extend_from_slice(extra);
    Csv::of(&args)
}

/// The evaluation time of round `r`: the simulator's epoch, Thursday 2026-10-01T00:00:00Z,
/// plus one minute a round (the lesson's day ends at 04:00).
fn time_of(round: u32) -> String {
    format!(
        "2026-10-01T{:02}:{:02}:00.000Z",
        round / 60 % 24,
        round % 60
    )
}

/// Microsoft's documented working-hours formula (the AutoScaleRun example, whose results
/// string is `$TargetDedicatedNodes=10;$NodeDeallocationOption=requeue;$curTime=2016-10-13T19:18:47.805Z;$isWeekday=1;$isWorkingWeekdayHour=0;$workHours=0`)
/// over the lesson's day: a Thursday night, so every evaluation is a weekday outside working
/// hours, the same string with the evaluation's own time.
#[test]
fn the_lesson_day_has_sixteen_evaluations_as_batch_records_them() {
    let lines = evaluations(&example("working-hours-evaluated.formula"), &[]);
    // Evaluations at rounds 0, 15, ..., 225: ceil(240 / 15).
    assert_eq!(lines.len(), 16);
    assert_eq!(lines.len() as u32, LESSON_ROUNDS.div_ceil(DEFAULT_INTERVAL));
    for (i, line) in lines.iter().enumerate() {
        let round = i as u32 * DEFAULT_INTERVAL;
        let t = time_of(round);
        let expected = serde_json::json!({
            "round": round,
            "timestamp": t,
            "results": format!("$TargetDedicatedNodes=10;$NodeDeallocationOption=requeue;$curTime={t};$isWeekday=1;$isWorkingWeekdayHour=0;$workHours=0"),
            "error": null,
        });
        assert_eq!(line, &expected, "evaluation {i}");
    }
    // The keys in AutoScaleRun's order, one object per line.
    let text = stdout_ok(&[
        "trace",
        "autoscale",
        "--formula",
        &example("working-hours-evaluated.formula"),
        "--evaluations",
    ]);
    assert!(text.starts_with("{\"round\":0,\"timestamp\":\"2026-10-01T00:00:00.000Z\",\"results\":\"$TargetDedicatedNodes=10;"));
    assert!(text.lines().all(|l| l.ends_with(",\"error\":null}")));
}

/// The interval's extremes: Batch's 5 minutes gives 48 evaluations over the day; its 168
/// hours one (round 0).
#[test]
fn the_interval_sets_the_count() {
    let f = example("working-hours-evaluated.formula");
    for (interval, count) in [("5", 48), ("10080", 1), ("7", 35)] {
        let lines = evaluations(&f, &["--evaluation-interval", interval]);
        assert_eq!(lines.len(), count, "--evaluation-interval {interval}");
        let step: u64 = interval.parse().unwrap();
        for (i, l) in lines.iter().enumerate() {
            assert_eq!(l["round"].as_u64(), Some(i as u64 * step));
        }
    }
}

/// A failed evaluation carries the evaluator's `line L, col C: message`: cpu-busy.formula
/// asks for 70 % of five minutes of `$CPUPercent` samples, and at round 0 none is recorded.
/// The column is the method name's (`GetSample`), counted here from the file.
#[test]
fn a_failed_evaluation_names_its_line_and_column() {
    let path = example("cpu-busy.formula");
    let src = std::fs::read_to_string(&path).unwrap();
    let (line_no, line) = src
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("$CPUPercent.GetSample("))
        .unwrap();
    let col = line.find("GetSample").unwrap() + 1;
    let lines = evaluations(&path, &[]);
    assert_eq!(lines[0]["round"], 0);
    assert_eq!(
        lines[0]["error"],
        format!(
            "line {}, col {col}: Insufficient data from data set: $CPUPercent wanted 70%, received 0%",
            line_no + 1
        )
    );
    // Nothing was assigned before the failing statement.
    assert_eq!(lines[0]["results"], "$NodeDeallocationOption=requeue");
    // By round 15 the samples are in.
    assert!(lines[1]["error"].is_null(), "{}", lines[1]);
}

/// The trace's columns, the evaluation lines and the metrics row are one run: the rounds
/// marked `evaluated` are the lines' rounds, the failed ones their errors, the counts the
/// row's `evaluations` and `failed_evaluations`, and after each successful evaluation the
/// target is the results string's `$TargetDedicatedNodes`, truncated as Batch does.
#[test]
fn the_views_add_up_to_the_run() {
    for name in [
        "cpu-busy.formula",
        "demand.formula",
        "working-hours.formula",
    ] {
        let f = example(name);
        for extra in [&[][..], &["--evaluation-interval", "5", "--seed", "7"][..]] {
            let lines = evaluations(&f, extra);
            let t = trace(&f, extra);
            let rows = &t.rows;
            let mut args = vec!["autoscale", "--format", "json", "--formula", &f];
            args.extend_from_slice(extra);
            let row: Value = serde_json::from_str(stdout_ok(&args).trim()).unwrap();

            let evaluated = t.ints("evaluated");
            let failed = t.ints("evaluation_failed");
            let target = t.ints("target_dedicated");
            let marked: Vec<u64> = (0..rows.len() as u64)
                .filter(|&r| evaluated[r as usize] == 1)
                .collect();
            let line_rounds: Vec<u64> =
                lines.iter().map(|l| l["round"].as_u64().unwrap()).collect();
            assert_eq!(marked, line_rounds, "{name} {extra:?}");
            assert_eq!(row["evaluations"].as_u64(), Some(lines.len() as u64));
            let errors = lines.iter().filter(|l| !l["error"].is_null()).count() as u64;
            assert_eq!(failed.iter().sum::<u64>(), errors, "{name} {extra:?}");
            assert_eq!(row["failed_evaluations"].as_u64(), Some(errors));
            assert!(failed.iter().zip(&evaluated).all(|(f, e)| f <= e));

            // Before round 0's evaluation the target is the initial group: required(0)
            // instances (the lesson's group starts with what round 0's demand needs).
            let initial = t.ints("required")[0];
            let mut last = None;
            let mut changes = 0;
            for l in &lines {
                let r = l["round"].as_u64().unwrap() as usize;
                let before = if r == 0 { initial } else { target[r - 1] };
                if !l["error"].is_null() {
                    // A failed evaluation leaves the target as it was.
                    assert_eq!(target[r], before, "{name} round {r}");
                    continue;
                }
                let results = l["results"].as_str().unwrap();
                let assigned = results
                    .split(';')
                    .find_map(|kv| kv.strip_prefix("$TargetDedicatedNodes="))
                    .map(|v| v.parse::<f64>().unwrap().trunc() as u64);
                if let Some(n) = assigned {
                    assert_eq!(target[r], n, "{name} round {r}: {results}");
                    changes += u64::from(n != before);
                    last = Some(n);
                }
            }
            // The target holds between evaluations, and the last one stands to the end.
            for r in 1..rows.len() {
                if evaluated[r] == 0 {
                    assert_eq!(target[r], target[r - 1], "{name} round {r}");
                }
            }
            if let Some(n) = last {
                assert_eq!(*target.last().unwrap(), n, "{name} {extra:?}");
            }
            assert_eq!(
                row["target_changes"].as_u64(),
                Some(changes),
                "{name} {extra:?}"
            );
            assert_eq!(rows.len() as u64, row["rounds"].as_u64().unwrap());
        }
    }
}

/// The columns are a formula run's: the lesson's trace keeps its header (its goldens are in
/// tests/), and a formula run's header is the lesson's plus the three, after the existing
/// ones.
#[test]
fn the_columns_come_after_the_existing_ones_for_a_formula_run_only() {
    let plain = trace("", &[]).header;
    assert!(!plain.iter().any(|h| h == "target_dedicated"));
    let formula_run = trace(&example("keep-current.formula"), &[]);
    let (with, rows) = (&formula_run.header, &formula_run.rows);
    assert_eq!(&with[..plain.len()], &plain[..]);
    assert_eq!(
        &with[plain.len()..],
        ["target_dedicated", "evaluated", "evaluation_failed"]
    );
    assert!(rows.iter().all(|r| r.len() == with.len()));
    // JSON Lines carry them too, as numbers.
    let json = stdout_ok(&[
        "trace",
        "autoscale",
        "--format",
        "json",
        "--formula",
        &example("keep-current.formula"),
    ]);
    let first: Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(first["evaluated"], 1);
    assert_eq!(first["evaluation_failed"], 0);
    // Round 0's group: 900 requests / 100 per instance.
    assert_eq!(first["target_dedicated"], 9);
}

#[test]
fn evaluations_need_a_formula_and_no_format() {
    error_naming(
        &["trace", "autoscale", "--evaluations"],
        &["--evaluations", "--formula"],
    );
    let f = example("keep-current.formula");
    let mut args = argv("trace autoscale --formula");
    args.extend([f.as_str(), "--evaluations", "--format", "csv"]);
    error_naming(&args, &["--evaluations", "--format"]);
    // A formula that fails to parse is its one located line.
    let bad = temp_file("evaluations-bad.formula", "$TargetDedicatedNodes = ;\n");
    let out = capsim(&["trace", "autoscale", "--formula", &bad, "--evaluations"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!("{bad}:1:25: error: expected a value before ';'\n")
    );
    // With a formula it runs.
    let out = capsim(&["trace", "autoscale", "--formula", &f, "--evaluations"]);
    assert_eq!(out.status.code(), Some(0));
}
