//! Unobserved lanes on a queue sorted whole.

use super::wheel::{next_round, WheelLane, WHEEL};
use super::IDLE;
use crate::consumers::plan::WholeLane;
use crate::consumers::spec::Reported;
use crate::consumers::spec::{LaneKey, RoundState, MAX_CONSUMERS};
use crate::consumers::store::apply_flagged;
use crate::consumers::workload::{DELAY_MASK, JOB_SHIFT};
use crate::Observer;

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
pub(crate) fn play_whole<O: Observer<RoundState>>(
    events: &[u32],
    lane: WholeLane,
    store: &mut [u8],
    observer: &mut O,
) -> u64 {
    store.fill(0);
    let key = match lane {
        WholeLane::Serial => return play_serial(events, store, observer),
        WholeLane::Free(n) => match n {
            2 => return play_free::<2, O>(events, store, observer),
            3 => return play_free::<3, O>(events, store, observer),
            4 => return play_free::<4, O>(events, store, observer),
            5 => return play_free::<5, O>(events, store, observer),
            6 => return play_free::<6, O>(events, store, observer),
            7 => return play_free::<7, O>(events, store, observer),
            8 => return play_free::<8, O>(events, store, observer),
            // Not a lane `WholeLane::of` makes free: the same run in whole rounds.
            n => LaneKey::of(n, n),
        },
        WholeLane::Rounds(key) => key,
    };
    let (n, s) = (key.consumers, key.slots as usize);
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
        reported: Reported::NONE,
    };
    wheel_lane.play(events, true, observer);
    wheel_lane.round
}

/// [`play_whole`]'s state between rounds while every consumer holds an event: the
/// [`WheelLane`] fields that change, `held` being all of them.
pub(crate) struct Whole {
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
    pub(crate) fn rounds<const S: usize, O: Observer<RoundState>>(
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
pub(crate) fn play_free<const N: usize, O: Observer<RoundState>>(
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

/// The smallest of `N` keys, as a tree of minimums (a short dependent chain).
#[inline(always)]
pub(crate) fn min_key<const N: usize>(key: &[u64; N]) -> u64 {
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
pub(crate) fn play_serial<O: Observer<RoundState>>(
    events: &[u32],
    store: &mut [u8],
    observer: &mut O,
) -> u64 {
    let mut round = 0u64;
    observer.round_done(0);
    for &e in events {
        round += u64::from(e & DELAY_MASK);
        apply_flagged(store, e >> JOB_SHIFT);
        observer.round_done(round);
    }
    round
}
