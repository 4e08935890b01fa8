//! The lessons' three seeded generators, and the one trait every model draws from.
//!
//! Each lesson program has its own generator. They are reproduced exactly here, as
//! `rand_core` generators ([`TryRng`] with `Error = Infallible`, hence [`rand_core::Rng`],
//! and [`SeedableRng`]), so a model run with the lesson's generator gives the lesson's bits.
//!
//! The models do not ask for bits, they ask for a double in `[0, 1)`, exactly as the lessons
//! do: that is [`UnitRng`]. The lesson generators implement it with the lesson's own
//! arithmetic; any other `rand_core` generator plugs in through [`Uniform`].
//!
//! ```
//! use capsim_core::rng::{GroupLcg, UnitRng};
//! let mut r = GroupLcg::new(20261001);
//! let x = r.next_unit();
//! assert!((0.0..1.0).contains(&x));
//! ```

use core::convert::Infallible;
use rand_core::{Rng, SeedableRng, TryRng};

/// Returns uniform doubles in `[0, 1)`: the one thing the models draw.
pub trait UnitRng {
    /// Returns the next double in `[0, 1)`.
    fn next_unit(&mut self) -> f64;

    /// Draws `n` doubles (at most 64) and returns which were below `p`, bit `k` for draw
    /// `k`: a round's health checks in one call, so a cached stream can answer without a
    /// branch per draw. Exactly `n` [`UnitRng::next_unit`] calls' worth of the stream.
    fn below(&mut self, n: u32, p: f64) -> u64 {
        let mut bits = 0;
        for k in 0..n.min(64) {
            bits |= u64::from(self.next_unit() < p) << k;
        }
        bits
    }
}

impl<T: UnitRng + ?Sized> UnitRng for &mut T {
    fn next_unit(&mut self) -> f64 {
        (**self).next_unit()
    }

    fn below(&mut self, n: u32, p: f64) -> u64 {
        (**self).below(n, p)
    }
}

/// Adapts any `rand_core` generator to [`UnitRng`]: the top 53 bits of `next_u64`, scaled.
#[derive(Clone, Debug)]
pub struct Uniform<R>(pub R);

impl<R: Rng> UnitRng for Uniform<R> {
    fn next_unit(&mut self) -> f64 {
        // 53 random bits are exactly representable; the product is exact.
        (self.0.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// Implements `TryRng` (infallible) and `SeedableRng` (4-byte little-endian seed,
/// `seed_from_u64` taking the low 32 bits as the seed) from `new` and `step`.
macro_rules! lesson_rng_traits {
    ($ty:ident) => {
        impl TryRng for $ty {
            type Error = Infallible;
            fn try_next_u32(&mut self) -> Result<u32, Infallible> {
                Ok(self.step())
            }
            fn try_next_u64(&mut self) -> Result<u64, Infallible> {
                rand_core::utils::next_u64_via_u32(self)
            }
            fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
                rand_core::utils::fill_bytes_via_next_word(dst, || self.try_next_u32())
            }
        }

        impl SeedableRng for $ty {
            type Seed = [u8; 4];
            fn from_seed(seed: [u8; 4]) -> Self {
                Self::new(u32::from_le_bytes(seed))
            }
            /// Uses the low 32 bits as the lesson seed, so `seed_from_u64(20261001)` is the
            /// lesson's generator.
            fn seed_from_u64(state: u64) -> Self {
                Self::new(state as u32)
            }
        }
    };
}

/// The auto-scaling lesson's C-style LCG, computed the way the lesson computes it: in IEEE
/// doubles.
///
/// `s = (s * 1103515245 + 12345) % 2^31`, returning `s / 2^31`. The product reaches 2^61,
/// beyond the 2^53 a double holds exactly, so low bits are rounded away; that rounding is part
/// of the lesson's stream and is reproduced, not "fixed". `next_u32` returns the new state
/// (31 bits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupLcg {
    state: u32,
}

impl GroupLcg {
    /// Returns the generator the lesson builds with `uretec(seed)`.
    pub const fn new(seed: u32) -> Self {
        Self { state: seed }
    }

