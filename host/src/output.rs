//! Writes runs as an aligned table, JSON Lines or CSV.

use std::io::{self, Write};

use capsim_core::jsfmt::Num;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// One value of a run's parameters or metrics.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// An integer.
    Int(u64),
    /// A float, shown as JavaScript would print it.
    Float(f64),
    /// A float computed here (a summary statistic), shown with three decimals in tables.
    Stat(f64),
    /// A word (`shared`, `healthy`).
    Word(&'static str),
    /// A composed word (`0:protect:3+50:standby:1`).
    Text(String),
    /// A list of integers (`failure_rounds`).
    Ints(Vec<u32>),
    /// A span of rounds `A..B`, B excluded (`stockout_rounds`): `[A,B]` in JSON.
    Span(u32, u32),
}

impl Cell {
    /// Returns the value as a float, for statistics.
    pub fn number(&self) -> Option<f64> {
        match self {
            Cell::Int(v) => Some(*v as f64),
            Cell::Float(v) | Cell::Stat(v) => Some(*v),
            _ => None,
        }
    }

    /// Returns the value as text (tables and CSV).
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.write_text(&mut s);
        s
    }

    /// Appends the value as text (tables and CSV) to `buf`, as [`Cell::text`] returns it,
    /// without allocating (rows are written by the thousand).
    pub fn write_text(&self, buf: &mut String) {
        use std::fmt::Write as _;
        match self {
            Cell::Int(v) => push_int(buf, *v),
            // Writing to a String cannot fail.
            Cell::Float(v) => drop(write!(buf, "{}", Num(*v))),
            Cell::Stat(v) => drop(write!(buf, "{v:.3}")),
            Cell::Word(w) => buf.push_str(w),
            Cell::Text(w) => buf.push_str(w),
            Cell::Ints(v) if v.is_empty() => buf.push_str("none"),
            Cell::Ints(v) => {
                for (k, x) in v.iter().enumerate() {
                    if k > 0 {
                        buf.push(':');
                    }
                    push_int(buf, (*x).into());
                }
            }
            Cell::Span(a, b) => {
                push_int(buf, (*a).into());
                buf.push_str("..");
                push_int(buf, (*b).into());
            }
        }
    }

    fn is_number(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Float(_) | Cell::Stat(_))
    }
}

/// Appends `v` in decimal (what `v.to_string()` gives, without the formatter's machinery).
fn push_int(buf: &mut String, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        buf.push(char::from(d));
    }
}

/// The JSON contract: numbers (NaN as `null`), words as strings, lists and spans as arrays.
impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Int(v) => s.serialize_u64(*v),
            Cell::Float(v) | Cell::Stat(v) => s.serialize_f64(*v),
            Cell::Word(w) => s.serialize_str(w),
            Cell::Text(w) => s.serialize_str(w),
            Cell::Ints(v) => s.collect_seq(v),
            Cell::Span(a, b) => s.collect_seq([a, b]),
        }
    }
}

/// A column name: a parameter or metric key, or a derived one (`tracking_dropped_mean`).
pub type Key = std::borrow::Cow<'static, str>;

/// One run: its parameters then its metrics, each a (key, value) pair in contract order.
pub type Row = Vec<(Key, Cell)>;

/// Returns a row from static keys.
pub fn row(fields: Vec<(&'static str, Cell)>) -> Row {
    fields
        .into_iter()
        .map(|(k, v)| (Key::Borrowed(k), v))
        .collect()
}

/// A row as a JSON object: its keys in row order.
struct JsonRow<'a>(&'a Row);

impl Serialize for JsonRow<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k.as_ref(), v)?;
        }
        map.end()
    }
}

/// Writes `value` as one JSON line.
fn write_json_line(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    writeln!(out)
}

/// The output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// One JSON object per line.
    Json,
    /// Comma-separated values with a header line.
    Csv,
}

impl Format {
    /// The formats by name, in `--help` order.
    pub const NAMES: [(&'static str, Format); 3] = [
        ("table", Format::Table),
        ("json", Format::Json),
        ("csv", Format::Csv),
    ];

    /// Returns the format named `name` (`--format`'s values).
    pub fn from_name(name: &str) -> Option<Format> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
    }
}

