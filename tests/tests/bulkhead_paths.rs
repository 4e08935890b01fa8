//! The bulkhead engine's paths (rounds of up to 64 arrivals kept in one word with idle slots
//! in closed form, longer rounds kept as bytes and scanned, lanes batched on one stream)
//! against a port of the lesson program that takes one request at a time, on random
//! parameters over the whole accepted ranges and at their extremes.

use capsim_core::bulkhead::{self, Metrics, Mode, Params, Split, MAX_HOLD};
use capsim_core::{Capacity, Error};
use capsim_tests::reference;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// `bolme/kosum.mjs`'s `kosum`, one request at a time (the reference port): `None` when a
/// round has more arrivals than the engine accepts.
fn lesson(p: &Params) -> Option<Metrics> {
    match reference::bulkhead(p) {
        reference::Lesson::Metrics(m) => Some(m),
        reference::Lesson::OverCapacity => None,
    }
}

/// A random accepted stream: seed, horizon (short: the port is slow), rounds per second and
/// rates from none to the most accepted (64 arrivals a round of each stream, so rounds of
/// more than 64 and more than 255 arrivals happen).
fn stream(rng: &mut Pcg64) -> Params {
    let rounds_per_second = [1.0, 100.0, 0.37, 1000.0][rng.next_u32() as usize % 4];
    let mut rate = || {
        let per_round = match rng.next_u32() % 4 {
            0 => 0.0,
            1 => f64::from(rng.next_u32() % 1000) / 100.0,
            2 => f64::from(rng.next_u32() % 6400) / 100.0,
            _ => 64.0,
        };
        per_round * rounds_per_second
    };
    let (tracking_rate, event_rate) = (rate(), rate());
    Params {
        seed: 1 + rng.next_u32() % 2_147_483_646,
        horizon: 1 + rng.next_u32() % 300,
        rounds_per_second,
        tracking_rate,
        event_rate,
        ..Params::default()
    }
}

/// A random accepted layout on `stream`: slots from 1 to the most (small pools often, to
/// drop), either split, every hold from 1 to `MAX_HOLD`, a slowdown from any round.
fn layout(rng: &mut Pcg64, stream: &Params) -> Params {
    let total_slots = match rng.next_u32() % 4 {
        0 => 1 + rng.next_u32() % 8,
        1 => 2 + rng.next_u32() % 200,
        2 => 2 + rng.next_u32() % 65_534,
        _ => [2, 65_535][rng.next_u32() as usize % 2],
    };
    let split = if total_slots == 1 || rng.next_u32().is_multiple_of(3) {
        Split::Shared
    } else {
        Split::Partitioned(match rng.next_u32() % 3 {
            0 => 1,
            1 => total_slots - 1,
            _ => 1 + rng.next_u32() % (total_slots - 1),
        })
    };
    let mut hold = || match rng.next_u32() % 3 {
        0 => 1 + rng.next_u32() % 8,
        1 => 1 + rng.next_u32() % MAX_HOLD,
        _ => [1, MAX_HOLD][rng.next_u32() as usize % 2],
    };
    let (tracking_hold, event_hold, slow_hold) = (hold(), hold(), hold());
    Params {
        split,
        mode: [Mode::Healthy, Mode::Slowdown][rng.next_u32() as usize % 2],
        total_slots,
        failure_start: rng.next_u32() % (stream.horizon + 1),
        tracking_hold,
        event_hold,
        slow_hold,
        ..stream.clone()
    }
}

fn expect(p: &Params, got: Result<Metrics, Error>) {
    match lesson(p) {
        Some(m) => assert_eq!(got, Ok(m), "{p:?}"),
        None => assert!(
            matches!(
                got,
                Err(Error::CapacityExceeded {
                    capacity: Capacity::ArrivalsPerRound,
                    ..
                })
            ),
            "{p:?}: {got:?}"
        ),
    }
}

#[test]
fn random_runs_equal_the_lesson_one_request_at_a_time() {
    let mut rng = Pcg64::seed_from_u64(11);
    for _ in 0..300 {
        let s = stream(&mut rng);
        let p = layout(&mut rng, &s);
        expect(&p, bulkhead::run(&p));
    }
}

#[test]
fn random_batches_equal_the_lesson_one_request_at_a_time() {
    let mut rng = Pcg64::seed_from_u64(12);
    let mut ws = bulkhead::Workspace::<6>::new();
    for _ in 0..60 {
        let s = stream(&mut rng);
        let layouts: Vec<Params> = (0..1 + rng.next_u32() % 6)
            .map(|_| layout(&mut rng, &s))
            .collect();
        let mut out = [Metrics::default(); 6];
        let batch = bulkhead::run_batch(&layouts, &mut ws, &mut out);
        for (p, m) in layouts.iter().zip(out) {
            expect(p, batch.map(|()| m));
        }
    }
}

