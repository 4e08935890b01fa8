//! The browser playground's WebAssembly module: `capsim`'s commands, given as a URL query's
//! (name, value) pairs, answered with the command line's stdout bytes, its one-line error and
//! a chart — all computed by the `capsim` library's [`capsim::query`], as the CLI computes them.
//!
//! Plain `extern "C"` exports over linear memory, no bindings generator: the page's
//! JavaScript calls [`input`] for a buffer of `len` bytes, writes the pairs there (UTF-8,
//! `name NUL value NUL ...`), calls [`run`], then reads each result with [`result_ptr`] and
//! [`result_len`] (0: stdout, 1: error line, 2: chart SVG, 3: the formula's warnings, one a
//! line, as `capsim formula check` writes them to stderr). [`params`] puts the models'
//! parameter definitions (JSON) in result 0. [`readable`] reads a model command's JSON rows
//! from the input buffer and puts each cell's exact and table text in result 0
//! ([`query::readable_rows`]). Progress goes to the imported `env.progress`.

use std::sync::Mutex;

use capsim::query::{self, BROWSER_MAX_RUNS};
use capsim::sweep::Progress;

/// The input buffer JavaScript writes a command into.
static INPUT: Mutex<Vec<u8>> = Mutex::new(Vec::new());
/// The last command's results: stdout, the error line, the chart, the formula's warnings.
static RESULTS: Mutex<[Vec<u8>; 4]> = Mutex::new([Vec::new(), Vec::new(), Vec::new(), Vec::new()]);

#[cfg(target_arch = "wasm32")]
mod host {
    #[link(wasm_import_module = "env")]
    extern "C" {
        /// `done` of `total` runs are finished (the worker posts it to the page).
        fn progress(done: f64, total: f64);
    }

    /// Tells the page how far a grid is.
    pub fn report(done: u64, total: u64) {
        // SAFETY: an imported JavaScript function taking two numbers; it touches no memory.
        unsafe { progress(done as f64, total as f64) }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    /// No page to tell off the browser.
    pub fn report(_done: u64, _total: u64) {}
}

/// Reports progress at most every 1/200 of a grid (a call per run would cost more than
/// some runs).
struct Report {
    total: std::sync::atomic::AtomicU64,
    done: std::sync::atomic::AtomicU64,
}

impl Progress for Report {
    fn start(&self, runs: u64) {
        self.total.store(runs, std::sync::atomic::Ordering::Relaxed);
        host::report(0, runs);
    }
    fn done(&self, runs: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        let total = self.total.load(Relaxed);
        let before = self.done.fetch_add(runs, Relaxed);
        let after = before + runs;
        let step = (total / 200).max(1);
        if after / step != before / step || after == total {
            host::report(after, total);
        }
    }
}

/// Returns a buffer of `len` bytes for the command (valid until the next call).
#[no_mangle]
pub extern "C" fn input(len: usize) -> *mut u8 {
    let mut buf = INPUT.lock().unwrap_or_else(|e| e.into_inner());
    buf.clear();
    buf.resize(len, 0);
    buf.as_mut_ptr()
}

/// Runs the command in the input buffer; returns 0 on success, 2 on an error line.
#[no_mangle]
pub extern "C" fn run() -> u32 {
    let text = {
        let buf = INPUT.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&buf).into_owned()
    };
    let printed = run_text(&text);
    let failed = printed.error.is_some();
    let mut results = RESULTS.lock().unwrap_or_else(|e| e.into_inner());
    *results = [
        printed.stdout,
        printed.error.unwrap_or_default().into_bytes(),
        printed.chart.unwrap_or_default().into_bytes(),
        printed
            .warnings
            .iter()
            .map(|w| format!("{w}\n"))
            .collect::<String>()
            .into_bytes(),
    ];
    if failed {
        2
    } else {
        0
    }
}

/// Runs a command given as `name NUL value NUL ...`.
pub fn run_text(text: &str) -> query::Printed {
    let fields: Vec<&str> = text.split('\0').collect();
    let pairs: Vec<(&str, &str)> = fields
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| (c[0], c[1]))
        .collect();
    let report = Report {
        total: 0.into(),
        done: 0.into(),
    };
    query::run(&pairs, BROWSER_MAX_RUNS, &report)
}

/// Puts the models' parameter definitions (JSON) in result 0.
#[no_mangle]
pub extern "C" fn params() {
    let mut results = RESULTS.lock().unwrap_or_else(|e| e.into_inner());
    results[0] = query::params_json().into_bytes();
}

/// Reads the input buffer as a model command's JSON rows (its stdout, `format=json`) and puts
/// [`query::readable_rows`] of them in result 0, each cell's exact text and the text a table
/// prints for it (or the error in result 1); returns 0, or 2 on an error.
#[no_mangle]
pub extern "C" fn readable() -> u32 {
    let text = {
        let buf = INPUT.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&buf).into_owned()
    };
    let answer = query::readable_rows(&text);
    let failed = answer.is_err();
    let (rows, error) = match answer {
        Ok(rows) => (rows, String::new()),
        Err(e) => (String::new(), format!("error: {e}")),
    };
    let mut results = RESULTS.lock().unwrap_or_else(|e| e.into_inner());
    *results = [
        rows.into_bytes(),
        error.into_bytes(),
        Vec::new(),
        Vec::new(),
    ];
    if failed {
        2
    } else {
        0
    }
}

/// Returns where result `which` (0 stdout, 1 error, 2 chart, 3 warnings) starts.
#[no_mangle]
pub extern "C" fn result_ptr(which: usize) -> *const u8 {
    let results = RESULTS.lock().unwrap_or_else(|e| e.into_inner());
    results.get(which).map_or(std::ptr::null(), |r| r.as_ptr())
}

/// Returns result `which`'s length in bytes.
#[no_mangle]
pub extern "C" fn result_len(which: usize) -> usize {
    let results = RESULTS.lock().unwrap_or_else(|e| e.into_inner());
    results.get(which).map_or(0, Vec::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_nul_separated() {
        let p = run_text("model\0bulkhead\0split\x0040");
        assert!(p.stdout.is_empty());
        assert_eq!(
            p.error.as_deref(),
            Some("error: --split: accepted values are shared, or an integer leaving both pools a slot: 1 to total-slots - 1")
        );
    }
}
