//! Issue 21: the spot class (Azure Batch low-priority nodes, AWS Spot), its preemption, and
//! the price of Stopped instances. Expected values come from the figures, the
//! providers' definitions (Batch: `$CurrentLowPriorityNodes` includes preempted nodes;
//! AWS: `OnDemandBaseCapacity`, `OnDemandPercentageAboveBaseCapacity`), or an independent
//! count over the rounds, never from the code under test.

use capsim_core::autoscale::{
    self, run, FormulaPolicy, Hook, HookResult, OnPreemption, Params, RoundState, Spot, State,
    Timed, TimedAction, WarmPool, WarmState,
};
use capsim_core::formula::{History, Program, Workspace};
use capsim_core::rng::GroupLcg;
use capsim_tests::GroupTape;

fn example(name: &str) -> String {
    let path = format!("{}/../examples/formulas/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// Runs formula `src` (every 15 rounds, Batch's default) on `p`; returns the metrics and
/// every round.
fn formula(src: &str, p: &Params) -> (autoscale::Metrics, Vec<RoundState>) {
    let mut program = Box::new(Program::new());
    program.parse(src).unwrap();
    let mut history: Box<History> = Box::default();
    let mut ws = Box::new(Workspace::new(1));
    let mut policy = FormulaPolicy::new(&program, &mut history, &mut ws, 15, p.capacity).unwrap();
    let mut tape = GroupTape::default();
    let m = capsim_tests::run_policy(p, &mut policy, &mut tape).unwrap();
    (m, tape.0)
}

fn with_spot(spot: Spot) -> Params<'static> {
    let mut p = Params::default();
    p.lifecycle.spot = spot;
    p
}

fn rate(r: f64) -> Spot {
    Spot {
        preemption_rate: Some(r),
        ..Spot::default()
    }
}

/// Rounds with fewer serving instances than required, counted from the rounds.
fn short(tape: &[RoundState]) -> u32 {
    tape.iter()
        .filter(|s| i64::from(s.counts.serving()) < s.required)
        .count() as u32
}

#[test]
fn stopped_rounds_are_the_rounds_sum_of_stopped_instances() {
    let mut p = Params::default();
    p.lifecycle.reclaim = autoscale::Reclaim::Stop;
    let mut tape = GroupTape::default();
    let m = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut tape).unwrap();
    let stopped: u64 = tape
        .0
        .iter()
        .map(|s| u64::from(s.counts.get(State::Stopped)))
        .sum();
    assert_eq!(m.stopped_rounds, stopped);
    // The figure for the lesson day in economical mode.
    assert_eq!(m.stopped_rounds, 1433);
    // Unobserved (the fast path refuses economical mode): the same.
    assert_eq!(run(&p).unwrap(), m);
    // Release mode stops nothing.
    assert_eq!(run(&Params::default()).unwrap().stopped_rounds, 0);
}

#[test]
fn the_preempted_nodes_formula_gets_its_low_priority_nodes() {
    let src = example("preempted-nodes.formula");
    // Without the class the 25 low-priority nodes never arrive: the 225 of 240.
    let (off, _) = formula(&src, &Params::default());
    assert_eq!(off.under_capacity_rounds, 225);
    // With it (no preemption) they do: at most 5 rounds short (the bound).
    let (m, tape) = formula(&src, &with_spot(rate(0.0)));
    assert!(m.under_capacity_rounds <= 5, "{}", m.under_capacity_rounds);
    assert_eq!(m.under_capacity_rounds, short(&tape));
    // No preemption: $PreemptedNodeCount stays 0, so the formula's targets are 0 dedicated
    // and 25 low-priority from its first successful evaluation (round 15) on; once the
    // boots are over (2 rounds) the pool is 25 spot nodes, all serving.
    // (The health check still replaces a spot node now and then: in place, as spot.)
    for s in &tape[20..] {
        assert_eq!((s.spot, s.size), (25, 25), "round {}", s.round);
        assert_eq!(s.counts.get(State::Preempted), 0);
    }
    // Before it, the initial dedicated group only.
    assert!(tape[..15].iter().all(|s| s.spot == 0));
}

