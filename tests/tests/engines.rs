//! One equivalence table per model: for each engine, parameter sets that the model's `plan`
//! sends to it (asserted), and the engine's metrics against the reference port of the lesson
//! program (`capsim_tests::reference`), bit for bit. The random property tests stay; this
//! table makes sure no engine goes unnamed.

use capsim_core::bulkhead;
use capsim_core::consumers::{
    self, plan, windowed, LaneKey, LessonDraws, Plan, WholeLane, Workspace,
};
use capsim_core::Observer;
use capsim_tests::reference;

/// Equal down to the bits (0 differs from −0, NaN equals NaN).
fn same<T: core::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Observes every consumers round (and so asks the engines for their per-round states).
#[derive(Default)]
struct Watch {
    rounds: u64,
}

impl Observer<consumers::RoundState> for Watch {
    fn round(&mut self, _: &consumers::RoundState) {
        self.rounds += 1;
    }
}

/// The shipments of every consumers case: small, so the reference stays quick.
const SHIPMENTS: u32 = 400;
/// Room to sort such a workload whole (7 events a shipment at most below).
const ROOM: usize = 400 * 7;

fn cp(consumers: u32, slots: u32) -> consumers::Params {
    consumers::Params {
        consumers,
        slots,
        shipments: SHIPMENTS,
        ..consumers::Params::default()
    }
}

/// A consumers engine: its name, how it is reached, and the runs it plays.
struct ConsumersEngine {
    name: &'static str,
    cases: Vec<consumers::Params>,
    /// What `plan` says for the cases (`observed`, the room to sort whole).
    observed: bool,
    room: usize,
    plan: Plan,
    /// For unobserved lanes on a queue sorted whole, the lane engine.
    lane: Option<fn(LaneKey) -> bool>,
}

type Ws = Workspace<512, 256, 1>;

/// Runs `p` as `engine` is reached: one configuration, observed or not, with or without
/// room to sort the workload whole.
fn run_consumers(
    engine: &ConsumersEngine,
    p: &consumers::Params,
    ws: &mut Ws,
) -> consumers::Metrics {
    let mut keys = vec![0u128; engine.room];
    let mut events = vec![0u32; engine.room];
    let mut out = [consumers::Metrics::default()];
    let draws = LessonDraws::new(p);
    let params = core::slice::from_ref(p);
    let result = if engine.observed {
        let mut watch = Watch::default();
        let r = consumers::run_batch_sorted_with(
            params,
            draws,
            ws,
            &mut keys,
            &mut events,
            &mut watch,
            &mut out,
        );
        assert_eq!(
            watch.rounds, out[0].rounds,
            "{}: every round observed",
            engine.name
        );
        r
    } else {
        consumers::run_batch_sorted_with(
            params,
            draws,
            ws,
            &mut keys,
            &mut events,
            &mut (),
            &mut out,
        )
    };
    result.unwrap_or_else(|e| panic!("{}: {p:?}: {e}", engine.name));
    out[0]
}

