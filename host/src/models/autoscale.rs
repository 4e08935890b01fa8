//! The autoscale command: its parameters (the core's plus the policy, the formula and the
//! demand file), its table of `Param`s and metrics, and how a grid's runs share demand
//! tables, seeds' streams and lockstep sweeps.

use crate::list::{Item, WarmSize};
use crate::output::Cell;
use capsim_core::autoscale::{
    self, Adjustment, Demand as _, Events, FailureRounds, FormulaPolicy, GroupStorage, Hook,
    LifecycleHook, Reclaim, RemovalPolicy, Steps, Stockout, Timed, TimedAction,
};
use capsim_core::autoscale::{OnPreemption, PreemptionRounds, WarmState};
use capsim_core::formula::{self, History, Program, TimeInterval, DEFAULT_DELAY};
use capsim_core::rng::{GroupLcg, GroupStream};
use capsim_core::{Capacity, Error, Observer};
use std::collections::HashMap;
use std::sync::Arc;

use super::batch::batched_window;
use super::grid::Grid;
use super::{param_axis, Ahead, Column, Derived, Metric, Model, Outcome, Param, Present, Value};

/// A formula file given to `--formula`, parsed once per command (`none`: the lesson's
/// threshold policy).
#[derive(Clone, Debug, Default)]
pub struct FormulaFile(pub Option<Arc<LoadedFormula>>);

/// A parsed formula and the path it was read from.
pub struct LoadedFormula {
    /// The path as given (rows and run names show it).
    pub path: String,
    /// The parsed program (about 205 KB, so boxed).
    pub program: Box<Program>,
}

impl std::fmt::Debug for LoadedFormula {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedFormula")
            .field("path", &self.path)
            .finish()
    }
}

impl FormulaFile {
    /// Reads (at most 8 KB and one byte, [`crate::input::read_bounded`]; `-`: standard
    /// input) and parses `path`; the error is one line: a formula's
    /// `PATH:LINE:COL: error: message` as compilers print it ([`crate::input::located`];
    /// `<stdin>` for `-`), or `PATH: reason`.
    pub fn load(path: &str) -> Result<Self, String> {
        let file = std::path::Path::new(path);
        let src =
            crate::input::read_bounded(file, formula::MAX_SOURCE_BYTES).map_err(|e| match e {
                crate::input::InputError::TooLong { .. } => format!(
                    "{}: the formula is longer than 8 KB ({} bytes), Batch's limit",
                    crate::input::display_name(file),
                    formula::MAX_SOURCE_BYTES
                ),
                e => e.to_string(),
            })?;
        let mut program = Box::new(Program::new());
        program
            .parse(&src)
            .map_err(|e| crate::input::located(file, e.line, e.col, &e.kind))?;
        Ok(Self(Some(Arc::new(LoadedFormula {
            path: path.to_string(),
            program,
        }))))
    }
}

impl Item for FormulaFile {
    // A file's error (unreadable, a formula's line and column) is its own message.
    const NAMES_ITS_VALUES: bool = true;
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(if s == "none" {
            Self(None)
        } else {
            Self::load(s)?
        });
        Ok(())
    }
}

/// The path, or `none`.
impl Value for FormulaFile {
    fn cell(&self) -> Cell {
        self.0
            .as_ref()
            .map_or(Cell::Word("none"), |f| Cell::Text(f.path.clone()))
    }
}

/// The formulas timed actions swap in (`ROUND:formula=FILE`), each file parsed once per
/// command; a [`Timed::Formula`] action's value is its index here.
static TIMED_FORMULAS: std::sync::Mutex<Vec<Arc<LoadedFormula>>> =
    std::sync::Mutex::new(Vec::new());

fn timed_formulas() -> std::sync::MutexGuard<'static, Vec<Arc<LoadedFormula>>> {
    TIMED_FORMULAS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads and parses the formula at `path` for a timed action (once per path and command);
/// returns its index, the action's value. The error is [`FormulaFile::load`]'s one line.
pub fn timed_formula(path: &str) -> Result<u32, String> {
    if let Some(i) = timed_formulas().iter().position(|f| f.path == path) {
        return Ok(i as u32);
    }
    let FormulaFile(Some(loaded)) = FormulaFile::load(path)? else {
        return Err(format!("{path}: not a formula file"));
    };
    let mut pool = timed_formulas();
    pool.push(loaded);
    Ok(pool.len() as u32 - 1)
}

/// Returns the path of timed formula `index` (as the action was given).
pub fn timed_formula_path(index: u32) -> Option<String> {
    timed_formulas().get(index as usize).map(|f| f.path.clone())
}

/// A demand file given to `--demand-file` (`none`: the lesson's curve), read once per
/// command: its rows are the demand of rounds 0, 1, 2, … (see [`crate::demand`]).
#[derive(Clone, Debug, Default)]
pub struct DemandFile(pub Option<Arc<LoadedDemand>>);

/// A demand table and the path it was read from.
#[derive(Debug)]
pub struct LoadedDemand {
    /// The path as given (rows and run names show it).
    pub path: String,
    /// Requests per round, one per row.
    pub values: Vec<f64>,
}

impl Item for DemandFile {
    // Its errors name the file and the line (`--demand-file d.csv: line 17: …`).
    const NAMES_ITS_VALUES: bool = true;

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(if s == "none" {
            Self(None)
        } else {
            Self(Some(Arc::new(LoadedDemand {
                path: s.to_string(),
                values: crate::demand::load(s)?,
            })))
        });
        Ok(())
    }
}

/// The path, or `none`.
impl Value for DemandFile {
    fn cell(&self) -> Cell {
        self.0
            .as_ref()
            .map_or(Cell::Word("none"), |f| Cell::Text(f.path.clone()))
    }
}

