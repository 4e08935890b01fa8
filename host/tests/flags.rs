//! Every flag changes the run or is refused. For every parameter of every model's `PARAMS`
//! table, each test value (none of them the flag's default) given alone either changes the
//! run (its metrics or its trace) or is refused with the one rule's line naming what the
//! flag needs (`Model::NEEDS`); refused, it is given again with what the statement says it
//! needs (its `example`) and must then change the run made with that alone. A parameter
//! missing from the tables of `common/values.rs` fails the test, so a flag added to a model
//! cannot skip it.

use capsim::models::{self, Autoscale, Bulkhead, Consumers, Flags, Model, Rule};
use capsim::trace::{self, Traced};

mod common;

use common::values::{AUTOSCALE, BULKHEAD, CONSUMERS};

/// A file of `examples/` by its path there (`formulas/demand.formula`).
fn example(path: &str) -> String {
    format!("{}/../examples/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Flags that act only on a day that reaches them, and that day (added to both runs
/// compared, the flag given alone included): a warm pool's reuse needs a scale-in while a
/// refill still boots; a store's slots bind only when more consumers than slots pull from
/// the queue; an HPA's readiness settings (below).
const DAYS: &[(&str, &[(&str, &str)])] = &[
    ("warm_pool_reuse", &[("boot-rounds", "9")]),
    ("slots", &[("consumers", "8")]),
    // The HPA's readiness settings act on booting pods only past the initialization period
    // when the initial readiness delay is 0: each is tried with the other at 0.
    (
        "hpa_cpu_initialization_period",
        &[("policy", "hpa"), ("hpa-initial-readiness-delay", "0")],
    ),
    (
        "hpa_initial_readiness_delay",
        &[("policy", "hpa"), ("hpa-cpu-initialization-period", "0")],
    ),
];

/// What a run shows: its outcome and its trace, or the line that refused it.
fn run<M: Traced>(pairs: &[(String, String)]) -> Result<String, String>
where
    M::Metrics: std::fmt::Debug,
{
    let flags = Flags::<M>::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    let grid = flags.grid()?;
    assert_eq!(grid.len(), 1, "{pairs:?}");
    let p = grid.params(0);
    (M::VALIDATE)(&p).map_err(|e| e.to_string())?;
    let outcome = M::run(&p, &mut M::scratch());
    let (csv, traced) = trace::csv::<M>(&p);
    assert_eq!(format!("{outcome:?}"), format!("{traced:?}"), "{pairs:?}");
    // The metrics computed from the parameters (`cost`) are the run's too.
    let derived: Vec<String> = match &outcome {
        Ok(m) => M::DERIVED
            .iter()
            .filter(|d| models::shown::<M>(d.key, &p))
            .map(|d| format!("{}={}", d.key, (d.cell)(&p, m).text()))
            .collect(),
        Err(_) => Vec::new(),
    };
    Ok(format!("{outcome:?}\n{derived:?}\n{csv}"))
}

/// The pairs a need's example adds (flags with dashes, `examples/` files resolved).
fn example_pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| {
            let v = match v.strip_prefix("examples/") {
                Some(path) => example(path),
                None => v.to_string(),
            };
            (k.replace('_', "-"), v)
        })
        .collect()
}

