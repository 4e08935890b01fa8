//! Bulkhead: one shared slot pool vs. partitioned pools under Poisson arrivals and a slow
//! dependency.
//!
//! Each round: slots whose hold has ended are freed; the busy slots are counted; Poisson
//! numbers of tracking and event requests arrive, are shuffled (Fisher–Yates), and each takes
//! a slot of its pool for its hold time or is dropped. A drop in a partitioned layout counts
//! the free slots of the other pool as idle. In slowdown mode event requests hold their slot
//! for `slow_hold` rounds from `failure_start` on. The lesson program is the specification.
//!
//! Storage is fixed: per pool a calendar of slot releases over the next [`MAX_HOLD`] rounds
//! (no list of busy slots), and at most [`MAX_ARRIVALS_PER_ROUND`] arrivals per round, beyond
//! which a run returns [`Error::CapacityExceeded`].
//!
//! Cost: a round draws its stream once for every layout run together — two Poisson numbers
//! (λ + 1 draws each on average, at most 256) and n − 1 shuffle draws for n arrivals (n ≤ 255,
//! up to 64 of them shuffled as the bits of one word) — and plays it against each layout in
//! O(1): a drop's idle slots depend on the order, so a round where a partitioned layout drops
//! counts, once, the requests of the other stream ahead of each request (O(n)), and each
//! layout's idle slots are then a closed form (rounds of more than 64 arrivals scan, O(n) a
//! dropping layout). Layouts run together that differ only in their slowdown play the rounds
//! before it once. The lesson's stream is about 11 draws and 5 arrivals a round; its eleven
//! layouts over 4,000 rounds take about 0.7 ms on one 2-core AMD EPYC core
//! (`host/benches/compare-reference.sh`), and the CLI grid of 1,000 runs about 60–80 ms
//! (`host/benches/compare-grids.sh`): half in the stream (dependent chains, and a mispredicted
//! exit per Poisson number), half playing the lanes (about 45 instructions a layout a round).
//!
//! ```
//! use capsim_core::bulkhead::{run, Mode, Params, Split};
//! let m = run(&Params { split: Split::Partitioned(24), mode: Mode::Slowdown, ..Params::default() }).unwrap();
//! assert_eq!((m.tracking_dropped, m.event_dropped), (172, 2011));
//! ```

use core::fmt;

use crate::error::{check_seed, ensure, Accepted, Capacity, Error};
use crate::rng::{ParkMiller, UnitRng};
use crate::Observer;

/// The longest hold time, in rounds (the size of each pool's release calendar).
pub const MAX_HOLD: u32 = 127;
/// The most requests that may arrive in one round.
pub const MAX_ARRIVALS_PER_ROUND: usize = 255;
/// The most slots in all.
pub const MAX_TOTAL_SLOTS: u32 = 65_535;
/// The largest mean arrivals per round of one stream (rate / rounds per second).
pub const MAX_ARRIVALS_PER_ROUND_MEAN: f64 = 64.0;
/// The longest horizon, in rounds.
pub const MAX_HORIZON: u32 = 100_000_000;

/// How the slots are laid out. With the `serde` feature it is written as the CLI writes it:
/// `"shared"`, or the tracking pool's slots as a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Split {
    /// One pool of `total_slots` for both streams.
    Shared,
    /// This many slots for tracking, the rest for events.
    Partitioned(u32),
}

/// Whether the event dependency slows down (with `serde`: `"healthy"` or `"slowdown"`, as
/// the CLI writes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Mode {
    /// Every request holds its slot for its stream's normal time (`saglikli`).
    Healthy,
    /// From `failure_start` on, event requests hold theirs for `slow_hold` (`yavaslama`).
    Slowdown,
}

