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

use crate::error::{Capacity, Error};
use crate::Observer;

mod lanes;
mod plan;
mod queue;
mod sorted;
mod spec;
mod store;
pub mod windowed;
mod workload;

use lanes::event::{play_general, Lane};
use lanes::wheel::{play_wheel, WheelLane};
use lanes::whole::play_whole;
pub use plan::{plan, Plan, WholeLane};
use sorted::{sort_whole, SortedSpace};
use store::REORDERED;

pub use queue::{Event, Queue, QueueSpace, DEFAULT_IN_FLIGHT};
pub(crate) use spec::report_skipped;
pub use spec::{
    LaneKey, Metrics, Params, RoundState, Workload, MAX_CONSUMERS, MAX_EVENTS_PER_SHIPMENT,
    MAX_QUEUE_GAP, MAX_SHIPMENTS,
};
pub use workload::{LessonDraws, SubstreamDraws, WorkloadDraws};

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
    let workload = first.workload();
    for p in params {
        p.validate()?;
        if let Some(param) = workload.first_difference(&p.workload()) {
            return Err(Error::BatchMismatch { param });
        }
    }
    let Workspace {
        queue: space,
        stores,
        sorted,
    } = ws;
    let shipments = workload.shipments as usize;
    if shipments > N {
        // What `Queue::new` reports.
        return Err(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: N as u32,
        });
    }
    // One run observed reports its rounds; batches report none (see `Observer`).
    let observe = O::ROUNDS && params.len() == 1;
    // Configurations that run alike share a lane (see `LaneKey`).
    let mut keys: heapless::Vec<LaneKey, R> = heapless::Vec::new();
    let mut lane_of: heapless::Vec<usize, R> = heapless::Vec::new();
    for p in params {
        let key = p.lane_key();
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
    let total = workload.events();
    let mut draws = draws;
    let (sort_keys, sort_events) = match lent {
        Some((keys, events)) => (keys, events),
        None => (&mut sorted.keys[..], &mut sorted.events[..]),
    };
    let sort_room = sort_keys.len().min(sort_events.len());
    let plan = plan::plan(&workload, observe, sort_room);
    let sorted_events = match plan {
        Plan::SortedWhole { .. } => sort_whole(
            &workload,
            &mut draws,
            &mut space.order,
            sort_keys,
            sort_events,
        ),
        Plan::MergedWheel | Plan::MergedEvent => None,
    };
    match (plan, sorted_events) {
        // The whole queue in one array: each lane plays it through.
        (Plan::SortedWhole { observed }, Some(events)) => {
            for (&key, store) in keys.iter().zip(lane_stores) {
                let m = if observed {
                    let mut lane = WheelLane::new(key, total, store, observe);
                    lane.feed(events, true, observer);
                    lane.metrics(&workload)
                } else {
                    let last_round = play_whole(events, WholeLane::of(key), store, observer);
                    let reordered = store.iter().filter(|&&s| s & REORDERED != 0).count() as u32;
                    store::lane_metrics(store, &workload, last_round, reordered, total)
                };
                let _ = lane_metrics.push(m);
            }
        }
        (Plan::MergedEvent, _) => {
            let mut queue = Queue::new(first, draws, space)?;
            let mut lanes: heapless::Vec<Lane<'_>, R> = heapless::Vec::new();
            for (&key, store) in keys.iter().zip(lane_stores) {
                let _ = lanes.push(Lane::new(key, total, store, observe));
            }
            play_general(&mut queue, &mut lanes, observer)?;
            for lane in &lanes {
                let _ = lane_metrics.push(lane.metrics(&workload));
            }
        }
        // Merged on the wheel, also when the sort found a shipment's arrivals out of step
        // order (the merged queue reports it).
        (Plan::MergedWheel | Plan::SortedWhole { .. }, _) => {
            let mut queue = Queue::new(first, draws, space)?;
            let mut lanes: heapless::Vec<WheelLane<'_>, R> = heapless::Vec::new();
            for (&key, store) in keys.iter().zip(lane_stores) {
                let _ = lanes.push(WheelLane::new(key, total, store, observe));
            }
            play_wheel(&mut queue, &mut lanes, observer)?;
            for lane in &lanes {
                let _ = lane_metrics.push(lane.metrics(&workload));
            }
        }
    }
    for (&lane, m) in lane_of.iter().zip(out.iter_mut()) {
        if let Some(&lane_m) = lane_metrics.get(lane) {
            *m = lane_m;
        }
    }
    Ok(())
}