#[test]
fn preemption_at_a_rate_costs_rounds_and_the_formula_answers() {
    let src = example("preempted-nodes.formula");
    let (calm, _) = formula(&src, &with_spot(rate(0.0)));
    let (m, tape) = formula(&src, &with_spot(rate(0.02)));
    let struck: u32 = tape.iter().map(|s| s.preempted).sum();
    assert!(struck > 0);
    // Batch's default: a preempted node stays in the pool as Preempted, counted with the
    // spot nodes ($CurrentLowPriorityNodes includes it), not serving, not billed.
    assert!(tape.iter().any(|s| s.counts.get(State::Preempted) > 0));
    for s in &tape {
        assert!(
            s.counts.get(State::Preempted) <= s.spot,
            "round {}",
            s.round
        );
    }
    assert!(m.under_capacity_rounds >= calm.under_capacity_rounds);
    assert_eq!(m.under_capacity_rounds, short(&tape));
    // The preemption stream is not the health check's: with the same seed, a rate of 1 in
    // a class that never holds a spot instance changes nothing (no draw is made).
    let mut only_dedicated = Params::default();
    only_dedicated.lifecycle.spot = Spot {
        preemption_rate: Some(1.0),
        on_demand_percent: Some(100),
        ..Spot::default()
    };
    assert_eq!(
        run(&only_dedicated).unwrap(),
        run(&Params::default()).unwrap()
    );
}

#[test]
fn scripted_preemption_takes_every_running_spot_instance_after_its_notice() {
    let src = example("preempted-nodes.formula");
    let mut spot = Spot {
        preemption_rounds: [100].into_iter().collect(),
        ..Spot::default()
    };
    let (_, tape) = formula(&src, &with_spot(spot.clone()));
    // By round 99 the pool is its 25 spot nodes, all serving; round 100 strikes every one
    // at once (no notice).
    assert_eq!((tape[99].spot, tape[99].size), (25, 25));
    assert_eq!(tape[100].preempted, tape[99].counts.serving());
    assert_eq!(tape[100].counts.get(State::Preempted), tape[100].preempted);
    assert!(tape[100].preempted > 0);
    // Capacity returns in round 101 (not listed): every preempted node boots again.
    assert_eq!(tape[101].counts.get(State::Preempted), 0);
    assert!(tape
        .iter()
        .filter(|s| s.round != 100)
        .all(|s| s.preempted == 0));
    // With AWS's two minutes of notice they serve two more rounds and go in round 102.
    spot.preemption_notice = 2;
    let (_, noticed) = formula(&src, &with_spot(spot.clone()));
    // (A node the health check replaces meanwhile is a fresh launch: not struck.)
    assert_eq!(noticed[100].preempted, 0);
    assert_eq!(noticed[101].preempted, 0);
    let replaced = noticed[100].replaced + noticed[101].replaced;
    assert!(noticed[102].preempted <= tape[100].preempted);
    assert!(noticed[102].preempted + replaced >= tape[100].preempted);
    assert_eq!(tape[100].counts.serving(), 0);
    assert!(noticed[101].counts.serving() + replaced >= tape[99].counts.serving());
    // AWS's way: a replacement launches at the notice and the struck ones leave (here the
    // formula's steering scales the surplus in first: the struck ones are the oldest), so
    // with a notice of the boot time (2 rounds) the pool never serves fewer than it needs.
    spot.on_preemption = OnPreemption::Replace;
    let (_, aws) = formula(&src, &with_spot(spot));
    assert!(aws[100].launched >= tape[100].preempted);
    assert!(aws[104..].iter().all(|s| s.size == 25));
    assert!(aws.iter().all(|s| s.counts.get(State::Preempted) == 0));
    for s in &aws[100..110] {
        assert!(
            i64::from(s.counts.serving()) >= s.required,
            "round {}",
            s.round
        );
    }
}

