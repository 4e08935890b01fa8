//! A formula driving the auto-scaling group (issue 9): targets, failed evaluations,
//! intervals, deallocation options, and properties over random runs.

use capsim_core::autoscale::{
    self, check_interval, FormulaPolicy, Params, RoundState, State, MAX_GROUP_SIZE,
};
use capsim_core::formula::{History, Program, Workspace};
use capsim_core::Observer;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Every round's snapshot, for the tests to read.
#[derive(Default)]
struct Rounds(Vec<RoundState>);

impl Observer<RoundState> for Rounds {
    fn round(&mut self, s: &RoundState) {
        self.0.push(*s);
    }
}

struct Storage {
    program: Box<Program>,
    history: Box<History>,
    ws: Box<Workspace>,
}

fn storage(src: &str) -> Storage {
    let mut program = Box::new(Program::new());
    program.parse(src).unwrap();
    Storage {
        program,
        history: Box::default(),
        ws: Box::new(Workspace::new(1)),
    }
}

/// Runs `src` on `p` every `interval` rounds; returns the metrics and every round.
fn run(src: &str, p: &Params, interval: u32) -> (autoscale::Metrics, Vec<RoundState>) {
    let mut s = storage(src);
    let mut policy =
        FormulaPolicy::new(&s.program, &mut s.history, &mut s.ws, interval, p.capacity).unwrap();
    let mut rounds = Rounds::default();
    let m = capsim_tests::run_policy(p, &mut policy, &mut rounds).unwrap();
    (m, rounds.0)
}

/// Nodes in the pool: serving, on their way, in Standby (not leaving, not Stopped).
fn nodes(s: &RoundState) -> u32 {
    s.counts.serving() + s.counts.launching() + s.counts.get(State::Standby)
}

/// Rounds `t` in `0..rounds` with `t % interval == 0`, counted one by one.
fn evaluation_rounds(rounds: u32, interval: u32) -> u32 {
    (0..rounds).filter(|t| t.is_multiple_of(interval)).count() as u32
}

#[test]
fn a_fixed_target_of_12_keeps_the_lessons_group_at_12() {
    let p = Params::default();
    let (m, rounds) = run("$TargetDedicatedNodes = 12;", &p, 15);
    // The lesson's round-0 demand is 900 + 380·sin(0) = 900: 9 instances. The evaluation
    // in round 0 raises the target to 12, so 3 launch in round 0, and the health check
    // replaces unhealthy instances in place: 12 records at the end of every round.
    assert!(rounds.iter().all(|s| s.size == 12 && nodes(s) == 12));
    assert_eq!((m.min_size, m.max_size), (12, 12));
    assert_eq!(m.launched, 3 + m.replacements);
    assert_eq!(m.scaling_actions, 1, "one scale-out, in round 0");
    // 240 rounds, evaluated in rounds 0, 15, …, 225: 16 evaluations, all successful; the
    // target changed once (9 → 12).
    assert_eq!(
        (m.evaluations, m.failed_evaluations, m.target_changes),
        (16, 0, 1)
    );
    // The three permanent failures are found and replaced like in the lesson.
    assert!(m.replacements >= 3);
}

#[test]
fn a_formula_that_always_fails_leaves_the_group_as_it_is() {
    let p = Params::default();
    // 100 % of ten minutes of samples can never be available with the one-minute delay.
    let src =
        "$TargetDedicatedNodes = max($PendingTasks.GetSample(TimeInterval_Minute * 10, 100));";
    let (m, rounds) = run(src, &p, 5);
    assert!(rounds.iter().all(|s| s.size == 9), "the initial 9 stay");
    assert_eq!(m.scaling_actions, 0);
    assert_eq!(
        (m.evaluations, m.failed_evaluations, m.target_changes),
        (48, 48, 0)
    );
}

#[test]
fn a_failed_first_evaluation_keeps_the_initial_size_for_one_interval() {
    let p = Params::default();
    // The newest available sample; none exists in round 0, so that evaluation fails.
    let src = "$TargetDedicatedNodes = max($PendingTasks.GetSample(1)) + 3;";
    let (m, rounds) = run(src, &p, 15);
    assert!(rounds[..15]
        .iter()
        .all(|s| s.size == 9 && s.launched == s.replaced));
    assert_eq!((m.evaluations, m.failed_evaluations), (16, 1));
    // Round 15 sees round 14's first sample (recorded at 14 min, available from 15 min):
    // required(14) = ceil((900 + 380·sin(2π·14/120)) / 100) = ceil(11.542…) = 12; + 3.
    let want = libm::ceil(p.demand(14) / 100.0) as u32 + 3;
    assert_eq!(want, 15);
    assert_eq!(nodes(&rounds[15]), want);
}

