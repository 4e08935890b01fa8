//! A second instance class: spot (Azure Batch low-priority / Spot nodes, AWS Spot
//! Instances, Alibaba preemptible instances), and its preemption. [`Spot::default`] turns it
//! off: one class, every instance dedicated (the lesson).
//!
//! Sources (issue 21):
//! - **Azure Batch** (seed 003; `BatchPool.CurrentLowPriorityNodes`, `BatchNodeState.Preempted`,
//!   `batch-spot-vms`): a pool has a dedicated and a low-priority target
//!   (`$TargetDedicatedNodes`, `$TargetLowPriorityNodes`); `$CurrentLowPriorityNodes` is "the
//!   number of Spot/Low-priority compute nodes currently in the pool; nodes which have been
//!   preempted are included in this count"; `$PreemptedNodeCount` is the number of nodes in
//!   the preempted state. A preempted node stays in the pool in the `preempted` state; Batch
//!   "attempts to replace the lost capacity and return to the target" (the platform restores
//!   preempted VMs, trying within 48 hours, without guarantee).
//! - **AWS** (EC2 Auto Scaling user guide, mixed instances groups, Spot interruptions;
//!   `InstancesDistribution`): a Spot Instance gets a two-minute interruption notice before it
//!   is taken back, and the group replaces it; EC2's `SpotCapacityRebalance` strategy
//!   `launch-before-terminate` "launches a new replacement Spot Instance when a rebalance
//!   notification is emitted … and then, after a delay that you specify (in
//!   TerminationDelay), terminates the instances that received a rebalance notification"
//!   (a delay of at least 120 s).
//!
//! The simulator's choices:
//! - **Preemption** strikes spot instances that run (InService, Protected, Standby): each
//!   draws `u < preemption_rate` once a round (its own stream, [`crate::rng::CounterHash`]
//!   seeded with the run's seed: never the health check's generator), and in every round of
//!   `preemption_rounds` every one of them is struck. A struck instance gets a notice of
//!   `preemption_notice` rounds (it keeps serving) and is taken at its end (0: at once).
//!   Launches in progress (Pending, Pending:Wait, Restarting) are not struck (a modelling choice).
//! - **What follows** is [`OnPreemption`]: Batch's (the default, the seed's provider) keeps
//!   the node as [`super::State::Preempted`] (not serving, not billed, counted in
//!   `$CurrentLowPriorityNodes`) until capacity returns: each later round it is restored
//!   (it boots again, counted in `launched`) unless that round would strike it too (a listed
//!   round, or its draw). AWS's terminates it and launches a spot replacement at the notice
//!   (Capacity Rebalancing: with a notice of at least the boot time, no capacity is lost).
//! - **Billing**: a preempted node is not billed (its VM is gone); a spot instance is billed
//!   like a dedicated one otherwise (`billed_rounds` counts both classes,
//!   `billed_spot_rounds` the spot ones).

use crate::error::{ensure, Accepted, Error};
use crate::rng::{CounterHash, UnitRng};

use super::limits::IN_FLIGHT_SLOTS;
use super::metrics::Metrics;
use super::state::{RoundState, State, StateCounts};

/// The most scripted preemption rounds one run may list (every copy of the parameters holds
/// room for them, on a board's stack too).
pub const MAX_PREEMPTION_ROUNDS: usize = 32;
/// The longest preemption notice, in rounds (a day of one-minute rounds; AWS's two minutes
/// are 2).
pub const MAX_PREEMPTION_NOTICE: u32 = 1440;

/// The rounds in which every running spot instance is struck.
pub type PreemptionRounds = heapless::Vec<u32, MAX_PREEMPTION_ROUNDS>;

/// What happens to a spot instance when it is taken back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum OnPreemption {
    /// Azure Batch: it stays in the pool as Preempted (not serving, not billed) until
    /// capacity returns, then boots again.
    #[default]
    Stay,
    /// AWS: it is terminated, and a spot replacement is launched at its notice.
    Replace,
}

impl OnPreemption {
    /// Returns the behaviour as the flag spells it.
    pub const fn name(self) -> &'static str {
        match self {
            OnPreemption::Stay => "stay",
            OnPreemption::Replace => "replace",
        }
    }
}

