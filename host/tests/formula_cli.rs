//! `capsim formula check|eval`: exit codes, one-line errors, limits, documented results.

mod common;

use common::{capsim, example, temp_file, with_stdin};

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

/// Every valid example passes `check` (status 0, nothing on stdout); all but Microsoft's two
/// CPU formulas are silent: theirs grow by `$CurrentDedicatedNodes * 1.1`, which truncates
/// back to the current size from 1 to 9 nodes, and `check` warns of it.
#[test]
fn check_is_silent_on_every_valid_example() {
    for (name, at, target) in [
        ("cpu-400.formula", "7:1", "$TargetDedicatedNodes"),
        ("powershell.formula", "1:217", "$TargetDedicated"),
    ] {
        let out = capsim(&["formula", "check", &example(name)]);
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert!(out.stdout.is_empty());
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!(
                "{}:{at}: warning: {target} is truncated to a whole number: at 9 nodes it asks for 9.9 and gets 9, the current size, so from 1 to 9 nodes the group never grows\n",
                example(name)
            )
        );
    }
    for name in [
        "pending-tasks.formula",
        "preempted-nodes.formula",
        "working-hours.formula",
        "working-hours-evaluated.formula",
        "working-hours-python.formula",
        "monday.formula",
        "keep-current.formula",
        "zero.formula",
        "task-based.formula",
        "parallel-tasks.formula",
        "initial-size.formula",
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
        &format!(
            "{}:8:1: error: expected ';' before '$NodeDeallocationOption'",
            example("cpu-400-as-printed.formula")
        ),
    );
}

