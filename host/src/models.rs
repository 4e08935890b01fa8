//! The three model commands: their flags, the parameter grid, and one row per run.

use capsim_core::autoscale::{self, FailureRounds};
use capsim_core::bulkhead::{self, Mode, Split};
use capsim_core::consumers::{self, Workspace, MAX_SHIPMENTS};
use capsim_core::Error;
use clap::Args;
use rayon::prelude::*;

use crate::list::{parse, List};
use crate::output::{row, Cell, Row};

/// The most runs one command may make (the product of its lists).
pub const MAX_RUNS: u64 = 1_000_000;

/// Expands `grid` by one parameter: every existing combination times every listed value
/// (the first flag is the outermost loop).
fn expand<P: Clone, T: Clone>(
    grid: Vec<P>,
    values: &Option<List<T>>,
    set: fn(&mut P, T),
) -> Vec<P> {
    let Some(List(values)) = values else {
        return grid;
    };
    let mut out = Vec::with_capacity(grid.len() * values.len());
    for p in &grid {
        for v in values {
            let mut q = p.clone();
            set(&mut q, v.clone());
            out.push(q);
        }
    }
    out
}

/// Returns the number of runs the lists make, or an error naming the limit.
fn count_runs(lengths: &[usize]) -> Result<u64, String> {
    let mut n: u64 = 1;
    for &len in lengths {
        n = n.saturating_mul(len as u64);
    }
    if n > MAX_RUNS {
        return Err(format!(
            "the parameter lists make {n} runs; at most {MAX_RUNS} are accepted"
        ));
    }
    Ok(n)
}

fn len<T>(l: &Option<List<T>>) -> usize {
    l.as_ref().map_or(1, |l| l.0.len())
}

/// A model the CLI can sweep.
pub trait Model: Sync {
    /// One run's parameters.
    type Params: Clone + Send + Sync;
    /// Per-thread scratch storage.
    type Scratch;
    /// Returns every combination, in output order.
    fn grid(&self) -> Result<Vec<Self::Params>, String>;
    /// Returns fresh scratch storage.
    fn scratch() -> Self::Scratch;
    /// Runs one combination and returns its row (parameters, then metrics).
    fn run(p: &Self::Params, scratch: &mut Self::Scratch) -> Result<Row, Error>;
    /// Runs every combination and returns the rows in grid order (default: each on its own,
    /// spread over the current rayon pool).
    fn run_grid(grid: &[Self::Params]) -> Result<Vec<Row>, Error>
    where
        Self: Sized,
    {
        grid.par_iter()
            .map_init(Self::scratch, |scratch, p| Self::run(p, scratch))
            .collect()
    }
    /// Checks one combination's parameters.
    fn validate(p: &Self::Params) -> Result<(), Error>;
    /// The columns the table shows by default.
    fn table_keys(&self) -> Vec<&'static str>;
    /// The metric keys, in contract order.
    const METRICS: &'static [&'static str];
    /// How many seeds the grid runs per combination (the innermost list).
    fn seeds(&self) -> usize;
}

/// Keys of listed flags whose list has more than one value (shown in the table).
fn swept(keys: &mut Vec<&'static str>, key: &'static str, n: usize) {
    if n > 1 && !keys.contains(&key) {
        keys.push(key);
    }
}

// ---------------------------------------------------------------- autoscale

