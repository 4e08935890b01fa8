//! Numbers that were wrong (issue #31 §2 and §3), each with the command that showed it: the
//! smallest size, the minimum size's launches, a run on its own day.

mod common;

use common::{argv, stdout_ok};
use serde_json::Value;

fn row(args: &[&str]) -> Value {
    let all: Vec<&str> = ["autoscale", "--format", "json"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    serde_json::from_str(stdout_ok(&all).trim_end()).unwrap()
}

/// The smallest `size` of the run's trace.
fn trace_min(args: &[&str]) -> u64 {
    let all: Vec<&str> = ["trace", "autoscale", "--format", "csv"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    let csv = stdout_ok(&all);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|k| *k == "size").unwrap();
    lines
        .map(|l| l.split(',').nth(at).unwrap().parse::<u64>().unwrap())
        .min()
        .unwrap()
}

/// `min_size` is the smallest size the group had: it was capped at 99 (the lesson
/// program's starting minimum), so a group of 150 or of 3,000 said 99.
#[test]
fn min_size_is_the_traces_smallest_size() {
    let table = stdout_ok(&argv("autoscale --min-instances 150 --columns min_size"));
    assert_eq!(
        table.lines().nth(1).unwrap().split_whitespace().last(),
        Some("150")
    );
    for args in [
        &argv("--min-instances 150")[..],
        &argv("--demand-base 300000 --demand-amplitude 0 --surge 0"),
        &[],
    ] {
        let v = row(args);
        assert_eq!(v["min_size"].as_u64(), Some(trace_min(args)), "{args:?}");
    }
    assert_eq!(
        row(&argv("--demand-base 300000 --demand-amplitude 0 --surge 0"))["min_size"],
        3000
    );
}

/// The providers' desired capacity is max(MinSize, the policy's desired). The lesson's day
/// needs at most 18 instances (the surge: ceil(1800 / 100)) and its policy keeps at most the
/// need + 1, so from a minimum of 19 up the group is the minimum all day: no launch above
/// it (the lesson's policy, counting serving instances only, asked for one more in round 1
/// while the minimum's launches booted: M + 1), and the documented cap, 16,384, runs.
#[test]
fn a_minimum_above_the_need_is_the_group_all_day() {
    for m in ["19", "30", "150", "16384"] {
        let v = row(&["--min-instances", m]);
        let m: u64 = m.parse().unwrap();
        assert_eq!(
            (v["min_size"].as_u64(), v["max_size"].as_u64()),
            (Some(m), Some(m)),
            "--min-instances {m}"
        );
    }
    // Below the need the minimum is a floor: the lesson's smallest group, 7, becomes 10.
    assert_eq!(row(&["--min-instances", "10"])["min_size"], 10);
}

/// A run on its own day does not carry the lesson's: no instance breaks at rounds 40, 95
/// and 170 and its chart marks no surge, unless they are given.
#[test]
fn a_demand_files_day_is_its_own() {
    let file = format!(
        "{}/../examples/demand/flash-crowd.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let own = row(&["--demand-file", &file]);
    assert_eq!(own["failure_rounds"], serde_json::json!([]));
    assert_eq!(own["broken_rounds"], 0);
    let plot = |extra: &[&str]| {
        let all: Vec<&str> = ["plot", "autoscale", "--demand-file", &file, "-o", "-"]
            .iter()
            .chain(extra)
            .copied()
            .collect();
        stdout_ok(&all)
    };
    let svg = plot(&[]);
    assert!(!svg.contains("surge (rounds"), "a surge shaded");
    assert!(
        !svg.contains("instance breaks"),
        "the lesson's breaks marked"
    );
    // Given, the failure rounds act and are marked; the lesson's own chart marks both.
    let given = row(&["--demand-file", &file, "--failure-rounds", "40:95:170"]);
    assert!(given["broken_rounds"].as_u64() > Some(0));
    assert!(plot(&["--failure-rounds", "40"]).contains("instance breaks (round 40)"));
    let lesson = stdout_ok(&argv("plot autoscale -o -"));
    assert!(lesson.contains("surge (rounds 150 to 189)"));
    assert!(lesson.contains("instance breaks"));
}

/// A demand file is read once per distinct path, after parsing, at most the rows the runs
/// need: with `--rounds 3` a bad fourth row is never read, the same path twice (stdin
/// included) is one read, and `--rounds` longer than the file is one line before any
/// output, the trace's header included.
#[test]
fn a_demand_file_is_read_once_and_no_further_than_needed() {
    let bad_tail = common::temp_file("bad-tail.csv", "100\n200\n300\nbad\n");
    assert_eq!(
        row(&["--demand-file", &bad_tail, "--rounds", "3"])["rounds"],
        3
    );
    let e = common::one_line_error(&["autoscale", "--demand-file", &bad_tail]);
    assert!(
        e.ends_with("bad-tail.csv: line 4: not a number: 'bad'\n"),
        "{e}"
    );
    let out = common::with_stdin(
        &argv("autoscale --demand-file -,- --format csv --columns launched"),
        b"900\n950\n1000\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().to_string())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0], rows[1]);
    let short = common::temp_file("ten-rows.csv", "100\n".repeat(10));
    for command in [
        &["autoscale"][..],
        &["trace", "autoscale"],
        &["plot", "autoscale", "-o", "-"],
    ] {
        let all: Vec<&str> = command
            .iter()
            .chain(&["--demand-file", short.as_str(), "--rounds", "20"])
            .copied()
            .collect();
        assert_eq!(
            common::one_line_error(&all),
            "error: --rounds: accepted values are integers from 1 to 10\n"
        );
    }
    // A header that names no demand column is a row: line 1, not a shifted day.
    let e = common::one_line_error(&[
        "autoscale",
        "--demand-file",
        &common::temp_file("typo.csv", "1OO\n200\n"),
    ]);
    assert!(
        e.ends_with("typo.csv: line 1: not a number: '1OO'\n"),
        "{e}"
    );
    let bom = common::temp_file("bom.csv", "\u{feff}100\n200\n");
    assert_eq!(row(&["--demand-file", &bom])["rounds"], 2);
}

/// A hook's parts are each given once (a second result, provider, action or heartbeat
/// silently replaced the first) and an action or heartbeat of 0 rounds, which did nothing,
/// is refused, on the command line and in a scenario.
#[test]
fn a_hooks_parts_are_given_once_and_do_something() {
    for (hook, why) in [
        ("5:action=0", "'action=0': 0 rounds would do nothing"),
        ("5:heartbeat=0", "'heartbeat=0': 0 rounds would do nothing"),
        (
            "5:aws:alibaba",
            "'alibaba' gives its provider a second time",
        ),
        (
            "5:continue:abandon",
            "'abandon' gives its result a second time",
        ),
        (
            "5:action=3:action=9",
            "'action=9' gives its action a second time",
        ),
    ] {
        for flag in ["--launch-hooks", "--terminate-hooks"] {
            let e = common::one_line_error(&["autoscale", flag, hook]);
            assert!(e.contains(why), "{flag} {hook}: {e}");
        }
    }
    for key in ["action_rounds", "heartbeat_every"] {
        let file = common::temp_file(
            &format!("zero-{key}.toml"),
            format!("[[launch_hooks]]\ntimeout = 5\n{key} = 0\n"),
        );
        let e = common::one_line_error(&["autoscale", "--scenario", &file]);
        assert!(
            e.ends_with(&format!(
                "[[launch_hooks]] {key} = 0 would do nothing: 1 or more, or leave it out\n"
            )),
            "{e}"
        );
    }
}

/// The command line's hooks replace a scenario's, however the file wrote them: a file of
/// one plain hook (the one-hook flag `launch_hook`) and a file of two (`launch_hooks`) alike.
/// With `--launch-hooks 7` an instance serves after its boot (2) and the hook's 7 rounds: 9,
/// not 2 + 2 + 7 = 11 with the file's hook still running.
#[test]
fn the_command_lines_hooks_replace_the_scenarios() {
    let one = common::temp_file("one-hook.toml", "[[launch_hooks]]\ntimeout = 2\n");
    let two = common::temp_file(
        "two-hooks.toml",
        "[[launch_hooks]]\ntimeout = 2\n[[launch_hooks]]\ntimeout = 4\n",
    );
    let alone = row(&["--launch-hooks", "7"]);
    assert_eq!(alone["time_to_in_service_max"], 9);
    for file in [&one, &two] {
        for flag in ["--launch-hooks", "--launch-hook"] {
            let v = row(&["--scenario", file, flag, "7"]);
            assert_eq!(v["time_to_in_service_max"], 9, "{file} {flag}");
        }
    }
    // Without a hook on the command line the file's hooks run: 2 + 2, and 2 + 2 + 4.
    assert_eq!(row(&["--scenario", &one])["time_to_in_service_max"], 4);
    assert_eq!(row(&["--scenario", &two])["time_to_in_service_max"], 8);
}

/// AWS's default warm-pool size, the group's maximum size minus its desired capacity, is a
/// value of `--warm-pool`: every round the pool (warm and refilling) is the maximum minus
/// the group's records, and it needs a maximum.
#[test]
fn a_warm_pool_of_the_default_size_is_max_minus_desired() {
    let csv = stdout_ok(&argv(
        "trace autoscale --warm-pool max-desired --max-instances 30 --format csv",
    ));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |k: &str| header.iter().position(|h| *h == k).unwrap();
    let (size, warm) = (col("size"), col("warm"));
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let n = |i: usize| f[i].parse::<u64>().unwrap();
        assert_eq!(n(warm), 30 - n(size), "{line}");
    }
    let v = row(&argv("--warm-pool max-desired:running --max-instances 30"));
    assert_eq!(v["warm_pool"], "max-desired");
    assert_eq!(v["warm_pool_state"], "running");
    let e = common::one_line_error(&argv("autoscale --warm-pool max-desired"));
    assert!(
        e.starts_with("error: --warm-pool: needs --max-instances for max-desired"),
        "{e}"
    );
}

/// What `capsim formula variables` says a formula's targets do, run: a dedicated target
/// above a board's 256 instances is met on the host (its group holds 16,384, where a
/// target stops as at a pool's quota), and `$TargetLowPriorityNodes` applies with the spot
/// class (it was said to be evaluated and dropped) and is dropped without it.
#[test]
fn a_formulas_targets_do_what_the_variables_say() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let big = write("thousand.formula", "$TargetDedicatedNodes = 1000;\n");
    assert_eq!(row(&["--formula", &big])["max_size"], 1000);
    // The row and the trace are one run (the row's run stopped at a board's 256 once).
    let csv = stdout_ok(&["trace", "autoscale", "--formula", &big, "--format", "csv"]);
    let largest = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap().parse::<u64>().unwrap())
        .max();
    assert_eq!(largest, Some(1000));
    let over = write("over.formula", "$TargetDedicatedNodes = 20000;\n");
    assert_eq!(row(&["--formula", &over])["max_size"], 16384);
    let low = write(
        "low.formula",
        "$TargetDedicatedNodes = 2;\n$TargetLowPriorityNodes = 7;\n",
    );
    assert_eq!(
        row(&["--formula", &low, "--preemption-rate", "0"])["spot_max"],
        7
    );
    assert_eq!(row(&["--formula", &low])["spot_max"], 0);
    let text = stdout_ok(&argv("formula variables"));
    assert!(!text.contains("not applied"), "{text}");
    assert!(text.contains("16384 on the host"), "{text}");
}

