//! `capsim plot`: a run's rounds as an SVG chart, one series per value of the listed flags.
//!
//! Free of files and terminals (it returns the SVG text) so that a browser build can call
//! it too. Drawn with `plotters`' SVG backend and a fixed text measure ([`Svg`]: no system
//! fonts, no browser), so the same input gives the same bytes on every machine and in wasm32.
//! Made to be read from the back of a room: every text at least [`MIN_TEXT_PX`] pixels at
//! the chart's own size ([`Look::width`]: a page draws it at the width it shows it), the
//! legend outside the plots, runs told apart by colour and dash, marks (shaded rounds,
//! solid rules with a triangle, ticks) in colours no series has.
//!
//! The folder, in the order a chart is made:
//! - `rounds.rs`: what a run's observer keeps of each round ([`Lines`]), bounded in memory by
//!   [`Envelope`]'s buckets however long the run;
//! - `plotted.rs`: what each model charts ([`Plotted`]: its series, axis and marks);
//! - this file: the grid's runs made into series, marks and a [`layout`], [`plot_with`];
//! - `draw.rs`: the drawing and its layout, with the fixed text measure ([`Svg`], [`chart`]);
//! - `words.rs`: the chart's words in Turkish ([`say`]);
//! - `png.rs`: the PNG behind the `png` feature;
//! - `histogram.rs`: `--summary`'s histogram of one metric over many runs.

mod draw;
mod histogram;
mod plotted;
#[cfg(feature = "png")]
mod png;
mod rounds;
mod words;

pub use draw::{chart, Svg, MIN_TEXT_PX};
pub use histogram::{
    histogram, histogram_chart, histogram_with, Bins, BINS, MAX_HISTOGRAM_RUNS, SUMMARY_METRIC,
};
pub use plotted::{Plotted, TARGET_SERIES};
#[cfg(feature = "png")]
pub use png::{png, PNG_FONTS};
pub use rounds::{Envelope, Lines, PlotRound, BUCKETS, MAX_WINDOWS};
pub use words::say;

use capsim_core::lesson::Lang;

use crate::models::{Flags, Grid, Model};
use plotted::{dedup, named};

/// The most runs one chart draws (each is one or more series); a grid of more runs, up to
/// [`MAX_MULTIPLES_RUNS`], is drawn as small multiples, a panel per run.
pub const MAX_SERIES_RUNS: u64 = 8;

/// The most runs a plot draws as small multiples (a 6 × 6 grid of panels).
pub const MAX_MULTIPLES_RUNS: u64 = 36;

/// The most series one panel draws: a chart of several runs whose series would be more is
/// drawn as a panel per stream (group size, ready, …: each panel one line per run, and the
/// series every run shares in each), or, if a panel would still hold more, a panel per run.
pub const MAX_PANEL_SERIES: usize = 4;

/// The chart's default width in pixels (its height follows from the layout).
pub const WIDTH: u32 = 960;

/// The widths a chart is drawn at (`capsim plot --width`): a phone's column to a wall.
pub const WIDTHS: std::ops::RangeInclusive<u32> = 280..=3840;

/// How a chart is drawn: its width in pixels and the language of its words
/// (`capsim plot --width W --lang L`); the same runs, the same marks, whatever the look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    /// The SVG's width in pixels, within [`WIDTHS`]; the page draws it at its box's width,
    /// so that its text is shown at its size (at least [`MIN_TEXT_PX`]).
    pub width: u32,
    /// The words' language ([`say`]): English, or Turkish for the lessons' pages.
    pub lang: Lang,
}

impl Default for Look {
    fn default() -> Self {
        Look {
            width: WIDTH,
            lang: Lang::En,
        }
    }
}