#[test]
fn the_mixed_instances_rule_splits_the_threshold_policys_launches() {
    // All above a base of 0 is spot at 0 % On-Demand: the initial 9 are spot too, and so is
    // every launch (replacements keep their class).
    let all_spot = with_spot(Spot {
        on_demand_percent: Some(0),
        ..Spot::default()
    });
    let mut tape = GroupTape::default();
    autoscale::run_with(&all_spot, &mut GroupLcg::new(all_spot.seed), &mut tape).unwrap();
    assert!(tape.0.iter().all(|s| s.spot == s.size));
    // A base of 4 and 50 % above it: of a group of n, 4 + ceil((n − 4) / 2) are dedicated
    // whenever no launch is on its way (scale-out splits its launches so, scale-in its
    // removals); the lesson's first group of 9 is 4 + 3 dedicated and 2 spot.
    let half = with_spot(Spot {
        on_demand_base: Some(4),
        on_demand_percent: Some(50),
        ..Spot::default()
    });
    let mut tape = GroupTape::default();
    autoscale::run_with(&half, &mut GroupLcg::new(half.seed), &mut tape).unwrap();
    assert_eq!((tape.0[0].size, tape.0[0].spot), (9, 2));
    let steady = tape
        .0
        .iter()
        .filter(|s| s.counts.launching() == 0 && s.removed == 0);
    let mut checked = 0;
    for s in steady {
        let n = s.size;
        let dedicated = 4.min(n) + (n.saturating_sub(4)).div_ceil(2);
        assert_eq!(s.size - s.spot, dedicated, "round {}", s.round);
        checked += 1;
    }
    assert!(checked > 100);
    // 100 % On-Demand above any base is today's group: same run, bit for bit.
    let all_dedicated = with_spot(Spot {
        on_demand_base: Some(4),
        on_demand_percent: Some(100),
        ..Spot::default()
    });
    assert_eq!(
        run(&all_dedicated).unwrap(),
        run(&Params::default()).unwrap()
    );
    // A base of 30 (more than the lesson ever needs) at 0 %: every instance dedicated too.
    let base = with_spot(Spot {
        on_demand_base: Some(30),
        on_demand_percent: Some(0),
        ..Spot::default()
    });
    assert_eq!(run(&base).unwrap(), run(&Params::default()).unwrap());
}

#[test]
fn spot_options_leave_the_fast_path() {
    let lesson = run(&Params::default()).unwrap();
    let cases = [
        ("preemption_rate", rate(0.3)),
        (
            "on_demand_percent",
            Spot {
                on_demand_percent: Some(50),
                ..Spot::default()
            },
        ),
        (
            "preemption_rounds with on_demand_percent",
            Spot {
                on_demand_percent: Some(0),
                preemption_rounds: [60, 61].into_iter().collect(),
                preemption_notice: 1,
                on_preemption: OnPreemption::Replace,
                ..Spot::default()
            },
        ),
    ];
    let mut runs: Vec<(&str, Params)> = cases
        .into_iter()
        .map(|(name, spot)| {
            let mut p = with_spot(spot);
            if name == "preemption_rate" {
                // A spot class the threshold policy fills.
                p.lifecycle.spot.on_demand_percent = Some(0);
            }
            (name, p)
        })
        .collect();
    runs.push(("warm_pool", with_warm_pool(6, WarmState::Stopped, false)));
    runs.push((
        "warm_pool running",
        with_warm_pool(3, WarmState::Running, true),
    ));
    for (name, p) in runs {
        // Unobserved (`run`, which would take the fast path) equals observed (the general
        // path): the fast path did not compute it as the lesson.
        let mut tape = GroupTape::default();
        let general = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut tape).unwrap();
        assert_eq!(run(&p).unwrap(), general, "{name}");
        assert_ne!(general, lesson, "{name} changed nothing");
        capsim_tests::check_lifecycle_run(&p, &tape.0, &general);
    }
}

#[test]
fn spot_options_are_checked_at_their_extremes() {
    let bad = |spot: Spot, param: &str| {
        let e = run(&with_spot(spot)).unwrap_err();
        assert!(e.to_string().contains(param), "{e}");
    };
    bad(rate(1.000_000_1), "preemption-rate");
    bad(rate(-0.0001), "preemption-rate");
    bad(rate(f64::NAN), "preemption-rate");
    bad(
        Spot {
            preemption_notice: autoscale::MAX_PREEMPTION_NOTICE + 1,
            ..rate(0.1)
        },
        "preemption-notice",
    );
    bad(
        Spot {
            on_demand_percent: Some(101),
            ..Spot::default()
        },
        "on-demand-percent",
    );
    // The accepted extremes run: rate 0 and 1, the longest notice, 0 and 100 %.
    for spot in [
        rate(0.0),
        Spot {
            on_demand_percent: Some(0),
            preemption_notice: autoscale::MAX_PREEMPTION_NOTICE,
            ..rate(1.0)
        },
        Spot {
            on_demand_base: Some(u32::MAX),
            on_demand_percent: Some(100),
            ..Spot::default()
        },
    ] {
        let p = with_spot(spot);
        let mut tape = GroupTape::default();
        let m = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut tape).unwrap();
        capsim_tests::check_lifecycle_run(&p, &tape.0, &m);
    }
    // Rate 1 on an all-spot group: capacity never returns, so every node struck stays
    // Preempted to the end (the threshold policy's scale-in takes InService ones only).
    // (20 rounds: the group's records fill up with Preempted nodes.)
    let mut p = with_spot(Spot {
        on_demand_percent: Some(0),
        ..rate(1.0)
    });
    p.rounds = 20;
    let mut tape = GroupTape::default();
    autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut tape).unwrap();
    let mut struck = 0;
    for s in &tape.0 {
        struck += s.preempted;
        assert_eq!(s.counts.get(State::Preempted), struck, "round {}", s.round);
    }
    assert!(struck > 0);
}

