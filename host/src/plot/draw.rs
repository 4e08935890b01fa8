//! The drawing: colours and dashes, the legend, the marks, and [`Svg`], plotters' SVG backend
//! with a fixed text measure so the same chart is the same bytes on every machine and in wasm32.

use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, DrawingErrorKind};

use super::{Marks, Series, SIZE, TARGET_SERIES};

/// The series' colours, in order (distinct on white and in grey).
pub(super) const COLOURS: [RGBColor; 9] = [
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
pub(super) fn style_of(i: usize) -> (RGBColor, Option<(i32, i32)>) {
    let dash = match i % 3 {
        0 => None,
        1 => Some((8, 4)),
        _ => Some((2, 3)),
    };
    (COLOURS[i % COLOURS.len()], dash)
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

pub(super) type Failed = Box<dyn std::error::Error>;

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
pub(super) fn text_size(size: f64, text: &str) -> (u32, u32) {
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
pub(super) fn legend(
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
    for (k, (_, label)) in marks.ticks.iter().enumerate() {
        entries.push((label, Swatch::Tick(tick_colour(k))));
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
            Swatch::Tick(colour) => area.draw(&PathElement::new(
                [(x0 + 10, mid - 4), (x0 + 10, mid + 4)],
                colour.stroke_width(3),
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
    Tick(RGBColor),
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
/// The colours of a second and third set of ticks (an HPA's holds), each drawn above the
/// one before it.
const MORE_TICK_COLOURS: [RGBColor; 2] = [RGBColor(0, 130, 140), RGBColor(200, 90, 0)];

/// The colour of the `k`-th set of ticks.
fn tick_colour(k: usize) -> RGBColor {
    match k {
        0 => TICK_COLOUR,
        k => MORE_TICK_COLOURS[(k - 1) % MORE_TICK_COLOURS.len()],
    }
}

/// A line's stroke width in pixels: 2, and [`TARGET_WIDTH`] for a formula's target (see
/// [`drawing_order`]). `label` is the series' legend text, `run: what` or `what`.
pub(super) fn width_of(label: &str) -> u32 {
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
pub(super) fn drawing_order(series: &[Series]) -> impl Iterator<Item = (usize, &Series)> {
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
pub(super) fn draw_marks(
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
    for (k, (rounds, _)) in marks.ticks.iter().enumerate() {
        // Each set above the one before, so that two sets in one round both show.
        let lift = 9 * k as i32;
        for &r in rounds.iter().filter(|&&r| r <= x_max) {
            let bottom = plot.map_coordinate(&(r, 0.0));
            let bottom = (bottom.0, bottom.1 - lift);
            root.draw(&PathElement::new(
                [bottom, (bottom.0, bottom.1 - 8)],
                tick_colour(k).stroke_width(3),
            ))?;
        }
    }
    Ok(())
}

pub(super) fn draw(
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
