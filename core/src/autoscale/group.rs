//! The group and its round, phase by phase: the reference engine ([`super::Engine::General`]),
//! which computes every input; the fast engines (`fast/`) must equal it bit for bit.
//!
//! Each phase is a method of [`Group`] named for what it does; [`Group::round`] runs them in
//! order (only whole rounds are public, so a round's snapshot is always complete). A phase
//! that a default [`super::Lifecycle`] leaves idle does exactly what the lesson's loop does
//! at that point, so the lesson's metrics come out bit for bit.

use crate::error::Error;
use crate::rng::UnitRng;
use crate::Observer;

use crate::formula::Deallocation;

use super::lifecycle::hooks::{Ending, Wait};
use super::lifecycle::tasks::deallocate;
use super::lifecycle::timed::template_epoch;
use super::lifecycle::{
    bounded_by, Action, HookResult, LifecycleHook, Provider, Reclaim, RemovalPolicy, Timed,
    Transition, MAX_APPLY_DELAY, NO_BOUND,
};
use super::policy::{HealthCheck, ScalingPolicy, Signal};
use super::spot::SpotRun;
use super::state::{Instance, RoundState, State, StateCounts};
use super::warm::WarmRun;
use super::{group_full, in_flight_full, js_max, required_count, Metrics, Params, MAX_GROUP_SIZE};

mod classes;
mod warm;

/// Slots of the ring of launches in flight (one per round of apply delay, plus this round).
const RING: usize = MAX_APPLY_DELAY as usize + 1;

/// The instance records of one group, `N` of them (16 bytes each; the default, 256, is about
/// 4 KiB): the caller provides them, so that a run holds exactly one copy, wherever its
/// stack frame is (a board's stack is small). `N` is the group's capacity: a run that needs
/// more records stops with [`crate::Error::CapacityExceeded`] naming `N`.
#[derive(Debug)]
pub struct GroupStorage<const N: usize = MAX_GROUP_SIZE>(heapless::Vec<Instance, N>);

impl GroupStorage {
    /// Returns empty storage for [`MAX_GROUP_SIZE`] instances (a board's group).
    pub const fn new() -> Self {
        Self(heapless::Vec::new())
    }
}

impl<const N: usize> GroupStorage<N> {
    /// Returns empty storage for `N` instances (a host's group of thousands: box it).
    pub const fn with_capacity() -> Self {
        Self(heapless::Vec::new())
    }
}

impl<const N: usize> Default for GroupStorage<N> {
    fn default() -> Self {
        Self::with_capacity()
    }
}

/// A group of instance records in caller-provided storage, with what it has measured so
/// far.
#[derive(Debug)]
pub struct Group<'p> {
    params: &'p Params,
    instances: &'p mut heapless::vec::VecView<Instance>,
    /// The records the storage holds (its `N`).
    capacity: usize,
    counts: StateCounts,
    /// Instances asked for, by the round (modulo [`RING`]) in which they join.
    in_flight: [u16; RING],
    in_flight_total: u32,
    metrics: Metrics,
    /// This round's events, for the observer.
    now: RoundState,
    /// The minimum and maximum size in force (timed actions change them).
    bounds: (Option<u32>, Option<u32>),
    /// The policy's `$NodeDeallocationOption`, as of its last decision.
    dealloc: Option<Deallocation>,
    /// The spot class's counts, launches in flight, preemption stream and measures.
    spot: SpotRun,
    /// The warm pool (empty without one).
    warm: WarmRun,
}

