//! `sin` exactly as JavaScript engines compute `Math.sin`: Sun's fdlibm algorithm.
//!
//! V8 (node) evaluates `Math.sin` with fdlibm's `sin`. The `libm` crate follows musl, whose
//! argument reduction and cosine kernel were later refined, so the two differ in the last
//! bit for some arguments (8 of 903 lesson-shaped arguments, `tests/data/generators.json`).
//! A demand curve must reproduce the lesson bit for bit, so this module implements fdlibm's
//! algorithm: the same polynomial coefficients and the same order of operations. Everything
//! else (`exp`, `floor`, `ceil`) already agrees bit for bit and comes from `libm`.
//!
//! Only the argument reduction for `|x| <= 2^20 · π/2` is implemented (fdlibm's "medium"
//! path); larger arguments return NaN, and the models reject parameters that would need them.

// The coefficients are written as fdlibm publishes them (more digits than a double holds);
// each rounds to the intended double, which the tests against node confirm.
#![allow(clippy::excessive_precision)]

/// High 32 bits of a double.
fn high(x: f64) -> u32 {
    (x.to_bits() >> 32) as u32
}

/// `x` with its low 32 bits cleared and its high 32 bits replaced by `hi`.
fn from_high(hi: u32) -> f64 {
    f64::from_bits(u64::from(hi) << 32)
}

/// sin(x + y) for |x| <= π/4, with `y` the tail of `x` (`tail == false`: y is 0).
fn kernel_sin(x: f64, y: f64, tail: bool) -> f64 {
    const S1: f64 = -1.666_666_666_666_663_243_48e-01;
    const S2: f64 = 8.333_333_333_322_489_461_24e-03;
    const S3: f64 = -1.984_126_982_985_794_931_34e-04;
    const S4: f64 = 2.755_731_370_707_006_767_89e-06;
    const S5: f64 = -2.505_076_025_340_686_341_95e-08;
    const S6: f64 = 1.589_690_995_211_550_102_21e-10;
    let ix = high(x) & 0x7fff_ffff;
    if ix < 0x3e40_0000 && (x as i32) == 0 {
        return x; // |x| < 2^-27
    }
    let z = x * x;
    let v = z * x;
    let r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    if !tail {
        x + v * (S1 + z * r)
    } else {
        x - ((z * (0.5 * y - v * r) - y) - v * S1)
    }
}

/// cos(x + y) for |x| <= π/4, with `y` the tail of `x`.
fn kernel_cos(x: f64, y: f64) -> f64 {
    const C1: f64 = 4.166_666_666_666_660_190_37e-02;
    const C2: f64 = -1.388_888_888_887_410_957_49e-03;
    const C3: f64 = 2.480_158_728_947_672_941_78e-05;
    const C4: f64 = -2.755_731_435_139_066_330_35e-07;
    const C5: f64 = 2.087_572_321_298_174_827_90e-09;
    const C6: f64 = -1.135_964_755_778_819_482_65e-11;
    let ix = high(x) & 0x7fff_ffff;
    if ix < 0x3e40_0000 && (x as i32) == 0 {
        return 1.0; // |x| < 2^-27
    }
    let z = x * x;
    let r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    if ix < 0x3fd3_3333 {
        // |x| < 0.3
        1.0 - (0.5 * z - (z * r - x * y))
    } else {
        let qx = if ix > 0x3fe9_0000 {
            0.28125 // |x| > 0.78125
        } else {
            from_high(ix - 0x0020_0000) // |x| / 4
        };
        let hz = 0.5 * z - qx;
        let a = 1.0 - qx;
        a - (hz - (z * r - x * y))
    }
}

/// High words of n·π/2 for n = 1..=32: where the quick reduction may cancel.
const NPIO2_HW: [u32; 32] = [
    0x3FF921FB, 0x400921FB, 0x4012D97C, 0x401921FB, 0x401F6A7A, 0x4022D97C, 0x4025FDBB, 0x402921FB,
    0x402C463A, 0x402F6A7A, 0x4031475C, 0x4032D97C, 0x40346B9C, 0x4035FDBB, 0x40378FDB, 0x403921FB,
    0x403AB41B, 0x403C463A, 0x403DD85A, 0x403F6A7A, 0x40407E4C, 0x4041475C, 0x4042106C, 0x4042D97C,
    0x4043A28C, 0x40446B9C, 0x404534AC, 0x4045FDBB, 0x4046C6CB, 0x40478FDB, 0x404858EB, 0x404921FB,
];