/// `capsim autoscale`: the auto-scaling group with a health check.
#[derive(Args, Debug)]
pub struct AutoscaleArgs {
    /// Consecutive failed health checks before an instance is replaced [integers >= 1; lesson: 2]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub threshold: Option<List<u32>>,
    /// Rounds after a scaling action before the next one [integers >= 0; lesson: 0]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub cooldown: Option<List<u32>>,
    /// Rounds simulated [1 to 10000000; lesson: 240]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub rounds: Option<List<u32>>,
    /// Requests one instance serves per round [numbers > 0; lesson: 100]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub capacity: Option<List<f64>>,
    /// Rounds an instance takes to boot [integers >= 0; lesson: 2]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub boot_rounds: Option<List<u32>>,
    /// Probability that a healthy instance fails one check [0 to 1; lesson: 0.08]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub transient_failure: Option<List<f64>>,
    /// Rounds at which an instance breaks for good, ':'-separated, or 'none' [at most 64; lesson: 40:95:170]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<FailureRounds>)]
    pub failure_rounds: Option<List<FailureRounds>>,
    /// Demand curve base, requests per round [finite numbers; lesson: 900]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub demand_base: Option<List<f64>>,
    /// Demand curve amplitude [finite numbers; lesson: 380]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub demand_amplitude: Option<List<f64>>,
    /// Demand curve period in rounds [numbers > 0 and >= rounds / 131000; lesson: 120]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub demand_period: Option<List<f64>>,
    /// First round of the demand surge [integers >= 0; lesson: 150]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub surge_start: Option<List<u32>>,
    /// First round after the demand surge [integers >= 0; lesson: 190]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub surge_end: Option<List<u32>>,
    /// Extra demand during the surge [finite numbers; lesson: 520]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub surge: Option<List<f64>>,
    /// Health-check generator seed [1 to 2147483646; lesson: 20261001]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub seed: Option<List<u32>>,
}

impl Model for AutoscaleArgs {
    fn seeds(&self) -> usize {
        len(&self.seed)
    }

    type Params = autoscale::Params;
    type Scratch = ();
    const METRICS: &'static [&'static str] = &[
        "min_size",
        "max_size",
        "max_launching",
        "max_launching_ratio",
        "under_capacity_rounds",
        "launched",
        "false_replacements",
        "broken_rounds",
        "scaling_actions",
        "replacements",
    ];

    fn grid(&self) -> Result<Vec<Self::Params>, String> {
        count_runs(&[
            len(&self.threshold),
            len(&self.cooldown),
            len(&self.rounds),
            len(&self.capacity),
            len(&self.boot_rounds),
            len(&self.transient_failure),
            len(&self.failure_rounds),
            len(&self.demand_base),
            len(&self.demand_amplitude),
            len(&self.demand_period),
            len(&self.surge_start),
            len(&self.surge_end),
            len(&self.surge),
            len(&self.seed),
        ])?;
        let g = vec![autoscale::Params::default()];
        let g = expand(g, &self.threshold, |p, v| p.threshold = v);
        let g = expand(g, &self.cooldown, |p, v| p.cooldown = v);
        let g = expand(g, &self.rounds, |p, v| p.rounds = v);
        let g = expand(g, &self.capacity, |p, v| p.capacity = v);
        let g = expand(g, &self.boot_rounds, |p, v| p.boot_rounds = v);
        let g = expand(g, &self.transient_failure, |p, v| p.transient_failure = v);
        let g = expand(g, &self.failure_rounds, |p, v| p.failure_rounds = v);
        let g = expand(g, &self.demand_base, |p, v| p.demand_base = v);
        let g = expand(g, &self.demand_amplitude, |p, v| p.demand_amplitude = v);
        let g = expand(g, &self.demand_period, |p, v| p.demand_period = v);
        let g = expand(g, &self.surge_start, |p, v| p.surge_start = v);
        let g = expand(g, &self.surge_end, |p, v| p.surge_end = v);
        let g = expand(g, &self.surge, |p, v| p.surge = v);
        Ok(expand(g, &self.seed, |p, v| p.seed = v))
    }

    fn scratch() {}

    fn validate(p: &Self::Params) -> Result<(), Error> {
        p.validate()
    }

    fn run(p: &Self::Params, _: &mut ()) -> Result<Row, Error> {
        let m = autoscale::run(p)?;
        Ok(row(vec![
            ("threshold", Cell::Int(p.threshold.into())),
            ("cooldown", Cell::Int(p.cooldown.into())),
            ("seed", Cell::Int(p.seed.into())),
            ("rounds", Cell::Int(p.rounds.into())),
            ("capacity", Cell::Float(p.capacity)),
            ("boot_rounds", Cell::Int(p.boot_rounds.into())),
            ("transient_failure", Cell::Float(p.transient_failure)),
            ("failure_rounds", Cell::Ints(p.failure_rounds.to_vec())),
            ("demand_base", Cell::Float(p.demand_base)),
            ("demand_amplitude", Cell::Float(p.demand_amplitude)),
            ("demand_period", Cell::Float(p.demand_period)),
            ("surge_start", Cell::Int(p.surge_start.into())),
            ("surge_end", Cell::Int(p.surge_end.into())),
            ("surge", Cell::Float(p.surge)),
            ("min_size", Cell::Int(m.min_size.into())),
            ("max_size", Cell::Int(m.max_size.into())),
            ("max_launching", Cell::Int(m.max_launching.into())),
            ("max_launching_ratio", Cell::Float(m.max_launching_ratio)),
            (
                "under_capacity_rounds",
                Cell::Int(m.under_capacity_rounds.into()),
            ),
            ("launched", Cell::Int(m.launched.into())),
            ("false_replacements", Cell::Int(m.false_replacements.into())),
            ("broken_rounds", Cell::Int(m.broken_rounds.into())),
            ("scaling_actions", Cell::Int(m.scaling_actions.into())),
            ("replacements", Cell::Int(m.replacements.into())),
        ]))
    }

    fn table_keys(&self) -> Vec<&'static str> {
        let mut keys = vec!["threshold", "cooldown", "seed"];
        swept(&mut keys, "rounds", len(&self.rounds));
        swept(&mut keys, "capacity", len(&self.capacity));
        swept(&mut keys, "boot_rounds", len(&self.boot_rounds));
        swept(&mut keys, "transient_failure", len(&self.transient_failure));
        swept(&mut keys, "failure_rounds", len(&self.failure_rounds));
        swept(&mut keys, "demand_base", len(&self.demand_base));
        swept(&mut keys, "demand_amplitude", len(&self.demand_amplitude));
        swept(&mut keys, "demand_period", len(&self.demand_period));
        swept(&mut keys, "surge_start", len(&self.surge_start));
        swept(&mut keys, "surge_end", len(&self.surge_end));
        swept(&mut keys, "surge", len(&self.surge));
        keys.extend_from_slice(Self::METRICS);
        keys
    }
}

