//! The model's parameters, what a run measures, and what an observer sees of a round.

use crate::error::{check_seed, ensure, ensure_within, Accepted, Error};
use crate::Observer;

/// The most shipments a workload may have (shipment numbers are stored in 16 bits).
pub const MAX_SHIPMENTS: usize = 65_536;

/// The most events per shipment (the store's state keeps the last one applied in 7 bits).
pub const MAX_EVENTS_PER_SHIPMENT: u32 = 126;

/// The most consumers on the queue.
pub const MAX_CONSUMERS: usize = 64;

/// The largest queue gap accepted.
pub const MAX_QUEUE_GAP: f64 = 1e9;

/// The smallest arrival rate accepted, in shipments per round (the last of
/// [`MAX_SHIPMENTS`] shipments then arrives within about 2.4 · 10^12 rounds).
pub const MIN_ARRIVAL_RATE: f64 = 1e-6;

/// The largest arrival rate accepted, in shipments per round: every shipment of the
/// largest workload in one round on average.
pub const MAX_ARRIVAL_RATE: f64 = MAX_SHIPMENTS as f64;

/// How the consumers reach the queued events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Routing {
    /// One queue: a free consumer takes the next event, whatever its shipment (the lesson).
    #[default]
    Shared,
    /// Same key, same partition: shipment `g`'s events go to partition `g mod N`, which
    /// consumer `g mod N` alone takes from, in queue order. A shipment's events are then
    /// applied in queue order, which is step order: no shipment is reordered.
    Keyed,
}

impl Routing {
    /// Returns the routing's name, as the CLI spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Routing::Shared => "shared",
            Routing::Keyed => "keyed",
        }
    }
}

/// Rounds `start..end` (`end` excluded) in which nothing arrives: what would have arrived
/// in them arrives at round `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Outage {
    /// First round without arrivals.
    pub start: u32,
    /// The round the held-back shipments arrive in; > `start`.
    pub end: u32,
}

impl Outage {
    /// Returns the round a shipment due in round `due` arrives in.
    pub const fn delay(&self, due: u64) -> u64 {
        if self.start as u64 <= due && due < self.end as u64 {
            self.end as u64
        } else {
            due
        }
    }
}

/// The consumers' options beyond the lesson ([`Params::flow`]): [`Default`] is the lesson's
/// (none of them), and a run whose flow differs from it plays on the reference engine
/// ([`super::plan()`]). Equality is by bits, as [`Workload`]'s.
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Flow {
    /// Shipments arriving per round on average, [`MIN_ARRIVAL_RATE`] to
    /// [`MAX_ARRIVAL_RATE`]: a Poisson process on a stream of its own (see
    /// [`ArrivalStream`](super::ArrivalStream)) instead of the lesson's queue, filled before
    /// round 0 (`None`, the lesson). Shipment `g` (in shipment order) arrives in round
    /// `floor(T_g)`, `T_g` the sum of `g + 1` exponential gaps of mean `1 / rate`; its events
    /// are the lesson's shipment `g`'s (same steps, same processing times), queued together
    /// in step order, as a carrier delivers a shipment's scans in one transfer.
    #[cfg_attr(feature = "serde", serde(with = "none_or::number"))]
    pub arrival_rate: Option<f64>,
    /// Rounds without arrivals (only with an arrival rate); `None`: none.
    #[cfg_attr(feature = "serde", serde(with = "none_or::span"))]
    pub outage: Option<Outage>,
    /// The most events the queue holds, ≥ 1: an event arriving at a full queue is dropped
    /// (a round's arrivals are admitted in queue order while there is room). `None`: no
    /// bound (the queue can hold every event). The buffer is a count, not storage: any
    /// `u32` costs the same memory.
    #[cfg_attr(feature = "serde", serde(with = "none_or::number"))]
    pub buffer: Option<u32>,
    /// How consumers reach the events: [`Routing::Shared`] (the lesson) or by key.
    pub routing: Routing,
}

