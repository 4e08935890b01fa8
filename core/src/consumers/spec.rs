//! The model's parameters, what a run measures, and what an observer sees of a round.

use crate::error::{check_seed, ensure, Accepted, Error};
use crate::Observer;

/// The most shipments a workload may have (shipment numbers are stored in 16 bits).
pub const MAX_SHIPMENTS: usize = 65_536;

/// The most events per shipment (the store's state keeps the last one applied in 7 bits).
pub const MAX_EVENTS_PER_SHIPMENT: u32 = 126;

/// The most consumers on the queue.
pub const MAX_CONSUMERS: usize = 64;

/// The largest queue gap accepted.
pub const MAX_QUEUE_GAP: f64 = 1e9;

/// One run's parameters; [`Default`] gives the lesson's constants (N = 1, S = 2).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
        })
    }
}

impl Params {
    /// Returns the first parameter outside its accepted range, if any.
    pub fn validate(&self) -> Result<(), Error> {
        ensure(
            (1..=MAX_CONSUMERS as u32).contains(&self.consumers),
            "consumers",
            Accepted::integers(1, MAX_CONSUMERS as u64),
        )?;
        ensure(self.slots >= 1, "slots", Accepted::at_least(1))?;
        ensure(
            (1..=MAX_SHIPMENTS as u32).contains(&self.shipments),
            "shipments",
            Accepted::integers(1, MAX_SHIPMENTS as u64),
        )?;
        ensure(
            (1..=MAX_EVENTS_PER_SHIPMENT).contains(&self.events_per_shipment),
            "events-per-shipment",
            Accepted::integers(1, MAX_EVENTS_PER_SHIPMENT as u64),
        )?;
        ensure(
            (0.0..=MAX_QUEUE_GAP).contains(&self.queue_gap),
            "queue-gap",
            Accepted::between(0.0, MAX_QUEUE_GAP),
        )?;
        check_seed(self.seed)?;
        ensure(
            u64::from(self.event_rounds_min) + u64::from(self.event_rounds_spread)
                <= u64::from(u32::MAX),
            "event-rounds-spread",
            Accepted::SumWith {
                other: "event-rounds-min",
                max: u64::from(u32::MAX),
            },
        )
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
}

impl Workload {
    /// The flags of the workload's fields, in the order [`Workload::first_difference`]
    /// checks them (the host batches grid runs that share these).
    pub const FLAGS: [&'static str; 7] = [
        "shipments",
        "events-per-shipment",
        "queue-gap",
        "seed",
        "final-event-rounds",
        "event-rounds-min",
        "event-rounds-spread",
    ];

    /// Returns each field's bits, in the order of [`Workload::FLAGS`].
    fn bits(&self) -> [u64; 7] {
        [
            self.shipments.into(),
            self.events_per_shipment.into(),
            self.queue_gap.to_bits(),
            self.seed.into(),
            self.final_event_rounds.into(),
            self.event_rounds_min.into(),
            self.event_rounds_spread.into(),
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
    /// Events per round (`verim`).
    pub throughput: f64,
}

/// One round of a run, as [`crate::Observer::consumers_round`] sees it (every round from 0,
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
    /// Events not yet taken from the queue at the end of the round.
    pub queue_left: u64,
}

/// What a lane had applied and reordered at the end of the last round it reported: what
/// the next [`RoundState`]'s counts are taken from.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Reported {
    applied: u64,
    reordered: u32,
}

impl Reported {
    /// Nothing reported yet.
    pub(crate) const NONE: Reported = Reported {
        applied: 0,
        reordered: 0,
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
        };
        *self = Reported { applied, reordered };
        state
    }
}

/// Reports the rounds in `rounds`, which an event-driven engine skips: nothing applied, every
/// consumer still holding its event (`state` is the round before them).
pub(crate) fn report_skipped<O: Observer>(
    observer: &mut O,
    state: &RoundState,
    rounds: core::ops::Range<u64>,
) {
    for round in rounds {
        let skipped = RoundState {
            round,
            applied: 0,
            reordered: 0,
            ..*state
        };
        observer.consumers_round(&skipped);
        observer.round_done(round);
    }
}
