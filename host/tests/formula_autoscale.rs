//! `capsim autoscale --formula FILE [--evaluation-interval LIST]`: rows, metrics, errors.

mod common;

use common::{capsim, example, one_line_error, temp_file, with_stdin};
use serde_json::Value;

/// Runs with `--format json` and returns the rows.
fn rows(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["autoscale", "--format", "json"];
    all.extend_from_slice(args);
    let out = capsim(&all);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Asserts exit status 2, one `error:` line containing every `needle`, no stdout.
fn assert_error(args: &[&str], needles: &[&str]) {
    let err = one_line_error(args);
    for n in needles {
        assert!(err.contains(n), "{err} lacks {n}");
    }
}

#[test]
fn twelve_nodes_keep_the_lessons_group_at_12() {
    let f = temp_file("twelve.formula", "$TargetDedicatedNodes = 12;\n");
    let r = &rows(&["--formula", &f])[0];
    assert_eq!(r["formula"], f.as_str());
    assert_eq!(r["evaluation_interval"], 15);
    // Round 0's 9 instances (900 / 100) grow to 12 in round 0; replacements are in place.
    assert_eq!(
        (r["min_size"].as_u64(), r["max_size"].as_u64()),
        (Some(12), Some(12))
    );
    assert_eq!(r["scaling_actions"], 1);
    assert_eq!(
        r["launched"].as_u64().unwrap(),
        3 + r["replacements"].as_u64().unwrap()
    );
    // Every round bills 12 instances.
    assert_eq!(r["billed_rounds"], 12 * 240);
    // ceil(240 / 15) evaluations, none failed, one change (9 → 12).
    assert_eq!(
        (
            &r["evaluations"],
            &r["failed_evaluations"],
            &r["target_changes"]
        ),
        (&Value::from(16), &Value::from(0), &Value::from(1))
    );
}

#[test]
fn without_a_formula_the_new_metrics_are_zero_and_the_rest_is_the_lessons() {
    let r = &rows(&[])[0];
    assert_eq!(r["formula"], "none");
    for k in ["evaluations", "failed_evaluations", "target_changes"] {
        assert_eq!(r[k], 0, "{k}");
    }
    // The lesson's figures for its group (grup.mjs, threshold 2, cooldown 0).
    assert_eq!(
        (&r["min_size"], &r["max_size"], &r["launched"]),
        (&Value::from(7), &Value::from(24), &Value::from(46))
    );
}

#[test]
fn intervals_5_and_10080_are_accepted_and_others_refused() {
    let f = temp_file("ten.formula", "$TargetDedicatedNodes = 10;");
    let r = rows(&["--formula", &f, "--evaluation-interval", "5,10080"]);
    // 240 rounds: rounds 0, 5, …, 235 (48); only round 0 (1).
    assert_eq!(
        (&r[0]["evaluations"], &r[1]["evaluations"]),
        (&Value::from(48), &Value::from(1))
    );
    for bad in ["4", "10081", "0"] {
        assert_error(
            &["autoscale", "--formula", &f, "--evaluation-interval", bad],
            &["evaluation-interval", "5", "10080"],
        );
    }
}

/// `--formula -` reads the formula from standard input, once: the same rows as the file;
/// a second `-` (in the list, or for `--demand-file`) is one line, not an empty formula.
#[test]
fn a_dash_reads_the_formula_from_stdin() {
    let f = example("demand.formula");
    let src = std::fs::read(&f).unwrap();
    let from_file = common::stdout_ok(&["autoscale", "--formula", &f, "--format", "csv"]);
    let out = with_stdin(&["autoscale", "--formula", "-", "--format", "csv"], &src);
    assert_eq!(out.status.code(), Some(0));
    // The rows name the formula as given: the path, or -.
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        from_file.replace(&f, "-")
    );
    let trace = common::stdout_ok(&["trace", "autoscale", "--formula", &f, "--evaluations"]);
    let out = with_stdin(
        &["trace", "autoscale", "--formula", "-", "--evaluations"],
        &src,
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), trace);
    for args in [
        vec!["autoscale", "--formula", "-,-"],
        vec!["autoscale", "--formula", "-", "--demand-file", "-"],
    ] {
        let out = with_stdin(&args, &src);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.ends_with("standard input is read once, and an earlier - has read it\n"),
            "{err}"
        );
    }
}

#[test]
fn a_formula_that_does_not_parse_is_one_line_with_its_position() {
    // As compilers print it (issue 25): FILE:LINE:COL: error: message, one line, status 2,
    // nothing on stdout; from every command that takes --formula, and from stdin.
    let f = example("cpu-400-as-printed.formula");
    let want = format!("{f}:8:1: error: expected ';' before '$NodeDeallocationOption'\n");
    for args in [
        vec!["autoscale", "--formula", &f],
        vec!["autoscale", "--formula", &f, "--format", "json"],
        vec!["trace", "autoscale", "--formula", &f],
        vec!["trace", "autoscale", "--formula", &f, "--evaluations"],
        vec!["plot", "autoscale", "--formula", &f, "-o", "-"],
    ] {
        let out = capsim(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(String::from_utf8(out.stderr).unwrap(), want, "{args:?}");
    }
    let src = std::fs::read(&f).unwrap();
    let out = with_stdin(&["autoscale", "--formula", "-"], &src);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "<stdin>:8:1: error: expected ';' before '$NodeDeallocationOption'\n"
    );
    assert_error(
        &["autoscale", "--formula", "/no/such/file.formula"],
        &["/no/such/file.formula"],
    );
}

