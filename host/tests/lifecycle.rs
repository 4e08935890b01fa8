//! The group lifecycle through the CLI's JSON: the issue's scenarios, worked out by hand
//! round by round below (expected values never come from the code under test).

mod common;

use common::{argv, assert_case, assert_row, json_rows, n, one_line_error, stdout_ok};
use serde_json::Value;

/// Runs `capsim autoscale` with `args` and returns its JSON lines.
fn autoscale(args: &[&str]) -> Vec<Value> {
    json_rows(&[&["autoscale"], args, &["--format", "json"]].concat())
}

/// Runs one combination and returns its row.
fn one(args: &[&str]) -> Value {
    let rows = autoscale(args);
    assert_eq!(rows.len(), 1, "{args:?}");
    rows.into_iter().next().unwrap()
}

/// No randomness, no permanent failures, no cooldown, a flat demand curve.
const COMMON: &str =
    "--transient-failure 0 --failure-rounds none --cooldown 0 --demand-amplitude 0";

/// The one row of the lesson's group with [`COMMON`] and `lines` (command lines, their words
/// split at spaces).
fn with(lines: &[&str]) -> Value {
    let mut args = argv(COMMON);
    for line in lines {
        args.extend(argv(line));
    }
    one(&args)
}

/// Required 6 in rounds 0–4 (600 / 100), 8 from round 5 on (800 / 100); 6 instances serve
/// from round 0; booting takes 2 rounds.
const A: &str =
    "--rounds 20 --boot-rounds 2 --demand-base 600 --surge-start 5 --surge-end 20 --surge 200";

/// Required 9 in rounds 0–4 ((100 + 800) / 100), 1 from round 5 on.
const E: &str =
    "--rounds 15 --boot-rounds 2 --demand-base 100 --surge-start 0 --surge-end 5 --surge 800";

/// Required 9 in rounds 0–9, 3 in rounds 10–19 ((900 − 600) / 100), 9 again from round 20;
/// booting takes 5 rounds; the policy counts pending instances.
const F: &str = "--rounds 30 --boot-rounds 5 --demand-base 900 --surge-start 10 --surge-end 20 --surge -600 --count-pending yes";

/// Required 6 throughout (600 / 100), 6 serving from round 0, boot 2.
const STANDBY: &str = "--rounds 10 --boot-rounds 2 --demand-base 600 --surge 0";

