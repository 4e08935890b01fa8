//! Phase 3 of a round, scale-in: the removal policy's victims, their way through Removing
//! (terminate hooks, drains, task deallocation) and out (released or stopped).

use super::super::lifecycle::hooks::Transition;
use super::super::lifecycle::hooks::Wait;
use super::super::lifecycle::tasks::deallocate;
use super::super::lifecycle::timed::template_epoch;
use super::super::lifecycle::{Reclaim, RemovalPolicy};
use super::super::state::{Instance, State};
use super::Group;

impl Group<'_> {
    /// Phase 3, scale-in: chooses up to `n` InService victims by the removal policy (never
    /// Protected, Standby or Stopped ones) and sends each through Removing; returns how many
    /// instances it took.
    ///
    /// Under the lesson's policy, steps left over once no InService instance is left cancel
    /// launches from the end of the group: the lesson's `splice(findIndex(...), 1)` with
    /// `findIndex` at -1 removes the last instance, which is a booting one there. A cancelled
    /// launch skips the terminate hook (it never served) and is released or stopped.
    pub(super) fn scale_in(&mut self, n: u64, drain: u32) -> u32 {
        self.scale_in_of(n, drain, None)
    }

    /// [`Group::scale_in`] among the instances of one class (`Some(spot)`) or of both.
    pub(super) fn scale_in_of(&mut self, n: u64, drain: u32, class: Option<bool>) -> u32 {
        let params = self.params;
        let of = |o: &Instance| class.is_none_or(|spot| o.is_spot() == spot);
        let candidates = u64::from(match class {
            None => self.counts.get(State::InService),
            Some(spot) => self.class_counts(spot).get(State::InService),
        });
        let take = n.min(candidates) as u32;
        let policy = params.lifecycle.removal_policy;
        match policy {
            RemovalPolicy::Lesson => {
                let mut left = take;
                for i in 0..self.instances.len() {
                    if left == 0 {
                        break;
                    }
                    if self.instances[i].state == State::InService && of(&self.instances[i]) {
                        self.set(i, State::Removing);
                        left -= 1;
                    }
                }
            }
            _ => {
                for _ in 0..take {
                    let mut pick: Option<(usize, u32)> = None;
                    for (i, o) in self.instances.iter().enumerate() {
                        if o.state != State::InService || !of(o) {
                            continue;
                        }
                        // OldestTemplate compares template epochs, the others launch rounds.
                        let key = if policy == RemovalPolicy::OldestTemplate {
                            template_epoch(params.lifecycle.at, o.since)
                        } else {
                            o.since
                        };
                        let better = match (pick, policy) {
                            (None, _) => true,
                            (
                                Some((_, s)),
                                RemovalPolicy::Oldest | RemovalPolicy::OldestTemplate,
                            ) => key < s,
                            (Some((_, s)), _) => key >= s,
                        };
                        if better {
                            pick = Some((i, key));
                        }
                    }
                    if let Some((i, _)) = pick {
                        self.set(i, State::Removing);
                    }
                }
            }
        }
        self.leave_removing(drain);
        let mut removed = take;
        if policy == RemovalPolicy::Lesson && u64::from(take) < n {
            let mut left = n - u64::from(take);
            let mut i = self.instances.len();
            while left > 0 && i > 0 {
                i -= 1;
                if self.instances[i].state.launching() && of(&self.instances[i]) {
                    self.leave(i);
                    removed += 1;
                    left -= 1;
                }
            }
        }
        let held = self.counts.get(State::Protected) + self.counts.get(State::Standby);
        if u64::from(removed) < n && held > 0 {
            self.metrics.scale_in_blocked_rounds += 1;
        }
        self.now.removed += removed;
        removed
    }

    /// Sends every Removing instance on: into Removing:Wait under a terminate hook or a
    /// drain, else out. A drain of `d` rounds keeps it billed `d` more round ends (phase 4
    /// counts the timer down in this round already, hence the 1 without a hook).
    pub(super) fn leave_removing(&mut self, drain: u32) {
        let first = self.hook(Transition::Terminate, 0);
        let hook = match (first, drain) {
            (h, 0) => h.map(|h| u32::from(h.timeout)),
            (h, d) => Some(h.map_or(1, |h| u32::from(h.timeout)).saturating_add(d)),
        };
        let wait = Wait::at(if first.is_some() { 0 } else { Wait::DRAIN }).pack();
        let tasks = self.params.lifecycle.task_rounds;
        let mut i = 0;
        while i < self.instances.len() {
            if self.instances[i].state != State::Removing {
                i += 1;
                continue;
            }
            let hook = match tasks {
                None => hook,
                Some(n) => {
                    // Serving since the round in its timer (`serve`).
                    let done = self.now.round.saturating_sub(self.instances[i].timer);
                    let option = self.dealloc.unwrap_or_default();
                    let (lost, failed, drain) = deallocate(option, n, done);
                    let m = &mut self.metrics;
                    m.lost_task_rounds = m.lost_task_rounds.saturating_add(lost.into());
                    m.failed_tasks = m.failed_tasks.saturating_add(failed);
                    m.drain_rounds = m.drain_rounds.saturating_add(drain.into());
                    match (first, drain) {
                        (Some(h), d) => Some(u32::from(h.timeout).saturating_add(d)),
                        (None, 0) => None,
                        // Billed d more round ends, as a drain without tasks (`1 + d`).
                        (None, d) => Some(d.saturating_add(1)),
                    }
                }
            };
            match hook {
                Some(rounds) => {
                    self.set(i, State::RemovingWait);
                    self.instances[i].timer = rounds;
                    self.instances[i].failures = wait;
                    i += 1;
                }
                None => {
                    if self.leave(i) {
                        i += 1;
                    }
                }
            }
        }
    }

    /// Takes instance `i` out of service for good: released (the record goes; returns
    /// false) or stopped (it stays; returns true).
    pub(super) fn leave(&mut self, i: usize) -> bool {
        let params = self.params;
        if params.lifecycle.warm_pool.reuse && self.reuse_warm(i) {
            return false;
        }
        match params.lifecycle.reclaim {
            Reclaim::Release => {
                self.drop_at(i);
                false
            }
            Reclaim::Stop => {
                self.set(i, State::Stopped);
                let o = &mut self.instances[i];
                o.forget_checks();
                o.set_noticed(false);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::autoscale::RemovalPolicy;

    /// `oldest-template`: scale-in takes the instances of the oldest version first (storage
    /// order among them), whatever their place; the lesson's order takes the first ones.
    #[test]
    fn oldest_template_removes_the_old_version_first() {
        use crate::autoscale::{Lifecycle, Timed, TimedAction};
        let remaining = |removal_policy| {
            let params = Params {
                lifecycle: Lifecycle {
                    removal_policy,
                    at: &[TimedAction {
                        round: 5,
                        what: Timed::Template,
                        value: 2,
                    }],
                    ..Lifecycle::default()
                },
                ..Params::default()
            };
            let mut storage = GroupStorage::new();
            let mut g = Group::new(&params, &mut storage, 0.0).unwrap();
            // Launch rounds 0, 10, 2, 12: versions 0, 1, 0, 1.
            for since in [0, 10, 2, 12] {
                g.push(Instance::new(State::InService, since, 0)).unwrap();
            }
            assert_eq!(g.scale_in(2, 0), 2);
            let left: heapless::Vec<u32, 4> = g.instances.iter().map(|o| o.since).collect();
            left
        };
        assert_eq!(remaining(RemovalPolicy::OldestTemplate), [10, 12]);
        assert_eq!(remaining(RemovalPolicy::Lesson), [2, 12]);
        assert_eq!(remaining(RemovalPolicy::Newest), [0, 2]);
    }
}
