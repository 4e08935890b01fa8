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

/// The parameter grid of one command: every combination of the listed values, built one
/// flag at a time (the first flag is the outermost loop), never past [`MAX_RUNS`].
pub struct Grid<P> {
    /// The combinations, in output order.
    pub runs: Vec<P>,
    /// The keys of flags given more than one value (the table shows them).
    pub swept: Vec<&'static str>,
    too_many: Option<u64>,
}

impl<P: Clone> Grid<P> {
    fn new(base: P) -> Self {
        Self {
            runs: vec![base],
            swept: Vec::new(),
            too_many: None,
        }
    }

    /// Multiplies the grid by one flag's values (an omitted flag keeps the default).
    fn axis<T: Clone>(&mut self, key: &'static str, values: &Option<List<T>>, set: fn(&mut P, T)) {
        let Some(List(values)) = values else {
            return;
        };
        if values.len() > 1 {
            self.swept.push(key);
        }
        let total = (self.runs.len() as u64).saturating_mul(values.len() as u64);
        if let Some(n) = self.too_many.as_mut() {
            *n = n.saturating_mul(values.len() as u64);
            return;
        }
        if total > MAX_RUNS {
            self.too_many = Some(total);
            return;
        }
        let mut out = Vec::with_capacity(total as usize);
        for p in &self.runs {
            for v in values {
                let mut q = p.clone();
                set(&mut q, v.clone());
                out.push(q);
            }
        }
        self.runs = out;
    }

    fn finish(self) -> Result<Self, String> {
        match self.too_many {
            Some(n) => Err(format!(
                "the parameter lists make {n} runs; at most {MAX_RUNS} are accepted"
            )),
            None => Ok(self),
        }
    }
}

/// A model the CLI can sweep.
pub trait Model: Sync {
    /// One run's parameters.
    type Params: Clone + Send + Sync;
    /// Per-thread scratch storage.
    type Scratch;
    /// Returns every combination, in output order.
    fn grid(&self) -> Result<Grid<Self::Params>, String>;
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
    /// The parameters the table always shows (swept ones join them).
    const HEADLINE: &'static [&'static str];
    /// The metric keys, in contract order.
    const METRICS: &'static [&'static str];
    /// How many seeds the grid runs per combination (the innermost list).
    fn seeds(&self) -> usize;
}

