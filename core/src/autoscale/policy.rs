//! The two seams a group's behaviour plugs into: the scaling policy and the health check.
//! Their lesson implementations are [`LessonPolicy`] and [`LessonCheck`].

use crate::formula::AutoScaleRun;
use crate::formula::Deallocation;
use crate::rng::UnitRng;

#[cfg(feature = "hpa")]
use super::hpa::HpaRound;
use super::lifecycle::{
    Adjustment, Steps, TARGET_TRACKING_SCALE_IN_ROUNDS, TARGET_TRACKING_SCALE_OUT_ROUNDS,
};
use super::metrics::Metrics;
use super::spec::{required_count, Params};
#[cfg(feature = "hpa")]
use super::state::State;
use super::state::StateCounts;

/// What a scaling policy sees in one round, when the cooldown has passed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Signal {
    /// The round.
    pub round: u32,
    /// The round's demand, in requests.
    pub demand: f64,
    /// The instances the demand needs (`ceil(demand / capacity)`; may be negative when the
    /// demand curve is).
    pub required: i64,
    /// Instances per state, after this round's health check.
    pub counts: StateCounts,
    /// Instances asked for by earlier decisions that have not joined the group yet.
    pub in_flight: u32,
    /// The most instance records the group can hold (its storage's capacity).
    pub capacity: u32,
    /// The spot class's part of `counts` and `in_flight`; `None` without the class.
    pub spot: Option<SpotSignal>,
}

/// The spot class's part of a [`Signal`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpotSignal {
    /// Spot instances per state (Preempted ones included).
    pub counts: StateCounts,
    /// Spot launches asked for that have not joined the group yet.
    pub in_flight: u32,
    /// Spot instances serving out a notice whose replacement is already launched (AWS's
    /// way, [`super::OnPreemption::Replace`]): part of `counts`, but no longer capacity.
    pub leaving: u32,
}

/// One of the group's instances, as a policy that reads them sees it
/// ([`ScalingPolicy::instances`]).
#[cfg(feature = "hpa")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstanceView {
    /// Its state.
    pub state: State,
    /// The round of the decision that launched or restarted it.
    pub since: u32,
    /// Broken for good (the lesson's permanent failure).
    pub broken: bool,
}

/// Decides how the group should change in one round.
pub trait ScalingPolicy {
    /// Returns the change: `n > 0` asks for `n` more instances, `n < 0` removes `-n`
    /// InService instances, 0 does nothing (and is not a scaling action).
    fn decide(&mut self, signal: &Signal) -> i64;

    /// Returns the instances the policy's change counts from, so that `counted + change` is
    /// the capacity the policy wants (its desired capacity, which a minimum size raises:
    /// the providers' desired = max(MinSize, the policy's desired)). Default: the instances
    /// serving, on their way into service and asked for, as AWS counts them.
    fn counted(&self, signal: &Signal) -> i64 {
        current(signal)
    }

    /// Hears what the group made of the round's non-zero decision: `acted` is false when a
    /// scale-in found nothing it may remove (not a scaling action).
    fn applied(&mut self, round: u32, acted: bool) {
        let _ = (round, acted);
    }

    /// Returns the spot class's change this round, asked right after [`ScalingPolicy::decide`]
    /// (whose change is then the dedicated class's) when the group has the spot class: a
    /// formula's `$TargetLowPriorityNodes`. `None` (every other policy): `decide`'s change
    /// is the whole group's, split by the mixed-instances rule if one is set.
    fn decide_spot(&mut self, signal: &Signal) -> Option<i64> {
        let _ = signal;
        None
    }

    /// Rounds an instance this policy scales in drains (Removing:Wait: billed, not serving)
    /// before it leaves, on top of any terminate hook; 0 (the lesson): it leaves at once.
    fn drain_rounds(&self) -> u32 {
        0
    }

    /// The dedicated target the policy steers the group to after this round's decision (a
    /// formula policy's; `None` for a policy without one).
    fn target_dedicated(&self) -> Option<u32> {
        None
    }

