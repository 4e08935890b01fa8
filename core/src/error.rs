//! The one error type: bad parameters, and fixed capacities reached during a run.
//!
//! Structured so that a program can match it (which capacity, which numeric bounds) and a
//! person can read it: `Display` writes one line naming the CLI flag.

use core::fmt;

use crate::jsfmt::Num;

/// Returned instead of panicking: by `Params::validate` for bad parameters, and by a run that
/// reaches one of the documented fixed capacities.
///
/// `param` names the parameter as the CLI flag spells it (without the leading `--`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// A parameter is outside the values the model accepts; `accepted` says which are.
    OutOfRange {
        /// The parameter, spelled as its CLI flag.
        param: &'static str,
        /// The values accepted, with their bounds.
        accepted: Accepted,
    },
    /// A run needed more room than a fixed capacity provides.
    CapacityExceeded {
        /// What filled up.
        capacity: Capacity,
        /// The capacity that was reached.
        limit: u32,
    },
    /// Runs batched on one random stream differ in a parameter that defines the stream.
    BatchMismatch {
        /// The parameter, spelled as its CLI flag.
        param: &'static str,
    },
    /// The consumers workload is not in arrival order within one shipment, so it cannot be
    /// streamed (only possible with extreme queue gaps; the run stops rather than reorder).
    WorkloadOrder {
        /// The shipment whose events came out of order.
        shipment: u32,
    },
}

/// The fixed capacities a run can exceed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Capacity {
    /// Instances in an auto-scaling group (its storage's capacity: `autoscale::MAX_GROUP_SIZE`
    /// on a board, `autoscale::GroupStorage`'s `N`).
    GroupSize,
    /// Instances in an auto-scaling group together with the launches an apply delay still
    /// holds in flight (the same storage: every launch in flight needs a record when it joins).
    GroupWithInFlight,
    /// Requests arriving in one bulkhead round (`bulkhead::MAX_ARRIVALS_PER_ROUND`).
    ArrivalsPerRound,
    /// Consumers shipments whose events interleave at once (the workspace's `F`).
    ShipmentsInFlight,
    /// Shipments a consumers workspace holds (its `N`).
    WorkspaceShipments,
    /// Events of the lesson's queue a consumers run with a buffer or keyed routing keeps in
    /// arrival order (the sort's room: 4 bytes an event).
    QueuedEvents,
    /// Configurations one batch can run: a consumers workspace's lanes (`R`), a bulkhead
    /// workspace's (`B`).
    BatchLanes,
    /// Samples a formula's metric history keeps (`formula::History`'s `N`).
    SampleHistory,
}

impl Capacity {
    /// Returns what filled up, in words.
    pub const fn name(self) -> &'static str {
        match self {
            Capacity::GroupSize => "group size",
            Capacity::GroupWithInFlight => "group size with the launches in flight",
            Capacity::ArrivalsPerRound => "arrivals per round",
            Capacity::ShipmentsInFlight => "shipments in flight",
            Capacity::WorkspaceShipments => "workspace shipments",
            Capacity::SampleHistory => "formula sample history",
            Capacity::QueuedEvents => "queued events (the room lent to sort the queue)",
            Capacity::BatchLanes => "configurations in one batch (workspace lanes)",
        }
    }
}

/// One end of an accepted range of numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Bound {
    /// No limit on this side (but the number must be finite).
    Unbounded,
    /// This value and beyond it (towards the other end) are accepted.
    Closed(f64),
    /// Only values strictly beyond this one are accepted.
    Open(f64),
}

