//! The lesson's group as bit masks: the same model as [`super::Group`] with the lesson's
//! policy and check and every lifecycle option off, in a fraction of the time.
//!
//! The general path walks 16-byte records and branches per instance on its state, its health
//! and its result (≈ 18–21 µs a run of the lesson from a cached stream, one core of this
//! 2-core AMD EPYC). Here an instance is a bit position (storage order) in a few 256-bit
//! masks (alive, ready, broken, failing), and a round is word operations:
//! - the health check takes the round's draws as one failure mask in draw order
//!   ([`Checks`]: a cached stream's reader fixed to the run's threshold answers with two
//!   words and a shift, the bits past the draws left for the round to mask) and puts it
//!   onto the eligible instances (ready and not broken, the only ones that draw): shifted in
//!   place when they are contiguous, else one branch-free select per failure;
//! - launches of one round all become ready in the same round, so the booting instances are a
//!   ring of cohort masks with their counts (no timers);
//! - the counts the policy and the metrics read (size, ready, broken) are kept, not recounted;
//!   the instances each round needs are computed a block of rounds ahead;
//! - the largest booting share is kept as an exact fraction (one division per run, not per
//!   round): division rounds monotonically, so the largest quotient is the quotient of the
//!   largest fraction; the extremes (sizes, booting count and share) are updated only in
//!   rounds that can raise them (a replacement, a scaling action, round 0), not every round;
//! - a block of rounds is one loop per kind of threshold (1, 2, counted streaks).
//!
//! Removals leave holes (the order of what stays is unchanged); launches go after the last
//! instance, and the masks are compacted when the end of the 256 positions is reached, or
//! when a group that fits the first word with room to spare would leave it: a round of a
//! group within one word (the lesson's) is straight-line code on one word per mask.
//!
//! # What bounds it (measured: minimum of batches, `taskset -c 0`, a busy machine)
//!
//! - **The simulation** (from a cached stream, the CLI grid's case): ≈ 4.5–5 µs a run
//!   (rotating seeds; was ≈ 21 µs), ≈ 250 instructions a round at ≈ 4 a cycle (callgrind
//!   and the timings): bound by instruction throughput, about 1.4 mispredicted branches a
//!   round (the number of failures and the scaling decisions follow the draws). Making the
//!   scaling branch-free was measured slower (5.7 µs): the branches mostly predict.
//! - **[`super::run`]** (its own generator): ≈ 25 µs a run (was ≈ 35), of which the
//!   generator's dependent chain is ≈ 17 µs (≈ 20 cycles, 6.4 ns a draw, 2,659 draws; the
//!   float-domain formulation with a portable floor measured the same 20 cycles, only an
//!   SSE4.1 `roundsd` gets 12) and the demand's 240 `sin` ≈ 6 µs: within ≈ 10 % of its bound.
//! - **A sweep in lockstep** ([`run_lockstep`], the lesson's nine pairs, by blocks of 32
//!   rounds a run): ≈ 321k instructions a render (callgrind; was 438k before the items
//!   below, ≈ 730k round by round on multi-word masks), ≈ 155 a run and round with the
//!   stream's answers and its chain (was ≈ 203). Runs that differ only in a higher threshold
//!   of 3 or more wait for the lower one's first replacement and take its state from before
//!   that block (the lesson's (5, c) runs skip their first block of (3, c)'s 42 shared
//!   rounds: 96 of 2,160 run-rounds). The rendered sweep (`sweep_timing group_sweep`) is
//!   ≈ 459k instructions (was ≈ 615k, then 470k): the lockstep 321k, the demand table
//!   ≈ 46k (240 `sin` 21.5k, the stream's first 960 draws between them), the stream's
//!   answers 13k (two draws a `u64`, one add and one mask for both; was 19.5k), scale-in
//!   and launches 17.5k, the table's text ≈ 24k (a row built in a buffer of spaces and
//!   written once; was ≈ 48k), and ≈ 22k counted for moving the nine runs into place and
//!   zeroing the stream's 12 KiB (callgrind counts a byte of `rep movs`/`rep stos` as an
//!   instruction: a few hundred cycles in fact; keeping the errors beside the runs instead
//!   of a `Result` each did not remove the move and added 5k). Side by side (old and new binary alternated on
//!   `taskset -c 0`, a busy machine, minimum of 25 batches): ≈ 43 µs a render, was ≈ 53.
//!   Still bound by instruction throughput spread over every phase: the round's state goes
//!   through memory around the out-of-line calls (failure, scale-in, launches), the
//!   stream's reader and position are spilled, and the generator's conversion back to an
//!   integer saturates (5 of its ≈ 13 instructions).
//!
//! Used when [`applies`] holds and the observer wants no per-round states; bit-identical to
//! the general path on every input (a property test and the fuzz target compare them).

