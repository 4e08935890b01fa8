//! Field generators for the models' `arbitrary::Arbitrary` impls (feature `arbitrary`).
//!
//! A fuzzer gains little from parameters that are almost all rejected, so each field is
//! drawn as the lesson's value (1 in 4), a value in a typical part of its accepted range (most
//! of the time, endpoints included), or any value of its type (1 in 32: invalid ones must be
//! an `Err`, never a panic). An exhausted input yields the lesson's values.

use core::ops::RangeInclusive;

use arbitrary::{Result, Unstructured};

enum Pick {
    Lesson,
    Typical,
    Any,
}

fn pick(u: &mut Unstructured<'_>) -> Result<Pick> {
    Ok(match u.arbitrary::<u8>()? {
        0..=63 => Pick::Lesson,
        248..=255 => Pick::Any,
        _ => Pick::Typical,
    })
}

/// An integer field: `lesson`, a value in `typical`, or any `u32`.
pub(crate) fn u32_field(
    u: &mut Unstructured<'_>,
    lesson: u32,
    typical: RangeInclusive<u32>,
) -> Result<u32> {
    match pick(u)? {
        Pick::Lesson => Ok(lesson),
        Pick::Typical => u.int_in_range(typical),
        Pick::Any => u.arbitrary(),
    }
}

/// A float field: `lesson`, a value in `[lo, hi]` (each end 1 in 16), or any double,
/// the non-finite ones and signed zeros included.
pub(crate) fn f64_field(u: &mut Unstructured<'_>, lesson: f64, lo: f64, hi: f64) -> Result<f64> {
    match pick(u)? {
        Pick::Lesson => Ok(lesson),
        Pick::Typical => Ok(match u.arbitrary::<u8>()? {
            0..=15 => lo,
            16..=31 => hi,
            _ => {
                let frac = f64::from(u.arbitrary::<u32>()?) / f64::from(u32::MAX);
                let x = lo + (hi - lo) * frac;
                // Not `clamp`, which panics when `hi` is NaN (an invalid field it depends on).
                if x > hi {
                    hi
                } else if x < lo {
                    lo
                } else {
                    x
                }
            }
        }),
        Pick::Any => {
            const SPECIAL: [f64; 8] = [
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                -0.0,
                f64::MAX,
                f64::MIN,
                f64::MIN_POSITIVE,
                -1.0,
            ];
            let i = u.choose_index(SPECIAL.len() + 1)?;
            match SPECIAL.get(i) {
                Some(&x) => Ok(x),
                None => Ok(f64::from_bits(u.arbitrary()?)),
            }
        }
    }
}
