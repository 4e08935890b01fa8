//! `capsim bulkhead`'s options beyond the lesson (`--failure-end`, `--breaker`, `--retries`,
//! `--retry-backoff`) through the command line: the "done when" commands, the
//! extremes of each range, bad input, and a plain trace unchanged.

mod common;

use common::{capsim, one_line_error, stdout_ok};
use serde_json::Value;

/// The one JSON row of a bulkhead run with `args`.
fn row(args: &[&str]) -> Value {
    let text = stdout_ok(&[&["bulkhead", "--format", "json"], args].concat());
    assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
    serde_json::from_str(&text).unwrap()
}

fn int(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not an integer: {v}"))
}

/// The lesson's `tek havuz (32) yavaslama` row: 13966 tracking served, 3358 event served
/// (each one call), 2654 tracking dropped.
#[test]
fn done_when_the_breaker_opens_after_the_failure_and_cuts_the_broken_slot_rounds() {
    let plain = row(&["--split", "shared", "--mode", "slowdown"]);
    assert_eq!(int(&plain, "tracking_served"), 13966);
    assert_eq!(int(&plain, "dependency_calls"), 3358);
    assert_eq!(plain["breaker_opened_round"], "none");
    assert_eq!(plain["breaker"], "none");
    let broken = row(&[
        "--split",
        "shared",
        "--mode",
        "slowdown",
        "--breaker",
        "0.5:9",
    ]);
    assert_eq!(broken["breaker"], "0.5:9:500");
    // After the failure start (round 1000, the lesson's BAS).
    assert!(int(&broken, "breaker_opened_round") > 1000, "{broken}");
    assert!(int(&broken, "broken_slot_rounds") < int(&plain, "broken_slot_rounds"));
}

#[test]
fn done_when_retries_make_more_dependency_calls() {
    let calls = |n: &str| {
        int(
            &row(&["--mode", "slowdown", "--retries", n]),
            "dependency_calls",
        )
    };
    assert_eq!(calls("0"), 3358);
    assert!(calls("2") > calls("0"));
    // The most retries and the longest backoff are accepted.
    let most = row(&[
        "--mode",
        "slowdown",
        "--retries",
        "10",
        "--retry-backoff",
        "500",
    ]);
    assert!(int(&most, "dependency_calls") > 3358);
}

#[test]
fn done_when_a_failure_that_ends_serves_more_tracking_requests() {
    let ended = row(&["--mode", "slowdown", "--failure-end", "2000"]);
    assert!(int(&ended, "tracking_served") > 13966, "{ended}");
    assert_eq!(int(&ended, "failure_end"), 2000);
}

/// The breaker's ranges at both ends run. A ratio of 0 is refused (it opened on a healthy
/// day with no failure, then rejected 3,890 calls); the smallest ratio opens on the first
/// failure, so never on a healthy day; ratio 1 only when every call in the window failed.
#[test]
fn breaker_extremes_run() {
    let opened = |b: &str, mode: &str| {
        row(&["--mode", mode, "--breaker", b])["breaker_opened_round"].clone()
    };
    let e = one_line_error(&["bulkhead", "--breaker", "0:9"]);
    assert!(e.contains("RATIO above 0"), "{e}");
    assert_eq!(opened("0.000001:9", "healthy"), "none");
    assert_eq!(opened("0.000001:9", "slowdown"), 1022);
    assert_eq!(opened("1:9", "healthy"), "none");
    assert_eq!(opened("1:9", "slowdown"), 1022);
    assert_eq!(opened("0.5:1:1", "slowdown"), 1022);
    assert!(opened("0.5:10000:100000000", "slowdown").as_u64().unwrap() > 1022);
}

#[test]
fn bad_options_are_one_line_errors() {
    for (flag, value) in [
        ("--breaker", "1.5:9"),
        ("--breaker", "-0.1:9"),
        ("--breaker", "0.5:0"),
        ("--breaker", "0.5:10001"),
        ("--breaker", "0.5:9:0"),
        ("--breaker", "0.5:9:100000001"),
        ("--breaker", "0.5"),
        ("--breaker", "0.5:9:1:2"),
        ("--breaker", "half:9"),
        ("--retries", "11"),
        ("--retry-backoff", "501"),
        ("--failure-end", "1000"),
        ("--failure-end", "soon"),
    ] {
        let err = one_line_error(&["bulkhead", "--mode", "slowdown", flag, value]);
        assert!(err.contains(flag), "{flag} {value}: {err}");
    }
}

/// A trace without the options has the plain columns; with one, the options' columns last.
#[test]
fn the_trace_adds_columns_only_with_the_options() {
    let head = |args: &[&str]| {
        let out = capsim(&[&["trace", "bulkhead", "--format", "csv"], args].concat());
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    let plain = "round,busy,tracking_served,tracking_dropped,event_served,event_dropped";
    assert_eq!(head(&["--mode", "slowdown"]), plain);
    // A backoff without retries would be ignored: refused.
    let e = one_line_error(&[
        "trace",
        "bulkhead",
        "--mode",
        "slowdown",
        "--retry-backoff",
        "3",
    ]);
    assert!(
        e.starts_with("error: --retry-backoff: needs --retries above 0"),
        "{e}"
    );
    let options = format!("{plain},breaker,retries_waiting,dependency_calls,rejected");
    assert_eq!(head(&["--mode", "slowdown", "--breaker", "0.5:9"]), options);
    assert_eq!(head(&["--retries", "1"]), options);
}