#[test]
fn every_consumers_engine_equals_the_reference() {
    let long = |n, s| consumers::Params {
        event_rounds_spread: 70,
        ..cp(n, s)
    };
    let engines = [
        ConsumersEngine {
            name: "sorted whole, serial (N = 1)",
            cases: vec![cp(1, 1), cp(1, 2), cp(1, 100)],
            observed: false,
            room: ROOM,
            plan: Plan::SortedWhole { observed: false },
            lane: Some(|k| WholeLane::of(k) == WholeLane::Serial),
        },
        ConsumersEngine {
            name: "sorted whole, free (2 ≤ N ≤ 8, N ≤ S)",
            cases: vec![cp(2, 2), cp(3, 4), cp(8, 8), cp(6, 64)],
            observed: false,
            room: ROOM,
            plan: Plan::SortedWhole { observed: false },
            lane: Some(|k| matches!(WholeLane::of(k), WholeLane::Free(_))),
        },
        ConsumersEngine {
            name: "sorted whole, whole rounds (S < N, or N > 8)",
            cases: vec![cp(8, 2), cp(3, 1), cp(64, 1), cp(9, 9), cp(64, 63)],
            observed: false,
            room: ROOM,
            plan: Plan::SortedWhole { observed: false },
            lane: Some(|k| matches!(WholeLane::of(k), WholeLane::Rounds(_))),
        },
        ConsumersEngine {
            name: "sorted whole, observed, timing wheel",
            cases: vec![cp(1, 2), cp(4, 4), cp(8, 2)],
            observed: true,
            room: ROOM,
            plan: Plan::SortedWhole { observed: true },
            lane: None,
        },
        ConsumersEngine {
            name: "merged, timing wheel",
            cases: vec![cp(1, 2), cp(8, 2), cp(64, 3)],
            observed: false,
            room: 0,
            plan: Plan::MergedWheel,
            lane: None,
        },
        ConsumersEngine {
            name: "merged, general event-driven",
            cases: vec![long(1, 2), long(8, 2), long(64, 64)],
            observed: false,
            room: ROOM,
            plan: Plan::MergedEvent,
            lane: None,
        },
        ConsumersEngine {
            name: "merged, general event-driven, observed",
            cases: vec![long(3, 1), long(5, 9)],
            observed: true,
            room: 0,
            plan: Plan::MergedEvent,
            lane: None,
        },
    ];
    let mut ws = Box::new(Ws::new());
    for engine in &engines {
        for p in &engine.cases {
            let w = p.workload();
            assert_eq!(
                plan(&w, engine.observed, engine.room),
                engine.plan,
                "{}: {p:?}",
                engine.name
            );
            if let Some(lane) = engine.lane {
                assert!(
                    lane(p.lane_key()),
                    "{}: {p:?} gets {:?}",
                    engine.name,
                    WholeLane::of(p.lane_key())
                );
            }
            let got = run_consumers(engine, p, &mut ws);
            let want = reference::consumers(p);
            assert!(
                same(&got, &want),
                "{}: {p:?}: {got:?} != {want:?}",
                engine.name
            );
        }
    }
}

#[test]
fn the_windowed_consumers_engine_equals_the_reference() {
    let mut ws = Box::new(windowed::Workspace::<
        { windowed::words_for(SHIPMENTS as usize) },
    >::new());
    let long = consumers::Params {
        event_rounds_spread: 70,
        ..cp(8, 2)
    };
    for p in [cp(1, 2), cp(8, 2), cp(4, 4), cp(64, 1), long] {
        let got = windowed::run(&p, &mut ws).unwrap();
        let want = reference::consumers(&p);
        assert!(same(&got, &want), "windowed: {p:?}: {got:?} != {want:?}");
    }
}

