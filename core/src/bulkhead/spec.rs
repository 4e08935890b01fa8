//! The model's parameters, what a run measures, and what an observer sees of a round.

use core::fmt;

use crate::error::{check_seed, ensure, ensure_positive, ensure_within, Accepted, Error};

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

/// The longest breaker window, in rounds (`--breaker RATIO:WINDOW`): 100 s at the lesson's
/// 100 rounds a second, resilience4j's default time-based window (100 s) and more than
/// Polly's default sampling duration (30 s).
pub const MAX_WINDOW: u32 = 10_000;

/// Rounds an open breaker waits before it lets a probe through, when `--breaker` names none:
/// Polly's default break duration (5 s) at the lesson's 100 rounds a second.
pub const DEFAULT_OPEN_ROUNDS: u32 = 500;

/// The most retries of one event request (`--retries`): Polly's and resilience4j's default
/// is 3 (resilience4j counts the first call among its 3 attempts).
pub const MAX_RETRIES: u32 = 10;

/// The longest wait before a retry, in rounds (`--retry-backoff`): 5 s at the lesson's 100
/// rounds a second (Polly's default delay is 2 s, resilience4j's wait 0.5 s).
pub const MAX_RETRY_BACKOFF: u32 = 500;

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
/// With `serde`, every field at the top level, the resilience options' too (as the CLI's
/// rows write them).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(from = "wire::Params", into = "wire::Params"))]
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
    /// The options the lesson does not have: a slowdown that ends, a breaker and retries;
    /// [`Resilience::default`] (the lesson) has none, and a run with any of them plays on the
    /// reference engine.
    pub resilience: Resilience,
}

/// A circuit breaker on the event requests' calls to the dependency (`--breaker
/// RATIO:WINDOW[:OPEN_ROUNDS]`), as resilience4j's time-based sliding window and Polly's
/// circuit breaker describe theirs.
///
/// Closed, it records the outcome of each call when the call ends (a call to the broken
/// dependency fails when its slow hold ends: it is known to be slow only then, as
/// resilience4j records a slow call on completion) and opens, at the start of a round, when
/// the calls that ended in the last `window` rounds (this one included) are at least one and
/// their failed share is at least `ratio` (resilience4j's `failureRateThreshold`, "equal or
/// greater"; a minimum of one call, resilience4j's smallest `minimumNumberOfCalls`). Open, it
/// rejects every call for `open_rounds` rounds (`waitDurationInOpenState`, Polly's
/// `BreakDuration`), then half-open lets one call through as a probe (Polly's one trial
/// call; resilience4j's `permittedNumberOfCallsInHalfOpenState` = 1) and rejects the others
/// while it runs: the probe's success closes the breaker with an empty window, its failure
/// opens it again for `open_rounds`. Requests dropped for want of a slot never reach the
/// dependency and are not recorded.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Breaker {
    /// The failed share of the window's calls that opens the breaker, 0 to 1.
    pub ratio: f64,
    /// The window, in rounds: 1 to [`MAX_WINDOW`].
    pub window: u32,
    /// Rounds open before the probe, 1 to [`MAX_HORIZON`].
    pub open_rounds: u32,
}

/// A breaker's state at the start of a round, after that round's ended calls are recorded
/// (what a trace shows: 0 closed, 1 open, 2 half-open).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum BreakerState {
    /// Calls go through and are recorded (also: no breaker).
    #[default]
    Closed,
    /// Calls are rejected.
    Open,
    /// One probe may go through; the others are rejected.
    HalfOpen,
}

impl BreakerState {
    /// Returns the state's name as a trace writes it.
    pub const fn name(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half-open",
        }
    }
}

