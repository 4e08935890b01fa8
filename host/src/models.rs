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

/// A parameter value the grid can set and a row can show.
pub trait Value: Clone + Send + Sync + 'static {
    /// Returns the value as a row shows it.
    fn cell(&self) -> Cell;
}

impl Value for u32 {
    fn cell(&self) -> Cell {
        Cell::Int((*self).into())
    }
}

impl Value for f64 {
    fn cell(&self) -> Cell {
        Cell::Float(*self)
    }
}

impl Value for Split {
    fn cell(&self) -> Cell {
        match self {
            Split::Shared => Cell::Word("shared"),
            Split::Partitioned(k) => Cell::Int((*k).into()),
        }
    }
}

impl Value for Mode {
    fn cell(&self) -> Cell {
        Cell::Word(self.name())
    }
}

impl Value for FailureRounds {
    fn cell(&self) -> Cell {
        Cell::Ints(self.to_vec())
    }
}

/// One flag's values as a grid axis: how many, and how to put the `i`th into a run.
trait Axis<P>: Send + Sync {
    fn len(&self) -> usize;
    fn set(&self, p: &mut P, i: usize);
    fn cell(&self, i: usize) -> Cell;
}

struct Values<P, T> {
    values: Vec<T>,
    set: fn(&mut P, T),
}

impl<P, T: Value> Axis<P> for Values<P, T> {
    fn len(&self) -> usize {
        self.values.len()
    }
    fn set(&self, p: &mut P, i: usize) {
        (self.set)(p, self.values[i].clone());
    }
    fn cell(&self, i: usize) -> Cell {
        self.values[i].cell()
    }
}

/// The parameter grid of one command: every combination of the listed values, first flag
/// outermost, seed innermost. Run `i`'s parameters are decoded from `i` on demand (mixed
/// radix over the flags' value lists), so a grid of a million runs holds only its lists.
pub struct Grid<P> {
    base: P,
    /// The given flags' keys and values, outermost first.
    axes: Vec<(&'static str, Box<dyn Axis<P>>)>,
    /// The product of the axes' lengths, saturating.
    len: u64,
    /// The keys of flags given more than one value (the table shows them).
    pub swept: Vec<&'static str>,
}

impl<P: Clone + 'static> Grid<P> {
    fn new(base: P) -> Self {
        Self {
            base,
            axes: Vec::new(),
            len: 1,
            swept: Vec::new(),
        }
    }

    /// Adds one flag's values as the next inner axis (an omitted flag keeps the default).
    fn axis<T: Value>(&mut self, key: &'static str, values: &Option<List<T>>, set: fn(&mut P, T)) {
        let Some(List(values)) = values else {
            return;
        };
        if values.len() > 1 {
            self.swept.push(key);
        }
        self.len = self.len.saturating_mul(values.len() as u64);
        let values = values.clone();
        self.axes.push((key, Box::new(Values { values, set })));
    }

    fn finish(self) -> Result<Self, String> {
        if self.len > MAX_RUNS {
            return Err(format!(
                "the parameter lists make {} runs; at most {MAX_RUNS} are accepted",
                self.len
            ));
        }
        Ok(self)
    }

    /// Returns the number of runs.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Returns false: a grid has at least one run.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Returns each axis's index in run `i`, outermost first.
    pub fn digits(&self, mut i: u64) -> Vec<usize> {
        let mut digits = vec![0; self.axes.len()];
        for (d, (_, axis)) in digits.iter_mut().zip(&self.axes).rev() {
            let n = axis.len() as u64;
            *d = (i % n) as usize;
            i /= n;
        }
        digits
    }

    /// Returns the run with the given axis indices (inverse of [`Grid::digits`]).
    pub fn index(&self, digits: &[usize]) -> u64 {
        digits
            .iter()
            .zip(&self.axes)
            .fold(0, |i, (&d, (_, axis))| i * axis.len() as u64 + d as u64)
    }

