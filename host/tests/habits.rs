//! What a user of any well-kept command line reaches for: `--version`, shell completions, a
//! man page, suggestions for typos, a short usage line, `capsim lesson` listing the lessons,
//! `--columns`, Ctrl-C clearing the progress line and `NO_COLOR`.

mod common;

use std::process::Command;

use common::{argv, capsim, error_naming, one_line_error, stdout_ok, temp_file};

/// The subcommands every completion script and the man page name.
const COMMANDS: [&str; 10] = [
    "lesson",
    "autoscale",
    "consumers",
    "bulkhead",
    "trace",
    "plot",
    "formula",
    "completions",
    "man",
    "summary",
];

/// Model flags the command line builds from the models' parameter tables (not clap's
/// derive), one or more per model, and the run flags every model command takes.
const FLAGS: [&str; 8] = [
    "--threshold",
    "--removal-policy",
    "--stockout-rounds",
    "--events-per-shipment",
    "--split",
    "--slow-hold",
    "--columns",
    "--shard",
];

#[test]
fn version_is_the_package_version() {
    assert_eq!(
        stdout_ok(&["--version"]),
        format!("capsim {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completion_scripts_name_the_commands_and_the_model_flags() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout_ok(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {script}");
        for word in COMMANDS {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
        for flag in FLAGS {
            // fish names long flags without their dashes (`-l threshold`).
            let found = script.contains(flag)
                || (shell == "fish" && script.contains(&format!("-l {}", &flag[2..])));
            assert!(found, "{shell} lacks {flag}");
        }
    }
    let err = one_line_error(&["completions", "tcsh"]);
    assert!(err.contains("bash"), "{err}");
}

#[test]
fn the_bash_completion_script_parses() {
    let path = temp_file("capsim.bash", stdout_ok(&["completions", "bash"]));
    let out = Command::new("bash").args(["-n", &path]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Sourced, it registers capsim's completion function.
    let out = Command::new("bash")
        .args(["-c", &format!("source {path} && complete -p capsim")])
        .output()
        .unwrap();
    let registered = String::from_utf8(out.stdout).unwrap();
    assert!(registered.contains("capsim"), "{registered}");
}

/// The man pages are roff: a title, sections, every subcommand on capsim's page, every flag
/// and its limits on a command's page. (`scripts/cli-test.sh` also renders them with groff.)
#[test]
fn man_pages_are_roff_with_the_flags() {
    let top = stdout_ok(&["man"]);
    assert!(top.starts_with(".ie \\n(.g .ds Aq"), "{}", &top[..80]);
    assert!(top.contains("\n.TH capsim 1 "), "{top}");
    for section in [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "SUBCOMMANDS",
        "VERSION",
    ] {
        assert!(
            top.contains(&format!("\n.SH {section}\n")),
            "{section}: {top}"
        );
    }
    for word in COMMANDS {
        assert!(
            top.contains(&format!("capsim\\-{word}(1)")),
            "{word}: {top}"
        );
    }
    let page = stdout_ok(&["man", "autoscale"]);
    assert!(page.contains("\n.TH capsim-autoscale 1 "), "{page}");
    for flag in ["threshold", "removal\\-policy", "columns", "shard", "seed"] {
        assert!(page.contains(&format!("\\-\\-{flag}")), "{flag}");
    }
    assert!(page.contains("1 to 2147483646"), "the seed's limits");
    let nested = stdout_ok(&["man", "trace", "bulkhead"]);
    assert!(
        nested.contains("\n.TH capsim-trace-bulkhead 1 "),
        "{nested}"
    );
    let err = one_line_error(&["man", "autoscal"]);
    assert!(err.contains("did you mean autoscale?"), "{err}");
}

#[test]
fn typos_get_suggestions_in_one_line() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["autoscale", "--treshold", "3"],
            "did you mean --threshold?",
        ),
        (
            &["autoscale", "--removal-policy", "olde"],
            "did you mean oldest?",
        ),
        (&["autoscale", "--reclaim", "stpo"], "did you mean stop?"),
        (&["autoscale", "--seed", "1-100"], "did you mean 1..=100?"),
        (&["bulkhead", "--split", "shard"], "did you mean shared?"),
        (&["bulkhead", "--mode", "healty"], "did you mean healthy?"),
        (&["autoscale", "--format", "jsno"], "did you mean json?"),
        (&["autoscal"], "did you mean autoscale?"),
    ];
    for (args, meant) in cases {
        let err = one_line_error(args);
        assert!(err.trim_end().ends_with(meant), "{args:?}: {err}");
    }
    // The extremes of a range are untouched: '1-100' suggests, '1..=100' runs.
    assert!(capsim(&["autoscale", "--rounds", "1", "--seed", "1..=3"])
        .status
        .success());
    // Nothing near: no suggestion.
    let err = one_line_error(&["autoscale", "--removal-policy", "zzzzzz"]);
    assert!(!err.contains("did you mean"), "{err}");
}

