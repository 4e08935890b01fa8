//! `autoscale::run` with arbitrary lifecycle options: hooks, protection, removal policies,
//! reclaim mode, check latency, apply delay, stockouts, scripted actions, the minimum and
//! maximum size, the check interval, the target-tracking and step policies, Kubernetes' HPA
//! (its targets, tolerances, sync period, readiness settings and behavior), the spot class
//! (preemption by rate and by round, notices, Batch's and AWS's aftermath, the mixed-instances
//! split), the warm pool, and a scenario's hooks (early completion, heartbeats, caps,
//! ROLLBACK), timed actions and tasks.
//!
//! No lesson program runs these options, so the oracle is the model's own laws: invalid
//! parameters are an `OutOfRange` error and the only other error is the group's documented
//! capacity; two runs agree bit for bit, watched or not; a watched run obeys the lifecycle's
//! invariants (`capsim_tests::check_lifecycle_run`: state counts add up to the group, hook
//! waits end by their timeout, billing and counts are the per-round figures summed); and
//! options that cannot act within the run (a stockout, scripted or timed actions from the
//! last round on) change nothing. Capped at 400 rounds.
#![no_main]

use capsim_core::autoscale::{self, Lifecycle, Params};
use capsim_core::rng::GroupLcg;
use capsim_core::{Capacity, Error};
use capsim_fuzz::same;
use capsim_tests::{check_lifecycle_run, GroupTape};
use libfuzzer_sys::fuzz_target;

const MAX_ROUNDS: u32 = 400;

fuzz_target!(|input: (Params, Lifecycle)| {
    let (mut p, lifecycle) = input;
    if p.rounds > MAX_ROUNDS && p.rounds <= autoscale::MAX_ROUNDS {
        p.rounds = 1 + p.rounds % MAX_ROUNDS;
    }
    p.lifecycle = lifecycle;
    let result = autoscale::run(&p);
    let mut tape = GroupTape::default();
    let watched = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut tape);
    assert!(same(&result, &watched), "watching changed the run: {p:?}");
    if p.validate().is_err() {
        assert!(
            matches!(result, Err(Error::OutOfRange { .. })),
            "{p:?}: {result:?}"
        );
        return;
    }
    let m = match result {
        Ok(m) => m,
        Err(Error::CapacityExceeded {
            capacity: Capacity::GroupSize | Capacity::GroupWithInFlight,
            limit,
        }) => {
            assert_eq!(limit as usize, autoscale::MAX_GROUP_SIZE);
            return;
        }
        Err(e) => panic!("{p:?}: {e:?}"),
    };
    check_lifecycle_run(&p, &tape.0, &m);
    // What cannot act within the run's rounds: a stockout from the end on, actions after it.
    let mut inert = p.clone();
    let end = p.rounds;
    if inert.lifecycle.stockout.is_some_and(|s| s.start >= end) {
        inert.lifecycle.stockout = None;
    }
    inert.lifecycle.events.retain(|e| e.round < end);
    // The acting ones, borrowed for the run (no list outlives it).
    let acting: Vec<_> = p
        .lifecycle
        .at
        .iter()
        .copied()
        .filter(|a| a.round < end)
        .collect();
    inert.lifecycle.at = &acting;
    if inert != p {
        let without = autoscale::run(&inert);
        assert!(
            same(&Ok::<_, Error>(m), &without),
            "inert options changed the run: {p:?}\nwith    {m:?}\nwithout {without:?}"
        );
    }
});
