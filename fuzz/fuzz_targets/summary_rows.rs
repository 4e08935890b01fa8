//! `capsim summary`'s row reader (`capsim::merge::parse_row`): any line of at most 4096
//! bytes. Checks: no panic; a row it reads, written back as `--format json` writes rows,
//! reads back as the same row (keys in order, integers, floats bit for bit, NaN as null,
//! strings, lists and the stockout span), and writes the same bytes again.
#![no_main]

use capsim::merge::parse_row;
use capsim::output::{write_rows, Cell, Format, Row};
use libfuzzer_sys::fuzz_target;

fn json(row: &Row) -> String {
    let mut out = Vec::new();
    write_rows(&mut out, Format::Json, std::slice::from_ref(row), &[]).expect("a Vec takes it");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// Cells equal as the writer shows them: floats by their bits; a number too large for a
/// double (read as an infinity) and NaN are both written `null`, which reads back as NaN.
fn same(a: &Cell, b: &Cell) -> bool {
    match (a, b) {
        (Cell::Float(x), Cell::Float(y)) => {
            x.to_bits() == y.to_bits() || (!x.is_finite() && y.is_nan())
        }
        _ => a == b,
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(row) = parse_row(text) else {
        return;
    };
    let written = json(&row);
    let again = parse_row(written.trim_end()).expect("a written row reads back");
    assert_eq!(row.len(), again.len());
    for ((k, a), (l, b)) in row.iter().zip(&again) {
        assert_eq!(k, l);
        assert!(same(a, b), "{k}: {a:?} / {b:?}");
    }
    assert_eq!(json(&again), written);
});
