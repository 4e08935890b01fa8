//! `--format parquet` (the `parquet` feature): a grid's JSON rows as an Apache Parquet file,
//! for DuckDB, polars, pandas and the other tools large grids are loaded into.
//!
//! [`ParquetRows`] is a writer that takes the JSON Lines a sweep writes (`--format json`, the
//! rows' contract) and writes the Parquet file: a column per key, in row order, a row group
//! per [`ROW_GROUP_ROWS`] rows, Snappy-compressed, in bounded memory. The JSON rows are read
//! back exactly ([`read_row`]: a float is the `f64` its text names), so a column holds the JSON
//! rows' values. A column's type is fixed by its values in the first row group:
//!
//! | values in the first row group | Parquet column | `none` | JSON `null` (NaN) |
//! |---|---|---|---|
//! | integers only | `INT64` | null | — |
//! | numbers, one at least a float or `null` | `DOUBLE` | null | NaN |
//! | lists of integers (`failure_rounds`, spans such as `stockout_rounds`) | `LIST<INT64>` | null | — |
//! | any other word, or `none` only | `STRING` (numbers as the JSON writes them) | `none` | null |
//!
//! A later value that does not fit its column (a float in an `INT64` column, a word in a
//! `DOUBLE` one) is an error naming the column and the row: the rows of one grid do not
//! change a column's kind of value, except where a parameter's list mixes a word with
//! numbers (`--max-instances 3,none`), which the table above maps to null. The file's bytes
//! depend only on the rows.

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::types::Type;

/// The rows of a row group (the first one fixes the columns' types).
pub const ROW_GROUP_ROWS: usize = 16_384;

/// One value of a JSON row, as the JSON wrote it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// `null`: a NaN float.
    Null,
    /// A non-negative integer.
    UInt(u64),
    /// A negative integer.
    Int(i64),
    /// A number with a fraction or an exponent.
    Float(f64),
    /// A string (a word: `none`, `shared`; a path), borrowed from the row unless it holds
    /// an escape.
    Text(Cow<'a, str>),
    /// An array (a list of integers, a span `[A, B]`).
    List(Vec<Value<'a>>),
}

impl Value<'_> {
    /// The value, owning its text.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::UInt(n) => Value::UInt(n),
            Value::Int(n) => Value::Int(n),
            Value::Float(f) => Value::Float(f),
            Value::Text(t) => Value::Text(Cow::Owned(t.into_owned())),
            Value::List(items) => Value::List(items.into_iter().map(Value::into_owned).collect()),
        }
    }
}

/// A JSON row: its keys and values, in the row's order.
pub type JsonRow<'a> = Vec<(&'a str, Value<'a>)>;

/// Reads one JSON row (a line of `--format json`, without its newline): its keys in order,
/// its numbers exactly (a float is the `f64` nearest its text, so a float written by its
/// shortest text reads back as itself). The rows are flat: an object of numbers, strings,
/// `null` and arrays; a nested object, a boolean or a key holding an escape is refused.
pub fn read_row(line: &str) -> Result<JsonRow<'_>, String> {
    let mut row = Vec::with_capacity(96);
    read_row_with(line, |_, key, value| {
        row.push((key, value));
        Ok(())
    })?;
    Ok(row)
}

/// Reads one JSON row as [`read_row`] does, handing each entry to `entry` as it is read
/// (its position in the row, its key, its value) instead of collecting them; an error of
/// `entry` stops the reading. Returns the number of entries.
pub fn read_row_with<'a>(
    line: &'a str,
    mut entry: impl FnMut(usize, &'a str, Value<'a>) -> Result<(), String>,
) -> Result<usize, String> {
    let mut p = Reader { text: line, at: 0 };
    p.space();
    p.expect(b'{')?;
    p.space();
    let mut n = 0;
    if p.peek() == Some(b'}') {
        p.at += 1;
    } else {
        loop {
            p.space();
            let key = p.key()?;
            p.space();
            p.expect(b':')?;
            p.space();
            entry(n, key, p.value(0)?)?;
            n += 1;
            p.space();
            match p.bump() {
                Some(b',') => {}
                Some(b'}') => break,
                _ => return Err(p.error("',' or '}'")),
            }
        }
    }
    p.space();
    if p.at != line.len() {
        return Err(p.error("the end of the row"));
    }
    Ok(n)
}