// ---------------------------------------------------------------- consumers

/// `capsim consumers`: competing consumers on one queue.
#[derive(Args, Debug)]
pub struct ConsumersArgs {
    /// Consumers pulling from the queue, N [1 to 64; lesson: 1,2,3,4,6,8]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub consumers: Option<List<u32>>,
    /// Events the store applies per round at most, S [integers >= 1; lesson: 2,4]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub slots: Option<List<u32>>,
    /// Shipments in the workload [1 to 65536; lesson: 5000]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub shipments: Option<List<u32>>,
    /// Status events per shipment [1 to 126; lesson: 7]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub events_per_shipment: Option<List<u32>>,
    /// Queue distance between a shipment's successive events [0 to 1e9; lesson: 1]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub queue_gap: Option<List<f64>>,
    /// Rounds to process a shipment's last event [integers >= 0; lesson: 6]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub final_event_rounds: Option<List<u32>>,
    /// Fewest rounds to process any other event [integers >= 0; lesson: 1]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub event_rounds_min: Option<List<u32>>,
    /// Other events take min + floor(r * spread) rounds [integers >= 0; lesson: 3]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub event_rounds_spread: Option<List<u32>>,
    /// Workload generator seed [1 to 2147483646; lesson: 20260731]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub seed: Option<List<u32>>,
}

impl Model for ConsumersArgs {
    fn seeds(&self) -> usize {
        len(&self.seed)
    }

