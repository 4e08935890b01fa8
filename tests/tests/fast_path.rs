//! The group's fast path (bit masks, taken by `autoscale::run` and every unobserved run of
//! the lesson's policy) against the reference engine (reached through `autoscale::run_in`
//! watched: `capsim_tests::reference_run`), on random parameters over the whole accepted
//! ranges.
//!
//! Expected values come from the reference engine, which the differential vectors and goldens
//! pin to the reference program; the two must agree bit for bit, errors included.

use capsim_core::autoscale::{self, Metrics, Params};
use capsim_core::rng::{GroupLcg, GroupStream, UnitRng};
use capsim_core::{Error, Observer};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The reference engine on the lesson's generator.
fn general(p: &Params) -> Result<Metrics, Error> {
    capsim_tests::reference_run(p, &mut GroupLcg::new(p.seed))
}

/// Bit for bit, NaN and the sign of zero included (`Debug` prints both).
fn same(a: &Result<Metrics, Error>, b: &Result<Metrics, Error>) -> bool {
    format!("{a:?}") == format!("{b:?}")
        && match (a, b) {
            (Ok(x), Ok(y)) => x.max_launching_ratio.to_bits() == y.max_launching_ratio.to_bits(),
            _ => true,
        }
}

/// Counts `round_done` calls and wants no per-round states (a board pacing the rounds).
#[derive(Default)]
struct Paced(u64);

impl<S: capsim_core::Round> Observer<S> for Paced {
    const ROUNDS: bool = false;
    fn round_done(&mut self, round: u64) {
        assert_eq!(round, self.0, "rounds out of order");
        self.0 += 1;
    }
}

fn pick<T: Copy>(r: &mut Pcg64, xs: &[T]) -> T {
    xs[(r.next_u32() as usize) % xs.len()]
}

