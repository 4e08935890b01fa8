//! Competing consumers: N consumers on one queue, a store that applies at most S events per
//! round.
//!
//! The workload is `shipments × events_per_shipment` status events; shipment `g` starts at
//! `base = r·shipments·gap` and its event `k` arrives at `base + k·gap + r·gap`, with a
//! processing time of `final_event_rounds` for the last event and `event_rounds_min +
//! floor(r·event_rounds_spread)` for the others. The queue holds the events in arrival order
//! (ties in the order they were generated). Each round: busy consumers count down; up to
//! `slots` finished consumers, lowest index first, apply their event to the store (an event
//! older than the one already applied for its shipment reorders that shipment); free
//! consumers take the next events. The lesson program is the specification.
//!
//! # Storage
//!
//! The caller provides a [`Workspace`]; what it holds chooses how the queue is made.
//!
//! - **Merged on the fly** (every workspace; the only way on a small board): events are never
//!   stored. The workload is regenerated in arrival order from random access to the
//!   generator's stream ([`WorkloadDraws`]): shipments are sorted by start time (2 bytes per
//!   shipment), and the few shipments in flight sit in a small heap (its own fixed capacity,
//!   [`DEFAULT_IN_FLIGHT`] unless chosen, 24 bytes each). The store's state is 1 byte per
//!   shipment: 3 bytes per shipment in all, for up to [`MAX_SHIPMENTS`] shipments.
//! - **Sorted whole** (a workspace with `Q` ≥ the workload's events, and processing times
//!   below 64 rounds): every event is generated in generation order and sorted at once, 20
//!   more bytes per event (140 per lesson shipment, 700 KB for the lesson; no in-flight
//!   capacity needed).
//!
//! Each configuration then runs on a timing wheel (`WheelLane`, processing times below 64
//! rounds; 1.9 KB of stack with its 1 KB event buffer) or, for longer ones, on the general
//! event-driven engine. Several configurations on one workload ([`run_batch`]) share one
//! queue, 1 store byte per shipment each; those that run alike (same N, and S ≥ N) share one
//! lane. An unobserved lane on a queue sorted whole takes a faster path (`play_whole`):
//! N = 1 serially, N ≤ S (2 to 8 consumers) by the earliest of N keys, otherwise whole
//! wheel rounds with no check per event; the same rounds, bit for bit.
//!
//! # What bounds each hot path
//!
//! Figures on this 2-core x86-64 host (shared, so ±30 %), the lesson's 35,000 events;
//! instructions counted by cachegrind:
//!
//! - *Sorting whole*: hashing and memory. Per event three counter hashes, a bucket count,
//!   a scatter and an insertion step (≈ 170 instructions), all on a window of a few KB that
//!   moves along (shipments are visited roughly by start). ≈ 0.4 ms; the floor is the
//!   hashes and one pass over 700 KB (≈ 0.2 ms). Keeping the keys made while counting, to
//!   hash once less, costs more than it saves (560 KB more to fault in and stream).
//! - *Merging on the fly*: branches. Each event is a sift-down of the in-flight heap
//!   (≈ log2 24 levels, each an unpredictable comparison) and two hashes: ≈ 42 ns an event,
//!   1.5 ms for the lesson.
//! - *A lane on a sorted queue*, unobserved: N = 1 is a sum of delays and the store's
//!   update (19 instructions an event); N ≤ S a branch-free minimum of N keys, a dependent
//!   chain of a few cycles (35–46 instructions an event, no mispredicted branch); S < N
//!   whole wheel rounds, per event a count of trailing zeros, the held job's load, the store
//!   byte's read-modify-write (5 KB, L1) and a wheel slot's OR (≈ 21 instructions), per round
//!   a slot load and, to skip idle rounds, a rotate and a count of trailing zeros (≈ 17).
//!   What bounds those is the branch on how many events a round applies (mispredicted about
//!   once in three rounds when it varies); making the rounds branch-free costs more
//!   instructions than the mispredictions. 2–5 ns an event.
//! - *A wheel lane* otherwise (observed, or fed by the merged queue): the same wheel with a
//!   check per event and per-round bookkeeping: 5–8 ns an event (N = 8, S = 2: 0.3 ms),
//!   against ≈ 17 ns for the general engine's scan of every consumer's ready round.
//!
//! The lesson (12 configurations, 10 lanes) thus costs one sort and ten lanes: ≈ 2 ms.
//!
//! ```
//! use capsim_core::consumers::{run, Params, Workspace};
//! let mut ws = Workspace::<5000>::new();
//! let m = run(&Params { consumers: 8, slots: 2, ..Params::default() }, &mut ws).unwrap();
//! assert_eq!((m.rounds, m.reordered_shipments, m.wrong_final_state), (17551, 2279, 432));
//! ```

use core::cmp::Ordering;
use core::marker::PhantomData;

use rand_core::{Rng, SeedableRng};

use crate::error::{check_seed, ensure, Accepted, Capacity, Error};
use crate::rng::{splitmix64, CounterHash, Uniform, UnitRng};
use crate::Observer;

pub mod windowed;

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

/// The in-flight capacity a [`Workspace`] has unless told otherwise.
pub const DEFAULT_IN_FLIGHT: usize = 256;

/// Caller-provided storage for regenerating the queue: the shipments sorted by start time
/// (2 bytes per shipment, up to `N`) and the heap of shipments in flight (up to `F`, 24 bytes
/// each).
pub struct QueueSpace<const N: usize, const F: usize = DEFAULT_IN_FLIGHT> {
    order: [u16; N],
    in_flight: [Pending; F],
}

impl<const N: usize, const F: usize> QueueSpace<N, F> {
    /// Returns empty storage.
    pub const fn new() -> Self {
        Self {
            order: [0; N],
            in_flight: [Pending::ZERO; F],
        }
    }
}

impl<const N: usize, const F: usize> Default for QueueSpace<N, F> {
    fn default() -> Self {
        Self::new()
    }
}

/// Caller-provided storage for a run: 3 bytes per shipment, for up to `N` shipments (`N` at
/// most [`MAX_SHIPMENTS`]), and up to `F` shipments whose events interleave in the queue at
/// once (24 bytes each; [`DEFAULT_IN_FLIGHT`] unless chosen). With `R` lanes (default 1),
/// [`run_batch`] runs `R` configurations on one pass over the queue, for 1 more byte per
/// shipment per extra lane. With `Q` > 0 (default 0), a workload of at most `Q` events is
/// generated whole and sorted at once instead of merged on the fly (20 bytes per event, 140
/// per lesson shipment: about three times faster to generate, and each lane plays a plain
/// array): memory for speed, the caller's choice.
///
/// `Workspace::<5000>` (15,000 + 6,144 bytes) holds the lesson's workload;
/// `Workspace::<5000, 256, 12, 35_000>` (75,000 + 6,144 + 700,000 bytes) runs its twelve
/// configurations on one sorted queue. `new` is `const`, so a workspace can live in a
/// `static`; `Workspace::<0, 0>` holds nothing (a board too small for the consumers lesson).
pub struct Workspace<
    const N: usize,
    const F: usize = DEFAULT_IN_FLIGHT,
    const R: usize = 1,
    const Q: usize = 0,
> {
    queue: QueueSpace<N, F>,
    /// Per lane, per shipment: bits 0–6 the last step applied plus one (0: none); bit 7:
    /// reordered.
    stores: [[u8; N]; R],
    sorted: SortedSpace<Q>,
}

impl<const N: usize, const F: usize, const R: usize, const Q: usize> Workspace<N, F, R, Q> {
    /// Returns an empty workspace.
    pub const fn new() -> Self {
        Self {
            queue: QueueSpace::new(),
            stores: [[0; N]; R],
            sorted: SortedSpace::new(),
        }
    }

