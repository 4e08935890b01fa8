//! `capsim plot`: a run's rounds as an SVG chart, one series per value of the listed flags.
//!
//! Free of files and terminals (it returns the SVG text) so that a browser build can call
//! it too. Drawn with `plotters`' SVG backend and a fixed text measure ([`Svg`]: no system
//! fonts, no browser), so the same input gives the same bytes on every machine and in wasm32.

use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, DrawingErrorKind};

use capsim_core::{autoscale, bulkhead, consumers, Observer};

use crate::models::{Autoscale, Bulkhead, Consumers, Flags, Grid, Model};
use crate::trace::Traced;

/// The most runs one chart draws (each is one or more series); a grid of more runs, up to
/// [`MAX_MULTIPLES_RUNS`], is drawn as small multiples, a panel per run.
pub const MAX_SERIES_RUNS: u64 = 8;

/// The most runs a plot draws as small multiples (a 6 × 6 grid of panels).
pub const MAX_MULTIPLES_RUNS: u64 = 36;

/// The chart's size in pixels.
pub const SIZE: (u32, u32) = (960, 540);

/// One line of a chart: its legend label and its points (round, value).
pub struct Series {
    /// The legend's text.
    pub label: String,
    /// (round, value), in round order.
    pub points: Vec<(f64, f64)>,
    /// The run it belongs to, in grid order: its dash pattern (solid, dashed, dotted, …) so
    /// that two runs' lines that overlap stay apart.
    pub run: usize,
}

/// What a chart marks on its rounds, besides the lines: what the lesson is about.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    /// Shaded windows of rounds, `[start, end)`, each with its legend label (the surge, the
    /// slowdown, rounds in which an instance waits in a lifecycle hook).
    pub windows: Vec<(Vec<(f64, f64)>, String)>,
    /// Vertical lines at rounds, with their legend label (the failure rounds).
    pub lines: Vec<(Vec<f64>, String)>,
    /// Short ticks on the round axis, with their legend label (formula evaluations).
    pub ticks: Vec<(Vec<f64>, String)>,
}

impl Marks {
    /// The marks of several runs, `(run name, marks)`, as one chart shows them: a mark every
    /// run that has it shares (same label, same rounds) once, as it is; a mark whose rounds
    /// differ between runs once per run, its label prefixed with the run's name.
    fn of_runs(runs: &[(String, Marks)]) -> Marks {
        fn one<T: Clone + PartialEq>(
            runs: &[(String, Marks)],
            pick: fn(&Marks) -> &Vec<(T, String)>,
        ) -> Vec<(T, String)> {
            let mut out: Vec<(T, String)> = Vec::new();
            let mut labels: Vec<&str> = Vec::new();
            for (_, m) in runs {
                for (_, label) in pick(m) {
                    if !labels.contains(&label.as_str()) {
                        labels.push(label);
                    }
                }
            }
            for label in labels {
                let with: Vec<(&str, &T)> = runs
                    .iter()
                    .flat_map(|(name, m)| {
                        pick(m)
                            .iter()
                            .filter(|(_, l)| l == label)
                            .map(move |(v, _)| (name.as_str(), v))
                    })
                    .collect();
                if with.iter().all(|(_, v)| *v == with[0].1) {
                    out.push((with[0].1.clone(), label.to_string()));
                } else {
                    for (name, v) in with {
                        out.push((v.clone(), named(name, label)));
                    }
                }
            }
            out
        }
        Marks {
            windows: one(runs, |m| &m.windows),
            lines: one(runs, |m| &m.lines),
            ticks: one(runs, |m| &m.ticks),
        }
    }
}

/// Rounds written as a list, shortened past 6 (`40, 95, 170`; `0, 15, 30, … 225`).
fn round_list(rounds: &[f64]) -> String {
    let text: Vec<String> = rounds.iter().map(|r| format!("{r}")).collect();
    if text.len() <= 6 {
        text.join(", ")
    } else {
        format!("{}, … {}", text[..3].join(", "), text[text.len() - 1])
    }
}

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
    /// The series, in the order of the model's [`Plotted::SERIES`].
    pub series: Vec<Envelope>,
    dropped: [u64; 2],
    /// Whether the run has its model's extra series ([`crate::trace::Traced::split`]): a
    /// consumers run with a flow option draws its queue after arrivals and its drops too.
    pub extra: bool,
    /// An autoscale run with the spot class: it keeps the dedicated instances too (after
    /// group size, ready and required).
    pub dedicated: bool,
    /// An autoscale run driven by a formula: it keeps the formula's dedicated target too
    /// (`target_dedicated`, last).
    pub target: bool,
    rejected: u64,
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
        if self.counts.get(State::PendingWait) + self.counts.get(State::RemovingWait) > 0 {
            let full = lines.hook_waits.len() == MAX_WINDOWS;
            match lines.hook_waits.last_mut() {
                Some(w) if w.1 == r || full => w.1 = r + 1.0,
                _ => lines.hook_waits.push((r, r + 1.0)),
            }
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

/// A model the CLI can chart.
pub trait Plotted: Traced<Round: PlotRound> {
    /// The chart's y axis label.
    const Y_LABEL: &'static str;
    /// Where the legend goes (where the lines leave room).
    const LEGEND: SeriesLabelPosition = SeriesLabelPosition::UpperLeft;
    /// What each of the run's series shows, in the order [`Lines`] keeps them.
    const SERIES: &'static [&'static str];
    /// The series drawn for a run with `p`: [`Plotted::SERIES`], and those of its options.
    fn series_of(p: &Self::Params) -> Vec<&'static str> {
        let _ = p;
        Self::SERIES.to_vec()
    }

    /// The round axis' label, with the round's length where the model fixes it.
    const X_LABEL: &'static str = "round";

    /// The round axis' label for run `p` (a round's length may be a parameter).
    fn x_label(p: &Self::Params) -> String {
        let _ = p;
        Self::X_LABEL.to_string()
    }

    /// What the chart marks for run `p` (its rounds observed in `lines`): the failure
    /// rounds, the surge, the slowdown, formula evaluations, hook waits.
    fn marks(p: &Self::Params, lines: &Lines) -> Marks {
        let _ = (p, lines);
        Marks::default()
    }

    /// What a run with `p` keeps: the series [`Plotted::series_of`] names, in its order.
    fn lines(p: &Self::Params) -> Lines {
        Lines {
            extra: Self::split(p),
            ..Lines::default()
        }
    }
}

