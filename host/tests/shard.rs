//! `--shard K/N`: N contiguous slices of a grid, in grid order, whose outputs (CSV or JSON
//! Lines) concatenated in order are the whole grid's bytes.

mod common;

use common::{argv, capsim, error_naming, one_line_error, stdout_ok};

/// One grid per model, each cut by some shard boundary inside a batch of runs the model
/// runs together (autoscale: thresholds × cooldowns of one seed, 16 at most; consumers:
/// consumers × slots of one workload; bulkhead: splits × modes of one seed).
const GRIDS: [&str; 3] = [
    "autoscale --threshold 1..=5 --cooldown 0..=3 --seed 1..=3 --rounds 200",
    "consumers --consumers 1,2,3,4 --slots 2,4 --shipments 200 --seed 1..=5",
    "bulkhead --split shared,24,28 --mode healthy,slowdown --seed 1..=4",
];

/// The grid `grid` (a command line) with the arguments `more`.
fn with(grid: &str, more: &[&str]) -> Vec<String> {
    argv(grid)
        .into_iter()
        .chain(more.iter().copied())
        .map(String::from)
        .collect()
}

fn run_ok(args: &[String]) -> String {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout_ok(&args)
}

/// Shards 1..N of every grid, in CSV and JSON, concatenated are the whole grid's bytes,
/// for N from 1 to past the grid's size (empty shards), on one thread or several.
#[test]
fn shards_concatenated_are_the_whole_grid() {
    for grid in GRIDS {
        for format in ["csv", "json"] {
            let whole = run_ok(&with(grid, &["--format", format]));
            let runs = whole.lines().count() - usize::from(format == "csv");
            assert!(runs >= 24, "{grid:?}: {runs} runs");
            for n in [1, 2, 3, 7, 13, runs as u64, runs as u64 + 5] {
                let mut joined = String::new();
                for k in 1..=n {
                    let threads = if k % 2 == 0 { "1" } else { "3" };
                    let shard = format!("{k}/{n}");
                    let part = run_ok(&with(
                        grid,
                        &["--format", format, "--shard", &shard, "--threads", threads],
                    ));
                    joined.push_str(&part);
                }
                assert_eq!(joined, whole, "{grid:?} {format} N={n}");
            }
        }
    }
}

/// Shard K runs len·(K−1)/N .. len·K/N, each bound rounded down: 10 runs in 3 shards are
/// 3, 3 and 4 runs; in 4 shards 2, 3, 2 and 3. The CSV header comes with shard 1 only.
#[test]
fn shard_bounds_are_rounded_down() {
    let grid = "autoscale --rounds 1 --seed 1..=10";
    for (n, sizes) in [
        (3, &[3, 3, 4][..]),
        (4, &[2, 3, 2, 3]),
        (12, &[0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1][..]),
    ] {
        let mut next_seed = 1;
        for (k, &size) in (1..).zip(sizes) {
            let shard = format!("{k}/{n}");
            let out = run_ok(&with(grid, &["--format", "csv", "--shard", &shard]));
            let mut lines: Vec<&str> = out.lines().collect();
            if k == 1 {
                assert!(lines[0].starts_with("threshold,cooldown,seed,"), "{out}");
                lines.remove(0);
            }
            assert_eq!(lines.len(), size, "shard {shard}: {out}");
            for line in lines {
                // Each row's seed is the next one in grid order.
                assert!(
                    line.starts_with(&format!("2,0,{next_seed},")),
                    "{shard}: {line}"
                );
                next_seed += 1;
            }
        }
        assert_eq!(next_seed, 11, "N={n}");
    }
}

/// The extremes of K/N: 1/1 is the whole grid. Cut into 1000000 shards, a grid of 3 runs
/// has runs only in shards 333334 (⌊3·333334/10⁶⌋ = 1), 666667 and 1000000, one each;
/// shard 1 is the CSV header alone, and the others are empty.
#[test]
fn shard_extremes() {
    let grid = ["bulkhead", "--seed", "1..=3", "--format", "csv"];
    let whole = stdout_ok(&grid);
    let lines: Vec<&str> = whole.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(stdout_ok(&[&grid[..], &["--shard", "1/1"]].concat()), whole);
    let shard = |k: &str| stdout_ok(&[&grid[..], &["--shard", &format!("{k}/1000000")]].concat());
    assert_eq!(shard("1"), format!("{}\n", lines[0]));
    for (k, line) in ["333334", "666667", "1000000"].into_iter().zip(&lines[1..]) {
        assert_eq!(shard(k), format!("{line}\n"), "{k}");
    }
    for empty in ["2", "333333", "333335", "999999"] {
        assert_eq!(shard(empty), "", "{empty}");
    }
    // JSON has no header: an empty shard 1 prints nothing.
    let json = stdout_ok(&["bulkhead", "--format", "json", "--shard", "1/1000000"]);
    assert_eq!(json, "");
    let json = stdout_ok(&["bulkhead", "--format", "json", "--shard", "1000000/1000000"]);
    assert_eq!(json, stdout_ok(&["bulkhead", "--format", "json"]));
}

