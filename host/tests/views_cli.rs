//! `capsim trace` and `capsim plot` from the outside show the run the metrics describe: a
//! formula (and its interval) reaches them, JSON carries the CSV's numbers digit for digit,
//! and a long table streams with the widths of its first rows.

mod common;

use capsim_tests::read;
use common::{example, json_row, stdout_ok as stdout, temp_path};

/// The column `key` of a CSV trace's last row.
fn last(csv: &str, key: &str) -> String {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|k| *k == key).unwrap();
    let row = lines.last().unwrap();
    row.split(',').nth(at).unwrap().to_string()
}

#[test]
fn a_formula_that_empties_the_group_shows_an_empty_group() {
    let zero = example("zero.formula");
    let csv = stdout(&["trace", "autoscale", "--formula", &zero, "--format", "csv"]);
    // `$TargetDedicatedNodes = 0` from the first evaluation (round 0) on: the group is
    // empty from the end of round 0.
    assert_eq!(last(&csv, "size"), "0");
    assert_eq!(last(&csv, "ready"), "0");
    assert_eq!(csv.lines().count(), 241);
    // The metrics row of the same flags says so too.
    let row = stdout(&["autoscale", "--formula", &zero, "--format", "json"]);
    let row: serde_json::Value = serde_json::from_str(&row).unwrap();
    assert_eq!(row["max_size"], 0);
    assert_eq!(row["min_size"], 0);
    // The lesson's policy is not what the trace showed.
    let lesson = stdout(&["trace", "autoscale", "--format", "csv"]);
    assert_ne!(csv, lesson);
    assert_eq!(last(&lesson, "size"), "9");
}

#[test]
fn the_evaluation_interval_and_sample_delay_reach_the_trace() {
    let demand = example("demand.formula");
    let trace = |extra: &[&str]| {
        let mut args = vec![
            "trace",
            "autoscale",
            "--formula",
            &demand,
            "--format",
            "csv",
        ];
        args.extend_from_slice(extra);
        stdout(&args)
    };
    let base = trace(&[]);
    assert_ne!(base, trace(&["--evaluation-interval", "5"]));
    assert_ne!(base, trace(&["--sample-delay", "0"]));
    // At interval 5 the README's row: max size 19.
    let rows = trace(&["--evaluation-interval", "5"]);
    let max = rows
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap().parse::<u32>().unwrap())
        .max();
    assert_eq!(max, Some(19));
}

#[test]
fn a_plot_draws_every_run_of_a_formula_grid() {
    let zero = example("zero.formula");
    let formulas = format!("none,{zero}");
    let (with, without) = (
        temp_path("views-cli-with.svg"),
        temp_path("views-cli-without.svg"),
    );
    let plot = |more: &[&str], svg: &str| {
        stdout(
            &[
                &["plot", "autoscale"],
                more,
                &["--threshold", "2,5", "-o", svg],
            ]
            .concat(),
        )
    };
    plot(&["--formula", &formulas], &with);
    plot(&[], &without);
    let svg = std::fs::read_to_string(&with).unwrap();
    assert_ne!(svg, std::fs::read_to_string(&without).unwrap());
    // Four runs, each named in the legend with its threshold and formula (a panel per
    // stream: more than four lines would share one panel).
    let words = common::svg_words(&svg);
    for threshold in ["2", "5"] {
        for formula in ["none", zero.as_str()] {
            let name = format!("threshold={threshold} formula={formula}");
            assert!(words.contains(&name), "{name} missing from the legend");
        }
    }
}