    /// Returns the position of the axis `key`, if the flag was given.
    pub fn axis_of(&self, key: &str) -> Option<usize> {
        self.axes.iter().position(|(k, _)| *k == key)
    }

    /// Returns the length of axis `a`.
    pub fn axis_len(&self, a: usize) -> usize {
        self.axes[a].1.len()
    }

    /// Returns run `i`'s parameters.
    pub fn params(&self, i: u64) -> P {
        let mut p = self.base.clone();
        for (d, (_, axis)) in self.digits(i).into_iter().zip(&self.axes) {
            axis.set(&mut p, d);
        }
        p
    }

    /// Names run `i` for an error: its values of the flags given more than one value, and
    /// its seed (`demand-base=31000 seed=1`).
    pub fn name(&self, i: u64, seed: u32) -> String {
        let mut parts = Vec::new();
        let mut seed_named = false;
        for (d, (key, axis)) in self.digits(i).into_iter().zip(&self.axes) {
            if axis.len() > 1 {
                parts.push(format!("{}={}", key.replace('_', "-"), axis.cell(d).text()));
                seed_named |= *key == "seed";
            }
        }
        if !seed_named {
            parts.push(format!("seed={seed}"));
        }
        parts.join(" ")
    }
}

/// One run's outcome: its metrics, or the error that stopped it.
pub type Outcome<M> = Result<M, Error>;

/// A model the CLI can sweep.
pub trait Model: Sync {
    /// One run's parameters.
    type Params: Clone + Send + Sync + 'static;
    /// One run's metrics.
    type Metrics: Send + Sync;
    /// Per-thread scratch storage.
    type Scratch;
    /// Returns the grid of runs.
    fn grid(&self) -> Result<Grid<Self::Params>, String>;
    /// Returns fresh scratch storage.
    fn scratch() -> Self::Scratch;
    /// Runs one combination.
    fn run(p: &Self::Params, scratch: &mut Self::Scratch) -> Outcome<Self::Metrics>;
    /// Returns a run's row: parameters, then metrics.
    fn row(p: &Self::Params, m: &Self::Metrics) -> Row;
    /// Returns a run's seed (errors name it).
    fn seed(p: &Self::Params) -> u32;
    /// Runs `runs` of `grid` (a window of consecutive runs) on the current rayon pool and
    /// returns their outcomes in grid order. `ahead` holds outcomes of later runs computed
    /// early (a model may batch runs across windows); `done` is called with each count of
    /// runs finished. Default: each run on its own.
    fn run_window(
        grid: &Grid<Self::Params>,
        runs: std::ops::Range<u64>,
        ahead: &mut Ahead<Self::Metrics>,
        done: &(dyn Fn(u64) + Sync),
    ) -> Vec<Outcome<Self::Metrics>>
    where
        Self: Sized,
    {
        let _ = ahead;
        runs.into_par_iter()
            .map_init(Self::scratch, |scratch, i| {
                let outcome = Self::run(&grid.params(i), scratch);
                done(1);
                outcome
            })
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

/// Outcomes of runs past the current window, computed early, by run index.
pub type Ahead<M> = std::collections::BTreeMap<u64, Outcome<M>>;

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
    type Params = autoscale::Params;
    type Metrics = autoscale::Metrics;
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

    fn run(p: &Self::Params, _: &mut ()) -> Outcome<Self::Metrics> {
        autoscale::run(p)
    }

    fn seed(p: &Self::Params) -> u32 {
        p.seed
    }

    fn row(p: &Self::Params, m: &Self::Metrics) -> Row {
        row(vec![
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
        ])
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
    type Metrics = consumers::Metrics;
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

    fn run(p: &Self::Params, ws: &mut Self::Scratch) -> Outcome<Self::Metrics> {
        consumers::run(p, ws)
    }

    fn seed(p: &Self::Params) -> u32 {
        p.seed
    }

    fn row(p: &Self::Params, m: &Self::Metrics) -> Row {
        row(vec![
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
        ])
    }
    const HEADLINE: &'static [&'static str] = &["consumers", "slots", "shipments", "seed"];
}

// ---------------------------------------------------------------- bulkhead

/// `capsim bulkhead`: a shared slot pool vs. partitioned pools.
#[derive(Args, Debug, Default)]
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
    type Metrics = bulkhead::Metrics;
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

