//! JavaScript's number formatting, byte for byte, without allocating.
//!
//! The lessons print with `toFixed`, `String(n)`, `Math.round`, `padStart` and `padEnd`.
//! Rust's own formatting differs on exactly the cases a table shows: `toFixed` rounds an exact
//! tie away from zero (`(6.25).toFixed(1) == "6.3"`) where `{:.1}` rounds it to even, and
//! `String(n)` switches to exponent notation where `{}` never does.
//!
//! [`Fixed`] and [`Num`] implement `Display` and honour width and alignment (`{:<18}` is
//! `padEnd(18)`, `{:>8}` is `padStart(8)`); [`pad_end`] and [`pad_start`] pad any formatted
//! text. Widths count `char`s, which equals JavaScript's UTF-16 units for the lessons' text
//! (all of it in the Basic Multilingual Plane).
//!
//! ```
//! use capsim_core::jsfmt::{Fixed, Num};
//! use core::fmt::Write;
//! let mut s = heapless::String::<32>::new();
//! write!(s, "{} {} {:>5}", Fixed(6.25, 1), Num(4.0), Fixed(0.5, 0)).unwrap();
//! assert_eq!(s.as_str(), "6.3 4     1");
//! ```

use core::fmt::{self, Write};

/// `x.toFixed(digits)` for `digits` up to 20: the exact binary value rounded half away from
/// zero.
#[derive(Clone, Copy, Debug)]
pub struct Fixed(pub f64, pub u8);

/// `String(x)`: integers without a fraction, others as the shortest round-trip decimal, with
/// JavaScript's exponent notation below 1e-6 and from 1e21.
#[derive(Clone, Copy, Debug)]
pub struct Num(pub f64);

/// Returns `Math.round(x)`: the nearest integer, ties toward positive infinity.
pub fn round(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let f = libm::floor(x);
    // `x - floor(x)` is exact for every double.
    if x - f >= 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// Counts the `char`s written through it.
struct CharCount(usize);

impl Write for CharCount {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.chars().count();
        Ok(())
    }
}

fn width_of(args: fmt::Arguments<'_>) -> usize {
    let mut n = CharCount(0);
    // Counting cannot fail unless a Display impl fails, and then writing fails too.
    let _ = n.write_fmt(args);
    n.0
}

fn spaces<W: Write + ?Sized>(out: &mut W, n: usize) -> fmt::Result {
    for _ in 0..n {
        out.write_char(' ')?;
    }
    Ok(())
}

/// Writes `args` followed by spaces up to `width` chars: `String.prototype.padEnd`.
pub fn pad_end<W: Write + ?Sized>(
    out: &mut W,
    width: usize,
    args: fmt::Arguments<'_>,
) -> fmt::Result {
    let n = width_of(args);
    out.write_fmt(args)?;
    spaces(out, width.saturating_sub(n))
}

/// Writes spaces then `args`, `width` chars in all: `String.prototype.padStart`.
pub fn pad_start<W: Write + ?Sized>(
    out: &mut W,
    width: usize,
    args: fmt::Arguments<'_>,
) -> fmt::Result {
    spaces(out, width.saturating_sub(width_of(args)))?;
    out.write_fmt(args)
}

/// A small stack buffer for one formatted number.
type NumBuf = heapless::String<48>;

/// Writes `x.toFixed(digits)` into `buf` (assumes `digits <= 20`).
fn to_fixed(buf: &mut NumBuf, x: f64, digits: u8) -> fmt::Result {
    if !x.is_finite() || libm::fabs(x) >= 1e21 {
        return to_js_string(buf, x);
    }
    if x < 0.0 {
        buf.push('-').map_err(|_| fmt::Error)?;
    }
    let digits = u32::from(digits.min(20));
    let (mantissa, exp) = decompose(libm::fabs(x));
    let scale = 10u128.pow(digits);
    // `scaled` is round-half-up(|x| * 10^digits), computed exactly.
    if exp >= 0 {
        // An integer below 1e21 < 2^70: no rounding, the fraction is all zeros.
        write!(buf, "{}", u128::from(mantissa) << exp)?;
        if digits > 0 {
            write!(buf, ".{:0width$}", 0, width = digits as usize)?;
        }
        return Ok(());
    }
    let shift = (-exp) as u32;
    let product = u128::from(mantissa) * scale; // < 2^53 * 10^20 < 2^120
                                                // `scaled` is round-half-up(|x| * 10^digits), computed exactly.
    let scaled = if shift >= 128 {
        0 // below 2^120 / 2^128: less than one half
    } else {
        let q = product >> shift;
        let rem = product - (q << shift);
        // rem / 2^shift >= 1/2  <=>  rem >= 2^(shift-1); shift >= 1 here.
        if rem >= (1u128 << (shift - 1)) {
            q + 1
        } else {
            q
        }
    };
    let int_part = scaled / scale;
    let frac_part = scaled % scale;
    write!(buf, "{int_part}")?;
    if digits > 0 {
        write!(buf, ".{:0width$}", frac_part, width = digits as usize)?;
    }
    Ok(())
}

