//! Bulkhead: one shared slot pool vs. partitioned pools under Poisson arrivals and a slow
//! dependency.
//!
//! Each round: slots whose hold has ended are freed; the busy slots are counted; Poisson
//! numbers of tracking and event requests arrive, are shuffled (Fisher–Yates), and each takes
//! a slot of its pool for its hold time or is dropped. A drop in a partitioned layout counts
//! the free slots of the other pool as idle. In slowdown mode event requests hold their slot
//! for `slow_hold` rounds from `failure_start` on. The lesson program is the specification.
//!
//! Storage is fixed: per pool a calendar of slot releases over the next [`MAX_HOLD`] rounds
//! (no list of busy slots), and at most [`MAX_ARRIVALS_PER_ROUND`] arrivals per round, beyond
//! which a run returns [`Error::CapacityExceeded`].
//!
//! # Engine
//!
//! One engine plays every layout, and its [`plan()`] says which layouts play which rounds: a batch
//! draws the stream ([`Stream`], `stream.rs`) once a round and plays it against each layout
//! (its [`Pools`] and [`Slowdown`], `lane.rs`). Exact because the stream reads no layout
//! field, so every layout of a batch sees the arrivals and shuffles its own run would draw;
//! a layout whose pools equal an earlier one's and that differs only in its slowdown plays
//! the same rounds until the slowdown starts in either, so it follows that leader until then
//! and joins with a copy of its state. A round's served counts and idle slots are a closed
//! form of the shuffled order (`stream.rs`'s `Arrivals`, checked against the one-by-one
//! scan), so a layout plays a round in O(1).
//!
//! The **reference engine** (`reference.rs`), the one to read first, plays one layout one
//! request at a time, as the lesson program plays a round, for every input the model
//! accepts: the lesson's and those with an option the lesson does not have (`failure_end`,
//! `breaker`, `retries`: see [`Resilience`]), on the same stream. [`plan()`] sends it the
//! runs with an option (`Plan::reference`); the fast engine above plays the lesson's inputs
//! and must equal it on them (the same metrics and round states: its tests check it).
//!
//! What it costs, with its figures, is in `host/benches/README.md`.
//!
//! ```
//! use capsim_core::bulkhead::{run, Mode, Params, Split};
//! let m = run(&Params { split: Split::Partitioned(24), mode: Mode::Slowdown, ..Params::default() }).unwrap();
//! assert_eq!((m.tracking_dropped, m.event_dropped), (172, 2011));
//! ```

use crate::error::{Capacity, Error};
use crate::rng::UnitRng;
use crate::Observer;

mod lane;
mod plan;
mod reference;
mod spec;
mod stream;

use lane::Lane;
pub use plan::{plan, Plan};
use stream::{poisson, Arrivals, Draws, TOO_MANY_ARRIVALS, WORD};

pub use spec::{
    Breaker, BreakerState, Metrics, Mode, Params, Pools, Resilience, RoundState, Slowdown, Split,
    Stream, DEFAULT_OPEN_ROUNDS, MAX_ARRIVALS_PER_ROUND, MAX_ARRIVALS_PER_ROUND_MEAN, MAX_HOLD,
    MAX_HORIZON, MAX_RETRIES, MAX_RETRY_BACKOFF, MAX_TOTAL_SLOTS, MAX_WINDOW,
};

/// Runs the model with the lesson's generator seeded from `params.seed`.
pub fn run(params: &Params) -> Result<Metrics, Error> {
    run_observed(params, &mut ())
}

/// Runs the model with the lesson's generator seeded from `params.seed`, handing `observer`
/// each round's [`RoundState`] in round order: [`run`] watched.
pub fn run_observed<O: Observer<RoundState>>(
    params: &Params,
    observer: &mut O,
) -> Result<Metrics, Error> {
    run_with(params, &mut Draws::new(params.seed), observer)
}

/// Runs the model drawing arrivals and shuffles from `rng` (`params.seed` is not used),
/// handing `observer` each round's [`RoundState`] in round order. Its one lane (about 600
/// bytes) is on the stack, next to a round's arrivals (about 1 KB, as for any batch).
pub fn run_with<R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut ws = Workspace::<1>::new();
    let mut out = [Metrics::default()];
    run_batch_with(
        core::slice::from_ref(params),
        rng,
        &mut ws,
        observer,
        &mut out,
    )?;
    Ok(out[0])
}

