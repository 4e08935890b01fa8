//! Timed operator actions: what an operator (or a scheduled action) does to the group in a
//! given round — change its bounds or desired size, move instances in and out of Standby
//! and protection, detach them, or publish a new launch-template version.
//!
//! Facts: AWS scheduled actions set `MinSize`, `MaxSize` and `DesiredCapacity` at a time
//! ("Scheduled actions per Auto Scaling group 125", EC2 Auto Scaling quotas); a manual
//! change of the desired capacity is not subject to a cooldown (Alibaba: manual,
//! scheduled and min/max/expected changes ignore it, spec §2.6). `DetachInstances` takes an
//! instance out of the group without lifecycle hooks (AWS lifecycle-hooks: hooks do not
//! apply to attach/detach). A new template version is used by every launch from then on;
//! the removal policy `oldest-template` removes instances of the oldest version first
//! (Alibaba `OldestScalingConfiguration`, AWS `OldestLaunchTemplate`, spec §7).

/// The most timed actions one run may list (AWS's 125 scheduled actions per group).
pub const MAX_TIMED: usize = 125;

/// The value of a bound that a timed action lifts (`min_instances = "none"`).
pub const NO_BOUND: u32 = u32::MAX;

/// What a timed action does; its value is [`TimedAction::value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Timed {
    /// Sets the group's minimum size ([`NO_BOUND`]: none).
    MinInstances,
    /// Sets the group's maximum size ([`NO_BOUND`]: none); a group above it scales in the
    /// surplus at the round's decision.
    MaxInstances,
    /// Sets the desired size: the group launches, or removes by its removal policy, the
    /// difference between the value and its serving and launching instances (and the
    /// launches in flight), within its bounds, at once and whatever the cooldown. The
    /// policy decides again in the same round.
    Desired,
    /// `EnterStandby` for up to value InService instances (storage order).
    Standby,
    /// `ExitStandby` for up to value Standby instances.
    Unstandby,
    /// `SetInstancesProtection(true)` for up to value InService instances.
    Protect,
    /// `SetInstancesProtection(false)` for up to value Protected instances.
    Unprotect,
    /// `DetachInstances`: up to value InService instances leave the group at once, released
    /// from its care (no hook, no reclaim: the record goes).
    Detach,
    /// A new launch-template version (the value, at least 1, names it); launches from this
    /// round on use it (the initial group has version 0).
    Template,
    /// A formula's new evaluation interval, 5 to 10,080 rounds: "the existing autoscale
    /// evaluation schedule will be stopped and a new autoscale evaluation schedule will be
    /// started, with its starting time being the time when this request was issued" (Batch,
    /// `EnableAutoScale` `autoScaleEvaluationInterval`): evaluations at this round, then every
    /// value rounds. Other policies have no interval (nothing changes).
    EvaluationInterval,
    /// A new autoscale formula: the value indexes the programs the caller compiled and gave
    /// the formula policy ([`super::super::FormulaPolicy::with_programs`]). "Enable
    /// autoscale with a new formula" restarts the evaluation schedule as
    /// [`Timed::EvaluationInterval`] does: the new formula evaluates in this round, then
    /// every interval. The pool's target, samples and deallocation option stay. A policy
    /// without formulas, or an index past the list, ignores it (the host refuses a timed
    /// formula without `--formula`).
    Formula,
}

impl Timed {
    /// Every action, in declaration order.
    pub const ALL: [Timed; 11] = [
        Timed::MinInstances,
        Timed::MaxInstances,
        Timed::Desired,
        Timed::Standby,
        Timed::Unstandby,
        Timed::Protect,
        Timed::Unprotect,
        Timed::Detach,
        Timed::Template,
        Timed::EvaluationInterval,
        Timed::Formula,
    ];

    /// Returns the action as its scenario key spells it.
    pub const fn key(self) -> &'static str {
        match self {
            Timed::MinInstances => "min_instances",
            Timed::MaxInstances => "max_instances",
            Timed::Desired => "desired",
            Timed::Standby => "standby",
            Timed::Unstandby => "unstandby",
            Timed::Protect => "protect",
            Timed::Unprotect => "unprotect",
            Timed::Detach => "detach",
            Timed::Template => "template",
            Timed::EvaluationInterval => "evaluation_interval",
            Timed::Formula => "formula",
        }
    }

    /// Returns the action named by `key`.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.key() == key)
    }
}

/// One timed action: in `round`, after the scripted standby/protection events and before
/// the health check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimedAction {
    /// The round.
    pub round: u32,
    /// What it does.
    pub what: Timed,
    /// Its value: a size, a count of instances or a version.
    pub value: u32,
}

/// Returns the launch-template epoch of a launch decided in round `since`: how many
/// template changes `at` lists up to and including that round (0: the initial version).
pub fn template_epoch(at: &[TimedAction], since: u32) -> u32 {
    at.iter()
        .filter(|a| a.what == Timed::Template && a.round <= since)
        .count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_stay_small() {
        for t in Timed::ALL {
            assert_eq!(Timed::from_key(t.key()), Some(t));
        }
        assert_eq!(Timed::from_key("round"), None);
        assert_eq!(core::mem::size_of::<TimedAction>(), 12);
    }

    #[test]
    fn epochs_count_the_template_changes_so_far() {
        let at = [
            (10, Timed::Template),
            (20, Timed::Desired),
            (30, Timed::Template),
        ]
        .map(|(round, what)| TimedAction {
            round,
            what,
            value: 2,
        });
        assert_eq!(template_epoch(&at, 9), 0);
        assert_eq!(template_epoch(&at, 10), 1);
        assert_eq!(template_epoch(&at, 29), 1);
        assert_eq!(template_epoch(&at, 30), 2);
    }
}
