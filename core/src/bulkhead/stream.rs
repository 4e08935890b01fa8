//! The arrival stream: Poisson numbers of requests, their shuffle, and what a round's
//! order tells the layouts.

use crate::error::{Capacity, Error};
use crate::rng::{ParkMiller, UnitRng};

use super::spec::MAX_ARRIVALS_PER_ROUND;

/// Arrivals kept as bits of one word (the usual round): up to this many.
pub(crate) const WORD: usize = 64;

/// Entries of the tables of requests ahead: indexes up to `WORD + 1`, masked to this power
/// of two so that no index needs a bounds check.
pub(crate) const AHEAD: usize = 2 * WORD;

/// One round's shuffled arrivals as every layout reads them, in O(1) per layout.
///
/// Up to [`WORD`] arrivals are the bits of one word (1 tracking, 0 event, in shuffled
/// order): the tracking requests among the first `k` are a masked popcount. A round where a
/// partitioned layout drops also needs, once, how many requests of the other stream are
/// ahead of each request and their running sums (built on first use, O(n)): then every
/// layout's idle slots are a closed form, O(1). Longer rounds keep one byte an arrival and
/// scan, O(n) per dropping layout.
pub(crate) struct Arrivals {
    /// Arrivals this round, at most [`MAX_ARRIVALS_PER_ROUND`].
    pub(crate) len: usize,
    /// Tracking and event requests this round.
    pub(crate) tracking: u32,
    pub(crate) events: u32,
    /// Up to [`WORD`] arrivals: bit `p` is set when the `p`th arrival is a tracking request.
    pub(crate) bits: u64,
    /// More than [`WORD`] arrivals: 1 (tracking) or 0 (event) an arrival.
    pub(crate) wide: [u8; MAX_ARRIVALS_PER_ROUND],
    /// Whether the four tables below describe this round (built by [`Arrivals::ahead`]).
    pub(crate) ahead_built: bool,
    /// `events_ahead[j]`: event requests ahead of the `j`th tracking request (from 1);
    /// `[tracking + 1]` is every event request.
    events_ahead: [u8; AHEAD],
    /// `tracking_ahead[j]`: tracking requests ahead of the `j`th event request (from 1);
    /// `[events + 1]` is every tracking request.
    tracking_ahead: [u8; AHEAD],
    /// Running sums of `events_ahead[1..=j]` and `tracking_ahead[1..=j]` (at most 32 × 32).
    events_ahead_sum: [u16; AHEAD],
    tracking_ahead_sum: [u16; AHEAD],
}

impl Arrivals {
    pub(crate) const fn new() -> Self {
        Self {
            len: 0,
            tracking: 0,
            events: 0,
            bits: 0,
            wide: [0; MAX_ARRIVALS_PER_ROUND],
            ahead_built: false,
            events_ahead: [0; AHEAD],
            tracking_ahead: [0; AHEAD],
            events_ahead_sum: [0; AHEAD],
            tracking_ahead_sum: [0; AHEAD],
        }
    }

    /// Tracking requests among the first `k` arrivals (`k` < `len`).
    pub(crate) fn tracking_in_first(&self, k: usize) -> u32 {
        if self.len <= WORD {
            // k < len ≤ 64: the shift is in range.
            (self.bits & ((1u64 << k) - 1)).count_ones()
        } else {
            self.wide[..k].iter().map(|&b| u32::from(b)).sum()
        }
    }

    /// Builds the tables of requests ahead (`len` ≤ [`WORD`]). Each arrival writes both
    /// streams' next entries; the other stream's is rewritten by its next request, or
    /// replaced by the end marker: no branch on the stream.
    #[inline(never)]
    pub(crate) fn ahead(&mut self) {
        const M: usize = AHEAD - 1;
        let mut c = 0usize;
        for p in 0..self.len.min(WORD) {
            let e = p - c;
            // c, e ≤ p < 64: every index is below AHEAD (the masks change none), and every
            // value fits.
            self.events_ahead[(c + 1) & M] = e as u8;
            self.events_ahead_sum[(c + 1) & M] = self.events_ahead_sum[c & M] + e as u16;
            self.tracking_ahead[(e + 1) & M] = c as u8;
            self.tracking_ahead_sum[(e + 1) & M] = self.tracking_ahead_sum[e & M] + c as u16;
            c += ((self.bits >> p) & 1) as usize;
        }
        self.events_ahead[(self.tracking as usize + 1) & M] = self.events as u8;
        self.tracking_ahead[(self.events as usize + 1) & M] = self.tracking as u8;
        self.ahead_built = true;
    }

