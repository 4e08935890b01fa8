//! The timing wheel engine.

use crate::consumers::queue::Queue;
use crate::consumers::spec::{report_skipped, Reported};
use crate::consumers::spec::{LaneKey, Metrics, RoundState, Workload, MAX_CONSUMERS};
use crate::consumers::store::{self, lane_metrics};
use crate::consumers::workload::WorkloadDraws;
use crate::consumers::workload::{DELAY_MASK, JOB_SHIFT};
use crate::error::Error;
use crate::Observer;

/// Slots of the timing wheel: processing times below this many rounds use [`WheelLane`].
pub(crate) const WHEEL: usize = 64;

/// Packed events buffered for the wheel's lanes (4 bytes each, on the stack).
pub(crate) const WHEEL_BUFFER: usize = 256;

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
pub(crate) struct WheelLane<'s> {
    /// Per round modulo [`WHEEL`]: the consumers that finish in it.
    pub(crate) wheel: [u64; WHEEL],
    /// Bit `j`: `wheel[j]` is not empty.
    pub(crate) occupied: u64,
    /// Finished consumers not yet applied.
    pub(crate) ready: u64,
    /// Consumers holding an event (ready ones included).
    pub(crate) held: u64,
    /// Per consumer: the event it holds, as `shipment << 8 | step`.
    pub(crate) job: [u32; MAX_CONSUMERS],
    pub(crate) n: u32,
    /// `min(slots, n)`: no round applies more, and applying more than N is never limited.
    pub(crate) slots: u32,
    pub(crate) total: u64,
    pub(crate) store: &'s mut [u8],
    /// See [`Lane::round`](super::event::Lane::round): below 2^56.
    pub(crate) round: u64,
    pub(crate) applied: u64,
    pub(crate) reordered: u32,
    /// The next event to take, an index into the buffer being played.
    pub(crate) at: usize,
    pub(crate) started: bool,
    pub(crate) done: bool,
    pub(crate) observe: bool,
    pub(crate) reported: Reported,
}

impl<'s> WheelLane<'s> {
    pub(crate) fn new(key: LaneKey, total: u64, store: &'s mut [u8], observe: bool) -> Self {
        let LaneKey {
            consumers: n,
            slots,
        } = key;
        store.fill(0);
        Self {
            wheel: [0; WHEEL],
            occupied: 0,
            ready: 0,
            held: 0,
            job: [0; MAX_CONSUMERS],
            n,
            slots,
            total,
            store,
            round: 0,
            applied: 0,
            reordered: 0,
            at: 0,
            started: false,
            done: false,
            observe,
            reported: Reported::NONE,
        }
    }

    /// Plays whole rounds while `events[self.at..]` holds what a round may take (or, once
    /// the queue is `exhausted`, until every event is applied).
    #[inline]
    pub(crate) fn feed<O: Observer<RoundState>>(
        &mut self,
        events: &[u32],
        exhausted: bool,
        observer: &mut O,
    ) {
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
    pub(crate) fn play<O: Observer<RoundState>>(
        &mut self,
        events: &[u32],
        exhausted: bool,
        observer: &mut O,
    ) {
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
                    // Branch-free: whether the flag rises is data, not control.
                    let old = *state;
                    *state = store::apply(old, step);
                    reordered += store::newly_reordered(old, *state);
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
                let state = self.reported.state(round, applied, reordered, busy, total);
                observer.round(&state);
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
    pub(crate) fn take(&mut self, i: u32, events: &[u32]) {
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
    pub(crate) fn end_round<O: Observer<RoundState>>(&mut self, observer: &mut O) {
        let state = self.observe.then(|| self.state());
        if let Some(state) = state {
            observer.round(&state);
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
    pub(crate) fn state(&mut self) -> RoundState {
        let busy = u64::from(self.held.count_ones());
        let (applied, reordered) = (self.applied, self.reordered);
        self.reported
            .state(self.round, applied, reordered, busy, self.total)
    }

    pub(crate) fn metrics(&self, w: &Workload) -> Metrics {
        lane_metrics(self.store, w, self.round, self.reordered, self.total)
    }
}

/// Plays the queue to every lane of the timing wheel engine: a buffer of packed events
/// ([`Queue::fill_packed`]) is refilled behind the slowest lane, each lane playing whole
/// rounds while the buffer holds the events a round can take.
pub(crate) fn play_wheel<D: WorkloadDraws, O: Observer<RoundState>>(
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
pub(crate) fn wheel_fits(p: &Workload) -> bool {
    let longest_other = if p.events_per_shipment > 1 {
        // floor(r · spread) < spread: a bound.
        u64::from(p.event_rounds_min) + u64::from(p.event_rounds_spread)
    } else {
        0
    };
    u64::from(p.final_event_rounds).max(longest_other) < WHEEL as u64
}

/// Returns the round after `round` in which some consumer may apply: the next one if some
/// finished consumer is waiting, else the wheel's next occupied slot (every pending round
/// is within `WHEEL − 1` of `round`); `round` itself when nothing is pending.
#[inline(always)]
pub(crate) fn next_round(round: u64, ready: u64, occupied: u64) -> u64 {
    if ready != 0 {
        round + 1
    } else if occupied != 0 {
        let from = ((round + 1) % WHEEL as u64) as u32;
        round + 1 + u64::from(occupied.rotate_right(from).trailing_zeros())
    } else {
        round
    }
}