/// Draws a series that several of `runs` runs share once (the demand's required instances,
/// the same for every threshold; two runs that the same formula empties), labelled by the
/// runs that share it, or by what it shows only when every run does.
fn dedup(series: Vec<Series>, runs: u64) -> Vec<Series> {
    let split = |label: &str| match label.rsplit_once(": ") {
        Some((name, what)) => (name.to_string(), what.to_string()),
        None => (String::new(), label.to_string()),
    };
    let mut kept: Vec<(Series, Vec<String>)> = Vec::new();
    for s in series {
        let (name, what) = split(&s.label);
        if let Some((_, names)) = kept
            .iter_mut()
            .find(|(k, _)| k.points == s.points && split(&k.label).1 == what)
        {
            names.push(name);
            continue;
        }
        kept.push((s, vec![name]));
    }
    kept.into_iter()
        .map(|(mut s, names)| {
            if names.len() > 1 {
                let what = split(&s.label).1;
                s.label = if names.len() as u64 >= runs {
                    what
                } else {
                    format!("{}: {what}", names.join(", "))
                };
            }
            s
        })
        .collect()
}

fn named(name: &str, what: &str) -> String {
    if name.is_empty() {
        what.to_string()
    } else {
        format!("{name}: {what}")
    }
}

impl Plotted for Autoscale {
    const Y_LABEL: &'static str = "instances";
    const SERIES: &'static [&'static str] = &["group size", "ready", "required"];
    const X_LABEL: &'static str = "round (1 min)";

    fn marks(p: &crate::models::AutoscaleParams, lines: &Lines) -> Marks {
        let c = &p.core;
        let mut marks = Marks::default();
        let end = f64::from(c.rounds);
        if c.surge != 0.0 && c.surge_start < c.surge_end && c.surge_start < c.rounds {
            let to = c.surge_end.min(c.rounds);
            marks.windows.push((
                vec![(f64::from(c.surge_start), f64::from(to))],
                format!("surge (rounds {} to {})", c.surge_start, to - 1),
            ));
        }
        if !lines.hook_waits.is_empty() {
            marks.windows.push((
                lines.hook_waits.clone(),
                "an instance waits in a hook".into(),
            ));
        }
        let failures: Vec<f64> = c
            .failure_rounds
            .iter()
            .filter(|&&r| r < c.rounds)
            .map(|&r| f64::from(r))
            .collect();
        if !failures.is_empty() {
            let label = format!("instance breaks (round {})", round_list(&failures));
            marks.lines.push((failures, label));
        }
        let restarted = c.lifecycle.at.iter().any(|a| {
            matches!(
                a.what,
                autoscale::Timed::EvaluationInterval | autoscale::Timed::Formula
            )
        });
        if p.formula.0.is_some() && restarted {
            // A timed action restarted the schedule: the run's own evaluations.
            let at: Vec<f64> = lines
                .evaluated
                .iter()
                .copied()
                .take_while(|&r| r < end)
                .collect();
            marks.ticks.push((
                at,
                "formula evaluation (the schedule restarts at a timed action)".into(),
            ));
        } else if p.formula.0.is_some() {
            let every = p.evaluation_interval.max(1);
            let at: Vec<f64> = (0..c.rounds)
                .step_by(every as usize)
                .map(f64::from)
                .take_while(|&r| r < end)
                .collect();
            marks
                .ticks
                .push((at, format!("formula evaluation (every {every} rounds)")));
        }
        marks
    }

    /// With the spot class the two classes are stacked: the dedicated instances, and the
    /// spot ones above them up to the group size. A formula's run adds the formula's
    /// dedicated target (the trace's `target_dedicated`), last.
    fn series_of(p: &Self::Params) -> Vec<&'static str> {
        let mut names = if p.core.lifecycle.spot.enabled() {
            vec![
                "group size (dedicated + spot)",
                "ready",
                "required",
                "dedicated (spot above, to the group size)",
            ]
        } else {
            Self::SERIES.to_vec()
        };
        if p.formula.0.is_some() {
            names.push(TARGET_SERIES);
        }
        names
    }

    fn lines(p: &Self::Params) -> Lines {
        Lines {
            extra: <Self as Traced>::split(p),
            dedicated: p.core.lifecycle.spot.enabled(),
            target: p.formula.0.is_some(),
            ..Lines::default()
        }
    }
}

/// The legend's name of a formula run's target series: the trace's `target_dedicated`, the
/// dedicated target after each round's decision (the last evaluation's
/// `$TargetDedicatedNodes`, truncated, held between evaluations).
pub const TARGET_SERIES: &str = "target ($TargetDedicatedNodes)";

impl Plotted for Consumers {
    const Y_LABEL: &'static str = "events not yet applied";
    const LEGEND: SeriesLabelPosition = SeriesLabelPosition::UpperRight;
    /// A plain run draws the first only; a run with a flow option all three.
    const SERIES: &'static [&'static str] = &["backlog", "queued after arrivals", "dropped so far"];
    fn series_of(p: &Self::Params) -> Vec<&'static str> {
        let drawn = if <Self as crate::trace::Traced>::split(p) {
            3
        } else {
            1
        };
        Self::SERIES[..drawn].to_vec()
    }
}

