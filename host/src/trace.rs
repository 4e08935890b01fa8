//! `capsim trace`: one run, one row per round, in round order.
//!
//! The CSV rows come from the core's [`capsim_core::trace`] writer, the one a board with the
//! `trace` feature calls, so the host's CSV and the board's are the same bytes. JSON Lines
//! and the table are that CSV re-shaped (numbers stay numbers).

use std::fmt::Write as _;

use capsim_core::formula::AutoScaleRun;
use capsim_core::trace::{self, CsvRow, CsvTrace};
use capsim_core::{autoscale, bulkhead, Error, Observer};

use crate::models::{Autoscale, AutoscaleParams, Bulkhead, Consumers, Flags, Grid, Model};
use crate::output::Format;

/// A model whose single runs can be watched round by round: a trace writes its round states
/// as CSV rows ([`CsvRow`]).
pub trait Traced: Model<Round: CsvRow> {
    /// Writes the CSV header of a run with `p` (with its newline): its model's columns and
    /// the optional ones `p` has ([`Traced::columns`]).
    fn header(p: &Self::Params, out: &mut dyn std::fmt::Write) -> std::fmt::Result {
        Self::Round::header(out, Self::columns(p))
    }
    /// The optional columns of a run with `p`: [`Traced::split`], [`Traced::options`] and
    /// [`Traced::autoscale_columns`].
    fn columns(p: &Self::Params) -> trace::Columns {
        trace::Columns {
            split: Self::split(p),
            options: Self::options(p),
            autoscale: Self::autoscale_columns(p),
        }
    }
    /// Whether a run with `p` has its model's extra columns (bulkhead's per-pool columns in a
    /// split layout, consumers' arrivals, drops and backlog with a flow option).
    fn split(p: &Self::Params) -> bool {
        let _ = p;
        false
    }
    /// Whether a run with `p` has options with columns of their own (bulkhead's breaker and
    /// retries columns).
    fn options(p: &Self::Params) -> bool {
        let _ = p;
        false
    }
    /// An autoscale run's optional column groups (none for the other models).
    fn autoscale_columns(p: &Self::Params) -> trace::AutoscaleColumns {
        let _ = p;
        trace::AutoscaleColumns::default()
    }
}

/// The most rounds a view of one run shows (a trace's rows, a chart's rounds): the
/// bulkhead's longest horizon, the longest run another model's parameters allow.
pub const MAX_VIEW_ROUNDS: u64 = 100_000_000;

/// Refuses, in one line, a run too long to view round by round: a view writes or draws every
/// round, the ones an event-driven engine skips included, so a consumers run with an outage
/// of four billion rounds (`--arrival-rate 0.25 --outage 1000..4294967295`, its metrics
/// computed at once) would take hours. The run's length is its parameters' or, for
/// consumers, its metrics' ([`Model::view_rounds`]).
pub fn check_view<M: Model>(p: &M::Params) -> Result<(), String> {
    match M::view_rounds(p) {
        Some(n) if n > MAX_VIEW_ROUNDS => Err(format!(
            "this run lasts {n} rounds: a view shows every round, at most {MAX_VIEW_ROUNDS} (its metrics: capsim {} without trace or plot)",
            M::NAME
        )),
        _ => Ok(()),
    }
}

/// Runs `p` once through the model's one run path ([`Model::run_observed`], what a grid's row
/// runs), handing `observer` every round: every view of a run (a trace, a plot, the
/// playground's chart) is this run.
pub fn observe<M: Model>(
    p: &M::Params,
    observer: &mut impl Observer<M::Round>,
) -> Result<M::Metrics, Error> {
    M::run_observed(p, &mut M::scratch(), observer)
}

