//! Metric history: one fixed ring of 30-second samples per read-only service variable.

use super::time::{TimeInterval, Timestamp, TICKS_PER_SECOND};
use super::{Metric, METRIC_COUNT};
use crate::Error;

/// Batch records a sample every 30 seconds.
pub const SAMPLE_PERIOD: TimeInterval = TimeInterval::from_seconds(30);
/// Samples become available to formulas "approximately one minute" after they are recorded.
pub const DEFAULT_DELAY: TimeInterval = TimeInterval::from_seconds(60);
/// The default ring length: 240 samples = 2 hours of history.
pub const DEFAULT_HISTORY: usize = 240;

const P: i64 = 30 * TICKS_PER_SECOND;

/// The last `N` sample slots of every read-only service variable ([`Metric`]).
///
/// Sample `k` is the one recorded at `k × 30 s` after the Unix epoch; a slot holds a value or
/// is missing. A sample is available to an evaluation at time `T` when it was recorded at or
/// before `T − delay` and is still in the ring. Memory: `N × 9 × 20` bytes plus a few words
/// (43 KB for the default 240 samples).
#[derive(Clone)]
pub struct History<const N: usize = DEFAULT_HISTORY> {
    delay: i64,
    /// Index `k` of the newest slot; meaningful when `len > 0`.
    newest: i64,
    /// Slots in the ring (0 = nothing recorded yet).
    len: usize,
    values: [[f64; N]; METRIC_COUNT],
    present: [[bool; N]; METRIC_COUNT],
}

impl<const N: usize> Default for History<N> {
    fn default() -> Self {
        Self::new(DEFAULT_DELAY)
    }
}

impl<const N: usize> History<N> {
    /// Returns an empty history whose samples become available `delay` after recording
    /// (negative delays count as 0).
    pub const fn new(delay: TimeInterval) -> Self {
        History {
            delay: if delay.ticks() < 0 { 0 } else { delay.ticks() },
            newest: 0,
            len: 0,
            values: [[0.0; N]; METRIC_COUNT],
            present: [[false; N]; METRIC_COUNT],
        }
    }

    /// Returns the propagation delay.
    pub fn delay(&self) -> TimeInterval {
        TimeInterval(self.delay)
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.len = 0;
        self.present.iter_mut().for_each(|p| p.fill(false));
    }

    fn slot(k: i64) -> Option<usize> {
        k.checked_rem_euclid(N as i64).map(|s| s as usize)
    }

    /// Records `value` as `metric`'s sample at `at` (a multiple of 30 s). Recording later
    /// than the newest slot moves the ring on (skipped slots are missing); recording an older
    /// slot within `N` of the newest fills it in; older than that is an error.
    pub fn record(&mut self, at: Timestamp, metric: Metric, value: f64) -> Result<(), Error> {
        if at.ticks().rem_euclid(P) != 0 {
            return Err(Error::OutOfRange {
                param: "sample time",
                accepted: crate::error::Accepted::MultiplesOfSeconds { seconds: 30 },
            });
        }
        let k = at.ticks().div_euclid(P);
        if N == 0 {
            return Err(Error::CapacityExceeded {
                capacity: crate::error::Capacity::SampleHistory,
                limit: 0,
            });
        }
        if self.len == 0 {
            self.newest = k;
            self.len = 1;
            self.clear_slot(k);
        } else if k > self.newest {
            let steps = k - self.newest;
            if steps >= N as i64 {
                self.present.iter_mut().for_each(|p| p.fill(false));
            } else {
                for j in 1..=steps {
                    self.clear_slot(self.newest + j);
                }
            }
            self.len = (self.len as i64 + steps).min(N as i64) as usize;
            self.newest = k;
        } else if self.newest - k >= N as i64 {
            return Err(Error::CapacityExceeded {
                capacity: crate::error::Capacity::SampleHistory,
                limit: N as u32,
            });
        } else if self.newest - k >= self.len as i64 {
            // Back-filling: the slots between were never used, so they read as missing.
            self.len = (self.newest - k + 1) as usize;
        }
        if let Some(s) = Self::slot(k) {
            let m = metric as usize;
            if let (Some(v), Some(p)) = (self.values[m].get_mut(s), self.present[m].get_mut(s)) {
                *v = value;
                *p = true;
            }
        }
        Ok(())
    }

    /// Records one value for every metric at `at` (`None`: that sample is missing).
    pub fn record_all(
        &mut self,
        at: Timestamp,
        values: &[Option<f64>; METRIC_COUNT],
    ) -> Result<(), Error> {
        for (i, v) in values.iter().enumerate() {
            if let (Some(v), Some(m)) = (v, Metric::ALL.get(i)) {
                self.record(at, *m, *v)?;
            }
        }
        Ok(())
    }

    fn clear_slot(&mut self, k: i64) {
        if let Some(s) = Self::slot(k) {
            for p in self.present.iter_mut() {
                if let Some(x) = p.get_mut(s) {
                    *x = false;
                }
            }
        }
    }

    /// The sample `k` of `m`, if it is in the ring and present.
    pub(crate) fn get(&self, m: Metric, k: i64) -> Option<f64> {
        if self.len == 0 || k > self.newest || self.newest - k >= self.len as i64 {
            return None;
        }
        let s = Self::slot(k)?;
        let m = m as usize;
        if *self.present.get(m)?.get(s)? {
            self.values.get(m)?.get(s).copied()
        } else {
            None
        }
    }

    /// The range of slots an evaluation at `now` may read: (oldest, newest available).
    pub(crate) fn readable(&self, now: i64) -> Option<(i64, i64)> {
        if self.len == 0 {
            return None;
        }
        let limit = now.saturating_sub(self.delay).div_euclid(P);
        let hi = self.newest.min(limit);
        let lo = self.newest - (self.len as i64 - 1);
        (lo <= hi).then_some((lo, hi))
    }

    /// Sample indices `k` with `lo < k·30 s ≤ hi` (ticks): (first, last), maybe empty.
    pub(crate) fn window(lo: i64, hi: i64) -> (i64, i64) {
        (lo.div_euclid(P) + 1, hi.div_euclid(P))
    }

    /// The window's available slots (clipped to what is readable): (first, last), maybe empty.
    pub(crate) fn available(&self, now: i64, first: i64, last: i64) -> (i64, i64) {
        match self.readable(now) {
            Some((lo, hi)) => (first.max(lo), last.min(hi)),
            None => (1, 0),
        }
    }
}