    /// Returns the shipment capacity, `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Returns how many configurations one pass over the queue can run, `R`.
    pub const fn lanes(&self) -> usize {
        R
    }

    /// Returns the most events a workload may have to be sorted whole, `Q`.
    pub const fn sorted_capacity(&self) -> usize {
        Q
    }
}

impl<const N: usize, const F: usize, const R: usize, const Q: usize> Default
    for Workspace<N, F, R, Q>
{
    fn default() -> Self {
        Self::new()
    }
}

/// Storage for sorting a workload of up to `Q` events whole: per event a 128-bit sort key
/// (arrival bits, then the packed event) and a 32-bit bucket count, reused for the sorted
/// packed events.
struct SortedSpace<const Q: usize> {
    keys: [u128; Q],
    events: [u32; Q],
}

impl<const Q: usize> SortedSpace<Q> {
    const fn new() -> Self {
        Self {
            keys: [0; Q],
            events: [0; Q],
        }
    }
}

/// One queued event.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Event {
    /// Its shipment (`g`).
    pub shipment: u32,
    /// Its step within the shipment (`k`).
    pub step: u32,
    /// Rounds a consumer needs to process it (`sure`).
    pub rounds: u32,
    /// Its arrival time in the queue (`t`).
    pub arrival: f64,
}

/// An in-flight shipment's next event, ordered by (arrival, shipment).
#[derive(Clone, Copy)]
struct Pending {
    arrival: f64,
    /// The shipment's start time, kept to compute its next arrival with one draw.
    start: f64,
    shipment: u16,
    step: u8,
}

impl Event {
    const ZERO: Event = Event {
        shipment: 0,
        step: 0,
        rounds: 0,
        arrival: 0.0,
    };
}

impl Pending {
    const ZERO: Pending = Pending {
        arrival: 0.0,
        start: 0.0,
        shipment: 0,
        step: 0,
    };

    fn before(&self, other: &Pending) -> bool {
        // Arrivals are finite and non-negative (never -0), so their bit patterns order like
        // the numbers: one integer comparison, no branches on NaN.
        (self.arrival.to_bits(), self.shipment) < (other.arrival.to_bits(), other.shipment)
    }
}

/// A binary min-heap of [`Pending`] events in caller-provided storage.
struct InFlight<'w> {
    items: &'w mut [Pending],
    len: usize,
}

impl<'w> InFlight<'w> {
    fn new(items: &'w mut [Pending]) -> Self {
        Self { items, len: 0 }
    }

    fn peek(&self) -> Option<&Pending> {
        self.items[..self.len].first()
    }

    fn push(&mut self, p: Pending) -> Result<(), Error> {
        if self.len == self.items.len() {
            return Err(Error::CapacityExceeded {
                capacity: Capacity::ShipmentsInFlight,
                limit: self.items.len() as u32,
            });
        }
        let mut i = self.len;
        self.len += 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if !p.before(&self.items[parent]) {
                break;
            }
            self.items[i] = self.items[parent];
            i = parent;
        }
        self.items[i] = p;
        Ok(())
    }

    /// Replaces the minimum with `p` (or removes it, for `None`) and restores the heap.
    fn replace_top(&mut self, p: Option<Pending>) {
        let p = match p {
            Some(p) => p,
            None => {
                self.len -= 1;
                if self.len == 0 {
                    return;
                }
                self.items[self.len]
            }
        };
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= self.len {
                break;
            }
            let right = left + 1;
            let child = if right < self.len && self.items[right].before(&self.items[left]) {
                right
            } else {
                left
            };
            if !self.items[child].before(&p) {
                break;
            }
            self.items[i] = self.items[child];
            i = child;
        }
        self.items[i] = p;
    }
}

/// Sorts shipments `0..order.len()` into `order` by (start time, shipment), where a
/// shipment's start is `draw(g, 0) · scale · gap`.
///
/// A counting sort into 256 buckets by the first draw (the start grows with it), then each
/// bucket sorted exactly; no storage beyond `order` and 2 KiB of stack. The start is
/// recomputed from the draw, never stored.
fn sort_by_start<D: WorkloadDraws>(order: &mut [u16], draws: &mut D, scale: f64, gap: f64) {
    const BUCKETS: usize = 256;
    let n = order.len();
    if gap == 0.0 {
        // Every start is 0: the queue keeps generation order.
        for (g, slot) in order.iter_mut().enumerate() {
            *slot = g as u16; // n <= 65536
        }
        return;
    }
    let bucket = |r: f64| ((r * BUCKETS as f64) as usize).min(BUCKETS - 1);
    let mut ends = [0u32; BUCKETS];
    for g in 0..n as u32 {
        ends[bucket(draws.draw(g, 0))] += 1;
    }
    let mut next = [0u32; BUCKETS];
    let mut sum = 0;
    for (end, first) in ends.iter_mut().zip(next.iter_mut()) {
        *first = sum;
        sum += *end;
        *end = sum;
    }
    for g in 0..n as u32 {
        let b = bucket(draws.draw(g, 0));
        if let Some(slot) = order.get_mut(next[b] as usize) {
            *slot = g as u16;
        }
        next[b] += 1;
    }
    let mut start_of = |g: u16| draws.draw(u32::from(g), 0) * scale * gap;
    let mut begin = 0;
    for &end in &ends {
        let bucket = &mut order[begin..end as usize];
        if bucket.len() > 1 {
            bucket.sort_unstable_by(|&a, &b| {
                start_of(a)
                    .partial_cmp(&start_of(b))
                    .unwrap_or(Ordering::Equal)
                    .then(a.cmp(&b))
            });
        }
        begin = end as usize;
    }
    // Rounding can give neighbouring buckets equal starts: such a run goes by shipment.
    let mut i = 0;
    while i < n {
        let s = start_of(order[i]);
        let mut j = i + 1;
        while j < n && start_of(order[j]) == s {
            j += 1;
        }
        if j - i > 1 {
            order[i..j].sort_unstable();
        }
        i = j;
    }
}

/// The workload in arrival order, regenerated on the fly (an iterator of events).
pub struct Queue<'w, D> {
    draws: D,
    order: &'w mut [u16],
    in_flight: InFlight<'w>,
    next_start: usize,
    /// The start time of `order[next_start]`, once computed.
    next_start_time: Option<f64>,
    shipments: u32,
    events_per_shipment: u32,
    gap: f64,
    final_event_rounds: u32,
    event_rounds_min: u32,
    event_rounds_spread: f64,
    failed: bool,
}

impl<'w, D: WorkloadDraws> Queue<'w, D> {
    /// Returns the queue for `params`, sorting the shipments into `space` (which must hold
    /// `params.shipments`).
    pub fn new<const N: usize, const F: usize>(
        params: &Params,
        draws: D,
        space: &'w mut QueueSpace<N, F>,
    ) -> Result<Self, Error> {
        Self::from_parts(params, draws, &mut space.order, &mut space.in_flight)
    }

