//! What the CLI's integration tests share: running the built `capsim` and the shape of its
//! answers (each test file uses some of these).
#![allow(dead_code)]

pub mod values;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The words of a command line written as one string, split at its spaces:
/// `argv("autoscale --seed 1..=3")`. For arguments that hold no space.
pub fn argv(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Runs the built `capsim` with `args`.
pub fn capsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capsim"))
        .args(args)
        .output()
        .expect("capsim runs")
}

/// Runs `capsim` with `args` and `input` on standard input. capsim may stop reading early
/// (at a bound), so a broken pipe while writing is not an error.
pub fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_capsim"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("capsim starts");
    let _ = child.stdin.take().expect("a stdin pipe").write_all(input);
    child.wait_with_output().expect("capsim runs")
}

/// Runs `capsim` with `args`, asserts it succeeded, and returns its standard output.
pub fn stdout_ok(args: &[&str]) -> String {
    let out = capsim(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs `capsim` with `args` and asserts the contract for bad input: exit status 2, nothing
/// on standard output, exactly one line on standard error starting `error: `, no panic or
/// backtrace. Returns that line (with its newline).
pub fn one_line_error(args: &[&str]) -> String {
    let out = capsim(args);
    let err = String::from_utf8(out.stderr).expect("UTF-8 error");
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{args:?}: {err}"
    );
    err
}

/// [`one_line_error`], and asserts the line contains every one of `needles`. Returns it.
pub fn error_naming(args: &[&str], needles: &[&str]) -> String {
    let err = one_line_error(args);
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: {err} lacks {needle}");
    }
    err
}

/// The JSON Lines `capsim args` prints (it must succeed), each parsed.
pub fn json_rows(args: &[&str]) -> Vec<Value> {
    stdout_ok(args)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The one JSON Line `capsim args` prints.
pub fn json_row(args: &[&str]) -> Value {
    let mut rows = json_rows(args);
    assert_eq!(rows.len(), 1, "{args:?}: one row");
    rows.remove(0)
}

/// `capsim autoscale ARGS --format json`'s one row.
pub fn autoscale_row(args: &[&str]) -> Value {
    json_row(&[&["autoscale"], args, &["--format", "json"]].concat())
}

/// The integer `key` of a JSON row.
pub fn n(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not an integer in {v}"))
}

/// Asserts every `key=value` of `want` (separated by spaces) in the JSON row `v`: a value
/// that reads as JSON (`10`, `0.5`, `[10,21]`) is compared as that JSON, any other as a
/// string (`continue`, `1:0.25:0.0625`). A failure names the key.
pub fn assert_row(v: &Value, want: &str) {
    assert_case("", v, want);
}

/// [`assert_row`] for the case `name` of a table: a failure names the case and the key.
pub fn assert_case(name: &str, v: &Value, want: &str) {
    for pair in want.split_whitespace() {
        let (key, text) = pair
            .split_once('=')
            .unwrap_or_else(|| panic!("{pair}: not key=value"));
        let value = serde_json::from_str(text).unwrap_or_else(|_| Value::from(text));
        assert_eq!(v[key], value, "{name}: {key} in {v}");
    }
}

/// Returns the path of `examples/formulas/<name>`.
pub fn example(name: &str) -> String {
    format!("{}/../examples/formulas/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Returns the path of `<repository root>/<path>`.
pub fn root(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

/// A path `name` under the target's directory for test files (the file is not created).
pub fn temp_path(name: &str) -> String {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Writes `text` to a fresh file under the target directory and returns its path.
pub fn temp_file(name: &str, text: impl AsRef<[u8]>) -> String {
    let path = temp_path(name);
    std::fs::write(&path, text).expect("temporary file written");
    path
}

/// A CSV text (a trace's or a grid's): its header's names and its rows' cells.
pub struct Csv {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    pub fn parse(text: &str) -> Self {
        let mut lines = text.lines();
        let cells = |l: &str| l.split(',').map(String::from).collect::<Vec<_>>();
        let header = cells(lines.next().expect("a CSV header"));
        Self {
            header,
            rows: lines.map(cells).collect(),
        }
    }

    /// `capsim ARGS --format csv`, parsed.
    pub fn of(args: &[&str]) -> Self {
        Self::parse(&stdout_ok(&[args, &["--format", "csv"]].concat()))
    }

    /// The index of the column `name`, if the header has it.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The cells of the column `name`, row by row.
    pub fn column(&self, name: &str) -> Vec<&str> {
        let i = self
            .find(name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header));
        self.rows.iter().map(|r| r[i].as_str()).collect()
    }

    /// The column `name` read as integers.
    pub fn ints(&self, name: &str) -> Vec<u64> {
        self.column(name)
            .iter()
            .map(|c| c.parse().unwrap_or_else(|_| panic!("{name}: {c}")))
            .collect()
    }

    /// The column `name` summed.
    pub fn sum(&self, name: &str) -> u64 {
        self.ints(name).iter().sum()
    }
}

/// The texts of an SVG written by `capsim plot`, in document order, joined by spaces: a
/// legend entry wrapped over two `<text>` lines reads as one phrase.
pub fn svg_words(svg: &str) -> String {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest))
        .filter_map(|t| t.split_once("</text>").map(|(text, _)| text.trim()))
        .collect::<Vec<_>>()
        .join(" ")
}
