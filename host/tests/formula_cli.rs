//! `capsim formula check|eval`: exit codes, one-line errors, limits, documented results.

mod common;

use common::{capsim, example, temp_file};

/// Asserts `status`, exactly one line on stderr equal to `line`, nothing on stdout.
fn assert_error(args: &[&str], status: i32, line: &str) {
    let out = capsim(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(status), "{args:?}: {err}");
    assert_eq!(err, format!("{line}\n"), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

fn stdout_ok(args: &[&str]) -> String {
    let out = capsim(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn check_is_silent_on_every_valid_example() {
    for name in [
        "pending-tasks.formula",
        "preempted-nodes.formula",
        "cpu-400.formula",
        "working-hours.formula",
        "working-hours-evaluated.formula",
        "working-hours-python.formula",
        "monday.formula",
        "keep-current.formula",
        "zero.formula",
        "task-based.formula",
        "parallel-tasks.formula",
        "initial-size.formula",
        "powershell.formula",
    ] {
        assert_eq!(
            stdout_ok(&["formula", "check", &example(name)]),
            "",
            "{name}"
        );
    }
}

#[test]
fn check_rejects_the_documented_missing_semicolon() {
    assert_error(
        &["formula", "check", &example("cpu-400-as-printed.formula")],
        2,
        "error: line 8, col 1: expected ';' before '$NodeDeallocationOption'",
    );
}

#[test]
fn check_names_the_limits() {
    let long = temp_file(
        "long.formula",
        format!("x = 1;{}", " ".repeat(8200)).as_bytes(),
    );
    assert_error(
        &["formula", "check", &long],
        2,
        "error: line 1, col 8193: the formula is 8206 bytes; the limit is 8 KB (8192 bytes)",
    );
    let text: String = (0..101).map(|i| format!("x{} = 1;\n", i % 10)).collect();
    let many = temp_file("many.formula", text.as_bytes());
    assert_error(
        &["formula", "check", &many],
        2,
        "error: line 101, col 1: more than 100 statements (the limit)",
    );
    let bytes = temp_file("bytes.formula", b"x = 1;\xff");
    let out = capsim(&["formula", "check", &bytes]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .ends_with("not UTF-8 text\n"));
    let out = capsim(&["formula", "check", "/nonexistent/f.formula"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1);
    assert!(
        err.starts_with("error: /nonexistent/f.formula: cannot read"),
        "{err}"
    );
}

#[test]
fn eval_prints_the_documented_results() {
    assert_eq!(
        stdout_ok(&[
            "formula",
            "eval",
            &example("working-hours-evaluated.formula"),
            "--at",
            "2016-10-13T19:18:47.805Z"
        ]),
        "$TargetDedicatedNodes=10;$NodeDeallocationOption=requeue;$curTime=2016-10-13T19:18:47.805Z;$isWeekday=1;$isWorkingWeekdayHour=0;$workHours=0\n"
    );
    assert_eq!(
        stdout_ok(&["formula", "eval", &example("powershell.formula")]),
        "$TargetDedicated=5;$NodeDeallocationOption=requeue;totalNodes=5\n"
    );
}

#[test]
fn eval_samples_and_current_values() {
    // 20 samples of 0.9 ending now with no delay: 100 % of the 10-minute window, min 0.9
    // > 0.8, so totalNodes = 10 * 1.1 = 11 (exact in IEEE arithmetic).
    let cpu = format!("$CPUPercent={}", vec!["0.9"; 20].join(":"));
    let args = [
        "formula",
        "eval",
        &example("powershell.formula"),
        "--delay",
        "0",
        "--sample",
        &cpu,
        "--set",
        "$CurrentDedicated=10",
    ];
    assert_eq!(
        stdout_ok(&args),
        "$TargetDedicated=11;$NodeDeallocationOption=requeue;totalNodes=11\n"
    );
    // With the default one-minute delay the same samples cover 18 of 20: 90 % >= 0.7, same.
    assert_eq!(
        stdout_ok(
            &args[..3]
                .iter()
                .chain(&args[5..])
                .copied()
                .collect::<Vec<_>>()
        ),
        "$TargetDedicated=11;$NodeDeallocationOption=requeue;totalNodes=11\n"
    );
    // Empty fields are missing samples: 3 of the 6 possible in 180 s (no delay) = 50 %.
    let out = stdout_ok(&[
        "formula",
        "eval",
        &example("pending-tasks.formula"),
        "--delay",
        "0",
        "--sample",
        "PendingTasks=5::5::5:",
    ]);
    assert_eq!(out, "$TargetDedicatedNodes=1;$NodeDeallocationOption=taskcompletion;maxNumberofVMs=25;pendingTaskSamplePercent=50;pendingTaskSamples=1;startingNumberOfVMs=1\n");
    // The README's teaching example: with the default one-minute delay a 180 s window has
    // at most 4 of its 6 samples (66.7 % < 70): one node; with no delay 100 %, avg 15.
    let readme = |delay: &str| {
        stdout_ok(&[
            "formula",
            "eval",
            &example("pending-tasks.formula"),
            "--sample",
            "PendingTasks=10:12:14:16:18:20",
            "--delay",
            delay,
        ])
    };
    assert_eq!(readme("60"), "$TargetDedicatedNodes=1;$NodeDeallocationOption=taskcompletion;maxNumberofVMs=25;pendingTaskSamplePercent=66.66666666666667;pendingTaskSamples=1;startingNumberOfVMs=1\n");
    assert!(readme("0").starts_with("$TargetDedicatedNodes=15;"));
    // --set of a current target (read before assignment), Example 2's "half of current".
    let out = stdout_ok(&[
        "formula",
        "eval",
        &example("task-based.formula"),
        "--sample",
        "PendingTasks=0",
        "--set",
        "$TargetDedicatedNodes=8",
    ]);
    assert!(out.starts_with("$TargetDedicatedNodes=4;"), "{out}");
}

#[test]
fn eval_failures_and_bad_flags() {
    // A failed evaluation: status 1, Batch's message with line and column.
    assert_error(
        &["formula", "eval", &example("initial-size.formula"), "--at", "2026-10-01T00:30:00Z"],
        1,
        "error: line 6, col 66: Insufficient data from data set: $RunningTasks wanted 50%, received 0%",
    );
    let f = example("zero.formula");
    for (args, needle) in [
        (vec!["--at", "yesterday"], "--at"),
        (vec!["--sample", "Nope=1"], "--sample"),
        (vec!["--sample", "CPUPercent=1:x"], "--sample"),
        (
            vec!["--sample", "CPUPercent=1", "--sample", "$cpupercent=2"],
            "given twice",
        ),
        (vec!["--set", "x=1"], "--set"),
        (vec!["--set", "$NodeDeallocationOption=later"], "--set"),
        (vec!["--delay", "99999"], "--delay"),
    ] {
        let mut all = vec!["formula", "eval", &f];
        all.extend(args.iter().copied());
        let out = capsim(&all);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{all:?}: {err}");
        assert!(
            err.starts_with("error: ") || err.starts_with("error:"),
            "{err}"
        );
        assert!(err.contains(needle), "{all:?}: {err}");
    }
    let many = format!("CPUPercent={}", vec!["1"; 241].join(":"));
    let out = capsim(&["formula", "eval", &f, "--sample", &many]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_documents_the_limits() {
    for args in [
        &["formula", "--help"][..],
        &["formula", "check", "--help"],
        &["formula", "eval", "--help"],
    ] {
        let help = String::from_utf8(capsim(args).stdout).unwrap();
        for needle in ["8 KB (8192 bytes)", "100 statements", "status 2"] {
            assert!(help.contains(needle), "{args:?}: {needle}");
        }
    }
}
