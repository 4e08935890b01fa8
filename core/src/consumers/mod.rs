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
//! Several configurations on one workload ([`run_batch`]) share one queue, 1 store byte per
//! shipment each; those that run alike (the same [`LaneKey`]: same N, and S ≥ N) share one
//! lane.
//!
//! # Engines
//!
//! [`plan()`] is the one place that says which engine runs for which input (as a [`Plan`]
//! value, chosen once per batch, outside every hot loop). Every engine computes the rounds
//! the lesson program computes, bit for bit; `tests/tests/engines.rs` runs each against the
//! reference port and names it. Each reads the parameters through a typed part
//! ([`Workload`] for the queue, [`LaneKey`] for a lane), so it cannot depend on a field
//! outside it, and the store's byte changes only through `store::apply`.
//!
//! - `reference.rs`, the **reference engine**, the one to read first: one configuration
//!   round by round, as the lesson program plays it, for every input the model accepts (the
//!   lesson's queue kept in arrival order, or an arrival process; a buffer; keyed routing).
//!   The plan sends it the runs with an option the lesson does not have ([`Plan::Reference`]);
//!   every engine below plays only the lesson's inputs and must equal it on them, metrics
//!   and round states (its tests check each lane engine the plan picks).
//! - `queue.rs`, the queue **merged on the fly** ([`Queue`]): the events in arrival order,
//!   from random access to the draws; exact because a shipment's events arrive in step
//!   order (checked: [`Error::WorkloadOrder`] otherwise), so the earliest event left is the
//!   next event of one of the shipments started so far, and a shipment need not start
//!   before its start time passes the earliest in-flight arrival.
//! - `sorted.rs`, the queue **sorted whole**: every event's key is its arrival's bits above
//!   its packed (shipment, step), so sorting keys is the program's stable sort by arrival.
//!   Assumes the workload fits the caller's room and every processing time is below 64
//!   rounds (the packed delay and the wheel).
//! - `lanes/event.rs`, the **general event-driven engine** (any processing time): per
//!   consumer the round from which it may apply; rounds in which none may apply are skipped.
//! - `lanes/wheel.rs`, the **timing wheel** (processing times below 64 rounds): consumers are
//!   bits of a `u64`, each pending round within 63 of now, so the next round with a finished
//!   consumer is one rotate and one count of trailing zeros away.
//! - `lanes/whole.rs`, unobserved lanes on a queue **sorted whole** ([`WholeLane`]): N = 1
//!   serially (the lone consumer is never refused); N ≤ S (2 to 8 consumers) by the
//!   earliest of N keys (the store never binds, see [`LaneKey`]); otherwise whole wheel
//!   rounds with no check per event while every consumer holds one (true while the queue
//!   holds the events a round may take), the last rounds on the timing wheel.
//! - [`windowed`], the small-memory engine for boards: the same rounds with a window of the
//!   queue and a bit per shipment.
//!
//! What bounds each hot path, with its figures, is in `host/benches/README.md`.
//!
//! ```
//! use capsim_core::consumers::{run, Params, Workspace};
//! let mut ws = Workspace::<5000>::new();
//! let m = run(&Params { consumers: 8, slots: 2, ..Params::default() }, &mut ws).unwrap();
//! assert_eq!((m.rounds, m.reordered_shipments, m.wrong_final_state), (17551, 2279, 432));
//! ```

use crate::error::{check_batch, Capacity, Error};
use crate::Observer;

mod lanes;
mod plan;
mod queue;
mod reference;
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
pub use reference::ArrivalStream;
pub(crate) use spec::report_skipped;
pub use spec::{
    Flow, LaneKey, Metrics, Outage, Params, RoundState, Routing, Workload, MAX_ARRIVAL_RATE,
    MAX_CONSUMERS, MAX_EVENTS_PER_SHIPMENT, MAX_QUEUE_GAP, MAX_SHIPMENTS, MIN_ARRIVAL_RATE,
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
    O: Observer<RoundState>,
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
    O: Observer<RoundState>,
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
    O: Observer<RoundState>,
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
    O: Observer<RoundState>,
{
    let differs = |a: &Params, b: &Params| a.workload().first_difference(&b.workload());
    let Some(first) = check_batch(params, R, out.len(), Params::validate, differs)? else {
        return Ok(());
    };
    let workload = first.workload();
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
        let store = per_shipment::<_, N>(store, shipments)?;
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
        Plan::MergedWheel | Plan::MergedEvent | Plan::Reference => None,
    };
    // The two engines on the queue merged on the fly differ in their lane type and loop.
    macro_rules! merged {
        ($lane:ident, $play:ident) => {{
            let mut queue = Queue::new(first, draws, space)?;
            let mut lanes: heapless::Vec<$lane<'_>, R> = heapless::Vec::new();
            for (&key, store) in keys.iter().zip(lane_stores) {
                let _ = lanes.push($lane::new(key, total, store, observe));
            }
            $play(&mut queue, &mut lanes, observer)?;
            for lane in &lanes {
                let _ = lane_metrics.push(lane.metrics(&workload));
            }
        }};
    }
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
        (Plan::Reference, _) => {
            let lanes = keys.iter().copied().zip(lane_stores);
            reference::play_lanes(
                &workload,
                first,
                draws,
                space,
                sort_events,
                lanes,
                observer,
                observe,
                &mut lane_metrics,
            )?;
        }
        (Plan::MergedEvent, _) => merged!(Lane, play_general),
        // Merged on the wheel, also when the sort found a shipment's arrivals out of step
        // order (the merged queue reports it).
        (Plan::MergedWheel | Plan::SortedWhole { .. }, _) => merged!(WheelLane, play_wheel),
    }
    for (&lane, m) in lane_of.iter().zip(out.iter_mut()) {
        if let Some(&lane_m) = lane_metrics.get(lane) {
            *m = lane_m;
        }
    }
    Ok(())
}

/// The first `shipments` entries of `room`, a workspace's storage for `N` shipments
/// ([`Capacity::WorkspaceShipments`] when it holds fewer).
fn per_shipment<T, const N: usize>(room: &mut [T], shipments: usize) -> Result<&mut [T], Error> {
    room.get_mut(..shipments).ok_or(Error::CapacityExceeded {
        capacity: Capacity::WorkspaceShipments,
        limit: N as u32,
    })
}
