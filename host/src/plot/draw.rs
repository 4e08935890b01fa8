//! The drawing: colours and dashes, the layout (title, value axis label, a grid of panels,
//! round axis label, the legend under them, outside the data), the marks, and [`Svg`],
//! plotters' SVG backend with a fixed text measure so the same chart is the same bytes on
//! every machine and in wasm32.
//!
//! Every text is at least [`MIN_TEXT_PX`] pixels at the chart's size: a page that shows the
//! chart at the width it was drawn for shows it at that size (a projector's 1280 pixels, a
//! phone's 358).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{BackendColor, BackendCoord, DrawingErrorKind};

use super::{say, Look, Marks, Panel, Series, Tone, TARGET_SERIES};

/// The smallest text a chart has, in pixels at its own size (the SVG's `font-size`): the
/// tick labels.
pub const MIN_TEXT_PX: f64 = 15.0;
/// The legend's, captions' and axis labels' size.
const TEXT_PX: f64 = 16.0;
/// The title's size, and on a chart narrower than 600 pixels (a phone's).
const TITLE_PX: f64 = 19.0;
const NARROW_TITLE_PX: f64 = 17.0;
/// A line of [`TEXT_PX`] text.
const LINE_H: i32 = 22;
/// A line of the title.
const TITLE_H: i32 = 26;
/// The margin around the chart and between panels.
const PAD: i32 = 12;
const GAP: i32 = 14;
/// The round axis' tick labels under each panel.
const X_TICKS_H: i32 = 26;

/// The style of text `px` pixels high: plotters' SVG backend writes a style's size over
/// 1.24 as the `font-size`.
pub(super) fn font(px: f64) -> TextStyle<'static> {
    ("sans-serif", px * 1.24).into_font().into()
}

/// The text measure every chart is laid out with, plotters' included (a style's size is
/// 1.24 times its pixels): [`CHAR_EM`] of the pixel size per character (wide enough for
/// the common sans-serif fonts, DejaVu Sans the widest), 1.2 of it high.
pub(super) fn text_size(size: f64, text: &str) -> (u32, u32) {
    let px = size / 1.24;
    let width = (px * CHAR_EM * text.chars().count() as f64).ceil();
    let height = (px * 1.2).ceil();
    (width as u32, height as u32)
}

/// A character's width in ems, for the layout (DejaVu Sans' digits are 0.636 em, its
/// lower case letters about 0.6).
const CHAR_EM: f64 = 0.64;

/// The width of `text` at `px` pixels.
fn width_px(px: f64, text: &str) -> i32 {
    text_size(px * 1.24, text).0 as i32
}

/// `text` cut into lines of at most `room` pixels at `px` pixels, at spaces (a word wider
/// than the room is a line of its own).
pub(super) fn wrap(text: &str, px: f64, room: i32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let longer = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && width_px(px, &longer) > room {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = longer;
        }
    }
    lines.push(line);
    lines
}

/// The series' colours, in order: distinct on white and for the common colour blindness,
/// none of them the marks' red or grey (Okabe and Ito's, and two more).
pub(super) const COLOURS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(117, 112, 179),
    RGBColor(140, 86, 75),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(128, 128, 0),
];

/// The line every run of a panel per stream shares (the required instances), drawn in
/// each panel.
const REFERENCE: RGBColor = RGBColor(90, 90, 90);
/// The failure rounds' rules (solid, with a triangle at the top) and the formula
/// evaluations' ticks: colours no series has.
const RULE_COLOUR: RGBColor = RGBColor(20, 20, 20);
const TICK_COLOUR: RGBColor = RGBColor(150, 0, 150);
/// The colours of a second and third set of ticks (an HPA's holds), each set drawn above
/// the one before it.
const MORE_TICK_COLOURS: [RGBColor; 2] = [RGBColor(0, 130, 140), RGBColor(200, 90, 0)];

