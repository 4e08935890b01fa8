//! The reference engine, the one to read first: one layout one request at a time, as the
//! lesson program plays a round, for every input the model accepts — the lesson's, and those
//! with the options the lesson does not have: a slowdown that ends, a circuit breaker on the
//! event requests' dependency calls and retries of event requests. [`super::plan()`] sends
//! every run with one of them here; the lesson's runs play on the fast engine (`lane.rs`,
//! with `stream.rs`'s closed form of a round), which must equal this one on them bit for bit:
//! the same metrics and the same round states (the tests below check it on every layout kind
//! and both modes).
//!
//! It draws exactly the lesson's stream (the Poisson numbers and the shuffle, from the same
//! generator, in the same order) and nothing else: the breaker and the retries are
//! deterministic.
//!
//! A round `t`:
//! 1. The slots whose hold ends at `t` are freed; the event calls among them end, and their
//!    outcomes (a call made while the dependency is broken fails, any other succeeds) are
//!    recorded in the breaker's window. A half-open breaker's probe that ends closes it (it
//!    succeeded; the window starts empty) or opens it again (it failed). An open breaker whose
//!    `open_rounds` have passed turns half-open; a closed one whose window holds at least one
//!    call with a failed share of at least `ratio` opens.
//! 2. The busy slots are counted (`busy_slot_rounds`).
//! 3. The retries due at `t` try again, first retries first, then the round's new requests in
//!    the lesson's shuffled order. An event request's try is rejected by an open breaker (or a
//!    half-open one whose probe is out), dropped when its pool has no free slot (the other
//!    pool's free slots count as idle, as in the lesson), or takes a slot: a dependency call,
//!    held `slow_hold` rounds and failing when made in `[failure_start, failure_end)` in
//!    slowdown mode, else `event_hold` rounds. A rejected, dropped or failing try with retries
//!    left is retried in round `e + 1 + retry_backoff`, where `e` is the round the try ended
//!    (its own round for a rejection or a drop, the last of its hold for a call), else the
//!    request ends: served if its last try took a slot, dropped otherwise. Tracking requests
//!    are played as in the lesson.

use super::spec::{
    Breaker, BreakerState, Metrics, Params, RoundState, Split, MAX_ARRIVALS_PER_ROUND, MAX_HOLD,
    MAX_RETRIES, MAX_RETRY_BACKOFF, MAX_WINDOW,
};
use super::stream::{poisson, TOO_MANY_ARRIVALS};
use crate::error::Error;
use crate::rng::UnitRng;
use crate::Observer;

/// Rounds ahead a slot's release is kept: more than the longest hold.
const CALENDAR: usize = 128;
const _: () = assert!(CALENDAR > MAX_HOLD as usize);

/// Rounds ahead a retry is kept: more than the longest hold and backoff together.
const RETRY_CALENDAR: usize = 1024;
const _: () = assert!(RETRY_CALENDAR > (MAX_HOLD + MAX_RETRY_BACKOFF + 1) as usize);

/// One pool: its slots, the busy ones, and how many end their hold in each coming round.
struct Pool {
    size: u32,
    busy: u32,
    ends: [u32; CALENDAR],
}

impl Pool {
    const fn new(size: u32) -> Self {
        Self {
            size,
            busy: 0,
            ends: [0; CALENDAR],
        }
    }

    fn free_ended(&mut self, t: u32) {
        let ended = &mut self.ends[t as usize % CALENDAR];
        self.busy -= *ended;
        *ended = 0;
    }

    fn free(&self) -> u32 {
        self.size - self.busy
    }

    /// Takes a slot until round `t + hold`, if one is free.
    fn take(&mut self, t: u32, hold: u32) -> bool {
        if self.busy == self.size {
            return false;
        }
        self.busy += 1;
        self.ends[(t + hold) as usize % CALENDAR] += 1;
        true
    }
}

/// The breaker's window: the calls that ended in each of the last `len` rounds and how many
/// of them failed, with their sums.
struct Window {
    /// `[t % len]`: calls ended at round `t` (at most a pool's slots: 16 bits) and failed.
    ended: [(u16, u16); MAX_WINDOW as usize],
    len: u32,
    calls: u32,
    failed: u32,
    /// The first round recorded since the window last started empty.
    since: u32,
}

