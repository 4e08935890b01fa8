//! `autoscale::run` on arbitrary parameters, against the lesson program's port.
//!
//! Capped for speed (hundreds of runs a second): at most 1000 rounds; a run costs rounds ×
//! group size (≤ 256) draws, three times (two runs and the port). Failure rounds, demand and
//! every other field stay arbitrary; the lifecycle options stay off. Checks: invalid
//! parameters are an `Err` (and valid ones never `OutOfRange`); two runs agree bit for bit,
//! the second reporting every round once; the fast path (bit masks, which `run` takes)
//! agrees with the reference engine (`capsim_tests::reference_run`), and each run of a
//! batch (`run_batch`: lockstep, shared rounds) with its run alone; a successful
//! run's lesson metrics equal the port's and obey the invariants below; a capacity error
//! happens exactly when the port's group would outgrow `MAX_GROUP_SIZE`.
#![no_main]

use capsim_core::autoscale::{self, Params, MAX_GROUP_SIZE};
use capsim_core::rng::{GroupLcg, GroupStream};
use capsim_core::{Capacity, Error};
use capsim_fuzz::{same, Lesson, Rounds};
use libfuzzer_sys::fuzz_target;

const MAX_ROUNDS: u32 = 1000;

fuzz_target!(|p: Params| {
    let mut p = p;
    if p.rounds > MAX_ROUNDS && p.rounds <= autoscale::MAX_ROUNDS {
        p.rounds = 1 + p.rounds % MAX_ROUNDS;
    }
    let result = autoscale::run(&p);
    // Again, watched: the same result, and every round reported once, in order.
    let mut rounds = Rounds::default();
    let again = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut rounds);
    assert!(same(&result, &again), "not deterministic: {p:?}");
    if result.is_ok() {
        assert_eq!(rounds.count, u64::from(p.rounds), "{p:?}");
    }
    // The reference engine: the same policy, check and draws.
    let reference = capsim_tests::reference_run(&p, &mut GroupLcg::new(p.seed));
    assert!(
        same(&result, &reference),
        "fast and reference engines differ: {p:?}\nfast      {result:?}\nreference {reference:?}"
    );
    // In a batch (lockstep; runs with a higher threshold of 3 or more share the lower one's
    // rounds until it first replaces an instance), each run equals its run alone.
    let sets = [3, p.threshold, p.threshold.saturating_add(1), 2].map(|threshold| Params {
        threshold,
        ..p.clone()
    });
    let mut stream = GroupStream::new(p.seed, [0u32; 4096]);
    let batch = autoscale::run_batch(&sets, |t| p.demand(t), &mut stream);
    for (set, got) in sets.iter().zip(&batch) {
        let alone = autoscale::run(set);
        assert!(
            same(got, &alone),
            "batch and run differ: {set:?}\nbatch {got:?}\nalone {alone:?}"
        );
    }
    if p.validate().is_err() {
        assert!(
            matches!(result, Err(Error::OutOfRange { .. })),
            "{p:?}: {result:?}"
        );
        return;
    }
    let lesson = capsim_fuzz::autoscale(&p);
    match (&result, &lesson) {
        (Ok(m), Lesson::Metrics(expected)) => {
            assert!(
                same(&lesson_part(m), expected),
                "{p:?}\ncore   {m:?}\nlesson {expected:?}"
            );
            invariants(&p, m);
        }
        (
            Err(Error::CapacityExceeded {
                capacity: Capacity::GroupSize,
                limit,
            }),
            Lesson::OverCapacity,
        ) => {
            assert_eq!(*limit as usize, MAX_GROUP_SIZE);
        }
        _ => panic!("{p:?}\ncore   {result:?}\nlesson {lesson:?}"),
    }
});

/// The lesson program's ten metrics of `m` (the port computes those only).
fn lesson_part(m: &autoscale::Metrics) -> autoscale::Metrics {
    autoscale::Metrics {
        min_size: m.min_size,
        max_size: m.max_size,
        max_launching: m.max_launching,
        max_launching_ratio: m.max_launching_ratio,
        under_capacity_rounds: m.under_capacity_rounds,
        launched: m.launched,
        false_replacements: m.false_replacements,
        broken_rounds: m.broken_rounds,
        scaling_actions: m.scaling_actions,
        replacements: m.replacements,
        ..Default::default()
    }
}

/// Invariants that follow from the lesson program, whatever the port says.
fn invariants(p: &Params, m: &autoscale::Metrics) {
    // Every lifecycle option is off: nothing is protected, stopped, out of stock or hooked,
    // and an instance is billed while booting as while serving.
    assert_eq!(
        (
            m.scale_in_blocked_rounds,
            m.restarts_from_stopped,
            m.failed_launches,
            m.hook_timeouts,
            m.abandoned_launches,
        ),
        (0, 0, 0, 0, 0),
        "{m:?}"
    );
    assert!(m.idle_billed_rounds <= m.billed_rounds, "{m:?}");
    // Every round records the group size in both (`min` starts at 99, `max` at 0).
    assert!(m.min_size <= m.max_size && m.min_size <= 99, "{m:?}");
    assert!(m.max_size as usize <= MAX_GROUP_SIZE, "{m:?}");
    // Booting instances are part of the group; their share is a share or 0/0.
    assert!(m.max_launching <= m.max_size, "{m:?}");
    let r = m.max_launching_ratio;
    assert!(r.is_nan() || (0.0..=1.0).contains(&r), "{m:?}");
    assert!(r.is_nan() || (r > 0.0) == (m.max_launching > 0), "{m:?}");
    // A replacement is a launch; a false one is a replacement of a healthy instance.
    assert!(m.false_replacements <= m.replacements, "{m:?}");
    assert!(m.replacements <= m.launched, "{m:?}");
    // At most one of each per round.
    assert!(
        m.under_capacity_rounds <= p.rounds && m.scaling_actions <= p.rounds,
        "{m:?}"
    );
    if p.failure_rounds.is_empty() {
        // Nothing breaks: every replacement is a false one.
        assert_eq!(
            (m.broken_rounds, m.false_replacements),
            (0, m.replacements),
            "{m:?}"
        );
        if p.transient_failure == 0.0 {
            // Every draw is >= 0: every check passes.
            assert_eq!(m.replacements, 0, "{m:?}");
        }
    }
    if p.boot_rounds == 0 {
        // An instance launched in a round is ready by the round's end.
        assert_eq!(m.max_launching, 0, "{m:?}");
    }
    if p.threshold > p.rounds {
        // Failures are consecutive checks, one per round.
        assert_eq!(m.replacements, 0, "{m:?}");
    }
}