    fn from_parts(
        params: &Params,
        mut draws: D,
        order: &'w mut [u16],
        in_flight: &'w mut [Pending],
    ) -> Result<Self, Error> {
        params.validate()?;
        let n = params.shipments as usize;
        let capacity = order.len() as u32;
        let order = order.get_mut(..n).ok_or(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: capacity,
        })?;
        let scale = f64::from(params.shipments);
        let gap = params.queue_gap;
        sort_by_start(order, &mut draws, scale, gap);
        Ok(Self {
            draws,
            order,
            in_flight: InFlight::new(in_flight),
            next_start: 0,
            next_start_time: None,
            shipments: params.shipments,
            events_per_shipment: params.events_per_shipment,
            gap,
            final_event_rounds: params.final_event_rounds,
            event_rounds_min: params.event_rounds_min,
            event_rounds_spread: f64::from(params.event_rounds_spread),
            failed: false,
        })
    }

    fn start(&mut self, shipment: u32) -> f64 {
        self.draws.draw(shipment, 0) * f64::from(self.shipments) * self.gap
    }

    fn arrival(&mut self, start: f64, shipment: u32, step: u32) -> f64 {
        let jitter = self.draws.draw(shipment, 1 + 2 * step);
        start + f64::from(step) * self.gap + jitter * self.gap
    }

    fn rounds(&mut self, shipment: u32, step: u32) -> u32 {
        if step == self.events_per_shipment - 1 {
            self.final_event_rounds
        } else {
            let r = self.draws.draw(shipment, 2 + 2 * step);
            // An integer below 2^32 (checked by `Params::validate`).
            // floor(r · spread) for r in [0, 1) is below 2^32: truncation is floor here.
            self.event_rounds_min + (r * self.event_rounds_spread) as u32
        }
    }

    fn pending(&mut self, start: f64, shipment: u32, step: u32) -> Pending {
        Pending {
            arrival: self.arrival(start, shipment, step),
            start,
            shipment: shipment as u16,
            step: step as u8,
        }
    }

    fn next_event(&mut self) -> Result<Option<Event>, Error> {
        // Start every shipment that could come before the earliest in-flight event: its
        // first event arrives no earlier than its start, and ties go to the lower shipment.
        while let Some(&g) = self.order.get(self.next_start) {
            let g = u32::from(g);
            let start = match self.next_start_time {
                Some(t) => t,
                None => {
                    let t = self.start(g);
                    self.next_start_time = Some(t);
                    t
                }
            };
            let due = match self.in_flight.peek() {
                None => true,
                Some(top) => match start.partial_cmp(&top.arrival) {
                    Some(Ordering::Less) => true,
                    Some(Ordering::Equal) => g < u32::from(top.shipment),
                    _ => false,
                },
            };
            if !due {
                break;
            }
            let first = self.pending(start, g, 0);
            self.in_flight.push(first)?;
            self.next_start += 1;
            self.next_start_time = None;
        }
        let Some(&top) = self.in_flight.peek() else {
            return Ok(None);
        };
        let shipment = u32::from(top.shipment);
        let step = u32::from(top.step);
        let next = if step + 1 < self.events_per_shipment {
            let next = self.pending(top.start, shipment, step + 1);
            // The stream relies on a shipment's events arriving in step order.
            if next.arrival < top.arrival {
                return Err(Error::WorkloadOrder { shipment });
            }
            Some(next)
        } else {
            None
        };
        self.in_flight.replace_top(next);
        let rounds = self.rounds(shipment, step);
        Ok(Some(Event {
            shipment,
            step,
            rounds,
            arrival: top.arrival,
        }))
    }
}

impl<D: WorkloadDraws> Queue<'_, D> {
    /// Writes the next events to `buf`, packed for the timing wheel (see [`pack`]), and
    /// returns how many: fewer than `buf.len()` only once the queue is exhausted. Only for
    /// processing times below 256 rounds (longer ones are cut to 255).
    fn fill_packed(&mut self, buf: &mut [u32]) -> Result<usize, Error> {
        if self.failed {
            return Ok(0);
        }
        for (len, slot) in buf.iter_mut().enumerate() {
            match self.next_event() {
                Ok(Some(e)) => {
                    *slot = pack(e.shipment, e.step, e.rounds);
                }
                Ok(None) => return Ok(len),
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            }
        }
        Ok(buf.len())
    }
}

impl<D: WorkloadDraws> Iterator for Queue<'_, D> {
    type Item = Result<Event, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.next_event().transpose();
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}