fn with_warm_pool(size: u32, state: WarmState, reuse: bool) -> Params<'static> {
    let mut p = Params::default();
    p.lifecycle.warm_pool = WarmPool { size, state, reuse };
    p
}

#[test]
fn a_warm_pool_shortens_the_lessons_shortfalls() {
    let lesson = run(&Params::default()).unwrap();
    // The lesson's day: 10 rounds short (its boots take 2 rounds).
    assert_eq!(lesson.under_capacity_rounds, 10);
    // Six warm instances start in 1 round (`restart_rounds`, as a Stopped one).
    let p = with_warm_pool(6, WarmState::Stopped, false);
    let mut tape = GroupTape::default();
    let m = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut tape).unwrap();
    assert!(m.under_capacity_rounds < 10, "{}", m.under_capacity_rounds);
    assert_eq!(m.under_capacity_rounds, short(&tape.0));
    capsim_tests::check_round_sums(&p, &tape.0, &m);
    // The pool is 6 at round 0 and refills to 6: warm or booting, never more.
    assert_eq!(tape.0[0].warm + tape.0[0].restarted, 6);
    assert!(tape.0.iter().all(|s| s.warm <= 6));
    // A Stopped pool bills only the refills booting; a Running one its warm ones too.
    assert!(tape.0.iter().all(|s| s.warm_billed <= s.warm));
    let running = with_warm_pool(6, WarmState::Running, false);
    let mut rtape = GroupTape::default();
    let r = autoscale::run_with(&running, &mut GroupLcg::new(p.seed), &mut rtape).unwrap();
    assert!(rtape.0.iter().all(|s| s.warm_billed == s.warm));
    assert!(r.billed_rounds > m.billed_rounds);
    // Size 0 is no pool: the lesson, bit for bit, in every pool state.
    for (state, reuse) in [(WarmState::Stopped, false), (WarmState::Running, true)] {
        assert_eq!(run(&with_warm_pool(0, state, reuse)).unwrap(), lesson);
    }
}

/// Scripted decisions: +6 in round 10, −6 in round 11, +6 in round 12.
struct UpDownUp;

impl autoscale::ScalingPolicy for UpDownUp {
    fn decide(&mut self, s: &autoscale::Signal) -> i64 {
        match s.round {
            10 | 12 => 6,
            11 => -6,
            _ => 0,
        }
    }
}

#[test]
fn reuse_returns_scaled_in_instances_to_the_pool() {
    let scripted = |reuse: bool| {
        let mut p = with_warm_pool(6, WarmState::Stopped, reuse);
        p.boot_rounds = 5;
        p.transient_failure = 0.0;
        p.failure_rounds.clear();
        let mut tape = GroupTape::default();
        // No transient failures: the lesson's check never fails a healthy instance.
        let m = capsim_tests::run_policy(&p, &mut UpDownUp, &mut tape).unwrap();
        capsim_tests::check_lifecycle_run(&p, &tape.0, &m);
        tape.0
    };
    let (plain, reused) = (scripted(false), scripted(true));
    for t in [&plain, &reused] {
        // Round 10 takes the six warm ones (warm starts), and the pool launches six refills.
        assert_eq!((t[10].restarted, t[10].launched), (6, 6));
        assert_eq!((t[10].warm, t[10].warm_billed), (6, 6));
        assert_eq!(t[11].removed, 6);
    }
    // Without reuse the six removed are released and the refills still boot (5 rounds), so
    // round 12's six are cold launches; with reuse they are warm again at once (the
    // refills no longer needed are released), and round 12 starts them warm.
    assert_eq!((plain[11].warm, plain[11].warm_billed), (6, 6));
    assert_eq!((reused[11].warm, reused[11].warm_billed), (6, 0));
    assert_eq!((plain[12].restarted, plain[12].launched), (0, 6));
    assert_eq!((reused[12].restarted, reused[12].launched), (6, 6));
}

