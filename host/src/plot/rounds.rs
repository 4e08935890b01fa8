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
    /// Windows of consecutive rounds under capacity (fewer instances serving than the
    /// demand requires: the metrics' `under_capacity_rounds`), `[start, end)`, at most
    /// [`MAX_WINDOWS`] (later ones are merged into the last).
    pub short: Vec<(f64, f64)>,
    /// How many rounds were under capacity: the metrics' `under_capacity_rounds`, exact
    /// however many windows were merged.
    pub short_rounds: u64,
    /// The rounds in which a Kubernetes HPA's scaling policy held the count back
    /// (`ScaleUpLimit`, `ScaleDownLimit`).
    pub policy_held: Vec<f64>,
    /// The rounds in which an HPA's stabilization window held the count back (the
    /// stabilized count differs from the metric's recommendation).
    pub window_held: Vec<f64>,
}

/// The most windows of one kind a chart shades (hook waits, rounds under capacity; later
/// ones are merged into the last).
pub const MAX_WINDOWS: usize = 256;

/// Adds round `r` to `windows`: it extends the last window if it ends at `r` (or if the
/// windows are [`MAX_WINDOWS`] already), else starts a new one.
fn add_round(windows: &mut Vec<(f64, f64)>, r: f64) {
    let full = windows.len() == MAX_WINDOWS;
    match windows.last_mut() {
        Some(w) if w.1 == r || full => w.1 = r + 1.0,
        _ => windows.push((r, r + 1.0)),
    }
}

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

/// A model's round state as a plot keeps it: its values of the model's series, pushed onto
/// [`Lines`] round by round.
pub trait PlotRound: capsim_core::Round {
    /// Adds this round to `lines`.
    fn keep(&self, lines: &mut Lines);
}

impl<S: PlotRound> Observer<S> for Lines {
    fn round(&mut self, s: &S) {
        s.keep(self);
    }
}

impl PlotRound for autoscale::RoundState {
    fn keep(&self, lines: &mut Lines) {
        use autoscale::State;
        let r = f64::from(self.round);
        if self.evaluated {
            lines.evaluated.push(r);
        }
        if let Some(h) = &self.hpa {
            if h.sync.limit.rate_limited() {
                lines.policy_held.push(r);
            }
            if h.sync.stabilized_away() {
                lines.window_held.push(r);
            }
        }
        if self.counts.get(State::PendingWait) + self.counts.get(State::RemovingWait) > 0 {
            add_round(&mut lines.hook_waits, r);
        }
        // The metric's rule: fewer instances serving than the round requires.
        if i64::from(self.counts.serving()) < self.required {
            add_round(&mut lines.short, r);
            lines.short_rounds += 1;
        }
        // The spot class's and a formula's only (see `Plotted::series_of`).
        let dedicated = lines.dedicated.then_some(f64::from(self.size - self.spot));
        let target = lines.target.then_some(f64::from(self.target_dedicated));
        let values = [
            Some(f64::from(self.size)),
            Some(f64::from(self.counts.serving())),
            Some(self.required as f64),
            dedicated,
            target,
        ];
        let values: Vec<f64> = values.into_iter().flatten().collect();
        lines.push(f64::from(self.round), &values);
    }
}

impl PlotRound for consumers::RoundState {
    fn keep(&self, lines: &mut Lines) {
        let backlog = self.queue_left + u64::from(self.busy_consumers);
        if lines.extra {
            lines.dropped[0] += self.dropped;
            let values = [backlog as f64, self.backlog as f64, lines.dropped[0] as f64];
            lines.push(self.round as f64, &values);
        } else {
            lines.push(self.round as f64, &[backlog as f64]);
        }
    }
}

impl PlotRound for bulkhead::RoundState {
    fn keep(&self, lines: &mut Lines) {
        lines.dropped[0] += u64::from(self.tracking_dropped);
        lines.dropped[1] += u64::from(self.event_dropped);
        lines.rejected += u64::from(self.rejected);
        // The last two are the options' series (zero without them; drawn only with them).
        lines.push(
            f64::from(self.round),
            &[
                lines.dropped[0] as f64,
                lines.dropped[1] as f64,
                lines.rejected as f64,
                f64::from(self.retries_waiting),
            ],
        );
    }
}
