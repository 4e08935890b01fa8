//! The three model commands. Each model declares its parameters once, in a table of
//! [`Param`]s (flag, help, accepted values, lesson value, field): the table gives the
//! command's flags and `--help`, the grid's axes, the rows' columns (table, JSON, CSV) and the
//! names of runs in errors. Adding a parameter to a model is one `param!` line in its table.

use std::marker::PhantomData;
use std::sync::Arc;

use capsim_core::autoscale::{
    self, Adjustment, Demand as _, Events, FailureRounds, FormulaPolicy, GroupStorage, Hook,
    Reclaim, RemovalPolicy, Steps, Stockout,
};
use capsim_core::bulkhead::{self, Mode, Split};
use capsim_core::consumers::{self, Workspace, DEFAULT_IN_FLIGHT, MAX_SHIPMENTS};
use capsim_core::formula::{self, History, Program, TimeInterval, DEFAULT_DELAY};
use capsim_core::rng::{GroupLcg, GroupStream};
use capsim_core::{Capacity, Error, Observer};
#[cfg(feature = "cli")]
use clap::{Arg, ArgMatches, Command, FromArgMatches};
#[cfg(feature = "cli")]
use rayon::prelude::*;
use std::collections::HashMap;

use crate::list::{parse, Item};
use crate::output::{Cell, Key, Row};

/// The most runs one command may make (the product of its lists).
pub const MAX_RUNS: u64 = 1_000_000;

/// A parameter or metric value a row can show.
pub trait Value: Clone + Send + Sync + 'static {
    /// Returns the value as a row shows it.
    fn cell(&self) -> Cell;

    /// Whether the value has a second part shown in a column of its own, `<key>_result`
    /// (a hook's default result), so that the first stays a number in JSON.
    const RESULT: bool = false;

    /// Returns the second part (read only when [`Value::RESULT`]).
    fn result(&self) -> Cell {
        Cell::Word("none")
    }

    /// Returns the value as its flag takes it: errors name a run by it.
    fn flag_text(&self) -> String {
        self.cell().text()
    }
}

impl Value for u32 {
    fn cell(&self) -> Cell {
        Cell::Int((*self).into())
    }
}

/// `none`, or the integer.
impl Value for Option<u32> {
    fn cell(&self) -> Cell {
        self.map_or(Cell::Word("none"), |v| Cell::Int(v.into()))
    }
}

impl Value for u64 {
    fn cell(&self) -> Cell {
        Cell::Int(*self)
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

/// A hook shows its rounds (or `none`) and, in `<key>_result`, its default result.
impl Value for Option<Hook> {
    fn cell(&self) -> Cell {
        self.map_or(Cell::Word("none"), |h| Cell::Int(h.rounds.into()))
    }

    const RESULT: bool = true;

    fn result(&self) -> Cell {
        Cell::Word(self.map_or("none", |h| h.result.name()))
    }

    fn flag_text(&self) -> String {
        self.map_or("none".to_string(), |h| {
            format!("{}:{}", h.rounds, h.result.name())
        })
    }
}

/// `yes` or `no`.
impl Value for bool {
    fn cell(&self) -> Cell {
        Cell::Word(if *self { "yes" } else { "no" })
    }
}

impl Value for RemovalPolicy {
    fn cell(&self) -> Cell {
        Cell::Word(self.name())
    }
}

impl Value for Reclaim {
    fn cell(&self) -> Cell {
        Cell::Word(self.name())
    }
}

/// `[]` or `[A,B]` in JSON, `none` or `A..B` as text.
impl Value for Option<Stockout> {
    fn cell(&self) -> Cell {
        self.map_or(Cell::Ints(Vec::new()), |s| Cell::Span(s.start, s.end))
    }
}

/// `none`, or the actions as the flag takes them (`0:protect:3+50:standby:1`).
impl Value for Events {
    fn cell(&self) -> Cell {
        if self.is_empty() {
            return Cell::Word("none");
        }
        let actions: Vec<String> = self
            .iter()
            .map(|e| format!("{}:{}:{}", e.round, e.action.name(), e.count))
            .collect();
        Cell::Text(actions.join("+"))
    }
}

/// One flag's values as a grid axis: how many, and how to put the `i`th into a run.
pub trait Axis<P>: Send + Sync {
    /// Returns the number of values.
    fn len(&self) -> usize;
    /// Returns false: a list has at least one value.
    fn is_empty(&self) -> bool {
        false
    }
    /// Sets the `i`th value on `p`.
    fn set(&self, p: &mut P, i: usize);
}

/// A parsed list of one parameter's values and the field they go to.
pub struct Values<P, T> {
    /// The values, in the order given.
    pub values: Vec<T>,
    /// Puts a value into its field.
    pub set: fn(&mut P, T),
}

impl<P, T: Value> Axis<P> for Values<P, T> {
    fn len(&self) -> usize {
        self.values.len()
    }
    fn set(&self, p: &mut P, i: usize) {
        (self.set)(p, self.values[i].clone());
    }
}

/// A flag's parsed values, as clap hands them over.
pub struct Parsed<P>(Arc<dyn Axis<P>>);

impl<P> Clone for Parsed<P> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

/// Parses a comma-separated list of `T` into an axis setting a field with `set`.
pub fn axis<P: 'static, T: Item + Value>(s: &str, set: fn(&mut P, T)) -> Result<Parsed<P>, String> {
    let values = parse::<T>(s)?.0;
    Ok(Parsed(Arc::new(Values { values, set })))
}

/// [`axis`] for a parameter whose documented accepted values are `accepted`: an error
/// ends with them ([`crate::list::with_accepted`]).
pub fn param_axis<P: 'static, T: Item + Value>(
    s: &str,
    accepted: &str,
    set: fn(&mut P, T),
) -> Result<Parsed<P>, String> {
    axis(s, set).map_err(|e| crate::list::with_accepted::<T>(e, accepted))
}

/// One model parameter, declared once.
pub struct Param<P> {
    /// The row key (`demand_base`); the flag is the key with dashes (`--demand-base`), and
    /// errors name a run's value as `demand-base=900`.
    pub key: &'static str,
    /// What the parameter is, for `--help`.
    pub help: &'static str,
    /// The values the model accepts, in words ("" when the help says them).
    pub accepted: &'static str,
    /// The lesson's value(s), as the flag would take them.
    pub lesson: &'static str,
    /// Parses the flag's list.
    pub parse: fn(&str) -> Result<Parsed<P>, String>,
    /// Returns the parameter's value in a run, as a row shows it.
    pub cell: fn(&P) -> Cell,
    /// The column right after the parameter's for a value's second part
    /// (`launch_hook_result`), if its type has one ([`Value::RESULT`]).
    pub result: Option<Column<P>>,
    /// Returns the parameter's value in a run as its flag takes it (errors name runs by it).
    pub flag_value: fn(&P) -> String,
}

