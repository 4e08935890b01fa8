//! `--demand-file FILE`: a run's demand from a CSV, one row a round.
//!
//! Accepted: one column of numbers (no header), or a header row and any columns one of
//! which is named `demand` (a `round` column, if there is one, must count 0, 1, 2, …): the
//! CSV of `capsim trace autoscale --format csv` feeds back in as printed. A first line that
//! names no `demand` column is a row, and a row that does not parse is an error (`line 1:
//! not a number: '1OO'`): nothing is dropped as a header by guess. A UTF-8 byte-order mark
//! (a spreadsheet's) is skipped. `-` reads stdin. Blank lines are skipped; `\r\n` line
//! ends are accepted.
//!
//! The read is bounded ([`crate::input::open`], [`crate::input::BoundedLines`]): a regular
//! file over [`MAX_DEMAND_BYTES`] is refused before it is opened for reading, and any input
//! (stdin, a character device) stops at that many bytes plus one, or at [`MAX_DEMAND_ROWS`]
//! rows plus one, whichever comes first; a line is at most 4,096 bytes.

use std::io::Read;

use crate::input::{self, BoundedLines};

use capsim_core::autoscale::MAX_ROUNDS;

/// The most rows (rounds) a demand file may hold: a run's most rounds.
pub const MAX_DEMAND_ROWS: usize = MAX_ROUNDS as usize;
/// The most bytes a demand file may hold: 64 bytes a row at the most rows.
pub const MAX_DEMAND_BYTES: u64 = 64 * MAX_DEMAND_ROWS as u64;
/// The longest line read (a trace row is under 200 bytes).
const MAX_LINE: usize = 4096;

/// Reads the demand file `path` (`-`: stdin), at most `rows` rows (`None`: every row, up to
/// [`MAX_DEMAND_ROWS`]); the error is one line, `--demand-file PATH: line L: what`.
pub fn load(path: &str, rows: Option<usize>) -> Result<Vec<f64>, String> {
    let fail = |what: String| format!("--demand-file {path}: {what}");
    let file =
        input::open(std::path::Path::new(path), MAX_DEMAND_BYTES).map_err(|e| fail(e.reason()))?;
    parse_rows(file, MAX_DEMAND_BYTES, rows).map_err(fail)
}

/// Parses demand rows from `input`, reading at most `limit + 1` bytes.
pub fn parse(input: impl Read, limit: u64) -> Result<Vec<f64>, String> {
    parse_rows(input, limit, None)
}

/// Parses at most `rows` demand rows from `input` (`None`: every row), reading at most
/// `limit + 1` bytes and stopping at the last row wanted.
pub fn parse_rows(input: impl Read, limit: u64, rows: Option<usize>) -> Result<Vec<f64>, String> {
    let wanted = rows.unwrap_or(MAX_DEMAND_ROWS + 1);
    let mut lines = BoundedLines::new(input.take(limit + 1), limit, MAX_LINE);
    // The demand column and the round column, once the first line is known.
    let mut columns: Option<(usize, Option<usize>)> = None;
    let mut values = Vec::new();
    while let Some((number, text)) = lines.next_line().map_err(|e| e.to_string())? {
        let text = if number == 1 {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        };
        if text.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        let (demand, round) = match columns {
            Some(c) => c,
            None => {
                let c = header(&fields, number)?;
                columns = Some(c.0);
                if c.1 {
                    continue; // the header row
                }
                c.0
            }
        };
        let field = |i: usize| {
            fields.get(i).copied().ok_or_else(|| {
                format!(
                    "line {number}: {} columns, the header has more",
                    fields.len()
                )
            })
        };
        let d = field(demand)?;
        let v: f64 = d
            .parse()
            .map_err(|_| format!("line {number}: not a number: '{}'", escape(d)))?;
        if !v.is_finite() {
            return Err(format!(
                "line {number}: not a finite number: '{}'",
                escape(d)
            ));
        }
        if let Some(r) = round {
            let r = field(r)?;
            if r.parse::<u64>().ok() != Some(values.len() as u64) {
                return Err(format!(
                    "line {number}: round '{}' where round {} was expected",
                    escape(r),
                    values.len()
                ));
            }
        }
        if values.len() == MAX_DEMAND_ROWS {
            return Err(format!("more than {MAX_DEMAND_ROWS} rows (rounds)"));
        }
        values.push(v);
        if values.len() >= wanted {
            break;
        }
    }
    if values.is_empty() {
        return Err("no demand rows".into());
    }
    Ok(values)
}

