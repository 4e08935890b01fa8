//! A layout's pools and the rounds it plays.

use super::spec::{Metrics, Params, Pools, RoundState, Slowdown, Split, MAX_TOTAL_SLOTS};
use super::stream::Arrivals;

/// What a lane counts as it plays; its [`Metrics`] at the end of the run ([`Lane::metrics`]).
#[derive(Clone, Copy, Default)]
pub(crate) struct Counts {
    tracking_served: u64,
    event_served: u64,
    idle_slots: u64,
    busy_slot_rounds: u64,
}

/// Release calendar length: one more than the longest hold, rounded up to a power of two.
pub(crate) const CALENDAR: usize = 128;

// A calendar bucket counts at most one pool's slots (see `Pool::releases`).
const _: () = assert!(MAX_TOTAL_SLOTS <= u16::MAX as u32);

/// One pool: its size, its busy slots, and how many slots free up in each coming round.
pub(crate) struct Pool {
    size: u32,
    /// At most `size`: a slot is taken only while one is free, and each is freed once.
    busy: u32,
    /// `releases[r % CALENDAR]`: slots whose hold ends at round `r`. With different hold
    /// times they were taken in different rounds (a byte once wrapped here), but all of them
    /// are busy together until round `r`, so there are at most `size` ≤ [`MAX_TOTAL_SLOTS`]
    /// = 65,535 of them: 16 bits hold any bucket.
    releases: [u16; CALENDAR],
}

impl Pool {
    pub(crate) const fn new(size: u32) -> Self {
        Self {
            size,
            busy: 0,
            releases: [0; CALENDAR],
        }
    }

    /// Empties the pool and gives it `size` slots.
    pub(crate) fn reset(&mut self, size: u32) {
        self.size = size;
        self.busy = 0;
        self.releases.fill(0);
    }

    /// Takes `other`'s state (a pool of the same size).
    pub(crate) fn copy(&mut self, other: &Pool) {
        self.busy = other.busy;
        self.releases = other.releases;
    }

    /// Frees the slots whose hold ends at `round` (each counted in `busy`: no underflow).
    pub(crate) fn free_ended(&mut self, round: u32) {
        let bucket = &mut self.releases[round as usize % CALENDAR];
        self.busy -= u32::from(*bucket);
        *bucket = 0;
    }

    pub(crate) fn free(&self) -> u32 {
        self.size - self.busy
    }

    /// Takes `n` free slots until `round + hold` (1 ≤ hold < CALENDAR, so no bucket is
    /// reused early). The caller checked `n ≤ free()`: `busy` stays ≤ `size`, and so does
    /// every bucket (≤ 65,535: the cast keeps it).
    pub(crate) fn take(&mut self, round: u32, hold: u32, n: u32) {
        self.busy += n;
        // round < MAX_HORIZON and hold ≤ MAX_HOLD: the sum cannot wrap.
        let bucket = &mut self.releases[round.wrapping_add(hold) as usize % CALENDAR];
        *bucket = bucket.wrapping_add(n as u16);
    }
}

/// One layout's state during a run: its pools, hold times and metrics.
pub(crate) struct Lane {
    /// The shared pool, or the tracking pool.
    first: Pool,
    /// The event pool, when partitioned.
    second: Option<Pool>,
    tracking_hold: u32,
    event_hold: u32,
    slow_hold: u32,
    /// First round of the slowdown, `u32::MAX` for a healthy run.
    slow_from: u32,
    c: Counts,
    /// The event requests served before the slowdown, taken at its first round by
    /// [`Lane::slowdown_starts`] (`None` until then): the rest were calls to the broken
    /// dependency.
    served_before_slowdown: Option<u64>,
}

impl Lane {
    /// A lane to be set up in place by [`Lane::set`]: building lanes by value and moving
    /// them into place put them on the stack twice (6.6 KB more for the lesson's 11).
    pub(crate) const UNSET: Lane = Lane {
        first: Pool::new(0),
        second: None,
        tracking_hold: 0,
        event_hold: 0,
        slow_hold: 0,
        slow_from: 0,
        c: Counts {
            tracking_served: 0,
            event_served: 0,
            idle_slots: 0,
            busy_slot_rounds: 0,
        },
        served_before_slowdown: None,
    };

    /// Sets this lane up for `p`, in place, whatever a previous run left in it.
    #[inline(always)]
    pub(crate) fn set(&mut self, p: &Pools, slowdown: Slowdown) {
        match p.split {
            Split::Shared => {
                self.first.reset(p.total_slots);
                self.second = None;
            }
            Split::Partitioned(k) => {
                self.first.reset(k);
                match self.second.as_mut() {
                    Some(second) => second.reset(p.total_slots - k),
                    None => self.second.insert(Pool::new(0)).reset(p.total_slots - k),
                }
            }
        }
        self.tracking_hold = p.tracking_hold;
        self.event_hold = p.event_hold;
        self.slow_hold = slowdown.hold;
        self.slow_from = slowdown.from;
        self.c = Counts::default();
        self.served_before_slowdown = None;
    }

    /// The first round of this lane's slowdown (`u32::MAX` for a healthy one).
    pub(crate) fn slow_from(&self) -> u32 {
        self.slow_from
    }

    /// Called at the start of the slowdown's first round, before the lane plays it.
    pub(crate) fn slowdown_starts(&mut self) {
        self.served_before_slowdown = Some(self.c.event_served);
    }

