//! Properties the lessons state, checked across seeds and parameters.

use capsim_core::autoscale;
use capsim_core::bulkhead::{self, Mode, Split};
use capsim_core::consumers::{self, Event, LessonDraws, Queue, QueueSpace, Workspace};
use capsim_core::lesson::{render, Lesson};
use capsim_core::rng::{CounterHash, GroupLcg, ParkMiller, Uniform};
use capsim_core::Observer;
use capsim_tests::{golden, lesson_workspace, reference};

#[test]
fn one_consumer_never_reorders() {
    let mut ws = Box::new(Workspace::<20_000>::new());
    for seed in [1, 7, 20_260_731, 2_147_483_646] {
        for slots in [1, 2, 5] {
            let p = consumers::Params {
                consumers: 1,
                slots,
                shipments: 2000,
                seed,
                ..consumers::Params::default()
            };
            let m = consumers::run(&p, &mut ws).unwrap();
            assert_eq!(
                (m.reordered_shipments, m.wrong_final_state),
                (0, 0),
                "{p:?}"
            );
        }
    }
}

#[test]
fn a_shared_pool_has_no_idle_slots_while_dropping() {
    for seed in 1..=20 {
        for mode in [Mode::Healthy, Mode::Slowdown] {
            let p = bulkhead::Params {
                split: Split::Shared,
                mode,
                seed,
                ..bulkhead::Params::default()
            };
            let m = bulkhead::run(&p).unwrap();
            assert!(m.tracking_dropped + m.event_dropped > 0 || mode == Mode::Healthy);
            assert_eq!(m.idle_slots, 0, "{p:?}");
            // A partitioned layout under the same load does strand slots.
            let q = bulkhead::Params {
                split: Split::Partitioned(24),
                ..p
            };
            assert!(bulkhead::run(&q).unwrap().idle_slots > 0);
        }
    }
}

#[test]
fn the_queue_is_the_sorted_workload() {
    // The streamed queue must equal the lesson's construction: generate every event, then
    // sort by arrival time (stable, so ties keep generation order).
    for (seed, shipments, events, gap) in [
        (20_260_731, 300, 7, 1.0),
        (5, 50, 3, 0.0),
        (99, 120, 12, 2.5),
        (123_456, 1, 1, 1.0),
    ] {
        let p = consumers::Params {
            shipments,
            events_per_shipment: events,
            queue_gap: gap,
            seed,
            ..consumers::Params::default()
        };
        let mut r = CounterHash::new(seed);
        let mut all = Vec::new();
        use capsim_core::rng::UnitRng;
        for g in 0..shipments {
            let start = r.next_unit() * f64::from(shipments) * gap;
            for k in 0..events {
                let arrival = start + f64::from(k) * gap + r.next_unit() * gap;
                let rounds = if k == events - 1 {
                    6
                } else {
                    1 + (r.next_unit() * 3.0).floor() as u32
                };
                all.push(Event {
                    shipment: g,
                    step: k,
                    rounds,
                    arrival,
                });
            }
        }
        all.sort_by(|a, b| a.arrival.partial_cmp(&b.arrival).unwrap());
        let mut order = Box::new(QueueSpace::<2000>::new());
        let streamed: Vec<Event> = Queue::new(&p, LessonDraws::new(&p), &mut order)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(streamed, all, "{p:?}");
    }
}

