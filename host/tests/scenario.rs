//! Issue 22 through the CLI: scenario files, hooks that behave like real ones, timed
//! operator actions and what removal does to the work. Expected values come from the
//! issue, the providers' documented rules and the reference program's trace (the lesson's
//! boot), never from the code under test.

mod common;

use common::{
    argv, capsim, error_naming, json_row, n, one_line_error, root, stdout_ok, temp_file, Csv,
};
use serde_json::Value;

/// `capsim ARGS --format json`'s one row.
fn row(args: &[&str]) -> Value {
    json_row(&[args, &["--format", "json"]].concat())
}

/// `capsim LINE ARGS --format FORMAT`'s stdout, `line` a command line split at its spaces.
fn printed(line: &str, args: &[&str], format: &str) -> String {
    stdout_ok(&[&argv(line)[..], args, &["--format", format]].concat())
}

/// The lesson's boot in rounds, read from the reference program's trace: each launch is
/// still booting at the end of `k` rounds (its launch round first) exactly when every round's
/// `booting` is the launches of its last `k` rounds; it serves from the round after those.
fn lesson_boot() -> u64 {
    let text = std::fs::read_to_string(root("tests/golden/trace-autoscale-2-0.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |k: &str| header.iter().position(|h| *h == k).unwrap();
    let rows: Vec<(u64, u64)> = lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (
                cells[col("launched")].parse().unwrap(),
                cells[col("booting")].parse().unwrap(),
            )
        })
        .collect();
    let k = (1..=5)
        .find(|&k| {
            (0..rows.len()).all(|t| {
                let from = t.saturating_sub(k - 1);
                rows[from..=t].iter().map(|r| r.0).sum::<u64>() == rows[t].1
            })
        })
        .expect("a boot of at most 5 rounds");
    k as u64 + 1
}

#[test]
fn a_scenarios_params_print_what_the_flags_print_in_every_format() {
    let file = root("examples/scenarios/lesson-5-8.toml");
    let scenario = ["--scenario", file.as_str()];
    for format in ["table", "json", "csv"] {
        let flags = printed("autoscale --threshold 5 --cooldown 8", &[], format);
        assert_eq!(printed("autoscale", &scenario, format), flags, "{format}");
        // Summaries too.
        let summary = "--seed 1..=5 --summary";
        let flags = printed(
            &format!("autoscale --threshold 5 --cooldown 8 {summary}"),
            &[],
            format,
        );
        let file = printed(
            "autoscale",
            &[&scenario[..], &argv(summary)].concat(),
            format,
        );
        assert_eq!(file, flags, "{format} summary");
    }
    // A list is the flag's list: the same grid.
    let grid = root("examples/scenarios/lesson-grid.toml");
    for format in ["table", "csv"] {
        assert_eq!(
            printed("autoscale --scenario", &[&grid], format),
            printed(
                "autoscale --threshold 2,3,5 --cooldown 0,3,8 --seed 1..=3",
                &[],
                format
            ),
        );
    }
    // The trace and the plot of the file are those of the flags.
    let trace =
        |args: &[&str]| stdout_ok(&[&["trace", "autoscale"], args, &["--format", "csv"]].concat());
    assert_eq!(
        trace(&["--scenario", &file]),
        trace(&["--threshold", "5", "--cooldown", "8"])
    );
    let plot = |args: &[&str]| stdout_ok(&[&["plot", "autoscale"], args, &["-o", "-"]].concat());
    assert_eq!(
        plot(&["--scenario", &grid, "--seed", "1", "--cooldown", "0"]),
        plot(&["--threshold", "2,3,5", "--cooldown", "0", "--seed", "1"])
    );
}

#[test]
fn flags_override_the_file() {
    let file = root("examples/scenarios/lesson-5-8.toml");
    assert_eq!(
        printed("autoscale --scenario", &[&file, "--cooldown", "3"], "csv"),
        printed("autoscale --threshold 5 --cooldown 3", &[], "csv")
    );
}

