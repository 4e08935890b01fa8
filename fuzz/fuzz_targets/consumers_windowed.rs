//! `consumers::windowed` (the small-memory engine) against the main engine, on arbitrary
//! parameters: with the lesson's generator, and with a workload drawn from a short table of
//! coarse values (`TableDraws`, as `consumers_ties`: starts and arrivals tie all the time).
//!
//! Small windows (16 and 64 events) so that a run takes many passes, heaps that overflow and
//! empty windows. Capped like `consumers`: at most 2048 events. Checks: the same result —
//! metrics bit for bit, or the same error (bad parameters, a workload out of step order) —
//! unless the main engine's in-flight heap is full (a capacity the small engine does not
//! have); the observed rounds agree too while processing times are short.
#![no_main]

use arbitrary::Arbitrary;
use capsim_core::consumers::windowed::{self, AnyDraws, LessonKeys};
use capsim_core::consumers::{
    self, Flow, LessonDraws, Params, RoundState, Workspace, MAX_SHIPMENTS,
};
use capsim_core::{Capacity, Error, Observer};
use capsim_fuzz::{same, TableDraws};
use libfuzzer_sys::fuzz_target;

const MAX_EVENTS: u32 = 2048;
const SHIPMENTS: usize = 4096;

#[derive(Debug, Arbitrary)]
struct Input {
    params: Params,
    /// The table: its first `1 + len % 8` bytes.
    table: [u8; 8],
    len: u8,
}

/// Every round state and `round_done` reported.
#[derive(Default, PartialEq)]
struct Watch(Vec<RoundState>, Vec<u64>);

impl Observer<RoundState> for Watch {
    fn round(&mut self, state: &RoundState) {
        self.0.push(*state);
    }

    fn round_done(&mut self, round: u64) {
        self.1.push(round);
    }
}

fn in_flight_full<T>(r: &Result<T, Error>) -> bool {
    matches!(
        r,
        Err(Error::CapacityExceeded {
            capacity: Capacity::ShipmentsInFlight,
            ..
        })
    )
}

fuzz_target!(|input: Input| {
    let mut p = input.params;
    // The board engine plays the lesson's queue only: it refuses a valid flow option by name.
    if p.validate().is_ok() {
        if let Some(param) = p.flow.first_difference(&Flow::default()) {
            let mut small = windowed::Workspace::<{ windowed::words_for(SHIPMENTS) }, 16>::new();
            assert_eq!(
                windowed::run(&p, &mut small),
                Err(Error::OutOfRange {
                    param,
                    accepted: capsim_core::Accepted::DefaultOnly,
                })
            );
        }
    }
    capsim_fuzz::without_flow(&mut p);
    if (1..=MAX_SHIPMENTS as u32).contains(&p.shipments) && p.events_per_shipment >= 1 {
        let most = (MAX_EVENTS / p.events_per_shipment).max(1);
        if p.shipments > most {
            p.shipments = 1 + p.shipments % most;
        }
    }
    let mut main = Box::new(Workspace::<SHIPMENTS>::new());
    let mut small = windowed::Workspace::<{ windowed::words_for(SHIPMENTS) }, 16>::new();
    let want = consumers::run(&p, &mut main);
    let got = windowed::run(&p, &mut small);
    if !in_flight_full(&want) {
        assert!(same(&got, &want), "{p:?}\nsmall {got:?}\nmain  {want:?}");
    }
    let slow = p
        .final_event_rounds
        .max(p.event_rounds_min.saturating_add(p.event_rounds_spread));
    if want.is_ok() && slow < 64 {
        let (mut a, mut b) = (Watch::default(), Watch::default());
        let want = consumers::run_with(&p, LessonDraws::new(&p), &mut main, &mut a);
        let got = windowed::run_with(&p, LessonKeys::new(&p), &mut small, &mut b);
        assert!(same(&got, &want), "{p:?}");
        assert!(a == b, "observed rounds differ: {p:?}");
    }
    let table = &input.table[..1 + usize::from(input.len) % 8];
    let mut small = windowed::Workspace::<{ windowed::words_for(SHIPMENTS) }, 64>::new();
    let want = consumers::run_with(&p, TableDraws(table), &mut main, &mut ());
    let got = windowed::run_with(&p, AnyDraws(TableDraws(table)), &mut small, &mut ());
    if !in_flight_full(&want) {
        assert!(
            same(&got, &want),
            "{p:?} table {table:?}\nsmall {got:?}\nmain  {want:?}"
        );
    }
});