/// The bulkhead's options beyond the lesson ([`Params::resilience`]): a slowdown that ends, a
/// breaker and retries. [`Default`] is the lesson's (none of them); a run whose options
/// differ from it plays on the reference engine (`reference.rs`, see [`super::plan()`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Resilience {
    /// The round the slowdown ends (excluded), after `failure_start`; `None` (the lesson): it
    /// lasts to the horizon. With `serde`: `"none"` or the round.
    #[cfg_attr(feature = "serde", serde(default, with = "text::round"))]
    pub failure_end: Option<u32>,
    /// A circuit breaker on the event requests' dependency calls; `None` (the lesson): none.
    /// With `serde`: `"none"` or `"RATIO:WINDOW:OPEN_ROUNDS"`.
    #[cfg_attr(feature = "serde", serde(default, with = "text::breaker"))]
    pub breaker: Option<Breaker>,
    /// Retries of an event request whose call is dropped, rejected or fails, 0 (the lesson) to
    /// [`MAX_RETRIES`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub retries: u32,
    /// Rounds waited after a try ends before its retry, 0 to [`MAX_RETRY_BACKOFF`] (0: the
    /// next round; a call ends in the last round of its hold, so a failed call's retry with
    /// 0 comes in the round its slot frees).
    #[cfg_attr(feature = "serde", serde(default))]
    pub retry_backoff: u32,
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
            resilience: Resilience::default(),
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
        let seed = u32_field(
            u,
            lesson.seed,
            *crate::SEED_RANGE.start()..=*crate::SEED_RANGE.end(),
        )?;
        let failure_start = u32_field(u, lesson.failure_start, 0..=horizon)?;
        let tracking_rate = f64_field(u, lesson.tracking_rate, 0.0, max_rate)?;
        let event_rate = f64_field(u, lesson.event_rate, 0.0, max_rate)?;
        let tracking_hold = hold(u, lesson.tracking_hold)?;
        let event_hold = hold(u, lesson.event_hold)?;
        let slow_hold = hold(u, lesson.slow_hold)?;
        // The options after the lesson's fields, each off when the input runs out.
        let failure_end = if u.arbitrary::<bool>()? {
            let start = failure_start.saturating_add(1);
            Some(u32_field(
                u,
                start,
                start..=horizon.saturating_add(1).max(start),
            )?)
        } else {
            None
        };
        let breaker = if u.arbitrary::<bool>()? {
            Some(Breaker {
                ratio: f64_field(u, 0.5, 0.0, 1.0)?,
                window: u32_field(u, 9, 1..=MAX_WINDOW)?,
                open_rounds: u32_field(u, DEFAULT_OPEN_ROUNDS, 1..=horizon.max(1))?,
            })
        } else {
            None
        };
        Ok(Self {
            split,
            mode,
            seed,
            total_slots,
            rounds_per_second,
            horizon,
            failure_start,
            tracking_rate,
            event_rate,
            tracking_hold,
            event_hold,
            slow_hold,
            resilience: Resilience {
                failure_end,
                breaker,
                retries: u32_field(u, 0, 0..=MAX_RETRIES)?,
                retry_backoff: u32_field(u, 0, 0..=MAX_RETRY_BACKOFF)?,
            },
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

    /// Whether the event dependency is broken (slow, and failing) for a call made at round `t`.
    pub fn broken_at(&self, t: u32) -> bool {
        self.mode == Mode::Slowdown
            && t >= self.failure_start
            && self.resilience.failure_end.is_none_or(|end| t < end)
    }

    /// Returns the first parameter outside its accepted range, if any.
    pub fn validate(&self) -> Result<(), Error> {
        check_seed(self.seed)?;
        ensure_within(self.total_slots, 1, MAX_TOTAL_SLOTS, "total-slots")?;
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
        ensure_positive(self.rounds_per_second, "rounds-per-second")?;
        ensure_within(self.horizon, 1, MAX_HORIZON, "horizon")?;
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
        ensure(hold_ok(self.slow_hold), "slow-hold", HOLD_ACCEPTED)?;
        let r = &self.resilience;
        if let Some(end) = r.failure_end {
            ensure(
                end > self.failure_start,
                "failure-end",
                Accepted::Integers {
                    min: u64::from(self.failure_start) + 1,
                    max: Some(u64::from(u32::MAX)),
                },
            )?;
        }
        if let Some(b) = r.breaker {
            // A ratio of 0 would open with no failure at all: refused, as resilience4j
            // refuses a failure-rate threshold of 0 (a tiny ratio opens on the first one).
            let ok = b.ratio > 0.0
                && b.ratio <= 1.0
                && (1..=MAX_WINDOW).contains(&b.window)
                && (1..=MAX_HORIZON).contains(&b.open_rounds);
            ensure(
                ok,
                "breaker",
                Accepted::Breaker {
                    max_window: MAX_WINDOW,
                    max_open_rounds: MAX_HORIZON,
                },
            )?;
        }
        ensure(
            r.retries <= MAX_RETRIES,
            "retries",
            Accepted::integers(0, u64::from(MAX_RETRIES)),
        )?;
        ensure(
            r.retry_backoff <= MAX_RETRY_BACKOFF,
            "retry-backoff",
            Accepted::integers(0, u64::from(MAX_RETRY_BACKOFF)),
        )
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
/// run, which never slows down, and then `hold` is 0) they hold their slot `hold` rounds, to
/// the horizon (the fast engine's slowdown: an ended one is [`Resilience`]'s).
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
    /// The first round the breaker opened; `None` without a breaker or if it never opened
    /// (with `serde`: `"none"`).
    #[cfg_attr(feature = "serde", serde(with = "text::round"))]
    pub breaker_opened_round: Option<u32>,
    /// Event calls that reached the dependency (took a slot), retries included: without
    /// retries, `event_served`.
    pub dependency_calls: u64,
    /// Slot-rounds taken by calls to the broken dependency: each call made during the
    /// slowdown holds its slot `slow_hold` rounds (counted whole, also past the horizon).
    pub broken_slot_rounds: u64,
}

/// One round of a run, as [`crate::Observer::round`] sees it.
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
    /// The breaker's state at the start of the round (closed without a breaker).
    pub breaker: BreakerState,
    /// Retries waiting for a later round at the end of this one.
    pub retries_waiting: u32,
    /// Event calls that reached the dependency this round, retries included.
    pub dependency_calls: u32,
    /// Event requests (new or retried) that the breaker rejected this round.
    pub rejected: u32,
}

/// A round reports its state only.
impl crate::Round for RoundState {
    type Note<'a> = core::convert::Infallible;
}

/// [`Params`] as serde sees it: the resilience options beside the others (`serde(flatten)`
/// would need `alloc`).
#[cfg(feature = "serde")]
mod wire {
    use super::{text, Breaker, Mode, Resilience, Split};

    #[derive(serde::Serialize, serde::Deserialize)]
    pub(super) struct Params {
        split: Split,
        mode: Mode,
        seed: u32,
        total_slots: u32,
        rounds_per_second: f64,
        horizon: u32,
        failure_start: u32,
        tracking_rate: f64,
        event_rate: f64,
        tracking_hold: u32,
        event_hold: u32,
        slow_hold: u32,
        #[serde(default, with = "text::round")]
        failure_end: Option<u32>,
        #[serde(default, with = "text::breaker")]
        breaker: Option<Breaker>,
        #[serde(default)]
        retries: u32,
        #[serde(default)]
        retry_backoff: u32,
    }

    impl From<Params> for super::Params {
        fn from(p: Params) -> Self {
            Self {
                split: p.split,
                mode: p.mode,
                seed: p.seed,
                total_slots: p.total_slots,
                rounds_per_second: p.rounds_per_second,
                horizon: p.horizon,
                failure_start: p.failure_start,
                tracking_rate: p.tracking_rate,
                event_rate: p.event_rate,
                tracking_hold: p.tracking_hold,
                event_hold: p.event_hold,
                slow_hold: p.slow_hold,
                resilience: Resilience {
                    failure_end: p.failure_end,
                    breaker: p.breaker,
                    retries: p.retries,
                    retry_backoff: p.retry_backoff,
                },
            }
        }
    }

    impl From<super::Params> for Params {
        fn from(p: super::Params) -> Self {
            let super::Params {
                split,
                mode,
                seed,
                total_slots,
                rounds_per_second,
                horizon,
                failure_start,
                tracking_rate,
                event_rate,
                tracking_hold,
                event_hold,
                slow_hold,
                resilience:
                    Resilience {
                        failure_end,
                        breaker,
                        retries,
                        retry_backoff,
                    },
            } = p;
            Self {
                split,
                mode,
                seed,
                total_slots,
                rounds_per_second,
                horizon,
                failure_start,
                tracking_rate,
                event_rate,
                tracking_hold,
                event_hold,
                slow_hold,
                failure_end,
                breaker,
                retries,
                retry_backoff,
            }
        }
    }
}

/// `serde` as the CLI writes these fields: `"none"` or the value as its flag takes it.
#[cfg(feature = "serde")]
mod text {
    use core::fmt;
    use serde::de::{Error, Unexpected, Visitor};

    /// `Option<u32>`: `"none"` or the number.
    pub(super) mod round {
        use super::*;

        pub(crate) fn serialize<S: serde::Serializer>(
            v: &Option<u32>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match v {
                None => s.serialize_str("none"),
                Some(r) => s.serialize_u32(*r),
            }
        }

        pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> Result<Option<u32>, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = Option<u32>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("\"none\" or a round")
                }
                fn visit_str<E: Error>(self, v: &str) -> Result<Option<u32>, E> {
                    match v {
                        "none" => Ok(None),
                        _ => Err(E::invalid_value(Unexpected::Str(v), &self)),
                    }
                }
                fn visit_u64<E: Error>(self, v: u64) -> Result<Option<u32>, E> {
                    u32::try_from(v)
                        .map(Some)
                        .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
                }
            }
            d.deserialize_any(V)
        }
    }

    /// `Option<Breaker>`: `"none"` or `"RATIO:WINDOW:OPEN_ROUNDS"`.
    pub(super) mod breaker {
        use super::super::Breaker;
        use super::*;

        pub(crate) fn serialize<S: serde::Serializer>(
            v: &Option<Breaker>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match v {
                None => s.serialize_str("none"),
                Some(b) => s.collect_str(b),
            }
        }

        pub(crate) fn deserialize<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Breaker>, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = Option<Breaker>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("\"none\" or \"RATIO:WINDOW:OPEN_ROUNDS\"")
                }
                fn visit_str<E: Error>(self, v: &str) -> Result<Option<Breaker>, E> {
                    if v == "none" {
                        return Ok(None);
                    }
                    Breaker::parse(v)
                        .ok_or_else(|| E::invalid_value(Unexpected::Str(v), &self))
                        .map(Some)
                }
            }
            d.deserialize_str(V)
        }
    }
}

impl Breaker {
    /// Parses `RATIO:WINDOW[:OPEN_ROUNDS]` (no range checks: [`Params::validate`] makes
    /// them); `OPEN_ROUNDS` defaults to [`DEFAULT_OPEN_ROUNDS`].
    pub fn parse(s: &str) -> Option<Breaker> {
        let mut parts = s.split(':');
        let ratio: f64 = parts.next()?.trim().parse().ok()?;
        let window: u32 = parts.next()?.trim().parse().ok()?;
        let open_rounds = match parts.next() {
            None => DEFAULT_OPEN_ROUNDS,
            Some(o) => o.trim().parse().ok()?,
        };
        if parts.next().is_some() || !ratio.is_finite() {
            return None;
        }
        Some(Breaker {
            ratio,
            window,
            open_rounds,
        })
    }
}

impl fmt::Display for Breaker {
    /// `RATIO:WINDOW:OPEN_ROUNDS`, the ratio as JavaScript prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}",
            crate::jsfmt::Num(self.ratio),
            self.window,
            self.open_rounds
        )
    }
}
