//! The group's warm pool (see `autoscale/warm.rs`): warm starts, refills and reuse. Nothing
//! here runs without a pool.

use crate::error::Error;

use super::super::state::{Instance, State};
use super::super::warm::{WarmState, MAX_MINUS_DESIRED};
use super::Group;

impl Group<'_> {
    /// A dedicated scale-out's warm starts: up to `n` warm instances join as Restarting
    /// (serving after `restart_rounds`) for a decision of round `decided`; returns how many.
    pub(super) fn warm_start(&mut self, decided: u32, n: u32) -> Result<u32, Error> {
        let params = self.params;
        let free = (self.capacity - self.instances.len()) as u32;
        let k = self.warm.take(n.min(free));
        for _ in 0..k {
            self.push(Instance::new(
                State::Restarting,
                decided,
                params.lifecycle.restart_rounds,
            ))?;
        }
        self.now.restarted += k;
        self.metrics.warm_starts = self.metrics.warm_starts.saturating_add(k);
        Ok(k)
    }

    /// With reuse: instance `i`, leaving by scale-in (Removing, Removing:Wait), returns to
    /// the pool if it has room (the record goes); returns whether it did.
    pub(super) fn reuse_warm(&mut self, i: usize) -> bool {
        let o = &self.instances[i];
        let leaving = matches!(o.state, State::Removing | State::RemovingWait);
        if !leaving || o.is_spot() || !self.warm.reuse(&self.params.lifecycle.warm_pool) {
            return false;
        }
        self.drop_at(i);
        true
    }

    /// Phase 4b: refills finish booting, and the owed ones launch into the pool.
    pub(super) fn refill_warm_pool(&mut self, t: u32) {
        let params = self.params;
        if params.lifecycle.warm_pool.size == 0 {
            return;
        }
        if params.lifecycle.warm_pool.size == MAX_MINUS_DESIRED {
            // AWS's default size: the maximum in force minus the desired capacity.
            let desired = self.instances.len() as u32 - self.counts.get(State::Stopped)
                + self.in_flight_total;
            self.warm
                .resize(self.bounds.1.unwrap_or(0).saturating_sub(desired));
        }
        let stocked_out = params.lifecycle.stocked_out(t);
        let n = self.warm.advance(t, params.boot_rounds, stocked_out);
        self.metrics.launched = self.metrics.launched.saturating_add(n);
        self.now.launched += n;
    }

    /// Phase 5's part: notes the pool in `now` and returns its instances billed in full
    /// this round; the Stopped ones count in `stopped_rounds`.
    pub(super) fn warm_billed(&mut self) -> u32 {
        if self.params.lifecycle.warm_pool.size == 0 {
            return 0;
        }
        let booting = self.warm.booting();
        let ready = self.warm.ready;
        let billed = match self.params.lifecycle.warm_pool.state {
            WarmState::Stopped => {
                self.metrics.stopped_rounds += u64::from(ready);
                booting
            }
            WarmState::Running => booting + ready,
        };
        self.now.warm = ready + booting;
        self.now.warm_billed = billed;
        billed
    }
}
