//! A line chart as SVG text, written by hand (no plotting crate, so it builds for wasm32 with
//! nothing but std): labelled axes, a legend and a title. The playground draws a grid's
//! metrics with it; `capsim plot` may adopt or replace it.

use std::fmt::Write;

use crate::output::Row;

/// One line of a chart: its name (the legend) and its values (`NaN`: no point).
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// One value per x position, from x = 1.
    pub values: Vec<f64>,
}

/// The most points a series draws: longer series are thinned to every k-th value, so a
/// chart stays small whatever the grid's size.
pub const MAX_POINTS: usize = 1000;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 360.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 48.0;
/// Line colours, one per series in turn (colour-blind friendly).
const COLOURS: [&str; 6] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
];

/// Returns an `<svg id="chart">` line chart of `series` against x = 1, 2, ...
pub fn line_chart(title: &str, x_label: &str, series: &[Series]) -> String {
    let n = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
    let stride = n.div_ceil(MAX_POINTS).max(1);
    let finite = series
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let (lo, hi) = if lo > hi {
        (0.0, 1.0)
    } else {
        (lo.min(0.0), hi)
    };
    let step = nice_step((hi - lo).max(1e-9) / 5.0);
    let y_max = (hi / step).ceil().max(1.0) * step;
    let y_min = (lo / step).floor() * step;
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x_of = |x: usize| {
        if n <= 1 {
            LEFT + plot_w / 2.0
        } else {
            LEFT + plot_w * (x - 1) as f64 / (n - 1) as f64
        }
    };
    let y_of = |v: f64| TOP + plot_h * (y_max - v) / (y_max - y_min);

    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg id="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(
        svg,
        r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/><text x="{}" y="20" text-anchor="middle" font-size="14">{}</text>"#,
        WIDTH / 2.0,
        escape(title)
    );
    // Y grid lines and ticks.
    let mut v = y_min;
    while v <= y_max + step / 2.0 {
        let y = y_of(v);
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            WIDTH - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            tick(v, step)
        );
        v += step;
    }
    // X ticks: about eight, on whole positions.
    let x_step = nice_step(n.max(1) as f64 / 8.0).max(1.0) as usize;
    let mut x = 1;
    while x <= n.max(1) {
        let px = x_of(x);
        let _ = write!(
            svg,
            r##"<line x1="{px:.1}" x2="{px:.1}" y1="{}" y2="{}" stroke="#333"/><text x="{px:.1}" y="{}" text-anchor="middle">{x}</text>"##,
            TOP + plot_h,
            TOP + plot_h + 5.0,
            TOP + plot_h + 18.0
        );
        x += x_step;
    }
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#333"/><text x="{}" y="{}" text-anchor="middle">{}</text>"##,
        LEFT + plot_w / 2.0,
        HEIGHT - 8.0,
        escape(x_label)
    );
    for (k, s) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let mut path = String::new();
        let mut pen_down = false;
        let mut x = 1;
        while x <= s.values.len() {
            let v = s.values[x - 1];
            if v.is_finite() {
                let cmd = if pen_down { 'L' } else { 'M' };
                let _ = write!(path, "{cmd}{:.1} {:.1}", x_of(x), y_of(v));
                pen_down = true;
            } else {
                pen_down = false;
            }
            x += stride;
        }
        let _ = write!(
            svg,
            r#"<path d="{path}" fill="none" stroke="{colour}" stroke-width="2"/>"#
        );
        if n <= 60 {
            for (i, v) in s.values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                let _ = write!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                    x_of(i + 1),
                    y_of(*v)
                );
            }
        }
        // The legend, top right inside the plot.
        let ly = TOP + 14.0 + 16.0 * k as f64;
        let lx = WIDTH - RIGHT - 170.0;
        let _ = write!(
            svg,
            r#"<line x1="{lx}" x2="{}" y1="{}" y2="{}" stroke="{colour}" stroke-width="3"/><text x="{}" y="{ly}">{}</text>"#,
            lx + 18.0,
            ly - 4.0,
            ly - 4.0,
            lx + 24.0,
            escape(&s.name)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// Returns the chart of a grid's runs: `metrics` per run, in grid order.
pub fn grid_chart(title: &str, rows: &[Row], metrics: &[&str]) -> String {
    let series: Vec<Series> = metrics
        .iter()
        .map(|m| Series {
            name: (*m).to_string(),
            values: rows
                .iter()
                .map(|row| {
                    row.iter()
                        .find(|(k, _)| k == m)
                        .and_then(|(_, v)| v.number())
                        .unwrap_or(f64::NAN)
                })
                .collect(),
        })
        .collect();
    line_chart(title, "run (grid order, seed innermost)", &series)
}

/// Returns 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

fn tick(v: f64, step: f64) -> String {
    if step >= 1.0 {
        format!("{v:.0}")
    } else {
        let digits = (-step.log10().floor()) as usize;
        format!("{v:.digits$}")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_its_title_legend_and_one_path_per_series() {
        let svg = line_chart(
            "a <b>",
            "run",
            &[
                Series {
                    name: "up".into(),
                    values: vec![1.0, 2.0, 3.0],
                },
                Series {
                    name: "gap".into(),
                    values: vec![1.0, f64::NAN, 0.5],
                },
            ],
        );
        assert!(svg.starts_with(r#"<svg id="chart""#) && svg.ends_with("</svg>"));
        assert!(svg.contains("a &lt;b&gt;"));
        assert_eq!(svg.matches("<path ").count(), 2);
        // The NaN breaks the second line: two moves, no line-to.
        assert!(svg.contains(r#"d="M64.0 "#));
        assert_eq!(svg.matches("<circle").count(), 5);
        assert!(svg.contains(">up</text>") && svg.contains(">gap</text>"));
    }

    #[test]
    fn steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(7.0), 10.0);
        assert_eq!(nice_step(120.0), 200.0);
    }
}
