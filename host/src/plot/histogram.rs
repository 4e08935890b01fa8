//! `capsim plot MODEL --summary`: a histogram of one metric over up to [`MAX_HISTOGRAM_RUNS`]
//! runs, in [`BINS`] bins at most.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::draw::{font, text_size, wrap, Failed, Svg, COLOURS, MIN_TEXT_PX};
use super::{say, Look};
use crate::models::{Flags, Grid, Model};

/// The metric `capsim plot MODEL --summary` draws without `--metric`, per model.
pub const SUMMARY_METRIC: [(&str, &str); 3] = [
    ("autoscale", "launched"),
    ("consumers", "rounds"),
    ("bulkhead", "tracking_dropped"),
];

/// The most runs a histogram takes (every run's metric is held).
pub const MAX_HISTOGRAM_RUNS: u64 = 100_000;

/// Runs every combination of `flags` and draws a histogram of `metric` across them (the
/// seeds of `--seed A..=B`, say): how the runs spread. One chart, all runs in it, drawn
/// with the default [`Look`].
pub fn histogram<M: Model>(model: &str, flags: &Flags<M>, metric: &str) -> Result<String, String> {
    histogram_with(model, flags, metric, Look::default())
}

/// [`histogram`] drawn as `look` says (its width, its words' language).
pub fn histogram_with<M: Model>(
    model: &str,
    flags: &Flags<M>,
    metric: &str,
    look: Look,
) -> Result<String, String> {
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
    histogram_look(look, &title, metric, &values)
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
    /// The pixels the x axis' tick labels may take side by side.
    pub room: u32,
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
                room: 800,
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
            room: 800,
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
            let room: u32 = ticks
                .iter()
                .map(|(_, l)| text_size(MIN_TEXT_PX * 1.24, l).0 + 16)
                .sum();
            if (ticks.len() <= 10 && room <= self.room) || ticks.len() <= 2 {
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
/// not drawn (NaN, infinite), with the default [`Look`].
pub fn histogram_chart(title: &str, metric: &str, values: &[f64]) -> Result<String, String> {
    histogram_look(Look::default(), title, metric, values)
}

/// [`histogram_chart`] as `look` says: `look.width` wide, its height 56 % of that (300 to
/// 540 pixels), its words in `look.lang`.
fn histogram_look(look: Look, title: &str, metric: &str, values: &[f64]) -> Result<String, String> {
    let mut bins = Bins::of(values);
    bins.room = look.width.saturating_sub(160);
    let title = match bins.note(values.len()) {
        Some(note) => format!("{title}; {note}"),
        None => title.to_string(),
    };
    let title = say(look.lang, &title);
    let size = (look.width, (look.width * 56 / 100).clamp(300, 540));
    let mut svg = String::new();
    {
        let root = Svg::with_string(&mut svg, size).into_drawing_area();
        draw_histogram(&root, &title, (metric, &say(look.lang, "runs")), &bins)
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
    (metric, runs): (&str, &str),
    bins: &Bins,
) -> Result<(), Failed> {
    root.fill(&WHITE)?;
    // The title, wrapped to the width, centred.
    let (width, _) = root.dim_in_pixel();
    let lines = wrap(title, 19.0, width as i32 - 24);
    let centred = font(19.0).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in lines.iter().enumerate() {
        root.draw(&Text::new(
            line.as_str(),
            (width as i32 / 2, 12 + 26 * i as i32),
            centred.clone(),
        ))?;
    }
    let root = root.margin(16 + 26 * lines.len() as u32, 0, 0, 0);
    let top = bins.counts.iter().copied().max().unwrap_or(1).max(1);
    let ticks = bins.ticks();
    let end = bins.counts.len().max(1) as f64 + 1.0;
    let x = Ticked {
        range: (-1.0..end).into(),
        ticks: ticks.iter().map(|t| t.0).collect(),
    };
    let mut chart = ChartBuilder::on(&root)
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(84)
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
        .y_desc(runs)
        .x_label_formatter(&tick_label)
        .label_style(font(MIN_TEXT_PX))
        .axis_desc_style(font(16.0))
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