impl Plotted for Bulkhead {
    const Y_LABEL: &'static str = "requests dropped so far";
    const SERIES: &'static [&'static str] = &["tracking dropped", "event dropped"];
    /// With `--breaker` or `--retries`: the requests the breaker rejected so far (rising
    /// while it is open) and the retries waiting.
    fn series_of(p: &Self::Params) -> Vec<&'static str> {
        let mut names = Self::SERIES.to_vec();
        if <Self as crate::trace::Traced>::options(p) {
            names.extend(["rejected by the breaker so far", "retries waiting"]);
        }
        names
    }

    /// A round is 1 / `--rounds-per-second` seconds.
    fn x_label(p: &bulkhead::Params) -> String {
        format!("round (1/{} s)", p.rounds_per_second)
    }

    fn marks(p: &bulkhead::Params, _: &Lines) -> Marks {
        let mut marks = Marks::default();
        // The slowdown lasts to the horizon, or to --failure-end.
        let end = p.failure_end.map_or(p.horizon, |e| e.min(p.horizon));
        if p.mode == bulkhead::Mode::Slowdown && p.failure_start < end {
            marks.windows.push((
                vec![(f64::from(p.failure_start), f64::from(end))],
                format!("slowdown (from round {})", p.failure_start),
            ));
        }
        marks
    }
}

/// Runs every run of `grid` (at most [`MAX_SERIES_RUNS`]) and returns the series a plot
/// draws, one per entry of [`Plotted::SERIES`] per run, each labelled by the run's values of
/// the listed flags (before twins are merged).
pub fn series<M: Plotted>(grid: &Grid<M>) -> Result<Vec<Series>, String> {
    if grid.len() > MAX_SERIES_RUNS {
        return Err(format!(
            "a plot draws at most {MAX_SERIES_RUNS} runs; the lists make {}",
            grid.len()
        ));
    }
    Ok(series_and_marks(grid)?.0)
}

/// [`series`], and every run's [`Marks`] as one chart shows them ([`Marks::of_runs`]).
fn series_and_marks<M: Plotted>(grid: &Grid<M>) -> Result<(Vec<Series>, Marks), String> {
    let mut series = Vec::new();
    let mut marks = Vec::new();
    for i in 0..grid.len() {
        let (name, run, m) = run_series(grid, i)?;
        series.extend(run.into_iter().map(|mut s| {
            s.label = named(&name, &s.label);
            s
        }));
        marks.push((name, m));
    }
    Ok((series, Marks::of_runs(&marks)))
}

/// Runs run `i` of `grid` and returns its values of the listed flags, its series, each
/// labelled by what it shows ([`Plotted::SERIES`]), and its marks.
fn run_series<M: Plotted>(grid: &Grid<M>, i: u64) -> Result<(String, Vec<Series>, Marks), String> {
    let p = grid.params(i);
    (M::VALIDATE)(&p).map_err(|e| e.to_string())?;
    let name = values(grid, &p, true);
    let mut lines = M::lines(&p);
    crate::trace::observe::<M>(&p, &mut lines).map_err(|e| format!("run {}: {e}", grid.name(i)))?;
    let series = M::series_of(&p)
        .iter()
        .zip(&lines.series)
        .map(|(what, e)| Series {
            label: what.to_string(),
            points: e.points(),
            run: i as usize,
        })
        .collect();
    let marks = M::marks(&p, &lines);
    Ok((name, series, marks))
}

/// Runs every run of `grid` (more than [`MAX_SERIES_RUNS`], at most [`MAX_MULTIPLES_RUNS`])
/// and returns each run's values of the listed flags, its series and its marks, for small
/// multiples.
pub fn panels<M: Plotted>(grid: &Grid<M>) -> Result<Vec<Panel>, String> {
    if grid.len() > MAX_MULTIPLES_RUNS {
        return Err(format!(
            "a plot draws at most {MAX_SERIES_RUNS} runs in one chart, or up to {MAX_MULTIPLES_RUNS} as small multiples; the lists make {}",
            grid.len()
        ));
    }
    (0..grid.len())
        .map(|i| {
            run_series(grid, i).map(|(name, series, marks)| Panel {
                name,
                series,
                marks,
            })
        })
        .collect()
}

/// One run of small multiples: its caption, its series and its marks.
pub struct Panel {
    /// The run's values of the listed flags.
    pub name: String,
    /// Its series, labelled by what they show.
    pub series: Vec<Series>,
    /// What its chart marks.
    pub marks: Marks,
}

/// Runs every combination of `flags` (at most [`MAX_SERIES_RUNS`]) and charts them: one
/// series (or a few) per run, labelled by its values of the listed flags; the title names
/// the model and the values every run shares. Memory is bounded whatever the runs' length
/// (see [`Envelope`]).
pub fn plot<M: Plotted>(model: &str, flags: &Flags<M>) -> Result<String, String> {
    let grid: Grid<M> = flags.grid()?;
    let shared = values(&grid, &grid.params(0), false);
    let title = if shared.is_empty() {
        format!("capsim {model}")
    } else {
        format!("capsim {model}: {shared}")
    };
    // The runs' round length, if they share one.
    let x_label = M::x_label(&grid.params(0));
    let x_label = if (1..grid.len()).all(|i| M::x_label(&grid.params(i)) == x_label) {
        x_label
    } else {
        M::X_LABEL.to_string()
    };
    if grid.len() > MAX_SERIES_RUNS {
        return multiples(&title, M::Y_LABEL, &x_label, &panels(&grid)?);
    }
    let (series, marks) = series_and_marks(&grid)?;
    chart(
        &title,
        (&x_label, M::Y_LABEL),
        &dedup(series, grid.len()),
        &marks,
        M::LEGEND,
    )
}

/// Small multiples: one panel per run (captioned by its values of the listed flags), in grid
/// order, row by row, every panel on the same axes; one legend of what the series show.
pub fn multiples(
    title: &str,
    y_label: &str,
    x_label: &str,
    panels: &[Panel],
) -> Result<String, String> {
    let n = panels.len().max(1);
    let cols = (1..=n).find(|c| c * c >= n).unwrap_or(n);
    let rows = n.div_ceil(cols);
    let panel_h: u32 = if cols <= 3 { 200 } else { 150 };
    let size = (SIZE.0, MULTIPLES_TOP + rows as u32 * panel_h + 8);
    let mut svg = String::new();
    {
        let root = Svg::with_string(&mut svg, size).into_drawing_area();
        draw_multiples(&root, title, (x_label, y_label), panels, (rows, cols))
            .map_err(|e| format!("cannot draw the chart: {e}"))?;
        root.present()
            .map_err(|e| format!("cannot draw the chart: {e}"))?;
    }
    Ok(svg)
}

