//! An AWS warm pool beside the group: pre-initialised instances a scale-out takes first.
//! [`WarmPool::default`] (size 0) is no pool: the lesson.
//!
//! Sources (EC2 Auto Scaling user guide, "Warm pools"; API `PutWarmPool`,
//! `InstanceReusePolicy`): "a pool of pre-initialized EC2 instances that sits alongside the
//! Auto Scaling group. Whenever your application needs to scale out, the Auto Scaling group
//! can draw on the warm pool to meet its new desired capacity"; "when your Auto Scaling group
//! scales out and the size of the warm pool shrinks, Amazon EC2 Auto Scaling launches new
//! instances into the warm pool to maintain its minimum size"; the pool state is `Stopped`
//! (the default: only volumes and Elastic IPs are paid for), `Hibernated` or `Running` (full
//! price); `ReuseOnScaleIn` "specifies whether instances in the Auto Scaling group can be
//! returned to the warm pool on scale in"; `PutWarmPool` "cannot be called on an Auto
//! Scaling group that has a mixed instances policy or … requests Spot Instances".
//!
//! The simulator's choices:
//! - `size` instances are warm (initialised) at round 0. They are not group members: not in
//!   the group size, not serving, not health-checked.
//! - A dedicated scale-out takes warm instances first (after restarting Stopped records in
//!   economical mode): each joins the group as `Restarting` and serves after
//!   `restart_rounds` (a warm start, counted in `warm_starts`, not in `launched`); the rest
//!   are launched as usual (cold starts).
//! - Every instance that leaves the pool is refilled by a launch into the pool (counted in
//!   `launched`, billed and idle while it boots for `boot_rounds`, then warm); refills fail
//!   in a stockout round and are asked again the next round.
//! - With `reuse`, an instance that scale-in removes returns to the pool (warm at once)
//!   while fewer than `size` are warm, and a refill not yet warm is then not needed (one
//!   not launched yet is dropped, else the last one booting is released); otherwise it is
//!   released.
//! - Billing: a `Stopped` pool's warm instances count in `stopped_rounds` (storage billed,
//!   not in `billed_rounds`); a `Running` pool's in `billed_rounds` and `idle_billed_rounds`.
//!   Refills booting are billed and idle in both.
//! - The pool and the spot class exclude each other (AWS's rule above).
//! - A `size` of [`MAX_MINUS_DESIRED`] is AWS's default size ("by default, the warm pool
//!   size is the difference between the Auto Scaling group's maximum capacity and its
//!   desired capacity"): each round the pool is resized to the group's maximum size minus
//!   its desired capacity (its records but Stopped ones, and the launches asked for) —
//!   refills launched when the group shrinks, warm instances released when it grows past
//!   it. It needs a maximum size.

use crate::error::{ensure, Accepted, Error};

/// The most instances a warm pool of a fixed size may hold (the group's own limit on a
/// board).
pub const MAX_WARM_POOL: u32 = 256;

/// A warm pool's size meaning AWS's default: the group's maximum size minus its desired
/// capacity, each round.
pub const MAX_MINUS_DESIRED: u32 = u32::MAX;

/// The most distinct rounds in which refills of the pool finish booting at once; more wait
/// (they are asked again next round).
const REFILL_SLOTS: usize = 8;

/// The state the pool keeps its instances in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WarmState {
    /// `Stopped` (AWS's default): storage billed only.
    #[default]
    Stopped,
    /// `Running`: billed in full while it waits.
    Running,
}

impl WarmState {
    /// Returns the state as the flag spells it.
    pub const fn name(self) -> &'static str {
        match self {
            WarmState::Stopped => "stopped",
            WarmState::Running => "running",
        }
    }
}

/// The warm pool's options; [`Default`]: none (size 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WarmPool {
    /// The instances the pool keeps warm (AWS `MinSize` of the pool), 0 to
    /// [`MAX_WARM_POOL`]; 0: no pool; [`MAX_MINUS_DESIRED`]: AWS's default size.
    pub size: u32,
    /// The state they wait in.
    pub state: WarmState,
    /// `ReuseOnScaleIn`: scale-in returns instances to the pool.
    pub reuse: bool,
}

impl WarmPool {
    /// Returns the first option outside its accepted range, if any (`spot`: whether the
    /// group has the spot class).
    pub fn validate(&self, spot: bool) -> Result<(), Error> {
        ensure(
            self.size <= MAX_WARM_POOL || self.size == MAX_MINUS_DESIRED,
            "warm-pool",
            Accepted::integers(0, u64::from(MAX_WARM_POOL)),
        )?;
        ensure(
            !(spot && self.size > 0),
            "warm-pool",
            Accepted::ZeroWithSpot,
        )
    }
}

