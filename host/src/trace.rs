//! `capsim trace`: one run, one row per round, in round order.
//!
//! The CSV rows come from the core's [`capsim_core::trace`] writer, the one a board with the
//! `trace` feature calls, so the host's CSV and the board's are the same bytes. JSON Lines
//! and the table are that CSV re-shaped (numbers stay numbers).

use std::fmt::Write as _;

use capsim_core::consumers::{LessonDraws, Workspace, MAX_SHIPMENTS};
use capsim_core::rng::ParkMiller;
use capsim_core::trace::{self, CsvTrace};
use capsim_core::{autoscale, bulkhead, consumers, Error, Observer};

use crate::models::{Autoscale, Bulkhead, Consumers, Flags, Grid, Model};
use crate::output::Format;

/// A model whose single runs can be watched round by round.
pub trait Traced: Model {
    /// Writes the CSV header of a run with `p` (with its newline).
    fn header(p: &Self::Params, out: &mut dyn std::fmt::Write) -> std::fmt::Result;
    /// Runs `p` once, handing `observer` every round (the observer contract).
    fn observe(p: &Self::Params, observer: &mut dyn ObserverDyn) -> Result<Self::Metrics, Error>;
    /// Whether a run with `p` has a split layout (bulkhead's per-pool columns).
    fn split(p: &Self::Params) -> bool {
        let _ = p;
        false
    }
}

/// [`Observer`] behind a `dyn`: the three per-round methods.
pub trait ObserverDyn {
    /// See [`Observer::group_round`].
    fn group(&mut self, s: &autoscale::RoundState);
    /// See [`Observer::consumers_round`].
    fn consumers(&mut self, s: &consumers::RoundState);
    /// See [`Observer::bulkhead_round`].
    fn bulkhead(&mut self, s: &bulkhead::RoundState);
}

impl<O: Observer> ObserverDyn for O {
    fn group(&mut self, s: &autoscale::RoundState) {
        self.group_round(s);
    }
    fn consumers(&mut self, s: &consumers::RoundState) {
        self.consumers_round(s);
    }
    fn bulkhead(&mut self, s: &bulkhead::RoundState) {
        self.bulkhead_round(s);
    }
}

/// Sends an engine's calls on to a `dyn` observer.
struct Forward<'a>(&'a mut dyn ObserverDyn);

impl Observer for Forward<'_> {
    fn group_round(&mut self, s: &autoscale::RoundState) {
        self.0.group(s);
    }
    fn consumers_round(&mut self, s: &consumers::RoundState) {
        self.0.consumers(s);
    }
    fn bulkhead_round(&mut self, s: &bulkhead::RoundState) {
        self.0.bulkhead(s);
    }
}

impl Traced for Autoscale {
    fn header(_: &Self::Params, out: &mut dyn std::fmt::Write) -> std::fmt::Result {
        trace::autoscale_header(out)
    }
    fn observe(p: &Self::Params, o: &mut dyn ObserverDyn) -> Result<Self::Metrics, Error> {
        crate::models::AutoscaleScratch::default().run_general(p, &mut Forward(o))
    }
}

impl Traced for Consumers {
    fn header(_: &Self::Params, out: &mut dyn std::fmt::Write) -> std::fmt::Result {
        trace::consumers_header(out)
    }
    fn observe(p: &Self::Params, o: &mut dyn ObserverDyn) -> Result<Self::Metrics, Error> {
        let mut ws = Box::new(Workspace::<MAX_SHIPMENTS>::new());
        consumers::run_with(p, LessonDraws::new(p), &mut ws, &mut Forward(o))
    }
}

impl Traced for Bulkhead {
    fn header(p: &Self::Params, out: &mut dyn std::fmt::Write) -> std::fmt::Result {
        trace::bulkhead_header(out, Self::split(p))
    }
    fn observe(p: &Self::Params, o: &mut dyn ObserverDyn) -> Result<Self::Metrics, Error> {
        bulkhead::run_with(p, &mut ParkMiller::new(p.seed), &mut Forward(o))
    }
    fn split(p: &Self::Params) -> bool {
        p.split != bulkhead::Split::Shared
    }
}

/// Returns the one run the flags describe, or a one-line error naming a flag given more
/// than one value.
pub fn single<M: Model>(flags: &Flags<M>) -> Result<M::Params, String> {
    let grid: Grid<M> = flags.grid()?;
    if let Some(key) = grid.swept.first() {
        return Err(format!(
            "a trace is one run: --{} has more than one value (give one)",
            key.replace('_', "-")
        ));
    }
    Ok(grid.params(0))
}

/// Runs `p` and returns its trace as CSV: a header, then one row per round. Also returns
/// the run's metrics (or the error that stopped it, after the rows so far).
pub fn csv<M: Traced>(p: &M::Params) -> (String, Result<M::Metrics, Error>) {
    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = M::header(p, &mut text);
    let mut t = CsvTrace::new(&mut text, M::split(p));
    let result = M::observe(p, &mut t);
    (text, result)
}