/// Caller-provided storage for [`run_batch`]: one lane per layout run together, up to `B`.
///
/// A lane is one layout's state, about 600 bytes (two release calendars of [`MAX_HOLD`] + 1
/// 16-bit buckets, its hold times and its metrics): `Workspace::<11>` (6.6 KB) holds the
/// bulkhead lesson's eleven layouts. It is large for a small board's stack, so the caller
/// chooses where it lives and it is never moved: `new` is `const` (a `static` can hold one),
/// and a run sets its lanes up in place, so one workspace serves any number of runs.
pub struct Workspace<const B: usize> {
    lanes: [Lane; B],
}

impl<const B: usize> Workspace<B> {
    /// Returns an empty workspace.
    pub const fn new() -> Self {
        Self {
            lanes: [Lane::UNSET; B],
        }
    }

    /// Returns how many layouts one run can take, `B`.
    pub const fn lanes(&self) -> usize {
        B
    }
}

impl<const B: usize> Default for Workspace<B> {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs up to `B` layouts on one arrival stream, with the lesson's generator, writing each
/// one's metrics to `out`: exactly what separate [`run`]s return.
///
/// The arrivals and their shuffle depend only on the seed, the rates, the rounds per second
/// and the horizon, never on the pools, so runs that share those see the same stream: it is
/// drawn once and played against every layout (split, mode, slots and hold times may differ).
/// Each layout needs its own lane, which is what the workspace's `B` provides. Layouts that
/// differ only in their slowdown (when it starts, how slow) play the rounds before it once.
///
/// ```
/// use capsim_core::bulkhead::{run_batch, Metrics, Mode, Params, Split, Workspace};
/// let split = Params { split: Split::Partitioned(24), mode: Mode::Slowdown, ..Params::default() };
/// let mut ws = Workspace::<2>::new();
/// let mut out = [Metrics::default(); 2];
/// run_batch(&[Params::default(), split], &mut ws, &mut out).unwrap();
/// assert_eq!((out[1].tracking_dropped, out[1].event_dropped), (172, 2011));
/// ```
#[inline]
pub fn run_batch<const B: usize>(
    params: &[Params],
    ws: &mut Workspace<B>,
    out: &mut [Metrics],
) -> Result<(), Error> {
    let Some(first) = params.first() else {
        return Ok(());
    };
    if plan::<B>(params).reference && params.len() > 1 {
        // The reference engine plays one layout at a time: each draws its own copy of the
        // stream, as its own run would.
        if params.len() > B || out.len() < params.len() {
            return Err(Error::CapacityExceeded {
                capacity: Capacity::BatchLanes,
                limit: B as u32,
            });
        }
        for (p, m) in params.iter().zip(out.iter_mut()) {
            *m = run(p)?;
        }
        return Ok(());
    }
    run_batch_with(params, &mut Draws::new(first.seed), ws, &mut (), out)
}

/// [`run_batch`] drawing from `rng` (the seeds are not used), calling `observer` after every
/// round (with one layout, its [`RoundState`] too; several layouts report no state: see
/// [`crate::Observer`]).
///
/// A batch whose [`plan()`] is `reference` (a layout has an option the lesson does not have)
/// plays on the reference engine, which takes one layout: more return
/// [`Error::CapacityExceeded`] for [`Capacity::BatchLanes`] with a limit of 1 (one stream
/// from `rng` cannot be replayed; [`run_batch`] plays them one by one).
#[inline]
pub fn run_batch_with<R: UnitRng, O: Observer<RoundState>, const B: usize>(
    params: &[Params],
    rng: &mut R,
    ws: &mut Workspace<B>,
    observer: &mut O,
    out: &mut [Metrics],
) -> Result<(), Error> {
    batch_with::<true, R, O, B>(params, rng, ws, observer, out)
}

/// The lesson's batch ([`crate::lesson`]): [`run_batch_with`] on the lesson's layouts.
/// Unwatched (a board pacing the suite) it reaches the fast engine only: the lesson's
/// layouts are the lesson's, and a board's lesson image links no reference engine (a
/// layout with an option would stop the batch with [`crate::Accepted::LessonOnly`]).
#[inline]
pub(crate) fn run_lesson_batch_with<R: UnitRng, O: Observer<RoundState>, const B: usize>(
    params: &[Params],
    rng: &mut R,
    ws: &mut Workspace<B>,
    observer: &mut O,
    out: &mut [Metrics],
) -> Result<(), Error> {
    if O::ROUNDS {
        batch_with::<true, R, O, B>(params, rng, ws, observer, out)
    } else {
        batch_with::<false, R, O, B>(params, rng, ws, observer, out)
    }
}

/// [`run_batch_with`]; `REFERENCE` says whether the reference engine may play (else a batch
/// the plan sends to it stops with [`crate::Accepted::LessonOnly`]).
#[inline]
fn batch_with<const REFERENCE: bool, R: UnitRng, O: Observer<RoundState>, const B: usize>(
    params: &[Params],
    rng: &mut R,
    ws: &mut Workspace<B>,
    observer: &mut O,
    out: &mut [Metrics],
) -> Result<(), Error> {
    // The checks stay in line (not `error::check_batch`): out of line, this function no
    // longer inlines into the lesson's batch, whose rounds then cost more.
    let Some(first) = params.first() else {
        return Ok(());
    };
    if params.len() > B || out.len() < params.len() {
        return Err(Error::CapacityExceeded {
            capacity: Capacity::BatchLanes,
            limit: B as u32,
        });
    }
    let stream = first.stream();
    for p in params {
        p.validate()?;
        if let Some(param) = stream.first_difference(&p.stream()) {
            return Err(Error::BatchMismatch { param });
        }
    }
    // Every layout's stream is `stream`: the first's fields are its fields.
    let tracking_limit = libm::exp(-(first.tracking_rate / first.rounds_per_second));
    let event_limit = libm::exp(-(first.event_rate / first.rounds_per_second));
    let layouts = params.len();
    // Which lanes play which rounds (see `Plan`).
    let Plan {
        order,
        leaders,
        leader,
        join,
        reference,
    } = plan::<B>(params);
    if reference {
        if !REFERENCE {
            return Err(Error::OutOfRange {
                param: "lesson",
                accepted: crate::error::Accepted::LessonOnly,
            });
        }
        if layouts > 1 {
            return Err(Error::CapacityExceeded {
                capacity: Capacity::BatchLanes,
                limit: 1,
            });
        }
        out[0] = reference::run_with(first, rng, observer)?;
        return Ok(());
    }
    let lanes = &mut ws.lanes[..layouts];
    for (lane, &i) in lanes.iter_mut().zip(&order[..layouts]) {
        lane.set(&params[i].pools(), params[i].slowdown());
    }
    let mut active = leaders;
    // The lanes whose slowdown starts within the horizon, by the round it starts: each takes
    // its count of served events then (so the rounds before it cost nothing more).
    let mut slowdowns = Slowdowns::<B>::new(lanes, first.horizon);
    // One run observed reports its rounds; batches report none (see `Observer`).
    let observe = O::ROUNDS && params.len() == 1;
    let mut arrivals = Arrivals::new();
    // Every lane sees every arrival: its drops are these less what it served.
    let (mut tracking_total, mut events_total) = (0u64, 0u64);
    for t in 0..first.horizon {
        // The stream bits in arrival order: tracking requests (1) then event requests (0).
        let tracking = poisson(rng, tracking_limit)?;
        let events = poisson(rng, event_limit)?;
        let n = tracking + events;
        if n > MAX_ARRIVALS_PER_ROUND {
            return Err(TOO_MANY_ARRIVALS);
        }
        // floor(r * (i + 1)) for r in [0, 1): truncation is floor for non-negatives.
        // Below 256 either way: a 32-bit conversion (the saturating `usize` one costs more).
        let pick =
            |rng: &mut R, i: usize| ((rng.next_unit() * (i + 1) as f64) as u32 as usize).min(i);
        if n <= WORD {
            // The usual round (5 arrivals in the lesson): the shuffle in one register.
            let mut bits = if tracking == WORD {
                u64::MAX
            } else {
                (1u64 << tracking) - 1
            };
            for i in (1..n).rev() {
                let j = pick(rng, i);
                let differ = ((bits >> i) ^ (bits >> j)) & 1;
                bits ^= (differ << i) | (differ << j);
            }
            arrivals.bits = bits;
        } else {
            let bits = &mut arrivals.wide[..n];
            let (t_bits, e_bits) = bits.split_at_mut(tracking);
            t_bits.fill(1);
            e_bits.fill(0);
            for i in (1..n).rev() {
                bits.swap(i, pick(rng, i));
            }
        }
        arrivals.len = n;
        // n ≤ 255: both fit.
        arrivals.tracking = tracking as u32;
        arrivals.events = events as u32;
        arrivals.ahead_built = false;
        tracking_total += tracking as u64;
        events_total += events as u64;
        while active < layouts && join[active] == t {
            let (playing, waiting) = lanes.split_at_mut(active);
            waiting[0].follow(&playing[leader[active]]);
            active += 1;
        }
        if t == slowdowns.next {
            // A lane joins by the first round of its slowdown (the plan's join is the earlier
            // slowdown of the two), so it is playing.
            slowdowns.start(t, lanes);
        }
        let lanes = &mut lanes[..active];
        if observe {
            // One run: its state, as the observer contract asks.
            for lane in lanes.iter_mut() {
                let state = lane.round::<true>(t, &mut arrivals);
                observer.round(&state);
            }
        } else {
            for lane in lanes.iter_mut() {
                lane.round::<false>(t, &mut arrivals);
            }
        }
        observer.round_done(u64::from(t));
    }
    // Those that join at the horizon play every round as their leader does.
    while active < layouts {
        let (playing, waiting) = lanes.split_at_mut(active);
        waiting[0].follow(&playing[leader[active]]);
        active += 1;
    }
    for (lane, &i) in lanes.iter().zip(&order[..layouts]) {
        out[i] = lane.metrics(tracking_total, events_total);
    }
    Ok(())
}

/// The lanes of a batch whose slowdown starts within the horizon, by the round it starts.
///
/// The round loop tests one word a round (`next`); the rest is touched only at those rounds,
/// out of line, so that it does not take registers from the lanes' rounds.
struct Slowdowns<const B: usize> {
    /// `(first slow round, lane)`, sorted, the first `len` of them.
    at: [(u32, usize); B],
    len: usize,
    /// Index in `at` of the next to start.
    upcoming: usize,
    /// The round it starts, `u32::MAX` when none is left (no round is `u32::MAX`: rounds are
    /// below the horizon ≤ [`MAX_HORIZON`]).
    next: u32,
}

impl<const B: usize> Slowdowns<B> {
    fn new(lanes: &[Lane], horizon: u32) -> Self {
        let mut at = [(u32::MAX, 0usize); B];
        let mut len = 0;
        for (k, lane) in lanes.iter().enumerate() {
            if lane.slow_from() < horizon {
                at[len] = (lane.slow_from(), k);
                len += 1;
            }
        }
        at[..len].sort_unstable();
        let next = if len > 0 { at[0].0 } else { u32::MAX };
        Self {
            at,
            len,
            upcoming: 0,
            next,
        }
    }