/// The pixels above the panels of [`multiples`]: the title and the legend line.
const MULTIPLES_TOP: u32 = 64;

fn draw_multiples(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    title: &str,
    (x_label, y_label): (&str, &str),
    panels: &[Panel],
    (rows, cols): (usize, usize),
) -> Result<(), Failed> {
    root.fill(&WHITE)?;
    let (width, _) = root.dim_in_pixel();
    let centred = |text: &str, size: f64| (width as i32 - text_size(size, text).0 as i32) / 2;
    let font = |size: f64| -> TextStyle { ("sans-serif", size).into_font().into() };
    root.draw(&Text::new(title, (centred(title, 20.0), 8), font(20.0)))?;
    // The legend, one line: each series' swatch and name, then the axes' meaning.
    let names: Vec<&str> = panels
        .first()
        .map(|p| p.series.iter().map(|s| s.label.as_str()).collect())
        .unwrap_or_default();
    let axes = format!("each panel: {y_label} over {x_label}");
    let widths: i32 = names
        .iter()
        .map(|n| 28 + text_size(14.0, n).0 as i32 + 16)
        .sum::<i32>()
        + text_size(14.0, &axes).0 as i32;
    let mut x = (width as i32 - widths) / 2;
    for (i, name) in names.iter().enumerate() {
        let (colour, dash) = style_of(i);
        draw_dashed(root, &[(x, 44), (x + 22, 44)], colour, dash, width_of(name))?;
        x += 28;
        root.draw(&Text::new(*name, (x, 36), font(14.0)))?;
        x += text_size(14.0, name).0 as i32 + 16;
    }
    root.draw(&Text::new(axes.as_str(), (x, 36), font(14.0)))?;
    let body = root.margin(MULTIPLES_TOP, 8, 8, 8);
    let points = panels
        .iter()
        .flat_map(|p| p.series.iter().flat_map(|s| s.points.iter()));
    let x_max = points.clone().map(|p| p.0).fold(1.0, f64::max);
    let y_max = points.map(|p| p.1).fold(1.0, f64::max) * 1.08;
    for (panel, area) in panels.iter().zip(body.split_evenly((rows, cols))) {
        let series = &panel.series;
        let mut chart = ChartBuilder::on(&area)
            .caption(&panel.name, ("sans-serif", 13))
            .margin(4)
            .x_label_area_size(20)
            .y_label_area_size(34)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_labels(5)
            .y_labels(4)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .label_style(("sans-serif", 11))
            .light_line_style(RGBColor(240, 240, 240))
            .draw()?;
        let plot = chart.plotting_area();
        draw_marks(root, plot, &panel.marks, (x_max, y_max))?;
        for (i, s) in drawing_order(series) {
            let (colour, dash) = style_of(i);
            let pixels: Vec<BackendCoord> =
                s.points.iter().map(|&p| plot.map_coordinate(&p)).collect();
            // map_coordinate gives the root's pixels.
            draw_dashed(root, &pixels, colour, dash, width_of(&s.label))?;
        }
    }
    Ok(())
}

/// A run's values of the listed flags (`swept`), or of the headline flags not listed.
fn values<M: Model>(grid: &Grid<M>, p: &M::Params, swept: bool) -> String {
    let keys: Vec<&str> = if swept {
        grid.swept.clone()
    } else {
        M::HEADLINE
            .iter()
            .copied()
            .filter(|k| !grid.swept.contains(k))
            .collect()
    };
    keys.iter()
        .filter_map(|k| M::PARAMS.iter().find(|q| q.key == *k))
        .map(|q| format!("{}={}", q.flag(), (q.flag_value)(p)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The series' colours, in order (distinct on white and in grey).
const COLOURS: [RGBColor; 9] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(23, 190, 207),
];

/// Series `i`'s colour and dash pattern (pixels on, off; `None`: solid), so that series that
/// overlap stay apart in grey too.
fn style_of(i: usize) -> (RGBColor, Option<(i32, i32)>) {
    let dash = match i % 3 {
        0 => None,
        1 => Some((8, 4)),
        _ => Some((2, 3)),
    };
    (COLOURS[i % COLOURS.len()], dash)
}

/// Draws a polyline through `pixels`, solid or dashed.
fn draw_dashed(
    area: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    pixels: &[BackendCoord],
    colour: RGBColor,
    dash: Option<(i32, i32)>,
    width: u32,
) -> Result<(), Failed> {
    let style = colour.stroke_width(width);
    match dash {
        None => area.draw(&PathElement::new(pixels.to_vec(), style))?,
        Some((on, off)) => {
            // Walks the line and cuts it into `on`-pixel dashes `off` pixels apart.
            let mut dashes: Vec<Vec<BackendCoord>> = Vec::new();
            let mut current: Vec<BackendCoord> = Vec::new();
            let (mut drawing, mut left) = (true, f64::from(on));
            for w in pixels.windows(2) {
                let (a, b) = (w[0], w[1]);
                let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
                let length = (dx * dx + dy * dy).sqrt();
                let mut at = 0.0;
                let point = |t: f64| (a.0 + (dx * t).round() as i32, a.1 + (dy * t).round() as i32);
                if drawing && current.is_empty() {
                    current.push(a);
                }
                while length - at > left {
                    at += left;
                    let p = point(at / length);
                    if drawing {
                        current.push(p);
                        dashes.push(std::mem::take(&mut current));
                        left = f64::from(off);
                    } else {
                        current.push(p);
                        left = f64::from(on);
                    }
                    drawing = !drawing;
                }
                left -= length - at;
                if drawing {
                    current.push(b);
                }
            }
            if current.len() > 1 {
                dashes.push(current);
            }
            for d in dashes {
                area.draw(&PathElement::new(d, style))?;
            }
        }
    }
    Ok(())
}

/// Draws `series` as lines over rounds, with a title, labelled axes and a legend.
pub fn chart(
    title: &str,
    labels: (&str, &str),
    series: &[Series],
    marks: &Marks,
    legend: SeriesLabelPosition,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = Svg::with_string(&mut svg, SIZE).into_drawing_area();
        draw(&root, title, labels, series, marks, legend)
            .map_err(|e| format!("cannot draw the chart: {e}"))?;
        root.present()
            .map_err(|e| format!("cannot draw the chart: {e}"))?;
    }
    Ok(svg)
}

type Failed = Box<dyn std::error::Error>;

/// `plotters`' SVG backend measuring text with its host estimate (`naive.rs`: 0.7 em per
/// byte) on every target: on wasm32 `plotters` measures text in the browser's DOM, which a
/// Web Worker or node does not have and which would give other bytes than `capsim plot`.
pub struct Svg<'a>(SVGBackend<'a>);