/// `capsim` alone: the usage line and one line per command on stderr, status 2 (a missing
/// command is a usage error, as clap reports a missing argument).
#[test]
fn no_command_prints_a_short_usage() {
    let out = capsim(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[0], "Usage: capsim <COMMAND> [OPTIONS]");
    assert!(lines.len() <= COMMANDS.len() + 6, "{err}");
    for word in COMMANDS {
        assert!(
            lines.iter().any(|l| l.trim_start().starts_with(word)),
            "{word}: {err}"
        );
    }
}

/// `capsim lesson` lists the lessons, each name one that `capsim lesson NAME` prints.
#[test]
fn lesson_without_a_name_lists_the_lessons() {
    let list = stdout_ok(&["lesson"]);
    let names: Vec<&str> = list
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "group",
            "group-sweep",
            "group-ledger",
            "consumers",
            "bulkhead",
            "all"
        ]
    );
    for name in names {
        assert!(!stdout_ok(&["lesson", name]).is_empty(), "{name}");
    }
}

/// The autoscale table's metrics, as the README's glossary lists them.
const AUTOSCALE_METRICS: [&str; 35] = [
    "min_size",
    "max_size",
    "max_launching",
    "max_launching_ratio",
    "under_capacity_rounds",
    "launched",
    "false_replacements",
    "broken_rounds",
    "scaling_actions",
    "replacements",
    "time_to_in_service_max",
    "scale_in_blocked_rounds",
    "restarts_from_stopped",
    "failed_launches",
    "hook_timeouts",
    "abandoned_launches",
    "billed_rounds",
    "idle_billed_rounds",
    "evaluations",
    "failed_evaluations",
    "target_changes",
    "clamped_rounds",
    "hook_completions",
    "heartbeats",
    "hook_cap_timeouts",
    "hook_rollbacks",
    "detached",
    "lost_task_rounds",
    "failed_tasks",
    "drain_rounds",
    "stopped_rounds",
    "spot_max",
    "preemptions",
    "billed_spot_rounds",
    "warm_starts",
];

/// `--columns help`'s two lists: the metrics (the table's default ones marked `*`), then
/// the parameter columns.
fn columns_help(args: &[&str]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let listed = stdout_ok(&[args, &["--columns", "help"]].concat());
    let mut lines = listed.lines();
    assert!(lines.next().unwrap().starts_with("metrics ("), "{listed}");
    let metrics: Vec<&str> = lines
        .by_ref()
        .take_while(|l| !l.starts_with("parameters ("))
        .collect();
    let params = lines.map(str::to_string).collect();
    let starred = metrics
        .iter()
        .filter_map(|m| m.strip_suffix(" *"))
        .map(str::to_string)
        .collect();
    let names = metrics
        .iter()
        .map(|m| m.trim_end_matches(" *").to_string())
        .collect();
    (names, starred, params)
}

#[test]
fn columns_help_lists_the_metrics_and_the_parameters() {
    let (metrics, starred, params) = columns_help(&["autoscale"]);
    assert_eq!(metrics, AUTOSCALE_METRICS);
    assert_eq!(
        starred,
        [
            "min_size",
            "max_size",
            "under_capacity_rounds",
            "launched",
            "false_replacements",
            "broken_rounds"
        ]
    );
    assert_eq!(params.first().map(String::as_str), Some("threshold"));
    for key in [
        "seed",
        "launch_hook",
        "launch_hook_result",
        "warm_pool_state",
        "demand_base",
    ] {
        assert!(params.iter().any(|p| p == key), "{key}: {params:?}");
    }
    assert!(!params.iter().any(|p| p == "price"), "{params:?}");
    // A price adds its metric (a headline one, last) and its parameter.
    let (metrics, starred, params) = columns_help(&["autoscale", "--price", "1:0.2:0.05"]);
    assert_eq!(metrics, [&AUTOSCALE_METRICS[..], &["cost"]].concat());
    assert_eq!(starred.last().map(String::as_str), Some("cost"));
    assert!(params.iter().any(|p| p == "price"), "{params:?}");
    let (metrics, _, _) = columns_help(&["bulkhead"]);
    assert!(
        metrics.iter().any(|l| l == "tracking_dropped"),
        "{metrics:?}"
    );
    let (metrics, starred, params) = columns_help(&["consumers"]);
    assert_eq!(
        metrics,
        [
            "rounds",
            "reordered_shipments",
            "wrong_final_state",
            "throughput",
            "max_backlog",
            "dropped_events",
            "dropped_shipments"
        ]
    );
    assert_eq!(
        starred,
        [
            "rounds",
            "reordered_shipments",
            "wrong_final_state",
            "throughput"
        ]
    );
    assert!(params.iter().any(|p| p == "queue_gap"), "{params:?}");
}