/// A column a parameter adds after its own: its key and its value in a run.
pub struct Column<P> {
    /// The row key (`launch_hook_result`).
    pub key: &'static str,
    /// Returns the value, as a row shows it.
    pub cell: fn(&P) -> Cell,
}

impl<P> Param<P> {
    /// Returns the flag without its dashes (`demand-base`).
    pub fn flag(&self) -> String {
        self.key.replace('_', "-")
    }
}

impl<P: Default> Param<P> {
    /// Returns the value a command runs when the flag is omitted (`P::default()`'s), as the
    /// flag takes it.
    pub fn default_text(&self) -> String {
        (self.flag_value)(&P::default())
    }

    /// Returns the `--help` line, one rule for every flag: what it is, the accepted values,
    /// the default (what a bare command runs) and, when the lesson runs other values, those:
    /// `[1 to 64; default: 1 (the lesson sweeps 1,2,3,4,6,8)]`.
    pub fn help_line(&self) -> String {
        let default = self.default_text();
        let lesson = if self.lesson == default {
            String::new()
        } else if self.lesson.contains(',') {
            format!(" (the lesson sweeps {})", self.lesson)
        } else {
            format!(" (the lesson runs {})", self.lesson)
        };
        if self.accepted.is_empty() {
            format!("{} [default: {default}{lesson}]", self.help)
        } else {
            format!(
                "{} [{}; default: {default}{lesson}]",
                self.help, self.accepted
            )
        }
    }
}

/// Declares a parameter of the table's `Params`: `param!(field: Type, help, accepted,
/// lesson)`, `param!(nested.field: Type, …)` keyed by the last name (`core.threshold` as
/// `threshold`), or `param!("key", nested.field: Type, …)` for another key
/// (`core.lifecycle.stockout` as `stockout_rounds`).
macro_rules! param {
    ($($f:ident).+ : $T:ty, $help:expr, $accepted:expr, $lesson:expr) => {
        param!(@ (param!(@last $($f).+)), $($f).+ : $T, $help, $accepted, $lesson)
    };
    (@last $f:ident) => {
        stringify!($f)
    };
    (@last $f:ident . $($rest:ident).+) => {
        param!(@last $($rest).+)
    };
    ($key:literal, $($f:ident).+ : $T:ty, $help:expr, $accepted:expr, $lesson:expr) => {
        param!(@ ($key), $($f).+ : $T, $help, $accepted, $lesson)
    };
    (@ ($($key:tt)+), $($f:ident).+ : $T:ty, $help:expr, $accepted:expr, $lesson:expr) => {
        Param {
            key: $($key)+,
            help: $help,
            accepted: $accepted,
            lesson: $lesson,
            parse: |s| param_axis::<_, $T>(s, $accepted, |p, v| p.$($f).+ = v),
            cell: |p| Value::cell(&p.$($f).+),
            result: if <$T as Value>::RESULT {
                Some(Column {
                    key: concat!($($key)+, "_result"),
                    cell: |p| Value::result(&p.$($f).+),
                })
            } else {
                None
            },
            flag_value: |p| Value::flag_text(&p.$($f).+),
        }
    };
}

/// One metric: its key and its value in a run's metrics.
pub struct Metric<M> {
    /// The row key (`tracking_dropped`).
    pub key: &'static str,
    /// Returns the metric's value, as a row shows it.
    pub cell: fn(&M) -> Cell,
}

/// Declares a metric of the table's `Metrics`: `metric!(field)`.
macro_rules! metric {
    ($field:ident) => {
        Metric {
            key: stringify!($field),
            cell: |m| Value::cell(&m.$field),
        }
    };
}

/// A model the CLI can sweep.
pub trait Model: Sized + Send + Sync + 'static {
    /// One run's parameters; [`Default`] gives the lesson's.
    type Params: Clone + Default + Send + Sync + 'static;
    /// One run's metrics.
    type Metrics: Send + Sync;
    /// Per-thread scratch storage.
    type Scratch;
    /// The parameters in flag order: the grid's axes, first outermost; the seed last.
    const PARAMS: &'static [Param<Self::Params>];
    /// The parameter after which rows show the seed (the seed is the innermost axis but,
    /// as the lessons' tables do, rows show it with the headline parameters).
    const SEED_AFTER: &'static str;
    /// The parameters the table always shows (swept ones join them).
    const HEADLINE: &'static [&'static str];
    /// The metrics, in contract order.
    const METRICS: &'static [Metric<Self::Metrics>];
    /// Returns fresh scratch storage.
    fn scratch() -> Self::Scratch;
    /// Runs one combination, handing `observer` every round (the core's observer contract).
    ///
    /// This is the model's one run path in the host: a grid's rows ([`Model::run`]), a
    /// trace, a plot and the playground's chart all run a combination through it, so a view
    /// shows the run its row describes, whatever the parameters (a formula included).
    /// `()` observes nothing and lets the core take its fast paths.
    fn run_with<O: Observer>(
        p: &Self::Params,
        scratch: &mut Self::Scratch,
        observer: &mut O,
    ) -> Outcome<Self::Metrics>;
    /// Runs one combination unobserved: [`Model::run_with`] with `()`.
    fn run(p: &Self::Params, scratch: &mut Self::Scratch) -> Outcome<Self::Metrics> {
        Self::run_with(p, scratch, &mut ())
    }
    /// Checks one combination's parameters (the core's `Params::validate`).
    const VALIDATE: fn(&Self::Params) -> Result<(), Error>;
    /// Runs `runs` of `grid` (a window of consecutive runs) on the current rayon pool and
    /// returns their outcomes in grid order. `ahead` holds outcomes of later runs computed
    /// early (a model may batch runs across windows); `done` is called with each count of
    /// runs finished. Default: each run on its own.
    fn run_window(
        grid: &Grid<Self>,
        runs: std::ops::Range<u64>,
        ahead: &mut Ahead<Self::Metrics>,
        done: &(dyn Fn(u64) + Sync),
    ) -> Vec<Outcome<Self::Metrics>> {
        let _ = ahead;
        let run = |scratch: &mut Self::Scratch, i| {
            let outcome = Self::run(&grid.params(i), scratch);
            done(1);
            outcome
        };
        #[cfg(feature = "cli")]
        return runs.into_par_iter().map_init(Self::scratch, run).collect();
        #[cfg(not(feature = "cli"))]
        {
            let mut scratch = Self::scratch();
            runs.map(|i| run(&mut scratch, i)).collect()
        }
    }
}