    fn run(p: &Self::Params, _: &mut ()) -> Outcome<Self::Metrics> {
        bulkhead::run(p)
    }

    fn seed(p: &Self::Params) -> u32 {
        p.seed
    }

    fn row(p: &Self::Params, m: &Self::Metrics) -> Row {
        bulkhead_row(p, m)
    }

    /// Runs the combinations that share an arrival stream (they differ only in flags that
    /// do not shape the stream) together, up to [`BULKHEAD_LANES`] at a time: the stream is
    /// drawn once per batch. A run's partners may lie up to [`BULKHEAD_LOOKAHEAD`] runs past
    /// the window (the seed is innermost, so partners are a seed list apart); their
    /// outcomes wait in `ahead`.
    fn run_window(
        grid: &Grid<Self::Params>,
        runs: std::ops::Range<u64>,
        ahead: &mut Ahead<Self::Metrics>,
        done: &(dyn Fn(u64) + Sync),
    ) -> Vec<Outcome<Self::Metrics>> {
        let limit = runs
            .start
            .saturating_add(BULKHEAD_LOOKAHEAD)
            .min(grid.len());
        let batches = bulkhead_batches(grid, runs.clone(), limit, ahead);
        let finished: Vec<Vec<(u64, Outcome<Self::Metrics>)>> = batches
            .par_iter()
            .map(|batch| {
                let outcomes = run_bulkhead_batch(grid, batch);
                done(batch.len() as u64);
                outcomes
            })
            .collect();
        for (i, outcome) in finished.into_iter().flatten() {
            ahead.insert(i, outcome);
        }
        // Every run of the window is in `ahead` now; should one not be, it runs here.
        runs.map(|i| {
            ahead
                .remove(&i)
                .unwrap_or_else(|| bulkhead::run(&grid.params(i)))
        })
        .collect()
    }
    const HEADLINE: &'static [&'static str] = &["split", "mode", "seed"];
}

/// Bulkhead combinations run together on one arrival stream at most.
const BULKHEAD_LANES: usize = 8;

/// How far past a window's start a bulkhead run's batch partners may lie.
const BULKHEAD_LOOKAHEAD: u64 = 65_536;

/// The flags that shape the bulkhead arrival stream: runs that share these share it.
const BULKHEAD_STREAM: [&str; 5] = [
    "seed",
    "horizon",
    "rounds_per_second",
    "tracking_rate",
    "event_rate",
];

/// Groups the runs of `runs` not yet in `ahead` into batches on one arrival stream: each
/// run not yet taken leads a batch and takes its next partners (same digits on the stream
/// axes) below `limit`, in grid order.
fn bulkhead_batches(
    grid: &Grid<bulkhead::Params>,
    runs: std::ops::Range<u64>,
    limit: u64,
    ahead: &Ahead<bulkhead::Metrics>,
) -> Vec<Vec<u64>> {
    // The axes a batch may vary, innermost first.
    let free: Vec<usize> = (0..grid.axes.len())
        .rev()
        .filter(|&a| !BULKHEAD_STREAM.contains(&grid.axes[a].0) && grid.axis_len(a) > 1)
        .collect();
    let mut taken = std::collections::BTreeSet::new();
    let mut batches = Vec::new();
    for i in runs {
        if ahead.contains_key(&i) || taken.contains(&i) {
            continue;
        }
        let mut batch = vec![i];
        let mut digits = grid.digits(i);
        'partners: while batch.len() < BULKHEAD_LANES {
            // The next run in grid order with the same stream digits: count up on the free axes.
            let mut carried = true;
            for &a in &free {
                digits[a] += 1;
                if digits[a] < grid.axis_len(a) {
                    carried = false;
                    break;
                }
                digits[a] = 0;
            }
            if carried {
                break;
            }
            let j = grid.index(&digits);
            if j >= limit {
                break 'partners;
            }
            if !ahead.contains_key(&j) && taken.insert(j) {
                batch.push(j);
            }
        }
        batches.push(batch);
    }
    batches
}

