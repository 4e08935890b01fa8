//! A policy's own flags without that policy (the one rule of `Model::NEEDS`, here for the
//! policies): `--target-utilization` and `--disable-scale-in` need `--policy
//! target-tracking`, `--steps` needs `--policy step`. Given alone they would be ignored;
//! they are one line (exit 2) naming the flag and the policy it needs, in every command that
//! takes the model's flags. Their defaults never trigger it, and a grid whose `--policy`
//! list holds the policy they need takes them (its other runs ignore them).

mod common;

use common::{one_line_error, stdout_ok};

const STEPS: &str = "..40:-1/80..:+2";

/// Asserts one error line that names `flag` and the `--policy` it needs.
fn needs(args: &[&str], flag: &str, policy: &str) {
    for command in [
        &["autoscale"][..],
        &["trace", "autoscale"],
        &["plot", "autoscale", "-o", "-"],
    ] {
        let all: Vec<&str> = command.iter().chain(args).copied().collect();
        let e = one_line_error(&all);
        assert_eq!(
            e,
            format!(
                "error: {flag}: needs --policy {policy} (without it the flag would be ignored)\n"
            ),
            "{all:?}"
        );
    }
}

#[test]
fn a_policys_flag_without_the_policy_is_one_line() {
    needs(
        &["--target-utilization", "70"],
        "--target-utilization",
        "target-tracking",
    );
    needs(
        &["--disable-scale-in", "yes"],
        "--disable-scale-in",
        "target-tracking",
    );
    needs(&["--steps", STEPS], "--steps", "step");
    // The other policy's flag is no more use.
    needs(
        &[
            "--policy",
            "step",
            "--steps",
            STEPS,
            "--target-utilization",
            "70",
        ],
        "--target-utilization",
        "target-tracking",
    );
    needs(
        &["--policy", "target-tracking", "--steps", STEPS],
        "--steps",
        "step",
    );
    // The extremes of the accepted range are values like any other.
    needs(
        &["--target-utilization", "1"],
        "--target-utilization",
        "target-tracking",
    );
    needs(
        &["--target-utilization", "100"],
        "--target-utilization",
        "target-tracking",
    );
    // A list with a value other than the default is a value other than the default.
    needs(
        &["--target-utilization", "50,60"],
        "--target-utilization",
        "target-tracking",
    );
}

/// The defaults (`--target-utilization 50`, `--disable-scale-in no`, `--steps none`) change
/// nothing, so given on their own they run, and print what the plain command prints.
#[test]
fn the_defaults_never_trigger_it() {
    let plain = stdout_ok(&["autoscale", "--format", "csv"]);
    let given = stdout_ok(&[
        "autoscale",
        "--format",
        "csv",
        "--target-utilization",
        "50",
        "--disable-scale-in",
        "no",
        "--steps",
        "none",
        "--policy",
        "lesson",
    ]);
    assert_eq!(given, plain);
}

/// In a grid whose `--policy` list holds the policy the flags need, they are taken: the
/// target-tracking runs use them, the lesson's runs ignore them (their rows are the lesson
/// runs' rows with the flag's column changed).
#[test]
fn a_grid_with_the_policy_takes_them() {
    let rows = |args: &[&str]| -> Vec<serde_json::Value> {
        let mut all = vec!["autoscale", "--format", "json"];
        all.extend_from_slice(args);
        stdout_ok(&all)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let mixed = rows(&[
        "--policy",
        "lesson,target-tracking",
        "--target-utilization",
        "70",
    ]);
    assert_eq!(mixed.len(), 2);
    let lesson = &rows(&[])[0];
    let tracking = &rows(&["--policy", "target-tracking", "--target-utilization", "70"])[0];
    for (key, value) in lesson.as_object().unwrap() {
        if key != "target_utilization" {
            assert_eq!(&mixed[0][key], value, "{key}");
        }
    }
    assert_eq!(mixed[0]["target_utilization"], 70);
    assert_eq!(&mixed[1], tracking);
    // And --steps with step among the policies.
    let stepped = rows(&["--policy", "lesson,step", "--steps", STEPS]);
    assert_eq!(stepped.len(), 2);
    assert_eq!(stepped[1]["steps"], STEPS);
}