    type Params = consumers::Params;
    type Scratch = Box<Workspace<MAX_SHIPMENTS>>;
    const METRICS: &'static [&'static str] = &[
        "rounds",
        "reordered_shipments",
        "wrong_final_state",
        "throughput",
    ];

    fn grid(&self) -> Result<Vec<Self::Params>, String> {
        count_runs(&[
            len(&self.consumers),
            len(&self.slots),
            len(&self.shipments),
            len(&self.events_per_shipment),
            len(&self.queue_gap),
            len(&self.final_event_rounds),
            len(&self.event_rounds_min),
            len(&self.event_rounds_spread),
            len(&self.seed),
        ])?;
        let g = vec![consumers::Params::default()];
        let g = expand(g, &self.consumers, |p, v| p.consumers = v);
        let g = expand(g, &self.slots, |p, v| p.slots = v);
        let g = expand(g, &self.shipments, |p, v| p.shipments = v);
        let g = expand(g, &self.events_per_shipment, |p, v| {
            p.events_per_shipment = v
        });
        let g = expand(g, &self.queue_gap, |p, v| p.queue_gap = v);
        let g = expand(g, &self.final_event_rounds, |p, v| p.final_event_rounds = v);
        let g = expand(g, &self.event_rounds_min, |p, v| p.event_rounds_min = v);
        let g = expand(g, &self.event_rounds_spread, |p, v| {
            p.event_rounds_spread = v
        });
        Ok(expand(g, &self.seed, |p, v| p.seed = v))
    }

    fn scratch() -> Self::Scratch {
        Box::new(Workspace::new())
    }

    fn validate(p: &Self::Params) -> Result<(), Error> {
        p.validate()
    }

    fn run(p: &Self::Params, ws: &mut Self::Scratch) -> Result<Row, Error> {
        let m = consumers::run(p, ws)?;
        Ok(row(vec![
            ("consumers", Cell::Int(p.consumers.into())),
            ("slots", Cell::Int(p.slots.into())),
            ("shipments", Cell::Int(p.shipments.into())),
            (
                "events_per_shipment",
                Cell::Int(p.events_per_shipment.into()),
            ),
            ("queue_gap", Cell::Float(p.queue_gap)),
            ("seed", Cell::Int(p.seed.into())),
            ("final_event_rounds", Cell::Int(p.final_event_rounds.into())),
            ("event_rounds_min", Cell::Int(p.event_rounds_min.into())),
            (
                "event_rounds_spread",
                Cell::Int(p.event_rounds_spread.into()),
            ),
            ("rounds", Cell::Int(m.rounds)),
            (
                "reordered_shipments",
                Cell::Int(m.reordered_shipments.into()),
            ),
            ("wrong_final_state", Cell::Int(m.wrong_final_state.into())),
            ("throughput", Cell::Float(m.throughput)),
        ]))
    }

    fn table_keys(&self) -> Vec<&'static str> {
        let mut keys = vec!["consumers", "slots", "shipments", "seed"];
        swept(
            &mut keys,
            "events_per_shipment",
            len(&self.events_per_shipment),
        );
        swept(&mut keys, "queue_gap", len(&self.queue_gap));
        swept(
            &mut keys,
            "final_event_rounds",
            len(&self.final_event_rounds),
        );
        swept(&mut keys, "event_rounds_min", len(&self.event_rounds_min));
        swept(
            &mut keys,
            "event_rounds_spread",
            len(&self.event_rounds_spread),
        );
        keys.extend_from_slice(Self::METRICS);
        keys
    }
}

// ---------------------------------------------------------------- bulkhead