/// Reads the values of a JSON row whose keys are expected to be `keys`, in that order (the
/// keys of an earlier row of the same output): `Ok(None)` if they are not, or if the row is
/// not written as `--format json` writes one (no space), for [`read_row_with`] to read it.
/// The values are read as [`read_row`] reads them; the keys are compared, not scanned.
pub fn read_values<'a>(line: &'a str, keys: &[String]) -> Result<Option<Vec<Value<'a>>>, String> {
    let bytes = line.as_bytes();
    let mut p = Reader { text: line, at: 0 };
    let mut values = Vec::with_capacity(keys.len());
    for (i, key) in keys.iter().enumerate() {
        // `{"key":` first, `,"key":` after.
        let open = if i == 0 { b'{' } else { b',' };
        let at = p.at;
        let end = at + key.len() + 3;
        let fits = bytes.get(at) == Some(&open)
            && bytes.get(at + 1) == Some(&b'"')
            && bytes.get(at + 2..end - 1) == Some(key.as_bytes())
            && bytes.get(end - 1) == Some(&b'"')
            && bytes.get(end) == Some(&b':');
        if !fits {
            return Ok(None);
        }
        p.at = end + 1;
        values.push(p.value(0)?);
    }
    let closed = if keys.is_empty() {
        &b"{}"[..]
    } else {
        &b"}"[..]
    };
    Ok((&bytes[p.at..] == closed).then_some(values))
}

/// A JSON row being read: the text and the byte at which reading is.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek();
        self.at += usize::from(b.is_some());
        b
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn error(&self, expected: &str) -> String {
        format!("expected {expected} at column {}", self.at + 1)
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        match self.bump() {
            Some(c) if c == b => Ok(()),
            _ => Err(self.error(&format!("'{}'", char::from(b)))),
        }
    }

    /// A key: a string without escapes, borrowed from the row.
    fn key(&mut self) -> Result<&'a str, String> {
        self.expect(b'"')?;
        let start = self.at;
        let rest = &self.text.as_bytes()[start..];
        let len = memchr::memchr2(b'"', b'\\', rest)
            .ok_or_else(|| self.error("a key's closing quote"))?;
        if rest[len] == b'\\' {
            return Err(format!(
                "a key holds an escape at column {}",
                start + len + 1
            ));
        }
        self.at = start + len + 1;
        Ok(&self.text[start..start + len])
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, String> {
        match self.peek() {
            Some(b'"') => self.string().map(Value::Text),
            Some(b'n') if self.text[self.at..].starts_with("null") => {
                self.at += 4;
                Ok(Value::Null)
            }
            Some(b'[') if depth < 8 => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Ok(Value::List(items));
                }
                loop {
                    self.space();
                    items.push(self.value(depth + 1)?);
                    self.space();
                    match self.bump() {
                        Some(b',') => {}
                        Some(b']') => return Ok(Value::List(items)),
                        _ => return Err(self.error("',' or ']'")),
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error("a number, a string, null or an array")),
        }
    }

    /// A number: an integer (`u64`, or `i64` below zero) unless it has a fraction or an
    /// exponent (or does not fit), then the nearest `f64`.
    fn number(&mut self) -> Result<Value<'a>, String> {
        let start = self.at;
        let bytes = self.text.as_bytes();
        let negative = bytes.get(self.at) == Some(&b'-');
        self.at += usize::from(negative);
        // The integer part, accumulated as it is scanned (most numbers are integers).
        let digits = self.at;
        let mut n: Option<u64> = Some(0);
        while let Some(&b) = bytes.get(self.at).filter(|b| b.is_ascii_digit()) {
            n = n
                .and_then(|n| n.checked_mul(10))
                .and_then(|n| n.checked_add(u64::from(b - b'0')));
            self.at += 1;
        }
        if self.at == digits {
            return Err(format!("a number without digits (column {})", start + 1));
        }
        let fraction = matches!(bytes.get(self.at), Some(b'.' | b'e' | b'E'));
        match (fraction, n, negative) {
            (false, Some(n), false) => return Ok(Value::UInt(n)),
            (false, Some(0), true) => return Ok(Value::UInt(0)),
            (false, Some(n), true) if n <= 1 << 63 => {
                return Ok(Value::Int((n as i64).wrapping_neg()));
            }
            _ => {}
        }
        while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = bytes.get(self.at) {
            self.at += 1;
        }
        let token = &self.text[start..self.at];
        token
            .parse::<f64>()
            .map(Value::Float)
            .map_err(|_| format!("'{token}' is not a number (column {})", start + 1))
    }

    /// A string value, its escapes decoded (borrowed from the row if it has none).
    fn string(&mut self) -> Result<Cow<'a, str>, String> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let rest = &self.text.as_bytes()[self.at..];
            let len = memchr::memchr2(b'"', b'\\', rest)
                .ok_or_else(|| self.error("a string's closing quote"))?;
            let piece = &self.text[self.at..self.at + len];
            self.at += len + 1;
            if rest[len] == b'"' && out.is_empty() {
                return Ok(Cow::Borrowed(piece));
            }
            out.push_str(piece);
            if rest[len] == b'"' {
                return Ok(Cow::Owned(out));
            }
            let c = match self.bump() {
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b'/') => '/',
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                Some(b'u') => {
                    let high = self.hex4()?;
                    let code = if (0xD800..0xDC00).contains(&high) {
                        if !self.text[self.at..].starts_with("\\u") {
                            return Err(self.error("a low surrogate"));
                        }
                        self.at += 2;
                        let low = self.hex4()?;
                        if !(0xDC00..0xE000).contains(&low) {
                            return Err(self.error("a low surrogate"));
                        }
                        0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        high
                    };
                    char::from_u32(code).ok_or_else(|| self.error("a character"))?
                }
                _ => return Err(self.error("an escape")),
            };
            out.push(c);
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .text
            .get(self.at..self.at + 4)
            .ok_or_else(|| self.error("four hex digits"))?;
        let v = u32::from_str_radix(digits, 16).map_err(|_| self.error("four hex digits"))?;
        self.at += 4;
        Ok(v)
    }
}