/// The table a person reads: the headline parameters, the swept ones and the lesson's own
/// metrics, within 120 columns for the lesson's own sweep; fractions rounded for reading.
#[test]
fn the_table_shows_the_headline_metrics_in_120_columns() {
    for args in [
        &["autoscale"][..],
        &["autoscale", "--threshold", "2,3,5", "--cooldown", "0,3,8"],
    ] {
        let table = stdout_ok(args);
        let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(
            header,
            [
                "threshold",
                "cooldown",
                "seed",
                "min_size",
                "max_size",
                "under_capacity_rounds",
                "launched",
                "false_replacements",
                "broken_rounds"
            ]
        );
        assert!(table.lines().all(|l| l.chars().count() <= 120), "{table}");
    }
    for model in ["consumers", "bulkhead"] {
        let table = stdout_ok(&[model, "--seed", "1,2"]);
        assert!(table.lines().all(|l| l.chars().count() <= 120), "{table}");
    }
    // Every metric with --columns all; a fraction to 4 significant digits there, every digit
    // in CSV.
    let all = stdout_ok(&argv("autoscale --columns all"));
    let lines: Vec<&str> = all.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header[..3], ["threshold", "cooldown", "seed"]);
    assert_eq!(header[3..], AUTOSCALE_METRICS);
    let at = header
        .iter()
        .position(|k| *k == "max_launching_ratio")
        .unwrap();
    assert_eq!(lines[1].split_whitespace().nth(at), Some("0.2609"));
    let csv = stdout_ok(&argv(
        "autoscale --columns max_launching_ratio --format csv",
    ));
    assert_eq!(csv, "max_launching_ratio\n0.2608695652173913\n");
    // The trace's table too; its CSV and JSON keep every digit.
    let trace = stdout_ok(&argv("trace autoscale --columns round,demand --rounds 2"));
    assert_eq!(trace, "round  demand\n    0     900\n    1   919.9\n");
    let trace = stdout_ok(&argv(
        "trace autoscale --columns round,demand --rounds 2 --format csv",
    ));
    assert_eq!(trace, "round,demand\n0,900\n1,919.8876633723187\n");
    let help = stdout_ok(&["autoscale", "--help"]);
    assert!(help.contains("4 significant digits"), "{help}");
}

