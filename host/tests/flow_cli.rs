//! The consumers lesson's next question on the command line: `--arrival-rate`, `--outage`,
//! `--buffer` and `--routing` (rows, traces, plots, bad input, the accepted ranges' ends).

mod common;

use common::{argv, json_rows as rows, n, one_line_error, stdout_ok};
use serde_json::Value;

/// `capsim ARGS --format json`'s rows, `line` the arguments split at spaces.
fn json_rows(line: &str) -> Vec<Value> {
    rows(&[&argv(line)[..], &["--format", "json"]].concat())
}

/// The one row of [`json_rows`].
fn one_row(line: &str) -> Value {
    let rows = json_rows(line);
    assert_eq!(rows.len(), 1, "{line}");
    rows.into_iter().next().unwrap()
}

/// The issue's command, without its buffer and with it.
const UNBOUNDED: &str = "consumers --arrival-rate 0.5 --outage 1000..2200";
const ISSUE: &str = "consumers --arrival-rate 0.5 --outage 1000..2200 --buffer 300";

/// Done when: the issue's command keeps at most 300 events and drops some; a buffer large
/// enough drops nothing. "Large enough" from the arrivals: every one of the 5,000
/// shipments arrives once with its 7 events, so no queue ever holds more than 35,000.
#[test]
fn the_issue_buffer_drops_and_a_large_enough_one_does_not() {
    let row = one_row(ISSUE);
    assert!(n(&row, "max_backlog") <= 300, "{row}");
    assert!(n(&row, "dropped_events") > 0, "{row}");
    assert!(n(&row, "dropped_shipments") > 0, "{row}");
    // The row carries the options as the flags spell them (JSON keys: `_` for `-`).
    assert_eq!(row["arrival_rate"], 0.5);
    assert_eq!(row["outage"], serde_json::json!([1000, 2200]));
    assert_eq!(row["buffer"], 300);
    assert_eq!(row["routing"], "shared");
    let every_event = (n(&row, "shipments") * n(&row, "events_per_shipment")).to_string();
    assert_eq!(every_event, "35000");
    let big = one_row(&format!("{UNBOUNDED} --buffer {every_event}"));
    assert_eq!(
        (n(&big, "dropped_events"), n(&big, "dropped_shipments")),
        (0, 0)
    );
    // No drops: every event applied, so throughput · rounds is the 35,000 events.
    let applied = big["throughput"].as_f64().unwrap() * n(&big, "rounds") as f64;
    assert_eq!(applied.round(), 35_000.0);
    // Unbounded is the same run; its peak is a buffer that drops nothing either.
    let unbounded = one_row(UNBOUNDED);
    assert_eq!(unbounded["buffer"], "none");
    assert_eq!(n(&unbounded, "max_backlog"), n(&big, "max_backlog"));
    assert_eq!(n(&unbounded, "rounds"), n(&big, "rounds"));
}

/// Done when: keyed routing reorders no shipment at N = 8, S = 2 (the lesson: 2,279).
#[test]
fn keyed_routing_reorders_nothing_and_costs_rounds() {
    let rows = json_rows("consumers --routing shared,keyed --consumers 8 --slots 2");
    assert_eq!(rows.len(), 2);
    let (shared, keyed) = (&rows[0], &rows[1]);
    assert_eq!(shared["routing"], "shared");
    assert_eq!(
        (n(shared, "rounds"), n(shared, "reordered_shipments")),
        (17_551, 2_279)
    );
    assert_eq!(keyed["routing"], "keyed");
    assert_eq!(n(keyed, "reordered_shipments"), 0, "{keyed}");
    assert_eq!(n(keyed, "wrong_final_state"), 0, "{keyed}");
    let one = one_row("consumers --routing keyed --consumers 8 --slots 2");
    assert_eq!(&one, keyed);
}

/// One run, many views: the flow trace's columns sum to the row's metrics; a plain trace
/// has none of them; the plot draws the queue and the drops only with a flow option.
#[test]
fn traces_and_plots_show_the_backlog_and_the_drops() {
    let csv = stdout_ok(&argv(&format!("trace {ISSUE} --format csv")));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("round,applied,reordered,busy_consumers,queue_left,arrived,dropped,backlog")
    );
    let (mut arrived, mut dropped, mut peak, mut count) = (0u64, 0u64, 0u64, 0u64);
    for line in lines {
        let cells: Vec<u64> = line.split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(cells[0], count, "every round, in order");
        arrived += cells[5];
        dropped += cells[6];
        peak = peak.max(cells[7]);
        count += 1;
    }
    let row = one_row(ISSUE);
    assert_eq!(arrived, 35_000);
    assert_eq!(dropped, n(&row, "dropped_events"));
    assert_eq!(peak, n(&row, "max_backlog"));
    assert_eq!(count, n(&row, "rounds"));
    let plain = stdout_ok(&["trace", "consumers", "--shipments", "20", "--format", "csv"]);
    assert_eq!(
        plain.lines().next(),
        Some("round,applied,reordered,busy_consumers,queue_left")
    );
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let (flow_svg, plain_svg) = (dir.join("flow.svg"), dir.join("plain.svg"));
    let (flow_svg, plain_svg) = (flow_svg.to_str().unwrap(), plain_svg.to_str().unwrap());
    stdout_ok(&[&argv(&format!("plot {ISSUE} -o"))[..], &[flow_svg]].concat());
    let svg = std::fs::read_to_string(flow_svg).unwrap();
    assert!(svg.contains("queued after arrivals") && svg.contains("dropped so far"));
    stdout_ok(&["plot", "consumers", "--shipments", "20", "-o", plain_svg]);
    let plain = std::fs::read_to_string(plain_svg).unwrap();
    assert!(plain.contains("backlog"));
    assert!(!plain.contains("queued after arrivals") && !plain.contains("dropped so far"));
}

