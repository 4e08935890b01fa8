//! The consumers command: its table of `Param`s and metrics, and its grid's runs batched
//! on one queue per workload.

use capsim_core::consumers::{self, Outage, Routing, Workspace, DEFAULT_IN_FLIGHT, MAX_SHIPMENTS};
use capsim_core::{Error, Observer};

use super::batch::{batched_window, lanes_or_alone};
use super::grid::Grid;
use super::{param_axis, Ahead, Column, Metric, Model, Need, Outcome, Param, Rule, Value};

/// `capsim consumers`: competing consumers on one queue.
pub struct Consumers;

impl Model for Consumers {
    type Params = consumers::Params;
    type Metrics = consumers::Metrics;
    type Scratch = ConsumersScratch;
    type Round = consumers::RoundState;
    const PARAMS: &'static [Param<consumers::Params>] = &[
        param!(consumers: u32,
            "Consumers pulling from the queue, N", "1 to {MAX_CONSUMERS}", "{CONSUMER_COUNTS}"),
        param!(slots: u32,
            "Events the store applies per round at most, S", "1 to 4294967295", "{STORE_SLOTS}"),
        param!(shipments: u32,
            "Shipments in the workload", "1 to {MAX_SHIPMENTS}", "5000"),
        param!(events_per_shipment: u32,
            "Status events per shipment", "1 to {MAX_EVENTS_PER_SHIPMENT}", "7"),
        param!(queue_gap: f64,
            "Queue distance between a shipment's successive events", "0, or 1 (the lesson's; another gap above 0, up to {MAX_QUEUE_GAP}, orders the queue as 1 does and is refused)", "1"),
        param!(final_event_rounds: u32,
            "Rounds to process a shipment's last event", "0 to 4294967295", "6"),
        param!(event_rounds_min: u32,
            "Fewest rounds to process any other event", "0 to 4294967295 - event-rounds-spread", "1"),
        param!(event_rounds_spread: u32,
            "Other events take min + floor(r * spread) rounds",
            "0 to 4294967295 - event-rounds-min", "3"),
        param!(flow.arrival_rate: Option<f64>,
            "Shipments arriving per round (Poisson, on a stream of its own seeded by --seed), \
             each with its lesson events queued together; 'none': the lesson's queue, full \
             before round 0",
            "none, or {MIN_ARRIVAL_RATE} to {MAX_ARRIVAL_RATE}", "none"),
        param!(flow.outage: Option<Outage>,
            "Rounds A..B (B excluded) without arrivals, needs --arrival-rate: what they would \
             bring arrives at round B",
            "none, or A..B / A..=B with A < B, rounds up to 4294967295", "none"),
        param!(flow.buffer: Option<u32>,
            "The most events the queue holds; an event arriving at a full queue is dropped. \
             A count, not storage: any size costs the same memory; 'none': no bound",
            "none, or 1 to 4294967295", "none"),
        param!(flow.routing: Routing,
            "'shared': a free consumer takes the next event (the lesson); 'keyed': same key, \
             same partition, shipment g's events to consumer g mod N, in queue order",
            "shared, keyed", "shared"),
        param!(seed: u32,
            "Workload generator seed", "1 to {MAX_SEED}", "20260731"),
    ];
    const NAME: &'static str = "consumers";
    /// The rounds the run's metrics say (an outage of billions of rounds costs the engine
    /// nothing: it skips empty stretches).
    fn view_rounds(p: &consumers::Params) -> Option<u64> {
        Self::run(p, &mut Self::scratch()).ok().map(|m| m.rounds)
    }
    const VALIDATE: fn(&consumers::Params) -> Result<(), Error> = consumers::Params::validate;
    const NEEDS: &'static [Need<consumers::Params>] = &[
        Need {
            flags: &["queue_gap"],
            rule: Rule::NotWith(
                "--arrival-rate",
                "an arriving shipment's events are queued together",
            ),
            holds: |p| p.flow.arrival_rate.is_none(),
            example: &[],
        },
        Need {
            flags: &["queue_gap"],
            rule: Rule::Needs(
                "0",
                "a gap above 0 scales every queue position alike: the queue's order is the lesson's gap of 1's",
            ),
            holds: |p| p.queue_gap == 0.0 || p.queue_gap == 1.0,
            example: &[],
        },
        Need {
            flags: &["outage"],
            rule: Rule::Needs("--arrival-rate", "the lesson's queue is full before round 0"),
            holds: |p| p.flow.arrival_rate.is_some(),
            example: &[("arrival_rate", "0.5")],
        },
    ];
    const SEED_AFTER: &'static str = "queue_gap";
    const HEADLINE: &'static [&'static str] = &["consumers", "slots", "shipments", "seed"];
    const HEADLINE_METRICS: &'static [&'static str] = &[
        "rounds",
        "throughput",
        "reordered_shipments",
        "wrong_final_state",
    ];
    const METRICS: &'static [Metric<consumers::Metrics>] = metrics![
        rounds,
        reordered_shipments,
        wrong_final_state,
        throughput,
        max_backlog,
        dropped_events,
        dropped_shipments,
    ];

    fn scratch() -> Self::Scratch {
        ConsumersScratch::default()
    }

    fn run_observed<O: Observer<Self::Round>>(
        p: &Self::Params,
        scratch: &mut Self::Scratch,
        observer: &mut O,
    ) -> Outcome<Self::Metrics> {
        let ConsumersScratch { single, events, .. } = scratch;
        let ws = single.get_or_insert_with(Default::default);
        let draws = consumers::LessonDraws::new(p);
        if p.flow != consumers::Flow::default() && p.flow.arrival_rate.is_none() {
            // The reference engine keeps the lesson's queue in arrival order: 4 bytes an event,
            // lent here (a grid's batch lends its sort's room) once the size is known valid.
            p.validate()?;
            let room = usize::try_from(p.events()).unwrap_or(0);
            events.resize(room, 0);
            let mut out = [consumers::Metrics::default()];
            let params = std::slice::from_ref(p);
            consumers::run_batch_sorted_with(
                params,
                draws,
                ws,
                &mut [],
                events,
                observer,
                &mut out,
            )?;
            return Ok(out[0]);
        }
        consumers::run_with(p, draws, ws, observer)
    }

    batched_run_window! {
        /// Runs the configurations that share a workload (they differ only in consumers and
        /// slots) together, up to `CONSUMERS_LANES` (16) at a time: the queue is generated
        /// once per batch, not once per configuration. See `batched_window`.
        stream: &consumers::Workload::FLAGS,
        lanes: CONSUMERS_LANES,
        |grid, scratch, batch| run_consumers_batch(grid, batch, scratch)
    }
}