impl<'a> Svg<'a> {
    /// Draws into `buf`, `size` pixels.
    pub fn with_string(buf: &'a mut String, size: (u32, u32)) -> Self {
        Svg(SVGBackend::with_string(buf, size))
    }
}

impl DrawingBackend for Svg<'_> {
    type ErrorType = std::io::Error;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }
    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }
    fn draw_line<S: plotters_backend::BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }
    fn draw_rect<S: plotters_backend::BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_path(path, style)
    }
    fn draw_circle<S: plotters_backend::BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, style)
    }
    fn draw_text<S: plotters_backend::BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_text(text, style, pos)
    }
    fn estimate_text_size<S: plotters_backend::BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok(text_size(style.size(), text))
    }
}

/// plotters' naive.rs, the measure its non-browser builds use: an em of size / 1.24², 0.7 em
/// per byte wide, from -1 em to 0.24 em high.
fn text_size(size: f64, text: &str) -> (u32, u32) {
    let em = size / 1.24 / 1.24;
    let width = (em * 0.7 * text.len() as f64).round() as i32;
    let height = (em * 0.24).round() as i32 - (-em.round() as i32);
    (width as u32, height as u32)
}

/// The legend's font size, line height (plotters' multi-line text: 1.25 lines), inner
/// margin and swatch area, as plotters' `configure_series_labels` lays it out.
const LEGEND_FONT: f64 = 14.0;
const LEGEND_MARGIN: i32 = 10;
const LEGEND_SWATCH: i32 = 30;

/// Draws the legend as plotters' `configure_series_labels().draw()` does (same elements,
/// same order, same pixels), but measuring text with [`text_size`]: plotters' own legend
/// asks the font directly, which on wasm32 means the browser's DOM.
fn legend(
    area: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    series: &[Series],
    marks: &Marks,
    position: SeriesLabelPosition,
) -> Result<(), Failed> {
    // Each entry: its text and its swatch.
    let mut entries: Vec<(&str, Swatch)> = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                s.label.as_str(),
                Swatch::Line(
                    COLOURS[i % COLOURS.len()],
                    dash_of(s.run),
                    width_of(&s.label),
                ),
            )
        })
        .collect();
    for (k, (_, label)) in marks.windows.iter().enumerate() {
        entries.push((
            label,
            Swatch::Window(WINDOW_COLOURS[k % WINDOW_COLOURS.len()]),
        ));
    }
    for (_, label) in &marks.lines {
        entries.push((label, Swatch::Rule));
    }
    for (_, label) in &marks.ticks {
        entries.push((label, Swatch::Tick));
    }
    let line_y = |i: usize| (i as f64 * LEGEND_FONT * 1.25).round() as i32;
    let sizes: Vec<(u32, u32)> = entries
        .iter()
        .map(|(label, _)| text_size(LEGEND_FONT, label))
        .collect();
    let (mut w, mut h) = (0, 0);
    for (i, &(dx, dy)) in sizes.iter().enumerate() {
        w = w.max(dx as i32);
        h = h.max(line_y(i) + dy as i32);
    }
    w += LEGEND_SWATCH + LEGEND_MARGIN * 2;
    h += LEGEND_MARGIN * 2;
    let (area_w, _) = area.dim_in_pixel();
    let (x, y) = match position {
        SeriesLabelPosition::UpperRight => (area_w as i32 - w - 5, 5),
        _ => (5, 5),
    };
    area.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        WHITE.mix(0.85).filled(),
    ))?;
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], BLACK))?;
    let font: TextStyle = ("sans-serif", LEGEND_FONT).into_font().into();
    let (tx, ty) = (x + LEGEND_SWATCH + LEGEND_MARGIN, y + LEGEND_MARGIN);
    for (i, (label, _)) in entries.iter().enumerate() {
        area.draw(&Text::new(*label, (tx, ty + line_y(i)), font.clone()))?;
    }
    for (i, (&(_, dy), (_, swatch))) in sizes.iter().zip(&entries).enumerate() {
        let mid = (2 * (ty + line_y(i)) + dy as i32) / 2;
        let x0 = x + LEGEND_MARGIN;
        match *swatch {
            Swatch::Line(colour, dash, width) => {
                draw_dashed(area, &[(x0, mid), (x0 + 20, mid)], colour, dash, width)?
            }
            Swatch::Window(colour) => area.draw(&Rectangle::new(
                [(x0, mid - 6), (x0 + 20, mid + 6)],
                colour.mix(WINDOW_ALPHA).filled(),
            ))?,
            Swatch::Rule => area.draw(&PathElement::new(
                [(x0 + 10, mid - 7), (x0 + 10, mid + 7)],
                RULE_COLOUR.stroke_width(2),
            ))?,
            Swatch::Tick => area.draw(&PathElement::new(
                [(x0 + 10, mid - 4), (x0 + 10, mid + 4)],
                TICK_COLOUR.stroke_width(3),
            ))?,
        }
    }
    Ok(())
}

/// A legend entry's picture.
#[derive(Clone, Copy)]
enum Swatch {
    Line(RGBColor, Option<(i32, i32)>, u32),
    Window(RGBColor),
    Rule,
    Tick,
}

