//! The reference engine: one configuration round by round, as the lesson program plays it,
//! for every input the model accepts — the lesson's queue and the options the lesson does not
//! have (an arrival process, a bounded buffer, keyed routing, an outage). It is the engine to
//! read first; [`super::plan()`] sends it the runs with an option
//! ([`super::Plan::Reference`]), and the fast engines (`lanes/`, [`super::windowed`]) play the
//! lesson's inputs, each equal to this one bit for bit on them: the same metrics and the same
//! round states (the tests below check it on every lane engine the plan picks;
//! `tests/tests/engines.rs` checks every engine against the port of the lesson program).
//!
//! Each round, in this order: the round's arrivals join the queue while it has room (the
//! rest are dropped); up to S finished consumers, lowest index first, apply their events
//! (the lesson's rule, `store::apply`); free consumers, lowest index first, take the next
//! event of their partition (shared routing: the one queue). A consumer that takes an
//! event of `s` rounds in round `t` may apply it from round `t + max(s, 1)`: the lesson's
//! countdown. The run ends in the round the last admitted event is applied, once every
//! shipment has arrived; `rounds` counts rounds 0 to that one. Rounds in which nothing
//! arrives, applies or is taken are skipped in one step (and reported to an observer).
//!
//! Two queues, both held without storing an event's data (processing times come from the
//! lesson's draws, [`WorkloadDraws`], when an event is taken):
//! - the **lesson's queue** ([`LessonQueue`]): every event arrives in round 0, in the
//!   lesson's arrival order, kept as packed jobs (`shipment << 8 | step`, 4 bytes an event,
//!   in the room lent to sort the queue: [`Capacity::QueuedEvents`] when it is short); a
//!   buffer admits the first `buffer` of them.
//! - the **arrival process** ([`ArrivalQueue`]): shipments arrive in shipment order, so the
//!   queue is shipment-major and needs one count per shipment (its events admitted, a
//!   prefix of its steps: 2 bytes, the queue's `order` array).
//!
//! With keyed routing each consumer keeps a cursor into the queue that skips the other
//! partitions' events. The buffer bounds all partitions together (one broker's memory).

use super::per_shipment;
use super::queue::{Queue, QueueSpace};
use super::spec::Params;
use super::spec::{LaneKey, Metrics, RoundState, Workload, MAX_CONSUMERS};
use super::spec::{Outage, Routing};
use super::store::{self, lane_metrics, REORDERED};
use super::workload::WorkloadDraws;
use crate::error::{Capacity, Error};
use crate::rng::splitmix64;
use crate::Observer;

/// A consumer holding no event.
const IDLE: u64 = u64::MAX;

/// Tags the arrival stream's seed, so that it is no stream of the lesson's generator.
const ARRIVAL_STREAM: u64 = 0x6172_7269_7661_6c73; // "arrivals"

/// The arrival process's own stream: draw `g` (shipment `g`'s gap before it) is the top 53
/// bits of a SplitMix64 mix of the seed and `g`, a double in `[0, 1)`. It shares nothing
/// with the lesson's [`CounterHash`](crate::rng::CounterHash): the workload's draws are the
/// same with and without arrivals.
#[derive(Clone, Copy, Debug)]
pub struct ArrivalStream {
    key: u64,
}

impl ArrivalStream {
    /// Returns the stream of workload seed `seed`.
    pub const fn new(seed: u32) -> Self {
        Self {
            key: splitmix64(ARRIVAL_STREAM ^ seed as u64),
        }
    }

