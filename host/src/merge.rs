//! `capsim summary FILE…`: the `--summary` of a grid from the rows its shards printed.
//!
//! The inputs are the JSON Lines of `capsim MODEL … --format json --shard K/N`, given in
//! shard order (or the whole grid's, in one file): read in order they are the grid's rows,
//! run by run, and this module aggregates them as `--summary` does while it runs the grid,
//! so `capsim summary` of shards 1..N prints the bytes `--summary` of the whole grid prints
//! (table, JSON or CSV).
//!
//! What the rows carry is enough: the model is the one whose row keys they have; the
//! metrics are the row's (all of them, or those `--columns` chose, in its order); a
//! combination is a run of consecutive rows with the same parameters but the seed (the
//! seed is the grid's innermost list), and every combination must have the first one's
//! seeds, in order, or a shard is missing or out of order (one line names the file and
//! line). A table's extra columns are the parameters whose values differ between rows (the
//! swept flags), which takes a first pass over the rows: a table needs files, not `-`.
//! Limits: a row (line) is at most [`MAX_LINE`] bytes, a file at most [`MAX_FILE_BYTES`],
//! all of them together at most [`crate::models::MAX_RUNS`] rows, a grid's most runs.
//!
//! Not recovered from rows: a grid whose list repeats a value (`--threshold 2,2`, `--seed
//! 1,1`) has combinations that rows cannot tell apart; such a grid's summary may differ.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::Path;

use crate::input::{self, BoundedLines};
use crate::models::{self, Autoscale, Bulkhead, Consumers, Model, MAX_RUNS};
use crate::output::{Cell, Format, Key, Row, RowWriter};
use crate::summary::Combination;
use crate::sweep::{self, Failure, WINDOW};

/// The longest row (line) read, in bytes (a row of every metric is under 4 KB).
pub const MAX_LINE: usize = 1 << 20;
/// The most bytes read from one input (a million rows of 4 KB).
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// `capsim summary FILE…`: reads the rows of `files` in order (`-`: standard input, at
/// most once) and writes their summary in `format` to `out`.
pub fn merge(files: &[String], format: Format, out: &mut impl Write) -> Result<(), Failure> {
    if files.iter().filter(|f| *f == "-").count() > 1 {
        return Err(Failure::Input(
            "summary: - (standard input) is given more than once".to_string(),
        ));
    }
    if format == Format::Table && files.iter().any(|f| f == "-") {
        return Err(Failure::Input(
            "summary: a table's columns take a first pass over the rows, so it reads files, not - (use --format json or csv with -)".to_string(),
        ));
    }
    let mut rows = Rows::open(files)?;
    let Some((first, _)) = rows.next()? else {
        return Err(Failure::Input(format!(
            "summary: {}: no rows (give the JSON Lines of capsim MODEL --format json)",
            files.join(" ")
        )));
    };
    let keys: Vec<&str> = first.iter().map(|(k, _)| k.as_ref()).collect();
    let name = rows.names.first().cloned().unwrap_or_default();
    if fits::<Autoscale>(&keys) {
        merge_as::<Autoscale>(files, first, rows, format, out)
    } else if fits::<Consumers>(&keys) {
        merge_as::<Consumers>(files, first, rows, format, out)
    } else if fits::<Bulkhead>(&keys) {
        merge_as::<Bulkhead>(files, first, rows, format, out)
    } else if [
        columns_of::<Autoscale>(),
        columns_of::<Consumers>(),
        columns_of::<Bulkhead>(),
    ]
    .iter()
    .any(|(params, _)| keys.iter().all(|k| params.contains(k)))
    {
        Err(Failure::Input(format!(
            "summary: {name}: line 1: the rows hold no metric to summarize, only parameters (print them with --columns naming a metric)"
        )))
    } else {
        Err(Failure::Input(format!(
            "summary: {name}: line 1: not a row of capsim autoscale, consumers or bulkhead --format json (its keys are none of theirs)"
        )))
    }
}

/// Returns `M`'s parameter columns and its metrics: the keys its rows may hold.
fn columns_of<M: Model>() -> (Vec<&'static str>, Vec<&'static str>) {
    (models::param_columns::<M>(), models::metric_keys::<M>())
}

