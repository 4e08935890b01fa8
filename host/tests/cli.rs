//! The `capsim` command-line contract: lesson bytes, flags, formats, exit codes.

mod common;

use std::process::Command;

use capsim_tests::{golden, golden_en};
use common::{argv, capsim, one_line_error};

const LESSONS: [&str; 5] = [
    "group",
    "group-sweep",
    "group-ledger",
    "consumers",
    "bulkhead",
];

#[test]
fn lesson_prints_the_lesson_bytes() {
    for name in LESSONS {
        let out = capsim(&["lesson", name]);
        assert!(out.status.success(), "{name}");
        assert_eq!(out.stdout, golden(name), "{name}");
    }
    let all: Vec<u8> = LESSONS.iter().flat_map(|n| golden(n)).collect();
    assert_eq!(capsim(&["lesson", "all"]).stdout, all);
}

#[test]
fn lesson_lang_en_prints_the_english_goldens_and_tr_the_lessons_bytes() {
    for name in LESSONS {
        let out = capsim(&["lesson", name, "--lang", "en"]);
        assert!(out.status.success(), "{name}");
        assert_eq!(out.stdout, golden_en(name), "{name} (en)");
        assert_eq!(
            capsim(&["lesson", name, "--lang", "tr"]).stdout,
            golden(name),
            "{name} (tr)"
        );
    }
    let all: Vec<u8> = LESSONS.iter().flat_map(|n| golden_en(n)).collect();
    assert_eq!(capsim(&["lesson", "all", "--lang", "en"]).stdout, all);
    assert!(one_line_error(&["lesson", "all", "--lang", "de"]).contains("--lang"));
}

/// Asserts exit status 2, one line on stderr mentioning `flag`, nothing on stdout.
fn assert_bad_input(args: &[&str], flag: &str) {
    let err = one_line_error(args);
    assert!(err.contains(flag), "{args:?}: {err}");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    // zero or negative where not allowed
    assert_bad_input(&["autoscale", "--threshold", "0"], "--threshold");
    assert_bad_input(&["autoscale", "--threshold", "-1"], "--threshold");
    assert_bad_input(&["consumers", "--consumers", "0"], "--consumers");
    assert_bad_input(&["consumers", "--slots", "0"], "--slots");
    assert_bad_input(&["consumers", "--shipments", "0"], "--shipments");
    assert_bad_input(&["bulkhead", "--tracking-hold", "0"], "--tracking-hold");
    // out of range
    assert_bad_input(&["autoscale", "--seed", "0"], "--seed");
    assert_bad_input(&["autoscale", "--seed", "2147483647"], "--seed");
    assert_bad_input(&["bulkhead", "--split", "32"], "--split");
    assert_bad_input(&["bulkhead", "--split", "0"], "--split");
    assert_bad_input(
        &["autoscale", "--transient-failure", "1.5"],
        "--transient-failure",
    );
    assert_bad_input(&["consumers", "--seed", "99999999999"], "--seed");
    // over a capacity limit
    assert_bad_input(&["consumers", "--shipments", "65537"], "--shipments");
    assert_bad_input(&["consumers", "--consumers", "65"], "--consumers");
    // 2,000,000 requests at 1 each: more instances than the host's group holds (16,384).
    assert_bad_input(
        &["autoscale", "--capacity", "1", "--demand-base", "2000000"],
        "group size",
    );
    assert_bad_input(&["autoscale", "--seed", "1..=2000000"], "--seed");
    // malformed lists
    assert_bad_input(&["autoscale", "--threshold", "2,,3"], "--threshold");
    assert_bad_input(&["autoscale", "--threshold", "two"], "--threshold");
    assert_bad_input(&["autoscale", "--cooldown", "5..=1"], "--cooldown");
    // every empty range alike, 0..0 included
    for empty in ["0..0", "1..1", "2..1"] {
        assert_bad_input(&["autoscale", "--cooldown", empty], "is empty");
    }
    assert_bad_input(&["bulkhead", "--split", "shared,x"], "--split");
    assert_bad_input(&["autoscale", "--capacity", "nan"], "--capacity");
    // unknown mode, format, lesson, flag
    assert_bad_input(&["bulkhead", "--mode", "fast"], "--mode");
    assert_bad_input(&["bulkhead", "--format", "xml"], "--format");
    assert_bad_input(&["lesson", "nope"], "nope");
    assert_bad_input(&["autoscale", "--bogus", "1"], "--bogus");
}

fn json_lines(args: &[&str]) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let out = capsim(args);
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| match serde_json::from_str(l).unwrap() {
            serde_json::Value::Object(m) => m,
            other => panic!("not an object: {other}"),
        })
        .collect()
}

