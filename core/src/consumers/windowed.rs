//! The consumers model in small memory: 1 bit per shipment, for boards with a few KiB of RAM.
//!
//! It computes exactly what [`super::run_with`] computes (and what the lesson program
//! prints), with a different queue and a different store.
//!
//! # The queue: time windows, no stored order
//!
//! The counter-based generator gives any shipment's draws directly, so the queue is produced
//! a window at a time: each pass scans every shipment, computes the events that fall in a
//! window of arrival times and keeps the `B` smallest by (arrival, shipment, step) — the
//! lesson's stable sort, ties in generation order — in a bounded heap, then hands them out
//! sorted. A shipment's start is a monotone function of its first draw, so a pass skips a
//! shipment on one integer comparison of that draw unless its events can reach the window.
//! Window widths adapt to about `3B/4` events; a window with more only costs another pass.
//! The events themselves come from the one event formula every queue engine calls
//! ([`Workload`]'s `start`, `arrival` and `rounds`, in `workload.rs`).
//!
//! # The store: what it must remember
//!
//! A shipment's events leave the queue in step order (arrivals grow with the step; ties go to
//! the lower step), so every event of a shipment not yet applied is held by a consumer. Hence:
//! - its last applied event is the final one unless, when the final one is applied, another
//!   consumer still holds one of its events (`wrong_final_state`, no memory at all);
//! - it is seen reordered (the lesson's `k < sonUygulanan[g]`) exactly when an event is
//!   applied after a later step of its shipment was applied while it was held: each held
//!   event carries an "overtaken" bit, set when another consumer applies a later step of its
//!   shipment. The first such apply is the round the lesson flags the shipment in;
//! - it is counted once: 1 bit per shipment (`reordered_shipments`).
//!
//! These are the two facts the main engines read off their store byte (`store.rs`, whose
//! `apply` is the one definition of the lesson's rule), derived here without storing it.
//!
//! That is `W` words of 32 shipments plus `B` window entries of 12 bytes:
//! `Workspace<{ words_for(5000) }>` is 625 + 3,072 bytes where the main engine's
//! [`super::Workspace`] takes 3 bytes a shipment and an in-flight heap (21 KB).
//!
//! The price is time: every pass hashes every shipment's first draw, so a run costs about
//! `shipments · events / (3B/4)` such hashes besides its events (the lesson with `B = 512`:
//! 91 passes over 5,000 shipments, on a par with the main engine on a Cortex-M3). It suits
//! workloads of a few thousand shipments; 65,536 shipments of 126 events would take some
//! 40,000 passes, where the main engine needs one.
//!
//! A shipment whose events arrive out of step order (only with extreme gaps, where rounding
//! can invert two arrivals) fails the run with the main engine's [`Error::WorkloadOrder`],
//! naming the same shipment.
//!
//! ```
//! use capsim_core::consumers::{windowed::{self, words_for, Workspace}, Params};
//! let mut ws = Workspace::<{ words_for(5000) }>::new();
//! let m = windowed::run(&Params { consumers: 8, slots: 2, ..Params::default() }, &mut ws).unwrap();
//! assert_eq!((m.rounds, m.reordered_shipments, m.wrong_final_state), (17551, 2279, 432));
//! ```

use super::spec::{Flow, Reported};
use super::spec::{LaneKey, Metrics, Params, RoundState, Workload, MAX_CONSUMERS};
use super::workload::WorkloadDraws;
use crate::error::{Capacity, Error};
use crate::rng::CounterHash;
use crate::Observer;

/// Window entries a [`Workspace`] has unless told otherwise (12 bytes each).
pub const DEFAULT_WINDOW: usize = 256;

/// Returns the words of reordered bits a workspace needs for `shipments` shipments.
pub const fn words_for(shipments: usize) -> usize {
    shipments.div_ceil(32)
}