#[test]
fn a_bad_scenario_is_one_line() {
    let toml = temp_file(
        "bad-syntax.toml",
        "[params]\nthreshold = 5\ncooldown = = 8\n",
    );
    let e = one_line_error(&["autoscale", "--scenario", &toml]);
    assert!(e.starts_with(&format!("error: {toml}:3:12: ")), "{e}");
    for (name, text, needles) in [
        (
            "bad-key.toml",
            "[params]\nthreshhold = 5\n",
            &[
                "unknown key 'threshhold' in [params]; did you mean threshold?",
                "(accepted: threshold, cooldown, rounds, ",
            ][..],
        ),
        (
            "bad-value.toml",
            "[params]\nthreshold = 0\n",
            &["threshold"],
        ),
        (
            "bad-hook.toml",
            "[[launch_hooks]]\ntimeout = 121\nprovider = \"aws\"\n",
            &["--launch-hooks: accepted values are at most 50 hooks"],
        ),
    ] {
        error_naming(
            &["autoscale", "--scenario", &temp_file(name, text)],
            needles,
        );
    }
    error_naming(
        &["autoscale", "--scenario", "/nonexistent.toml"],
        &["/nonexistent.toml: no such file"],
    );
    // Read bounded: a longer file than 1 MiB stops at once.
    let big = temp_file("big.toml", vec![b'#'; (1 << 20) + 1]);
    error_naming(
        &["autoscale", "--scenario", &big],
        &["longer than the limit of 1048576 bytes"],
    );
    let exactly = temp_file("exact.toml", vec![b'#'; 1 << 20]);
    stdout_ok(&["autoscale", "--scenario", &exactly]);
}

#[test]
fn a_hook_whose_job_completes_early_waits_that_long() {
    let boot = lesson_boot();
    assert_eq!(boot, 2, "the lesson's two rounds (S000)");
    let toml = temp_file(
        "early.toml",
        "[[launch_hooks]]\ntimeout = 10\naction_rounds = 3\n",
    );
    let v = row(&["autoscale", "--scenario", &toml]);
    assert_eq!(n(&v, "time_to_in_service_max"), boot + 3);
    assert!(n(&v, "hook_completions") > 0);
    assert_eq!(n(&v, "hook_timeouts"), 0);
    // The flag says the same.
    let f = row(&["autoscale", "--launch-hooks", "10:action=3"]);
    assert_eq!(f["time_to_in_service_max"], v["time_to_in_service_max"]);
}

#[test]
fn heartbeats_extend_a_wait_and_the_providers_cap_ends_it() {
    let boot = lesson_boot();
    // Alibaba: at most 20 heartbeats (RecordLifecycleActionHeartbeat); every 5 rounds of a
    // 10-round timeout, then a last full timeout.
    let v = row(&argv(
        "autoscale --count-pending yes --launch-hooks 10:heartbeat=5",
    ));
    assert_eq!(n(&v, "time_to_in_service_max"), boot + 20 * 5 + 10);
    assert!(n(&v, "heartbeats") >= 20);
    // AWS: the global timeout, 100 × the heartbeat timeout, ends a wait kept open every round.
    let v = row(&argv(
        "autoscale --count-pending yes --launch-hooks 2:continue:heartbeat=1:aws",
    ));
    assert_eq!(n(&v, "time_to_in_service_max"), boot + 100 * 2);
    assert!(n(&v, "hook_cap_timeouts") > 0);
    // AWS's default result is ABANDON: the same hook without a result never serves.
    let v = row(&["autoscale", "--launch-hooks", "2:aws"]);
    assert!(n(&v, "abandoned_launches") > 0);
}

#[test]
fn the_one_hook_flags_stay_a_shorthand_with_the_same_bytes() {
    let toml = temp_file("one-hook.toml", "[[launch_hooks]]\ntimeout = 5\n[[terminate_hooks]]\ntimeout = 3\ndefault_result = \"abandon\"\n");
    for format in ["csv", "json", "table"] {
        assert_eq!(
            printed("autoscale --scenario", &[&toml], format),
            printed(
                "autoscale --launch-hook 5 --terminate-hook 3:abandon",
                &[],
                format
            )
        );
    }
}