/// One run's outcome: its metrics, or the error that stopped it.
pub type Outcome<M> = Result<M, Error>;

/// Outcomes of runs past the current window, computed early, by run index.
pub type Ahead<M> = std::collections::BTreeMap<u64, Outcome<M>>;

/// Returns the metric keys of `M`, in contract order.
pub fn metric_keys<M: Model>() -> Vec<&'static str> {
    M::METRICS.iter().map(|m| m.key).collect()
}

/// Returns a run's row: its parameters (the seed after [`Model::SEED_AFTER`]), then its
/// metrics.
pub fn row<M: Model>(p: &M::Params, m: &M::Metrics) -> Row {
    let results = M::PARAMS.iter().filter(|q| q.result.is_some()).count();
    let mut row = Row::with_capacity(M::PARAMS.len() + results + M::METRICS.len());
    let seed = M::PARAMS.iter().find(|q| q.key == "seed");
    for q in M::PARAMS.iter().filter(|q| q.key != "seed") {
        row.push((Key::Borrowed(q.key), (q.cell)(p)));
        if let Some(result) = &q.result {
            row.push((Key::Borrowed(result.key), (result.cell)(p)));
        }
        if let Some(seed) = seed.filter(|_| q.key == M::SEED_AFTER) {
            row.push((Key::Borrowed(seed.key), (seed.cell)(p)));
        }
    }
    for metric in M::METRICS {
        row.push((Key::Borrowed(metric.key), (metric.cell)(m)));
    }
    row
}

/// Returns the keys of a run's row, in [`row`]'s order (a CSV header with no row to take it
/// from: an empty `--shard 1/N`).
pub fn row_keys<M: Model>() -> Vec<&'static str> {
    let mut keys = Vec::with_capacity(M::PARAMS.len() * 2 + M::METRICS.len());
    let seed = M::PARAMS.iter().find(|q| q.key == "seed");
    for q in M::PARAMS.iter().filter(|q| q.key != "seed") {
        keys.push(q.key);
        keys.extend(q.result.as_ref().map(|r| r.key));
        keys.extend(seed.filter(|_| q.key == M::SEED_AFTER).map(|s| s.key));
    }
    keys.extend(metric_keys::<M>());
    keys
}

/// Returns the table's columns: the headline parameters, the swept ones (each with its
/// result column, if it has one), the metrics.
pub fn table_keys<M: Model>(swept: &[&'static str]) -> Vec<&'static str> {
    let mut keys = M::HEADLINE.to_vec();
    for &key in swept.iter().filter(|k| !M::HEADLINE.contains(k)) {
        keys.push(key);
        let param = M::PARAMS.iter().find(|q| q.key == key);
        keys.extend(param.and_then(|q| q.result.as_ref()).map(|r| r.key));
    }
    keys.extend(metric_keys::<M>());
    keys
}

// ---------------------------------------------------------------- flags and grid

/// A model command's parameter flags, one per [`Param`], as clap parsed them.
pub struct Flags<M: Model> {
    /// Each parameter's values, in [`Model::PARAMS`] order (`None`: flag omitted).
    values: Vec<Option<Parsed<M::Params>>>,
}

impl<M: Model> std::fmt::Debug for Flags<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let given: Vec<&str> = M::PARAMS
            .iter()
            .zip(&self.values)
            .filter(|(_, v)| v.is_some())
            .map(|(p, _)| p.key)
            .collect();
        f.debug_struct("Flags").field("given", &given).finish()
    }
}

impl<M: Model> Flags<M> {
    /// Returns the flags given as (flag without dashes, value) pairs, in command-line order,
    /// as the command line would parse them: the first bad one fails with clap's text
    /// (without `error: `).
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, String> {
        let mut values: Vec<Option<Parsed<M::Params>>> = M::PARAMS.iter().map(|_| None).collect();
        for (flag, value) in pairs {
            let Some(at) = M::PARAMS.iter().position(|p| p.flag() == flag) else {
                return Err(format!("unexpected argument '--{flag}' found"));
            };
            if values[at].is_some() {
                return Err(format!(
                    "the argument '--{flag} <LIST>' cannot be used multiple times"
                ));
            }
            let parsed = (M::PARAMS[at].parse)(value)
                .map_err(|e| format!("invalid value '{value}' for '--{flag} <LIST>': {e}"))?;
            values[at] = Some(parsed);
        }
        Ok(Self { values })
    }
}

#[cfg(feature = "cli")]
impl<M: Model> FromArgMatches for Flags<M> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let values = M::PARAMS
            .iter()
            .map(|p| matches.get_one::<Parsed<M::Params>>(p.key).cloned())
            .collect();
        Ok(Self { values })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for (p, v) in M::PARAMS.iter().zip(&mut self.values) {
            if let Some(parsed) = matches.get_one::<Parsed<M::Params>>(p.key) {
                *v = Some(parsed.clone());
            }
        }
        Ok(())
    }
}