// Word-parallel code indexes several masks by the same word.
#![allow(clippy::needless_range_loop)]

use crate::error::Error;
use crate::rng::{GroupLcg, GroupStream, GroupStreamChecks, UnitRng};
use crate::Observer;

use super::lifecycle::{Policy, Reclaim, RemovalPolicy};
use super::{Metrics, Params, GROUP_FULL, MAX_FAILURE_ROUNDS, MAX_GROUP_SIZE};

/// 64-bit words of a mask: one bit per instance position.
const WORDS: usize = MAX_GROUP_SIZE / 64;
type Mask = [u64; WORDS];

/// Rounds whose required instances are computed ahead.
const AHEAD: usize = 32;

/// Rounds of the booting ring: boots of up to `RING` rounds take the fast path.
const RING: usize = 8;

/// Returns whether the fast path computes `params` exactly: every lifecycle option off (the
/// lesson's policy and check), a boot that fits the ring and a threshold a byte holds.
pub(super) fn applies(params: &Params) -> bool {
    let l = &params.lifecycle;
    l.launch_hook.is_none()
        && l.terminate_hook.is_none()
        && !l.count_pending
        && l.protected == 0
        && l.removal_policy == RemovalPolicy::Lesson
        && l.reclaim == Reclaim::Release
        && l.check_latency == 0
        && l.apply_delay == 0
        && l.stockout.is_none()
        && l.events.is_empty()
        && l.min_instances.is_none()
        && l.max_instances.is_none()
        && l.check_interval == 1
        && l.policy == Policy::Lesson
        && params.boot_rounds <= RING as u32
        && params.threshold <= u32::from(u8::MAX)
}

/// Returns a mask with bits `[lo, hi)` of word `w` set (positions `64 w ..`).
fn span(w: usize, lo: usize, hi: usize) -> u64 {
    let base = w * 64;
    let lo = lo.clamp(base, base + 64) - base;
    let hi = hi.clamp(base, base + 64) - base;
    let ones = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    ones(hi) & !ones(lo)
}

const L8: u64 = 0x0101_0101_0101_0101;
const H8: u64 = 0x8080_8080_8080_8080;

