//! The lifecycle options of a group: hooks, protection, removal policy, reclaim mode and the
//! provider's three delays. [`Lifecycle::default`] turns every one of them off (the lesson).

use crate::error::{ensure, ensure_within, Accepted, Error};

use super::limits::{
    MAX_APPLY_DELAY, MAX_CHECK_INTERVAL, MAX_CHECK_LATENCY, MAX_GROUP_SIZE, MAX_HOOK_ROUNDS,
    MAX_STEPS,
};
use super::spot::Spot;
use super::warm::WarmPool;

pub mod hooks;
#[cfg(test)]
mod scenario_tests;
pub mod tasks;
pub mod timed;

pub use hooks::{LifecycleHook, Provider, Transition, MAX_HOOKS};
pub use tasks::{MAX_TASK_ROUNDS, RETAINED_DATA_ROUNDS};
pub use timed::{Timed, TimedAction, MAX_TIMED, NO_BOUND};

/// Consecutive rounds target tracking must want fewer instances before it scales in (AWS's
/// scale-in alarm: 15 data points of one minute).
pub const TARGET_TRACKING_SCALE_IN_ROUNDS: u32 = 15;
/// Consecutive rounds target tracking must want more instances before it scales out (AWS's
/// scale-out alarm: 3 data points of one minute).
pub const TARGET_TRACKING_SCALE_OUT_ROUNDS: u32 = 3;

/// How one step adjustment changes the group (AWS's adjustment types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Adjustment {
    /// `ChangeInCapacity`: add (or, negative, remove) this many instances.
    Change(i16),
    /// `PercentChangeInCapacity`: add this percent of the current capacity; a result above
    /// 1 is rounded down, between 0 and 1 it is 1 (negative ones alike, towards 0 and −1).
    Percent(i16),
    /// `ExactCapacity`: set the capacity to this many instances.
    Exact(u16),
}

/// A step's upper bound meaning "no upper bound".
pub const OPEN: u32 = u32::MAX;

/// The unit of a step's bounds: a thousandth of a percent (AWS's bounds are decimals:
/// `40.5` % is 40,500).
pub const STEP_BOUND_UNIT: u32 = 1000;

/// One step adjustment, its bounds in thousandths of a percent ([`STEP_BOUND_UNIT`]). A band
/// that removes instances (a negative change or percent) applies while the utilisation is
/// in `(low, high]`, one that adds or sets capacity while it is in `[low, high)`: AWS's
/// rule, "if the metric value is below the breach threshold, the lower bound is exclusive
/// and the upper bound is inclusive" (a scale-in band lies below its alarm's threshold).
/// A `high` of [`OPEN`] has no upper bound, a `low` of 0 none below (no utilisation is
/// negative). 12 bytes, so that 20 of them stay small in every copy of the parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Step {
    /// The band's lower bound, in thousandths of a percent.
    pub low: u32,
    /// The band's upper bound, in thousandths of a percent; [`OPEN`]: none.
    pub high: u32,
    /// What the band does.
    pub adjustment: Adjustment,
}

impl Step {
    /// Returns whether the band removes instances (AWS: a band of the scale-in alarm).
    pub fn removes(&self) -> bool {
        matches!(self.adjustment, Adjustment::Change(n) | Adjustment::Percent(n) if n < 0)
    }

    /// Returns whether the band holds utilisation `u` (percent): `(low, high]` for a band
    /// that removes, `[low, high)` for the others.
    pub fn holds(&self, u: f64) -> bool {
        let unit = f64::from(STEP_BOUND_UNIT);
        let (low, high) = (f64::from(self.low) / unit, f64::from(self.high) / unit);
        let open = self.high == OPEN;
        if self.removes() {
            (self.low == 0 || u > low) && (open || u <= high)
        } else {
            u >= low && (open || u < high)
        }
    }
}

/// A step policy's adjustments, in ascending bands.
pub type Steps = heapless::Vec<Step, MAX_STEPS>;