/// Bad shards, and the formats a shard cannot cut, are one line and status 2.
#[test]
fn bad_shards_are_one_line() {
    for bad in [
        "0/3",
        "4/3",
        "3",
        "1/0",
        "a/b",
        "1/1000001",
        "-1/3",
        "1/3/5",
        "+1/3",
        " 1/3",
        "",
    ] {
        let err = one_line_error(&["autoscale", "--format", "csv", "--shard", bad]);
        assert!(
            err.contains("--shard") && err.contains("1 <= K <= N <= 1000000"),
            "{bad}: {err}"
        );
    }
    // The limits are in --help.
    let help = String::from_utf8(capsim(&["consumers", "--help"]).stdout).unwrap();
    assert!(help.contains("1 <= K <= N <= 1000000"), "{help}");
    let err = one_line_error(&["autoscale", "--shard", "1/2"]);
    assert!(err.contains("--shard") && err.contains("table"), "{err}");
    error_naming(
        &argv("autoscale --format csv --summary --shard 1/2"),
        &["--shard", "--summary"],
    );
}

/// A run that fails inside a shard is reported as the whole grid reports it: the rows before
/// it, then the same one line naming the run, status 2. The shards before it concatenated
/// are the whole grid's rows.
#[test]
fn a_failing_run_in_a_shard_is_reported_as_the_whole_grid_reports_it() {
    // capacity=1 cannot serve round 0's demand: runs 10 to 19 fail, the first is seed 1.
    let grid = argv("autoscale --rounds 1 --capacity 100,0.01 --seed 1..=10 --format csv");
    let whole = capsim(&grid);
    assert_eq!(whole.status.code(), Some(2));
    let whole_err = String::from_utf8(whole.stderr).unwrap();
    assert!(
        whole_err.starts_with("error: run capacity=0.01 seed=1: "),
        "{whole_err}"
    );
    let mut joined = Vec::new();
    for k in 1..=2 {
        let shard = format!("{k}/4");
        joined.extend(stdout_ok(&[&grid[..], &["--shard", &shard]].concat()).into_bytes());
    }
    assert_eq!(joined, whole.stdout);
    // Shard 3 (runs 10..15) starts at the failing run: no row, the whole grid's error line.
    let third = capsim(&[&grid[..], &["--shard", "3/4"]].concat());
    assert_eq!(third.status.code(), Some(2));
    assert!(third.stdout.is_empty());
    assert_eq!(String::from_utf8(third.stderr).unwrap(), whole_err);
    // Shard 4 names its own first run, as the whole grid would had it got there.
    let err = one_line_error(&[&grid[..], &["--shard", "4/4"]].concat());
    assert!(
        err.starts_with("error: run capacity=0.01 seed=6: "),
        "{err}"
    );
}

/// A bad parameter anywhere in the grid is refused by every shard before any output.
#[test]
fn every_shard_refuses_a_bad_grid() {
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let mut args = argv("autoscale --rounds 1 --capacity 100,-1 --seed 1..=6 --format json");
        args.extend(["--shard", &shard]);
        error_naming(&args, &["--capacity"]);
    }
}

/// `--columns` and `--shard` together: the shards still concatenate to the whole grid.
#[test]
fn shards_keep_the_chosen_columns() {
    let grid = with(
        GRIDS[1],
        &["--format", "csv", "--columns", "throughput,rounds"],
    );
    let whole = run_ok(&grid);
    // The swept parameters, then the columns named.
    let header = whole.lines().next().unwrap();
    assert!(header.ends_with(",throughput,rounds"), "{header}");
    assert!(!header.contains("routing"), "{header}");
    let mut joined = String::new();
    for k in 1..=3 {
        let mut args = grid.clone();
        args.extend(["--shard".to_string(), format!("{k}/3")]);
        joined.push_str(&run_ok(&args));
    }
    assert_eq!(joined, whole);
}