/// Returns, in each byte, the number of set bits of `x` in that byte and all lower ones.
fn byte_prefix_counts(x: u64) -> u64 {
    let mut s = x - ((x >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    s.wrapping_mul(L8)
}

/// Returns how many bytes of `prefix` (each at most 64) are at most `k` (`k` < 128).
fn bytes_at_most(prefix: u64, k: u64) -> u64 {
    let le = (((k * L8) | H8) - prefix) & H8;
    (le >> 7).wrapping_mul(L8) >> 56
}

/// Returns bit `k` (from 0) of the set bits of `x`, as a one-bit mask, 0 when `x` has at most
/// `k`: branch-free (a loop would mispredict on the random `k`).
fn select(x: u64, k: u32) -> u64 {
    let k = u64::from(k);
    let prefix = byte_prefix_counts(x);
    let byte = bytes_at_most(prefix, k); // 8 when x has at most k bits
    let shift = (byte * 8) & 63;
    let before = ((prefix << 8) >> shift) & 0xff;
    let b = (x >> shift) & 0xff;
    // The byte's bits spread one a byte, then counted the same way.
    let spread = b.wrapping_mul(L8) & 0x8040_2010_0804_0201;
    let ones = ((spread + 0x7f7f_7f7f_7f7f_7f7f) & H8) >> 7;
    let bit = bytes_at_most(ones.wrapping_mul(L8), k.wrapping_sub(before) & 0x7f);
    u64::from(byte < 8) << (shift + (bit & 7))
}

/// The group: instance positions in storage order.
#[derive(Clone)]
struct Masks {
    alive: Mask,
    ready: Mask,
    broken: Mask,
    /// Ready instances whose last check failed (one consecutive failure or more).
    failing: Mask,
    /// Ready instances with two consecutive failures or more, their count in `streak`
    /// (thresholds of 3 and more only).
    failing2: Mask,
    /// (A byte each: a streak ends at the threshold, at most 255 on this path.)
    streak: [u8; MAX_GROUP_SIZE],
    /// Booting instances by the round (modulo [`RING`]) in which they become ready.
    booting: [Mask; RING],
    booting_n: [u32; RING],
    /// Positions from here on are free.
    top: usize,
    size: u32,
    ready_n: u32,
    /// Broken instances (all ready: a broken one is replaced or removed, never booting).
    broken_n: u32,
}

impl Masks {
    /// Removes the instances of `gone` (all of one kind: ready, or booting) in words below
    /// `NW`.
    fn remove<const NW: usize>(&mut self, gone: &[u64; NW]) {
        for w in 0..NW {
            let keep = !gone[w];
            self.alive[w] &= keep;
            self.ready[w] &= keep;
            self.broken[w] &= keep;
            self.failing[w] &= keep;
            self.failing2[w] &= keep;
        }
    }

    /// Moves every instance to the front, keeping their order.
    fn compact(&mut self) {
        let alive = self.alive;
        let squeeze = |m: &Mask| {
            let mut out = [0u64; WORDS];
            let mut to = 0;
            for (w, &a) in alive.iter().enumerate() {
                let mut rest = a;
                while rest != 0 {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if (m[w] >> b) & 1 == 1 {
                        out[to / 64] |= 1 << (to % 64);
                    }
                    to += 1;
                }
            }
            out
        };
        let mut to = 0;
        for (w, &a) in alive.iter().enumerate() {
            let mut rest = a;
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                self.streak[to] = self.streak[w * 64 + b];
                to += 1;
            }
        }
        self.ready = squeeze(&self.ready);
        self.broken = squeeze(&self.broken);
        self.failing = squeeze(&self.failing);
        self.failing2 = squeeze(&self.failing2);
        for i in 0..RING {
            self.booting[i] = squeeze(&self.booting[i]);
        }
        self.alive = squeeze(&self.alive);
        self.top = to;
    }

    /// Appends `n` booting instances (room checked by the caller) into cohort `slot`.
    fn append(&mut self, n: usize, slot: usize) {
        // Also when the group would leave the first word with room to spare in it: rounds
        // within one word cost less (and compacting keeps the order, so nothing else changes).
        if self.top + n > MAX_GROUP_SIZE || (self.top + n > 64 && self.size as usize + n <= 48) {
            self.compact();
        }
        let (lo, hi) = (self.top, self.top + n);
        if hi <= 64 {
            let m = span(0, lo, hi);
            self.alive[0] |= m;
            self.booting[slot][0] |= m;
        } else {
            for w in 0..WORDS {
                let m = span(w, lo, hi);
                self.alive[w] |= m;
                self.booting[slot][w] |= m;
            }
        }
        self.booting_n[slot] += n as u32;
        self.top = hi;
        self.size += n as u32;
    }

    /// Scale-in: the first `n` ready instances leave; steps beyond them cancel launches from
    /// the end (the lesson's `splice(-1, 1)`). Returns how many left.
    fn scale_in(&mut self, n: u64) -> u32 {
        if self.top <= 64 {
            self.scale_in_words::<1>(n)
        } else {
            self.scale_in_words::<WORDS>(n)
        }
    }

    /// [`Masks::scale_in`] when no instance is past word `NW`.
    #[inline(always)]
    fn scale_in_words<const NW: usize>(&mut self, n: u64) -> u32 {
        let take = n.min(u64::from(self.ready_n)) as u32;
        let mut left = take;
        let mut gone = [0u64; NW];
        // Usually one or two: lowest bits one at a time (a count and a select cost more).
        for w in 0..self.top.div_ceil(64).min(NW) {
            let mut r = self.ready[w];
            while left > 0 && r != 0 {
                let low = r & r.wrapping_neg();
                gone[w] |= low;
                r ^= low;
                left -= 1;
            }
        }
        let broken: u32 = (0..NW)
            .map(|w| (gone[w] & self.broken[w]).count_ones())
            .sum();
        self.broken_n -= broken;
        self.remove(&gone);
        self.ready_n -= take;
        self.size -= take;
        let mut removed = take;
        let more = (n - u64::from(take)).min(u64::from(self.size)) as u32;
        if more > 0 {
            // Only booting instances are left: cancel the last `more`.
            let mut left = more;
            let mut gone = [0u64; NW];
            for w in (0..NW).rev() {
                let a = self.alive[w];
                let c = a.count_ones();
                gone[w] = if c <= left {
                    a
                } else {
                    a & !(select(a, c - left).wrapping_sub(1))
                };
                left -= c.min(left);
            }
            self.remove(&gone);
            for i in 0..RING {
                for w in 0..NW {
                    self.booting_n[i] -= (self.booting[i][w] & gone[w]).count_ones();
                    self.booting[i][w] &= !gone[w];
                }
            }
            self.size -= more;
            removed += more;
        }
        self.top = match (0..NW).rev().find(|&w| self.alive[w] != 0) {
            Some(w) => w * 64 + 64 - self.alive[w].leading_zeros() as usize,
            None => 0,
        };
        removed
    }
}

impl Masks {
    /// Counts the failures in a row of the instances in `again` (word `w`), which failed
    /// this round and the one before, and returns those that reach `threshold` (3 or more).
    fn streaks(&mut self, w: usize, mut again: u64, threshold: u32) -> u64 {
        let mut out = 0;
        while again != 0 {
            let b = again.trailing_zeros() as usize;
            let bit = 1u64 << b;
            again &= again - 1;
            let i = w * 64 + b;
            let streak = if self.failing2[w] & bit != 0 {
                self.streak[i].saturating_add(1)
            } else {
                2
            };
            if u32::from(streak) >= threshold {
                out |= bit;
            } else {
                self.streak[i] = streak;
                self.failing2[w] |= bit;
            }
        }
        out
    }
}

/// Returns `ceil(q)` as an integer, saturating as `required_count(ceil(q))` does: a
/// truncation and a compare (`libm::ceil` is a call, and the round's slowest step).
fn ceil_count(q: f64) -> i64 {
    let i = q as i64;
    // Below 2^63 in magnitude the truncation is exact; it is below `q` only for a positive
    // non-integer. Beyond, `i` saturated (and +1 saturates too).
    i.saturating_add(i64::from((i as f64) < q))
}

/// The round's health checks: which of `n` (1 to 64) draws fail, bit `k` for draw `k`; the
/// bits from `n` up are unspecified (the round keeps only those of instances that drew).
pub(super) trait Checks {
    fn failures(&mut self, n: u32) -> u64;
}

/// Any generator, with the run's failure probability.
struct Unit<'a, R> {
    rng: &'a mut R,
    p: f64,
}