impl Look {
    /// The look of `--width` and `--lang` values, or the flag's one-line error.
    pub fn parse(width: &str, lang: &str) -> Result<Look, String> {
        let w = width.parse::<u32>().ok().filter(|w| WIDTHS.contains(w));
        let width = w.ok_or_else(|| {
            format!(
                "invalid value '{width}' for '--width <PX>': accepted values are {} to {}",
                WIDTHS.start(),
                WIDTHS.end()
            )
        })?;
        let lang = Lang::from_name(lang).ok_or_else(|| {
            format!("invalid value '{lang}' for '--lang <LANG>' [possible values: en, tr]")
        })?;
        Ok(Look { width, lang })
    }
}

/// One line of a chart: its legend label and its points (round, value).
#[derive(Clone, Debug)]
pub struct Series {
    /// The legend's text: `what`, after the run's values of the listed flags if several
    /// runs are drawn (`threshold=2: group size`).
    pub label: String,
    /// What it shows (the stream: `group size`, `tracking dropped`).
    pub what: String,
    /// (round, value), in round order.
    pub points: Vec<(f64, f64)>,
    /// The run it belongs to, in grid order: its dash pattern (solid, dashed, dotted, …) so
    /// that two runs' lines that overlap stay apart.
    pub run: usize,
}

/// What a shaded window of rounds is, and so its colour: an input of the run (the surge,
/// the slowdown), an instance waiting in a lifecycle hook, or rounds under capacity (what
/// the group lesson is about). A new kind of window is a new tone (and its colour in
/// `draw.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Something the run was given: the same for runs given the same.
    Input,
    /// An instance waits in a lifecycle hook: what the run did.
    HookWait,
    /// Fewer instances serving than the demand requires: what the run did.
    UnderCapacity,
}

impl Tone {
    /// Whether the window is an outcome of the run (each run's own, told apart even where
    /// two runs' windows are the same) rather than an input.
    pub fn outcome(self) -> bool {
        !matches!(self, Tone::Input)
    }
}

/// Shaded rounds `[start, end)`, with their legend label and tone; `run` is the run they
/// are of when a chart of several runs draws each run's own (as a strip under its lines),
/// `None` when they are the chart's (shaded from the top of the plot to the bottom).
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// The windows of rounds, `[start, end)`, in order.
    pub rounds: Vec<(f64, f64)>,
    /// The legend's text.
    pub label: String,
    /// What they are (their colour).
    pub tone: Tone,
    /// The run they are of, in a chart of several runs that differ in them.
    pub run: Option<usize>,
}

/// What a chart marks on its rounds, besides the lines: what the lesson is about.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    /// Shaded windows of rounds (the surge, the slowdown, hook waits, rounds under
    /// capacity).
    pub windows: Vec<Window>,
    /// Vertical rules at rounds, with their legend label (the failure rounds): solid, with
    /// a triangle at the top, in a colour no series has.
    pub lines: Vec<(Vec<f64>, String)>,
    /// Short ticks on the round axis, with their legend label (formula evaluations).
    pub ticks: Vec<(Vec<f64>, String)>,
}