/// Splits a finite, non-negative double into `mantissa * 2^exp`.
fn decompose(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    }
}

/// Writes `String(x)` into `buf`.
fn to_js_string(buf: &mut NumBuf, x: f64) -> fmt::Result {
    if x.is_nan() {
        return buf.push_str("NaN").map_err(|_| fmt::Error);
    }
    if x.is_infinite() {
        let s = if x > 0.0 { "Infinity" } else { "-Infinity" };
        return buf.push_str(s).map_err(|_| fmt::Error);
    }
    if x == 0.0 {
        return buf.push('0').map_err(|_| fmt::Error); // also -0
    }
    let a = libm::fabs(x);
    if (1e-6..1e21).contains(&a) {
        if x == libm::trunc(x) {
            // Exact: |x| < 1e21 < 2^70.
            write!(buf, "{}", x as i128)
        } else {
            // Rust's `{}` is the same shortest round-trip digits, without an exponent.
            write!(buf, "{x}")
        }
    } else {
        // Rust writes `1e21` / `1.5e-7`; JavaScript writes `1e+21` / `1.5e-7`.
        let mut tmp = NumBuf::new();
        write!(tmp, "{x:e}")?;
        match tmp.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => write!(buf, "{m}e+{e}"),
            _ => buf.push_str(&tmp).map_err(|_| fmt::Error),
        }
    }
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = NumBuf::new();
        to_fixed(&mut buf, self.0, self.1)?;
        f.pad(&buf)
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = NumBuf::new();
        to_js_string(&mut buf, self.0)?;
        f.pad(&buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(x: f64, d: u8) -> NumBuf {
        let mut b = NumBuf::new();
        write!(b, "{}", Fixed(x, d)).unwrap();
        b
    }

    fn num(x: f64) -> NumBuf {
        let mut b = NumBuf::new();
        write!(b, "{}", Num(x)).unwrap();
        b
    }

    // Expected strings are what node prints for the same expressions.
    #[test]
    fn to_fixed_matches_javascript() {
        assert_eq!(fixed(6.25, 1), "6.3");
        assert_eq!(fixed(4.75, 1), "4.8");
        assert_eq!(fixed(0.5, 0), "1");
        assert_eq!(fixed(1.5, 0), "2");
        assert_eq!(fixed(2.5, 0), "3");
        assert_eq!(fixed(-2.5, 0), "-3");
        assert_eq!(fixed(1.005, 2), "1.00"); // 1.00499999999999989...
        assert_eq!(fixed(1.45, 1), "1.4"); // 1.4499999999999999556...
        assert_eq!(fixed(-0.0, 2), "0.00");
        assert_eq!(fixed(-0.001, 2), "-0.00");
        assert_eq!(fixed(93.52, 1), "93.5");
        assert_eq!(fixed(275.99999999999994, 0), "276");
        assert_eq!(fixed(1e-30, 3), "0.000");
        assert_eq!(fixed(123456789.0, 2), "123456789.00");
        assert_eq!(fixed(f64::INFINITY, 2), "Infinity");
        assert_eq!(fixed(f64::NAN, 2), "NaN");
        assert_eq!(fixed(1e21, 2), "1e+21");
    }

    #[test]
    fn string_matches_javascript() {
        assert_eq!(num(4.0), "4");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(97.22), "97.22");
        assert_eq!(num(250.0 / 60.0), "4.166666666666667");
        assert_eq!(num(1e21), "1e+21");
        assert_eq!(num(1.5e-7), "1.5e-7");
        assert_eq!(num(0.000001), "0.000001");
        assert_eq!(num(123456789012.0), "123456789012");
    }

    #[test]
    fn round_matches_javascript() {
        assert_eq!(round(0.49999999999999994), 0.0);
        assert_eq!(round(2.5), 3.0);
        assert_eq!(round(-2.5), -2.0);
        assert_eq!(round(25.9), 26.0);
    }

    #[test]
    fn padding_counts_chars_not_bytes() {
        let mut s = heapless::String::<32>::new();
        pad_end(&mut s, 4, format_args!("—")).unwrap();
        s.push('|').unwrap();
        pad_start(&mut s, 3, format_args!("{}", 7)).unwrap();
        assert_eq!(s.as_str(), "—   |  7");
    }
}
