//! Phase 3 of a round, scale-out: the delayed launches join, the policy decides, and a
//! launch restarts Stopped instances first (then warm ones) before fresh ones.

use crate::error::Error;

use super::super::lifecycle::{bounded_by, RemovalPolicy};
use super::super::limits::IN_FLIGHT_SLOTS;
use super::super::policy::{ScalingPolicy, Signal};
use super::super::spec::{group_full, in_flight_full};
use super::super::state::{Instance, State};
use super::Group;

impl Group<'_> {
    /// Phase 3a: the instances an earlier decision asked for (`apply_delay` rounds ago)
    /// join the group.
    pub(super) fn join_delayed(&mut self, t: u32) -> Result<(), Error> {
        let params = self.params;
        if self.in_flight_total == 0 {
            return Ok(());
        }
        let slot = t as usize % IN_FLIGHT_SLOTS;
        let n = u32::from(self.in_flight[slot]);
        self.in_flight[slot] = 0;
        self.in_flight_total -= n;
        let decided = t.saturating_sub(params.lifecycle.apply_delay);
        // Of them, the spot class's (none without it).
        let spot = self.spot.take_in_flight(slot).min(n);
        self.launch(t, decided, n - spot)?;
        self.launch_of(t, decided, spot, true)
    }

    /// Phase 3: the scaling policy decides; the group applies the change now or, with an
    /// apply delay, later. A scale-in that removes nothing is not a scaling action.
    pub(super) fn scale<P: ScalingPolicy>(
        &mut self,
        t: u32,
        demand: f64,
        needed: i64,
        policy: &mut P,
    ) -> Result<(), Error> {
        let params = self.params;
        let signal = Signal {
            round: t,
            demand,
            required: needed,
            counts: self.counts,
            in_flight: self.in_flight_total,
            capacity: self.capacity as u32,
            spot: self.spot_signal(),
        };
        #[cfg(feature = "hpa")]
        if policy.reads_instances() {
            let mut views = self.instances.iter().map(|o| o.view());
            policy.instances(t, &mut views);
        }
        let wanted = policy.decide(&signal);
        self.dealloc = policy.node_deallocation();
        let change = bounded_by(
            self.bounds,
            wanted,
            policy.counted(&signal).saturating_add(wanted),
            self.instances.len() as u32,
            self.counts.get(State::Stopped),
            self.in_flight_total,
        );
        if change != wanted {
            self.metrics.clamped_rounds += 1;
        }
        if let Some(acted) = self.scale_classes(t, change, &signal, policy)? {
            if acted {
                self.metrics.scaling_actions += 1;
            }
            policy.applied(t, acted);
            return Ok(());
        }
        let acted = if change > 0 {
            self.ask(t, change)?;
            true
        } else if change < 0 {
            // The lesson counts a scale-in of an empty group (its splices do nothing, its
            // `olcekleme++` still runs); any other scale-in that removes nothing is no action.
            let lesson_quirk = self.instances.is_empty()
                && params.lifecycle.removal_policy == RemovalPolicy::Lesson;
            self.scale_in(change.unsigned_abs(), policy.drain_rounds()) > 0 || lesson_quirk
        } else {
            return Ok(());
        };
        if acted {
            self.metrics.scaling_actions += 1;
        }
        policy.applied(t, acted);
        Ok(())
    }

    /// Asks for `n` instances: launched now, or queued for `apply_delay` rounds.
    pub(super) fn ask(&mut self, t: u32, n: i64) -> Result<(), Error> {
        self.ask_of(t, n, false)
    }

    /// Asks for `n` instances of the spot class (`spot`) or the dedicated one.
    pub(super) fn ask_of(&mut self, t: u32, n: i64, spot: bool) -> Result<(), Error> {
        let params = self.params;
        // Stopped records restart in place; everything else needs a free record.
        let free = (self.capacity - self.instances.len()) as i64
            + i64::from(self.counts.get(State::Stopped));
        if n > free - i64::from(self.in_flight_total) {
            // With launches in flight, it is they that take the room (apply delay).
            return Err(if self.in_flight_total > 0 && n <= free {
                in_flight_full(self.capacity)
            } else {
                group_full(self.capacity)
            });
        }
        // 1 to the capacity here (Stopped records are records too); one round's request
        // fits a slot of the ring for every capacity up to 65,535.
        let n = n as u32;
        if n > u32::from(u16::MAX) {
            return Err(group_full(self.capacity));
        }
        let delay = params.lifecycle.apply_delay;
        if delay == 0 {
            return self.launch_of(t, t, n, spot);
        }
        let slot = (t as usize + delay as usize) % IN_FLIGHT_SLOTS;
        self.in_flight[slot] += n as u16;
        self.in_flight_total += n;
        if spot {
            self.spot.put_in_flight(slot, n as u16);
        }
        Ok(())
    }

    /// Brings `n` instances into the group in round `t` for a decision of round `decided`:
    /// Stopped ones restart first (storage order), the rest are fresh launches, which fail
    /// in a stockout round (counted, not retried this round).
    pub(super) fn launch(&mut self, t: u32, decided: u32, n: u32) -> Result<(), Error> {
        self.launch_of(t, decided, n, false)
    }

    /// [`Group::launch`] for the spot class (`spot`) or the dedicated one: Stopped
    /// instances of that class restart first.
    pub(super) fn launch_of(
        &mut self,
        t: u32,
        decided: u32,
        n: u32,
        spot: bool,
    ) -> Result<(), Error> {
        let params = self.params;
        let mut left = n;
        if left == 0 {
            return Ok(());
        }
        if self.class_counts(spot).get(State::Stopped) > 0 {
            let restart = params.lifecycle.restart_rounds;
            for i in 0..self.instances.len() {
                if left == 0 {
                    break;
                }
                let o = &self.instances[i];
                if o.state == State::Stopped && o.is_spot() == spot {
                    self.set(i, State::Restarting);
                    let o = &mut self.instances[i];
                    o.timer = restart;
                    o.since = decided;
                    left -= 1;
                    self.metrics.restarts_from_stopped =
                        self.metrics.restarts_from_stopped.saturating_add(1);
                    self.now.restarted += 1;
                }
            }
        }
        if !spot && params.lifecycle.warm_pool.size > 0 {
            left -= self.warm_start(decided, left)?;
        }
        if left == 0 {
            return Ok(());
        }
        if params.lifecycle.stocked_out(t) {
            self.metrics.failed_launches += u64::from(left);
            self.now.failed += left;
            return Ok(());
        }
        if left as usize > self.capacity - self.instances.len() {
            return Err(group_full(self.capacity));
        }
        for _ in 0..left {
            self.push(Instance::of_class(
                spot,
                State::Pending,
                decided,
                params.boot_rounds,
            ))?;
        }
        self.metrics.launched = self.metrics.launched.saturating_add(left);
        self.now.launched += left;
        Ok(())
    }
}