    fn step(&mut self) -> u32 {
        // Two roundings, as in JavaScript: the product, then the sum.
        let x = f64::from(self.state) * 1_103_515_245.0 + 12_345.0;
        // `x` is an integer below 2^62, so the conversion is exact (to i64: one instruction
        // on x86-64) and masking the low 31 bits equals JS's `% 2^31`.
        self.state = ((x as i64) & 0x7fff_ffff) as u32;
        self.state
    }
}

impl UnitRng for GroupLcg {
    fn next_unit(&mut self) -> f64 {
        f64::from(self.step()) * (1.0 / 2_147_483_648.0) // exact: a power of two
    }
}
lesson_rng_traits!(GroupLcg);

/// The lesson generator's stream kept in caller storage `S` (an array, a slice, a box), so
/// that several runs of one seed (a batch's runs) compute each draw once and then read it:
/// the LCG's dependent chain is the slowest part of a run, and the lesson's nine pairs draw
/// the same ~2,700 numbers.
///
/// Draws past the storage are computed, so any size is exact (an empty one caches
/// nothing). Each state is the draw's 31 bits: 4 bytes a draw.
///
/// ```
/// use capsim_core::rng::{GroupLcg, GroupStream, UnitRng};
/// let mut stream = GroupStream::new(7, [0u32; 4]);
/// for _ in 0..2 {
///     let (mut shared, mut alone) = (stream.reader(), GroupLcg::new(7));
///     for _ in 0..10 {
///         assert_eq!(shared.next_unit(), alone.next_unit());
///     }
/// }
/// ```
#[derive(Clone, Debug)]
pub struct GroupStream<S> {
    seed: u32,
    states: S,
    filled: usize,
    /// The state of draw `filled - 1` (the seed before the first): computing on starts from
    /// a register, not a load of the draw just stored.
    last: u32,
    /// [`UnitRng::below`]'s answers for the threshold `bits_p` (its bits): bit `k % 64` of
    /// word `k / 64` says whether draw `k` is below it, for the first `64 * bits_words`
    /// draws (a word is filled once the states under it are). One word of padding, so that
    /// reading two words at any position stays branch-free.
    bits: [u64; STREAM_BIT_WORDS + 1],
    bits_p: u64,
    bits_words: usize,
}

/// Words of a [`GroupStream`]'s answers to [`UnitRng::below`]: 4,096 draws (512 bytes).
const STREAM_BIT_WORDS: usize = 64;

impl<S: AsRef<[u32]> + AsMut<[u32]>> GroupStream<S> {
    /// Returns the stream of `seed` (as [`GroupLcg::new`]), cached in `states` (whose
    /// contents are ignored).
    pub fn new(seed: u32, states: S) -> Self {
        Self {
            seed,
            states,
            filled: 0,
            last: seed,
            bits: [0; STREAM_BIT_WORDS + 1],
            bits_p: 0,
            bits_words: 0,
        }
    }

    /// Makes this the stream of `seed`, keeping the storage: a caller that runs seed after
    /// seed reuses one buffer.
    pub fn restart(&mut self, seed: u32) {
        self.seed = seed;
        self.filled = 0;
        self.last = seed;
        self.bits_words = 0;
    }

    /// Returns a generator that starts at the stream's first draw.
    pub fn reader(&mut self) -> GroupStreamReader<'_, S> {
        let tail = GroupLcg::new(self.seed);
        GroupStreamReader {
            stream: self,
            pos: 0,
            tail,
        }
    }

    /// Returns the seed of the stream.
    pub(crate) fn seed(&self) -> u32 {
        self.seed
    }