/// Returns the table's columns: the headline parameters, the swept ones, the metrics.
pub fn table_keys<M: Model>(swept: &[&'static str]) -> Vec<&'static str> {
    let mut keys = M::HEADLINE.to_vec();
    keys.extend(swept.iter().filter(|k| !M::HEADLINE.contains(k)));
    keys.extend_from_slice(M::METRICS);
    keys
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
    /// Requests one instance serves per round [numbers > 0.0; lesson: 100]
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

    fn grid(&self) -> Result<Grid<Self::Params>, String> {
        let mut g = Grid::new(autoscale::Params::default());
        g.axis("threshold", &self.threshold, |p, v| p.threshold = v);
        g.axis("cooldown", &self.cooldown, |p, v| p.cooldown = v);
        g.axis("rounds", &self.rounds, |p, v| p.rounds = v);
        g.axis("capacity", &self.capacity, |p, v| p.capacity = v);
        g.axis("boot_rounds", &self.boot_rounds, |p, v| p.boot_rounds = v);
        g.axis("transient_failure", &self.transient_failure, |p, v| {
            p.transient_failure = v
        });
        g.axis("failure_rounds", &self.failure_rounds, |p, v| {
            p.failure_rounds = v
        });
        g.axis("demand_base", &self.demand_base, |p, v| p.demand_base = v);
        g.axis("demand_amplitude", &self.demand_amplitude, |p, v| {
            p.demand_amplitude = v
        });
        g.axis("demand_period", &self.demand_period, |p, v| {
            p.demand_period = v
        });
        g.axis("surge_start", &self.surge_start, |p, v| p.surge_start = v);
        g.axis("surge_end", &self.surge_end, |p, v| p.surge_end = v);
        g.axis("surge", &self.surge, |p, v| p.surge = v);
        g.axis("seed", &self.seed, |p, v| p.seed = v);
        g.finish()
    }

    fn seeds(&self) -> usize {
        self.seed.as_ref().map_or(1, |l| l.0.len())
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
    const HEADLINE: &'static [&'static str] = &["threshold", "cooldown", "seed"];
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
    type Params = consumers::Params;
    type Scratch = Box<Workspace<MAX_SHIPMENTS>>;
    const METRICS: &'static [&'static str] = &[
        "rounds",
        "reordered_shipments",
        "wrong_final_state",
        "throughput",
    ];

    fn grid(&self) -> Result<Grid<Self::Params>, String> {
        let mut g = Grid::new(consumers::Params::default());
        g.axis("consumers", &self.consumers, |p, v| p.consumers = v);
        g.axis("slots", &self.slots, |p, v| p.slots = v);
        g.axis("shipments", &self.shipments, |p, v| p.shipments = v);
        g.axis("events_per_shipment", &self.events_per_shipment, |p, v| {
            p.events_per_shipment = v
        });
        g.axis("queue_gap", &self.queue_gap, |p, v| p.queue_gap = v);
        g.axis("final_event_rounds", &self.final_event_rounds, |p, v| {
            p.final_event_rounds = v
        });
        g.axis("event_rounds_min", &self.event_rounds_min, |p, v| {
            p.event_rounds_min = v
        });
        g.axis("event_rounds_spread", &self.event_rounds_spread, |p, v| {
            p.event_rounds_spread = v
        });
        g.axis("seed", &self.seed, |p, v| p.seed = v);
        g.finish()
    }

    fn seeds(&self) -> usize {
        self.seed.as_ref().map_or(1, |l| l.0.len())
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
    const HEADLINE: &'static [&'static str] = &["consumers", "slots", "shipments", "seed"];
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
    /// Rounds per second [numbers > 0.0; lesson: 100]
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
    /// Rounds a tracking request holds its slot [1 to 127; lesson: 4]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub tracking_hold: Option<List<u32>>,
    /// Rounds an event request holds its slot [1 to 127; lesson: 6]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub event_hold: Option<List<u32>>,
    /// Rounds an event request holds its slot during the slowdown [1 to 127; lesson: 22]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub slow_hold: Option<List<u32>>,
    /// Arrival generator seed [1 to 2147483646; lesson: 20260801]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = parse::<u32>)]
    pub seed: Option<List<u32>>,
}

impl Model for BulkheadArgs {
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

    fn grid(&self) -> Result<Grid<Self::Params>, String> {
        let mut g = Grid::new(bulkhead::Params::default());
        g.axis("split", &self.split, |p, v| p.split = v);
        g.axis("mode", &self.mode, |p, v| p.mode = v);
        g.axis("total_slots", &self.total_slots, |p, v| p.total_slots = v);
        g.axis("rounds_per_second", &self.rounds_per_second, |p, v| {
            p.rounds_per_second = v
        });
        g.axis("horizon", &self.horizon, |p, v| p.horizon = v);
        g.axis("failure_start", &self.failure_start, |p, v| {
            p.failure_start = v
        });
        g.axis("tracking_rate", &self.tracking_rate, |p, v| {
            p.tracking_rate = v
        });
        g.axis("event_rate", &self.event_rate, |p, v| p.event_rate = v);
        g.axis("tracking_hold", &self.tracking_hold, |p, v| {
            p.tracking_hold = v
        });
        g.axis("event_hold", &self.event_hold, |p, v| p.event_hold = v);
        g.axis("slow_hold", &self.slow_hold, |p, v| p.slow_hold = v);
        g.axis("seed", &self.seed, |p, v| p.seed = v);
        g.finish()
    }

    fn seeds(&self) -> usize {
        self.seed.as_ref().map_or(1, |l| l.0.len())
    }

    fn scratch() {}

    fn validate(p: &Self::Params) -> Result<(), Error> {
        p.validate()
    }

    fn run(p: &Self::Params, _: &mut ()) -> Result<Row, Error> {
        Ok(bulkhead_row(p, &bulkhead::run(p)?))
    }

    /// Runs the combinations that share an arrival stream (seed, horizon, rates) together,
    /// up to `BULKHEAD_LANES` at a time: the stream is drawn once per batch.
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
    const HEADLINE: &'static [&'static str] = &["split", "mode", "seed"];
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
