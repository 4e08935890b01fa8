//! Runs a model's grid and streams its rows: window by window, in grid order, in bounded
//! memory, with bytes that do not depend on the number of threads.

use std::io::{self, Write};

#[cfg(feature = "cli")]
use rayon::prelude::*;

use crate::models::{self, Ahead, Flags, Grid, Model};
use crate::output::{Format, Row, RowWriter};
use crate::summary::{self, Combination};

mod rows;

/// Runs per window: run in parallel, then written in grid order before the next window
/// starts. Also the rows that fix a table's column widths (see [`RowWriter`]).
pub const WINDOW: u64 = 4096;

/// How a grid's runs are shown and run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The output format.
    pub format: Format,
    /// One summary per parameter combination instead of one row per run.
    pub summary: bool,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// `--columns`: the metrics to show, comma-separated, in the order shown (`None`: every
    /// metric in contract order; `help`: list the metrics instead of running).
    pub columns: Option<String>,
    /// `--shard K/N`: only the K-th of N contiguous slices of the grid.
    pub shard: Option<Shard>,
}

impl Options {
    /// Returns the options of a plain sweep: every metric, every run.
    pub fn new(format: Format, summary: bool, threads: usize) -> Self {
        Self {
            format,
            summary,
            threads,
            columns: None,
            shard: None,
        }
    }
}

/// The most slices `--shard K/N` cuts a grid into: [`models::MAX_RUNS`], one run each.
pub const MAX_SHARDS: u64 = models::MAX_RUNS;

/// `--shard K/N`: the K-th (1 ≤ K ≤ N) of N contiguous slices of a grid's runs, in grid order.
///
/// Of a grid of `len` runs, shard K runs `len·(K−1)/N ..  len·K/N` (each bound rounded down,
/// the end excluded): the slices cover the grid once, in order, their sizes differ by one at
/// most, and a slice is empty when N exceeds the runs. So the outputs of shards 1..N, CSV or
/// JSON Lines, concatenated in order are the whole grid's bytes (CSV's header comes with
/// shard 1 only, even an empty one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which slice, from 1.
    pub k: u64,
    /// How many slices.
    pub n: u64,
}

impl Shard {
    /// Parses `K/N` (1 ≤ K ≤ N ≤ [`MAX_SHARDS`]); the error says what is accepted.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let accepted = || {
            format!("accepted values are K/N with 1 <= K <= N <= {MAX_SHARDS}, e.g. 3/8 (the third of eight slices)")
        };
        let (k, n) = s.split_once('/').ok_or_else(accepted)?;
        let number = |t: &str| {
            t.parse::<u64>()
                .ok()
                .filter(|_| t.bytes().all(|b| b.is_ascii_digit()))
        };
        match (number(k), number(n)) {
            (Some(k), Some(n)) if 1 <= k && k <= n && n <= MAX_SHARDS => Ok(Shard { k, n }),
            _ => Err(accepted()),
        }
    }

    /// Returns the runs of a grid of `len` runs that this shard runs.
    pub fn range(&self, len: u64) -> std::ops::Range<u64> {
        let bound = |k: u64| (u128::from(len) * u128::from(k) / u128::from(self.n)) as u64;
        bound(self.k - 1)..bound(self.k)
    }
}