/// `--columns` takes metrics and parameters, in every format and in the summaries: the
/// rows hold the swept parameters, then the named columns in the order named, each value
/// the one the full row has.
#[test]
fn columns_select_metrics_and_parameters_in_every_format() {
    // The issue's own: nothing swept, so exactly the two columns.
    let full = stdout_ok(&argv("autoscale --format json"));
    let value: serde_json::Value = serde_json::from_str(full.trim()).unwrap();
    assert_eq!(
        stdout_ok(&argv("autoscale --columns threshold,launched --format csv")),
        format!("threshold,launched\n2,{}\n", value["launched"])
    );
    let trace = stdout_ok(&argv("trace autoscale --columns round,size"));
    assert!(
        trace.lines().all(|l| l.split_whitespace().count() == 2),
        "{trace}"
    );
    assert_eq!(
        trace
            .lines()
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>(),
        ["round", "size"]
    );
    let grid = argv("autoscale --threshold 2,3 --seed 1,2 --rounds 120");
    let full = stdout_ok(&[&grid[..], &["--format", "json"]].concat());
    let picked = stdout_ok(
        &[
            &grid[..],
            &[
                "--format",
                "json",
                "--columns",
                "launched,min_size,demand_base",
            ],
        ]
        .concat(),
    );
    assert_eq!(full.lines().count(), 4);
    for (full, picked) in full.lines().zip(picked.lines()) {
        let v: serde_json::Value = serde_json::from_str(full).unwrap();
        let expected = format!(
            "{{\"threshold\":{},\"seed\":{},\"launched\":{},\"min_size\":{},\"demand_base\":{}}}",
            v["threshold"], v["seed"], v["launched"], v["min_size"], v["demand_base"]
        );
        assert_eq!(picked, expected);
    }
    let csv = stdout_ok(&[&grid[..], &["--format", "csv", "--columns", "launched"]].concat());
    assert_eq!(csv.lines().next(), Some("threshold,seed,launched"));
    // A swept parameter named goes where it is named.
    let csv = stdout_ok(
        &[
            &grid[..],
            &["--format", "csv", "--columns", "launched,threshold"],
        ]
        .concat(),
    );
    assert_eq!(csv.lines().next(), Some("seed,launched,threshold"));
    // A table keeps its headline parameters (and a parameter named, in row order).
    let table = stdout_ok(&[&grid[..], &["--columns", "launched,max_size,demand_base"]].concat());
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "threshold",
            "cooldown",
            "seed",
            "demand_base",
            "launched",
            "max_size"
        ]
    );
    assert_eq!(table.lines().count(), 5);
    // Summaries: a line per combination and chosen metric in a table, `<metric>_<stat>`
    // columns in CSV, the parameters shown kept.
    let summary = stdout_ok(&[&grid[..], &["--summary", "--columns", "launched"]].concat());
    let metrics: Vec<&str> = summary
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(metrics, ["launched", "launched"], "{summary}");
    let summary = stdout_ok(
        &[
            &grid[..],
            &[
                "--summary",
                "--format",
                "csv",
                "--columns",
                "max_size,demand_base,launched",
            ],
        ]
        .concat(),
    );
    assert_eq!(
        summary.lines().next(),
        Some("threshold,demand_base,seeds,max_size_mean,max_size_std,max_size_min,max_size_p5,max_size_p50,max_size_p95,max_size_max,launched_mean,launched_std,launched_min,launched_p5,launched_p50,launched_p95,launched_max")
    );
    // One metric for every format, consumers and bulkhead too.
    for (model, metric) in [
        ("consumers", "throughput"),
        ("bulkhead", "tracking_dropped"),
    ] {
        for format in ["csv", "json", "table"] {
            let out = stdout_ok(&[model, "--format", format, "--columns", metric]);
            let first = out.lines().next().unwrap();
            match format {
                "json" => assert!(first.starts_with(&format!("{{\"{metric}\":")), "{out}"),
                "csv" => assert_eq!(first, metric, "{out}"),
                _ => assert!(first.ends_with(&format!("seed  {metric}")), "{out}"),
            }
        }
    }
}

/// The extremes of `--columns`: `all` is the plain output (JSON and CSV, their summaries);
/// every key of the row in its order is the plain JSON byte for byte; one metric is the
/// swept parameters and that metric.
#[test]
fn all_columns_are_the_plain_output() {
    let grid = argv("autoscale --threshold 2,3 --seed 1,2 --rounds 100");
    for more in [
        &["--format", "csv"][..],
        &["--format", "json"],
        &["--summary", "--format", "csv"],
        &["--summary", "--format", "json"],
    ] {
        let plain = stdout_ok(&[&grid[..], more].concat());
        let picked = stdout_ok(&[&grid[..], more, &["--columns", "all"]].concat());
        assert_eq!(picked, plain, "{more:?}");
    }
    let plain = stdout_ok(&[&grid[..], &["--format", "json"]].concat());
    let first: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(plain.lines().next().unwrap()).unwrap();
    let every: Vec<&str> = plain
        .lines()
        .next()
        .unwrap()
        .split(",\"")
        .map(|kv| kv.trim_start_matches("{\"").split('"').next().unwrap())
        .collect();
    assert_eq!(every.len(), first.len());
    let picked = stdout_ok(
        &[
            &grid[..],
            &["--format", "json", "--columns", &every.join(",")],
        ]
        .concat(),
    );
    assert_eq!(picked, plain);
    let last = AUTOSCALE_METRICS[AUTOSCALE_METRICS.len() - 1];
    let one = stdout_ok(&[&grid[..], &["--format", "csv", "--columns", last]].concat());
    let plain = stdout_ok(&[&grid[..], &["--format", "csv"]].concat());
    let header: Vec<&str> = plain.lines().next().unwrap().split(',').collect();
    let at = |k: &str| header.iter().position(|h| *h == k).unwrap();
    assert_eq!(
        one.lines().next(),
        Some(format!("threshold,seed,{last}").as_str())
    );
    for (one, plain) in one.lines().zip(plain.lines()).skip(1) {
        let cut: Vec<&str> = plain.split(',').collect();
        assert_eq!(
            one,
            [cut[at("threshold")], cut[at("seed")], cut[at(last)]].join(",")
        );
    }
}