#[test]
fn evaluation_intervals_are_5_to_10080_rounds() {
    for ok in [5, 15, 10_080] {
        assert!(check_interval(ok).is_ok(), "{ok}");
    }
    for bad in [0, 1, 4, 10_081, u32::MAX] {
        assert!(check_interval(bad).is_err(), "{bad}");
    }
    let p = Params::default();
    for (interval, want) in [(5, 48), (10_080, 1), (240, 1), (239, 2)] {
        let (m, _) = run("$TargetDedicatedNodes = 10;", &p, interval);
        assert_eq!(m.evaluations, want, "interval {interval}");
        assert_eq!(m.evaluations, evaluation_rounds(p.rounds, interval));
    }
}

#[test]
fn scaling_to_zero_empties_the_group_and_back() {
    let p = Params::default();
    // Zero in the first 30 minutes, 5 afterwards.
    let src = "$TargetDedicatedNodes = time() < TimeInterval_Minute * 30 + \
               time(\"2026-10-01T00:00:00Z\") ? 0 : 5;";
    let (m, rounds) = run(src, &p, 5);
    assert!(rounds[..30].iter().all(|s| s.size == 0));
    assert_eq!(m.min_size, 0);
    assert!(rounds[30..].iter().all(|s| nodes(s) == 5));
    assert_eq!(m.target_changes, 2);
}

#[test]
fn deallocation_options_drain_removed_nodes() {
    let p = Params {
        transient_failure: 0.0,
        failure_rounds: autoscale::FailureRounds::new(),
        ..Params::default()
    };
    // 9 nodes, then 4 from round 5 on: 5 removed in round 5.
    for (option, drain) in [
        ("requeue", 0),
        ("terminate", 0),
        ("taskcompletion", 1),
        ("retaineddata", 2),
    ] {
        let src = format!(
            "$TargetDedicatedNodes = time() < time(\"2026-10-01T00:05:00Z\") ? 9 : 4;\n\
             $NodeDeallocationOption = {option};"
        );
        let (m, rounds) = run(&src, &p, 5);
        // A drained node stays in the group, billed, not serving, for `drain` round ends.
        for (t, s) in rounds.iter().enumerate().skip(5).take(4) {
            let draining = if t < 5 + drain { 5 } else { 0 };
            assert_eq!(
                s.counts.get(State::RemovingWait),
                draining,
                "{option} t={t}"
            );
            assert_eq!(s.size, 4 + draining, "{option} t={t}");
            assert_eq!(s.counts.serving(), 4);
        }
        // 9 nodes for 5 rounds, 4 for 235, plus the drains.
        assert_eq!(
            m.billed_rounds,
            9 * 5 + 4 * 235 + 5 * drain as u64,
            "{option}"
        );
        assert_eq!(m.hook_timeouts, 0, "a drain is no hook");
    }
}

#[test]
fn a_formula_run_draws_from_the_lesson_generator_only_for_health_checks() {
    /// Keeps a fixed number of nodes in the pool, written without the formula machinery.
    struct Fixed(u32);
    impl autoscale::ScalingPolicy for Fixed {
        fn decide(&mut self, s: &autoscale::Signal) -> i64 {
            let c = &s.counts;
            let have = c.serving() + c.launching() + c.get(State::Standby) + s.in_flight;
            i64::from(self.0) - i64::from(have)
        }
    }
    // The same group, health-checked from the same generator: rand() in the formula takes
    // its draws from the formula's own stream, so every metric agrees.
    let p = Params::default();
    let (m, _) = run("$TargetDedicatedNodes = 9 + 0 * rand(); x = rand();", &p, 5);
    let fixed = capsim_tests::run_policy(&p, &mut Fixed(9), &mut ()).unwrap();
    let formula_counts = autoscale::Metrics {
        evaluations: 0,
        failed_evaluations: 0,
        target_changes: 0,
        ..m
    };
    assert_eq!(formula_counts, fixed);
    assert_eq!((m.evaluations, m.target_changes), (48, 0));
}