fn every_flag_acts_or_is_refused<M: Model + Traced>(model: &str, table: &[(&str, &str)])
where
    M::Metrics: std::fmt::Debug,
{
    // Every failure, each on a line, so that one run names them all.
    let mut failures: Vec<String> = Vec::new();
    for q in M::PARAMS {
        let (_, values) = table
            .iter()
            .find(|(k, _)| *k == q.key)
            .unwrap_or_else(|| panic!("{model} --{}: no test values here", q.flag()));
        let day: Vec<(String, String)> = DAYS
            .iter()
            .filter(|(k, _)| *k == q.key)
            .flat_map(|(_, day)| day.iter().map(|(k, v)| (k.to_string(), v.to_string())))
            .collect();
        let plain = run::<M>(&day).unwrap();
        for v in values.split(' ') {
            let v = match v.strip_prefix('@') {
                Some(path) => example(path),
                None => v.to_string(),
            };
            assert_ne!(v, q.default_text(), "{model} --{}: the default", q.flag());
            let mut given = day.clone();
            given.push((q.flag(), v.clone()));
            let refusal = match run::<M>(&given) {
                Ok(shown) => {
                    if shown == plain {
                        failures.push(format!("--{} {v}: the run is the plain one", q.flag()));
                    }
                    continue;
                }
                Err(e) => e,
            };
            // Refused by the one rule: what the flag needs, then the run with it.
            let needs: Vec<_> = M::NEEDS
                .iter()
                .filter(|n| n.flags.contains(&q.key))
                .collect();
            if !needs.iter().any(|n| refusal == n.error(&q.flag())) {
                failures.push(format!(
                    "--{} {v}: refused, but not by what it needs: {refusal}",
                    q.flag()
                ));
                continue;
            }
            let mut base: Vec<(String, String)> = Vec::new();
            for n in &needs {
                if matches!(n.rule, Rule::Needs(..)) {
                    base.extend(example_pairs(n.example));
                }
            }
            base.retain(|(k, _)| *k != q.flag());
            base.extend(day.iter().cloned());
            let mut with = base.clone();
            with.push((q.flag(), v.clone()));
            // A need whose example alone is refused (`--policy step` without `--steps`)
            // compares with the plain run.
            let without = run::<M>(&base).or_else(|_| Ok::<_, String>(plain.clone()));
            match (without, run::<M>(&with)) {
                (Ok(without), Ok(shown)) if shown == without => {
                    failures.push(format!("{with:?}: the flag changes nothing"));
                }
                (Ok(_), Ok(_)) => {}
                (Err(e), _) => failures.push(format!("{base:?}: the need's example alone: {e}")),
                (_, Err(e)) => failures.push(format!("{with:?}: refused with what it needs: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{model}:\n{}", failures.join("\n"));
    // Every statement names flags of the table, and says what it needs.
    for n in M::NEEDS {
        for key in n.flags {
            assert!(M::PARAMS.iter().any(|q| q.key == *key), "{model}: {key}");
        }
        if let Rule::Needs(what, _) = n.rule {
            assert!(!what.is_empty());
        }
    }
}

#[test]
fn every_autoscale_flag_acts_or_is_refused() {
    every_flag_acts_or_is_refused::<Autoscale>("autoscale", AUTOSCALE);
}

#[test]
fn every_consumers_flag_acts_or_is_refused() {
    every_flag_acts_or_is_refused::<Consumers>("consumers", CONSUMERS);
}

#[test]
fn every_bulkhead_flag_acts_or_is_refused() {
    every_flag_acts_or_is_refused::<Bulkhead>("bulkhead", BULKHEAD);
}

/// The cases of issue #31, each with its command: one line, status 2, naming what the flag
/// needs, in every command that takes the model's flags.
#[test]
fn the_flags_that_would_be_ignored_are_one_line() {
    let file = example("demand/flash-crowd.csv");
    let formula = example("formulas/demand.formula");
    let spot = "needs spot capacity: --on-demand-percent below 100, or a --formula setting $TargetLowPriorityNodes (without it the flag would be ignored)";
    let preempts = "needs spot preemptions: --preemption-rate above 0 or --preemption-rounds, with spot capacity (without it the flag would be ignored)";
    let curve = "would be ignored with --demand-file (the file's rows are the demand)";
    let lesson_policy = "needs --policy lesson (the other policies count pending instances; without it the flag would be ignored)";
    let no_formula =
        "would be ignored with --formula (a formula replaces the policy and its cooldown)";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["--preemption-rate", "0.3"], format!("--preemption-rate: {spot}")),
        (vec!["--preemption-rounds", "60:150"], format!("--preemption-rounds: {spot}")),
        (vec!["--preemption-notice", "5"], format!("--preemption-notice: {preempts}")),
        (vec!["--on-preemption", "replace"], format!("--on-preemption: {preempts}")),
        (
            vec!["--on-demand-base", "3"],
            "--on-demand-base: needs --on-demand-percent below 100 (above the base every instance is dedicated; without it the flag would be ignored)".into(),
        ),
        (
            vec!["--warm-pool-reuse", "yes"],
            "--warm-pool-reuse: needs a --warm-pool (without it the flag would be ignored)".into(),
        ),
        (
            vec!["--demand-file", &file, "--demand-base", "100,5000", "--surge", "0,9999"],
            format!("--demand-base: {curve}"),
        ),
        (vec!["--demand-file", &file, "--surge", "0,9999"], format!("--surge: {curve}")),
        (vec!["--demand-file", &file, "--demand-period", "1"], format!("--demand-period: {curve}")),
        (
            vec!["--policy", "target-tracking", "--cooldown", "3"],
            "--cooldown: needs --policy lesson (target tracking and step scaling have no cooldown; without it the flag would be ignored)".into(),
        ),
        (
            vec!["--policy", "target-tracking", "--count-pending", "yes"],
            format!("--count-pending: {lesson_policy}"),
        ),
        (
            vec!["--policy", "step", "--steps", "..40:-1/80..:+2", "--count-pending", "yes"],
            format!("--count-pending: {lesson_policy}"),
        ),
        (
            vec!["--formula", &formula, "--policy", "target-tracking"],
            "--policy: would be ignored with --formula (a formula replaces the scaling policy)".into(),
        ),
        (vec!["--formula", &formula, "--cooldown", "3"], format!("--cooldown: {no_formula}")),
        (
            vec!["--policy", "step", "--steps", "..40:-1/80..:+2", "--cooldown", "3"],
            "--cooldown: needs --policy lesson (target tracking and step scaling have no cooldown; without it the flag would be ignored)".into(),
        ),
        (
            vec!["--formula", &formula, "--count-pending", "yes"],
            format!("--count-pending: {no_formula}"),
        ),
        (
            vec!["--evaluation-interval", "30"],
            "--evaluation-interval: needs --formula (without it the flag would be ignored)".into(),
        ),
        (
            vec!["--sample-delay", "0"],
            "--sample-delay: needs --formula (without it the flag would be ignored)".into(),
        ),
        (
            vec!["--restart-rounds", "3"],
            "--restart-rounds: needs --reclaim stop or a --warm-pool (nothing else restarts; without it the flag would be ignored)".into(),
        ),
    ];
    for (args, message) in &cases {
        for command in [
            &["autoscale"][..],
            &["trace", "autoscale"],
            &["plot", "autoscale", "-o", "-"],
        ] {
            let all: Vec<&str> = command.iter().chain(args).copied().collect();
            assert_eq!(common::one_line_error(&all), format!("error: {message}\n"));
        }
    }
    let slowdown = "needs --mode slowdown (a healthy day has no slowdown; without it the flag would be ignored)";
    for (args, message) in [
        (
            &["--retry-backoff", "3"][..],
            "--retry-backoff: needs --retries above 0 (without it the flag would be ignored)"
                .to_string(),
        ),
        (
            &["--failure-end", "2000", "--mode", "healthy"],
            format!("--failure-end: {slowdown}"),
        ),
    ] {
        for command in [
            &["bulkhead"][..],
            &["trace", "bulkhead"],
            &["plot", "bulkhead", "-o", "-"],
        ] {
            let all: Vec<&str> = command.iter().chain(args).copied().collect();
            assert_eq!(common::one_line_error(&all), format!("error: {message}\n"));
        }
    }
}

/// A grid whose lists hold what the flag needs takes it: the runs that meet the need use
/// it (`--policy lesson,target-tracking --cooldown 3`: the lesson's runs wait 3 rounds).
/// A target-tracking row has no cooldown, and says none; a plot's title neither.
#[test]
fn a_grid_that_holds_the_need_takes_the_flag_and_rows_say_what_ran() {
    let rows = |args: &[&str]| -> Vec<serde_json::Value> {
        let all: Vec<&str> = ["autoscale", "--format", "json"]
            .iter()
            .chain(args)
            .copied()
            .collect();
        common::stdout_ok(&all)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let mixed = rows(&["--policy", "lesson,target-tracking", "--cooldown", "3"]);
    let lesson = rows(&["--cooldown", "3"]);
    assert_eq!(mixed[0], lesson[0]);
    let tracking = &rows(&["--policy", "target-tracking"])[0];
    assert_eq!(tracking["cooldown"], "none");
    for (key, value) in tracking.as_object().unwrap() {
        if key != "cooldown" {
            assert_eq!(&mixed[1][key], value, "{key}");
        }
    }
    // The lesson's own rows are as they were.
    assert_eq!(rows(&[])[0]["cooldown"], 0);
    let svg = common::stdout_ok(&[
        "plot",
        "autoscale",
        "--policy",
        "target-tracking",
        "-o",
        "-",
    ]);
    assert!(!svg.contains("cooldown=0"), "a title saying cooldown=0");
    assert!(svg.contains("cooldown=none"));
}