impl Mode {
    /// Returns the CLI's name for the mode.
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Healthy => "healthy",
            Mode::Slowdown => "slowdown",
        }
    }
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Split::Shared => f.pad("shared"),
            Split::Partitioned(k) => write!(f, "{k}"),
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Split {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Split::Shared => s.serialize_str("shared"),
            Split::Partitioned(k) => s.serialize_u32(*k),
        }
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Split {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, Unexpected, Visitor};
        struct SplitVisitor;
        impl Visitor<'_> for SplitVisitor {
            type Value = Split;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"shared\" or the tracking pool's slots")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Split, E> {
                match v {
                    "shared" => Ok(Split::Shared),
                    _ => Err(E::invalid_value(Unexpected::Str(v), &self)),
                }
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<Split, E> {
                u32::try_from(v)
                    .map(Split::Partitioned)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_any(SplitVisitor)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// One run's parameters; [`Default`] gives the lesson's constants (shared pool, healthy).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Params {
    /// Shared pool, or the tracking pool's size (`bolme`), 1 to `total_slots − 1`.
    pub split: Split,
    /// Healthy or slowdown (`kip`).
    pub mode: Mode,
    /// Seed of the arrival generator, 1 to 2^31 − 2.
    pub seed: u32,
    /// Slots in all (`TOPLAM`), 1 to [`MAX_TOTAL_SLOTS`] (2 or more when partitioned).
    pub total_slots: u32,
    /// Rounds per second (`CEVRIM`), > 0.
    pub rounds_per_second: f64,
    /// Rounds simulated (`T`), 1 to [`MAX_HORIZON`].
    pub horizon: u32,
    /// First round of the slowdown (`BAS`).
    pub failure_start: u32,
    /// Tracking requests per second (`TAKIP`), ≥ 0.
    pub tracking_rate: f64,
    /// Event requests per second (`OLAY`), ≥ 0.
    pub event_rate: f64,
    /// Rounds a tracking request holds its slot, 1 to [`MAX_HOLD`].
    pub tracking_hold: u32,
    /// Rounds an event request holds its slot, 1 to [`MAX_HOLD`].
    pub event_hold: u32,
    /// Rounds an event request holds its slot during the slowdown (`YAVAS`), 1 to
    /// [`MAX_HOLD`].
    pub slow_hold: u32,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            split: Split::Shared,
            mode: Mode::Healthy,
            seed: 20_260_801,
            total_slots: 32,
            rounds_per_second: 100.0,
            horizon: 4000,
            failure_start: 1000,
            tracking_rate: 416.67,
            event_rate: 97.22,
            tracking_hold: 4,
            event_hold: 6,
            slow_hold: 22,
        }
    }
}

/// Fuzzing: mostly valid parameters (see `fuzzing`): pools up to 1024 slots, horizons up to
/// 5000 rounds, rates up to the 64 arrivals per round accepted, every hold from 1 to
/// [`MAX_HOLD`]; any `u32` or double now and then.
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Params {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use crate::fuzzing::{f64_field, u32_field};
        let lesson = Self::default();
        let total_slots = u32_field(u, lesson.total_slots, 1..=1024)?;
        let split = if u.arbitrary()? {
            Split::Shared
        } else {
            Split::Partitioned(u32_field(u, 24, 1..=total_slots.saturating_sub(1).max(1))?)
        };
        let mode = if u.arbitrary()? {
            Mode::Healthy
        } else {
            Mode::Slowdown
        };
        let rounds_per_second = f64_field(u, lesson.rounds_per_second, 1e-3, 1000.0)?;
        let horizon = u32_field(u, lesson.horizon, 1..=5000)?;
        let max_rate = rounds_per_second * MAX_ARRIVALS_PER_ROUND_MEAN;
        let hold = |u: &mut arbitrary::Unstructured<'a>, lesson| u32_field(u, lesson, 1..=MAX_HOLD);
        Ok(Self {
            split,
            mode,
            seed: u32_field(
                u,
                lesson.seed,
                *crate::SEED_RANGE.start()..=*crate::SEED_RANGE.end(),
            )?,
            total_slots,
            rounds_per_second,
            horizon,
            failure_start: u32_field(u, lesson.failure_start, 0..=horizon)?,
            tracking_rate: f64_field(u, lesson.tracking_rate, 0.0, max_rate)?,
            event_rate: f64_field(u, lesson.event_rate, 0.0, max_rate)?,
            tracking_hold: hold(u, lesson.tracking_hold)?,
            event_hold: hold(u, lesson.event_hold)?,
            slow_hold: hold(u, lesson.slow_hold)?,
        })
    }
}