/// No accepted input makes a view unbounded in time: a consumers run whose outage lasts four
/// billion rounds has its metrics at once (the engine skips empty stretches), and a view of
/// it, which shows every round, is one line naming the run's length and the views' limit.
#[test]
fn a_view_of_a_run_too_long_to_watch_is_one_line() {
    let args = "--arrival-rate 0.25 --outage 1000..4294967295";
    let metrics = stdout_ok(&argv(&format!(
        "consumers {args} --columns rounds --format csv"
    )));
    assert!(metrics.ends_with("4295052768\n"), "{metrics}");
    for view in ["trace consumers", "plot consumers -o -"] {
        let e = common::one_line_error(&argv(&format!("{view} {args}")));
        assert!(
            e.contains(
                "this run lasts 4295052768 rounds: a view shows every round, at most 100000000"
            ),
            "{view}: {e}"
        );
    }
    // A processing time that long too; a run within the limit is viewed.
    let e = common::one_line_error(&argv(
        "trace consumers --shipments 1 --final-event-rounds 4294967295",
    ));
    assert!(e.contains("a view shows every round"), "{e}");
    let ok = stdout_ok(&argv("trace consumers --shipments 1 --format csv"));
    assert!(ok.lines().count() > 1);
}

/// `formula check` warns where Batch would accept a formula that cannot work as written
/// (stderr, status 0; `--deny-warnings`: status 1): `$CPUPercent`, a fraction, compared
/// with a percent, and a target that truncates back to the current size. A run's evaluation
/// log and the playground's answer give the same warnings.
#[test]
fn formulas_that_cannot_work_as_meant_are_warned_of() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let percent = write(
        "percent.formula",
        "$cpu = avg($CPUPercent.GetSample(TimeInterval_Minute * 5));\n$TargetDedicatedNodes = $cpu > 70 ? $CurrentDedicatedNodes + 1 : $CurrentDedicatedNodes;\n",
    );
    let grows = write(
        "grows.formula",
        "$TargetDedicatedNodes = $CurrentDedicatedNodes * 1.25;\n",
    );
    let check = |args: &[&str]| {
        let out = common::capsim(&[&["formula", "check"][..], args].concat());
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, stdout, stderr) = check(&[&percent]);
    assert_eq!((code, stdout.as_str()), (Some(0), ""));
    assert_eq!(
        stderr,
        format!("{percent}:2:30: warning: $CPUPercent is a fraction from 0 to 1 (Batch's value; its prose says percent), compared here with 70: did you mean 0.7?\n")
    );
    let (code, _, stderr) = check(&[&grows]);
    assert_eq!(code, Some(0));
    assert_eq!(
        stderr,
        format!("{grows}:1:1: warning: $TargetDedicatedNodes is truncated to a whole number: at 3 nodes it asks for 3.75 and gets 3, the current size, so from 1 to 3 nodes the group never grows\n")
    );
    let (code, _, stderr) = check(&["--deny-warnings", &grows]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.ends_with("error: 1 warning and --deny-warnings\n"),
        "{stderr}"
    );
    // A formula without either is silent, --deny-warnings or not.
    let fine = format!(
        "{}/../examples/formulas/demand.formula",
        env!("CARGO_MANIFEST_DIR")
    );
    assert_eq!(
        check(&["--deny-warnings", &fine]),
        (Some(0), String::new(), String::new())
    );
    // The evaluation log: the same lines on stderr, its JSON Lines on stdout.
    let out = common::capsim(&["trace", "autoscale", "--formula", &grows, "--evaluations"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        stderr.lines().next().unwrap().to_string() + "\n"
    );
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("{\"round\":0,"));
    // The playground's answer carries them.
    let text = std::fs::read_to_string(&grows).unwrap();
    let printed = capsim::query::run(
        &[
            ("trace", "autoscale"),
            ("formula-text", &text),
            ("evaluations", ""),
        ],
        1,
        &(),
    );
    assert_eq!(printed.error, None);
    assert_eq!(
        printed.warnings,
        ["editor.formula:1:1: warning: $TargetDedicatedNodes is truncated to a whole number: at 3 nodes it asks for 3.75 and gets 3, the current size, so from 1 to 3 nodes the group never grows"]
    );
    let printed = capsim::query::run(&[("formula", "check"), ("formula-text", &text)], 1, &());
    assert_eq!(printed.warnings.len(), 1);
}
