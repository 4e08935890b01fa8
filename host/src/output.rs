//! Writes runs as an aligned table, JSON Lines or CSV.

use std::io::{self, Write};

use capsim_core::jsfmt::Num;

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
        match self {
            Cell::Int(v) => v.to_string(),
            Cell::Float(v) => Num(*v).to_string(),
            Cell::Stat(v) => format!("{v:.3}"),
            Cell::Word(w) => (*w).to_string(),
            Cell::Text(w) => w.clone(),
            Cell::Ints(v) if v.is_empty() => "none".to_string(),
            Cell::Ints(v) => v.iter().map(u32::to_string).collect::<Vec<_>>().join(":"),
        }
    }

    fn json(&self) -> String {
        match self {
            Cell::Int(v) => v.to_string(),
            Cell::Float(v) | Cell::Stat(v) => serde_json::Value::from(*v).to_string(),
            Cell::Word(w) => serde_json::Value::from(*w).to_string(),
            Cell::Text(w) => serde_json::Value::from(w.as_str()).to_string(),
            Cell::Ints(v) => serde_json::Value::from(v.clone()).to_string(),
        }
    }

    fn is_number(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Float(_) | Cell::Stat(_))
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// One JSON object per line.
    Json,
    /// Comma-separated values with a header line.
    Csv,
}

/// Writes `rows`; `table_keys` picks the columns the table shows (JSON and CSV show all).
pub fn write_rows(
    out: &mut impl Write,
    format: Format,
    rows: &[Row],
    table_keys: &[&str],
) -> io::Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    match format {
        Format::Json => {
            for row in rows {
                let fields: Vec<String> = row
                    .iter()
                    .map(|(k, v)| format!("\"{k}\":{}", v.json()))
                    .collect();
                writeln!(out, "{{{}}}", fields.join(","))?;
            }
        }
        Format::Csv => {
            let header: Vec<&str> = first.iter().map(|(k, _)| k.as_ref()).collect();
            writeln!(out, "{}", header.join(","))?;
            for row in rows {
                let cells: Vec<String> = row.iter().map(|(_, v)| v.text()).collect();
                writeln!(out, "{}", cells.join(","))?;
            }
        }
        Format::Table => {
            let columns: Vec<usize> = first
                .iter()
                .enumerate()
                .filter(|(_, (k, _))| table_keys.contains(&k.as_ref()))
                .map(|(i, _)| i)
                .collect();
            let texts: Vec<Vec<String>> = rows
                .iter()
                .map(|row| columns.iter().map(|&i| row[i].1.text()).collect())
                .collect();
            let widths: Vec<usize> = columns
                .iter()
                .enumerate()
                .map(|(c, &i)| {
                    texts
                        .iter()
                        .map(|t| t[c].len())
                        .chain([first[i].0.len()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let header: Vec<String> = columns
                .iter()
                .zip(&widths)
                .map(|(&i, &w)| pad(&first[i].0, w, first[i].1.is_number()))
                .collect();
            writeln!(out, "{}", header.join("  ").trim_end())?;
            for (row, text) in rows.iter().zip(&texts) {
                let cells: Vec<String> = columns
                    .iter()
                    .zip(&widths)
                    .zip(text)
                    .map(|((&i, &w), t)| pad(t, w, row[i].1.is_number()))
                    .collect();
                writeln!(out, "{}", cells.join("  ").trim_end())?;
            }
        }
    }
    Ok(())
}

fn pad(s: &str, width: usize, right: bool) -> String {
    if right {
        format!("{s:>width$}")
    } else {
        format!("{s:<width$}")
    }
}
