//! `capsim._capsim`: the capsim library called from Python, the door the browser playground
//! uses ([`capsim::query`]: a command as (flag, value) pairs, the command line's grammar,
//! rules and error lines). The Python package (`capsim/__init__.py`) turns keyword
//! arguments into pairs and these functions run them:
//!
//! - [`rows`]: a command's JSON rows (`format=json`), read back exactly
//!   ([`capsim::parquet::read_row`]) into columns: a column of integers only or of floats
//!   only (JSON's `null`, a NaN, among them) as the bytes of an `int64` or `float64` array,
//!   any other as a list of Python values (int, float, str, None, list);
//! - [`text`]: what a command prints (a lesson, a plot's SVG, `--columns help`);
//! - [`parquet`]: a grid's rows as a Parquet file ([`capsim::parquet::ParquetRows`]).
//!
//! A command runs on a thread of its own, without the GIL; the calling thread waits for its
//! output with the GIL released, takes the rows as each window of runs is written, and checks
//! for signals every 50 ms: Ctrl-C raises `KeyboardInterrupt` at once, and the command stops
//! at its next write. A bad value raises `ValueError` with the command line's error line
//! (without its `error: `).

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

use capsim::parquet::{read_row, ParquetRows, Value};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

/// How often the waiting thread checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// The rows sent to the calling thread at once (and a window's last ones when it is
/// flushed): the calling thread converts them while the next are read.
const BATCH_ROWS: usize = 256;

/// A command: its (flag, value) pairs, and the texts read as files of the given paths
/// (formula texts and demand curves, [`capsim::input::with_file`]).
struct Command {
    pairs: Vec<(String, String)>,
    files: Vec<(String, String)>,
}

/// What the command's thread sends.
enum Message<T> {
    /// The keys of the rows that follow (sent before the first row, and again if a row's
    /// keys are not the previous row's).
    Keys(Vec<String>),
    /// Rows (their values, in their keys' order), in order.
    Rows(Vec<Vec<Value>>),
    /// The command ended: its output's result, or its error line.
    Done(Result<T, String>),
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

/// JSON Lines, read into rows and sent in batches.
struct RowSink {
    partial: Vec<u8>,
    keys: Vec<String>,
    batch: Vec<Vec<Value>>,
    tx: Sender<Message<()>>,
    stop: Stop,
}

impl RowSink {
    fn send(&mut self) {
        if !self.batch.is_empty() {
            let _ = self.tx.send(Message::Rows(std::mem::take(&mut self.batch)));
        }
    }

    fn line(&mut self, line: &[u8]) -> io::Result<()> {
        if line.is_empty() {
            return Ok(());
        }
        let text = std::str::from_utf8(line).map_err(io::Error::other)?;
        let row = read_row(text).map_err(|e| io::Error::other(format!("a row: {e}: {text}")))?;
        let same = row.len() == self.keys.len()
            && row.iter().zip(&self.keys).all(|((k, _), known)| k == known);
        if !same {
            self.send();
            self.keys = row.iter().map(|(k, _)| (*k).to_string()).collect();
            let _ = self.tx.send(Message::Keys(self.keys.clone()));
        }
        self.batch.push(row.into_iter().map(|(_, v)| v).collect());
        if self.batch.len() >= BATCH_ROWS {
            self.send();
        }
        Ok(())
    }
}

impl Write for RowSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stop.check()?;
        // Only the new bytes are searched: a row comes in many small writes.
        let Some(last) = buf.iter().rposition(|&b| b == b'\n') else {
            self.partial.extend_from_slice(buf);
            return Ok(buf.len());
        };
        let last = self.partial.len() + last;
        self.partial.extend_from_slice(buf);
        let mut lines = self.partial.split_off(last + 1);
        std::mem::swap(&mut lines, &mut self.partial);
        for line in lines.split(|&b| b == b'\n') {
            self.line(line)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stop.check()?;
        self.send();
        Ok(())
    }
}