#[test]
fn a_timed_maximum_holds_the_traces_size_from_its_round_on() {
    let toml = temp_file("max.toml", "[[at]]\nround = 100\nmax_instances = 12\n");
    let csv = stdout_ok(&["trace", "autoscale", "--scenario", &toml, "--format", "csv"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |k: &str| header.iter().position(|h| *h == k).unwrap();
    let (round, size, actions) = (col("round"), col("size"), col("actions"));
    let mut largest_after = 0;
    for l in lines {
        let c: Vec<&str> = l.split(',').collect();
        let t: u32 = c[round].parse().unwrap();
        let s: u32 = c[size].parse().unwrap();
        if t >= 101 {
            assert!(s <= 12, "round {t}: size {s}");
            largest_after = largest_after.max(s);
        }
        assert_eq!(c[actions], if t == 100 { "1" } else { "0" }, "round {t}");
    }
    // The surge wants 18 (ceil(1800 / 100)): the cap is what holds it.
    assert_eq!(largest_after, 12);
    // Without the file the trace is the lesson's, with its columns only.
    let lesson = stdout_ok(&["trace", "autoscale", "--format", "csv"]);
    assert!(!lesson.lines().next().unwrap().contains("actions"));
}

#[test]
fn the_events_flag_stays_a_shorthand_of_timed_standby() {
    let events = row(&["autoscale", "--events", "30:standby:2+60:unstandby:2"]);
    let toml = temp_file(
        "standby.toml",
        "[[at]]\nround = 30\nstandby = 2\n[[at]]\nround = 60\nunstandby = 2\n",
    );
    let at = row(&["autoscale", "--scenario", &toml]);
    for (k, v) in events.as_object().unwrap() {
        if !["events", "at"].contains(&k.as_str()) {
            assert_eq!(&at[k], v, "{k}");
        }
    }
}

#[test]
fn every_example_scenario_runs() {
    let dir = root("examples/scenarios");
    let mut ran = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let p = path.to_string_lossy().into_owned();
        let out = capsim(&["autoscale", "--scenario", &p, "--format", "csv"]);
        assert!(
            out.status.success(),
            "{p}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.len() > 100, "{p}");
        ran += 1;
        // Every file is listed for the cross-target comparisons.
        let cross = std::fs::read_to_string(root("scripts/cross-commands.txt")).unwrap();
        let name = format!(
            "examples/scenarios/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        assert!(
            cross.contains(&name),
            "{name} in scripts/cross-commands.txt"
        );
    }
    assert!(ran >= 5, "{ran} scenarios");
}

/// The trace's column `key`, summed.
fn trace_sum(args: &[&str], key: &str) -> u64 {
    Csv::of(&[&["trace", "autoscale"], args].concat()).sum(key)
}

#[test]
fn the_four_deallocation_options_give_four_results() {
    let formula = |o: &str| root(&format!("examples/scenarios/dealloc-{o}.formula"));
    let run = |o: &str, tasks: &str| {
        row(&[
            "autoscale",
            "--formula",
            &formula(o),
            "--task-rounds",
            tasks,
        ])
    };
    let [requeue, terminate, completion, retained] =
        ["requeue", "terminate", "taskcompletion", "retaineddata"].map(|o| run(o, "10"));
    // The same decisions in all four (removal only decides what happens to the work).
    let removed = trace_sum(
        &["--formula", &formula("requeue"), "--task-rounds", "10"],
        "removed",
    );
    assert!(removed > 0, "the formula scales in");
    for v in [&terminate, &completion, &retained] {
        assert_eq!(v["scaling_actions"], requeue["scaling_actions"]);
    }
    // requeue: the work done is lost, nothing fails, no node waits.
    assert!(n(&requeue, "lost_task_rounds") > 0);
    assert_eq!(n(&requeue, "failed_tasks"), 0);
    assert_eq!(n(&requeue, "drain_rounds"), 0);
    // terminate: the same work lost, and every removed node's running task failed.
    assert_eq!(terminate["lost_task_rounds"], requeue["lost_task_rounds"]);
    assert_eq!(n(&terminate, "failed_tasks"), removed);
    // taskcompletion: nothing lost; each node finishes its task, billed meanwhile.
    assert_eq!(n(&completion, "lost_task_rounds"), 0);
    assert_eq!(n(&completion, "failed_tasks"), 0);
    let drain = n(&completion, "drain_rounds");
    assert!(drain > 0);
    assert_eq!(
        n(&completion, "billed_rounds"),
        n(&requeue, "billed_rounds") + drain
    );
    // retaineddata: the task and then one round of clean-up per node.
    assert_eq!(n(&retained, "drain_rounds"), drain + removed);
    assert_eq!(
        n(&retained, "billed_rounds"),
        n(&completion, "billed_rounds") + removed
    );
    // The extremes: one-round tasks are always just starting (nothing is lost, each node
    // finishes in its removal round's next); the longest task never ends within the day.
    let one = run("requeue", "1");
    assert_eq!(n(&one, "lost_task_rounds"), 0);
    let removed1 = trace_sum(
        &[
            "--formula",
            &formula("taskcompletion"),
            "--task-rounds",
            "1",
        ],
        "removed",
    );
    assert_eq!(n(&run("taskcompletion", "1"), "drain_rounds"), removed1);
    let long = run("requeue", "10080");
    assert!(n(&long, "lost_task_rounds") > n(&requeue, "lost_task_rounds"));
    let e = one_line_error(&["autoscale", "--task-rounds", "0"]);
    assert_eq!(
        e,
        "error: --task-rounds: accepted values are integers from 1 to 10080\n"
    );
    one_line_error(&["autoscale", "--task-rounds", "10081"]);
    // Off by default: no task model, the lesson's row.
    let lesson = row(&["autoscale"]);
    for key in ["lost_task_rounds", "failed_tasks", "drain_rounds"] {
        assert_eq!(n(&lesson, key), 0, "{key}");
    }
}

#[test]
fn a_timed_evaluation_interval_restarts_the_formulas_schedule() {
    // Batch: a new interval stops the schedule and starts one at the request's time. With
    // 15 rounds until round 60 (evaluations at 0, 15, 30, 45) and 5 from 60 (60, 65, …, 235
    // of the 240-round day):
    let expected = (0..60).step_by(15).count() + (60..240).step_by(5).count();
    let formula = root("examples/formulas/demand.formula");
    let evaluations = |more: &str| {
        let v = row(&[&["autoscale", "--formula", &formula][..], &argv(more)].concat());
        n(&v, "evaluations")
    };
    assert_eq!(
        evaluations("--at 60:evaluation_interval=5"),
        expected as u64
    );
    assert_eq!(evaluations(""), (0..240).step_by(15).count() as u64);
    // Batch's range: 5 minutes to 168 hours.
    for bad in ["60:evaluation_interval=4", "60:evaluation_interval=10081"] {
        let e = one_line_error(&["autoscale", "--formula", &formula, "--at", bad]);
        assert!(e.starts_with("error: --at: accepted values are"), "{e}");
    }
    // Without a formula nothing evaluates: the action would be ignored, so it is refused.
    let e = one_line_error(&["autoscale", "--at", "60:evaluation_interval=5"]);
    assert_eq!(
        e,
        "error: --at: needs --formula for its formula and evaluation_interval actions (without it the flag would be ignored)\n"
    );
}

/// The trace's rows as (round, column `key`) pairs.
fn trace_column(args: &[&str], key: &str) -> Vec<(u32, String)> {
    let trace = Csv::of(&[&["trace", "autoscale"], args].concat());
    let rounds = trace.ints("round").into_iter().map(|r| r as u32);
    rounds
        .zip(trace.column(key).into_iter().map(String::from))
        .collect()
}

/// The `--evaluations` lines of a trace: (round, results).
fn evaluation_lines(args: &[&str]) -> Vec<(u32, String)> {
    stdout_ok(&[&["trace", "autoscale"], args, &["--evaluations"]].concat())
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["round"].as_u64().unwrap() as u32,
                v["results"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_timed_formula_takes_the_group_from_its_round_on() {
    // The example: keep-current.formula holds the pool, zero.formula comes in at round 120.
    let swap = root("examples/scenarios/formula-swap.toml");
    let args = ["--scenario", swap.as_str()];
    let sizes = trace_column(&args, "size");
    assert_eq!(sizes.len(), 240);
    let first = sizes[0].1.clone();
    assert_ne!(first, "0");
    for (t, s) in &sizes {
        match t {
            // Held: the size the group started with.
            0..120 => assert_eq!(*s, first, "round {t}"),
            // $TargetDedicatedNodes = 0 from the swap's own evaluation on.
            _ => assert_eq!(s, "0", "round {t}"),
        }
    }
    // Batch evaluates the new formula when it is enabled, then every interval (15): the
    // old schedule's 0, 15, …, 105, then 120, 135, …, 225.
    let evaluations = evaluation_lines(&args);
    let rounds: Vec<u32> = evaluations.iter().map(|e| e.0).collect();
    let expected: Vec<u32> = (0..240).step_by(15).collect();
    assert_eq!(rounds, expected);
    for (t, results) in &evaluations {
        let zero = results.starts_with("$TargetDedicatedNodes=0;");
        assert_eq!(zero, *t >= 120, "round {t}: {results}");
        if *t < 120 {
            assert!(
                results.starts_with(&format!("$TargetDedicatedNodes={first};")),
                "round {t}: {results}"
            );
        }
    }
    // One run, many views: the trace's `evaluated` column marks the same rounds.
    let evaluated: Vec<u32> = trace_column(&args, "evaluated")
        .into_iter()
        .filter(|(_, e)| e == "1")
        .map(|(t, _)| t)
        .collect();
    assert_eq!(evaluated, expected);
    // The chart's evaluation ticks are the run's, not a fixed grid.
    let svg = stdout_ok(&["plot", "autoscale", "--scenario", &swap, "-o", "-"]);
    assert!(svg.contains("formula evaluation (the schedule restarts at a timed action)"));
    // The flag says the same as the file.
    let keep = root("examples/formulas/keep-current.formula");
    let zero = root("examples/formulas/zero.formula");
    let at = format!("120:formula={zero}");
    let flags = ["--formula", keep.as_str(), "--at", at.as_str()];
    assert_eq!(trace_column(&flags, "size"), sizes);
    assert_eq!(evaluation_lines(&flags), evaluations);
}

#[test]
fn a_timed_formulas_schedule_restarts_at_its_round() {
    // Off the old grid: 0, 15, 30, 45 under the first formula, then 50, 65, …, 230 (240
    // rounds); a second swap at 100 restarts it again: 100, 115, …, 235.
    let demand = root("examples/formulas/demand.formula");
    let zero = root("examples/formulas/zero.formula");
    let once = format!("50:formula={zero}");
    let args = ["--formula", demand.as_str(), "--at", once.as_str()];
    let rounds: Vec<u32> = evaluation_lines(&args).into_iter().map(|e| e.0).collect();
    let expected: Vec<u32> = (0..50).step_by(15).chain((50..240).step_by(15)).collect();
    assert_eq!(rounds, expected);
    assert_eq!(
        n(&row(&[&["autoscale"], &args[..]].concat()), "evaluations"),
        expected.len() as u64
    );
    let twice = format!("50:formula={zero}+100:formula={demand}");
    let args = ["--formula", demand.as_str(), "--at", twice.as_str()];
    let lines = evaluation_lines(&args);
    let expected: Vec<u32> = (0..50)
        .step_by(15)
        .chain((50..100).step_by(15))
        .chain((100..240).step_by(15))
        .collect();
    assert_eq!(lines.iter().map(|e| e.0).collect::<Vec<_>>(), expected);
    // zero.formula's evaluations only between the swaps.
    for (t, results) in &lines {
        let zero = results.starts_with("$TargetDedicatedNodes=0;");
        assert_eq!(zero, (50..100).contains(t), "round {t}: {results}");
    }
    // With a timed interval too: the swap keeps the interval in force (5 from round 20).
    let both = format!("20:evaluation_interval=5+52:formula={zero}");
    let args = ["--formula", demand.as_str(), "--at", both.as_str()];
    let rounds: Vec<u32> = evaluation_lines(&args).into_iter().map(|e| e.0).collect();
    let expected: Vec<u32> = [0, 15]
        .into_iter()
        .chain((20..52).step_by(5))
        .chain((52..240).step_by(5))
        .collect();
    assert_eq!(rounds, expected);
}

#[test]
fn a_bad_timed_formula_is_one_line_naming_the_file() {
    let keep = root("examples/formulas/keep-current.formula");
    // A missing file, by flag and by scenario (relative to the scenario's folder).
    let gone = argv("--at 120:formula=/nonexistent/gone.formula");
    error_naming(
        &[&["autoscale", "--formula", &keep][..], &gone].concat(),
        &["formula file /nonexistent/gone.formula: no such file"],
    );
    let toml = temp_file(
        "swap-missing.toml",
        format!("[params]\nformula = \"{keep}\"\n[[at]]\nround = 120\nformula = \"gone-swap.formula\"\n"),
    );
    let dir = std::path::Path::new(&toml)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let e = one_line_error(&["autoscale", "--scenario", &toml]);
    assert!(
        e.contains(&format!(
            "formula file {dir}/gone-swap.formula: no such file"
        )),
        "{e}"
    );
    // A formula's error is FILE:LINE:COL: error: … alone, exit 2.
    let bad = temp_file("swap-bad.formula", "$TargetDedicatedNodes = 1;\nx = (\n");
    for args in [
        vec!["autoscale", "--formula", &keep, "--at", &format!("120:formula={bad}")],
        vec![
            "trace",
            "autoscale",
            "--scenario",
            &temp_file(
                "swap-bad.toml",
                format!("[params]\nformula = \"{keep}\"\n[[at]]\nround = 9\nformula = \"swap-bad.formula\"\n"),
            ),
        ],
    ] {
        let out = capsim(&args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("{bad}:3:1: error: ")), "{err}");
    }
    // A path that is not a string, and the lesson's policy (no formula to replace).
    let toml = temp_file("swap-number.toml", "[[at]]\nround = 1\nformula = 5\n");
    error_naming(
        &["autoscale", "--scenario", &toml],
        &["'formula' at round 1 must be a file's path"],
    );
    let zero = root("examples/formulas/zero.formula");
    for command in [&["autoscale"][..], &["trace", "autoscale"]] {
        let at = format!("120:formula={zero}");
        let e = one_line_error(&[command, &["--at", at.as_str()]].concat());
        assert!(
            e.contains("--at: needs --formula for its formula and evaluation_interval actions"),
            "{e}"
        );
    }
}