impl<'p> Group<'p> {
    /// Returns the initial group for `params` (checked here) in `storage` (emptied first):
    /// `required(0)` InService instances for the round-0 demand `demand0`, the first
    /// `lifecycle.protected` of them Protected.
    pub fn new<const N: usize>(
        params: &'p Params,
        storage: &'p mut GroupStorage<N>,
        demand0: f64,
    ) -> Result<Self, Error> {
        params.validate()?;
        storage.0.clear();
        let mut g = Self {
            params,
            instances: storage.0.as_mut_view(),
            capacity: N,
            counts: StateCounts::default(),
            in_flight: [0; RING],
            in_flight_total: 0,
            metrics: Metrics {
                min_size: params.min_size_start,
                ..Metrics::default()
            },
            now: RoundState::default(),
            bounds: (
                params.lifecycle.min_instances,
                params.lifecycle.max_instances,
            ),
            dealloc: None,
            spot: SpotRun::new(params.seed),
            warm: WarmRun::new(&params.lifecycle.warm_pool),
        };
        // `Array.from({ length: gerekli(0) })`: JavaScript clamps a negative length to 0 (an
        // empty group); a length it would accept but the group cannot hold is a capacity error.
        let initial = params.required_for(demand0);
        if initial > N as f64 {
            return Err(group_full(N));
        }
        // Now at most N, or negative, -0 or -inf: `as` saturates those to 0.
        let initial = initial as usize;
        // A mixed-instances group splits its initial size too (the last ones are spot).
        let dedicated = g.initial_dedicated(initial as u32) as usize;
        for i in 0..initial {
            let state = if i < params.lifecycle.protected as usize {
                State::Protected
            } else {
                State::InService
            };
            g.push(if i < dedicated {
                Instance::new(state, 0, 0)
            } else {
                Instance::spot(state, 0, 0)
            })?;
        }
        Ok(g)
    }

    /// Returns the instances per state.
    pub fn counts(&self) -> StateCounts {
        self.counts
    }

    /// Returns the instances asked for that have not joined yet (apply delay).
    pub fn in_flight(&self) -> u32 {
        self.in_flight_total
    }

    /// Returns the most instance records the group can hold (its storage's `N`).
    pub fn capacity(&self) -> u32 {
        self.capacity as u32
    }

