//! `capsim::query` (the browser playground's entry) against the `capsim` binary: a command
//! given as URL pairs prints the binary's stdout bytes and its one stderr line.

use std::process::Command;

use capsim::query::{run, BROWSER_MAX_RUNS};

/// Runs `pairs` both ways and asserts the same stdout, stderr line and success.
fn same(pairs: &[(&str, &str)]) {
    let mut args: Vec<&str> = Vec::new();
    for &(k, v) in pairs {
        match k {
            "model" => args.insert(0, v),
            "lesson" => args.splice(0..0, ["lesson", v]).for_each(drop),
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
    let printed = run(pairs, BROWSER_MAX_RUNS, &());
    let error = printed.error.clone();
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout),
        String::from_utf8_lossy(&cli.stdout),
        "{args:?}"
    );
    let stderr = String::from_utf8(cli.stderr).unwrap();
    assert_eq!(
        error.map(|e| e + "\n").unwrap_or_default(),
        stderr,
        "{args:?}"
    );
    assert_eq!(cli.status.success(), stderr.is_empty());
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

#[test]
fn grids_print_the_binarys_bytes() {
    same(&[("lesson", "group-sweep")]);
    same(&[
        ("model", "autoscale"),
        ("threshold", "2,5"),
        ("seed", "1..3"),
        ("format", "json"),
    ]);
    same(&[
        ("model", "consumers"),
        ("consumers", "1,2"),
        ("shipments", "200"),
        ("format", "csv"),
    ]);
    same(&[
        ("model", "bulkhead"),
        ("split", "shared,24"),
        ("seed", "1..=4"),
        ("summary", ""),
    ]);
    // --columns and --shard, as the command line takes them.
    same(&[
        ("model", "autoscale"),
        ("threshold", "2,3"),
        ("columns", "launched,min_size"),
        ("format", "json"),
    ]);
    same(&[
        ("model", "consumers"),
        ("consumers", "1,2"),
        ("shipments", "200"),
        ("columns", "throughput"),
        ("summary", ""),
    ]);
    same(&[("model", "bulkhead"), ("columns", "help")]);
    for shard in ["1/3", "2/3", "3/3"] {
        same(&[
            ("model", "bulkhead"),
            ("split", "shared,24"),
            ("seed", "1..=4"),
            ("format", "csv"),
            ("shard", shard),
        ]);
    }
}

#[test]
fn bad_input_prints_the_binarys_error_line() {
    for pairs in [
        &[("model", "autoscale"), ("threshold", "x")][..],
        &[("model", "autoscale"), ("threshold", "0")],
        &[("model", "autoscale"), ("bogus", "1")],
        &[("model", "autoscale"), ("format", "xml")],
        &[
            ("model", "autoscale"),
            ("threshold", "2"),
            ("threshold", "3"),
        ],
        &[("model", "autoscale"), ("threshold", "")],
        &[("model", "autoscale"), ("summary", "1")],
        &[("model", "autoscale"), ("threads", "999")],
        &[("model", "autoscale"), ("seed", "1..=2000000")],
        &[("model", "bulkhead"), ("split", "40")],
        &[("model", "consumers"), ("consumers", "65")],
        &[("lesson", "foo")],
        // Suggestions, as the command line makes them.
        &[("lesson", "grup")],
        &[("model", "autoscal")],
        &[("model", "autoscale"), ("treshold", "3")],
        &[("model", "autoscale"), ("formt", "csv")],
        &[("model", "autoscale"), ("format", "jsn")],
        &[("model", "autoscale"), ("removal-policy", "olde")],
        &[("model", "autoscale"), ("seed", "1-100")],
        &[("model", "autoscale"), ("columns", "launchd")],
        &[("model", "autoscale"), ("columns", "launched,launched")],
        &[("model", "autoscale"), ("shard", "0/3")],
        &[("model", "autoscale"), ("shard", "1/2")],
        &[
            ("model", "autoscale"),
            ("format", "csv"),
            ("shard", "1/2"),
            ("shard", "2/2"),
        ],
        &[
            ("model", "autoscale"),
            ("format", "csv"),
            ("summary", ""),
            ("shard", "1/2"),
        ],
    ] {
        same(pairs);
    }
}
