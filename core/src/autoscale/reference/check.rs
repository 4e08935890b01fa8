//! Phase 2 of a round: the health check, and the in-place replacement of an instance
//! that failed `threshold` results in a row.

use crate::rng::UnitRng;

use super::super::policy::HealthCheck;
use super::super::state::{Instance, State};
use super::Group;

impl Group<'_> {
    /// Phase 2: the health check (it ignores the cooldown) checks every serving instance in
    /// storage order; a result counts `check_latency` rounds after its check; `threshold`
    /// failed results in a row replace the instance in place with a fresh launch (which
    /// fails in a stockout round, and then the record just leaves).
    // One call a round: kept inside `Group::round` (out of line it costs a call per round
    // and the group's state spilled around it).
    #[inline(always)]
    pub(super) fn health_check<H: HealthCheck, R: UnitRng>(
        &mut self,
        t: u32,
        check: &mut H,
        rng: &mut R,
    ) {
        let params = self.params;
        let latency = params.lifecycle.check_latency;
        // `check_interval` 1 (the lesson): every round.
        let checking = t.is_multiple_of(params.lifecycle.check_interval.max(1));
        let mut i = 0;
        while i < self.instances.len() {
            let o = &mut self.instances[i];
            if !o.state.serves() {
                i += 1;
                continue;
            }
            if o.broken() {
                self.metrics.broken_rounds = self.metrics.broken_rounds.saturating_add(1);
            }
            if !checking {
                i += 1;
                continue;
            }
            let failed = !check.passes(o.broken(), rng);
            let known = if latency == 0 {
                Some(failed)
            } else {
                o.in_transit = (o.in_transit << 1) | u8::from(failed);
                o.checks = o.checks.saturating_add(1);
                (u32::from(o.checks) > latency).then_some((o.in_transit >> latency) & 1 == 1)
            };
            if let Some(failed) = known {
                o.failures = if failed {
                    o.failures.saturating_add(1)
                } else {
                    0
                };
            }
            if o.failures < params.threshold {
                i += 1;
                continue;
            }
            self.metrics.replacements = self.metrics.replacements.saturating_add(1);
            self.now.replaced += 1;
            if !o.broken() {
                self.metrics.false_replacements = self.metrics.false_replacements.saturating_add(1);
            }
            if params.lifecycle.stocked_out(t) {
                self.metrics.failed_launches += 1;
                self.now.failed += 1;
                self.drop_at(i);
                continue;
            }
            let old = o.state;
            // The replacement keeps the class of the instance it replaces.
            let spot = o.is_spot();
            *o = Instance::of_class(spot, State::Pending, t, params.boot_rounds);
            self.counts.leave(old);
            self.counts.enter(State::Pending);
            if spot {
                self.spot.counts.leave(old);
                self.spot.counts.enter(State::Pending);
            }
            self.metrics.launched = self.metrics.launched.saturating_add(1);
            self.now.launched += 1;
            i += 1;
        }
    }
}
