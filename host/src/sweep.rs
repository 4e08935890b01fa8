//! Runs a model's grid and streams its rows: window by window, in grid order, in bounded
//! memory, with bytes that do not depend on the number of threads.

use std::io::{self, Write};

#[cfg(feature = "cli")]
use rayon::prelude::*;

use crate::models::{self, Ahead, Flags, Grid, Model};
use crate::output::{Format, Row, RowWriter};
use crate::summary::{self, Combination};

/// Runs per window: run in parallel, then written in grid order before the next window
/// starts. Also the rows that fix a table's column widths (see [`RowWriter`]).
pub const WINDOW: u64 = 4096;

/// How a grid's runs are shown and run.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The output format.
    pub format: Format,
    /// One summary per parameter combination instead of one row per run.
    pub summary: bool,
    /// Worker threads (0: one per core).
    pub threads: usize,
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
/// Parameter errors are found before any output. A run that fails stops the sweep at the
/// first failing run in grid order, whatever the number of threads: the rows before it are
/// written, then the error names the run.
pub fn sweep<M: Model>(
    flags: &Flags<M>,
    options: &Options,
    out: &mut impl Write,
    progress: &impl Progress,
) -> Result<(), Failure> {
    let grid = flags.grid().map_err(Failure::Input)?;
    sweep_grid(&grid, options, out, progress)
}

/// Runs `grid` as [`sweep`] does (the grid's size already checked).
pub fn sweep_grid<M: Model>(
    grid: &Grid<M>,
    options: &Options,
    out: &mut impl Write,
    progress: &impl Progress,
) -> Result<(), Failure> {
    let pool = Pool::new(options.threads)?;
    let validate = |i| (M::VALIDATE)(&grid.params(i)).err();
    #[cfg(feature = "cli")]
    let invalid = pool.install(|| (0..grid.len()).into_par_iter().find_map_first(validate));
    #[cfg(not(feature = "cli"))]
    let invalid = pool.install(|| (0..grid.len()).find_map(validate));
    if let Some(e) = invalid {
        return Err(Failure::Input(e.to_string()));
    }
    let table_keys = models::table_keys::<M>(&grid.swept);
    let metrics = models::metric_keys::<M>();
    let mut sink = Sink::<M>::new(grid, &metrics, options, &table_keys);
    let mut ahead = Ahead::new();
    let mut start = 0;
    progress.start(grid.len());
    let done = &|runs| progress.done(runs);
    while start < grid.len() {
        let end = start.saturating_add(WINDOW).min(grid.len());
        let outcomes = pool.install(|| M::run_window(grid, start..end, &mut ahead, done));
        progress.suspend(|| write_window(grid, start, outcomes, &mut sink, out))?;
        start = end;
    }
    Ok(())
}

/// Writes one window's rows (from run `start` on) and flushes them; the first failed run
/// ends the sweep, after the rows before it. Each row is built as it is written, so a
/// window holds its runs' metrics, not their rows.
fn write_window<M: Model>(
    grid: &Grid<M>,
    start: u64,
    outcomes: Vec<models::Outcome<M::Metrics>>,
    sink: &mut Sink<'_, M>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let mut failed = None;
    for (i, outcome) in (start..).zip(outcomes) {
        match outcome {
            Ok(m) => sink.push(out, models::row::<M>(&grid.params(i), &m))?,
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
    fn new(
        grid: &Grid<M>,
        metrics: &'a [&'static str],
        options: &Options,
        table_keys: &[&'static str],
    ) -> Self {
        if !options.summary {
            return Self {
                writer: RowWriter::new(options.format, table_keys),
                summary: None,
                _model: std::marker::PhantomData,
            };
        }
        let params: Vec<&'static str> = table_keys
            .iter()
            .copied()
            .filter(|k| *k != "seed" && !metrics.contains(k))
            .collect();
        let mut keys = params.clone();
        keys.extend(["seeds", "metric"]);
        keys.extend(summary::STATS);
        let table = options.format == Format::Table;
        Self {
            // JSON and CSV show every key; only the table picks.
            writer: RowWriter::new(options.format, &keys),
            summary: Some(Summary {
                seeds: grid.seeds().max(1),
                metrics,
                table_params: table.then_some(params),
                current: None,
            }),
            _model: std::marker::PhantomData,
        }
    }

    fn push(&mut self, out: &mut impl Write, row: Row) -> io::Result<()> {
        let Some(s) = self.summary.as_mut() else {
            return self.writer.push(out, row);
        };
        match s.current.as_mut() {
            None => s.current = Some(Combination::new(&row, s.metrics)),
            Some(c) => c.add(&row, s.metrics),
        }
        if s.current.as_ref().map_or(0, Combination::runs) < s.seeds {
            return Ok(());
        }
        let Some(done) = s.current.take() else {
            return Ok(());
        };
        let row = done.finish(s.metrics);
        match &s.table_params {
            None => self.writer.push(out, row),
            Some(params) => {
                for line in summary::long_form(&[row], params, s.metrics) {
                    self.writer.push(out, line)?;
                }
                Ok(())
            }
        }
    }
}