    /// Returns what the group has measured so far.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    fn push(&mut self, o: Instance) -> Result<(), Error> {
        let capacity = self.capacity;
        self.instances.push(o).map_err(|_| group_full(capacity))?;
        self.counts.enter(o.state);
        if o.is_spot() {
            self.spot.counts.enter(o.state);
        }
        Ok(())
    }

    fn set(&mut self, i: usize, state: State) {
        let o = &mut self.instances[i];
        self.counts.leave(o.state);
        self.counts.enter(state);
        if o.is_spot() {
            self.spot.counts.leave(o.state);
            self.spot.counts.enter(state);
        }
        o.state = state;
    }

    fn drop_at(&mut self, i: usize) {
        let o = self.instances.remove(i);
        self.counts.leave(o.state);
        if o.is_spot() {
            self.spot.counts.leave(o.state);
        }
    }

    /// Runs one round `t` of the model with the round's `demand` and reports it to
    /// `observer`.
    pub fn round<P: ScalingPolicy, H: HealthCheck, R: UnitRng, O: Observer<RoundState>>(
        &mut self,
        t: u32,
        demand: f64,
        policy: &mut P,
        check: &mut H,
        rng: &mut R,
        observer: &mut O,
    ) -> Result<(), Error> {
        let params = self.params;
        let needed = required_count(params.required_for(demand));
        self.now = RoundState {
            round: t,
            demand,
            required: needed,
            ..RoundState::default()
        };
        self.fail_permanently(t);
        self.user_actions(t);
        self.timed_actions(t, policy)?;
        self.preempt(t)?;
        self.health_check(t, check, rng);
        self.join_delayed(t)?;
        self.scale(t, demand, needed, policy)?;
        self.advance(t);
        self.refill_warm_pool(t);
        self.measure(needed);
        if O::ROUNDS {
            // At most the capacity's records: fits.
            self.now.broken = self.instances.iter().filter(|o| o.broken()).count() as u32;
            self.now.target_dedicated = policy.target_dedicated().unwrap_or(0);
            if let Some(run) = policy.evaluation(t) {
                self.now.evaluated = true;
                self.now.evaluation_failed = run.failed;
                observer.note(&run);
            }
        }
        observer.round(&self.now);
        observer.round_done(u64::from(t));
        Ok(())
    }

    /// Phase 1: in a listed round, the first serving, healthy instance breaks for good.
    fn fail_permanently(&mut self, t: u32) {
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
    fn user_actions(&mut self, t: u32) {
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
    fn move_first(&mut self, from: State, to: State, count: u32) {
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

    /// Phase 1b: the round's timed operator actions, in list order ([`super::Timed`]).
    fn timed_actions<P: ScalingPolicy>(&mut self, t: u32, policy: &mut P) -> Result<(), Error> {
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

    /// Returns hook `k` of `transition`: the one-hook shorthand first, then the scenario's
    /// hooks of that transition in list order.
    fn hook(&self, transition: Transition, k: u8) -> Option<LifecycleHook> {
        let lc = &self.params.lifecycle;
        let short = match transition {
            Transition::Launch => lc.launch_hook,
            Transition::Terminate => lc.terminate_hook,
        };
        let list = match transition {
            Transition::Launch => lc.launch_hooks,
            Transition::Terminate => lc.terminate_hooks,
        };
        let k = usize::from(k);
        match short {
            // At most MAX_HOOK_ROUNDS (360): fits.
            Some(h) if k == 0 => Some(LifecycleHook::plain(h.rounds as u16, h.result)),
            Some(_) => list.get(k - 1).copied(),
            None => list.get(k).copied(),
        }
    }

    /// Counts how a wait ended.
    fn count_ending(&mut self, ending: Ending, result: HookResult) {
        self.now.hooks_ended += 1;
        match ending {
            Ending::TimedOut => {
                self.metrics.hook_timeouts = self.metrics.hook_timeouts.saturating_add(1)
            }
            Ending::Completed => {
                self.metrics.hook_completions = self.metrics.hook_completions.saturating_add(1)
            }
            Ending::Capped => {
                self.metrics.hook_cap_timeouts = self.metrics.hook_cap_timeouts.saturating_add(1)
            }
        }
        if result == HookResult::Rollback {
            self.metrics.hook_rollbacks = self.metrics.hook_rollbacks.saturating_add(1);
        }
    }

    /// Phase 2: the health check (it ignores the cooldown) checks every serving instance in
    /// storage order; a result counts `check_latency` rounds after its check; `threshold`
    /// failed results in a row replace the instance in place with a fresh launch (which
    /// fails in a stockout round, and then the record just leaves).
    fn health_check<H: HealthCheck, R: UnitRng>(&mut self, t: u32, check: &mut H, rng: &mut R) {
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
            *o = if spot {
                Instance::spot(State::Pending, t, params.boot_rounds)
            } else {
                Instance::new(State::Pending, t, params.boot_rounds)
            };
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

    /// Phase 3a: the instances an earlier decision asked for (`apply_delay` rounds ago)
    /// join the group.
    fn join_delayed(&mut self, t: u32) -> Result<(), Error> {
        let params = self.params;
        if self.in_flight_total == 0 {
            return Ok(());
        }
        let slot = t as usize % RING;
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
    fn scale<P: ScalingPolicy>(
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
        let wanted = policy.decide(&signal);
        self.dealloc = policy.node_deallocation();
        let change = bounded_by(
            self.bounds,
            wanted,
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
    fn ask(&mut self, t: u32, n: i64) -> Result<(), Error> {
        self.ask_of(t, n, false)
    }

    /// Asks for `n` instances of the spot class (`spot`) or the dedicated one.
    fn ask_of(&mut self, t: u32, n: i64, spot: bool) -> Result<(), Error> {
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
        let slot = (t as usize + delay as usize) % RING;
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
    fn launch(&mut self, t: u32, decided: u32, n: u32) -> Result<(), Error> {
        self.launch_of(t, decided, n, false)
    }

    /// [`Group::launch`] for the spot class (`spot`) or the dedicated one: Stopped
    /// instances of that class restart first.
    fn launch_of(&mut self, t: u32, decided: u32, n: u32, spot: bool) -> Result<(), Error> {
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
            self.push(if spot {
                Instance::spot(State::Pending, decided, params.boot_rounds)
            } else {
                Instance::new(State::Pending, decided, params.boot_rounds)
            })?;
        }
        self.metrics.launched = self.metrics.launched.saturating_add(left);
        self.now.launched += left;
        Ok(())
    }

    /// Phase 3, scale-in: chooses up to `n` InService victims by the removal policy (never
    /// Protected, Standby or Stopped ones) and sends each through Removing; returns how many
    /// instances it took.
    ///
    /// Under the lesson's policy, steps left over once no InService instance is left cancel
    /// launches from the end of the group: the lesson's `splice(findIndex(...), 1)` with
    /// `findIndex` at -1 removes the last instance, which is a booting one there. A cancelled
    /// launch skips the terminate hook (it never served) and is released or stopped.
    fn scale_in(&mut self, n: u64, drain: u32) -> u32 {
        self.scale_in_of(n, drain, None)
    }

    /// [`Group::scale_in`] among the instances of one class (`Some(spot)`) or of both.
    fn scale_in_of(&mut self, n: u64, drain: u32, class: Option<bool>) -> u32 {
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
    fn leave_removing(&mut self, drain: u32) {
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
    fn leave(&mut self, i: usize) -> bool {
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
                o.failures = 0;
                o.in_transit = 0;
                o.checks = 0;
                o.set_noticed(false);
                true
            }
        }
    }

    /// Phase 4: timers advance in storage order, one transition per instance at most. A
    /// timer set in this round's phases 1–3 counts down now; a wait entered now starts
    /// counting next round (so a launch hook of H rounds adds exactly H rounds). A wait's
    /// progress is the record's [`Wait`] ([`super::lifecycle::hooks`]).
    fn advance(&mut self, t: u32) {
        let busy = self.counts.launching() + self.counts.get(State::RemovingWait);
        if busy == 0 {
            return;
        }
        let mut i = 0;
        while i < self.instances.len() {
            let state = self.instances[i].state;
            let kept = match state {
                State::Pending | State::Restarting => {
                    let o = &mut self.instances[i];
                    o.timer = o.timer.saturating_sub(1);
                    if o.timer == 0 {
                        match self.hook(Transition::Launch, 0) {
                            Some(h) => {
                                self.set(i, State::PendingWait);
                                self.instances[i].timer = u32::from(h.timeout);
                                self.instances[i].failures = Wait::at(0).pack();
                            }
                            None => self.serve(i, t),
                        }
                    }
                    true
                }
                State::PendingWait => self.launch_wait(i, t),
                State::RemovingWait => self.removal_wait(i),
                _ => true,
            };
            if kept {
                i += 1;
            }
        }
    }

    /// Moves instance `i` on to hook `k` of `transition` if there is one; returns whether
    /// there was.
    fn next_hook(&mut self, i: usize, transition: Transition, k: u8) -> bool {
        match self.hook(transition, k) {
            Some(h) => {
                let o = &mut self.instances[i];
                o.timer = u32::from(h.timeout);
                o.failures = Wait::at(k).pack();
                true
            }
            None => false,
        }
    }

    /// One round of a Pending:Wait; returns whether the record stays.
    fn launch_wait(&mut self, i: usize, t: u32) -> bool {
        let o = &mut self.instances[i];
        let mut wait = Wait::unpack(o.failures);
        let Some(hook) = self.hook(Transition::Launch, wait.hook) else {
            self.instances[i].failures = 0;
            self.serve(i, t);
            return true;
        };
        let o = &mut self.instances[i];
        let ended = wait.step(&hook, &mut o.timer, &mut self.now.heartbeats);
        o.failures = wait.pack();
        let Some((ending, result)) = ended else {
            return true;
        };
        self.count_ending(ending, result);
        let next = wait.hook.saturating_add(1);
        let passes = match result {
            HookResult::Continue => true,
            // Alibaba: only the last hook's result counts.
            HookResult::Abandon => {
                hook.provider == Provider::Alibaba && self.hook(Transition::Launch, next).is_some()
            }
            HookResult::Rollback => false,
        };
        if !passes {
            self.metrics.abandoned_launches = self.metrics.abandoned_launches.saturating_add(1);
            self.drop_at(i);
            return false;
        }
        if !self.next_hook(i, Transition::Launch, next) {
            self.instances[i].failures = 0;
            self.serve(i, t);
        }
        true
    }

    /// One round of a Removing:Wait (a terminate hook, or a drain); returns whether the
    /// record stays.
    fn removal_wait(&mut self, i: usize) -> bool {
        let o = &mut self.instances[i];
        let mut wait = Wait::unpack(o.failures);
        let hook = if wait.hook == Wait::DRAIN {
            None
        } else {
            self.hook(Transition::Terminate, wait.hook)
        };
        let Some(hook) = hook else {
            // A drain without a terminate hook is no hook timing out.
            let o = &mut self.instances[i];
            o.timer = o.timer.saturating_sub(1);
            return o.timer > 0 || self.leave(i);
        };
        let o = &mut self.instances[i];
        let ended = wait.step(&hook, &mut o.timer, &mut self.now.heartbeats);
        o.failures = wait.pack();
        let Some((ending, result)) = ended else {
            return true;
        };
        self.count_ending(ending, result);
        match result {
            HookResult::Continue => {
                let next = wait.hook.saturating_add(1);
                self.next_hook(i, Transition::Terminate, next) || self.leave(i)
            }
            HookResult::Abandon => self.leave(i),
            HookResult::Rollback => {
                self.set(i, State::InService);
                let o = &mut self.instances[i];
                o.failures = 0;
                o.in_transit = 0;
                o.checks = 0;
                // Serving again from the next round (its task model starts over).
                o.timer = self.now.round + 1;
                true
            }
        }
    }

    /// Puts instance `i` into service at the end of round `t`: it serves from round `t + 1`.
    fn serve(&mut self, i: usize, t: u32) {
        self.set(i, State::InService);
        if self.params.lifecycle.task_rounds.is_some() {
            // Its first task starts in the round it first serves.
            self.instances[i].timer = t + 1;
        }
        self.now.entered_service += 1;
        let waited = (t + 1).saturating_sub(self.instances[i].since);
        let m = &mut self.metrics;
        m.time_to_in_service_max = m.time_to_in_service_max.max(waited);
    }

    /// Phase 5: the round's metrics.
    fn measure(&mut self, needed: i64) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `oldest-template`: scale-in takes the instances of the oldest version first (storage
    /// order among them), whatever their place; the lesson's order takes the first ones.
    #[test]
    fn oldest_template_removes_the_old_version_first() {
        use super::super::lifecycle::{Timed, TimedAction};
        use crate::autoscale::Lifecycle;
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

    #[test]
    fn records_stay_small() {
        // Three u32 words, then the results in transit, the check count, the state and the
        // flags (broken, spot, noticed).
        assert_eq!(core::mem::size_of::<Instance>(), 16);
        // 256 records and the length: 4,104 bytes on a 64-bit host, 4,100 on a board.
        let records = core::mem::size_of::<GroupStorage>();
        assert_eq!(records, 256 * 16 + core::mem::size_of::<usize>());
        // The rest of a group (ring of launches in flight, counts, metrics, the round's
        // snapshot, the spot class's counts and ring, the warm pool, the bounds and hooks in
        // force) is small enough to move.
        assert!(
            core::mem::size_of::<Group>() < 1024,
            "{}",
            core::mem::size_of::<Group>()
        );
    }
}
