//! Every flag of the three model commands, from their `PARAMS` tables: a bad value's error
//! names the flag and its documented range (not the integer type's), and `--help` states the
//! default a bare command runs, which is `Params::default()`'s value.

mod common;

use capsim::models::{Autoscale, Bulkhead, Consumers, Flags, Model};
use common::capsim;

/// The values each flag is given: negative, larger than any integer type, garbage.
const BAD: [&str; 3] = ["-1", "99999999999999999999", "x!"];

/// The type's largest value, which an error may name only where the flag really takes it.
const U32_MAX: &str = "4294967295";

fn bad_values_name_the_flag_and_its_range<M: Model>(model: &str) {
    for p in M::PARAMS {
        let flag = format!("--{}", p.flag());
        for value in BAD {
            let args = [model, flag.as_str(), value];
            let out = capsim(&args);
            let err = String::from_utf8(out.stderr).expect("UTF-8 error");
            match out.status.code() {
                // The flag takes the value (e.g. a demand of -1): a run, no error.
                Some(0) => {
                    assert!(err.is_empty(), "{args:?}: {err}");
                    continue;
                }
                Some(2) => {}
                other => panic!("{args:?}: status {other:?}: {err}"),
            }
            assert!(out.stdout.is_empty(), "{args:?}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.starts_with("error: "), "{args:?}: {err}");
            if err.contains(U32_MAX) {
                assert!(
                    p.accepted_text().contains(U32_MAX),
                    "{args:?}: names {U32_MAX}, which is not the flag's limit ({}): {err}",
                    p.accepted_text()
                );
            }
            let parse_error = format!("error: invalid value '{value}' for '{flag} <LIST>': ");
            let range_error = format!("error: {flag}: accepted values are ");
            if p.key == "demand_file" {
                // Its errors name the flag and the file, as the contract writes them.
                let named = format!("error: {flag} {value}: ");
                assert!(err.starts_with(&named), "{args:?}: {err}");
                continue;
            }
            if p.key == "formula" {
                // A file's error names the file (the value), and says why.
                assert!(err.starts_with(&parse_error), "{args:?}: {err}");
                assert!(
                    err[parse_error.len()..].starts_with(value),
                    "{args:?}: {err}"
                );
            } else if err.starts_with(&parse_error) {
                // The value does not parse: the line ends with the flag's documented range.
                let ending = format!("; accepted values are {}\n", p.accepted_text());
                assert!(err.ends_with(&ending), "{args:?}: {err}");
            } else if err.starts_with("error: run ") {
                // The flag takes the value; the run it makes stops at a model limit (a
                // demand of 1e20 needs more than the group's 256 instances).
            } else {
                // It parses but is out of range: the core names the flag and its range.
                assert!(err.starts_with(&range_error), "{args:?}: {err}");
            }
        }
    }
}

#[test]
fn autoscale_bad_values_name_the_flag_and_its_range() {
    bad_values_name_the_flag_and_its_range::<Autoscale>("autoscale");
}

#[test]
fn consumers_bad_values_name_the_flag_and_its_range() {
    bad_values_name_the_flag_and_its_range::<Consumers>("consumers");
}

#[test]
fn bulkhead_bad_values_name_the_flag_and_its_range() {
    bad_values_name_the_flag_and_its_range::<Bulkhead>("bulkhead");
}

/// The launch hook's error names 1 to 360, as the issue reported it did not.
#[test]
fn a_negative_hook_names_the_hook_range() {
    let err = common::one_line_error(&["autoscale", "--launch-hook", "-1"]);
    assert_eq!(
        err,
        "error: invalid value '-1' for '--launch-hook <LIST>': '-1' is not ROUNDS[:continue|abandon] or 'none': '-1' is negative; accepted values are ROUNDS[:continue|abandon], 1 to 360, or none\n"
    );
    let err = common::one_line_error(&["consumers", "--consumers", "4294967296"]);
    assert_eq!(
        err,
        "error: invalid value '4294967296' for '--consumers <LIST>': '4294967296' is too large; accepted values are 1 to 64\n"
    );
}

/// Returns the `default: X` of a help line: up to ` (the lesson` or the closing `]`.
fn stated_default(line: &str) -> &str {
    let at = line
        .rfind("default: ")
        .expect("a default in every help line")
        + "default: ".len();
    let rest = &line[at..];
    let end = rest
        .find(" (the lesson sweeps ")
        .or_else(|| rest.find(']'))
        .expect("the help line's bracket closes");
    &rest[..end]
}

fn stated_defaults_are_the_defaults<M: Model>() {
    let base = M::Params::default();
    for p in M::PARAMS {
        let line = p.help_line();
        let default = stated_default(&line);
        // The stated default, given as the flag, runs exactly the bare command's parameters.
        let flags = Flags::<M>::from_pairs([(p.flag().as_str(), default)])
            .unwrap_or_else(|e| panic!("{}: '{default}': {e}", p.key));
        let given = flags.grid().unwrap().params(0);
        for q in M::PARAMS {
            assert_eq!(
                format!("{:?}", (q.cell)(&given)),
                format!("{:?}", (q.cell)(&base)),
                "--{} {default} changes {}",
                p.flag(),
                q.key
            );
        }
        // One rule for every flag: a single lesson value is the default itself; a lesson
        // sweep is said as one, and each of its values is one the flag takes.
        let lesson = p.lesson_text();
        if lesson.contains(',') {
            assert!(
                line.contains(&format!("(the lesson sweeps {lesson})]")),
                "{line}"
            );
        } else {
            assert_eq!(lesson, default, "{}", p.key);
        }
        assert!((p.parse)(&lesson).is_ok(), "{}: {lesson}", p.key);
        assert!(!line.contains("lesson:"), "{line}");
    }
}

#[test]
fn help_states_the_default_a_bare_command_runs() {
    stated_defaults_are_the_defaults::<Autoscale>();
    stated_defaults_are_the_defaults::<Consumers>();
    stated_defaults_are_the_defaults::<Bulkhead>();
}

/// A bare `capsim consumers` runs the stated defaults, one row; `--help` says so.
#[test]
fn bare_consumers_is_the_default_row_its_help_states() {
    let help = common::stdout_ok(&["consumers", "--help"]);
    assert!(
        help.contains("[1 to 64; default: 1 (the lesson sweeps 1,2,3,4,6,8)]"),
        "{help}"
    );
    let bare = common::stdout_ok(&["consumers"]);
    assert_eq!(bare.lines().count(), 2, "{bare}");
    assert_eq!(
        bare,
        common::stdout_ok(&["consumers", "--consumers", "1", "--slots", "2"])
    );
    let help = common::stdout_ok(&["bulkhead", "--help"]);
    assert!(
        help.contains("default: shared (the lesson sweeps shared,24)]"),
        "{help}"
    );
}
