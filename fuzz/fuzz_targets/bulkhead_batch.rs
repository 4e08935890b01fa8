//! `bulkhead::run_batch` (layouts sharing one arrival stream) against separate `run`s.
//!
//! Four arbitrary layouts; unless `mismatch` is below 16 (1 in 16 inputs) the last three take
//! the first one's stream (seed, horizon, rounds per second, rates), so the batch is valid
//! when every layout is, and when `mismatch` is even the second and third also take its pools
//! and hold times (differing in their slowdowns: they follow the first until it starts). Capped for speed like `bulkhead`: at most 1000 rounds (eight runs an
//! input). Checks: the batch returns exactly the separate runs' results (or, with different
//! streams, a batch mismatch); every layout sees the same arrivals; batches of 0 and 1 agree,
//! on the workspace the batch of four used (a run sets its lanes up afresh); five layouts on
//! four lanes are refused.
#![no_main]

use arbitrary::Arbitrary;
use capsim_core::bulkhead::{self, Metrics, Params, Resilience};
use capsim_core::{Capacity, Error};
use capsim_fuzz::same;
use libfuzzer_sys::fuzz_target;

const MAX_ROUNDS: u32 = 1000;

#[derive(Debug, Arbitrary)]
struct Input {
    lanes: [Params; 4],
    mismatch: u8,
}

fn same_stream(a: &Params, b: &Params) -> bool {
    a.seed == b.seed
        && a.horizon == b.horizon
        && a.rounds_per_second == b.rounds_per_second
        && a.tracking_rate == b.tracking_rate
        && a.event_rate == b.event_rate
}

fuzz_target!(|input: Input| {
    let mut lanes = input.lanes;
    for p in lanes.iter_mut() {
        // The lesson's batch engine: the options the lesson does not have (a breaker,
        // retries, a failure end) go to the reference engine one layout at a time, whatever
        // their stream (the `bulkhead` target fuzzes them; tests/tests/engines.rs mixes them
        // into a batch).
        p.resilience = Resilience::default();
        if p.horizon > MAX_ROUNDS && p.horizon <= bulkhead::MAX_HORIZON {
            p.horizon = 1 + p.horizon % MAX_ROUNDS;
        }
    }
    if input.mismatch >= 16 {
        let first = lanes[0].clone();
        for p in lanes[1..].iter_mut() {
            (p.seed, p.horizon, p.rounds_per_second) =
                (first.seed, first.horizon, first.rounds_per_second);
            (p.tracking_rate, p.event_rate) = (first.tracking_rate, first.event_rate);
        }
        if input.mismatch.is_multiple_of(2) {
            // Slowdowns of one layout: the later lanes follow the first until theirs starts.
            for p in lanes[1..3].iter_mut() {
                (p.split, p.total_slots) = (first.split, first.total_slots);
                (p.tracking_hold, p.event_hold) = (first.tracking_hold, first.event_hold);
            }
        }
    }
    let mut ws = bulkhead::Workspace::<4>::new();
    let mut out = [Metrics::default(); 4];
    let batch = bulkhead::run_batch(&lanes, &mut ws, &mut out).map(|()| out);
    let single: Vec<Result<Metrics, Error>> = lanes.iter().map(bulkhead::run).collect();
    let valid = lanes.iter().all(|p| p.validate().is_ok());
    let shared = lanes.iter().all(|p| same_stream(p, &lanes[0]));
    match &batch {
        Ok(ms) => {
            assert!(valid && shared, "{lanes:?}: {batch:?}");
            for (m, s) in ms.iter().zip(&single) {
                assert!(same(&Ok(*m), s), "{lanes:?}\nbatch  {m:?}\nsingle {s:?}");
                // One stream: the same arrivals, whatever the layout does with them.
                let (a, b) = (&ms[0], m);
                assert_eq!(
                    (
                        a.tracking_served + a.tracking_dropped,
                        a.event_served + a.event_dropped
                    ),
                    (
                        b.tracking_served + b.tracking_dropped,
                        b.event_served + b.event_dropped
                    ),
                    "{lanes:?}"
                );
            }
        }
        Err(Error::BatchMismatch { .. }) => assert!(!shared, "{lanes:?}"),
        Err(Error::OutOfRange { .. }) => assert!(!valid, "{lanes:?}"),
        // A run-time capacity: the stream's, so every separate run reaches it too.
        Err(e) => {
            assert!(valid && shared, "{lanes:?}: {e:?}");
            for s in &single {
                assert!(same(&Err(*e), s), "{lanes:?}\nbatch  {e:?}\nsingle {s:?}");
            }
        }
    }
    let mut one = [Metrics::default()];
    let one = bulkhead::run_batch(&lanes[..1], &mut ws, &mut one).map(|()| one[0]);
    assert!(same(&one, &single[0]), "{:?}", lanes[0]);
    assert_eq!(bulkhead::run_batch(&[], &mut ws, &mut []), Ok(()));
    let five = [&lanes[..], &lanes[..1]].concat();
    let refused = Err(Error::CapacityExceeded {
        capacity: Capacity::BatchLanes,
        limit: 4,
    });
    assert_eq!(
        bulkhead::run_batch(&five, &mut ws, &mut [Metrics::default(); 5]),
        refused
    );
});
