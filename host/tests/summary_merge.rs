//! `capsim summary FILE…`: the JSON rows of a grid's shards, merged, are the `--summary` of
//! the whole grid, byte for byte, in every format.

mod common;

use capsim::models::{Autoscale, Bulkhead, Consumers, Model};
use common::{argv, capsim, one_line_error, stdout_ok, temp_file, with_stdin};

/// One grid per model, its combinations cut by the shard boundaries (3 shards).
const GRIDS: [&str; 3] = [
    "autoscale --threshold 1..=5 --cooldown 0,3 --seed 1..=3 --rounds 200",
    "consumers --consumers 1,2,3,4,6 --slots 2,4 --shipments 200 --seed 1..=3",
    "bulkhead --split shared,24 --mode healthy,slowdown --seed 1..=5",
];

/// The grid `grid` (a command line) with the arguments `more`.
fn args<'a>(grid: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    argv(grid).into_iter().chain(more.iter().copied()).collect()
}

/// Writes shards 1..n of `grid` (`--format json`) to files and returns their paths.
fn shards(name: &str, grid: &str, n: usize, more: &[&str]) -> Vec<String> {
    (1..=n)
        .map(|k| {
            let shard = format!("{k}/{n}");
            let rows = stdout_ok(&args(
                grid,
                &[&["--format", "json", "--shard", &shard], more].concat(),
            ));
            temp_file(&format!("merge-{name}-{k}-of-{n}.json"), rows)
        })
        .collect()
}

fn summary(files: &[String], format: &str) -> String {
    let mut a = vec!["summary", "--format", format];
    a.extend(files.iter().map(String::as_str));
    stdout_ok(&a)
}

/// The contract: `capsim summary` of shards 1..3 equals `--summary` of the whole
/// grid, byte for byte, for each model and each format.
#[test]
fn three_shards_merge_into_the_whole_grids_summary() {
    for grid in GRIDS {
        let model = argv(grid)[0];
        let files = shards(model, grid, 3, &[]);
        // Each shard holds some rows, and a boundary cuts a combination (the seeds of one
        // combination fall in two shards): the merge must join them.
        let lens: Vec<usize> = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap().lines().count())
            .collect();
        let words = argv(grid);
        let at = words.iter().position(|a| *a == "--seed").unwrap() + 1;
        let seeds: usize = words[at].trim_start_matches("1..=").parse().unwrap();
        assert!(lens.iter().all(|&l| l > 0), "{lens:?}");
        assert!(!lens[0].is_multiple_of(seeds), "{model}: {lens:?}");
        for format in ["table", "json", "csv"] {
            let whole = stdout_ok(&args(grid, &["--summary", "--format", format]));
            assert_eq!(summary(&files, format), whole, "{model} {format}");
        }
        // The default format is --summary's: a table.
        assert_eq!(
            summary(&files, "table"),
            stdout_ok(
                &[
                    &["summary"][..],
                    &files.iter().map(String::as_str).collect::<Vec<_>>()
                ]
                .concat()
            )
        );
    }
}

/// The extremes: one shard (the whole grid's rows), and more shards than runs (empty
/// shards among them); and a grid of one seed (every run its own combination).
#[test]
fn one_shard_many_shards_and_one_seed() {
    let grid = GRIDS[2];
    for format in ["table", "json", "csv"] {
        let whole = stdout_ok(&args(grid, &["--summary", "--format", format]));
        assert_eq!(summary(&shards("one", grid, 1, &[]), format), whole);
        assert_eq!(summary(&shards("many", grid, 25, &[]), format), whole);
    }
    let single = "autoscale --threshold 2,3 --cooldown 0..=2";
    let files = shards("single", single, 2, &[]);
    for format in ["table", "json", "csv"] {
        assert_eq!(
            summary(&files, format),
            stdout_ok(&args(single, &["--summary", "--format", format]))
        );
    }
}

/// Shards printed with `--columns` merge into `--summary --columns` of the whole grid.
#[test]
fn chosen_columns_are_summarized_as_chosen() {
    let grid = GRIDS[1];
    // Metrics; a parameter among them (the rows keep it, as the summary does); a swept
    // parameter named after a metric.
    for (name, list) in [
        ("columns", "throughput,rounds"),
        ("columns-param", "queue_gap,throughput"),
        ("columns-swept", "rounds,consumers"),
    ] {
        let cols = ["--columns", list];
        let files = shards(name, grid, 3, &cols);
        for format in ["table", "json", "csv"] {
            let whole = stdout_ok(&args(
                grid,
                &[&["--summary", "--format", format][..], &cols].concat(),
            ));
            assert_eq!(summary(&files, format), whole, "{list} {format}");
        }
    }
}

