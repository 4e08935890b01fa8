//! The `capsim` front end as a library: parameter lists and ranges, the model commands'
//! grids, output formats and seed summaries. The `capsim` binary is a thin shell around it,
//! and the fuzz targets (and later a browser build) call the same code.

pub mod formula;
pub mod list;
pub mod models;
pub mod output;
pub mod summary;
pub mod sweep;