/// Runs the model on the lesson's workload.
pub fn run<const N: usize, const F: usize, const R: usize, const Q: usize>(
    params: &Params,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<Metrics, Error> {
    run_with(params, LessonDraws::new(params), ws, &mut ())
}

/// Runs the model on the workload drawn from `draws`, handing `observer` every round's
/// [`RoundState`] in order (the rounds the engine skips in one step, in which every
/// consumer is only counting down, are reported too).
pub fn run_with<
    D: WorkloadDraws,
    O: Observer,
    const N: usize,
    const F: usize,
    const R: usize,
    const Q: usize,
>(
    params: &Params,
    draws: D,
    ws: &mut Workspace<N, F, R, Q>,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut out = [Metrics::default()];
    run_batch_with(core::slice::from_ref(params), draws, ws, observer, &mut out)?;
    Ok(out[0])
}

/// Runs up to `R` configurations on one pass over the lesson's workload, writing each one's
/// metrics to `out`: exactly what separate [`run`]s return.
///
/// The workload depends only on the shipments, events per shipment, queue gap, seed and
/// processing times; configurations that share those (and differ in consumers and slots)
/// consume the same queue, so it is generated once for all of them. Each needs its own
/// store, which is what the workspace's `R` provides (1 byte per shipment per lane).
pub fn run_batch<const N: usize, const F: usize, const R: usize, const Q: usize>(
    params: &[Params],
    ws: &mut Workspace<N, F, R, Q>,
    out: &mut [Metrics],
) -> Result<(), Error> {
    let Some(first) = params.first() else {
        return Ok(());
    };
    run_batch_with(params, LessonDraws::new(first), ws, &mut (), out)
}

/// [`run_batch`] on the workload drawn from `draws`. One configuration is observed as
/// [`run_with`] is; several report no state, only `round_done` for the rounds each lane
/// processes, lane after lane (see [`crate::Observer`]).
pub fn run_batch_with<D, O, const N: usize, const F: usize, const R: usize, const Q: usize>(
    params: &[Params],
    draws: D,
    ws: &mut Workspace<N, F, R, Q>,
    observer: &mut O,
    out: &mut [Metrics],
) -> Result<(), Error>
where
    D: WorkloadDraws,
    O: Observer,
{
    batch(params, draws, ws, None, observer, out)
}

/// [`run_batch_with`], sorting the workload whole in storage the caller lends (a host can
/// allocate it; a large `Q` in a [`Workspace`] would pass through the stack when built by
/// value): `keys` and `events` hold up to `min(keys.len(), events.len())` events, 20 bytes
/// each, and the workspace's own `Q` is not used. A workload that does not fit (or whose
/// processing times reach 64 rounds) is merged on the fly as usual: the results are the
/// same either way.
pub fn run_batch_sorted_with<D, O, const N: usize, const F: usize, const R: usize, const Q: usize>(
    params: &[Params],
    draws: D,
    ws: &mut Workspace<N, F, R, Q>,
    keys: &mut [u128],
    events: &mut [u32],
    observer: &mut O,
    out: &mut [Metrics],
) -> Result<(), Error>
where
    D: WorkloadDraws,
    O: Observer,
{
    batch(params, draws, ws, Some((keys, events)), observer, out)
}

/// [`run_batch_with`] with the sort's storage lent by the caller (`Some`) or the
/// workspace's own (`None`).
fn batch<D, O, const N: usize, const F: usize, const R: usize, const Q: usize>(
    params: &[Params],
    draws: D,
    ws: &mut Workspace<N, F, R, Q>,
    lent: Option<(&mut [u128], &mut [u32])>,
    observer: &mut O,
    out: &mut [Metrics],
) -> Result<(), Error>
where
    D: WorkloadDraws,
    O: Observer,
{
    let Some(first) = params.first() else {
        return Ok(());
    };
    if params.len() > R || out.len() < params.len() {
        return Err(Error::CapacityExceeded {
            capacity: Capacity::BatchLanes,
            limit: R as u32,
        });
    }
    for p in params {
        p.validate()?;
        let same_workload = [
            ("shipments", p.shipments == first.shipments),
            (
                "events-per-shipment",
                p.events_per_shipment == first.events_per_shipment,
            ),
            (
                "queue-gap",
                p.queue_gap.to_bits() == first.queue_gap.to_bits(),
            ),
            ("seed", p.seed == first.seed),
            (
                "final-event-rounds",
                p.final_event_rounds == first.final_event_rounds,
            ),
            (
                "event-rounds-min",
                p.event_rounds_min == first.event_rounds_min,
            ),
            (
                "event-rounds-spread",
                p.event_rounds_spread == first.event_rounds_spread,
            ),
        ];
        if let Some(&(param, _)) = same_workload.iter().find(|(_, same)| !same) {
            return Err(Error::BatchMismatch { param });
        }
    }
    let Workspace {
        queue: space,
        stores,
        sorted,
    } = ws;
    let shipments = first.shipments as usize;
    if shipments > N {
        // What `Queue::new` reports.
        return Err(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: N as u32,
        });
    }
    // One run observed reports its rounds; batches report none (see `Observer`).
    let observe = O::ROUNDS && params.len() == 1;
    // Configurations that run alike share a lane. With N ≤ S the store never binds: a round
    // has at most N finished consumers, so at most N want to apply, and `slots_left` (S at
    // the round's start, one less per event applied) is still ≥ S − N + 1 ≥ 1 when each of
    // them asks. The run with S slots is then the run with N slots, whatever S ≥ N: so the
    // lane's key is (N, min(S, N)), and (1, 2) = (1, 4), (2, 2) = (2, 4) run once.
    let mut keys: heapless::Vec<(u32, u32), R> = heapless::Vec::new();
    let mut lane_of: heapless::Vec<usize, R> = heapless::Vec::new();
    for p in params {
        let key = (p.consumers, p.slots.min(p.consumers));
        let lane = match keys.iter().position(|&k| k == key) {
            Some(lane) => lane,
            None => {
                // At most params.len() <= R keys: never full.
                let _ = keys.push(key);
                keys.len() - 1
            }
        };
        let _ = lane_of.push(lane);
    }
    let mut lane_stores: heapless::Vec<&mut [u8], R> = heapless::Vec::new();
    for store in stores.iter_mut().take(keys.len()) {
        // `Queue::new` checked that the workspace holds every shipment.
        let store = store.get_mut(..shipments).ok_or(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: N as u32,
        })?;
        let _ = lane_stores.push(store);
    }
    let mut lane_metrics: heapless::Vec<Metrics, R> = heapless::Vec::new();
    let total = first.events();
    let mut draws = draws;
    let (sort_keys, sort_events) = match lent {
        Some((keys, events)) => (keys, events),
        None => (&mut sorted.keys[..], &mut sorted.events[..]),
    };
    if let Some(events) = sort_whole(first, &mut draws, &mut space.order, sort_keys, sort_events) {
        // The whole queue in one array: each lane plays it through.
        for (&(n, slots), store) in keys.iter().zip(lane_stores) {
            let m = if observe {
                let mut lane = WheelLane::new(n, slots, total, store, observe);
                lane.feed(events, true, observer);
                lane.metrics(first)
            } else {
                let last_round = play_whole(events, n, slots, store, observer);
                let reordered = store.iter().filter(|&&s| s & REORDERED != 0).count() as u32;
                self::lane_metrics(store, first, last_round, reordered, total)
            };
            let _ = lane_metrics.push(m);
        }
    } else if wheel_fits(first) {
        let mut queue = Queue::new(first, draws, space)?;
        let mut lanes: heapless::Vec<WheelLane<'_>, R> = heapless::Vec::new();
        for (&(n, slots), store) in keys.iter().zip(lane_stores) {
            let _ = lanes.push(WheelLane::new(n, slots, total, store, observe));
        }
        play_wheel(&mut queue, &mut lanes, observer)?;
        for lane in &lanes {
            let _ = lane_metrics.push(lane.metrics(first));
        }
    } else {
        let mut queue = Queue::new(first, draws, space)?;
        let mut lanes: heapless::Vec<Lane<'_>, R> = heapless::Vec::new();
        for (&(n, slots), store) in keys.iter().zip(lane_stores) {
            let _ = lanes.push(Lane::new(n, slots, total, store, observe));
        }
        play_general(&mut queue, &mut lanes, observer)?;
        for lane in &lanes {
            let _ = lane_metrics.push(lane.metrics(first));
        }
    }
    for (&lane, m) in lane_of.iter().zip(out.iter_mut()) {
        if let Some(&lane_m) = lane_metrics.get(lane) {
            *m = lane_m;
        }
    }
    Ok(())
}