/// The scaling policy `--policy` names (its settings have flags of their own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PolicyName {
    /// The lesson's exact-count policy.
    #[default]
    Lesson,
    /// AWS target tracking (`--target-utilization`, `--disable-scale-in`).
    TargetTracking,
    /// AWS step scaling (`--steps`).
    Step,
}

/// `none`, or the hooks as the flag takes them (`10:action=3+5:abandon:aws`).
impl Value for &'static [LifecycleHook] {
    fn cell(&self) -> Cell {
        if self.is_empty() {
            return Cell::Word("none");
        }
        let hooks: Vec<String> = self.iter().map(crate::list::hook_text).collect();
        Cell::Text(hooks.join("+"))
    }
}

/// `none`, or the actions as the flag takes them (`100:max_instances=12+220:desired=8`).
impl Value for &'static [TimedAction] {
    fn cell(&self) -> Cell {
        if self.is_empty() {
            return Cell::Word("none");
        }
        let actions: Vec<String> = self.iter().map(crate::list::timed_text).collect();
        Cell::Text(actions.join("+"))
    }
}

impl Item for PolicyName {
    const WORDS: &'static [&'static str] = &["lesson", "target-tracking", "step"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(match s {
            "lesson" => Self::Lesson,
            "target-tracking" => Self::TargetTracking,
            "step" => Self::Step,
            _ => {
                return Err(format!(
                    "'{s}' is not a policy (lesson, target-tracking or step)"
                ))
            }
        });
        Ok(())
    }
}

impl Value for PreemptionRounds {
    fn cell(&self) -> Cell {
        Cell::Ints(self.to_vec())
    }
}

/// The pool's size (its state has a column of its own, `warm_pool_state`).
impl Value for WarmSize {
    fn cell(&self) -> Cell {
        Cell::Int(self.size.into())
    }

    /// `N` for a Stopped pool (AWS's default state), `N:running` else.
    fn flag_text(&self) -> String {
        match self.state {
            WarmState::Stopped => self.size.to_string(),
            WarmState::Running => format!("{}:running", self.size),
        }
    }
}

impl Value for OnPreemption {
    fn cell(&self) -> Cell {
        Cell::Word(self.name())
    }
}

impl Value for PolicyName {
    fn cell(&self) -> Cell {
        Cell::Word(match self {
            Self::Lesson => "lesson",
            Self::TargetTracking => "target-tracking",
            Self::Step => "step",
        })
    }
}

/// `none`, or the bands as the flag takes them.
impl Value for Option<Steps> {
    fn cell(&self) -> Cell {
        let Some(steps) = self else {
            return Cell::Word("none");
        };
        let bound = |b: u16, open: u16| {
            if b == open {
                String::new()
            } else {
                b.to_string()
            }
        };
        let bands: Vec<String> = steps
            .iter()
            .map(|s| {
                let adj = match s.adjustment {
                    Adjustment::Change(n) => format!("{n:+}"),
                    Adjustment::Percent(n) => format!("{n:+}%"),
                    Adjustment::Exact(n) => format!("={n}"),
                };
                format!(
                    "{}..{}:{adj}",
                    bound(s.low, 0),
                    bound(s.high, autoscale::OPEN)
                )
            })
            .collect();
        Cell::Text(bands.join("/"))
    }
}

/// The largest price of one instance-round `--price` takes (any currency).
pub const MAX_PRICE: f64 = 1e9;

/// `--price D:S:P`: what one instance-round costs billed as a dedicated instance (`D`), as a
/// spot instance (`S`) and Stopped (`P`: its disks and addresses, seed 002). The three are
/// joined by `:` because `,` separates a flag's values: `1:0.2:0.05,1:0.5:0.05` is a grid
/// of two prices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    /// A dedicated instance-round billed in full.
    pub dedicated: f64,
    /// A spot instance-round billed in full.
    pub spot: f64,
    /// A Stopped instance-round (economical mode's stopped instances, a Stopped warm pool).
    pub stopped: f64,
}

impl Price {
    /// The bill of a run: `(billed_rounds − billed_spot_rounds) × D + billed_spot_rounds × S
    /// + stopped_rounds × P`, summed in that order.
    pub fn cost(&self, m: &autoscale::Metrics) -> f64 {
        let dedicated = m.billed_rounds.saturating_sub(m.billed_spot_rounds);
        dedicated as f64 * self.dedicated
            + m.billed_spot_rounds as f64 * self.spot
            + m.stopped_rounds as f64 * self.stopped
    }
}

impl Item for Option<Price> {
    const WORDS: &'static [&'static str] = &["none"];
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        if s == "none" {
            out.push(None);
            return Ok(());
        }
        let parts: Vec<&str> = s.split(':').collect();
        let [d, sp, st] = parts[..] else {
            return Err(format!(
                "'{s}' is not three prices D:S:P (dedicated:spot:stopped, e.g. 1:0.2:0.05)"
            ));
        };
        let mut v = [0.0; 3];
        for (x, t) in v.iter_mut().zip([d, sp, st]) {
            *x = match t.parse::<f64>() {
                Ok(x) if (0.0..=MAX_PRICE).contains(&x) => x,
                _ => {
                    return Err(format!(
                        "'{s}': '{t}' is not a price from 0 to 1e9 (D:S:P, e.g. 1:0.2:0.05)"
                    ))
                }
            };
        }
        out.push(Some(Price {
            dedicated: v[0],
            spot: v[1],
            stopped: v[2],
        }));
        Ok(())
    }
}

/// `none`, or `D:S:P` as the flag takes it.
impl Value for Option<Price> {
    fn cell(&self) -> Cell {
        match self {
            None => Cell::Word("none"),
            Some(p) => Cell::Text(format!("{}:{}:{}", p.dedicated, p.spot, p.stopped)),
        }
    }
}

