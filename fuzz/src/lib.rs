//! What the fuzz targets share: straight ports of the lesson programs (the specification) to
//! compare the core against, and a bitwise comparison of metrics. The ports live in
//! `capsim_tests::reference` (re-exported here), the one oracle the tests share.
//!
//! The ports follow the JavaScript line by line with growable vectors and no fixed capacity,
//! so they are slow but obviously the lesson's semantics; they reuse only the core's random
//! generators (checked against the lessons' outputs by the golden and differential tests) and
//! `Params::required` (the demand formula, likewise). Each returns what the lesson would
//! compute, or says why the core may legitimately refuse the run (a documented capacity).

use capsim_core::consumers;
use capsim_core::rng::UnitRng;

/// The ports of the lesson programs: the one oracle, shared with the cross-crate tests.
pub use capsim_tests::reference::{
    autoscale, autoscale_with, bulkhead, bulkhead_with, consumers, consumers_flow, consumers_on,
    consumers_workload, out_of_order, Lesson, QueuedEvent,
};

/// Turns the consumers' flow options off (the lesson's queue, shared): for the targets
/// that check the lesson's engines against each other; `consumers` fuzzes the reference engine.
pub fn without_flow(p: &mut consumers::Params) {
    p.flow = consumers::Flow::default();
}

/// Invariants of a successful consumers run with flow options, whatever the port says.
pub fn flow_invariants(p: &consumers::Params, m: &consumers::Metrics) {
    let events = p.events();
    assert!(m.dropped_events <= events, "{p:?} {m:?}");
    assert!(m.dropped_shipments <= p.shipments, "{p:?} {m:?}");
    assert!(
        m.max_backlog <= events - m.dropped_events.min(events),
        "{p:?} {m:?}"
    );
    if let Some(b) = p.flow.buffer {
        assert!(m.max_backlog <= u64::from(b), "{p:?} {m:?}");
    }
    if p.flow.routing == consumers::Routing::Keyed {
        assert_eq!(m.reordered_shipments, 0, "{p:?} {m:?}");
    }
    // Every admitted event is applied.
    let applied = events - m.dropped_events;
    assert_eq!(
        m.throughput.to_bits(),
        (applied as f64 / m.rounds as f64).to_bits(),
        "{p:?} {m:?}"
    );
}

/// Equal down to the bits (NaN equals NaN, 0 differs from -0): the `Debug` renderings, which
/// print every field and every double's shortest round-trip form.
pub fn same<T: core::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Workload draws from a short table of bytes (`byte / 256`): coarse values that tie often,
/// to test the queue's order among equal starts and arrivals. Empty: every draw is 0.
pub struct TableDraws<'a>(pub &'a [u8]);

impl consumers::WorkloadDraws for TableDraws<'_> {
    fn draw(&mut self, shipment: u32, index: u32) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        let at = (u64::from(shipment) * 7919 + u64::from(index)) % self.0.len() as u64;
        f64::from(self.0[at as usize]) / 256.0
    }
}

/// Invariants of a successful consumers run that follow from the lesson program, whatever
/// the port says.
pub fn consumers_invariants(p: &consumers::Params, m: &consumers::Metrics) {
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

/// Draws cycling through a short table of bytes (`byte / 256`): 0 exactly, values just below
/// 1, and values equal to a probability, which a good generator almost never gives.
pub struct TableRng<'a> {
    /// The bytes.
    pub table: &'a [u8],
    /// The next one.
    pub at: usize,
}

impl UnitRng for TableRng<'_> {
    fn next_unit(&mut self) -> f64 {
        let Some(&b) = self.table.get(self.at % self.table.len().max(1)) else {
            return 0.0;
        };
        self.at += 1;
        f64::from(b) / 256.0
    }
}

/// Records the rounds an observer is told about: each must come after the one before.
#[derive(Debug, Default)]
pub struct Rounds {
    /// Rounds reported.
    pub count: u64,
    /// The last round reported.
    pub last: Option<u64>,
}

impl<S: capsim_core::Round> capsim_core::Observer<S> for Rounds {
    /// Only the order of `round_done` is checked: no per-round states, so the consumers
    /// engine still skips idle rounds in one step (a fuzzed processing time may be 2^32).
    const ROUNDS: bool = false;

    fn round_done(&mut self, round: u64) {
        assert!(
            self.last.is_none_or(|last| round > last),
            "round {round} after {self:?}"
        );
        self.count += 1;
        self.last = Some(round);
    }
}
