//! Phase 5 of a round: the round's metrics and its snapshot for the observer.

use super::super::spec::js_max;
use super::super::state::State;
use super::Group;

impl Group<'_> {
    /// Phase 5: the round's metrics.
    pub(super) fn measure(&mut self, needed: i64) {
        self.metrics.heartbeats = self.metrics.heartbeats.saturating_add(self.now.heartbeats);
        let size = self.instances.len() as u32; // at most the capacity
        let c = &self.counts;
        let serving = c.serving();
        let launching = c.launching();
        let warm = self.warm_billed();
        let c = &self.counts;
        let billed = size - c.get(State::Stopped) - c.get(State::Preempted) + warm;
        let m = &mut self.metrics;
        m.min_size = m.min_size.min(size);
        m.max_size = m.max_size.max(size);
        m.max_launching = m.max_launching.max(launching);
        // An empty group gives 0 / 0 = NaN, and `Math.max` keeps NaN for the rest of the run.
        m.max_launching_ratio = js_max(
            m.max_launching_ratio,
            f64::from(launching) / f64::from(size),
        );
        if i64::from(serving) < needed {
            m.under_capacity_rounds += 1;
        }
        m.billed_rounds += u64::from(billed);
        // Idle: billed and not serving in this round. An instance that came into service
        // at its end serves from the next round, so its boot (restart, hook wait) is billed
        // idle for every one of its rounds (the ledger's "two rounds" for a boot of two).
        m.idle_billed_rounds += u64::from(billed - serving + self.now.entered_service);
        self.now.size = size;
        self.now.counts = self.counts;
        self.spot
            .measure(&self.counts, &mut self.metrics, &mut self.now);
    }
}