/// Plays the queue to every lane of the general engine, a chunk of events at a time.
fn play_general<D: WorkloadDraws, O: Observer>(
    queue: &mut Queue<'_, D>,
    lanes: &mut [Lane<'_>],
    observer: &mut O,
) -> Result<(), Error> {
    // Every lane asks for the queue's events in order, so the queue is generated once, a
    // chunk at a time, and each chunk is played to every lane in turn.
    let mut chunk = [Event::ZERO; CHUNK];
    loop {
        let mut len = 0;
        while len < CHUNK {
            match queue.next().transpose()? {
                Some(e) => {
                    chunk[len] = e;
                    len += 1;
                }
                None => break,
            }
        }
        let exhausted = len < CHUNK;
        for lane in lanes.iter_mut() {
            lane.feed(&chunk[..len], exhausted, observer);
        }
        if exhausted {
            return Ok(());
        }
    }
}

/// Plays the queue to every lane of the timing wheel engine: a buffer of packed events
/// ([`Queue::fill_packed`]) is refilled behind the slowest lane, each lane playing whole
/// rounds while the buffer holds the events a round can take.
fn play_wheel<D: WorkloadDraws, O: Observer>(
    queue: &mut Queue<'_, D>,
    lanes: &mut [WheelLane<'_>],
    observer: &mut O,
) -> Result<(), Error> {
    let mut buf = [0u32; WHEEL_BUFFER];
    let mut len = 0;
    loop {
        let got = queue.fill_packed(&mut buf[len..])?;
        len += got;
        let exhausted = len < WHEEL_BUFFER;
        let mut low = len;
        for lane in lanes.iter_mut() {
            lane.feed(&buf[..len], exhausted, observer);
            low = low.min(lane.at);
        }
        if exhausted {
            return Ok(());
        }
        // Each lane stopped fewer than `MAX_CONSUMERS` events from the end: keep those.
        buf.copy_within(low..len, 0);
        len -= low;
        for lane in lanes.iter_mut() {
            lane.at -= low;
        }
    }
}

/// Whether every processing time fits the timing wheel (below [`WHEEL`] rounds).
fn wheel_fits(p: &Params) -> bool {
    let longest_other = if p.events_per_shipment > 1 {
        // floor(r · spread) < spread: a bound.
        u64::from(p.event_rounds_min) + u64::from(p.event_rounds_spread)
    } else {
        0
    };
    u64::from(p.final_event_rounds).max(longest_other) < WHEEL as u64
}

/// Events generated at a time and played to every lane (16 bytes each, on the stack).
const CHUNK: usize = 64;

const STEP_MASK: u8 = 0x7f;
const REORDERED: u8 = 0x80;
/// `ready` of a consumer holding nothing.
const IDLE: u64 = u64::MAX;

/// One configuration's run, event-driven: its cost grows with the events, not with rounds ×
/// consumers.
///
/// A consumer that takes an event with processing time `d` in round `r` may apply it from
/// round `r + max(d, 1)` (it counts down once per round, and a zero time still waits for the
/// next round). Rounds in which no consumer may apply are skipped in one step. The lane is a
/// state machine so that several can share one queue: [`Lane::advance`] runs until a
/// consumer needs the next event, [`Lane::feed`] hands it over.
struct Lane<'s> {
    /// Per consumer: the round from which it may apply its event ([`IDLE`]: none held).
    ready: [u64; MAX_CONSUMERS],
    /// Per consumer: the event it holds, as `shipment << 8 | step` (shipment < 2^16, step
    /// < 2^7: fits).
    job: [u32; MAX_CONSUMERS],
    n: usize,
    slots: u32,
    total: u64,
    store: &'s mut [u8],
    /// Between two applied events at most the longest processing time (< 2^32) passes, so
    /// this stays below events × 2^32 < 2^56.
    round: u64,
    applied: u64,
    /// At most one per shipment (the store's flag).
    reordered: u32,
    /// The consumer waiting for the next event, if any.
    wants: Option<usize>,
    /// Round 0 hands every consumer an event: how many have one so far.
    started: usize,
    /// Within a round: the next consumer to look at, and the store slots left.
    scan: usize,
    slots_left: u32,
    /// Whether to report each round's [`RoundState`] (one run, observed).
    observe: bool,
    /// `applied` and `reordered` at the end of the last reported round.
    applied_before: u64,
    reordered_before: u32,
}

impl<'s> Lane<'s> {
    fn new(n: u32, slots: u32, total: u64, store: &'s mut [u8], observe: bool) -> Self {
        store.fill(0);
        Self {
            ready: [IDLE; MAX_CONSUMERS],
            job: [0; MAX_CONSUMERS],
            n: n as usize,
            slots,
            total,
            store,
            round: 0,
            applied: 0,
            reordered: 0,
            wants: None,
            started: 0,
            scan: 0,
            slots_left: 0,
            observe,
            applied_before: 0,
            reordered_before: 0,
        }
    }

    /// Plays `events` (the queue's next ones, in order) to this lane: it runs until it needs
    /// an event beyond them or, once the queue is `exhausted`, until every event is applied.
    #[inline]
    fn feed<O: Observer>(&mut self, events: &[Event], exhausted: bool, observer: &mut O) {
        let mut events = events.iter();
        loop {
            if let Some(i) = self.wants {
                match events.next() {
                    Some(e) => {
                        self.ready[i] = self.round + u64::from(e.rounds.max(1));
                        self.job[i] = (e.shipment << 8) | e.step;
                    }
                    None if exhausted => self.ready[i] = IDLE,
                    None => return, // wait for the next chunk
                }
                self.wants = None;
            }
            if !self.advance(observer) {
                return;
            }
        }
    }

    /// Runs until a consumer needs an event (returns `true`) or every event is applied.
    #[inline]
    fn advance<O: Observer>(&mut self, observer: &mut O) -> bool {
        if self.started < self.n {
            // Round 0: nothing to apply yet; every consumer takes an event.
            self.wants = Some(self.started);
            self.started += 1;
            return true;
        }
        let n = self.n;
        loop {
            if self.slots_left > 0 {
                let round = self.round;
                if let Some(i) = (self.scan..n).find(|&i| self.ready[i] <= round) {
                    self.scan = i + 1;
                    self.slots_left -= 1;
                    self.apply(self.job[i]);
                    self.wants = Some(i);
                    return true;
                }
            }
            let state = self.observe.then(|| self.state());
            if let Some(state) = state {
                observer.consumers_round(&state);
            }
            observer.round_done(self.round);
            if self.applied == self.total {
                return false;
            }
            // Jump to the next round in which some consumer may apply.
            let next = self.ready[..n].iter().copied().min().unwrap_or(IDLE);
            if next == IDLE {
                return false; // unreachable while events remain: each is queued or held
            }
            let next = next.max(self.round + 1);
            if let Some(state) = state {
                report_skipped(observer, &state, self.round + 1..next);
            }
            self.round = next;
            self.scan = 0;
            self.slots_left = self.slots;
        }
    }

    /// The state at the end of the current round; starts the next round's counts.
    fn state(&mut self) -> RoundState {
        let busy = self.ready[..self.n].iter().filter(|&&r| r != IDLE).count() as u64;
        let state = RoundState {
            round: self.round,
            // At most `slots` per round, and the reordered ones at most the applied ones.
            applied: (self.applied - self.applied_before) as u32,
            reordered: self.reordered - self.reordered_before,
            busy_consumers: busy as u32,
            // Every event is applied, held, or still queued.
            queue_left: self.total - self.applied - busy,
        };
        self.applied_before = self.applied;
        self.reordered_before = self.reordered;
        state
    }

    fn apply(&mut self, job: u32) {
        let (shipment, step) = (job >> 8, job & 0xff);
        let state = &mut self.store[shipment as usize];
        let last = u32::from(*state & STEP_MASK); // last step applied + 1, 0 for none
        let mut flags = *state & REORDERED;
        if last > 0 && step < last - 1 && flags == 0 {
            flags = REORDERED;
            self.reordered += 1;
        }
        *state = flags | (step + 1) as u8;
        self.applied += 1;
    }

    fn metrics(&self, p: &Params) -> Metrics {
        lane_metrics(self.store, p, self.round, self.reordered, self.total)
    }
}

/// A lane's metrics once its last event is applied in round `last_round`: a shipment's
/// final state is wrong when its store entry's last applied step is not the final one.
fn lane_metrics(store: &[u8], p: &Params, last_round: u64, reordered: u32, total: u64) -> Metrics {
    let final_step = p.events_per_shipment;
    let wrong = store
        .iter()
        .filter(|&&s| u32::from(s & STEP_MASK) != final_step)
        .count() as u32;
    let rounds = last_round + 1;
    Metrics {
        rounds,
        reordered_shipments: reordered,
        wrong_final_state: wrong,
        throughput: total as f64 / rounds as f64,
    }
}

/// Slots of the timing wheel: processing times below this many rounds use [`WheelLane`].
const WHEEL: usize = 64;
/// Packed events buffered for the wheel's lanes (4 bytes each, on the stack).
const WHEEL_BUFFER: usize = 256;
/// A packed event: bits 0–7 the rounds before it may be applied, `max(rounds, 1)`; bits
/// 8–31 the lane's `job`, `shipment << 8 | step`. Packed events compare like the queue's
/// tie order (shipment, then step) as long as their jobs differ.
const DELAY_MASK: u32 = 0xff;
const JOB_SHIFT: u32 = 8;

/// One configuration's run on a timing wheel: consumers are bits of a `u64`, so a round
/// finds its finished consumers, lowest index first, with one load and a count of trailing
/// zeros each.
///
/// A consumer that takes an event with processing time `d` in round `r` may apply it from
/// round `r + max(d, 1)` (it counts down once per round, and a zero time still waits for the
/// next round); its bit goes into that round's wheel slot. At a round's start the slot's
/// bits join `ready` (finished, not yet applied: the store may have refused them); up to
/// `slots` of them apply, lowest first, and each takes the next event at once (applying
/// touches only the store, taking only the queue, so interleaving keeps the program's
/// order). A round with nothing ready is skipped: the next occupied slot is one rotate and
/// one count of trailing zeros away, as every pending round is within `WHEEL − 1` of now.
struct WheelLane<'s> {
    /// Per round modulo [`WHEEL`]: the consumers that finish in it.
    wheel: [u64; WHEEL],
    /// Bit `j`: `wheel[j]` is not empty.
    occupied: u64,
    /// Finished consumers not yet applied.
    ready: u64,
    /// Consumers holding an event (ready ones included).
    held: u64,
    /// Per consumer: the event it holds, as `shipment << 8 | step`.
    job: [u32; MAX_CONSUMERS],
    n: u32,
    /// `min(slots, n)`: no round applies more, and applying more than N is never limited.
    slots: u32,
    total: u64,
    store: &'s mut [u8],
    /// See [`Lane::round`]: below 2^56.
    round: u64,
    applied: u64,
    reordered: u32,
    /// The next event to take, an index into the buffer being played.
    at: usize,
    started: bool,
    done: bool,
    observe: bool,
    applied_before: u64,
    reordered_before: u32,
}