/// Why a sweep stopped: bad input or a failed run (status 2), or a failed write.
#[derive(Debug)]
pub enum Failure {
    /// One line to report after `error: `.
    Input(String),
    /// A formula evaluation failed (status 1): one line to report after `error: `.
    Evaluation(String),
    /// Writing the output failed.
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// Told how a sweep progresses (a progress display); `()` ignores it.
pub trait Progress: Sync {
    /// The grid has `runs` runs (its parameters are checked; the first run starts).
    fn start(&self, runs: u64) {
        let _ = runs;
    }
    /// `runs` more runs are finished.
    fn done(&self, runs: u64) {
        let _ = runs;
    }
    /// Runs `write` (rows going to stdout) with the display out of its way.
    fn suspend<R>(&self, write: impl FnOnce() -> R) -> R {
        write()
    }
}

impl Progress for () {}

/// Runs `model`'s grid and writes its rows (or summaries) to `out`, flushing after each
/// window; `progress` is told of every run finished.
///
/// Parameter errors are found before any output, in the whole grid even with a shard (every
/// shard of a bad grid refuses it alike). A run that fails stops the sweep at the first
/// failing run in grid order, whatever the number of threads: the rows before it are
/// written, then the error names the run as the whole grid's sweep names it.
pub fn sweep<M: Model>(
    flags: &Flags<M>,
    options: &Options,
    out: &mut impl Write,
    progress: &impl Progress,
) -> Result<(), Failure> {
    let grid = flags.grid().map_err(Failure::Input)?;
    sweep_grid(grid, options, out, progress)
}

/// Runs `grid` as [`sweep`] does (the grid's size already checked).
pub fn sweep_grid<M: Model>(
    grid: Grid<M>,
    options: &Options,
    out: &mut impl Write,
    progress: &impl Progress,
) -> Result<(), Failure> {
    let first = grid.params(0);
    let shown = match options.columns.as_deref() {
        Some("help") => return Ok(out.write_all(columns_help::<M>(&first).as_bytes())?),
        list => Shown::of::<M>(list, &grid.swept, &first, options).map_err(Failure::Input)?,
    };
    let runs = match options.shard {
        None => 0..grid.len(),
        Some(_) if options.summary => {
            return Err(Failure::Input(
                "--shard cannot be used with --summary: a combination's seeds may fall in two shards (shard the rows with --format csv or json)".to_string(),
            ))
        }
        Some(_) if options.format == Format::Table => {
            return Err(Failure::Input(
                "--shard cannot be used with --format table: each shard would pick its own column widths (use --format csv or json)".to_string(),
            ))
        }
        Some(shard) => shard.range(grid.len()),
    };
    let grid = grid.stopping_at(runs.end);
    let grid = &grid;
    let pool = Pool::new(options.threads)?;
    let validate = |i| (M::VALIDATE)(&grid.params(i)).err();
    #[cfg(feature = "cli")]
    let invalid = pool.install(|| (0..grid.len()).into_par_iter().find_map_first(validate));
    #[cfg(not(feature = "cli"))]
    let invalid = pool.install(|| (0..grid.len()).find_map(validate));
    if let Some(e) = invalid {
        return Err(Failure::Input(e.to_string()));
    }
    let mut sink = Sink::<M>::new(grid, &shown, options);
    match options.shard {
        Some(shard) if shard.k > 1 => sink.writer.skip_header(),
        Some(_) if runs.is_empty() && options.format == Format::Csv => {
            let keys = match &shown.selection {
                Some(keys) => keys.clone(),
                None => models::row_keys::<M>(Some(&first)),
            };
            sink.writer.write_header(out, &keys)?;
        }
        _ => {}
    }
    let mut ahead = Ahead::new();
    let mut start = runs.start;
    progress.start(runs.end - runs.start);
    let done = &|runs| progress.done(runs);
    while start < runs.end {
        let end = start.saturating_add(WINDOW).min(runs.end);
        let outcomes = pool.install(|| M::run_window(grid, start..end, &mut ahead, done));
        let selection = shown.selection.as_deref();
        progress.suspend(|| write_window(grid, start, outcomes, &mut sink, selection, out))?;
        start = end;
    }
    out.flush()?;
    Ok(())
}

/// What a sweep's rows show, by `--columns` and the format.
///
/// - Without `--columns` (or with `all`), JSON and CSV rows are the whole record. A table
///   shows the model's headline parameters, the swept ones and the headline metrics
///   ([`Model::HEADLINE_METRICS`]); with `all`, every metric.
/// - `--columns LIST` names parameters and metrics (row keys): JSON and CSV rows hold the
///   swept parameters not named (in row order), then the named columns in the order named.
///   A table of rows also keeps the headline parameters: the parameters (headline, swept and
///   named, in row order), then the named metrics in the order named.
///
/// `--summary` summarizes the metrics shown, its rows keeping the parameters the JSON rows
/// hold (so `capsim summary` of the JSON rows of shards prints the same).
pub struct Shown {
    /// The row's keys in order (`None`: the whole record).
    pub selection: Option<Vec<&'static str>>,
    /// The metrics shown (and summarized), in order.
    pub metrics: Vec<&'static str>,
    /// The columns a table shows.
    pub table_keys: Vec<&'static str>,
}

impl Shown {
    /// Returns what rows of a grid sweeping `swept`, whose first run is `first`, show with
    /// `--columns list` (`None`: not given) in `options`' format.
    pub fn of<M: Model>(
        list: Option<&str>,
        swept: &[&'static str],
        first: &M::Params,
        options: &Options,
    ) -> Result<Self, String> {
        let metrics = models::metric_keys_for::<M>(first);
        let swept = models::swept_columns::<M>(swept);
        let table_params = || {
            let mut keys = models::table_keys::<M>(&[]);
            keys.retain(|k| !models::metric_keys::<M>().contains(k));
            for key in &swept {
                if !keys.contains(key) {
                    keys.push(key);
                }
            }
            keys
        };
        let Some(list) = list.filter(|l| *l != "all") else {
            let metrics: Vec<&'static str> = if list.is_none() && options.format == Format::Table {
                let headline = metrics.iter().filter(|k| M::HEADLINE_METRICS.contains(k));
                headline.copied().collect()
            } else {
                metrics
            };
            let mut table_keys = table_params();
            table_keys.extend(&metrics);
            return Ok(Self {
                selection: None,
                metrics,
                table_keys,
            });
        };
        let named = columns::<M>(list)?;
        let all_params = models::param_columns::<M>();
        if let Some(q) = M::PRESENT
            .iter()
            .find(|q| named.contains(&q.key) && !models::shown::<M>(q.key, first))
        {
            let what = if all_params.contains(&q.key) {
                "a parameter"
            } else {
                "a metric"
            };
            return Err(format!(
                "--columns: '{}' is {what} of runs with {} only",
                q.key, q.needs
            ));
        }
        let metrics: Vec<&'static str> = named
            .iter()
            .copied()
            .filter(|k| metrics.contains(k))
            .collect();
        if options.summary && metrics.is_empty() {
            return Err(format!(
                "--summary: --columns {list} names no metric to summarize (--columns help lists them)"
            ));
        }
        let keys: Vec<&'static str> = if options.format == Format::Table && !options.summary {
            // A table for people keeps the headline parameters too: the parameters (in row
            // order), then the named metrics in the order named.
            let table_params = table_params();
            let mut keys: Vec<&'static str> = models::row_keys::<M>(Some(first))
                .into_iter()
                .filter(|k| !metrics.contains(k))
                .filter(|k| table_params.contains(k) || named.contains(k))
                .collect();
            keys.extend(&metrics);
            keys
        } else {
            let mut keys: Vec<&'static str> =
                swept.into_iter().filter(|k| !named.contains(k)).collect();
            keys.extend(&named);
            keys
        };
        Ok(Self {
            table_keys: keys.clone(),
            selection: Some(keys),
            metrics,
        })
    }
}