#[test]
fn the_group_follows_random_targets_within_its_capacity() {
    let mut rng = Pcg64::seed_from_u64(9);
    for case in 0..60 {
        let interval = [5, 6, 7, 15, 60][rng.next_u32() as usize % 5];
        let cap = rng.next_u32() % 320; // sometimes above the 256 records
        let p = Params {
            rounds: 100 + rng.next_u32() % 200,
            boot_rounds: rng.next_u32() % 4,
            seed: 1 + rng.next_u32() % 1000,
            transient_failure: f64::from(rng.next_u32() % 20) / 100.0,
            ..Params::default()
        };
        let src = format!("$TargetDedicatedNodes = rand() * {cap};");
        let mut s = storage(&src);
        let mut policy =
            FormulaPolicy::new(&s.program, &mut s.history, &mut s.ws, interval, p.capacity)
                .unwrap();
        let mut rounds = Rounds::default();
        capsim_tests::run_policy(&p, &mut policy, &mut rounds).unwrap();
        let mut targets = Vec::new();
        for s in &rounds.0 {
            let target = s.target_dedicated;
            assert!(target < cap.max(1), "case {case}: rand() < 1, truncated");
            // Requeue removes at once and nothing delays a launch here: the pool is at its
            // target (at most the 256 records) at the end of every round.
            assert_eq!(
                nodes(s),
                target.min(MAX_GROUP_SIZE as u32),
                "case {case} round {}",
                s.round
            );
            targets.push(target);
        }
        assert_eq!(rounds.0.len() as u32, p.rounds);
        assert_eq!(policy.target(), targets.last().copied());
        assert_eq!(policy.evaluations, evaluation_rounds(p.rounds, interval));
        assert_eq!(policy.failed_evaluations, 0);
        // Between evaluations the target holds.
        for (t, w) in targets.windows(2).enumerate() {
            if !(t as u32 + 1).is_multiple_of(interval) {
                assert_eq!(w[0], w[1], "case {case} round {}", t + 1);
            }
        }
    }
}

/// Every evaluation on the record: the policy hands each one to the observer
/// (its note, `Observer::note`) in its round, before that round's state, which marks it
/// (`evaluated`, `evaluation_failed`) and carries the target; they add up to the metrics.
/// Microsoft's documented working-hours formula on the lesson's Thursday night: every
/// evaluation gives the documented results string with its own time, and the target 10.
#[test]
fn every_evaluation_is_on_the_record() {
    use capsim_core::formula::AutoScaleRun;
    #[derive(Default)]
    struct Record {
        rounds: Vec<RoundState>,
        runs: Vec<(u32, usize, String, Option<String>, bool)>,
    }
    impl Observer<RoundState> for Record {
        fn note(&mut self, run: &AutoScaleRun<'_>) {
            self.runs.push((
                run.round,
                self.rounds.len(),
                format!(
                    "{}|{}",
                    run.timestamp.map(|t| t.to_string()).unwrap_or_default(),
                    run.results
                ),
                run.error.map(|e| e.to_string()),
                run.failed,
            ));
        }

        fn round(&mut self, s: &RoundState) {
            self.rounds.push(*s);
        }
    }
    let watch = |src: &str, interval: u32| {
        let p = Params::default();
        let mut s = storage(src);
        let mut policy =
            FormulaPolicy::new(&s.program, &mut s.history, &mut s.ws, interval, p.capacity)
                .unwrap();
        let mut r = Record::default();
        let m = capsim_tests::run_policy(&p, &mut policy, &mut r).unwrap();
        capsim_tests::check_round_sums(&p, &r.rounds, &m);
        (m, r)
    };
    let documented = include_str!("../../examples/formulas/working-hours-evaluated.formula");
    let (m, r) = watch(documented, 15);
    assert_eq!(r.runs.len(), 16);
    assert_eq!(m.evaluations, 16);
    for (i, (round, seen, text, error, failed)) in r.runs.iter().enumerate() {
        let t = i as u32 * 15;
        assert_eq!((*round, *seen), (t, t as usize));
        let at = format!("2026-10-01T{:02}:{:02}:00.000Z", t / 60, t % 60);
        assert_eq!(
            text,
            &format!("{at}|$TargetDedicatedNodes=10;$NodeDeallocationOption=requeue;$curTime={at};$isWeekday=1;$isWorkingWeekdayHour=0;$workHours=0")
        );
        assert!(error.is_none() && !failed);
    }
    assert!(r.rounds.iter().all(|s| s.target_dedicated == 10));
    // cpu-busy.formula fails at round 0 (nothing sampled): on the record with its error.
    let busy = include_str!("../../examples/formulas/cpu-busy.formula");
    let (m, r) = watch(busy, 5);
    assert_eq!(r.runs.len(), 48);
    assert_eq!(m.failed_evaluations, 1);
    let (_, _, _, error, failed) = &r.runs[0];
    assert!(failed);
    assert_eq!(
        error.as_deref(),
        Some(
            "line 4, col 24: Insufficient data from data set: $CPUPercent wanted 70%, received 0%"
        )
    );
    assert!(r.rounds[0].evaluated && r.rounds[0].evaluation_failed);
    // Before any successful evaluation the target is the initial group (9 = 900 / 100).
    assert_eq!(r.rounds[0].target_dedicated, 9);
}