impl<'s> WheelLane<'s> {
    fn new(n: u32, slots: u32, total: u64, store: &'s mut [u8], observe: bool) -> Self {
        store.fill(0);
        Self {
            wheel: [0; WHEEL],
            occupied: 0,
            ready: 0,
            held: 0,
            job: [0; MAX_CONSUMERS],
            n,
            slots: slots.min(n),
            total,
            store,
            round: 0,
            applied: 0,
            reordered: 0,
            at: 0,
            started: false,
            done: false,
            observe,
            applied_before: 0,
            reordered_before: 0,
        }
    }

    /// Plays whole rounds while `events[self.at..]` holds what a round may take (or, once
    /// the queue is `exhausted`, until every event is applied).
    #[inline]
    fn feed<O: Observer>(&mut self, events: &[u32], exhausted: bool, observer: &mut O) {
        if self.done {
            self.at = events.len();
            return;
        }
        if !self.started {
            if !exhausted && events.len() - self.at < self.n as usize {
                return;
            }
            // Round 0: nothing to apply yet; every consumer takes an event.
            for i in 0..self.n {
                self.take(i, events);
            }
            self.started = true;
            self.end_round(observer);
        }
        self.play(events, exhausted, observer);
        if self.done {
            self.at = events.len();
        }
    }

    /// The rounds after round 0, with the lane's hot state in locals (registers), written
    /// back when the buffer runs short or the run ends.
    #[inline]
    fn play<O: Observer>(&mut self, events: &[u32], exhausted: bool, observer: &mut O) {
        let need = self.slots as usize;
        let slots = self.slots;
        let total = self.total;
        let (mut ready, mut occupied, mut held) = (self.ready, self.occupied, self.held);
        let (mut round, mut at) = (self.round, self.at);
        let (mut applied, mut reordered) = (self.applied, self.reordered);
        let store = &mut *self.store;
        let wheel = &mut self.wheel;
        let job = &mut self.job;
        let observe = self.observe;
        let mut done = self.done;
        while !done && (exhausted || events.len() - at >= need) {
            let slot = (round % WHEEL as u64) as usize;
            ready |= wheel[slot];
            wheel[slot] = 0;
            occupied &= !(1 << slot);
            let mut left = slots;
            while ready != 0 && left > 0 {
                let i = ready.trailing_zeros() as usize % MAX_CONSUMERS;
                ready &= ready - 1;
                left -= 1;
                // Apply the event held: an earlier step than the last applied reorders its
                // shipment (counted once, with the flag).
                let held_job = job[i];
                let (shipment, step) = ((held_job >> 8) as usize, (held_job & 0xff) as u8);
                if let Some(state) = store.get_mut(shipment) {
                    let old = *state;
                    // `old & STEP_MASK` is the last step applied + 1 (0 for none); bit 7
                    // the flag. Branch-free: whether the flag rises is data, not control.
                    let newly = u8::from(old & STEP_MASK > step + 1) & !(old >> 7);
                    *state = ((old | (newly << 7)) & REORDERED) | (step + 1);
                    reordered += u32::from(newly);
                }
                applied += 1;
                // Take the next event.
                let bit = 1u64 << i;
                match events.get(at) {
                    Some(&e) => {
                        at += 1;
                        job[i] = e >> JOB_SHIFT;
                        let slot = ((round + u64::from(e & DELAY_MASK)) % WHEEL as u64) as usize;
                        wheel[slot] |= bit;
                        occupied |= 1 << slot;
                    }
                    None => held &= !bit,
                }
            }
            if observe {
                let busy = u64::from(held.count_ones());
                let state = RoundState {
                    round,
                    // At most `slots` per round; the reordered at most the applied.
                    applied: (applied - self.applied_before) as u32,
                    reordered: reordered - self.reordered_before,
                    busy_consumers: busy as u32,
                    queue_left: total - applied - busy,
                };
                self.applied_before = applied;
                self.reordered_before = reordered;
                observer.consumers_round(&state);
                observer.round_done(round);
                let next = next_round(round, ready, occupied);
                if applied == total || next == round {
                    done = true;
                    break;
                }
                report_skipped(observer, &state, round + 1..next);
                round = next;
            } else {
                observer.round_done(round);
                let next = next_round(round, ready, occupied);
                if applied == total || next == round {
                    done = true;
                    break;
                }
                round = next;
            }
        }
        self.done = done;
        self.ready = ready;
        self.occupied = occupied;
        self.held = held;
        self.round = round;
        self.at = at;
        self.applied = applied;
        self.reordered = reordered;
    }

    /// Consumer `i` takes the next event, if any, in the current round.
    #[inline(always)]
    fn take(&mut self, i: u32, events: &[u32]) {
        let bit = 1u64 << (i % 64);
        match events.get(self.at) {
            Some(&e) => {
                self.at += 1;
                self.job[i as usize % MAX_CONSUMERS] = e >> JOB_SHIFT;
                let slot = (self.round + u64::from(e & DELAY_MASK)) % WHEEL as u64;
                self.wheel[slot as usize] |= bit;
                self.occupied |= 1 << slot;
                self.held |= bit;
            }
            None => self.held &= !bit,
        }
    }

    /// Reports round 0, then moves to the next round in which a consumer finishes.
    #[inline]
    fn end_round<O: Observer>(&mut self, observer: &mut O) {
        let state = self.observe.then(|| self.state());
        if let Some(state) = state {
            observer.consumers_round(&state);
        }
        observer.round_done(self.round);
        if self.applied == self.total {
            self.done = true;
            return;
        }
        let next = if self.ready != 0 {
            self.round + 1
        } else if self.occupied != 0 {
            let from = ((self.round + 1) % WHEEL as u64) as u32;
            self.round + 1 + u64::from(self.occupied.rotate_right(from).trailing_zeros())
        } else {
            // Unreachable while events remain: each is queued or held.
            self.done = true;
            return;
        };
        if let Some(state) = state {
            report_skipped(observer, &state, self.round + 1..next);
        }
        self.round = next;
    }

    /// The state at the end of the current round; starts the next round's counts.
    fn state(&mut self) -> RoundState {
        let busy = u64::from(self.held.count_ones());
        let state = RoundState {
            round: self.round,
            applied: (self.applied - self.applied_before) as u32,
            reordered: self.reordered - self.reordered_before,
            busy_consumers: busy as u32,
            queue_left: self.total - self.applied - busy,
        };
        self.applied_before = self.applied;
        self.reordered_before = self.reordered;
        state
    }

    fn metrics(&self, p: &Params) -> Metrics {
        lane_metrics(self.store, p, self.round, self.reordered, self.total)
    }
}