#[test]
fn json_carries_the_csvs_numbers_digit_for_digit() {
    let csv = stdout(&["trace", "autoscale", "--format", "csv"]);
    let json = stdout(&["trace", "autoscale", "--format", "json"]);
    let keys: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 240);
    assert_eq!(json.lines().count(), 240);
    for (row, object) in rows.iter().zip(json.lines()) {
        let cells: Vec<String> = keys
            .iter()
            .zip(row.split(','))
            .map(|(k, v)| format!("\"{k}\":{v}"))
            .collect();
        assert_eq!(object, format!("{{{}}}", cells.join(",")));
    }
    // And the CSV's demand is the reference program's text (JavaScript's shortest
    // round-trip formatting), row by row.
    let golden = read("golden/trace-autoscale-2-0.csv");
    let demand = |text: &str| -> Vec<String> {
        text.lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap().to_string())
            .collect()
    };
    let from_json: Vec<String> = json
        .lines()
        .map(|l| {
            let start = l.find("\"demand\":").unwrap() + "\"demand\":".len();
            l[start..].split(',').next().unwrap().to_string()
        })
        .collect();
    assert_eq!(from_json, demand(&golden));
    // Round 1's demand is 919.8876633723187 (the JSON once printed …188, another double).
    assert_eq!(demand(&golden)[1], "919.8876633723187");
    assert_eq!(from_json[1], "919.8876633723187");
    let parsed: f64 = from_json[1].parse().unwrap();
    assert_eq!(parsed.to_string(), "919.8876633723187");
}

#[test]
fn a_long_table_streams_with_the_widths_of_its_first_rows() {
    // 100,001 rounds: the widths are fixed by the header and rounds 0–4095 ("round" is
    // the widest of those in its column, 5 characters); round 100000 is 6 wide and widens
    // its own line only.
    let table = stdout(&["trace", "bulkhead", "--horizon", "100001"]);
    let csv = stdout(&[
        "trace",
        "bulkhead",
        "--horizon",
        "100001",
        "--format",
        "csv",
    ]);
    assert_eq!(table.lines().count(), 100_002);
    for (line, row) in table.lines().zip(csv.lines()) {
        assert!(line.split_whitespace().eq(row.split(',')), "{line} / {row}");
    }
    let header = table.lines().next().unwrap();
    let width = |line: &str| line.split("  ").next().unwrap().len();
    assert_eq!(width(header), 5);
    assert!(table.lines().nth(10).unwrap().starts_with("    9  "));
    assert!(table.lines().nth(99_999).unwrap().starts_with("99998  "));
    assert!(table.lines().last().unwrap().starts_with("100000  "));
}

#[test]
fn the_lessons_boot_is_billed_as_the_ledger_states_it() {
    // The ledger lesson: "her başlatılan örnek iki tur boyunca ödenir ve hiç iş yapmaz" (every
    // launched instance is paid for two rounds and does no work; 276 launches a day × 2).
    // Counted here from the reference program's own traces (tests/golden), round by round:
    // a launch in round t is billed and idle in t and t + 1 (only in t if t is the last).
    for (golden, threshold, cooldown) in [
        ("trace-autoscale-2-0", "2", "0"),
        ("trace-autoscale-5-8", "5", "8"),
    ] {
        let text = read(&format!("golden/{golden}.csv"));
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |k: &str| header.iter().position(|h| *h == k).unwrap();
        let (launched_at, booting_at) = (col("launched"), col("booting"));
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        let rounds = rows.len() as u64;
        let (mut launched, mut idle) = (0u64, 0u64);
        for (t, row) in rows.iter().enumerate() {
            let n: u64 = row[launched_at].parse().unwrap();
            // At the end of round t only this round's launches still boot: each boots its
            // two rounds, none is cancelled.
            assert_eq!(
                row[booting_at].parse::<u64>().unwrap(),
                n,
                "{golden} round {t}"
            );
            launched += n;
            idle += n * (rounds - t as u64).min(2);
        }
        let row = json_row(&[
            "autoscale",
            "--threshold",
            threshold,
            "--cooldown",
            cooldown,
            "--format",
            "json",
        ]);
        assert_eq!(row["launched"], launched, "{golden}");
        assert_eq!(row["idle_billed_rounds"], idle, "{golden}");
        if threshold == "2" {
            // The lesson day: 46 launches × 2 rounds.
            assert_eq!((launched, idle), (46, 92));
            // Its shortfall count reads readiness at the end of a round, as before.
            assert_eq!(row["under_capacity_rounds"], 10);
        }
    }
}