    /// Returns draw `shipment`, a double in `[0, 1)`.
    pub fn unit(&self, shipment: u32) -> f64 {
        (splitmix64(self.key ^ u64::from(shipment)) >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Returns the exponential gap before shipment `shipment` at `rate` shipments per
    /// round: `-ln(1 - u) / rate`.
    pub fn gap(&self, shipment: u32, rate: f64) -> f64 {
        -libm::log1p(-self.unit(shipment)) / rate
    }
}

/// What arrived in one round.
#[derive(Clone, Copy, Default)]
pub(crate) struct Arrived {
    /// Events that arrived.
    pub(crate) events: u64,
    /// Events admitted (the rest were dropped).
    pub(crate) admitted: u64,
    /// Shipments with a dropped event.
    pub(crate) dropped_shipments: u32,
}

/// A queue the reference engine plays.
pub(crate) trait FlowQueue {
    /// Admits round `round`'s arrivals while `room` events fit; called for every round
    /// played (skipped rounds have none: see [`FlowQueue::next_arrival`]).
    fn arrive(&mut self, round: u64, room: u64) -> Arrived;
    /// The next round with arrivals, if any are left.
    fn next_arrival(&self) -> Option<u64>;
    /// Takes the next admitted event of partition `part` (of `parts`), as a job
    /// `shipment << 8 | step`.
    fn take(&mut self, part: usize, parts: u32) -> Option<u32>;
}

/// The lesson's queue: jobs in arrival order, all arriving in round 0.
pub(crate) struct LessonQueue<'q> {
    jobs: &'q [u32],
    admitted: usize,
    arrived: bool,
    cursors: [u32; MAX_CONSUMERS],
}

impl<'q> LessonQueue<'q> {
    /// The queue of `jobs` (in arrival order), of which the first `admitted` fit.
    pub(crate) fn new(jobs: &'q [u32], admitted: usize) -> Self {
        Self {
            jobs,
            admitted: admitted.min(jobs.len()),
            arrived: false,
            cursors: [0; MAX_CONSUMERS],
        }
    }
}

impl FlowQueue for LessonQueue<'_> {
    fn arrive(&mut self, round: u64, _room: u64) -> Arrived {
        if self.arrived || round != 0 {
            return Arrived::default();
        }
        self.arrived = true;
        // The shipments dropped are counted by the caller (it marks them once per batch).
        Arrived {
            events: self.jobs.len() as u64,
            admitted: self.admitted as u64,
            dropped_shipments: 0,
        }
    }

    fn next_arrival(&self) -> Option<u64> {
        (!self.arrived).then_some(0)
    }

    fn take(&mut self, part: usize, parts: u32) -> Option<u32> {
        let cursor = self.cursors.get_mut(part)?;
        let mut c = *cursor as usize;
        let admitted = self.jobs.get(..self.admitted)?;
        while let Some(&job) = admitted.get(c) {
            c += 1;
            if parts <= 1 || (job >> 8) % parts == part as u32 {
                *cursor = c as u32;
                return Some(job);
            }
        }
        *cursor = c as u32;
        None
    }
}

/// The arrival process's queue: shipment `g` arrives in round [`ArrivalQueue::round_of`]
/// its arrival time, and `admitted[g]` of its events (a prefix of its steps) fit.
pub(crate) struct ArrivalQueue<'q> {
    admitted: &'q mut [u16],
    steps: u32,
    stream: ArrivalStream,
    rate: f64,
    outage: Option<Outage>,
    /// The first shipment not yet arrived, its arrival time and round.
    next: u32,
    time: f64,
    next_round: u64,
    /// Per partition, the next event to look at: (shipment, step).
    cursors: [(u32, u32); MAX_CONSUMERS],
}

impl<'q> ArrivalQueue<'q> {
    /// The queue of workload `w` (with an arrival rate), one count per shipment in
    /// `admitted` (which must hold `w.shipments`).
    pub(crate) fn new(w: &Workload, admitted: &'q mut [u16], rate: f64) -> Self {
        let stream = ArrivalStream::new(w.seed);
        let mut q = Self {
            admitted,
            steps: w.events_per_shipment,
            stream,
            rate,
            outage: w.flow.outage,
            next: 0,
            time: 0.0,
            next_round: 0,
            cursors: [(0, 0); MAX_CONSUMERS],
        };
        for (i, c) in q.cursors.iter_mut().enumerate() {
            *c = (i as u32, 0);
        }
        q.time = stream.gap(0, rate);
        q.next_round = q.round_of(q.time);
        q
    }

    /// The round an arrival at `time` falls in, after the outage.
    fn round_of(&self, time: f64) -> u64 {
        // Times are finite and ≥ 0, below 2^42 for accepted rates: the conversion is floor.
        let due = time as u64;
        self.outage.map_or(due, |o| o.delay(due))
    }