/// The bulkhead plan's paths: a layout alone (a leader), layouts following a leader until
/// their slowdown, and rounds of more than 64 arrivals (the scan beside the closed form).
#[test]
fn every_bulkhead_path_equals_the_reference() {
    use bulkhead::{Mode, Params, Split};
    let layout = |split, mode| Params {
        split,
        mode,
        horizon: 1500,
        ..Params::default()
    };
    let want = |p: &Params| match reference::bulkhead(p) {
        reference::Lesson::Metrics(m) => m,
        reference::Lesson::OverCapacity => panic!("{p:?} is over capacity"),
    };
    // Alone: each layout leads its own batch of one.
    for p in [
        layout(Split::Shared, Mode::Healthy),
        layout(Split::Partitioned(24), Mode::Slowdown),
        layout(Split::Partitioned(1), Mode::Healthy),
        layout(Split::Partitioned(31), Mode::Slowdown),
    ] {
        let plan = bulkhead::plan::<1>(core::slice::from_ref(&p));
        assert_eq!((plan.order[0], plan.leaders), (0, 1), "alone: {p:?}");
        assert_eq!(bulkhead::run(&p).unwrap(), want(&p), "alone: {p:?}");
    }
    // Followers: the slowdown runs copy their healthy layout's state at round 1000.
    let layouts = [
        layout(Split::Shared, Mode::Healthy),
        layout(Split::Shared, Mode::Slowdown),
        layout(Split::Partitioned(20), Mode::Healthy),
        layout(Split::Partitioned(20), Mode::Slowdown),
    ];
    let plan = bulkhead::plan::<4>(&layouts);
    assert_eq!(
        (plan.leaders, &plan.join[2..]),
        (2, &[1000, 1000][..]),
        "followers"
    );
    let mut ws = bulkhead::Workspace::<4>::new();
    let mut out = [bulkhead::Metrics::default(); 4];
    bulkhead::run_batch(&layouts, &mut ws, &mut out).unwrap();
    for (p, got) in layouts.iter().zip(&out) {
        assert_eq!(*got, want(p), "followers: {p:?}");
    }
    // Wide rounds: about 100 arrivals a round (more than one word), scanned.
    let wide = Params {
        tracking_rate: 6000.0,
        event_rate: 4000.0,
        total_slots: 600,
        split: Split::Partitioned(350),
        horizon: 300,
        ..Params::default()
    };
    assert_eq!(bulkhead::run(&wide).unwrap(), want(&wide), "wide rounds");
}

/// The reference engine (`bulkhead/reference.rs`): every run with an option the lesson does
/// not have goes there (the plan says so), alone or in a batch, and equals the reference.
#[test]
fn the_readable_bulkhead_engine_equals_the_reference() {
    use bulkhead::{Breaker, Mode, Params, Resilience, Split};
    let want = |p: &Params| match reference::bulkhead(p) {
        reference::Lesson::Metrics(m) => m,
        reference::Lesson::OverCapacity => panic!("{p:?} is over capacity"),
    };
    let breaker = |ratio, window, open_rounds| {
        Some(Breaker {
            ratio,
            window,
            open_rounds,
        })
    };
    let base = Params {
        mode: Mode::Slowdown,
        horizon: 1600,
        failure_start: 400,
        ..Params::default()
    };
    let cases = [
        Params {
            resilience: Resilience {
                failure_end: Some(900),
                ..base.resilience
            },
            ..base.clone()
        },
        Params {
            resilience: Resilience {
                breaker: breaker(0.5, 9, 100),
                failure_end: Some(900),
                ..base.resilience
            },
            ..base.clone()
        },
        Params {
            resilience: Resilience {
                retries: 2,
                retry_backoff: 3,
                ..base.resilience
            },
            ..base.clone()
        },
        Params {
            split: Split::Partitioned(24),
            resilience: Resilience {
                breaker: breaker(0.5, 9, 50),
                retries: 3,
                failure_end: Some(1000),
                ..base.resilience
            },
            ..base.clone()
        },
        Params {
            split: Split::Partitioned(28),
            mode: Mode::Healthy,
            resilience: Resilience {
                breaker: breaker(f64::MIN_POSITIVE, 1, 1),
                retries: 1,
                ..base.resilience
            },
            ..base.clone()
        },
    ];
    for p in &cases {
        let plan = bulkhead::plan::<1>(core::slice::from_ref(p));
        assert!(plan.reference, "{p:?}");
        assert_eq!(bulkhead::run(p).unwrap(), want(p), "alone: {p:?}");
    }
    // In a batch with a lesson layout: each as its own run.
    let batch = [base.clone(), cases[1].clone(), cases[3].clone()];
    let mut ws = bulkhead::Workspace::<3>::new();
    let mut out = [bulkhead::Metrics::default(); 3];
    bulkhead::run_batch(&batch, &mut ws, &mut out).unwrap();
    for (p, got) in batch.iter().zip(&out) {
        assert_eq!(*got, want(p), "batch: {p:?}");
    }
}

/// Observes every autoscale round (and so asks for the reference group).
struct EveryRound;