    /// The evaluation the policy ran in `round`'s decision, if it ran one (a formula
    /// policy's; `None` otherwise).
    fn evaluation(&self, round: u32) -> Option<AutoScaleRun<'_>> {
        let _ = round;
        None
    }

    /// What this policy's removals do to a node's running task (Batch's
    /// `$NodeDeallocationOption`), read only when the group runs tasks (`task_rounds`);
    /// `None` (every policy but a formula): the task is requeued, Batch's default.
    fn node_deallocation(&self) -> Option<Deallocation> {
        None
    }

    /// Hears a timed action set a new evaluation interval of `rounds` in round `round` (a
    /// formula's schedule restarts there); a policy without one ignores it.
    fn set_evaluation_interval(&mut self, round: u32, rounds: u32) {
        let _ = (round, rounds);
    }

    /// Hears a timed action swap in formula `index` (of the programs the policy was given)
    /// in round `round` (its schedule restarts there); a policy without formulas ignores it.
    fn set_formula(&mut self, round: u32, index: u32) {
        let _ = (round, index);
    }

    /// Adds what the policy counted to a finished run's `metrics` (a formula's evaluations);
    /// every other policy counts nothing.
    fn finish(&self, metrics: &mut Metrics) {
        let _ = metrics;
    }

    /// Returns whether this policy, as it is now, is the lesson's as `params` set it up
    /// ([`LessonPolicy::of`]`(params)`, no decision taken yet): then the fast engines, which
    /// read the policy from `params`, compute the run exactly ([`super::plan()`]). `false`
    /// (every other policy) sends the run to the reference engine.
    fn is_lessons(&self, params: &Params) -> bool {
        let _ = params;
        false
    }

    /// Returns whether the policy reads the group's instances before each decision
    /// ([`ScalingPolicy::instances`]): only the Kubernetes HPA does (host-only, feature `hpa`).
    #[cfg(feature = "hpa")]
    fn reads_instances(&self) -> bool {
        false
    }

    /// Hears every instance of the group in round `round`, in storage order, right before
    /// [`ScalingPolicy::decide`] (only when [`ScalingPolicy::reads_instances`]).
    #[cfg(feature = "hpa")]
    fn instances(&mut self, round: u32, instances: &mut dyn Iterator<Item = InstanceView>) {
        let _ = (round, instances);
    }

    /// Returns the HPA's record of its last sync (the HPA policy's; `None` otherwise).
    #[cfg(feature = "hpa")]
    fn hpa_round(&self) -> Option<HpaRound> {
        None
    }
}

/// The lesson's policy: once `cooldown` rounds have passed since its last action, out to
/// `required`, in down to `required + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LessonPolicy {
    /// The lesson counts serving instances only; `true` also counts those on their way
    /// into service (so a hook wait is no longer a false demand signal).
    pub count_pending: bool,
    /// Rounds after an action before the next decision.
    pub cooldown: u32,
    last_action: i64,
}

impl LessonPolicy {
    /// Returns the policy with no action taken yet (the first round may act).
    pub fn new(count_pending: bool, cooldown: u32) -> Self {
        Self {
            count_pending,
            cooldown,
            last_action: -i64::from(cooldown),
        }
    }

    /// Returns the policy as `params` set it up: their cooldown and `lifecycle.count_pending`.
    pub fn of(params: &Params) -> Self {
        Self::new(params.lifecycle.count_pending, params.cooldown)
    }
}

impl ScalingPolicy for LessonPolicy {
    fn decide(&mut self, s: &Signal) -> i64 {
        if i64::from(s.round) - self.last_action < i64::from(self.cooldown) {
            return 0;
        }
        let have = self.counted(s);
        // Saturating: `required` saturates far outside the group's range.
        if have < s.required {
            s.required.saturating_sub(have)
        } else if have > s.required.saturating_add(1) {
            s.required.saturating_add(1).saturating_sub(have)
        } else {
            0
        }
    }

    /// The serving instances (and, with `count_pending`, those on their way into service).
    fn counted(&self, s: &Signal) -> i64 {
        let mut have = i64::from(s.counts.serving());
        if self.count_pending {
            have += i64::from(s.counts.launching()) + i64::from(s.in_flight);
        }
        have
    }

    fn applied(&mut self, round: u32, acted: bool) {
        if acted {
            self.last_action = i64::from(round);
        }
    }