/// Bad input: one line, status 2, naming the flag.
#[test]
fn bad_flow_options_are_one_line_errors() {
    let bad: [&[&str]; 15] = [
        &["--arrival-rate", "0"],
        &["--arrival-rate", "-1"],
        &["--arrival-rate", "0.0000009"],
        &["--arrival-rate", "65537"],
        &["--arrival-rate", "nan"],
        &["--arrival-rate", "fast"],
        &["--buffer", "0"],
        &["--buffer", "-3"],
        &["--buffer", "4294967296"],
        &["--arrival-rate", "1", "--outage", "5..5"],
        &["--arrival-rate", "1", "--outage", "9..3"],
        &["--arrival-rate", "1", "--outage", "soon"],
        &["--arrival-rate", "1", "--outage", "0..4294967296"],
        &["--outage", "0..10"],
        &["--routing", "sideways"],
    ];
    for args in bad {
        let mut all = vec!["consumers"];
        all.extend(args);
        let flag = args
            .iter()
            .rev()
            .find(|a| a.starts_with("--"))
            .copied()
            .unwrap();
        let err = one_line_error(&all);
        assert!(err.contains(flag), "{all:?}: {err}");
    }
    let err = one_line_error(&["consumers", "--outage", "0..10"]);
    assert_eq!(
        err,
        "error: --outage: needs --arrival-rate (the lesson's queue is full before round 0; without it the flag would be ignored)\n"
    );
}

/// The accepted ranges' ends run: the slowest and fastest arrivals, the smallest and
/// largest buffers, outages from round 0 and to the last round, both routings.
#[test]
fn the_ends_of_every_accepted_range_run() {
    let slow = one_row("consumers --arrival-rate 0.000001 --shipments 2");
    // Two shipments about a million rounds apart each (14 events, none dropped).
    assert!(n(&slow, "rounds") > 10_000, "{slow}");
    assert_eq!(n(&slow, "dropped_events"), 0);
    let fast = one_row("consumers --arrival-rate 65536 --consumers 8");
    assert_eq!(n(&fast, "dropped_events"), 0);
    let one = one_row("consumers --buffer 1 --shipments 100");
    // The lesson's queue arrives whole in round 0: a buffer of 1 keeps one event of 700.
    assert_eq!(
        (n(&one, "max_backlog"), n(&one, "dropped_events")),
        (1, 699)
    );
    let most = one_row("consumers --buffer 4294967295 --shipments 100");
    assert_eq!(
        (n(&most, "max_backlog"), n(&most, "dropped_events")),
        (700, 0)
    );
    for outage in ["0..1", "0..=4294967294", "4294967294..4294967295"] {
        let row = one_row(&format!(
            "consumers --arrival-rate 1 --outage {outage} --shipments 50"
        ));
        assert_eq!(n(&row, "dropped_events"), 0, "{outage}");
    }
    // An outage to round 2^32 − 1 holds every shipment back: the run ends after it.
    let held = one_row("consumers --arrival-rate 1 --outage 0..4294967295 --shipments 50");
    assert!(n(&held, "rounds") > 4_294_967_295, "{held}");
    assert_eq!(n(&held, "max_backlog"), 350);
    // Grids mix every option with the lesson's runs.
    let rows = json_rows(
        "consumers --buffer none,300 --routing shared,keyed --consumers 1,8 --shipments 500",
    );
    assert_eq!(rows.len(), 8);
    for r in &rows {
        if r["routing"] == "keyed" || n(r, "consumers") == 1 {
            assert_eq!(n(r, "reordered_shipments"), 0, "{r}");
        }
        if r["buffer"] == 300 {
            assert_eq!(n(r, "max_backlog"), 300, "{r}");
            assert_eq!(n(r, "dropped_events"), 3500 - 300, "{r}");
        } else {
            assert_eq!(n(r, "max_backlog"), 3500, "{r}");
        }
    }
}
