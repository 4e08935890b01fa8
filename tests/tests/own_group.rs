//! Issue 19, "your own group": groups larger than a board's, and (below) the providers'
//! minimum and maximum size, demand tables and the scaling policies. Expected values come
//! from the arithmetic (a flat demand of D needs ceil(D / capacity) instances) or
//! from the lesson's own figures, never from the code under test.

use capsim_core::autoscale::MAX_GROUP_SIZE;
use capsim_core::autoscale::{self, run, run_in, Chosen, GroupStorage, LessonCheck, Params};
use capsim_core::rng::GroupLcg;
use capsim_core::{Capacity, Error};

/// A flat demand with no randomness and no permanent failure: the group is exactly
/// `ceil(demand / 100)` instances every round.
fn flat(demand: f64) -> Params<'static> {
    let mut p = Params {
        demand_base: demand,
        demand_amplitude: 0.0,
        surge: 0.0,
        transient_failure: 0.0,
        min_size_start: u32::MAX,
        ..Params::default()
    };
    p.failure_rounds.clear();
    p
}

fn run_big<const N: usize>(p: &Params) -> Result<autoscale::Metrics, Error> {
    let mut storage = Box::new(GroupStorage::<N>::with_capacity());
    let (mut policy, mut check) = (Chosen::of(p), LessonCheck::of(p));
    run_in(
        p,
        &mut *storage,
        |t| p.demand(t),
        &mut policy,
        &mut check,
        &mut GroupLcg::new(p.seed),
        &mut (),
    )
}

#[test]
fn a_group_of_thousands_runs_in_larger_storage() {
    // The run: 300,000 requests need 3,000 instances.
    let p = flat(300_000.0);
    assert_eq!(
        run(&p),
        Err(Error::CapacityExceeded {
            capacity: Capacity::GroupSize,
            limit: MAX_GROUP_SIZE as u32
        })
    );
    let m = run_big::<4096>(&p).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (3000, 3000, 0));
    // The extremes of a 4,096-record group: 4,096 fit, 4,097 are one line naming 4,096.
    let m = run_big::<4096>(&flat(409_600.0)).unwrap();
    assert_eq!(m.max_size, 4096);
    let e = run_big::<4096>(&flat(409_600.5)).unwrap_err();
    assert_eq!(e.to_string(), "group size exceeds its capacity of 4096");
}

#[test]
fn the_lesson_runs_the_same_in_any_storage() {
    let lesson = Params::default();
    let m = run_big::<4096>(&lesson).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
    assert_eq!(m.under_capacity_rounds, 10);
    for delay in [1, 3, 8] {
        let mut p = Params::default();
        p.lifecycle.apply_delay = delay;
        p.lifecycle.count_pending = true;
        assert_eq!(run(&p), run_big::<4096>(&p), "apply delay {delay}");
    }
}

#[test]
fn launches_in_flight_are_named_when_they_fill_the_group() {
    // Issue 18 §3: the lesson's policy counts serving instances only, so under a long apply
    // delay it asks again every round while its launches are in flight: with 19 instances or
    // fewer in the group, the requests in flight are what fill a board's 256 records.
    let mut p = Params::default();
    p.lifecycle.apply_delay = 48;
    let e = run(&p).unwrap_err();
    assert_eq!(
        e,
        Error::CapacityExceeded {
            capacity: Capacity::GroupWithInFlight,
            limit: 256
        }
    );
    assert_eq!(
        e.to_string(),
        "group size with the launches in flight exceeds its capacity of 256"
    );
    // A host's group holds them: the run ends, and its group never came near 256.
    let m = run_big::<16384>(&p).unwrap();
    assert!(m.max_size < 256, "{m:?}");
    // Every accepted delay, the longest included, runs in a host's group.
    p.lifecycle.apply_delay = autoscale::MAX_APPLY_DELAY;
    assert!(run_big::<16384>(&p).is_ok());
}