    fn is_lessons(&self, params: &Params) -> bool {
        *self == Self::of(params)
    }
}

/// The instances a policy counts as the group's capacity: serving, on their way into
/// service, and asked for (AWS counts pending instances in the desired capacity).
fn current(s: &Signal) -> i64 {
    i64::from(s.counts.serving()) + i64::from(s.counts.launching()) + i64::from(s.in_flight)
}

/// The in-service instances' average utilisation, in percent: demand / (serving ×
/// capacity) × 100; with none serving, +∞ under a positive demand, else 0.
pub fn utilization(s: &Signal, capacity: f64) -> f64 {
    let serving = s.counts.serving();
    if serving > 0 {
        s.demand / (f64::from(serving) * capacity) * 100.0
    } else if s.demand > 0.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// AWS target tracking: the desired count is `ceil(in-service × utilisation / target)`,
/// i.e. `ceil(demand / (capacity × target / 100))`; scale-out to it (pending instances and
/// launches in flight count) from the [`TARGET_TRACKING_SCALE_OUT_ROUNDS`]th consecutive
/// round that wants more on (AWS's scale-out alarm: 3 data points of one minute), every
/// round while it does; scale-in only after [`TARGET_TRACKING_SCALE_IN_ROUNDS`] consecutive
/// rounds that want fewer (then to the round's desired count), never with
/// `disable_scale_in`. No cooldown (the lesson's `cooldown` does nothing here).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetTracking {
    /// The target utilisation, percent.
    pub target: u32,
    /// Never scale in.
    pub disable_scale_in: bool,
    /// Requests one instance serves.
    pub capacity: f64,
    /// Consecutive rounds that wanted more, and fewer, instances.
    above: u32,
    below: u32,
}

impl TargetTracking {
    /// Returns the policy with no round above or below target yet.
    pub fn new(target: u32, disable_scale_in: bool, capacity: f64) -> Self {
        Self {
            target,
            disable_scale_in,
            capacity,
            above: 0,
            below: 0,
        }
    }

    /// Returns the desired count for the round.
    pub fn desired(&self, s: &Signal) -> i64 {
        let per_instance = self.capacity * f64::from(self.target) / 100.0;
        required_count(libm::ceil(s.demand / per_instance)).max(0)
    }
}

impl ScalingPolicy for TargetTracking {
    fn decide(&mut self, s: &Signal) -> i64 {
        let (desired, have) = (self.desired(s), current(s));
        if desired > have {
            self.below = 0;
            self.above = self.above.saturating_add(1);
            if self.above < TARGET_TRACKING_SCALE_OUT_ROUNDS {
                return 0;
            }
            return desired.saturating_sub(have);
        }
        self.above = 0;
        if desired == have || self.disable_scale_in {
            self.below = 0;
            return 0;
        }
        self.below += 1;
        if self.below < TARGET_TRACKING_SCALE_IN_ROUNDS {
            return 0;
        }
        self.below = 0;
        desired - have
    }
}

/// AWS step scaling: every round, the band of [`Steps`] the utilisation ([`utilization`])
/// is in applies its adjustment; no band, no change. There is no cooldown (AWS: a step
/// policy "continues to respond to additional alarm breaches, even while a scaling activity
/// ... is in progress"); instead, scaling out, instances on their way into service are
/// warming up and not part of the current capacity, while the capacity already asked for
/// stands: a scale-out band sets the desired capacity to the serving instances plus its
/// adjustment of them, and launches only what that adds to the instances serving, on their
/// way and asked for (AWS: "multiple alarm breaches that fall in the range of the same step
/// adjustment result in a single scaling activity"). A scale-in band, and an exact capacity,
/// apply to the current capacity (serving, on their way, asked for).
#[derive(Clone, Copy, Debug)]
pub struct StepPolicy<'a> {
    /// The bands.
    pub steps: &'a Steps,
    /// Requests one instance serves.
    pub capacity: f64,
}

impl<'a> StepPolicy<'a> {
    /// Returns the policy.
    pub fn new(steps: &'a Steps, capacity: f64) -> Self {
        Self { steps, capacity }
    }
}