impl Marks {
    /// The marks of several runs, `(run name, marks)`, as one chart shows them: a mark every
    /// run that has it shares (same label, same rounds) once, as it is; a mark whose rounds
    /// differ between runs, or a window that is a run's outcome ([`Tone::outcome`]) when
    /// there are several runs, once per run, its label prefixed with the run's name.
    fn of_runs(runs: &[(String, Marks)]) -> Marks {
        fn one<T: Clone + PartialEq>(
            runs: &[(String, Marks)],
            pick: fn(&Marks) -> Vec<(T, String)>,
            each: fn(&T) -> bool,
        ) -> Vec<(T, String, Option<usize>)> {
            let mut out = Vec::new();
            let mut labels: Vec<String> = Vec::new();
            for (_, m) in runs {
                for (_, label) in pick(m) {
                    if !labels.contains(&label) {
                        labels.push(label);
                    }
                }
            }
            for label in labels {
                let with: Vec<(usize, &str, T)> = runs
                    .iter()
                    .enumerate()
                    .flat_map(|(i, (name, m))| {
                        pick(m)
                            .into_iter()
                            .filter(|(_, l)| *l == label)
                            .map(move |(v, _)| (i, name.as_str(), v))
                    })
                    .collect();
                let apart = runs.len() > 1 && with.iter().any(|(_, _, v)| each(v));
                if !apart && with.iter().all(|(_, _, v)| *v == with[0].2) {
                    out.push((with[0].2.clone(), label.to_string(), None));
                } else {
                    for (i, name, v) in with {
                        out.push((v, named(name, &label), Some(i)));
                    }
                }
            }
            out
        }
        let windows = one(
            runs,
            |m| {
                m.windows
                    .iter()
                    .map(|w| ((w.rounds.clone(), w.tone), w.label.clone()))
                    .collect()
            },
            |(_, tone): &(Vec<(f64, f64)>, Tone)| tone.outcome(),
        );
        Marks {
            windows: windows
                .into_iter()
                .map(|((rounds, tone), label, run)| Window {
                    rounds,
                    label,
                    tone,
                    run,
                })
                .collect(),
            lines: one(runs, |m| m.lines.clone(), |_| false)
                .into_iter()
                .map(|(v, l, _)| (v, l))
                .collect(),
            ticks: one(runs, |m| m.ticks.clone(), |_| false)
                .into_iter()
                .map(|(v, l, _)| (v, l))
                .collect(),
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
    Ok(together(&runs(grid)?).0)
}

/// Every run of `grid` (at most [`MAX_MULTIPLES_RUNS`]): its values of the listed flags,
/// its series labelled by what they show, and its marks.
fn runs<M: Plotted>(grid: &Grid<M>) -> Result<Vec<Panel>, String> {
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

/// The runs' series in one chart, each labelled by its run's name (`threshold=2: ready`),
/// and their marks as one chart shows them ([`Marks::of_runs`]).
fn together(runs: &[Panel]) -> (Vec<Series>, Marks) {
    let mut series = Vec::new();
    let mut marks = Vec::new();
    for run in runs {
        series.extend(run.series.iter().cloned().map(|mut s| {
            s.label = named(&run.name, &s.label);
            s
        }));
        marks.push((run.name.clone(), run.marks.clone()));
    }
    (series, Marks::of_runs(&marks))
}

/// The marks of run `p` as its chart draws them (its rounds observed again): what the
/// views' tests compare with the run's metrics.
pub fn marks_of<M: Plotted>(p: &M::Params) -> Result<Marks, String> {
    let mut lines = M::lines(p);
    crate::trace::observe::<M>(p, &mut lines).map_err(|e| e.to_string())?;
    Ok(M::marks(p, &lines))
}

/// Runs run `i` of `grid` and returns its values of the listed flags, its series, each
/// labelled by what it shows ([`Plotted::SERIES`]), and its marks.
fn run_series<M: Plotted>(grid: &Grid<M>, i: u64) -> Result<(String, Vec<Series>, Marks), String> {
    let p = grid.params(i);
    (M::VALIDATE)(&p).map_err(|e| e.to_string())?;
    crate::trace::check_view::<M>(&p).map_err(|e| format!("run {}: {e}", grid.name(i)))?;
    let name = values(grid, &p, true);
    let mut lines = M::lines(&p);
    crate::trace::observe::<M>(&p, &mut lines).map_err(|e| format!("run {}: {e}", grid.name(i)))?;
    let series = M::series_of(&p)
        .iter()
        .zip(&lines.series)
        .map(|(what, e)| Series {
            label: what.to_string(),
            what: what.to_string(),
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
    runs(grid)
}

/// One run of small multiples: its caption, its series and its marks.
#[derive(Clone, Debug)]
pub struct Panel {
    /// The run's values of the listed flags.
    pub name: String,
    /// Its series, labelled by what they show.
    pub series: Vec<Series>,
    /// What its chart marks.
    pub marks: Marks,
}

/// How a chart of several runs is laid out (see [`MAX_PANEL_SERIES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Every series in one panel.
    One,
    /// A panel per stream, each with a line per run and the series every run shares.
    Streams,
    /// A panel per run (small multiples).
    Runs,
}

/// The layout of `runs` in one chart: one panel if it draws at most [`MAX_PANEL_SERIES`]
/// series (twins merged) or one run; else a panel per stream if none holds more; else a
/// panel per run. More than [`MAX_SERIES_RUNS`] runs are always a panel each.
pub fn layout(runs: &[Panel]) -> Layout {
    if runs.len() as u64 > MAX_SERIES_RUNS {
        return Layout::Runs;
    }
    let (series, _) = together(runs);
    let merged = dedup(series, runs.len() as u64).len();
    if runs.len() == 1 || merged <= MAX_PANEL_SERIES {
        return Layout::One;
    }
    if runs.len() + shared(runs).len() <= MAX_PANEL_SERIES {
        Layout::Streams
    } else {
        Layout::Runs
    }
}

/// The streams every run draws the same (the demand's required instances, for every
/// threshold), in order: the other panels' reference line.
fn shared(runs: &[Panel]) -> Vec<&Series> {
    let Some((first, rest)) = runs.split_first() else {
        return Vec::new();
    };
    first
        .series
        .iter()
        .filter(|s| {
            rest.iter().all(|r| {
                r.series
                    .iter()
                    .any(|t| t.what == s.what && t.points == s.points)
            })
        })
        .collect()
}

/// Runs every combination of `flags` (at most [`MAX_MULTIPLES_RUNS`]) and charts them
/// in English at [`WIDTH`] pixels: [`plot_with`] and the default [`Look`].
pub fn plot<M: Plotted>(model: &str, flags: &Flags<M>) -> Result<String, String> {
    plot_with(model, flags, Look::default())
}

/// Runs every combination of `flags` (at most [`MAX_MULTIPLES_RUNS`]) and charts them as
/// `look` says: one series (or a few) per run, labelled by its values of the listed flags,
/// in the [`layout`] their number asks for; the title names the model and the values every
/// run shares. Memory is bounded whatever the runs' length (see [`Envelope`]).
pub fn plot_with<M: Plotted>(model: &str, flags: &Flags<M>, look: Look) -> Result<String, String> {
    let grid: Grid<M> = flags.grid()?;
    let shared_values = values(&grid, &grid.params(0), false);
    let title = if shared_values.is_empty() {
        format!("capsim {model}")
    } else {
        format!("capsim {model}: {shared_values}")
    };
    // The runs' round length, if they share one.
    let x_label = M::x_label(&grid.params(0));
    let x_label = if (1..grid.len()).all(|i| M::x_label(&grid.params(i)) == x_label) {
        x_label
    } else {
        M::X_LABEL.to_string()
    };
    let runs = panels(&grid)?;
    let labels = (x_label.as_str(), M::Y_LABEL);
    match layout(&runs) {
        Layout::Runs => multiples(look, &title, labels.1, labels.0, &runs),
        Layout::One => {
            let (series, marks) = together(&runs);
            chart(look, &title, labels, &dedup(series, grid.len()), &marks)
        }
        Layout::Streams => {
            let (series, marks) = together(&runs);
            let reference: Vec<Series> = shared(&runs).into_iter().cloned().collect();
            let others: Vec<Series> = series
                .into_iter()
                .filter(|s| !reference.iter().any(|r| r.what == s.what))
                .collect();
            let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
            draw::streams(look, &title, labels, &others, &reference, &names, &marks)
        }
    }
}

/// Small multiples: one panel per run (captioned by its values of the listed flags), in grid
/// order, row by row, every panel on the same axes; one legend of what the series show.
pub fn multiples(
    look: Look,
    title: &str,
    y_label: &str,
    x_label: &str,
    panels: &[Panel],
) -> Result<String, String> {
    draw::multiples(look, title, (x_label, y_label), panels)
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
