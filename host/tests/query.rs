//! `capsim::query` (the browser playground's entry) against the `capsim` binary: a command
//! given as URL pairs prints the binary's stdout bytes and its one stderr line.

use std::path::PathBuf;
use std::process::{Command, Output};

use capsim::query::{run, run_into, Printed, BROWSER_MAX_RUNS};

/// Runs `pairs` as the browser does.
fn browser(pairs: &[(&str, &str)]) -> Printed {
    run(pairs, BROWSER_MAX_RUNS, &())
}

/// Asserts that the browser's `printed` is the command line's `cli` (run with `args`): the
/// same stdout, the same error line, success when there is none. Returns the stdout.
fn assert_same(
    printed: Printed,
    cli: Output,
    args: &[impl AsRef<str> + std::fmt::Debug],
) -> String {
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout),
        String::from_utf8_lossy(&cli.stdout),
        "{args:?}"
    );
    let stderr = String::from_utf8(cli.stderr).unwrap();
    // The formula's warnings come first on stderr, then the error line.
    let warnings: String = printed.warnings.iter().map(|w| format!("{w}\n")).collect();
    let error = printed.error.map(|e| e + "\n").unwrap_or_default();
    assert_eq!(format!("{warnings}{error}"), stderr, "{args:?}");
    assert_eq!(cli.status.success(), error.is_empty());
    String::from_utf8(cli.stdout).unwrap()
}

/// The example formulas, in name order (at least ten).
fn example_formulas() -> Vec<PathBuf> {
    let mut examples: Vec<_> = std::fs::read_dir(EXAMPLES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "formula"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 10, "{examples:?}");
    examples
}

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/formulas");