impl<R: UnitRng> Checks for Unit<'_, R> {
    #[inline(always)]
    fn failures(&mut self, n: u32) -> u64 {
        self.rng.below(n, self.p)
    }
}

impl<S: AsRef<[u32]> + AsMut<[u32]>> Checks for GroupStreamChecks<'_, S> {
    #[inline(always)]
    fn failures(&mut self, n: u32) -> u64 {
        self.below_unmasked(n)
    }
}

/// One run in progress: the group, the metrics and the policy's memory.
#[derive(Clone)]
pub(super) struct Run {
    /// What each round reads of the parameters, at hand.
    threshold: u32,
    p: f64,
    cooldown: i64,
    /// Rounds a launch waits to be ready, less one (below [`RING`]).
    boot_delay: u32,
    g: Masks,
    m: Metrics,
    /// The failure rounds, sorted and without repeats (a round breaks one instance however
    /// often it is listed), read with a cursor.
    failures: [u32; MAX_FAILURE_ROUNDS],
    next_failure: usize,
    /// `failures[next_failure]` (`u32::MAX` past the last): most rounds only compare it.
    failure_at: u32,
    last_action: i64,
    /// The largest booting share as a fraction, and whether the group was ever empty (NaN).
    share_num: u32,
    share_den: u32,
    empty_seen: bool,
    /// The initial size until the extremes have it: the end of round 0 when that round
    /// changes nothing (then the first round that does, or [`Run::finish`], records it).
    initial: Option<u32>,
}