    fn shipments(&self) -> u32 {
        self.admitted.len() as u32
    }
}

impl FlowQueue for ArrivalQueue<'_> {
    fn arrive(&mut self, round: u64, room: u64) -> Arrived {
        let mut a = Arrived::default();
        let mut room = room;
        let steps = u64::from(self.steps);
        while self.next < self.shipments() && self.next_round == round {
            let fit = room.min(steps);
            room -= fit;
            if let Some(count) = self.admitted.get_mut(self.next as usize) {
                *count = fit as u16; // fit <= steps <= 126
            }
            a.events += steps;
            a.admitted += fit;
            a.dropped_shipments += u32::from(fit < steps);
            self.next += 1;
            self.time += self.stream.gap(self.next, self.rate);
            self.next_round = self.round_of(self.time);
        }
        a
    }

    fn next_arrival(&self) -> Option<u64> {
        (self.next < self.shipments()).then_some(self.next_round)
    }

    fn take(&mut self, part: usize, parts: u32) -> Option<u32> {
        let stride = parts.max(1);
        let (mut g, mut k) = *self.cursors.get(part)?;
        let job = loop {
            if g >= self.next {
                break None;
            }
            let fit = u32::from(self.admitted.get(g as usize).copied().unwrap_or(0));
            if k < fit {
                let job = g << 8 | k;
                k += 1;
                if k == fit {
                    (g, k) = (g.saturating_add(stride), 0);
                }
                break Some(job);
            }
            (g, k) = (g.saturating_add(stride), 0);
        };
        if let Some(c) = self.cursors.get_mut(part) {
            *c = (g, k);
        }
        job
    }
}

/// Plays `queue` with lane `key` (its consumers and binding slots) and `routing`, applying
/// to `store` (one byte per shipment, zeroed), processing times from `draws`; `dropped_shipments`
/// are the lesson queue's (counted by the caller), added to the queue's own. Reports every
/// round to `observer` when `observe`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn play_flow<Q: FlowQueue, D: WorkloadDraws, O: Observer<RoundState>>(
    queue: &mut Q,
    draws: &mut D,
    w: &Workload,
    key: LaneKey,
    store: &mut [u8],
    dropped_shipments: u32,
    observer: &mut O,
    observe: bool,
) -> Metrics {
    let n = (key.consumers as usize).min(MAX_CONSUMERS);
    let parts = match w.flow.routing {
        Routing::Shared => 1,
        Routing::Keyed => key.consumers,
    };
    let buffer = w.flow.buffer.map_or(u64::MAX, u64::from);
    let mut ready = [IDLE; MAX_CONSUMERS];
    let mut job = [0u32; MAX_CONSUMERS];
    let (mut queued, mut busy, mut applied) = (0u64, 0u64, 0u64);
    let (mut max_backlog, mut dropped, mut dropped_shipments) = (0u64, 0u64, dropped_shipments);
    let mut reordered = 0u32;
    let mut round = 0u64;
    loop {
        let a = queue.arrive(round, buffer - queued);
        queued += a.admitted;
        dropped += a.events - a.admitted;
        dropped_shipments += a.dropped_shipments;
        let backlog = queued;
        max_backlog = max_backlog.max(backlog);
        let (mut slots, mut applied_now, mut reordered_now) = (key.slots, 0u32, 0u32);
        for (r, &j) in ready.iter_mut().zip(job.iter()).take(n) {
            if slots == 0 {
                break;
            }
            if *r <= round {
                slots -= 1;
                if let Some(state) = store.get_mut((j >> 8) as usize) {
                    let old = *state;
                    *state = store::apply(old, j as u8);
                    reordered_now += store::newly_reordered(old, *state);
                }
                *r = IDLE;
                busy -= 1;
                applied_now += 1;
            }
        }
        applied += u64::from(applied_now);
        reordered += reordered_now;
        for (i, (r, j)) in ready.iter_mut().zip(job.iter_mut()).take(n).enumerate() {
            if *r != IDLE {
                continue;
            }
            let part = if parts > 1 { i } else { 0 };
            let Some(taken) = queue.take(part, parts) else {
                if parts > 1 {
                    continue;
                }
                break;
            };
            let (g, step) = (taken >> 8, taken & 0xff);
            let rounds = w.rounds(step, || draws.draw(g, 2 + 2 * step));
            *r = round + u64::from(rounds.max(1));
            *j = taken;
            queued -= 1;
            busy += 1;
        }
        let state = RoundState {
            round,
            applied: applied_now,
            reordered: reordered_now,
            busy_consumers: busy as u32,
            queue_left: queued,
            arrived: a.events,
            dropped: a.events - a.admitted,
            backlog,
        };
        if observe {
            observer.round(&state);
        }
        // Every round played is done, observed or not (see `crate::Observer`).
        observer.round_done(round);
        let next_arrival = queue.next_arrival();
        if busy == 0 && queued == 0 && next_arrival.is_none() {
            break;
        }
        // The next round in which something can happen: a consumer may apply, or events
        // arrive (a free consumer found its partition empty, and only arrivals refill it).
        let next_ready = ready.iter().take(n).copied().min().unwrap_or(IDLE);
        let next = next_ready.min(next_arrival.unwrap_or(IDLE)).max(round + 1);
        if next == IDLE {
            // Unreachable: events queued wait for a busy consumer's partition.
            break;
        }
        if observe {
            super::report_skipped(observer, &state, round + 1..next);
        }
        round = next;
    }
    let wrong_and_rounds = lane_metrics(store, w, round, reordered, applied);
    debug_assert_eq!(
        reordered as usize,
        store.iter().filter(|&&s| s & REORDERED != 0).count()
    );
    Metrics {
        max_backlog,
        dropped_events: dropped,
        dropped_shipments,
        ..wrong_and_rounds
    }
}