#[cfg(feature = "cli")]
impl<M: Model> clap::Args for Flags<M> {
    fn augment_args(mut cmd: Command) -> Command {
        for p in M::PARAMS {
            cmd = cmd.arg(
                Arg::new(p.key)
                    .long(p.flag())
                    .value_name("LIST")
                    .allow_hyphen_values(true)
                    .help(p.help_line())
                    .value_parser(p.parse),
            );
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl<M: Model> Flags<M> {
    /// Returns the grid of runs: every combination of the given flags' values.
    pub fn grid(&self) -> Result<Grid<M>, String> {
        let mut axes = Vec::new();
        let mut len: u64 = 1;
        let mut swept = Vec::new();
        for (param, values) in M::PARAMS.iter().zip(&self.values) {
            let Some(Parsed(values)) = values else {
                continue;
            };
            if values.len() > 1 {
                swept.push(param.key);
            }
            len = len.saturating_mul(values.len() as u64);
            axes.push((param, Arc::clone(values)));
        }
        if len > MAX_RUNS {
            return Err(format!(
                "the parameter lists make {len} runs; at most {MAX_RUNS} are accepted"
            ));
        }
        Ok(Grid {
            base: M::Params::default(),
            axes,
            len,
            stop: len,
            swept,
            _model: PhantomData,
        })
    }
}

/// A given flag on the grid: its parameter and its values.
type GridAxis<P> = (&'static Param<P>, Arc<dyn Axis<P>>);

/// The parameter grid of one command: every combination of the listed values, first flag
/// outermost, seed innermost. Run `i`'s parameters are decoded from `i` on demand (mixed
/// radix over the flags' value lists), so a grid of a million runs holds only its lists.
pub struct Grid<M: Model> {
    base: M::Params,
    /// The given flags and their values, outermost first.
    axes: Vec<GridAxis<M::Params>>,
    /// The number of runs.
    len: u64,
    /// The run before which batches stop looking for partners: the grid's end, or the end
    /// of the runs swept (`--shard`), so that no run past them is run.
    stop: u64,
    /// The keys of flags given more than one value (the table shows them).
    pub swept: Vec<&'static str>,
    _model: PhantomData<M>,
}

impl<M: Model> Grid<M> {
    /// Returns the number of runs.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Returns false: a grid has at least one run.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Returns the grid whose batches take no partner from run `stop` on (a shard's end):
    /// the runs' outcomes are the same, only the work past `stop` is saved.
    pub fn stopping_at(mut self, stop: u64) -> Self {
        self.stop = stop.min(self.len);
        self
    }

    /// Returns how many seeds the grid runs per combination (the innermost list).
    pub fn seeds(&self) -> usize {
        self.axis_of("seed").map_or(1, |a| self.axis_len(a))
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
        self.axes.iter().position(|(p, _)| p.key == key)
    }

    /// Returns the key of axis `a`.
    pub fn axis_key(&self, a: usize) -> &'static str {
        self.axes[a].0.key
    }

    /// Returns the number of axes (given flags).
    pub fn axes(&self) -> usize {
        self.axes.len()
    }

    /// Returns the length of axis `a`.
    pub fn axis_len(&self, a: usize) -> usize {
        self.axes[a].1.len()
    }

    /// Returns run `i`'s parameters.
    pub fn params(&self, i: u64) -> M::Params {
        let mut p = self.base.clone();
        for (d, (_, axis)) in self.digits(i).into_iter().zip(&self.axes) {
            axis.set(&mut p, d);
        }
        p
    }

    /// Names run `i` for an error: its values of the flags given more than one value, and
    /// its seed (`demand-base=31000 seed=1`).
    pub fn name(&self, i: u64) -> String {
        let p = self.params(i);
        let named =
            |param: &Param<M::Params>| format!("{}={}", param.flag(), (param.flag_value)(&p));
        let mut parts: Vec<String> = self
            .axes
            .iter()
            .filter(|(param, axis)| axis.len() > 1 && param.key != "seed")
            .map(|(param, _)| named(param))
            .collect();
        parts.extend(M::PARAMS.iter().filter(|q| q.key == "seed").map(named));
        parts.join(" ")
    }
}

// ---------------------------------------------------------------- autoscale

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
    /// Reads (at most 8 KB and one byte, [`crate::input::read_bounded`]) and parses
    /// `path`; the error is one line, `PATH: line L, col C: message` or `PATH: reason`.
    pub fn load(path: &str) -> Result<Self, String> {
        let src = crate::input::read_bounded(std::path::Path::new(path), formula::MAX_SOURCE_BYTES)
            .map_err(|e| match e {
                crate::input::InputError::TooLong { .. } => format!(
                    "{path}: the formula is longer than 8 KB ({} bytes), Batch's limit",
                    formula::MAX_SOURCE_BYTES
                ),
                e => e.to_string(),
            })?;
        let mut program = Box::new(Program::new());
        program.parse(&src).map_err(|e| format!("{path}: {e}"))?;
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

/// A formula run's history and workspace (53 KB), reused by a thread's runs.
pub type FormulaScratch = Option<Box<(History, formula::Workspace)>>;

/// A thread's storage for its autoscale runs: the formula's, and what runs of a grid share.
#[derive(Default)]
pub struct AutoscaleScratch {
    formula: FormulaScratch,
    /// The demand curve of the last runs' demand parameters, by round.
    demand: Option<(DemandKey, Vec<f64>)>,
    /// Each seed's generator stream (the grid's pairs of one seed draw the same numbers).
    streams: HashMap<u32, GroupStream<Box<[u32]>>>,
    /// A batch's stream: one seed's runs in lockstep (`autoscale::run_sweep`), then the next.
    batch_stream: Option<GroupStream<Box<[u32]>>>,
    /// A group of up to [`HOST_GROUP_SIZE`] instances, for runs that outgrow a board's.
    group: Option<HostGroup>,
}

/// The parameters `autoscale::Params::demand` reads, compared bit for bit.
#[derive(Clone, Copy, PartialEq, Eq)]
struct DemandKey([u64; 7]);

impl DemandKey {
    fn of(p: &autoscale::Params) -> Self {
        Self([
            u64::from(p.rounds),
            p.demand_base.to_bits(),
            p.demand_amplitude.to_bits(),
            p.demand_period.to_bits(),
            u64::from(p.surge_start),
            u64::from(p.surge_end),
            p.surge.to_bits(),
        ])
    }
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
        let key = DemandKey::of(p);
        if self.demand.as_ref().is_none_or(|(k, _)| *k != key) {
            let table = (0..p.rounds).map(|t| p.demand(t)).collect();
            self.demand = Some((key, table));
        }
        self.demand.as_ref().map_or(&[][..], |(_, t)| &t[..])
    }

    /// Runs the lesson's policy on `p` with the shared demand table and stream.
    fn run_lesson_policy(&mut self, p: &AutoscaleParams) -> Outcome<autoscale::Metrics> {
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
    pub fn run_general<O: Observer>(
        &mut self,
        p: &AutoscaleParams,
        observer: &mut O,
    ) -> Outcome<autoscale::Metrics> {
        let core = &p.core;
        core.validate()?;
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
        let mut policy = FormulaPolicy::new(
            &f.program,
            history,
            ws,
            p.evaluation_interval,
            core.capacity,
        )?;
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
    const PARAMS: &'static [Param<AutoscaleParams>] = &[
        param!(core.threshold: u32,
            "Consecutive failed health checks before an instance is replaced",
            "1 to 4294967295", "2,3,5"),
        param!(core.cooldown: u32,
            "Rounds after a scaling action before the next one", "0 to 4294967295", "0,3,8"),
        Param {
            key: "rounds",
            help: "Rounds simulated",
            accepted: "1 to 10000000",
            lesson: "240",
            parse: |s| {
                param_axis::<_, u32>(s, "1 to 10000000", |p: &mut AutoscaleParams, v| {
                    p.core.rounds = v;
                    p.rounds_given = true;
                })
            },
            cell: |p| Value::cell(&p.core.rounds),
            result: None,
            flag_value: |p| Value::flag_text(&p.core.rounds),
        },
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
            "Which InService instances scale-in removes: first in group order, oldest or newest launch",
            "lesson, oldest or newest", "lesson"),
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
        Param {
            key: "policy",
            help: "Scaling policy: the lesson's exact count, AWS target tracking (--target-utilization, --disable-scale-in) or AWS step scaling (--steps, with --cooldown); a --formula replaces any of them",
            accepted: "lesson, target-tracking or step",
            lesson: "lesson",
            parse: |s| {
                param_axis::<_, PolicyName>(s, "lesson, target-tracking or step", |p: &mut AutoscaleParams, v| {
                    p.policy = v;
                    p.set_policy();
                })
            },
            cell: |p| Value::cell(&p.policy),
            result: None,
            flag_value: |p| Value::flag_text(&p.policy),
        },
        Param {
            key: "target_utilization",
            help: "Target tracking (only): keep the in-service instances' average utilisation (demand / (serving x capacity)) at P percent: desired = ceil(demand / (capacity x P / 100)), out at once, in after 15 rounds below",
            accepted: "1 to 100",
            lesson: "50",
            parse: |s| {
                param_axis::<_, u32>(s, "1 to 100", |p: &mut AutoscaleParams, v| {
                    p.target_utilization = v;
                    p.set_policy();
                })
            },
            cell: |p| Value::cell(&p.target_utilization),
            result: None,
            flag_value: |p| Value::flag_text(&p.target_utilization),
        },
        Param {
            key: "disable_scale_in",
            help: "Target tracking never scales in (AWS DisableScaleIn)",
            accepted: "no or yes",
            lesson: "no",
            parse: |s| {
                param_axis::<_, bool>(s, "no or yes", |p: &mut AutoscaleParams, v| {
                    p.disable_scale_in = v;
                    p.set_policy();
                })
            },
            cell: |p| Value::cell(&p.disable_scale_in),
            result: None,
            flag_value: |p| Value::flag_text(&p.disable_scale_in),
        },
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
        Param {
            key: "demand_file",
            help: "CSV of requests per round replacing the demand curve: one column, or a header naming a 'demand' column (a trace's CSV as printed); '-' is stdin; its rows set --rounds unless given (fewer: the first rows)",
            accepted: "files of at most 10000000 rows and 640000000 bytes, or none",
            lesson: "none",
            parse: |s| {
                param_axis::<_, DemandFile>(s, "files of at most 10000000 rows and 640000000 bytes, or none", |p: &mut AutoscaleParams, v| {
                    if let (Some(f), false) = (&v.0, p.rounds_given) {
                        // The rounds row comes first: a given --rounds wins.
                        p.core.rounds = f.values.len().min(u32::MAX as usize) as u32;
                    }
                    p.demand_file = v;
                })
            },
            cell: |p| Value::cell(&p.demand_file),
            result: None,
            flag_value: |p| Value::flag_text(&p.demand_file),
        },
        param!(formula: FormulaFile,
            "Batch autoscale formula file replacing the threshold policy and its cooldown (see capsim formula --help), or none",
            "files of at most 8 KB and 100 statements, each parsed once, or none", "none"),
        param!(evaluation_interval: u32,
            "Rounds (minutes) between formula evaluations, the first in round 0",
            "5 to 10080", "15"),
        param!(sample_delay: u32,
            "Seconds from a formula sample's recording to its availability (Batch: about a minute)",
            "0 to 600", "60"),
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
    ];

    fn scratch() -> AutoscaleScratch {
        AutoscaleScratch::default()
    }

    /// The one place that chooses how an autoscale run is computed: the lesson's policy on
    /// the fast path (and its shared streams) when nothing watches the run and no formula
    /// drives it; otherwise the general engine in the host's group, which every view (trace,
    /// plot, chart) takes: the same parameters, the same run.
    fn run_with<O: Observer>(
        p: &Self::Params,
        scratch: &mut AutoscaleScratch,
        observer: &mut O,
    ) -> Outcome<Self::Metrics> {
        if !O::ROUNDS && p.formula.0.is_none() {
            return scratch.run_lesson_policy(p);
        }
        scratch.run_general(p, observer)
    }

    /// Runs the combinations that differ only in threshold and cooldown (one seed, one
    /// demand curve) together, up to `AUTOSCALE_LANES` (16) at a time, in lockstep on one
    /// stream. See `batched_window`.
    fn run_window(
        grid: &Grid<Self>,
        runs: std::ops::Range<u64>,
        ahead: &mut Ahead<Self::Metrics>,
        done: &(dyn Fn(u64) + Sync),
    ) -> Vec<Outcome<Self::Metrics>> {
        let shared: Vec<&str> = Self::PARAMS
            .iter()
            .map(|q| q.key)
            .filter(|k| !AUTOSCALE_FREE.contains(k))
            .collect();
        batched_window(
            grid,
            runs,
            ahead,
            done,
            &shared,
            AUTOSCALE_LANES,
            |scratch, batch| run_autoscale_batch(grid, batch, scratch),
        )
    }
}

// ---------------------------------------------------------------- consumers

/// `capsim consumers`: competing consumers on one queue.
pub struct Consumers;

impl Model for Consumers {
    type Params = consumers::Params;
    type Metrics = consumers::Metrics;
    type Scratch = ConsumersScratch;
    const PARAMS: &'static [Param<consumers::Params>] = &[
        param!(consumers: u32,
            "Consumers pulling from the queue, N", "1 to 64", "1,2,3,4,6,8"),
        param!(slots: u32,
            "Events the store applies per round at most, S", "1 to 4294967295", "2,4"),
        param!(shipments: u32,
            "Shipments in the workload", "1 to 65536", "5000"),
        param!(events_per_shipment: u32,
            "Status events per shipment", "1 to 126", "7"),
        param!(queue_gap: f64,
            "Queue distance between a shipment's successive events", "0 to 1e9", "1"),
        param!(final_event_rounds: u32,
            "Rounds to process a shipment's last event", "0 to 4294967295", "6"),
        param!(event_rounds_min: u32,
            "Fewest rounds to process any other event", "0 to 4294967295", "1"),
        param!(event_rounds_spread: u32,
            "Other events take min + floor(r * spread) rounds",
            "0 to 4294967295 - event-rounds-min", "3"),
        param!(seed: u32,
            "Workload generator seed", "1 to 2147483646", "20260731"),
    ];
    const VALIDATE: fn(&consumers::Params) -> Result<(), Error> = consumers::Params::validate;
    const SEED_AFTER: &'static str = "queue_gap";
    const HEADLINE: &'static [&'static str] = &["consumers", "slots", "shipments", "seed"];
    const METRICS: &'static [Metric<consumers::Metrics>] = &[
        metric!(rounds),
        metric!(reordered_shipments),
        metric!(wrong_final_state),
        metric!(throughput),
    ];