/// Returns what `--columns help` prints for runs like `first`: the metrics (the table's
/// default ones marked), then the parameters, a name a line.
pub fn columns_help<M: Model>(first: &M::Params) -> String {
    let mut text = String::from(
        "metrics (* the table's columns without --columns; --columns all shows every one):\n",
    );
    // The metrics these runs' rows have (`cost` only with `--price`).
    for m in models::metric_keys_for::<M>(first) {
        let mark = if M::HEADLINE_METRICS.contains(&m) {
            " *"
        } else {
            ""
        };
        text.push_str(&format!("{m}{mark}\n"));
    }
    text.push_str("parameters (the swept ones are always shown):\n");
    for key in models::param_columns::<M>()
        .into_iter()
        .filter(|k| models::shown::<M>(k, first))
    {
        text.push_str(&format!("{key}\n"));
    }
    text
}

/// Resolves `--columns LIST` against `M`'s parameter columns and metrics: the keys in the
/// order listed, each once.
pub fn columns<M: Model>(list: &str) -> Result<Vec<&'static str>, String> {
    let mut known = models::param_columns::<M>();
    known.extend(models::metric_keys::<M>());
    let mut chosen: Vec<&'static str> = Vec::new();
    for name in list.split(',').map(str::trim) {
        let Some(&key) = known.iter().find(|k| **k == name) else {
            if name.is_empty() {
                return Err(format!("--columns: '{list}' has an empty item"));
            }
            if name == "all" || name == "help" {
                return Err(format!(
                    "--columns: '{name}' is given alone (--columns {name}), not in a list"
                ));
            }
            let hint = crate::list::closest(name, &known)
                .map(|k| format!("; did you mean {k}?"))
                .unwrap_or_default();
            return Err(format!(
                "--columns: '{name}' is not a metric or parameter{hint} (--columns help lists them)"
            ));
        };
        if chosen.contains(&key) {
            return Err(format!("--columns: '{key}' is listed twice"));
        }
        chosen.push(key);
    }
    Ok(chosen)
}