/// `capsim autoscale`'s parameters: the core's, plus the formula that may replace the
/// lesson's policy (host-only: a path and a parsed program).
#[derive(Clone, Debug)]
pub struct AutoscaleParams {
    /// The core model's parameters (the table's `core.` rows).
    pub core: autoscale::Params,
    /// The formula driving the group, if any.
    pub formula: FormulaFile,
    /// Rounds between evaluations, 5 to 10,080.
    pub evaluation_interval: u32,
    /// Seconds from a sample's recording to its availability to the formula (a provider
    /// item; Batch: about a minute).
    pub sample_delay: u32,
    /// The demand table replacing the lesson's curve, if any.
    pub demand_file: DemandFile,
    /// Whether `--rounds` was given (else a demand file's rows set the rounds).
    pub rounds_given: bool,
    /// The scaling policy (`core.lifecycle.policy` is built from it and the three below).
    pub policy: PolicyName,
    /// Target tracking's utilisation, percent.
    pub target_utilization: u32,
    /// Target tracking never scales in.
    pub disable_scale_in: bool,
    /// What one instance-round costs (`--price`); `None`: no `cost` column.
    pub price: Option<Price>,
    /// The step policy's bands (shared: a grid's runs copy their parameters).
    pub steps: Option<Arc<Steps>>,
}

impl AutoscaleParams {
    /// Sets `core.lifecycle.policy` from the policy flags (each flag's setter calls it).
    fn set_policy(&mut self) {
        self.core.lifecycle.policy = match self.policy {
            PolicyName::Lesson => autoscale::Policy::Lesson,
            PolicyName::TargetTracking => autoscale::Policy::TargetTracking {
                target: self.target_utilization,
                disable_scale_in: self.disable_scale_in,
            },
            PolicyName::Step => {
                autoscale::Policy::Step(self.steps.as_deref().cloned().unwrap_or_default())
            }
        };
    }

    /// Returns the run's demand table, if a demand file replaces the lesson's curve.
    pub fn table(&self) -> Option<autoscale::Table<'_>> {
        self.demand_file
            .0
            .as_ref()
            .map(|f| autoscale::Table(&f.values))
    }

    /// Returns the demand of round `t`: the file's row, or the lesson's curve.
    pub fn demand(&self, t: u32) -> f64 {
        match self.table() {
            Some(table) => autoscale::Demand::at(&table, t),
            None => self.core.demand(t),
        }
    }
}

/// The longest sample delay `--sample-delay` takes: ten minutes.
pub const MAX_SAMPLE_DELAY: u32 = 600;

impl Default for AutoscaleParams {
    fn default() -> Self {
        Self {
            core: autoscale::Params::default(),
            formula: FormulaFile::default(),
            evaluation_interval: autoscale::DEFAULT_EVALUATION_INTERVAL,
            sample_delay: 60, // formula::DEFAULT_DELAY
            demand_file: DemandFile::default(),
            rounds_given: false,
            policy: PolicyName::Lesson,
            target_utilization: 50,
            disable_scale_in: false,
            steps: None,
            price: None,
        }
    }
}

/// The most instances a group holds on the host (a board's group holds
/// `autoscale::MAX_GROUP_SIZE`, 256): the storage of a run that outgrows a board's.
pub const HOST_GROUP_SIZE: usize = 16_384;

/// A host group's records (16 bytes each: 256 KiB), boxed, made for the first run that needs it.
pub type HostGroup = Box<GroupStorage<HOST_GROUP_SIZE>>;

/// Returns whether `r` is a run that stopped at a board's group capacity (the fast path's
/// and `autoscale::run`'s 256 records): on the host it runs again in a [`HostGroup`].
fn board_full<M>(r: &Outcome<M>) -> bool {
    matches!(
        r,
        Err(Error::CapacityExceeded {
            capacity: Capacity::GroupSize | Capacity::GroupWithInFlight,
            limit,
        }) if *limit as usize == autoscale::MAX_GROUP_SIZE
    )
}

/// Returns whether a timed action of `p` swaps a formula in.
fn has_timed_formula(p: &autoscale::Params) -> bool {
    p.lifecycle.at.iter().any(|a| a.what == Timed::Formula)
}

impl AutoscaleParams {
    /// A timed formula replaces the formula driving the group: without `--formula` (the
    /// lesson's or AWS's policy) it is refused, not taken over from its round.
    fn check_timed_formula(&self) -> Result<(), Error> {
        if self.formula.0.is_none() && has_timed_formula(&self.core) {
            return Err(Error::OutOfRange {
                param: "at",
                accepted: capsim_core::Accepted::TimedFormula,
            });
        }
        Ok(())
    }
}

/// A formula run's history and workspace (53 KB), reused by a thread's runs.
pub type FormulaScratch = Option<Box<(History, formula::Workspace)>>;

/// A thread's storage for its autoscale runs: the formula's, and what runs of a grid share.
#[derive(Default)]
pub struct AutoscaleScratch {
    formula: FormulaScratch,
    /// The demand of the last runs' curve, by round.
    demand: Option<(autoscale::DemandCurve, Vec<f64>)>,
    /// Each seed's generator stream (the grid's pairs of one seed draw the same numbers).
    streams: HashMap<u32, GroupStream<Box<[u32]>>>,
    /// A batch's stream: one seed's runs in lockstep (`autoscale::run_sweep`), then the next.
    batch_stream: Option<GroupStream<Box<[u32]>>>,
    /// A group of up to [`HOST_GROUP_SIZE`] instances, for runs that outgrow a board's.
    group: Option<HostGroup>,
}

