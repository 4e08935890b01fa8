//! What a chart keeps of a run: [`Lines`], the observer that turns each round into points of
//! the model's series, each series bounded by an [`Envelope`] of at most [`BUCKETS`] buckets.

use capsim_core::{autoscale, bulkhead, consumers, Observer};

/// The most buckets an [`Envelope`] keeps: a series of up to this many points keeps every
/// one; a longer one keeps, for each of 512 to 1024 runs of consecutive points, the lowest and
/// the highest (about one per pixel column of the chart, whose plot is 848 pixels wide).
pub const BUCKETS: usize = 1024;

/// A point of a series: its place in the series, round and value.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    i: u64,
    x: f64,
    y: f64,
}

/// The lowest and highest points of a run of consecutive points (the first of each, if tied).
#[derive(Clone, Copy, Debug)]
struct Bucket {
    low: Point,
    high: Point,
}

impl Bucket {
    fn merge(self, later: Bucket) -> Bucket {
        Bucket {
            low: if later.low.y < self.low.y {
                later.low
            } else {
                self.low
            },
            high: if later.high.y > self.high.y {
                later.high
            } else {
                self.high
            },
        }
    }
}

/// One series thinned as it is observed, in memory bounded by [`BUCKETS`] whatever the run's
/// length: the points are cut into buckets of `width` consecutive points (a power of two,
/// doubled when the buckets are full), and each bucket keeps its lowest and highest point.
/// The drawn line goes through those, the first and the last point, in order: its extremes
/// are the series' extremes, at their rounds. Values are finite.
#[derive(Clone, Debug)]
pub struct Envelope {
    width: u64,
    seen: u64,
    buckets: Vec<Bucket>,
    first: Option<Point>,
    last: Option<Point>,
}

impl Default for Envelope {
    fn default() -> Self {
        Envelope {
            width: 1,
            seen: 0,
            buckets: Vec::new(),
            first: None,
            last: None,
        }
    }
}

impl Envelope {
    /// Adds the next point, (round, value).
    pub fn push(&mut self, x: f64, y: f64) {
        let p = Point { i: self.seen, x, y };
        self.seen += 1;
        self.first.get_or_insert(p);
        self.last = Some(p);
        let mut b = p.i / self.width;
        if b == self.buckets.len() as u64 && self.buckets.len() == BUCKETS {
            self.width *= 2;
            self.buckets = self
                .buckets
                .chunks(2)
                .map(|pair| pair[1..].iter().fold(pair[0], |a, &l| a.merge(l)))
                .collect();
            b = p.i / self.width;
        }
        match self.buckets.get_mut(b as usize) {
            Some(k) => *k = k.merge(Bucket { low: p, high: p }),
            None => self.buckets.push(Bucket { low: p, high: p }),
        }
    }

    /// The points to draw, (round, value) in order: every point if there were at most
    /// [`BUCKETS`], else the first, each bucket's lowest and highest, and the last.
    pub fn points(&self) -> Vec<(f64, f64)> {
        let mut kept: Vec<Point> = Vec::with_capacity(self.buckets.len() * 2 + 2);
        kept.extend(self.first);
        for b in &self.buckets {
            let (a, c) = if b.low.i <= b.high.i {
                (b.low, b.high)
            } else {
                (b.high, b.low)
            };
            kept.push(a);
            kept.push(c);
        }
        kept.extend(self.last);
        kept.dedup_by_key(|p| p.i);
        kept.iter().map(|p| (p.x, p.y)).collect()
    }
}

/// What a plot keeps of one run, whatever the model: one [`Envelope`] per series, fed
/// round by round (the bulkhead's are running sums).
#[derive(Default)]
pub struct Lines {
    /// The series, in the order of the model's [`Plotted::SERIES`](super::Plotted::SERIES).
    pub series: Vec<Envelope>,
    pub(super) dropped: [u64; 2],
    /// Whether the run has its model's extra series ([`crate::trace::Traced::split`]): a
    /// consumers run with a flow option draws its queue after arrivals and its drops too.
    pub extra: bool,
    /// An autoscale run with the spot class: it keeps the dedicated instances too (after
    /// group size, ready and required).
    pub dedicated: bool,
    /// An autoscale run driven by a formula: it keeps the formula's dedicated target too
    /// (`target_dedicated`, last).
    pub target: bool,
    pub(super) rejected: u64,
    /// Windows of consecutive rounds in which an instance waited in a lifecycle hook
    /// (Pending:Wait or Removing:Wait), `[start, end)`, at most [`MAX_WINDOWS`].
    pub hook_waits: Vec<(f64, f64)>,
    /// The rounds a formula was evaluated in (the run's own schedule, which a timed
    /// interval or formula restarts).
    pub evaluated: Vec<f64>,
}

/// The most hook-wait windows a chart shades (later ones are merged into the last).
pub const MAX_WINDOWS: usize = 256;

impl Lines {
    fn push(&mut self, x: f64, values: &[f64]) {
        if self.series.is_empty() {
            self.series = vec![Envelope::default(); values.len()];
        }
        for (e, &y) in self.series.iter_mut().zip(values) {
            e.push(x, y);
        }
    }
}

impl Observer for Lines {
    fn group_round(&mut self, s: &autoscale::RoundState) {
        use autoscale::State;
        let r = f64::from(s.round);
        if s.evaluated {
            self.evaluated.push(r);
        }
        if s.counts.get(State::PendingWait) + s.counts.get(State::RemovingWait) > 0 {
            let full = self.hook_waits.len() == MAX_WINDOWS;
            match self.hook_waits.last_mut() {
                Some(w) if w.1 == r || full => w.1 = r + 1.0,
                _ => self.hook_waits.push((r, r + 1.0)),
            }
        }
        // The spot class's and a formula's only (see `Plotted::series_of`).
        let dedicated = self.dedicated.then_some(f64::from(s.size - s.spot));
        let target = self.target.then_some(f64::from(s.target_dedicated));
        let values = [
            Some(f64::from(s.size)),
            Some(f64::from(s.counts.serving())),
            Some(s.required as f64),
            dedicated,
            target,
        ];
        let values: Vec<f64> = values.into_iter().flatten().collect();
        self.push(f64::from(s.round), &values);
    }
    fn consumers_round(&mut self, s: &consumers::RoundState) {
        let backlog = s.queue_left + u64::from(s.busy_consumers);
        if self.extra {
            self.dropped[0] += s.dropped;
            let values = [backlog as f64, s.backlog as f64, self.dropped[0] as f64];
            self.push(s.round as f64, &values);
        } else {
            self.push(s.round as f64, &[backlog as f64]);
        }
    }
    fn bulkhead_round(&mut self, s: &bulkhead::RoundState) {
        self.dropped[0] += u64::from(s.tracking_dropped);
        self.dropped[1] += u64::from(s.event_dropped);
        self.rejected += u64::from(s.rejected);
        // The last two are the options' series (zero without them; drawn only with them).
        self.push(
            f64::from(s.round),
            &[
                self.dropped[0] as f64,
                self.dropped[1] as f64,
                self.rejected as f64,
                f64::from(s.retries_waiting),
            ],
        );
    }
}
