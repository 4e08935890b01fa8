//! Issue 19, "your own group", through the CLI: expected values come from the issue and the
//! lesson's figures (a flat demand of D needs ceil(D / 100) instances), never from the code.

mod common;

use common::{
    argv, assert_row, autoscale_row as row, capsim, error_naming, n, one_line_error, with_stdin,
    Csv,
};
use serde_json::Value;

/// A flat demand of 300,000 requests a round.
const FLAT_300K: &str = "--demand-base 300000 --demand-amplitude 0 --surge 0";
/// No randomness and no failures.
const NO_FAILURES: &str = "--transient-failure 0 --failure-rounds none";

#[test]
fn a_group_of_three_thousand_runs() {
    // The issue's command: 300,000 requests a round need 3,000 instances.
    let v = row(&argv(FLAT_300K));
    assert!(n(&v, "max_size") >= 3000, "{v}");
    // Without randomness or failures the group is exactly 3,000 all day.
    let v = row(&argv(&format!("{FLAT_300K} {NO_FAILURES}")));
    assert_eq!((n(&v, "max_size"), n(&v, "launched")), (3000, 0));
    // The trace (the reference engine, observed) runs it too, 240 rows and the header.
    let out = capsim(&argv(&format!("trace autoscale {FLAT_300K} --format csv")));
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 241);
}

#[test]
fn the_host_capacity_is_in_the_help_and_the_error() {
    let help = String::from_utf8(capsim(&["autoscale", "--help"]).stdout).unwrap();
    assert!(help.contains("at most 16384 instances"), "{help}");
    // 1,638,500 requests need 16,385 instances: one more than the host's group holds.
    let line = one_line_error(&argv(
        "autoscale --demand-base 1638500 --demand-amplitude 0 --surge 0",
    ));
    assert!(
        line.trim_end()
            .ends_with("group size exceeds its capacity of 16384"),
        "{line}"
    );
    // 1,638,400 fit exactly.
    let v = row(&argv(&format!(
        "--demand-base 1638400 --demand-amplitude 0 --surge 0 {NO_FAILURES} --rounds 3"
    )));
    assert_eq!(n(&v, "max_size"), 16384);
}

#[test]
fn every_accepted_apply_delay_runs() {
    // Issue 18 §3: --apply-delay 48 stopped at "group size exceeds its capacity of 256".
    for delay in ["48", "64"] {
        let v = row(&["--apply-delay", delay]);
        assert!(n(&v, "max_size") < 256, "{v}");
    }
}

#[test]
fn min_and_max_instances_hold_the_issues_figures() {
    // The lesson day grows 7 -> 24; its maximum and minimum as the issue states them.
    assert_eq!(n(&row(&[]), "max_size"), 24);
    assert_eq!(n(&row(&[]), "clamped_rounds"), 0);
    assert_eq!(n(&row(&["--max-instances", "18"]), "max_size"), 18);
    assert_eq!(n(&row(&["--min-instances", "10"]), "min_size"), 10);
    let zero = common::example("zero.formula");
    let v = row(&["--formula", &zero, "--min-instances", "3"]);
    assert_eq!(n(&v, "max_size"), 3);
    // The keys are the flags' and show `none` when off.
    assert_eq!(row(&[])["min_instances"], "none");
    assert_eq!(row(&["--max-instances", "18"])["max_instances"], 18);
    // Min above max is one line.
    let line = one_line_error(&["autoscale", "--min-instances", "4", "--max-instances", "3"]);
    assert!(line.contains("--min-instances"), "{line}");
    // The trace shows the same run: its largest size is the row's.
    let csv = Csv::of(&argv("trace autoscale --max-instances 18"));
    let largest = csv.ints("size").into_iter().max();
    assert_eq!(largest, Some(18));
}

