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