    /// Round `t` is `next`: each lane whose slowdown starts now takes its count.
    #[cold]
    #[inline(never)]
    fn start(&mut self, t: u32, lanes: &mut [Lane]) {
        while self.upcoming < self.len && self.at[self.upcoming].0 == t {
            if let Some(lane) = lanes.get_mut(self.at[self.upcoming].1) {
                lane.slowdown_starts();
            }
            self.upcoming += 1;
        }
        self.next = if self.upcoming < self.len {
            self.at[self.upcoming].0
        } else {
            u32::MAX
        };
    }
}

#[cfg(test)]
mod tests {
    use super::{run, run_lesson_batch_with, Metrics, Params, Resilience, RoundState, Workspace};
    use crate::bulkhead::stream::Draws;
    use crate::error::{Accepted, Error};
    use crate::Observer;

    struct Paced;
    impl Observer<RoundState> for Paced {
        const ROUNDS: bool = false;
    }

    /// The lesson's batch reaches the fast engine only: the lesson's layout plays as its own
    /// run; one with an option is refused (never played on another engine).
    #[test]
    fn the_lessons_batch_reaches_the_fast_engine_only() {
        let lesson = Params::default();
        let mut ws = Workspace::<1>::new();
        let mut out = [Metrics::default()];
        let mut rng = Draws::new(lesson.seed);
        run_lesson_batch_with(
            core::slice::from_ref(&lesson),
            &mut rng,
            &mut ws,
            &mut Paced,
            &mut out,
        )
        .unwrap();
        assert_eq!(Ok(out[0]), run(&lesson));
        let retried = Params {
            resilience: Resilience {
                retries: 1,
                ..Resilience::default()
            },
            ..lesson.clone()
        };
        let mut rng = Draws::new(lesson.seed);
        let refused = run_lesson_batch_with(&[retried], &mut rng, &mut ws, &mut Paced, &mut out);
        let lesson_only = Error::OutOfRange {
            param: "lesson",
            accepted: Accepted::LessonOnly,
        };
        assert_eq!(refused, Err(lesson_only));
    }
}