impl Run {
    /// Returns the initial group for `params` (validated, [`applies`] true) and the round-0
    /// demand `demand0`.
    pub(super) fn new(params: &Params, demand0: f64) -> Result<Self, Error> {
        let initial = params.required_for(demand0);
        if initial > MAX_GROUP_SIZE as f64 {
            return Err(GROUP_FULL);
        }
        // At most 256, or negative, -0 or -inf: `as` saturates those to 0.
        let initial = initial as usize;
        let mut g = Masks {
            alive: [0; WORDS],
            ready: [0; WORDS],
            broken: [0; WORDS],
            failing: [0; WORDS],
            failing2: [0; WORDS],
            streak: [0; MAX_GROUP_SIZE],
            booting: [[0; WORDS]; RING],
            booting_n: [0; RING],
            top: initial,
            size: initial as u32,
            ready_n: initial as u32,
            broken_n: 0,
        };
        for w in 0..WORDS {
            g.alive[w] = span(w, 0, initial);
        }
        g.ready = g.alive;
        let mut failures = [u32::MAX; MAX_FAILURE_ROUNDS];
        let mut nf = 0;
        for &r in &params.failure_rounds {
            if !failures[..nf].contains(&r) {
                // Insertion: a few rounds (a library sort costs more than the run's rounds).
                let mut i = nf;
                while i > 0 && failures[i - 1] > r {
                    failures[i] = failures[i - 1];
                    i -= 1;
                }
                failures[i] = r;
                nf += 1;
            }
        }
        Ok(Self {
            threshold: params.threshold,
            p: params.transient_failure,
            cooldown: i64::from(params.cooldown),
            boot_delay: params.boot_rounds.max(1) - 1,
            g,
            m: Metrics {
                min_size: params.min_size_start,
                ..Metrics::default()
            },
            failures,
            next_failure: 0,
            failure_at: failures[0],
            last_action: -i64::from(params.cooldown),
            share_num: 0,
            share_den: 1,
            empty_seen: false,
            initial: (params.rounds > 0).then_some(initial as u32),
        })
    }

    /// Runs rounds `t0..t1`, round `t` needing `ahead[t % AHEAD]` instances, calling
    /// `between(checks)` after each: one loop for each kind of threshold (1, 2, or counted
    /// streaks), chosen once.
    #[inline(always)]
    pub(super) fn rounds<C: Checks>(
        &mut self,
        t0: u32,
        t1: u32,
        ahead: &[i64; AHEAD],
        checks: &mut C,
        between: impl FnMut(&mut C),
    ) -> Result<(), Error> {
        match self.threshold {
            1 => self.rounds_with::<1, C>(t0, t1, ahead, checks, between),
            2 => self.rounds_with::<2, C>(t0, t1, ahead, checks, between),
            _ => self.rounds_with::<3, C>(t0, t1, ahead, checks, between),
        }
    }

    /// [`Run::rounds`] with a threshold of `TH`, or of 3 and more when `TH` is 3.
    #[inline(always)]
    fn rounds_with<const TH: u32, C: Checks>(
        &mut self,
        t0: u32,
        t1: u32,
        ahead: &[i64; AHEAD],
        checks: &mut C,
        mut between: impl FnMut(&mut C),
    ) -> Result<(), Error> {
        for t in t0..t1 {
            self.round::<TH, C>(t, ahead[t as usize % AHEAD], checks)?;
            between(checks);
        }
        Ok(())
    }

    /// Runs round `t`, which needs `needed` instances ([`Run::rounds_with`]'s `TH`).
    #[inline(always)]
    fn round<const TH: u32, C: Checks>(
        &mut self,
        t: u32,
        needed: i64,
        checks: &mut C,
    ) -> Result<(), Error> {
        // The lesson's groups stay in the first word: its loops become straight-line code.
        if self.g.top <= 64 {
            self.round_in::<1, TH, C>(t, needed, checks)
        } else {
            self.round_in::<WORDS, TH, C>(t, needed, checks)
        }
    }