/// Whether a row with `keys` is `M`'s: each key one of its parameter columns or metrics,
/// each once, at least one a metric (the whole record, or what `--columns` chose).
fn fits<M: Model>(keys: &[&str]) -> bool {
    let (params, metrics) = columns_of::<M>();
    keys.iter().any(|k| metrics.contains(k))
        && keys
            .iter()
            .enumerate()
            .all(|(i, k)| (params.contains(k) || metrics.contains(k)) && !keys[..i].contains(k))
}

/// Whether a row with `keys` of `M`'s is its whole record: every parameter column (the
/// optional ones aside), as rows without `--columns` hold them.
fn whole_record<M: Model>(keys: &[&str]) -> bool {
    models::param_columns::<M>()
        .iter()
        .filter(|k| !M::PRESENT.iter().any(|q| q.key == **k))
        .all(|k| keys.contains(k))
}

/// The inputs' rows, in order, with where each came from.
struct Rows {
    names: Vec<String>,
    inputs: Vec<Option<BoundedLines<Box<dyn Read>>>>,
    at: usize,
    count: u64,
}

impl Rows {
    /// Opens every input first, so a missing one is reported before anything is written.
    fn open(files: &[String]) -> Result<Self, Failure> {
        let mut inputs = Vec::with_capacity(files.len());
        for f in files {
            let reader = input::open(Path::new(f), MAX_FILE_BYTES)
                .map_err(|e| Failure::Input(format!("summary: {e}")))?;
            inputs.push(Some(BoundedLines::new(reader, MAX_FILE_BYTES, MAX_LINE)));
        }
        Ok(Self {
            names: files
                .iter()
                .map(|f| input::display_name(Path::new(f)))
                .collect(),
            inputs,
            at: 0,
            count: 0,
        })
    }

    /// Returns the next row and where it is (`FILE: line N`), skipping blank lines.
    fn next(&mut self) -> Result<Option<(Row, String)>, Failure> {
        while self.at < self.inputs.len() {
            let name = &self.names[self.at];
            let fail = |what: String| Failure::Input(format!("summary: {name}: {what}"));
            let Some(lines) = self.inputs[self.at].as_mut() else {
                self.at += 1;
                continue;
            };
            match lines.next_line().map_err(|e| fail(e.to_string()))? {
                None => {
                    self.inputs[self.at] = None;
                    self.at += 1;
                }
                Some((_, text)) if text.trim().is_empty() => {}
                Some((number, text)) => {
                    self.count += 1;
                    if self.count > MAX_RUNS {
                        return Err(fail(format!(
                            "line {number}: more than {MAX_RUNS} rows in all (a grid's most runs)"
                        )));
                    }
                    let row = parse_row(text).map_err(|e| fail(format!("line {number}: {e}")))?;
                    return Ok(Some((row, format!("{name}: line {number}"))));
                }
            }
        }
        Ok(None)
    }
}

