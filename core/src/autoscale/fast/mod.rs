//! The lesson's group as bit masks: the same model as the reference engine (`reference/`)
//! with the lesson's policy and check and every lifecycle option off, in a fraction of the
//! time.
//!
//! The reference engine walks 16-byte records and branches per instance on its state, its health
//! and its result. Here an instance is a bit position (storage order) in a few 256-bit
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
//! Why it is fast, and what bounds it (measured), is in `host/benches/README.md`.
//!
//! Used when [`super::plan()`] says [`super::Engine::Masks`] or [`super::Engine::Lockstep`];
//! bit-identical to the reference engine on every input (`tests/tests/engines.rs`, a property
//! test and the fuzz target compare them).

// Word-parallel code indexes several masks by the same word.
#![allow(clippy::needless_range_loop)]

use crate::error::Error;
use crate::rng::{GroupStreamChecks, UnitRng};
use crate::Observer;

use super::limits::BOOT_RING;
use super::limits::{MAX_FAILURE_ROUNDS, MAX_GROUP_SIZE};
use super::metrics::Metrics;
use super::plan::{LessonGroup, Shared};
use super::spec::{Params, GROUP_FULL};
use super::state::RoundState;

mod lockstep;
mod masks;

pub(super) use lockstep::run_lockstep;
use masks::{select, span, Masks, WORDS};

/// Rounds whose required instances are computed ahead.
pub(super) const AHEAD: usize = 32;

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
    /// Rounds a launch waits to be ready, less one (below [`BOOT_RING`]).
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
    /// Returns the initial group for `params` (valid, and the fast engines apply to them:
    /// [`super::plan()`]; read through their `LessonGroup`) and the round-0 demand
    /// `demand0`.
    pub(super) fn new(params: &Params, demand0: f64) -> Result<Self, Error> {
        let (
            LessonGroup {
                threshold,
                shared,
                course,
            },
            _,
        ) = LessonGroup::of(params);
        // `Params::required_for`.
        let initial = libm::ceil(demand0 / shared.capacity);
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
            booting: [[0; WORDS]; BOOT_RING],
            booting_n: [0; BOOT_RING],
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
        for &r in course.failure_rounds {
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
            threshold,
            p: shared.transient_failure,
            cooldown: i64::from(course.cooldown),
            boot_delay: course.boot_rounds.max(1) - 1,
            g,
            m: Metrics {
                min_size: course.min_size_start,
                ..Metrics::default()
            },
            failures,
            next_failure: 0,
            failure_at: failures[0],
            last_action: -i64::from(course.cooldown),
            share_num: 0,
            share_den: 1,
            empty_seen: false,
            initial: (shared.rounds > 0).then_some(initial as u32),
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
        let slot = (t as usize + self.boot_delay as usize) % BOOT_RING;

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

        // Phase 4: this round's cohort is ready (and serves from the next round).
        let cohort = t as usize % BOOT_RING;
        let entered = g.booting_n[cohort];
        if entered > 0 {
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
        // The cohort that came into service at the end of this round did no work in it.
        m.idle_billed_rounds += u64::from(launching + entered);
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

/// Runs `params` (valid, the fast engines apply to them) the reference engine's way,
/// round for round; `observer` hears only `round_done`. Out of line: its frame (1.8 KB) and the
/// reference engine's never coexist on a board's stack.
#[inline(never)]
pub(super) fn run<R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    demand: impl Fn(u32) -> f64,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let (group, _) = LessonGroup::of(params);
    let mut run = Run::new(params, demand(0))?;
    let Shared {
        rounds, capacity, ..
    } = group.shared;
    let mut checks = Unit {
        rng,
        p: group.shared.transient_failure,
    };
    // The instances each round needs, computed ahead for a block of rounds: a division
    // and a conversion that the round's decisions would otherwise wait for.
    let mut ahead = [0i64; AHEAD];
    let mut t0 = 0;
    while t0 < rounds {
        needed_ahead(&mut ahead, t0, rounds, capacity, &demand);
        let t1 = rounds.min(t0.saturating_add(AHEAD as u32));
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

#[cfg(test)]
mod tests {
    extern crate std;

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
}