/// Writes `rows`; `table_keys` picks the columns the table shows (JSON and CSV show all).
pub fn write_rows(
    out: &mut impl Write,
    format: Format,
    rows: &[Row],
    table_keys: &[&str],
) -> io::Result<()> {
    let mut writer = RowWriter::new(format, table_keys);
    for row in rows {
        writer.push(out, row.clone())?;
    }
    writer.end_window(out)
}

/// Writes rows as they come, in one format.
///
/// JSON Lines and CSV lines are written at once. A table needs its column widths before its
/// first line: it holds the rows pushed before the first [`RowWriter::end_window`] (a
/// grid's first window of runs), fixes the widths from them, and pads every later row to
/// those widths. So a table of one window is exactly aligned; in a longer one a later value
/// wider than its column widens its own line only.
pub struct RowWriter {
    format: Format,
    table_keys: Vec<String>,
    /// The header is written (CSV, table).
    started: bool,
    /// Table rows waiting for the widths, as the text of their shown cells.
    pending: Option<PendingTable>,
    /// The table's shown columns (indices into a row) and their widths.
    layout: Option<(Vec<usize>, Vec<usize>)>,
}

/// A table's first rows, held until its widths are fixed: only the shown cells' text (a
/// window of runs held as whole rows would take megabytes).
struct PendingTable {
    /// The shown columns (indices into a row), their keys and whether each is numeric in the
    /// first row (the header aligns as that row's cells do).
    columns: Vec<usize>,
    header: Vec<(Key, bool)>,
    widths: Vec<usize>,
    /// Every held cell's text, one after another; each cell's end, and whether it is a number.
    texts: String,
    ends: Vec<usize>,
    numeric: Vec<bool>,
}

impl PendingTable {
    /// Starts holding rows shaped like `first`, showing the columns named in `table_keys`.
    fn new(first: &Row, table_keys: &[String]) -> Self {
        let columns: Vec<usize> = first
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| table_keys.iter().any(|t| t == k))
            .map(|(i, _)| i)
            .collect();
        let header: Vec<(Key, bool)> = columns
            .iter()
            .map(|&i| (first[i].0.clone(), first[i].1.is_number()))
            .collect();
        let widths = header.iter().map(|(k, _)| k.len()).collect();
        Self {
            columns,
            header,
            widths,
            texts: String::new(),
            ends: Vec::new(),
            numeric: Vec::new(),
        }
    }

    /// Holds `row`'s shown cells.
    fn hold(&mut self, row: &Row) {
        for (w, &i) in self.widths.iter_mut().zip(&self.columns) {
            let start = self.texts.len();
            row[i].1.write_text(&mut self.texts);
            *w = (*w).max(self.texts.len() - start);
            self.ends.push(self.texts.len());
            self.numeric.push(row[i].1.is_number());
        }
    }

    /// Writes the header and the held rows, padded to the widths; returns the layout.
    fn write(self, out: &mut impl Write) -> io::Result<(Vec<usize>, Vec<usize>)> {
        let mut line = String::new();
        for (w, (key, numeric)) in self.widths.iter().zip(&self.header) {
            push_padded(&mut line, key, *w, *numeric);
        }
        write_line(out, &mut line)?;
        let mut start = 0;
        let cells = self.ends.iter().zip(&self.numeric);
        for (k, (&end, &numeric)) in cells.enumerate() {
            let w = self.widths[k % self.widths.len()];
            push_padded(&mut line, &self.texts[start..end], w, numeric);
            start = end;
            if (k + 1) % self.widths.len() == 0 {
                write_line(out, &mut line)?;
            }
        }
        Ok((self.columns, self.widths))
    }
}

impl RowWriter {
    /// Returns a writer; `table_keys` picks the columns a table shows.
    pub fn new(format: Format, table_keys: &[&str]) -> Self {
        Self {
            format,
            table_keys: table_keys.iter().map(|k| (*k).to_string()).collect(),
            started: false,
            pending: None,
            layout: None,
        }
    }

    /// Writes no CSV header (a later `--shard`: the first one has written it).
    pub fn skip_header(&mut self) {
        self.started = true;
    }

    /// Writes the CSV header `keys` now, if not yet written (a first shard without rows);
    /// other formats have no header without rows.
    pub fn write_header(&mut self, out: &mut impl Write, keys: &[&str]) -> io::Result<()> {
        if self.format != Format::Csv || self.started {
            return Ok(());
        }
        self.started = true;
        writeln!(out, "{}", keys.join(","))
    }