/// The shaded windows' colours, in order (drawn at [`WINDOW_ALPHA`]).
const WINDOW_COLOURS: [RGBColor; 3] = [
    RGBColor(255, 170, 0),
    RGBColor(120, 120, 255),
    RGBColor(0, 170, 120),
];
const WINDOW_ALPHA: f64 = 0.18;
/// The failure rounds' rules and the formula evaluations' ticks.
const RULE_COLOUR: RGBColor = RGBColor(180, 0, 40);
const TICK_COLOUR: RGBColor = RGBColor(110, 40, 160);

/// A line's stroke width in pixels: 2, and [`TARGET_WIDTH`] for a formula's target (see
/// [`drawing_order`]). `label` is the series' legend text, `run: what` or `what`.
fn width_of(label: &str) -> u32 {
    if label.ends_with(TARGET_SERIES) {
        TARGET_WIDTH
    } else {
        2
    }
}

/// A formula's target is a wide band drawn under the other lines: where the group is at its
/// target, the group size runs along the band's middle.
const TARGET_WIDTH: u32 = 6;

/// The series with their places (their colours) in the order they are drawn: the formulas'
/// targets first, under the rest, then the others in order.
fn drawing_order(series: &[Series]) -> impl Iterator<Item = (usize, &Series)> {
    let target = |s: &Series| width_of(&s.label) == TARGET_WIDTH;
    let first = series.iter().enumerate().filter(move |(_, s)| target(s));
    first.chain(series.iter().enumerate().filter(move |(_, s)| !target(s)))
}

/// A run's dash pattern (pixels on, off), by its place in the grid: solid, dashed, dotted.
fn dash_of(run: usize) -> Option<(i32, i32)> {
    match run % 3 {
        0 => None,
        1 => Some((9, 4)),
        _ => Some((2, 3)),
    }
}

/// Draws `marks` on a plot whose ranges are `0..x_max` and `0..y_max`, onto `root` (the
/// plot maps to its pixels): windows shaded from top to bottom, rules at rounds, ticks on
/// the round axis.
fn draw_marks(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    plot: &DrawingArea<
        Svg<'_>,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    marks: &Marks,
    (x_max, y_max): (f64, f64),
) -> Result<(), Failed> {
    let clamp = |x: f64| x.clamp(0.0, x_max);
    for (k, (windows, _)) in marks.windows.iter().enumerate() {
        let colour = WINDOW_COLOURS[k % WINDOW_COLOURS.len()]
            .mix(WINDOW_ALPHA)
            .filled();
        for &(a, b) in windows {
            let top = plot.map_coordinate(&(clamp(a), y_max));
            let bottom = plot.map_coordinate(&(clamp(b), 0.0));
            root.draw(&Rectangle::new([top, bottom], colour))?;
        }
    }
    for (rounds, _) in &marks.lines {
        for &r in rounds.iter().filter(|&&r| r <= x_max) {
            let top = plot.map_coordinate(&(r, y_max));
            let bottom = plot.map_coordinate(&(r, 0.0));
            draw_dashed(root, &[top, bottom], RULE_COLOUR, Some((5, 3)), 2)?;
        }
    }
    for (rounds, _) in &marks.ticks {
        for &r in rounds.iter().filter(|&&r| r <= x_max) {
            let bottom = plot.map_coordinate(&(r, 0.0));
            root.draw(&PathElement::new(
                [bottom, (bottom.0, bottom.1 - 8)],
                TICK_COLOUR.stroke_width(3),
            ))?;
        }
    }
    Ok(())
}

fn draw(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    title: &str,
    (x_label, y_label): (&str, &str),
    series: &[Series],
    marks: &Marks,
    legend: SeriesLabelPosition,
) -> Result<(), Failed> {
    root.fill(&WHITE)?;
    let points = series.iter().flat_map(|s| s.points.iter());
    let x_max = points.clone().map(|p| p.0).fold(1.0, f64::max);
    // Headroom above the lines for the legend, one line of it per entry.
    let entries = series.len() + marks.windows.len() + marks.lines.len() + marks.ticks.len();
    let y_max = points.map(|p| p.1).fold(1.0, f64::max) * (1.08 + 0.05 * entries as f64);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .y_desc(y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    draw_marks(root, chart.plotting_area(), marks, (x_max, y_max))?;
    for (i, s) in drawing_order(series) {
        let colour = COLOURS[i % COLOURS.len()];
        match dash_of(s.run) {
            None => {
                chart.draw_series(LineSeries::new(
                    s.points.iter().copied(),
                    colour.stroke_width(width_of(&s.label)),
                ))?;
            }
            dash => {
                let plot = chart.plotting_area();
                let pixels: Vec<BackendCoord> =
                    s.points.iter().map(|&p| plot.map_coordinate(&p)).collect();
                draw_dashed(root, &pixels, colour, dash, width_of(&s.label))?;
            }
        }
    }
    self::legend(
        &chart.plotting_area().strip_coord_spec(),
        series,
        marks,
        legend,
    )
}

/// The font families a PNG's text is drawn in, the first the machine has (the SVG asks for
/// `sans-serif`): DejaVu Sans, which Debian's fontconfig brings, then two common others.
#[cfg(feature = "png")]
pub const PNG_FONTS: [&str; 3] = ["DejaVu Sans", "Liberation Sans", "Arial"];

/// Rasterises a chart's SVG (what `-o FILE.svg` writes) into PNG bytes of the SVG's size,
/// with resvg; the text is drawn in the first of [`PNG_FONTS`] the machine's fonts have, so
/// the bytes are the same wherever the same font file is installed. A machine with none of
/// them is one line: a chart without its text would be silently wrong.
#[cfg(feature = "png")]
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    let db = options.fontdb_mut();
    db.load_system_fonts();
    let family = PNG_FONTS
        .iter()
        .find(|f| {
            db.faces()
                .any(|face| face.families.iter().any(|(name, _)| name == *f))
        })
        .ok_or_else(|| {
            format!(
                "-o FILE.png: no font to draw the chart's text with (one of {} is needed: install fonts-dejavu-core, or write FILE.svg)",
                PNG_FONTS.join(", ")
            )
        })?;
    db.set_sans_serif_family(*family);
    options.font_family = family.to_string();
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| format!("cannot read the chart's SVG: {e}"))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| "cannot draw the PNG: the chart has no pixels".to_string())?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .map_err(|e| format!("cannot encode the PNG: {e}"))
}