/// Plays the whole queue (`events`, packed, in order) to one unobserved configuration and
/// returns the round of its last applied event; the store ends as [`WheelLane`] leaves it,
/// and its flags count the reordered shipments. `observer` sees `round_done` for every
/// round played (not for the rounds skipped), as with [`WheelLane`].
///
/// The same rounds as [`WheelLane::play`], cheaper: while the queue holds the events a whole
/// round may take, no consumer ever runs dry, so the round needs no check per event (one
/// slice of `slots` events a round), no `held` and no count of events applied; the
/// reordered flag is data (`old > step + 1`, the flag itself above any step), not a counter.
/// The last few rounds, where consumers run dry, go to [`WheelLane`].
fn play_whole<O: Observer>(
    events: &[u32],
    n: u32,
    slots: u32,
    store: &mut [u8],
    observer: &mut O,
) -> u64 {
    store.fill(0);
    if n <= slots {
        // The store never binds (see `batch`).
        match n {
            1 => return play_serial(events, store, observer),
            2 => return play_free::<2, O>(events, store, observer),
            3 => return play_free::<3, O>(events, store, observer),
            4 => return play_free::<4, O>(events, store, observer),
            5 => return play_free::<5, O>(events, store, observer),
            6 => return play_free::<6, O>(events, store, observer),
            7 => return play_free::<7, O>(events, store, observer),
            8 => return play_free::<8, O>(events, store, observer),
            _ => {}
        }
    }
    let s = slots.min(n) as usize;
    let n = n.min(MAX_CONSUMERS as u32);
    let mut lane = Whole {
        wheel: [0; WHEEL],
        job: [0; MAX_CONSUMERS],
        occupied: 0,
        ready: 0,
        round: 0,
        at: 0,
    };
    // Round 0: every consumer takes an event (the queue has at least one; those that find
    // none hold nothing).
    let mut held = 0u64;
    for i in 0..n as usize {
        if let Some(&e) = events.get(lane.at) {
            lane.at += 1;
            lane.job[i] = e >> JOB_SHIFT;
            let slot = (e & DELAY_MASK) as usize % WHEEL;
            lane.wheel[slot] |= 1 << i;
            lane.occupied |= 1 << slot;
            held |= 1 << i;
        }
    }
    observer.round_done(0);
    lane.round = next_round(0, lane.ready, lane.occupied);
    // Whole rounds with the width known at compile time for the lesson's (unrolled).
    match s {
        1 => lane.rounds::<1, O>(events, s, store, observer),
        2 => lane.rounds::<2, O>(events, s, store, observer),
        3 => lane.rounds::<3, O>(events, s, store, observer),
        4 => lane.rounds::<4, O>(events, s, store, observer),
        _ => lane.rounds::<0, O>(events, s, store, observer),
    }
    // The rest, consumers running dry, on the general wheel lane.
    let total = events.len() as u64;
    let applied = lane.at as u64 - u64::from(held.count_ones());
    let mut wheel_lane = WheelLane {
        wheel: lane.wheel,
        occupied: lane.occupied,
        ready: lane.ready,
        held,
        job: lane.job,
        n,
        slots: s as u32,
        total,
        store,
        round: lane.round,
        applied,
        reordered: 0,
        at: lane.at,
        started: true,
        done: applied == total,
        observe: false,
        applied_before: 0,
        reordered_before: 0,
    };
    wheel_lane.play(events, true, observer);
    wheel_lane.round
}

/// [`play_whole`]'s state between rounds while every consumer holds an event: the
/// [`WheelLane`] fields that change, `held` being all of them.
struct Whole {
    wheel: [u64; WHEEL],
    job: [u32; MAX_CONSUMERS],
    occupied: u64,
    ready: u64,
    round: u64,
    at: usize,
}

impl Whole {
    /// Plays whole rounds of at most `slots` events (`S`, or `slots` for `S = 0`) while the
    /// queue holds `slots` more events: every consumer holds an event throughout, so some
    /// round is always pending and [`next_round`] moves on.
    #[inline(never)]
    fn rounds<const S: usize, O: Observer>(
        &mut self,
        events: &[u32],
        slots: usize,
        store: &mut [u8],
        observer: &mut O,
    ) {
        let width = if S == 0 { slots } else { S };
        let (mut ready, mut occupied, mut round, mut at) =
            (self.ready, self.occupied, self.round, self.at);
        let wheel = &mut self.wheel;
        let job = &mut self.job;
        while let Some(take) = events.get(at..at + width) {
            let slot = round as usize % WHEEL;
            ready |= wheel[slot];
            wheel[slot] = 0;
            occupied &= !(1 << slot);
            let mut k = 0;
            while k < take.len() {
                if ready == 0 {
                    break;
                }
                let i = ready.trailing_zeros() as usize % MAX_CONSUMERS;
                ready &= ready - 1;
                apply_flagged(store, job[i]);
                let e = take[k];
                k += 1;
                job[i] = e >> JOB_SHIFT;
                let slot = (round as u32).wrapping_add(e) as usize % WHEEL;
                wheel[slot] |= 1 << i;
                occupied |= 1 << slot;
            }
            at += k;
            observer.round_done(round);
            round = next_round(round, ready, occupied);
        }
        (self.ready, self.occupied, self.round, self.at) = (ready, occupied, round, at);
    }
}

/// `N` consumers (2 to 8) and a store that never binds (N ≤ S): every consumer applies in
/// the round it finishes, so events apply in order of (round finished, consumer), each
/// consumer taking the next event as it applies: the earliest of `N` keys `round << 6 |
/// consumer` (rounds below 2^56: they fit) picks the next one, with no branch on the data
/// and no round that applies nothing. Returns the round of the last applied event; reports
/// `round_done` for round 0 and every round that applies, as [`WheelLane`] does.
#[inline(never)]
fn play_free<const N: usize, O: Observer>(
    events: &[u32],
    store: &mut [u8],
    observer: &mut O,
) -> u64 {
    const CONSUMER: u64 = 63;
    // Indexed only by constants, so the keys live in registers: the loop's dependent chain
    // is the minimum's tree, a compare and a select (the next key is the minimum plus the
    // delay, computed beside them).
    let mut key = [IDLE; N];
    let mut job = [0u32; 8];
    let (first_events, rest) = events.split_at(N.min(events.len()));
    for (i, (key, &e)) in key.iter_mut().zip(first_events).enumerate() {
        job[i % 8] = e >> JOB_SHIFT;
        *key = (u64::from(e & DELAY_MASK) << 6) | i as u64;
    }
    observer.round_done(0);
    let mut last = 0;
    // Every event after the first N is taken by the consumer that applies the one before.
    for &e in rest {
        let first = min_key(&key);
        let i = (first & CONSUMER) as usize % 8;
        let round = first >> 6;
        if round != last {
            observer.round_done(round);
            last = round;
        }
        apply_flagged(store, job[i]);
        job[i] = e >> JOB_SHIFT;
        let next = first + (u64::from(e & DELAY_MASK) << 6);
        // Keys differ in their low bits: exactly the consumer's is replaced.
        for k in key.iter_mut() {
            *k = if *k == first { next } else { *k };
        }
    }
    // The queue is empty: consumers finish their last events.
    loop {
        let first = min_key(&key);
        if first == IDLE {
            return last;
        }
        let round = first >> 6;
        if round != last {
            observer.round_done(round);
            last = round;
        }
        apply_flagged(store, job[(first & CONSUMER) as usize % 8]);
        for k in key.iter_mut() {
            *k = if *k == first { IDLE } else { *k };
        }
    }
}

/// Applies `job` (`shipment << 8 | step`) to the store, flagging the shipment when an earlier
/// step than the last applied one comes: `old & STEP_MASK` is the last step applied + 1 (0
/// for none), bit 7 the flag, so `old > step + 1` is that condition for an unflagged
/// shipment and always true for a flagged one (step + 1 < 128): the flag rises once and
/// stays, with no branch and no counter (the flags are counted at the end).
#[inline(always)]
fn apply_flagged(store: &mut [u8], job: u32) {
    let step1 = (job as u8).wrapping_add(1);
    if let Some(state) = store.get_mut((job >> 8) as usize) {
        *state = step1 | (u8::from(*state > step1) << 7);
    }
}

/// The smallest of `N` keys, as a tree of minimums (a short dependent chain).
#[inline(always)]
fn min_key<const N: usize>(key: &[u64; N]) -> u64 {
    match key.as_slice() {
        [a, b] => (*a).min(*b),
        [a, b, c] => (*a).min(*b).min(*c),
        [a, b, c, d] => (*a).min(*b).min((*c).min(*d)),
        _ => {
            let half = N / 2;
            let low = key[..half].iter().copied().fold(IDLE, u64::min);
            let high = key[half..].iter().copied().fold(IDLE, u64::min);
            low.min(high)
        }
    }
}

