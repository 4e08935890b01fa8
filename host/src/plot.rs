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

/// The most runs one chart draws (each is one or more series).
pub const MAX_SERIES_RUNS: u64 = 8;

/// The chart's size in pixels.
pub const SIZE: (u32, u32) = (960, 540);

/// One line of a chart: its legend label and its points (round, value).
pub struct Series {
    /// The legend's text.
    pub label: String,
    /// (round, value), in round order.
    pub points: Vec<(f64, f64)>,
}

/// The most rounds a plotted run may have (its states are held until it is drawn).
pub const MAX_PLOT_ROUNDS: usize = 2_000_000;

/// Every round's state of one run, whatever the model (the first [`MAX_PLOT_ROUNDS`]).
#[derive(Default)]
pub struct Rounds {
    /// Whether the run had more rounds than are kept.
    pub overflow: bool,
    /// Autoscale rounds.
    pub group: Vec<autoscale::RoundState>,
    /// Consumers rounds.
    pub consumers: Vec<consumers::RoundState>,
    /// Bulkhead rounds.
    pub bulkhead: Vec<bulkhead::RoundState>,
}

impl Observer for Rounds {
    fn group_round(&mut self, s: &autoscale::RoundState) {
        if self.group.len() < MAX_PLOT_ROUNDS {
            self.group.push(*s);
        } else {
            self.overflow = true;
        }
    }
    fn consumers_round(&mut self, s: &consumers::RoundState) {
        if self.consumers.len() < MAX_PLOT_ROUNDS {
            self.consumers.push(*s);
        } else {
            self.overflow = true;
        }
    }
    fn bulkhead_round(&mut self, s: &bulkhead::RoundState) {
        if self.bulkhead.len() < MAX_PLOT_ROUNDS {
            self.bulkhead.push(*s);
        } else {
            self.overflow = true;
        }
    }
}

/// A model the CLI can chart.
pub trait Plotted: Traced {
    /// The chart's y axis label.
    const Y_LABEL: &'static str;
    /// Where the legend goes (where the lines leave room).
    const LEGEND: SeriesLabelPosition = SeriesLabelPosition::UpperLeft;
    /// The run's series, each label prefixed with `name` (the run's listed values).
    fn series(name: &str, rounds: &Rounds) -> Vec<Series>;
}