/// The most rounds whose demand a thread tabulates (8 bytes each).
const MAX_DEMAND_TABLE: u32 = 100_000;
/// The draws a thread keeps per seed (4 bytes each): the lesson's runs draw under 3,000.
const STREAM_DRAWS: usize = 4096;
/// The most seeds whose streams a thread keeps (16 KiB each).
const MAX_STREAMS: usize = 1024;

impl AutoscaleScratch {
    /// Returns `p`'s demand curve by round, tabulated once per demand parameters.
    fn demand_table(&mut self, p: &autoscale::Params) -> &[f64] {
        let key = p.demand_curve();
        if self.demand.as_ref().is_none_or(|(k, _)| *k != key) {
            let table = (0..p.rounds).map(|t| p.demand(t)).collect();
            self.demand = Some((key, table));
        }
        self.demand.as_ref().map_or(&[][..], |(_, t)| &t[..])
    }

    /// Runs the lesson's policy on `p` with the shared demand table and stream.
    fn run_lesson_policy(&mut self, p: &AutoscaleParams) -> Outcome<autoscale::Metrics> {
        p.check_timed_formula()?;
        let r = match p.table() {
            None => self.run_lesson_fast(&p.core),
            Some(table) => {
                p.core.validate()?;
                table.check(&p.core)?;
                let mut rng = GroupLcg::new(p.core.seed);
                autoscale::run_with_demand(&p.core, |t| table.at(t), &mut rng, &mut ())
            }
        };
        if board_full(&r) {
            return self.run_general(p, &mut ());
        }
        r
    }

    /// Runs `p` on the general path in the thread's host group, calling `observer` after
    /// every round: the lesson's policy or `p`'s formula. Every view of a run (trace, plot)
    /// and every run that outgrows a board's group comes here.
    pub fn run_general<O: Observer<autoscale::RoundState>>(
        &mut self,
        p: &AutoscaleParams,
        observer: &mut O,
    ) -> Outcome<autoscale::Metrics> {
        let core = &p.core;
        core.validate()?;
        p.check_timed_formula()?;
        if let Some(table) = p.table() {
            table.check(core)?;
        }
        let demand = |t: u32| p.demand(t);
        let group = &mut **self
            .group
            .get_or_insert_with(|| Box::new(GroupStorage::with_capacity()));
        let mut rng = GroupLcg::new(core.seed);
        let Some(f) = &p.formula.0 else {
            return autoscale::run_in(core, group, demand, &mut rng, observer);
        };
        let (history, ws) = &mut **self.formula.get_or_insert_with(|| {
            Box::new((History::new(DEFAULT_DELAY), formula::Workspace::new(0)))
        });
        let delay = TimeInterval::from_seconds(p.sample_delay.into());
        if history.delay() != delay {
            *history = History::new(delay);
        }
        // Restart the rand() stream only: rewriting the 314 KB workspace would cost more
        // than the run (evaluations start afresh anyway).
        ws.reseed(u64::from(core.seed));
        // The command's timed formulas, by index (the actions' values).
        let swaps: Vec<Arc<LoadedFormula>> = if has_timed_formula(core) {
            timed_formulas().clone()
        } else {
            Vec::new()
        };
        let programs: Vec<&Program> = swaps.iter().map(|f| &*f.program).collect();
        let mut policy = FormulaPolicy::new(
            &f.program,
            history,
            ws,
            p.evaluation_interval,
            core.capacity,
        )?
        .with_programs(&programs);
        autoscale::run_formula_in(core, group, demand, &mut policy, &mut rng, observer)
    }

    /// Runs the lesson's policy on `p`, on the fast path when it applies, with the shared
    /// demand table and stream; a board's group (256 instances).
    fn run_lesson_fast(&mut self, p: &autoscale::Params) -> Outcome<autoscale::Metrics> {
        p.validate()?;
        if p.rounds > MAX_DEMAND_TABLE {
            return autoscale::run(p);
        }
        self.demand_table(p);
        let table = self.demand.as_ref().map_or(&[][..], |(_, t)| &t[..]);
        let demand = |t: u32| {
            table
                .get(t as usize)
                .copied()
                .unwrap_or_else(|| p.demand(t))
        };
        if self.streams.len() >= MAX_STREAMS && !self.streams.contains_key(&p.seed) {
            self.streams.clear();
        }
        let stream = self
            .streams
            .entry(p.seed)
            .or_insert_with(|| GroupStream::new(p.seed, vec![0; STREAM_DRAWS].into_boxed_slice()));
        autoscale::run_with_demand(p, demand, &mut stream.reader(), &mut ())
    }
}

impl AutoscaleScratch {
    /// Runs `runs` (one seed, one demand curve; the lesson's policy) in lockstep on one
    /// stream, eight at a time at most (`autoscale::run_sweep`): the generator's chain
    /// overlaps the simulations, and the stream's buffer serves seed after seed.
    fn run_sweep(&mut self, runs: &[autoscale::Params]) -> Vec<Outcome<autoscale::Metrics>> {
        let Some(first) = runs.first() else {
            return Vec::new();
        };
        self.demand_table(first);
        let Self {
            demand,
            batch_stream,
            ..
        } = self;
        let table = demand.as_ref().map_or(&[][..], |(_, t)| &t[..]);
        let demand = |t: u32| {
            table
                .get(t as usize)
                .copied()
                .unwrap_or_else(|| first.demand(t))
        };
        let stream = batch_stream.get_or_insert_with(|| {
            GroupStream::new(first.seed, vec![0; STREAM_DRAWS].into_boxed_slice())
        });
        stream.restart(first.seed);
        let mut outcomes = Vec::with_capacity(runs.len());
        let mut rest = runs;
        while !rest.is_empty() {
            rest = match rest.len() {
                8.. => sweep_chunk::<8>(rest, &demand, stream, &mut outcomes),
                4..=7 => sweep_chunk::<4>(rest, &demand, stream, &mut outcomes),
                2 | 3 => sweep_chunk::<2>(rest, &demand, stream, &mut outcomes),
                _ => sweep_chunk::<1>(rest, &demand, stream, &mut outcomes),
            };
        }
        outcomes
    }
}