    /// Returns the run's metrics, given the stream's arrivals of each kind: the drops are
    /// those less what this lane served; every served event request was one dependency call,
    /// and each served during the slowdown held its slot `slow_hold` rounds.
    pub(crate) fn metrics(&self, tracking_total: u64, events_total: u64) -> Metrics {
        let c = &self.c;
        Metrics {
            tracking_served: c.tracking_served,
            tracking_dropped: tracking_total - c.tracking_served,
            event_served: c.event_served,
            event_dropped: events_total - c.event_served,
            idle_slots: c.idle_slots,
            busy_slot_rounds: c.busy_slot_rounds,
            dependency_calls: c.event_served,
            broken_slot_rounds: self.served_before_slowdown.map_or(0, |before| {
                (c.event_served - before) * u64::from(self.slow_hold)
            }),
            breaker_opened_round: None,
        }
    }

    /// Takes `leader`'s pools and metrics: this layout has played the same rounds. Also the
    /// count taken when the slowdown started: a layout whose slowdown is its leader's follows
    /// it to the horizon, so that count is its own (before either slowdown, or in the round
    /// the leader's starts, it is still none).
    pub(crate) fn follow(&mut self, leader: &Lane) {
        self.first.copy(&leader.first);
        if let (Some(own), Some(theirs)) = (self.second.as_mut(), leader.second.as_ref()) {
            own.copy(theirs);
        }
        self.c = leader.c;
        self.served_before_slowdown = leader.served_before_slowdown;
    }

    /// Plays one round's shuffled arrivals against this layout; with `OBSERVE`, returns the
    /// round's state. Counts only what it serves: the drops are the stream's arrivals less
    /// that, at the end of the run.
    ///
    /// O(1) per round (see [`Arrivals`]): a pool takes arrivals while it has a free slot, so
    /// it serves the first `free` of its own and drops the rest: a shared pool serves the
    /// first `min(free, n)` arrivals, of which `tracking_in_first` are tracking; a
    /// partitioned layout's pools each serve `min(free, own)`, and a drop at position `p`
    /// (the `j`th of its stream) finds the other pool with `free − min(free, p − j)` slots
    /// free (`p − j` of the other's came before).
    #[inline(always)]
    pub(crate) fn round<const OBSERVE: bool>(
        &mut self,
        t: u32,
        arrivals: &mut Arrivals,
    ) -> RoundState {
        self.first.free_ended(t);
        if let Some(p) = self.second.as_mut() {
            p.free_ended(t);
        }
        let second_busy = self.second.as_ref().map_or(0, |p| p.busy);
        let busy = self.first.busy + second_busy;
        self.c.busy_slot_rounds += u64::from(busy);
        let event_hold = if t >= self.slow_from {
            self.slow_hold
        } else {
            self.event_hold
        };
        let (tracking, events) = (arrivals.tracking, arrivals.events);
        let (tracking_served, event_served) = match self.second.as_mut() {
            None => {
                let free = self.first.free();
                let (t_served, e_served) = if free as usize >= arrivals.len {
                    (tracking, events)
                } else {
                    let t_served = arrivals.tracking_in_first(free as usize);
                    (t_served, free - t_served)
                };
                self.first.take(t, self.tracking_hold, t_served);
                self.first.take(t, event_hold, e_served);
                self.c.tracking_served += u64::from(t_served);
                self.c.event_served += u64::from(e_served);
                (t_served, e_served)
            }
            Some(event_pool) => {
                let tracking_free = self.first.free();
                let event_free = event_pool.free();
                let t_served = tracking_free.min(tracking);
                let e_served = event_free.min(events);
                self.first.take(t, self.tracking_hold, t_served);
                event_pool.take(t, event_hold, e_served);
                self.c.tracking_served += u64::from(t_served);
                self.c.event_served += u64::from(e_served);
                // Counted last: unobserved, nothing of the round lives across the call.
                if t_served < tracking || e_served < events {
                    let idle = arrivals.idle_slots(t_served, e_served, tracking_free, event_free);
                    self.c.idle_slots += idle;
                }
                (t_served, e_served)
            }
        };
        if !OBSERVE {
            return RoundState::default();
        }
        RoundState {
            round: t,
            busy,
            first_busy: busy - second_busy,
            second_busy,
            tracking_served,
            tracking_dropped: tracking - tracking_served,
            event_served,
            event_dropped: events - event_served,
            dependency_calls: event_served,
            ..RoundState::default()
        }
    }
}

/// Returns the round from which layout `b` may play differently from `a` on the same stream
/// (up to the horizon), if it is not round 0: the same pools and hold times, differing only
/// in when the slowdown starts (`None` if it starts at round 0 in either) or how slow it is.
#[inline(always)]
pub(crate) fn shared_rounds(a: &Params, b: &Params) -> Option<u32> {
    let (slow_a, slow_b) = (a.slowdown(), b.slowdown());
    let rounds = if slow_a == slow_b {
        b.horizon
    } else {
        slow_a.from.min(slow_b.from).min(b.horizon)
    };
    (a.pools() == b.pools() && rounds > 0).then_some(rounds)
}

#[cfg(test)]
mod tests {
    /// The firmware runs 11 layouts at once on small boards (600 bytes each with 16-bit
    /// calendar buckets, 344 with the 8-bit ones that wrapped): keep it so.
    #[test]
    fn a_layout_fits_in_600_bytes() {
        let size = core::mem::size_of::<super::Lane>();
        assert!(size <= 600, "Lane is {size} bytes");
    }
}