/// The values a parameter accepts, with their numeric bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Accepted {
    /// Integers from `min` to `max`, both included; `max` `None`: up to the type's largest.
    Integers {
        /// The smallest accepted.
        min: u64,
        /// The largest accepted, if less than the type's largest.
        max: Option<u64>,
    },
    /// Finite numbers between two ends.
    Numbers {
        /// The lower end.
        min: Bound,
        /// The upper end.
        max: Bound,
    },
    /// Finite numbers > 0 with `rounds / period <= max_rounds_per_period` (the demand
    /// curve's period: keeps `sin`'s argument in fdlibm's exact reduction range).
    PeriodOf {
        /// The rounds the run simulates.
        rounds: u32,
        /// The most rounds per period.
        max_rounds_per_period: f64,
    },
    /// Numbers ≥ 0 with at most `max_per_round` arrivals per round on average (rate /
    /// rounds-per-second).
    ArrivalRate {
        /// The largest mean arrivals per round.
        max_per_round: f64,
    },
    /// The bulkhead split: `shared`, or a tracking pool of 1 to `max` slots (total − 1),
    /// leaving both pools a slot.
    Split {
        /// The largest tracking pool, `total_slots − 1`.
        max: u32,
    },
    /// Spans of rounds `A..B` (B excluded) with `A < B`, or none.
    RoundSpan,
    /// Values whose sum with parameter `other` is at most `max`.
    SumWith {
        /// The other parameter, spelled as its CLI flag.
        other: &'static str,
        /// The largest sum accepted.
        max: u64,
    },
    /// Step adjustments: 1 to `max` bands `[LOW]..[HIGH]:ADJ`, ascending, not overlapping,
    /// each adjustment non-zero.
    Steps {
        /// The most bands.
        max: u32,
    },
    /// Only the parameter's default: the engine asked (a board's small-memory consumers
    /// engine) plays the lesson's queue only.
    DefaultOnly,
    /// Only the lesson's value: a lesson's unobserved runs take the fast engines alone (a
    /// board's lesson image links no reference engine).
    LessonOnly,
    /// `none` unless parameter `other` is given (an outage needs an arrival process).
    OnlyWith {
        /// The other parameter, spelled as its CLI flag.
        other: &'static str,
    },
    /// Values not above parameter `other`'s (a group's minimum size and its maximum).
    NotAbove {
        /// The other parameter, spelled as its CLI flag.
        other: &'static str,
    },
    /// Times that are whole multiples of `seconds` (a formula's 30-second sample grid).
    MultiplesOfSeconds {
        /// The grid step, in seconds.
        seconds: u32,
    },
    /// The bulkhead's breaker: `none`, or `RATIO:WINDOW[:OPEN_ROUNDS]` with a ratio from 0
    /// to 1, a window of 1 to `max_window` rounds and 1 to `max_open_rounds` rounds open.
    Breaker {
        /// The longest window.
        max_window: u32,
        /// The most rounds open.
        max_open_rounds: u32,
    },
    /// Lifecycle hooks: at most `max` in all (the one-hook flags included), each timeout
    /// within its provider's range, ROLLBACK only under Alibaba.
    Hooks {
        /// The most hooks of a group.
        max: u32,
    },
    /// Timed actions: at most `max`, counts and versions at least 1, the minimum never
    /// above the maximum.
    Timed {
        /// The most actions of a run.
        max: u32,
    },
    /// Only 0 while the group has the spot class (AWS: a warm pool cannot be put on a group
    /// with a mixed instances policy or Spot Instances).
    ZeroWithSpot,
    /// An HPA's window: integers from 0 to `max` seconds, at most 254 syncs of
    /// `--hpa-sync-period` (what the controller's history holds) and Kubernetes' 3,600.
    #[cfg(feature = "hpa")]
    Syncs {
        /// The longest window, in seconds.
        max: u32,
    },
    /// Only above 0 unless the HPA's metric is External (Kubernetes scales to zero on
    /// Object or External metrics only).
    #[cfg(feature = "hpa")]
    ScaleToZero,
    /// An HPA direction's scaling policies: 1 to `max`, each `TYPE:VALUE:PERIOD` with a
    /// value ≥ 1 and a period of 1 to `max_period` seconds.
    #[cfg(feature = "hpa")]
    RatePolicies {
        /// The most policies of a direction.
        max: u32,
        /// The longest period, in seconds.
        max_period: u32,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutOfRange { param, accepted } => {
                write!(f, "--{param}: accepted values are ")?;
                match accepted {
                    Accepted::SumWith { other, max } => {
                        write!(f, "values with {other} + {param} <= {max}")
                    }
                    other => other.fmt(f),
                }
            }
            Error::CapacityExceeded { capacity, limit } => {
                write!(f, "{} exceeds its capacity of {limit}", capacity.name())
            }
            Error::BatchMismatch { param } => {
                write!(f, "--{param}: runs batched on one stream must share it")
            }
            Error::WorkloadOrder { shipment } => write!(
                f,
                "shipment {shipment}: events are not in arrival order (queue gap too large)"
            ),
        }
    }
}

impl fmt::Display for Capacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Writes `x > a`-style words for one end (`lower`: the minimum).
fn write_end(f: &mut fmt::Formatter<'_>, end: Bound, lower: bool) -> fmt::Result {
    match (end, lower) {
        (Bound::Unbounded, _) => Ok(()),
        (Bound::Closed(x), true) => write!(f, ">= {}", Num(x)),
        (Bound::Open(x), true) => write!(f, "> {}", Num(x)),
        (Bound::Closed(x), false) => write!(f, "<= {}", Num(x)),
        (Bound::Open(x), false) => write!(f, "< {}", Num(x)),
    }
}

