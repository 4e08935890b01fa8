//! `capsim plot`: a run's rounds as an SVG chart, one series per value of the listed flags.
//!
//! Free of files and terminals (it returns the SVG text) so that a browser build can call
//! it too. Drawn with `plotters`' SVG backend and a fixed text measure ([`Svg`]: no system
//! fonts, no browser), so the same input gives the same bytes on every machine and in wasm32.

//!
//! The folder, in the order a chart is made:
//! - `rounds.rs`: what a run's observer keeps of each round ([`Lines`]), bounded in memory by
//!   [`Envelope`]'s buckets however long the run;
//! - `plotted.rs`: what each model charts ([`Plotted`]: its series, axis and marks);
//! - this file: the grid's runs made into series and panels, [`plot`] and [`multiples`];
//! - `draw.rs`: the drawing, with the fixed text measure ([`Svg`], [`chart`]);
//! - `png.rs`: the PNG behind the `png` feature;
//! - `histogram.rs`: `--summary`'s histogram of one metric over many runs.

mod draw;
mod histogram;
mod plotted;
#[cfg(feature = "png")]
mod png;
mod rounds;

pub use draw::{chart, Svg};
pub use histogram::{histogram, histogram_chart, Bins, BINS, MAX_HISTOGRAM_RUNS, SUMMARY_METRIC};
pub use plotted::{Plotted, TARGET_SERIES};
#[cfg(feature = "png")]
pub use png::{png, PNG_FONTS};
pub use rounds::{Envelope, Lines, PlotRound, BUCKETS, MAX_WINDOWS};

use plotters::prelude::*;
use plotters_backend::BackendCoord;

use crate::models::{Flags, Grid, Model};
use draw::{draw_dashed, draw_marks, drawing_order, style_of, text_size, width_of, Failed};
use plotted::{dedup, named};

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
