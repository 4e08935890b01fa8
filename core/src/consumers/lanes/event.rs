//! The general event-driven engine.

use super::IDLE;
use crate::consumers::queue::{Event, Queue};
use crate::consumers::spec::{report_skipped, Reported};
use crate::consumers::spec::{LaneKey, Metrics, RoundState, Workload, MAX_CONSUMERS};
use crate::consumers::store::{self, lane_metrics};
use crate::consumers::workload::WorkloadDraws;
use crate::error::Error;
use crate::Observer;

/// Events generated at a time and played to every lane (16 bytes each, on the stack).
pub(crate) const CHUNK: usize = 64;

/// One configuration's run, event-driven: its cost grows with the events, not with rounds ×
/// consumers.
///
/// A consumer that takes an event with processing time `d` in round `r` may apply it from
/// round `r + max(d, 1)` (it counts down once per round, and a zero time still waits for the
/// next round). Rounds in which no consumer may apply are skipped in one step. The lane is a
/// state machine so that several can share one queue: [`Lane::advance`] runs until a
/// consumer needs the next event, [`Lane::feed`] hands it over.
pub(crate) struct Lane<'s> {
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
    reported: Reported,
}

impl<'s> Lane<'s> {
    pub(crate) fn new(key: LaneKey, total: u64, store: &'s mut [u8], observe: bool) -> Self {
        let LaneKey {
            consumers: n,
            slots,
        } = key;
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
            reported: Reported::NONE,
        }
    }

    /// Plays `events` (the queue's next ones, in order) to this lane: it runs until it needs
    /// an event beyond them or, once the queue is `exhausted`, until every event is applied.
    #[inline]
    pub(crate) fn feed<O: Observer<RoundState>>(
        &mut self,
        events: &[Event],
        exhausted: bool,
        observer: &mut O,
    ) {
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
    pub(crate) fn advance<O: Observer<RoundState>>(&mut self, observer: &mut O) -> bool {
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
                observer.round(&state);
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
    pub(crate) fn state(&mut self) -> RoundState {
        let busy = self.ready[..self.n].iter().filter(|&&r| r != IDLE).count() as u64;
        let (applied, reordered) = (self.applied, self.reordered);
        self.reported
            .state(self.round, applied, reordered, busy, self.total)
    }

    pub(crate) fn apply(&mut self, job: u32) {
        let (shipment, step) = (job >> 8, job as u8);
        let state = &mut self.store[shipment as usize];
        let old = *state;
        *state = store::apply(old, step);
        self.reordered += store::newly_reordered(old, *state);
        self.applied += 1;
    }

    pub(crate) fn metrics(&self, w: &Workload) -> Metrics {
        lane_metrics(self.store, w, self.round, self.reordered, self.total)
    }
}

/// Plays the queue to every lane of the general engine, a chunk of events at a time.
pub(crate) fn play_general<D: WorkloadDraws, O: Observer<RoundState>>(
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
