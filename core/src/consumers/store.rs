//! The store: one byte per shipment, the last step applied and the reordered flag.
//!
//! A shipment's byte: bits 0–6 the last step applied plus one (0: none), bit 7 the reordered
//! flag. [`apply`] is the one definition of what applying an event does to it; every lane
//! engine calls it.

use super::spec::{Metrics, Workload};

/// The bits of a store byte that hold the last step applied plus one.
pub(crate) const STEP_MASK: u8 = 0x7f;
/// The bit of a store byte that flags a reordered shipment.
pub(crate) const REORDERED: u8 = 0x80;

/// Returns the store byte after applying step `step` to a shipment whose byte is `old`: the
/// step plus one, flagged when an earlier step than the last applied one comes. `old &
/// STEP_MASK` is the last step applied + 1 (0 for none) and bit 7 the flag, so `old > step +
/// 1` is that condition for an unflagged shipment and always true for a flagged one (step +
/// 1 < 128): the flag rises once and stays, with no branch.
#[inline(always)]
pub(crate) fn apply(old: u8, step: u8) -> u8 {
    let step1 = step.wrapping_add(1);
    step1 | (u8::from(old > step1) << 7)
}

/// Returns 1 when `new` (what [`apply`] made of `old`) first flags its shipment, else 0.
#[inline(always)]
pub(crate) fn newly_reordered(old: u8, new: u8) -> u32 {
    u32::from((new & !old) >> 7)
}

/// A lane's metrics once its last event is applied in round `last_round`, having applied
/// `total` events: a shipment's final state is wrong when its store entry's last applied
/// step is not the final one. The backlog is the lesson queue's (`total` events at round 0,
/// none dropped); the reference engine sets its own.
pub(crate) fn lane_metrics(
    store: &[u8],
    w: &Workload,
    last_round: u64,
    reordered: u32,
    total: u64,
) -> Metrics {
    let final_step = w.events_per_shipment;
    let wrong = store
        .iter()
        .filter(|&&s| u32::from(s & STEP_MASK) != final_step)
        .count() as u32;
    let rounds = last_round + 1;
    Metrics {
        rounds,
        reordered_shipments: reordered,
        wrong_final_state: wrong,
        throughput: total as f64 / rounds as f64,
        // The lesson's queue holds every event from round 0, and drops none.
        max_backlog: total,
        dropped_events: 0,
        dropped_shipments: 0,
    }
}

/// [`apply`]s `job` (`shipment << 8 | step`) to the store, with no counter (the flags are
/// counted at the end).
#[inline(always)]
pub(crate) fn apply_flagged(store: &mut [u8], job: u32) {
    if let Some(state) = store.get_mut((job >> 8) as usize) {
        *state = apply(*state, job as u8);
    }
}