    /// [`Run::round`] when no instance is past word `NW` (the words beyond are empty).
    #[inline(always)]
    fn round_in<const NW: usize, const TH: u32, C: Checks>(
        &mut self,
        t: u32,
        needed: i64,
        checks: &mut C,
    ) -> Result<(), Error> {
        // Phase 1: the first ready, healthy instance breaks for good.
        if t >= self.failure_at {
            self.failure(t);
        }

        let g = &mut self.g;
        let m = &mut self.m;
        let (threshold, cooldown) = (self.threshold, self.cooldown);
        let slot = (t as usize + self.boot_delay as usize) % RING;

        // Phase 2: the health check, in storage order; only healthy ready instances draw.
        m.broken_rounds += g.broken_n;
        // Words past the top are empty.
        let nw = if NW == 1 { 1 } else { g.top.div_ceil(64) };
        let mut replaced = [0u64; NW];
        let mut any_replaced = 0;
        for w in 0..nw {
            let (ready, broken) = (g.ready[w], g.broken[w]);
            let eligible = ready & !broken;
            let mut failed = ready & broken;
            // One word in use (the lesson's groups): its count is kept.
            let n = if nw == 1 {
                g.ready_n - g.broken_n
            } else {
                eligible.count_ones()
            };
            // The bits from `n` up are unspecified.
            let mut draws = if eligible == 0 { 0 } else { checks.failures(n) };
            let low = eligible.trailing_zeros() & 63;
            let run = eligible >> low;
            if run & run.wrapping_add(1) == 0 {
                // The eligible instances are contiguous: the draws land in place, and the
                // mask drops the unspecified bits.
                failed |= (draws << low) & eligible;
            } else {
                // (`n` is 2 to 64 here.)
                draws &= u64::MAX >> (64 - n);
                while draws != 0 {
                    failed |= select(eligible, draws.trailing_zeros());
                    draws &= draws - 1;
                }
            }
            let again = failed & g.failing[w];
            let r = match TH {
                1 => failed,
                2 => again,
                _ => g.streaks(w, again, threshold),
            };
            g.failing[w] = failed & !r;
            g.failing2[w] &= g.failing[w];
            replaced[w] = r;
            any_replaced |= r;
        }
        // Whether the size or the booting count may have grown this round: only then can
        // the extremes below change (a cohort becoming ready only lowers the booting count).
        let mut changed = any_replaced != 0;
        if any_replaced != 0 {
            let (mut n, mut broken) = (0, 0);
            for w in 0..NW {
                n += replaced[w].count_ones();
                broken += (replaced[w] & g.broken[w]).count_ones();
            }
            m.replacements += n;
            m.false_replacements += n - broken;
            m.launched += n;
            g.broken_n -= broken;
            g.ready_n -= n;
            for w in 0..NW {
                g.ready[w] &= !replaced[w];
                g.broken[w] &= !replaced[w];
                g.booting[slot][w] |= replaced[w];
            }
            g.booting_n[slot] += n;
        }

        // Phase 3: the lesson's policy, counting ready instances only.
        if i64::from(t) - self.last_action >= cooldown {
            let have = i64::from(g.ready_n);
            if have < needed {
                let n = needed.saturating_sub(have);
                if n > i64::from(MAX_GROUP_SIZE as u32 - g.size) {
                    return Err(GROUP_FULL);
                }
                g.append(n as usize, slot);
                m.launched += n as u32;
                m.scaling_actions += 1;
                self.last_action = i64::from(t);
                changed = true;
            } else if have > needed.saturating_add(1) {
                let n = needed.saturating_add(1).saturating_sub(have).unsigned_abs();
                // The lesson counts a scale-in of an empty group as an action.
                let was_empty = g.size == 0;
                if g.scale_in(n) > 0 || was_empty {
                    m.scaling_actions += 1;
                    self.last_action = i64::from(t);
                }
                changed = true;
            }
        }

        // Phase 4: this round's cohort is ready.
        let cohort = t as usize % RING;
        if g.booting_n[cohort] > 0 {
            if NW == 1 && g.top <= 64 {
                g.ready[0] |= g.booting[cohort][0];
            } else {
                for w in 0..g.top.div_ceil(64) {
                    g.ready[w] |= g.booting[cohort][w];
                }
            }
            g.ready_n += g.booting_n[cohort];
            g.booting[cohort] = [0; WORDS];
            g.booting_n[cohort] = 0;
            m.time_to_in_service_max = m.time_to_in_service_max.max(self.boot_delay + 1);
        }

        // Phase 5: metrics.
        let size = g.size;
        let launching = size - g.ready_n;
        m.under_capacity_rounds += u32::from(i64::from(g.ready_n) < needed);
        m.billed_rounds += u64::from(size);
        m.idle_billed_rounds += u64::from(launching);
        if changed {
            self.extremes(t, size, launching);
        }
        Ok(())
    }

    /// Records the end of round `t`, which may have grown the size or the booting count.
    #[inline(always)]
    fn extremes(&mut self, t: u32, size: u32, launching: u32) {
        let mut share = (self.share_num, self.share_den);
        if let Some(size0) = self.initial.take() {
            // Round 0 changed nothing if this is a later round: it ended as the group began
            // (all ready), and the rounds up to this one end no higher.
            if t > 0 {
                extremes(&mut self.m, &mut share, &mut self.empty_seen, size0, 0);
            }
        }
        extremes(
            &mut self.m,
            &mut share,
            &mut self.empty_seen,
            size,
            launching,
        );
        (self.share_num, self.share_den) = share;
    }