impl Traced for Autoscale {
    /// The spot class's and the warm pool's columns (`spot`, `preempted`, `warm`) with one
    /// of them; a formula run's evaluation columns ([`trace::AUTOSCALE_FORMULA_COLUMNS`]);
    /// a run with scenario hooks or timed actions theirs
    /// ([`trace::AUTOSCALE_SCENARIO_COLUMNS`]); a run driven by the Kubernetes HPA its
    /// syncs ([`trace::AUTOSCALE_HPA_COLUMNS`]); any other run's rows are the lesson's.
    fn autoscale_columns(p: &Self::Params) -> trace::AutoscaleColumns {
        let l = &p.core.lifecycle;
        trace::AutoscaleColumns {
            spot: l.spot.enabled() || l.warm_pool.size > 0,
            formula: p.formula.0.is_some(),
            scenario: !l.launch_hooks.is_empty()
                || !l.terminate_hooks.is_empty()
                || !l.at.is_empty(),
            hpa: p.formula.0.is_none() && matches!(l.policy, autoscale::Policy::Hpa(_)),
        }
    }
}

impl Traced for Consumers {
    fn split(p: &Self::Params) -> bool {
        p.flow != capsim_core::consumers::Flow::default()
    }
}

impl Traced for Bulkhead {
    fn split(p: &Self::Params) -> bool {
        p.split != bulkhead::Split::Shared
    }
    fn options(p: &Self::Params) -> bool {
        p.resilience != bulkhead::Resilience::default()
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
    let mut t = CsvTrace::with_columns(&mut text, M::columns(p));
    let result = observe::<M>(p, &mut t);
    (text, result)
}

/// The rows a table holds before its first line: their widths (and the header's) fix the
/// columns' (a grid's window of runs, [`crate::sweep::WINDOW`]); a later cell wider than its
/// column widens its own line only. CSV and JSON stream every row as it comes.
pub const TABLE_WINDOW: usize = crate::sweep::WINDOW as usize;

/// Why a streamed trace stopped.
#[derive(Debug)]
pub enum Stop {
    /// The run's error.
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

/// Runs `p` and writes its trace to `out` in `format`, row by row as the run goes: CSV rows
/// are the core writer's, JSON Lines carry their numbers as the CSV writes them, and a table
/// fixes its widths from the header and the first [`TABLE_WINDOW`] rows, so any number of
/// rounds is written in bounded memory.
pub fn write<M: Traced>(
    p: &M::Params,
    format: Format,
    out: &mut dyn std::io::Write,
) -> Result<(), Stop> {
    write_columns::<M>(p, format, None, out)
}

/// Returns the trace columns of a run with `p`, in order (its CSV header's).
pub fn column_keys<M: Traced>(p: &M::Params) -> Vec<String> {
    let mut header = String::new();
    // Writing into a String cannot fail.
    let _ = M::header(p, &mut header);
    header.trim_end().split(',').map(str::to_string).collect()
}

/// Resolves `--columns LIST` against a trace's `keys`: the indices of the keys listed, in
/// the order listed, each once (`help` is the caller's).
pub fn pick_columns(keys: &[String], list: &str) -> Result<Vec<usize>, String> {
    let mut picked: Vec<usize> = Vec::new();
    for name in list.split(',').map(str::trim) {
        let Some(at) = keys.iter().position(|k| k == name) else {
            if name.is_empty() {
                return Err(format!("--columns: '{list}' has an empty item"));
            }
            let known: Vec<&str> = keys.iter().map(String::as_str).collect();
            let hint = crate::list::closest(name, &known)
                .map(|k| format!("; did you mean {k}?"))
                .unwrap_or_default();
            return Err(format!(
                "--columns: '{name}' is not a column of this trace{hint} (--columns help lists them)"
            ));
        };
        if picked.contains(&at) {
            return Err(format!("--columns: '{name}' is listed twice"));
        }
        picked.push(at);
    }
    Ok(picked)
}

/// [`write()`] with only the columns `--columns LIST` names, in its order (`None`: every
/// column; `help`: the run's columns, a name a line, instead of the run).
pub fn write_columns<M: Traced>(
    p: &M::Params,
    format: Format,
    columns: Option<&str>,
    out: &mut dyn std::io::Write,
) -> Result<(), Stop> {
    let picked = match columns {
        None => None,
        Some("help") => {
            let text: String = column_keys::<M>(p)
                .iter()
                .map(|k| format!("{k}\n"))
                .collect();
            return out.write_all(text.as_bytes()).map_err(Stop::Io);
        }
        Some(list) => Some(pick_columns(&column_keys::<M>(p), list).map_err(Stop::Input)?),
    };
    check_view::<M>(p).map_err(Stop::Input)?;
    let mut keys: Vec<String> = Vec::new();
    let mut table = Table::default();
    let mut picked_line = String::new();
    let result;
    {
        let sink = |line: &str| -> std::io::Result<()> {
            let line = match &picked {
                None => line,
                Some(at) => {
                    let cells: Vec<&str> = line.trim_end().split(',').collect();
                    picked_line.clear();
                    for (n, &i) in at.iter().enumerate() {
                        if n > 0 {
                            picked_line.push(',');
                        }
                        picked_line.push_str(cells.get(i).copied().unwrap_or(""));
                    }
                    picked_line.push('\n');
                    &picked_line
                }
            };
            match format {
                Format::Csv => out.write_all(line.as_bytes()),
                Format::Json if keys.is_empty() => {
                    keys = line.trim_end().split(',').map(str::to_string).collect();
                    Ok(())
                }
                Format::Json => out.write_all(json_line(&keys, line.trim_end()).as_bytes()),
                Format::Table => table.push(line.trim_end(), out),
            }
        };
        let mut lines = Lines {
            partial: String::new(),
            line: sink,
            error: None,
        };
        let _ = M::header(p, &mut lines);
        let mut t = CsvTrace::with_columns(&mut lines, M::columns(p));
        result = observe::<M>(p, &mut t);
        if let Some(e) = lines.error {
            return Err(Stop::Io(e));
        }
    }
    result.map_err(|e| Stop::Input(e.to_string()))?;
    if format == Format::Table {
        table.finish(out).map_err(Stop::Io)?;
    }
    Ok(())
}

/// A table written as its rows come: the header and the first [`TABLE_WINDOW`] rows are
/// held until their widths fix the columns', then written; every later row is written at
/// once, padded to those widths.
#[derive(Default)]
struct Table {
    /// The header and the rows held so far (CSV lines without their newline).
    held: Vec<String>,
    /// The columns' widths, once fixed.
    widths: Option<Vec<usize>>,
}

impl Table {
    fn push(&mut self, line: &str, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        // Numbers with a fraction rounded for reading (CSV and JSON keep every digit).
        let cells: Vec<std::borrow::Cow<'_, str>> =
            line.split(',').map(crate::output::readable_text).collect();
        let line = cells.join(",");
        if let Some(widths) = &self.widths {
            return out.write_all(table_line(&line, widths).as_bytes());
        }
        self.held.push(line);
        if self.held.len() > TABLE_WINDOW {
            self.finish(out)?;
        }
        Ok(())
    }