const HOLD_ACCEPTED: Accepted = Accepted::integers(1, MAX_HOLD as u64);

impl Params {
    /// Returns the first parameter outside its accepted range, if any.
    pub fn validate(&self) -> Result<(), Error> {
        check_seed(self.seed)?;
        ensure(
            (1..=MAX_TOTAL_SLOTS).contains(&self.total_slots),
            "total-slots",
            Accepted::integers(1, MAX_TOTAL_SLOTS as u64),
        )?;
        if let Split::Partitioned(k) = self.split {
            // With one slot in all no split is accepted: `max` is 0.
            ensure(
                k >= 1 && k < self.total_slots,
                "split",
                Accepted::Split {
                    max: self.total_slots - 1,
                },
            )?;
        }
        ensure(
            self.rounds_per_second.is_finite() && self.rounds_per_second > 0.0,
            "rounds-per-second",
            Accepted::above(0.0),
        )?;
        ensure(
            (1..=MAX_HORIZON).contains(&self.horizon),
            "horizon",
            Accepted::integers(1, MAX_HORIZON as u64),
        )?;
        let rate_ok =
            |rate: f64| rate >= 0.0 && rate / self.rounds_per_second <= MAX_ARRIVALS_PER_ROUND_MEAN;
        let rate = Accepted::ArrivalRate {
            max_per_round: MAX_ARRIVALS_PER_ROUND_MEAN,
        };
        ensure(rate_ok(self.tracking_rate), "tracking-rate", rate)?;
        ensure(rate_ok(self.event_rate), "event-rate", rate)?;
        let hold_ok = |h: u32| (1..=MAX_HOLD).contains(&h);
        ensure(hold_ok(self.tracking_hold), "tracking-hold", HOLD_ACCEPTED)?;
        ensure(hold_ok(self.event_hold), "event-hold", HOLD_ACCEPTED)?;
        ensure(hold_ok(self.slow_hold), "slow-hold", HOLD_ACCEPTED)
    }
}

/// What one run measured.
///
/// No counter can overflow a `u64`: at most [`MAX_ARRIVALS_PER_ROUND`] requests arrive per
/// round for at most [`MAX_HORIZON`] rounds (2.6e10 served or dropped), a drop adds at most
/// [`MAX_TOTAL_SLOTS`] idle slots (1.7e15) and a round at most that many busy ones (6.6e12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Metrics {
    /// Tracking requests that got a slot (`takipYanit`).
    pub tracking_served: u64,
    /// Tracking requests dropped (`takipDusen`).
    pub tracking_dropped: u64,
    /// Event requests that got a slot (`olayYanit`).
    pub event_served: u64,
    /// Event requests dropped (`olayDusen`).
    pub event_dropped: u64,
    /// Free slots of the other pool, summed over every drop (`atil`).
    pub idle_slots: u64,
    /// Busy slots summed over rounds (`doluTur`).
    pub busy_slot_rounds: u64,
}

/// One round of a run, as [`crate::Observer::bulkhead_round`] sees it.
///
/// Summed over a run, `busy` is `busy_slot_rounds` and each served and dropped count the
/// run's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RoundState {
    /// The round, from 0.
    pub round: u32,
    /// Busy slots at the start of the round, once ended holds are freed (before arrivals).
    pub busy: u32,
    /// Busy slots of the shared or tracking pool at that moment.
    pub first_busy: u32,
    /// Busy slots of the event pool at that moment (0 for a shared pool).
    pub second_busy: u32,
    /// Tracking requests that got a slot this round.
    pub tracking_served: u32,
    /// Tracking requests dropped this round.
    pub tracking_dropped: u32,
    /// Event requests that got a slot this round.
    pub event_served: u32,
    /// Event requests dropped this round.
    pub event_dropped: u32,
}

/// Release calendar length: one more than the longest hold, rounded up to a power of two.
const CALENDAR: usize = 128;

// A calendar bucket counts at most one pool's slots (see `Pool::releases`).
const _: () = assert!(MAX_TOTAL_SLOTS <= u16::MAX as u32);