/// The lesson's own sweeps, as JSON Lines queries.
const GROUP_PAIRS: &str = "autoscale --threshold 2,5 --cooldown 0,8 --format json";
const CONSUMERS_N1_N8: &str = "consumers --consumers 1,8 --slots 2 --format json";
const BULKHEAD_LAYOUTS: &str = "bulkhead --split shared,24 --mode healthy,slowdown --format json";

#[test]
fn json_holds_parameters_and_the_contract_metric_keys() {
    let cases = [
        (
            GROUP_PAIRS,
            "threshold cooldown seed min_size max_size max_launching max_launching_ratio \
             under_capacity_rounds launched false_replacements broken_rounds scaling_actions \
             replacements",
        ),
        (
            CONSUMERS_N1_N8,
            "consumers slots shipments seed rounds reordered_shipments wrong_final_state \
             throughput",
        ),
        (
            BULKHEAD_LAYOUTS,
            "split mode seed tracking_served tracking_dropped event_served event_dropped \
             idle_slots busy_slot_rounds",
        ),
    ];
    for (args, keys) in cases {
        let rows = json_lines(&argv(args));
        let runs = if args.starts_with("consumers") { 2 } else { 4 };
        assert_eq!(rows.len(), runs, "{args}");
        for row in &rows {
            for key in keys.split_whitespace() {
                assert!(row.contains_key(key), "{key} missing in {args}");
            }
        }
    }
    // The lesson's numbers, through the CLI.
    let g = json_lines(&argv(GROUP_PAIRS));
    assert_eq!(
        (g[0]["launched"].as_u64(), g[3]["launched"].as_u64()),
        (Some(46), Some(19))
    );
    let c = json_lines(&argv(CONSUMERS_N1_N8));
    assert_eq!(c[1]["rounds"].as_u64(), Some(17551));
    assert_eq!(c[1]["wrong_final_state"].as_u64(), Some(432));
    let b = json_lines(&argv(BULKHEAD_LAYOUTS));
    assert_eq!(b[0]["split"], "shared");
    assert_eq!(b[3]["split"], 24);
    assert_eq!(b[3]["mode"], "slowdown");
    assert_eq!(b[1]["tracking_dropped"].as_u64(), Some(2654));
    assert_eq!(b[3]["tracking_dropped"].as_u64(), Some(172));
}

#[test]
fn csv_and_table_have_a_header_and_a_line_per_run() {
    let out = capsim(&argv(
        "autoscale --threshold 2,3,5 --cooldown 0,3,8 --format csv",
    ));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10);
    assert!(lines[0].starts_with("threshold,cooldown,seed,"));
    assert!(lines[0].contains(",min_size,max_size,"));
    assert!(lines[1].starts_with("2,0,20261001,"));
    let out = capsim(&["bulkhead", "--split", "shared,28,24,20,16"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 6);
    let widths: Vec<usize> = text.lines().map(str::len).collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "aligned: {text}");
}

#[test]
fn thread_count_does_not_change_the_bytes() {
    let args = argv("bulkhead --split shared,24 --seed 1..=40 --format csv");
    let serial = capsim(&[&args[..], &["--threads", "1"]].concat()).stdout;
    let parallel = capsim(&[&args[..], &["--threads", "2"]].concat()).stdout;
    assert_eq!(serial.iter().filter(|&&b| b == b'\n').count(), 81);
    assert_eq!(serial, parallel);
}