#[test]
fn the_lessons_trace_fed_back_is_the_lesson() {
    let trace = common::stdout_ok(&["trace", "autoscale", "--format", "csv"]);
    let whole = common::temp_file("lesson-trace.csv", &trace);
    // The issue's round trip: min_size 7, max_size 24, launched 46, under_capacity_rounds 10,
    // with the lesson's failure rounds: they are the lesson's day, which a demand file's
    // run does not carry unless given.
    let lesson_day = ["--failure-rounds", "40:95:170"];
    let check = |v: &Value| {
        assert_row(
            v,
            "rounds=240 min_size=7 max_size=24 launched=46 under_capacity_rounds=10",
        )
    };
    check(&row(&[&["--demand-file", &whole][..], &lesson_day].concat()));
    let own = row(&["--demand-file", &whole]);
    assert_eq!(own["failure_rounds"], serde_json::json!([]));
    assert_eq!(own["broken_rounds"], 0);
    assert_eq!(
        own,
        row(&["--demand-file", &whole, "--failure-rounds", "none"])
    );
    // The demand column alone, as `cut` gives it (header included), and `round,demand`.
    let column: String = trace
        .lines()
        .map(|l| format!("{}\n", l.split(',').nth(1).unwrap()))
        .collect();
    check(&row(&[
        "--demand-file",
        &common::temp_file("demand-column.csv", &column),
        "--failure-rounds",
        "40:95:170",
    ]));
    let pairs: String = trace
        .lines()
        .map(|l| format!("{}\r\n", l.split(',').take(2).collect::<Vec<_>>().join(",")))
        .collect();
    check(&row(&[
        "--demand-file",
        &common::temp_file("round-demand.csv", &pairs),
        "--failure-rounds",
        "40:95:170",
    ]));
    // The trace of the fed-back run is the lesson's trace, byte for byte.
    let again = common::stdout_ok(&[
        "trace",
        "autoscale",
        "--demand-file",
        &whole,
        "--failure-rounds",
        "40:95:170",
        "--format",
        "csv",
    ]);
    assert_eq!(again, trace);
    // `-` reads stdin; --rounds takes the first rows.
    let out = with_stdin(
        &argv("autoscale --demand-file - --rounds 100 --format json"),
        column.as_bytes(),
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first100 = row(&["--rounds", "100", "--failure-rounds", "none"]);
    assert_eq!(v["launched"], first100["launched"]);
    assert_eq!(v["rounds"], 100);
    // More rounds than rows: one line.
    let line = one_line_error(&["autoscale", "--demand-file", &whole, "--rounds", "241"]);
    assert!(line.contains("integers from 1 to 240"), "{line}");
}

#[test]
fn a_bad_demand_file_is_one_line_naming_file_and_line() {
    let mut text = String::from("demand\n");
    for _ in 0..15 {
        text.push_str("100\n");
    }
    text.push_str("abc\n");
    let f = common::temp_file("d.csv", &text);
    let line = one_line_error(&["autoscale", "--demand-file", &f]);
    assert_eq!(
        line,
        format!("error: --demand-file {f}: line 17: not a number: 'abc'\n")
    );
    let line = one_line_error(&["autoscale", "--demand-file", "/nonexistent/d.csv"]);
    assert_eq!(
        line,
        "error: --demand-file /nonexistent/d.csv: no such file\n"
    );
    let empty = common::temp_file("empty.csv", "");
    assert!(one_line_error(&["autoscale", "--demand-file", &empty]).ends_with("no demand rows\n"));
    // A file over the accepted size is refused before it is read (a sparse file: nothing
    // on disk, 640,000,001 bytes long).
    let big = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("huge.csv");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(640_000_001)
        .unwrap();
    let big = big.to_string_lossy().into_owned();
    let line = one_line_error(&["autoscale", "--demand-file", &big]);
    assert!(
        line.ends_with("640000001 bytes; at most 640000000 are accepted\n"),
        "{line}"
    );
    // The help states the limits.
    let help = common::stdout_ok(&["autoscale", "--help"]);
    assert!(help.contains("--demand-file"), "{help}");
    assert!(help.contains("at most 10000000 rows"), "{help}");
}

#[test]
fn the_policies_and_the_check_interval_through_the_cli() {
    let lesson = row(&[]);
    assert_eq!(lesson["policy"], "lesson");
    assert_eq!(lesson["steps"], "none");
    assert_eq!(lesson["check_interval"], 1);
    // Target tracking at 50 %: about twice the lesson's instance-rounds, short only in
    // rounds 1 and 2, before its scale-out alarm's third data point has launched.
    let tt = row(&["--policy", "target-tracking", "--target-utilization", "50"]);
    let ratio = n(&tt, "billed_rounds") as f64 / n(&lesson, "billed_rounds") as f64;
    assert!((1.7..2.3).contains(&ratio), "{ratio}");
    assert_eq!(n(&tt, "under_capacity_rounds"), 2);
    // Disabling scale-in never shrinks: the smallest group is the largest one's start.
    let kept = row(&["--policy", "target-tracking", "--disable-scale-in", "yes"]);
    assert!(n(&kept, "billed_rounds") > n(&tt, "billed_rounds"));
    // Steps: printed as the flag takes them, and a bad band is one line.
    let st = row(&argv("--policy step --steps ..50:-1/80..120:+2/120..:+30%"));
    assert_eq!(st["steps"], "..50:-1/80..120:+2/120..:+30%");
    assert!(n(&st, "under_capacity_rounds") < n(&lesson, "under_capacity_rounds"));
    for bad in ["50..40:+1", "..40:1", "..40:+0", "..50:+1/40..:+1"] {
        let line = one_line_error(&["autoscale", "--policy", "step", "--steps", bad]);
        assert!(line.contains("--steps"), "{bad}: {line}");
    }
    let line = one_line_error(&["autoscale", "--policy", "step"]);
    assert!(line.contains("--steps"), "{line}");
    for bad in ["0", "101"] {
        let mut args = argv("autoscale --policy target-tracking --target-utilization");
        args.push(bad);
        error_naming(&args, &["integers from 1 to 100"]);
    }
    // The check interval: fewer checks, fewer replacements; its range's ends.
    let sparse = row(&["--check-interval", "10"]);
    assert!(
        n(&sparse, "replacements") < n(&lesson, "replacements"),
        "{sparse}"
    );
    assert_eq!(
        n(&row(&["--check-interval", "10080"]), "check_interval"),
        10080
    );
    let line = one_line_error(&["autoscale", "--check-interval", "0"]);
    assert!(line.contains("integers from 1 to 10080"), "{line}");
    // A trace of a policy run sums to its row (one run, many views).
    let launched = Csv::of(&argv("trace autoscale --policy target-tracking")).sum("launched");
    assert_eq!(launched, n(&tt, "launched"));
}

#[test]
fn every_example_demand_file_runs_under_each_policy() {
    let dir = format!("{}/../examples/demand", env!("CARGO_MANIFEST_DIR"));
    for (file, rows) in [
        ("working-week.csv", 10080),
        ("flash-crowd.csv", 240),
        ("slow-ramp.csv", 1440),
    ] {
        let path = format!("{dir}/{file}");
        for policy in [
            &["--policy", "lesson"][..],
            &["--policy", "target-tracking"],
            &["--policy", "step", "--steps", "..40:-1/80..:+2"],
        ] {
            let mut args = vec!["--demand-file", path.as_str()];
            args.extend_from_slice(policy);
            let v = row(&args);
            assert_eq!(n(&v, "rounds"), rows, "{file}");
        }
    }
}