impl Flow {
    /// The options' flags, in the order [`Flow::first_difference`] checks them.
    pub const FLAGS: [&'static str; 4] = ["arrival-rate", "outage", "buffer", "routing"];

    /// Returns each option's bits, in the order of [`Flow::FLAGS`] (`None` as all ones,
    /// which no value has: not a rate's bits, not an outage with `start < end`, above every
    /// `u32`).
    fn bits(&self) -> [u64; 4] {
        [
            self.arrival_rate.map_or(u64::MAX, f64::to_bits),
            self.outage
                .map_or(u64::MAX, |o| u64::from(o.start) << 32 | u64::from(o.end)),
            self.buffer.map_or(u64::MAX, u64::from),
            self.routing as u64,
        ]
    }

    /// Returns the flag of the first option in which `other` differs, if any (against
    /// [`Flow::default`]: the first option that is on).
    pub fn first_difference(&self, other: &Flow) -> Option<&'static str> {
        Flow::FLAGS
            .iter()
            .zip(self.bits().iter().zip(other.bits().iter()))
            .find(|(_, (a, b))| a != b)
            .map(|(&flag, _)| flag)
    }
}

impl PartialEq for Flow {
    fn eq(&self, other: &Self) -> bool {
        self.bits() == other.bits()
    }
}

impl Eq for Flow {}

/// One run's parameters; [`Default`] gives the lesson's constants (N = 1, S = 2). With
/// `serde`, every field at the top level, the flow's too (as the CLI's rows write them).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(from = "wire::Params", into = "wire::Params"))]
pub struct Params {
    /// Consumers pulling from the queue (N), 1 to [`MAX_CONSUMERS`].
    pub consumers: u32,
    /// Events the store applies per round at most (S), ≥ 1.
    pub slots: u32,
    /// Shipments in the workload (`GONDERI`), 1 to [`MAX_SHIPMENTS`].
    pub shipments: u32,
    /// Status events per shipment (`ADIM`), 1 to [`MAX_EVENTS_PER_SHIPMENT`].
    pub events_per_shipment: u32,
    /// Queue distance between a shipment's successive events (`ARA`), 0 to [`MAX_QUEUE_GAP`].
    pub queue_gap: f64,
    /// Seed of the workload generator (`TOHUM`), 1 to 2^31 − 2.
    pub seed: u32,
    /// Rounds to process a shipment's last event.
    pub final_event_rounds: u32,
    /// Fewest rounds to process any other event.
    pub event_rounds_min: u32,
    /// Other events take `event_rounds_min + floor(r · spread)` rounds.
    pub event_rounds_spread: u32,
    /// The options the lesson does not have: an arrival process, an outage, a buffer and
    /// keyed routing; [`Flow::default`] (the lesson) has none, and a run with any of them
    /// plays on the reference engine.
    pub flow: Flow,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            consumers: 1,
            slots: 2,
            shipments: 5000,
            events_per_shipment: 7,
            queue_gap: 1.0,
            seed: 20_260_731,
            final_event_rounds: 6,
            event_rounds_min: 1,
            event_rounds_spread: 3,
            flow: Flow::default(),
        }
    }
}

/// [`Params`] as serde sees it: the flow's fields beside the others (`serde(flatten)` would
/// need `alloc`).
#[cfg(feature = "serde")]
mod wire {
    use super::{none_or, Flow, Outage, Routing};

    #[derive(serde::Serialize, serde::Deserialize)]
    pub(super) struct Params {
        consumers: u32,
        slots: u32,
        shipments: u32,
        events_per_shipment: u32,
        queue_gap: f64,
        seed: u32,
        final_event_rounds: u32,
        event_rounds_min: u32,
        event_rounds_spread: u32,
        #[serde(with = "none_or::number")]
        arrival_rate: Option<f64>,
        #[serde(with = "none_or::span")]
        outage: Option<Outage>,
        #[serde(with = "none_or::number")]
        buffer: Option<u32>,
        routing: Routing,
    }

    impl From<Params> for super::Params {
        fn from(p: Params) -> Self {
            Self {
                consumers: p.consumers,
                slots: p.slots,
                shipments: p.shipments,
                events_per_shipment: p.events_per_shipment,
                queue_gap: p.queue_gap,
                seed: p.seed,
                final_event_rounds: p.final_event_rounds,
                event_rounds_min: p.event_rounds_min,
                event_rounds_spread: p.event_rounds_spread,
                flow: Flow {
                    arrival_rate: p.arrival_rate,
                    outage: p.outage,
                    buffer: p.buffer,
                    routing: p.routing,
                },
            }
        }
    }