/// One pool: its size, its busy slots, and how many slots free up in each coming round.
struct Pool {
    size: u32,
    /// At most `size`: a slot is taken only while one is free, and each is freed once.
    busy: u32,
    /// `releases[r % CALENDAR]`: slots whose hold ends at round `r`. With different hold
    /// times they were taken in different rounds (a byte once wrapped here), but all of them
    /// are busy together until round `r`, so there are at most `size` ≤ [`MAX_TOTAL_SLOTS`]
    /// = 65,535 of them: 16 bits hold any bucket.
    releases: [u16; CALENDAR],
}

impl Pool {
    const fn new(size: u32) -> Self {
        Self {
            size,
            busy: 0,
            releases: [0; CALENDAR],
        }
    }

    /// Empties the pool and gives it `size` slots.
    fn reset(&mut self, size: u32) {
        self.size = size;
        self.busy = 0;
        self.releases.fill(0);
    }

    /// Takes `other`'s state (a pool of the same size).
    fn copy(&mut self, other: &Pool) {
        self.busy = other.busy;
        self.releases = other.releases;
    }

    /// Frees the slots whose hold ends at `round` (each counted in `busy`: no underflow).
    fn free_ended(&mut self, round: u32) {
        let bucket = &mut self.releases[round as usize % CALENDAR];
        self.busy -= u32::from(*bucket);
        *bucket = 0;
    }

    fn free(&self) -> u32 {
        self.size - self.busy
    }

    /// Takes `n` free slots until `round + hold` (1 ≤ hold < CALENDAR, so no bucket is
    /// reused early). The caller checked `n ≤ free()`: `busy` stays ≤ `size`, and so does
    /// every bucket (≤ 65,535: the cast keeps it).
    fn take(&mut self, round: u32, hold: u32, n: u32) {
        self.busy += n;
        // round < MAX_HORIZON and hold ≤ MAX_HOLD: the sum cannot wrap.
        let bucket = &mut self.releases[round.wrapping_add(hold) as usize % CALENDAR];
        *bucket = bucket.wrapping_add(n as u16);
    }
}

/// Arrivals kept as bits of one word (the usual round): up to this many.
const WORD: usize = 64;
/// Entries of the tables of requests ahead: indexes up to `WORD + 1`, masked to this power
/// of two so that no index needs a bounds check.
const AHEAD: usize = 2 * WORD;