    fn scratch() -> Self::Scratch {
        ConsumersScratch::default()
    }

    fn run_with<O: Observer>(
        p: &Self::Params,
        scratch: &mut Self::Scratch,
        observer: &mut O,
    ) -> Outcome<Self::Metrics> {
        let ws = scratch.single.get_or_insert_with(Default::default);
        consumers::run_with(p, consumers::LessonDraws::new(p), ws, observer)
    }

    /// Runs the configurations that share a workload (they differ only in consumers and
    /// slots) together, up to `CONSUMERS_LANES` (16) at a time: the queue is generated once
    /// per batch, not once per configuration. See `batched_window`.
    fn run_window(
        grid: &Grid<Self>,
        runs: std::ops::Range<u64>,
        ahead: &mut Ahead<Self::Metrics>,
        done: &(dyn Fn(u64) + Sync),
    ) -> Vec<Outcome<Self::Metrics>> {
        batched_window(
            grid,
            runs,
            ahead,
            done,
            &consumers::Workload::FLAGS,
            CONSUMERS_LANES,
            |scratch, batch| run_consumers_batch(grid, batch, scratch),
        )
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
    match consumers::run_batch_sorted_with(&params, draws, ws, keys, events, &mut (), out) {
        Ok(()) => batch
            .iter()
            .copied()
            .zip(metrics)
            .map(|(i, m)| (i, Ok(m)))
            .collect(),
        Err(_) => alone(scratch),
    }
}

// ---------------------------------------------------------------- bulkhead

/// `capsim bulkhead`: a shared slot pool vs. partitioned pools.
pub struct Bulkhead;

impl Model for Bulkhead {
    type Params = bulkhead::Params;
    type Metrics = bulkhead::Metrics;
    type Scratch = ();
    const PARAMS: &'static [Param<bulkhead::Params>] = &[
        param!(split: Split,
            "'shared', or the tracking pool's slots (events get the rest)",
            "shared, or 1 to total-slots - 1", "shared,24"),
        param!(mode: Mode,
            "Slowdown: event requests hold slow-hold rounds from failure-start",
            "healthy or slowdown", "healthy,slowdown"),
        param!(total_slots: u32, "Slots in all", "1 to 65535", "32"),
        param!(rounds_per_second: f64,
            "Rounds per second", "numbers > 0", "100"),
        param!(horizon: u32, "Rounds simulated", "1 to 100000000", "4000"),
        param!(failure_start: u32,
            "First round of the slowdown", "0 to 4294967295", "1000"),
        param!(tracking_rate: f64,
            "Tracking requests per second", "numbers >= 0, at most 64 per round", "416.67"),
        param!(event_rate: f64,
            "Event requests per second", "numbers >= 0, at most 64 per round", "97.22"),
        param!(tracking_hold: u32,
            "Rounds a tracking request holds its slot", "1 to 127", "4"),
        param!(event_hold: u32,
            "Rounds an event request holds its slot", "1 to 127", "6"),
        param!(slow_hold: u32,
            "Rounds an event request holds its slot during the slowdown", "1 to 127", "22"),
        param!(seed: u32,
            "Arrival generator seed", "1 to 2147483646", "20260801"),
    ];
    const VALIDATE: fn(&bulkhead::Params) -> Result<(), Error> = bulkhead::Params::validate;
    const SEED_AFTER: &'static str = "mode";
    const HEADLINE: &'static [&'static str] = &["split", "mode", "seed"];
    const METRICS: &'static [Metric<bulkhead::Metrics>] = &[
        metric!(tracking_served),
        metric!(tracking_dropped),
        metric!(event_served),
        metric!(event_dropped),
        metric!(idle_slots),
        metric!(busy_slot_rounds),
    ];

    fn scratch() {}

    fn run_with<O: Observer>(
        p: &Self::Params,
        _: &mut (),
        observer: &mut O,
    ) -> Outcome<Self::Metrics> {
        bulkhead::run_observed(p, observer)
    }

    /// Runs the combinations that share an arrival stream (they differ only in flags that
    /// do not shape the stream) together, up to `BULKHEAD_LANES` (16) at a time: the stream
    /// is drawn once per batch. See `batched_window`.
    fn run_window(
        grid: &Grid<Self>,
        runs: std::ops::Range<u64>,
        ahead: &mut Ahead<Self::Metrics>,
        done: &(dyn Fn(u64) + Sync),
    ) -> Vec<Outcome<Self::Metrics>> {
        batched_window(
            grid,
            runs,
            ahead,
            done,
            &bulkhead::Stream::FLAGS,
            BULKHEAD_LANES,
            |_: &mut (), batch| run_bulkhead_batch(grid, batch),
        )
    }
}

