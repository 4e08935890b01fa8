//! The group's spot class (see `autoscale/spot.rs`): its preemption phase and how a
//! decision is split between the two classes. Nothing here runs without the class.

use crate::error::Error;

use super::super::lifecycle::RemovalPolicy;
use super::super::policy::{ScalingPolicy, Signal, SpotSignal};
use super::super::spot::OnPreemption;
use super::super::state::{Instance, State, StateCounts};
use super::Group;

impl Group<'_> {
    /// Returns the instances per state of the spot class (`spot`) or the dedicated one.
    pub(super) fn class_counts(&self, spot: bool) -> StateCounts {
        if spot {
            return self.spot.counts;
        }
        let mut c = self.counts;
        for (n, s) in c.0.iter_mut().zip(self.spot.counts.0) {
            *n -= s;
        }
        c
    }

    /// Returns how many of an initial group of `n` are dedicated: all of them, unless a
    /// mixed-instances rule splits them.
    pub(super) fn initial_dedicated(&self, n: u32) -> u32 {
        let spot = &self.params.lifecycle.spot;
        if spot.mixed() {
            spot.split(n).0
        } else {
            n
        }
    }

    /// Returns the spot class's part of the policy's signal (`None` without the class).
    pub(super) fn spot_signal(&self) -> Option<SpotSignal> {
        let spot = &self.params.lifecycle.spot;
        if !spot.enabled() {
            return None;
        }
        let leaving = if spot.on_preemption == OnPreemption::Replace {
            // At most the capacity's records: fits.
            self.instances
                .iter()
                .filter(|o| {
                    o.noticed()
                        && matches!(
                            o.state,
                            State::InService | State::Protected | State::Standby
                        )
                })
                .count() as u32
        } else {
            0
        };
        Some(SpotSignal {
            counts: self.spot.counts,
            in_flight: self.spot.in_flight_total,
            leaving,
        })
    }

    /// Phase 1b (the spot class only): preempted nodes come back where capacity returned,
    /// notices count down, and running spot instances are struck (storage order, one draw
    /// each when a rate is set). See `spot` for the semantics.
    pub(super) fn preempt(&mut self, t: u32) -> Result<(), Error> {
        let params = self.params;
        let spot = &params.lifecycle.spot;
        if self.spot.counts.total() == 0 {
            return Ok(());
        }
        let scripted = spot.scripted(t);
        let rate = spot.preemption_rate.unwrap_or(0.0);
        let notice = spot.preemption_notice;
        let mut i = 0;
        while i < self.instances.len() {
            let o = self.instances[i];
            if !o.is_spot() {
                i += 1;
                continue;
            }
            match o.state {
                // Capacity returns unless this round strikes the node again (its draw is
                // made either way); a restored node boots like a launch (and fails like one
                // in a stockout).
                State::Preempted
                    if !self.spot.struck(scripted, rate) && !params.lifecycle.stocked_out(t) =>
                {
                    self.set(i, State::Pending);
                    self.instances[i] = Instance::spot(State::Pending, t, params.boot_rounds);
                    self.metrics.launched = self.metrics.launched.saturating_add(1);
                    self.now.launched += 1;
                }
                State::InService | State::Protected | State::Standby => {
                    if o.noticed() {
                        let left = o.timer.saturating_sub(1);
                        self.instances[i].timer = left;
                        if left == 0 && !self.take(i, t, notice) {
                            continue;
                        }
                    } else if self.spot.struck(scripted, rate) {
                        if notice == 0 {
                            if !self.take(i, t, notice) {
                                continue;
                            }
                        } else {
                            let o = &mut self.instances[i];
                            o.set_noticed(true);
                            o.timer = notice;
                            if spot.on_preemption == OnPreemption::Replace {
                                self.launch_replacement(t)?;
                            }
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Ok(())
    }

    /// Takes spot instance `i` back in round `t`; returns whether its record stays at `i`.
    fn take(&mut self, i: usize, t: u32, notice: u32) -> bool {
        let params = self.params;
        self.metrics.preemptions = self.metrics.preemptions.saturating_add(1);
        self.now.preempted += 1;
        match params.lifecycle.spot.on_preemption {
            OnPreemption::Stay => {
                self.set(i, State::Preempted);
                self.instances[i] = Instance::spot(State::Preempted, t, 0);
                true
            }
            // The replacement was launched at the notice.
            OnPreemption::Replace if notice > 0 => {
                self.drop_at(i);
                false
            }
            OnPreemption::Replace => {
                if params.lifecycle.stocked_out(t) {
                    self.metrics.failed_launches += 1;
                    self.now.failed += 1;
                    self.drop_at(i);
                    return false;
                }
                self.set(i, State::Pending);
                self.instances[i] = Instance::spot(State::Pending, t, params.boot_rounds);
                self.metrics.launched = self.metrics.launched.saturating_add(1);
                self.now.launched += 1;
                true
            }
        }
    }

    /// AWS at a notice: one spot launch to replace the instance (Capacity Rebalancing).
    fn launch_replacement(&mut self, t: u32) -> Result<(), Error> {
        let params = self.params;
        if params.lifecycle.stocked_out(t) {
            self.metrics.failed_launches += 1;
            self.now.failed += 1;
            return Ok(());
        }
        self.push(Instance::spot(State::Pending, t, params.boot_rounds))?;
        self.metrics.launched = self.metrics.launched.saturating_add(1);
        self.now.launched += 1;
        Ok(())
    }

    /// Phase 3 with the spot class: a policy that steers the spot class itself (a formula)
    /// changes each class by its own decision; under a mixed-instances rule the change is
    /// split by it. Returns whether the round's decision acted, or `None` when neither
    /// applies (the decision is the dedicated class's alone, as without the class).
    pub(super) fn scale_classes<P: ScalingPolicy>(
        &mut self,
        t: u32,
        change: i64,
        signal: &Signal,
        policy: &mut P,
    ) -> Result<Option<bool>, Error> {
        let params = self.params;
        let spot = &params.lifecycle.spot;
        if !spot.enabled() {
            return Ok(None);
        }
        let drain = policy.drain_rounds();
        if let Some(spot_change) = policy.decide_spot(signal) {
            let dedicated = self.change_class(t, change, false, drain)?;
            let spot = self.change_class(t, spot_change, true, drain)?;
            return Ok(Some(dedicated || spot));
        }
        if !spot.mixed() || change == 0 {
            return Ok(None);
        }
        let live = |c: StateCounts| {
            i64::from(c.serving()) + i64::from(c.launching()) + i64::from(c.get(State::Standby))
        };
        let spot_flight = i64::from(self.spot.in_flight_total);
        let have_spot = live(self.spot.counts) + spot_flight;
        let have_dedicated =
            live(self.class_counts(false)) + i64::from(self.in_flight_total) - spot_flight;
        // `change` may be i64::MAX (a demand of +inf saturates the policy's count).
        let desired = (have_spot + have_dedicated)
            .saturating_add(change)
            .clamp(0, i64::from(u32::MAX));
        let (dedicated, spot_share) = spot.split(desired as u32);
        if change > 0 {
            let launch_dedicated = (i64::from(dedicated) - have_dedicated).clamp(0, change);
            if launch_dedicated > 0 {
                self.ask_of(t, launch_dedicated, false)?;
            }
            if change > launch_dedicated {
                self.ask_of(t, change - launch_dedicated, true)?;
            }
            return Ok(Some(true));
        }
        let n = change.unsigned_abs();
        // `change` may be i64::MIN (a demand of -inf saturates the policy's count): n is then
        // 2^63, one past i64::MAX.
        let most = i64::try_from(n).unwrap_or(i64::MAX);
        let from_spot = (have_spot - i64::from(spot_share)).clamp(0, most) as u64;
        let mut removed = u64::from(self.scale_in_of(from_spot, drain, Some(true)));
        removed += u64::from(self.scale_in_of(n - from_spot, drain, Some(false)));
        if removed < n {
            removed += u64::from(self.scale_in_of(n - removed, drain, None));
        }
        let lesson_quirk =
            self.instances.is_empty() && params.lifecycle.removal_policy == RemovalPolicy::Lesson;
        Ok(Some(removed > 0 || lesson_quirk))
    }

    /// Changes one class by `change`: launches, or a scale-in among its instances (the
    /// spot class's Preempted nodes first: they serve nothing). Returns whether it acted.
    fn change_class(&mut self, t: u32, change: i64, spot: bool, drain: u32) -> Result<bool, Error> {
        if change > 0 {
            self.ask_of(t, change, spot)?;
            return Ok(true);
        }
        if change == 0 {
            return Ok(false);
        }
        let mut n = change.unsigned_abs();
        let mut removed = 0u64;
        if spot {
            while n > 0 {
                let Some(i) = self
                    .instances
                    .iter()
                    .position(|o| o.state == State::Preempted)
                else {
                    break;
                };
                self.drop_at(i);
                self.now.removed += 1;
                removed += 1;
                n -= 1;
            }
        }
        removed += u64::from(self.scale_in_of(n, drain, Some(spot)));
        Ok(removed > 0)
    }
}