    /// Returns the idle slots of a partitioned layout's drops this round: each tracking
    /// request past the first `tracking_served` finds the event pool with `event_free`, less
    /// the events served before it, free, and each event request past the first
    /// `event_served` finds the tracking pool likewise.
    ///
    /// In closed form: the `j`th tracking request finds `event_free − events_ahead[j]` slots
    /// when that is positive, that is for `j` up to the tracking requests ahead of the
    /// `event_free`th event request (all of them if there are fewer events), so the dropped
    /// ones, from `tracking_served + 1` to that `J`, find `(J − tracking_served) ·
    /// event_free` less the running sum of `events_ahead` over them. Likewise for events.
    #[inline]
    pub(crate) fn idle_slots(
        &mut self,
        tracking_served: u32,
        event_served: u32,
        tracking_free: u32,
        event_free: u32,
    ) -> u64 {
        if self.len > WORD {
            return self.idle_slots_scan(tracking_served, event_served, tracking_free, event_free);
        }
        if !self.ahead_built {
            self.ahead();
        }
        let (tracking, events) = (self.tracking as usize, self.events as usize);
        const M: usize = AHEAD - 1;
        let side =
            |served: u32, free: u32, last: usize, until: &[u8; AHEAD], sum: &[u16; AHEAD]| {
                let served = served as usize;
                // `until[min(free, last + 1)]` ≤ the requests of this stream; served ≤ them; all
                // at most 65 (the masks change none).
                let j = usize::from(until[(free as usize).min(last + 1) & M]).max(served);
                let found = (j - served) as u64 * u64::from(free);
                found - u64::from(sum[j & M] - sum[served & M])
            };
        side(
            tracking_served,
            event_free,
            events,
            &self.tracking_ahead,
            &self.events_ahead_sum,
        ) + side(
            event_served,
            tracking_free,
            tracking,
            &self.events_ahead,
            &self.tracking_ahead_sum,
        )
    }

    /// [`Arrivals::idle_slots`] for a long round, one arrival at a time, with no branch on
    /// the stream.
    pub(crate) fn idle_slots_scan(
        &self,
        tracking_served: u32,
        event_served: u32,
        tracking_free: u32,
        event_free: u32,
    ) -> u64 {
        let mut idle = 0u64;
        let mut tracking_before = 0u32;
        for (p, &b) in (0u32..).zip(&self.wide[..self.len]) {
            let events_before = p - tracking_before;
            let slots = if b != 0 {
                // A tracking request; served ones take from `tracking_free`, not the other pool.
                let dropped = tracking_before >= tracking_served;
                u32::from(dropped) * (event_free - event_free.min(events_before))
            } else {
                let dropped = events_before >= event_served;
                u32::from(dropped) * (tracking_free - tracking_free.min(tracking_before))
            };
            idle += u64::from(slots);
            tracking_before += u32::from(b);
        }
        idle
    }
}

/// The lesson's generator, [`ParkMiller`], with its state kept unreduced between draws: the
/// dependent chain from one state to the next is a multiply and a fold (no compare and
/// subtract), and each draw reduces its own copy off the chain.
pub(crate) struct Draws {
    /// Congruent to the generator's state modulo 2^31 − 1, below 2^31 + 2^17: the product
    /// stays below 2^47, and its fold below 2^31 + 2^16.
    r: u64,
}

impl Draws {
    pub(crate) const MODULUS: u64 = 2_147_483_647;

    pub(crate) const fn new(seed: u32) -> Self {
        Self {
            r: seed as u64 % Self::MODULUS,
        }
    }
}

impl UnitRng for Draws {
    #[inline(always)]
    fn next_unit(&mut self) -> f64 {
        let x = self.r * 48_271;
        self.r = (x & Self::MODULUS) + (x >> 31);
        let s = if self.r >= Self::MODULUS {
            self.r - Self::MODULUS
        } else {
            self.r
        };
        // s < 2^31 − 1.
        ParkMiller::unit(s as u32)
    }
}