/// Reads the first non-blank line: the demand and round columns, and whether it is a header
/// (it names a `demand` column; anything else is a row, read as one).
fn header(fields: &[&str], number: usize) -> Result<((usize, Option<usize>), bool), String> {
    if let Some(demand) = fields.iter().position(|f| *f == "demand") {
        return Ok(((demand, fields.iter().position(|f| *f == "round")), true));
    }
    if fields.len() != 1 {
        let numeric = fields.iter().all(|f| f.parse::<f64>().is_ok());
        return Err(if numeric {
            format!(
                "line {number}: {} columns without a header (one column, or a header naming 'demand')",
                fields.len()
            )
        } else {
            format!("line {number}: the header names no 'demand' column")
        });
    }
    Ok(((0, None), false))
}

/// Escapes control and invisible characters of a field quoted in an error.
fn escape(s: &str) -> String {
    let s: String = s.chars().take(40).collect();
    s.escape_debug().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<f64>, String> {
        parse(text.as_bytes(), MAX_DEMAND_BYTES)
    }

    #[test]
    fn one_column_a_header_or_a_trace() {
        assert_eq!(read("900\n919.5\n").unwrap(), [900.0, 919.5]);
        assert_eq!(read("demand\r\n-3\r\n\r\n4\r\n").unwrap(), [-3.0, 4.0]);
        assert_eq!(read("round,demand\n0,1\n1,2\n").unwrap(), [1.0, 2.0]);
        assert_eq!(
            read("round,demand,size\n0,5,1\n1,6,1\n").unwrap(),
            [5.0, 6.0]
        );
    }

    #[test]
    fn bad_rows_name_their_line() {
        let e = read("demand\n1\n2\nabc\n").unwrap_err();
        assert_eq!(e, "line 4: not a number: 'abc'");
        assert_eq!(
            read("1,2\n").unwrap_err(),
            "line 1: 2 columns without a header (one column, or a header naming 'demand')"
        );
        assert_eq!(
            read("round,size\n0,1\n").unwrap_err(),
            "line 1: the header names no 'demand' column"
        );
        assert_eq!(
            read("round,demand\n0,1\n2,1\n").unwrap_err(),
            "line 3: round '2' where round 1 was expected"
        );
        assert_eq!(
            read("inf\n").unwrap_err(),
            "line 1: not a number: 'inf'".replace("not a number", "not a finite number")
        );
        assert_eq!(read("\n\n").unwrap_err(), "no demand rows");
        assert_eq!(
            read("1\n\u{7}\n").unwrap_err(),
            "line 2: not a number: '\\u{7}'"
        );
    }

    /// A first line is a header only when it names `demand`; anything else is a row, and a
    /// row that does not parse is an error on its line (it was dropped as a header by guess,
    /// shifting every round). A spreadsheet's byte-order mark is skipped.
    #[test]
    fn a_header_names_demand_or_the_line_is_a_row() {
        assert_eq!(read("\u{feff}100\n200\n").unwrap(), [100.0, 200.0]);
        assert_eq!(read("\u{feff}demand\n5\n").unwrap(), [5.0]);
        for (text, field) in [
            ("1OO\n200\n", "1OO"),
            ("# note\n200\n", "# note"),
            ("0x10\n200\n", "0x10"),
            ("requests\n200\n", "requests"),
        ] {
            assert_eq!(
                read(text).unwrap_err(),
                format!("line 1: not a number: '{field}'")
            );
        }
        // A BOM anywhere but the start is not skipped.
        assert!(read("1\n\u{feff}2\n").is_err());
    }

    /// At most the rows asked for are read: a bad row past them is never reached.
    #[test]
    fn a_read_stops_at_the_rows_it_needs() {
        let text = "1\n2\n3\nbad\n";
        let rows = |n| parse_rows(text.as_bytes(), MAX_DEMAND_BYTES, n);
        assert_eq!(rows(Some(3)).unwrap(), [1.0, 2.0, 3.0]);
        assert_eq!(rows(Some(1)).unwrap(), [1.0]);
        assert_eq!(rows(None).unwrap_err(), "line 4: not a number: 'bad'");
        assert_eq!(rows(Some(4)).unwrap_err(), "line 4: not a number: 'bad'");
    }

    #[test]
    fn the_read_stops_at_its_limit() {
        // 10 bytes accepted: the 11th ends the read, however long the input.
        let long = std::io::repeat(b'1').take(1 << 30);
        assert_eq!(parse(long, 10).unwrap_err(), "more than 10 bytes");
        assert_eq!(
            parse("1\n2\n3\n4\n5\n".as_bytes(), 10).unwrap(),
            [1.0, 2.0, 3.0, 4.0, 5.0]
        );
        assert_eq!(
            parse("1\n2\n3\n4\n5\n6".as_bytes(), 10).unwrap_err(),
            "more than 10 bytes"
        );
    }
}