/// The colour of the `k`-th set of ticks.
fn tick_colour(k: usize) -> RGBColor {
    match k {
        0 => TICK_COLOUR,
        k => MORE_TICK_COLOURS[(k - 1) % MORE_TICK_COLOURS.len()],
    }
}
/// A shaded window's colour and opacity, by what it is.
fn tone_colour(tone: Tone) -> (RGBColor, f64) {
    match tone {
        Tone::Input => (RGBColor(120, 120, 120), 0.16),
        Tone::HookWait => (RGBColor(60, 120, 255), 0.2),
        Tone::UnderCapacity => (RGBColor(214, 39, 40), 0.3),
    }
}
/// A run's own window, drawn as a strip of this height at the bottom of the plot, in the
/// run's colour at this opacity.
const STRIP_H: i32 = 10;
const STRIP_ALPHA: f64 = 0.6;

/// Series `i`'s colour and dash pattern (pixels on, off; `None`: solid), so that series that
/// overlap stay apart in grey too.
pub(super) fn style_of(i: usize) -> (RGBColor, Option<(i32, i32)>) {
    (COLOURS[i % COLOURS.len()], dash_of(i))
}

/// A run's dash pattern (pixels on, off), by its place in the grid: solid, dashed, dotted.
/// No mark is dashed: a dashed line is always a series.
fn dash_of(run: usize) -> Option<(i32, i32)> {
    match run % 3 {
        0 => None,
        1 => Some((10, 5)),
        _ => Some((2, 4)),
    }
}

/// A line's stroke width in pixels: [`LINE_WIDTH`], and [`TARGET_WIDTH`] for a formula's
/// target (see [`drawing_order`]). `label` is the series' legend text, `run: what` or
/// `what`.
pub(super) fn width_of(label: &str) -> u32 {
    if label.ends_with(TARGET_SERIES) {
        TARGET_WIDTH
    } else {
        LINE_WIDTH
    }
}

/// A series' line: thick enough to see projected.
const LINE_WIDTH: u32 = 3;

/// A formula's target is a wide band drawn under the other lines: where the group is at its
/// target, the group size runs along the band's middle.
const TARGET_WIDTH: u32 = 8;

/// The series with their places (their colours) in the order they are drawn: the formulas'
/// targets first, under the rest, then the others in order.
pub(super) fn drawing_order(series: &[Series]) -> impl Iterator<Item = (usize, &Series)> {
    let target = |s: &Series| width_of(&s.label) == TARGET_WIDTH;
    let first = series.iter().enumerate().filter(move |(_, s)| target(s));
    first.chain(series.iter().enumerate().filter(move |(_, s)| !target(s)))
}

/// Draws a polyline through `pixels`, solid or dashed.
pub(super) fn draw_dashed(
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

pub(super) type Failed = Box<dyn std::error::Error>;

/// `plotters`' SVG backend measuring text with one measure on every target (`text_size`,
/// above): on wasm32 `plotters` measures text in the browser's DOM, which a Web Worker or
/// node does not have and which would give other bytes than `capsim plot`.
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

/// A line as a panel draws it.
struct Drawn<'a> {
    points: &'a [(f64, f64)],
    colour: RGBColor,
    dash: Option<(i32, i32)>,
    width: u32,
}

/// One panel: its caption, its lines in drawing order, its marks, its value axis' top, and
/// the colour of each run whose own windows it draws as strips.
struct Frame<'a> {
    caption: Option<String>,
    lines: Vec<Drawn<'a>>,
    marks: &'a Marks,
    y_max: f64,
    runs: Vec<(usize, RGBColor)>,
}

/// A legend entry's picture.
#[derive(Clone, Copy, Debug)]
enum Swatch {
    Line(RGBColor, Option<(i32, i32)>, u32),
    Window(RGBColor, f64),
    Rule,
    Tick(RGBColor),
}

/// A legend entry: its text and its picture.
struct Entry {
    label: String,
    swatch: Swatch,
}

/// A whole chart: the title, the axes' labels, the panels in `cols` columns, each plot
/// `plot_h` pixels high over rounds `0..x_max`, and the legend.
struct Figure<'a> {
    title: &'a str,
    labels: (&'a str, &'a str),
    frames: Vec<Frame<'a>>,
    cols: usize,
    plot_h: fn(i32) -> i32,
    x_max: f64,
    legend: Vec<Entry>,
}