/// Which scaling policy drives the group (a formula, host-side, replaces any of them).
// The step bands are inline (240 bytes): the core allocates nothing, so nothing to box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Policy {
    /// The lesson's exact-count policy ([`super::LessonPolicy`]).
    #[default]
    Lesson,
    /// AWS target tracking: keeps the in-service instances' average utilisation at
    /// `target` percent ([`super::TargetTracking`]).
    TargetTracking {
        /// The target utilisation, 1 to 100 percent.
        target: u32,
        /// Never scale in (AWS `DisableScaleIn`).
        disable_scale_in: bool,
    },
    /// AWS step scaling: the band the utilisation is in applies its adjustment, every round
    /// (no cooldown; instances warming up are counted as AWS counts them,
    /// [`super::StepPolicy`]).
    Step(Steps),
    /// Kubernetes' Horizontal Pod Autoscaler, one controller sync a round
    /// ([`super::hpa::HpaPolicy`]; host-only: core's feature `hpa`).
    #[cfg(feature = "hpa")]
    Hpa(super::hpa::Hpa),
}

impl Policy {
    /// Returns the policy as the flag spells it.
    pub const fn name(&self) -> &'static str {
        match self {
            Policy::Lesson => "lesson",
            Policy::TargetTracking { .. } => "target-tracking",
            Policy::Step(_) => "step",
            #[cfg(feature = "hpa")]
            Policy::Hpa(_) => "hpa",
        }
    }
}

/// The most scripted user actions one run may list (every copy of the parameters holds
/// room for them, on a board's stack too).
pub const MAX_EVENTS: usize = 16;

/// A user action on the group (the console's or the API's), scripted for a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Action {
    /// `EnterStandby`: InService → Standby (out of service, not checked, never removed;
    /// the desired count is not decremented, so the lesson's policy replaces it).
    EnterStandby,
    /// `ExitStandby`: Standby → InService (serving again from the next decision).
    ExitStandby,
    /// `SetInstancesProtection(true)`: InService → Protected.
    Protect,
    /// `SetInstancesProtection(false)`: Protected → InService.
    Unprotect,
}

impl Action {
    /// Returns the action as the flag spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Action::EnterStandby => "standby",
            Action::ExitStandby => "unstandby",
            Action::Protect => "protect",
            Action::Unprotect => "unprotect",
        }
    }
}

/// One scripted action: in `round`, before the health check, it moves the first `count`
/// instances (storage order) that are in the action's source state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Event {
    /// The round.
    pub round: u32,
    /// What happens.
    pub action: Action,
    /// How many instances it moves at most, 1 to 256.
    pub count: u32,
}

/// The scripted actions of one run, applied in list order within a round.
pub type Events = heapless::Vec<Event, MAX_EVENTS>;

/// What happens when a hook's wait ends (its default result; nothing completes it early).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum HookResult {
    /// `CONTINUE`: a launch goes into service; a removal goes on (Alibaba's default).
    #[default]
    Continue,
    /// `ABANDON`: a launch is released (counted in `abandoned_launches`); a removal goes
    /// on anyway (both results remove at scale-in).
    Abandon,
    /// `ROLLBACK` (Alibaba only, scenario hooks): a launch is released; a removal is taken
    /// back, the instance returns to InService ([`LifecycleHook`]).
    Rollback,
}

impl HookResult {
    /// Returns the result as the flag spells it.
    pub const fn name(self) -> &'static str {
        match self {
            HookResult::Continue => "continue",
            HookResult::Abandon => "abandon",
            HookResult::Rollback => "rollback",
        }
    }
}

/// One lifecycle hook: holds an instance in a wait state for `rounds`, then applies `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Hook {
    /// Rounds of wait (the heartbeat timeout), 1 to [`MAX_HOOK_ROUNDS`].
    pub rounds: u32,
    /// The default result, applied at the timeout.
    pub result: HookResult,
}

/// Which InService instances scale-in removes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RemovalPolicy {
    /// The first ones in storage order (the lesson's `findIndex`; replacements take their
    /// predecessor's place, so this is neither oldest nor newest).
    #[default]
    Lesson,
    /// `OldestInstance`: the earliest launch decision first; ties in storage order.
    Oldest,
    /// `NewestInstance`: the latest launch decision first; ties last in storage first.
    Newest,
    /// `OldestScalingConfiguration` (Alibaba) / `OldestLaunchTemplate` (AWS): instances of
    /// the oldest launch-template version first (versions come from timed `template`
    /// actions; an instance's version is the one current at its launch decision); ties in
    /// storage order.
    OldestTemplate,
}

