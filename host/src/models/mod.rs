//! The three model commands. Each model declares its parameters once, in a table of
//! [`Param`]s (flag, help, accepted values, lesson value, field): the table gives the
//! command's flags and `--help`, the grid's axes, the rows' columns (table, JSON, CSV) and the
//! names of runs in errors. Adding a parameter to a model is one `param!` line in its table.

use capsim_core::{Error, Observer};
#[cfg(feature = "cli")]
use rayon::prelude::*;

use crate::output::Cell;

/// The most runs one command may make (the product of its lists).
pub const MAX_RUNS: u64 = 1_000_000;

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

    /// Returns what the parameter is, the core's values written ([`limits::fill`]).
    pub fn help_text(&self) -> String {
        limits::fill(self.help)
    }

    /// Returns the accepted values, the core's limits written ([`limits::fill`]).
    pub fn accepted_text(&self) -> String {
        limits::fill(self.accepted)
    }

    /// Returns the lesson's value(s) as the flag takes them ([`limits::fill`]: a sweep is
    /// the lesson's own list, `2,3,5`).
    pub fn lesson_text(&self) -> String {
        limits::fill(self.lesson)
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
        let (help, accepted, lesson) = (self.help_text(), self.accepted_text(), self.lesson_text());
        let lesson = if lesson == default {
            String::new()
        } else if lesson.contains(',') {
            format!(" (the lesson sweeps {lesson})")
        } else {
            format!(" (the lesson runs {lesson})")
        };
        if accepted.is_empty() {
            format!("{help} [default: {default}{lesson}]")
        } else {
            format!("{help} [{accepted}; default: {default}{lesson}]")
        }
    }
}

/// Declares a parameter of the table's `Params`: `param!(field: Type, help, accepted,
/// lesson)`, `param!(nested.field: Type, …)` keyed by the last name (`core.threshold` as
/// `threshold`), or `param!("key", nested.field: Type, …)` for another key
/// (`core.lifecycle.stockout` as `stockout_rounds`).
///
/// A field whose value follows from other flags' is set by the model's [`Model::derive`],
/// once per run after every flag's value, not by the flags' parsers.
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
            parse: |s| {
                param_axis::<_, $T>(s, $accepted, |p, v| p.$($f).+ = v)
            },
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

/// A metric computed from a run's parameters and metrics (`cost`: the metrics priced by
/// `--price`), after the model's [`Model::METRICS`] in rows; shown only where
/// [`Model::PRESENT`] says.
pub struct Derived<P, M> {
    /// The row key (`cost`).
    pub key: &'static str,
    /// Returns the value, as a row shows it.
    pub cell: fn(&P, &M) -> Cell,
}

/// A row key (a parameter's or a metric's) present only in the rows of runs that turn it
/// on: without its flag the rows, tables, CSV headers and JSON objects are what they were
/// before the key existed. A grid's runs all have it or all lack it
/// ([`check_present`]).
pub struct Present<P> {
    /// The row key (`price`, `cost`).
    pub key: &'static str,
    /// Whether a run's rows have the key.
    pub when: fn(&P) -> bool,
    /// The flag that turns it on, for errors (`--price`).
    pub needs: &'static str,
}

/// Whether rows of a run with `p` have `key` (every key but [`Model::PRESENT`]'s always).
pub fn shown<M: Model>(key: &str, p: &M::Params) -> bool {
    M::PRESENT
        .iter()
        .filter(|q| q.key == key)
        .all(|q| (q.when)(p))
}

