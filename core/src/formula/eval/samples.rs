//! The sample methods of a metric (`$CPUPercent.GetSample(...)` and its siblings):
//! [`Cx::method`] reads the metric's history over a window or a count of samples
//! ([`Cx::window_args`], [`Cx::count_window`]) and fails with `NoSample` or the percentage
//! rule exactly where Batch does.

use super::super::error::ErrorKind;
use super::super::history::History;
use super::super::program::{Method, Node};
use super::super::Metric;
use super::ops::percent;
use super::{Cx, Value, P, R};

impl<const N: usize, const NODES: usize, const POOL: usize> Cx<'_, '_, '_, '_, N, NODES, POOL> {
    /// A sampling argument as an absolute point in time (ticks): an interval looks back
    /// from now, a timestamp is itself.
    fn point(&mut self, name: &'static str, v: Value, n: &Node) -> R<i64> {
        match v {
            Value::Interval(i) => match self.inputs.now.ticks().checked_sub(i) {
                Some(t) => Ok(t),
                None => Err(self.fail(n, ErrorKind::TimeOutOfRange)),
            },
            Value::Time(t) => Ok(t),
            other => Err(self.wrong_type(n, name, other)),
        }
    }

    /// Reads a window's arguments: ((lo, hi) in ticks, required percentage).
    fn window_args(
        &mut self,
        name: &'static str,
        first: u16,
        count: u16,
        allow_percent: bool,
    ) -> R<((i64, i64), Option<f64>)> {
        let now = self.inputs.now.ticks();
        let (a, an) = self.arg(first, 0)?;
        let p0 = self.point(name, a, &an)?;
        let mut p1 = now;
        let mut pct = None;
        if count >= 2 {
            let (b, bn) = self.arg(first, 1)?;
            match b {
                Value::Double(x) if allow_percent && count == 2 => pct = Some(x),
                _ => p1 = self.point(name, b, &bn)?,
            }
        }
        if count >= 3 {
            let (c, cn) = self.arg(first, 2)?;
            pct = Some(self.double_arg(name, c, &cn)?);
        }
        Ok(((p0.min(p1), p0.max(p1)), pct))
    }

    #[inline(never)]
    pub(super) fn method(
        &mut self,
        n: &Node,
        m: Metric,
        method: Method,
        first: u16,
        count: u16,
    ) -> R<Value> {
        let name = method.name();
        let now = self.inputs.now.ticks();
        let h = self.inputs.history;
        match method {
            Method::GetSamplePeriod => Ok(Value::Interval(P)),
            Method::Count => {
                let mut c = 0u32;
                if let Some((lo, hi)) = h.readable(now) {
                    for k in lo..=hi {
                        c += u32::from(h.get(m, k).is_some());
                    }
                }
                Ok(Value::Double(f64::from(c)))
            }
            Method::HistoryBeginTime => {
                if let Some((lo, hi)) = h.readable(now) {
                    for k in lo..=hi {
                        if h.get(m, k).is_some() {
                            return Ok(Value::Time(k * P));
                        }
                    }
                }
                Err(self.fail(n, ErrorKind::NoSample(m)))
            }
            Method::GetSamplePercent => {
                let mark = self.ws.pool_len;
                let ((lo, hi), _) = self.window_args(name, first, count, false)?;
                self.ws.pool_len = mark;
                let (possible, available) = self.count_window(m, lo, hi);
                Ok(Value::Double(percent(possible, available)))
            }
            Method::GetSample => {
                let mark = self.ws.pool_len;
                let (a, an) = self.arg(first, 0)?;
                if let (Value::Double(c), 1) = (a, count) {
                    // The `count` most recent available samples.
                    let c = libm::trunc(c);
                    if c.is_nan() || c < 1.0 {
                        return Err(self.fail(&an, ErrorKind::SampleCount));
                    }
                    let want = if c > N as f64 { N } else { c as usize };
                    let mut got = 0;
                    let mut from = 0;
                    if let Some((lo, hi)) = h.readable(now) {
                        let mut k = hi;
                        while k >= lo && got < want {
                            if h.get(m, k).is_some() {
                                got += 1;
                                from = k;
                            }
                            k -= 1;
                        }
                    }
                    self.ws.pool_len = mark;
                    let out = self.alloc(n, got)?;
                    let mut j = 0;
                    let mut k = from;
                    while j < got {
                        if let Some(v) = h.get(m, k) {
                            self.set(out + j, v);
                            j += 1;
                        }
                        k += 1;
                    }
                    return Ok(Self::vector(out, got));
                }
                self.ws.pool_len = mark;
                let ((lo, hi), pct) = self.window_args(name, first, count, true)?;
                self.ws.pool_len = mark;
                let (possible, available) = self.count_window(m, lo, hi);
                if let Some(wanted) = pct {
                    let got = percent(possible, available);
                    if possible == 0 || got < wanted {
                        let received = if possible == 0 { 0.0 } else { libm::floor(got) };
                        return Err(self.fail(
                            n,
                            ErrorKind::InsufficientSampleData {
                                metric: m,
                                wanted,
                                received: received as u32,
                            },
                        ));
                    }
                }
                let out = self.alloc(n, available as usize)?;
                let (first_k, last_k) = History::<N>::window(lo, hi);
                let (a, b) = h.available(now, first_k, last_k);
                let mut j = 0;
                let mut k = a;
                while k <= b {
                    if let Some(v) = h.get(m, k) {
                        self.set(out + j, v);
                        j += 1;
                    }
                    k += 1;
                }
                Ok(Self::vector(out, j))
            }
        }
    }

    /// (possible, available) samples of `m` in the window `(lo, hi]`.
    fn count_window(&self, m: Metric, lo: i64, hi: i64) -> (u64, u64) {
        let h = self.inputs.history;
        let (first, last) = History::<N>::window(lo, hi);
        let possible = if last >= first {
            (last - first) as u64 + 1
        } else {
            0
        };
        let (a, b) = h.available(self.inputs.now.ticks(), first, last);
        let mut available = 0;
        let mut k = a;
        while k <= b {
            available += u64::from(h.get(m, k).is_some());
            k += 1;
        }
        (possible, available)
    }
}
