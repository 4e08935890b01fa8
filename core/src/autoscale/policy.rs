//! The two seams a group's behaviour plugs into: the scaling policy and the health check.
//! Their lesson implementations are [`LessonPolicy`] and [`LessonCheck`].

use crate::rng::UnitRng;

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
}

/// Decides how the group should change in one round.
pub trait ScalingPolicy {
    /// Returns the change: `n > 0` asks for `n` more instances, `n < 0` removes `-n`
    /// InService instances, 0 does nothing (and is not a scaling action).
    fn decide(&mut self, signal: &Signal) -> i64;

    /// Hears what the group made of the round's non-zero decision: `acted` is false when a
    /// scale-in found nothing it may remove (not a scaling action).
    fn applied(&mut self, round: u32, acted: bool) {
        let _ = (round, acted);
    }

    /// Rounds an instance this policy scales in drains (Removing:Wait: billed, not serving)
    /// before it leaves, on top of any terminate hook; 0 (the lesson): it leaves at once.
    fn drain_rounds(&self) -> u32 {
        0
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
}

impl ScalingPolicy for LessonPolicy {
    fn decide(&mut self, s: &Signal) -> i64 {
        if i64::from(s.round) - self.last_action < i64::from(self.cooldown) {
            return 0;
        }
        let mut have = i64::from(s.counts.serving());
        if self.count_pending {
            have += i64::from(s.counts.launching()) + i64::from(s.in_flight);
        }
        // Saturating: `required` saturates far outside the group's range.
        if have < s.required {
            s.required.saturating_sub(have)
        } else if have > s.required.saturating_add(1) {
            s.required.saturating_add(1).saturating_sub(have)
        } else {
            0
        }
    }

    fn applied(&mut self, round: u32, acted: bool) {
        if acted {
            self.last_action = i64::from(round);
        }
    }
}

/// Checks one serving instance's health.
pub trait HealthCheck {
    /// Returns whether the check passes; `broken` says whether the instance is broken.
    fn passes<R: UnitRng>(&mut self, broken: bool, rng: &mut R) -> bool;
}

/// The lesson's check: a broken instance fails without a draw (the lesson's `&&`
/// short-circuits); a healthy one fails with probability `transient_failure`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LessonCheck {
    /// Probability that a healthy instance fails one check.
    pub transient_failure: f64,
}

impl HealthCheck for LessonCheck {
    fn passes<R: UnitRng>(&mut self, broken: bool, rng: &mut R) -> bool {
        !broken && rng.next_unit() >= self.transient_failure
    }
}