/// Runs `pairs` both ways and asserts the same stdout, stderr line and success.
fn same(pairs: &[(&str, &str)]) {
    let mut args: Vec<&str> = Vec::new();
    for &(k, v) in pairs {
        match k {
            "model" => args.insert(0, v),
            "lesson" => args.splice(0..0, ["lesson", v]).for_each(drop),
            "trace" => args.splice(0..0, ["trace", v]).for_each(drop),
            "plot" => args.splice(0..0, ["plot", v, "-o", "-"]).for_each(drop),
            "evaluations" if v.is_empty() => args.push("--evaluations"),
            // A URL's `summary=1` is the flag given a value.
            "summary" if !v.is_empty() => args.push(leak(format!("--summary={v}"))),
            "summary" => args.push("--summary"),
            _ => args.extend([leak(format!("--{k}")), v]),
        }
    }
    let cli = Command::new(env!("CARGO_BIN_EXE_capsim"))
        .args(&args)
        .output()
        .unwrap();
    let printed = browser(pairs);
    // `run_into` writes the same bytes as they come, and fails with the same line.
    let mut streamed = Vec::new();
    let result = run_into(pairs, &(), &mut streamed);
    assert_eq!(streamed, printed.stdout, "{args:?}");
    assert_eq!(result.err(), printed.error, "{args:?}");
    assert_same(printed, cli, &args);
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The pairs of a URL's query: `model=autoscale&summary` is `[("model", "autoscale"),
/// ("summary", "")]` (a value may hold `=`, none holds `&`).
fn query(q: &str) -> Vec<(&str, &str)> {
    q.split('&')
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect()
}

#[test]
fn grids_print_the_binarys_bytes() {
    for q in [
        "lesson=group-sweep",
        "model=autoscale&threshold=2,5&seed=1..3&format=json",
        "model=consumers&consumers=1,2&shipments=200&format=csv",
        "model=bulkhead&split=shared,24&seed=1..=4&summary",
        // --columns and --shard, as the command line takes them.
        "model=autoscale&threshold=2,3&columns=launched,min_size&format=json",
        "model=consumers&consumers=1,2&shipments=200&columns=throughput&summary",
        "model=bulkhead&columns=help",
        "model=bulkhead&split=shared,24&seed=1..=4&format=csv&shard=1/3",
        "model=bulkhead&split=shared,24&seed=1..=4&format=csv&shard=2/3",
        "model=bulkhead&split=shared,24&seed=1..=4&format=csv&shard=3/3",
    ] {
        same(&query(q));
    }
}

/// `plot=MODEL` is `capsim plot MODEL -o -`, and `scenario=FILE` the autoscale commands'
/// `--scenario FILE`, the flags given over it.
#[test]
fn plots_and_scenarios_print_the_binarys_bytes() {
    let scenarios = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/scenarios");
    let lesson_grid = format!("{scenarios}/lesson-grid.toml");
    let hooks = format!("{scenarios}/alibaba-hooks.toml");
    for q in [
        "plot=autoscale&threshold=2,5".to_string(),
        "plot=consumers&consumers=1,2&shipments=200".to_string(),
        "plot=bulkhead&split=shared,24".to_string(),
        "plot=autoscale&threshold=2,3,5&cooldown=0,3,8".to_string(),
        "plot=autoscale&seed=1..=40&summary".to_string(),
        "plot=bulkhead&seed=1..=20&summary&metric=event_dropped".to_string(),
        format!("model=autoscale&scenario={lesson_grid}&format=json"),
        format!("model=autoscale&scenario={lesson_grid}&threshold=4&format=csv"),
        format!("model=autoscale&scenario={hooks}&summary&seed=1..=3"),
        format!("trace=autoscale&scenario={hooks}&format=json"),
        format!("plot=autoscale&scenario={hooks}"),
        // Their errors.
        "plot=autoscale&metric=launched".to_string(),
        "plot=autoscale&summary&metric=launchd".to_string(),
        "plot=autoscale&summary&summary".to_string(),
        "plot=autoscale&summary&metric=launched&metric=min_size".to_string(),
        "plot=autoscale&summary=1".to_string(),
        "plot=autoscale&threshold=1..=40".to_string(),
        "plot=autoscal".to_string(),
        "model=autoscale&scenario=no/such.toml".to_string(),
        format!("model=autoscale&scenario={hooks}&scenario={hooks}"),
        "model=consumers&scenario=x.toml".to_string(),
        "trace=autoscale&scenario=no/such.toml".to_string(),
        format!("trace=autoscale&scenario={lesson_grid}"),
    ] {
        same(&query(&q));
    }
}

#[test]
fn bad_input_prints_the_binarys_error_line() {
    for q in [
        "model=autoscale&threshold=x",
        "model=autoscale&threshold=0",
        "model=autoscale&bogus=1",
        "model=autoscale&format=xml",
        "model=autoscale&threshold=2&threshold=3",
        "model=autoscale&threshold=",
        "model=autoscale&summary=1",
        "model=autoscale&threads=999",
        "model=autoscale&seed=1..=2000000",
        "model=bulkhead&split=40",
        "model=consumers&consumers=65",
        "lesson=foo",
        // Suggestions, as the command line makes them.
        "lesson=grup",
        "model=autoscal",
        "model=autoscale&treshold=3",
        "model=autoscale&formt=csv",
        "model=autoscale&format=jsn",
        "model=autoscale&removal-policy=olde",
        "model=autoscale&seed=1-100",
        "model=autoscale&columns=launchd",
        "model=autoscale&columns=launched,launched",
        "model=autoscale&shard=0/3",
        "model=autoscale&shard=1/2",
        "model=autoscale&format=csv&shard=1/2&shard=2/2",
        "model=autoscale&format=csv&summary&shard=1/2",
        // A value's own message that names its flag is the line alone.
        "model=autoscale&demand-file=no/such.csv",
        "trace=autoscale&demand-file=no/such.csv",
    ] {
        same(&query(q));
    }
}

/// Runs the query `q` with `formula-text=TEXT` as its second pair in the browser's way, and
/// the command line on a file `editor.formula` holding the text, in a directory of its own;
/// asserts the same stdout, error line and success; returns the stdout.
fn same_as_file(text: &str, q: &str) -> String {
    let mut pairs = query(q);
    pairs.insert(1, ("formula-text", text));
    let pairs = &pairs[..];
    // A directory per call: tests run side by side in one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "capsim-query-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("editor.formula"), text).unwrap();
    let mut args: Vec<String> = Vec::new();
    let mut tail: Vec<String> = Vec::new();
    for &(k, v) in pairs {
        match k {
            "model" => args.insert(0, v.into()),
            "trace" => args.splice(0..0, ["trace".into(), v.into()]).for_each(drop),
            "formula" if !pairs.iter().any(|(k, _)| *k == "model" || *k == "trace") => args
                .splice(0..0, ["formula".into(), v.into(), "editor.formula".into()])
                .for_each(drop),
            "formula-text" if pairs.iter().any(|(k, _)| *k == "model" || *k == "trace") => {
                tail.extend(["--formula".into(), "editor.formula".into()])
            }
            "formula-text" => {}
            // A URL's bare `evaluations` is the flag; with a value, the flag given one.
            "evaluations" if v.is_empty() => tail.push("--evaluations".into()),
            "evaluations" => tail.push(format!("--evaluations={v}")),
            _ => tail.extend([format!("--{k}"), v.into()]),
        }
    }
    args.extend(tail);
    let cli = Command::new(env!("CARGO_BIN_EXE_capsim"))
        .args(&args)
        .current_dir(&dir)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_same(browser(pairs), cli, &args)
}

#[test]
fn formula_text_is_a_file_of_that_text() {
    for path in &example_formulas() {
        let text = std::fs::read_to_string(path).unwrap();
        let t = text.as_str();
        let row = same_as_file(t, "model=autoscale&format=json");
        // cpu-400-as-printed.formula is Microsoft's text as printed, which does not parse.
        let parses = !path.ends_with("cpu-400-as-printed.formula");
        assert_eq!(
            row.contains("\"formula\":\"editor.formula\""),
            parses,
            "{row}"
        );
        assert_eq!(same_as_file(t, "formula=check"), "");
        same_as_file(t, "formula=eval&sample=$CPUPercent=0.2:0.9:0.95&sample=$PendingTasks=3:4:5:6:7:8:9:10:11:12&set=$CurrentDedicatedNodes=4&at=2026-10-05T09:30:00Z");
    }
    let demand = std::fs::read_to_string(format!("{EXAMPLES}/demand.formula")).unwrap();
    let trace = same_as_file(&demand, "trace=autoscale&evaluation-interval=5&format=csv");
    assert_eq!(trace.lines().count(), 241);
    same_as_file(&demand, "model=autoscale&threshold=2,5&format=csv");
    // Bad texts: a grammar error on line 2, a type error, an empty text, 8192 bytes (read)
    // and 8193 bytes (refused, Batch's limit); each as the command, the grid and the trace.
    let long_ok = format!("$TargetDedicatedNodes = 1;{}", " ".repeat(8192 - 26));
    let too_long = format!("{long_ok} ");
    assert_eq!((long_ok.len(), too_long.len()), (8192, 8193));
    for t in [
        "$TargetDedicatedNodes = 2;\n$x = max(1, ;\n",
        "$TargetDedicatedNodes = \"abc\" + 1;",
        "",
        long_ok.as_str(),
        too_long.as_str(),
    ] {
        same_as_file(t, "formula=check");
        same_as_file(t, "formula=eval");
        same_as_file(t, "model=autoscale");
        same_as_file(t, "trace=autoscale");
    }
    // eval's own flags at their extremes and past them.
    let t = "$TargetDedicatedNodes = rand() > 0.5 ? 1 : 2;";
    for flag in [
        "delay=0",
        "delay=86400",
        "delay=86401",
        "delay=-1",
        "delay=x",
        "seed=0",
        "seed=18446744073709551615",
        "seed=18446744073709551616",
        "at=yesterday",
        "sample=$Nope=1",
    ] {
        same_as_file(t, &format!("formula=eval&{flag}"));
    }
}

#[test]
fn formula_text_cannot_be_given_with_a_formula_file() {
    let p = browser(&query(
        "model=autoscale&formula=none&formula-text=$TargetDedicatedNodes = 1;",
    ));
    let error = "error: formula-text and formula cannot both be given (formula-text is the file editor.formula)";
    assert_eq!(
        (p.stdout.as_slice(), p.error.as_deref()),
        (&[][..], Some(error))
    );
}

/// `trace=autoscale&evaluations` is `capsim trace autoscale --formula F --evaluations`: the
/// same JSON Lines, byte for byte, for every example formula (one line per evaluation: round
/// 0 and every 15 rounds of the 240, the lesson day's 16), and the same one-line errors.
#[test]
fn the_evaluations_view_is_the_command_lines() {
    for path in &example_formulas() {
        let text = std::fs::read_to_string(path).unwrap();
        let out = same_as_file(&text, "trace=autoscale&evaluations");
        if path.ends_with("cpu-400-as-printed.formula") {
            // Microsoft's text as printed does not parse: no lines, the located error.
            assert_eq!(out, "");
            continue;
        }
        let rounds: Vec<u64> = out
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["round"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(
            rounds,
            (0..16).map(|i| 15 * i).collect::<Vec<_>>(),
            "{path:?}"
        );
    }
    let demand = std::fs::read_to_string(format!("{EXAMPLES}/demand.formula")).unwrap();
    // Other intervals and seeds; a bare `evaluations=` is the flag too.
    let out = same_as_file(
        &demand,
        "trace=autoscale&evaluation-interval=5&seed=7&evaluations",
    );
    assert_eq!(out.lines().count(), 48);
    let out = same_as_file(
        &demand,
        "trace=autoscale&evaluation-interval=10080&evaluations",
    );
    assert_eq!(out.lines().count(), 1);
    // Errors: with --format (either order), twice, a value, one run only, no formula, a
    // bad flag value, the flag on another model's trace.
    for q in [
        "evaluations&format=csv",
        "format=json&evaluations",
        "evaluations&evaluations",
        "evaluations=yes",
        "evaluations&threshold=2,3",
        "evaluations&evaluation-interval=4",
        "evaluations&threshold=x",
    ] {
        same_as_file(&demand, &format!("trace=autoscale&{q}"));
    }
    same(&query("trace=autoscale&evaluations"));
    same(&query("trace=consumers&evaluations"));
}

/// A failed evaluation is on its line with its error, as Batch's AutoScaleRun records it:
/// cpu-busy.formula asks for 70 % of five minutes of $CPUPercent samples, which round 0 does
/// not have, so its first evaluation fails at the GetSample call (line and column counted
/// here from the file), with nothing assigned yet but the pool's deallocation option.
#[test]
fn a_failed_evaluation_shows_its_error() {
    let text = std::fs::read_to_string(format!("{EXAMPLES}/cpu-busy.formula")).unwrap();
    let (line, col) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find("GetSample").map(|c| (i + 1, c + 1)))
        .unwrap();
    let out = same_as_file(&text, "trace=autoscale&evaluations");
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(
        first,
        serde_json::json!({
            "round": 0,
            "timestamp": "2026-10-01T00:00:00.000Z",
            "results": "$NodeDeallocationOption=requeue",
            "error": format!("line {line}, col {col}: Insufficient data from data set: $CPUPercent wanted 70%, received 0%"),
        })
    );
    // The ones after it have the samples: no error.
    assert!(
        out.lines().skip(1).all(|l| l.ends_with(",\"error\":null}")),
        "{out}"
    );
}

/// `readable_rows` gives each cell of a JSON row its exact text (the row's own, as the JSON
/// line holds it) and the text the command line's table prints for it: the lesson pages'
/// start commands, the group's 3 × 3 sweep and runs with fractions (a cost, a throughput, a
/// ratio), every metric (`--columns all`) and the default table's.
#[test]
fn readable_rows_are_the_tables_cells() {
    for q in [
        "model=autoscale&threshold=2&cooldown=0",
        "model=autoscale&threshold=2,3,5&cooldown=0,3,8",
        "model=autoscale&price=0.125:0.04:0.01&demand-base=919.8876633723187",
        "model=consumers&consumers=1&slots=2",
        "model=consumers&consumers=1,3,7&slots=1,8&shipments=300",
        "model=bulkhead&split=shared&mode=slowdown",
        "model=bulkhead&split=shared,24&mode=healthy,slowdown",
    ] {
        let pairs = query(q);
        let mut json = pairs.clone();
        json.push(("format", "json"));
        let printed = browser(&json);
        assert_eq!(printed.error, None, "{q}");
        let stdout = String::from_utf8(printed.stdout).unwrap();
        let readable = capsim::query::readable_rows(&stdout).unwrap();
        let rows: Vec<Vec<[String; 3]>> = readable
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), stdout.lines().count(), "{q}");
        for (row, line) in rows.iter().zip(stdout.lines()) {
            // The keys in the row's order, each exact text the line's own.
            let mut rebuilt = String::from("{");
            for (i, [key, exact, _]) in row.iter().enumerate() {
                let comma = if i == 0 { "" } else { "," };
                rebuilt.push_str(&format!("{comma}\"{key}\":{exact}"));
            }
            assert_eq!(rebuilt + "}", line, "{q}");
        }
        for columns in [None, Some("all")] {
            let mut args: Vec<String> = vec![pairs[0].1.to_string()];
            for &(k, v) in &pairs[1..] {
                args.extend([format!("--{k}"), v.to_string()]);
            }
            if let Some(c) = columns {
                args.extend(["--columns".to_string(), c.to_string()]);
            }
            let cli = Command::new(env!("CARGO_BIN_EXE_capsim"))
                .args(&args)
                .output()
                .unwrap();
            assert!(cli.status.success(), "{args:?}");
            let table = String::from_utf8(cli.stdout).unwrap();
            let mut lines = table.lines();
            let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
            let mut compared = 0;
            for (row, line) in rows.iter().zip(lines) {
                let cells: Vec<&str> = line.split_whitespace().collect();
                assert_eq!(cells.len(), header.len(), "{args:?}: {line}");
                for (key, cell) in header.iter().zip(cells) {
                    let shown = &row.iter().find(|c| c[0] == *key).unwrap()[2];
                    assert_eq!(shown, cell, "{args:?}: {key}");
                    compared += 1;
                }
            }
            assert_eq!(compared, rows.len() * header.len(), "{args:?}");
        }
    }
    // Rounded where a table rounds: a throughput, a cost; whole numbers and words as they are.
    let shown = |q: &str, key: &str| {
        let mut pairs = query(q);
        pairs.push(("format", "json"));
        let stdout = String::from_utf8(browser(&pairs).stdout).unwrap();
        let row: Vec<[String; 3]> =
            serde_json::from_str(capsim::query::readable_rows(&stdout).unwrap().trim()).unwrap();
        let [_, exact, shown] = row.into_iter().find(|c| c[0] == key).unwrap();
        (exact, shown)
    };
    assert_eq!(
        shown("model=consumers&consumers=1&slots=2", "throughput"),
        ("0.3890099141955275".to_string(), "0.389".to_string())
    );
    assert_eq!(
        shown("model=autoscale", "capacity"),
        ("100.0".to_string(), "100".to_string())
    );
    assert_eq!(
        shown("model=bulkhead", "split"),
        ("\"shared\"".to_string(), "shared".to_string())
    );
    // A NaN, which JSON writes as null, is the table's NaN; a line that is no row, an error.
    assert_eq!(
        capsim::query::readable_rows("{\"x\":null,\"y\":[150,190]}\n\n").unwrap(),
        "[[\"x\",\"null\",\"NaN\"],[\"y\",\"[150,190]\",\"150:190\"]]\n"
    );
    let bad = capsim::query::readable_rows("{\"x\":1}\n[1]\n").unwrap_err();
    assert!(
        bad.starts_with("line 2: not a row of --format json: '{' expected at byte "),
        "{bad}"
    );
}