impl RemovalPolicy {
    /// Returns the policy as the flag spells it.
    pub const fn name(self) -> &'static str {
        match self {
            RemovalPolicy::Lesson => "lesson",
            RemovalPolicy::Oldest => "oldest",
            RemovalPolicy::Newest => "newest",
            RemovalPolicy::OldestTemplate => "oldest-template",
        }
    }
}

/// What scale-in does with an instance it removes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Reclaim {
    /// Release it: the record leaves the group (the lesson).
    #[default]
    Release,
    /// Stop it (Alibaba's economical mode): it stays as a Stopped record, billed for storage
    /// only, and scale-out restarts it before launching fresh ones.
    Stop,
}

impl Reclaim {
    /// Returns the mode as the flag spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Reclaim::Release => "release",
            Reclaim::Stop => "stop",
        }
    }
}

/// Rounds `start..end` (end excluded, as the surge) in which launch requests fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stockout {
    /// First round without capacity.
    pub start: u32,
    /// First round with capacity again; > `start`.
    pub end: u32,
}

impl Stockout {
    /// Returns whether round `t` has no capacity.
    pub const fn contains(&self, t: u32) -> bool {
        self.start <= t && t < self.end
    }
}

/// The lifecycle options; [`Default`] is the lesson (every option off). A scenario's lists
/// (hooks, timed actions) are borrowed for `'a`, the run's: the caller keeps them (a local
/// `Vec`, a board's `static`), so every copy of the parameters stays small and nobody leaks.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Lifecycle<'a> {
    /// A scale-out hook: every launched or restarted instance waits in Pending:Wait.
    pub launch_hook: Option<Hook>,
    /// A scale-in hook: every instance scale-in removes waits in Removing:Wait.
    pub terminate_hook: Option<Hook>,
    /// Whether the lesson's policy also counts instances on their way into service
    /// (Pending, Pending:Wait, Restarting, and launches not yet applied).
    pub count_pending: bool,
    /// The first this many instances of the initial group are Protected, 0 to 256.
    pub protected: u32,
    /// Which InService instances scale-in removes.
    pub removal_policy: RemovalPolicy,
    /// Release or stop the instances scale-in removes.
    pub reclaim: Reclaim,
    /// Rounds a Stopped instance takes to start again (like `boot_rounds`: 0 and 1 both
    /// serve from the next round).
    pub restart_rounds: u32,
    /// Rounds after a health check before its result is known, 0 to [`MAX_CHECK_LATENCY`].
    pub check_latency: u32,
    /// Rounds after a scale-out decision before its instances join the group, 0 to
    /// [`MAX_APPLY_DELAY`].
    pub apply_delay: u32,
    /// Rounds in which launch requests fail.
    pub stockout: Option<Stockout>,
    /// Scripted user actions (Standby, protection).
    pub events: Events,
    /// The group's minimum size (Alibaba `MinSize`, AWS `MinSize`), if any: the policy's
    /// decision is raised so that the instances the group holds or has asked for (every
    /// state but Stopped) reach it; scale-in stops there. A health-check removal is not
    /// bounded by it: the next decision restores the minimum.
    pub min_instances: Option<u32>,
    /// The group's maximum size (`MaxSize`), if any: the decision is lowered so that every
    /// record (Stopped ones included, as in Alibaba's economical mode) plus the launches in
    /// flight stays within it, restarts of Stopped instances aside (they add no record); a
    /// group above it scales in the surplus.
    pub max_instances: Option<u32>,
    /// Rounds between health checks, 1 (every round, the lesson) to [`MAX_CHECK_INTERVAL`]:
    /// the check runs in rounds that are multiples of it (round 0 first); a broken instance
    /// keeps serving between checks. The check latency counts in checks.
    pub check_interval: u32,
    /// The scaling policy.
    pub policy: Policy,
    /// A scenario's launch hooks, run in order after the one-hook shorthand `launch_hook`
    /// ([`LifecycleHook`]), borrowed from the caller; at most [`MAX_HOOKS`] hooks in all, both
    /// transitions and the shorthands together.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub launch_hooks: &'a [LifecycleHook],
    /// A scenario's terminate hooks, run in order after `terminate_hook` ([`LifecycleHook`]).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub terminate_hooks: &'a [LifecycleHook],
    /// A scenario's timed operator actions ([`TimedAction`]), after `events` within a round; at
    /// most [`MAX_TIMED`]. Borrowed from the caller as the hooks are.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub at: &'a [TimedAction],
    /// Rounds of each task a serving node runs, back to back from the round it serves
    /// (1 to [`MAX_TASK_ROUNDS`]); `None`: no task model (the lesson). With tasks, a node
    /// scale-in removes is dealt with by the policy's `$NodeDeallocationOption`
    /// ([`MAX_TASK_ROUNDS`]).
    pub task_rounds: Option<u32>,
    /// The spot class and its preemption (off: every instance dedicated).
    pub spot: Spot,
    /// An AWS warm pool beside the group (size 0: none).
    pub warm_pool: WarmPool,
}