/// The top of a value axis over `values`: 8 % above the highest (at least 1).
fn top_of<'a>(values: impl Iterator<Item = &'a (f64, f64)>) -> f64 {
    values.map(|p| p.1).fold(1.0, f64::max) * 1.08
}

/// The last round over every series.
fn x_max_of<'a>(series: impl Iterator<Item = &'a Series>) -> f64 {
    series
        .flat_map(|s| s.points.iter())
        .map(|p| p.0)
        .fold(1.0, f64::max)
}

/// The legend entries of `marks`: each window in its tone's colour (a run's own in the
/// run's colour, from `runs`), each rule, each tick.
fn mark_entries(marks: &Marks, runs: &[(usize, RGBColor)]) -> Vec<Entry> {
    let mut out = Vec::new();
    for w in &marks.windows {
        let swatch = match w.run.and_then(|r| runs.iter().find(|(i, _)| *i == r)) {
            Some(&(_, colour)) => Swatch::Window(colour, STRIP_ALPHA),
            None => {
                let (colour, alpha) = tone_colour(w.tone);
                Swatch::Window(colour, alpha)
            }
        };
        out.push(Entry {
            label: w.label.clone(),
            swatch,
        });
    }
    for (_, label) in &marks.lines {
        out.push(Entry {
            label: label.clone(),
            swatch: Swatch::Rule,
        });
    }
    for (k, (_, label)) in marks.ticks.iter().enumerate() {
        out.push(Entry {
            label: label.clone(),
            swatch: Swatch::Tick(tick_colour(k)),
        });
    }
    out
}

/// Draws `series` as lines over rounds in one panel, with a title, labelled axes, the
/// marks and a legend under the plot.
pub fn chart(
    look: Look,
    title: &str,
    labels: (&str, &str),
    series: &[Series],
    marks: &Marks,
) -> Result<String, String> {
    let lines: Vec<Drawn> = drawing_order(series)
        .map(|(i, s)| Drawn {
            points: &s.points,
            colour: COLOURS[i % COLOURS.len()],
            dash: dash_of(s.run),
            width: width_of(&s.label),
        })
        .collect();
    // A run's own windows are drawn in its first line's colour.
    let mut runs: Vec<(usize, RGBColor)> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        if !runs.iter().any(|(r, _)| *r == s.run) {
            runs.push((s.run, COLOURS[i % COLOURS.len()]));
        }
    }
    let mut legend: Vec<Entry> = series
        .iter()
        .enumerate()
        .map(|(i, s)| Entry {
            label: s.label.clone(),
            swatch: Swatch::Line(
                COLOURS[i % COLOURS.len()],
                dash_of(s.run),
                width_of(&s.label),
            ),
        })
        .collect();
    legend.extend(mark_entries(marks, &runs));
    let frame = Frame {
        caption: None,
        lines,
        marks,
        y_max: top_of(series.iter().flat_map(|s| s.points.iter())),
        runs,
    };
    render(
        look,
        Figure {
            title,
            labels,
            frames: vec![frame],
            cols: 1,
            plot_h: |w| (w * 42 / 100).clamp(200, 440),
            x_max: x_max_of(series.iter()),
            legend,
        },
    )
}