/// Aggregates `M`'s rows (`first`, then the rest of `rows`) as `--summary` does.
fn merge_as<M: Model>(
    files: &[String],
    first: Row,
    mut rows: Rows,
    format: Format,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let all_metrics = models::metric_keys::<M>();
    let row_keys: Vec<&str> = first.iter().map(|(k, _)| k.as_ref()).collect();
    let whole = whole_record::<M>(&row_keys);
    // The row's metrics, as the model's own keys, in the row's order; a table of whole
    // records summarizes the headline ones, as `--summary`'s table does.
    let metrics: Vec<&'static str> = first
        .iter()
        .filter_map(|(k, _)| all_metrics.iter().find(|m| **m == k.as_ref()).copied())
        .filter(|m| !(whole && format == Format::Table) || M::HEADLINE_METRICS.contains(m))
        .collect();
    let table_keys = match format {
        // Whole records: the headline parameters and the swept ones, as a sweep's table.
        Format::Table if whole => {
            let swept = swept::<M>(&first, Rows::open(files)?, files)?;
            let mut keys = models::table_keys::<M>(&swept);
            keys.retain(|k| !all_metrics.contains(k));
            keys.extend(&metrics);
            keys
        }
        // What `--columns` chose: every column the rows hold.
        Format::Table => {
            let (params, _) = columns_of::<M>();
            let mut keys: Vec<&'static str> = params
                .into_iter()
                .filter(|k| row_keys.contains(k))
                .collect();
            keys.extend(&metrics);
            keys
        }
        _ => Vec::new(),
    };
    let (params, keys) = sweep::summary_keys(&metrics, &table_keys);
    let table_params = (format == Format::Table).then_some(&params[..]);
    let mut writer = RowWriter::new(format, &keys);
    let key_list: Vec<Key> = first.iter().map(|(k, _)| k.clone()).collect();

    let defaults = M::Params::default();
    let flags: Vec<(&str, Cell)> = M::PARAMS
        .iter()
        .filter(|p| !M::FOLLOWS.contains(&p.key))
        .map(|p| {
            let cell = match (p.cell)(&defaults) {
                Cell::Word(w) => Cell::Text(w.to_string()),
                c => c,
            };
            (p.key, cell)
        })
        .collect();
    let mut merge = Merge::new(&metrics, all_metrics.clone(), flags);
    let mut read: u64 = 0;
    let mut next = Some((first, String::from("line 1")));
    while let Some((row, at)) = next.take() {
        if row.len() != key_list.len() || row.iter().zip(&key_list).any(|((k, _), w)| k != w) {
            return Err(Failure::Input(format!(
                "summary: {at}: its keys are not the first row's (give the rows of one grid)"
            )));
        }
        for done in merge.add(row, at)? {
            sweep::write_combination(&mut writer, out, done, &metrics, table_params)?;
        }
        read += 1;
        if read.is_multiple_of(WINDOW) {
            writer.end_window(out)?;
        }
        next = rows.next()?;
    }
    for done in merge.end()? {
        sweep::write_combination(&mut writer, out, done, &metrics, table_params)?;
    }
    writer.end_window(out)?;
    out.flush()?;
    Ok(())
}

/// One combination being read: its parameters, its aggregate, its seeds so far and where
/// its first row is.
struct Open {
    params: Row,
    combination: Combination,
    seeds: Vec<Cell>,
    at: String,
}

/// The rows of a grid, read in order, cut into combinations, each given out only once it is
/// known to be whole: every combination has the seeds of a combination bounded on both
/// sides by others (the second, once a third begins), so the first waits for that, and the
/// combinations' parameters step through a grid's product in grid order ([`Radix`]). A
/// shard missing at the start, in the middle or at the end, or given twice, is then one
/// line, and no combination is given out that is not known to be whole. A grid of two
/// combinations has no bounded one: they must have the same seeds; one alone cannot be
/// checked (its rows read as a grid of fewer seeds).
struct Merge<'m> {
    /// The metrics summarized, and every metric of the model (no parameter of a combination).
    metrics: &'m [&'static str],
    all_metrics: Vec<&'static str>,
    /// The seeds of every combination, once known.
    seeds: Option<Vec<Cell>>,
    /// Finished combinations waiting for the seeds to be known (two at most).
    waiting: Vec<Open>,
    current: Option<Open>,
    radix: Radix,
}

impl<'m> Merge<'m> {
    /// A merge of rows summarizing `metrics` (of the model's `all_metrics`), of a model whose flags' keys and default cells are
    /// `flags` (those whose shown value follows other flags left out).
    fn new(
        metrics: &'m [&'static str],
        all_metrics: Vec<&'static str>,
        flags: Vec<(&'static str, Cell)>,
    ) -> Self {
        Self {
            metrics,
            all_metrics,
            seeds: None,
            waiting: Vec::new(),
            current: None,
            radix: Radix {
                flags,
                ..Radix::default()
            },
        }
    }