/// The metric `capsim plot MODEL --summary` draws without `--metric`, per model.
pub const SUMMARY_METRIC: [(&str, &str); 3] = [
    ("autoscale", "launched"),
    ("consumers", "rounds"),
    ("bulkhead", "tracking_dropped"),
];

/// The most runs a histogram takes (every run's metric is held).
pub const MAX_HISTOGRAM_RUNS: u64 = 100_000;

/// Runs every combination of `flags` and draws a histogram of `metric` across them (the
/// seeds of `--seed A..=B`, say): how the runs spread. One chart, all runs in it.
pub fn histogram<M: Model>(model: &str, flags: &Flags<M>, metric: &str) -> Result<String, String> {
    // A model's metric, or a derived one (`cost`) where its flag is given.
    type CellOf<M> =
        Box<dyn Fn(&<M as Model>::Params, &<M as Model>::Metrics) -> crate::output::Cell>;
    let cell: CellOf<M> = if let Some(m) = M::METRICS.iter().find(|m| m.key == metric) {
        let f = m.cell;
        Box::new(move |_, x| f(x))
    } else if let Some(d) = M::DERIVED.iter().find(|d| d.key == metric) {
        Box::new(d.cell)
    } else {
        let keys = crate::models::metric_keys::<M>();
        return Err(format!(
            "--metric {metric}: accepted values are {}",
            keys.join(", ")
        ));
    };
    let grid: Grid<M> = flags.grid()?;
    if let Some(q) = M::PRESENT
        .iter()
        .find(|q| q.key == metric && !(q.when)(&grid.params(0)))
    {
        return Err(format!(
            "--metric {metric} is a metric of runs with {} only",
            q.needs
        ));
    }
    if grid.len() > MAX_HISTOGRAM_RUNS {
        return Err(format!(
            "a histogram takes at most {MAX_HISTOGRAM_RUNS} runs; the lists make {}",
            grid.len()
        ));
    }
    let mut scratch = M::scratch();
    let mut values = Vec::with_capacity(grid.len() as usize);
    for i in 0..grid.len() {
        let p = grid.params(i);
        let metrics = M::run(&p, &mut scratch).map_err(|e| format!("run {}: {e}", grid.name(i)))?;
        let v = match cell(&p, &metrics) {
            crate::output::Cell::Int(n) => n as f64,
            crate::output::Cell::Float(x) | crate::output::Cell::Stat(x) => x,
            _ => return Err(format!("--metric {metric} is not a number")),
        };
        values.push(v);
    }
    let runs = if grid.len() == 1 { "run" } else { "runs" };
    let mut title = format!("capsim {model}: {metric} over {} {runs}", grid.len());
    let swept = values_of(&grid);
    if !swept.is_empty() {
        title.push_str(&format!(" ({swept})"));
    }
    histogram_chart(&title, metric, &values)
}

