//! Phase 1 of a round, the instances' own events: permanent failures, the scripted user
//! actions and the timed operator actions. (The spot class's preemptions, the rest of
//! phase 1, are in `classes.rs`.)

use crate::error::Error;

use super::super::lifecycle::timed::{Timed, NO_BOUND};
use super::super::lifecycle::{bounded_by, Action};
use super::super::policy::ScalingPolicy;
use super::super::state::State;
use super::Group;

impl Group<'_> {
    /// Phase 1: in a listed round, the first serving, healthy instance breaks for good.
    pub(super) fn fail_permanently(&mut self, t: u32) {
        let params = self.params;
        if params.failure_rounds.contains(&t) {
            if let Some(victim) = self
                .instances
                .iter_mut()
                .find(|o| o.state.serves() && !o.broken())
            {
                victim.set_broken();
            }
        }
    }

    /// Phase 1a: the round's scripted user actions, in list order.
    pub(super) fn user_actions(&mut self, t: u32) {
        let params = self.params;
        for e in params.lifecycle.events.iter().filter(|e| e.round == t) {
            let (from, to) = match e.action {
                Action::EnterStandby => (State::InService, State::Standby),
                Action::ExitStandby => (State::Standby, State::InService),
                Action::Protect => (State::InService, State::Protected),
                Action::Unprotect => (State::Protected, State::InService),
            };
            self.move_first(from, to, e.count);
        }
    }

    /// Moves the first `count` instances (storage order) in state `from` to `to`.
    pub(super) fn move_first(&mut self, from: State, to: State, count: u32) {
        let mut left = count;
        for i in 0..self.instances.len() {
            if left == 0 {
                break;
            }
            if self.instances[i].state == from {
                self.set(i, to);
                left -= 1;
            }
        }
    }

    /// Phase 1b: the round's timed operator actions, in list order ([`super::super::Timed`]).
    pub(super) fn timed_actions<P: ScalingPolicy>(
        &mut self,
        t: u32,
        policy: &mut P,
    ) -> Result<(), Error> {
        let params = self.params;
        if params.lifecycle.at.is_empty() {
            return Ok(());
        }
        let bound = |v: u32| (v != NO_BOUND).then_some(v);
        for a in params.lifecycle.at.iter().filter(|a| a.round == t) {
            self.now.actions += 1;
            match a.what {
                Timed::MinInstances => self.bounds.0 = bound(a.value),
                Timed::MaxInstances => self.bounds.1 = bound(a.value),
                Timed::Standby => self.move_first(State::InService, State::Standby, a.value),
                Timed::Unstandby => self.move_first(State::Standby, State::InService, a.value),
                Timed::Protect => self.move_first(State::InService, State::Protected, a.value),
                Timed::Unprotect => self.move_first(State::Protected, State::InService, a.value),
                Timed::Detach => {
                    let mut left = a.value;
                    let mut i = 0;
                    while left > 0 && i < self.instances.len() {
                        if self.instances[i].state == State::InService {
                            self.drop_at(i);
                            left -= 1;
                            self.metrics.detached = self.metrics.detached.saturating_add(1);
                        } else {
                            i += 1;
                        }
                    }
                }
                // Launches read the version from the list (`template_epoch`).
                Timed::Template => {}
                Timed::EvaluationInterval => policy.set_evaluation_interval(t, a.value),
                Timed::Formula => policy.set_formula(t, a.value),
                Timed::Desired => {
                    let c = &self.counts;
                    let have = i64::from(c.serving())
                        + i64::from(c.launching())
                        + i64::from(self.in_flight_total);
                    let change = bounded_by(
                        self.bounds,
                        i64::from(a.value) - have,
                        i64::from(a.value),
                        self.instances.len() as u32,
                        self.counts.get(State::Stopped),
                        self.in_flight_total,
                    );
                    if change > 0 {
                        self.ask(t, change)?;
                    } else if change < 0 {
                        self.dealloc = policy.node_deallocation();
                        self.scale_in(change.unsigned_abs(), policy.drain_rounds());
                    }
                }
            }
        }
        Ok(())
    }
}
