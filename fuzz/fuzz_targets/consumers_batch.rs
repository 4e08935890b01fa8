//! `consumers::run_batch` (configurations sharing one workload, one pass over the queue)
//! against separate `run`s.
//!
//! One to five arbitrary configurations on a 4-lane workspace (five must be refused); unless
//! `mismatch` is below 16 (1 in 16 inputs) the others take the first one's workload
//! (shipments, events per shipment, gap, seed, processing times) and keep their consumers and
//! slots. Capped for speed like `consumers`: at most 2048 events. Checks: the batch writes
//! exactly the separate runs' metrics, or returns the error they return (a batch mismatch
//! with different workloads). The batch sorted whole in lent storage must agree with it.
#![no_main]

use arbitrary::Arbitrary;
use capsim_core::consumers::{self, Metrics, Params, Workspace, MAX_SHIPMENTS};
use capsim_core::{Capacity, Error};
use capsim_fuzz::same;
use libfuzzer_sys::fuzz_target;

const MAX_EVENTS: u32 = 2048;
const SHIPMENTS: usize = 4096;
const LANES: usize = 4;

#[derive(Debug, Arbitrary)]
struct Input {
    lanes: [Params; LANES + 1],
    count: u8,
    mismatch: u8,
}

fn same_workload(a: &Params, b: &Params) -> bool {
    a.shipments == b.shipments
        && a.events_per_shipment == b.events_per_shipment
        && a.queue_gap.to_bits() == b.queue_gap.to_bits()
        && a.seed == b.seed
        && a.final_event_rounds == b.final_event_rounds
        && a.event_rounds_min == b.event_rounds_min
        && a.event_rounds_spread == b.event_rounds_spread
}

fuzz_target!(|input: Input| {
    let mut lanes = input.lanes;
    for p in lanes.iter_mut() {
        // The lesson's engines' batches; the reference engine is `consumers`'.
        capsim_fuzz::without_flow(p);
        if (1..=MAX_SHIPMENTS as u32).contains(&p.shipments) && p.events_per_shipment >= 1 {
            let most = (MAX_EVENTS / p.events_per_shipment).max(1);
            if p.shipments > most {
                p.shipments = 1 + p.shipments % most;
            }
        }
    }
    if input.mismatch >= 16 {
        let first = lanes[0].clone();
        for p in lanes[1..].iter_mut() {
            *p = Params {
                consumers: p.consumers,
                slots: p.slots,
                ..first.clone()
            };
        }
    }
    let n = 1 + usize::from(input.count) % (LANES + 1);
    let params = &lanes[..n];
    let mut batch_ws = Workspace::<SHIPMENTS, 256, LANES>::new();
    let mut out = [Metrics::default(); LANES + 1];
    let batch = consumers::run_batch(params, &mut batch_ws, &mut out);
    let mut ws = Workspace::<SHIPMENTS>::new();
    let single: Vec<Result<Metrics, Error>> =
        params.iter().map(|p| consumers::run(p, &mut ws)).collect();
    let valid = params.iter().all(|p| p.validate().is_ok());
    let shared = params.iter().all(|p| same_workload(p, &params[0]));
    // The same batch on the workload sorted whole (lent storage): unobserved, so it runs the
    // fast lanes (N = 1 serially, N ≤ S by the branch-free minimum, whole rounds for S < N).
    // It has no in-flight heap, so where the merged batch is refused for that it may run:
    // compare only otherwise.
    let room = MAX_EVENTS as usize;
    let (mut keys, mut events) = (vec![0u128; room], vec![0u32; room]);
    let mut sorted_ws = Workspace::<SHIPMENTS, 256, LANES>::new();
    let mut sorted_out = [Metrics::default(); LANES + 1];
    let draws = consumers::LessonDraws::new(&params[0]);
    let sorted = consumers::run_batch_sorted_with(
        params,
        draws,
        &mut sorted_ws,
        &mut keys,
        &mut events,
        &mut (),
        &mut sorted_out,
    );
    let in_flight = matches!(
        batch,
        Err(Error::CapacityExceeded {
            capacity: Capacity::ShipmentsInFlight,
            ..
        })
    );
    if !in_flight {
        assert!(
            same(&sorted, &batch),
            "{params:?}\nsorted {sorted:?}\nmerged {batch:?}"
        );
        if batch.is_ok() {
            assert!(same(&&sorted_out[..n], &&out[..n]), "{params:?}");
        }
    }
    match &batch {
        Ok(()) => {
            assert!(valid && shared && n <= LANES, "{params:?}");
            for (m, s) in out.iter().zip(&single) {
                assert!(same(&Ok(*m), s), "{params:?}\nbatch  {m:?}\nsingle {s:?}");
            }
        }
        Err(Error::CapacityExceeded {
            capacity: Capacity::BatchLanes,
            limit,
        }) if n > LANES => {
            assert_eq!(*limit as usize, LANES);
        }
        Err(Error::BatchMismatch { .. }) => assert!(!shared, "{params:?}"),
        Err(Error::OutOfRange { .. }) => assert!(!valid, "{params:?}"),
        // A run-time limit of the shared workload: every separate run reaches it too.
        Err(e) => {
            assert!(valid && shared, "{params:?}: {e:?}");
            for s in &single {
                assert!(same(&Err(*e), s), "{params:?}\nbatch  {e:?}\nsingle {s:?}");
            }
        }
    }
});