/// AWS's rounding of a percent change: above 1 down, in (0, 1) up to 1; negative alike.
fn percent_change(current: i64, percent: i16) -> i64 {
    let x = current as f64 * f64::from(percent) / 100.0;
    if x >= 1.0 {
        libm::floor(x) as i64
    } else if x > 0.0 {
        1
    } else if x <= -1.0 {
        libm::ceil(x) as i64
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

impl ScalingPolicy for StepPolicy<'_> {
    fn decide(&mut self, s: &Signal) -> i64 {
        let u = utilization(s, self.capacity);
        let band = self.steps.iter().find(|b| b.holds(u));
        let have = current(s);
        let serving = i64::from(s.counts.serving());
        match band.map(|b| b.adjustment) {
            None => 0,
            Some(Adjustment::Change(n)) if n < 0 => i64::from(n),
            Some(Adjustment::Percent(p)) if p < 0 => percent_change(have, p),
            Some(Adjustment::Change(n)) => (serving + i64::from(n) - have).max(0),
            Some(Adjustment::Percent(p)) => (serving + percent_change(serving, p) - have).max(0),
            Some(Adjustment::Exact(n)) => i64::from(n) - have,
        }
    }
}

/// Checks one serving instance's health.
pub trait HealthCheck {
    /// Returns whether the check passes; `broken` says whether the instance is broken.
    fn passes<R: UnitRng>(&mut self, broken: bool, rng: &mut R) -> bool;

    /// Returns whether this check is the lesson's as `params` set it up
    /// ([`LessonCheck::of`]`(params)`): then the fast engines, which read the check from
    /// `params`, compute the run exactly ([`super::plan()`]). `false` (every other check)
    /// sends the run to the reference engine.
    fn is_lessons(&self, params: &Params) -> bool {
        let _ = params;
        false
    }
}

/// The lesson's check: a broken instance fails without a draw (the lesson's `&&`
/// short-circuits); a healthy one fails with probability `transient_failure`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LessonCheck {
    /// Probability that a healthy instance fails one check.
    pub transient_failure: f64,
}

impl LessonCheck {
    /// Returns the lesson's check with `params`' failure probability.
    pub fn of(params: &Params) -> Self {
        Self {
            transient_failure: params.transient_failure,
        }
    }
}

impl HealthCheck for LessonCheck {
    fn passes<R: UnitRng>(&mut self, broken: bool, rng: &mut R) -> bool {
        !broken && rng.next_unit() >= self.transient_failure
    }

    /// By bits: the fast engines' draws compare against `params.transient_failure`'s.
    fn is_lessons(&self, params: &Params) -> bool {
        self.transient_failure.to_bits() == params.transient_failure.to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::super::chosen::Chosen;
    use super::super::lifecycle::Policy;
    use super::super::spec::Params;
    use super::{HealthCheck, LessonCheck, LessonPolicy, ScalingPolicy};

    /// The lesson's policy and check are the lesson's only as the parameters set them up:
    /// another cooldown or count, a decision already taken, another policy or another
    /// failure probability (by bits) is not.
    #[test]
    fn only_the_parameters_own_lesson_policy_and_check_are_the_lessons() {
        let p = Params::default();
        assert!(Chosen::of(&p).is_lessons(&p));
        assert!(LessonPolicy::of(&p).is_lessons(&p));
        assert!(LessonCheck::of(&p).is_lessons(&p));
        assert!(!LessonPolicy::new(true, p.cooldown).is_lessons(&p));
        assert!(!LessonPolicy::new(false, p.cooldown + 1).is_lessons(&p));
        let mut acted = LessonPolicy::of(&p);
        acted.applied(3, true);
        assert!(!acted.is_lessons(&p));
        let target = Params {
            lifecycle: super::super::Lifecycle {
                policy: Policy::TargetTracking {
                    target: 50,
                    disable_scale_in: false,
                },
                ..Default::default()
            },
            ..p.clone()
        };
        assert!(!Chosen::of(&target).is_lessons(&target));
        let zero = Params {
            transient_failure: 0.0,
            ..p.clone()
        };
        let minus_zero = LessonCheck {
            transient_failure: -0.0,
        };
        assert!(!minus_zero.is_lessons(&zero));
        assert!(LessonCheck::of(&zero).is_lessons(&zero));
    }
}