/// Caller-provided storage: a reordered bit for up to `32 · W` shipments, and a window of
/// `B` events (at least 1; 12 bytes each). `new` is `const`: it can be a `static`.
pub struct Workspace<const W: usize, const B: usize = DEFAULT_WINDOW> {
    reordered: [u32; W],
    /// The window's arrivals (bits of non-negative doubles order like the numbers).
    times: [u64; B],
    /// The window's events, `shipment << 8 | step`: ordered like generation order.
    events: [u32; B],
}

impl<const W: usize, const B: usize> Workspace<W, B> {
    const HAS_WINDOW: () = assert!(B >= 1, "a window of at least one event");

    /// Returns an empty workspace.
    pub const fn new() -> Self {
        let () = Self::HAS_WINDOW;
        Self {
            reordered: [0; W],
            times: [0; B],
            events: [0; B],
        }
    }

    /// Returns the shipment capacity, `32 · W`.
    pub const fn capacity(&self) -> usize {
        32 * W
    }
}

impl<const W: usize, const B: usize> Default for Workspace<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

/// Random access to a workload's draws, with the first draw of each shipment (its start) also
/// as an integer key that orders like it: what lets a pass skip a shipment cheaply.
pub trait WindowDraws {
    /// Keys are below this.
    const KEY_END: u64;
    /// Returns the key of shipment `shipment`'s first draw.
    fn start_key(&mut self, shipment: u32) -> u64;
    /// Returns the first draw whose key is `key` (non-decreasing in `key`).
    fn unit_of_key(key: u64) -> f64;
    /// Returns draw `index` of shipment `shipment`, as [`WorkloadDraws::draw`].
    fn draw(&mut self, shipment: u32, index: u32) -> f64;
}

/// The lesson's workload (as [`super::LessonDraws`]), keyed by the generator's 32 bits.
#[derive(Clone, Debug)]
pub struct LessonKeys {
    seed: u32,
    draws_per_shipment: u64,
}

impl LessonKeys {
    /// Returns the lesson's draws for `params` (its seed and events per shipment).
    pub fn new(params: &Params) -> Self {
        Self {
            seed: params.seed,
            draws_per_shipment: params.draws_per_shipment(),
        }
    }

    fn position(&self, shipment: u32, index: u32) -> u64 {
        // Below 2^49 for valid parameters; wraps (never panics) for any others.
        u64::from(shipment)
            .wrapping_mul(self.draws_per_shipment)
            .wrapping_add(u64::from(index))
    }
}

impl WindowDraws for LessonKeys {
    const KEY_END: u64 = 1 << 32;

    fn start_key(&mut self, shipment: u32) -> u64 {
        u64::from(CounterHash::at(self.seed, self.position(shipment, 0)))
    }

    fn unit_of_key(key: u64) -> f64 {
        // As `CounterHash::unit_at`: exact.
        f64::from(key as u32) * (1.0 / 4_294_967_296.0)
    }

    fn draw(&mut self, shipment: u32, index: u32) -> f64 {
        CounterHash::unit_at(self.seed, self.position(shipment, index))
    }
}

/// Any [`WorkloadDraws`], keyed by the bits of its first draw (non-negative doubles order
/// like their bits).
#[derive(Clone, Debug)]
pub struct AnyDraws<D>(pub D);

impl<D: WorkloadDraws> WindowDraws for AnyDraws<D> {
    const KEY_END: u64 = 0x3ff0_0000_0000_0000; // the bits of 1.0

    fn start_key(&mut self, shipment: u32) -> u64 {
        self.0.draw(shipment, 0).to_bits()
    }

    fn unit_of_key(key: u64) -> f64 {
        f64::from_bits(key)
    }

    fn draw(&mut self, shipment: u32, index: u32) -> f64 {
        self.0.draw(shipment, index)
    }
}

/// Runs the model on the lesson's workload.
pub fn run<const W: usize, const B: usize>(
    params: &Params,
    ws: &mut Workspace<W, B>,
) -> Result<Metrics, Error> {
    run_with(params, LessonKeys::new(params), ws, &mut ())
}