    /// Phase 1 of round `t` once a failure round may have come: the first ready, healthy
    /// instance breaks for good.
    #[cold]
    #[inline(never)]
    fn failure(&mut self, t: u32) {
        let (g, failures) = (&mut self.g, &self.failures);
        let mut next_failure = self.next_failure;
        while failures.get(next_failure).is_some_and(|&r| r < t) {
            next_failure += 1;
        }
        if failures.get(next_failure) == Some(&t) {
            for w in 0..WORDS {
                let healthy = g.ready[w] & !g.broken[w];
                if healthy != 0 {
                    g.broken[w] |= healthy & healthy.wrapping_neg();
                    g.broken_n += 1;
                    break;
                }
            }
        }
        self.next_failure = next_failure;
        self.failure_at = failures.get(next_failure).copied().unwrap_or(u32::MAX);
    }

    /// Returns the metrics of the rounds run.
    pub(super) fn finish(&self) -> Metrics {
        let mut m = self.m;
        let (mut share, mut empty_seen) = ((self.share_num, self.share_den), self.empty_seen);
        if let Some(size0) = self.initial {
            // No round changed anything: every round ended as the group began.
            extremes(&mut m, &mut share, &mut empty_seen, size0, 0);
        }
        m.max_launching_ratio = if empty_seen {
            f64::NAN
        } else {
            f64::from(share.0) / f64::from(share.1)
        };
        m
    }
}

/// Takes a round's end (`size` instances, `launching` of them booting) into the extremes:
/// the sizes, the booting count and its largest share (`share`, a fraction), and whether
/// the group was ever empty.
#[inline(always)]
fn extremes(m: &mut Metrics, share: &mut (u32, u32), empty: &mut bool, size: u32, launching: u32) {
    m.min_size = m.min_size.min(size);
    m.max_size = m.max_size.max(size);
    m.max_launching = m.max_launching.max(launching);
    *empty |= size == 0;
    // launching / size > share.0 / share.1, exactly (both below 2^9).
    if launching * share.1 > share.0 * size {
        *share = (launching, size);
    }
}

/// Fills `ahead` with the instances rounds `t..` need (as many as remain of `rounds`).
#[inline]
pub(super) fn needed_ahead(
    ahead: &mut [i64; AHEAD],
    t: u32,
    rounds: u32,
    capacity: f64,
    demand: &impl Fn(u32) -> f64,
) {
    let rest = (rounds - t) as usize; // only the run's rounds
    for (i, n) in ahead.iter_mut().enumerate().take(rest) {
        *n = ceil_count(demand(t + i as u32) / capacity);
    }
}

/// Runs the model (already validated, [`applies`] true) the general path's way, round for
/// round; `observer` hears only `round_done`. Out of line: its frame (1.8 KB) and the
/// general path's never coexist on a board's stack.
#[inline(never)]
pub(super) fn run<R: UnitRng, O: Observer>(
    params: &Params,
    demand: impl Fn(u32) -> f64,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut run = Run::new(params, demand(0))?;
    let mut checks = Unit {
        rng,
        p: params.transient_failure,
    };
    // The instances each round needs, computed ahead for a block of rounds: a division
    // and a conversion that the round's decisions would otherwise wait for.
    let mut ahead = [0i64; AHEAD];
    let mut t0 = 0;
    while t0 < params.rounds {
        needed_ahead(&mut ahead, t0, params.rounds, params.capacity, &demand);
        let t1 = params.rounds.min(t0.saturating_add(AHEAD as u32));
        // Round by round, so that the observer hears each as it ends.
        let mut t = t0;
        run.rounds(t0, t1, &ahead, &mut checks, |_| {
            observer.round_done(u64::from(t));
            t += 1;
        })?;
        t0 = t1;
    }
    Ok(run.finish())
}