/// Returns the cells of `row` named by `keys`, in that order.
fn select(row: &Row, keys: &[&'static str]) -> Row {
    keys.iter()
        .filter_map(|&key| row.iter().find(|(k, _)| k == key).cloned())
        .collect()
}

/// Writes one window's rows (from run `start` on) and flushes them; the first failed run
/// ends the sweep, after the rows before it. Each row is built as it is written, so a
/// window holds its runs' metrics, not their rows.
fn write_window<M: Model>(
    grid: &Grid<M>,
    start: u64,
    outcomes: Vec<models::Outcome<M::Metrics>>,
    sink: &mut Sink<'_, M>,
    selection: Option<&[&'static str]>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let mut failed = None;
    // The grid's runs all show the same keys (`check_present`): the first run's plan.
    let plan = models::RowPlan::of::<M>(&grid.params(start));
    let mut row = Row::new();
    for (i, outcome) in (start..).zip(outcomes) {
        match outcome {
            Ok(m) if sink.grid_rows.is_some() => {
                if let Some(rows) = sink.grid_rows.as_mut() {
                    rows.write(grid, i, &m, &mut sink.writer, out)?;
                }
            }
            Ok(m) => {
                models::row_into::<M>(&mut row, &grid.params(i), &m, &plan);
                match selection {
                    Some(keys) => sink.push(out, &mut select(&row, keys))?,
                    None => sink.push(out, &mut row)?,
                }
            }
            Err(e) => {
                failed = Some(format!("run {}: {e}", grid.name(i)));
                break;
            }
        }
    }
    sink.writer.end_window(out)?;
    out.flush()?;
    failed.map_or(Ok(()), |e| Err(Failure::Input(e)))
}

/// The worker threads a sweep runs on: a rayon pool, or (without the `cli` feature, as in
/// the browser) the calling thread.
struct Pool {
    #[cfg(feature = "cli")]
    pool: rayon::ThreadPool,
}

impl Pool {
    fn new(threads: usize) -> Result<Self, Failure> {
        // WASI has no threads: the calling thread is the pool's one (as rayon's global pool
        // falls back there), so the CLI built for wasm32-wasip1 runs grids too.
        #[cfg(all(feature = "cli", target_os = "wasi"))]
        let builder = {
            let _ = threads;
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
        };
        #[cfg(all(feature = "cli", not(target_os = "wasi")))]
        let builder = rayon::ThreadPoolBuilder::new().num_threads(threads);
        #[cfg(feature = "cli")]
        return Ok(Self {
            pool: builder
                .build()
                .map_err(|e| Failure::Input(format!("--threads: {e}")))?,
        });
        #[cfg(not(feature = "cli"))]
        {
            let _ = threads;
            Ok(Self {})
        }
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        #[cfg(feature = "cli")]
        return self.pool.install(f);
        #[cfg(not(feature = "cli"))]
        f()
    }
}

/// Where rows go: straight to the writer, or into one combination's summary at a time.
struct Sink<'a, M: Model> {
    writer: RowWriter,
    /// Every row of a plain JSON or CSV sweep (every key, no summary): written straight
    /// from the runs.
    grid_rows: Option<rows::GridRows<M>>,
    summary: Option<Summary<'a>>,
    _model: std::marker::PhantomData<M>,
}

struct Summary<'a> {
    seeds: usize,
    metrics: &'a [&'static str],
    /// The table's parameter columns (a table shows one line per combination and metric).
    table_params: Option<Vec<&'static str>>,
    current: Option<Combination>,
}