impl Window {
    /// Records round `t`'s ended calls, dropping round `t − len`'s.
    fn record(&mut self, t: u32, calls: u32, failed: u32) {
        let slot = &mut self.ended[(t % self.len) as usize];
        if u64::from(t) >= u64::from(self.since) + u64::from(self.len) {
            self.calls -= u32::from(slot.0);
            self.failed -= u32::from(slot.1);
        }
        // A round's calls are at most a pool's slots (≤ 65,535): the casts keep them.
        *slot = (calls as u16, failed as u16);
        self.calls += calls;
        self.failed += failed;
    }

    /// Starts the window empty from round `t + 1` on.
    fn clear(&mut self, t: u32) {
        self.calls = 0;
        self.failed = 0;
        self.since = t.saturating_add(1);
    }
}

/// A breaker during a run.
struct BreakerRun {
    config: Breaker,
    state: BreakerState,
    /// Open: the round it turns half-open.
    open_until: u32,
    /// Half-open: the probe out, as (the round it ends, whether it fails).
    probe: Option<(u32, bool)>,
    window: Window,
    opened: Option<u32>,
}

impl BreakerRun {
    /// Step 1 of a round for the breaker, given the calls that ended at `t`.
    fn start_round(&mut self, t: u32, calls: u32, failed: u32) {
        self.window.record(t, calls, failed);
        if let (BreakerState::HalfOpen, Some((end, fails))) = (self.state, self.probe) {
            if end == t {
                self.probe = None;
                if fails {
                    self.open(t);
                } else {
                    self.state = BreakerState::Closed;
                    self.window.clear(t);
                }
            }
        }
        if self.state == BreakerState::Open && t >= self.open_until {
            self.state = BreakerState::HalfOpen;
        }
        let w = &self.window;
        if self.state == BreakerState::Closed
            && w.calls >= 1
            && f64::from(w.failed) >= self.config.ratio * f64::from(w.calls)
        {
            self.open(t);
        }
    }

    fn open(&mut self, t: u32) {
        self.state = BreakerState::Open;
        self.open_until = t.saturating_add(self.config.open_rounds);
        self.opened.get_or_insert(t);
    }

    /// Whether a try may go through now.
    fn permits(&self) -> bool {
        match self.state {
            BreakerState::Closed => true,
            BreakerState::Open => false,
            BreakerState::HalfOpen => self.probe.is_none(),
        }
    }

    /// A permitted try took a slot until `end`: half-open, it is the probe.
    fn called(&mut self, end: u32, fails: bool) {
        if self.state == BreakerState::HalfOpen {
            self.probe = Some((end, fails));
        }
    }
}

/// One run's state on the reference engine.
struct Run<'p> {
    p: &'p Params,
    /// The shared pool, or the tracking pool.
    first: Pool,
    /// The event pool, when partitioned.
    second: Option<Pool>,
    /// `[t % CALENDAR]`: event calls ending at round `t` that succeed, and that fail.
    ok_ends: [u32; CALENDAR],
    failed_ends: [u32; CALENDAR],
    /// `[t % RETRY_CALENDAR][k]`: event requests whose retry `k + 1` is due at round `t`.
    due: [[u32; MAX_RETRIES as usize]; RETRY_CALENDAR],
    waiting: u32,
    breaker: Option<BreakerRun>,
    m: Metrics,
    broken_calls: u64,
    /// This round's counts, for its [`RoundState`].
    round: RoundState,
}