/// The issue's scenarios: each case's name, its command lines (added to [`COMMON`]) and the
/// row's values, worked out round by round in the comment above it.
const SCENARIOS: &[(&str, &[&str], &str)] = &[
    // t5: 6 serve < 8 → launch 2 (size 8). t6: still 6 serve → launch 2 (size 10); the
    // first pair serves from t7 (boot counts down in t5 and t6: 2 rounds). t7: 8 serve →
    // nothing. t8: 10 serve > 9 → remove 1. Peak 10, 4 launched, 3 actions, 2 rounds to serve.
    (
        "a: no hook is the lesson",
        &[A],
        "max_size=10 launched=4 scaling_actions=3 time_to_in_service_max=2 hook_timeouts=0",
    ),
    // A pair launched in round t boots in t, t+1, waits in Pending:Wait in t+2, t+3, t+4
    // (the wait starts counting the round after it is entered) and serves from t+5. The
    // policy counts serving instances only, so t5…t9 each launch 2 (size 16, launched 10).
    // t10: 8 serve → nothing. t11: 10 serve → remove 1 (9). t12, t13, t14: one more pair
    // serves each round → 11 → remove 2. Actions: 5 out + 4 in = 9. Each pair's wait times
    // out once: 5 pairs × 2 = 10 hook timeouts.
    (
        "b: a launch hook is a false demand signal",
        &[A, "--launch-hook 3"],
        "max_size=16 launched=10 scaling_actions=9 time_to_in_service_max=5 hook_timeouts=10 launch_hook=3 launch_hook_result=continue",
    ),
    // t5: 6 serve + 0 pending < 8 → launch 2. From t6 on 6 serve + 2 pending (then 8 serve)
    // = 8 → nothing more.
    (
        "c: counting pending instances ends the false signal",
        &[A, "--launch-hook 3 --count-pending yes"],
        "max_size=8 launched=2 scaling_actions=1 time_to_in_service_max=5",
    ),
    // With ABANDON every pair is released when its wait ends (end of t+4); nothing ever
    // serves beyond the first 6, so each round from t5 on launches 2 more: 15 rounds × 2.
    // Pairs launched in t5…t15 end their wait by t19: 11 pairs.
    (
        "abandoned launches are released and asked for again",
        &[A, "--launch-hook 3:abandon"],
        "launched=30 abandoned_launches=22 time_to_in_service_max=0",
    ),
    // 9 instances, the first 3 Protected. t5: 9 serve > 2 → remove 7, only the 6 InService
    // may go → 3 left, blocked. t6…t14: 3 serve > 2 → remove 1, none may go → blocked, no
    // action. Blocked in t5…t14 = 10 rounds; 1 action; the group never drops below 3.
    (
        "e: protected instances block scale-in",
        &[E, "--protected 3"],
        "min_size=3 scale_in_blocked_rounds=10 scaling_actions=1",
    ),
    // Scenario E with the protection scripted in round 0 instead of `--protected 3`.
    (
        "protecting by event is protecting from the start",
        &[E, "--events 0:protect:3"],
        "min_size=3 scale_in_blocked_rounds=10 scaling_actions=1",
    ),
    // Unprotected again in round 10: 3 serve > 2 → remove 1 → 2, and nothing blocks after
    // (blocked in t5…t9 only).
    (
        "unprotecting by event lets scale-in go on",
        &[E, "--events 0:protect:3+10:unprotect:3"],
        "min_size=2 scale_in_blocked_rounds=5 scaling_actions=2",
    ),
    // Release: t10: 9 > 3 + 1 → remove 5 (4 left; 4 is not > 4 in t11–t19). t20: 4 < 9 →
    // launch 5; their boot counts down in t20…t24 and they count as serving from the end
    // of t24 (the metrics are read after the timers), so t20–t23 end under capacity: 4.
    // The ledger's bill: each of the 5 is billed and does no work in t20, t21, t22, t23 and
    // t24 (its 5 boot rounds; it serves from t25): 25 idle instance-rounds, though t24
    // already counts them as capacity.
    (
        "f: released instances come back as fresh ones",
        &[F, "--reclaim release"],
        "launched=5 under_capacity_rounds=4 restarts_from_stopped=0 idle_billed_rounds=25",
    ),
    // Stop: t10: the 5 are stopped (still records). t20: 4 < 9 → restart the 5 Stopped ones,
    // 1 round → serving at the end of t20: never under capacity, nothing launched.
    // Stopped records are billed for storage only: 9 records for 30 rounds, 5 of them stopped
    // in t10–t19 → 270 − 50 billed. The restart takes its one round, t20: the 5 are billed
    // and do no work in it (they serve from t21): 5 idle.
    (
        "f: stopped instances come back faster than fresh ones",
        &[F, "--reclaim stop --restart-rounds 1"],
        "launched=0 restarts_from_stopped=5 under_capacity_rounds=0 billed_rounds=220 idle_billed_rounds=5",
    ),
    // Round 3: two instances enter Standby before the check → 4 serve < 6 → launch 2 (size
    // 8). t4: the pair still boots (it serves from the end of t4), 4 < 6 → launch 2 more
    // (size 10). t5: 6 serve; the second pair serves from the end of t5. t6: 8 serve > 7 →
    // remove 1 (9). Only round 3 ends under capacity. Standby is never removed and billed
    // idle: 2 × rounds 3…9 = 14; each pair is billed and does no work for its 2 boot rounds
    // (t3–t4, t4–t5): 4 + 4, so 22.
    (
        "standby takes instances out of service",
        &[STANDBY, "--events 3:standby:2"],
        "max_size=10 launched=4 scaling_actions=3 under_capacity_rounds=1 idle_billed_rounds=22 events=3:standby:2",
    ),
    // Back in round 6, before the decision: 10 serve > 7 → remove 3 (size 7); Standby was
    // billed idle in rounds 3, 4, 5: 6, plus the two booting pairs' 2 rounds each: 14.
    (
        "unstandby brings them back",
        &[STANDBY, "--events 3:standby:2+6:unstandby:2"],
        "scaling_actions=3 idle_billed_rounds=14 events=3:standby:2+6:unstandby:2",
    ),
];