    impl From<super::Params> for Params {
        fn from(p: super::Params) -> Self {
            let super::Params {
                consumers,
                slots,
                shipments,
                events_per_shipment,
                queue_gap,
                seed,
                final_event_rounds,
                event_rounds_min,
                event_rounds_spread,
                flow:
                    Flow {
                        arrival_rate,
                        outage,
                        buffer,
                        routing,
                    },
            } = p;
            Self {
                consumers,
                slots,
                shipments,
                events_per_shipment,
                queue_gap,
                seed,
                final_event_rounds,
                event_rounds_min,
                event_rounds_spread,
                arrival_rate,
                outage,
                buffer,
                routing,
            }
        }
    }
}

/// Serde forms of the optional parameters as the CLI's rows write them: `"none"` or the
/// number; `[]` or `[A,B]` for an outage.
#[cfg(feature = "serde")]
mod none_or {
    use core::fmt;
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::{SerializeSeq, Serializer};

    /// A number a visitor can make from JSON's numbers.
    pub(super) trait Number: Copy + serde::Serialize {
        fn from_u64(v: u64) -> Option<Self>;
        fn from_f64(v: f64) -> Option<Self>;
    }

    impl Number for u32 {
        fn from_u64(v: u64) -> Option<Self> {
            u32::try_from(v).ok()
        }
        fn from_f64(v: f64) -> Option<Self> {
            let i = v as u32;
            (f64::from(i) == v).then_some(i)
        }
    }

    impl Number for f64 {
        fn from_u64(v: u64) -> Option<Self> {
            Some(v as f64)
        }
        fn from_f64(v: f64) -> Option<Self> {
            Some(v)
        }
    }

    pub(super) mod number {
        use super::*;

        pub(crate) fn serialize<S: Serializer, T: Number>(
            v: &Option<T>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match v {
                None => s.serialize_str("none"),
                Some(x) => x.serialize(s),
            }
        }

        struct V<T>(core::marker::PhantomData<T>);

        impl<T: Number> Visitor<'_> for V<T> {
            type Value = Option<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"none\" or a number")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                if v == "none" {
                    Ok(None)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                T::from_u64(v)
                    .map(Some)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                let u = u64::try_from(v)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))?;
                self.visit_u64(u)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                T::from_f64(v)
                    .map(Some)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Float(v), &self))
            }
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>, T: Number>(
            d: D,
        ) -> Result<Option<T>, D::Error> {
            d.deserialize_any(V(core::marker::PhantomData))
        }
    }

    pub(super) mod span {
        use super::super::Outage;
        use super::*;

        pub(crate) fn serialize<S: Serializer>(
            v: &Option<Outage>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(if v.is_some() { 2 } else { 0 }))?;
            if let Some(o) = v {
                seq.serialize_element(&o.start)?;
                seq.serialize_element(&o.end)?;
            }
            seq.end()
        }

        struct V;

        impl<'de> Visitor<'de> for V {
            type Value = Option<Outage>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("[] or [start, end]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let Some(start) = a.next_element::<u32>()? else {
                    return Ok(None);
                };
                let end = a
                    .next_element::<u32>()?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                if a.next_element::<u32>()?.is_some() {
                    return Err(de::Error::invalid_length(3, &self));
                }
                Ok(Some(Outage { start, end }))
            }
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Outage>, D::Error> {
            d.deserialize_seq(V)
        }
    }
}

