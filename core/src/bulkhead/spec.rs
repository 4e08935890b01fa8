//! The model's parameters, what a run measures, and what an observer sees of a round.

use core::fmt;

use crate::error::{check_seed, ensure, Accepted, Error};

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

pub(crate) const HOLD_ACCEPTED: Accepted = Accepted::integers(1, MAX_HOLD as u64);

impl Params {
    /// Returns the part of the parameters that shapes the arrival stream.
    #[inline(always)]
    pub fn stream(&self) -> Stream {
        Stream {
            seed: self.seed,
            horizon: self.horizon,
            rounds_per_second: self.rounds_per_second,
            tracking_rate: self.tracking_rate,
            event_rate: self.event_rate,
        }
    }

    /// Returns the layout's pools and hold times.
    #[inline(always)]
    pub fn pools(&self) -> Pools {
        Pools {
            split: self.split,
            total_slots: self.total_slots,
            tracking_hold: self.tracking_hold,
            event_hold: self.event_hold,
        }
    }

    /// Returns the layout's slowdown.
    #[inline(always)]
    pub fn slowdown(&self) -> Slowdown {
        let from = match self.mode {
            Mode::Healthy => u32::MAX,
            Mode::Slowdown => self.failure_start,
        };
        Slowdown {
            from,
            hold: if from == u32::MAX { 0 } else { self.slow_hold },
        }
    }

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

/// The parameters that shape the arrival stream: runs with equal streams see the same
/// arrivals and shuffles, so a batch draws them once for all of them. The stream reads the
/// parameters through this part alone.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Stream {
    /// See [`Params::seed`].
    pub seed: u32,
    /// See [`Params::horizon`].
    pub horizon: u32,
    /// See [`Params::rounds_per_second`].
    pub rounds_per_second: f64,
    /// See [`Params::tracking_rate`].
    pub tracking_rate: f64,
    /// See [`Params::event_rate`].
    pub event_rate: f64,
}

impl Stream {
    /// The flags of the stream's fields, in the order [`Stream::first_difference`] checks
    /// them (the host batches grid runs that share these).
    pub const FLAGS: [&'static str; 5] = [
        "seed",
        "horizon",
        "rounds-per-second",
        "tracking-rate",
        "event-rate",
    ];

    /// Returns the flag of the first field in which `other` differs, if any (what
    /// [`Error::BatchMismatch`] names).
    #[inline(always)]
    pub fn first_difference(&self, other: &Stream) -> Option<&'static str> {
        let same = [
            self.seed == other.seed,
            self.horizon == other.horizon,
            self.rounds_per_second == other.rounds_per_second,
            self.tracking_rate == other.tracking_rate,
            self.event_rate == other.event_rate,
        ];
        Stream::FLAGS
            .iter()
            .zip(same)
            .find(|&(_, same)| !same)
            .map(|(&flag, _)| flag)
    }
}

/// A layout's pools and hold times: what a lane plays the stream against, besides its
/// [`Slowdown`]. Layouts with equal pools differing only in their slowdown play the same
/// rounds until it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Pools {
    /// See [`Params::split`].
    pub split: Split,
    /// See [`Params::total_slots`].
    pub total_slots: u32,
    /// See [`Params::tracking_hold`].
    pub tracking_hold: u32,
    /// See [`Params::event_hold`].
    pub event_hold: u32,
}

/// When event requests slow down and how much: from round `from` (`u32::MAX` for a healthy
/// run, which never slows down, and then `hold` is 0) they hold their slot `hold` rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Slowdown {
    /// The first slow round.
    pub from: u32,
    /// Rounds an event request holds its slot from then on.
    pub hold: u32,
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