impl Default for Lifecycle<'_> {
    fn default() -> Self {
        Self {
            launch_hook: None,
            terminate_hook: None,
            count_pending: false,
            protected: 0,
            removal_policy: RemovalPolicy::Lesson,
            reclaim: Reclaim::Release,
            restart_rounds: 1,
            check_latency: 0,
            apply_delay: 0,
            stockout: None,
            events: Events::new(),
            min_instances: None,
            max_instances: None,
            check_interval: 1,
            policy: Policy::Lesson,
            launch_hooks: &[],
            terminate_hooks: &[],
            at: &[],
            task_rounds: None,
            spot: Spot::default(),
            warm_pool: WarmPool::default(),
        }
    }
}

impl Lifecycle<'_> {
    /// Returns the first option outside its accepted range, if any.
    pub fn validate(&self) -> Result<(), Error> {
        let hook_ok = |h: Option<Hook>| h.is_none_or(|h| (1..=MAX_HOOK_ROUNDS).contains(&h.rounds));
        ensure(
            hook_ok(self.launch_hook),
            "launch-hook",
            Accepted::integers(1, MAX_HOOK_ROUNDS as u64),
        )?;
        ensure(
            hook_ok(self.terminate_hook),
            "terminate-hook",
            Accepted::integers(1, MAX_HOOK_ROUNDS as u64),
        )?;
        ensure(
            self.protected <= MAX_GROUP_SIZE as u32,
            "protected",
            Accepted::integers(0, MAX_GROUP_SIZE as u64),
        )?;
        ensure(
            self.check_latency <= MAX_CHECK_LATENCY,
            "check-latency",
            Accepted::integers(0, MAX_CHECK_LATENCY as u64),
        )?;
        ensure(
            self.apply_delay <= MAX_APPLY_DELAY,
            "apply-delay",
            Accepted::integers(0, MAX_APPLY_DELAY as u64),
        )?;
        ensure(
            self.stockout.is_none_or(|s| s.start < s.end),
            "stockout-rounds",
            Accepted::RoundSpan,
        )?;
        ensure(
            self.events
                .iter()
                .all(|e| (1..=MAX_GROUP_SIZE as u32).contains(&e.count)),
            // The COUNT of each ROUND:ACTION:COUNT item.
            "events",
            Accepted::integers(1, MAX_GROUP_SIZE as u64),
        )?;
        ensure(
            match (self.min_instances, self.max_instances) {
                (Some(min), Some(max)) => min <= max,
                _ => true,
            },
            "min-instances",
            Accepted::NotAbove {
                other: "max-instances",
            },
        )?;
        ensure_within(self.check_interval, 1, MAX_CHECK_INTERVAL, "check-interval")?;
        let shorthands =
            usize::from(self.launch_hook.is_some()) + usize::from(self.terminate_hook.is_some());
        let total = self.launch_hooks.len() + self.terminate_hooks.len() + shorthands;
        ensure(
            self.launch_hooks.iter().all(LifecycleHook::valid) && total <= MAX_HOOKS,
            "launch-hooks",
            Accepted::Hooks {
                max: MAX_HOOKS as u32,
            },
        )?;
        ensure(
            self.terminate_hooks.iter().all(LifecycleHook::valid),
            "terminate-hooks",
            Accepted::Hooks {
                max: MAX_HOOKS as u32,
            },
        )?;
        ensure(
            self.task_rounds
                .is_none_or(|n| (1..=MAX_TASK_ROUNDS).contains(&n)),
            "task-rounds",
            Accepted::integers(1, MAX_TASK_ROUNDS as u64),
        )?;
        ensure(
            self.at.len() <= MAX_TIMED && self.timed_ok(),
            "at",
            Accepted::Timed {
                max: MAX_TIMED as u32,
            },
        )?;
        self.spot.validate()?;
        self.warm_pool.validate(self.spot.enabled())?;
        match &self.policy {
            Policy::Lesson => Ok(()),
            Policy::TargetTracking { target, .. } => ensure(
                (1..=100).contains(target),
                "target-utilization",
                Accepted::integers(1, 100),
            ),
            Policy::Step(steps) => ensure(
                steps_ok(steps),
                "steps",
                Accepted::Steps {
                    max: MAX_STEPS as u32,
                },
            ),
            #[cfg(feature = "hpa")]
            Policy::Hpa(hpa) => {
                hpa.validate()?;
                ensure(
                    self.min_instances != Some(0) || hpa.target.external(),
                    "min-instances",
                    Accepted::ScaleToZero,
                )
            }
        }
    }

    /// Returns `change` (the policy's decision, for a desired capacity of `desired`)
    /// bounded by the minimum and maximum size, for a group of `size` records (`stopped` of
    /// them Stopped) and `in_flight` launches asked for: the first clamp of a round's
    /// decision. With neither bound set, `change` itself.
    pub fn bounded(
        &self,
        change: i64,
        desired: i64,
        size: u32,
        stopped: u32,
        in_flight: u32,
    ) -> i64 {
        bounded_by(
            (self.min_instances, self.max_instances),
            change,
            desired,
            size,
            stopped,
            in_flight,
        )
    }

    /// Returns the minimum and maximum size in force in round `t`, once that round's timed
    /// actions are applied: the options', then each timed bound in round and list order.
    pub fn bounds_at(&self, t: u32) -> (Option<u32>, Option<u32>) {
        let (mut min, mut max) = (self.min_instances, self.max_instances);
        let bound = |v: u32| (v != NO_BOUND).then_some(v);
        let mut last = 0;
        loop {
            // The next round with actions, up to `t`, in round order.
            let next = self
                .at
                .iter()
                .filter(|a| a.round >= last && a.round <= t)
                .map(|a| a.round)
                .min();
            let Some(r) = next else {
                return (min, max);
            };
            for a in self.at.iter().filter(|a| a.round == r) {
                match a.what {
                    Timed::MinInstances => min = bound(a.value),
                    Timed::MaxInstances => max = bound(a.value),
                    _ => {}
                }
            }
            if r == u32::MAX {
                return (min, max);
            }
            last = r + 1;
        }
    }

    /// Returns whether the timed actions are in range: counts and versions at least 1, the
    /// minimum never above the maximum from any action's round on.
    fn timed_ok(&self) -> bool {
        let counts = self.at.iter().all(|a| match a.what {
            Timed::MinInstances | Timed::MaxInstances | Timed::Desired | Timed::Formula => true,
            Timed::EvaluationInterval => {
                (super::MIN_EVALUATION_INTERVAL..=super::MAX_EVALUATION_INTERVAL).contains(&a.value)
            }
            _ => a.value >= 1 && a.value != NO_BOUND,
        });
        counts
            && self.at.iter().all(|a| match self.bounds_at(a.round) {
                (Some(min), Some(max)) => min <= max,
                _ => true,
            })
            && self
                .at
                .iter()
                .all(|a| a.what != Timed::Desired || a.value != NO_BOUND)
    }

    /// Returns whether launches in round `t` fail.
    pub fn stocked_out(&self, t: u32) -> bool {
        self.stockout.is_some_and(|s| s.contains(t))
    }
}