/// A panel per stream (`others`' `what`, in order): in each, a line per run in the run's
/// colour and dash, and the `reference` series every run shares in grey; one legend of the
/// runs (`names`), the reference and the marks.
pub(super) fn streams(
    look: Look,
    title: &str,
    labels: (&str, &str),
    others: &[Series],
    reference: &[Series],
    names: &[String],
    marks: &Marks,
) -> Result<String, String> {
    let mut whats: Vec<&str> = Vec::new();
    for s in others {
        if !whats.contains(&s.what.as_str()) {
            whats.push(&s.what);
        }
    }
    let runs: Vec<(usize, RGBColor)> = (0..names.len())
        .map(|r| (r, COLOURS[r % COLOURS.len()]))
        .collect();
    let frames: Vec<Frame> = whats
        .iter()
        .map(|what| {
            let mut lines: Vec<Drawn> = reference
                .iter()
                .map(|s| Drawn {
                    points: &s.points,
                    colour: REFERENCE,
                    dash: Some((2, 4)),
                    width: width_of(&s.label),
                })
                .collect();
            // A formula's targets first, under the runs' other lines.
            let mine = || others.iter().filter(|s| s.what == *what);
            let targets = mine().filter(|s| width_of(&s.label) == TARGET_WIDTH);
            for s in targets.chain(mine().filter(|s| width_of(&s.label) != TARGET_WIDTH)) {
                lines.push(Drawn {
                    points: &s.points,
                    colour: COLOURS[s.run % COLOURS.len()],
                    dash: dash_of(s.run),
                    width: width_of(&s.label),
                });
            }
            let values = others
                .iter()
                .filter(|s| s.what == *what)
                .chain(reference)
                .flat_map(|s| s.points.iter());
            Frame {
                caption: Some(what.to_string()),
                lines,
                marks,
                y_max: top_of(values),
                runs: runs.clone(),
            }
        })
        .collect();
    let mut legend: Vec<Entry> = names
        .iter()
        .enumerate()
        .map(|(r, name)| Entry {
            label: name.clone(),
            swatch: Swatch::Line(COLOURS[r % COLOURS.len()], dash_of(r), LINE_WIDTH),
        })
        .collect();
    legend.extend(reference.iter().map(|s| Entry {
        label: s.what.clone(),
        swatch: Swatch::Line(REFERENCE, Some((2, 4)), width_of(&s.label)),
    }));
    legend.extend(mark_entries(marks, &runs));
    render(
        look,
        Figure {
            title,
            labels,
            frames,
            cols: 1,
            plot_h: |w| (w * 26 / 100).clamp(150, 280),
            x_max: x_max_of(others.iter().chain(reference)),
            legend,
        },
    )
}