/// A table fixes its widths from the first window of 4096 runs, as `--summary` does: a
/// grid of more than 4096 runs merges to the same bytes.
#[test]
fn a_grid_longer_than_a_window_merges_alike() {
    let grid = "bulkhead --split shared,24 --seed 1..=2100";
    let files = shards("long", grid, 3, &[]);
    let whole = stdout_ok(&args(grid, &["--summary"]));
    assert_eq!(summary(&files, "table"), whole);
}

/// `-` reads standard input (json and csv); a table needs files.
#[test]
fn a_dash_reads_standard_input() {
    let grid = GRIDS[2];
    let files = shards("stdin", grid, 2, &[]);
    let first = std::fs::read(&files[0]).unwrap();
    let out = with_stdin(&["summary", "--format", "csv", "-", &files[1]], &first);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        stdout_ok(&args(grid, &["--summary", "--format", "csv"]))
    );
    let e = one_line_error(&["summary", "-"]);
    assert!(e.contains("not -"), "{e}");
    let e = one_line_error(&["summary", "--format", "json", "-", "-"]);
    assert!(e.contains("more than once"), "{e}");
}

/// A missing, repeated or misplaced shard, and input that is not capsim's rows, are one
/// line naming the file and line, status 2, and no combination is written that is not
/// known to be whole: every line written is a line of the whole grid's `--summary`.
#[test]
fn missing_or_misplaced_shards_are_one_line() {
    let grid = GRIDS[0];
    let f = shards("bad", grid, 3, &[]);
    let whole = stdout_ok(&args(grid, &["--summary", "--format", "json"]));
    let json = |files: &[&String]| {
        let mut a = vec!["summary", "--format", "json"];
        a.extend(files.iter().map(|s| s.as_str()));
        let out = capsim(&a);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{a:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: summary: "), "{err}");
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            assert!(whole.lines().any(|w| w == line), "{a:?}: not whole: {line}");
        }
        err
    };
    // Shard 2 missing: the combination cut at the end of shard 1 stops short.
    let e = json(&[&f[0], &f[2]]);
    assert!(
        e.contains(&format!("{}: line 1", f[2])) && e.contains("shard order"),
        "{e}"
    );
    // Out of order.
    let e = json(&[&f[1], &f[0], &f[2]]);
    assert!(e.contains("shard order"), "{e}");
    // The last shard missing.
    let e = json(&[&f[0], &f[1]]);
    assert!(e.contains("missing at the end"), "{e}");
    // The first shard missing: its first combination has some of its seeds only (and the
    // combinations start inside the grid's order of values).
    let e = json(&[&f[1], &f[2]]);
    assert!(e.contains("a shard is missing"), "{e}");
    // A shard given twice, first, middle or last.
    for files in [
        [&f[0], &f[0], &f[1], &f[2]],
        [&f[0], &f[1], &f[1], &f[2]],
        [&f[0], &f[1], &f[2], &f[2]],
    ] {
        let e = json(&files);
        assert!(e.contains("shard order"), "{files:?}: {e}");
    }
    // Shards that end on combinations: a whole combination missing or repeated shows in
    // the grid's order of values.
    // 10 shards of 3 runs: each one combination (its 3 seeds).
    let aligned = shards("aligned", grid, 10, &[]);
    let without = |skip: usize| -> Vec<&String> {
        (0..10)
            .filter(|&k| k != skip)
            .map(|k| &aligned[k])
            .collect()
    };
    let mut twice: Vec<&String> = aligned.iter().collect();
    twice.insert(4, &aligned[4]);
    for (i, files) in [without(0), without(4), without(9), twice]
        .into_iter()
        .enumerate()
    {
        let e = json(&files);
        assert!(e.contains("shard"), "case {i}: {e}");
    }
    // Not rows: CSV, a file of another grid's keys, nothing at all, no such file.
    let csv = temp_file("merge.csv", stdout_ok(&args(grid, &["--format", "csv"])));
    let e = json(&[&csv]);
    assert!(e.contains(&format!("{csv}: line 1: not a row")), "{e}");
    let other = temp_file(
        "merge-other.json",
        stdout_ok(&["bulkhead", "--format", "json"]),
    );
    let e = json(&[&f[0], &other]);
    assert!(
        e.contains(&format!(
            "{other}: line 1: its keys are not the first row's"
        )),
        "{e}"
    );
    let empty = temp_file("merge-empty.json", "");
    assert!(json(&[&empty]).contains("no rows"));
    let e = one_line_error(&["summary", "/no/such/shard.json"]);
    assert_eq!(e, "error: summary: /no/such/shard.json: no such file\n");
    let junk = temp_file("merge-junk.json", "{\"thresh\":2,\"launched\":3}\n");
    assert!(json(&[&junk]).contains("not a row of capsim"));
    // Rows of parameters only (--columns naming no metric) have nothing to summarize.
    let params = temp_file("merge-params.json", "{\"threshold\":2}\n");
    let e = json(&[&params]);
    assert!(e.contains("no metric to summarize"), "{e}");
    // No file at all is clap's usage error.
    let out = capsim(&["summary"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The help states the inputs, the limits and the contract.
#[test]
fn the_help_states_the_contract_and_the_limits() {
    let help = stdout_ok(&["summary", "--help"]);
    for needle in [
        "--shard K/N",
        "shard order",
        "1048576",
        "4294967296",
        "1000000 rows",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
    assert_eq!(capsim::merge::MAX_LINE, 1_048_576);
    assert_eq!(capsim::merge::MAX_FILE_BYTES, 4_294_967_296);
    assert_eq!(capsim::models::MAX_RUNS, 1_000_000);
}

/// `capsim summary` of a grid's rows equals its `--summary`, for every model and every
/// parameter given as a list (two of its test values, or its default and one), in each
/// format: what a row shows of a parameter (a span, a list, a hook and its result, a path)
/// reads back as the combination it was.
#[test]
fn the_summary_of_rows_is_the_summary_for_every_list_valued_parameter() {
    every_list::<Autoscale>("autoscale", common::values::AUTOSCALE);
    every_list::<Consumers>("consumers", common::values::CONSUMERS);
    every_list::<Bulkhead>("bulkhead", common::values::BULKHEAD);
}

fn every_list<M: Model>(model: &str, table: &[(&str, &str)]) {
    let root = env!("CARGO_MANIFEST_DIR");
    let resolve = |v: &str| match v.strip_prefix('@') {
        Some(path) => format!("{root}/../examples/{path}"),
        None => match v.strip_prefix("examples/") {
            Some(path) => format!("{root}/../examples/{path}"),
            None => v.to_string(),
        },
    };
    for q in M::PARAMS.iter().filter(|q| q.key != "seed") {
        let (_, values) = table.iter().find(|(k, _)| *k == q.key).unwrap();
        let values: Vec<String> = values.split(' ').map(resolve).collect();
        let list = match values.as_slice() {
            [a, b, ..] => format!("{a},{b}"),
            [a] => format!("{},{a}", q.default_text()),
            [] => unreachable!(),
        };
        let flag = format!("--{}", q.flag());
        let mut given: Vec<String> = vec![model.into(), flag.clone(), list];
        // What the flag needs, if it needs anything.
        for n in M::NEEDS.iter().filter(|n| n.flags.contains(&q.key)) {
            if let capsim::models::Rule::Needs(..) = n.rule {
                for (k, v) in n.example {
                    given.push(format!("--{}", k.replace('_', "-")));
                    given.push(resolve(v));
                }
            }
        }
        given.extend(["--seed".into(), "1,2".into()]);
        let given: Vec<&str> = given.iter().map(String::as_str).collect();
        let rows = capsim(&[&given[..], &["--format", "json"]].concat());
        if !rows.status.success() {
            // A list the model refuses whole (a flag and its example disagree) says so.
            let e = String::from_utf8_lossy(&rows.stderr);
            panic!("{given:?}: {e}");
        }
        let file = temp_file(&format!("merge-list-{model}-{}.json", q.key), rows.stdout);
        for format in ["json", "csv", "table"] {
            let merged = summary(std::slice::from_ref(&file), format);
            let whole = stdout_ok(&[&given[..], &["--summary", "--format", format]].concat());
            assert_eq!(merged, whole, "{given:?} --format {format}");
        }
    }
}