/// The results string of an evaluation that does not assign `$NodeDeallocationOption` shows
/// the pool's option it read, as `capsim formula eval --set $NodeDeallocationOption=…`
/// prints it: here the formula assigns `taskcompletion` in round 0 and stops before that
/// statement from 00:15 on, so later records still show `taskcompletion`, not `requeue`.
#[test]
fn a_record_shows_the_pools_deallocation_when_the_formula_leaves_it() {
    use capsim_core::formula::AutoScaleRun;
    #[derive(Default)]
    struct Results(Vec<String>);
    impl Observer<RoundState> for Results {
        fn note(&mut self, run: &AutoScaleRun<'_>) {
            self.0.push(run.results.to_string());
        }
    }
    let src = "$TargetDedicatedNodes = 9;\nx = time() >= time(\"2026-10-01T00:15:00Z\") ? stop() : 1;\n$NodeDeallocationOption = taskcompletion;";
    let p = Params {
        rounds: 31,
        ..Params::default()
    };
    let mut s = storage(src);
    let mut policy =
        FormulaPolicy::new(&s.program, &mut s.history, &mut s.ws, 15, p.capacity).unwrap();
    let mut r = Results::default();
    capsim_tests::run_policy(&p, &mut policy, &mut r).unwrap();
    assert_eq!(
        r.0,
        [
            "$TargetDedicatedNodes=9;$NodeDeallocationOption=taskcompletion;x=1",
            "$TargetDedicatedNodes=9;$NodeDeallocationOption=taskcompletion",
            "$TargetDedicatedNodes=9;$NodeDeallocationOption=taskcompletion",
        ]
    );
}

/// A timed formula (Batch's "enable autoscale with a new formula") swaps the program by
/// index and restarts the schedule at its round; an index past the list changes nothing.
#[test]
fn a_timed_formula_swaps_the_program_and_restarts_the_schedule() {
    use capsim_core::autoscale::{Timed, TimedAction};
    let twelve = storage("$TargetDedicatedNodes = 12;");
    let zero = storage("$TargetDedicatedNodes = 0;");
    static AT: [TimedAction; 2] = [
        TimedAction {
            round: 50,
            what: Timed::Formula,
            value: 1,
        },
        TimedAction {
            round: 70,
            what: Timed::Formula,
            value: 7,
        },
    ];
    let mut p = Params::default();
    p.lifecycle.at = &AT;
    let mut s = storage("$TargetDedicatedNodes = 5;");
    let programs = [&*twelve.program, &*zero.program];
    let mut policy = FormulaPolicy::new(&s.program, &mut s.history, &mut s.ws, 15, p.capacity)
        .unwrap()
        .with_programs(&programs);
    let mut rounds = Rounds::default();
    let m = capsim_tests::run_policy(&p, &mut policy, &mut rounds).unwrap();
    let rounds = rounds.0;
    // 5 from round 0; the swap to program 1 (0 nodes) at round 50 evaluates at once; the
    // action at 70 names no program (index 7 of 2) and is ignored: the schedule stays.
    for s in &rounds {
        let want = if s.round < 50 { 5 } else { 0 };
        assert_eq!(s.target_dedicated, want, "round {}", s.round);
    }
    let evaluated: Vec<u32> = rounds
        .iter()
        .filter(|s| s.evaluated)
        .map(|s| s.round)
        .collect();
    let expected: Vec<u32> = (0..50).step_by(15).chain((50..240).step_by(15)).collect();
    assert_eq!(evaluated, expected);
    assert_eq!(m.evaluations, expected.len() as u32);
    // Without programs every index is past the list: the first formula stays.
    let mut s = storage("$TargetDedicatedNodes = 5;");
    let mut policy =
        FormulaPolicy::new(&s.program, &mut s.history, &mut s.ws, 15, p.capacity).unwrap();
    let m = capsim_tests::run_policy(&p, &mut policy, &mut ()).unwrap();
    assert_eq!(m.evaluations, (0..240).step_by(15).count() as u32);
}
