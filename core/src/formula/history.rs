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
    /// Slot by slot, each slot's metrics side by side (a round's samples are one write).
    values: [[f64; METRIC_COUNT]; N],
    /// Slot by slot, whether each metric's sample is present.
    present: [[bool; METRIC_COUNT]; N],
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
            values: [[0.0; METRIC_COUNT]; N],
            present: [[false; METRIC_COUNT]; N],
        }
    }

    /// Returns the propagation delay.
    pub fn delay(&self) -> TimeInterval {
        TimeInterval(self.delay)
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.len = 0;
        self.present.fill([false; METRIC_COUNT]);
    }

    fn slot(k: i64) -> Option<usize> {
        k.checked_rem_euclid(N as i64).map(|s| s as usize)
    }

    /// Records `value` as `metric`'s sample at `at` (a multiple of 30 s). Recording later
    /// than the newest slot moves the ring on (skipped slots are missing); recording an older
    /// slot within `N` of the newest fills it in; older than that is an error.
    pub fn record(&mut self, at: Timestamp, metric: Metric, value: f64) -> Result<(), Error> {
        let s = self.slot_at(at)?;
        self.put(metric as usize, s, value);
        Ok(())
    }

    /// Records one value for every metric at `at` (`None`: that sample is missing), as
    /// [`History::record`] of each present value in turn records them: the ring moves once.
    #[inline]
    pub fn record_all(
        &mut self,
        at: Timestamp,
        values: &[Option<f64>; METRIC_COUNT],
    ) -> Result<(), Error> {
        if values.iter().all(Option::is_none) {
            return Ok(());
        }
        let s = self.slot_at(at)?;
        if let (Some(slot), Some(present)) = (self.values.get_mut(s), self.present.get_mut(s)) {
            for ((x, p), v) in slot.iter_mut().zip(present.iter_mut()).zip(values) {
                if let Some(v) = v {
                    *x = *v;
                    *p = true;
                }
            }
        }
        Ok(())
    }

    /// Moves the ring to take a sample at `at` (see [`History::record`]) and returns its slot.
    fn slot_at(&mut self, at: Timestamp) -> Result<usize, Error> {
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
                self.present.fill([false; METRIC_COUNT]);
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
        // N > 0 here: the slot exists.
        Ok(Self::slot(k).unwrap_or(0))
    }

    /// Stores metric `m`'s value in slot `s`.
    fn put(&mut self, m: usize, s: usize, value: f64) {
        if let (Some(v), Some(p)) = (
            self.values.get_mut(s).and_then(|v| v.get_mut(m)),
            self.present.get_mut(s).and_then(|p| p.get_mut(m)),
        ) {
            *v = value;
            *p = true;
        }
    }

    fn clear_slot(&mut self, k: i64) {
        if let Some(p) = Self::slot(k).and_then(|s| self.present.get_mut(s)) {
            *p = [false; METRIC_COUNT];
        }
    }

    /// The sample `k` of `m`, if it is in the ring and present.
    pub(crate) fn get(&self, m: Metric, k: i64) -> Option<f64> {
        if self.len == 0 || k > self.newest || self.newest - k >= self.len as i64 {
            return None;
        }
        let s = Self::slot(k)?;
        let m = m as usize;
        if *self.present.get(s)?.get(m)? {
            self.values.get(s)?.get(m).copied()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `record_all` keeps exactly what recording each present value in turn keeps: values,
    /// missing ones, the ring moving on by one slot, by several, by more than its length,
    /// a back-filled slot and a slot recorded twice.
    #[test]
    fn record_all_is_each_value_recorded_in_turn() {
        let at = |k: i64| Timestamp::from_unix_ms(1_790_812_800_000 + k * 30_000).unwrap();
        let mut all = History::<8>::new(DEFAULT_DELAY);
        let mut each = History::<8>::new(DEFAULT_DELAY);
        for (step, k) in [0i64, 1, 2, 5, 4, 4, 30, 31, 29].into_iter().enumerate() {
            let mut values = [None; METRIC_COUNT];
            for (m, v) in values.iter_mut().enumerate() {
                if (m + step) % 3 != 0 {
                    *v = Some((step * 100 + m) as f64);
                }
            }
            assert_eq!(
                all.record_all(at(k), &values).is_ok(),
                values
                    .iter()
                    .enumerate()
                    .all(|(m, v)| v.is_none_or(|v| each.record(at(k), Metric::ALL[m], v).is_ok())),
                "{k}"
            );
            assert_eq!((all.newest, all.len), (each.newest, each.len), "{k}");
            for j in all.newest - 10..=all.newest {
                for m in Metric::ALL {
                    assert_eq!(all.get(m, j), each.get(m, j), "slot {j}, {m:?}");
                }
            }
        }
        // Nothing present: the ring does not move.
        let before = all.newest;
        all.record_all(at(40), &[None; METRIC_COUNT]).unwrap();
        assert_eq!(all.newest, before);
        // A time between samples is refused.
        let off = Timestamp::from_unix_ms(1_790_812_800_001).unwrap();
        assert!(all.record_all(off, &[Some(1.0); METRIC_COUNT]).is_err());
    }
}