/// Runs the model on the workload drawn from `draws`, reporting to `observer` exactly what
/// [`super::run_with`] reports for one configuration.
pub fn run_with<D: WindowDraws, O: Observer<RoundState>, const W: usize, const B: usize>(
    params: &Params,
    draws: D,
    ws: &mut Workspace<W, B>,
    observer: &mut O,
) -> Result<Metrics, Error> {
    params.validate()?;
    if let Some(param) = params.flow.first_difference(&Flow::default()) {
        return Err(Error::OutOfRange {
            param,
            accepted: crate::error::Accepted::DefaultOnly,
        });
    }
    let shipments = params.shipments as usize;
    let Workspace {
        reordered,
        times,
        events,
    } = ws;
    let capacity = W.saturating_mul(32).min(u32::MAX as usize) as u32;
    let bits = reordered
        .get_mut(..words_for(shipments))
        .ok_or(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: capacity,
        })?;
    bits.fill(0);
    let workload = params.workload();
    let mut queue = Windows::new(&workload, draws, times, events);
    let mut lane = Lane::new(params.lane_key(), &workload, bits);
    lane.run(&mut queue, observer)
}

/// The queue in arrival order, a window at a time.
struct Windows<'w, D> {
    draws: D,
    /// The window: a max-heap while a pass fills it, then sorted, handed out from `next`.
    times: &'w mut [u64],
    events: &'w mut [u32],
    len: usize,
    next: usize,
    /// The last event handed out, as (arrival bits, event).
    after: Option<(u64, u32)>,
    /// No event after `after` arrives before `lo`.
    lo: f64,
    width: f64,
    /// Events to hand out before the queue is empty.
    left: u64,
    /// The workload: its event formula is the one every queue engine calls (`workload.rs`).
    w: Workload,
    /// `(steps - 1) · gap` and the largest jitter times the gap: [`Windows::latest`]'s terms.
    tail: (f64, f64),
}

/// The largest double below 1: no draw exceeds it.
const BELOW_ONE: f64 = 1.0 - f64::EPSILON / 2.0;

impl<'w, D: WindowDraws> Windows<'w, D> {
    fn new(p: &Workload, draws: D, times: &'w mut [u64], events: &'w mut [u32]) -> Self {
        let target = Self::target(times.len());
        // About `target` events per window where the workload is dense: E events over
        // `shipments · gap`.
        let width = target * p.queue_gap / f64::from(p.events_per_shipment);
        Self {
            draws,
            times,
            events,
            len: 0,
            next: 0,
            after: None,
            lo: 0.0,
            width,
            left: p.events(),
            w: *p,
            tail: (
                f64::from(p.events_per_shipment - 1) * p.queue_gap,
                BELOW_ONE * p.queue_gap,
            ),
        }
    }

    fn target(window: usize) -> f64 {
        ((window * 3 / 4).max(1)) as f64
    }

    fn start(&self, key: u64) -> f64 {
        self.w.start(D::unit_of_key(key))
    }

    fn arrival(&mut self, start: f64, shipment: u32, step: u32) -> f64 {
        let jitter = self.draws.draw(shipment, 1 + 2 * step);
        self.w.arrival(start, step, jitter)
    }

    /// The latest any event of a shipment starting at `start` can arrive, if its arrivals
    /// grow with the step (every rounding is monotone).
    fn latest(&self, start: f64) -> f64 {
        start + self.tail.0 + self.tail.1
    }

    /// Rounds to process event `step` of `shipment`.
    fn rounds(&mut self, shipment: u32, step: u32) -> u32 {
        let draws = &mut self.draws;
        self.w.rounds(step, || draws.draw(shipment, 2 + 2 * step))
    }