/// Runs the first `N` of `runs` with `autoscale::run_sweep` into `outcomes`; returns the rest.
fn sweep_chunk<'a, const N: usize>(
    runs: &'a [autoscale::Params],
    demand: &impl Fn(u32) -> f64,
    stream: &mut GroupStream<Box<[u32]>>,
    outcomes: &mut Vec<Outcome<autoscale::Metrics>>,
) -> &'a [autoscale::Params] {
    match runs.split_first_chunk::<N>() {
        Some((chunk, rest)) => {
            outcomes.extend(autoscale::run_sweep(chunk, demand, stream));
            rest
        }
        None => &[],
    }
}

/// Autoscale runs in lockstep on one seed's stream at most: the lesson's sweep, nine.
const AUTOSCALE_LANES: usize = 16;

/// The flags a batch of autoscale runs may vary: the rest (seed, demand, …) they share.
const AUTOSCALE_FREE: [&str; 2] = ["threshold", "cooldown"];

/// Runs `batch` (runs of `grid` that differ only in threshold and cooldown) in lockstep on
/// one stream; formula runs, invalid ones and long ones run each on its own.
fn run_autoscale_batch(
    grid: &Grid<Autoscale>,
    batch: &[u64],
    scratch: &mut AutoscaleScratch,
) -> Vec<(u64, Outcome<autoscale::Metrics>)> {
    let params: Vec<AutoscaleParams> = batch.iter().map(|&i| grid.params(i)).collect();
    let together = params.len() > 1
        && params.iter().all(|p| {
            p.formula.0.is_none()
                && !has_timed_formula(&p.core)
                && p.demand_file.0.is_none()
                && p.core.rounds <= MAX_DEMAND_TABLE
                && p.core.validate().is_ok()
        });
    if !together {
        return batch
            .iter()
            .zip(&params)
            .map(|(&i, p)| (i, Autoscale::run(p, scratch)))
            .collect();
    }
    let cores: Vec<autoscale::Params> = params.into_iter().map(|p| p.core).collect();
    let outcomes = scratch.run_sweep(&cores);
    batch
        .iter()
        .copied()
        .zip(outcomes)
        .map(|(i, r)| {
            if board_full(&r) {
                (i, scratch.run_general(&grid.params(i), &mut ()))
            } else {
                (i, r)
            }
        })
        .collect()
}

/// `capsim autoscale`: the auto-scaling group with a health check.
pub struct Autoscale;