impl fmt::Display for Accepted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Accepted::Integers {
                min,
                max: Some(max),
            } => {
                write!(f, "integers from {min} to {max}")
            }
            Accepted::Integers { min, max: None } => write!(f, "integers >= {min}"),
            Accepted::Numbers {
                min: Bound::Closed(a),
                max: Bound::Closed(b),
            } => write!(f, "numbers from {} to {}", Num(a), Num(b)),
            Accepted::Numbers { min, max } => {
                f.write_str("finite numbers")?;
                if min != Bound::Unbounded {
                    f.write_str(" ")?;
                    write_end(f, min, true)?;
                }
                if max != Bound::Unbounded {
                    f.write_str(if min == Bound::Unbounded {
                        " "
                    } else {
                        " and "
                    })?;
                    write_end(f, max, false)?;
                }
                Ok(())
            }
            Accepted::PeriodOf {
                max_rounds_per_period,
                ..
            } => write!(
                f,
                "finite numbers > 0 and at least rounds / {}",
                Num(max_rounds_per_period)
            ),
            Accepted::ArrivalRate { max_per_round } => write!(
                f,
                "numbers >= 0 with at most {} arrivals per round (rate / rounds-per-second)",
                Num(max_per_round)
            ),
            Accepted::Split { .. } => {
                f.write_str("shared, or an integer leaving both pools a slot: 1 to total-slots - 1")
            }
            Accepted::RoundSpan => f.write_str("'none' or rounds A..B (B excluded) with A < B"),
            Accepted::SumWith { other, max } => {
                write!(f, "values whose sum with {other} is at most {max}")
            }
            Accepted::MultiplesOfSeconds { seconds } => {
                write!(f, "multiples of {seconds} seconds")
            }
            Accepted::Steps { max } => write!(
                f,
                "1 to {max} bands LOW..HIGH:ADJ joined by '/', ascending and not overlapping, each ADJ non-zero"
            ),
            Accepted::NotAbove { other } => write!(f, "integers not above --{other}"),
            Accepted::DefaultOnly => {
                f.write_str("only the default on this engine (it plays the lesson's queue)")
            }
            Accepted::LessonOnly => {
                f.write_str("only the lesson's in a lesson (its runs take the fast engines alone)")
            }
            Accepted::OnlyWith { other } => write!(f, "'none' unless --{other} is given"),
            Accepted::Breaker {
                max_window,
                max_open_rounds,
            } => write!(
                f,
                "'none' or RATIO:WINDOW[:OPEN_ROUNDS] with RATIO above 0 and up to 1, WINDOW from 1 to {max_window} and OPEN_ROUNDS from 1 to {max_open_rounds}"
            ),
            Accepted::Hooks { max } => write!(
                f,
                "at most {max} hooks in all, each with a timeout of 1 to 360 rounds (alibaba) or 1 to 120 (aws), rollback under alibaba only"
            ),
            Accepted::Timed { max } => write!(
                f,
                "at most {max} actions, each count and template version at least 1, min_instances never above max_instances"
            ),
            #[cfg(feature = "hpa")]
            Accepted::Syncs { max } => write!(
                f,
                "integers from 0 to {max} (at most 3600 seconds and 254 syncs of --hpa-sync-period)"
            ),
            #[cfg(feature = "hpa")]
            Accepted::ScaleToZero => f.write_str(
                "integers >= 1 under --policy hpa unless --hpa-target is external:... (Kubernetes scales to zero on External metrics only)",
            ),
            #[cfg(feature = "hpa")]
            Accepted::RatePolicies { max, max_period } => write!(
                f,
                "1 to {max} policies Pods:VALUE:PERIOD or Percent:VALUE:PERIOD joined by '/', each VALUE >= 1 and PERIOD from 1 to {max_period} seconds"
            ),
            Accepted::ZeroWithSpot => write!(
                f,
                "only 0 with the spot class (AWS: no warm pool in a group with Spot Instances)"
            ),
        }
    }
}

impl core::error::Error for Error {}

impl Accepted {
    /// Integers from `min` to `max`.
    pub(crate) const fn integers(min: u64, max: u64) -> Self {
        Accepted::Integers {
            min,
            max: Some(max),
        }
    }

    /// Integers from `min` up.
    pub(crate) const fn at_least(min: u64) -> Self {
        Accepted::Integers { min, max: None }
    }

    /// Finite numbers > `min`.
    pub(crate) const fn above(min: f64) -> Self {
        Accepted::Numbers {
            min: Bound::Open(min),
            max: Bound::Unbounded,
        }
    }

    /// Any finite number.
    pub(crate) const FINITE: Self = Accepted::Numbers {
        min: Bound::Unbounded,
        max: Bound::Unbounded,
    };

    /// Numbers from `min` to `max`, both included.
    pub(crate) const fn between(min: f64, max: f64) -> Self {
        Accepted::Numbers {
            min: Bound::Closed(min),
            max: Bound::Closed(max),
        }
    }
}

/// Returns `Ok(())` when `ok`, else the out-of-range error for `param`.
pub(crate) fn ensure(ok: bool, param: &'static str, accepted: Accepted) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(Error::OutOfRange { param, accepted })
    }
}