    /// Returns the first key for which `reached` holds (`KEY_END` if none): `reached` must
    /// be monotone in the key.
    fn first_key(reached: impl Fn(u64) -> bool) -> u64 {
        let (mut lo, mut hi) = (0, D::KEY_END);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if reached(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// Returns the next event as `shipment << 8 | step`, `None` once all are handed out.
    fn next_event(&mut self) -> Result<Option<u32>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        if self.next == self.len {
            if self.w.queue_gap == 0.0 {
                // Every arrival is 0 (or -0): the queue is in generation order.
                let e = self.in_generation_order();
                self.left -= 1;
                return Ok(Some(e));
            }
            self.fill()?;
        }
        let e = self.events.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        self.left -= 1;
        Ok(Some(e))
    }

    /// With a zero gap: the event after the ones handed out, in generation order.
    fn in_generation_order(&self) -> u32 {
        let done = u64::from(self.w.shipments) * u64::from(self.w.events_per_shipment) - self.left;
        let (g, k) = (
            done / u64::from(self.w.events_per_shipment),
            done % u64::from(self.w.events_per_shipment),
        );
        ((g as u32) << 8) | k as u32
    }

    /// Fills the window with the next events in queue order (at least one while any is left).
    fn fill(&mut self) -> Result<(), Error> {
        let target = Self::target(self.times.len());
        loop {
            let lo = self.lo;
            let hi = match lo + self.width {
                h if h > lo => h,
                _ => f64::from_bits(lo.to_bits() + 1), // the next double: [lo, lo] at least
            };
            // Shipments below `key_lo` are done before `lo`; from `key_hi` on, they start at
            // or after `hi`.
            let key_lo = Self::first_key(|key| self.latest(self.start(key)) >= lo);
            let key_hi = Self::first_key(|key| self.start(key) >= hi);
            let mut count: u64 = 0;
            self.len = 0;
            // No event left arrives before `later`, beyond `hi`; the first shipment to start
            // after the window has key `above`.
            let mut later = f64::INFINITY;
            let mut above = D::KEY_END;
            let mut inverted = false;
            for g in 0..self.w.shipments {
                let key = self.draws.start_key(g);
                if key >= key_hi {
                    above = above.min(key);
                    continue;
                }
                if key < key_lo {
                    continue;
                }
                let start = self.start(key);
                let mut k = self.first_step(start, g, lo);
                let mut previous = None;
                while k < self.w.events_per_shipment {
                    let t = self.arrival(start, g, k);
                    if previous.is_some_and(|p| t < p) {
                        inverted = true;
                    }
                    previous = Some(t);
                    if t >= hi {
                        later = later.min(t);
                        break;
                    }
                    let e = (g << 8) | k;
                    let key = (t.to_bits(), e);
                    if t >= lo && self.after.is_none_or(|a| key > a) {
                        count += 1;
                        self.offer(key);
                    }
                    k += 1;
                }
            }
            if inverted {
                return Err(self.workload_order());
            }
            if above < D::KEY_END {
                later = later.min(self.start(above));
            }
            if count == 0 {
                if later == f64::INFINITY {
                    // Events are left but none arrives after the last: only an inversion
                    // hides one.
                    return Err(self.workload_order());
                }
                self.lo = later;
                self.width = (self.width * 2.0).max(f64::from_bits(1));
                continue;
            }
            self.sort();
            let last = self.len - 1;
            let last = (self.times[last], self.events[last]);
            self.after = Some(last);
            let ratio = target / count as f64;
            if count > self.len as u64 {
                // The window held more than fits: the rest starts at the last one handed out.
                self.lo = f64::from_bits(last.0);
                self.width *= ratio.max(0.25);
            } else {
                self.lo = hi;
                self.width *= ratio.clamp(0.25, 4.0);
            }
            self.width = self.width.max(f64::from_bits(1));
            self.next = 0;
            return Ok(());
        }
    }

    /// Returns a step of the shipment starting at `start` from which on its events can
    /// reach `lo` (every earlier one arrives before it, arrivals growing with the step).
    fn first_step(&mut self, start: f64, g: u32, lo: f64) -> u32 {
        if self.w.events_per_shipment <= 4 || lo <= start {
            return 0;
        }
        // Event k arrives at about start + (k + r) · gap: the step before the one reaching lo.
        let guess = (lo - start) / self.w.queue_gap - 1.0;
        let k = if guess >= f64::from(self.w.events_per_shipment - 1) {
            self.w.events_per_shipment - 1
        } else if guess >= 1.0 {
            guess as u32
        } else {
            return 0;
        };
        if self.arrival(start, g, k) < lo {
            k
        } else {
            0
        }
    }

    /// Keeps `key` if it is among the window's `B` smallest so far (a max-heap).
    fn offer(&mut self, key: (u64, u32)) {
        let cap = self.times.len();
        let at = |s: &Self, i: usize| (s.times[i], s.events[i]);
        if self.len < cap {
            let mut i = self.len;
            self.len += 1;
            while i > 0 {
                let parent = (i - 1) / 2;
                if at(self, parent) >= key {
                    break;
                }
                self.times[i] = self.times[parent];
                self.events[i] = self.events[parent];
                i = parent;
            }
            self.times[i] = key.0;
            self.events[i] = key.1;
        } else if key < at(self, 0) {
            self.sift_down(key, self.len);
        }
    }

    /// Puts `key` at the root of the heap `0..len` and restores it.
    fn sift_down(&mut self, key: (u64, u32), len: usize) {
        let at = |s: &Self, i: usize| (s.times[i], s.events[i]);
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && at(self, right) > at(self, left) {
                right
            } else {
                left
            };
            if at(self, child) <= key {
                break;
            }
            self.times[i] = self.times[child];
            self.events[i] = self.events[child];
            i = child;
        }
        self.times[i] = key.0;
        self.events[i] = key.1;
    }