#[test]
fn max_instances_caps_a_group_that_wants_more() {
    // 1,500 requests need 15; a maximum of 10 keeps 10 all day, the policy clamped in every
    // round (it asks for 5 more each time), and every round under capacity.
    let mut p = flat(1500.0);
    p.lifecycle.max_instances = Some(10);
    let m = run(&p).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (10, 10, 0));
    assert_eq!((m.clamped_rounds, m.under_capacity_rounds), (240, 240));
    // A maximum at the need is no clamp at all; the maximum's extreme 0 empties the group.
    p.lifecycle.max_instances = Some(15);
    let m = run(&p).unwrap();
    assert_eq!((m.max_size, m.clamped_rounds), (15, 0));
    p.lifecycle.max_instances = Some(0);
    assert_eq!(run(&p).unwrap().max_size, 0);
}

#[test]
fn min_instances_holds_a_group_the_policy_would_shrink() {
    // 1,500 requests need 15; a minimum of 20: round 0 launches 5 (they serve from round 2),
    // and from round 2 on the policy wants down to 16 and is held at 20.
    let mut p = flat(1500.0);
    p.lifecycle.min_instances = Some(20);
    let m = run(&p).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (20, 20, 5));
    assert_eq!(m.clamped_rounds, 1 + 238);
    // Equal bounds fix the size; min above max is one error naming both.
    p.lifecycle.max_instances = Some(20);
    assert_eq!(run(&p).unwrap().max_size, 20);
    p.lifecycle.max_instances = Some(19);
    assert_eq!(
        run(&p).unwrap_err().to_string(),
        "--min-instances: accepted values are integers not above --max-instances"
    );
}

#[test]
fn a_health_check_removal_is_not_bounded_by_the_minimum() {
    // 10 instances, minimum 10; the first breaks in round 5, fails its check at once
    // (threshold 1), and in round 5 no capacity exists: its replacement fails and it
    // leaves (9 instances); the restoring launch of the same round fails too; round 6
    // launches one, and round 7, its boot not over, another (the lesson's policy counts
    // serving instances only): 11, which the policy keeps (required + 1).
    let mut p = flat(1000.0);
    p.threshold = 1;
    p.failure_rounds.push(5).unwrap();
    p.lifecycle.min_instances = Some(10);
    p.lifecycle.stockout = Some(autoscale::Stockout { start: 5, end: 6 });
    let m = run(&p).unwrap();
    assert_eq!((m.min_size, m.max_size), (9, 11));
    assert_eq!((m.failed_launches, m.launched), (2, 2));
}

#[test]
fn a_table_of_the_lessons_curve_is_the_lesson() {
    use autoscale::{Curve, Demand, Table};
    let p = Params::default();
    let table: Vec<f64> = (0..p.rounds).map(|t| p.demand(t)).collect();
    let t = Table(&table);
    t.check(&p).unwrap();
    let (mut policy, mut check) = (Chosen::of(&p), LessonCheck::of(&p));
    let mut rng = GroupLcg::new(p.seed);
    let m = run_in(
        &p,
        &mut GroupStorage::new(),
        t,
        &mut policy,
        &mut check,
        &mut rng,
        &mut (),
    )
    .unwrap();
    // The lesson's figures (its README and `grup.mjs`).
    assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
    assert_eq!(m.under_capacity_rounds, 10);
    assert_eq!(Curve(&p).at(17).to_bits(), p.demand(17).to_bits());
    // A table shorter than the run, or with a value that is no number, is refused.
    let short = Table(&table[..239]);
    assert_eq!(
        short.check(&p).unwrap_err().to_string(),
        "--rounds: accepted values are integers from 1 to 239"
    );
    let nan = [f64::NAN; 240];
    assert!(Table(&nan).check(&p).is_err());
    // A table read in a host's storage gives the same run.
    let mut storage = Box::new(GroupStorage::<4096>::with_capacity());
    let (mut policy, mut check) = (Chosen::of(&p), LessonCheck::of(&p));
    let mut rng = GroupLcg::new(p.seed);
    let big = run_in(
        &p,
        &mut *storage,
        t,
        &mut policy,
        &mut check,
        &mut rng,
        &mut (),
    )
    .unwrap();
    assert_eq!(big, m);
}

fn with_policy(mut p: Params, policy: autoscale::Policy) -> Params {
    p.lifecycle.policy = policy;
    p
}