/// A parameter's value type, with the [`Accepted`] a range of it is written as.
pub(crate) trait Ranged: PartialOrd + Copy {
    /// The values from `min` to `max`, both included.
    fn accepted(min: Self, max: Self) -> Accepted;
}

impl Ranged for u32 {
    fn accepted(min: u32, max: u32) -> Accepted {
        Accepted::integers(min.into(), max.into())
    }
}

impl Ranged for f64 {
    fn accepted(min: f64, max: f64) -> Accepted {
        Accepted::between(min, max)
    }
}

/// Checks that `value` is from `min` to `max`, both included (else the range's [`Accepted`]
/// for `param`; a NaN is outside every range).
#[inline(always)]
pub(crate) fn ensure_within<T: Ranged>(
    value: T,
    min: T,
    max: T,
    param: &'static str,
) -> Result<(), Error> {
    ensure((min..=max).contains(&value), param, T::accepted(min, max))
}

/// Checks that `value` is a finite number above 0 (else [`Accepted::above`] 0 for `param`).
#[inline(always)]
pub(crate) fn ensure_positive(value: f64, param: &'static str) -> Result<(), Error> {
    ensure(
        value.is_finite() && value > 0.0,
        param,
        Accepted::above(0.0),
    )
}

/// Checks a batch for a workspace of `lanes` lanes writing `out_len` results, and returns
/// its first configuration (`None` for an empty batch): at most `lanes` configurations and
/// room for each result ([`Capacity::BatchLanes`]), each one `validate`d, all sharing the
/// first's random stream (`difference(first, p)`: the flag of the first parameter defining
/// it in which `p` differs, which [`Error::BatchMismatch`] names). Cold: once a batch, kept
/// out of the runs' code.
#[inline(never)]
pub(crate) fn check_batch<P>(
    params: &[P],
    lanes: usize,
    out_len: usize,
    validate: impl Fn(&P) -> Result<(), Error>,
    difference: impl Fn(&P, &P) -> Option<&'static str>,
) -> Result<Option<&P>, Error> {
    let Some(first) = params.first() else {
        return Ok(None);
    };
    if params.len() > lanes || out_len < params.len() {
        return Err(Error::CapacityExceeded {
            capacity: Capacity::BatchLanes,
            limit: lanes as u32,
        });
    }
    for p in params {
        validate(p)?;
        if let Some(param) = difference(first, p) {
            return Err(Error::BatchMismatch { param });
        }
    }
    Ok(Some(first))
}

/// The seed range every model accepts (the bulkhead generator is degenerate outside it).
pub const SEED_RANGE: core::ops::RangeInclusive<u32> = 1..=2_147_483_646;

/// Checks a seed against [`SEED_RANGE`].
pub(crate) fn check_seed(seed: u32) -> Result<(), Error> {
    ensure_within(seed, *SEED_RANGE.start(), *SEED_RANGE.end(), "seed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::fmt::Write;

    fn text(e: Error) -> heapless::String<160> {
        let mut s = heapless::String::new();
        write!(s, "{e}").unwrap();
        s
    }

    #[test]
    fn each_error_reads_as_one_line_naming_the_flag() {
        let out = |param, accepted| Error::OutOfRange { param, accepted };
        let cases: [(Error, &str); 9] = [
            (
                out("seed", Accepted::integers(1, 2_147_483_646)),
                "--seed: accepted values are integers from 1 to 2147483646",
            ),
            (
                out("slots", Accepted::at_least(1)),
                "--slots: accepted values are integers >= 1",
            ),
            (
                out("capacity", Accepted::above(0.0)),
                "--capacity: accepted values are finite numbers > 0",
            ),
            (
                out("surge", Accepted::FINITE),
                "--surge: accepted values are finite numbers",
            ),
            (
                out("queue-gap", Accepted::between(0.0, 1e9)),
                "--queue-gap: accepted values are numbers from 0 to 1000000000",
            ),
            (
                out("split", Accepted::Split { max: 31 }),
                "--split: accepted values are shared, or an integer leaving both pools a slot: \
                 1 to total-slots - 1",
            ),
            (
                out(
                    "event-rounds-spread",
                    Accepted::SumWith {
                        other: "event-rounds-min",
                        max: 4_294_967_295,
                    },
                ),
                "--event-rounds-spread: accepted values are values with event-rounds-min + \
                 event-rounds-spread <= 4294967295",
            ),
            (
                Error::CapacityExceeded {
                    capacity: Capacity::GroupSize,
                    limit: 256,
                },
                "group size exceeds its capacity of 256",
            ),
            (
                out(
                    "x",
                    Accepted::Numbers {
                        min: Bound::Open(0.0),
                        max: Bound::Open(1.5),
                    },
                ),
                "--x: accepted values are finite numbers > 0 and < 1.5",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(text(e).as_str(), want);
        }
    }
}