impl Observer<capsim_core::autoscale::RoundState> for EveryRound {
    fn round(&mut self, _: &capsim_core::autoscale::RoundState) {}
}

/// The autoscale plan's engines: the reference engine (an observed run, and the same runs
/// in a host's larger storage), the bit masks (the runs unobserved in a board's storage), a
/// batch in lockstep (the lesson's nine pairs, whose (5, c) runs follow (3, c) until its
/// first replacement) and a batch whose runs go alone; each equal to the port of `grup.mjs`
/// on the lesson's metrics, bit for bit.
#[test]
fn every_autoscale_engine_equals_the_reference() {
    use capsim_core::autoscale::{self, plan, Chosen, Engine, LessonCheck, Params, Runs};
    use capsim_core::autoscale::{GroupStorage, MAX_GROUP_SIZE};
    use capsim_core::rng::{GroupLcg, GroupStream};
    let want = |p: &Params| match reference::autoscale(p) {
        reference::Lesson::Metrics(m) => m,
        reference::Lesson::OverCapacity => panic!("{p:?} is over capacity"),
    };
    let got = |m: &autoscale::Metrics| reference::autoscale_lesson_part(m);
    let lesson = Params::default();
    let runs = [
        lesson.clone(),
        Params {
            threshold: 1,
            ..lesson.clone()
        },
        Params {
            threshold: 255,
            cooldown: 0,
            boot_rounds: 8,
            ..lesson.clone()
        },
        Params {
            boot_rounds: 0,
            transient_failure: 0.4,
            failure_rounds: autoscale::FailureRounds::new(),
            rounds: 600,
            ..lesson.clone()
        },
        Params {
            transient_failure: 1.0,
            demand_base: -500.0,
            ..lesson.clone()
        },
    ];
    for p in &runs {
        let one = |observed, capacity| Runs::One {
            params: p,
            observed,
            lessons: true,
            capacity,
        };
        assert_eq!(plan(one(true, MAX_GROUP_SIZE)), Engine::Reference, "{p:?}");
        let m = autoscale::run_with(p, &mut GroupLcg::new(p.seed), &mut EveryRound).unwrap();
        assert!(same(&got(&m), &want(p)), "reference: {p:?}");
        assert_eq!(plan(one(false, 4096)), Engine::Reference, "{p:?}");
        let mut storage = Box::new(GroupStorage::<4096>::with_capacity());
        let (mut policy, mut check) = (Chosen::of(p), LessonCheck::of(p));
        let m = autoscale::run_in(
            p,
            &mut *storage,
            |t| p.demand(t),
            &mut policy,
            &mut check,
            &mut GroupLcg::new(p.seed),
            &mut (),
        )
        .unwrap();
        assert!(same(&got(&m), &want(p)), "reference, host storage: {p:?}");
        assert_eq!(plan(one(false, MAX_GROUP_SIZE)), Engine::Masks, "{p:?}");
        let m = autoscale::run(p).unwrap();
        assert!(same(&got(&m), &want(p)), "masks: {p:?}");
    }
    let pairs: [Params; 9] = core::array::from_fn(|i| Params {
        threshold: [2, 3, 5][i / 3],
        cooldown: [0, 3, 8][i % 3],
        ..lesson.clone()
    });
    let mut batches = [pairs.clone(), pairs];
    // Other rounds for one run: the batch's runs go alone.
    batches[1][4].rounds = 300;
    for (batch, engine) in batches.iter().zip([Engine::Lockstep, Engine::Alone]) {
        assert_eq!(plan(Runs::Batch(batch)), engine);
        let mut stream = GroupStream::new(lesson.seed, [0u32; 3072]);
        let results = autoscale::run_batch(batch, |t| lesson.demand(t), &mut stream);
        for (p, m) in batch.iter().zip(&results) {
            let m = m.as_ref().unwrap();
            assert!(same(&got(m), &want(p)), "{engine:?}: {p:?}");
        }
    }
}
