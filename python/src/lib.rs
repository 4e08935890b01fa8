//! `capsim._capsim`: the capsim library called from Python, through the door the browser
//! playground uses ([`capsim::query`]: a command as (flag, value) pairs, the command line's
//! grammar, rules and error lines). The Python package (`capsim/__init__.py`) turns keyword
//! arguments into pairs and these functions run them:
//!
//! - [`rows`]: a command's JSON rows (`format=json`), read back exactly
//!   ([`capsim::parquet::read_row`]) into columns: a column of integers only or of floats
//!   only (JSON's `null`, a NaN, among them) as the bytes of an `int64` or `float64` array,
//!   any other as a list of Python values (int, float, str, None, list);
//! - [`text`]: what a command prints (a lesson, a plot's SVG, `--columns help`);
//! - [`parquet`]: a grid's rows as a Parquet file ([`capsim::parquet::ParquetRows`]).
//!
//! A command runs on a thread of its own, without the GIL, and a second thread reads its rows
//! into columns as it writes them (the command's window of runs is written while the last
//! one's rows are read); the calling thread waits with the GIL released and checks for signals
//! every 50 ms: Ctrl-C raises `KeyboardInterrupt` at once, and the command stops at its next
//! write. A bad value raises `ValueError` with the command line's error line (without its
//! `error: `).

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use capsim::parquet::{read_row, read_row_with, read_values, ParquetRows, Value};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

/// How often the waiting thread checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// A command: its (flag, value) pairs, and the texts read as files of the given paths
/// (formula texts and demand curves, [`capsim::input::with_file`]).
struct Command {
    pairs: Vec<(String, String)>,
    files: Vec<(String, String)>,
}

/// Where a command's stdout goes, on the command's thread.
trait Sink: Write + Send + 'static {
    type Done: Send + 'static;
    /// Ends the output (after a command that succeeded).
    fn finish(self) -> io::Result<Self::Done>;
}

/// Stops writes once the caller is interrupted.
#[derive(Clone)]
struct Stop(Arc<AtomicBool>);

impl Stop {
    fn check(&self) -> io::Result<()> {
        if self.0.load(Ordering::Relaxed) {
            return Err(io::Error::other("interrupted"));
        }
        Ok(())
    }
}

/// A value of a column of Python objects, as read.
enum Item {
    /// The column's word of this index (rows repeat their words: each is made once).
    Word(u32),
    /// Any other value.
    Value(Value<'static>),
}

/// One column's values, typed while every value so far fits the type.
enum Built {
    /// Integers, each fitting an `i64` (or no value yet).
    Int(Vec<i64>),
    /// Floats, JSON's `null` (a NaN) as NaN; `nulls` holds the rows of the nulls, given back
    /// as `None` if the column becomes one of objects.
    Float(Vec<f64>, Vec<usize>),
    /// Python objects to be.
    Objects(Vec<Item>),
}

/// One column being read.
struct Column {
    built: Built,
    words: Words,
}

/// A column's words, each made once as a Python string.
#[derive(Default)]
struct Words {
    /// The words, each word's index, and the last word's.
    words: Vec<String>,
    index: HashMap<String, u32>,
    last: u32,
}

impl Words {
    /// The item of `value` in a column of objects.
    fn item(&mut self, value: Value<'_>) -> Item {
        let Value::Text(t) = value else {
            return Item::Value(value.into_owned());
        };
        // Most often the last word again.
        if self.words.get(self.last as usize).map(String::as_str) == Some(&*t) {
            return Item::Word(self.last);
        }
        let i = match self.index.get(t.as_ref()) {
            Some(&i) => i,
            None => {
                let i = self.words.len() as u32;
                self.index.insert(t.to_string(), i);
                self.words.push(t.into_owned());
                i
            }
        };
        self.last = i;
        Item::Word(i)
    }
}

impl Column {
    /// An empty column: typed, of integers until a value is not one; else of objects.
    fn new(typed: bool) -> Self {
        let built = if typed {
            Built::Int(Vec::new())
        } else {
            Built::Objects(Vec::new())
        };
        Self {
            built,
            words: Words::default(),
        }
    }