    /// Returns a reader at draw `pos`, whose generator `tail` is at the state of draw
    /// `pos - 1` (what [`GroupStreamReader::position`] returned).
    pub(crate) fn reader_at(&mut self, pos: usize, tail: GroupLcg) -> GroupStreamReader<'_, S> {
        GroupStreamReader {
            stream: self,
            pos,
            tail,
        }
    }

    /// Computes up to `k` more draws ahead of the readers (none past the storage): called
    /// between the steps of other work, the generator's dependent chain overlaps it.
    #[inline]
    pub(crate) fn produce(&mut self, k: usize) {
        let filled = self.filled;
        let states = self.states.as_mut();
        let mut lcg = GroupLcg::new(self.last);
        let mut done = 0;
        for slot in states.iter_mut().skip(filled).take(k) {
            *slot = lcg.step();
            done += 1;
        }
        self.filled = filled + done;
        self.last = lcg.state;
    }

    /// Computes the states up to draw `end` (at most the storage's length).
    fn fill_to(&mut self, end: usize) {
        let states = self.states.as_mut();
        let mut lcg = GroupLcg::new(self.last);
        for slot in states.iter_mut().take(end).skip(self.filled) {
            *slot = lcg.step();
        }
        self.filled = self.filled.max(end.min(states.len()));
        self.last = lcg.state;
    }

    /// Makes `below` answers for threshold `p` cover the draws before `end`; returns false
    /// when the storage cannot (the caller then draws one by one).
    fn bits_to(&mut self, end: usize, p: f64) -> bool {
        let words = end.div_ceil(64);
        if words > STREAM_BIT_WORDS || words * 64 > self.states.as_ref().len() {
            return false;
        }
        if p.to_bits() != self.bits_p {
            self.bits_p = p.to_bits();
            self.bits_words = 0;
        }
        if self.bits_words >= words {
            return true;
        }
        self.fill_to(words * 64);
        let states = self.states.as_ref();
        // `s / 2^31 < p` (the draw as `next_unit` returns it) is `s < p * 2^31`: scaling by
        // a power of two is exact both ways (an overflow to an infinity compares the same).
        // For an integer `s` below 2^31 that is `s < ceil(p * 2^31)`, clamped to [0, 2^31]
        // (`as` takes NaN and negatives to 0): integer compares, which vectorise.
        let lim = p * 2_147_483_648.0;
        let whole = lim as u64;
        let below = whole
            .saturating_add(u64::from((whole as f64) < lim))
            .min(1 << 31) as u32;
        // States are below 2^31 and `below` at most 2^31, so `s + (2^31 - below)` fits 32
        // bits and has bit 31 set exactly when `s` is not below: draws `k` and `k + 32` of
        // a word side by side in one `u64` take one add and one mask for both (no carry
        // crosses the lanes), their bits landing at `k` and `k + 32`.
        let offset = u64::from((1u32 << 31) - below) * 0x1_0000_0001;
        for w in self.bits_words..words {
            if let (Some(chunk), Some(word)) =
                (states.get(w * 64..w * 64 + 64), self.bits.get_mut(w))
            {
                let (low, high) = chunk.split_at(32);
                let mut not_below = 0;
                for (k, (&a, &b)) in low.iter().zip(high).enumerate() {
                    let lanes = (u64::from(a) | (u64::from(b) << 32)) + offset;
                    not_below |= ((lanes >> 31) & 0x1_0000_0001) << k;
                }
                *word = !not_below;
            }
        }
        self.bits_words = words;
        true
    }
}

/// One run's position in a [`GroupStream`]: the same draws as [`GroupLcg`] of its seed.
#[derive(Debug)]
pub struct GroupStreamReader<'s, S> {
    stream: &'s mut GroupStream<S>,
    pos: usize,
    /// The generator at the state of draw `pos - 1` once past the cached draws (taken from
    /// the cache when a read leaves it).
    tail: GroupLcg,
}