/// Returns `change` bounded by `(min, max)` as [`Lifecycle::bounded`] does (the bounds a
/// timed action may have changed). The maximum counts records: scale-out stops at it. The
/// minimum is the providers' desired = max(MinSize, the policy's desired): a policy whose
/// desired capacity `desired` is below the minimum gets the group to the minimum and no
/// further (the lesson's policy, which counts only serving instances, would otherwise ask
/// for one more while the minimum's launches boot), one at or above it keeps its change.
pub fn bounded_by(
    (min_instances, max_instances): (Option<u32>, Option<u32>),
    change: i64,
    desired: i64,
    size: u32,
    stopped: u32,
    in_flight: u32,
) -> i64 {
    let held = i64::from(size) + i64::from(in_flight);
    let mut change = change;
    if let Some(max) = max_instances {
        let room = i64::from(max) - held;
        // Restarting a Stopped instance adds no record: up to `stopped` restarts are free.
        let high = if room >= 0 {
            room + i64::from(stopped)
        } else {
            room
        };
        change = change.min(high);
    }
    if let Some(min) = min_instances {
        let to_min = i64::from(min) - (held - i64::from(stopped));
        change = if desired < i64::from(min) {
            to_min
        } else {
            change.max(to_min)
        };
    }
    change
}

/// Returns whether `steps` are at least one band, each non-empty, in ascending order
/// without overlap (gaps are allowed: no change there), every adjustment non-zero.
fn steps_ok(steps: &Steps) -> bool {
    let mut floor = 0u32;
    for (i, s) in steps.iter().enumerate() {
        let after_open = i > 0 && steps[i - 1].high == OPEN;
        if after_open || s.high <= s.low || (i > 0 && s.low < floor) {
            return false;
        }
        if matches!(s.adjustment, Adjustment::Change(0) | Adjustment::Percent(0)) {
            return false;
        }
        floor = s.high;
    }
    !steps.is_empty()
}