/// `capsim bulkhead`: a shared slot pool vs. partitioned pools.
#[derive(Args, Debug)]
pub struct BulkheadArgs {
    /// 'shared', or the tracking pool's slots (events get the rest) [1 to total-slots - 1; lesson: shared,24]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<Split>)]
    pub split: Option<List<Split>>,
    /// healthy, or slowdown (event requests hold slow-hold rounds from failure-start) [lesson: healthy,slowdown]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<Mode>)]
    pub mode: Option<List<Mode>>,
    /// Slots in all [1 to 65535; lesson: 32]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub total_slots: Option<List<u32>>,
    /// Rounds per second [numbers > 0; lesson: 100]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub rounds_per_second: Option<List<f64>>,
    /// Rounds simulated [1 to 100000000; lesson: 4000]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub horizon: Option<List<u32>>,
    /// First round of the slowdown [integers >= 0; lesson: 1000]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub failure_start: Option<List<u32>>,
    /// Tracking requests per second [>= 0, at most 64 per round; lesson: 416.67]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub tracking_rate: Option<List<f64>>,
    /// Event requests per second [>= 0, at most 64 per round; lesson: 97.22]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<f64>)]
    pub event_rate: Option<List<f64>>,
    /// Rounds a tracking request holds its slot [1 to 255; lesson: 4]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub tracking_hold: Option<List<u32>>,
    /// Rounds an event request holds its slot [1 to 255; lesson: 6]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub event_hold: Option<List<u32>>,
    /// Rounds an event request holds its slot during the slowdown [1 to 255; lesson: 22]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub slow_hold: Option<List<u32>>,
    /// Arrival generator seed [1 to 2147483646; lesson: 20260801]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub seed: Option<List<u32>>,
}

impl Model for BulkheadArgs {
    fn seeds(&self) -> usize {
        len(&self.seed)
    }

    type Params = bulkhead::Params;
    type Scratch = ();
    const METRICS: &'static [&'static str] = &[
        "tracking_served",
        "tracking_dropped",
        "event_served",
        "event_dropped",
        "idle_slots",
        "busy_slot_rounds",
    ];

    fn grid(&self) -> Result<Vec<Self::Params>, String> {
        count_runs(&[
            len(&self.split),
            len(&self.mode),
            len(&self.total_slots),
            len(&self.rounds_per_second),
            len(&self.horizon),
            len(&self.failure_start),
            len(&self.tracking_rate),
            len(&self.event_rate),
            len(&self.tracking_hold),
            len(&self.event_hold),
            len(&self.slow_hold),
            len(&self.seed),
        ])?;
        let g = vec![bulkhead::Params::default()];
        let g = expand(g, &self.split, |p, v| p.split = v);
        let g = expand(g, &self.mode, |p, v| p.mode = v);
        let g = expand(g, &self.total_slots, |p, v| p.total_slots = v);
        let g = expand(g, &self.rounds_per_second, |p, v| p.rounds_per_second = v);
        let g = expand(g, &self.horizon, |p, v| p.horizon = v);
        let g = expand(g, &self.failure_start, |p, v| p.failure_start = v);
        let g = expand(g, &self.tracking_rate, |p, v| p.tracking_rate = v);
        let g = expand(g, &self.event_rate, |p, v| p.event_rate = v);
        let g = expand(g, &self.tracking_hold, |p, v| p.tracking_hold = v);
        let g = expand(g, &self.event_hold, |p, v| p.event_hold = v);
        let g = expand(g, &self.slow_hold, |p, v| p.slow_hold = v);
        Ok(expand(g, &self.seed, |p, v| p.seed = v))
    }

    fn scratch() {}

    fn validate(p: &Self::Params) -> Result<(), Error> {
        p.validate()
    }

    fn run(p: &Self::Params, _: &mut ()) -> Result<Row, Error> {
        Ok(bulkhead_row(p, &bulkhead::run(p)?))
    }

    /// Runs the combinations that share an arrival stream (seed, horizon, rates) together,
    /// up to [`BULKHEAD_LANES`] at a time: the stream is drawn once per batch.
    fn run_grid(grid: &[Self::Params]) -> Result<Vec<Row>, Error> {
        let mut streams: std::collections::BTreeMap<_, Vec<usize>> = Default::default();
        for (i, p) in grid.iter().enumerate() {
            let key = (
                p.seed,
                p.horizon,
                p.rounds_per_second.to_bits(),
                p.tracking_rate.to_bits(),
                p.event_rate.to_bits(),
            );
            streams.entry(key).or_default().push(i);
        }
        let batches: Vec<&[usize]> = streams
            .values()
            .flat_map(|runs| runs.chunks(BULKHEAD_LANES))
            .collect();
        let done: Vec<Vec<(usize, Row)>> = batches
            .par_iter()
            .map(|batch| run_bulkhead_batch(grid, batch))
            .collect::<Result<_, _>>()?;
        let mut rows: Vec<Option<Row>> = vec![None; grid.len()];
        for (i, row) in done.into_iter().flatten() {
            rows[i] = Some(row);
        }
        Ok(rows.into_iter().flatten().collect())
    }

    fn table_keys(&self) -> Vec<&'static str> {
        let mut keys = vec!["split", "mode", "seed"];
        swept(&mut keys, "total_slots", len(&self.total_slots));
        swept(&mut keys, "rounds_per_second", len(&self.rounds_per_second));
        swept(&mut keys, "horizon", len(&self.horizon));
        swept(&mut keys, "failure_start", len(&self.failure_start));
        swept(&mut keys, "tracking_rate", len(&self.tracking_rate));
        swept(&mut keys, "event_rate", len(&self.event_rate));
        swept(&mut keys, "tracking_hold", len(&self.tracking_hold));
        swept(&mut keys, "event_hold", len(&self.event_hold));
        swept(&mut keys, "slow_hold", len(&self.slow_hold));
        keys.extend_from_slice(Self::METRICS);
        keys
    }
}

