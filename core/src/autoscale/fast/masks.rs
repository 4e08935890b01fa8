//! The group as bit masks ([`Masks`]): one bit per instance position, in storage order, in a
//! few 256-bit masks (alive, ready, broken, failing), with the counts the policy and the
//! metrics read kept beside them, and the word operations the fast path's rounds are made of
//! (remove, compact, append, scale in, count streaks; [`select`] finds the k-th set bit).

// The four bit helpers below are hinted `#[inline]` where the build has several codegen units
// and no LTO (the host's release build: without the hint they are calls from the round's
// code in `fast/mod.rs`); the boards' builds (LTO, one codegen unit) inline them as they
// need, and with the hint grew by 2.8 KB of code.

// Word-parallel code indexes several masks by the same word.
#![allow(clippy::needless_range_loop)]

use crate::autoscale::limits::{BOOT_RING, MAX_GROUP_SIZE};

/// 64-bit words of a mask: one bit per instance position.
pub(super) const WORDS: usize = MAX_GROUP_SIZE / 64;
type Mask = [u64; WORDS];

/// Returns a mask with bits `[lo, hi)` of word `w` set (positions `64 w ..`).
#[cfg_attr(not(target_os = "none"), inline)]
pub(super) fn span(w: usize, lo: usize, hi: usize) -> u64 {
    let base = w * 64;
    let lo = lo.clamp(base, base + 64) - base;
    let hi = hi.clamp(base, base + 64) - base;
    let ones = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    ones(hi) & !ones(lo)
}

const L8: u64 = 0x0101_0101_0101_0101;
const H8: u64 = 0x8080_8080_8080_8080;

/// Returns, in each byte, the number of set bits of `x` in that byte and all lower ones.
#[cfg_attr(not(target_os = "none"), inline)]
pub(super) fn byte_prefix_counts(x: u64) -> u64 {
    let mut s = x - ((x >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    s.wrapping_mul(L8)
}

/// Returns how many bytes of `prefix` (each at most 64) are at most `k` (`k` < 128).
#[cfg_attr(not(target_os = "none"), inline)]
pub(super) fn bytes_at_most(prefix: u64, k: u64) -> u64 {
    let le = (((k * L8) | H8) - prefix) & H8;
    (le >> 7).wrapping_mul(L8) >> 56
}

/// Returns bit `k` (from 0) of the set bits of `x`, as a one-bit mask, 0 when `x` has at most
/// `k`: branch-free (a loop would mispredict on the random `k`).
#[cfg_attr(not(target_os = "none"), inline)]
pub(super) fn select(x: u64, k: u32) -> u64 {
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

/// Calls `f(from, to)` for each instance of `alive` in storage order, `from` its position and
/// `to` its place once the group is compacted; returns how many there are.
#[inline(always)]
fn each_alive(alive: &Mask, mut f: impl FnMut(usize, usize)) -> usize {
    let mut to = 0;
    for (w, &a) in alive.iter().enumerate() {
        let mut rest = a;
        while rest != 0 {
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            f(w * 64 + b, to);
            to += 1;
        }
    }
    to
}

/// The group: instance positions in storage order.
#[derive(Clone)]
pub(super) struct Masks {
    pub(super) alive: Mask,
    pub(super) ready: Mask,
    pub(super) broken: Mask,
    /// Ready instances whose last check failed (one consecutive failure or more).
    pub(super) failing: Mask,
    /// Ready instances with two consecutive failures or more, their count in `streak`
    /// (thresholds of 3 and more only).
    pub(super) failing2: Mask,
    /// (A byte each: a streak ends at the threshold, at most 255 on this path.)
    pub(super) streak: [u8; MAX_GROUP_SIZE],
    /// Booting instances by the round (modulo [`BOOT_RING`]) in which they become ready.
    pub(super) booting: [Mask; BOOT_RING],
    pub(super) booting_n: [u32; BOOT_RING],
    /// Positions from here on are free.
    pub(super) top: usize,
    pub(super) size: u32,
    pub(super) ready_n: u32,
    /// Broken instances (all ready: a broken one is replaced or removed, never booting).
    pub(super) broken_n: u32,
}

impl Masks {
    /// Removes the instances of `gone` (all of one kind: ready, or booting) in words below
    /// `NW`.
    pub(super) fn remove<const NW: usize>(&mut self, gone: &[u64; NW]) {
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
    #[inline]
    pub(super) fn compact(&mut self) {
        let alive = self.alive;
        let squeeze = |m: &Mask| {
            let mut out = [0u64; WORDS];
            each_alive(&alive, |from, to| {
                if (m[from / 64] >> (from % 64)) & 1 == 1 {
                    out[to / 64] |= 1 << (to % 64);
                }
            });
            out
        };
        let to = each_alive(&alive, |from, to| self.streak[to] = self.streak[from]);
        self.ready = squeeze(&self.ready);
        self.broken = squeeze(&self.broken);
        self.failing = squeeze(&self.failing);
        self.failing2 = squeeze(&self.failing2);
        for i in 0..BOOT_RING {
            self.booting[i] = squeeze(&self.booting[i]);
        }
        self.alive = squeeze(&self.alive);
        self.top = to;
    }

    /// Appends `n` booting instances (room checked by the caller) into cohort `slot`.
    #[inline]
    pub(super) fn append(&mut self, n: usize, slot: usize) {
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
    pub(super) fn scale_in(&mut self, n: u64) -> u32 {
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
            for i in 0..BOOT_RING {
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
    #[inline]
    pub(super) fn streaks(&mut self, w: usize, mut again: u64, threshold: u32) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::select;

    /// The k-th set bit, found by clearing the lower ones one by one.
    fn select_slow(mut x: u64, k: u32) -> u64 {
        for _ in 0..k {
            x &= x.wrapping_sub(1);
        }
        x & x.wrapping_neg()
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