impl<S: AsRef<[u32]> + AsMut<[u32]>> GroupStreamReader<'_, S> {
    /// Returns how many draws the stream has computed.
    pub(crate) fn filled(&self) -> usize {
        self.stream.filled
    }

    /// Computes up to `k` more draws of the stream ([`GroupStream::produce`]).
    #[inline]
    pub(crate) fn produce(&mut self, k: usize) {
        self.stream.produce(k);
    }

    /// Returns where the reader is, for [`GroupStream::reader_at`].
    pub(crate) fn position(&self) -> (usize, GroupLcg) {
        (self.pos, self.tail.clone())
    }

    fn step(&mut self) -> u32 {
        let stream = &mut *self.stream;
        let filled = stream.filled;
        let states = stream.states.as_mut();
        let state = match states.get(self.pos) {
            Some(&s) if self.pos < filled => s,
            _ => {
                // Past the cached draws: continue from the last one read, cached (`pos` is
                // `filled` then: every reader draws from the start, in order) or not.
                if let Some(prev) = self.pos.checked_sub(1).and_then(|i| states.get(i)) {
                    self.tail.state = *prev;
                }
                let s = self.tail.step();
                if let Some(slot) = states.get_mut(self.pos) {
                    *slot = s;
                    stream.filled += 1;
                    stream.last = s;
                }
                s
            }
        };
        self.pos += 1;
        state
    }

    /// `below` when the answers do not cover the draws yet: computes them, or draws one by
    /// one past the storage.
    #[cold]
    #[inline(never)]
    fn below_slow(&mut self, n: u32, p: f64) -> u64 {
        let end = self.pos + n as usize;
        if n > 0 && self.stream.bits_to(end, p) {
            return self.below(n, p);
        }
        let mut bits = 0;
        for k in 0..n {
            bits |= u64::from(self.next_unit() < p) << k;
        }
        bits
    }
}

impl<S: AsRef<[u32]> + AsMut<[u32]>> UnitRng for GroupStreamReader<'_, S> {
    fn next_unit(&mut self) -> f64 {
        f64::from(self.step()) * (1.0 / 2_147_483_648.0)
    }

    /// Reads the answers the stream keeps for `p` (computed once per stream and threshold):
    /// two words and a shift, where drawing costs a load and a compare per draw.
    #[inline]
    fn below(&mut self, n: u32, p: f64) -> u64 {
        let n = n.min(64);
        let end = self.pos + n as usize;
        let stream = &*self.stream;
        if p.to_bits() != stream.bits_p || end > stream.bits_words * 64 {
            return self.below_slow(n, p);
        }
        let (w, s) = (self.pos / 64, self.pos % 64);
        // `end <= 64 * STREAM_BIT_WORDS`, so `w + 1` is at most the padding word (the
        // clamps only spare bounds checks).
        let lo = stream.bits[w % STREAM_BIT_WORDS];
        let hi = stream.bits[(w + 1).min(STREAM_BIT_WORDS)];
        let bits = (lo >> s) | ((hi << 1) << (63 - s));
        self.pos = end;
        // No bits when `n` is 0.
        bits & u64::MAX.checked_shr(64 - n).unwrap_or(0)
    }
}

/// A [`GroupStreamReader`] that answers health checks at one threshold only, for the
/// group's fast path: its answers need no threshold check, and the bits from `n` up are left
/// to the caller (who masks them with the instances that drew anyway).
#[derive(Debug)]
pub(crate) struct GroupStreamChecks<'s, S> {
    reader: GroupStreamReader<'s, S>,
    p: f64,
}

impl<S: AsRef<[u32]> + AsMut<[u32]>> GroupStream<S> {
    /// [`GroupStream::reader_at`] answering health checks at threshold `p`.
    pub(crate) fn checks_at(
        &mut self,
        pos: usize,
        tail: GroupLcg,
        p: f64,
    ) -> GroupStreamChecks<'_, S> {
        // The answers kept are for `p` from here on (none yet if they were for another).
        if p.to_bits() != self.bits_p {
            self.bits_p = p.to_bits();
            self.bits_words = 0;
        }
        GroupStreamChecks {
            reader: self.reader_at(pos, tail),
            p,
        }
    }
}