/// Plays each lane of a batch ([`super::Plan::Reference`]) on the reference engine, pushing each
/// one's metrics to `out`: on the lesson's queue, generated once in arrival order into
/// `room` (4 bytes an event), or on the arrival process's (recreated per lane: its counts
/// live in the queue's `order`).
#[allow(clippy::too_many_arguments)]
pub(super) fn play_lanes<'s, D, O, const N: usize, const F: usize, const R: usize>(
    w: &Workload,
    first: &Params,
    mut draws: D,
    space: &mut QueueSpace<N, F>,
    room: &mut [u32],
    lanes: impl Iterator<Item = (LaneKey, &'s mut [u8])>,
    observer: &mut O,
    observe: bool,
    out: &mut heapless::Vec<Metrics, R>,
) -> Result<(), Error>
where
    D: WorkloadDraws,
    O: Observer<RoundState>,
{
    let shipments = w.shipments as usize;
    match w.flow.arrival_rate {
        Some(rate) => {
            for (key, store) in lanes {
                store.fill(0);
                let counts = per_shipment::<_, N>(&mut space.order, shipments)?;
                let mut queue = ArrivalQueue::new(w, counts, rate);
                let m = play_flow(&mut queue, &mut draws, w, key, store, 0, observer, observe);
                let _ = out.push(m);
            }
        }
        None => {
            let total = room.len();
            let events = usize::try_from(w.events()).unwrap_or(usize::MAX);
            let jobs = room.get_mut(..events).ok_or(Error::CapacityExceeded {
                capacity: Capacity::QueuedEvents,
                limit: u32::try_from(total).unwrap_or(u32::MAX),
            })?;
            let queue = Queue::new(first, &mut draws, space)?;
            for (slot, event) in jobs.iter_mut().zip(queue) {
                let event = event?;
                *slot = event.shipment << 8 | event.step;
            }
            let jobs = &*jobs;
            let admitted = w.flow.buffer.map_or(events, |b| (b as usize).min(events));
            // The shipments with a dropped event: marked once in `order` (free again).
            let marks = per_shipment::<_, N>(&mut space.order, shipments)?;
            marks.fill(0);
            let mut dropped_shipments = 0u32;
            for &job in &jobs[admitted..] {
                if let Some(mark) = marks.get_mut((job >> 8) as usize) {
                    dropped_shipments += u32::from(*mark == 0);
                    *mark = 1;
                }
            }
            for (key, store) in lanes {
                store.fill(0);
                let mut queue = LessonQueue::new(jobs, admitted);
                let m = play_flow(
                    &mut queue,
                    &mut draws,
                    w,
                    key,
                    store,
                    dropped_shipments,
                    observer,
                    observe,
                );
                let _ = out.push(m);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::play_lanes;
    use crate::consumers::{
        plan, run, run_with, LessonDraws, Metrics, Params, Plan, QueueSpace, Workspace,
        DEFAULT_IN_FLIGHT,
    };
    use crate::trace::{CsvTrace, Folded};

    const SHIPMENTS: usize = 48;
    /// Room for a workload of `SHIPMENTS` shipments of 7 events, whole.
    const ROOM: usize = SHIPMENTS * 7;

    /// `p` on the reference engine: its metrics and, when `observe`, its rounds' trace.
    fn reference(p: &Params, observe: bool) -> (Metrics, Folded) {
        let mut space = QueueSpace::<SHIPMENTS>::new();
        let mut room = [0u32; ROOM];
        let mut store = [0u8; SHIPMENTS];
        let mut trace = CsvTrace::new(Folded::NEW, true);
        let mut out = heapless::Vec::<Metrics, 1>::new();
        let lanes = core::iter::once((p.lane_key(), &mut store[..p.shipments as usize]));
        let w = p.workload();
        let draws = LessonDraws::new(p);
        play_lanes(
            &w, p, draws, &mut space, &mut room, lanes, &mut trace, observe, &mut out,
        )
        .unwrap();
        assert!(trace.result.is_ok());
        (out[0], trace.out)
    }

    /// The lesson's rules on small workloads: every lane key kind (one consumer, N ≤ S,
    /// N > S) and processing times below and above the wheel's 64 rounds.
    fn cases() -> impl Iterator<Item = Params> {
        let shapes = [
            (1, 1),
            (1, 4),
            (2, 2),
            (3, 4),
            (4, 2),
            (6, 4),
            (8, 2),
            (9, 9),
            (12, 3),
        ];
        let times = [(6, 1, 3), (1, 1, 0), (70, 2, 5), (3, 1, 90)];
        shapes.into_iter().flat_map(move |(consumers, slots)| {
            times
                .into_iter()
                .enumerate()
                .map(move |(i, (last, min, spread))| Params {
                    consumers,
                    slots,
                    shipments: SHIPMENTS as u32 - i as u32,
                    seed: 7 + i as u32 + consumers,
                    final_event_rounds: last,
                    event_rounds_min: min,
                    event_rounds_spread: spread,
                    queue_gap: [1.0, 0.0, 0.25, 3.0][i],
                    ..Params::default()
                })
        })
    }

    #[test]
    fn the_fast_engines_equal_the_reference_on_the_lessons_inputs() {
        let mut engines = [false; 3];
        for p in cases() {
            p.validate().unwrap();
            // Observed: the wheel or the general engine, each round reported.
            let (m, rounds) = reference(&p, true);
            let mut ws = Workspace::<SHIPMENTS>::new();
            let mut trace = CsvTrace::new(Folded::NEW, true);
            let fast = run_with(&p, LessonDraws::new(&p), &mut ws, &mut trace).unwrap();
            assert!(trace.result.is_ok());
            assert_eq!(fast, m, "{p:?}");
            assert_eq!(trace.out, rounds, "{p:?}");
            assert!(rounds.len() > 0);
            // Unobserved, sorted whole when the wheel fits (the whole-queue lanes).
            let mut sorted = Workspace::<SHIPMENTS, DEFAULT_IN_FLIGHT, 1, ROOM>::new();
            assert_eq!(
                run(&p, &mut sorted).unwrap(),
                reference(&p, false).0,
                "{p:?}"
            );
            match plan(&p.workload(), false, ROOM) {
                Plan::SortedWhole { .. } => engines[0] = true,
                Plan::MergedWheel => engines[1] = true,
                Plan::MergedEvent => engines[2] = true,
                Plan::Reference => panic!("a lesson input planned as a flow: {p:?}"),
            }
        }
        // Sorted whole, and merged on the general engine (wheel-fitting workloads always fit
        // the room here; the observed runs above played the merged wheel).
        assert!(engines[0] && engines[2], "{engines:?}");
    }
}