    /// Takes the next row (found `at`); returns the combinations now known to be whole.
    fn add(&mut self, row: Row, at: String) -> Result<Vec<Combination>, Failure> {
        let seed = seed_of(&row);
        let params = combination_params(&row, &self.all_metrics);
        let continues = self.current.as_ref().is_some_and(|c| {
            c.params == params
                && match &self.seeds {
                    Some(s) => c.seeds.len() < s.len(),
                    None => !c.seeds.contains(&seed),
                }
        });
        if !continues {
            let out = match self.current.take() {
                Some(done) => self.finish(done, Some(&at))?,
                None => Vec::new(),
            };
            self.radix.step(&params, &at)?;
            if let Some(s) = &self.seeds {
                if s.first() != Some(&seed) {
                    return Err(order_error(&at, 0, s.len()));
                }
            }
            self.current = Some(Open {
                combination: Combination::new(&row, self.metrics),
                params,
                seeds: vec![seed],
                at,
            });
            return Ok(out);
        }
        if let Some(c) = self.current.as_mut() {
            if let Some(s) = &self.seeds {
                if s.get(c.seeds.len()) != Some(&seed) {
                    return Err(order_error(&at, c.seeds.len(), s.len()));
                }
            }
            c.combination.add(&row, self.metrics);
            c.seeds.push(seed);
        }
        Ok(Vec::new())
    }

    /// Ends combination `done`, at the row `next` begins (`None`: at the end of the rows);
    /// returns the combinations now known to be whole.
    fn finish(&mut self, done: Open, next: Option<&str>) -> Result<Vec<Combination>, Failure> {
        if let Some(s) = &self.seeds {
            if done.seeds.len() != s.len() {
                return Err(match next {
                    None => Failure::Input(format!(
                        "summary: the last combination (from {}) has {} of its {} seeds: a shard is missing at the end (give every shard's output, in shard order)",
                        done.at,
                        done.seeds.len(),
                        s.len()
                    )),
                    Some(at) => order_error(at, done.seeds.len(), s.len()),
                });
            }
            return Ok(vec![done.combination]);
        }
        self.waiting.push(done);
        if self.waiting.len() < 2 || next.is_none() {
            return Ok(Vec::new());
        }
        // The second combination is bounded by the first and the one beginning now: its
        // seeds are every combination's.
        let seeds = self.waiting[1].seeds.clone();
        let first = &self.waiting[0];
        if first.seeds != seeds {
            return Err(Failure::Input(format!(
                "summary: {}: the first combination has {} of the {} seeds of the next: a shard is missing at the start (give every shard's output, in shard order)",
                first.at,
                first.seeds.len(),
                seeds.len()
            )));
        }
        self.seeds = Some(seeds);
        Ok(self.waiting.drain(..).map(|o| o.combination).collect())
    }

    /// Ends the rows; returns the combinations still to give out.
    fn end(mut self) -> Result<Vec<Combination>, Failure> {
        let mut out = match self.current.take() {
            Some(done) => self.finish(done, None)?,
            None => Vec::new(),
        };
        self.radix.end()?;
        if let [a, b] = self.waiting.as_slice() {
            if a.seeds != b.seeds {
                return Err(Failure::Input(format!(
                    "summary: the grid's two combinations have {} and {} seeds: a shard is missing at the start or the end (give every shard's output, in shard order)",
                    a.seeds.len(),
                    b.seeds.len()
                )));
            }
        }
        out.extend(self.waiting.drain(..).map(|o| o.combination));
        Ok(out)
    }
}