/// Fuzzing: mostly valid parameters (see `fuzzing`): up to 2000 shipments, every consumer
/// count and events per shipment, queue gaps up to 10 (0 included; 1 in 8 up to 1e9),
/// processing times up to 20 rounds; any `u32` or double now and then.
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Params {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use crate::fuzzing::{f64_field, u32_field};
        let lesson = Self::default();
        Ok(Self {
            consumers: u32_field(u, lesson.consumers, 1..=MAX_CONSUMERS as u32)?,
            slots: u32_field(u, lesson.slots, 1..=8)?,
            shipments: u32_field(u, lesson.shipments, 1..=2000)?,
            events_per_shipment: u32_field(
                u,
                lesson.events_per_shipment,
                1..=MAX_EVENTS_PER_SHIPMENT,
            )?,
            // 1 in 8 anywhere up to the largest gap (where arrivals lose precision).
            queue_gap: if u.ratio(1u8, 8)? {
                f64_field(u, lesson.queue_gap, 0.0, MAX_QUEUE_GAP)?
            } else {
                f64_field(u, lesson.queue_gap, 0.0, 10.0)?
            },
            seed: u32_field(
                u,
                lesson.seed,
                *crate::SEED_RANGE.start()..=*crate::SEED_RANGE.end(),
            )?,
            final_event_rounds: u32_field(u, lesson.final_event_rounds, 0..=20)?,
            event_rounds_min: u32_field(u, lesson.event_rounds_min, 0..=20)?,
            event_rounds_spread: u32_field(u, lesson.event_rounds_spread, 0..=20)?,
            // Each option on 1 in 4 (an exhausted input leaves them off, the lesson).
            flow: Flow {
                arrival_rate: if u.ratio(3u8, 4)? {
                    None
                } else {
                    Some(f64_field(u, 0.5, MIN_ARRIVAL_RATE, 4.0)?)
                },
                outage: if u.ratio(3u8, 4)? {
                    None
                } else {
                    let start = u32_field(u, 1000, 0..=5000)?;
                    let end = start.saturating_add(u32_field(u, 1200, 0..=3000)?);
                    Some(Outage { start, end })
                },
                buffer: if u.ratio(3u8, 4)? {
                    None
                } else {
                    Some(u32_field(u, 300, 1..=5000)?)
                },
                routing: if u.ratio(3u8, 4)? {
                    Routing::Shared
                } else {
                    Routing::Keyed
                },
            },
        })
    }
}

impl Params {
    /// Returns the first parameter outside its accepted range, if any.
    pub fn validate(&self) -> Result<(), Error> {
        ensure_within(self.consumers, 1, MAX_CONSUMERS as u32, "consumers")?;
        ensure(self.slots >= 1, "slots", Accepted::at_least(1))?;
        ensure_within(self.shipments, 1, MAX_SHIPMENTS as u32, "shipments")?;
        ensure_within(
            self.events_per_shipment,
            1,
            MAX_EVENTS_PER_SHIPMENT,
            "events-per-shipment",
        )?;
        ensure_within(self.queue_gap, 0.0, MAX_QUEUE_GAP, "queue-gap")?;
        check_seed(self.seed)?;
        ensure(
            u64::from(self.event_rounds_min) + u64::from(self.event_rounds_spread)
                <= u64::from(u32::MAX),
            "event-rounds-spread",
            Accepted::SumWith {
                other: "event-rounds-min",
                max: u64::from(u32::MAX),
            },
        )?;
        let flow = &self.flow;
        if let Some(rate) = flow.arrival_rate {
            ensure_within(rate, MIN_ARRIVAL_RATE, MAX_ARRIVAL_RATE, "arrival-rate")?;
        }
        if let Some(outage) = flow.outage {
            ensure(outage.start < outage.end, "outage", Accepted::RoundSpan)?;
            ensure(
                flow.arrival_rate.is_some(),
                "outage",
                Accepted::OnlyWith {
                    other: "arrival-rate",
                },
            )?;
        }
        if let Some(buffer) = flow.buffer {
            ensure(buffer >= 1, "buffer", Accepted::at_least(1))?;
        }
        Ok(())
    }

    /// Returns the number of events in the workload.
    pub fn events(&self) -> u64 {
        u64::from(self.shipments) * u64::from(self.events_per_shipment)
    }

    /// Returns how many draws one shipment takes from its stream: its start, then per event
    /// the arrival jitter and (except for the last event) the processing time.
    /// (A `u64`: twice any `u32`, so asking never overflows, even before validation.)
    pub fn draws_per_shipment(&self) -> u64 {
        2 * u64::from(self.events_per_shipment)
    }

    /// Returns the part of the parameters that shapes the workload (the queue).
    pub fn workload(&self) -> Workload {
        Workload {
            shipments: self.shipments,
            events_per_shipment: self.events_per_shipment,
            queue_gap: self.queue_gap,
            seed: self.seed,
            final_event_rounds: self.final_event_rounds,
            event_rounds_min: self.event_rounds_min,
            event_rounds_spread: self.event_rounds_spread,
            flow: self.flow,
        }
    }