/// Bands `(low, high, adjustment)`, bounds in percent; `None` is an open end.
fn steps(bands: &[(Option<u32>, Option<u32>, autoscale::Adjustment)]) -> autoscale::Policy {
    let mut s = autoscale::Steps::new();
    let unit = autoscale::STEP_BOUND_UNIT;
    for &(low, high, adjustment) in bands {
        s.push(autoscale::Step {
            low: low.map_or(0, |b| b * unit),
            high: high.map_or(autoscale::OPEN, |b| b * unit),
            adjustment,
        })
        .unwrap();
    }
    autoscale::Policy::Step(s)
}

#[test]
fn target_tracking_keeps_the_target_and_scales_in_slowly() {
    use autoscale::Policy::TargetTracking;
    let tt = |target, disable_scale_in| TargetTracking {
        target,
        disable_scale_in,
    };
    // 1,000 requests at 50 % of 100 each: ceil(1000 / 50) = 20 instances, from round 2 (the
    // scale-out alarm's third one-minute data point; rounds 0 and 1 keep the first 10).
    let m = run(&with_policy(flat(1000.0), tt(50, false))).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (10, 20, 10));
    // At 100 % the group is the need; at 1 % a hundred times it.
    let m = run(&with_policy(flat(1000.0), tt(100, false))).unwrap();
    assert_eq!((m.max_size, m.launched), (10, 0));
    let m = run_big::<4096>(&with_policy(flat(1000.0), tt(1, false))).unwrap();
    assert_eq!(m.max_size, 1000);
    // A surge of 1,000 more in rounds 10..20: out to 40 in round 12, the third round
    // wanting 40; in only after 15 rounds wanting 20 (rounds 20..=34), so 10 in rounds 0
    // and 1, 20 in 2..=11, 40 in 12..=33, 20 from 34.
    let mut p = with_policy(flat(1000.0), tt(50, false));
    (p.surge, p.surge_start, p.surge_end) = (1000.0, 10, 20);
    let m = run(&p).unwrap();
    assert_eq!((m.min_size, m.max_size), (10, 40));
    assert_eq!(m.billed_rounds, 2 * 10 + 10 * 20 + 22 * 40 + 206 * 20);
    // Scale-in disabled: 40 from round 12 to the end.
    p.lifecycle.policy = tt(50, true);
    assert_eq!(run(&p).unwrap().billed_rounds, 2 * 10 + 10 * 20 + 228 * 40);
    // The lesson day at 50 % keeps about twice the instances the lesson's policy keeps.
    let lesson = run(&Params::default()).unwrap();
    let m = run(&with_policy(Params::default(), tt(50, false))).unwrap();
    let ratio = m.billed_rounds as f64 / lesson.billed_rounds as f64;
    assert!((1.7..2.3).contains(&ratio), "{ratio}");
    // Short only in rounds 1 and 2: the demand needs 10 from round 1, the alarm's third
    // data point is round 2, and its launches serve from round 3 (a boot of 2).
    assert_eq!(m.under_capacity_rounds, 2);
}

