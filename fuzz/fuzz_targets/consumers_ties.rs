//! `consumers::run_with` on arbitrary parameters and a workload drawn from a short table of
//! coarse values (`TableDraws`: multiples of 1/256), against the lesson program's port on the
//! same draws.
//!
//! The lesson's generator almost never repeats a value; here starts and arrivals tie all the
//! time, which tests the streamed queue's order (start buckets, the in-flight heap's
//! tie-break by shipment) against the lesson's stable sort. Capped like `consumers`: at most
//! 2048 events, and the port runs only while processing times are below 2^16 rounds.
#![no_main]

use arbitrary::Arbitrary;
use capsim_core::consumers::{
    self, Params, WorkloadDraws, Workspace, DEFAULT_IN_FLIGHT, MAX_SHIPMENTS,
};
use capsim_core::{Capacity, Error};
use capsim_fuzz::{same, TableDraws};
use libfuzzer_sys::fuzz_target;

const MAX_EVENTS: u32 = 2048;
const SHIPMENTS: usize = 4096;
/// The second run's workspace sorts every capped workload whole (the engine's fast path).
type Sorted = Workspace<SHIPMENTS, DEFAULT_IN_FLIGHT, 1, { MAX_EVENTS as usize }>;

#[derive(Debug, Arbitrary)]
struct Input {
    params: Params,
    /// The table: its first `1 + len % 8` bytes.
    table: [u8; 8],
    len: u8,
}

fuzz_target!(|input: Input| {
    let mut p = input.params;
    // The lesson's engines on tied workloads; the reference engine is `consumers`'.
    capsim_fuzz::without_flow(&mut p);
    if (1..=MAX_SHIPMENTS as u32).contains(&p.shipments) && p.events_per_shipment >= 1 {
        let most = (MAX_EVENTS / p.events_per_shipment).max(1);
        if p.shipments > most {
            p.shipments = 1 + p.shipments % most;
        }
    }
    let table = &input.table[..1 + usize::from(input.len) % 8];
    let mut ws = Workspace::<SHIPMENTS>::new();
    let result = consumers::run_with(&p, TableDraws(table), &mut ws, &mut ());
    let again = consumers::run_with(&p, TableDraws(table), &mut ws, &mut ());
    assert!(same(&result, &again), "not deterministic: {p:?}");
    let mut sorted = Sorted::new();
    let whole = consumers::run_with(&p, TableDraws(table), &mut sorted, &mut ());
    // A sorted queue needs no in-flight capacity: only the merged one can run out of it.
    if !matches!(
        result,
        Err(Error::CapacityExceeded {
            capacity: Capacity::ShipmentsInFlight,
            ..
        })
    ) {
        assert!(same(&result, &whole), "sorted differs: {p:?}");
    }
    if p.validate().is_err() {
        assert!(
            matches!(result, Err(Error::OutOfRange { .. })),
            "{p:?}: {result:?}"
        );
        return;
    }
    let mut draws = TableDraws(table);
    let workload = capsim_fuzz::consumers_workload(&p, |g, i| draws.draw(g, i));
    let m = match result {
        Ok(m) => m,
        Err(Error::WorkloadOrder { shipment }) => {
            assert!(
                capsim_fuzz::out_of_order(&workload, shipment),
                "{p:?}: {result:?}"
            );
            return;
        }
        Err(Error::CapacityExceeded {
            capacity: Capacity::ShipmentsInFlight,
            ..
        }) => return,
        Err(e) => panic!("{p:?}: {e:?}"),
    };
    capsim_fuzz::consumers_invariants(&p, &m);
    let slow = p
        .final_event_rounds
        .max(p.event_rounds_min.saturating_add(p.event_rounds_spread));
    if slow < 1 << 16 {
        let expected = capsim_fuzz::consumers_on(&p, workload);
        assert!(
            same(&m, &expected),
            "{p:?} {table:?}\ncore   {m:?}\nlesson {expected:?}"
        );
    }
});