impl Sink for RowSink {
    type Done = ();
    fn finish(mut self) -> io::Result<()> {
        let rest = std::mem::take(&mut self.partial);
        self.line(&rest)?;
        self.send();
        Ok(())
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

/// Runs `command` on a thread of its own into the sink `make` returns, handing its keys and
/// each batch of rows to `rows` on this thread; returns the sink's result.
fn run<S: Sink>(
    py: Python<'_>,
    command: Command,
    make: impl FnOnce(Sender<Message<S::Done>>, Stop) -> S + Send + 'static,
    mut rows: impl FnMut(Python<'_>, Message<S::Done>) -> PyResult<()>,
) -> PyResult<S::Done> {
    let stop = Stop(Arc::new(AtomicBool::new(false)));
    let (tx, rx) = mpsc::channel::<Message<S::Done>>();
    let thread_stop = stop.clone();
    std::thread::Builder::new()
        .name("capsim".into())
        .spawn(move || {
            // The rows come a token at a time: buffered, the sink reads them in blocks (a
            // sweep's flush after each window reaches it).
            let mut out = io::BufWriter::with_capacity(1 << 16, make(tx.clone(), thread_stop));
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
            let _ = tx.send(Message::Done(result));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("capsim: cannot start a thread: {e}")))?;
    let interrupted = |e: PyErr| {
        stop.0.store(true, Ordering::Relaxed);
        e
    };
    let mut rx = rx;
    loop {
        // The receiver is not `Sync`: it goes to the waiting closure and comes back.
        let (message, back) = py.detach(move || (rx.recv_timeout(SIGNAL_CHECK), rx));
        rx = back;
        py.check_signals().map_err(interrupted)?;
        match message {
            Ok(Message::Done(result)) => return result.map_err(|e| value_error(&e)),
            Ok(message) => rows(py, message).map_err(interrupted)?,
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

/// One column's values: typed while every value so far fits the type.
enum Column {
    /// Integers, each fitting an `i64` (or no value yet).
    Int(Vec<i64>),
    /// Floats, JSON's `null` (a NaN) as NaN; `nulls` are the rows of the nulls, given back as
    /// `None` if the column becomes one of objects.
    Float(Vec<f64>, Vec<usize>),
    /// Python objects.
    Objects(Vec<Py<PyAny>>),
}

/// Returns `v` as Python's value: int, float, str, None (JSON's null), list.
fn to_python(py: Python<'_>, value: Value) -> PyResult<Py<PyAny>> {
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

impl Column {
    /// Makes the column one of Python objects (if it is not) and returns them.
    fn objects(&mut self, py: Python<'_>) -> PyResult<&mut Vec<Py<PyAny>>> {
        let objects = match std::mem::replace(self, Column::Objects(Vec::new())) {
            Column::Objects(v) => v,
            Column::Int(v) => v
                .into_iter()
                .map(|n| Ok(n.into_pyobject(py)?.into_any().unbind()))
                .collect::<PyResult<_>>()?,
            Column::Float(v, nulls) => {
                let mut objects: Vec<Py<PyAny>> = v
                    .into_iter()
                    .map(|f| Ok(f.into_pyobject(py)?.into_any().unbind()))
                    .collect::<PyResult<_>>()?;
                for i in nulls {
                    objects[i] = py.None();
                }
                objects
            }
        };
        *self = Column::Objects(objects);
        let Column::Objects(v) = self else {
            unreachable!("the column was just made one of objects")
        };
        Ok(v)
    }

    /// Appends `value` (`None`: the row lacks the key); `last` is the column's last text
    /// and its object (rows repeat their words).
    fn push(
        &mut self,
        py: Python<'_>,
        value: Option<Value>,
        last: &mut Option<(String, Py<PyAny>)>,
    ) -> PyResult<()> {
        match (&mut *self, value) {
            (Column::Int(v), Some(Value::UInt(n))) if i64::try_from(n).is_ok() => {
                v.push(n as i64);
                return Ok(());
            }
            (Column::Int(v), Some(Value::Int(n))) => {
                v.push(n);
                return Ok(());
            }
            (Column::Float(v, _), Some(Value::Float(f))) => {
                v.push(f);
                return Ok(());
            }
            (Column::Float(v, nulls), Some(Value::Null)) => {
                nulls.push(v.len());
                v.push(f64::NAN);
                return Ok(());
            }
            // A column of no value yet takes the first value's type.
            (Column::Int(v), Some(Value::Float(f))) if v.is_empty() => {
                *self = Column::Float(vec![f], Vec::new());
                return Ok(());
            }
            (Column::Int(v), Some(Value::Null)) if v.is_empty() => {
                *self = Column::Float(vec![f64::NAN], vec![0]);
                return Ok(());
            }
            (_, value) => {
                let object = match value {
                    None => py.None(),
                    Some(Value::Text(t)) => match last {
                        Some((text, object)) if *text == t => object.clone_ref(py),
                        _ => {
                            let object = PyString::new(py, &t).into_any().unbind();
                            *last = Some((t, object.clone_ref(py)));
                            object
                        }
                    },
                    Some(other) => to_python(py, other)?,
                };
                self.objects(py)?.push(object);
            }
        }
        Ok(())
    }

    /// The column for Python: `("q", bytes)` (int64), `("d", bytes)` (float64), both
    /// little-endian, or `("o", list)`.
    fn into_python(self, py: Python<'_>) -> PyResult<PyColumn> {
        Ok(match self {
            Column::Int(v) => {
                let bytes: Vec<u8> = v.iter().flat_map(|n| n.to_le_bytes()).collect();
                ("q", PyBytes::new(py, &bytes).into_any().unbind())
            }
            Column::Float(v, _) => {
                let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
                ("d", PyBytes::new(py, &bytes).into_any().unbind())
            }
            Column::Objects(v) => ("o", PyList::new(py, v)?.into_any().unbind()),
        })
    }
}

/// Rows as columns: every key any row has, in the order first seen, and its values, a row
/// each.
struct Columns {
    typed: bool,
    names: Vec<String>,
    columns: Vec<Column>,
    last_text: Vec<Option<(String, Py<PyAny>)>>,
    /// Where the current keys' values go: a column index per key.
    at: Vec<usize>,
    rows: usize,
}

impl Columns {
    fn new(typed: bool) -> Self {
        Self {
            typed,
            names: Vec::new(),
            columns: Vec::new(),
            last_text: Vec::new(),
            at: Vec::new(),
            rows: 0,
        }
    }

    /// The rows that follow have `keys`.
    fn keys(&mut self, py: Python<'_>, keys: Vec<String>) {
        self.at = keys
            .into_iter()
            .map(|key| match self.names.iter().position(|n| *n == key) {
                Some(i) => i,
                None => {
                    self.names.push(key);
                    let column = if self.typed && self.rows == 0 {
                        Column::Int(Vec::new())
                    } else {
                        Column::Objects((0..self.rows).map(|_| py.None()).collect())
                    };
                    self.columns.push(column);
                    self.last_text.push(None);
                    self.names.len() - 1
                }
            })
            .collect();
    }

    fn push(&mut self, py: Python<'_>, row: Vec<Value>) -> PyResult<()> {
        let complete = self.at.len() == self.columns.len();
        let mut given = if complete {
            Vec::new()
        } else {
            vec![false; self.columns.len()]
        };
        for (value, &i) in row.into_iter().zip(&self.at) {
            if !self.typed {
                let object = to_python(py, value)?;
                self.columns[i].objects(py)?.push(object);
            } else {
                self.columns[i].push(py, Some(value), &mut self.last_text[i])?;
            }
            if !complete {
                given[i] = true;
            }
        }
        for (i, given) in given.into_iter().enumerate() {
            if !given {
                self.columns[i].push(py, None, &mut self.last_text[i])?;
            }
        }
        self.rows += 1;
        Ok(())
    }
}

/// A column as [`rows`] returns it: its kind (`q`, `d`, `o`) and its values.
type PyColumn = (&'static str, Py<PyAny>);

/// Runs the command the pairs give (with `format=json` among them, or a trace's
/// `evaluations`) and returns its JSON rows as `(keys, columns)`: every key, in the rows'
/// order, and for each its values, a row each. With `typed`, a column of integers only is
/// `("q", bytes)` and one of floats only (NaN for JSON's null) `("d", bytes)`, the bytes of
/// a little-endian int64 or float64 array; any other column (every column without `typed`)
/// is `("o", list)`, its values as Python's (None for JSON's null and for a key a row lacks).
#[pyfunction]
fn rows(
    py: Python<'_>,
    pairs: Vec<(String, String)>,
    files: Vec<(String, String)>,
    typed: bool,
) -> PyResult<(Vec<String>, Vec<PyColumn>)> {
    let mut columns = Columns::new(typed);
    run(
        py,
        command(pairs, files),
        |tx, stop| RowSink {
            partial: Vec::new(),
            keys: Vec::new(),
            batch: Vec::new(),
            tx,
            stop,
        },
        |py, message| {
            match message {
                Message::Keys(keys) => columns.keys(py, keys),
                Message::Rows(batch) => {
                    for row in batch {
                        columns.push(py, row)?;
                    }
                }
                Message::Done(_) => {}
            }
            Ok(())
        },
    )?;
    let values = columns
        .columns
        .into_iter()
        .map(|c| c.into_python(py))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((columns.names, values))
}

/// Runs the command the pairs give and returns what it prints.
#[pyfunction]
fn text(
    py: Python<'_>,
    pairs: Vec<(String, String)>,
    files: Vec<(String, String)>,
) -> PyResult<String> {
    let bytes = run(
        py,
        command(pairs, files),
        |_, stop| TextSink {
            bytes: Vec::new(),
            stop,
        },
        |_, _| Ok(()),
    )?;
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
    run(
        py,
        command(pairs, files),
        move |_, stop| ParquetSink {
            rows: ParquetRows::new(io::BufWriter::new(file)),
            stop,
        },
        |_, _| Ok(()),
    )
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