impl<S: AsRef<[u32]> + AsMut<[u32]>> GroupStreamChecks<'_, S> {
    /// Returns how many draws the stream has computed.
    pub(crate) fn filled(&self) -> usize {
        self.reader.filled()
    }

    /// Computes up to `k` more draws of the stream ([`GroupStream::produce`]).
    #[inline]
    pub(crate) fn produce(&mut self, k: usize) {
        self.reader.produce(k);
    }

    /// Returns where the reader is, for [`GroupStream::checks_at`].
    pub(crate) fn position(&self) -> (usize, GroupLcg) {
        self.reader.position()
    }

    /// [`UnitRng::below`] for `n` (at most 64) draws at the threshold given, except that the
    /// bits from `n` up are unspecified.
    #[inline]
    pub(crate) fn below_unmasked(&mut self, n: u32) -> u64 {
        let r = &mut self.reader;
        let end = r.pos + n as usize;
        let stream = &*r.stream;
        // The answers are for `p` (see `checks_at`; only this reader changes them).
        if end > stream.bits_words * 64 {
            return r.below_slow(n, self.p);
        }
        // `end <= 64 * STREAM_BIT_WORDS`, so the word is below 64 (the mask only spares a
        // bounds check) and the next one at most the padding word.
        let (w, s) = ((r.pos / 64) % STREAM_BIT_WORDS, r.pos % 64);
        let (lo, hi) = (stream.bits[w], stream.bits[w + 1]);
        r.pos = end;
        (lo >> s) | ((hi << 1) << (63 - s))
    }
}

/// The consumers lesson's counter-based 32-bit hash generator (`Math.imul`, `>>>`).
///
/// Output `n` (from 0) hashes `seed + (n + 1) * 0x9e3779b9 (mod 2^32)`, so any position of
/// the stream can be computed directly: [`CounterHash::at`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterHash {
    counter: u32,
}

impl CounterHash {
    const GOLDEN: u32 = 0x9e37_79b9;

    /// Returns the generator the lesson builds with `uretec(seed)`.
    pub const fn new(seed: u32) -> Self {
        Self { counter: seed }
    }

    /// Returns output number `n` (0-based) of the stream seeded with `seed`, as 32 bits.
    pub const fn at(seed: u32, n: u64) -> u32 {
        let steps = (n.wrapping_add(1)) as u32;
        Self::mix(seed.wrapping_add(steps.wrapping_mul(Self::GOLDEN)))
    }

    /// Returns output number `n` (0-based) as the lesson's double in `[0, 1)`.
    pub fn unit_at(seed: u32, n: u64) -> f64 {
        // Multiplying by 2^-32 is exact and equals the lesson's division.
        f64::from(Self::at(seed, n)) * (1.0 / 4_294_967_296.0)
    }

    const fn mix(a: u32) -> u32 {
        let z = (a ^ (a >> 16)).wrapping_mul(0x21f0_aaad);
        let z = (z ^ (z >> 15)).wrapping_mul(0x735a_2d97);
        z ^ (z >> 15)
    }

    fn step(&mut self) -> u32 {
        self.counter = self.counter.wrapping_add(Self::GOLDEN);
        Self::mix(self.counter)
    }
}

impl UnitRng for CounterHash {
    fn next_unit(&mut self) -> f64 {
        f64::from(self.step()) * (1.0 / 4_294_967_296.0)
    }
}
lesson_rng_traits!(CounterHash);

/// The bulkhead lesson's Park–Miller generator: `s = s * 48271 % (2^31 - 1)`, returning
/// `s / (2^31 - 1)`.
///
/// The product stays below 2^47, so integer arithmetic gives exactly the lesson's doubles.
/// `next_u32` returns the new state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParkMiller {
    state: u32,
}

impl ParkMiller {
    const MODULUS: u64 = 2_147_483_647;

    /// Returns the generator the lesson builds from `seed % (2^31 - 1)`.
    pub const fn new(seed: u32) -> Self {
        Self {
            state: (seed as u64 % Self::MODULUS) as u32,
        }
    }

    fn step(&mut self) -> u32 {
        // x mod (2^31 - 1) without a division: 2^31 = 1 (mod 2^31 - 1), and x < 2^47 leaves
        // at most one subtraction.
        let x = u64::from(self.state) * 48_271;
        let mut r = (x & Self::MODULUS) + (x >> 31);
        if r >= Self::MODULUS {
            r -= Self::MODULUS;
        }
        self.state = r as u32;
        self.state
    }
}

