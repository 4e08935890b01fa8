//! Writes runs as an aligned table, JSON Lines or CSV.

use std::io::{self, Write};

use capsim_core::jsfmt::Num;
use serde::ser::{Serialize, Serializer};

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

    /// Appends the value as a table shows it for reading: [`Cell::write_text`]'s text, a
    /// float with a fraction rounded ([`readable`]).
    pub fn write_readable(&self, buf: &mut String) {
        match self {
            Cell::Float(v) => buf.push_str(&readable(*v)),
            _ => self.write_text(buf),
        }
    }

    fn is_number(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Float(_) | Cell::Stat(_))
    }
}

/// The significant digits a table shows of a number with a fraction (CSV and JSON keep every
/// digit; the playground's lesson pages round as tables do).
pub const READABLE_DIGITS: usize = 4;

/// Returns `v` as a table shows it: a whole number (and NaN, an infinity) as JavaScript
/// writes it, any other rounded to [`READABLE_DIGITS`] significant digits, then written as
/// JavaScript writes that number: `919.8876633723187` as `919.9`, `0.2608695652173913` as
/// `0.2609`, `12345.678` as `12350`, `100` as `100`.
pub fn readable(v: f64) -> String {
    if !v.is_finite() || v.fract() == 0.0 {
        return Num(v).to_string();
    }
    // Rust writes the decimal exponent form exactly rounded (the same on every machine).
    let rounded = format!("{:.*e}", READABLE_DIGITS - 1, v);
    Num(rounded.parse().unwrap_or(v)).to_string()
}

