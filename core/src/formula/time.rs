//! Timestamps and time intervals: 100 ns ticks since 1970-01-01T00:00:00Z, UTC only.

use core::fmt;

/// Ticks (100 ns) in one second.
pub const TICKS_PER_SECOND: i64 = 10_000_000;
/// Ticks in one millisecond.
pub const TICKS_PER_MS: i64 = 10_000;
const TICKS_PER_DAY: i64 = 86_400 * TICKS_PER_SECOND;

/// A point in time (UTC), 100 ns resolution, years 0001 to 9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Timestamp(pub(crate) i64);

/// A duration, 100 ns resolution (.NET's `TimeSpan`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TimeInterval(pub(crate) i64);

impl TimeInterval {
    /// Returns the interval of `ticks` 100 ns ticks.
    pub const fn from_ticks(ticks: i64) -> Self {
        TimeInterval(ticks)
    }
    /// Returns the interval of `s` seconds (saturating).
    pub const fn from_seconds(s: i64) -> Self {
        TimeInterval(s.saturating_mul(TICKS_PER_SECOND))
    }
    /// Returns the interval in 100 ns ticks.
    pub const fn ticks(self) -> i64 {
        self.0
    }
}

/// 0001-01-01T00:00:00Z in ticks since the Unix epoch.
pub(crate) const MIN_TICKS: i64 = days_from_civil(1, 1, 1) * TICKS_PER_DAY;
/// One tick before 10000-01-01T00:00:00Z.
pub(crate) const MAX_TICKS: i64 = days_from_civil(10000, 1, 1) * TICKS_PER_DAY - 1;