/// The listed flags and their first and last values (`seed=1..=100`).
fn values_of<M: Model>(grid: &Grid<M>) -> String {
    grid.swept
        .iter()
        .filter_map(|k| M::PARAMS.iter().find(|q| q.key == *k))
        .map(|q| {
            let first = (q.flag_value)(&grid.params(0));
            let last = (q.flag_value)(&grid.params(grid.len() - 1));
            format!("{} {first} to {last}", q.flag())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// At most this many bars.
pub const BINS: usize = 40;

/// How a histogram cuts its values: bins of one width, a 1, 2 or 5 times a power of ten.
/// Integer values (all of them below 2^52) are binned on whole numbers: a bin holds `width`
/// consecutive integers and is drawn from half below the first to half below the next bin's.
/// Other values: bin `b` holds `[(first + b) × width, (first + b + 1) × width)`. NaN and
/// infinite values are counted, not binned.
#[derive(Clone, Debug, PartialEq)]
pub struct Bins {
    /// The values' bin width.
    pub width: f64,
    /// The first bin's index on the whole line (its lower edge over `width`).
    pub first: f64,
    /// Values per bin, the first bin holding the lowest value, the last the highest.
    pub counts: Vec<u64>,
    /// Whether the values are integers, binned on whole numbers.
    pub integers: bool,
    /// Values that are NaN.
    pub nan: usize,
    /// Values that are infinite.
    pub infinite: usize,
}

/// Returns the smallest of 1, 2 or 5 times a power of ten that is at least `x` (> 0): read
/// from decimal text, so the bins' edges are the doubles nearest their decimal values.
fn nice(x: f64) -> f64 {
    let e: i32 = format!("{x:e}")
        .split('e')
        .nth(1)
        .and_then(|e| e.parse().ok())
        .unwrap_or(0);
    [(1, e), (2, e), (5, e), (1, e + 1)]
        .iter()
        .filter_map(|(m, e)| format!("{m}e{e}").parse::<f64>().ok())
        .find(|&n| n >= x)
        .unwrap_or(x)
}

/// A bin index within floating-point rounding of the true one (a value on a decimal edge,
/// 0.3 over 0.01 say, goes to the bin above the edge, as the bins' half-open ranges say).
fn index(v: f64, width: f64, integers: bool) -> f64 {
    if integers {
        (v / width).floor()
    } else {
        (v / width + 1e-9).floor()
    }
}

impl Bins {
    /// Cuts `values` into at most [`BINS`] bins (one if the finite values are all equal).
    pub fn of(values: &[f64]) -> Bins {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let nan = values.iter().filter(|v| v.is_nan()).count();
        let infinite = values.len() - finite.len() - nan;
        let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if finite.is_empty() {
            return Bins {
                width: 1.0,
                first: 0.0,
                counts: Vec::new(),
                integers: true,
                nan,
                infinite,
            };
        }
        let integers = finite
            .iter()
            .all(|v| v.fract() == 0.0 && v.abs() < 4_503_599_627_370_496.0);
        // Half the span and the largest magnitude: neither overflows.
        let half = hi / 2.0 - lo / 2.0;
        let scale = lo.abs().max(hi.abs());
        let mut width = if integers {
            nice(((hi - lo + 1.0) / BINS as f64).max(1.0))
        } else if half * 2.0 <= scale * 1e-9 {
            // Equal within rounding: one bin, a twentieth of the value wide.
            nice((scale / 20.0).max(f64::MIN_POSITIVE))
        } else {
            nice(half / (BINS / 2) as f64)
        };
        let bins = |width: f64| index(hi, width, integers) - index(lo, width, integers) + 1.0;
        while bins(width) > BINS as f64 && (width * 2.5).is_finite() {
            width = nice(width * 1.5);
        }
        let first = index(lo, width, integers);
        let mut counts = vec![0u64; bins(width) as usize];
        let last = counts.len() - 1;
        for &v in &finite {
            let b = index(v, width, integers) - first;
            counts[(b.max(0.0) as usize).min(last)] += 1;
        }
        Bins {
            width,
            first,
            counts,
            integers,
            nan,
            infinite,
        }
    }

    /// Where the value `v` lies, in bins from the first bin's lower edge.
    fn at(&self, v: f64) -> f64 {
        if self.integers {
            (v + 0.5) / self.width - self.first
        } else {
            v / self.width - self.first
        }
    }

    /// The x axis' ticks, (position in bins, label): every `m`-th bin edge (integer bins:
    /// every `m`-th bin's first value) over the drawn range, one bin either side of the bars,
    /// `m` the smallest of 1, 2, 5, 10, 20 … whose labels fit side by side.
    pub fn ticks(&self) -> Vec<(f64, String)> {
        if self.counts.is_empty() {
            return Vec::new();
        }
        let end = self.counts.len().max(1) as f64 + 1.0;
        let mut m = 1.0;
        loop {
            let mut ticks = Vec::new();
            let mut k = ((self.first - 1.0) / m).ceil() * m;
            while k <= self.first + end {
                let v = k * self.width;
                let at = self.at(v);
                if v.is_finite() && (-1.0..=end).contains(&at) {
                    ticks.push((at, label(v, self.width)));
                }
                k += m;
            }
            let room: u32 = ticks.iter().map(|(_, l)| text_size(14.0, l).0 + 16).sum();
            if (ticks.len() <= 10 && room <= 800) || ticks.len() <= 2 {
                return ticks;
            }
            m = nice(m * 1.5);
        }
    }

    /// The title's note on values not drawn ("5 of 10 runs are NaN"), if any.
    pub fn note(&self, runs: usize) -> Option<String> {
        let say = |n: usize, what: &str| match n {
            0 => None,
            1 => Some(format!("1 of {runs} runs is {what}")),
            n => Some(format!("{n} of {runs} runs are {what}")),
        };
        let notes: Vec<String> = [say(self.nan, "NaN"), say(self.infinite, "infinite")]
            .into_iter()
            .flatten()
            .collect();
        (!notes.is_empty()).then(|| notes.join(", "))
    }
}

/// `v`, a multiple of `step`, as a tick label: as many decimals as the step needs,
/// no trailing zeros; magnitudes from 10^9 and below 10^-4 in exponent form (`1.5e9`).
fn label(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let exponent = |x: f64| -> i32 {
        format!("{x:e}")
            .split('e')
            .nth(1)
            .and_then(|e| e.parse().ok())
            .unwrap_or(0)
    };
    let (e_v, e_step) = (exponent(v.abs()), exponent(step));
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..9).contains(&e_v) {
        let digits = (e_v - e_step).clamp(0, 16) as usize;
        let text = format!("{v:.digits$e}");
        let (mantissa, e) = text.split_once('e').unwrap_or((&text, "0"));
        format!("{}e{e}", trim(mantissa.to_string()))
    } else {
        let decimals = (-e_step).clamp(0, 17) as usize;
        trim(format!("{v:.decimals$}"))
    }
}

/// Draws the histogram of `values`, one run each, titled `title` and the note on the runs
/// not drawn (NaN, infinite).
pub fn histogram_chart(title: &str, metric: &str, values: &[f64]) -> Result<String, String> {
    let bins = Bins::of(values);
    let title = match bins.note(values.len()) {
        Some(note) => format!("{title}; {note}"),
        None => title.to_string(),
    };
    let mut svg = String::new();
    {
        let root = Svg::with_string(&mut svg, SIZE).into_drawing_area();
        draw_histogram(&root, &title, metric, &bins)
            .map_err(|e| format!("cannot draw the chart: {e}"))?;
        root.present()
            .map_err(|e| format!("cannot draw the chart: {e}"))?;
    }
    Ok(svg)
}

/// An f64 axis whose ticks are given (plotters' `WithKeyPoints` over f64 has no formatter).
struct Ticked {
    range: plotters::coord::types::RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;
    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.range.map(value, limit)
    }
    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.range.range()
    }
}

fn draw_histogram(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    title: &str,
    metric: &str,
    bins: &Bins,
) -> Result<(), Failed> {
    root.fill(&WHITE)?;
    let top = bins.counts.iter().copied().max().unwrap_or(1).max(1);
    let ticks = bins.ticks();
    let end = bins.counts.len().max(1) as f64 + 1.0;
    let x = Ticked {
        range: (-1.0..end).into(),
        ticks: ticks.iter().map(|t| t.0).collect(),
    };
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(x, 0u64..top + top / 10 + 1)?;
    let tick_label = |at: &f64| {
        ticks
            .iter()
            .find(|t| t.0 == *at)
            .map(|t| t.1.clone())
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .x_desc(metric)
        .y_desc("runs")
        .x_label_formatter(&tick_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    chart.draw_series(
        bins.counts
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(b, &n)| {
                let x0 = b as f64;
                Rectangle::new([(x0, 0), (x0 + 1.0, n)], COLOURS[0].filled())
            }),
    )?;
    Ok(())
}