#[test]
fn unknown_columns_are_one_line_with_a_suggestion() {
    for (columns, needles) in [
        (
            "launchd",
            &["'launchd'", "did you mean launched?", "--columns help"][..],
        ),
        ("thresold", &["did you mean threshold?"]),
        ("launched,launched", &["twice"]),
        ("launched,", &["empty"]),
        ("all,launched", &["alone"]),
    ] {
        error_naming(&["autoscale", "--columns", columns], needles);
    }
    error_naming(
        &["autoscale", "--columns", "threshold", "--summary"],
        &["no metric"],
    );
    error_naming(
        &["trace", "autoscale", "--columns", "rond"],
        &["did you mean round?"],
    );
    error_naming(
        &["trace", "autoscale", "--columns", "round,round"],
        &["twice"],
    );
}

/// Runs `args` on a pseudo-terminal (python3's `pty`), stdout to /dev/null; sends Ctrl-C
/// once `wait_for` has appeared (if given). Returns (everything the terminal showed, the
/// exit status or 128 + the signal).
fn on_a_terminal(args: &[&str], env: &[(&str, &str)], wait_for: Option<&str>) -> (Vec<u8>, i32) {
    const SCRIPT: &str = r#"
import os, pty, sys, time, json
args = json.loads(sys.argv[1]); env = json.loads(sys.argv[2]); wait = sys.argv[3]
stdout_null = sys.argv[4] == "1"
pid, fd = pty.fork()
if pid == 0:
    if stdout_null:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
    os.environ.update(env)
    os.execv(args[0], args)
seen = b""; sent = False; deadline = time.time() + 120
while True:
    if wait and not sent and wait.encode() in seen:
        time.sleep(0.3)
        os.write(fd, b"\x03"); sent = True
    if time.time() > deadline:
        os.kill(pid, 9)
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
sys.stdout.buffer.write(seen)
sys.exit(code if code >= 0 else 128 - code)
"#;
    let mut argv = vec![env!("CARGO_BIN_EXE_capsim")];
    argv.extend(args);
    let env: serde_json::Map<String, serde_json::Value> = env
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
        .collect();
    let out = Command::new("python3")
        .args([
            "-c",
            SCRIPT,
            &serde_json::to_string(&argv).unwrap(),
            &serde_json::to_string(&env).unwrap(),
            wait_for.unwrap_or(""),
            if wait_for.is_some() { "1" } else { "0" },
        ])
        .env_remove("NO_COLOR")
        .output()
        .expect("python3 runs");
    (out.stdout, out.status.code().unwrap())
}

/// Ctrl-C during a grid on a terminal: the progress line is cleared (nothing is left on it
/// after the last carriage return but the erase-line sequence) and the status is 130.
#[test]
fn ctrl_c_clears_the_progress_line() {
    let (shown, code) = on_a_terminal(
        &argv("autoscale --seed 1..=1000000 --threads 1 --format csv"),
        &[],
        Some("runs/s"),
    );
    let text = String::from_utf8_lossy(&shown);
    assert_eq!(code, 130, "{text}");
    assert!(text.contains("/1,000,000 runs"), "{text}");
    // What the terminal shows last: the line after the last carriage return, its escape
    // sequences (cursor moves, erase) taken out, is empty.
    let last = text.rsplit('\r').next().unwrap();
    let visible: String = strip_escapes(last);
    assert_eq!(visible.trim(), "", "{text:?}");
    // Without the handler the signal would leave the bar (and the echoed ^C) on the line.
    assert!(text.ends_with("\r\u{1b}[2K"), "{text:?}");
}

/// Removes ANSI CSI sequences (`ESC [ … letter`).
fn strip_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// clap colours help on a terminal; `NO_COLOR` (any value) turns it off.
#[test]
fn no_color_turns_colour_off() {
    let (coloured, code) = on_a_terminal(&["autoscale", "--help"], &[], None);
    assert_eq!(code, 0);
    assert!(coloured.contains(&0x1b), "help is coloured on a terminal");
    let (plain, code) = on_a_terminal(&["autoscale", "--help"], &[("NO_COLOR", "1")], None);
    assert_eq!(code, 0);
    assert!(
        !plain.contains(&0x1b),
        "{}",
        String::from_utf8_lossy(&plain)
    );
    assert!(String::from_utf8_lossy(&plain).contains("--threshold"));
    // Error lines are plain on a terminal either way.
    let (err, code) = on_a_terminal(&["autoscale", "--treshold", "3"], &[], None);
    assert_eq!(code, 2);
    assert!(!err.contains(&0x1b), "{}", String::from_utf8_lossy(&err));
}