/// Draws a Poisson number by Knuth's product method, against `limit = exp(-λ)` computed once
/// per run (the lesson recomputes it per draw; the value is the same).
pub(crate) fn poisson<R: UnitRng>(rng: &mut R, limit: f64) -> Result<usize, Error> {
    let mut k = 0usize;
    let mut p = 1.0;
    loop {
        k += 1;
        p *= rng.next_unit();
        if p <= limit {
            return Ok(k - 1);
        }
        if k > MAX_ARRIVALS_PER_ROUND {
            return Err(TOO_MANY_ARRIVALS);
        }
    }
}

pub(crate) const TOO_MANY_ARRIVALS: Error = Error::CapacityExceeded {
    capacity: Capacity::ArrivalsPerRound,
    limit: MAX_ARRIVALS_PER_ROUND as u32,
};

#[cfg(test)]
mod tests {
    use super::{Arrivals, WORD};

    /// Arrivals from the low `n` bits of `bits`, in both forms (word and bytes).
    fn arrivals(bits: u64, n: usize) -> Arrivals {
        let mut a = Arrivals::new();
        let bits = if n == WORD {
            bits
        } else {
            bits & ((1 << n) - 1)
        };
        a.len = n;
        a.bits = bits;
        a.tracking = bits.count_ones();
        a.events = n as u32 - a.tracking;
        for (p, b) in a.wide[..n].iter_mut().enumerate() {
            *b = ((bits >> p) & 1) as u8;
        }
        a
    }

    /// The closed form equals the one-by-one scan for free counts of both pools (each pool
    /// serving what it can, as a round does), from none to more than arrive, and the
    /// largest; prefix counts equal counting the bytes.
    fn check(bits: u64, n: usize) {
        let mut a = arrivals(bits, n);
        // Every count near either stream's size or small, every seventh, and the largest.
        let counts = [a.tracking, a.events];
        let near = |f: u32| counts.iter().any(|&c| f.abs_diff(c) <= 1);
        let frees = (0..=n as u32 + 1)
            .filter(|&f| f <= 3 || f % 7 == 0 || near(f))
            .chain([65_534, 65_535]);
        for tracking_free in frees.clone() {
            for event_free in frees.clone() {
                let ts = tracking_free.min(a.tracking);
                let es = event_free.min(a.events);
                let scan = a.idle_slots_scan(ts, es, tracking_free, event_free);
                let closed = a.idle_slots(ts, es, tracking_free, event_free);
                assert_eq!(
                    closed, scan,
                    "{bits:#x} n={n} free=({tracking_free}, {event_free})"
                );
            }
        }
        for k in 0..n {
            let counted: u32 = a.wide[..k].iter().map(|&b| u32::from(b)).sum();
            assert_eq!(a.tracking_in_first(k), counted, "{bits:#x} n={n} k={k}");
        }
    }

    /// The unreduced generator draws exactly the lesson's, from seeds whose states start
    /// small, large and in between.
    #[test]
    fn draws_are_the_lesson_generators() {
        use crate::rng::{ParkMiller, UnitRng};
        for seed in [
            1,
            2,
            48_271,
            20_260_801,
            1 << 30,
            2_147_483_645,
            2_147_483_646,
        ] {
            let (mut lesson, mut ours) = (ParkMiller::new(seed), super::Draws::new(seed));
            for i in 0..100_000 {
                let (a, b) = (lesson.next_unit(), ours.next_unit());
                assert_eq!(a.to_bits(), b.to_bits(), "seed {seed}, draw {i}");
            }
        }
    }

    #[test]
    fn idle_slots_closed_form_equals_the_scan_for_every_short_round() {
        for n in 0..=10 {
            for bits in 0..1u64 << n {
                check(bits, n);
            }
        }
    }

    #[test]
    fn idle_slots_closed_form_equals_the_scan_up_to_a_word() {
        let mut x = 7u64;
        for n in 11..=WORD {
            for _ in 0..20 {
                x = crate::rng::splitmix64(x);
                // Sparse, dense and even mixes of the two streams.
                let y = crate::rng::splitmix64(x);
                for bits in [x, x & y, x | y, !0, 0] {
                    check(bits, n);
                }
            }
        }
    }
}