#[test]
fn the_event_driven_engine_matches_tick_by_tick() {
    let mut ws = Box::new(Workspace::<3000>::new());
    let mut cases = 0;
    for consumers in [1, 2, 3, 5, 8, 13] {
        for slots in [1, 2, 4, 9] {
            for (seed, final_rounds, min, spread) in [(3, 6, 1, 3), (11, 0, 0, 2), (42, 2, 3, 1)] {
                let p = consumers::Params {
                    consumers,
                    slots,
                    shipments: 1500,
                    seed,
                    final_event_rounds: final_rounds,
                    event_rounds_min: min,
                    event_rounds_spread: spread,
                    ..consumers::Params::default()
                };
                let got = consumers::run(&p, &mut ws).unwrap();
                assert_eq!(got, reference::consumers(&p), "{p:?}");
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 72);
}

#[test]
fn any_rand_core_generator_drives_every_model() {
    // Same generator, same seed: same metrics; a different seed: (almost surely) different.
    type Pcg = rand_pcg::Pcg32;
    use rand_core::SeedableRng;
    let a = autoscale::Params::default();
    let run_a = |s| autoscale::run_with(&a, &mut Uniform(Pcg::seed_from_u64(s)), &mut ()).unwrap();
    assert_eq!(run_a(1), run_a(1));
    assert_ne!(run_a(1), run_a(2));
    let b = bulkhead::Params::default();
    let run_b = |s| bulkhead::run_with(&b, &mut Uniform(Pcg::seed_from_u64(s)), &mut ()).unwrap();
    assert_eq!(run_b(1), run_b(1));
    assert_ne!(run_b(1), run_b(2));
    let c = consumers::Params {
        consumers: 4,
        shipments: 500,
        ..consumers::Params::default()
    };
    let mut ws = Workspace::<500>::new();
    let mut run_c = |s| {
        let draws = consumers::SubstreamDraws::<Pcg>::new(s);
        consumers::run_with(&c, draws, &mut ws, &mut ()).unwrap()
    };
    assert_eq!(run_c(1), run_c(1));
    assert_ne!(run_c(1), run_c(2));
}

#[test]
fn a_reused_workspace_gives_what_a_fresh_one_gives() {
    // A workspace outlives its runs (the firmware renders every lesson with one static
    // workspace): nothing a run leaves in it may reach the next run.
    let params = |consumers, slots, shipments, seed| consumers::Params {
        consumers,
        slots,
        shipments,
        seed,
        ..consumers::Params::default()
    };
    let (big, small) = (params(13, 3, 3000, 9), params(3, 2, 700, 31));
    let fresh = consumers::run(&small, &mut Box::new(Workspace::<700>::new())).unwrap();
    let mut reused = Box::new(Workspace::<3000, 64, 4>::new());
    consumers::run(&big, &mut reused).unwrap();
    assert_eq!(consumers::run(&small, &mut reused).unwrap(), fresh);
    // The lesson's batch fills every lane; the same workspace then renders the lesson again.
    let mut ws = lesson_workspace();
    for pass in 1..=2 {
        let mut out = String::new();
        render(Lesson::Consumers, &mut out, &mut ws).unwrap();
        assert!(out.as_bytes() == golden("consumers"), "pass {pass}");
    }
}

/// Records the rounds an [`Observer`] is told about.
#[derive(Default)]
struct Rounds(Vec<u64>);

impl<S: capsim_core::Round> Observer<S> for Rounds {
    fn round_done(&mut self, round: u64) {
        self.0.push(round);
    }
}

impl Rounds {
    /// Asserts one report per round, in order.
    fn assert_each_in_order(&self, rounds: u32, what: &str) {
        assert_eq!(
            self.0.len(),
            rounds as usize,
            "{what}: one report per round"
        );
        assert!(
            self.0.windows(2).all(|w| w[0] < w[1]),
            "{what}: in order: {:?}",
            &self.0[..self.0.len().min(10)]
        );
    }
}

#[test]
fn the_observer_hears_every_round_in_order() {
    let a = autoscale::Params {
        rounds: 97,
        ..autoscale::Params::default()
    };
    let mut seen = Rounds::default();
    autoscale::run_with(&a, &mut GroupLcg::new(a.seed), &mut seen).unwrap();
    seen.assert_each_in_order(a.rounds, "autoscale");
    let b = bulkhead::Params {
        horizon: 1234,
        failure_start: 600,
        ..bulkhead::Params::default()
    };
    let mut seen = Rounds::default();
    bulkhead::run_with(&b, &mut ParkMiller::new(b.seed), &mut seen).unwrap();
    seen.assert_each_in_order(b.horizon, "bulkhead");
}

#[test]
fn bad_parameters_are_errors_not_panics() {
    use capsim_core::{Accepted, Bound, Capacity, Error};
    let e = autoscale::run(&autoscale::Params {
        threshold: 0,
        ..autoscale::Params::default()
    });
    // Thresholds are integers >= 1 (README, `--help`).
    assert_eq!(
        e.map(|_| ()),
        Err(Error::OutOfRange {
            param: "threshold",
            accepted: Accepted::Integers { min: 1, max: None }
        })
    );
    let e = autoscale::run(&autoscale::Params {
        capacity: 1.0, // 1800 instances: over the group capacity
        ..autoscale::Params::default()
    });
    assert_eq!(
        e,
        Err(Error::CapacityExceeded {
            capacity: Capacity::GroupSize,
            limit: 256
        })
    );
    let e = bulkhead::run(&bulkhead::Params {
        split: Split::Partitioned(32),
        ..bulkhead::Params::default()
    });
    assert_eq!(
        e,
        Err(Error::OutOfRange {
            param: "split",
            accepted: Accepted::Split { max: 31 }
        })
    );
    let mut small = Workspace::<10>::new();
    let e = consumers::run(&consumers::Params::default(), &mut small);
    assert_eq!(
        e,
        Err(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: 10
        })
    );
    let e = consumers::run(
        &consumers::Params {
            queue_gap: f64::NAN,
            ..consumers::Params::default()
        },
        &mut small,
    );
    // Queue gaps are 0 to 1e9, both included (README).
    assert_eq!(
        e,
        Err(Error::OutOfRange {
            param: "queue-gap",
            accepted: Accepted::Numbers {
                min: Bound::Closed(0.0),
                max: Bound::Closed(1e9)
            }
        })
    );
}

#[test]
fn layouts_batched_on_one_stream_equal_separate_runs() {
    // One workspace for every batch: each run sets its lanes up afresh, whatever the last
    // run left in them (a partitioned lane becomes shared and back, sizes change).
    let mut ws = bulkhead::Workspace::<5>::new();
    for seed in [1, 20_260_801, 987_654_321] {
        let base = bulkhead::Params {
            seed,
            horizon: 1500,
            ..bulkhead::Params::default()
        };
        let layouts = [
            base.clone(),
            bulkhead::Params {
                split: Split::Partitioned(20),
                mode: Mode::Slowdown,
                ..base.clone()
            },
            bulkhead::Params {
                split: Split::Partitioned(3),
                total_slots: 9,
                tracking_hold: 2,
                ..base.clone()
            },
            bulkhead::Params {
                mode: Mode::Slowdown,
                failure_start: 10,
                slow_hold: 100,
                ..base.clone()
            },
        ];
        let mut reversed = layouts.clone();
        reversed.reverse();
        for batch in [&layouts[..], &reversed, &layouts[1..3]] {
            let mut out = [bulkhead::Metrics::default(); 4];
            bulkhead::run_batch(batch, &mut ws, &mut out).unwrap();
            for (p, m) in batch.iter().zip(out) {
                assert_eq!(bulkhead::run(p).unwrap(), m, "{p:?}");
            }
        }
        let mismatched = [
            base.clone(),
            bulkhead::Params {
                seed: seed + 1,
                ..base.clone()
            },
        ];
        let mut out = [bulkhead::Metrics::default(); 6];
        assert!(matches!(
            bulkhead::run_batch(&mismatched, &mut ws, &mut out),
            Err(capsim_core::Error::BatchMismatch { param: "seed" })
        ));
        // More layouts than lanes, or than places for their metrics, is a capacity error.
        let six: Vec<bulkhead::Params> = (0..6).map(|_| base.clone()).collect();
        let too_many = Err(capsim_core::Error::CapacityExceeded {
            capacity: capsim_core::Capacity::BatchLanes,
            limit: 5,
        });
        assert_eq!(bulkhead::run_batch(&six, &mut ws, &mut out), too_many);
        assert_eq!(
            bulkhead::run_batch(&six[..2], &mut ws, &mut out[..1]),
            too_many
        );
        assert_eq!(bulkhead::run_batch(&[], &mut ws, &mut []), Ok(()));
    }
}

#[test]
fn configurations_batched_on_one_queue_equal_separate_runs() {
    let base = consumers::Params {
        shipments: 800,
        seed: 4242,
        ..consumers::Params::default()
    };
    let batch: Vec<consumers::Params> = [(1, 1), (3, 2), (8, 1), (13, 5), (2, 9)]
        .iter()
        .map(|&(n, s)| consumers::Params {
            consumers: n,
            slots: s,
            ..base.clone()
        })
        .collect();
    let mut ws = Box::new(Workspace::<800, 64, 5>::new());
    let mut out = [consumers::Metrics::default(); 5];
    consumers::run_batch(&batch, &mut ws, &mut out).unwrap();
    let mut single = Box::new(Workspace::<800>::new());
    for (p, m) in batch.iter().zip(out) {
        assert_eq!(consumers::run(p, &mut single).unwrap(), m, "{p:?}");
    }
    let mismatched = [base.clone(), consumers::Params { seed: 1, ..base }];
    assert!(matches!(
        consumers::run_batch(&mismatched, &mut ws, &mut out),
        Err(capsim_core::Error::BatchMismatch { param: "seed" })
    ));
}

/// A generator stuck just below 1 keeps Knuth's Poisson product above `exp(-λ)` for hundreds
/// of draws: more arrivals than a round holds, which is the capacity error, not a panic.
#[test]
fn a_round_with_too_many_arrivals_is_a_capacity_error() {
    use capsim_core::{rng::UnitRng, Capacity, Error};
    struct NearOne;
    impl UnitRng for NearOne {
        fn next_unit(&mut self) -> f64 {
            1.0 - f64::EPSILON / 2.0 // the largest double below 1
        }
    }
    let got = bulkhead::run_with(&bulkhead::Params::default(), &mut NearOne, &mut ());
    assert_eq!(
        got,
        Err(Error::CapacityExceeded {
            capacity: Capacity::ArrivalsPerRound,
            limit: 255
        })
    );
}

#[test]
fn consumers_reject_huge_events_per_shipment_without_overflow() {
    // Found by the `consumers` fuzz target: the draw count per shipment (2 × events) was
    // computed in 32 bits before validation, an overflow panic with overflow checks on.
    use capsim_core::consumers::WorkloadDraws;
    use capsim_core::Error;
    let p = consumers::Params {
        events_per_shipment: u32::MAX,
        ..consumers::Params::default()
    };
    assert_eq!(p.draws_per_shipment(), 2 * u64::from(u32::MAX));
    let mut ws = Workspace::<10>::new();
    assert!(matches!(
        consumers::run(&p, &mut ws),
        Err(Error::OutOfRange {
            param: "events-per-shipment",
            ..
        })
    ));
    // Random access to the stream never panics either, whatever it is asked for.
    let x = LessonDraws::new(&p).draw(u32::MAX, u32::MAX);
    assert!((0.0..1.0).contains(&x));
}

/// A workspace that sorts workloads of up to 2,800 events whole (the engine's fast path):
/// 400 shipments of 7 events just fit.
type Sorted = Workspace<400, { consumers::DEFAULT_IN_FLIGHT }, 1, 2800>;

#[test]
fn every_engine_matches_tick_by_tick() {
    // Three paths: the workload sorted whole, or merged on the fly, into the timing wheel
    // (processing times below 64 rounds); merged on the fly into the general engine (longer
    // ones). Each must equal the plain loop; ties (a gap of 0, or tiny) included.
    let mut merged = Box::new(Workspace::<400>::new());
    let mut sorted: Box<Sorted> = Box::new(Workspace::new());
    let mut cases = 0;
    for (consumers, slots) in [(1, 1), (3, 2), (8, 2), (13, 4), (64, 7)] {
        for (seed, gap, final_rounds, min, spread) in [
            (5, 1.0, 6, 1, 3),
            (6, 0.0, 2, 0, 3),
            (7, 1e-3, 0, 0, 1),
            (8, 2.5, 63, 20, 43),
            (9, 1.0, 64, 1, 3),
            (10, 1.0, 6, 30, 90),
        ] {
            let p = consumers::Params {
                consumers,
                slots,
                shipments: 400,
                queue_gap: gap,
                seed,
                final_event_rounds: final_rounds,
                event_rounds_min: min,
                event_rounds_spread: spread,
                ..consumers::Params::default()
            };
            let expected = reference::consumers(&p);
            assert_eq!(consumers::run(&p, &mut merged).unwrap(), expected, "{p:?}");
            assert_eq!(consumers::run(&p, &mut sorted).unwrap(), expected, "{p:?}");
            cases += 1;
        }
    }
    assert_eq!(cases, 30);
}

#[test]
fn no_more_consumers_than_slots_never_binds_the_store() {
    // With N <= S at most N consumers finish in a round, so S never refuses one: any S >= N
    // runs exactly like S = N (the lesson's (1,2) = (1,4) and (2,2) = (2,4)). A batch runs
    // such configurations once and must still report each one.
    let mut ws = Box::new(Workspace::<1000>::new());
    for seed in [1, 2, 3] {
        for n in [1, 2, 3, 5] {
            let p = |slots| consumers::Params {
                consumers: n,
                slots,
                shipments: 1000,
                seed,
                ..consumers::Params::default()
            };
            let expected = reference::consumers(&p(n));
            for slots in [n, n + 1, 2 * n, 1000] {
                assert_eq!(
                    reference::consumers(&p(slots)),
                    expected,
                    "N {n}, S {slots}"
                );
                assert_eq!(consumers::run(&p(slots), &mut ws).unwrap(), expected);
            }
        }
    }
    let p = |consumers, slots| consumers::Params {
        consumers,
        slots,
        shipments: 1000,
        ..consumers::Params::default()
    };
    let batch = [
        p(1, 2),
        p(2, 2),
        p(3, 2),
        p(1, 4),
        p(2, 4),
        p(3, 4),
        p(2, 2),
    ];
    let mut lanes = Box::new(Workspace::<1000, { consumers::DEFAULT_IN_FLIGHT }, 7>::new());
    let mut sorted_lanes =
        Box::new(Workspace::<1000, { consumers::DEFAULT_IN_FLIGHT }, 7, 7000>::new());
    let mut out = [consumers::Metrics::default(); 7];
    let mut sorted_out = [consumers::Metrics::default(); 7];
    consumers::run_batch(&batch, &mut lanes, &mut out).unwrap();
    consumers::run_batch(&batch, &mut sorted_lanes, &mut sorted_out).unwrap();
    for ((params, got), sorted_got) in batch.iter().zip(out).zip(sorted_out) {
        let expected = reference::consumers(params);
        assert_eq!(got, expected, "{params:?}");
        assert_eq!(sorted_got, expected, "{params:?}");
    }
}

#[test]
fn a_sort_in_lent_storage_runs_like_the_plain_loop() {
    // A host lends the sort's storage (here 7,000 events: a 1,000-shipment workload fits;
    // then 6,999: it does not, and the queue is merged on the fly). Same results either way.
    let p = |consumers, slots| consumers::Params {
        consumers,
        slots,
        shipments: 1000,
        seed: 77,
        ..consumers::Params::default()
    };
    let batch = [p(1, 2), p(4, 2), p(8, 4), p(1, 4)];
    let mut ws = Box::new(Workspace::<1000, { consumers::DEFAULT_IN_FLIGHT }, 4>::new());
    for room in [7000, 6999] {
        let (mut keys, mut events) = (vec![0u128; room], vec![0u32; room]);
        let mut out = [consumers::Metrics::default(); 4];
        let draws = LessonDraws::new(&batch[0]);
        consumers::run_batch_sorted_with(
            &batch,
            draws,
            &mut ws,
            &mut keys,
            &mut events,
            &mut (),
            &mut out,
        )
        .unwrap();
        for (params, got) in batch.iter().zip(out) {
            assert_eq!(got, reference::consumers(params), "{params:?}, room {room}");
        }
    }
}

/// A batch workspace for every workload the core accepts: the lanes' stores for up to four
/// configurations (6 bytes a shipment: 384 KiB, so boxed).
type Lanes = Workspace<{ consumers::MAX_SHIPMENTS }, { consumers::DEFAULT_IN_FLIGHT }, 4>;

/// Runs `batch` (configurations sharing a workload) on its workload sorted whole, in storage
/// lent here, unobserved: the fast lanes (one consumer serially; N ≤ S, 2 to 8 consumers, by
/// the earliest of N keys; S < N in whole rounds, then the wheel lane for the last events).
fn sorted_batch(batch: &[consumers::Params], ws: &mut Lanes) -> Vec<consumers::Metrics> {
    let room = batch[0].events() as usize;
    let (mut keys, mut events) = (vec![0u128; room], vec![0u32; room]);
    let mut out = vec![consumers::Metrics::default(); batch.len()];
    let draws = LessonDraws::new(&batch[0]);
    consumers::run_batch_sorted_with(batch, draws, ws, &mut keys, &mut events, &mut (), &mut out)
        .unwrap();
    out
}

#[test]
fn the_sorted_fast_lanes_match_the_plain_loop_on_random_parameters() {
    // Random workloads over the accepted ranges (biased to the small consumer and slot counts
    // each fast lane specialises: N ≤ 8, S ≤ 4; processing times 0 to 63, the wheel's range;
    // gaps 0, tiny, huge), one to four configurations on each: every one must equal the plain
    // tick-by-tick loop, which shares no code with the lanes.
    use rand_core::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    let mut ws: Box<Lanes> = Box::new(Workspace::new());
    let (mut runs, mut serial, mut free, mut bound) = (0, 0, 0, 0);
    for _ in 0..200 {
        let events_per_shipment = match rng.next_u32() % 4 {
            0 => 1 + rng.next_u32() % consumers::MAX_EVENTS_PER_SHIPMENT,
            _ => 1 + rng.next_u32() % 8,
        };
        let event_rounds_min = rng.next_u32() % 64;
        let workload = consumers::Params {
            shipments: 1 + rng.next_u32() % (2000 / events_per_shipment).max(1),
            events_per_shipment,
            queue_gap: match rng.next_u32() % 6 {
                0 => 0.0,
                1 => 1e-3,
                2 => 1e9,
                _ => f64::from(rng.next_u32() % 1000) / 100.0,
            },
            seed: 1 + rng.next_u32() % 2_147_483_646,
            final_event_rounds: rng.next_u32() % 64,
            event_rounds_min,
            event_rounds_spread: rng.next_u32() % (64 - event_rounds_min),
            ..consumers::Params::default()
        };
        let batch: Vec<consumers::Params> = (0..1 + rng.next_u32() % 4)
            .map(|_| {
                let consumers = match rng.next_u32() % 4 {
                    0 => 1 + rng.next_u32() % consumers::MAX_CONSUMERS as u32,
                    _ => 1 + rng.next_u32() % 8,
                };
                let slots = match rng.next_u32() % 5 {
                    0 => u32::MAX - rng.next_u32() % 2,
                    _ => 1 + rng.next_u32() % (consumers + 2),
                };
                consumers::Params {
                    consumers,
                    slots,
                    ..workload.clone()
                }
            })
            .collect();
        for (p, got) in batch.iter().zip(sorted_batch(&batch, &mut ws)) {
            assert_eq!(got, reference::consumers(p), "{p:?}");
            match (p.consumers, p.consumers <= p.slots) {
                (1, _) => serial += 1,
                (_, true) => free += 1,
                (_, false) => bound += 1,
            }
            runs += 1;
        }
    }
    // Every path was taken, many times.
    assert!(
        runs > 400 && serial > 30 && free > 100 && bound > 100,
        "{runs} {serial} {free} {bound}"
    );
}

#[test]
fn the_sorted_fast_lanes_at_the_extremes() {
    // 64 consumers (no bit to spare), one slot, slots ≥ consumers (up to any u32), processing
    // times all 0 (a consumer still waits a round) or all 63 (the wheel's longest), one
    // shipment, fewer events than consumers, and 65,536 shipments: each configuration must
    // equal the same run merged on the fly (the streaming queue into the timing wheel, no code
    // shared with the fast lanes) and, where it fits, the plain loop.
    let mut ws: Box<Lanes> = Box::new(Workspace::new());
    let mut merged = Box::new(Workspace::<{ consumers::MAX_SHIPMENTS }>::new());
    let workload = |shipments, events_per_shipment, times: Option<u32>| consumers::Params {
        shipments,
        events_per_shipment,
        final_event_rounds: times.unwrap_or(6),
        event_rounds_min: times.unwrap_or(1),
        event_rounds_spread: if times.is_some() { 0 } else { 3 },
        ..consumers::Params::default()
    };
    let configurations = [
        [(64, 1), (64, 63), (64, 64), (64, u32::MAX)],
        [(63, 2), (9, 9), (8, 8), (8, 1000)],
        [(5, 4), (2, 1), (1, 1), (3, u32::MAX)],
    ];
    let mut runs = 0;
    for w in [
        workload(300, 7, Some(0)),
        workload(300, 7, Some(63)),
        workload(1, 1, None),
        workload(1, 126, Some(63)),
        workload(3, 2, None),
        workload(5000, 7, None),
        workload(consumers::MAX_SHIPMENTS as u32, 1, None),
    ] {
        for configs in configurations {
            let batch: Vec<consumers::Params> = configs
                .iter()
                .map(|&(consumers, slots)| consumers::Params {
                    consumers,
                    slots,
                    ..w.clone()
                })
                .collect();
            for (p, got) in batch.iter().zip(sorted_batch(&batch, &mut ws)) {
                assert_eq!(got, consumers::run(p, &mut merged).unwrap(), "{p:?}");
                if p.shipments <= 300 {
                    assert_eq!(got, reference::consumers(p), "{p:?}");
                }
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 7 * 12);
}
