//! What one autoscale run measures ([`Metrics`]). On the folder's ground floor with the
//! limits: it imports nothing but them, so every engine, policy and option can fill it in.

use super::limits::{MAX_GROUP_SIZE, MAX_ROUNDS};

/// What one run measured (the lesson's `m`).
///
/// No counter can overflow: each rises by at most [`MAX_GROUP_SIZE`] per round (checked at
/// compile time against [`MAX_ROUNDS`]), and the sizes are at most [`MAX_GROUP_SIZE`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Metrics {
    /// Smallest group size seen; starts at 99 as in the lesson, so it never exceeds 99; 0
    /// once the group was empty.
    pub min_size: u32,
    /// Largest group size seen, at most the group's capacity.
    pub max_size: u32,
    /// Most instances booting at once.
    pub max_launching: u32,
    /// Largest share of the group booting at once; NaN once the group was empty (the
    /// lesson's `0 / 0`, which `Math.max` keeps).
    pub max_launching_ratio: f64,
    /// Rounds with fewer ready instances than required (at most [`MAX_ROUNDS`]).
    pub under_capacity_rounds: u32,
    /// Instances launched, by scaling and by replacement.
    pub launched: u32,
    /// Healthy instances replaced after transient failures.
    pub false_replacements: u32,
    /// Instance-rounds a broken instance stayed in service.
    pub broken_rounds: u32,
    /// Scale-out and scale-in actions (at most one per round).
    pub scaling_actions: u32,
    /// Instances replaced by the health check.
    pub replacements: u32,
    /// Most rounds from a launch (or restart) decision to the first round the instance
    /// serves: apply delay + boot (at least 1) + hook wait; the lesson's instances take 2.
    pub time_to_in_service_max: u32,
    /// Rounds in which scale-in wanted to remove more than it could (the rest protected).
    pub scale_in_blocked_rounds: u32,
    /// Stopped instances restarted by scale-out (not counted in `launched`).
    pub restarts_from_stopped: u32,
    /// Launch requests that failed for want of capacity (stockout rounds).
    pub failed_launches: u64,
    /// Lifecycle hooks that ended at their timeout (every hook does).
    pub hook_timeouts: u32,
    /// Launches a launch hook abandoned (released before serving).
    pub abandoned_launches: u32,
    /// Instance-rounds billed in full: every state but Stopped and Preempted, and a warm
    /// pool's instances that run (a Running pool's, refills booting).
    pub billed_rounds: u64,
    /// Billed instance-rounds not serving (booting, waiting, restarting, removing).
    pub idle_billed_rounds: u64,
    /// Formula evaluations (0 without a formula: [`super::ScalingPolicy::finish`]).
    pub evaluations: u32,
    /// Formula evaluations that failed and left the group unchanged.
    pub failed_evaluations: u32,
    /// Successful evaluations that changed the dedicated target.
    pub target_changes: u32,
    /// Rounds in which the policy wanted more than `max_instances` or less than
    /// `min_instances` allow (its decision was clamped); 0 without those bounds.
    pub clamped_rounds: u32,
    /// Lifecycle-hook waits a hook's job completed early (CompleteLifecycleAction); 0
    /// without scenario hooks.
    pub hook_completions: u32,
    /// Lifecycle-hook heartbeats recorded (each restarts its hook's timeout).
    pub heartbeats: u32,
    /// Lifecycle-hook waits the provider's cap ended (AWS's global timeout, Alibaba's six
    /// hours or its 20 heartbeats' last timeout does not count: that is a timeout).
    pub hook_cap_timeouts: u32,
    /// Hook results that were ROLLBACK (a launch released, a removal taken back).
    pub hook_rollbacks: u32,
    /// Instances detached by timed actions.
    pub detached: u32,
    /// Rounds of task work lost by scale-in removals (`requeue`, `terminate`; with
    /// `task_rounds` only).
    pub lost_task_rounds: u64,
    /// Tasks failed by scale-in removals (`terminate`).
    pub failed_tasks: u32,
    /// Node-rounds removed nodes spent finishing their tasks (`taskcompletion`,
    /// `retaineddata`: billed, taking no new work).
    pub drain_rounds: u64,
    /// Instance-rounds in Stopped: economical mode's stopped instances and a Stopped warm
    /// pool's warm ones. Not in `billed_rounds`, but not free: seed 002, "disks and EIPs
    /// continue to be billed".
    pub stopped_rounds: u64,
    /// Most spot instances in the group at once (Preempted ones included); 0 without the
    /// spot class.
    pub spot_max: u32,
    /// Spot instances taken back by preemption.
    pub preemptions: u32,
    /// Spot instance-rounds billed in full (a part of `billed_rounds`).
    pub billed_spot_rounds: u64,
    /// Instances a scale-out took from the warm pool (not in `launched`).
    pub warm_starts: u32,
}

// Every counter in `Metrics` rises by at most `MAX_GROUP_SIZE` per round in a group of the
// default storage (a round launches at most as many instances as the group then holds:
// replacements take ready slots, scale-out fills the rest up to the capacity), plus the
// initial group: so none reaches `u32::MAX`. In larger storage the per-instance counters
// saturate at `u32::MAX` (a 4,096-instance group would need over a million rounds of every
// instance replaced to reach it).
const _: () = assert!(
    (MAX_GROUP_SIZE as u64) * (MAX_ROUNDS as u64 + 1) < u32::MAX as u64,
    "a u32 metric could overflow"
);