impl<'a, M: Model> Sink<'a, M> {
    fn new(grid: &Grid<M>, shown: &'a Shown, options: &Options) -> Self {
        let (metrics, table_keys) = (&shown.metrics[..], &shown.table_keys[..]);
        if !options.summary {
            let plain = shown.selection.is_none() && options.format != Format::Table;
            return Self {
                writer: RowWriter::new(options.format, table_keys),
                grid_rows: plain
                    .then(|| rows::GridRows::new(grid, &grid.params(0), options.format)),
                summary: None,
                _model: std::marker::PhantomData,
            };
        }
        let (params, keys) = summary_keys(metrics, table_keys);
        let table = options.format == Format::Table;
        Self {
            // JSON and CSV show every key; only the table picks.
            writer: RowWriter::new(options.format, &keys),
            grid_rows: None,
            summary: Some(Summary {
                seeds: grid.seeds().max(1),
                metrics,
                table_params: table.then_some(params),
                current: None,
            }),
            _model: std::marker::PhantomData,
        }
    }

    /// Writes `row` or adds it to its combination; `row` is left with cells to refill.
    fn push(&mut self, out: &mut impl Write, row: &mut Row) -> io::Result<()> {
        let Some(s) = self.summary.as_mut() else {
            return self.writer.push_reusing(out, row);
        };
        match s.current.as_mut() {
            None => s.current = Some(Combination::new(row, s.metrics)),
            Some(c) => c.add(row, s.metrics),
        }
        if s.current.as_ref().map_or(0, Combination::runs) < s.seeds {
            return Ok(());
        }
        let Some(done) = s.current.take() else {
            return Ok(());
        };
        write_combination(
            &mut self.writer,
            out,
            done,
            s.metrics,
            s.table_params.as_deref(),
        )
    }
}

/// A summary's columns from a grid's table columns: the table's parameters (without the
/// seed and the metrics), and every key a summary writer is given (those, `seeds`,
/// `metric` and the statistics).
pub fn summary_keys(
    metrics: &[&'static str],
    table_keys: &[&'static str],
) -> (Vec<&'static str>, Vec<&'static str>) {
    let params: Vec<&'static str> = table_keys
        .iter()
        .copied()
        .filter(|k| *k != "seed" && !metrics.contains(k))
        .collect();
    let mut keys = params.clone();
    keys.extend(["seeds", "metric"]);
    keys.extend(summary::STATS);
    (params, keys)
}

/// Writes one finished combination as `--summary` shows it: its row (JSON, CSV), or with
/// `table_params` (a table) one line per metric.
pub fn write_combination(
    writer: &mut RowWriter,
    out: &mut impl Write,
    done: Combination,
    metrics: &[&'static str],
    table_params: Option<&[&'static str]>,
) -> io::Result<()> {
    let row = done.finish(metrics);
    match table_params {
        None => writer.push(out, row),
        Some(params) => {
            for line in summary::long_form(&[row], params, metrics) {
                writer.push(out, line)?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shards 1..N of every grid size cover its runs once, in order, each of ⌊len/N⌋ or
    /// ⌈len/N⌉ runs, checked by counting against the definition's arithmetic.
    #[test]
    fn shards_cover_the_grid_in_order() {
        for len in [1u64, 2, 3, 10, 97, 4096, 1_000_000] {
            for n in [1u64, 2, 3, 7, 8, 64, 1000, 1_000_000] {
                let mut next = 0;
                for k in 1..=n.min(5000) {
                    let r = Shard { k, n }.range(len);
                    assert_eq!(r.start, next, "{len} {k}/{n}");
                    let size = r.end - r.start;
                    assert!(size == len / n || size == len.div_ceil(n), "{len} {k}/{n}");
                    next = r.end;
                }
                if n <= 5000 {
                    assert_eq!(next, len, "{len} /{n}");
                }
                assert_eq!(Shard { k: n, n }.range(len).end, len);
            }
        }
        // 10 runs in 3: 0..3, 3..6, 6..10.
        let ranges: Vec<_> = (1..=3).map(|k| Shard { k, n: 3 }.range(10)).collect();
        assert_eq!(ranges, [0..3, 3..6, 6..10]);
    }

    #[test]
    fn shard_parsing_takes_k_over_n() {
        assert_eq!(Shard::parse("1/1"), Ok(Shard { k: 1, n: 1 }));
        assert_eq!(Shard::parse("3/8"), Ok(Shard { k: 3, n: 8 }));
        assert_eq!(
            Shard::parse("1000000/1000000"),
            Ok(Shard {
                k: 1_000_000,
                n: 1_000_000
            })
        );
        for bad in [
            "0/1",
            "2/1",
            "1/0",
            "1/1000001",
            "+1/2",
            "1/ 2",
            "1",
            "1/2/3",
            "a/b",
            "",
        ] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