    /// Sorts the heap ascending (heapsort).
    fn sort(&mut self) {
        for end in (1..self.len).rev() {
            let top = (self.times[0], self.events[0]);
            let moved = (self.times[end], self.events[end]);
            self.times[end] = top.0;
            self.events[end] = top.1;
            self.sift_down(moved, end);
        }
    }

    /// The main engine's error for a workload out of step order: it stops at the first
    /// event, in queue order, whose successor arrives earlier; that event's shipment.
    fn workload_order(&mut self) -> Error {
        let mut first: Option<(u64, u32)> = None;
        for g in 0..self.w.shipments {
            let key = self.draws.start_key(g);
            let start = self.start(key);
            let mut previous = self.arrival(start, g, 0);
            for k in 1..self.w.events_per_shipment {
                let t = self.arrival(start, g, k);
                if t < previous {
                    let key = (previous.to_bits(), g);
                    if first.is_none_or(|f| key < f) {
                        first = Some(key);
                    }
                    break;
                }
                previous = t;
            }
        }
        Error::WorkloadOrder {
            shipment: first.map_or(0, |(_, g)| g),
        }
    }
}

/// `ready` of a consumer holding nothing.
const IDLE: u64 = u64::MAX;
/// In a held event: a later step of its shipment was applied while it was held.
const OVERTAKEN: u32 = 1 << 31;
const STEP: u32 = 0xff;

/// One configuration's run, event-driven as the main engine's: rounds in which no consumer
/// may apply are skipped in one step.
struct Lane<'s> {
    /// Per consumer: the round from which it may apply its event ([`IDLE`]: none held).
    ready: [u64; MAX_CONSUMERS],
    /// Per consumer: the event it holds (`shipment << 8 | step`, and [`OVERTAKEN`]).
    job: [u32; MAX_CONSUMERS],
    n: usize,
    slots: u32,
    total: u64,
    final_step: u32,
    /// One bit per shipment: seen reordered.
    seen: &'s mut [u32],
    round: u64,
    applied: u64,
    reordered: u32,
    wrong: u32,
    reported: Reported,
}

