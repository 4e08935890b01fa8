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

/// How the slots are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Split {
    /// One pool of `total_slots` for both streams.
    Shared,
    /// This many slots for tracking, the rest for events.
    Partitioned(u32),
}

/// Whether the event dependency slows down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

    /// Frees the slots whose hold ends at `round` (each counted in `busy`: no underflow).
    fn free_ended(&mut self, round: u32) {
        let bucket = &mut self.releases[round as usize % CALENDAR];
        self.busy -= u32::from(*bucket);
        *bucket = 0;
    }

    fn free(&self) -> u32 {
        self.size - self.busy
    }

    /// Takes a free slot until `round + hold` (1 ≤ hold < CALENDAR, so no bucket is reused
    /// early). The caller checked `free() > 0`: `busy` stays ≤ `size`, and so does every bucket.
    fn take(&mut self, round: u32, hold: u32) {
        self.busy += 1;
        // round < MAX_HORIZON and hold ≤ MAX_HOLD: the sum cannot wrap.
        self.releases[round.wrapping_add(hold) as usize % CALENDAR] += 1;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Tracking,
    Event,
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
    /// A lane to be set up in place by [`Lane::set`]: building `B` lanes by value and moving
    /// them into the array put them on the stack twice (6.6 KB more for the lesson's 11).
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

    /// Sets this (unset) lane up for `p`.
    fn set(&mut self, p: &Params) {
        match p.split {
            Split::Shared => self.first.size = p.total_slots,
            Split::Partitioned(k) => {
                self.first.size = k;
                let second = self.second.insert(Pool::new(0));
                second.size = p.total_slots - k;
            }
        }
        self.tracking_hold = p.tracking_hold;
        self.event_hold = p.event_hold;
        self.slow_hold = p.slow_hold;
        self.slow_from = match p.mode {
            Mode::Healthy => u32::MAX,
            Mode::Slowdown => p.failure_start,
        };
    }

    /// Plays one round's shuffled arrivals against this layout.
    fn round(&mut self, t: u32, arrivals: &[Stream]) {
        self.first.free_ended(t);
        if let Some(p) = self.second.as_mut() {
            p.free_ended(t);
        }
        let busy = self.first.busy + self.second.as_ref().map_or(0, |p| p.busy);
        self.m.busy_slot_rounds += u64::from(busy);
        let event_hold = if t >= self.slow_from {
            self.slow_hold
        } else {
            self.event_hold
        };
        for &stream in arrivals {
            let hold = match stream {
                Stream::Tracking => self.tracking_hold,
                Stream::Event => event_hold,
            };
            let (pool, other) = match (stream, self.second.as_mut()) {
                (Stream::Event, Some(events)) => (events, Some(&self.first)),
                (_, second) => (&mut self.first, second.map(|p| &*p)),
            };
            if pool.free() > 0 {
                pool.take(t, hold);
                match stream {
                    Stream::Tracking => self.m.tracking_served += 1,
                    Stream::Event => self.m.event_served += 1,
                }
            } else {
                match stream {
                    Stream::Tracking => self.m.tracking_dropped += 1,
                    Stream::Event => self.m.event_dropped += 1,
                }
                if let Some(o) = other {
                    self.m.idle_slots += u64::from(o.free());
                }
            }
        }
    }
}

/// Runs the model with the lesson's generator seeded from `params.seed`.
pub fn run(params: &Params) -> Result<Metrics, Error> {
    run_with(params, &mut ParkMiller::new(params.seed), &mut ())
}

/// Runs the model drawing arrivals and shuffles from `rng` (`params.seed` is not used),
/// calling `observer` after every round.
pub fn run_with<R: UnitRng, O: Observer>(
    params: &Params,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let [m] = run_many_with(core::array::from_ref(params), rng, observer)?;
    Ok(m)
}

/// Runs several layouts on one arrival stream, with the lesson's generator: returns exactly
/// what `B` separate [`run`]s return.
///
/// The arrivals and their shuffle depend only on the seed, the rates, the rounds per second
/// and the horizon, never on the pools, so runs that share those see the same stream: it is
/// drawn once and played against every layout (split, mode, slots and hold times may differ).
/// Each layout takes about 600 bytes of stack.
pub fn run_many<const B: usize>(params: &[Params; B]) -> Result<[Metrics; B], Error> {
    let seed = params.first().map_or(1, |p| p.seed);
    run_many_with(params, &mut ParkMiller::new(seed), &mut ())
}

/// [`run_many`] drawing from `rng`, calling `observer` after every round.
pub fn run_many_with<R: UnitRng, O: Observer, const B: usize>(
    params: &[Params; B],
    rng: &mut R,
    observer: &mut O,
) -> Result<[Metrics; B], Error> {
    let Some(first) = params.first() else {
        return Ok([Metrics::default(); B]);
    };
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
    let mut lanes: [Lane; B] = [Lane::UNSET; B];
    for (lane, p) in lanes.iter_mut().zip(params) {
        lane.set(p);
    }
    let mut arrivals: heapless::Vec<Stream, MAX_ARRIVALS_PER_ROUND> = heapless::Vec::new();
    for t in 0..first.horizon {
        arrivals.clear();
        for _ in 0..poisson(rng, tracking_limit)? {
            arrivals
                .push(Stream::Tracking)
                .map_err(|_| TOO_MANY_ARRIVALS)?;
        }
        for _ in 0..poisson(rng, event_limit)? {
            arrivals
                .push(Stream::Event)
                .map_err(|_| TOO_MANY_ARRIVALS)?;
        }
        for i in (1..arrivals.len()).rev() {
            // floor(r * (i + 1)) for r in [0, 1): truncation is floor for non-negatives.
            let j = (rng.next_unit() * (i + 1) as f64) as usize;
            arrivals.swap(i, j.min(i));
        }
        for lane in lanes.iter_mut() {
            lane.round(t, &arrivals);
        }
        observer.round_done(u64::from(t));
    }
    Ok(core::array::from_fn(|i| lanes[i].m))
}

#[cfg(test)]
mod tests {
    /// The firmware runs 11 layouts at once on small boards (600 bytes each with 16-bit
    /// calendar buckets, 344 with the 8-bit ones that wrapped): keep it so.
    #[test]
    fn a_layout_fits_in_600_bytes() {
        let size = core::mem::size_of::<super::Lane>();
        assert!(size <= 600, "Lane is {size} bytes");
    }
}