    /// Returns the lane this configuration runs in: see [`LaneKey`].
    pub fn lane_key(&self) -> LaneKey {
        LaneKey::of(self.consumers, self.slots)
    }
}

/// The parameters that shape the workload: configurations with equal workloads consume the
/// same queue, so a batch generates it once for all of them. Equality is by bits (a queue
/// gap of 0 and one of −0 are different workloads, as they are different inputs).
///
/// Every queue engine reads the parameters through this part alone: a parameter outside it
/// cannot change the queue, and a new workload parameter, once added here, is compared by
/// every batch.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Workload {
    /// See [`Params::shipments`].
    pub shipments: u32,
    /// See [`Params::events_per_shipment`].
    pub events_per_shipment: u32,
    /// See [`Params::queue_gap`].
    pub queue_gap: f64,
    /// See [`Params::seed`].
    pub seed: u32,
    /// See [`Params::final_event_rounds`].
    pub final_event_rounds: u32,
    /// See [`Params::event_rounds_min`].
    pub event_rounds_min: u32,
    /// See [`Params::event_rounds_spread`].
    pub event_rounds_spread: u32,
    /// See [`Params::flow`] (its routing is a lane's, but the reference engine's queue is
    /// the partitions).
    pub flow: Flow,
}

impl Workload {
    /// The flags of the workload's fields, in the order [`Workload::first_difference`]
    /// checks them (the host batches grid runs that share these).
    pub const FLAGS: [&'static str; 11] = [
        "shipments",
        "events-per-shipment",
        "queue-gap",
        "seed",
        "final-event-rounds",
        "event-rounds-min",
        "event-rounds-spread",
        "arrival-rate",
        "outage",
        "buffer",
        "routing",
    ];

    /// Returns each field's bits, in the order of [`Workload::FLAGS`] (the flow's as
    /// [`Flow`] gives them).
    fn bits(&self) -> [u64; 11] {
        let flow = self.flow.bits();
        [
            self.shipments.into(),
            self.events_per_shipment.into(),
            self.queue_gap.to_bits(),
            self.seed.into(),
            self.final_event_rounds.into(),
            self.event_rounds_min.into(),
            self.event_rounds_spread.into(),
            flow[0],
            flow[1],
            flow[2],
            flow[3],
        ]
    }

    /// Returns the flag of the first field in which `other` differs, if any (what
    /// [`Error::BatchMismatch`] names).
    pub fn first_difference(&self, other: &Workload) -> Option<&'static str> {
        let (a, b) = (self.bits(), other.bits());
        Workload::FLAGS
            .iter()
            .zip(a.iter().zip(b.iter()))
            .find(|(_, (a, b))| a != b)
            .map(|(&flag, _)| flag)
    }

    /// Returns the number of events in the workload.
    pub fn events(&self) -> u64 {
        u64::from(self.shipments) * u64::from(self.events_per_shipment)
    }
}

impl PartialEq for Workload {
    fn eq(&self, other: &Self) -> bool {
        self.bits() == other.bits()
    }
}

impl Eq for Workload {}

/// The lane a configuration runs in: configurations with equal keys run alike, so a batch
/// plays them once.
///
/// With N ≤ S the store never binds: a round has at most N finished consumers, so at most N
/// want to apply, and the slots left (S at the round's start, one less per event applied)
/// are still ≥ S − N + 1 ≥ 1 when each of them asks. The run with S slots is then the run
/// with N slots, whatever S ≥ N: the key is (N, min(S, N)), and (1, 2) = (1, 4),
/// (2, 2) = (2, 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LaneKey {
    /// Consumers (N).
    pub consumers: u32,
    /// The store slots that can bind, `min(S, N)`.
    pub slots: u32,
}

impl LaneKey {
    /// Returns the key of `consumers` consumers on a store of `slots` slots.
    pub const fn of(consumers: u32, slots: u32) -> Self {
        LaneKey {
            consumers,
            slots: if slots < consumers { slots } else { consumers },
        }
    }

    /// Whether the store never binds (N ≤ S): every finished consumer applies at once.
    pub const fn store_never_binds(&self) -> bool {
        self.consumers <= self.slots
    }
}