#[test]
fn the_issues_scenarios_give_the_rows_worked_out_by_hand() {
    for (name, lines, want) in SCENARIOS {
        assert_case(name, &with(lines), want);
    }
}

#[test]
fn a_terminate_hook_keeps_the_victim_billed_while_it_waits() {
    // F with release and a 3-round terminate hook: the 5 victims of t10 wait in t10, t11 and
    // t12 (the wait counts the decision round) and leave in t12's timer phase. Like every
    // metric, billing is read at the end of a round: they are there, billed and idle, at
    // the end of t10 and t11: 10 idle instance-rounds more than without the hook.
    let plain = with(&[F, "--reclaim release"]);
    let hooked = with(&[F, "--reclaim release --terminate-hook 3"]);
    assert_eq!(n(&hooked, "hook_timeouts"), 5);
    assert_eq!(
        n(&hooked, "idle_billed_rounds"),
        n(&plain, "idle_billed_rounds") + 10
    );
    // While they wait they do not serve, and the policy counts only the 4 others.
    assert_eq!(n(&hooked, "scaling_actions"), n(&plain, "scaling_actions"));
}

#[test]
fn removal_policies_choose_by_age() {
    // Required 8 (800 / 100), 20 in rounds 3–5, then 8 again. Round 1 breaks the first
    // instance for good (an initial one, first in storage); a threshold of 100 never
    // replaces it in 10 rounds. t3 and t4 each launch 12 (the t3 batch serves only from t5);
    // t6: 32 serve > 9 → remove 23. `lesson` (first in storage) and `oldest` (launched in
    // round 0 first) remove the 8 initial ones, the broken one with them: it was checked in
    // t1…t6 → 6 broken rounds. `newest` removes the 12 of t4 and 11 of t3: the broken one
    // stays and is checked in t1…t9 → 9.
    let run = |policy: &str| {
        let mut args = argv(
            "--transient-failure 0 --cooldown 0 --demand-amplitude 0 --failure-rounds 1 --threshold 100 --rounds 10 --demand-base 800 --surge-start 3 --surge-end 6 --surge 1200 --removal-policy",
        );
        args.push(policy);
        one(&args)
    };
    for (policy, broken) in [("lesson", 6), ("oldest", 6), ("newest", 9)] {
        let v = run(policy);
        assert_row(&v, "max_size=32 min_size=8 scaling_actions=3");
        assert_eq!(n(&v, "broken_rounds"), broken, "{policy}");
        assert_eq!(v["removal_policy"], policy);
    }
}

/// The lesson's own settings with one provider delay swept.
fn lesson_with(flag: &str, values: &str) -> Vec<Value> {
    autoscale(&[flag, values])
}