/// A column's Parquet type (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Double,
    Text,
    List,
}

impl Kind {
    /// The kind of a column whose first row group holds `values`.
    fn of(values: &[Value]) -> Kind {
        let (mut int, mut float, mut text, mut list) = (false, false, false, false);
        for v in values {
            match v {
                Value::UInt(_) | Value::Int(_) => int = true,
                Value::Float(_) | Value::Null => float = true,
                Value::Text(t) if t == "none" => {}
                Value::Text(_) => text = true,
                Value::List(_) => list = true,
            }
        }
        match (list, text, float, int) {
            (true, ..) => Kind::List,
            (_, true, ..) => Kind::Text,
            (_, _, true, _) => Kind::Double,
            (_, _, _, true) => Kind::Int,
            _ => Kind::Text,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Int => "integers",
            Kind::Double => "numbers",
            Kind::Text => "words",
            Kind::List => "lists of integers",
        }
    }

    /// The column's schema field.
    fn field(self, key: &str) -> parquet::errors::Result<Type> {
        let optional = |physical| {
            Type::primitive_type_builder(key, physical).with_repetition(Repetition::OPTIONAL)
        };
        match self {
            Kind::Int => optional(Physical::INT64).build(),
            Kind::Double => optional(Physical::DOUBLE).build(),
            Kind::Text => optional(Physical::BYTE_ARRAY)
                .with_logical_type(Some(LogicalType::String))
                .build(),
            // The three-level list every reader knows: `optional group KEY (LIST) { repeated
            // group list { required int64 element; } }`.
            Kind::List => {
                let element = Type::primitive_type_builder("element", Physical::INT64)
                    .with_repetition(Repetition::REQUIRED)
                    .build()?;
                let list = Type::group_type_builder("list")
                    .with_repetition(Repetition::REPEATED)
                    .with_fields(vec![Arc::new(element)])
                    .build()?;
                Type::group_type_builder(key)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_logical_type(Some(LogicalType::List))
                    .with_fields(vec![Arc::new(list)])
                    .build()
            }
        }
    }
}