fn line<T>(label: String, rows: &[T], f: impl Fn(&T) -> (f64, f64)) -> Series {
    Series {
        label,
        points: rows.iter().map(f).collect(),
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
    fn series(name: &str, r: &Rounds) -> Vec<Series> {
        let g = &r.group;
        vec![
            line(named(name, "group size"), g, |s| {
                (f64::from(s.round), f64::from(s.size))
            }),
            line(named(name, "ready"), g, |s| {
                (f64::from(s.round), f64::from(s.counts.serving()))
            }),
            line(named(name, "required"), g, |s| {
                (f64::from(s.round), s.required as f64)
            }),
        ]
    }
}

impl Plotted for Consumers {
    const Y_LABEL: &'static str = "events not yet applied";
    const LEGEND: SeriesLabelPosition = SeriesLabelPosition::UpperRight;
    fn series(name: &str, r: &Rounds) -> Vec<Series> {
        vec![line(named(name, "backlog"), &r.consumers, |s| {
            (
                s.round as f64,
                (s.queue_left + u64::from(s.busy_consumers)) as f64,
            )
        })]
    }
}

impl Plotted for Bulkhead {
    const Y_LABEL: &'static str = "requests dropped so far";
    fn series(name: &str, r: &Rounds) -> Vec<Series> {
        let cumulative = |what: &str, f: fn(&bulkhead::RoundState) -> u32| {
            let mut sum = 0u64;
            let points = r
                .bulkhead
                .iter()
                .map(|s| {
                    sum += u64::from(f(s));
                    (f64::from(s.round), sum as f64)
                })
                .collect();
            Series {
                label: named(name, what),
                points,
            }
        };
        vec![
            cumulative("tracking dropped", |s| s.tracking_dropped),
            cumulative("event dropped", |s| s.event_dropped),
        ]
    }
}

/// Runs every combination of `flags` (at most [`MAX_SERIES_RUNS`], each of at most
/// [`MAX_PLOT_ROUNDS`] rounds) and charts them: one
/// series (or a few) per run, labelled by its values of the listed flags; the title names
/// the model and the values every run shares.
pub fn plot<M: Plotted>(model: &str, flags: &Flags<M>) -> Result<String, String> {
    let grid: Grid<M> = flags.grid()?;
    if grid.len() > MAX_SERIES_RUNS {
        return Err(format!(
            "a plot draws at most {MAX_SERIES_RUNS} runs; the lists make {}",
            grid.len()
        ));
    }
    let mut series = Vec::new();
    for i in 0..grid.len() {
        let p = grid.params(i);
        (M::VALIDATE)(&p).map_err(|e| e.to_string())?;
        let name = values(&grid, &p, true);
        let mut rounds = Rounds::default();
        crate::trace::observe::<M>(&p, &mut rounds).map_err(|e| format!("{name}: {e}"))?;
        if rounds.overflow {
            return Err(format!(
                "a plotted run has at most {MAX_PLOT_ROUNDS} rounds; {} has more",
                if name.is_empty() { "this run" } else { &name }
            ));
        }
        series.extend(M::series(&name, &rounds));
    }
    let shared = values(&grid, &grid.params(0), false);
    let title = if shared.is_empty() {
        format!("capsim {model}")
    } else {
        format!("capsim {model}: {shared}")
    };
    chart(&title, M::Y_LABEL, &dedup(series, grid.len()), M::LEGEND)
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

/// Draws `series` as lines over rounds, with a title, labelled axes and a legend.
pub fn chart(
    title: &str,
    y_label: &str,
    series: &[Series],
    legend: SeriesLabelPosition,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = Svg::with_string(&mut svg, SIZE).into_drawing_area();
        draw(&root, title, y_label, series, legend)
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
    position: SeriesLabelPosition,
) -> Result<(), Failed> {
    let line_y = |i: usize| (i as f64 * LEGEND_FONT * 1.25).round() as i32;
    let sizes: Vec<(u32, u32)> = series
        .iter()
        .map(|s| text_size(LEGEND_FONT, &s.label))
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
    for (i, s) in series.iter().enumerate() {
        area.draw(&Text::new(
            s.label.as_str(),
            (tx, ty + line_y(i)),
            font.clone(),
        ))?;
    }
    for (i, &(_, dy)) in sizes.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let mid = (2 * (ty + line_y(i)) + dy as i32) / 2;
        let x0 = x + LEGEND_MARGIN;
        area.draw(&PathElement::new(
            [(x0, mid), (x0 + 20, mid)],
            colour.stroke_width(2),
        ))?;
    }
    Ok(())
}

/// The most points a line keeps: about one per pixel of the plot's width, so a long run
/// (the consumers lesson's 90,000 rounds) stays a small file.
const MAX_POINTS: usize = 1000;

/// Every k-th point (and the last), at most about [`MAX_POINTS`] of them.
fn thinned(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let step = points.len().div_ceil(MAX_POINTS).max(1);
    let mut kept: Vec<(f64, f64)> = points.iter().copied().step_by(step).collect();
    if let (Some(&last), true) = (points.last(), !(points.len() - 1).is_multiple_of(step)) {
        kept.push(last);
    }
    kept
}

fn draw(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    title: &str,
    y_label: &str,
    series: &[Series],
    legend: SeriesLabelPosition,
) -> Result<(), Failed> {
    root.fill(&WHITE)?;
    let points = series.iter().flat_map(|s| s.points.iter());
    let x_max = points.clone().map(|p| p.0).fold(1.0, f64::max);
    // Headroom above the lines for the legend, one line of it per series.
    let y_max = points.map(|p| p.1).fold(1.0, f64::max) * (1.08 + 0.05 * series.len() as f64);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
    chart
        .configure_mesh()
        .x_desc("round")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .y_desc(y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        chart.draw_series(LineSeries::new(thinned(&s.points), colour.stroke_width(2)))?;
    }
    self::legend(&chart.plotting_area().strip_coord_spec(), series, legend)
}

/// The most runs a histogram takes (every run's metric is held).
pub const MAX_HISTOGRAM_RUNS: u64 = 100_000;

/// Runs every combination of `flags` and draws a histogram of `metric` across them (the
/// seeds of `--seed A..=B`, say): how the runs spread. One chart, all runs in it.
pub fn histogram<M: Model>(model: &str, flags: &Flags<M>, metric: &str) -> Result<String, String> {
    let Some(m) = M::METRICS.iter().find(|m| m.key == metric) else {
        let keys: Vec<&str> = M::METRICS.iter().map(|m| m.key).collect();
        return Err(format!(
            "--metric {metric}: accepted values are {}",
            keys.join(", ")
        ));
    };
    let grid: Grid<M> = flags.grid()?;
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
        let metrics = M::run(&p, &mut scratch).map_err(|e| format!("{}: {e}", grid.name(i)))?;
        let v = match (m.cell)(&metrics) {
            crate::output::Cell::Int(n) => n as f64,
            crate::output::Cell::Float(x) | crate::output::Cell::Stat(x) => x,
            _ => return Err(format!("--metric {metric} is not a number")),
        };
        if v.is_finite() {
            values.push(v);
        }
    }
    let mut title = format!("capsim {model}: {metric} over {} runs", grid.len());
    let swept = values_of(&grid);
    if !swept.is_empty() {
        title.push_str(&format!(" ({swept})"));
    }
    let mut svg = String::new();
    {
        let root = Svg::with_string(&mut svg, SIZE).into_drawing_area();
        draw_histogram(&root, &title, metric, &values)
            .map_err(|e| format!("cannot draw the chart: {e}"))?;
        root.present()
            .map_err(|e| format!("cannot draw the chart: {e}"))?;
    }
    Ok(svg)
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
const BINS: usize = 40;

fn draw_histogram(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    title: &str,
    metric: &str,
    values: &[f64],
) -> Result<(), Failed> {
    root.fill(&WHITE)?;
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if values.is_empty() {
        (0.0, 1.0)
    } else {
        (lo, hi)
    };
    // Integer-wide bins when the values are few integers apart, else BINS equal ones.
    let width = if hi - lo < BINS as f64 {
        1.0
    } else {
        (hi - lo) / BINS as f64
    };
    let bins = ((hi - lo) / width).floor() as usize + 1;
    let mut counts = vec![0u32; bins];
    for &v in values {
        let b = (((v - lo) / width).floor() as usize).min(bins - 1);
        counts[b] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(1).max(1);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(lo..lo + width * bins as f64, 0u32..top + top / 10 + 1)?;
    chart
        .configure_mesh()
        .x_desc(metric)
        .y_desc("runs")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    chart.draw_series(counts.iter().enumerate().map(|(i, &n)| {
        let x0 = lo + width * i as f64;
        Rectangle::new([(x0, 0), (x0 + width, n)], COLOURS[0].filled())
    }))?;
    Ok(())
}
