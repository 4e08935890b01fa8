//! `consumers::run` on arbitrary parameters, against the lesson program's port.
//!
//! Capped for speed (hundreds of runs a second): at most 2048 events (shipments are cut to
//! fit, in a 4096-shipment workspace), and the port runs only while every processing time is
//! below 2^16 rounds (it steps through rounds; the core skips them). Checks: invalid
//! parameters are an `Err`; two runs agree (the queue merged on the fly, then sorted whole),
//! the second reporting its rounds in order and the run's last round last; a successful run
//! obeys the invariants below and equals the port's
//! metrics; a workload-order error happens only when a shipment's events really arrive out of
//! step order. Parameters with a flow option (an arrival rate, an outage, a buffer, keyed
//! routing: `Params`' `Arbitrary` turns each on 1 in 4) run on the reference engine and must
//! equal `reference::consumers_flow` and obey `flow_invariants`.
#![no_main]

use capsim_core::consumers::{
    self, Flow, LessonDraws, Params, Workspace, DEFAULT_IN_FLIGHT, MAX_SHIPMENTS,
};
use capsim_core::rng::{CounterHash, UnitRng};
use capsim_core::{Capacity, Error};
use capsim_fuzz::{same, Rounds};
use libfuzzer_sys::fuzz_target;

const MAX_EVENTS: u32 = 2048;
const SHIPMENTS: usize = 4096;
/// The second run's workspace sorts every capped workload whole (the engine's fast path).
type Sorted = Workspace<SHIPMENTS, DEFAULT_IN_FLIGHT, 1, { MAX_EVENTS as usize }>;

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
    // Again, watched: the same result; rounds reported in order, the last one the run's.
    let mut rounds = Rounds::default();
    let mut sorted = Sorted::new();
    let again = consumers::run_with(&p, LessonDraws::new(&p), &mut sorted, &mut rounds);
    // Only a run on the lesson's queue with a flow option needs the room to keep it in
    // arrival order, which the first workspace lacks.
    let no_room = matches!(
        result,
        Err(Error::CapacityExceeded {
            capacity: Capacity::QueuedEvents,
            ..
        })
    );
    if no_room {
        assert!(
            p.flow != Flow::default() && p.flow.arrival_rate.is_none(),
            "{p:?}"
        );
    }
    // A sorted queue needs no in-flight capacity: only the merged one can run out of it.
    if !no_room
        && !matches!(
            result,
            Err(Error::CapacityExceeded {
                capacity: Capacity::ShipmentsInFlight,
                ..
            })
        )
    {
        assert!(same(&result, &again), "sorted differs: {p:?}");
    }
    if let Ok(m) = &again {
        assert_eq!(rounds.last, Some(m.rounds - 1), "{p:?}");
    }
    if p.validate().is_err() {
        assert!(
            matches!(result, Err(Error::OutOfRange { .. })),
            "{p:?}: {result:?}"
        );
        return;
    }
    // The flow engine (arrivals, outage, buffer, keyed routing) against its reference port,
    // which skips idle and countdown-only rounds as the engine does.
    if p.flow != Flow::default() {
        let m = match again {
            Ok(m) => m,
            Err(Error::WorkloadOrder { shipment }) => {
                let mut r = CounterHash::new(p.seed);
                let workload = capsim_fuzz::consumers_workload(&p, |_, _| r.next_unit());
                assert!(capsim_fuzz::out_of_order(&workload, shipment), "{p:?}");
                return;
            }
            // The lesson's queue is generated through the in-flight heap.
            Err(Error::CapacityExceeded {
                capacity: Capacity::ShipmentsInFlight,
                ..
            }) if p.flow.arrival_rate.is_none() => return,
            Err(e) => panic!("{p:?}: {e:?}"),
        };
        capsim_fuzz::flow_invariants(&p, &m);
        let expected = capsim_fuzz::consumers_flow(&p);
        assert!(
            same(&m, &expected),
            "{p:?}\ncore      {m:?}\nreference {expected:?}"
        );
        return;
    }
    let m = match result {
        Ok(m) => m,
        Err(Error::WorkloadOrder { shipment }) => {
            let mut r = CounterHash::new(p.seed);
            let workload = capsim_fuzz::consumers_workload(&p, |_, _| r.next_unit());
            assert!(
                capsim_fuzz::out_of_order(&workload, shipment),
                "{p:?}: {result:?}"
            );
            return;
        }
        // The in-flight heap's documented capacity.
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
        let expected = capsim_fuzz::consumers(&p);
        assert!(
            same(&m, &expected),
            "{p:?}\ncore   {m:?}\nlesson {expected:?}"
        );
    }
});