/// The spot class's options; [`Default`]: off (every instance dedicated).
///
/// The class is on ([`Spot::enabled`]) as soon as one of `preemption_rate`,
/// `on_demand_base` or `on_demand_percent` is given, or `preemption_rounds` lists a round:
/// a formula's `$TargetLowPriorityNodes` then applies to it (off, it is evaluated and
/// dropped, as before). `preemption_rate: Some(0.0)` is the class without preemption.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Spot {
    /// The probability that a running spot instance is struck in a round, 0 to 1.
    pub preemption_rate: Option<f64>,
    /// Rounds in which every running spot instance is struck.
    pub preemption_rounds: PreemptionRounds,
    /// Rounds from a strike to the preemption, 0 to [`MAX_PREEMPTION_NOTICE`].
    pub preemption_notice: u32,
    /// What follows a preemption.
    pub on_preemption: OnPreemption,
    /// AWS `OnDemandBaseCapacity`: the first this many instances of the threshold policy's
    /// group are dedicated (AWS default 0).
    pub on_demand_base: Option<u32>,
    /// AWS `OnDemandPercentageAboveBaseCapacity`: above the base, this percent is dedicated,
    /// the rest spot (AWS default 100: all dedicated).
    pub on_demand_percent: Option<u32>,
}

// The rate compares by its bits: the options stay `Eq` (one NaN never passes validation).
impl PartialEq for Spot {
    fn eq(&self, other: &Self) -> bool {
        self.preemption_rate.map(f64::to_bits) == other.preemption_rate.map(f64::to_bits)
            && self.preemption_rounds == other.preemption_rounds
            && self.preemption_notice == other.preemption_notice
            && self.on_preemption == other.on_preemption
            && self.on_demand_base == other.on_demand_base
            && self.on_demand_percent == other.on_demand_percent
    }
}

impl Eq for Spot {}

impl Spot {
    /// Returns whether the spot class is on.
    pub fn enabled(&self) -> bool {
        self.preemption_rate.is_some()
            || !self.preemption_rounds.is_empty()
            || self.on_demand_base.is_some()
            || self.on_demand_percent.is_some()
    }

    /// Returns the first option outside its accepted range, if any.
    pub fn validate(&self) -> Result<(), Error> {
        ensure(
            self.preemption_rate
                .is_none_or(|p| (0.0..=1.0).contains(&p)),
            "preemption-rate",
            Accepted::between(0.0, 1.0),
        )?;
        ensure(
            self.preemption_notice <= MAX_PREEMPTION_NOTICE,
            "preemption-notice",
            Accepted::integers(0, u64::from(MAX_PREEMPTION_NOTICE)),
        )?;
        ensure(
            self.on_demand_percent.is_none_or(|p| p <= 100),
            "on-demand-percent",
            Accepted::integers(0, 100),
        )
    }

    /// Returns whether round `t` strikes every running spot instance.
    pub fn scripted(&self, t: u32) -> bool {
        self.preemption_rounds.contains(&t)
    }

    /// AWS's mixed-instances split of a desired capacity `desired`: the dedicated
    /// (On-Demand) part is `min(desired, base) + ceil((desired − base) × percent / 100)`, the
    /// rest is spot (AWS `InstancesDistribution`: "the minimum amount of the group's capacity
    /// that must be fulfilled by On-Demand Instances", then "for example, 20 specifies 20%
    /// On-Demand Instances, 80% Spot Instances"; a fraction rounds toward On-Demand
    /// (a modelling choice: AWS states no rounding)). Returns `(dedicated, spot)`.
    pub fn split(&self, desired: u32) -> (u32, u32) {
        let base = self.on_demand_base.unwrap_or(0);
        let percent = u64::from(self.on_demand_percent.unwrap_or(100));
        let first = desired.min(base);
        let above = u64::from(desired - first);
        // At most `above`: fits u32.
        let dedicated = first + (above * percent).div_ceil(100) as u32;
        (dedicated, desired - dedicated)
    }

    /// Returns whether the threshold policy's launches are split (a mixed-instances group).
    pub fn mixed(&self) -> bool {
        self.on_demand_base.is_some() || self.on_demand_percent.is_some()
    }
}