/// Returns a cell's text as a table shows it: a number with a fraction ([`readable`]), any
/// other text as it is (a trace's CSV cells).
pub fn readable_text(s: &str) -> std::borrow::Cow<'_, str> {
    let fraction = s.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
    match s.parse::<f64>() {
        Ok(v) if fraction && v.is_finite() => readable(v).into(),
        _ => s.into(),
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

impl Cell {
    /// Appends the value as JSON to `buf`: the bytes its [`Serialize`] impl writes through
    /// serde_json, without serde's machinery (a grid writes them by the million).
    pub fn write_json(&self, buf: &mut Vec<u8>) {
        match self {
            Cell::Int(v) => push_int_bytes(buf, *v),
            Cell::Float(v) | Cell::Stat(v) => push_json_float(buf, *v),
            Cell::Word(w) => push_json_str(buf, w),
            Cell::Text(w) => push_json_str(buf, w),
            Cell::Ints(v) => {
                buf.push(b'[');
                for (k, x) in v.iter().enumerate() {
                    if k > 0 {
                        buf.push(b',');
                    }
                    push_int_bytes(buf, (*x).into());
                }
                buf.push(b']');
            }
            Cell::Span(a, b) => {
                buf.push(b'[');
                push_int_bytes(buf, (*a).into());
                buf.push(b',');
                push_int_bytes(buf, (*b).into());
                buf.push(b']');
            }
        }
    }

    /// Appends the value as `format` (JSON or CSV) writes it.
    #[inline]
    pub(crate) fn write_as(&self, format: Format, buf: &mut Vec<u8>) {
        match format {
            Format::Json => self.write_json(buf),
            _ => self.write_csv(buf),
        }
    }

    /// Appends the value as CSV shows it ([`Cell::write_text`]'s text) to a byte buffer.
    pub fn write_csv(&self, buf: &mut Vec<u8>) {
        use std::io::Write as _;
        match self {
            Cell::Int(v) => push_int_bytes(buf, *v),
            // Writing to a Vec cannot fail.
            Cell::Float(v) => drop(write!(buf, "{}", Num(*v))),
            Cell::Word(w) => buf.extend_from_slice(w.as_bytes()),
            Cell::Text(w) => buf.extend_from_slice(w.as_bytes()),
            _ => {
                let mut text = String::new();
                self.write_text(&mut text);
                buf.extend_from_slice(text.as_bytes());
            }
        }
    }

    /// Whether `self` and `other` write the same text and JSON: equal, floats bit for bit
    /// (`0.0` and `-0.0` differ, a NaN is itself).
    #[inline]
    fn same(&self, other: &Cell) -> bool {
        match (self, other) {
            (Cell::Int(a), Cell::Int(b)) => a == b,
            (Cell::Float(a), Cell::Float(b)) => a.to_bits() == b.to_bits(),
            _ => self.same_otherwise(other),
        }
    }

    /// [`Cell::same`] for the cells other than two integers or two floats.
    #[inline(never)]
    fn same_otherwise(&self, other: &Cell) -> bool {
        match (self, other) {
            (Cell::Stat(a), Cell::Stat(b)) => a.to_bits() == b.to_bits(),
            (Cell::Word(a), Cell::Word(b)) => std::ptr::eq(*a, *b) || a == b,
            (Cell::Float(_) | Cell::Stat(_), _) => false,
            _ => self == other,
        }
    }
}

/// Appends `v` in decimal to a byte buffer (what `v.to_string()` gives).
fn push_int_bytes(buf: &mut Vec<u8>, mut v: u64) {
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
    buf.extend_from_slice(&digits[at..]);
}

/// Appends a float as serde_json writes it: its formatter's shortest round-trip text
/// (`100.0`, `1e+21`), `null` for a NaN or an infinity.
fn push_json_float(buf: &mut Vec<u8>, v: f64) {
    use serde_json::ser::Formatter as _;
    if v.is_finite() {
        // Writing to a Vec cannot fail.
        let _ = serde_json::ser::CompactFormatter.write_f64(buf, v);
    } else {
        buf.extend_from_slice(b"null");
    }
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it.
fn push_json_str(buf: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
    } else {
        // Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *buf, s);
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
    /// JSON Lines' and CSV's last line, to write the next one from.
    lines: Option<Lines>,
}

/// Cells written as part of a JSON or CSV line, each after its lead-in (`{"threshold":`,
/// `,"seed":`; CSV's commas: made once, escaped), compared with the line before: a
/// grid's consecutive rows share most of their cells (every parameter but the seed, most
/// counts), and a cell the same as the last line's is its bytes copied, a run of them in
/// one copy.
pub(crate) struct LineCells {
    format: Format,
    /// Each cell's lead-in, one after another.
    leads: Vec<u8>,
    lead_ends: Vec<usize>,
    /// The line's cells ([`LineCells::cells`]), and the last line's.
    cells: Vec<Cell>,
    last: Vec<Cell>,
    /// The last line's bytes, and where each cell's part ends.
    line: Vec<u8>,
    ends: Vec<usize>,
    /// The bytes and ends being written.
    next: Vec<u8>,
    next_ends: Vec<usize>,
}

impl LineCells {
    /// Returns the cells of columns `keys` in `format` (JSON or CSV); `first`: the first
    /// column of the line (JSON opens the object with it, CSV writes no comma before it).
    pub(crate) fn new<'k>(
        keys: impl IntoIterator<Item = &'k str>,
        format: Format,
        first: bool,
    ) -> Self {
        let mut leads = Vec::new();
        let mut lead_ends = Vec::new();
        for (k, key) in keys.into_iter().enumerate() {
            let opens = first && k == 0;
            match format {
                Format::Json => {
                    leads.push(if opens { b'{' } else { b',' });
                    push_json_str(&mut leads, key);
                    leads.push(b':');
                }
                _ if !opens => leads.push(b','),
                _ => {}
            }
            lead_ends.push(leads.len());
        }
        Self {
            format,
            leads,
            lead_ends,
            cells: Vec::new(),
            last: Vec::new(),
            line: Vec::new(),
            ends: Vec::new(),
            next: Vec::new(),
            next_ends: Vec::new(),
        }
    }

    /// Returns the number of columns.
    pub(crate) fn len(&self) -> usize {
        self.lead_ends.len()
    }

    /// Returns column `k`'s lead-in.
    pub(crate) fn lead(&self, k: usize) -> &[u8] {
        let start = k
            .checked_sub(1)
            .and_then(|j| self.lead_ends.get(j))
            .copied()
            .unwrap_or(0);
        let end = self.lead_ends.get(k).copied().unwrap_or(start);
        self.leads.get(start..end).unwrap_or_default()
    }

    /// Adds a cell after those put since [`LineCells::cells`].
    pub(crate) fn push_cell(&mut self, cell: Cell) {
        self.cells.push(cell);
    }

    /// Returns the line's cells, emptied, for the caller to put one per column.
    pub(crate) fn cells(&mut self) -> &mut Vec<Cell> {
        self.cells.clear();
        &mut self.cells
    }

    /// Appends the line's part for its cells (one per column: [`LineCells::cells`]) to
    /// `out`, and keeps them as the last line's.
    pub(crate) fn write(&mut self, out: &mut Vec<u8>) {
        let LineCells {
            format,
            leads,
            lead_ends,
            cells,
            last,
            line,
            ends,
            next,
            next_ends,
        } = self;
        next.clear();
        next_ends.clear();
        next_ends.reserve(lead_ends.len());
        let mut lead_start = 0;
        if last.len() == cells.len() {
            // Where the cell's part of the last line starts, and where the run of cells
            // being copied from it starts (`NONE`: no run).
            const NONE: usize = usize::MAX;
            let (mut start, mut copying) = (0, NONE);
            let columns = last.iter().zip(lead_ends.iter().zip(ends.iter()));
            for (cell, (old, (&lead_end, &old_end))) in cells.iter().zip(columns) {
                if cell.same(old) {
                    if copying == NONE {
                        copying = start;
                    }
                    next_ends.push(next.len() + old_end - copying);
                } else {
                    if copying != NONE {
                        next.extend_from_slice(line.get(copying..start).unwrap_or_default());
                        copying = NONE;
                    }
                    next.extend_from_slice(leads.get(lead_start..lead_end).unwrap_or_default());
                    cell.write_as(*format, next);
                    next_ends.push(next.len());
                }
                start = old_end;
                lead_start = lead_end;
            }
            if copying != NONE {
                next.extend_from_slice(line.get(copying..start).unwrap_or_default());
            }
        } else {
            for (cell, &lead_end) in cells.iter().zip(lead_ends.iter()) {
                next.extend_from_slice(leads.get(lead_start..lead_end).unwrap_or_default());
                cell.write_as(*format, next);
                next_ends.push(next.len());
                lead_start = lead_end;
            }
        }
        out.extend_from_slice(next);
        std::mem::swap(line, next);
        std::mem::swap(ends, next_ends);
        std::mem::swap(last, cells);
    }
}

/// The JSON or CSV lines of rows with the same keys, each written from the one before
/// ([`LineCells`]).
struct Lines {
    /// The columns' keys (the first row's).
    keys: Vec<Key>,
    cells: LineCells,
    /// The line being written.
    buf: Vec<u8>,
}

impl Lines {
    /// Returns the lines of rows with `row`'s keys in `format` (JSON or CSV).
    fn new(row: &Row, format: Format) -> Self {
        Self {
            keys: row.iter().map(|(k, _)| k.clone()).collect(),
            cells: LineCells::new(row.iter().map(|(k, _)| k.as_ref()), format, true),
            buf: Vec::new(),
        }
    }

    /// Writes `row` as one line ending in `end` and keeps its cells (leaving integers 0 in
    /// `row`); returns false, writing nothing, if `row`'s keys are not these lines'.
    fn write(&mut self, out: &mut impl Write, row: &mut Row, end: &[u8]) -> io::Result<bool> {
        let same_keys = row.len() == self.keys.len()
            && row
                .iter()
                .zip(&self.keys)
                .all(|((key, _), known)| match (key, known) {
                    // The model's own keys: the same string, not just equal text.
                    (Key::Borrowed(a), Key::Borrowed(b)) => std::ptr::eq(*a, *b) || a == b,
                    _ => key == known,
                });
        if !same_keys {
            return Ok(false);
        }
        self.buf.clear();
        let cells = self.cells.cells();
        cells.extend(
            row.iter_mut()
                .map(|(_, c)| std::mem::replace(c, Cell::Int(0))),
        );
        self.cells.write(&mut self.buf);
        if row.is_empty() && self.cells.format == Format::Json {
            self.buf.push(b'{');
        }
        self.buf.extend_from_slice(end);
        out.write_all(&self.buf)?;
        Ok(true)
    }
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
            row[i].1.write_readable(&mut self.texts);
            *w = (*w).max(self.texts[start..].chars().count());
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
            lines: None,
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
    pub fn push(&mut self, out: &mut impl Write, mut row: Row) -> io::Result<()> {
        self.push_reusing(out, &mut row)
    }

    /// Writes `row` as [`RowWriter::push`] does, and leaves `row` with some cells for the
    /// caller to refill (`models::row_into`): a caller writing many rows then reuses one
    /// row's storage.
    pub fn push_reusing(&mut self, out: &mut impl Write, row: &mut Row) -> io::Result<()> {
        match self.format {
            Format::Json | Format::Csv => {
                if self.format == Format::Csv && !self.started {
                    self.started = true;
                    let header: Vec<&str> = row.iter().map(|(k, _)| k.as_ref()).collect();
                    writeln!(out, "{}", header.join(","))?;
                }
                let end: &[u8] = if self.format == Format::Json {
                    b"}\n"
                } else {
                    b"\n"
                };
                if let Some(lines) = self.lines.as_mut() {
                    if lines.write(out, row, end)? {
                        return Ok(());
                    }
                }
                let lines = self.lines.insert(Lines::new(row, self.format));
                lines.write(out, row, end).map(drop)
            }
            Format::Table => match &self.layout {
                None => {
                    let table_keys = &self.table_keys;
                    self.pending
                        .get_or_insert_with(|| PendingTable::new(row, table_keys))
                        .hold(row);
                    Ok(())
                }
                Some((columns, widths)) => write_table_row(out, row, columns, widths),
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
        row[i].1.write_readable(&mut cell);
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

#[cfg(test)]
mod lines_tests {
    use super::*;

    /// A row as serde_json writes it, entry by entry: the oracle of the JSON writer.
    fn serde_line(row: &Row) -> String {
        let entries: Vec<String> = row
            .iter()
            .map(|(k, v)| {
                let key = serde_json::to_string(k.as_ref()).unwrap();
                format!("{key}:{}", serde_json::to_string(v).unwrap())
            })
            .collect();
        format!("{{{}}}\n", entries.join(","))
    }

    /// Rows written one after another (each from the one before: copied cells, runs of
    /// them, changed ones) are each what serde_json writes for it alone, and CSV lines each
    /// row's cells as text; a row with other keys starts a new layout.
    #[test]
    fn each_line_is_its_row_whatever_the_row_before() {
        let cells = |k: u64| -> Row {
            row(vec![
                ("a", Cell::Int(k % 2)),
                (
                    "b\"q",
                    Cell::Float(if k.is_multiple_of(3) { 0.0 } else { -0.0 }),
                ),
                ("c", Cell::Float(if k == 4 { f64::NAN } else { 0.5 })),
                ("d", Cell::Ints((0..k as u32 % 3).collect())),
                ("e", Cell::Span(1, 2 + k as u32 % 2)),
                ("f", Cell::Word(if k < 3 { "none" } else { "x\\y" })),
                ("g", Cell::Text(format!("t\n{}", k / 3))),
                ("h", Cell::Stat(k as f64 / 7.0)),
                ("i", Cell::Int(u64::MAX - k / 4)),
            ])
        };
        let other = row(vec![("a", Cell::Int(1)), ("z", Cell::Float(1e21))]);
        let mut rows: Vec<Row> = (0..8).map(cells).collect();
        rows.insert(5, other.clone());
        rows.push(other);
        rows.push(cells(9));
        for format in [Format::Json, Format::Csv] {
            let mut writer = RowWriter::new(format, &[]);
            let mut out = Vec::new();
            for r in &rows {
                writer.push(&mut out, r.clone()).unwrap();
            }
            let text = String::from_utf8(out).unwrap();
            let expected: String = match format {
                Format::Json => rows.iter().map(serde_line).collect(),
                _ => {
                    let header: Vec<&str> = rows[0].iter().map(|(k, _)| k.as_ref()).collect();
                    let mut lines = format!("{}\n", header.join(","));
                    for r in &rows {
                        let texts: Vec<String> = r.iter().map(|(_, v)| v.text()).collect();
                        lines.push_str(&format!("{}\n", texts.join(",")));
                    }
                    lines
                }
            };
            assert_eq!(text, expected, "{format:?}");
        }
    }

    /// `push_reusing` writes what `push` writes.
    #[test]
    fn a_reused_row_writes_the_same_lines() {
        let mut a = RowWriter::new(Format::Json, &[]);
        let mut b = RowWriter::new(Format::Json, &[]);
        let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
        let mut reused = Row::new();
        for k in 0..5u64 {
            let r = row(vec![("x", Cell::Int(k / 2)), ("y", Cell::Float(k as f64))]);
            a.push(&mut out_a, r.clone()).unwrap();
            reused.clear();
            reused.extend(r);
            b.push_reusing(&mut out_b, &mut reused).unwrap();
        }
        assert_eq!(out_a, out_b);
    }
}

#[cfg(test)]
mod readable_tests {
    use super::*;

    /// Numbers with a fraction to 4 significant digits (ties and carries as decimal
    /// rounding gives them), whole ones and the words JavaScript prints as they are.
    #[test]
    fn tables_round_a_fraction_for_reading() {
        for (v, text) in [
            (919.8876633723187, "919.9"),
            (0.2608695652173913, "0.2609"),
            (12345.678, "12350"),
            (9.99996, "10"),
            (0.5, "0.5"),
            (-1.23456, "-1.235"),
            (1.5e-7, "1.5e-7"),
            (1.23456e-300, "1.235e-300"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (100.0, "100"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (2688.0, "2688"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(readable(v), text, "{v}");
        }
        assert_eq!(READABLE_DIGITS, 4);
        for (s, text) in [
            ("919.8876633723187", "919.9"),
            ("900", "900"),
            ("1e+21", "1e+21"),
            ("none", "none"),
            ("release", "release"),
            ("Infinity", "Infinity"),
            ("40:95:170", "40:95:170"),
        ] {
            assert_eq!(readable_text(s), text, "{s}");
        }
    }
}