#[test]
fn step_scaling_applies_the_band_of_the_utilisation() {
    use autoscale::Adjustment::{Change, Exact, Percent};
    // 1,000 requests on 10 instances: 100 %. Bands up to 50 %: -1; from 80 %: +2. Every
    // round, no cooldown; scaling out, the instances warming up are not current capacity
    // but stay asked for (AWS: breaches in one step's range are one scaling activity).
    // Round 0: 10 serve, desired 10 + 2 = 12 (+2); round 1: the 2 still boot, 10 serve,
    // desired 12 again: nothing; round 2: 12 serve (83 %), 14 (+2); round 3: 12 serve,
    // desired 14: nothing; round 4: 14 serve (71 %), no band: 14 for the rest of the day.
    let two = steps(&[(None, Some(50), Change(-1)), (Some(80), None, Change(2))]);
    let m = run(&with_policy(flat(1000.0), two.clone())).unwrap();
    assert_eq!((m.max_size, m.launched, m.scaling_actions), (14, 4, 2));
    // A cooldown is the lesson's policy's: step scaling has none, so it changes nothing.
    let mut p = with_policy(flat(1000.0), two);
    p.cooldown = 3;
    assert_eq!(run(&p).unwrap(), m);
    // Exact capacity: 25 at once, then nothing to change.
    let m = run(&with_policy(
        flat(1000.0),
        steps(&[(None, None, Exact(25))]),
    ))
    .unwrap();
    assert_eq!((m.max_size, m.launched, m.scaling_actions), (25, 15, 1));
    // A percent change under 1 instance is 1 (AWS): +5 % of 10 adds 1 a round, up to a max.
    let mut p = with_policy(flat(1000.0), steps(&[(None, None, Percent(5))]));
    p.lifecycle.max_instances = Some(30);
    let m = run(&p).unwrap();
    assert_eq!(m.max_size, 30);
    // Scale-in by a band: 1,000 requests in round 0 (10 instances, 100 %: no band), then
    // 100: 10 % on 10, -1 a round while k instances run at or below 50 % (a scale-in band's
    // upper bound is inclusive: 100 / k <= 50 for k >= 2), so down to 1 in 9 actions.
    let mut p = with_policy(flat(100.0), steps(&[(None, Some(50), Change(-1))]));
    (p.surge, p.surge_start, p.surge_end) = (900.0, 0, 1);
    let m = run(&p).unwrap();
    assert_eq!((m.min_size, m.max_size, m.scaling_actions), (1, 10, 9));
    // A bound may be a decimal: up to 33.4 % the group keeps 3 (33.3 %), up to 33.3 it
    // goes on to 2 and then holds (50 %).
    let unit = autoscale::STEP_BOUND_UNIT;
    for (high, smallest) in [(33_400, 2), (33_300, 3)] {
        let mut s = autoscale::Steps::new();
        s.push(autoscale::Step {
            low: 0,
            high,
            adjustment: Change(-1),
        })
        .unwrap();
        let mut p = with_policy(flat(100.0), autoscale::Policy::Step(s));
        (p.surge, p.surge_start, p.surge_end) = (900.0, 0, 1);
        assert_eq!(run(&p).unwrap().min_size, smallest, "{}", high / unit);
    }
}

#[test]
fn percent_changes_round_as_aws_documents() {
    use autoscale::{Adjustment::Percent, ScalingPolicy, Signal, StateCounts, StepPolicy};
    let decide = |serving: u32, percent: i16| {
        let Policy::Step(s) = steps(&[(None, None, Percent(percent))]) else {
            unreachable!()
        };
        let mut counts = StateCounts::default();
        counts.0[autoscale::State::InService as usize] = serving;
        let signal = Signal {
            round: 0,
            demand: 100.0,
            required: 1,
            counts,
            in_flight: 0,
            capacity: 256,
            spot: None,
        };
        StepPolicy::new(&s, 100.0).decide(&signal)
    };
    use autoscale::Policy;
    // 10 × 5 % = 0.5: 1; 10 × 15 % = 1.5: 1; 30 × 10 % = 3; negative alike towards 0, -1.
    assert_eq!(decide(10, 5), 1);
    assert_eq!(decide(10, 15), 1);
    assert_eq!(decide(30, 10), 3);
    assert_eq!(decide(10, -5), -1);
    assert_eq!(decide(10, -15), -1);
    assert_eq!(decide(30, -10), -3);
}

/// AWS's own example of step scaling with instance warm-up ("Step and simple scaling
/// policies", instance warmup): a group of 10, bands adding 10 % from 60 % and 30 % from 70
/// %. At 60 % one instance is added (10 % of 10); at 62 %, while it warms up, the current
/// capacity is still 10 and the desired 11, so nothing more; at 70 % the step asks for 30 %
/// of 10, 3, and the desired capacity of 11 grows by 2, to 13.
#[test]
fn step_scaling_counts_warming_instances_as_aws_documents() {
    use autoscale::{Adjustment::Percent, ScalingPolicy, Signal, StateCounts, StepPolicy};
    let Policy::Step(s) = steps(&[
        (Some(60), Some(70), Percent(10)),
        (Some(70), None, Percent(30)),
    ]) else {
        unreachable!()
    };
    let decide = |utilisation: f64, warming: u32| {
        let mut counts = StateCounts::default();
        counts.0[autoscale::State::InService as usize] = 10;
        counts.0[autoscale::State::Pending as usize] = warming;
        let signal = Signal {
            round: 0,
            demand: utilisation * 10.0,
            required: 1,
            counts,
            in_flight: 0,
            capacity: 256,
            spot: None,
        };
        StepPolicy::new(&s, 100.0).decide(&signal)
    };
    use autoscale::Policy;
    assert_eq!(decide(60.0, 0), 1);
    assert_eq!(decide(62.0, 1), 0);
    assert_eq!(decide(70.0, 1), 2);
}

