//! What the CLI's integration tests share: running the built `capsim` and the shape of its
//! answers (each test file uses some of these).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the built `capsim` with `args`.
pub fn capsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capsim"))
        .args(args)
        .output()
        .expect("capsim runs")
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

/// Returns the path of `examples/formulas/<name>`.
pub fn example(name: &str) -> String {
    format!("{}/../examples/formulas/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Writes `text` to a fresh file under the target directory and returns its path.
pub fn temp_file(name: &str, text: impl AsRef<[u8]>) -> String {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).expect("temporary file written");
    path.to_string_lossy().into_owned()
}
