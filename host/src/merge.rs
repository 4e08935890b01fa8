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
            let swept = swept::<M>(&first, Rows::open(files)?)?;
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

    // The first combination's seeds, once it is whole; the current combination.
    let mut seeds: Vec<Cell> = Vec::new();
    let mut whole = false;
    let mut current: Option<(Row, Combination, usize)> = None;
    let mut read: u64 = 0;
    let mut next = Some((first, String::from("line 1")));
    while let Some((row, at)) = next.take() {
        if row.len() != key_list.len() || row.iter().zip(&key_list).any(|((k, _), w)| k != w) {
            return Err(Failure::Input(format!(
                "summary: {at}: its keys are not the first row's (give the rows of one grid)"
            )));
        }
        let seed = seed_of(&row);
        let same = |c: &Row| combination_params(&row, &all_metrics) == *c;
        let continues = match &current {
            None => false,
            Some((p, _, n)) if whole => same(p) && *n < seeds.len(),
            Some((p, _, n)) => same(p) && seeds.first() != Some(&seed) && *n > 0,
        };
        if !continues {
            if let Some((_, done, n)) = current.take() {
                check_whole(&mut whole, &seeds, n, &at)?;
                sweep::write_combination(&mut writer, out, done, &metrics, table_params)?;
            }
        }
        let position = current.as_ref().map_or(0, |(_, _, n)| *n);
        if whole {
            if seeds.get(position) != Some(&seed) {
                return Err(order_error(&at, position, seeds.len()));
            }
        } else {
            seeds.push(seed);
        }
        match current.as_mut() {
            Some((_, c, n)) => {
                c.add(&row, &metrics);
                *n += 1;
            }
            None => {
                let p = combination_params(&row, &all_metrics);
                current = Some((p, Combination::new(&row, &metrics), 1));
            }
        }
        read += 1;
        if read.is_multiple_of(WINDOW) {
            writer.end_window(out)?;
        }
        next = rows.next()?;
    }
    if let Some((_, done, n)) = current.take() {
        if whole && n != seeds.len() {
            return Err(Failure::Input(format!(
                "summary: the last combination has {n} of its {} seeds: a shard is missing at the end (give every shard's output, in shard order)",
                seeds.len()
            )));
        }
        sweep::write_combination(&mut writer, out, done, &metrics, table_params)?;
    }
    writer.end_window(out)?;
    out.flush()?;
    Ok(())
}

/// Ends the first combination (its seeds are every combination's), or checks a later
/// one had all of them.
fn check_whole(whole: &mut bool, seeds: &[Cell], n: usize, at: &str) -> Result<(), Failure> {
    if !*whole {
        *whole = true;
        return Ok(());
    }
    if n != seeds.len() {
        return Err(order_error(at, n, seeds.len()));
    }
    Ok(())
}

fn order_error(at: &str, n: usize, seeds: usize) -> Failure {
    Failure::Input(format!(
        "summary: {at}: the rows are not whole combinations in grid order (a combination stops after {n} of the {seeds} seeds the first one has): give every shard's output, in shard order"
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
fn swept<M: Model>(first: &Row, mut rows: Rows) -> Result<Vec<&'static str>, Failure> {
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
    Ok(keys
        .into_iter()
        .zip(differs)
        .filter(|(_, d)| *d)
        .map(|(k, _)| k)
        .collect())
}

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
                    ("stockout_rounds", [a, b]) => Cell::Span(*a, *b),
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