impl Run<'_> {
    /// Plays one try of an event request at round `t`: try `k` (0: the first).
    fn event(&mut self, t: u32, k: u32) {
        if let Some(b) = &self.breaker {
            if !b.permits() {
                self.round.rejected += 1;
                self.retry_or_end(t + 1, k);
                return;
            }
        }
        let broken = self.p.broken_at(t);
        let hold = if broken {
            self.p.slow_hold
        } else {
            self.p.event_hold
        };
        let pool = self.second.as_mut().unwrap_or(&mut self.first);
        if !pool.take(t, hold) {
            // Dropped: in a partitioned layout the tracking pool's free slots stood idle.
            if self.second.is_some() {
                self.m.idle_slots += u64::from(self.first.free());
            }
            self.retry_or_end(t + 1, k);
            return;
        }
        let end = t + hold;
        self.m.dependency_calls += 1;
        self.round.dependency_calls += 1;
        if broken {
            self.broken_calls += 1;
            self.failed_ends[end as usize % CALENDAR] += 1;
        } else {
            self.ok_ends[end as usize % CALENDAR] += 1;
        }
        if let Some(b) = &mut self.breaker {
            b.called(end, broken);
        }
        if broken && k < self.p.resilience.retries {
            // Known to fail when its hold ends: retried from then on.
            self.schedule(end, k);
        } else {
            self.round.event_served += 1;
        }
    }

    /// A try that ended before round `next` without a slot: retried, or the request is dropped.
    fn retry_or_end(&mut self, next: u32, k: u32) {
        if k < self.p.resilience.retries {
            self.schedule(next, k);
        } else {
            self.round.event_dropped += 1;
        }
    }

    /// Schedules retry `k + 1` for `retry_backoff` rounds after round `from`.
    fn schedule(&mut self, from: u32, k: u32) {
        let at = from + self.p.resilience.retry_backoff;
        self.due[at as usize % RETRY_CALENDAR][k as usize] += 1;
        self.waiting += 1;
    }

    fn tracking(&mut self, t: u32) {
        if self.first.take(t, self.p.tracking_hold) {
            self.round.tracking_served += 1;
            return;
        }
        self.round.tracking_dropped += 1;
        if let Some(events) = &self.second {
            self.m.idle_slots += u64::from(events.free());
        }
    }
}

/// Runs `p` on the reference engine, drawing arrivals and shuffles from `rng`, handing
/// `observer` each round's [`RoundState`] (with the breaker's state, the retries waiting, the
/// dependency calls and the rejections).
///
/// Its state is about 82 KB (the breaker's window of [`MAX_WINDOW`] rounds and the retries of
/// the next 1,024 rounds), on the stack of this function alone (never inlined: the fast
/// engine's callers keep their small frames).
#[inline(never)]
pub(crate) fn run_with<R: UnitRng, O: Observer<RoundState>>(
    p: &Params,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    p.validate()?;
    let (first, second) = match p.split {
        Split::Shared => (p.total_slots, None),
        Split::Partitioned(k) => (k, Some(p.total_slots - k)),
    };
    let mut run = Run {
        p,
        first: Pool::new(first),
        second: second.map(Pool::new),
        ok_ends: [0; CALENDAR],
        failed_ends: [0; CALENDAR],
        due: [[0; MAX_RETRIES as usize]; RETRY_CALENDAR],
        waiting: 0,
        breaker: p.resilience.breaker.map(|config| BreakerRun {
            config,
            state: BreakerState::Closed,
            open_until: 0,
            probe: None,
            window: Window {
                ended: [(0, 0); MAX_WINDOW as usize],
                len: config.window,
                calls: 0,
                failed: 0,
                since: 0,
            },
            opened: None,
        }),
        m: Metrics::default(),
        broken_calls: 0,
        round: RoundState::default(),
    };
    let tracking_limit = libm::exp(-(p.tracking_rate / p.rounds_per_second));
    let event_limit = libm::exp(-(p.event_rate / p.rounds_per_second));
    let mut order = [false; MAX_ARRIVALS_PER_ROUND];
    for t in 0..p.horizon {
        // 1. Holds that end now; the event calls among them end with their outcomes.
        run.first.free_ended(t);
        if let Some(events) = run.second.as_mut() {
            events.free_ended(t);
        }
        let at = t as usize % CALENDAR;
        let (ok, failed) = (run.ok_ends[at], run.failed_ends[at]);
        (run.ok_ends[at], run.failed_ends[at]) = (0, 0);
        if let Some(b) = run.breaker.as_mut() {
            b.start_round(t, ok + failed, failed);
        }
        // 2. The busy slots.
        let second_busy = run.second.as_ref().map_or(0, |pool| pool.busy);
        let busy = run.first.busy + second_busy;
        run.m.busy_slot_rounds += u64::from(busy);
        run.round = RoundState {
            round: t,
            busy,
            first_busy: run.first.busy,
            second_busy,
            breaker: run
                .breaker
                .as_ref()
                .map_or(BreakerState::Closed, |b| b.state),
            ..RoundState::default()
        };
        // 3. The lesson's arrivals, shuffled as the lesson shuffles them.
        let tracking = poisson(rng, tracking_limit)?;
        let events = poisson(rng, event_limit)?;
        let n = tracking + events;
        if n > MAX_ARRIVALS_PER_ROUND {
            return Err(TOO_MANY_ARRIVALS);
        }
        order[..tracking].fill(true);
        order[tracking..n].fill(false);
        for i in (1..n).rev() {
            // floor(r * (i + 1)) for r in [0, 1).
            let j = ((rng.next_unit() * (i + 1) as f64) as usize).min(i);
            order.swap(i, j);
        }
        // The retries due now, first retries first, then the new requests.
        let slot = t as usize % RETRY_CALENDAR;
        for k in 0..p.resilience.retries.min(MAX_RETRIES) {
            let due = core::mem::take(&mut run.due[slot][k as usize]);
            run.waiting -= due;
            for _ in 0..due {
                run.event(t, k + 1);
            }
        }
        for &is_tracking in &order[..n] {
            if is_tracking {
                run.tracking(t);
            } else {
                run.event(t, 0);
            }
        }
        run.m.tracking_served += u64::from(run.round.tracking_served);
        run.m.tracking_dropped += u64::from(run.round.tracking_dropped);
        run.m.event_served += u64::from(run.round.event_served);
        run.m.event_dropped += u64::from(run.round.event_dropped);
        if O::ROUNDS {
            run.round.retries_waiting = run.waiting;
            observer.round(&run.round);
        }
        observer.round_done(u64::from(t));
    }
    Ok(Metrics {
        broken_slot_rounds: run.broken_calls * u64::from(p.slow_hold),
        breaker_opened_round: run.breaker.and_then(|b| b.opened),
        ..run.m
    })
}