#[test]
fn the_providers_three_delays_cost_capacity() {
    // Apply delay: a decision's instances join 4 rounds later; meanwhile the policy, which
    // counts serving instances only, asks again every round.
    let r = lesson_with("--apply-delay", "0,4");
    assert_eq!(n(&r[0], "launched"), 46); // the lesson's own figure
    assert!(n(&r[1], "launched") > n(&r[0], "launched"), "{r:?}");
    // Check latency: a broken instance's failed checks count 2 rounds late, so it serves
    // broken 2 rounds longer each time.
    let r = lesson_with("--check-latency", "0,2");
    assert!(
        n(&r[1], "broken_rounds") > n(&r[0], "broken_rounds"),
        "{r:?}"
    );
    // Stockout during the surge: launches fail, the group stays short.
    let r = lesson_with("--stockout-rounds", "none,150..190");
    assert_eq!(n(&r[0], "failed_launches"), 0);
    assert!(n(&r[1], "failed_launches") > 0, "{r:?}");
    assert!(
        n(&r[1], "under_capacity_rounds") > n(&r[0], "under_capacity_rounds"),
        "{r:?}"
    );
}

#[test]
fn defaults_are_the_lesson_and_every_flag_reaches_the_run() {
    let v = one(&[]);
    // The lesson's "esik 2, soguma 0" row: 7-24, 46 launched; its instances take 2 rounds.
    assert_row(
        &v,
        "min_size=7 max_size=24 launched=46 time_to_in_service_max=2",
    );
    assert_row(
        &v,
        "scale_in_blocked_rounds=0 restarts_from_stopped=0 failed_launches=0 hook_timeouts=0 abandoned_launches=0",
    );
    let v = one(&argv(
        "--launch-hook 2:abandon --terminate-hook 1 --count-pending yes --protected 2 --removal-policy newest --reclaim stop --restart-rounds 3 --check-latency 1 --apply-delay 2 --stockout-rounds 10..=20",
    ));
    assert_row(
        &v,
        "launch_hook=2 launch_hook_result=abandon terminate_hook=1 terminate_hook_result=continue count_pending=yes protected=2",
    );
    assert_row(
        &v,
        "removal_policy=newest reclaim=stop restart_rounds=3 check_latency=1 apply_delay=2 stockout_rounds=[10,21]",
    );
}

#[test]
fn bad_lifecycle_input_is_one_line_and_status_2() {
    for (args, flag) in [
        (&["--launch-hook", "0"][..], "--launch-hook"),
        (&["--launch-hook", "361"], "--launch-hook"),
        (&["--launch-hook", "3:maybe"], "--launch-hook"),
        (&["--terminate-hook", "x"], "--terminate-hook"),
        (&["--count-pending", "true"], "--count-pending"),
        (&["--protected", "257"], "--protected"),
        (&["--removal-policy", "random"], "--removal-policy"),
        (&["--reclaim", "hibernate"], "--reclaim"),
        (&["--check-latency", "8"], "--check-latency"),
        (&["--apply-delay", "65"], "--apply-delay"),
        (&["--stockout-rounds", "9..3"], "--stockout-rounds"),
        (&["--stockout-rounds", "5"], "--stockout-rounds"),
        (&["--events", "3:standby"], "--events"),
        (&["--events", "3:hibernate:1"], "--events"),
        (&["--events", "3:standby:0"], "--events"),
    ] {
        let err = one_line_error(&[&["autoscale"], args].concat());
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}

#[test]
fn help_explains_each_lifecycle_flag_with_its_range() {
    let help = stdout_ok(&["autoscale", "--help"]);
    // Each flag, and the range of those that take a number ("" for the others).
    for (flag, range) in [
        ("--launch-hook", "1 to 360"),
        ("--terminate-hook", "1 to 360"),
        ("--count-pending", ""),
        ("--protected", "0 to 256"),
        ("--removal-policy", ""),
        ("--reclaim", ""),
        ("--restart-rounds", ""),
        ("--check-latency", "0 to 7"),
        ("--apply-delay", "0 to 64"),
        ("--stockout-rounds", ""),
        ("--events", ""),
    ] {
        assert!(
            help.contains(flag) && help.contains(range),
            "{flag} {range}"
        );
    }
}