/// Fuzzing: the class off half the time (the lesson's), else each option drawn mostly within
/// its accepted range, endpoints included, sometimes any value (an invalid one must be an
/// `Err`).
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Spot {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use crate::fuzzing::{f64_field, u32_field};
        if u.arbitrary()? {
            return Ok(Self::default());
        }
        let mut preemption_rounds = PreemptionRounds::new();
        for _ in 0..u.int_in_range(0..=4)? {
            let _ = preemption_rounds.push(u32_field(u, 0, 0..=300)?); // at most 4
        }
        let some = |u: &mut arbitrary::Unstructured<'a>| u.arbitrary::<bool>();
        Ok(Self {
            preemption_rate: if some(u)? {
                Some(f64_field(u, 0.02, 0.0, 1.0)?)
            } else {
                None
            },
            preemption_rounds,
            preemption_notice: u32_field(u, 0, 0..=MAX_PREEMPTION_NOTICE)?,
            on_preemption: if some(u)? {
                OnPreemption::Replace
            } else {
                OnPreemption::Stay
            },
            on_demand_base: if some(u)? {
                Some(u32_field(u, 0, 0..=20)?)
            } else {
                None
            },
            on_demand_percent: if some(u)? {
                Some(u32_field(u, 100, 0..=100)?)
            } else {
                None
            },
        })
    }
}

/// The spot class's part of a running group.
#[derive(Debug)]
pub(crate) struct SpotRun {
    /// Spot instances per state (a subset of the group's counts).
    pub counts: StateCounts,
    /// Spot launches asked for, by the round (modulo [`IN_FLIGHT_SLOTS`]) in which they join: a part
    /// of the group's launches in flight.
    in_flight: [u16; IN_FLIGHT_SLOTS],
    pub in_flight_total: u32,
    /// The preemption stream: its own generator, never the health check's.
    rng: CounterHash,
}

impl SpotRun {
    /// Returns the part of a new group whose run has `seed`.
    pub fn new(seed: u32) -> Self {
        Self {
            counts: StateCounts::default(),
            in_flight: [0; IN_FLIGHT_SLOTS],
            in_flight_total: 0,
            rng: CounterHash::new(seed),
        }
    }

    /// Returns whether a spot instance is struck this round: in a listed round, or by its
    /// draw (one per call when `rate` > 0).
    pub fn struck(&mut self, scripted: bool, rate: f64) -> bool {
        let drawn = rate > 0.0 && self.rng.next_unit() < rate;
        scripted || drawn
    }

    pub fn put_in_flight(&mut self, slot: usize, n: u16) {
        self.in_flight[slot] = self.in_flight[slot].saturating_add(n);
        self.in_flight_total += u32::from(n);
    }

    /// Returns (and clears) the spot launches of `slot`.
    pub fn take_in_flight(&mut self, slot: usize) -> u32 {
        let n = u32::from(self.in_flight[slot]);
        self.in_flight[slot] = 0;
        self.in_flight_total -= n;
        n
    }

    /// Phase 5's part: the round's Stopped and spot measures into `m`, given the group's
    /// `counts`.
    pub fn measure(&self, counts: &StateCounts, m: &mut Metrics, now: &mut RoundState) {
        m.stopped_rounds += u64::from(counts.get(State::Stopped));
        let spot = self.counts.total();
        if spot == 0 {
            return;
        }
        m.spot_max = m.spot_max.max(spot);
        let billed = spot - self.counts.get(State::Stopped) - self.counts.get(State::Preempted);
        m.billed_spot_rounds += u64::from(billed);
        now.spot = spot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Base 10 and 50 % above it: a desired capacity of 30 is 10 + 10 On-Demand and 10 Spot;
    /// AWS's "20 specifies 20% On-Demand": 10 above a base of 0 → 2 and 8.
    #[test]
    fn the_mixed_split_follows_aws() {
        let s = Spot {
            on_demand_base: Some(10),
            on_demand_percent: Some(50),
            ..Spot::default()
        };
        assert_eq!(s.split(30), (20, 10));
        assert_eq!(s.split(7), (7, 0));
        let twenty = Spot {
            on_demand_percent: Some(20),
            ..Spot::default()
        };
        assert_eq!(twenty.split(10), (2, 8));
        // 11 above the base at 50 %: 5.5 rounds up to 6 On-Demand.
        assert_eq!(s.split(21), (16, 5));
        let all_spot = Spot {
            on_demand_percent: Some(0),
            ..Spot::default()
        };
        assert_eq!(all_spot.split(9), (0, 9));
        assert_eq!(Spot::default().split(9), (9, 0));
        assert_eq!(all_spot.split(u32::MAX), (0, u32::MAX));
        let all = Spot {
            on_demand_percent: Some(100),
            ..Spot::default()
        };
        assert_eq!(all.split(u32::MAX), (u32::MAX, 0));
    }
}