    /// Fixes the widths from the rows held (if not yet fixed) and writes those rows.
    fn finish(&mut self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        if self.widths.is_some() {
            return Ok(());
        }
        let mut widths: Vec<usize> = Vec::new();
        for line in &self.held {
            for (i, cell) in line.split(',').enumerate() {
                if i == widths.len() {
                    widths.push(0);
                }
                widths[i] = widths[i].max(cell.len());
            }
        }
        let mut text = String::new();
        for line in std::mem::take(&mut self.held) {
            text.push_str(&table_line(&line, &widths));
        }
        self.widths = Some(widths);
        out.write_all(text.as_bytes())
    }
}

/// One table line: each CSV cell right-aligned to its column's width, two spaces apart.
fn table_line(line: &str, widths: &[usize]) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    for (i, cell) in line.split(',').enumerate() {
        if i > 0 {
            out.push_str("  ");
        }
        let w = widths.get(i).copied().unwrap_or(0);
        let _ = write!(out, "{cell:>w$}");
    }
    out.push('\n');
    out
}

/// One JSON Lines object: the columns in CSV order, each cell the CSV's own text when it is
/// a JSON number (JavaScript's shortest round-trip text is one), so JSON and CSV carry the
/// same numbers digit for digit; anything else (JavaScript's NaN or Infinity, never in these
/// columns) a string.
fn json_line(keys: &[String], line: &str) -> String {
    let mut out = String::with_capacity(line.len() * 3);
    out.push('{');
    for (i, (k, v)) in keys.iter().zip(line.split(',')).enumerate() {
        let value = if is_json_number(v) {
            v.to_string()
        } else {
            serde_json::Value::String(v.to_string()).to_string()
        };
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(out, "{sep}\"{k}\":{value}");
    }
    out.push_str("}\n");
    out
}

/// Returns whether `s` is a number as JSON spells one: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// One evaluation as a JSON Lines object, the fields of Batch's `AutoScaleRun`:
/// `{"round":R,"timestamp":"…Z","results":"$TargetDedicatedNodes=…;…","error":null}`, the
/// error (when it failed) as the evaluator writes it, `line L, col C: message`.
pub fn evaluation_line(run: &AutoScaleRun<'_>) -> String {
    let text = |s: String| serde_json::Value::String(s).to_string();
    let timestamp = run
        .timestamp
        .map_or_else(|| "null".to_string(), |t| text(t.to_string()));
    let error = match (&run.error, run.failed) {
        (Some(e), _) => text(e.to_string()),
        (None, true) => text("the evaluation time is past 9999-12-31".to_string()),
        (None, false) => "null".to_string(),
    };
    format!(
        "{{\"round\":{},\"timestamp\":{timestamp},\"results\":{},\"error\":{error}}}\n",
        run.round,
        text(run.results.to_string())
    )
}

/// Writes each evaluation as it comes ([`evaluation_line`]), keeping the first I/O error.
struct Evaluations<'a> {
    out: &'a mut dyn std::io::Write,
    error: Option<std::io::Error>,
}