/// Runs `params` (validated, [`applies`] true, sharing rounds, capacity and `demand`; the
/// stream's seed) in lockstep by blocks: rounds `t..t + AHEAD` of every run, then the next
/// block. Within a block a run keeps its state at hand (no per-round switch between runs),
/// and after each round the stream computes up to two draws ahead, so its generator's
/// dependent chain (≈ 20 cycles a draw) overlaps the simulations instead of preceding them:
/// the runs draw the same numbers (the lesson's: about 11 a round each), and the stream
/// stays about a block ahead of the leading run.
pub(super) fn run_lockstep<S: AsRef<[u32]> + AsMut<[u32]>, const N: usize>(
    params: &[Params; N],
    demand: impl Fn(u32) -> f64,
    stream: &mut GroupStream<S>,
) -> [Result<Metrics, Error>; N] {
    let demand0 = demand(0);
    let mut runs: [Result<Run, Error>; N] = core::array::from_fn(|i| Run::new(&params[i], demand0));
    let seed = stream.seed();
    let mut at: [(usize, GroupLcg); N] = core::array::from_fn(|_| (0, GroupLcg::new(seed)));
    // Runs that are an earlier run's until it first replaces an instance ([`follows`]): they
    // wait, and take its state from before the block in which it did.
    let mut leader: [Option<usize>; N] = [None; N];
    for j in 0..N {
        leader[j] = (0..j)
            .find(|&i| leader[i].is_none() && runs[i].is_ok() && follows(&params[i], &params[j]));
    }
    let mut snapshot: Option<(Run, (usize, GroupLcg))> = None;
    let (rounds, capacity) = (params[0].rounds, params[0].capacity);
    let mut ahead = [0i64; AHEAD];
    // The leading reader's position, and how far it went in the last block.
    let (mut lead, mut span) = (0, 0);
    let mut t0 = 0;
    while t0 < rounds {
        needed_ahead(&mut ahead, t0, rounds, capacity, &demand);
        let t1 = rounds.min(t0.saturating_add(AHEAD as u32));
        // This block's draws were computed during the last one; now the next block's.
        let want = lead + 3 * span + 256;
        let before = lead;
        for i in 0..N {
            let Ok(r) = &mut runs[i] else { continue };
            if leader[i].is_some() {
                continue;
            }
            let followed = leader.contains(&Some(i));
            if followed {
                snapshot = Some((r.clone(), at[i].clone()));
            }
            let mut reader = stream.checks_at(at[i].0, at[i].1.clone(), r.p);
            let result = r.rounds(t0, t1, &ahead, &mut reader, |reader| {
                if reader.filled() < want {
                    reader.produce(2);
                }
            });
            at[i] = reader.position();
            lead = lead.max(at[i].0);
            let diverged = result.is_err() || r.m.replacements > 0;
            if let Err(e) = result {
                runs[i] = Err(e);
            }
            if followed && diverged {
                // The followers run this block themselves (they come later in the order),
                // from where the leader started it.
                if let Some((run, pos)) = &snapshot {
                    for j in i + 1..N {
                        if leader[j] == Some(i) {
                            let mut own = run.clone();
                            own.threshold = params[j].threshold;
                            runs[j] = Ok(own);
                            at[j] = pos.clone();
                            leader[j] = None;
                        }
                    }
                }
            }
        }
        span = lead - before;
        t0 = t1;
    }
    core::array::from_fn(|i| match &runs[leader[i].unwrap_or(i)] {
        Ok(r) => Ok(r.finish()),
        Err(e) => Err(*e),
    })
}

/// Returns whether a run of `b` is the run of `a` until `a` first replaces an instance (the
/// fields the lockstep shares aside): they differ only in the threshold, both 3 or more and
/// `a`'s the lower. Until a streak reaches `a`'s threshold, the streaks are counted the
/// same way whatever the threshold, and nothing else reads it: the same groups, the same
/// draws, the same metrics.
fn follows(a: &Params, b: &Params) -> bool {
    3 <= a.threshold
        && a.threshold < b.threshold
        && a.cooldown == b.cooldown
        && a.boot_rounds == b.boot_rounds
        && a.min_size_start == b.min_size_start
        && a.failure_rounds == b.failure_rounds
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::select;

    /// The k-th set bit, found by clearing the lower ones one by one.
    fn select_slow(mut x: u64, k: u32) -> u64 {
        for _ in 0..k {
            x &= x.wrapping_sub(1);
        }
        x & x.wrapping_neg()
    }

    #[test]
    fn ceil_count_is_ceil_then_saturating_conversion() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut cases = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.5,
            -1.5,
            2e9,
            4.5e15,
            9.007_199_254_740_993e15,
            9.2e18,
            9.223_372_036_854_775e18,
            -9.3e18,
            1e300,
            -1e300,
            f64::MAX,
            -f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            5e-324,
            -5e-324,
        ]
        .to_vec();
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(f64::from_bits(x));
            cases.push((x >> 11) as f64 / 1024.0 - 4e12);
        }
        for q in cases {
            assert_eq!(super::ceil_count(q), libm::ceil(q) as i64, "{q:e}");
        }
    }

    #[test]
    fn select_finds_the_kth_set_bit() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x = x.rotate_left(7) ^ x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
            for m in [
                x,
                x & (x >> 3),
                x & (x >> 1) & (x >> 5),
                u64::MAX,
                0,
                1 << 63,
            ] {
                for k in 0..65 {
                    assert_eq!(select(m, k), select_slow(m, k), "{m:#x} {k}");
                }
            }
        }
    }
}