    /// Appends `value`.
    fn push(&mut self, value: Value<'_>) {
        let value = match (&mut self.built, value) {
            (Built::Objects(items), value) => return items.push(self.words.item(value)),
            (Built::Int(v), Value::UInt(n)) if n <= i64::MAX as u64 => return v.push(n as i64),
            (Built::Int(v), Value::Int(n)) => return v.push(n),
            (Built::Float(v, _), Value::Float(f)) => return v.push(f),
            (Built::Float(v, nulls), Value::Null) => {
                nulls.push(v.len());
                return v.push(f64::NAN);
            }
            // A column of no value yet takes the first value's type.
            (Built::Int(v), Value::Float(f)) if v.is_empty() => {
                self.built = Built::Float(vec![f], Vec::new());
                return;
            }
            (Built::Int(v), Value::Null) if v.is_empty() => {
                self.built = Built::Float(vec![f64::NAN], vec![0]);
                return;
            }
            (_, value) => value,
        };
        // A value that does not fit the type: the column becomes one of objects.
        let items = match std::mem::replace(&mut self.built, Built::Objects(Vec::new())) {
            Built::Objects(items) => items,
            Built::Int(v) => v
                .into_iter()
                .map(|n| {
                    Item::Value(match u64::try_from(n) {
                        Ok(u) => Value::UInt(u),
                        Err(_) => Value::Int(n),
                    })
                })
                .collect(),
            Built::Float(v, nulls) => {
                let mut items: Vec<Item> = v
                    .into_iter()
                    .map(|f| Item::Value(Value::Float(f)))
                    .collect();
                for i in nulls {
                    items[i] = Item::Value(Value::Null);
                }
                items
            }
        };
        let mut items = items;
        items.push(self.words.item(value));
        self.built = Built::Objects(items);
    }