/// Writes the JSON Lines written to it as a Parquet file on `out` (see the module's doc):
/// the rows are read line by line as they come, a row group is written every
/// [`ROW_GROUP_ROWS`] rows, and [`ParquetRows::finish`] writes the last one and the footer.
/// Every row must have the first row's keys, in its order.
pub struct ParquetRows<W: Write> {
    out: W,
    /// The bytes after the last newline.
    partial: Vec<u8>,
    /// The first row's keys: the columns.
    keys: Vec<String>,
    /// Each column's values not yet written.
    columns: Vec<Vec<Value<'static>>>,
    /// The rows read (numbered from 1 in errors).
    rows: u64,
    /// The writer, once the first row group has fixed the columns' kinds; it writes to a
    /// buffer whose bytes go to `out` after each row group.
    file: Option<(Vec<Kind>, SerializedFileWriter<Vec<u8>>)>,
}

/// A Parquet or row error as an I/O error of the writer (`InvalidData`: the sweep reports
/// it; the command line as bad input).
fn failed(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("parquet: {e}"))
}

impl<W: Write> ParquetRows<W> {
    /// Returns a writer of the Parquet file of the JSON rows written to it, on `out`.
    pub fn new(out: W) -> Self {
        Self {
            out,
            partial: Vec::new(),
            keys: Vec::new(),
            columns: Vec::new(),
            rows: 0,
            file: None,
        }
    }

    /// Writes the rows not yet written and the file's footer; returns `out`. A file of no
    /// rows has no columns.
    pub fn finish(mut self) -> io::Result<W> {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.push_line(&line)?;
        }
        if self.file.is_none() || !self.columns.first().is_none_or(Vec::is_empty) {
            self.write_group()?;
        }
        let Some((_, file)) = self.file.take() else {
            return Ok(self.out);
        };
        let bytes = file.into_inner().map_err(failed)?;
        self.out.write_all(&bytes)?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn push_line(&mut self, line: &[u8]) -> io::Result<()> {
        let text = std::str::from_utf8(line).map_err(failed)?;
        if text.trim().is_empty() {
            return Ok(());
        }
        self.rows += 1;
        let row = read_row(text).map_err(|e| failed(format!("row {}: {e}", self.rows)))?;
        if self.rows == 1 {
            self.keys = row.iter().map(|(k, _)| (*k).to_string()).collect();
            self.columns = row
                .iter()
                .map(|_| Vec::with_capacity(ROW_GROUP_ROWS))
                .collect();
        }
        let same =
            row.len() == self.keys.len() && row.iter().zip(&self.keys).all(|((k, _), m)| k == m);
        if !same {
            return Err(failed(format!(
                "row {}: its keys are not the first row's (a Parquet file has one set of columns)",
                self.rows
            )));
        }
        for ((_, v), column) in row.into_iter().zip(&mut self.columns) {
            column.push(v.into_owned());
        }
        if self.columns.first().map_or(0, Vec::len) >= ROW_GROUP_ROWS {
            self.write_group()?;
        }
        Ok(())
    }