/// Returns `(n, y0, y1)` with `x - n·π/2 = y0 + y1`, for `|x| <= 2^20 · π/2`; `None` beyond.
fn rem_pio2(x: f64) -> Option<(i32, f64, f64)> {
    const INV_PIO2: f64 = core::f64::consts::FRAC_2_PI; // 0x3FE45F30_6DC9C883, as fdlibm
    const PIO2_1: f64 = 1.570_796_326_734_125_614_17e+00;
    const PIO2_1T: f64 = 6.077_100_506_506_192_249_32e-11;
    const PIO2_2: f64 = 6.077_100_506_303_965_976_60e-11;
    const PIO2_2T: f64 = 2.022_266_248_795_950_631_54e-21;
    const PIO2_3: f64 = 2.022_266_248_711_166_455_80e-21;
    const PIO2_3T: f64 = 8.478_427_660_368_899_569_97e-32;
    let hx = high(x);
    let negative = (hx >> 31) != 0;
    let ix = hx & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        return Some((0, x, 0.0)); // |x| <= π/4
    }
    if ix < 0x4002_d97c {
        // |x| < 3π/4: n = ±1
        let (y0, y1) = if !negative {
            let mut z = x - PIO2_1;
            if ix != 0x3ff9_21fb {
                let y0 = z - PIO2_1T;
                (y0, (z - y0) - PIO2_1T)
            } else {
                z -= PIO2_2;
                let y0 = z - PIO2_2T;
                (y0, (z - y0) - PIO2_2T)
            }
        } else {
            let mut z = x + PIO2_1;
            if ix != 0x3ff9_21fb {
                let y0 = z + PIO2_1T;
                (y0, (z - y0) + PIO2_1T)
            } else {
                z += PIO2_2;
                let y0 = z + PIO2_2T;
                (y0, (z - y0) + PIO2_2T)
            }
        };
        return Some((if negative { -1 } else { 1 }, y0, y1));
    }
    if ix > 0x4139_21fb {
        return None; // needs the full Payne–Hanek reduction
    }
    let t = libm::fabs(x);
    let n = (t * INV_PIO2 + 0.5) as i32;
    let f_n = f64::from(n);
    let mut r = t - f_n * PIO2_1;
    let mut w = f_n * PIO2_1T; // first round, good to 85 bits
    let mut y0;
    if n < 32 && ix != NPIO2_HW[(n - 1) as usize] {
        y0 = r - w; // no cancellation possible
    } else {
        let j = ix >> 20;
        y0 = r - w;
        let i = j as i32 - ((high(y0) >> 20) & 0x7ff) as i32;
        if i > 16 {
            // second round, good to 118 bits
            let t = r;
            w = f_n * PIO2_2;
            r = t - w;
            w = f_n * PIO2_2T - ((t - r) - w);
            y0 = r - w;
            let i = j as i32 - ((high(y0) >> 20) & 0x7ff) as i32;
            if i > 49 {
                // third round, good to 151 bits
                let t = r;
                w = f_n * PIO2_3;
                r = t - w;
                w = f_n * PIO2_3T - ((t - r) - w);
                y0 = r - w;
            }
        }
    }
    let y1 = (r - y0) - w;
    if negative {
        Some((-n, -y0, -y1))
    } else {
        Some((n, y0, y1))
    }
}

/// The largest argument [`sin`] reduces: about 2^20 · π/2 (fdlibm's "medium" bound).
pub const SIN_MAX_ARG: f64 = 1_647_099.0;

/// Returns `Math.sin(x)` bit for bit, for `|x| <` [`SIN_MAX_ARG`]; NaN beyond, and for NaN
/// or infinite `x`.
pub fn sin(x: f64) -> f64 {
    let ix = high(x) & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        return kernel_sin(x, 0.0, false);
    }
    if ix >= 0x7ff0_0000 {
        return f64::NAN;
    }
    match rem_pio2(x) {
        None => f64::NAN,
        Some((n, y0, y1)) => match n & 3 {
            0 => kernel_sin(y0, y1, true),
            1 => kernel_cos(y0, y1),
            2 => -kernel_sin(y0, y1, true),
            _ => -kernel_cos(y0, y1),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancellation_table_is_the_high_words_of_n_pi_over_2() {
        // The table `rem_pio2` reads, checked entry by entry against n·π/2 computed here.
        for (n, &hw) in (1..=32u32).zip(NPIO2_HW.iter()) {
            assert_eq!(
                high(f64::from(n) * core::f64::consts::FRAC_PI_2),
                hw,
                "n = {n}"
            );
        }
    }

    #[test]
    fn frac_2_pi_is_fdlibms_invpio2() {
        assert_eq!(
            core::f64::consts::FRAC_2_PI.to_bits(),
            0x3FE4_5F30_6DC9_C883
        );
    }

    #[test]
    fn large_arguments_are_refused() {
        assert!(sin(2e6).is_nan());
        assert!(!sin(1.6e6).is_nan());
        assert!(sin(f64::INFINITY).is_nan());
    }
}
