//! The reference engine ([`super::Engine::Reference`]): the group as instance records, and its
//! round, phase by phase. It computes every input (any policy, health check, lifecycle
//! option and observer); the fast engines (`fast/`) must equal it bit for bit where the plan
//! sends an input to them. Read it first, beside the lesson's program (`grup.mjs`).
//!
//! Each phase is a method of [`Group`] named for what it does; [`Group::round`], here, runs
//! them in order (only whole rounds are public, so a round's snapshot is always complete).
//! One file a phase:
//! 1. `actions.rs`: permanent failures, scripted user actions, timed operator actions;
//!    `classes.rs`: the spot class's preemptions (and the split of a decision by class);
//! 2. `check.rs`: the health check and the in-place replacement;
//! 3. `scale.rs`: delayed launches join, the policy decides, launches (restarts first);
//!    `removal.rs`: scale-in's victims, Removing, and how an instance leaves;
//! 4. `waits.rs`: boot and restart timers, lifecycle-hook waits and drains;
//!    `warm.rs`: the warm pool's refills (and warm starts and reuse);
//! 5. `measure.rs`: the round's metrics.
//!
//! This file holds the records ([`GroupStorage`], [`Group`]), the bookkeeping every phase
//! uses to change a record's state (`push`, `set`, `drop_at`: the per-state counts follow),
//! and the round itself. A phase that a default [`super::Lifecycle`] leaves idle does
//! exactly what the lesson's loop does at that point, so the lesson's metrics come out bit
//! for bit.

use crate::error::Error;
use crate::rng::UnitRng;
use crate::Observer;
use heapless::vec::VecView;

use crate::formula::Deallocation;

use super::limits::IN_FLIGHT_SLOTS;
use super::limits::MAX_GROUP_SIZE;
use super::metrics::Metrics;
use super::policy::{HealthCheck, ScalingPolicy};
use super::spec::{group_full, required_count, Demand, Params};
use super::spot::SpotRun;
use super::state::{Instance, RoundState, State, StateCounts};
use super::warm::WarmRun;

mod actions;
mod check;
mod classes;
mod measure;
mod removal;
mod scale;
mod waits;
mod warm;

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

/// Where a run on the reference engine keeps its instance records ([`super::run_in`]'s
/// dispatch): the caller's [`GroupStorage`], or [`OnStack`].
pub(crate) trait Records {
    /// The records it holds: the fast engines hold [`MAX_GROUP_SIZE`], so they compute a
    /// run exactly only in storage of that capacity (a run that outgrows it fails alike).
    const CAPACITY: usize;

    /// Calls `run` with the records, emptied by the run.
    fn with(&mut self, run: impl FnOnce(&mut VecView<Instance>) -> RunResult) -> RunResult;
}

/// What a run returns.
type RunResult = Result<Metrics, Error>;

impl<const N: usize> Records for GroupStorage<N> {
    const CAPACITY: usize = N;

    fn with(&mut self, run: impl FnOnce(&mut VecView<Instance>) -> RunResult) -> RunResult {
        run(self.0.as_mut_view())
    }
}

/// A board's group ([`MAX_GROUP_SIZE`] records, about 4 KiB) in a frame of its own, made
/// only when the reference engine runs: the records are never on the stack while a fast
/// engine runs ([`super::run_with`], the lessons, a batch's runs alone).
pub(crate) struct OnStack;

impl Records for OnStack {
    const CAPACITY: usize = MAX_GROUP_SIZE;

    #[inline(never)]
    fn with(&mut self, run: impl FnOnce(&mut VecView<Instance>) -> RunResult) -> RunResult {
        GroupStorage::new().with(run)
    }
}

/// No records: the storage of a lesson's unobserved runs ([`super::run_lesson`]). Their
/// parameters are the lesson's, so the plan names a fast engine, and the reference engine,
/// which this storage never calls, is not linked into an image that runs only them (a
/// board's lesson suite). Were the plan to name it, the run would stop with
/// [`crate::Accepted::LessonOnly`].
pub(crate) struct FastOnly;

impl Records for FastOnly {
    const CAPACITY: usize = MAX_GROUP_SIZE;

    fn with(&mut self, _: impl FnOnce(&mut VecView<Instance>) -> RunResult) -> RunResult {
        Err(Error::OutOfRange {
            param: "lesson",
            accepted: crate::error::Accepted::LessonOnly,
        })
    }
}

/// Runs `params` on the reference engine in `records`: round after round of [`Group::round`],
/// with the caller's demand, policy, check, generator and observer.
pub(crate) fn run<P: ScalingPolicy, H: HealthCheck, R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    records: &mut heapless::vec::VecView<Instance>,
    demand: &impl Demand,
    policy: &mut P,
    check: &mut H,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut group = Group::in_records(params, records, demand.at(0))?;
    for t in 0..params.rounds {
        group.round(t, demand.at(t), policy, check, rng, observer)?;
    }
    Ok(*group.metrics())
}

/// A group of instance records in caller-provided storage, with what it has measured so
/// far.
#[derive(Debug)]
pub(crate) struct Group<'p> {
    params: &'p Params<'p>,
    instances: &'p mut heapless::vec::VecView<Instance>,
    /// The records the storage holds (its `N`).
    capacity: usize,
    counts: StateCounts,
    /// Instances asked for, by the round (modulo [`IN_FLIGHT_SLOTS`]) in which they join.
    in_flight: [u16; IN_FLIGHT_SLOTS],
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
    #[cfg(test)]
    pub(crate) fn new<const N: usize>(
        params: &'p Params,
        storage: &'p mut GroupStorage<N>,
        demand0: f64,
    ) -> Result<Self, Error> {
        Self::in_records(params, storage.0.as_mut_view(), demand0)
    }

    /// `Group::new` (the tests') in `records`, a storage's records of any capacity.
    fn in_records(
        params: &'p Params,
        records: &'p mut heapless::vec::VecView<Instance>,
        demand0: f64,
    ) -> Result<Self, Error> {
        params.validate()?;
        records.clear();
        let capacity = records.capacity();
        let mut g = Self {
            params,
            instances: records,
            capacity,
            counts: StateCounts::default(),
            in_flight: [0; IN_FLIGHT_SLOTS],
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
            warm: WarmRun::default(),
        };
        // `Array.from({ length: gerekli(0) })`: JavaScript clamps a negative length to 0 (an
        // empty group); a length it would accept but the group cannot hold is a capacity error.
        let initial = params.required_for(demand0);
        if initial > capacity as f64 {
            return Err(group_full(capacity));
        }
        // Now at most the capacity, or negative, -0 or -inf: `as` saturates those to 0.
        let initial = initial as usize;
        // A mixed-instances group splits its initial size too (the last ones are spot).
        let dedicated = g.initial_dedicated(initial as u32) as usize;
        for i in 0..initial {
            let state = if i < params.lifecycle.protected as usize {
                State::Protected
            } else {
                State::InService
            };
            g.push(Instance::of_class(i >= dedicated, state, 0, 0))?;
        }
        g.warm = WarmRun::new(
            &params.lifecycle.warm_pool,
            initial as u32,
            params.lifecycle.max_instances,
        );
        Ok(g)
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
            #[cfg(feature = "hpa")]
            {
                self.now.hpa = policy.hpa_round();
            }
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
