//! The workload's draws, the event formula (the one definition every queue engine calls),
//! and the packed form of an event the timing wheel plays.

use core::marker::PhantomData;

use rand_core::{Rng, SeedableRng};

use super::spec::{Params, Workload};
use crate::rng::{splitmix64, CounterHash, Uniform, UnitRng};

impl Workload {
    /// Returns a shipment's start time from its first draw `r`: `r · shipments · gap`.
    #[inline(always)]
    pub(crate) fn start(&self, r: f64) -> f64 {
        r * f64::from(self.shipments) * self.queue_gap
    }

    /// Returns the arrival of event `step` of a shipment that starts at `start`, with the
    /// arrival jitter `jitter` (its draw `1 + 2·step`): `start + step·gap + jitter·gap`.
    #[inline(always)]
    pub(crate) fn arrival(&self, start: f64, step: u32, jitter: f64) -> f64 {
        start + f64::from(step) * self.queue_gap + jitter * self.queue_gap
    }

    /// Returns the processing time of event `step`: `final_event_rounds` for a shipment's
    /// last event, else `event_rounds_min + floor(r · event_rounds_spread)` with `r` its draw
    /// `2 + 2·step` (asked for only then).
    #[inline(always)]
    pub(crate) fn rounds(&self, step: u32, r: impl FnOnce() -> f64) -> u32 {
        if step == self.events_per_shipment - 1 {
            self.final_event_rounds
        } else {
            // An integer below 2^32 (checked by `Params::validate`): floor(r · spread) for
            // r in [0, 1) is below 2^32, so truncation is floor here.
            self.event_rounds_min + (r() * f64::from(self.event_rounds_spread)) as u32
        }
    }
}

/// Random access to the workload's draws: what the queue needs to regenerate itself in
/// arrival order without storing events.
///
/// Draw `i` of shipment `g` is, for `i = 0`, the shipment's start; for `i = 1 + 2k`, the
/// arrival jitter of event `k`; for `i = 2 + 2k`, the processing time of event `k`. A draw
/// must depend only on `(g, i)`: the queue may ask for one several times.
pub trait WorkloadDraws {
    /// Returns draw `index` of shipment `shipment`, a double in `[0, 1)`.
    fn draw(&mut self, shipment: u32, index: u32) -> f64;
}

impl<D: WorkloadDraws + ?Sized> WorkloadDraws for &mut D {
    fn draw(&mut self, shipment: u32, index: u32) -> f64 {
        (**self).draw(shipment, index)
    }
}

/// The lesson's workload: one [`CounterHash`] stream read in generation order, shipment by
/// shipment, so draw `i` of shipment `g` is stream position `g · draws_per_shipment + i`.
#[derive(Clone, Debug)]
pub struct LessonDraws {
    seed: u32,
    draws_per_shipment: u64,
}

impl LessonDraws {
    /// Returns the lesson's draws for `params` (its seed and events per shipment).
    pub fn new(params: &Params) -> Self {
        Self {
            seed: params.seed,
            draws_per_shipment: params.draws_per_shipment(),
        }
    }
}

impl WorkloadDraws for LessonDraws {
    fn draw(&mut self, shipment: u32, index: u32) -> f64 {
        // Below 2^49 for valid parameters; wraps (never panics) for any others.
        let n = u64::from(shipment)
            .wrapping_mul(self.draws_per_shipment)
            .wrapping_add(u64::from(index));
        CounterHash::unit_at(self.seed, n)
    }
}

/// Drives the workload with any seedable `rand_core` generator: each draw is the first
/// output of its own sub-stream, seeded with a SplitMix64 mix of `(seed, shipment, index)`.
/// Random access then costs one seeding per draw, whatever the generator.
#[derive(Clone, Debug)]
pub struct SubstreamDraws<R> {
    seed: u64,
    _rng: PhantomData<R>,
}

impl<R> SubstreamDraws<R> {
    /// Returns sub-streams of generator `R` derived from `seed`.
    pub const fn new(seed: u64) -> Self {
        Self {
            seed,
            _rng: PhantomData,
        }
    }
}

impl<R: SeedableRng + Rng> WorkloadDraws for SubstreamDraws<R> {
    fn draw(&mut self, shipment: u32, index: u32) -> f64 {
        let key =
            splitmix64(self.seed ^ splitmix64((u64::from(shipment) << 32) | u64::from(index)));
        Uniform(R::seed_from_u64(key)).next_unit()
    }
}

/// A packed event: bits 0–7 the rounds before it may be applied, `max(rounds, 1)`; bits
/// 8–31 the lane's `job`, `shipment << 8 | step`. Packed events compare like the queue's
/// tie order (shipment, then step) as long as their jobs differ.
pub(crate) const DELAY_MASK: u32 = 0xff;

pub(crate) const JOB_SHIFT: u32 = 8;

/// Packs an event for the timing wheel: `shipment << 16 | step << 8 | max(rounds, 1)`
/// (rounds above 255 are cut to 255: only for workloads [`wheel_fits`](super::lanes::wheel::wheel_fits) admits).
#[inline(always)]
pub(crate) fn pack(shipment: u32, step: u32, rounds: u32) -> u32 {
    (shipment << 16) | (step << JOB_SHIFT) | rounds.clamp(1, DELAY_MASK)
}