impl Timestamp {
    /// Returns the timestamp `ms` milliseconds after 1970-01-01T00:00:00Z, if it lies in
    /// the years 0001 to 9999.
    pub const fn from_unix_ms(ms: i64) -> Option<Self> {
        match ms.checked_mul(TICKS_PER_MS) {
            Some(t) => Self::from_ticks(t),
            None => None,
        }
    }
    /// Returns the timestamp `ticks` (100 ns) after the Unix epoch, if in range.
    pub const fn from_ticks(ticks: i64) -> Option<Self> {
        if ticks < MIN_TICKS || ticks > MAX_TICKS {
            None
        } else {
            Some(Timestamp(ticks))
        }
    }
    /// Returns the ticks (100 ns) since the Unix epoch.
    pub const fn ticks(self) -> i64 {
        self.0
    }
    /// Returns `self + i`, or `None` outside the years 0001 to 9999.
    pub fn checked_add(self, i: TimeInterval) -> Option<Self> {
        Self::from_ticks(self.0.checked_add(i.0)?)
    }
    /// Returns the calendar fields (year, month, day, hour, minute, second, tick of second).
    pub(crate) fn fields(self) -> (i64, u32, u32, u32, u32, u32, i64) {
        let days = self.0.div_euclid(TICKS_PER_DAY);
        let rest = self.0.rem_euclid(TICKS_PER_DAY);
        let (y, m, d) = civil_from_days(days);
        let secs = rest / TICKS_PER_SECOND;
        (
            y,
            m,
            d,
            (secs / 3600) as u32,
            (secs / 60 % 60) as u32,
            (secs % 60) as u32,
            rest % TICKS_PER_SECOND,
        )
    }
    /// Returns .NET's `DayOfWeek`: 0 = Sunday, 1 = Monday, ... 6 = Saturday (RFC 1123's
    /// day names are checked against it).
    pub(crate) fn weekday(self) -> u32 {
        // 1970-01-01 was a Thursday (4).
        (self.0.div_euclid(TICKS_PER_DAY) + 4).rem_euclid(7) as u32
    }
    /// Returns the formula's `weekday`: ISO 8601's day number, 1 = Monday ... 7 = Sunday.
    ///
    /// Batch documents only "the number of day of week, for example, 1 for Monday" and
    /// weekday formulas `weekday >= 1 && weekday <= 5`, which read the same with Sunday = 0
    /// or 7. Microsoft's own formula generators settle it: Azure/batch-shipyard
    /// (`convoy/autoscale.py`, scenario `weekend`) and Azure/doAzureParallel
    /// (`R/autoscale.R`, `autoscaleWeekendFormula`) ship `weekday >= 6 && weekday <= 7` as
    /// "the weekend", which covers Sunday only if Sunday is 7. No public formula found tests
    /// `weekday == 0`. (README: "What `check` checks".)
    pub(crate) fn iso_weekday(self) -> u32 {
        match self.weekday() {
            0 => 7,
            d => d,
        }
    }
    /// Parses W3C-DTF / RFC 3339 (`2016-10-13T19:18:47.805Z`, `2016-10-13`, offsets
    /// `+hh:mm`) or RFC 1123 (`Thu, 13 Oct 2016 19:18:47 GMT`).
    pub fn parse(s: &str) -> Option<Self> {
        parse_w3c(s.as_bytes()).or_else(|| parse_rfc1123(s.as_bytes()))
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub(crate) const fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number (inverse of [`days_from_civil`]).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Reads exactly `n` ASCII digits at `*i`.
fn digits(b: &[u8], i: &mut usize, n: usize) -> Option<i64> {
    let mut v = 0i64;
    for _ in 0..n {
        let c = *b.get(*i)?;
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(c - b'0');
        *i += 1;
    }
    Some(v)
}

fn byte(b: &[u8], i: &mut usize, c: u8) -> bool {
    if b.get(*i) == Some(&c) {
        *i += 1;
        true
    } else {
        false
    }
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    y: i64,
    mo: i64,
    d: i64,
    h: i64,
    mi: i64,
    s: i64,
    frac: i64,
    off: i64,
) -> Option<Timestamp> {
    if !(1..=9999).contains(&y) || !(1..=12).contains(&mo) {
        return None;
    }
    let mo = mo as u32;
    if d < 1 || d > i64::from(days_in_month(y, mo)) || h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let days = days_from_civil(y, mo, d as u32);
    let t = days * TICKS_PER_DAY + (h * 3600 + mi * 60 + s - off) * TICKS_PER_SECOND + frac;
    Timestamp::from_ticks(t)
}

fn parse_w3c(b: &[u8]) -> Option<Timestamp> {
    let mut i = 0;
    let y = digits(b, &mut i, 4)?;
    let (mut mo, mut d, mut h, mut mi, mut s, mut frac, mut off) = (1, 1, 0, 0, 0, 0, 0);
    if byte(b, &mut i, b'-') {
        mo = digits(b, &mut i, 2)?;
        if byte(b, &mut i, b'-') {
            d = digits(b, &mut i, 2)?;
            if byte(b, &mut i, b'T') {
                h = digits(b, &mut i, 2)?;
                if !byte(b, &mut i, b':') {
                    return None;
                }
                mi = digits(b, &mut i, 2)?;
                if byte(b, &mut i, b':') {
                    s = digits(b, &mut i, 2)?;
                    if byte(b, &mut i, b'.') {
                        let start = i;
                        let mut scale = TICKS_PER_SECOND;
                        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                            scale /= 10; // digits beyond 100 ns are dropped
                            frac += i64::from(c - b'0') * scale;
                            i += 1;
                        }
                        if i == start {
                            return None;
                        }
                    }
                }
                if byte(b, &mut i, b'Z') {
                } else if b.get(i) == Some(&b'+') || b.get(i) == Some(&b'-') {
                    let sign = if b[i] == b'-' { -1 } else { 1 };
                    i += 1;
                    let oh = digits(b, &mut i, 2)?;
                    if !byte(b, &mut i, b':') {
                        return None;
                    }
                    let om = digits(b, &mut i, 2)?;
                    if oh > 23 || om > 59 {
                        return None;
                    }
                    off = sign * (oh * 3600 + om * 60);
                }
            }
        }
    }
    if i != b.len() {
        return None;
    }
    assemble(y, mo, d, h, mi, s, frac, off)
}

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];
const DAYS: [&[u8; 3]; 7] = [b"Sun", b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat"];

fn parse_rfc1123(b: &[u8]) -> Option<Timestamp> {
    // "Thu, 01 Oct 2026 00:00:00 GMT"
    if b.len() != 29 || &b[3..5] != b", " || b[7] != b' ' || b[11] != b' ' || b[16] != b' ' {
        return None;
    }
    let name = DAYS.iter().position(|d| d[..] == b[0..3])?;
    let mut i = 5;
    let d = digits(b, &mut i, 2)?;
    let mo = MONTHS.iter().position(|m| m[..] == b[8..11])? as i64 + 1;
    i = 12;
    let y = digits(b, &mut i, 4)?;
    i = 17;
    let h = digits(b, &mut i, 2)?;
    let ok1 = byte(b, &mut i, b':');
    let mi = digits(b, &mut i, 2)?;
    let ok2 = byte(b, &mut i, b':');
    let s = digits(b, &mut i, 2)?;
    if !ok1 || !ok2 || (&b[25..] != b" GMT" && &b[25..] != b" UTC") {
        return None;
    }
    let t = assemble(y, mo, d, h, mi, s, 0, 0)?;
    // The day name must agree with the date.
    (t.weekday() as usize == name).then_some(t)
}

impl fmt::Display for Timestamp {
    /// Writes `YYYY-MM-DDTHH:MM:SS.mmmZ`, as Batch prints timestamps in results.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, mo, d, h, mi, s, frac) = self.fields();
        write!(
            f,
            "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
            frac / TICKS_PER_MS
        )
    }
}

impl fmt::Display for TimeInterval {
    /// Writes an ISO 8601 duration: `PT10M`, `-PT6H`, `P1DT0.5S`, `PT0S`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 0 {
            f.write_str("-")?;
        }
        let t = self.0.unsigned_abs();
        let day = TICKS_PER_DAY as u64;
        let sec = TICKS_PER_SECOND as u64;
        let (days, rest) = (t / day, t % day);
        let (h, m, s, frac) = (
            rest / (3600 * sec),
            rest / (60 * sec) % 60,
            rest / sec % 60,
            rest % sec,
        );
        f.write_str("P")?;
        if days > 0 {
            write!(f, "{days}D")?;
        }
        if rest == 0 && days > 0 {
            return Ok(());
        }
        f.write_str("T")?;
        if h > 0 {
            write!(f, "{h}H")?;
        }
        if m > 0 {
            write!(f, "{m}M")?;
        }
        if s > 0 || frac > 0 || rest == 0 {
            write!(f, "{s}")?;
            if frac > 0 {
                let mut digits = 7;
                let mut fr = frac;
                while fr % 10 == 0 {
                    fr /= 10;
                    digits -= 1;
                }
                write!(f, ".{fr:0digits$}")?;
            }
            f.write_str("S")?;
        }
        Ok(())
    }
}