/// Runs `batch` (runs of `grid`, all on one arrival stream) with exactly as many lanes; when
/// the batch fails, runs each on its own so that every run gets its own outcome.
fn run_bulkhead_batch(
    grid: &Grid<bulkhead::Params>,
    batch: &[u64],
) -> Vec<(u64, Outcome<bulkhead::Metrics>)> {
    fn lanes<const B: usize>(params: &[bulkhead::Params]) -> Result<Vec<bulkhead::Metrics>, Error> {
        let params: [bulkhead::Params; B] = std::array::from_fn(|k| params[k].clone());
        Ok(bulkhead::run_many(&params)?.to_vec())
    }
    let params: Vec<bulkhead::Params> = batch.iter().map(|&i| grid.params(i)).collect();
    let together = match batch.len() {
        1 => lanes::<1>(&params),
        2 => lanes::<2>(&params),
        3 => lanes::<3>(&params),
        4 => lanes::<4>(&params),
        5 => lanes::<5>(&params),
        6 => lanes::<6>(&params),
        7 => lanes::<7>(&params),
        _ => lanes::<8>(&params),
    };
    match together {
        Ok(metrics) => batch
            .iter()
            .copied()
            .zip(metrics.into_iter().map(Ok))
            .collect(),
        Err(_) => batch
            .iter()
            .zip(&params)
            .map(|(&i, p)| (i, bulkhead::run(p)))
            .collect(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bulkhead_grid(splits: Vec<Split>, seeds: Vec<u32>) -> Grid<bulkhead::Params> {
        let args = BulkheadArgs {
            split: Some(List(splits)),
            seed: Some(List(seeds)),
            ..BulkheadArgs::default()
        };
        args.grid().unwrap()
    }

    #[test]
    fn grid_decodes_runs_first_flag_outermost() {
        let g = bulkhead_grid(vec![Split::Shared, Split::Partitioned(24)], vec![7, 8, 9]);
        assert_eq!(g.len(), 6);
        let runs: Vec<(Split, u32)> = (0..6)
            .map(|i| (g.params(i).split, g.params(i).seed))
            .collect();
        assert_eq!(
            runs,
            vec![
                (Split::Shared, 7),
                (Split::Shared, 8),
                (Split::Shared, 9),
                (Split::Partitioned(24), 7),
                (Split::Partitioned(24), 8),
                (Split::Partitioned(24), 9),
            ]
        );
        assert_eq!(g.digits(4), vec![1, 1]);
        assert_eq!(g.index(&[1, 1]), 4);
        assert_eq!(g.name(4, 8), "split=24 seed=8");
    }

    #[test]
    fn bulkhead_batches_join_runs_on_one_stream() {
        // Runs i and i + 3 share a seed, hence an arrival stream.
        let g = bulkhead_grid(vec![Split::Shared, Split::Partitioned(24)], vec![7, 8, 9]);
        let none = Ahead::new();
        assert_eq!(
            bulkhead_batches(&g, 0..6, 6, &none),
            vec![vec![0, 3], vec![1, 4], vec![2, 5]]
        );
        // A window of two runs takes its partners from later windows, within the limit.
        assert_eq!(
            bulkhead_batches(&g, 0..2, 4, &none),
            vec![vec![0, 3], vec![1]]
        );
        // Runs already computed are neither led nor taken again.
        let mut ahead = Ahead::new();
        ahead.insert(3, Ok(bulkhead::Metrics::default()));
        assert_eq!(
            bulkhead_batches(&g, 3..6, 6, &ahead),
            vec![vec![4], vec![5]]
        );
    }
}