/// Bulkhead combinations run together on one arrival stream at most: a grid's layouts of one
/// seed (the lesson's eleven, `--split` × `--mode` up to 16) draw the stream once.
const BULKHEAD_LANES: usize = 16;

/// How far past a window's start a run's batch partners may lie.
const BATCH_LOOKAHEAD: u64 = 65_536;

/// Runs `runs` of `grid` in batches of runs that share a workload (equal values of the
/// `stream` flags), at most `lanes` a batch, with `run_batch` (given the thread's scratch),
/// on the current rayon pool, and returns their outcomes in grid order.
///
/// A run's partners may lie up to [`BATCH_LOOKAHEAD`] runs past the window's start (the seed
/// is innermost, so partners are a seed list apart); their outcomes wait in `ahead`.
fn batched_window<M: Model>(
    grid: &Grid<M>,
    runs: std::ops::Range<u64>,
    ahead: &mut Ahead<M::Metrics>,
    done: &(dyn Fn(u64) + Sync),
    stream: &[&str],
    lanes: usize,
    run_batch: impl Fn(&mut M::Scratch, &[u64]) -> Vec<(u64, Outcome<M::Metrics>)> + Sync,
) -> Vec<Outcome<M::Metrics>> {
    let limit = runs.start.saturating_add(BATCH_LOOKAHEAD).min(grid.stop);
    let batches = batches(grid, runs.clone(), limit, ahead, stream, lanes);
    let run = |scratch: &mut M::Scratch, batch: &Vec<u64>| {
        let outcomes = run_batch(scratch, batch);
        done(batch.len() as u64);
        outcomes
    };
    #[cfg(feature = "cli")]
    let finished: Vec<Vec<(u64, Outcome<M::Metrics>)>> =
        batches.par_iter().map_init(M::scratch, run).collect();
    #[cfg(not(feature = "cli"))]
    let finished: Vec<Vec<(u64, Outcome<M::Metrics>)>> = {
        let mut scratch = M::scratch();
        batches.iter().map(|b| run(&mut scratch, b)).collect()
    };
    for (i, outcome) in finished.into_iter().flatten() {
        ahead.insert(i, outcome);
    }
    // Every run of the window is in `ahead` now; should one not be, it runs here.
    let mut scratch = None;
    runs.map(|i| {
        ahead.remove(&i).unwrap_or_else(|| {
            let scratch = scratch.get_or_insert_with(M::scratch);
            M::run(&grid.params(i), scratch)
        })
    })
    .collect()
}