    /// Writes `row` (a table row waits until the widths are fixed).
    pub fn push(&mut self, out: &mut impl Write, row: Row) -> io::Result<()> {
        match self.format {
            Format::Json => write_json_line(out, &JsonRow(&row)),
            Format::Csv => {
                if !self.started {
                    self.started = true;
                    let header: Vec<&str> = row.iter().map(|(k, _)| k.as_ref()).collect();
                    writeln!(out, "{}", header.join(","))?;
                }
                let mut line = String::new();
                for (k, (_, v)) in row.iter().enumerate() {
                    if k > 0 {
                        line.push(',');
                    }
                    v.write_text(&mut line);
                }
                line.push('\n');
                out.write_all(line.as_bytes())
            }
            Format::Table => match &self.layout {
                None => {
                    let table_keys = &self.table_keys;
                    self.pending
                        .get_or_insert_with(|| PendingTable::new(&row, table_keys))
                        .hold(&row);
                    Ok(())
                }
                Some((columns, widths)) => write_table_row(out, &row, columns, widths),
            },
        }
    }

    /// Ends a window: a table fixes its widths from the rows held so far (if any) and
    /// writes them.
    pub fn end_window(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.layout.is_some() {
            return Ok(());
        }
        let Some(pending) = self.pending.take() else {
            return Ok(());
        };
        self.layout = Some(pending.write(out)?);
        Ok(())
    }
}

fn write_table_row(
    out: &mut impl Write,
    row: &Row,
    columns: &[usize],
    widths: &[usize],
) -> io::Result<()> {
    let mut line = String::new();
    let mut cell = String::new();
    for (&i, &w) in columns.iter().zip(widths) {
        cell.clear();
        row[i].1.write_text(&mut cell);
        push_padded(&mut line, &cell, w, row[i].1.is_number());
    }
    write_line(out, &mut line)
}

/// Appends a table cell to `line`: two spaces after the previous one, then `s` padded to
/// `width` (right-aligned numbers, left-aligned words), in characters as `format!` pads.
fn push_padded(line: &mut String, s: &str, width: usize, right: bool) {
    if !line.is_empty() {
        // Never empty after a cell: a column is as wide as its key, and keys are not empty.
        line.push_str("  ");
    }
    let fill = width.saturating_sub(s.chars().count());
    if right {
        push_spaces(line, fill);
        line.push_str(s);
    } else {
        line.push_str(s);
        push_spaces(line, fill);
    }
}

/// Appends `n` spaces, a slice at a time.
fn push_spaces(line: &mut String, mut n: usize) {
    const SPACES: &str = "                                ";
    while n > 0 {
        let k = n.min(SPACES.len());
        line.push_str(&SPACES[..k]);
        n -= k;
    }
}

/// Writes `line` without its trailing white space, then a newline, and empties it.
fn write_line(out: &mut impl Write, line: &mut String) -> io::Result<()> {
    let kept = line.trim_end().len();
    line.truncate(kept);
    line.push('\n');
    out.write_all(line.as_bytes())?;
    line.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells write JSON as the contract says: a float with its `.0` or in exponent form, NaN
    /// as `null`, lists and spans as arrays, words as strings.
    #[test]
    fn cells_write_the_json_contract() {
        let row = row(vec![
            ("a", Cell::Float(100.0)),
            ("b", Cell::Float(-0.0)),
            ("c", Cell::Float(f64::NAN)),
            ("d", Cell::Stat(0.5)),
            ("e", Cell::Int(u64::MAX)),
            ("f", Cell::Ints(vec![])),
            ("g", Cell::Ints(vec![40, 95])),
            ("h", Cell::Span(150, 190)),
            ("i", Cell::Word("none")),
            ("j", Cell::Text("0:protect:3+50:standby:1".to_string())),
            ("k", Cell::Float(1e21)),
        ]);
        let mut out = Vec::new();
        write_rows(&mut out, Format::Json, &[row], &[]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":100.0,"b":-0.0,"c":null,"d":0.5,"e":18446744073709551615,"f":[],"g":[40,95],"h":[150,190],"i":"none","j":"0:protect:3+50:standby:1","k":1e+21}"#
                .to_owned()
                + "\n"
        );
    }
}
