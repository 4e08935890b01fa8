//! The autoscale flags that name files: `--formula`, the formulas timed actions swap in
//! (`--at ROUND:formula=FILE`), and `--demand-file`; each file read and parsed once per
//! command (a demand file once per distinct path, once the grid is known: at most the
//! rows its runs need).

use crate::list::Item;
use crate::output::Cell;
use capsim_core::formula::{self, Program};
use std::sync::Arc;

use crate::models::Value;

/// A formula file given to `--formula`, parsed once per command (`none`: the lesson's
/// threshold policy).
#[derive(Clone, Debug, Default)]
pub struct FormulaFile(pub Option<Arc<LoadedFormula>>);

/// A parsed formula and the path it was read from.
pub struct LoadedFormula {
    /// The path as given (rows and run names show it).
    pub path: String,
    /// The parsed program (about 205 KB, so boxed).
    pub program: Box<Program>,
}

impl std::fmt::Debug for LoadedFormula {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedFormula")
            .field("path", &self.path)
            .finish()
    }
}

impl LoadedFormula {
    /// Reads (at most 8 KB and one byte, [`crate::input::read_bounded`]; `-`: standard
    /// input) and parses `path`; the error is one line: a formula's
    /// `PATH:LINE:COL: error: message` as compilers print it ([`crate::input::located`];
    /// `<stdin>` for `-`), or `PATH: reason`.
    pub fn load(path: &str) -> Result<Self, String> {
        let file = std::path::Path::new(path);
        let src =
            crate::input::read_bounded(file, formula::MAX_SOURCE_BYTES).map_err(|e| match e {
                crate::input::InputError::TooLong { .. } => format!(
                    "{}: the formula is longer than 8 KB ({} bytes), Batch's limit",
                    crate::input::display_name(file),
                    formula::MAX_SOURCE_BYTES
                ),
                e => e.to_string(),
            })?;
        let mut program = Box::new(Program::new());
        program
            .parse(&src)
            .map_err(|e| crate::input::located(file, e.line, e.col, &e.kind))?;
        Ok(Self {
            path: path.to_string(),
            program,
        })
    }
}

/// The formulas timed actions swap in (`ROUND:formula=FILE`), each file parsed once per
/// command; a [`Timed::Formula`](capsim_core::autoscale::Timed::Formula) action's value is
/// its index here.
static TIMED_FORMULAS: std::sync::Mutex<Vec<Arc<LoadedFormula>>> =
    std::sync::Mutex::new(Vec::new());

pub(super) fn timed_formulas() -> std::sync::MutexGuard<'static, Vec<Arc<LoadedFormula>>> {
    TIMED_FORMULAS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads and parses the formula at `path` for a timed action (once per path and command);
/// returns its index, the action's value. The error is [`LoadedFormula::load`]'s one line.
pub fn timed_formula(path: &str) -> Result<u32, String> {
    if let Some(i) = timed_formulas().iter().position(|f| f.path == path) {
        return Ok(i as u32);
    }
    let loaded = LoadedFormula::load(path)?;
    let mut pool = timed_formulas();
    pool.push(Arc::new(loaded));
    Ok(pool.len() as u32 - 1)
}

/// Returns the path of timed formula `index` (as the action was given).
pub fn timed_formula_path(index: u32) -> Option<String> {
    timed_formulas().get(index as usize).map(|f| f.path.clone())
}

/// A demand file given to `--demand-file` (`none`: the lesson's curve): its rows are the
/// demand of rounds 0, 1, 2, … (see [`crate::demand`]).
#[derive(Clone, Debug, Default)]
pub struct DemandFile(pub Option<Arc<LoadedDemand>>);

/// A demand file's path, and its table once read ([`LoadedDemand::read`]: after parsing,
/// when the grid says how many rows its runs need; the values of one path share one table).
#[derive(Debug)]
pub struct LoadedDemand {
    /// The path as given (rows and run names show it).
    pub path: String,
    /// Requests per round, one per row: the rows read.
    table: std::sync::OnceLock<Arc<[f64]>>,
}

impl LoadedDemand {
    /// Returns the file at `path`, not yet read.
    pub fn new(path: &str) -> Self {
        Self {
            path: path.to_string(),
            table: std::sync::OnceLock::new(),
        }
    }

    /// Returns the rows read (none before [`LoadedDemand::read`]).
    pub fn values(&self) -> &[f64] {
        self.table.get().map_or(&[], |t| &t[..])
    }

    /// Returns whether the rows are read.
    pub fn is_read(&self) -> bool {
        self.table.get().is_some()
    }

    /// Reads the demand table at its path ([`crate::demand::load`]; `-`: standard input),
    /// at most `rows` rows (`None`: every row); the error names the file and the line
    /// (`--demand-file d.csv: line 17: …`).
    pub fn read(&self, rows: Option<usize>) -> Result<Arc<[f64]>, String> {
        Ok(crate::demand::load(&self.path, rows)?.into())
    }

    /// Takes `table` (read for another value of the same path) as its rows.
    pub fn share(&self, table: Arc<[f64]>) {
        let _ = self.table.set(table);
    }
}

/// Implements [`Item`] and [`Value`] for the file flags `FLAG(LOADED, OPEN)`, `FLAG`
/// holding an `Option<Arc<LOADED>>`: the item is `none` or a path, given to `LOADED::OPEN`
/// (its error names the file, so it is the whole message); the cell is the path, or `none`.
macro_rules! file_flags {
    ($($flag:ident($loaded:ident, $open:ident)),+) => {$(
        impl Item for $flag {
            const NAMES_ITS_VALUES: bool = true;

            fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
                out.push(if s == "none" {
                    Self(None)
                } else {
                    Self(Some(Arc::new($loaded::$open(s)?)))
                });
                Ok(())
            }
        }

        /// The path, or `none`.
        impl Value for $flag {
            fn cell(&self) -> Cell {
                self.0
                    .as_ref()
                    .map_or(Cell::Word("none"), |f| Cell::Text(f.path.clone()))
            }
        }
    )+};
}

impl LoadedDemand {
    /// The item's path: read later ([`LoadedDemand::read`]).
    fn open(path: &str) -> Result<Self, String> {
        Ok(Self::new(path))
    }
}

file_flags!(
    FormulaFile(LoadedFormula, load),
    DemandFile(LoadedDemand, open)
);