impl ParkMiller {
    /// `1 / ((2^31 − 1) · 2^31)`, rounded: see [`ParkMiller::unit_by_products`].
    const LOW: f64 = 1.0 / (2_147_483_647.0 * 2_147_483_648.0);

    /// Returns `s / (2^31 − 1)`, the lesson's `s / 2147483647`: on a machine with double
    /// precision hardware, from two products and a sum (a division costs more there); in
    /// software floating point (the boards), by the division (it costs less there).
    pub(crate) fn unit(s: u32) -> f64 {
        if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
            Self::unit_by_products(s)
        } else {
            f64::from(s) / 2_147_483_647.0
        }
    }

    /// `s / (2^31 − 1)` without a division: `s / (2^31 − 1) = s · 2^−31 + s · 2^−62 +
    /// s · 2^−93 + …`, and `s · 2^−31` (exact) plus `s` times that tail's sum (rounded once)
    /// rounds to the same double as the quotient for every state `s` from 1 to 2^31 − 2
    /// (checked for all of them: see the tests).
    fn unit_by_products(s: u32) -> f64 {
        let s = f64::from(s);
        s * (1.0 / 2_147_483_648.0) + s * Self::LOW
    }
}

impl UnitRng for ParkMiller {
    fn next_unit(&mut self) -> f64 {
        Self::unit(self.step())
    }
}
lesson_rng_traits!(ParkMiller);