/// Refuses a grid whose runs disagree on a [`Present`] key (`--price none,1:0.2:0.05`):
/// its rows would not share one header. Each axis's values are tried on the first run.
pub fn check_present<M: Model>(grid: &Grid<M>) -> Result<(), String> {
    let first = grid.params(0);
    for q in M::PRESENT {
        let on = (q.when)(&first);
        for a in 0..grid.axes() {
            let mut digits = vec![0; grid.axes()];
            for d in 1..grid.axis_len(a) {
                digits[a] = d;
                if (q.when)(&grid.params(grid.index(&digits))) != on {
                    return Err(format!(
                        "{}: a grid's runs all have a '{}' column or none do: give {} for every run or for none (no 'none' among its values)",
                        q.needs, q.key, q.needs
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Declares the metrics of the table's `Metrics`, in row order: `metrics![field, …]`, each a field
/// of that name shown as its [`Value`].
macro_rules! metrics {
    ($($field:ident),+ $(,)?) => {
        &[$(Metric {
            key: stringify!($field),
            cell: |m| Value::cell(&m.$field),
        }),+]
    };
}

/// Implements [`Model::run_window`] by `batch::batched_window`: the runs that share the
/// values of the `stream` flags go together, up to `lanes` a batch, each batch run by
/// `|grid, scratch, batch| run` (the thread's scratch, the batch's run indices).
macro_rules! batched_run_window {
    ($(#[$doc:meta])* stream: $stream:expr, lanes: $lanes:expr,
        |$grid:ident, $scratch:tt, $batch:ident| $run:expr) => {
        $(#[$doc])*
        fn run_window(
            $grid: &Grid<Self>,
            runs: std::ops::Range<u64>,
            ahead: &mut Ahead<Self::Metrics>,
            done: &(dyn Fn(u64) + Sync),
        ) -> Vec<Outcome<Self::Metrics>> {
            batched_window($grid, runs, ahead, done, $stream, $lanes, |$scratch, $batch| $run)
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
    /// The state of one round, as an observed run reports it (the core model's
    /// `RoundState`).
    type Round: capsim_core::Round;
    /// The parameters in flag order: the grid's axes, first outermost; the seed last, and
    /// its flag sets the seed only (a grid's runs of one combination differ in their seed
    /// alone: their rows are written from the first one's, [`Grid::set_seed`]).
    const PARAMS: &'static [Param<Self::Params>];
    /// The parameter after which rows show the seed (the seed is the innermost axis but,
    /// as the lessons' tables do, rows show it with the headline parameters).
    const SEED_AFTER: &'static str;
    /// The parameters the table always shows (swept ones join them).
    const HEADLINE: &'static [&'static str];
    /// The metrics a table shows without `--columns`: the lesson's own columns (a derived
    /// one only in rows that have it). `--columns all` shows every metric.
    const HEADLINE_METRICS: &'static [&'static str];
    /// The metrics, in contract order.
    const METRICS: &'static [Metric<Self::Metrics>];
    /// Metrics computed from parameters and metrics, after [`Model::METRICS`] in rows.
    const DERIVED: &'static [Derived<Self::Params, Self::Metrics>] = &[];
    /// The keys present only in some runs' rows, and when.
    const PRESENT: &'static [Present<Self::Params>] = &[];
    /// Returns fresh scratch storage.
    fn scratch() -> Self::Scratch;
    /// Runs one combination, handing `observer` every round (the core's observer contract).
    ///
    /// This is the model's one run path in the host: a grid's rows ([`Model::run`]), a
    /// trace, a plot and the playground's chart all run a combination through it, so a view
    /// shows the run its row describes, whatever the parameters (a formula included).
    /// `()` observes nothing and lets the core take its fast paths.
    fn run_observed<O: Observer<Self::Round>>(
        p: &Self::Params,
        scratch: &mut Self::Scratch,
        observer: &mut O,
    ) -> Outcome<Self::Metrics>;
    /// Runs one combination unobserved: [`Model::run_observed`] with `()`.
    fn run(p: &Self::Params, scratch: &mut Self::Scratch) -> Outcome<Self::Metrics> {
        Self::run_observed(p, scratch, &mut ())
    }
    /// Checks one combination's parameters (the core's `Params::validate`).
    const VALIDATE: fn(&Self::Params) -> Result<(), Error>;
    /// What each flag needs to act, one statement per flag or group of flags ([`Need`]):
    /// the one rule for flags that would be ignored ([`needs::check`]) is derived from it.
    /// A flag absent here acts in every run.
    const NEEDS: &'static [Need<Self::Params>] = &[];
    /// The parameters whose shown value may follow other flags' ([`Model::derive`]'s: a
    /// demand file's rounds): `capsim summary` reads neither the grid's order nor its swept
    /// columns from them. Default: none.
    const FOLLOWS: &'static [&'static str] = &[];
    /// Groups of flags that say one thing two ways (autoscale: `--launch-hook`, the one-hook
    /// shorthand, and `--launch-hooks`): given over a scenario's flags ([`Flags::over`]),
    /// one of a group replaces the scenario's whole group, however the file wrote it.
    const TOGETHER: &'static [&'static [&'static str]] = &[];
    /// The model's command (`consumers`), for messages.
    const NAME: &'static str;
    /// How many rounds a view of a run with `p` shows, when its parameters do not bound it
    /// (consumers: the rounds its metrics say, computed unobserved, the engine skipping
    /// empty stretches). Default: `None`, bounded by the parameters.
    fn view_rounds(p: &Self::Params) -> Option<u64> {
        let _ = p;
        None
    }
    /// Reads, once the grid is known and before any rule is applied, what the flags name
    /// (autoscale: each demand file once per distinct path, at most the rows its runs need).
    /// Default: nothing.
    fn prepare(grid: &Grid<Self>) -> Result<(), String> {
        let _ = grid;
        Ok(())
    }
    /// Sets, once per run after every flag's value, the fields that follow from which flags
    /// were given (`given(key)`: the flag `key` is on the command line): autoscale's rounds
    /// and day from a demand file, its policy from the policy flags. Default: nothing.
    fn derive(p: &mut Self::Params, given: &dyn Fn(&str) -> bool) {
        let _ = (p, given);
    }
    /// Checks what the flags' statements of need ([`Model::NEEDS`]) cannot: a grid's
    /// rows share one header ([`check_present`]); the error is one line. Default: nothing
    /// to check.
    fn check_grid(grid: &Grid<Self>) -> Result<(), String> {
        let _ = grid;
        Ok(())
    }
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

mod autoscale;
mod axis;
mod batch;
mod bulkhead;
mod columns;
mod consumers;
mod grid;
pub mod limits;
pub mod needs;

pub use autoscale::{
    timed_formula, timed_formula_path, Autoscale, AutoscaleParams, AutoscaleScratch, DemandFile,
    FormulaFile, FormulaScratch, HostGroup, LoadedDemand, LoadedFormula, PolicyName, Price,
    HOST_GROUP_SIZE, MAX_PRICE, MAX_SAMPLE_DELAY,
};
pub(crate) use axis::named_values;
pub use axis::{axis, param_axis, Axis, Parsed, Value, Values};
pub use bulkhead::Bulkhead;
pub use columns::*;
pub use consumers::{Consumers, ConsumersScratch};
pub use grid::{Flags, Grid};
pub use needs::{Need, Rule};

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;
    use crate::output::Key;
    use capsim_core::bulkhead::{Mode, Split};
    use capsim_core::{bulkhead, consumers};
    use clap::{Command, FromArgMatches};

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
        assert!(derived
            .contains(r#""arrival_rate":"none","outage":[],"buffer":"none","routing":"shared","#));
        assert!(derived.ends_with(
            "\"wrong_final_state\":0,\"throughput\":0.1,\"max_backlog\":0,\"dropped_events\":0,\"dropped_shipments\":0}\n"
        ));
        // With the flow options on, too.
        let flow = consumers::Params {
            flow: consumers::Flow {
                arrival_rate: Some(0.5),
                outage: Some(consumers::Outage {
                    start: 1000,
                    end: 2200,
                }),
                buffer: Some(300),
                routing: consumers::Routing::Keyed,
            },
            ..consumers::Params::default()
        };
        let (derived, from_row) = both_lines::<Consumers>(&flow, &m);
        assert_eq!(derived, from_row);
        assert!(derived.contains(
            r#""arrival_rate":0.5,"outage":[1000,2200],"buffer":300,"routing":"keyed","#
        ));

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

    pub(super) fn grid<M: Model>(args: &[&str]) -> Grid<M> {
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

    fn check_table<M: Model>() {
        let keys: Vec<&str> = M::PARAMS.iter().map(|p| p.key).collect();
        // The seed is the innermost axis, and its flag sets the seed only: a row of any
        // seed is the lesson's row but for the seed (a grid writes a combination's rows
        // from its first, `Grid::set_seed`).
        assert_eq!(keys.last(), Some(&"seed"));
        let seed = M::PARAMS.last().unwrap();
        let m = run_default::<M>();
        let lesson = row::<M>(&M::Params::default(), &m);
        for value in ["1", "2", "2147483646"] {
            let Parsed(axis) = (seed.parse)(value).unwrap();
            let mut p = M::Params::default();
            axis.set(&mut p, 0);
            let seeded = row::<M>(&p, &m);
            assert_eq!(seeded.len(), lesson.len());
            for ((k, a), (_, b)) in seeded.iter().zip(&lesson) {
                assert!(
                    k == "seed" || a == b,
                    "{k}: {a:?} != {b:?} with seed {value}"
                );
            }
            assert!(seeded.contains(&(Key::Borrowed("seed"), Cell::Int(value.parse().unwrap()))));
        }
        assert!(keys.contains(&M::SEED_AFTER));
        assert!(M::HEADLINE.iter().all(|k| keys.contains(k)));
        for p in M::PARAMS {
            // The documented lesson value is one the flag takes.
            let lesson = p.lesson_text();
            assert!((p.parse)(&lesson).is_ok(), "{}: {lesson}", p.key);
            assert!(p.help_line().contains(&lesson));
        }
        let row = row::<M>(&M::Params::default(), &run_default::<M>());
        let row_keys: Vec<&str> = row.iter().map(|(k, _)| k.as_ref()).collect();
        let results = M::PARAMS.iter().filter(|p| p.result.is_some()).count();
        // A lesson run's row lacks every key only some runs have (`price`, `cost`).
        let optional = M::PRESENT.len();
        assert_eq!(
            row_keys.len(),
            keys.len() + results + M::METRICS.len() + M::DERIVED.len() - optional
        );
        assert!(M::PRESENT.iter().all(|q| !row_keys.contains(&q.key)));
        assert_eq!(row_keys, row_keys_fn::<M>(Some(&M::Params::default())));
        // Every optional key is a parameter's or a derived metric's, and the key list of
        // any run is that of every run with the keys removed that it lacks.
        let all = row_keys_fn::<M>(None);
        for q in M::PRESENT {
            assert!(all.contains(&q.key), "{}", q.key);
        }
        let mut without = all.clone();
        without.retain(|k| !M::PRESENT.iter().any(|q| q.key == *k));
        assert_eq!(row_keys, without);
        let seed_at = row_keys.iter().position(|k| *k == M::SEED_AFTER).unwrap() + 1;
        assert_eq!(row_keys[seed_at], "seed");
    }

    use super::row_keys as row_keys_fn;

    fn run_default<M: Model>() -> M::Metrics {
        M::run(&M::Params::default(), &mut M::scratch()).unwrap()
    }

    /// With a price, the row has both keys, `price` after the options and `cost` last, and
    /// its keys are every key any run may have.
    #[test]
    fn a_price_brings_its_two_keys() {
        let g = grid::<Autoscale>(&["--price", "1:0.2:0.05", "--reclaim", "stop,release"]);
        let p = g.params(0);
        let m = run_default::<Autoscale>();
        let keys: Vec<String> = row::<Autoscale>(&p, &m)
            .iter()
            .map(|(k, _)| k.to_string())
            .collect();
        assert_eq!(keys, row_keys_fn::<Autoscale>(None));
        assert_eq!(keys, row_keys_fn::<Autoscale>(Some(&p)));
        assert_eq!(keys.last().map(String::as_str), Some("cost"));
        assert!(check_present(&g).is_ok());
        // A grid whose price axis has `none` among prices is refused, wherever the axis is.
        for args in [
            &["--price", "none,1:1:1"][..],
            &["--price", "1:1:1,none", "--seed", "1..=3"][..],
            &["--reclaim", "stop,release", "--price", "1:1:1,none"][..],
        ] {
            let cmd = <Flags<Autoscale> as clap::Args>::augment_args(Command::new("model"));
            let matches = cmd
                .try_get_matches_from([&["model"], args].concat())
                .unwrap();
            let err = Flags::<Autoscale>::from_arg_matches(&matches)
                .unwrap()
                .grid()
                .err()
                .unwrap_or_else(|| panic!("{args:?}"));
            assert!(err.starts_with("--price: "), "{err}");
        }
    }

    #[test]
    fn parameter_tables_are_whole() {
        check_table::<Autoscale>();
        check_table::<Consumers>();
        check_table::<Bulkhead>();
    }
}
