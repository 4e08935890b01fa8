//! `bulkhead::run` on arbitrary parameters, against the lesson program's port.
//!
//! Capped for speed (hundreds of runs a second): at most 1000 rounds (a round costs its
//! arrivals, up to 255, three times: two runs and the port). Pool sizes, rates, holds and the
//! other fields stay arbitrary. Checks: invalid parameters are an `Err`; two runs agree, the
//! second reporting every round once; a successful run equals the port's metrics and obeys
//! the invariants below; the arrivals capacity error happens exactly when a round of the port
//! has more than 255 arrivals. The parameters turn on the options the lesson does not have
//! (`--failure-end`, `--breaker`, `--retries`, `--retry-backoff`) about half the time each, and
//! the port plays them too.
#![no_main]

use capsim_core::bulkhead::{self, Params, Split, MAX_HOLD};
use capsim_core::rng::ParkMiller;
use capsim_core::{Capacity, Error};
use capsim_fuzz::{same, Lesson, Rounds};
use libfuzzer_sys::fuzz_target;

const MAX_ROUNDS: u32 = 1000;

fuzz_target!(|p: Params| {
    let mut p = p;
    if p.horizon > MAX_ROUNDS && p.horizon <= bulkhead::MAX_HORIZON {
        p.horizon = 1 + p.horizon % MAX_ROUNDS;
    }
    let result = bulkhead::run(&p);
    // Again, watched: the same result, and every round reported once, in order.
    let mut rounds = Rounds::default();
    let again = bulkhead::run_with(&p, &mut ParkMiller::new(p.seed), &mut rounds);
    assert!(same(&result, &again), "not deterministic: {p:?}");
    if result.is_ok() {
        assert_eq!(rounds.count, u64::from(p.horizon), "{p:?}");
    }
    if p.validate().is_err() {
        assert!(
            matches!(result, Err(Error::OutOfRange { .. })),
            "{p:?}: {result:?}"
        );
        return;
    }
    let lesson = capsim_fuzz::bulkhead(&p);
    match (&result, &lesson) {
        (Ok(m), Lesson::Metrics(expected)) => {
            assert!(
                same(m, expected),
                "{p:?}\ncore   {m:?}\nlesson {expected:?}"
            );
            invariants(&p, m);
        }
        (
            Err(Error::CapacityExceeded {
                capacity: Capacity::ArrivalsPerRound,
                ..
            }),
            Lesson::OverCapacity,
        ) => {}
        _ => panic!("{p:?}\ncore   {result:?}\nlesson {lesson:?}"),
    }
});

/// Invariants that follow from the lesson program, whatever the port says.
fn invariants(p: &Params, m: &bulkhead::Metrics) {
    let slots = u64::from(p.total_slots);
    let horizon = u64::from(p.horizon);
    // No more slots busy than exist, in any round.
    assert!(m.busy_slot_rounds <= slots * horizon, "{m:?}");
    // Every slot taken is busy from the next round for its hold (or until the end).
    let longest = u64::from(p.tracking_hold.max(p.event_hold).max(p.slow_hold));
    assert!(
        m.busy_slot_rounds <= (m.tracking_served + m.dependency_calls) * longest,
        "{m:?}"
    );
    // Each served event request made a call; without retries, exactly one.
    assert!(m.dependency_calls >= m.event_served, "{m:?}");
    if p.resilience.retries == 0 {
        assert_eq!(m.dependency_calls, m.event_served, "{m:?}");
    }
    assert!(
        m.broken_slot_rounds <= m.dependency_calls * u64::from(p.slow_hold),
        "{m:?}"
    );
    if p.resilience.breaker.is_none() {
        assert_eq!(m.breaker_opened_round, None, "{m:?}");
    }
    // At most 255 arrivals a round.
    let arrivals = m.tracking_served + m.tracking_dropped + m.event_served + m.event_dropped;
    assert!(arrivals <= 255 * horizon, "{m:?}");
    match p.split {
        // One pool: a drop leaves no other pool's slots idle.
        Split::Shared => assert_eq!(m.idle_slots, 0, "{m:?}"),
        // Each drop strands at most the other pool's slots (a retried try's drop too, which
        // no drop count holds: checked without retries).
        Split::Partitioned(k) if p.resilience.retries == 0 => {
            let most = u64::from(k.max(p.total_slots - k));
            assert!(
                m.idle_slots <= (m.tracking_dropped + m.event_dropped) * most,
                "{m:?}"
            );
        }
        Split::Partitioned(_) => {}
    }
    // A pool holds at most 255 arrivals a round for at most MAX_HOLD rounds: one at least
    // that large never drops for want of slots (an open breaker's rejections are counted
    // as dropped events: checked without a breaker).
    let smallest = match p.split {
        Split::Shared => slots,
        Split::Partitioned(k) => u64::from(k.min(p.total_slots - k)),
    };
    if smallest >= 255 * u64::from(MAX_HOLD) && p.resilience.breaker.is_none() {
        assert_eq!(m.tracking_dropped + m.event_dropped, 0, "{m:?}");
    }
}