/// The most rows a table holds (it needs every row's width before its first line); CSV and
/// JSON stream any number.
pub const MAX_TABLE_ROWS: usize = 1_000_000;

/// Why a streamed trace stopped.
#[derive(Debug)]
pub enum Stop {
    /// The run's error, or a table longer than [`MAX_TABLE_ROWS`].
    Input(String),
    /// Writing the output failed.
    Io(std::io::Error),
}

/// Sends whole lines of what is written to `line`, keeping the first I/O error (later
/// writes are dropped: the run still ends, but writes nothing more).
struct Lines<F> {
    partial: String,
    line: F,
    error: Option<std::io::Error>,
}

impl<F: FnMut(&str) -> std::io::Result<()>> std::fmt::Write for Lines<F> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.error.is_some() {
            return Err(std::fmt::Error);
        }
        self.partial.push_str(s);
        while let Some(end) = self.partial.find('\n') {
            let rest = self.partial.split_off(end + 1);
            let done = std::mem::replace(&mut self.partial, rest);
            if let Err(e) = (self.line)(&done) {
                self.error = Some(e);
                return Err(std::fmt::Error);
            }
        }
        Ok(())
    }
}

/// Runs `p` and writes its trace to `out` in `format`, streaming CSV and JSON row by row (a
/// table is held whole: at most [`MAX_TABLE_ROWS`] rows). CSV rows are the core writer's.
pub fn write<M: Traced>(
    p: &M::Params,
    format: Format,
    out: &mut dyn std::io::Write,
) -> Result<(), Stop> {
    let mut keys: Vec<String> = Vec::new();
    let mut table: Vec<String> = Vec::new();
    let mut too_long = false;
    let sink = |line: &str| -> std::io::Result<()> {
        match format {
            Format::Csv => out.write_all(line.as_bytes()),
            Format::Json if keys.is_empty() => {
                keys = line.trim_end().split(',').map(str::to_string).collect();
                Ok(())
            }
            Format::Json => out.write_all(json_line(&keys, line.trim_end()).as_bytes()),
            Format::Table if table.len() > MAX_TABLE_ROWS => {
                too_long = true;
                Ok(())
            }
            Format::Table => {
                table.push(line.to_string());
                Ok(())
            }
        }
    };
    let mut lines = Lines {
        partial: String::new(),
        line: sink,
        error: None,
    };
    let _ = M::header(p, &mut lines);
    let mut t = CsvTrace::new(&mut lines, M::split(p));
    let result = M::observe(p, &mut t);
    if let Some(e) = lines.error {
        return Err(Stop::Io(e));
    }
    result.map_err(|e| Stop::Input(e.to_string()))?;
    if too_long {
        return Err(Stop::Input(format!(
            "a table holds at most {MAX_TABLE_ROWS} rows; this run has more (use --format csv or json)"
        )));
    }
    if format == Format::Table {
        out.write_all(reshape(&table.concat(), Format::Table).as_bytes())
            .map_err(Stop::Io)?;
    }
    Ok(())
}

/// One JSON Lines object: the columns in CSV order, each cell a number (JavaScript's NaN or
/// Infinity, never in these columns, would stay a string).
fn json_line(keys: &[String], line: &str) -> String {
    let mut out = String::with_capacity(line.len() * 3);
    out.push('{');
    for (i, (k, v)) in keys.iter().zip(line.split(',')).enumerate() {
        let value = match serde_json::from_str::<serde_json::Number>(v) {
            Ok(n) => n.to_string(),
            Err(_) => serde_json::Value::String(v.to_string()).to_string(),
        };
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(out, "{sep}\"{k}\":{value}");
    }
    out.push_str("}\n");
    out
}

/// Re-shapes a CSV trace into `format` (CSV as it is).
pub fn reshape(csv: &str, format: Format) -> String {
    let mut lines = csv.lines();
    let Some(header) = lines.next() else {
        return String::new();
    };
    let keys: Vec<&str> = header.split(',').collect();
    match format {
        Format::Csv => csv.to_string(),
        Format::Json => {
            let keys: Vec<String> = keys.iter().map(|k| (*k).to_string()).collect();
            lines.map(|l| json_line(&keys, l)).collect()
        }
        Format::Table => {
            let rows: Vec<Vec<&str>> = std::iter::once(keys.clone())
                .chain(lines.map(|l| l.split(',').collect()))
                .collect();
            let mut widths = vec![0; keys.len()];
            for row in &rows {
                for (w, cell) in widths.iter_mut().zip(row) {
                    *w = (*w).max(cell.len());
                }
            }
            let mut out = String::new();
            for row in &rows {
                let cells: Vec<String> = row
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:>w$}"))
                    .collect();
                let _ = writeln!(out, "{}", cells.join("  "));
            }
            out
        }
    }
}