impl<'s> Lane<'s> {
    fn new(key: LaneKey, p: &Workload, seen: &'s mut [u32]) -> Self {
        Self {
            ready: [IDLE; MAX_CONSUMERS],
            job: [0; MAX_CONSUMERS],
            n: key.consumers as usize,
            slots: key.slots,
            total: p.events(),
            final_step: p.events_per_shipment - 1,
            seen,
            round: 0,
            applied: 0,
            reordered: 0,
            wrong: 0,
            reported: Reported::NONE,
        }
    }

    fn run<D: WindowDraws, O: Observer<RoundState>>(
        &mut self,
        queue: &mut Windows<'_, D>,
        observer: &mut O,
    ) -> Result<Metrics, Error> {
        let n = self.n;
        // Round 0: nothing to apply; every consumer takes an event.
        self.take(queue)?;
        loop {
            let state = O::ROUNDS.then(|| self.state());
            if let Some(state) = state {
                observer.round(&state);
            }
            observer.round_done(self.round);
            if self.applied == self.total {
                break;
            }
            // Jump to the next round in which some consumer may apply.
            let next = self.ready[..n].iter().copied().min().unwrap_or(IDLE);
            if next == IDLE {
                break; // unreachable while events remain: each is queued or held
            }
            let next = next.max(self.round + 1);
            if let Some(state) = state {
                super::report_skipped(observer, &state, self.round + 1..next);
            }
            self.round = next;
            let mut slots = self.slots;
            for i in 0..n {
                if slots == 0 {
                    break;
                }
                if self.ready[i] <= self.round {
                    slots -= 1;
                    self.apply(i);
                }
            }
            self.take(queue)?;
        }
        let rounds = self.round + 1;
        Ok(Metrics {
            rounds,
            reordered_shipments: self.reordered,
            wrong_final_state: self.wrong,
            throughput: self.total as f64 / rounds as f64,
            // The lesson's queue: every event from round 0, none dropped.
            max_backlog: self.total,
            dropped_events: 0,
            dropped_shipments: 0,
        })
    }

    /// Free consumers, lowest index first, take the queue's next events.
    fn take<D: WindowDraws>(&mut self, queue: &mut Windows<'_, D>) -> Result<(), Error> {
        for i in 0..self.n {
            if self.ready[i] != IDLE {
                continue;
            }
            let Some(e) = queue.next_event()? else {
                break;
            };
            let rounds = queue.rounds(e >> 8, e & STEP);
            self.ready[i] = self.round + u64::from(rounds.max(1));
            self.job[i] = e;
        }
        Ok(())
    }

    /// Consumer `i` applies its event and is free.
    fn apply(&mut self, i: usize) {
        let job = self.job[i];
        let (g, k) = ((job & !OVERTAKEN) >> 8, job & STEP);
        let mut other = false;
        for j in 0..self.n {
            if j != i && self.ready[j] != IDLE && (self.job[j] & !OVERTAKEN) >> 8 == g {
                other = true;
                if self.job[j] & STEP < k {
                    self.job[j] |= OVERTAKEN;
                }
            }
        }
        if job & OVERTAKEN != 0 {
            if let Some(word) = self.seen.get_mut((g / 32) as usize) {
                let bit = 1 << (g % 32);
                if *word & bit == 0 {
                    *word |= bit;
                    self.reordered += 1;
                }
            }
        }
        // Every earlier step is applied or held: a held one will be applied after this.
        if k == self.final_step && other {
            self.wrong += 1;
        }
        self.applied += 1;
        self.ready[i] = IDLE;
    }

    /// The state at the end of the current round; starts the next round's counts.
    fn state(&mut self) -> RoundState {
        let busy = self.ready[..self.n].iter().filter(|&&r| r != IDLE).count() as u64;
        let (applied, reordered) = (self.applied, self.reordered);
        self.reported
            .state(self.round, applied, reordered, busy, self.total)
    }
}