/// One round's shuffled arrivals as every layout reads them, in O(1) per layout.
///
/// Up to [`WORD`] arrivals are the bits of one word (1 tracking, 0 event, in shuffled
/// order): the tracking requests among the first `k` are a masked popcount. A round where a
/// partitioned layout drops also needs, once, how many requests of the other stream are
/// ahead of each request and their running sums (built on first use, O(n)): then every
/// layout's idle slots are a closed form, O(1). Longer rounds keep one byte an arrival and
/// scan, O(n) per dropping layout.
struct Arrivals {
    /// Arrivals this round, at most [`MAX_ARRIVALS_PER_ROUND`].
    len: usize,
    /// Tracking and event requests this round.
    tracking: u32,
    events: u32,
    /// Up to [`WORD`] arrivals: bit `p` is set when the `p`th arrival is a tracking request.
    bits: u64,
    /// More than [`WORD`] arrivals: 1 (tracking) or 0 (event) an arrival.
    wide: [u8; MAX_ARRIVALS_PER_ROUND],
    /// Whether the four tables below describe this round (built by [`Arrivals::ahead`]).
    ahead_built: bool,
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
    const fn new() -> Self {
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
    fn tracking_in_first(&self, k: usize) -> u32 {
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
    fn ahead(&mut self) {
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
    fn idle_slots(
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
    fn idle_slots_scan(
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
struct Draws {
    /// Congruent to the generator's state modulo 2^31 − 1, below 2^31 + 2^17: the product
    /// stays below 2^47, and its fold below 2^31 + 2^16.
    r: u64,
}

impl Draws {
    const MODULUS: u64 = 2_147_483_647;

    const fn new(seed: u32) -> Self {
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
fn poisson<R: UnitRng>(rng: &mut R, limit: f64) -> Result<usize, Error> {
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

const TOO_MANY_ARRIVALS: Error = Error::CapacityExceeded {
    capacity: Capacity::ArrivalsPerRound,
    limit: MAX_ARRIVALS_PER_ROUND as u32,
};

/// One layout's state during a run: its pools, hold times and metrics.
struct Lane {
    /// The shared pool, or the tracking pool.
    first: Pool,
    /// The event pool, when partitioned.
    second: Option<Pool>,
    tracking_hold: u32,
    event_hold: u32,
    slow_hold: u32,
    /// First round of the slowdown, `u32::MAX` for a healthy run.
    slow_from: u32,
    m: Metrics,
}

impl Lane {
    /// A lane to be set up in place by [`Lane::set`]: building lanes by value and moving
    /// them into place put them on the stack twice (6.6 KB more for the lesson's 11).
    const UNSET: Lane = Lane {
        first: Pool::new(0),
        second: None,
        tracking_hold: 0,
        event_hold: 0,
        slow_hold: 0,
        slow_from: 0,
        m: Metrics {
            tracking_served: 0,
            tracking_dropped: 0,
            event_served: 0,
            event_dropped: 0,
            idle_slots: 0,
            busy_slot_rounds: 0,
        },
    };

    /// Sets this lane up for `p`, in place, whatever a previous run left in it.
    fn set(&mut self, p: &Params) {
        match p.split {
            Split::Shared => {
                self.first.reset(p.total_slots);
                self.second = None;
            }
            Split::Partitioned(k) => {
                self.first.reset(k);
                match self.second.as_mut() {
                    Some(second) => second.reset(p.total_slots - k),
                    None => self.second.insert(Pool::new(0)).reset(p.total_slots - k),
                }
            }
        }
        self.tracking_hold = p.tracking_hold;
        self.event_hold = p.event_hold;
        self.slow_hold = p.slow_hold;
        self.slow_from = match p.mode {
            Mode::Healthy => u32::MAX,
            Mode::Slowdown => p.failure_start,
        };
        self.m = Metrics::default();
    }

    /// Takes `leader`'s pools and metrics: this layout has played the same rounds.
    fn follow(&mut self, leader: &Lane) {
        self.first.copy(&leader.first);
        if let (Some(own), Some(theirs)) = (self.second.as_mut(), leader.second.as_ref()) {
            own.copy(theirs);
        }
        self.m = leader.m;
    }

    /// Plays one round's shuffled arrivals against this layout; with `OBSERVE`, returns the
    /// round's state. Counts only what it serves: the drops are the stream's arrivals less
    /// that, at the end of the run.
    ///
    /// O(1) per round (see [`Arrivals`]): a pool takes arrivals while it has a free slot, so
    /// it serves the first `free` of its own and drops the rest: a shared pool serves the
    /// first `min(free, n)` arrivals, of which `tracking_in_first` are tracking; a
    /// partitioned layout's pools each serve `min(free, own)`, and a drop at position `p`
    /// (the `j`th of its stream) finds the other pool with `free − min(free, p − j)` slots
    /// free (`p − j` of the other's came before).
    #[inline(always)]
    fn round<const OBSERVE: bool>(&mut self, t: u32, arrivals: &mut Arrivals) -> RoundState {
        self.first.free_ended(t);
        if let Some(p) = self.second.as_mut() {
            p.free_ended(t);
        }
        let second_busy = self.second.as_ref().map_or(0, |p| p.busy);
        let busy = self.first.busy + second_busy;
        self.m.busy_slot_rounds += u64::from(busy);
        let event_hold = if t >= self.slow_from {
            self.slow_hold
        } else {
            self.event_hold
        };
        let (tracking, events) = (arrivals.tracking, arrivals.events);
        let (tracking_served, event_served) = match self.second.as_mut() {
            None => {
                let free = self.first.free();
                let (t_served, e_served) = if free as usize >= arrivals.len {
                    (tracking, events)
                } else {
                    let t_served = arrivals.tracking_in_first(free as usize);
                    (t_served, free - t_served)
                };
                self.first.take(t, self.tracking_hold, t_served);
                self.first.take(t, event_hold, e_served);
                (t_served, e_served)
            }
            Some(event_pool) => {
                let tracking_free = self.first.free();
                let event_free = event_pool.free();
                let t_served = tracking_free.min(tracking);
                let e_served = event_free.min(events);
                if t_served < tracking || e_served < events {
                    let idle = arrivals.idle_slots(t_served, e_served, tracking_free, event_free);
                    self.m.idle_slots += idle;
                }
                self.first.take(t, self.tracking_hold, t_served);
                event_pool.take(t, event_hold, e_served);
                (t_served, e_served)
            }
        };
        self.m.tracking_served += u64::from(tracking_served);
        self.m.event_served += u64::from(event_served);
        if !OBSERVE {
            return RoundState::default();
        }
        RoundState {
            round: t,
            busy,
            first_busy: busy - second_busy,
            second_busy,
            tracking_served,
            tracking_dropped: tracking - tracking_served,
            event_served,
            event_dropped: events - event_served,
        }
    }
}

/// Returns the round from which layout `b` may play differently from `a` on the same stream
/// (up to the horizon), if it is not round 0: the same pools and hold times, differing only
/// in when the slowdown starts (`None` if it starts at round 0 in either) or how slow it is.
fn shared_rounds(a: &Params, b: &Params) -> Option<u32> {
    let same_pools = a.split == b.split
        && a.total_slots == b.total_slots
        && a.tracking_hold == b.tracking_hold
        && a.event_hold == b.event_hold;
    let slow_from = |p: &Params| match p.mode {
        Mode::Healthy => u32::MAX,
        Mode::Slowdown => p.failure_start,
    };
    let (from_a, from_b) = (slow_from(a), slow_from(b));
    let same_slowdown = from_a == from_b && (from_a == u32::MAX || a.slow_hold == b.slow_hold);
    let rounds = if same_slowdown {
        b.horizon
    } else {
        from_a.min(from_b).min(b.horizon)
    };
    (same_pools && rounds > 0).then_some(rounds)
}

/// Runs the model with the lesson's generator seeded from `params.seed`.
pub fn run(params: &Params) -> Result<Metrics, Error> {
    run_observed(params, &mut ())
}

/// Runs the model with the lesson's generator seeded from `params.seed`, handing `observer`
/// each round's [`RoundState`] in round order: [`run`] watched.
pub fn run_observed<O: Observer>(params: &Params, observer: &mut O) -> Result<Metrics, Error> {
    run_with(params, &mut Draws::new(params.seed), observer)
}

/// Runs the model drawing arrivals and shuffles from `rng` (`params.seed` is not used),
/// handing `observer` each round's [`RoundState`] in round order. Its one lane (about 600
/// bytes) is on the stack, next to a round's arrivals (about 1 KB, as for any batch).
pub fn run_with<R: UnitRng, O: Observer>(
    params: &Params,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut ws = Workspace::<1>::new();
    let mut out = [Metrics::default()];
    run_batch_with(
        core::slice::from_ref(params),
        rng,
        &mut ws,
        observer,
        &mut out,
    )?;
    Ok(out[0])
}

/// Caller-provided storage for [`run_batch`]: one lane per layout run together, up to `B`.
///
/// A lane is one layout's state, about 600 bytes (two release calendars of [`MAX_HOLD`] + 1
/// 16-bit buckets, its hold times and its metrics): `Workspace::<11>` (6.6 KB) holds the
/// bulkhead lesson's eleven layouts. It is large for a small board's stack, so the caller
/// chooses where it lives and it is never moved: `new` is `const` (a `static` can hold one),
/// and a run sets its lanes up in place, so one workspace serves any number of runs.
pub struct Workspace<const B: usize> {
    lanes: [Lane; B],
}

impl<const B: usize> Workspace<B> {
    /// Returns an empty workspace.
    pub const fn new() -> Self {
        Self {
            lanes: [Lane::UNSET; B],
        }
    }

    /// Returns how many layouts one run can take, `B`.
    pub const fn lanes(&self) -> usize {
        B
    }
}

impl<const B: usize> Default for Workspace<B> {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs up to `B` layouts on one arrival stream, with the lesson's generator, writing each
/// one's metrics to `out`: exactly what separate [`run`]s return.
///
/// The arrivals and their shuffle depend only on the seed, the rates, the rounds per second
/// and the horizon, never on the pools, so runs that share those see the same stream: it is
/// drawn once and played against every layout (split, mode, slots and hold times may differ).
/// Each layout needs its own lane, which is what the workspace's `B` provides. Layouts that
/// differ only in their slowdown (when it starts, how slow) play the rounds before it once.
///
/// ```
/// use capsim_core::bulkhead::{run_batch, Metrics, Mode, Params, Split, Workspace};
/// let split = Params { split: Split::Partitioned(24), mode: Mode::Slowdown, ..Params::default() };
/// let mut ws = Workspace::<2>::new();
/// let mut out = [Metrics::default(); 2];
/// run_batch(&[Params::default(), split], &mut ws, &mut out).unwrap();
/// assert_eq!((out[1].tracking_dropped, out[1].event_dropped), (172, 2011));
/// ```
pub fn run_batch<const B: usize>(
    params: &[Params],
    ws: &mut Workspace<B>,
    out: &mut [Metrics],
) -> Result<(), Error> {
    let Some(first) = params.first() else {
        return Ok(());
    };
    run_batch_with(params, &mut Draws::new(first.seed), ws, &mut (), out)
}

/// [`run_batch`] drawing from `rng` (the seeds are not used), calling `observer` after every
/// round (with one layout, its [`RoundState`] too; several layouts report no state: see
/// [`crate::Observer`]).
pub fn run_batch_with<R: UnitRng, O: Observer, const B: usize>(
    params: &[Params],
    rng: &mut R,
    ws: &mut Workspace<B>,
    observer: &mut O,
    out: &mut [Metrics],
) -> Result<(), Error> {
    let Some(first) = params.first() else {
        return Ok(());
    };
    if params.len() > B || out.len() < params.len() {
        return Err(Error::CapacityExceeded {
            capacity: Capacity::BatchLanes,
            limit: B as u32,
        });
    }
    for p in params {
        p.validate()?;
        let same_stream = [
            ("seed", p.seed == first.seed),
            ("horizon", p.horizon == first.horizon),
            (
                "rounds-per-second",
                p.rounds_per_second == first.rounds_per_second,
            ),
            ("tracking-rate", p.tracking_rate == first.tracking_rate),
            ("event-rate", p.event_rate == first.event_rate),
        ];
        if let Some(&(param, _)) = same_stream.iter().find(|(_, same)| !same) {
            return Err(Error::BatchMismatch { param });
        }
    }
    let tracking_limit = libm::exp(-(first.tracking_rate / first.rounds_per_second));
    let event_limit = libm::exp(-(first.event_rate / first.rounds_per_second));
    let layouts = params.len();
    // Layouts that differ only in their slowdown play the same rounds until it starts in
    // either of them: such a layout follows an earlier one until then and joins with a copy
    // of its state, so those rounds are played once (the lesson grid's healthy and slowdown
    // runs of a split share their first 1,000 rounds). Lane `k` plays `params[order[k]]`:
    // the leaders first, then the followers by the round they join, so the lanes playing
    // a round are always the first `active`.
    let mut follows: [Option<(usize, u32)>; B] = [None; B];
    for i in 0..layouts {
        follows[i] = (0..i)
            .filter(|&j| follows[j].is_none())
            .find_map(|j| shared_rounds(&params[j], &params[i]).map(|d| (j, d)));
    }
    let mut order = [0usize; B];
    let mut lane_of = [0usize; B];
    let mut leader = [0usize; B];
    let mut join = [0u32; B];
    let mut leaders = 0;
    for (i, f) in follows[..layouts].iter().enumerate() {
        if f.is_none() {
            (order[leaders], lane_of[i]) = (i, leaders);
            leaders += 1;
        }
    }
    let mut k = leaders;
    // Followers by the round they join (a stable selection: at most B rounds of B).
    while k < layouts {
        let next = (0..layouts)
            .filter_map(|i| follows[i].map(|(j, d)| (d, i, j)))
            .filter(|&(_, i, _)| !order[leaders..k].contains(&i))
            .min_by_key(|&(d, i, _)| (d, i));
        let Some((d, i, j)) = next else { break };
        (order[k], leader[k], join[k]) = (i, lane_of[j], d);
        k += 1;
    }
    let lanes = &mut ws.lanes[..layouts];
    for (lane, &i) in lanes.iter_mut().zip(&order[..layouts]) {
        lane.set(&params[i]);
    }
    let mut active = leaders;
    // One run observed reports its rounds; batches report none (see `Observer`).
    let observe = O::ROUNDS && params.len() == 1;
    let mut arrivals = Arrivals::new();
    // Every lane sees every arrival: its drops are these less what it served.
    let (mut tracking_total, mut events_total) = (0u64, 0u64);
    for t in 0..first.horizon {
        // The stream bits in arrival order: tracking requests (1) then event requests (0).
        let tracking = poisson(rng, tracking_limit)?;
        let events = poisson(rng, event_limit)?;
        let n = tracking + events;
        if n > MAX_ARRIVALS_PER_ROUND {
            return Err(TOO_MANY_ARRIVALS);
        }
        // floor(r * (i + 1)) for r in [0, 1): truncation is floor for non-negatives.
        // Below 256 either way: a 32-bit conversion (the saturating `usize` one costs more).
        let pick =
            |rng: &mut R, i: usize| ((rng.next_unit() * (i + 1) as f64) as u32 as usize).min(i);
        if n <= WORD {
            // The usual round (5 arrivals in the lesson): the shuffle in one register.
            let mut bits = if tracking == WORD {
                u64::MAX
            } else {
                (1u64 << tracking) - 1
            };
            for i in (1..n).rev() {
                let j = pick(rng, i);
                let differ = ((bits >> i) ^ (bits >> j)) & 1;
                bits ^= (differ << i) | (differ << j);
            }
            arrivals.bits = bits;
        } else {
            let bits = &mut arrivals.wide[..n];
            let (t_bits, e_bits) = bits.split_at_mut(tracking);
            t_bits.fill(1);
            e_bits.fill(0);
            for i in (1..n).rev() {
                bits.swap(i, pick(rng, i));
            }
        }
        arrivals.len = n;
        // n ≤ 255: both fit.
        arrivals.tracking = tracking as u32;
        arrivals.events = events as u32;
        arrivals.ahead_built = false;
        tracking_total += tracking as u64;
        events_total += events as u64;
        while active < layouts && join[active] == t {
            let (playing, waiting) = lanes.split_at_mut(active);
            waiting[0].follow(&playing[leader[active]]);
            active += 1;
        }
        let lanes = &mut lanes[..active];
        if observe {
            // One run: its state, as the observer contract asks.
            for lane in lanes.iter_mut() {
                let state = lane.round::<true>(t, &mut arrivals);
                observer.bulkhead_round(&state);
            }
        } else {
            for lane in lanes.iter_mut() {
                lane.round::<false>(t, &mut arrivals);
            }
        }
        observer.round_done(u64::from(t));
    }
    // Those that join at the horizon play every round as their leader does.
    while active < layouts {
        let (playing, waiting) = lanes.split_at_mut(active);
        waiting[0].follow(&playing[leader[active]]);
        active += 1;
    }
    for (lane, &i) in lanes.iter().zip(&order[..layouts]) {
        out[i] = Metrics {
            tracking_dropped: tracking_total - lane.m.tracking_served,
            event_dropped: events_total - lane.m.event_served,
            ..lane.m
        };
    }
    Ok(())
}

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

    /// The firmware runs 11 layouts at once on small boards (600 bytes each with 16-bit
    /// calendar buckets, 344 with the 8-bit ones that wrapped): keep it so.
    #[test]
    fn a_layout_fits_in_600_bytes() {
        let size = core::mem::size_of::<super::Lane>();
        assert!(size <= 600, "Lane is {size} bytes");
    }
}
