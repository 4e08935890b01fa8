//! The `capsim` front end as a library: parameter lists and ranges, the model commands'
//! grids, output formats, seed summaries and charts. The `capsim` binary is a thin shell
//! around it; the fuzz targets, the browser playground (`playground/`, through [`query`]) and
//! the Python package (`python/`, through [`query::run_into`]) call the same code.
//!
//! Without the default `cli` feature (clap, rayon, indicatif, ctrlc) it is std-only and
//! builds for `wasm32-unknown-unknown`; grids then run on the calling thread, with the same
//! bytes.

pub mod demand;
pub mod formula;
pub mod glossary;
pub mod input;
pub mod list;
pub mod merge;
pub mod models;
pub mod output;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod plot;
pub mod query;
pub mod scenario;
pub mod summary;
pub mod sweep;
pub mod trace;

/// The consumers workspace `capsim lesson` renders the lessons in: a lane per consumers
/// configuration of the lesson (twelve), so that they share one pass over its queue.
pub type LessonWorkspace = capsim_core::consumers::Workspace<
    { capsim_core::lesson::LESSON_SHIPMENTS },
    { capsim_core::consumers::DEFAULT_IN_FLIGHT },
    { capsim_core::lesson::LESSON_CONFIGURATIONS },
    { capsim_core::lesson::LESSON_EVENTS },
>;

/// What the unit tests of several modules share.
#[cfg(test)]
mod test_support {
    /// The body rows of the table whose header row is `header` in `page`, a file of the
    /// manual (`docs/`, relative to the repository's root), as written.
    pub(crate) fn docs_table(page: &str, header: &str) -> Vec<String> {
        let path = format!("{}/../{page}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        text.lines()
            .skip_while(|l| *l != header)
            .skip(2)
            .take_while(|l| l.starts_with("| "))
            .map(str::to_string)
            .collect()
    }
}