/// Returns a 64-bit mix of `x` (SplitMix64's finaliser): seeds independent sub-streams.
pub(crate) const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ParkMiller::unit_by_products` is the quotient for the states most likely to round
    /// differently (their 31-bit pattern, which repeats in the quotient's binary expansion,
    /// has at most two bits set or clear, so the quotient can sit near a rounding boundary)
    /// and for a spread of the others; `every_park_miller_state_divides_exactly` checks all
    /// of them. `ParkMiller::unit`, whichever way it computes, is the quotient too.
    #[test]
    fn park_miller_unit_is_the_quotient() {
        let check = |s: u32| {
            let quotient = f64::from(s) / 2_147_483_647.0;
            assert_eq!(
                ParkMiller::unit_by_products(s).to_bits(),
                quotient.to_bits(),
                "{s}"
            );
            assert_eq!(ParkMiller::unit(s).to_bits(), quotient.to_bits(), "{s}");
        };
        let full = 0x7fff_ffffu32;
        for i in 0..31 {
            for j in 0..31 {
                let two = (1u32 << i) | (1 << j);
                check(two);
                if two != full && full ^ two != 0 {
                    check(full ^ two);
                }
            }
        }
        for s in (1..full).step_by(9_973) {
            check(s);
        }
    }

    /// Every state: about 2 · 10^9 checks, seconds in a release build
    /// (`cargo test --release -p capsim-core -- --ignored every_park_miller`).
    #[test]
    #[ignore]
    fn every_park_miller_state_divides_exactly() {
        for s in 1..0x7fff_ffffu32 {
            let quotient = f64::from(s) / 2_147_483_647.0;
            let products = ParkMiller::unit_by_products(s);
            assert_eq!(products.to_bits(), quotient.to_bits(), "{s}");
        }
    }

    #[test]
    fn counter_hash_random_access_matches_the_stream() {
        let mut r = CounterHash::new(20260731);
        for n in 0..100 {
            assert_eq!(r.next_u32(), CounterHash::at(20260731, n));
        }
    }

    #[test]
    fn group_lcg_rounds_like_a_double() {
        // 2147483646 * 1103515245 is not representable: the integer LCG would differ.
        let mut r = GroupLcg::new(2_147_483_646);
        let exact = (2_147_483_646u64 * 1_103_515_245 + 12_345) % 2_147_483_648;
        assert_ne!(u64::from(r.next_u32()), exact);
    }

    /// `below` equals drawing one by one, mixed with single draws, for several thresholds,
    /// within and past the storage.
    #[test]
    fn group_stream_below_draws_like_the_generator() {
        let mut buf = [0u32; 9000];
        for (seed, size) in [
            (20_261_001, 3072),
            (5, 100),
            (2_147_483_646, 4096),
            (9, 9000),
        ] {
            let mut stream = GroupStream::new(seed, &mut buf[..size]);
            // Also thresholds at and between the draws' steps (2^-31), out of range, NaN.
            let step = 1.0 / 2_147_483_648.0;
            for p in [
                0.08,
                0.5,
                0.08,
                0.0,
                1.0,
                step,
                1.5 * step,
                1.0 - step,
                1.0 - 0.5 * step,
                5e-324,
                -0.5,
                2.0,
                1e300,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
            ] {
                let (mut shared, mut alone) = (stream.reader(), GroupLcg::new(seed));
                let mut k = 0u32;
                while shared.pos < 5000 {
                    k = (k * 7 + 3) % 65;
                    if k.is_multiple_of(5) {
                        assert_eq!(shared.next_unit().to_bits(), alone.next_unit().to_bits());
                        continue;
                    }
                    let mut expected = 0u64;
                    for i in 0..k {
                        expected |= u64::from(alone.next_unit() < p) << i;
                    }
                    assert_eq!(shared.below(k, p), expected, "{seed} {p} {k}");
                }
            }
        }
    }

    /// The fast path's reader at one threshold answers as drawing one by one in its first
    /// `n` bits, for thresholds taking turns (each resets the kept answers), within and past
    /// the storage.
    #[test]
    fn group_stream_checks_answer_like_the_generator() {
        let mut buf = [0u32; 4096];
        for (seed, size) in [(20_261_001, 3072), (5, 100), (9, 4096)] {
            let mut stream = GroupStream::new(seed, &mut buf[..size]);
            let step = 1.0 / 2_147_483_648.0;
            for p in [0.08, 0.5, 0.08, 0.0, 1.0, 1.5 * step, 1.0 - step, f64::NAN] {
                let mut checks = stream.checks_at(0, GroupLcg::new(seed), p);
                let mut alone = GroupLcg::new(seed);
                let mut n = 0u32;
                while checks.position().0 < 5000 {
                    n = (n * 7 + 3) % 64 + 1;
                    let mut expected = 0u64;
                    for i in 0..n {
                        expected |= u64::from(alone.next_unit() < p) << i;
                    }
                    let mask = u64::MAX >> (64 - n);
                    assert_eq!(checks.below_unmasked(n) & mask, expected, "{seed} {p} {n}");
                }
            }
        }
    }

    /// A restarted stream draws the new seed's numbers, whatever the old one had computed
    /// (draws and `below` answers).
    #[test]
    fn a_restarted_stream_draws_its_new_seed() {
        let mut stream = GroupStream::new(3, [0u32; 200]);
        for (seed, len) in [(3, 150), (77, 300), (2_147_483_646, 20), (3, 199)] {
            stream.restart(seed);
            let (mut shared, mut alone) = (stream.reader(), GroupLcg::new(seed));
            for _ in 0..len {
                let expected =
                    (0..10).fold(0u64, |b, i| b | u64::from(alone.next_unit() < 0.3) << i);
                assert_eq!(shared.below(10, 0.3), expected, "{seed}");
                assert_eq!(shared.next_unit().to_bits(), alone.next_unit().to_bits());
            }
        }
    }

    /// Readers of one stream, reading past its storage and shorter than its filled part,
    /// draw exactly what a fresh generator of the seed draws.
    #[test]
    fn group_stream_readers_repeat_the_generator() {
        for seed in [1, 2, 20_261_001, 2_147_483_646] {
            let mut stream = GroupStream::new(seed, [0u32; 100]);
            for len in [30, 250, 10, 100, 101, 0, 400] {
                let (mut shared, mut alone) = (stream.reader(), GroupLcg::new(seed));
                for _ in 0..len {
                    assert_eq!(shared.next_unit().to_bits(), alone.next_unit().to_bits());
                }
            }
        }
    }
}