fn unit(r: &mut Pcg64) -> f64 {
    (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn between(r: &mut Pcg64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * unit(r)
}

/// Random parameters, mostly valid, covering every field's extremes.
fn random_params(r: &mut Pcg64) -> Params<'static> {
    let mut p = Params::default();
    let rounds = match r.next_u32() % 8 {
        0 => pick(r, &[1, 2, 3]),
        1 => 1 + r.next_u32() % 3000,
        _ => 1 + r.next_u32() % 400,
    };
    p.rounds = rounds;
    p.threshold = match r.next_u32() % 6 {
        0 => pick(r, &[0, u32::MAX, rounds, rounds + 1, 254, 255, 256]),
        1 => 1 + r.next_u32() % 40,
        _ => 1 + r.next_u32() % 6,
    };
    p.cooldown = match r.next_u32() % 6 {
        0 => pick(r, &[u32::MAX, rounds, rounds + 1, i32::MAX as u32]),
        _ => r.next_u32() % 12,
    };
    p.seed = match r.next_u32() % 6 {
        0 => pick(
            r,
            &[0, 1, 2, 12_345, 2_147_483_646, 2_147_483_647, u32::MAX],
        ),
        _ => 1 + r.next_u32() % 2_147_483_646,
    };
    p.capacity = match r.next_u32() % 8 {
        0 => pick(r, &[1e-300, 1e-3, 1e300, f64::MAX, 0.0, -1.0, f64::NAN]),
        1 => between(r, 0.5, 20.0),
        _ => between(r, 20.0, 400.0),
    };
    p.boot_rounds = match r.next_u32() % 8 {
        0 => pick(r, &[0, 1, 7, 8, 9, 15, 16, 17, 100, u32::MAX]),
        _ => r.next_u32() % 6,
    };
    p.transient_failure = match r.next_u32() % 6 {
        0 => pick(r, &[0.0, 1.0, 1e-9, 0.5, 1.0 - 1e-12, -0.1, 1.5, f64::NAN]),
        1 => unit(r),
        _ => between(r, 0.0, 0.3),
    };
    p.failure_rounds = autoscale::FailureRounds::new();
    match r.next_u32() % 4 {
        0 => p.failure_rounds = Params::default().failure_rounds,
        1 => {}
        _ => {
            for _ in 0..(r.next_u32() % 65) {
                let t = match r.next_u32() % 6 {
                    0 => pick(r, &[0, rounds - 1, rounds, u32::MAX]),
                    _ => r.next_u32() % rounds,
                };
                let _ = p.failure_rounds.push(t);
            }
        }
    }
    p.demand_base = match r.next_u32() % 10 {
        0 => pick(
            r,
            &[f64::MAX, -f64::MAX, 1e300, -1e300, 0.0, -0.0, f64::INFINITY],
        ),
        1 => between(r, -5000.0, 0.0),
        _ => between(r, -1000.0, 30_000.0),
    };
    p.demand_amplitude = match r.next_u32() % 10 {
        0 => pick(r, &[f64::MAX, -f64::MAX, 0.0, f64::NAN]),
        _ => between(r, -5000.0, 5000.0),
    };
    p.demand_period = match r.next_u32() % 10 {
        0 => pick(r, &[1e-2, 1e-300, 0.0, 7.0, 1e300]),
        _ => between(r, 1.0, 500.0),
    };
    p.surge_start = r.next_u32() % (rounds + 1);
    p.surge_end = match r.next_u32() % 4 {
        0 => u32::MAX,
        _ => r.next_u32() % (rounds + 1),
    };
    p.surge = match r.next_u32() % 10 {
        0 => pick(r, &[f64::MAX, -f64::MAX, 0.0]),
        _ => between(r, -3000.0, 10_000.0),
    };
    p.min_size_start = match r.next_u32() % 4 {
        0 => pick(r, &[0, 1, 256, u32::MAX]),
        _ => 99,
    };
    p
}

/// `run` (the fast path when its options allow) equals the reference engine, result or error,
/// also watched by a pacing observer (every round once, in order) and reading a shared
/// stream that an earlier run filled.
#[test]
fn the_fast_path_equals_the_general_path() {
    let mut r = Pcg64::seed_from_u64(11);
    let (mut ok, mut full, mut empty) = (0, 0, 0);
    for case in 0..2500 {
        let p = random_params(&mut r);
        let expected = general(&p);
        let fast = autoscale::run(&p);
        assert!(
            same(&fast, &expected),
            "case {case}: {p:?}\nfast    {fast:?}\ngeneral {expected:?}"
        );

        let mut paced = Paced::default();
        let watched = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut paced);
        assert!(same(&watched, &expected), "case {case} (paced): {p:?}");
        if expected.is_ok() {
            assert_eq!(paced.0, u64::from(p.rounds), "case {case}: {p:?}");
        }

        let mut stream = GroupStream::new(p.seed, vec![0u32; 1000]);
        for _ in 0..2 {
            let shared = autoscale::run_with(&p, &mut stream.reader(), &mut ());
            assert!(same(&shared, &expected), "case {case} (stream): {p:?}");
        }
        match &expected {
            Ok(m) => {
                ok += 1;
                empty += usize::from(m.max_launching_ratio.is_nan());
            }
            Err(Error::CapacityExceeded { .. }) => full += 1,
            Err(_) => {}
        }
    }
    // The cases reach every kind of outcome.
    assert!(ok > 1000 && full > 50 && empty > 50, "{ok} {full} {empty}");
}

/// A generator that draws below any positive `p` every time: every healthy instance fails
/// every check (the most failures a round can place).
struct Zeros;

impl UnitRng for Zeros {
    fn next_unit(&mut self) -> f64 {
        0.0
    }
}