#[test]
fn the_health_check_runs_every_check_interval_rounds() {
    // One instance breaks in round 3; threshold 1. Checked every round it is replaced in
    // round 3 (1 broken round); every 5 rounds in round 5 (rounds 3, 4, 5); every 10 in
    // round 10 (8 rounds).
    for (interval, broken) in [(1, 1), (5, 3), (10, 8)] {
        let mut p = flat(1000.0);
        p.threshold = 1;
        p.failure_rounds.push(3).unwrap();
        p.lifecycle.check_interval = interval;
        let m = run(&p).unwrap();
        assert_eq!((m.broken_rounds, m.replacements), (broken, 1), "{interval}");
    }
    // The extremes of the range: 1 and 10,080 run, 0 and 10,081 are refused.
    let mut p = Params::default();
    p.lifecycle.check_interval = autoscale::MAX_CHECK_INTERVAL;
    let m = run(&p).unwrap();
    // Only round 0 is checked: no transient failure can replace anything later.
    assert!(m.replacements <= 9, "{m:?}");
    for bad in [0, autoscale::MAX_CHECK_INTERVAL + 1] {
        p.lifecycle.check_interval = bad;
        assert_eq!(
            run(&p).unwrap_err().to_string(),
            "--check-interval: accepted values are integers from 1 to 10080"
        );
    }
}

#[test]
fn each_new_option_leaves_the_fast_path_and_changes_the_run() {
    use autoscale::Adjustment::Change;
    use autoscale::Policy::TargetTracking;
    let lesson = run(&Params::default()).unwrap();
    let mut cases: Vec<(&str, Params)> = Vec::new();
    let mut set = |name, f: &dyn Fn(&mut autoscale::Lifecycle)| {
        let mut p = Params::default();
        f(&mut p.lifecycle);
        cases.push((name, p));
    };
    set("min_instances", &|l| l.min_instances = Some(10));
    set("max_instances", &|l| l.max_instances = Some(18));
    set("check_interval", &|l| l.check_interval = 3);
    set("target_tracking", &|l| {
        l.policy = TargetTracking {
            target: 50,
            disable_scale_in: false,
        }
    });
    set("disable_scale_in", &|l| {
        l.policy = TargetTracking {
            target: 100,
            disable_scale_in: true,
        }
    });
    set("steps", &|l| {
        l.policy = steps(&[(None, Some(60), Change(-1)), (Some(90), None, Change(2))])
    });
    // Issue 22's scenario options: each leaves the fast path too.
    static LAUNCH: [autoscale::LifecycleHook; 1] = [autoscale::LifecycleHook {
        provider: autoscale::Provider::Alibaba,
        default_result: autoscale::HookResult::Continue,
        timeout: 10,
        action_rounds: 3,
        heartbeat_every: 0,
    }];
    static TERMINATE: [autoscale::LifecycleHook; 1] = [autoscale::LifecycleHook {
        provider: autoscale::Provider::Alibaba,
        default_result: autoscale::HookResult::Rollback,
        timeout: 4,
        action_rounds: 0,
        heartbeat_every: 0,
    }];
    static AT: [autoscale::TimedAction; 1] = [autoscale::TimedAction {
        round: 100,
        what: autoscale::Timed::MaxInstances,
        value: 12,
    }];
    set("launch_hooks", &|l| l.launch_hooks = &LAUNCH);
    set("terminate_hooks", &|l| l.terminate_hooks = &TERMINATE);
    set("at", &|l| l.at = &AT);
    set("task_rounds", &|l| l.task_rounds = Some(10));
    set("oldest_template", &|l| {
        l.removal_policy = autoscale::RemovalPolicy::OldestTemplate;
        l.at = &AT;
    });
    for (name, p) in &cases {
        // Unobserved (`run`) equals observed (always the reference engine): the fast path did
        // not compute it as the lesson.
        let mut tape = capsim_tests::GroupTape::default();
        let general = autoscale::run_with(p, &mut GroupLcg::new(p.seed), &mut tape).unwrap();
        assert_eq!(run(p).unwrap(), general, "{name}");
        assert_ne!(general, lesson, "{name} changed nothing");
        capsim_tests::check_lifecycle_run(p, &tape.0, &general);
    }
}