/// Bulkhead combinations run together on one arrival stream at most.
const BULKHEAD_LANES: usize = 8;

/// Runs `batch` (indices into `grid`, all on one arrival stream) with exactly as many lanes.
fn run_bulkhead_batch(
    grid: &[bulkhead::Params],
    batch: &[usize],
) -> Result<Vec<(usize, Row)>, Error> {
    fn lanes<const B: usize>(
        grid: &[bulkhead::Params],
        batch: &[usize],
    ) -> Result<Vec<(usize, Row)>, Error> {
        let params: [bulkhead::Params; B] = std::array::from_fn(|i| grid[batch[i]].clone());
        let metrics = bulkhead::run_many(&params)?;
        Ok(batch
            .iter()
            .zip(params.iter().zip(metrics.iter()))
            .map(|(&i, (p, m))| (i, bulkhead_row(p, m)))
            .collect())
    }
    match batch.len() {
        1 => lanes::<1>(grid, batch),
        2 => lanes::<2>(grid, batch),
        3 => lanes::<3>(grid, batch),
        4 => lanes::<4>(grid, batch),
        5 => lanes::<5>(grid, batch),
        6 => lanes::<6>(grid, batch),
        7 => lanes::<7>(grid, batch),
        _ => lanes::<8>(grid, batch),
    }
}

/// Returns a bulkhead run's row: its parameters, then its metrics.
fn bulkhead_row(p: &bulkhead::Params, m: &bulkhead::Metrics) -> Row {
    let split = match p.split {
        Split::Shared => Cell::Word("shared"),
        Split::Partitioned(k) => Cell::Int(k.into()),
    };
    row(vec![
        ("split", split),
        ("mode", Cell::Word(p.mode.name())),
        ("seed", Cell::Int(p.seed.into())),
        ("total_slots", Cell::Int(p.total_slots.into())),
        ("rounds_per_second", Cell::Float(p.rounds_per_second)),
        ("horizon", Cell::Int(p.horizon.into())),
        ("failure_start", Cell::Int(p.failure_start.into())),
        ("tracking_rate", Cell::Float(p.tracking_rate)),
        ("event_rate", Cell::Float(p.event_rate)),
        ("tracking_hold", Cell::Int(p.tracking_hold.into())),
        ("event_hold", Cell::Int(p.event_hold.into())),
        ("slow_hold", Cell::Int(p.slow_hold.into())),
        ("tracking_served", Cell::Int(m.tracking_served)),
        ("tracking_dropped", Cell::Int(m.tracking_dropped)),
        ("event_served", Cell::Int(m.event_served)),
        ("event_dropped", Cell::Int(m.event_dropped)),
        ("idle_slots", Cell::Int(m.idle_slots)),
        ("busy_slot_rounds", Cell::Int(m.busy_slot_rounds)),
    ])
}