impl Model for Autoscale {
    type Params = AutoscaleParams;
    type Metrics = autoscale::Metrics;
    type Scratch = AutoscaleScratch;
    type Round = capsim_core::autoscale::RoundState;
    const PARAMS: &'static [Param<AutoscaleParams>] = &[
        param!(core.threshold: u32,
            "Consecutive failed health checks before an instance is replaced",
            "1 to 4294967295", "2,3,5"),
        param!(core.cooldown: u32,
            "Rounds after a scaling action before the next one", "0 to 4294967295", "0,3,8"),
        param!(core.rounds: u32, "Rounds simulated", "1 to 10000000", "240",
            then |p| p.rounds_given = true),
        param!(core.capacity: f64,
            "Requests one instance serves per round", "numbers > 0", "100"),
        param!(core.boot_rounds: u32,
            "Rounds an instance takes to boot", "0 to 4294967295", "2"),
        param!(core.transient_failure: f64,
            "Probability that a healthy instance fails one check", "0 to 1", "0.08"),
        param!(core.failure_rounds: FailureRounds,
            "Rounds at which an instance breaks for good, ':'-separated, or 'none'",
            "at most 64 rounds, each 0 to 4294967295", "40:95:170"),
        param!(core.demand_base: f64,
            "Demand curve base, requests per round", "finite numbers", "900"),
        param!(core.demand_amplitude: f64,
            "Demand curve amplitude", "finite numbers", "380"),
        param!(core.demand_period: f64,
            "Demand curve period in rounds", "numbers > 0 and >= rounds / 131000", "120"),
        param!(core.surge_start: u32,
            "First round of the demand surge", "0 to 4294967295", "150"),
        param!(core.surge_end: u32,
            "First round after the demand surge", "0 to 4294967295", "190"),
        param!(core.surge: f64,
            "Extra demand during the surge", "finite numbers", "520"),
        param!("launch_hook", core.lifecycle.launch_hook: Option<Hook>,
            "Launch hook: Pending:Wait for ROUNDS, then its default result",
            "ROUNDS[:continue|abandon], 1 to 360, or none", "none"),
        param!("terminate_hook", core.lifecycle.terminate_hook: Option<Hook>,
            "Terminate hook: Removing:Wait for ROUNDS before the instance leaves",
            "ROUNDS[:continue|abandon], 1 to 360, or none", "none"),
        param!("count_pending", core.lifecycle.count_pending: bool,
            "The policy also counts instances booting, waiting, restarting or not yet applied",
            "no or yes", "no"),
        param!("protected", core.lifecycle.protected: u32,
            "The first N instances of the initial group are Protected: serving, never scaled in",
            "0 to 256", "0"),
        param!("removal_policy", core.lifecycle.removal_policy: RemovalPolicy,
            "Which InService instances scale-in removes: first in group order, oldest or newest launch, or the oldest launch-template version first (versions from --at template=V)",
            "lesson, oldest, newest or oldest-template", "lesson"),
        param!("reclaim", core.lifecycle.reclaim: Reclaim,
            "Scale-in releases instances, or stops them for scale-out to restart first",
            "release or stop", "release"),
        param!("restart_rounds", core.lifecycle.restart_rounds: u32,
            "Rounds a Stopped instance takes to serve again after a restart",
            "0 to 4294967295", "1"),
        param!("check_latency", core.lifecycle.check_latency: u32,
            "Rounds after a health check before its result is known", "0 to 7", "0"),
        param!("apply_delay", core.lifecycle.apply_delay: u32,
            "Rounds after a scale-out decision before its instances join the group",
            "0 to 64", "0"),
        param!("stockout_rounds", core.lifecycle.stockout: Option<Stockout>,
            "Rounds A..B (B excluded) in which launch requests fail: counted, not retried that round",
            "A..B or A..=B with A < B, rounds 0 to 4294967295, or none", "none"),
        param!("events", core.lifecycle.events: Events,
            "Scripted actions on the first COUNT instances in the source state, '+'-joined, or none",
            "ROUND:ACTION:COUNT, ROUND 0 to 4294967295, ACTION standby|unstandby|protect|unprotect, COUNT 1 to 256, at most 16, or none",
            "none"),
        param!("min_instances", core.lifecycle.min_instances: Option<u32>,
            "The group's minimum size (MinSize): the policy's decision is raised to it, scale-in stops there; a health-check removal is not bounded, the next decision restores it",
            "integers >= 0 and <= --max-instances, or none", "none"),
        param!("max_instances", core.lifecycle.max_instances: Option<u32>,
            "The group's maximum size (MaxSize, every state and Stopped ones counted): scale-out stops there, a surplus is scaled in",
            "integers >= 0, or none", "none"),
        param!("check_interval", core.lifecycle.check_interval: u32,
            "Rounds between health checks (rounds that are multiples of it; a broken instance serves between checks; --check-latency counts checks)",
            "1 to 10080", "1"),
        param!(policy: PolicyName,
            "Scaling policy: the lesson's exact count, AWS target tracking (--target-utilization, --disable-scale-in) or AWS step scaling (--steps, with --cooldown); a --formula replaces any of them",
            "lesson, target-tracking or step", "lesson",
            then |p| p.set_policy()),
        param!(target_utilization: u32,
            "Target tracking (only): keep the in-service instances' average utilisation (demand / (serving x capacity)) at P percent: desired = ceil(demand / (capacity x P / 100)), out at once, in after 15 rounds below",
            "1 to 100", "50",
            then |p| p.set_policy()),
        param!(disable_scale_in: bool,
            "Target tracking never scales in (AWS DisableScaleIn)", "no or yes", "no",
            then |p| p.set_policy()),
        Param {
            key: "steps",
            help: "Step scaling's bands, '/'-joined: [LOW]..[HIGH]:ADJ applies while the utilisation (percent) is in [LOW, HIGH); ADJ +N/-N instances, +N%/-N% of the current capacity (AWS rounding), =N exactly; no band, no change",
            accepted: "1 to 20 ascending, non-overlapping bands, e.g. ..40:-1/80..:+2, or none",
            lesson: "none",
            parse: |s| {
                param_axis::<_, Option<Steps>>(s, "1 to 20 ascending, non-overlapping bands, e.g. ..40:-1/80..:+2, or none", |p: &mut AutoscaleParams, v| {
                    p.steps = v.map(Arc::new);
                    p.set_policy();
                })
            },
            cell: |p| Value::cell(&p.steps.as_deref().cloned()),
            result: None,
            flag_value: |p| Value::flag_text(&p.steps.as_deref().cloned()),
        },
        param!(demand_file: DemandFile,
            "CSV of requests per round replacing the demand curve: one column, or a header naming a 'demand' column (a trace's CSV as printed); '-' is stdin; its rows set --rounds unless given (fewer: the first rows)",
            "files of at most 10000000 rows and 640000000 bytes, or none", "none",
            then |p| {
                if let (Some(f), false) = (&p.demand_file.0, p.rounds_given) {
                    // The rounds row comes first: a given --rounds wins.
                    p.core.rounds = f.values.len().min(u32::MAX as usize) as u32;
                }
            }),
        param!(formula: FormulaFile,
            "Batch autoscale formula file replacing the threshold policy and its cooldown (see capsim formula --help), or none",
            "files of at most 8 KB and 100 statements, each parsed once, or none", "none"),
        param!(evaluation_interval: u32,
            "Rounds (minutes) between formula evaluations, the first in round 0",
            "5 to 10080", "15"),
        param!(sample_delay: u32,
            "Seconds from a formula sample's recording to its availability (Batch: about a minute)",
            "0 to 600", "60"),
        param!("launch_hooks", core.lifecycle.launch_hooks: &'static [LifecycleHook],
            "Scenario launch hooks, run in order after --launch-hook, '+'-joined: TIMEOUT rounds, then any of a result, action=N (the hook's job completes the wait after N rounds), heartbeat=K (a heartbeat every K rounds restarts the timeout), the provider (its caps: Alibaba 20 heartbeats and 360 rounds a wait, AWS 100 x the timeout and 2880 rounds)",
            "TIMEOUT[:continue|abandon|rollback][:action=N][:heartbeat=K][:alibaba|aws], TIMEOUT 1 to 360 (alibaba) or 120 (aws), the result by default the provider's (continue, abandon), rollback alibaba only, at most 50 hooks in all, or none",
            "none"),
        param!("terminate_hooks", core.lifecycle.terminate_hooks: &'static [LifecycleHook],
            "Scenario terminate hooks, run in order after --terminate-hook (as --launch-hooks; abandon skips the rest, rollback returns the instance to service)",
            "as --launch-hooks, or none", "none"),
        param!("at", core.lifecycle.at: &'static [TimedAction],
            "Timed operator actions, '+'-joined ROUND:KEY=VALUE, in list order after --events within a round: min_instances / max_instances (a size or none), desired (launch or remove to that many serving and launching), standby / unstandby / protect / unprotect / detach (counts), template (a new launch-template version; --removal-policy oldest-template removes the oldest version first), evaluation_interval (a formula's new interval, 5 to 10080: evaluations from that round on every N rounds), formula (a formula FILE that drives the group from that round on, its schedule restarting there; needs --formula; FILE without '+' or ',')",
            "at most 125 actions, counts and versions 1 to 4294967295, the minimum never above the maximum, or none",
            "none"),
        param!("task_rounds", core.lifecycle.task_rounds: Option<u32>,
            "Each serving node runs tasks of N rounds back to back; a node scale-in removes is dealt with by the formula's $NodeDeallocationOption (requeue: the task's rounds are lost; terminate: lost and failed; taskcompletion: the node drains the rest; retaineddata: the rest and 1 round of clean-up); other policies requeue",
            "1 to 10080, or none", "none"),
        param!("preemption_rate", core.lifecycle.spot.preemption_rate: Option<f64>,
            "Spot class: the probability that a running spot instance is taken back in a round (its own stream, seeded by --seed; never the health check's); any spot flag turns the class on, and a formula's $TargetLowPriorityNodes then applies to it",
            "0 to 1, or none", "none"),
        param!("preemption_rounds", core.lifecycle.spot.preemption_rounds: PreemptionRounds,
            "Spot class: rounds in which every running spot instance is taken back, ':'-separated, or none",
            "at most 32 rounds, each 0 to 4294967295, or none", "none"),
        param!("preemption_notice", core.lifecycle.spot.preemption_notice: u32,
            "Spot class: rounds of notice before a preemption (the instance serves meanwhile; AWS's two minutes are 2)",
            "0 to 1440", "0"),
        param!("on_preemption", core.lifecycle.spot.on_preemption: OnPreemption,
            "Spot class: a preempted node stays in the pool as Preempted until capacity returns (Azure Batch), or is terminated and replaced by a spot launch at its notice (AWS)",
            "stay or replace", "stay"),
        param!("on_demand_base", core.lifecycle.spot.on_demand_base: Option<u32>,
            "Mixed instances (AWS OnDemandBaseCapacity): the first N instances of the threshold policy's group are dedicated; turns the spot class on",
            "integers >= 0, or none", "none"),
        param!("on_demand_percent", core.lifecycle.spot.on_demand_percent: Option<u32>,
            "Mixed instances (AWS OnDemandPercentageAboveBaseCapacity): above the base, P percent dedicated (a fraction rounds toward dedicated), the rest spot; turns the spot class on",
            "0 to 100, or none", "none"),
        Param {
            key: "warm_pool",
            help: "AWS warm pool: N pre-initialised instances beside the group at round 0, kept Stopped (storage billed) or Running (billed in full); a scale-out takes them first (serving after --restart-rounds), the pool refills by launching; not with the spot class",
            accepted: "N[:stopped|running], N 0 to 256",
            lesson: "0",
            parse: |s| {
                param_axis::<_, WarmSize>(s, "N[:stopped|running], N 0 to 256", |p: &mut AutoscaleParams, v| {
                    p.core.lifecycle.warm_pool.size = v.size;
                    p.core.lifecycle.warm_pool.state = v.state;
                })
            },
            cell: |p| Value::cell(&p.core.lifecycle.warm_pool.size),
            result: Some(Column {
                key: "warm_pool_state",
                cell: |p| Cell::Word(p.core.lifecycle.warm_pool.state.name()),
            }),
            flag_value: |p| {
                let w = &p.core.lifecycle.warm_pool;
                Value::flag_text(&WarmSize {
                    size: w.size,
                    state: w.state,
                })
            },
        },
        param!("warm_pool_reuse", core.lifecycle.warm_pool.reuse: bool,
            "AWS ReuseOnScaleIn: scale-in returns instances to the warm pool while fewer than N are warm",
            "no or yes", "no"),
        param!(price: Option<Price>,
            "What an instance-round costs: D:S:P for a dedicated one billed, a spot one billed, a Stopped one (':' joins the three; ',' separates prices, a grid); adds the cost metric",
            "none, or three prices from 0 to 1e9 joined by ':'", "none"),
        param!(core.seed: u32,
            "Health-check generator seed (a formula's rand() has its own stream from it)",
            "1 to 2147483646", "20261001"),
    ];
    const VALIDATE: fn(&AutoscaleParams) -> Result<(), Error> = |p| {
        p.core.validate()?;
        autoscale::check_interval(p.evaluation_interval)?;
        if p.sample_delay > MAX_SAMPLE_DELAY {
            return Err(Error::OutOfRange {
                param: "sample-delay",
                accepted: capsim_core::Accepted::Integers {
                    min: 0,
                    max: Some(MAX_SAMPLE_DELAY.into()),
                },
            });
        }
        Ok(())
    };
    fn check_grid(grid: &Grid<Self>) -> Result<(), String> {
        crate::policy_flags::check(grid)?;
        super::check_present(grid)
    }
    const PRESENT: &'static [Present<AutoscaleParams>] = &[
        Present {
            key: "price",
            when: |p| p.price.is_some(),
            needs: "--price",
        },
        Present {
            key: "cost",
            when: |p| p.price.is_some(),
            needs: "--price",
        },
    ];
    const DERIVED: &'static [Derived<AutoscaleParams, autoscale::Metrics>] = &[Derived {
        key: "cost",
        cell: |p, m| Cell::Float(p.price.map_or(0.0, |price| price.cost(m))),
    }];
    const SEED_AFTER: &'static str = "cooldown";
    const HEADLINE: &'static [&'static str] = &["threshold", "cooldown", "seed"];
    const METRICS: &'static [Metric<autoscale::Metrics>] = &[
        metric!(min_size),
        metric!(max_size),
        metric!(max_launching),
        metric!(max_launching_ratio),
        metric!(under_capacity_rounds),
        metric!(launched),
        metric!(false_replacements),
        metric!(broken_rounds),
        metric!(scaling_actions),
        metric!(replacements),
        metric!(time_to_in_service_max),
        metric!(scale_in_blocked_rounds),
        metric!(restarts_from_stopped),
        metric!(failed_launches),
        metric!(hook_timeouts),
        metric!(abandoned_launches),
        metric!(billed_rounds),
        metric!(idle_billed_rounds),
        metric!(evaluations),
        metric!(failed_evaluations),
        metric!(target_changes),
        metric!(clamped_rounds),
        metric!(hook_completions),
        metric!(heartbeats),
        metric!(hook_cap_timeouts),
        metric!(hook_rollbacks),
        metric!(detached),
        metric!(lost_task_rounds),
        metric!(failed_tasks),
        metric!(drain_rounds),
        metric!(stopped_rounds),
        metric!(spot_max),
        metric!(preemptions),
        metric!(billed_spot_rounds),
        metric!(warm_starts),
    ];

    fn scratch() -> AutoscaleScratch {
        AutoscaleScratch::default()
    }

    /// The one place that chooses how an autoscale run is computed: the lesson's policy on
    /// the fast path (and its shared streams) when nothing watches the run and no formula
    /// drives it; otherwise the general engine in the host's group, which every view (trace,
    /// plot, chart) takes: the same parameters, the same run.
    fn run_with<O: Observer<Self::Round>>(
        p: &Self::Params,
        scratch: &mut AutoscaleScratch,
        observer: &mut O,
    ) -> Outcome<Self::Metrics> {
        if !O::ROUNDS && p.formula.0.is_none() {
            return scratch.run_lesson_policy(p);
        }
        scratch.run_general(p, observer)
    }

    batched_run_window! {
        /// Runs the combinations that differ only in threshold and cooldown (one seed, one
        /// demand curve) together, up to `AUTOSCALE_LANES` (16) at a time, in lockstep on
        /// one stream. See `batched_window`.
        stream: &Self::PARAMS
            .iter()
            .map(|q| q.key)
            .filter(|k| !AUTOSCALE_FREE.contains(k))
            .collect::<Vec<&str>>(),
        lanes: AUTOSCALE_LANES,
        |grid, scratch, batch| run_autoscale_batch(grid, batch, scratch)
    }
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::super::tests::grid;
    use super::super::*;
    use super::*;
    use capsim_core::autoscale;

    #[test]
    fn lifecycle_flags_are_axes_before_the_seed() {
        let g = grid::<Autoscale>(&["--launch-hook", "3,none", "--seed", "1..=3"]);
        assert_eq!(g.len(), 6);
        // The hook is outer, the seed inner: runs 0-2 have the hook, 3-5 none.
        let hooks: Vec<Option<u32>> = (0..6)
            .map(|i| g.params(i).core.lifecycle.launch_hook.map(|h| h.rounds))
            .collect();
        assert_eq!(hooks, [Some(3), Some(3), Some(3), None, None, None]);
        assert_eq!(g.params(4).core.seed, 2);
        // A run is named as the flags take it: the hook with its result.
        assert_eq!(g.name(1), "launch-hook=3:continue seed=2");
        let g = grid::<Autoscale>(&["--launch-hook", "2:abandon,2", "--stockout-rounds", "5..=9"]);
        assert_eq!(g.name(0), "launch-hook=2:abandon seed=20261001");
        // A swept hook brings its result column into the table, right after it.
        let keys = table_keys::<Autoscale>(&g.swept);
        assert_eq!(keys[3..5], ["launch_hook", "launch_hook_result"]);
        // The stockout as the flag takes it (B excluded): 5..=9 is 5..10.
        let row = row::<Autoscale>(&g.params(0), &autoscale::Metrics::default());
        let cell = |key: &str| row.iter().find(|(k, _)| k == key).unwrap().1.text();
        assert_eq!(cell("stockout_rounds"), "5..10");
        assert_eq!(cell("launch_hook"), "2");
        assert_eq!(cell("launch_hook_result"), "abandon");
        assert_eq!(cell("terminate_hook_result"), "none");
    }

    /// A thread's runs sharing demand tables and seeds' streams give each run's own
    /// metrics: seeds revisited, the demand changed between runs, runs drawing past the
    /// kept draws, and a run too long to tabulate.
    #[test]
    fn shared_autoscale_runs_equal_runs_alone() {
        let mut scratch = AutoscaleScratch::default();
        let lesson = autoscale::Params::default();
        let mut cases = Vec::new();
        for seed in [1, 20_261_001, 7, 1, 20_261_001] {
            for (threshold, cooldown) in [(2, 0), (5, 8), (3, 3)] {
                cases.push(autoscale::Params {
                    threshold,
                    cooldown,
                    seed,
                    ..lesson.clone()
                });
            }
            cases.push(autoscale::Params {
                seed,
                surge: 2000.0,
                rounds: 2000,
                ..lesson.clone()
            });
        }
        cases.push(autoscale::Params {
            rounds: MAX_DEMAND_TABLE + 1,
            demand_base: 100.0,
            ..lesson.clone()
        });
        for p in &cases {
            let alone = autoscale::run(p).unwrap();
            let shared = scratch.run_lesson_fast(p).unwrap();
            assert_eq!(format!("{shared:?}"), format!("{alone:?}"), "{p:?}");
        }
    }
}