#[cfg(test)]
mod tests {
    use super::run_with;
    use crate::bulkhead::stream::Draws;
    use crate::bulkhead::{self, Mode, Params, Resilience, Split};
    use crate::trace::{CsvTrace, Folded};

    #[test]
    fn the_fast_engine_equals_the_reference_on_the_lessons_inputs() {
        let splits = [Split::Shared, Split::Partitioned(24), Split::Partitioned(1)];
        // The lesson's rates, and rates whose rounds often bring more than 64 arrivals (the
        // fast engine's scan beside its closed form).
        let rates = [(416.67, 97.22), (4000.0, 2400.0)];
        for (i, (split, mode, (tracking_rate, event_rate))) in splits
            .into_iter()
            .flat_map(|s| [Mode::Healthy, Mode::Slowdown].map(|m| (s, m)))
            .flat_map(|(s, m)| rates.map(|r| (s, m, r)))
            .enumerate()
        {
            let p = Params {
                split,
                mode,
                seed: 11 + i as u32,
                horizon: 500,
                failure_start: 150,
                tracking_rate,
                event_rate,
                ..Params::default()
            };
            assert_eq!(p.resilience, Resilience::default(), "{p:?}");
            let split = !matches!(p.split, Split::Shared);
            let mut trace = CsvTrace::new(Folded::NEW, split);
            let reference = run_with(&p, &mut Draws::new(p.seed), &mut trace).unwrap();
            let mut fast_trace = CsvTrace::new(Folded::NEW, split);
            let fast = bulkhead::run_observed(&p, &mut fast_trace).unwrap();
            assert!(trace.result.is_ok() && fast_trace.result.is_ok());
            assert_eq!(fast, reference, "{p:?}");
            assert_eq!(fast_trace.out, trace.out, "{p:?}");
            assert!(trace.out.len() > 0);
            assert_eq!(bulkhead::run(&p).unwrap(), reference, "{p:?}");
        }
    }
}