/// Groups the runs of `runs` not yet in `ahead` into batches on one arrival stream, 8 at most.
#[cfg(test)]
fn bulkhead_batches(
    grid: &Grid<Bulkhead>,
    runs: std::ops::Range<u64>,
    limit: u64,
    ahead: &Ahead<bulkhead::Metrics>,
) -> Vec<Vec<u64>> {
    batches(grid, runs, limit, ahead, &bulkhead::Stream::FLAGS, 8)
}

/// Whether `flag` (`queue-gap`, as the core's `Workload::FLAGS` and `Stream::FLAGS` name
/// them) is the flag of row key `key` (`queue_gap`).
fn is_flag_of(flag: &str, key: &str) -> bool {
    flag.len() == key.len()
        && flag
            .bytes()
            .zip(key.bytes())
            .all(|(f, k)| f == k || (f == b'-' && k == b'_'))
}

/// Groups the runs of `runs` not yet in `ahead` into batches of at most `lanes` runs sharing
/// a workload (the same digits on the `stream` axes): each run not yet taken leads a batch
/// and takes its next partners below `limit`, in grid order.
fn batches<M: Model>(
    grid: &Grid<M>,
    runs: std::ops::Range<u64>,
    limit: u64,
    ahead: &Ahead<M::Metrics>,
    stream: &[&str],
    lanes: usize,
) -> Vec<Vec<u64>> {
    // The axes a batch may vary, innermost first.
    let free: Vec<usize> = (0..grid.axes())
        .rev()
        .filter(|&a| {
            !stream.iter().any(|f| is_flag_of(f, grid.axis_key(a))) && grid.axis_len(a) > 1
        })
        .collect();
    let mut taken = std::collections::BTreeSet::new();
    let mut batches = Vec::new();
    for i in runs {
        if ahead.contains_key(&i) || taken.contains(&i) {
            continue;
        }
        let mut batch = vec![i];
        let mut digits = grid.digits(i);
        'partners: while batch.len() < lanes {
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

/// Runs `batch` (runs of `grid`, all on one arrival stream, at most [`BULKHEAD_LANES`]) on
/// one stream; when the batch fails, runs each on its own so that every run gets its own
/// outcome.
fn run_bulkhead_batch(
    grid: &Grid<Bulkhead>,
    batch: &[u64],
) -> Vec<(u64, Outcome<bulkhead::Metrics>)> {
    let params: Vec<bulkhead::Params> = batch.iter().map(|&i| grid.params(i)).collect();
    // 600 bytes per lane, on this worker's stack.
    let mut ws = bulkhead::Workspace::<BULKHEAD_LANES>::new();
    let mut metrics = [bulkhead::Metrics::default(); BULKHEAD_LANES];
    match bulkhead::run_batch(&params, &mut ws, &mut metrics) {
        Ok(()) => batch
            .iter()
            .copied()
            .zip(metrics)
            .map(|(i, m)| (i, Ok(m)))
            .collect(),
        Err(_) => batch
            .iter()
            .zip(&params)
            .map(|(&i, p)| (i, bulkhead::run(p)))
            .collect(),
    }
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;

    fn bulkhead_grid(args: &[&str]) -> Grid<Bulkhead> {
        use clap::Args;
        let cmd = Flags::<Bulkhead>::augment_args(Command::new("bulkhead"));
        let matches = cmd
            .try_get_matches_from([&["bulkhead"], args].concat())
            .unwrap();
        Flags::<Bulkhead>::from_arg_matches(&matches)
            .unwrap()
            .grid()
            .unwrap()
    }

    /// A run's JSON line as the core's serde derives write it (parameters then metrics,
    /// flattened), and its row's JSON line.
    fn both_lines<M: Model>(p: &M::Params, m: &M::Metrics) -> (String, String)
    where
        M::Params: serde::Serialize,
        M::Metrics: serde::Serialize,
    {
        #[derive(serde::Serialize)]
        struct Run<'a, P, M> {
            #[serde(flatten)]
            params: &'a P,
            #[serde(flatten)]
            metrics: &'a M,
        }
        let derived = serde_json::to_string(&Run {
            params: p,
            metrics: m,
        })
        .unwrap();
        let mut from_row = Vec::new();
        let row = row::<M>(p, m);
        crate::output::write_rows(&mut from_row, crate::output::Format::Json, &[row], &[]).unwrap();
        (derived + "\n", String::from_utf8(from_row).unwrap())
    }

    /// The JSON rows of consumers and bulkhead runs are what the core's serde derives write
    /// (same keys, order and values: a float with its `.0`, the split as `"shared"` or a
    /// number), so a program using the core writes the CLI's objects. Not autoscale's: its
    /// lifecycle parameters are a nested struct in the core and flat keys in the CLI.
    #[test]
    fn core_derives_write_the_json_rows() {
        let c = consumers::Params {
            queue_gap: 2.5,
            ..consumers::Params::default()
        };
        let m = consumers::Metrics {
            rounds: 7,
            throughput: 0.1,
            ..consumers::Metrics::default()
        };
        let (derived, from_row) = both_lines::<Consumers>(&c, &m);
        assert_eq!(derived, from_row);
        assert!(derived.contains(r#""queue_gap":2.5,"seed":20260731,"#));
        assert!(derived.ends_with("\"wrong_final_state\":0,\"throughput\":0.1}\n"));

        for (split, word) in [
            (Split::Shared, r#""shared""#),
            (Split::Partitioned(24), "24"),
        ] {
            for mode in [Mode::Healthy, Mode::Slowdown] {
                let b = bulkhead::Params {
                    split,
                    mode,
                    ..bulkhead::Params::default()
                };
                let m = bulkhead::Metrics {
                    idle_slots: u64::MAX,
                    ..bulkhead::Metrics::default()
                };
                let (derived, from_row) = both_lines::<Bulkhead>(&b, &m);
                assert_eq!(derived, from_row);
                let head = format!(r#"{{"split":{word},"mode":"{mode}","seed":20260801,"#);
                assert!(derived.starts_with(&head), "{derived}");
                assert!(derived.contains(r#""rounds_per_second":100.0,"#));
            }
        }
    }

    /// The core's split and mode read back what they write.
    #[test]
    fn split_and_mode_read_what_they_write() {
        for split in [
            Split::Shared,
            Split::Partitioned(1),
            Split::Partitioned(u32::MAX),
        ] {
            let text = serde_json::to_string(&split).unwrap();
            assert_eq!(serde_json::from_str::<Split>(&text).unwrap(), split);
        }
        for mode in [Mode::Healthy, Mode::Slowdown] {
            let text = serde_json::to_string(&mode).unwrap();
            assert_eq!(serde_json::from_str::<Mode>(&text).unwrap(), mode);
        }
        for bad in [r#""Shared""#, "-1", "4294967296", "2.5", "null"] {
            assert!(serde_json::from_str::<Split>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn grid_decodes_runs_first_flag_outermost() {
        let g = bulkhead_grid(&["--split", "shared,24", "--seed", "7..=9"]);
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
        assert_eq!(g.name(4), "split=24 seed=8");
        // A flag given one value is not named; the seed always is.
        let g = bulkhead_grid(&["--split", "20", "--mode", "healthy,slowdown"]);
        assert_eq!(g.name(1), "mode=slowdown seed=20260801");
    }

    #[test]
    fn bulkhead_batches_join_runs_on_one_stream() {
        // Runs i and i + 3 share a seed, hence an arrival stream.
        let g = bulkhead_grid(&["--split", "shared,24", "--seed", "7..=9"]);
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

    fn grid<M: Model>(args: &[&str]) -> Grid<M> {
        use clap::Args;
        let cmd = Flags::<M>::augment_args(Command::new("model"));
        let matches = cmd
            .try_get_matches_from([&["model"], args].concat())
            .unwrap();
        Flags::<M>::from_arg_matches(&matches)
            .unwrap()
            .grid()
            .unwrap()
    }

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

    fn check_table<M: Model>() {
        let keys: Vec<&str> = M::PARAMS.iter().map(|p| p.key).collect();
        // The seed is the innermost axis.
        assert_eq!(keys.last(), Some(&"seed"));
        assert!(keys.contains(&M::SEED_AFTER));
        assert!(M::HEADLINE.iter().all(|k| keys.contains(k)));
        for p in M::PARAMS {
            // The documented lesson value is one the flag takes.
            assert!((p.parse)(p.lesson).is_ok(), "{}: {}", p.key, p.lesson);
            assert!(p.help_line().contains(p.lesson));
        }
        let row = row::<M>(&M::Params::default(), &run_default::<M>());
        let row_keys: Vec<&str> = row.iter().map(|(k, _)| k.as_ref()).collect();
        let results = M::PARAMS.iter().filter(|p| p.result.is_some()).count();
        assert_eq!(row_keys.len(), keys.len() + results + M::METRICS.len());
        let seed_at = row_keys.iter().position(|k| *k == M::SEED_AFTER).unwrap() + 1;
        assert_eq!(row_keys[seed_at], "seed");
    }

    fn run_default<M: Model>() -> M::Metrics {
        M::run(&M::Params::default(), &mut M::scratch()).unwrap()
    }

    #[test]
    fn parameter_tables_are_whole() {
        check_table::<Autoscale>();
        check_table::<Consumers>();
        check_table::<Bulkhead>();
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

    /// Sets each of `M`'s parameters in turn to a value other than `default`'s (the first
    /// of a few candidates its flag takes that changes the run) and returns the parameter
    /// key with the run.
    fn each_param_changed<M: Model>(default: &M::Params) -> Vec<(&'static str, M::Params)>
    where
        M::Params: Clone + PartialEq + std::fmt::Debug,
    {
        const CANDIDATES: [&str; 8] = ["2", "3", "24", "0.5", "17", "slowdown", "healthy", "16"];
        M::PARAMS
            .iter()
            .map(|q| {
                let changed = CANDIDATES
                    .iter()
                    .filter_map(|s| (q.parse)(s).ok())
                    .map(|axis| {
                        let mut p = default.clone();
                        axis.0.set(&mut p, 0);
                        p
                    })
                    .find(|p| p != default)
                    .unwrap_or_else(|| panic!("no candidate changes {}", q.key));
                (q.key, changed)
            })
            .collect()
    }

    /// Asserts that `flags` are exactly `M`'s parameters whose change changes `part`.
    fn assert_flags_name_the_part<M: Model, T: PartialEq>(
        flags: &[&str],
        part: fn(&M::Params) -> T,
        default: &M::Params,
    ) where
        M::Params: Clone + PartialEq + std::fmt::Debug,
    {
        let changed = each_param_changed::<M>(default);
        assert_eq!(changed.len(), M::PARAMS.len());
        for (key, p) in &changed {
            let listed = flags.iter().any(|f| is_flag_of(f, key));
            assert_eq!(part(p) != part(default), listed, "{key}");
        }
        // Every listed flag is a parameter.
        for flag in flags {
            assert!(
                changed.iter().any(|(key, _)| is_flag_of(flag, key)),
                "{flag}"
            );
        }
    }

    /// `Workload::FLAGS` is exactly the consumers parameters that change the workload (the
    /// grid batches runs by it), `Stream::FLAGS` the bulkhead parameters that change the
    /// arrival stream.
    #[test]
    fn the_part_flags_are_the_parameters_of_the_part() {
        assert_flags_name_the_part::<Consumers, _>(
            &consumers::Workload::FLAGS,
            consumers::Params::workload,
            &consumers::Params::default(),
        );
        assert_flags_name_the_part::<Bulkhead, _>(
            &bulkhead::Stream::FLAGS,
            bulkhead::Params::stream,
            &bulkhead::Params::default(),
        );
    }

    #[test]
    fn flags_match_keys_dash_for_underscore() {
        assert!(is_flag_of("queue-gap", "queue_gap"));
        assert!(is_flag_of("seed", "seed"));
        assert!(!is_flag_of("queue_gap", "queue-gap"));
        assert!(!is_flag_of("queue-gap", "queue_gaps"));
        assert!(!is_flag_of("horizon", "seed"));
    }
}
