//! Issue 19, "your own group", through the CLI: expected values come from the issue and the
//! lesson's figures (a flat demand of D needs ceil(D / 100) instances), never from the code.

mod common;

use common::{capsim, one_line_error};
use serde_json::Value;

/// Runs `capsim autoscale ARGS --format json` and returns its one row.
fn row(args: &[&str]) -> Value {
    let mut all = vec!["autoscale"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = capsim(&all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let v = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert!(lines.next().is_none(), "{args:?}: one row");
    v
}

fn n(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

#[test]
fn a_group_of_three_thousand_runs() {
    // The issue's command: 300,000 requests a round need 3,000 instances.
    let v = row(&[
        "--demand-base",
        "300000",
        "--demand-amplitude",
        "0",
        "--surge",
        "0",
    ]);
    assert!(n(&v, "max_size") >= 3000, "{v}");
    // Without randomness or failures the group is exactly 3,000 all day.
    let v = row(&[
        "--demand-base",
        "300000",
        "--demand-amplitude",
        "0",
        "--surge",
        "0",
        "--transient-failure",
        "0",
        "--failure-rounds",
        "none",
    ]);
    assert_eq!((n(&v, "max_size"), n(&v, "launched")), (3000, 0));
    // The trace (the general path, observed) runs it too, 240 rows and the header.
    let out = capsim(&[
        "trace",
        "autoscale",
        "--demand-base",
        "300000",
        "--demand-amplitude",
        "0",
        "--surge",
        "0",
        "--format",
        "csv",
    ]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 241);
}

#[test]
fn the_host_capacity_is_in_the_help_and_the_error() {
    let help = String::from_utf8(capsim(&["autoscale", "--help"]).stdout).unwrap();
    assert!(help.contains("at most 16384 instances"), "{help}");
    // 1,638,500 requests need 16,385 instances: one more than the host's group holds.
    let line = one_line_error(&[
        "autoscale",
        "--demand-base",
        "1638500",
        "--demand-amplitude",
        "0",
        "--surge",
        "0",
    ]);
    assert!(
        line.trim_end()
            .ends_with("group size exceeds its capacity of 16384"),
        "{line}"
    );
    // 1,638,400 fit exactly.
    let v = row(&[
        "--demand-base",
        "1638400",
        "--demand-amplitude",
        "0",
        "--surge",
        "0",
        "--transient-failure",
        "0",
        "--failure-rounds",
        "none",
        "--rounds",
        "3",
    ]);
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
    let csv = common::stdout_ok(&[
        "trace",
        "autoscale",
        "--max-instances",
        "18",
        "--format",
        "csv",
    ]);
    let size = csv
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "size")
        .unwrap();
    let largest = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(size).unwrap().parse::<u32>().unwrap())
        .max();
    assert_eq!(largest, Some(18));
}
