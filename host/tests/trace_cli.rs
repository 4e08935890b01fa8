//! `capsim trace` and `capsim plot` from the outside: the lesson runs' traces byte for byte
//! against the reference programs' (tests/golden/trace-*.csv), one run only, the formats'
//! shapes, and plots that are the same bytes each time.

mod common;

use capsim_tests::read;
use common::{one_line_error as assert_one_line_error, stdout_ok as stdout, temp_path};

#[test]
fn lesson_traces_are_the_reference_programs_byte_for_byte() {
    for (args, golden) in [
        (
            &["autoscale", "--threshold", "2", "--cooldown", "0"][..],
            "trace-autoscale-2-0",
        ),
        (
            &["autoscale", "--threshold", "5", "--cooldown", "8"][..],
            "trace-autoscale-5-8",
        ),
        (
            &["consumers", "--consumers", "4", "--slots", "2"][..],
            "trace-consumers-4-2",
        ),
        (
            &["bulkhead", "--split", "24", "--mode", "slowdown"][..],
            "trace-bulkhead-24-slowdown",
        ),
    ] {
        let mut all = vec!["trace"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--format", "csv"]);
        let got = stdout(&all);
        assert!(got == read(&format!("golden/{golden}.csv")), "{golden}");
    }
}

#[test]
fn a_trace_is_one_run() {
    let err = assert_one_line_error(&["trace", "autoscale", "--threshold", "2,5"]);
    assert!(err.contains("--threshold"), "{err}");
    let err = assert_one_line_error(&["trace", "bulkhead", "--seed", "1..=3"]);
    assert!(err.contains("--seed"), "{err}");
    assert_one_line_error(&["trace", "consumers", "--slots", "0"]);
}

#[test]
fn json_and_table_have_a_row_per_round() {
    // The lesson's group runs 240 rounds.
    let json = stdout(&["trace", "autoscale", "--format", "json"]);
    assert_eq!(json.lines().count(), 240);
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    // Round 0 of the lesson: demand 900, 9 instances required, all 9 ready.
    assert_eq!(first["round"], 0);
    assert_eq!(first["demand"], 900);
    assert_eq!(first["ready"], 9);
    let table = stdout(&["trace", "autoscale", "--rounds", "10"]);
    assert_eq!(table.lines().count(), 11);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header.join(" "),
        "round demand required size ready booting broken launched replaced removed pending \
         pending_wait in_service standby protected removing removing_wait stopped restarting"
    );
}

#[test]
fn a_shared_pool_has_no_per_pool_columns() {
    let csv = stdout(&["trace", "bulkhead", "--horizon", "5", "--format", "csv"]);
    assert_eq!(
        csv.lines().next().unwrap(),
        "round,busy,tracking_served,tracking_dropped,event_served,event_dropped"
    );
    assert_eq!(csv.lines().count(), 6);
}

#[test]
fn plots_are_the_same_bytes_each_time() {
    let (a, b) = (temp_path("trace-cli-a.svg"), temp_path("trace-cli-b.svg"));
    for path in [&a, &b] {
        stdout(&["plot", "autoscale", "--threshold", "2,5", "-o", path]);
    }
    let svg = std::fs::read_to_string(&a).unwrap();
    assert_eq!(svg, std::fs::read_to_string(&b).unwrap());
    assert!(
        svg.starts_with("<svg") && svg.contains(">\nround (1 min)\n<"),
        "x axis named round, a minute each"
    );
    // Two runs of three streams: a panel per stream, each run named once in the legend.
    let words = common::svg_words(&svg);
    for what in ["group size", "ready", "threshold=2", "threshold=5"] {
        assert!(words.contains(what), "{what} missing from the chart");
    }
    assert!(
        !svg.contains("threshold=2: group size"),
        "a panel per stream"
    );
}

#[test]
fn plot_errors_are_one_line() {
    // 9 to 36 runs are small multiples; 37 are too many.
    assert_one_line_error(&["plot", "autoscale", "--seed", "1..=37", "-o", "/tmp/x.svg"]);
    assert_one_line_error(&["plot", "bulkhead", "-o", "/nonexistent/dir/x.svg"]);
}

#[test]
fn a_summary_plot_is_a_histogram_across_seeds() {
    let p = &temp_path("trace-cli-hist.svg");
    stdout(&[
        "plot",
        "autoscale",
        "--seed",
        "1..=20",
        "--summary",
        "-o",
        p,
    ]);
    let svg = std::fs::read_to_string(p).unwrap();
    assert!(
        svg.contains("launched over 20 runs"),
        "title names metric and runs"
    );
    assert!(svg.contains(">\nruns\n<"), "y axis counts runs");
    let err = assert_one_line_error(&["plot", "bulkhead", "--summary", "--metric", "x", "-o", p]);
    assert!(err.contains("tracking_dropped"), "{err}");
}