/// Checks that the combinations' parameters step through a grid's product in grid order:
/// each parameter's values are numbered by first appearance, and from one combination to
/// the next one parameter advances by one while every parameter after it goes back to its
/// first value from its last (a parameter's count of values is known from its first wrap
/// on). A combination that repeats the one before it (a shard given twice), or that skips or
/// reorders combinations (a shard missing or out of place), is then an error, as is a grid
/// that ends inside a parameter's cycle. Not seen: whole blocks of the first flag's values
/// missing at either end (the rows read as the smaller grid they are). Only the flags'
/// own keys count (a hook's result column moves with its hook), and of them not those
/// whose shown value may follow other flags ([`Model::FOLLOWS`]: a demand file's rounds);
/// combinations that differ in those only are not checked. A flag's `none` where its
/// default is not `none` reads as its default (a row without a cooldown shows none for the
/// default 0).
#[derive(Default)]
struct Radix {
    /// The keys of the model's flags, and their default cells.
    flags: Vec<(&'static str, Cell)>,
    /// Each parameter's values, by first appearance.
    values: Vec<Vec<Cell>>,
    /// Each parameter's count of values, once it has wrapped.
    counts: Vec<Option<usize>>,
    /// The last combination's value indices, and where it began.
    last: Option<(Vec<usize>, String)>,
    /// The last combination's parameters.
    params: Row,
}

impl Radix {
    fn step(&mut self, params: &Row, at: &str) -> Result<(), Failure> {
        // In flag order (the grid's, first outermost), whatever the rows' order of columns
        // (`--columns` puts a named parameter where it is named).
        let given: Vec<Cell> = self
            .flags
            .iter()
            .filter_map(|(f, default)| {
                let (_, v) = params.iter().find(|(k, _)| k == f)?;
                Some(match v {
                    Cell::Text(t) if t == "none" && default.text() != "none" => default.clone(),
                    v => v.clone(),
                })
            })
            .collect();
        if self.values.len() != given.len() {
            self.values = vec![Vec::new(); given.len()];
            self.counts = vec![None; given.len()];
        }
        let index: Vec<usize> = given
            .iter()
            .zip(&mut self.values)
            .map(|(v, seen)| match seen.iter().position(|s| s == v) {
                Some(i) => i,
                None => {
                    seen.push(v.clone());
                    seen.len() - 1
                }
            })
            .collect();
        let bad = || {
            Failure::Input(format!(
                "summary: {at}: the combinations are not a grid's in grid order (a shard is missing, out of place or given twice): give every shard's output once, in shard order"
            ))
        };
        if let Some((a, _)) = &self.last {
            let Some(j) = (0..index.len()).find(|&q| a[q] != index[q]) else {
                if *params == self.params {
                    return Err(Failure::Input(format!(
                        "summary: {at}: the rows repeat the combination before them (a shard given twice, or a grid whose list repeats a value): give every shard's output once, in shard order"
                    )));
                }
                // Apart in keys that follow others only: nothing to check.
                self.params = params.clone();
                return Ok(());
            };
            if index[j] != a[j] + 1 || self.counts[j].is_some_and(|n| index[j] >= n) {
                return Err(bad());
            }
            for q in j + 1..index.len() {
                if index[q] != 0 {
                    return Err(bad());
                }
                match self.counts[q] {
                    Some(n) if a[q] + 1 != n => return Err(bad()),
                    Some(_) => {}
                    None => self.counts[q] = Some(a[q] + 1),
                }
            }
        }
        self.last = Some((index, at.to_string()));
        self.params = params.clone();
        Ok(())
    }

    /// Checks that the last combination ends every cycle begun.
    fn end(&self) -> Result<(), Failure> {
        let Some((a, at)) = &self.last else {
            return Ok(());
        };
        if a.iter()
            .zip(&self.counts)
            .any(|(&i, n)| n.is_some_and(|n| i + 1 != n))
        {
            return Err(Failure::Input(format!(
                "summary: {at}: the grid ends inside a cycle of its values: a shard is missing at the end (give every shard's output, in shard order)"
            )));
        }
        Ok(())
    }
}

fn order_error(at: &str, n: usize, seeds: usize) -> Failure {
    Failure::Input(format!(
        "summary: {at}: the rows are not whole combinations in grid order (a combination stops after {n} of the {seeds} seeds every one has): give every shard's output, in shard order"
    ))
}

/// The row's seed cell.
fn seed_of(row: &Row) -> Cell {
    row.iter()
        .find(|(k, _)| k == "seed")
        .map_or(Cell::Int(0), |(_, v)| v.clone())
}

/// The row's parameters but the seed: what its combination's rows share.
fn combination_params(row: &Row, metrics: &[&str]) -> Row {
    row.iter()
        .filter(|(k, _)| k != "seed" && !metrics.contains(&k.as_ref()))
        .cloned()
        .collect()
}

/// The parameters (in the model's flag order) whose values differ between the rows: the
/// flags the grid swept, as a table shows them.
fn swept<M: Model>(
    first: &Row,
    mut rows: Rows,
    files: &[String],
) -> Result<Vec<&'static str>, Failure> {
    let keys: Vec<&'static str> = M::PARAMS.iter().map(|p| p.key).collect();
    let mut differs = vec![false; keys.len()];
    let value = |row: &Row, key: &str| row.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let firsts: Vec<Option<Cell>> = keys.iter().map(|k| value(first, k)).collect();
    while let Some((row, _)) = rows.next()? {
        for ((key, d), f) in keys.iter().zip(&mut differs).zip(&firsts) {
            if !*d && value(&row, key) != *f {
                *d = true;
            }
        }
    }
    let swept: Vec<&'static str> = keys
        .into_iter()
        .zip(differs)
        .filter(|(_, d)| *d)
        .map(|(k, _)| k)
        .collect();
    // A key whose shown value follows other flags ([`Model::FOLLOWS`]) is swept only if
    // it is no function of the other swept keys: a grid's own list varies within their
    // combinations, a derived value never does (a demand file's rounds follow the file).
    let others: Vec<&'static str> = swept
        .iter()
        .copied()
        .filter(|k| !M::FOLLOWS.contains(k))
        .collect();
    let mut kept = Vec::new();
    for key in swept {
        if !M::FOLLOWS.contains(&key) || !follows(key, &others, first, Rows::open(files)?)? {
            kept.push(key);
        }
    }
    Ok(kept)
}