#[test]
fn help_shows_the_limits() {
    let out = capsim(&["consumers", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for needle in ["1 to 64", "1 to 65536", "1 to 2147483646", "--format"] {
        assert!(help.contains(needle), "{needle}");
    }
    let help = String::from_utf8(capsim(&["bulkhead", "--help"]).stdout).unwrap();
    for needle in ["1 to 127", "1 to 65535", "at most 64 per round"] {
        assert!(help.contains(needle), "{needle}");
    }
}

#[test]
fn every_parameter_flag_reaches_the_run() {
    // Each flag with a non-lesson value must come back in the run's JSON parameters.
    let cases: [(&str, &[(&str, &str)]); 3] = [
        (
            "autoscale",
            &[
                ("threshold", "3"),
                ("cooldown", "4"),
                ("seed", "77"),
                ("rounds", "200"),
                ("capacity", "90"),
                ("boot_rounds", "3"),
                ("transient_failure", "0.05"),
                ("failure_rounds", "10:20"),
                ("demand_base", "950"),
                ("demand_amplitude", "300"),
                ("demand_period", "100"),
                ("surge_start", "140"),
                ("surge_end", "180"),
                ("surge", "500"),
            ],
        ),
        (
            "consumers",
            &[
                ("consumers", "3"),
                ("slots", "3"),
                ("shipments", "300"),
                ("events_per_shipment", "5"),
                ("queue_gap", "0"),
                ("seed", "77"),
                ("final_event_rounds", "4"),
                ("event_rounds_min", "2"),
                ("event_rounds_spread", "4"),
            ],
        ),
        (
            "bulkhead",
            &[
                ("split", "20"),
                ("mode", "slowdown"),
                ("seed", "77"),
                ("total_slots", "30"),
                ("rounds_per_second", "50"),
                ("horizon", "500"),
                ("failure_start", "100"),
                ("tracking_rate", "200"),
                ("event_rate", "50"),
                ("tracking_hold", "3"),
                ("event_hold", "5"),
                ("slow_hold", "20"),
            ],
        ),
    ];
    for (model, flags) in cases {
        let mut args = vec![model.to_string(), "--format".into(), "json".into()];
        for (key, value) in flags {
            args.push(format!("--{}", key.replace('_', "-")));
            args.push((*value).to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let rows = json_lines(&args);
        assert_eq!(rows.len(), 1, "{model}");
        for (key, value) in flags {
            let got = &rows[0][*key];
            let shown = match got {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Array(a) => a
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(":"),
                serde_json::Value::Number(n) => n.as_f64().unwrap().to_string(),
                other => other.to_string(),
            };
            assert_eq!(shown, *value, "{model} --{key}");
        }
    }
}

#[test]
fn threads_are_bounded() {
    // 0 is one per core; 256 is the documented bound.
    for ok in ["0", "1", "256"] {
        let out = capsim(&["autoscale", "--threads", ok, "--format", "csv"]);
        assert!(out.status.success(), "--threads {ok}");
        assert!(out.stderr.is_empty(), "--threads {ok}");
    }
    for bad in ["257", "65535", "4294967296", "-1", "many"] {
        assert_bad_input(&["autoscale", "--threads", bad], "--threads");
    }
    let help = String::from_utf8(capsim(&["autoscale", "--help"]).stdout).unwrap();
    assert!(help.contains("0 (one per core) to 256"), "{help}");
}

/// Runs capsim and returns (stdout, stderr, exit code).
fn capsim_text(args: &[&str]) -> (String, String, Option<i32>) {
    let out = capsim(args);
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (text(out.stdout), text(out.stderr), out.status.code())
}

#[test]
fn a_failing_run_names_itself_whatever_the_threads() {
    // With one request per instance, round 0's demand (20,000) needs 20,000 instances: more
    // than the host's group holds (16,384). Seeds are innermost, so the capacity=100 runs
    // (1 to 300) come first and the first failing run is capacity=1 with the first seed.
    let args = argv("autoscale --demand-base 20000 --capacity 100,1 --seed 1..=300");
    let mut seen = Vec::new();
    for threads in ["1", "2", "3"] {
        let (out, err, code) = capsim_text(&[&args[..], &["--threads", threads]].concat());
        assert_eq!(code, Some(2), "{threads}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: run capacity=1 seed=1: ") && err.contains("capacity"),
            "{err}"
        );
        // The 300 capacity=100 rows came first and stay printed (header + 300 lines).
        assert_eq!(out.lines().count(), 301, "{threads}");
        seen.push((out, err));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn a_later_failing_run_follows_the_streamed_rows() {
    // 5000 good runs fill more than one window (4096 runs); run 5001 (capacity=1, seed=1)
    // is the first to fail. Every earlier row is printed, in grid order, then the error.
    let args = argv(
        "autoscale --demand-base 20000 --rounds 1 --capacity 100,1 --seed 1..=5000 --format csv",
    );
    let mut seen = Vec::new();
    for threads in ["1", "2"] {
        let (out, err, code) = capsim_text(&[&args[..], &["--threads", threads]].concat());
        assert_eq!(code, Some(2), "{err}");
        assert!(err.starts_with("error: run capacity=1 seed=1: "), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5001);
        for (seed, line) in (1..=5000).zip(&lines[1..]) {
            assert!(line.starts_with(&format!("2,0,{seed},1,100,")), "{line}");
        }
        seen.push((out, err));
    }
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn parameter_errors_come_before_any_row() {
    // The bad capacity is the grid's last combination: still nothing is run or printed.
    let args = argv("autoscale --rounds 1 --capacity 100,-1 --seed 1..=5000");
    assert_bad_input(&args, "--capacity");
    // Only the named flags and the seed make the run's name.
    let (_, err, _) = capsim_text(&["autoscale", "--demand-base", "900,3000000", "--seed", "4"]);
    assert!(
        err.starts_with("error: run demand-base=3000000 seed=4: "),
        "{err}"
    );
}

#[test]
fn long_grids_stream_in_grid_order() {
    // 10000 runs: three windows. JSON and CSV rows come in grid order, nothing on stderr
    // (no progress display on a pipe).
    let (out, err, code) = capsim_text(&argv("autoscale --rounds 1 --seed 1..=10000 --format csv"));
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let seeds: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    let expected: Vec<String> = (1..=10000).map(|s: u32| s.to_string()).collect();
    assert_eq!(seeds, expected);
    // A table's widths come from the first window (seeds 1 to 4096, no wider than the
    // header "seed"): seed 9999 fits, seed 10000 widens its own line by one.
    let (out, err, _) = capsim_text(&["autoscale", "--rounds", "1", "--seed", "1..=10000"]);
    assert!(err.is_empty(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 10001);
    assert_eq!(lines[9999].len(), lines[0].len());
    assert_eq!(lines[10000].len(), lines[0].len() + 1);
}

#[test]
fn summaries_stream_one_combination_at_a_time() {
    // The second combination's 3000 runs straddle the first window's end (4096 runs); its
    // summary must be what it is alone.
    let base = argv("autoscale --rounds 1 --seed 1..=3000 --summary");
    let both = capsim_text(&[&base[..], &["--threshold", "2,3", "--format", "csv"]].concat());
    assert_eq!((both.1.as_str(), both.2), ("", Some(0)));
    let alone =
        |t: &str| capsim_text(&[&base[..], &["--threshold", t, "--format", "csv"]].concat()).0;
    let (two, three) = (alone("2"), alone("3"));
    let mut expected: Vec<&str> = two.lines().collect();
    expected.extend(three.lines().skip(1));
    assert_eq!(both.0.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_capsim"))
        .args(["autoscale", "--seed", "1..=1000000", "--format", "csv"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for _ in 0..3 {
        assert!(lines.next().unwrap().is_ok());
    }
    drop(lines);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A demand curve that goes negative empties the group (issue 7): the reference program
/// (`grup.mjs` with its base demand edited to 100) computes `{"min":0,"max":14,"esZamanli":4,
/// "oran":null,...,"olcekleme":80}`, its ratio `0 / 0 = NaN` kept by `Math.max`. NaN is JSON
/// `null` and `NaN` in tables and CSV, as JavaScript's `String(NaN)`.
#[test]
fn an_emptied_group_prints_its_nan_ratio() {
    let base = ["autoscale", "--demand-base", "100", "--format"];
    let json = json_lines(&[&base[..], &["json"]].concat());
    assert_eq!(json.len(), 1);
    assert_eq!(json[0]["min_size"], 0);
    assert_eq!(json[0]["max_size"], 14);
    assert_eq!(json[0]["scaling_actions"], 80);
    assert!(json[0]["max_launching_ratio"].is_null());
    let csv = capsim(&[&base[..], &["csv"]].concat());
    let csv = String::from_utf8(csv.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    let column = lines[0]
        .split(',')
        .position(|k| k == "max_launching_ratio")
        .unwrap();
    assert_eq!(lines[1].split(',').nth(column), Some("NaN"));
    // The table shows the ratio with every metric (it is not a headline one).
    let table = capsim(&[&base[..], &["table", "--columns", "all"]].concat());
    let table = String::from_utf8(table.stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    let column = lines[0]
        .split_whitespace()
        .position(|k| k == "max_launching_ratio")
        .unwrap();
    assert_eq!(lines[1].split_whitespace().nth(column), Some("NaN"));
}

/// A demand of -1e17 asks the scale-in loop for ~1e15 steps per round: capsim computes their
/// effect in one pass over the group (this used to run for hours). The reference, its loop
/// bounded by the group's size, computes `{"min":0,"max":9,"oran":null,"olcekleme":49}`.
#[test]
fn a_huge_negative_demand_finishes() {
    let out = json_lines(&argv(
        "autoscale --demand-amplitude -1e17 --rounds 50 --format json",
    ));
    assert_eq!(out[0]["min_size"], 0);
    assert_eq!(out[0]["max_size"], 9);
    assert_eq!(out[0]["scaling_actions"], 49);
    assert!(out[0]["max_launching_ratio"].is_null());
}

/// `--format parquet` is the parquet feature's: a build without it refuses the value and
/// says how to get it; `capsim trace` never takes it (its rows are written as they come).
#[test]
fn format_parquet_needs_the_parquet_feature() {
    let err = one_line_error(&["autoscale", "--format", "parquet"]);
    let err = err.trim_end();
    if cfg!(feature = "parquet") {
        assert!(err.contains("redirect the output"), "{err}");
    } else {
        assert_eq!(err, "error: invalid value 'parquet' for '--format <FORMAT>' [possible values: table, json, csv]; --format parquet is in a build with the parquet feature (cargo install --path host --locked --features parquet)");
    }
    let err = one_line_error(&["trace", "bulkhead", "--format", "parquet"]);
    assert!(!err.contains("feature"), "{err}");
    assert!(err.starts_with("error: invalid value 'parquet' for '--format <FORMAT>' [possible values: table, json, csv]"), "{err}");
}