/// Consumers configurations run together on one pass over a queue at most: the lesson's
/// twelve, `--consumers` × `--slots` up to 16.
const CONSUMERS_LANES: usize = 16;

/// The most shipments of a batch's workspace (19 bytes each with 16 lanes: 156 KB a thread);
/// larger workloads run one configuration at a time in the 65,536-shipment workspace.
const BATCH_SHIPMENTS: usize = 8192;

/// A thread's consumers workspaces, each allocated when first needed: one configuration's
/// for any workload, and a batch's for workloads of up to `BATCH_SHIPMENTS` shipments.
#[derive(Default)]
pub struct ConsumersScratch {
    single: Option<Box<Workspace<MAX_SHIPMENTS>>>,
    batch: Option<Box<Workspace<BATCH_SHIPMENTS, DEFAULT_IN_FLIGHT, CONSUMERS_LANES>>>,
    /// The sort's storage for a batch's workload sorted whole (`consumers::run_batch_sorted_with`).
    keys: Vec<u128>,
    events: Vec<u32>,
}

/// The most events a thread sorts whole (20 bytes each: 5 MB; the lesson's workload is
/// 35,000); larger workloads are merged on the fly, with the same results.
const SORTED_EVENTS: u64 = 1 << 18;

/// Runs `batch` (runs of `grid` sharing a workload, at most [`CONSUMERS_LANES`]) on one pass
/// over the queue; a large workload, or a batch that fails, runs each on its own so that
/// every run gets its own outcome.
fn run_consumers_batch(
    grid: &Grid<Consumers>,
    batch: &[u64],
    scratch: &mut ConsumersScratch,
) -> Vec<(u64, Outcome<consumers::Metrics>)> {
    let params: Vec<consumers::Params> = batch.iter().map(|&i| grid.params(i)).collect();
    let alone = |scratch: &mut ConsumersScratch| {
        batch
            .iter()
            .zip(&params)
            .map(|(&i, p)| (i, Consumers::run(p, scratch)))
            .collect()
    };
    let Some(first) = params.first() else {
        return Vec::new();
    };
    if first.shipments as usize > BATCH_SHIPMENTS || params.len() > CONSUMERS_LANES {
        return alone(scratch);
    }
    // Sorting the workload whole is faster than merging it, for one run as for a batch.
    let sorted = if first.events() <= SORTED_EVENTS {
        first.events() as usize
    } else {
        0
    };
    let ConsumersScratch {
        batch: ws,
        keys,
        events,
        ..
    } = scratch;
    let ws = ws.get_or_insert_with(Default::default);
    keys.resize(sorted, 0);
    events.resize(sorted, 0);
    let mut metrics = [consumers::Metrics::default(); CONSUMERS_LANES];
    let draws = consumers::LessonDraws::new(first);
    let out = &mut metrics[..params.len()];
    let together = consumers::run_batch_sorted_with(&params, draws, ws, keys, events, &mut (), out);
    lanes_or_alone(batch, together, metrics, || alone(scratch))
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::super::tests::grid;
    use super::super::*;
    use super::*;
    use capsim_core::consumers;

    /// Consumers configurations run in batches on one queue give each run's own metrics (or
    /// error), in grid order: small workloads (batched), one too large for a batch's
    /// workspace (run alone), and a batch where one configuration is refused.
    #[test]
    fn batched_consumers_runs_equal_runs_alone() {
        for args in [
            &[
                "--consumers",
                "1,3,8",
                "--slots",
                "2,4",
                "--shipments",
                "300",
                "--seed",
                "1..=3",
            ][..],
            &["--consumers", "2,4", "--shipments", "9000", "--seed", "5,6"],
            &["--consumers", "2,65", "--shipments", "200", "--seed", "5,6"],
        ] {
            let g = grid::<Consumers>(args);
            let mut ahead = Ahead::new();
            let window = Consumers::run_window(&g, 0..g.len(), &mut ahead, &|_| {});
            assert!(ahead.is_empty());
            let mut ws = Box::new(Workspace::<MAX_SHIPMENTS>::new());
            for (i, outcome) in (0..g.len()).zip(&window) {
                let alone = consumers::run(&g.params(i), &mut ws);
                assert_eq!(
                    format!("{outcome:?}"),
                    format!("{alone:?}"),
                    "{args:?} run {i}"
                );
            }
        }
    }
}