    /// Writes the values held as one row group (the first fixes the columns' kinds), and
    /// the bytes written so far to `out`.
    fn write_group(&mut self) -> io::Result<()> {
        if self.file.is_none() {
            let kinds: Vec<Kind> = self.columns.iter().map(|c| Kind::of(c)).collect();
            let fields = kinds
                .iter()
                .zip(&self.keys)
                .map(|(kind, key)| kind.field(key).map(Arc::new))
                .collect::<Result<Vec<_>, _>>()
                .map_err(failed)?;
            let schema = Type::group_type_builder("capsim")
                .with_fields(fields)
                .build()
                .map_err(failed)?;
            let props = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .set_created_by(format!("capsim {}", env!("CARGO_PKG_VERSION")))
                .build();
            let file = SerializedFileWriter::new(Vec::new(), Arc::new(schema), Arc::new(props))
                .map_err(failed)?;
            self.file = Some((kinds, file));
        }
        let Some((kinds, file)) = self.file.as_mut() else {
            return Ok(());
        };
        let held = self.columns.first().map_or(0, Vec::len) as u64;
        if held > 0 {
            let first_row = self.rows - held + 1;
            let mut group = file.next_row_group().map_err(failed)?;
            for ((values, kind), key) in self.columns.iter_mut().zip(kinds.iter()).zip(&self.keys) {
                let mut column = group
                    .next_column()
                    .map_err(failed)?
                    .ok_or_else(|| failed("fewer columns than keys"))?;
                write_column(&mut column, *kind, values, key, first_row)?;
                column.close().map_err(failed)?;
                values.clear();
            }
            group.close().map_err(failed)?;
        }
        file.flush()?;
        let bytes = std::mem::take(file.inner_mut());
        self.out.write_all(&bytes)
    }
}

/// Writes one column's values of a row group (row `first_row` the first of them).
fn write_column(
    column: &mut SerializedColumnWriter<'_>,
    kind: Kind,
    values: &[Value],
    key: &str,
    first_row: u64,
) -> io::Result<()> {
    let misfit = |i: usize, v: &Value| {
        let shown = match v {
            Value::Text(t) => format!("'{t}'"),
            Value::List(_) => "a list".to_string(),
            Value::Null => "null".to_string(),
            Value::UInt(n) => n.to_string(),
            Value::Int(n) => n.to_string(),
            Value::Float(f) => serde_json::to_string(f).unwrap_or_default(),
        };
        failed(format!(
            "row {}: column '{key}' holds {shown}, its first rows held {} (a column has one type; --format json or csv keep every value)",
            first_row + i as u64,
            kind.name()
        ))
    };
    let none = |v: &Value| matches!(v, Value::Text(t) if t == "none");
    let mut defs = Vec::with_capacity(values.len());
    match kind {
        Kind::Int => {
            let mut out = Vec::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                match v {
                    Value::UInt(n) => out.push(i64::try_from(*n).map_err(|_| misfit(i, v))?),
                    Value::Int(n) => out.push(*n),
                    v if none(v) => {
                        defs.push(0);
                        continue;
                    }
                    v => return Err(misfit(i, v)),
                }
                defs.push(1);
            }
            column
                .typed::<Int64Type>()
                .write_batch(&out, Some(&defs), None)
        }
        Kind::Double => {
            let mut out = Vec::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                match v {
                    Value::UInt(n) => out.push(*n as f64),
                    Value::Int(n) => out.push(*n as f64),
                    Value::Float(f) => out.push(*f),
                    Value::Null => out.push(f64::NAN),
                    v if none(v) => {
                        defs.push(0);
                        continue;
                    }
                    v => return Err(misfit(i, v)),
                }
                defs.push(1);
            }
            column
                .typed::<DoubleType>()
                .write_batch(&out, Some(&defs), None)
        }
        Kind::Text => {
            let mut out = Vec::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                let text = match v {
                    Value::Text(t) => t.to_string(),
                    Value::UInt(n) => n.to_string(),
                    Value::Int(n) => n.to_string(),
                    Value::Float(f) => serde_json::to_string(f).map_err(failed)?,
                    Value::Null => {
                        defs.push(0);
                        continue;
                    }
                    v => return Err(misfit(i, v)),
                };
                out.push(ByteArray::from(text.into_bytes()));
                defs.push(1);
            }
            column
                .typed::<ByteArrayType>()
                .write_batch(&out, Some(&defs), None)
        }
        Kind::List => {
            // Definition levels: 0 null, 1 an empty list, 2 an element; repetition levels: 0
            // a row's first element (or its empty list, or null), 1 the next ones.
            let mut out = Vec::new();
            let mut reps = Vec::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                match v {
                    Value::List(items) if items.is_empty() => {
                        defs.push(1);
                        reps.push(0);
                    }
                    Value::List(items) => {
                        for (k, item) in items.iter().enumerate() {
                            match item {
                                Value::UInt(n) => {
                                    out.push(i64::try_from(*n).map_err(|_| misfit(i, v))?)
                                }
                                Value::Int(n) => out.push(*n),
                                _ => return Err(misfit(i, v)),
                            }
                            defs.push(2);
                            reps.push(i16::from(k > 0));
                        }
                    }
                    v if none(v) => {
                        defs.push(0);
                        reps.push(0);
                    }
                    v => return Err(misfit(i, v)),
                }
            }
            column
                .typed::<Int64Type>()
                .write_batch(&out, Some(&defs), Some(&reps))
        }
    }
    .map(drop)
    .map_err(failed)
}