/// Dense failures: every check fails (`below` returns all ones), with thresholds up to the
/// fast path's largest (255, reached after 255 rounds) and past it.
#[test]
fn the_fast_path_places_dense_failures() {
    for threshold in [1, 2, 3, 4, 254, 255, 256] {
        for base in [900.0, 15_000.0, 25_000.0] {
            let p = Params {
                threshold,
                demand_base: base,
                rounds: 600,
                ..Params::default()
            };
            let expected = capsim_tests::reference_run(&p, &mut Zeros);
            let fast = autoscale::run_with(&p, &mut Zeros, &mut ());
            assert!(same(&fast, &expected), "{p:?}\n{fast:?}\n{expected:?}");
        }
    }
}

/// `run_batch` (runs of one seed in lockstep, the stream computing ahead between them)
/// equals each run alone, errors included; also when the sets differ in rounds (no
/// lockstep) and with a stream too short for the runs.
#[test]
fn a_sweep_in_lockstep_equals_its_runs_alone() {
    let mut r = Pcg64::seed_from_u64(12);
    for case in 0..300 {
        let base = random_params(&mut r);
        let mut sets: [Params; 9] = core::array::from_fn(|_| base.clone());
        for p in sets.iter_mut() {
            p.threshold = 1 + r.next_u32() % 6;
            p.cooldown = r.next_u32() % 10;
        }
        if case % 5 == 0 {
            sets[3].rounds = base.rounds.saturating_add(1);
        }
        let storage = if case % 3 == 0 { 200 } else { 4096 };
        let demand = |t: u32| base.demand(t);
        let mut stream = GroupStream::new(base.seed, vec![0u32; storage]);
        let together = autoscale::run_batch(&sets, demand, &mut stream);
        for (i, p) in sets.iter().enumerate() {
            let mut alone_stream = GroupStream::new(base.seed, vec![0u32; storage]);
            // The sets' demand is the base's curve: they differ in threshold, cooldown, rounds.
            let alone = autoscale::run_with(p, &mut alone_stream.reader(), &mut ());
            assert!(
                same(&together[i], &alone),
                "case {case} run {i}: {p:?}\n{:?}\n{alone:?}",
                together[i]
            );
            assert!(same(&alone, &general(p)), "case {case} run {i}: {p:?}");
        }
    }
}

/// A sweep whose runs differ only in thresholds of 3 and more runs the lowest alone until it
/// first replaces an instance, the others taking its state then (`run_batch`): each result
/// still equals its run alone and the reference engine's, whether they part in the first block,
/// late (rare failures), never (no failures, or too few rounds) or on an error (a full
/// group), with equal thresholds and the largest the fast path takes (255).
#[test]
fn runs_sharing_rounds_equal_their_runs_alone() {
    let mut r = Pcg64::seed_from_u64(13);
    let thresholds = [3, 5, 4, 255, 3, 254, 6, 2, 7];
    // Sweeps that the fast path runs in lockstep (valid, a boot the fast path takes).
    let mut lockstep = 0;
    for case in 0..400 {
        let mut base = random_params(&mut r);
        base.transient_failure = match case % 5 {
            0 => 0.0,
            1 => 1.0,
            2 => 0.001,
            _ => base.transient_failure,
        };
        let mut sets = thresholds.map(|threshold| Params {
            threshold,
            ..base.clone()
        });
        if case % 3 == 0 {
            // A different cooldown or first size: its own run.
            sets[2].cooldown = base.cooldown.wrapping_add(1);
            sets[5].min_size_start = base.min_size_start.wrapping_add(1);
        }
        let demand = |t: u32| base.demand(t);
        let mut stream = GroupStream::new(base.seed, vec![0u32; 4096]);
        let together = autoscale::run_batch(&sets, demand, &mut stream);
        for (i, p) in sets.iter().enumerate() {
            let expected = general(p);
            lockstep += usize::from(i == 0 && base.validate().is_ok() && base.boot_rounds <= 8);
            assert!(
                same(&together[i], &expected),
                "case {case} run {i}: {p:?}\n{:?}\n{expected:?}",
                together[i]
            );
        }
    }
    assert!(lockstep > 200, "{lockstep}");
}