#[test]
fn a_warm_pool_and_the_spot_class_exclude_each_other() {
    let mut p = with_warm_pool(1, WarmState::Stopped, false);
    p.lifecycle.spot = rate(0.0);
    let e = run(&p).unwrap_err().to_string();
    assert!(e.contains("warm-pool") && e.contains("Spot"), "{e}");
    p.lifecycle.warm_pool.size = autoscale::MAX_WARM_POOL + 1;
    p.lifecycle.spot = Spot::default();
    assert!(run(&p).unwrap_err().to_string().contains("warm-pool"));
    p.lifecycle.warm_pool.size = autoscale::MAX_WARM_POOL;
    assert!(run(&p).is_ok());
}

/// A demand of -inf (a surge of -f64::MAX) saturates the policy's change at i64::MIN; the
/// mixed-instances split takes it (it overflowed once: a fuzz input). With the split at 100 %
/// on-demand above a base of 0 every instance is dedicated: each round is the plain group's.
#[test]
fn a_scale_in_of_i64_min_splits_by_class() {
    let mut plain = Params {
        surge: -f64::MAX,
        ..Params::default()
    };
    plain.lifecycle.task_rounds = Some(1);
    let mixed = {
        let mut p = plain.clone();
        p.lifecycle.spot.on_demand_base = Some(0);
        p.lifecycle.spot.on_demand_percent = Some(100);
        p.lifecycle.spot.on_preemption = autoscale::OnPreemption::Replace;
        p
    };
    let sizes = |p: &Params| {
        let mut tape = GroupTape::default();
        autoscale::run_with(p, &mut GroupLcg::new(p.seed), &mut tape).unwrap();
        tape.0.iter().map(|s| (s.size, s.spot)).collect::<Vec<_>>()
    };
    let (a, b) = (sizes(&plain), sizes(&mixed));
    assert_eq!(a, b);
    // The surge (rounds 150 to 189) empties the group.
    assert!(
        a[150..190].iter().any(|&(size, _)| size == 0),
        "{:?}",
        &a[150..190]
    );
}

/// The other end: a demand of +inf saturates the lesson policy's change at i64::MAX, which
/// the mixed-instances split once added to the group's size without saturating (the fuzz
/// input that found it, kept whole: a launch hook, bounds of 0 and the fuzz seeds' scripted
/// actions). With every instance dedicated the split changes nothing: both runs end alike,
/// round for round.
#[test]
fn a_scale_out_of_i64_max_splits_by_class() {
    let at = [
        TimedAction {
            round: 5,
            what: Timed::MaxInstances,
            value: 8,
        },
        TimedAction {
            round: 8,
            what: Timed::Desired,
            value: 14,
        },
        TimedAction {
            round: 20,
            what: Timed::Template,
            value: 2,
        },
        TimedAction {
            round: 30,
            what: Timed::Standby,
            value: 2,
        },
        TimedAction {
            round: 40,
            what: Timed::Detach,
            value: 1,
        },
        TimedAction {
            round: 45,
            what: Timed::Unstandby,
            value: 1,
        },
        TimedAction {
            round: 50,
            what: Timed::MaxInstances,
            value: 4294967295,
        },
        TimedAction {
            round: 60,
            what: Timed::MinInstances,
            value: 3,
        },
        TimedAction {
            round: 70,
            what: Timed::Protect,
            value: 2,
        },
        TimedAction {
            round: 80,
            what: Timed::Desired,
            value: 0,
        },
        TimedAction {
            round: 90,
            what: Timed::EvaluationInterval,
            value: 5,
        },
        TimedAction {
            round: 100,
            what: Timed::Formula,
            value: 0,
        },
    ];
    let mut plain = Params {
        surge: f64::MAX,
        ..Params::default()
    };
    plain.lifecycle.min_instances = Some(0);
    plain.lifecycle.max_instances = Some(0);
    plain.lifecycle.task_rounds = Some(1);
    plain.lifecycle.at = &at;
    plain.lifecycle.launch_hook = Some(Hook {
        rounds: 1,
        result: HookResult::Continue,
    });
    let mut mixed = plain.clone();
    mixed.lifecycle.spot.on_demand_percent = Some(100);
    let run = |p: &Params| {
        let mut tape = GroupTape::default();
        let end = autoscale::run_with(p, &mut GroupLcg::new(p.seed), &mut tape).map(|_| ());
        let sizes: Vec<_> = tape.0.iter().map(|s| (s.size, s.spot)).collect();
        (end, sizes)
    };
    let (plain, mixed) = (run(&plain), run(&mixed));
    assert_eq!(plain, mixed);
}
