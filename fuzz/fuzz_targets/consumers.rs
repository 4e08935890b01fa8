//! `consumers::run` on arbitrary parameters, against the lesson program's port.
//!
//! Capped for speed (hundreds of runs a second): at most 2048 events (shipments are cut to
//! fit, in a 4096-shipment workspace), and the port runs only while every processing time is
//! below 2^16 rounds (it steps through rounds; the core skips them). Checks: invalid
//! parameters are an `Err`; two runs agree; a successful run obeys the invariants below and
//! equals the port's metrics; a workload-order error happens only when a shipment's events
//! really arrive out of step order.
#![no_main]

use capsim_core::consumers::{self, Params, Workspace, MAX_SHIPMENTS};
use capsim_core::rng::{CounterHash, UnitRng};
use capsim_core::{Capacity, Error};
use capsim_fuzz::same;
use libfuzzer_sys::fuzz_target;

const MAX_EVENTS: u32 = 2048;
const SHIPMENTS: usize = 4096;

fuzz_target!(|p: Params| {
    let mut p = p;
    if (1..=MAX_SHIPMENTS as u32).contains(&p.shipments) && p.events_per_shipment >= 1 {
        let most = (MAX_EVENTS / p.events_per_shipment).max(1);
        if p.shipments > most {
            p.shipments = 1 + p.shipments % most;
        }
    }
    let mut ws = Workspace::<SHIPMENTS>::new();
    let result = consumers::run(&p, &mut ws);
    assert!(
        same(&result, &consumers::run(&p, &mut ws)),
        "not deterministic: {p:?}"
    );
    if p.validate().is_err() {
        assert!(
            matches!(result, Err(Error::OutOfRange { .. })),
            "{p:?}: {result:?}"
        );
        return;
    }
    let m = match result {
        Ok(m) => m,
        Err(Error::WorkloadOrder { shipment }) => {
            assert!(out_of_order(&p, shipment), "{p:?}: {result:?}");
            return;
        }
        // The in-flight heap's documented capacity.
        Err(Error::CapacityExceeded {
            capacity: Capacity::ShipmentsInFlight,
            ..
        }) => return,
        Err(e) => panic!("{p:?}: {e:?}"),
    };
    invariants(&p, &m);
    let slow = p
        .final_event_rounds
        .max(p.event_rounds_min.saturating_add(p.event_rounds_spread));
    if slow < 1 << 16 {
        let expected = capsim_fuzz::consumers(&p);
        assert!(
            same(&m, &expected),
            "{p:?}\ncore   {m:?}\nlesson {expected:?}"
        );
    }
});

/// Invariants that follow from the lesson program, whatever the port says.
fn invariants(p: &Params, m: &consumers::Metrics) {
    let events = p.events();
    // Nothing is applied in round 0, then at most min(slots, consumers) per round: rounds
    // >= 1 + ceil(events / that).
    let per_round = u64::from(p.slots.min(p.consumers));
    assert!(m.rounds > events.div_ceil(per_round), "{p:?} {m:?}");
    assert_eq!(
        m.throughput.to_bits(),
        (events as f64 / m.rounds as f64).to_bits()
    );
    // A shipment whose last applied event is not its final one applied the final one
    // earlier: it was reordered.
    assert!(m.wrong_final_state <= m.reordered_shipments, "{m:?}");
    assert!(m.reordered_shipments <= p.shipments, "{m:?}");
    if p.consumers == 1 || p.events_per_shipment == 1 {
        // One consumer applies in queue order, which is step order; one event cannot be
        // reordered against another.
        assert_eq!(
            (m.reordered_shipments, m.wrong_final_state),
            (0, 0),
            "{p:?} {m:?}"
        );
    }
}

/// Whether `shipment`'s events, generated as the lesson does, arrive out of step order.
fn out_of_order(p: &Params, shipment: u32) -> bool {
    let mut r = CounterHash::new(p.seed);
    let mut arrival = f64::NEG_INFINITY;
    for g in 0..p.shipments {
        let start = r.next_unit() * f64::from(p.shipments) * p.queue_gap;
        for k in 0..p.events_per_shipment {
            let t = start + f64::from(k) * p.queue_gap + r.next_unit() * p.queue_gap;
            if g == shipment && t < arrival {
                return true;
            }
            arrival = t;
            if k + 1 < p.events_per_shipment {
                r.next_unit();
            }
        }
        arrival = f64::NEG_INFINITY;
    }
    false
}