/// What one run measured.
///
/// No counter can overflow: shipments are at most [`MAX_SHIPMENTS`], and the rounds at most
/// the events (≤ 65,536 × 126) times the longest processing time plus one (< 2^32): < 2^56.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Metrics {
    /// Rounds until the queue drained (`tur`).
    pub rounds: u64,
    /// Shipments that saw an event applied after a later one (`bozulan`), at most
    /// [`MAX_SHIPMENTS`].
    pub reordered_shipments: u32,
    /// Shipments whose last applied event is not their final one (`yanlisSon`), at most
    /// [`MAX_SHIPMENTS`].
    pub wrong_final_state: u32,
    /// Events per round (`verim`): events applied / rounds.
    pub throughput: f64,
    /// The most events the queue held at once, counted after a round's arrivals are
    /// admitted (the lesson's queue: every event, at round 0); at most the buffer. The
    /// smallest buffer that drops nothing is this run's `max_backlog` without a buffer.
    pub max_backlog: u64,
    /// Events that arrived at a full queue and were dropped (never applied).
    pub dropped_events: u64,
    /// Shipments with at least one dropped event, at most [`MAX_SHIPMENTS`].
    pub dropped_shipments: u32,
}

/// One round of a run, as [`crate::Observer::round`] sees it (every round from 0,
/// those the event-driven engine skips included: nothing applied, the consumers still
/// holding their events).
///
/// Summed over a run, `applied` is the events and `reordered` is `reordered_shipments`; a
/// run has `rounds` of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RoundState {
    /// The round, from 0.
    pub round: u64,
    /// Events applied to the store this round (at most `slots`).
    pub applied: u32,
    /// Shipments first seen reordered this round.
    pub reordered: u32,
    /// Consumers holding an event at the end of the round.
    pub busy_consumers: u32,
    /// Events not yet taken from the queue at the end of the round (arrived and not
    /// dropped, with an arrival process).
    pub queue_left: u64,
    /// Events that arrived this round (the lesson's queue: every event, in round 0).
    pub arrived: u64,
    /// Events that arrived this round at a full queue and were dropped.
    pub dropped: u64,
    /// Events in the queue after this round's arrivals, before consumers take any: what
    /// the buffer must hold this round (`Metrics::max_backlog` is the largest).
    pub backlog: u64,
}

/// A round reports its state only.
impl crate::Round for RoundState {
    type Note<'a> = core::convert::Infallible;
}

/// What a lane had applied and reordered at the end of the last round it reported: what
/// the next [`RoundState`]'s counts are taken from.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Reported {
    applied: u64,
    reordered: u32,
    /// Events taken from the queue (applied or held).
    taken: u64,
}

impl Reported {
    /// Nothing reported yet.
    pub(crate) const NONE: Reported = Reported {
        applied: 0,
        reordered: 0,
        taken: 0,
    };

    /// Returns the state at the end of round `round` of a lane that has applied `applied`
    /// of its `total` events, seen `reordered` shipments reordered and has `busy` consumers
    /// holding an event; starts the next round's counts.
    #[inline(always)]
    pub(crate) fn state(
        &mut self,
        round: u64,
        applied: u64,
        reordered: u32,
        busy: u64,
        total: u64,
    ) -> RoundState {
        let state = RoundState {
            round,
            // At most `slots` per round, and the reordered ones at most the applied ones.
            applied: (applied - self.applied) as u32,
            reordered: reordered - self.reordered,
            busy_consumers: busy as u32,
            // Every event is applied, held, or still queued.
            queue_left: total - applied - busy,
            // The lesson's queue: every event arrives in round 0.
            arrived: if round == 0 { total } else { 0 },
            dropped: 0,
            backlog: total - self.taken,
        };
        *self = Reported {
            applied,
            reordered,
            taken: applied + busy,
        };
        state
    }
}

/// Reports the rounds in `rounds`, which an event-driven engine skips: nothing applied, every
/// consumer still holding its event (`state` is the round before them).
pub(crate) fn report_skipped<O: Observer<RoundState>>(
    observer: &mut O,
    state: &RoundState,
    rounds: core::ops::Range<u64>,
) {
    for round in rounds {
        // Nothing arrives or is taken: the queue holds what it held at the round's end.
        let skipped = RoundState {
            round,
            applied: 0,
            reordered: 0,
            arrived: 0,
            dropped: 0,
            backlog: state.queue_left,
            ..*state
        };
        observer.round(&skipped);
        observer.round_done(round);
    }
}