impl Observer<autoscale::RoundState> for Evaluations<'_> {
    fn note(&mut self, run: &AutoScaleRun<'_>) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(evaluation_line(run).as_bytes()) {
                self.error = Some(e);
            }
        }
    }
}

/// The warnings of the formulas `flags` give ([`crate::formula::warnings`]), each formula
/// once, in list order: what the autoscale commands write to stderr before anything else.
pub fn formula_warnings(flags: &Flags<Autoscale>) -> Vec<String> {
    let Ok(grid) = flags.only("formula").grid() else {
        return Vec::new();
    };
    let Some(axis) = grid.axis_of("formula") else {
        return Vec::new();
    };
    let mut paths: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for j in 0..grid.axis_len(axis) {
        let p = grid.set_on(AutoscaleParams::default(), axis, j);
        if let Some(f) = &p.formula.0 {
            if !paths.contains(&f.path) {
                paths.push(f.path.clone());
                out.extend(crate::formula::warnings(
                    std::path::Path::new(&f.path),
                    &f.program,
                ));
            }
        }
    }
    out
}

/// Runs `p` (a formula run: without a formula there are no evaluations, and this says so)
/// and writes one JSON Lines object per evaluation ([`evaluation_line`]) as the run goes:
/// the same run as its trace and its metrics row.
pub fn write_evaluations(p: &AutoscaleParams, out: &mut dyn std::io::Write) -> Result<(), Stop> {
    if p.formula.0.is_none() {
        return Err(Stop::Input(
            "--evaluations: needs --formula FILE (the lesson's policy evaluates no formula)"
                .to_string(),
        ));
    }
    let mut e = Evaluations { out, error: None };
    let result = observe::<Autoscale>(p, &mut e);
    if let Some(err) = e.error {
        return Err(Stop::Io(err));
    }
    result.map(|_| ()).map_err(|e| Stop::Input(e.to_string()))
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
            let mut table = Table::default();
            let mut out = Vec::new();
            // Writing into a Vec cannot fail.
            let _ = table.push(header, &mut out);
            for line in lines {
                let _ = table.push(line, &mut out);
            }
            let _ = table.finish(&mut out);
            String::from_utf8(out).unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_json_number;

    #[test]
    fn json_numbers_are_recognised_as_json_spells_them() {
        for yes in [
            "0",
            "-0",
            "7",
            "919.8876633723187",
            "1e+21",
            "5e-324",
            "-1.5E3",
            "120",
        ] {
            assert!(is_json_number(yes), "{yes}");
        }
        for no in [
            "",
            "-",
            "NaN",
            "Infinity",
            "-Infinity",
            "01",
            "1.",
            ".5",
            "1e",
            "1e+",
            "+1",
            "0x1",
            "1 ",
        ] {
            assert!(!is_json_number(no), "{no}");
        }
    }
}