    /// The column for Python: `("q", bytes)` (int64), `("d", bytes)` (float64), both
    /// little-endian, or `("o", list)`.
    fn into_python(self, py: Python<'_>) -> PyResult<PyColumn> {
        Ok(match self.built {
            Built::Int(v) => {
                let bytes: Vec<u8> = v.iter().flat_map(|n| n.to_le_bytes()).collect();
                ("q", PyBytes::new(py, &bytes).into_any().unbind())
            }
            Built::Float(v, _) => {
                let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
                ("d", PyBytes::new(py, &bytes).into_any().unbind())
            }
            Built::Objects(items) => {
                let words: Vec<Py<PyAny>> = self
                    .words
                    .words
                    .iter()
                    .map(|w| PyString::new(py, w).into_any().unbind())
                    .collect();
                let objects = items
                    .into_iter()
                    .map(|item| match item {
                        Item::Word(i) => Ok(words[i as usize].clone_ref(py)),
                        Item::Value(v) => to_python(py, v),
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                ("o", PyList::new(py, objects)?.into_any().unbind())
            }
        })
    }
}

/// Returns `value` as Python's: int, float, str, None (JSON's null), list.
fn to_python(py: Python<'_>, value: Value<'_>) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::UInt(n) => n.into_pyobject(py)?.into_any().unbind(),
        Value::Int(n) => n.into_pyobject(py)?.into_any().unbind(),
        Value::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        Value::Text(t) => PyString::new(py, &t).into_any().unbind(),
        Value::List(items) => {
            let items = items
                .into_iter()
                .map(|v| to_python(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
    })
}

/// A command's JSON Lines read into columns: the first row's keys, in its order, and each
/// key's values, a row each. Every row has the first row's keys (a grid's, a trace's and an
/// evaluation log's rows do).
struct Table {
    typed: bool,
    /// The bytes after the last newline read.
    partial: Vec<u8>,
    names: Vec<String>,
    columns: Vec<Column>,
    rows: usize,
}

impl Table {
    fn line(&mut self, line: &[u8]) -> io::Result<()> {
        if line.is_empty() {
            return Ok(());
        }
        let text = std::str::from_utf8(line).map_err(io::Error::other)?;
        let failed = |e: String| io::Error::other(format!("a row: {e}: {text}"));
        if self.rows == 0 {
            let row = read_row(text).map_err(failed)?;
            self.names = row.iter().map(|(k, _)| (*k).to_string()).collect();
            self.columns = row
                .into_iter()
                .map(|(_, value)| {
                    let mut column = Column::new(self.typed);
                    column.push(value);
                    column
                })
                .collect();
        } else if let Some(values) = read_values(text, &self.names).map_err(failed)? {
            for (column, value) in self.columns.iter_mut().zip(values) {
                column.push(value);
            }
        } else {
            let (names, columns) = (&self.names, &mut self.columns);
            let n = read_row_with(text, |i, key, value| match names.get(i) {
                Some(name) if name == key => {
                    columns[i].push(value);
                    Ok(())
                }
                _ => Err(format!(
                    "its key '{key}' is not the first row's (keys: {})",
                    names.join(", ")
                )),
            })
            .map_err(failed)?;
            if n != names.len() {
                return Err(failed(format!(
                    "{n} keys, the first row has {}",
                    names.len()
                )));
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// Reads `buf`'s complete lines (the rest waits for the next block).
    fn read(&mut self, buf: &[u8]) -> io::Result<()> {
        let Some(last) = memchr::memrchr(b'\n', buf) else {
            self.partial.extend_from_slice(buf);
            return Ok(());
        };
        let mut start = 0;
        if !self.partial.is_empty() {
            let first = memchr::memchr(b'\n', buf).unwrap_or(last);
            self.partial.extend_from_slice(&buf[..first]);
            let line = std::mem::take(&mut self.partial);
            self.line(&line)?;
            self.partial = line;
            self.partial.clear();
            start = first + 1;
        }
        while start < last {
            let end = memchr::memchr(b'\n', &buf[start..last]).map_or(last, |n| start + n);
            self.line(&buf[start..end])?;
            start = end + 1;
        }
        self.partial.extend_from_slice(&buf[last + 1..]);
        Ok(())
    }
}

/// A [`Table`] read on a thread of its own: the command writes its rows while the rows
/// before are read (a sweep writes a window's rows on one thread, the other cores idle).
struct PipedTable {
    blocks: Option<mpsc::SyncSender<Vec<u8>>>,
    reader: Option<std::thread::JoinHandle<io::Result<Table>>>,
    stop: Stop,
}

impl PipedTable {
    fn new(mut table: Table, stop: Stop) -> io::Result<Self> {
        let (blocks, rx) = mpsc::sync_channel::<Vec<u8>>(16);
        let reader = std::thread::Builder::new()
            .name("capsim-rows".into())
            .spawn(move || {
                for block in rx {
                    table.read(&block)?;
                }
                let rest = std::mem::take(&mut table.partial);
                table.line(&rest)?;
                Ok(table)
            })?;
        Ok(Self {
            blocks: Some(blocks),
            reader: Some(reader),
            stop,
        })
    }

    /// The reader's result, once it has ended.
    fn join(&mut self) -> io::Result<Table> {
        self.blocks = None;
        match self.reader.take().map(std::thread::JoinHandle::join) {
            Some(Ok(result)) => result,
            _ => Err(io::Error::other(
                "the rows' reader ended (an internal error)",
            )),
        }
    }
}

impl Write for PipedTable {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stop.check()?;
        let sent = self.blocks.as_ref().map(|b| b.send(buf.to_vec()));
        match sent {
            Some(Ok(())) => Ok(buf.len()),
            // The reader stopped at a row it could not read: its error.
            _ => Err(self
                .join()
                .err()
                .unwrap_or_else(|| io::Error::other("the rows' reader ended"))),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stop.check()
    }
}

impl Sink for PipedTable {
    type Done = Table;
    fn finish(mut self) -> io::Result<Table> {
        self.join()
    }
}

/// The bytes, whole.
struct TextSink {
    bytes: Vec<u8>,
    stop: Stop,
}

impl Write for TextSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stop.check()?;
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stop.check()
    }
}

impl Sink for TextSink {
    type Done = Vec<u8>;
    fn finish(self) -> io::Result<Vec<u8>> {
        Ok(self.bytes)
    }
}

/// A Parquet file of the JSON rows.
struct ParquetSink {
    rows: ParquetRows<io::BufWriter<std::fs::File>>,
    stop: Stop,
}

impl Write for ParquetSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stop.check()?;
        self.rows.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stop.check()?;
        self.rows.flush()
    }
}

impl Sink for ParquetSink {
    type Done = ();
    fn finish(self) -> io::Result<()> {
        self.rows.finish()?.flush()
    }
}

/// Runs `f` with each of `files` (path, text) read as a file of that text.
fn with_files<R>(files: &[(String, String)], f: impl FnOnce() -> R) -> R {
    match files.split_first() {
        None => f(),
        Some(((path, text), rest)) => {
            capsim::input::with_file(Path::new(path), text, || with_files(rest, f))
        }
    }
}

/// The `ValueError` of a command's error line: the line without `error: ` (a formula's
/// located error, `<formula>:1:5: error: …`, as it is).
fn value_error(line: &str) -> PyErr {
    PyValueError::new_err(line.strip_prefix("error: ").unwrap_or(line).to_string())
}

/// Runs `command` on a thread of its own into the sink `make` returns; returns the sink's
/// result.
fn run<S: Sink>(
    py: Python<'_>,
    command: Command,
    make: impl FnOnce(Stop) -> S + Send + 'static,
) -> PyResult<S::Done> {
    let stop = Stop(Arc::new(AtomicBool::new(false)));
    let (tx, rx) = mpsc::channel::<Result<S::Done, String>>();
    let thread_stop = stop.clone();
    std::thread::Builder::new()
        .name("capsim".into())
        .spawn(move || {
            // The rows come a token at a time: buffered, the sink reads them in blocks (a
            // sweep's flush after each window reaches it).
            let mut out = io::BufWriter::with_capacity(1 << 16, make(thread_stop));
            let pairs: Vec<(&str, &str)> = command
                .pairs
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let result = with_files(&command.files, || {
                capsim::query::run_into(&pairs, &(), &mut out)
            })
            .and_then(|()| {
                out.into_inner()
                    .map_err(|e| e.into_error())
                    .and_then(Sink::finish)
                    .map_err(|e| format!("error: cannot write the output: {e}"))
            });
            let _ = tx.send(result);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("capsim: cannot start a thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver is not `Sync`: it goes to the waiting closure and comes back.
        let (message, back) = py.detach(move || (rx.recv_timeout(SIGNAL_CHECK), rx));
        rx = back;
        if let Err(e) = py.check_signals() {
            stop.0.store(true, Ordering::Relaxed);
            return Err(e);
        }
        match message {
            Ok(result) => return result.map_err(|e| value_error(&e)),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "capsim: the command's thread ended without a result (an internal error)",
                ))
            }
        }
    }
}

/// The command's pairs and files from Python's lists of (str, str) pairs.
fn command(pairs: Vec<(String, String)>, files: Vec<(String, String)>) -> Command {
    Command { pairs, files }
}

/// A column as [`rows`] returns it: its kind (`q`, `d`, `o`) and its values.
type PyColumn = (&'static str, Py<PyAny>);

/// Runs the command the pairs give (with `format=json` among them, or a trace's
/// `evaluations`) and returns its JSON rows as `(keys, columns)`: every key, in the rows'
/// order, and for each its values, a row each. With `typed`, a column of integers only is
/// `("q", bytes)` and one of floats only (NaN for JSON's null) `("d", bytes)`, the bytes of
/// a little-endian int64 or float64 array; any other column (every column without `typed`)
/// is `("o", list)`, its values as Python's (None for JSON's null). Every row has the first row's keys.
#[pyfunction]
fn rows(
    py: Python<'_>,
    pairs: Vec<(String, String)>,
    files: Vec<(String, String)>,
    typed: bool,
) -> PyResult<(Vec<String>, Vec<PyColumn>)> {
    let table = Table {
        typed,
        partial: Vec::new(),
        names: Vec::new(),
        columns: Vec::new(),
        rows: 0,
    };
    let piped = PipedTable::new(table, Stop(Arc::new(AtomicBool::new(false))))
        .map_err(|e| PyRuntimeError::new_err(format!("capsim: cannot start a thread: {e}")))?;
    let table = run(py, command(pairs, files), move |stop| PipedTable {
        stop,
        ..piped
    })?;
    let columns = table
        .columns
        .into_iter()
        .map(|c| c.into_python(py))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((table.names, columns))
}

/// Runs the command the pairs give and returns what it prints.
#[pyfunction]
fn text(
    py: Python<'_>,
    pairs: Vec<(String, String)>,
    files: Vec<(String, String)>,
) -> PyResult<String> {
    let bytes = run(py, command(pairs, files), |stop| TextSink {
        bytes: Vec::new(),
        stop,
    })?;
    String::from_utf8(bytes).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Runs the grid the pairs give (with `format=json` among them) and writes its rows to the
/// Parquet file `path`.
#[pyfunction]
fn parquet(
    py: Python<'_>,
    pairs: Vec<(String, String)>,
    files: Vec<(String, String)>,
    path: std::path::PathBuf,
) -> PyResult<()> {
    let file = std::fs::File::create(&path)
        .map_err(|e| PyValueError::new_err(format!("cannot write {}: {e}", path.display())))?;
    run(py, command(pairs, files), move |stop| ParquetSink {
        rows: ParquetRows::new(io::BufWriter::new(file)),
        stop,
    })
}

/// The models' parameters as JSON (the playground's form): per model, each flag with its
/// help, accepted values, default and lesson value.
#[pyfunction]
fn params_json() -> String {
    capsim::query::params_json()
}

/// capsim's grids, traces, charts and lessons, from the capsim library (see the `capsim`
/// package).
#[pymodule]
fn _capsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rows, m)?)?;
    m.add_function(wrap_pyfunction!(text, m)?)?;
    m.add_function(wrap_pyfunction!(parquet, m)?)?;
    m.add_function(wrap_pyfunction!(params_json, m)?)?;
    Ok(())
}