/// Fuzzing: each option off half the time (as the lesson has it), else drawn mostly within
/// its accepted range, endpoints included, sometimes any value (invalid ones must be an
/// `Err`). Waits stay short enough for a fuzzed run of a few hundred rounds to reach them.
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Lifecycle<'static> {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use crate::fuzzing::u32_field;
        let off = Self::default();
        let hook = |u: &mut arbitrary::Unstructured<'a>| -> arbitrary::Result<Option<Hook>> {
            if u.arbitrary()? {
                return Ok(None);
            }
            Ok(Some(Hook {
                rounds: u32_field(u, 1, 1..=12)?,
                result: if u.ratio(1u8, 4)? {
                    HookResult::Abandon
                } else {
                    HookResult::Continue
                },
            }))
        };
        let launch_hook = hook(u)?;
        let terminate_hook = hook(u)?;
        let stockout = if u.arbitrary()? {
            None
        } else {
            let start = u32_field(u, 0, 0..=300)?;
            Some(Stockout {
                start,
                end: u32_field(u, start.saturating_add(1), start..=start.saturating_add(60))?,
            })
        };
        let mut events = Events::new();
        for _ in 0..u.int_in_range(0..=MAX_EVENTS)? {
            let action = *u.choose(&[
                Action::EnterStandby,
                Action::ExitStandby,
                Action::Protect,
                Action::Unprotect,
            ])?;
            let event = Event {
                round: u32_field(u, 0, 0..=300)?,
                action,
                count: u32_field(u, 1, 1..=8)?,
            };
            let _ = events.push(event); // at most MAX_EVENTS
        }
        // The lists are the caller's ('static): windows of fixed pools, endpoints included.
        const fn h(
            provider: Provider,
            result: HookResult,
            t: u16,
            a: u16,
            k: u16,
        ) -> LifecycleHook {
            LifecycleHook {
                provider,
                default_result: result,
                timeout: t,
                action_rounds: a,
                heartbeat_every: k,
            }
        }
        static HOOKS: [LifecycleHook; 6] = [
            h(Provider::Alibaba, HookResult::Continue, 3, 2, 0),
            h(Provider::Aws, HookResult::Abandon, 2, 0, 1),
            h(Provider::Alibaba, HookResult::Rollback, 4, 0, 2),
            h(Provider::Aws, HookResult::Continue, 120, 5, 0),
            h(Provider::Alibaba, HookResult::Abandon, 1, 0, 0),
            h(Provider::Aws, HookResult::Rollback, 2, 0, 0), // invalid: ROLLBACK is Alibaba's
        ];
        const fn a(round: u32, what: Timed, value: u32) -> TimedAction {
            TimedAction { round, what, value }
        }
        static AT: [TimedAction; 12] = [
            a(5, Timed::MaxInstances, 8),
            a(8, Timed::Desired, 14),
            a(20, Timed::Template, 2),
            a(30, Timed::Standby, 2),
            a(40, Timed::Detach, 1),
            a(45, Timed::Unstandby, 1),
            a(50, Timed::MaxInstances, NO_BOUND),
            a(60, Timed::MinInstances, 3),
            a(70, Timed::Protect, 2),
            a(80, Timed::Desired, 0),
            a(90, Timed::EvaluationInterval, 5),
            a(100, Timed::Formula, 0),
        ];
        let mut window = |len: usize| -> arbitrary::Result<(usize, usize)> {
            let start = u.int_in_range(0..=len)?;
            Ok((start, u.int_in_range(start..=len)?))
        };
        let (a0, a1) = window(HOOKS.len())?;
        let (b0, b1) = window(HOOKS.len())?;
        let (c0, c1) = window(AT.len())?;
        let (launch_hooks, terminate_hooks, at) = if u.arbitrary()? {
            (&HOOKS[a0..a1], &HOOKS[b0..b1], &AT[c0..c1])
        } else {
            (&[][..], &[][..], &[][..])
        };
        Ok(Self {
            launch_hooks,
            terminate_hooks,
            at,
            task_rounds: if u.arbitrary()? {
                None
            } else {
                Some(u32_field(u, 1, 0..=12)?)
            },
            launch_hook,
            terminate_hook,
            count_pending: u.arbitrary()?,
            protected: u32_field(u, off.protected, 0..=12)?,
            removal_policy: *u.choose(&[
                RemovalPolicy::Lesson,
                RemovalPolicy::Oldest,
                RemovalPolicy::Newest,
                RemovalPolicy::OldestTemplate,
            ])?,
            reclaim: if u.arbitrary()? {
                Reclaim::Stop
            } else {
                Reclaim::Release
            },
            restart_rounds: u32_field(u, off.restart_rounds, 0..=6)?,
            check_latency: u32_field(u, off.check_latency, 0..=MAX_CHECK_LATENCY)?,
            apply_delay: u32_field(u, off.apply_delay, 0..=12)?,
            stockout,
            events,
            check_interval: u32_field(u, off.check_interval, 1..=12)?,
            // The HPA (feature `hpa`, host-only) is choice 4.
            policy: match u.int_in_range(0u8..=if cfg!(feature = "hpa") { 4 } else { 3 })? {
                0 | 1 => Policy::Lesson,
                2 => Policy::TargetTracking {
                    target: u32_field(u, 50, 1..=100)?,
                    disable_scale_in: u.arbitrary()?,
                },
                3 => {
                    let mut steps = Steps::new();
                    let mut low = 0u32;
                    for _ in 0..u.int_in_range(1..=4)? {
                        // Whole percents mostly, a decimal bound sometimes.
                        let width: u32 = u.int_in_range(1..=100_000)?;
                        let high = low.saturating_add(width);
                        let adjustment = match u.int_in_range(0u8..=2)? {
                            0 => Adjustment::Change(u.int_in_range(-5..=5)?),
                            1 => Adjustment::Percent(u.int_in_range(-60..=200)?),
                            _ => Adjustment::Exact(u.int_in_range(0..=40)?),
                        };
                        let _ = steps.push(Step {
                            low,
                            high,
                            adjustment,
                        }); // at most 4
                        low = high;
                    }
                    if let Some(last) = steps.last_mut() {
                        if u.arbitrary()? {
                            last.high = OPEN;
                        }
                    }
                    Policy::Step(steps)
                }
                #[cfg(feature = "hpa")]
                4 => Policy::Hpa(u.arbitrary()?),
                _ => Policy::Lesson,
            },
            min_instances: if u.arbitrary()? {
                None
            } else {
                Some(u32_field(u, 0, 0..=30)?)
            },
            max_instances: if u.arbitrary()? {
                None
            } else {
                Some(u32_field(u, 0, 0..=40)?)
            },
            spot: u.arbitrary()?,
            warm_pool: u.arbitrary()?,
        })
    }
}