/// One consumer: it applies each event `max(rounds, 1)` rounds after taking the one before
/// (it takes the next at once, and the store, with at least one slot, never refuses a
/// lone consumer), so events apply in queue order and the last one in the round that sums
/// every event's delay. Returns that round.
#[inline(never)]
fn play_serial<O: Observer>(events: &[u32], store: &mut [u8], observer: &mut O) -> u64 {
    let mut round = 0u64;
    observer.round_done(0);
    for &e in events {
        round += u64::from(e & DELAY_MASK);
        apply_flagged(store, e >> JOB_SHIFT);
        observer.round_done(round);
    }
    round
}

/// Returns the round after `round` in which some consumer may apply: the next one if some
/// finished consumer is waiting, else the wheel's next occupied slot (every pending round
/// is within `WHEEL − 1` of `round`); `round` itself when nothing is pending.
#[inline(always)]
fn next_round(round: u64, ready: u64, occupied: u64) -> u64 {
    if ready != 0 {
        round + 1
    } else if occupied != 0 {
        let from = ((round + 1) % WHEEL as u64) as u32;
        round + 1 + u64::from(occupied.rotate_right(from).trailing_zeros())
    } else {
        round
    }
}

/// Packs an event for the timing wheel: `shipment << 16 | step << 8 | max(rounds, 1)`
/// (rounds above 255 are cut to 255: only for workloads [`wheel_fits`] admits).
#[inline(always)]
fn pack(shipment: u32, step: u32, rounds: u32) -> u32 {
    (shipment << 16) | (step << JOB_SHIFT) | rounds.clamp(1, DELAY_MASK)
}

/// Generates the workload whole into `keys` and `events` and sorts it into queue order,
/// returning the packed events ([`pack`]); `None` when it has more events than they hold
/// or a shipment's arrivals are out of step order (the streaming [`Queue`] then reports
/// that).
///
/// The queue order is the program's stable sort by arrival: (arrival, shipment, step), as
/// generation order is (shipment, step). Each event's key is one `u128`, the arrival's bits
/// (non-negative, never −0 or NaN: they order like the numbers) above its packed event
/// (shipment, then step, above the rounds), so sorting keys sorts events and no two keys are
/// equal. A counting sort by `floor(arrival · events / top)` (monotone in the arrival: a
/// product by a positive constant and a floor never reverse an order) scatters them into
/// as many buckets as events, about one each; each bucket is then sorted exactly. The
/// draws are made again for the scatter instead of being stored (a hash each, ≈ 1.5 ns).
fn sort_whole<'s, D: WorkloadDraws>(
    p: &Params,
    draws: &mut D,
    order: &mut [u16],
    keys: &mut [u128],
    events: &'s mut [u32],
) -> Option<&'s [u32]> {
    let total = usize::try_from(p.events()).ok()?;
    if total == 0 || total > keys.len().min(events.len()) || !wheel_fits(p) {
        return None;
    }
    let order = order.get_mut(..p.shipments as usize)?;
    roughly_by_start(order, draws);
    let keys = keys.get_mut(..total)?;
    let counts = events.get_mut(..total)?;
    let scale = f64::from(p.shipments);
    let gap = p.queue_gap;
    let steps = p.events_per_shipment;
    let spread = f64::from(p.event_rounds_spread);
    // Every arrival is at most (shipments + steps) · gap: a start below shipments · gap,
    // then under `steps` gaps. Rounding may pass it: the last bucket takes the rest.
    let top = (scale + f64::from(steps)) * gap;
    let per = if top > 0.0 { total as f64 / top } else { 0.0 };
    // Through `u32` (every bucket fits: `total` is at most 65,536 × 126), a cheaper
    // saturating conversion than to `usize`.
    let last = total as u32 - 1;
    let bucket = |t: f64| ((t * per) as u32).min(last) as usize;
    counts.fill(0);
    for &g in order.iter() {
        let g = u32::from(g);
        let start = draws.draw(g, 0) * scale * gap;
        let mut previous = start;
        for k in 0..steps {
            let t = start + f64::from(k) * gap + draws.draw(g, 1 + 2 * k) * gap;
            if t < previous {
                return None;
            }
            previous = t;
            if let Some(c) = counts.get_mut(bucket(t)) {
                *c += 1;
            }
        }
    }
    let mut sum = 0;
    let mut largest = 0;
    for c in counts.iter_mut() {
        let n = *c;
        largest = largest.max(n);
        *c = sum;
        sum += n;
    }
    for &g in order.iter() {
        let g = u32::from(g);
        let start = draws.draw(g, 0) * scale * gap;
        for k in 0..steps {
            let t = start + f64::from(k) * gap + draws.draw(g, 1 + 2 * k) * gap;
            let rounds = if k == steps - 1 {
                p.final_event_rounds
            } else {
                // floor(r · spread) for r in [0, 1) is below 2^32: truncation is floor.
                p.event_rounds_min + (draws.draw(g, 2 + 2 * k) * spread) as u32
            };
            let key = (u128::from(t.to_bits()) << 64) | u128::from(pack(g, k, rounds));
            if let Some(c) = counts.get_mut(bucket(t)) {
                if let Some(slot) = keys.get_mut(*c as usize) {
                    *slot = key;
                }
                *c += 1;
            }
        }
    }
    if largest <= SMALL_BUCKET {
        // No key is out of place by more than its bucket: one insertion sort over the whole
        // array moves each key only within its bucket, with no loop over the buckets.
        insertion_sort(keys);
    } else {
        // Each count is now its bucket's end.
        let mut begin = 0;
        for &end in counts.iter() {
            let end = end as usize;
            if let Some(b) = keys.get_mut(begin..end) {
                if b.len() <= SMALL_BUCKET as usize {
                    insertion_sort(b);
                } else {
                    b.sort_unstable();
                }
            }
            begin = end;
        }
    }
    for (e, &k) in counts.iter_mut().zip(keys.iter()) {
        *e = k as u32;
    }
    Some(counts)
}

/// Orders shipments `0..order.len()` roughly by start: a counting sort into 256 buckets by
/// the first draw (the start grows with it), generation order within a bucket. Visiting
/// shipments in this order, [`sort_whole`] counts and scatters arrivals into a window of
/// buckets a few kilobytes wide that moves along (cache hits), not all over its arrays.
fn roughly_by_start<D: WorkloadDraws>(order: &mut [u16], draws: &mut D) {
    const BUCKETS: usize = 256;
    let bucket = |r: f64| ((r * BUCKETS as f64) as usize).min(BUCKETS - 1);
    let mut next = [0u32; BUCKETS];
    for g in 0..order.len() as u32 {
        next[bucket(draws.draw(g, 0))] += 1;
    }
    let mut sum = 0;
    for n in next.iter_mut() {
        let count = *n;
        *n = sum;
        sum += count;
    }
    for g in 0..order.len() as u32 {
        let b = bucket(draws.draw(g, 0));
        if let Some(slot) = order.get_mut(next[b] as usize) {
            *slot = g as u16; // g < MAX_SHIPMENTS = 2^16
        }
        next[b] += 1;
    }
}

/// The largest bucket [`sort_whole`] sorts by insertion.
const SMALL_BUCKET: u32 = 16;

/// Sorts keys in place by insertion (no two equal): for keys each at most a few places
/// from where they belong.
#[inline(always)]
fn insertion_sort(b: &mut [u128]) {
    for i in 1..b.len() {
        let x = b[i];
        let mut j = i;
        while j > 0 && b[j - 1] > x {
            b[j] = b[j - 1];
            j -= 1;
        }
        b[j] = x;
    }
}
