//! The store: one byte per shipment, the last step applied and the reordered flag.

use super::{Metrics, Params};

pub(crate) const STEP_MASK: u8 = 0x7f;

pub(crate) const REORDERED: u8 = 0x80;

/// A lane's metrics once its last event is applied in round `last_round`: a shipment's
/// final state is wrong when its store entry's last applied step is not the final one.
pub(crate) fn lane_metrics(
    store: &[u8],
    p: &Params,
    last_round: u64,
    reordered: u32,
    total: u64,
) -> Metrics {
    let final_step = p.events_per_shipment;
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
    }
}

/// Applies `job` (`shipment << 8 | step`) to the store, flagging the shipment when an earlier
/// step than the last applied one comes: `old & STEP_MASK` is the last step applied + 1 (0
/// for none), bit 7 the flag, so `old > step + 1` is that condition for an unflagged
/// shipment and always true for a flagged one (step + 1 < 128): the flag rises once and
/// stays, with no branch and no counter (the flags are counted at the end).
#[inline(always)]
pub(crate) fn apply_flagged(store: &mut [u8], job: u32) {
    let step1 = (job as u8).wrapping_add(1);
    if let Some(state) = store.get_mut((job >> 8) as usize) {
        *state = step1 | (u8::from(*state > step1) << 7);
    }
}