#[test]
fn check_names_the_limits() {
    let long = temp_file(
        "long.formula",
        format!("x = 1;{}", " ".repeat(8200)).as_bytes(),
    );
    // Read at most 8193 bytes: the message cannot (and does not) claim a length.
    let long_path = long.clone();
    assert_error(
        &["formula", "check", &long],
        2,
        &format!("error: {long_path}: the formula is longer than 8 KB (8192 bytes), Batch's limit"),
    );
    // Exactly 8192 bytes are read whole and check clean.
    let fits = temp_file(
        "fits.formula",
        format!("x = 1;{}", " ".repeat(8192 - 6)).as_bytes(),
    );
    assert_eq!(stdout_ok(&["formula", "check", &fits]), "");
    let text: String = (0..101).map(|i| format!("x{} = 1;\n", i % 10)).collect();
    let many = temp_file("many.formula", text.as_bytes());
    assert_error(
        &["formula", "check", &many],
        2,
        &format!("{many}:101:1: error: more than 100 statements (the limit)"),
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
    assert_eq!(err, "error: /nonexistent/f.formula: no such file\n");
}

/// Issue 18: every file-taking flag reads at most the limit plus one byte, and a directory,
/// a FIFO or a missing file is one line and status 2, at once.
#[test]
fn formula_files_are_read_with_a_bound() {
    let started = std::time::Instant::now();
    for args in [
        vec!["formula", "check", "/dev/zero"],
        vec!["formula", "eval", "/dev/zero"],
    ] {
        assert_error(
            &args,
            2,
            "error: /dev/zero: the formula is longer than 8 KB (8192 bytes), Batch's limit",
        );
    }
    assert_error(
        &["autoscale", "--formula", "/dev/zero"],
        2,
        "error: invalid value '/dev/zero' for '--formula <LIST>': /dev/zero: the formula is longer than 8 KB (8192 bytes), Batch's limit",
    );
    // Reading all of /dev/zero would never end; 8193 bytes take no time.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let dir = env!("CARGO_TARGET_TMPDIR");
    assert_error(
        &["formula", "check", dir],
        2,
        &format!("error: {dir}: is a directory, not a file"),
    );
    let fifo = format!("{dir}/issue18.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo");
    // A FIFO with no writer would block a read forever: refused before opening.
    for args in [
        vec!["formula", "check", &fifo],
        vec!["formula", "eval", &fifo],
    ] {
        assert_error(
            &args,
            2,
            &format!("error: {fifo}: is a FIFO (named pipe), not a file"),
        );
    }
    let out = capsim(&["autoscale", "--formula", &fifo]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.ends_with("is a FIFO (named pipe), not a file\n") && err.lines().count() == 1,
        "{err}"
    );
    let out = capsim(&["autoscale", "--formula", "/nonexistent/f.formula"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.ends_with("/nonexistent/f.formula: no such file\n"),
        "{err}"
    );
}

/// Issue 18's formula-language cases on the command line.
#[test]
fn check_and_eval_follow_the_documented_language() {
    // 100 statements, 99 user variables: checks clean (was "more than 64 user variables").
    let mut text: String = (0..99).map(|i| format!("v{i} = {i};\n")).collect();
    text.push_str("$TargetDedicatedNodes = v98;\n");
    let hundred = temp_file("hundred.formula", text.as_bytes());
    assert_eq!(stdout_ok(&["formula", "check", &hundred]), "");
    assert!(stdout_ok(&["formula", "eval", &hundred]).starts_with("$TargetDedicatedNodes=98;"));
    // time("") is now.
    let now = temp_file("now.formula", b"$t = time(\"\");");
    assert_eq!(
        stdout_ok(&["formula", "eval", &now, "--at", "2016-10-13T19:18:47.805Z"]),
        "$NodeDeallocationOption=requeue;$t=2016-10-13T19:18:47.805Z\n"
    );
    // Sunday is 7.
    let day = temp_file("day.formula", b"d = time().weekday;");
    assert_eq!(
        stdout_ok(&["formula", "eval", &day, "--at", "2016-10-16T12:00:00Z"]),
        "$NodeDeallocationOption=requeue;d=7\n"
    );
    // Errors at a place in the file, each one line: a static type error fails check with
    // its position (was: passes, then every evaluation fails), lexical errors are readable,
    // and a bad percentile fails the evaluation (status 1).
    for (name, text, command, status, error) in [
        (
            "typed.formula",
            &b"$TargetDedicatedNodes = \"abc\" + 1;"[..],
            "check",
            2,
            "1:31: error: operator '+' does not apply to string and double",
        ),
        (
            "bell.formula",
            b"x = 1\x07;",
            "check",
            2,
            "1:6: error: unexpected character '\\u{0007}'",
        ),
        (
            "cr.formula",
            b"x = 1;\ry = 2;\rz = ;",
            "check",
            2,
            "3:5: error: expected a value before ';'",
        ),
        (
            "pct.formula",
            b"x = percentile([1, 2], 150);",
            "eval",
            1,
            "1:24: error: percentile takes p from 0 to 100, got 150",
        ),
    ] {
        let path = temp_file(name, text);
        assert_error(
            &["formula", command, &path],
            status,
            &format!("{path}:{error}"),
        );
    }
    let huge = temp_file(
        "huge.formula",
        format!("x = {};", "1".repeat(400)).as_bytes(),
    );
    let out = capsim(&["formula", "check", &huge]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.starts_with(&format!("{huge}:1:5: error: number '1111"))
            && err.ends_with("is beyond the largest double (about 1.8e308)\n"),
        "{err}"
    );
}

/// Issue 18: each bad flag is blamed by name.
#[test]
fn eval_blames_the_right_flag() {
    let f = example("zero.formula");
    assert_error(
        &["formula", "eval", &f, "--delay", "-1"],
        2,
        "error: invalid value '-1' for '--delay <SECONDS>': -1 is not in 0..=86400",
    );
    let out = capsim(&["formula", "eval", &f, "--seed", "-1"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.starts_with("error: invalid value '-1' for '--seed <N>'"),
        "{err}"
    );
    assert_error(
        &["formula", "eval", &f, "--at", "0001-01-01T00:00:30Z", "--sample", "CPUPercent=1:2"],
        2,
        "error: --at: 0001-01-01T00:00:30Z minus the 60 s delay leaves no room for 2 samples 30 s apart after 0001-01-01T00:00:00Z (the earliest time); give a later --at or fewer samples",
    );
    // The same samples fit a later --at.
    assert_eq!(
        stdout_ok(&[
            "formula",
            "eval",
            &f,
            "--at",
            "0001-01-01T00:02:00Z",
            "--sample",
            "CPUPercent=1:2"
        ]),
        "$TargetDedicatedNodes=0;$NodeDeallocationOption=requeue\n"
    );
    for (a, b, name) in [
        (
            "$CurrentDedicatedNodes=1",
            "$currentdedicated=2",
            "$CurrentDedicatedNodes",
        ),
        (
            "$TargetDedicated=1",
            "$TargetDedicatedNodes=2",
            "$TargetDedicatedNodes",
        ),
        (
            "$NodeDeallocationOption=requeue",
            "$NodeDeallocationOption=terminate",
            "$NodeDeallocationOption",
        ),
    ] {
        assert_error(
            &["formula", "eval", &f, "--set", a, "--set", b],
            2,
            &format!("error: --set: {name} is given twice"),
        );
    }
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
        &format!(
            "{}:6:66: error: Insufficient data from data set: $RunningTasks wanted 50%, received 0%",
            example("initial-size.formula")
        ),
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
        for needle in [
            "8 KB (8192 bytes)",
            "100 statements",
            "status 2",
            "7 = Sunday",
            "$CPUPercent is a fraction from 0 to 1",
        ] {
            assert!(help.contains(needle), "{args:?}: {needle}");
        }
        // Every capacity the help states is the core's constant (in the help's order).
        let numbers: Vec<usize> = help
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        let mut at = 0;
        for want in capsim::formula::FORMULA_HELP_FIGURES {
            let found = numbers[at..].iter().position(|&n| n == want);
            assert!(
                found.is_some(),
                "{args:?}: {want} missing or out of order in {help}"
            );
            at += found.unwrap() + 1;
        }
    }
}

/// Issue 25: `-` is standard input for `check` and `eval`, read with the same 8 KB bound,
/// and an error in it is `<stdin>:L:C: error: …`.
#[test]
fn a_dash_reads_the_formula_from_stdin() {
    let documented = std::fs::read(example("working-hours-evaluated.formula")).unwrap();
    let out = with_stdin(
        &["formula", "eval", "-", "--at", "2016-10-13T19:18:47.805Z"],
        &documented,
    );
    assert_eq!(out.status.code(), Some(0));
    // Microsoft's documented results string for this formula at that time.
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "$TargetDedicatedNodes=10;$NodeDeallocationOption=requeue;$curTime=2016-10-13T19:18:47.805Z;$isWeekday=1;$isWorkingWeekdayHour=0;$workHours=0\n"
    );
    let out = with_stdin(&["formula", "check", "-"], b"x = 1;\n\ny = ;\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "<stdin>:3:5: error: expected a value before ';'\n"
    );
    // The bound: 8192 bytes are read whole, one more is refused, from a pipe as from a file.
    let fits = format!("x = 1;{}", " ".repeat(8192 - 6));
    assert_eq!(
        with_stdin(&["formula", "check", "-"], fits.as_bytes())
            .status
            .code(),
        Some(0)
    );
    let long = vec![b' '; 1 << 20];
    let out = with_stdin(&["formula", "check", "-"], &long);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: <stdin>: the formula is longer than 8 KB (8192 bytes), Batch's limit\n"
    );
    // A file called "-" in a directory is a file: ./- is not stdin.
    let out = capsim(&["formula", "check", "./-"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: ./-: no such file\n"
    );
}

/// Issue 25: an error at a place in the formula is `FILE:LINE:COL: error: message`, one
/// line, as compilers print it (the line and column counted here from the file).
#[test]
fn formula_errors_start_with_the_file_as_compilers_print_them() {
    let path = example("cpu-400-as-printed.formula");
    let src = std::fs::read_to_string(&path).unwrap();
    // The `;` missing at the end of the statement before the line that starts with
    // `$NodeDeallocationOption`: that line, column 1.
    let line = src
        .lines()
        .position(|l| l.starts_with("$NodeDeallocationOption"))
        .unwrap()
        + 1;
    assert_error(
        &["formula", "check", &path],
        2,
        &format!("{path}:{line}:1: error: expected ';' before '$NodeDeallocationOption'"),
    );
    let busy = example("cpu-busy.formula");
    assert_error(
        &["formula", "eval", &busy],
        1,
        &format!("{busy}:4:24: error: Insufficient data from data set: $CPUPercent wanted 70%, received 0%"),
    );
}