impl<W: Write> Write for ParquetRows<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Only the new bytes are searched: a row comes in many small writes.
        let Some(last) = memchr::memrchr(b'\n', buf) else {
            self.partial.extend_from_slice(buf);
            return Ok(buf.len());
        };
        let last = self.partial.len() + last;
        self.partial.extend_from_slice(buf);
        let mut held = self.partial.split_off(last + 1);
        std::mem::swap(&mut held, &mut self.partial);
        for line in held.split(|&b| b == b'\n') {
            self.push_line(line)?;
        }
        Ok(buf.len())
    }

    /// Flushes `out` (a row group is written when it is full, not at each flush: a sweep
    /// flushes after every window).
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows read back keep their keys' order, their integers and their floats' exact values.
    #[test]
    fn rows_are_read_as_written() {
        let row = read_row(
            r#"{"b":1,"a":-2,"c":0.1,"d":1e+21,"e":null,"f":"none","g":[40,95],"h":[],"i":18446744073709551615}"#,
        )
        .unwrap();
        assert_eq!(
            row,
            vec![
                ("b", Value::UInt(1)),
                ("a", Value::Int(-2)),
                ("c", Value::Float(0.1)),
                ("d", Value::Float(1e21)),
                ("e", Value::Null),
                ("f", Value::Text("none".into())),
                ("g", Value::List(vec![Value::UInt(40), Value::UInt(95)])),
                ("h", Value::List(vec![])),
                ("i", Value::UInt(u64::MAX)),
            ]
        );
        // Every double's shortest text reads back as that double, bit for bit.
        let mut bits = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            bits = bits.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let x = f64::from_bits(bits);
            if !x.is_finite() {
                continue;
            }
            let text = format!("{{\"x\":{}}}", serde_json::to_string(&x).unwrap());
            match &read_row(&text).unwrap()[..] {
                [("x", Value::Float(y))] => assert_eq!(y.to_bits(), x.to_bits(), "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        // Escapes, as serde_json writes them.
        let text = "a\"b\\c\n\u{1}é😀";
        let line = format!("{{\"k\":{}}}", serde_json::to_string(text).unwrap());
        assert_eq!(
            read_row(&line).unwrap(),
            vec![("k", Value::Text(text.into()))]
        );
        assert_eq!(
            read_row(r#"{"k":"\u00e9\ud83d\ude00\/"}"#).unwrap(),
            vec![("k", Value::Text("é😀/".into()))]
        );
        for bad in [
            "[1]",
            "{\"a\":{\"b\":1}}",
            "{\"a\":true}",
            "{\"a\":1} x",
            "{\"a\\u0062\":1}",
            "{\"a\":1",
            "{\"a\":\"x}",
            "{\"a\":-}",
            "{\"a\":.5}",
            "{\"a\":\"\\ud83d\"}",
            "{\"a\":[1,}",
        ] {
            assert!(read_row(bad).is_err(), "{bad}");
        }
    }

    /// A row of known keys reads its values as `read_row` does; other keys, their order or
    /// a space are `None` (for `read_row` to read).
    #[test]
    fn values_of_known_keys_are_read_as_rows_are() {
        let line =
            r#"{"a":1,"b":-2.5e-3,"c":"x\"y","d":[1,[2]],"e":null,"f":-9223372036854775808}"#;
        let keys: Vec<String> = ["a", "b", "c", "d", "e", "f"].map(String::from).to_vec();
        let row: Vec<Value> = read_row(line)
            .unwrap()
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        assert_eq!(read_values(line, &keys).unwrap(), Some(row));
        assert_eq!(read_values(r#"{"a":1,"b":2}"#, &keys).unwrap(), None);
        assert_eq!(read_values(r#"{"a":1, "b":2}"#, &keys[..2]).unwrap(), None);
        assert_eq!(read_values(r#"{"b":1,"a":2}"#, &keys[..2]).unwrap(), None);
        assert_eq!(read_values(r#"{"a":1,"b":2} "#, &keys[..2]).unwrap(), None);
        assert_eq!(read_values("{}", &[]).unwrap(), Some(vec![]));
        assert!(read_values(r#"{"a":x}"#, &keys[..1]).is_err());
        // Integers at their bounds, and past them floats.
        let big = read_row(r#"{"a":18446744073709551615,"b":18446744073709551616,"c":-9223372036854775809,"d":-0}"#).unwrap();
        assert_eq!(
            big.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
            vec![
                Value::UInt(u64::MAX),
                Value::Float(18446744073709551616.0),
                Value::Float(-9223372036854775809.0),
                Value::UInt(0)
            ]
        );
    }

    /// The column kinds of the module's table.
    #[test]
    fn kinds_follow_the_first_rows() {
        let t = |s: &str| Value::Text(s.to_string().into());
        assert_eq!(Kind::of(&[Value::UInt(1), Value::Int(-1)]), Kind::Int);
        assert_eq!(Kind::of(&[Value::UInt(1), t("none")]), Kind::Int);
        assert_eq!(Kind::of(&[Value::UInt(1), Value::Float(0.5)]), Kind::Double);
        assert_eq!(Kind::of(&[Value::Null, t("none")]), Kind::Double);
        assert_eq!(Kind::of(&[t("none"), t("shared")]), Kind::Text);
        assert_eq!(Kind::of(&[t("none")]), Kind::Text);
        assert_eq!(Kind::of(&[Value::List(vec![]), t("none")]), Kind::List);
    }

    /// A float after a row group of integers names its row and column.
    #[test]
    fn a_value_that_does_not_fit_its_column_is_an_error() {
        let mut w = ParquetRows::new(Vec::new());
        for i in 0..ROW_GROUP_ROWS {
            writeln!(w, "{{\"a\":{i}}}").unwrap();
        }
        let e = writeln!(w, "{{\"a\":0.5}}").and_then(|()| w.finish().map(drop));
        assert_eq!(
            e.unwrap_err().to_string(),
            format!("parquet: row {}: column 'a' holds 0.5, its first rows held integers (a column has one type; --format json or csv keep every value)", ROW_GROUP_ROWS + 1)
        );
        let mut w = ParquetRows::new(Vec::new());
        writeln!(w, "{{\"a\":1}}").unwrap();
        assert_eq!(
            writeln!(w, "{{\"b\":1}}").unwrap_err().to_string(),
            "parquet: row 2: its keys are not the first row's (a Parquet file has one set of columns)"
        );
    }

    /// The file starts and ends with Parquet's magic, and the same rows give the same bytes.
    #[test]
    fn the_file_is_parquet_and_its_bytes_depend_on_the_rows_only() {
        let write = || {
            let mut w = ParquetRows::new(Vec::new());
            w.write_all(b"{\"a\":1,\"b\":0.5,\"c\":\"x\",\"d\":[1,2]}\n{\"a\":2,")
                .unwrap();
            w.write_all(b"\"b\":null,\"c\":\"none\",\"d\":[]}\n")
                .unwrap();
            w.finish().unwrap()
        };
        let bytes = write();
        assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
        assert_eq!(bytes, write());
        // No rows: a file of no columns.
        let empty = ParquetRows::new(Vec::new()).finish().unwrap();
        assert!(empty.starts_with(b"PAR1") && empty.ends_with(b"PAR1"));
    }
}