/// Many arrivals a round into small pools: rounds of more than 64 arrivals (kept as bytes)
/// and at most 64 (one word) alternate, and every round drops.
#[test]
fn crowded_rounds_equal_the_lesson() {
    let mut rng = Pcg64::seed_from_u64(13);
    for per_round in [20.0, 30.0, 33.0, 40.0] {
        for seed in [1, 20_260_801, 2_147_483_646] {
            let s = Params {
                seed,
                horizon: 200,
                tracking_rate: per_round * 100.0,
                event_rate: (64.0 - per_round) * 100.0,
                ..Params::default()
            };
            for _ in 0..4 {
                let p = Params {
                    total_slots: 2 + rng.next_u32() % 300,
                    ..layout(&mut rng, &s)
                };
                let p = Params {
                    split: match p.split {
                        Split::Partitioned(k) if k < p.total_slots => p.split,
                        _ => Split::Partitioned(1 + rng.next_u32() % (p.total_slots - 1)),
                    },
                    ..p
                };
                expect(&p, bulkhead::run(&p));
            }
        }
    }
}

/// Layouts that differ only in their slowdown (when it starts, from round 0 to past the
/// horizon, and how slow it is), healthy ones and exact duplicates, batched in every order:
/// the later ones play the earlier ones' rounds until they differ.
#[test]
fn batches_of_slowdowns_of_one_layout_equal_the_lesson() {
    let mut rng = Pcg64::seed_from_u64(14);
    let mut ws = bulkhead::Workspace::<8>::new();
    for _ in 0..40 {
        let s = stream(&mut rng);
        let base = Params {
            total_slots: 2 + rng.next_u32() % 40,
            ..layout(&mut rng, &s)
        };
        let base = Params {
            split: match base.split {
                Split::Partitioned(k) if k < base.total_slots => base.split,
                _ => Split::Shared,
            },
            ..base
        };
        let variants: Vec<Params> = (0..8)
            .map(|_| {
                let failure_start = match rng.next_u32() % 4 {
                    0 => 0,
                    1 => s.horizon,
                    2 => s.horizon + 1 + rng.next_u32() % 10,
                    _ => rng.next_u32() % s.horizon,
                };
                let slow_hold = match rng.next_u32() % 3 {
                    0 => base.event_hold,
                    1 => base.slow_hold,
                    _ => 1 + rng.next_u32() % MAX_HOLD,
                };
                let mode = [Mode::Healthy, Mode::Slowdown][rng.next_u32() as usize % 2];
                // Now and then another layout among them.
                let split = if rng.next_u32().is_multiple_of(5) {
                    Split::Shared
                } else {
                    base.split
                };
                Params {
                    split,
                    mode,
                    failure_start,
                    slow_hold,
                    ..base.clone()
                }
            })
            .collect();
        let mut batch = variants.clone();
        // Duplicates.
        batch[7] = batch[rng.next_u32() as usize % 7].clone();
        let mut out = [Metrics::default(); 8];
        let result = bulkhead::run_batch(&batch, &mut ws, &mut out);
        for (p, m) in batch.iter().zip(out) {
            expect(p, result.map(|()| m));
        }
    }
}

/// A layout repeated in a batch follows its first copy to the horizon (the same slowdown):
/// it takes the copy's count from the slowdown's start too, so its broken slot-rounds are its
/// run's (they once counted every event served, the rounds before the slowdown included: a
/// fuzz input), and a layout whose slowdown starts after the horizon is a healthy one.
#[test]
fn a_repeated_slowdown_layout_in_a_batch_is_its_own_run() {
    let slowdown = Params {
        split: Split::Partitioned(24),
        mode: Mode::Slowdown,
        ..Params::default()
    };
    let after_horizon = Params {
        failure_start: slowdown.horizon + 1,
        ..slowdown.clone()
    };
    let healthy = Params {
        mode: Mode::Healthy,
        ..slowdown.clone()
    };
    let batch = [slowdown.clone(), after_horizon, healthy, slowdown.clone()];
    let mut ws = bulkhead::Workspace::<4>::new();
    let mut out = [Metrics::default(); 4];
    bulkhead::run_batch(&batch, &mut ws, &mut out).unwrap();
    for (p, m) in batch.iter().zip(&out) {
        let alone = bulkhead::run(p).unwrap();
        assert_eq!(*m, alone, "{p:?}");
        assert_eq!(Some(*m), lesson(p), "{p:?}");
    }
    assert!(out[3].broken_slot_rounds > 0);
    assert_eq!(out[1].broken_slot_rounds, 0);
}