/// Small multiples: a panel per run, captioned by its values of the listed flags, in as
/// many columns as fit (a panel at least [`MIN_PANEL_W`] wide, at most a square grid),
/// every panel on the same axes; one legend of what the series show and of the marks
/// (each mark's label, or what it is where the panels' labels differ).
pub(super) fn multiples(
    look: Look,
    title: &str,
    labels: (&str, &str),
    panels: &[Panel],
) -> Result<String, String> {
    let n = panels.len().max(1);
    let square = (1..=n).find(|c| c * c >= n).unwrap_or(n);
    let fit = ((look.width as i32 - 2 * PAD + GAP) / (MIN_PANEL_W + GAP)).max(1) as usize;
    let cols = square.min(fit);
    let all = || panels.iter().flat_map(|p| p.series.iter());
    let y_max = top_of(all().flat_map(|s| s.points.iter()));
    let frames: Vec<Frame> = panels
        .iter()
        .map(|p| Frame {
            caption: Some(p.name.clone()),
            lines: drawing_order(&p.series)
                .map(|(i, s)| {
                    let (colour, dash) = style_of(i);
                    Drawn {
                        points: &s.points,
                        colour,
                        dash,
                        width: width_of(&s.label),
                    }
                })
                .collect(),
            marks: &p.marks,
            y_max,
            runs: Vec::new(),
        })
        .collect();
    let mut legend: Vec<Entry> = panels
        .first()
        .map(|p| {
            p.series
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let (colour, dash) = style_of(i);
                    Entry {
                        label: s.label.clone(),
                        swatch: Swatch::Line(colour, dash, width_of(&s.label)),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    // Each mark once: its label if every panel that has it says the same, else its kind
    // (the label before its parenthesis).
    let entries: Vec<Vec<Entry>> = panels.iter().map(|p| mark_entries(&p.marks, &[])).collect();
    let kind = |l: &str| l.split(" (").next().unwrap_or(l).to_string();
    let mut kinds: Vec<(String, Swatch, Vec<String>)> = Vec::new();
    for e in entries.iter().flatten() {
        let k = kind(&e.label);
        match kinds.iter_mut().find(|(name, _, _)| *name == k) {
            Some((_, _, labels)) => labels.push(e.label.clone()),
            None => kinds.push((k, e.swatch, vec![e.label.clone()])),
        }
    }
    for (k, swatch, labels) in kinds {
        let label = if labels.iter().all(|l| *l == labels[0]) {
            labels[0].clone()
        } else {
            k
        };
        legend.push(Entry { label, swatch });
    }
    render(
        look,
        Figure {
            title,
            labels,
            frames,
            cols,
            plot_h: |w| (w * 55 / 100).clamp(110, 220),
            x_max: x_max_of(all()),
            legend,
        },
    )
}

/// The narrowest panel of small multiples.
const MIN_PANEL_W: i32 = 230;

/// Draws `fig` at `look`'s width and language: lays it out (its height follows), then
/// draws it into an SVG.
fn render(look: Look, mut fig: Figure<'_>) -> Result<String, String> {
    let lang = look.lang;
    let w = look.width as i32;
    let inner = w - 2 * PAD;
    let title_px = if w < 600 { NARROW_TITLE_PX } else { TITLE_PX };
    let title = wrap(&say(lang, fig.title), title_px, inner);
    let y_label = wrap(&say(lang, fig.labels.1), TEXT_PX, inner);
    let x_label = wrap(&say(lang, fig.labels.0), TEXT_PX, inner);
    for f in &mut fig.frames {
        f.caption = f.caption.as_deref().map(|c| say(lang, c));
    }
    for e in &mut fig.legend {
        e.label = say(lang, &e.label);
    }
    let cols = fig.cols.max(1);
    let rows = fig.frames.len().max(1).div_ceil(cols);
    let col_w = (inner - (cols as i32 - 1) * GAP) / cols as i32;
    let caption_lines = fig
        .frames
        .iter()
        .filter_map(|f| f.caption.as_deref())
        .map(|c| wrap(c, TEXT_PX, col_w).len() as i32)
        .max()
        .unwrap_or(0);
    let caption_h = caption_lines * LINE_H;
    let plot_h = (fig.plot_h)(col_w);
    let frame_h = caption_h + plot_h + X_TICKS_H;
    // The legend, entries side by side, a row when the width is full.
    let swatch_w = 30;
    let room = inner - swatch_w - 8;
    let mut placed: Vec<(i32, i32, Vec<String>, Swatch)> = Vec::new();
    let (mut x, mut y, mut row_h) = (0, 0, 0);
    for e in &fig.legend {
        let lines = wrap(&e.label, TEXT_PX, room);
        let text_w = lines
            .iter()
            .map(|l| width_px(TEXT_PX, l))
            .max()
            .unwrap_or(0);
        let entry_w = swatch_w + 8 + text_w;
        if x > 0 && x + entry_w > inner {
            x = 0;
            y += row_h;
            row_h = 0;
        }
        row_h = row_h.max(lines.len() as i32 * LINE_H);
        placed.push((x, y, lines, e.swatch));
        x += entry_w + 24;
    }
    let legend_h = y + row_h;
    let top = PAD + title.len() as i32 * TITLE_H;
    let grid_top = top + y_label.len() as i32 * LINE_H;
    let grid_h = rows as i32 * frame_h + (rows as i32 - 1) * GAP;
    let x_label_top = grid_top + grid_h;
    let legend_top = x_label_top + x_label.len() as i32 * LINE_H + 8;
    let height = legend_top + legend_h + PAD;
    let mut svg = String::new();
    {
        let root = Svg::with_string(&mut svg, (look.width, height as u32)).into_drawing_area();
        let failed = |e: Failed| format!("cannot draw the chart: {e}");
        root.fill(&WHITE).map_err(|e| failed(e.into()))?;
        let centred = font(title_px).pos(Pos::new(HPos::Center, VPos::Top));
        for (i, line) in title.iter().enumerate() {
            root.draw(&Text::new(
                line.as_str(),
                (w / 2, PAD + i as i32 * TITLE_H),
                centred.clone(),
            ))
            .map_err(|e| failed(e.into()))?;
        }
        for (i, line) in y_label.iter().enumerate() {
            root.draw(&Text::new(
                line.as_str(),
                (PAD, top + i as i32 * LINE_H),
                font(TEXT_PX),
            ))
            .map_err(|e| failed(e.into()))?;
        }
        for (k, frame) in fig.frames.iter().enumerate() {
            let (r, c) = ((k / cols) as i32, (k % cols) as i32);
            let at = (PAD + c * (col_w + GAP), grid_top + r * (frame_h + GAP));
            draw_frame(&root, frame, at, (col_w, caption_h, plot_h), fig.x_max).map_err(failed)?;
        }
        let centred = font(TEXT_PX).pos(Pos::new(HPos::Center, VPos::Top));
        for (i, line) in x_label.iter().enumerate() {
            root.draw(&Text::new(
                line.as_str(),
                (w / 2, x_label_top + i as i32 * LINE_H),
                centred.clone(),
            ))
            .map_err(|e| failed(e.into()))?;
        }
        for (x, y, lines, swatch) in &placed {
            let (x, y) = (PAD + x, legend_top + y);
            draw_swatch(&root, *swatch, (x, y + LINE_H / 2)).map_err(failed)?;
            for (i, line) in lines.iter().enumerate() {
                root.draw(&Text::new(
                    line.as_str(),
                    (x + swatch_w + 8, y + 2 + i as i32 * LINE_H),
                    font(TEXT_PX),
                ))
                .map_err(|e| failed(e.into()))?;
            }
        }
        root.present().map_err(|e| failed(e.into()))?;
    }
    Ok(svg)
}

/// Draws a legend entry's picture, 30 pixels wide, centred on `mid`'s height.
fn draw_swatch(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    swatch: Swatch,
    (x0, mid): (i32, i32),
) -> Result<(), Failed> {
    match swatch {
        Swatch::Line(colour, dash, width) => {
            draw_dashed(root, &[(x0, mid), (x0 + 30, mid)], colour, dash, width)?
        }
        Swatch::Window(colour, alpha) => root.draw(&Rectangle::new(
            [(x0, mid - 8), (x0 + 30, mid + 8)],
            colour.mix(alpha).filled(),
        ))?,
        Swatch::Rule => draw_rule(root, x0 + 15, (mid - 10, mid + 10))?,
        Swatch::Tick(colour) => root.draw(&PathElement::new(
            [(x0 + 15, mid - 5), (x0 + 15, mid + 5)],
            colour.stroke_width(3),
        ))?,
    }
    Ok(())
}

/// A rule at pixel column `x` from `top` to `bottom`: a solid line with a triangle at
/// the top, pointing down.
fn draw_rule(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    x: i32,
    (top, bottom): (i32, i32),
) -> Result<(), Failed> {
    root.draw(&PathElement::new(
        [(x, top), (x, bottom)],
        RULE_COLOUR.stroke_width(2),
    ))?;
    root.draw(&Polygon::new(
        [(x - 6, top), (x + 6, top), (x, top + 9)],
        RULE_COLOUR.filled(),
    ))?;
    Ok(())
}

/// Draws one panel with its top left at `at`: its caption, its axes and grid, its marks
/// under its lines.
fn draw_frame(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    frame: &Frame<'_>,
    at: (i32, i32),
    (width, caption_h, plot_h): (i32, i32, i32),
    x_max: f64,
) -> Result<(), Failed> {
    let y_max = frame.y_max;
    // The value axis' labels are whole numbers up to y_max.
    let digits = format!("{:.0}", y_max.floor()).len().max(1);
    let y_ticks_w = width_px(MIN_TEXT_PX, &"0".repeat(digits)) + 12;
    let area = root.clone().shrink(
        (at.0 as u32, at.1 as u32),
        (width as u32, (caption_h + plot_h + X_TICKS_H) as u32),
    );
    if let Some(caption) = &frame.caption {
        let room = width - y_ticks_w;
        for (i, line) in wrap(caption, TEXT_PX, room).iter().enumerate() {
            root.draw(&Text::new(
                line.as_str(),
                (at.0 + y_ticks_w, at.1 + i as i32 * LINE_H),
                font(TEXT_PX),
            ))?;
        }
    }
    let mut chart = ChartBuilder::on(&area)
        .margin_top(caption_h as u32)
        .margin_right(8)
        .x_label_area_size(X_TICKS_H as u32)
        .y_label_area_size(y_ticks_w as u32)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
    let plot_w = width - y_ticks_w - 8;
    chart
        .configure_mesh()
        .x_labels((plot_w / 80).clamp(2, 10) as usize)
        .y_labels((plot_h / 45).clamp(2, 8) as usize)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(font(MIN_TEXT_PX))
        .light_line_style(RGBColor(242, 242, 242))
        .bold_line_style(RGBColor(222, 222, 222))
        .draw()?;
    let plot = chart.plotting_area();
    draw_marks(root, plot, frame, (x_max, y_max))?;
    for line in &frame.lines {
        let pixels: Vec<BackendCoord> = line
            .points
            .iter()
            .map(|&p| plot.map_coordinate(&p))
            .collect();
        draw_dashed(root, &pixels, line.colour, line.dash, line.width)?;
    }
    Ok(())
}

/// Draws `frame`'s marks on a plot whose ranges are `0..x_max` and `0..y_max`, onto `root`
/// (the plot maps to its pixels): the chart's windows shaded from top to bottom, a run's
/// own as a strip at the bottom in the run's colour (one row per window of a run), rules
/// at rounds, ticks on the round axis.
fn draw_marks(
    root: &DrawingArea<Svg<'_>, plotters::coord::Shift>,
    plot: &DrawingArea<
        Svg<'_>,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    frame: &Frame<'_>,
    (x_max, y_max): (f64, f64),
) -> Result<(), Failed> {
    let clamp = |x: f64| x.clamp(0.0, x_max);
    let mut strip = 0;
    for w in &frame.marks.windows {
        let run = w.run.and_then(|r| frame.runs.iter().find(|(i, _)| *i == r));
        for &(a, b) in &w.rounds {
            let top = plot.map_coordinate(&(clamp(a), y_max));
            let mut bottom = plot.map_coordinate(&(clamp(b), 0.0));
            // A window of one round is at least 2 pixels wide, to be seen on a phone.
            bottom.0 = bottom.0.max(top.0 + 2);
            match run {
                Some(&(_, colour)) => {
                    let low = bottom.1 - strip * STRIP_H;
                    root.draw(&Rectangle::new(
                        [(top.0, low - STRIP_H), (bottom.0, low)],
                        colour.mix(STRIP_ALPHA).filled(),
                    ))?
                }
                None => {
                    let (colour, alpha) = tone_colour(w.tone);
                    root.draw(&Rectangle::new([top, bottom], colour.mix(alpha).filled()))?
                }
            }
        }
        if run.is_some() {
            strip += 1;
        }
    }
    for (rounds, _) in &frame.marks.lines {
        for &r in rounds.iter().filter(|&&r| r <= x_max) {
            let top = plot.map_coordinate(&(r, y_max));
            let bottom = plot.map_coordinate(&(r, 0.0));
            draw_rule(root, top.0, (top.1, bottom.1))?;
        }
    }
    for (k, (rounds, _)) in frame.marks.ticks.iter().enumerate() {
        // Each set above the one before, so that two sets in one round both show.
        let lift = 11 * k as i32;
        for &r in rounds.iter().filter(|&&r| r <= x_max) {
            let bottom = plot.map_coordinate(&(r, 0.0));
            let bottom = (bottom.0, bottom.1 - lift);
            root.draw(&PathElement::new(
                [bottom, (bottom.0, bottom.1 - 10)],
                tick_colour(k).stroke_width(3),
            ))?;
        }
    }
    Ok(())
}