/// Whether `key`'s value in every row is a function of the values of `others`.
fn follows(key: &str, others: &[&str], first: &Row, mut rows: Rows) -> Result<bool, Failure> {
    let cell = |row: &Row, k: &str| row.iter().find(|(q, _)| q == k).map(|(_, v)| v.clone());
    let mut seen: Vec<(Vec<Option<Cell>>, Option<Cell>)> = Vec::new();
    let mut row = Some(first.clone());
    while let Some(r) = row.take() {
        let of: Vec<Option<Cell>> = others.iter().map(|k| cell(&r, k)).collect();
        let v = cell(&r, key);
        match seen.iter().find(|(o, _)| *o == of) {
            Some((_, w)) if *w != v => return Ok(false),
            Some(_) => {}
            None => seen.push((of, v)),
        }
        row = rows.next()?.map(|(r, _)| r);
    }
    Ok(true)
}

/// The row keys whose `[A,B]` is a span of rounds (`A..B` in tables and CSV): autoscale's
/// stockout, consumers' outage.
const SPANS: [&str; 2] = ["stockout_rounds", "outage"];

/// Parses one row as `--format json` writes it: a flat object whose values are numbers
/// (an integer without sign, point or exponent is an integer; any other a float, read
/// correctly rounded), strings, `null` (a NaN float) and arrays of integers
/// (`stockout_rounds`' `[A,B]` is its span), keys kept in order.
pub fn parse_row(text: &str) -> Result<Row, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        at: 0,
    };
    let mut row = Row::new();
    p.ws();
    p.expect(b'{')?;
    p.ws();
    if p.peek() == Some(b'}') {
        return Err("an empty object is not a row".into());
    }
    loop {
        p.ws();
        let key = p.string()?;
        p.ws();
        p.expect(b':')?;
        p.ws();
        let value = match p.peek() {
            Some(b'"') => Cell::Text(p.string()?),
            Some(b'[') => {
                let v = p.array()?;
                match (key.as_str(), v.as_slice()) {
                    (k, [a, b]) if SPANS.contains(&k) => Cell::Span(*a, *b),
                    _ => Cell::Ints(v),
                }
            }
            Some(b'n') => {
                p.word("null")?;
                Cell::Float(f64::NAN)
            }
            _ => p.number()?,
        };
        row.push((Cow::Owned(key), value));
        p.ws();
        match p.next() {
            Some(b',') => continue,
            Some(b'}') => break,
            _ => return Err(p.unexpected("',' or '}'")),
        }
    }
    p.ws();
    if p.at != p.s.len() {
        return Err(p.unexpected("the end of the line"));
    }
    Ok(row)
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        self.at += usize::from(c.is_some());
        c
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    fn unexpected(&self, wanted: &str) -> String {
        format!(
            "not a row of --format json: {wanted} expected at byte {}",
            self.at + 1
        )
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.next() == Some(c) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{}'", char::from(c))))
        }
    }

    fn word(&mut self, w: &str) -> Result<(), String> {
        if self.s[self.at..].starts_with(w.as_bytes()) {
            self.at += w.len();
            Ok(())
        } else {
            Err(self.unexpected(w))
        }
    }

    /// A JSON string (its escapes undone by serde_json).
    fn string(&mut self) -> Result<String, String> {
        let start = self.at;
        self.expect(b'"')?;
        loop {
            match self.next() {
                Some(b'\\') => {
                    self.next();
                }
                Some(b'"') => break,
                Some(_) => {}
                None => return Err(self.unexpected("a closing '\"'")),
            }
        }
        let raw = std::str::from_utf8(&self.s[start..self.at]).map_err(|e| e.to_string())?;
        serde_json::from_str(raw).map_err(|_| self.unexpected("a string"))
    }

    fn number(&mut self) -> Result<Cell, String> {
        let start = self.at;
        while matches!(
            self.peek(),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        ) {
            self.at += 1;
        }
        let t = std::str::from_utf8(&self.s[start..self.at]).unwrap_or("");
        if t.is_empty() {
            return Err(self.unexpected("a value"));
        }
        if t.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(v) = t.parse::<u64>() {
                return Ok(Cell::Int(v));
            }
        }
        t.parse::<f64>()
            .map(Cell::Float)
            .map_err(|_| format!("not a row of --format json: '{t}' is not a number"))
    }

    fn array(&mut self) -> Result<Vec<u32>, String> {
        self.expect(b'[')?;
        let mut v = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(v);
        }
        loop {
            self.ws();
            match self.number()? {
                Cell::Int(n) if n <= u64::from(u32::MAX) => v.push(n as u32),
                _ => return Err(self.unexpected("a round (an integer)")),
            }
            self.ws();
            match self.next() {
                Some(b',') => continue,
                Some(b']') => return Ok(v),
                _ => return Err(self.unexpected("',' or ']'")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_as_the_json_writer_wrote_them() {
        let row = parse_row(
            r#"{"a":3,"b":100.0,"c":"x\"y","d":[40,95],"stockout_rounds":[150,190],"e":[],"f":null,"g":-0.5,"h":1e+21}"#,
        )
        .unwrap();
        let cells: Vec<&Cell> = row.iter().map(|(_, v)| v).collect();
        assert_eq!(cells[0], &Cell::Int(3));
        assert_eq!(cells[1], &Cell::Float(100.0));
        assert_eq!(cells[2], &Cell::Text("x\"y".into()));
        assert_eq!(cells[3], &Cell::Ints(vec![40, 95]));
        assert_eq!(cells[4], &Cell::Span(150, 190));
        assert_eq!(cells[5], &Cell::Ints(vec![]));
        assert!(matches!(cells[6], Cell::Float(v) if v.is_nan()));
        assert_eq!(cells[7], &Cell::Float(-0.5));
        assert_eq!(cells[8], &Cell::Float(1e21));
        let keys: Vec<&str> = row.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(
            keys,
            ["a", "b", "c", "d", "stockout_rounds", "e", "f", "g", "h"]
        );
        // Written back, the row is the same bytes.
        let mut out = Vec::new();
        crate::output::write_rows(&mut out, Format::Json, &[row], &[]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"a\":3,\"b\":100.0,\"c\":\"x\\\"y\",\"d\":[40,95],\"stockout_rounds\":[150,190],\"e\":[],\"f\":null,\"g\":-0.5,\"h\":1e+21}\n"
        );
        // Floats are read correctly rounded: the shortest round-trip text of a double
        // reads back as that double.
        for x in [
            0.1,
            919.8876633723187,
            5e-324,
            1.7976931348623157e308,
            2.0 / 3.0,
        ] {
            let text = serde_json::to_string(&x).unwrap();
            let row = parse_row(&format!("{{\"v\":{text}}}")).unwrap();
            assert_eq!(row[0].1, Cell::Float(x), "{text}");
        }
    }

    #[test]
    fn bad_rows_say_what_is_wrong() {
        for bad in [
            "",
            "[]",
            "{}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{\"a\":1} x",
            "{\"a\":[1.5]}",
            "{\"a\":tru}",
        ] {
            assert!(parse_row(bad).is_err(), "{bad}");
        }
    }
}