#[test]
fn a_formula_that_cannot_evaluate_leaves_the_group_and_counts_failures() {
    let f = temp_file(
        "never.formula",
        "$TargetDedicatedNodes = max($PendingTasks.GetSample(TimeInterval_Minute * 10, 100));",
    );
    let r = &rows(&["--formula", &f, "--evaluation-interval", "5"])[0];
    assert_eq!(
        (&r["min_size"], &r["max_size"]),
        (&Value::from(9), &Value::from(9))
    );
    assert_eq!(
        (&r["evaluations"], &r["failed_evaluations"]),
        (&Value::from(48), &Value::from(48))
    );
    assert_eq!(r["scaling_actions"], 0);
}

#[test]
fn the_demand_formula_beside_the_lessons_policy() {
    let demand = example("demand.formula");
    let r = rows(&[
        "--formula",
        &format!("none,{demand}"),
        "--evaluation-interval",
        "5",
    ]);
    assert_eq!(r.len(), 2);
    assert_eq!(
        (&r[0]["formula"], &r[1]["formula"]),
        (&Value::from("none"), &Value::from(demand.as_str()))
    );
    assert_eq!(r[0]["launched"], 46, "the lesson's row");
    let d = &r[1];
    // The formula guards its sampling: no evaluation fails, even in round 0.
    assert_eq!(
        (&d["evaluations"], &d["failed_evaluations"]),
        (&Value::from(48), &Value::from(0))
    );
    // Its target is at most the busiest minute's need + 1: 900 + 380 + 520 = 1800 → 18 + 1;
    // the surge's 40 rounds reach it.
    assert_eq!(d["max_size"].as_u64().unwrap(), 19);
    assert!(d["target_changes"].as_u64().unwrap() > 5);
    // Five minutes of delayed samples: it reacts later than the lesson's every-round rule.
    assert!(d["under_capacity_rounds"].as_u64() > r[0]["under_capacity_rounds"].as_u64());
}

#[test]
fn a_summary_and_a_grid_name_the_formula() {
    let f = temp_file("eleven.formula", "$TargetDedicatedNodes = 11;");
    let out = capsim(&[
        "autoscale",
        "--formula",
        &format!("none,{f}"),
        "--seed",
        "1..=3",
        "--summary",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&f), "{text}");
}

/// `capsim formula eval` output (one line) or the error line.
fn eval(args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["formula", "eval"];
    all.extend_from_slice(args);
    let out = capsim(&all);
    let text = if out.status.success() {
        out.stdout
    } else {
        out.stderr
    };
    (out.status.code(), String::from_utf8(text).unwrap())
}

#[test]
fn the_teaching_formulas_evaluate_as_their_comments_say() {
    let demand = example("demand.formula");
    // A 5-minute window holds 10 samples; with the 1-minute delay only the newest 8 are
    // available (80 % >= 50 %): 5,4,4,4,4,4,4,4 → the peak 5, + 1.
    assert_eq!(
        eval(&[&demand, "--sample", "$PendingTasks=3:7:5:4:4:4:4:4:4:4"]),
        (
            Some(0),
            "$TargetDedicatedNodes=6;$NodeDeallocationOption=taskcompletion;$enough=1;$peak=5\n"
                .to_string()
        )
    );
    // No samples: the target stays (8 − 1 + 1).
    assert_eq!(
        eval(&[&demand, "--set", "$TargetDedicatedNodes=8"]).1,
        "$TargetDedicatedNodes=8;$NodeDeallocationOption=taskcompletion;$enough=0;$peak=7\n"
    );
    let cpu = example("cpu-busy.formula");
    let busy = format!("$CPUPercent={}", ["0.95"; 10].join(":"));
    // 0.95 > 0.9: 10 · 1.5 + 1 = 16.
    assert!(eval(&[
        &cpu,
        "--sample",
        &busy,
        "--set",
        "$CurrentDedicatedNodes=10"
    ])
    .1
    .starts_with("$TargetDedicatedNodes=16;"));
    // 7 of 10 samples (70 %) suffice; 0.5 < 0.6: 10 · 0.8 = 8.
    let idle = |n: usize| format!("$CPUPercent={}", vec!["0.5"; n].join(":"));
    assert!(eval(&[
        &cpu,
        "--sample",
        &idle(7),
        "--set",
        "$CurrentDedicatedNodes=10"
    ])
    .1
    .starts_with("$TargetDedicatedNodes=8;"));
    // 6 (60 %) fail with Batch's message.
    let (code, err) = eval(&[
        &cpu,
        "--sample",
        &idle(6),
        "--set",
        "$CurrentDedicatedNodes=10",
    ]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("$CPUPercent wanted 70%, received 60%"),
        "{err}"
    );
}

#[test]
fn the_sample_delay_is_a_parameter() {
    let f = temp_file(
        "full-ten.formula",
        "$TargetDedicatedNodes = max($PendingTasks.GetSample(TimeInterval_Minute * 10, 100));",
    );
    let r = rows(&[
        "--formula",
        &f,
        "--evaluation-interval",
        "5",
        "--sample-delay",
        "60,0",
    ]);
    assert_eq!(
        (&r[0]["sample_delay"], &r[1]["sample_delay"]),
        (&Value::from(60), &Value::from(0))
    );
    // With the minute's delay 100 % of ten minutes is never available: all 48 fail. Without
    // it, the window (T − 600 s, T] holds slots 1 to 20 once round 10 has recorded slot 20
    // (600 s): the evaluations in rounds 0 and 5 fail, those from round 10 on succeed.
    assert_eq!(r[0]["failed_evaluations"], 48);
    assert_eq!(r[1]["failed_evaluations"], 2);
    assert_error(
        &["autoscale", "--formula", &f, "--sample-delay", "601"],
        &["sample-delay", "600"],
    );
}