/// Fuzzing: no pool half the time, else a small one in either state, reuse or not.
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for WarmPool {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use crate::fuzzing::u32_field;
        if u.arbitrary()? {
            return Ok(Self::default());
        }
        Ok(Self {
            // AWS's default size now and then (an empty pool without a maximum size).
            size: if u.ratio(1u8, 8)? {
                MAX_MINUS_DESIRED
            } else {
                u32_field(u, 6, 0..=MAX_WARM_POOL)?
            },
            state: if u.arbitrary()? {
                WarmState::Running
            } else {
                WarmState::Stopped
            },
            reuse: u.arbitrary()?,
        })
    }
}

/// The warm pool's part of a running group.
#[derive(Debug, Default)]
pub(crate) struct WarmRun {
    /// Warm instances, ready for a warm start.
    pub ready: u32,
    /// Refills booting: (the round at whose end they are warm, how many), in that order.
    refills: heapless::Vec<(u32, u32), REFILL_SLOTS>,
    /// Refills asked for that have not launched yet (no slot, or a stockout).
    pub owed: u32,
    /// The instances the pool keeps (its size, or AWS's default size this round).
    pub target: u32,
}

impl WarmRun {
    /// Returns the pool of a new group of `size` instances and maximum size `max`.
    pub fn new(pool: &WarmPool, size: u32, max: Option<u32>) -> Self {
        let target = if pool.size == MAX_MINUS_DESIRED {
            max.unwrap_or(0).saturating_sub(size)
        } else {
            pool.size
        };
        Self {
            ready: target,
            target,
            ..Self::default()
        }
    }

    /// Resizes AWS's default-size pool to `target`: refills owed for what it lacks, then
    /// what it holds beyond it given up (refills not launched first, then warm instances;
    /// those booting finish).
    pub fn resize(&mut self, target: u32) {
        self.target = target;
        let have = self.ready + self.booting() + self.owed;
        if have < target {
            self.owed += target - have;
            return;
        }
        let mut extra = have - target;
        let owed = extra.min(self.owed);
        self.owed -= owed;
        extra -= owed;
        self.ready -= extra.min(self.ready);
    }

    /// Returns the refills booting.
    pub fn booting(&self) -> u32 {
        self.refills.iter().map(|r| r.1).sum()
    }

    /// Takes up to `n` warm instances for a scale-out; returns how many (each owes a refill).
    pub fn take(&mut self, n: u32) -> u32 {
        let k = n.min(self.ready);
        self.ready -= k;
        self.owed += k;
        k
    }

    /// Returns whether a scaled-in instance returns to the pool (reuse, fewer than `size`
    /// warm): it is warm at once, and one refill not yet warm is no longer needed (an owed
    /// one is not launched, else the last one booting is released).
    pub fn reuse(&mut self, pool: &WarmPool) -> bool {
        if !pool.reuse || self.ready >= self.target {
            return false;
        }
        self.ready += 1;
        if self.ready + self.booting() + self.owed > self.target {
            if self.owed > 0 {
                self.owed -= 1;
            } else if let Some(last) = self.refills.last_mut() {
                last.1 -= 1;
                if last.1 == 0 {
                    self.refills.pop();
                }
            }
        }
        true
    }

    /// Phase 4's part, in round `t`: refills that finish booting now are warm, and the owed
    /// ones launch (unless `stocked_out`) into a free slot, warm at the end of round
    /// `t + boot − 1` (at least `t`, as a launch). Returns how many launched.
    pub fn advance(&mut self, t: u32, boot: u32, stocked_out: bool) -> u32 {
        while let Some(&(done, n)) = self.refills.first() {
            if done > t {
                break;
            }
            self.ready += n;
            self.refills.remove(0);
        }
        if self.owed == 0 || stocked_out {
            return 0;
        }
        let done = t.saturating_add(boot.max(1) - 1);
        if done == t {
            // A boot of 0 or 1: warm at the end of this round.
            let n = self.owed;
            self.ready += n;
            self.owed = 0;
            return n;
        }
        let n = self.owed;
        match self.refills.last_mut() {
            Some(last) if last.0 == done => last.1 += n,
            _ => {
                if self.refills.push((done, n)).is_err() {
                    return 0; // no slot: asked again next round
                }
            }
        }
        self.owed = 0;
        n
    }
}
