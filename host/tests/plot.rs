//! `capsim plot`'s pictures read back from the SVG: a histogram's bars, ticks and title, a
//! line chart's series against the run it draws, the output target, and run names in errors.
//!
//! Expected values come from the runs themselves (the sweep's CSV rows, an observer that keeps
//! every round) or from the test's own arithmetic, never from the plotting code.

mod common;

use capsim::models::{Autoscale, Bulkhead, Consumers, Flags};
use capsim::plot::{self, Envelope, Plotted, BUCKETS};
use capsim_core::{autoscale, bulkhead, consumers, Observer};
use common::{argv, capsim, one_line_error, stdout_ok};

// ---------------------------------------------------------------- reading an SVG

/// The value of attribute `name` in the tag `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .unwrap_or_else(|| panic!("{name} in {tag}"))
        .parse()
        .unwrap()
}

/// Every `<name …>` start tag of `svg`, and the text after it up to the next tag.
fn elements<'a>(svg: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
    let open = format!("<{name} ");
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find(&open) {
        rest = &rest[at..];
        let end = rest.find('>').unwrap();
        let tag = &rest[..end];
        let after = &rest[end + 1..];
        let text = &after[..after.find('<').unwrap_or(after.len())];
        out.push((tag, text.trim()));
        rest = after;
    }
    out
}

/// A bar: left and right x, height, in pixels.
#[derive(Debug)]
struct Bar {
    x0: f64,
    x1: f64,
    height: f64,
}

/// What a histogram SVG shows.
#[derive(Debug)]
struct Histogram {
    title: String,
    bars: Vec<Bar>,
    /// x tick labels and their x pixel.
    x_ticks: Vec<(f64, String)>,
    /// y tick labels and their y pixel.
    y_ticks: Vec<(f64, String)>,
}

impl Histogram {
    fn parse(svg: &str) -> Histogram {
        assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
        let texts = elements(svg, "text");
        // The title's lines (it wraps at the chart's width), at the title's size.
        let title = texts
            .iter()
            .filter(|t| num(t.0, "font-size") > 18.0)
            .map(|t| t.1)
            .collect::<Vec<_>>()
            .join(" ");
        let tick = |t: &&(&str, &str)| (num(t.0, "font-size") - plot::MIN_TEXT_PX).abs() < 1e-6;
        // The ticks' labels anchored `anchor`, each with its pixel on the axis `at`.
        let ticks = |anchor: &str, at: &str| {
            texts
                .iter()
                .filter(tick)
                .filter(|t| attr(t.0, "text-anchor") == Some(anchor))
                .map(|t| (num(t.0, at), t.1.to_string()))
                .collect()
        };
        let (x_ticks, y_ticks) = (ticks("middle", "x"), ticks("end", "y"));
        let bars = elements(svg, "rect")
            .iter()
            .filter(|r| attr(r.0, "fill") == Some("#0072B2"))
            .map(|r| Bar {
                x0: num(r.0, "x"),
                x1: num(r.0, "x") + num(r.0, "width"),
                height: num(r.0, "height"),
            })
            .collect();
        Histogram {
            title,
            bars,
            x_ticks,
            y_ticks,
        }
    }

    /// The x tick labels as numbers, checked distinct and increasing left to right.
    fn x_values(&self) -> Vec<f64> {
        let values: Vec<f64> = self
            .x_ticks
            .iter()
            .map(|(_, l)| l.parse::<f64>().unwrap_or_else(|_| panic!("tick {l:?}")))
            .collect();
        for w in values.windows(2) {
            assert!(w[0] < w[1], "ticks increase: {:?}", self.x_ticks);
        }
        for w in self.x_ticks.windows(2) {
            assert!(w[0].0 < w[1].0, "ticks left to right: {:?}", self.x_ticks);
        }
        values
    }

    /// The pixel of metric value `v` on the x axis, from the first and last tick.
    fn x_pixel(&self, v: f64) -> f64 {
        let values = self.x_values();
        let n = values.len();
        assert!(n >= 2, "two ticks to measure by: {:?}", self.x_ticks);
        let (p0, p1) = (self.x_ticks[0].0, self.x_ticks[n - 1].0);
        p0 + (v - values[0]) / (values[n - 1] - values[0]) * (p1 - p0)
    }

    /// Runs per pixel of bar height, from the y ticks (0 and the top one).
    fn runs(&self, bar: &Bar) -> f64 {
        let (y0, l0) = &self.y_ticks[0];
        let (y1, l1) = self.y_ticks.last().unwrap();
        let per_px = (l1.parse::<f64>().unwrap() - l0.parse::<f64>().unwrap()) / (y0 - y1);
        bar.height * per_px
    }
}

/// Checks that `h` draws exactly `values` (NaN ones aside): every finite value lies under a
/// bar, the bars hold as many runs as there are finite values, and each bar's height is the
/// number of values under it (within a pixel at each edge, where plotters rounds).
fn draws(h: &Histogram, values: &[f64]) {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    assert!(!h.bars.is_empty());
    assert!(h.bars.len() <= plot::BINS, "{} bars", h.bars.len());
    for v in &finite {
        let px = h.x_pixel(*v);
        assert!(
            h.bars.iter().any(|b| px >= b.x0 - 1.0 && px <= b.x1 + 1.0),
            "{v} (pixel {px}) under a bar: {:?}",
            h.bars
        );
    }
    let mut total = 0.0;
    for b in &h.bars {
        let runs = h.runs(b);
        let inside = finite
            .iter()
            .filter(|v| {
                let px = h.x_pixel(**v);
                px > b.x0 + 1.0 && px < b.x1 - 1.0
            })
            .count() as f64;
        let near = finite
            .iter()
            .filter(|v| {
                let px = h.x_pixel(**v);
                px >= b.x0 - 1.0 && px <= b.x1 + 1.0
            })
            .count() as f64;
        // One pixel of height rounding either way.
        let slack = h.runs(&Bar {
            x0: 0.0,
            x1: 0.0,
            height: 1.5,
        });
        assert!(
            runs >= inside - slack && runs <= near + slack,
            "bar {b:?}: {runs} runs drawn, {inside} to {near} values under it"
        );
        total += runs;
    }
    let slack = h.bars.len() as f64
        * h.runs(&Bar {
            x0: 0.0,
            x1: 0.0,
            height: 1.0,
        });
    assert!(
        (total - finite.len() as f64).abs() <= slack,
        "bars hold {total} runs, {} values",
        finite.len()
    );
}

/// The column `key` of the CSV `csv`, as numbers (NaN for `NaN`).
fn column(csv: &str, key: &str) -> Vec<f64> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|k| *k == key).unwrap();
    lines
        .map(|l| l.split(',').nth(at).unwrap().parse().unwrap())
        .collect()
}

fn plot_stdout(args: &[&str]) -> Histogram {
    let mut all = vec!["plot"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "-"]);
    Histogram::parse(&stdout_ok(&all))
}

fn sweep_column(args: &[&str], key: &str) -> Vec<f64> {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--format", "csv"]);
    column(&stdout_ok(&all), key)
}

// ---------------------------------------------------------------- histograms

#[test]
fn a_fractional_metric_is_binned_on_fractions() {
    // The case: max_launching_ratio 0.188 to 0.455 over 300 seeds was one bar with
    // ticks 0 0 0 1 1.
    let args = ["autoscale", "--seed", "1..=300"];
    let values = sweep_column(&args, "max_launching_ratio");
    let (lo, hi) = values
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    assert!(lo > 0.1 && hi < 0.5 && hi - lo > 0.2, "{lo} {hi}");
    let h = plot_stdout(&[
        "autoscale",
        "--summary",
        "--metric",
        "max_launching_ratio",
        "--seed",
        "1..=300",
    ]);
    assert_eq!(
        h.title,
        "capsim autoscale: max_launching_ratio over 300 runs (seed 1 to 300)"
    );
    assert!(h.bars.len() >= 10, "{} bars", h.bars.len());
    let ticks = h.x_values();
    assert!(ticks.len() >= 4, "{:?}", h.x_ticks);
    assert!(ticks.iter().filter(|t| t.fract() != 0.0).count() >= 3);
    let fifth = (hi - lo) / 5.0;
    assert!(ticks[0] <= lo + fifth && *ticks.last().unwrap() >= hi - fifth);
    draws(&h, &values);
    // The check itself tells other values apart: one run more, or each one bin over.
    let mut more = values.clone();
    more.push(lo);
    let width = h.bars[0].x1 - h.bars[0].x0;
    let shifted: Vec<f64> = values
        .iter()
        .map(|v| v + 2.0 * width / (h.x_pixel(1.0) - h.x_pixel(0.0)))
        .collect();
    for wrong in [more, shifted] {
        assert!(std::panic::catch_unwind(|| draws(&h, &wrong)).is_err());
    }

    let args = ["consumers", "--seed", "1..=40"];
    let values = sweep_column(&args, "throughput");
    let h = plot_stdout(&[
        "consumers",
        "--summary",
        "--metric",
        "throughput",
        "--seed",
        "1..=40",
    ]);
    assert!(h.bars.len() >= 3, "{} bars", h.bars.len());
    draws(&h, &values);
}

#[test]
fn an_integer_metric_is_binned_on_integers() {
    let values = sweep_column(&["autoscale", "--seed", "1..=300"], "launched");
    let h = plot_stdout(&["autoscale", "--summary", "--seed", "1..=300"]);
    let ticks = h.x_values();
    assert!(ticks.iter().all(|t| t.fract() == 0.0), "{:?}", h.x_ticks);
    draws(&h, &values);
    // Few distinct integers: one bar each, every tick at an integer's bar centre.
    let values = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 5.0];
    let h = Histogram::parse(&plot::histogram_chart("t", "m", &values).unwrap());
    assert_eq!(h.bars.len(), 6);
    draws(&h, &values);
    let labels: Vec<&str> = h.x_ticks.iter().map(|t| t.1.as_str()).collect();
    for k in ["0", "1", "2", "3", "4", "5"] {
        assert!(labels.contains(&k), "{labels:?}");
    }
    for (px, l) in &h.x_ticks {
        if let Ok(v @ 0..=5) = l.parse::<u32>() {
            let b = &h.bars[v as usize];
            assert!(
                (px - (b.x0 + b.x1) / 2.0).abs() <= 1.0,
                "{l} at {px}: {b:?}"
            );
        }
    }
    // A wide range: at most BINS bars, each the same number of integers wide.
    let values: Vec<f64> = (0..=999).map(f64::from).collect();
    let h = Histogram::parse(&plot::histogram_chart("t", "m", &values).unwrap());
    assert!(h.bars.len() > 10 && h.bars.len() <= plot::BINS);
    assert!(h.x_values().iter().all(|t| t.fract() == 0.0));
    draws(&h, &values);
}

#[test]
fn nan_runs_are_counted_in_the_title() {
    // A demand that goes negative (base 100) empties the group: max_launching_ratio is NaN.
    let args = ["autoscale", "--demand-base", "100,400", "--seed", "1..=5"];
    let values = sweep_column(&args, "max_launching_ratio");
    assert_eq!(values.iter().filter(|v| v.is_nan()).count(), 5);
    let mut plot_args = args.to_vec();
    plot_args.extend_from_slice(&["--summary", "--metric", "max_launching_ratio"]);
    let h = plot_stdout(&plot_args);
    assert!(h.title.ends_with("; 5 of 10 runs are NaN"), "{}", h.title);
    draws(&h, &values);

    let h = plot_stdout(&[
        "autoscale",
        "--demand-base",
        "100",
        "--seed",
        "1..=4",
        "--summary",
        "--metric",
        "max_launching_ratio",
    ]);
    assert!(h.title.ends_with("; 4 of 4 runs are NaN"), "{}", h.title);
    assert!(h.bars.is_empty());

    let values = [1.5, f64::NAN, f64::INFINITY, 2.5];
    let h = Histogram::parse(&plot::histogram_chart("t", "m", &values).unwrap());
    assert_eq!(h.title, "t; 1 of 4 runs is NaN, 1 of 4 runs is infinite");
    draws(&h, &values);
}

#[test]
fn one_run_and_equal_values_are_one_bar() {
    let values = sweep_column(&["autoscale", "--seed", "3"], "launched");
    let h = plot_stdout(&["autoscale", "--summary", "--seed", "3"]);
    assert_eq!(h.title, "capsim autoscale: launched over 1 run");
    assert_eq!(h.bars.len(), 1);
    let label = format!("{}", values[0]);
    assert!(h.x_ticks.iter().any(|t| t.1 == label), "{:?}", h.x_ticks);
    draws(&h, &values);
    for v in [0.3, -7.25, 1e-300, 123456789.125, 0.0] {
        let values = vec![v; 7];
        let h = Histogram::parse(&plot::histogram_chart("t", "m", &values).unwrap());
        assert_eq!(h.bars.len(), 1, "{v}");
        draws(&h, &values);
    }
}

#[test]
fn huge_and_tiny_ranges_keep_distinct_ticks() {
    let cases: [&[f64]; 5] = [
        &[-1e300, 0.0, 1e300],
        &[0.0, 1e308, 5e307],
        &[0.1, 0.1 + 1e-7, 0.1 + 3e-7],
        &[1e-300, 3e-300, 2e-300],
        &[4.0e15, 4.1e15, 4.2e15],
    ];
    for values in cases {
        let svg = plot::histogram_chart("t", "m", values).unwrap();
        let h = Histogram::parse(&svg);
        assert!(h.x_values().len() >= 2, "{values:?}: {:?}", h.x_ticks);
        assert!(h.bars.len() >= 2, "{values:?}: {:?}", h.bars);
        draws(&h, values);
    }
}

// ---------------------------------------------------------------- line charts

/// Every round's value of each series, as the plot defines them (the test's own copy).
#[derive(Default)]
struct Every {
    rounds: Vec<f64>,
    series: Vec<Vec<f64>>,
    sums: [u64; 2],
}

impl Every {
    fn push(&mut self, x: f64, values: &[f64]) {
        self.series.resize(values.len(), Vec::new());
        self.rounds.push(x);
        for (s, v) in self.series.iter_mut().zip(values) {
            s.push(*v);
        }
    }
}

impl Observer<autoscale::RoundState> for Every {
    fn round(&mut self, s: &autoscale::RoundState) {
        self.push(
            f64::from(s.round),
            &[
                f64::from(s.size),
                f64::from(s.counts.serving()),
                s.required as f64,
            ],
        );
    }
}

impl Observer<consumers::RoundState> for Every {
    fn round(&mut self, s: &consumers::RoundState) {
        self.push(
            s.round as f64,
            &[(s.queue_left + u64::from(s.busy_consumers)) as f64],
        );
    }
}

impl Observer<bulkhead::RoundState> for Every {
    fn round(&mut self, s: &bulkhead::RoundState) {
        self.sums[0] += u64::from(s.tracking_dropped);
        self.sums[1] += u64::from(s.event_dropped);
        let sums = self.sums;
        self.push(f64::from(s.round), &[sums[0] as f64, sums[1] as f64]);
    }
}

fn max(v: impl Iterator<Item = f64>) -> f64 {
    v.fold(f64::MIN, f64::max)
}

fn min(v: impl Iterator<Item = f64>) -> f64 {
    v.fold(f64::MAX, f64::min)
}

/// Checks the plot's series of `pairs` against every round of the same run: same extremes,
/// first and last round, every drawn point a real (round, value), bounded size. Returns the
/// run's metrics and every round.
fn same_run<M: Plotted>(pairs: &[(&str, &str)]) -> (M::Metrics, Every)
where
    Every: Observer<M::Round>,
{
    let flags = Flags::<M>::from_pairs(pairs.iter().copied()).unwrap();
    let grid = flags.grid().unwrap();
    let series = plot::series(&grid).unwrap();
    let mut every = Every::default();
    let metrics = capsim::trace::observe::<M>(&grid.params(0), &mut every).unwrap();
    let drawn = M::series_of(&grid.params(0)).len();
    assert_eq!(series.len(), drawn);
    assert_eq!(every.series.len(), drawn);
    let n = every.rounds.len();
    for (s, all) in series.iter().zip(&every.series) {
        let ys = || s.points.iter().map(|p| p.1);
        assert_eq!(max(ys()), max(all.iter().copied()), "{} max", s.label);
        assert_eq!(min(ys()), min(all.iter().copied()), "{} min", s.label);
        assert_eq!(s.points[0], (every.rounds[0], all[0]));
        assert_eq!(*s.points.last().unwrap(), (every.rounds[n - 1], all[n - 1]));
        if n <= BUCKETS {
            let exact: Vec<(f64, f64)> = every.rounds.iter().copied().zip(all.clone()).collect();
            assert_eq!(s.points, exact, "a short run is drawn round by round");
        } else {
            assert!(s.points.len() <= 2 * BUCKETS + 2, "{}", s.points.len());
            assert!(s.points.len() >= BUCKETS / 2, "{}", s.points.len());
        }
        for (x, y) in &s.points {
            let i = every.rounds.iter().position(|r| r == x).unwrap();
            assert_eq!(all[i], *y, "({x}, {y}) is the run's");
        }
        for w in s.points.windows(2) {
            assert!(w[0].0 < w[1].0, "rounds in order");
        }
    }
    (metrics, every)
}

#[test]
fn a_long_runs_drawn_extremes_are_its_extremes() {
    for rounds in ["240", "1025", "100000"] {
        let (m, _) = same_run::<Autoscale>(&[("rounds", rounds)]);
        let flags = Flags::<Autoscale>::from_pairs([("rounds", rounds)]).unwrap();
        let size = &plot::series(&flags.grid().unwrap()).unwrap()[0];
        assert_eq!(size.label, "group size");
        assert_eq!(max(size.points.iter().map(|p| p.1)), f64::from(m.max_size));
    }
    let (m, every) = same_run::<Consumers>(&[]);
    assert_eq!(every.rounds.len() as u64, m.rounds);
    let (m, every) = same_run::<Bulkhead>(&[("horizon", "100000"), ("mode", "slowdown")]);
    assert_eq!(
        every.series[0].last().copied(),
        Some(m.tracking_dropped as f64)
    );
}

#[test]
fn an_envelope_keeps_a_lone_spike_in_bounded_memory() {
    let n: u64 = 3_000_017;
    for spike in [0, 1, 1023, 1024, 1_500_000, n - 2, n - 1] {
        let mut e = Envelope::default();
        for i in 0..n {
            let y = if i == spike { 1e6 } else { (i % 7) as f64 };
            let y = if i == spike + 1 { -5.0 } else { y };
            e.push(i as f64, y);
        }
        let points = e.points();
        assert!(points.len() <= 2 * BUCKETS + 2, "{}", points.len());
        assert!(points.contains(&(spike as f64, 1e6)), "spike at {spike}");
        if spike + 1 < n {
            assert!(
                points.contains(&((spike + 1) as f64, -5.0)),
                "dip at {}",
                spike + 1
            );
        }
        assert_eq!(points[0], (0.0, if spike == 0 { 1e6 } else { 0.0 }));
        assert_eq!(points.last().unwrap().0, (n - 1) as f64);
    }
}

// ---------------------------------------------------------------- output target and names

#[test]
fn dash_writes_the_svg_to_stdout() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("plot-dash.svg");
    let f = file.to_str().unwrap();
    stdout_ok(&["plot", "bulkhead", "--split", "shared,24", "-o", f]);
    let piped = stdout_ok(&["plot", "bulkhead", "--split", "shared,24", "-o", "-"]);
    assert_eq!(piped, std::fs::read_to_string(&file).unwrap());
    assert!(piped.starts_with("<svg ") && piped.contains("split=24: tracking dropped"));
    let out = capsim(&["plot", "autoscale", "-o", "-", "--summary"]);
    assert!(out.status.success() && out.stdout.starts_with(b"<svg "));
}

#[test]
fn other_image_types_are_refused_in_one_line() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    // A build without the png feature refuses .png too, and says which build writes it.
    let refused: &[&str] = if cfg!(feature = "png") {
        &["x.jpg", "x.pdf"]
    } else {
        &["x.png", "x.PNG", "x.jpg", "x.pdf"]
    };
    for name in refused {
        let path = dir.join(name);
        let p = path.to_str().unwrap();
        let err = one_line_error(&["plot", "autoscale", "-o", p]);
        let png = name.eq_ignore_ascii_case("x.png");
        let says = match (cfg!(feature = "png"), png) {
            (false, true) => "writes SVG, or PNG when built with --features png, not .",
            (false, false) => "writes SVG, not .",
            (true, _) => "writes SVG or PNG, not .",
        };
        assert!(err.contains(says), "{err}");
        assert!(!path.exists(), "{name} not written");
    }
    let path = dir.join("upper.SVG");
    stdout_ok(&["plot", "autoscale", "-o", path.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("<svg "));
}

#[test]
fn a_failed_run_is_named_even_with_nothing_swept() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("hook.svg");
    let p = path.to_str().unwrap();
    // Demand for 30,000 instances outgrows the host's group (16,384) in round 0.
    for args in [
        vec!["plot", "autoscale", "--demand-base", "3000000", "-o", p],
        vec![
            "plot",
            "autoscale",
            "--demand-base",
            "3000000",
            "--summary",
            "-o",
            p,
        ],
        vec!["autoscale", "--demand-base", "3000000"],
    ] {
        let err = one_line_error(&args);
        assert!(
            err.starts_with("error: run seed=20261001: "),
            "{args:?}: {err}"
        );
    }
    let err = one_line_error(&[
        "plot",
        "autoscale",
        "--demand-base",
        "3000000",
        "--threshold",
        "2,5",
        "-o",
        p,
    ]);
    assert!(
        err.starts_with("error: run threshold=2 seed=20261001: "),
        "{err}"
    );
    // A trace is one run: its message needs no name, and has no empty one.
    let err = one_line_error(&["trace", "autoscale", "--demand-base", "3000000"]);
    assert!(
        !err.starts_with("error: :") && !err.contains(": :"),
        "{err}"
    );
    let names = [
        Flags::<Autoscale>::from_pairs([])
            .unwrap()
            .grid()
            .unwrap()
            .name(0),
        Flags::<Consumers>::from_pairs([])
            .unwrap()
            .grid()
            .unwrap()
            .name(0),
        Flags::<Bulkhead>::from_pairs([])
            .unwrap()
            .grid()
            .unwrap()
            .name(0),
    ];
    assert_eq!(names, ["seed=20261001", "seed=20260731", "seed=20260801"]);
}

/// The lesson's 3 × 3 sweep (threshold 2, 3, 5 × cooldown 0, 3, 8) is drawn as 9 panels in
/// grid order, each captioned by its run, each group-size line peaking at the run's own
/// `max_size` (read from the sweep's CSV), every panel's series the run's own rounds.
#[test]
fn the_lessons_3x3_sweep_is_drawn_as_small_multiples() {
    let args = ["--threshold", "2,3,5", "--cooldown", "0,3,8"];
    let mut csv_args = vec!["autoscale"];
    csv_args.extend(args);
    let max_size = sweep_column(&csv_args, "max_size");
    assert_eq!(max_size.len(), 9);
    let flags =
        Flags::<Autoscale>::from_pairs([("threshold", "2,3,5"), ("cooldown", "0,3,8")]).unwrap();
    let panels = plot::panels(&flags.grid().unwrap()).unwrap();
    let mut names = Vec::new();
    for t in [2, 3, 5] {
        for c in [0, 3, 8] {
            names.push(format!("threshold={t} cooldown={c}"));
        }
    }
    assert_eq!(
        panels.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        names
    );
    for (panel, max_size) in panels.iter().zip(&max_size) {
        let (name, series) = (&panel.name, &panel.series);
        let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["group size", "ready", "required"], "{name}");
        assert_eq!(
            max(series[0].points.iter().map(|p| p.1)),
            *max_size,
            "{name}"
        );
        // The same rounds as the run drawn alone.
        let pairs: Vec<(&str, &str)> = name
            .split(' ')
            .map(|kv| kv.split_once('=').unwrap())
            .collect();
        let alone = Flags::<Autoscale>::from_pairs(pairs).unwrap();
        let alone = plot::series(&alone.grid().unwrap()).unwrap();
        for (a, b) in alone.iter().zip(series) {
            assert_eq!(a.points, b.points, "{name}");
        }
    }
    // The SVG: the 9 captions in order, below the title and the legend of the 3 series.
    let mut plot_args = vec!["plot", "autoscale"];
    plot_args.extend(args);
    plot_args.extend(["-o", "-"]);
    let svg = stdout_ok(&plot_args);
    let texts: Vec<&str> = elements(&svg, "text").into_iter().map(|(_, t)| t).collect();
    let captions: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| t.starts_with("threshold="))
        .collect();
    assert_eq!(captions, names);
    assert_eq!(texts[0], "capsim autoscale: seed=20261001");
    for label in [
        "group size",
        "ready",
        "required",
        "instances",
        "round (1 min)",
        "under capacity",
    ] {
        assert!(texts.contains(&label), "{label}");
    }
    // Three columns, three rows: the captions at three places across and three down.
    let at = |key: &str| {
        let mut v: Vec<i64> = elements(&svg, "text")
            .into_iter()
            .filter(|(_, t)| t.starts_with("threshold="))
            .map(|(tag, _)| num(tag, key) as i64)
            .collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    assert_eq!((at("x"), at("y")), (3, 3));
    // At a phone's width, one column: nine places down.
    let mut narrow = plot_args.clone();
    narrow.extend(["--width", "358"]);
    let svg = stdout_ok(&narrow);
    let ys: Vec<i64> = elements(&svg, "text")
        .into_iter()
        .filter(|(_, t)| t.starts_with("threshold="))
        .map(|(tag, _)| num(tag, "y") as i64)
        .collect();
    assert_eq!(ys.len(), 9);
    assert!(ys.windows(2).all(|w| w[0] < w[1]), "{ys:?}");
}

#[test]
fn small_multiples_stop_at_36_runs() {
    let svg = stdout_ok(&argv("plot consumers --consumers 1..=6 --slots 1..=6 -o -"));
    let captions = elements(&svg, "text")
        .into_iter()
        .filter(|(_, t)| t.starts_with("consumers="))
        .count();
    assert_eq!(captions, 36);
    let e = one_line_error(&argv(
        "plot consumers --consumers 1..=6 --slots 1..=6 --seed 1,2 -o -",
    ));
    assert_eq!(
        e.trim_end(),
        "error: a plot draws at most 8 runs in one chart, or up to 36 as small multiples; the lists make 72"
    );
}

// ---------------------------------------------------------------- marks

/// The round at pixel `x` of a single chart, read off its round-axis tick labels (the
/// numbers centred under the plot): the first and the last tick's pixels and values.
fn round_at(svg: &str) -> impl Fn(f64) -> f64 {
    let ticks: Vec<(f64, f64)> = elements(svg, "text")
        .into_iter()
        .filter(|(tag, t)| attr(tag, "text-anchor") == Some("middle") && t.parse::<f64>().is_ok())
        .map(|(tag, t)| (num(tag, "x"), t.parse().unwrap()))
        .collect();
    assert!(ticks.len() >= 3, "{ticks:?}");
    let (a, b) = (ticks[0], ticks[ticks.len() - 1]);
    move |x| a.1 + (x - a.0) * (b.1 - a.1) / (b.0 - a.0)
}

/// The y pixel of the round axis' label (`round …`): the legend is below it.
fn legend_top(svg: &str) -> f64 {
    elements(svg, "text")
        .into_iter()
        .find(|(_, t)| t.starts_with("round"))
        .map(|(tag, _)| num(tag, "y"))
        .unwrap()
}

/// The first point of every polyline of colour `stroke` above the legend: the marks on the
/// plot, not their legend swatches.
fn marks_of(svg: &str, stroke: &str) -> Vec<(f64, f64)> {
    let top = legend_top(svg);
    elements(svg, "polyline")
        .into_iter()
        .filter(|(tag, _)| attr(tag, "stroke") == Some(stroke))
        .map(|(tag, _)| {
            let mut xy = attr(tag, "points").unwrap().split([',', ' ']);
            let x: f64 = xy.next().unwrap().parse().unwrap();
            let y: f64 = xy.next().unwrap().parse().unwrap();
            (x, y)
        })
        .filter(|&(_, y)| y < top)
        .collect()
}

/// The marks' colours: the surge's and slowdown's shade, the rounds under capacity, the
/// failure rules and the evaluation ticks.
const INPUT_SHADE: &str = "#787878";
const UNDER_CAPACITY: &str = "#D62728";
const RULE: &str = "#141414";
const TICK: &str = "#960096";

/// The texts of an SVG.
fn texts(svg: &str) -> Vec<String> {
    elements(svg, "text")
        .into_iter()
        .map(|(_, t)| t.to_string())
        .collect()
}

/// The lesson's chart marks its surge (rounds 150 to 189, the lesson's `surge_start` and
/// `surge_end`), its three failure rounds (40, 95, 170), the rounds under capacity, and
/// says a round is a minute; the shaded windows and the rules sit at those rounds on the
/// round axis (within a pixel).
#[test]
fn the_autoscale_chart_marks_the_surge_the_failure_rounds_and_the_rounds_under_capacity() {
    let svg = stdout_ok(&["plot", "autoscale", "--threshold", "2", "-o", "-"]);
    let t = texts(&svg);
    let row = stdout_ok(&["autoscale", "--threshold", "2", "--format", "csv"]);
    let short = column(&row, "under_capacity_rounds")[0];
    assert_eq!(
        short, 10.0,
        "the lesson's first pair: 10/240 under capacity"
    );
    for label in [
        "surge (rounds 150 to 189)",
        "instance breaks (round 40, 95, 170)",
        "under capacity (10 rounds)",
        "round (1 min)",
    ] {
        assert!(t.iter().any(|x| x == label), "{label}: {t:?}");
    }
    let round = round_at(&svg);
    let px = round(1.0) - round(0.0);
    let windows = |fill: &str| -> Vec<(f64, f64)> {
        elements(&svg, "rect")
            .into_iter()
            .map(|(tag, _)| tag)
            .filter(|tag| attr(tag, "fill") == Some(fill) && num(tag, "height") > 100.0)
            .map(|tag| {
                (
                    round(num(tag, "x")),
                    round(num(tag, "x") + num(tag, "width")),
                )
            })
            .collect()
    };
    let surge = windows(INPUT_SHADE);
    assert_eq!(surge.len(), 1, "one surge window");
    assert!(
        (surge[0].0 - 150.0).abs() <= 1.0 / px.max(1e-9) + 0.5,
        "{surge:?}"
    );
    assert!((surge[0].1 - 190.0).abs() <= 1.5, "{surge:?}");
    // The rounds under capacity: the trace's rounds with fewer ready than required.
    let trace = stdout_ok(&["trace", "autoscale", "--threshold", "2", "--format", "csv"]);
    let rounds = column(&trace, "round");
    let ready = column(&trace, "ready");
    let required = column(&trace, "required");
    let under: Vec<f64> = (0..rounds.len())
        .filter(|&i| ready[i] < required[i])
        .map(|i| rounds[i])
        .collect();
    assert_eq!(under.len() as f64, short);
    let shaded: Vec<f64> = windows(UNDER_CAPACITY)
        .iter()
        .flat_map(|&(a, b)| (a.round() as u32..b.round() as u32).map(f64::from))
        .collect();
    assert_eq!(shaded, under);
    let mut rules: Vec<f64> = marks_of(&svg, RULE)
        .into_iter()
        .map(|(x, _)| round(x).round())
        .collect();
    rules.dedup();
    assert_eq!(rules, [40.0, 95.0, 170.0]);
    // A rule is one solid stroke (two points), never dashed like a run's line.
    for (tag, _) in elements(&svg, "polyline") {
        if attr(tag, "stroke") == Some(RULE) {
            assert_eq!(
                attr(tag, "points").unwrap().split_whitespace().count(),
                2,
                "{tag}"
            );
        }
    }
    // Without a surge and failures, neither is marked.
    let plain = stdout_ok(&[
        "plot",
        "autoscale",
        "--surge",
        "0",
        "--failure-rounds",
        "none",
        "-o",
        "-",
    ]);
    assert!(!plain.contains(INPUT_SHADE) && !plain.contains(RULE));
    assert!(!texts(&plain)
        .iter()
        .any(|x| x.starts_with("surge") || x.starts_with("instance breaks")));
    // A run never under capacity has no such window and no such entry.
    let ample = stdout_ok(&[
        "plot",
        "autoscale",
        "--demand-base",
        "0",
        "--demand-amplitude",
        "0",
        "--surge",
        "0",
        "-o",
        "-",
    ]);
    assert!(!ample.contains(UNDER_CAPACITY), "no shade");
    assert!(!texts(&ample)
        .iter()
        .any(|x| x.starts_with("under capacity")));
}

/// Two runs' lines that overlap are told apart: the second run's are dashed (many short
/// pieces of one colour), the first run's one solid line per panel. With more than 4
/// series (threshold 2 and 5: group size and ready each, the required they share), a
/// panel per stream: group size and ready, each with both runs and the required in grey;
/// each run's rounds under capacity are a strip in its colour.
#[test]
fn overlapping_runs_are_dashed_apart_in_a_panel_per_stream() {
    let svg = stdout_ok(&["plot", "autoscale", "--threshold", "2,5", "-o", "-"]);
    let pieces = |colour: &str| {
        elements(&svg, "polyline")
            .into_iter()
            .filter(|(tag, _)| attr(tag, "stroke") == Some(colour))
            .count()
    };
    // threshold=2 is solid: its line in each of the two panels and its legend swatch.
    assert_eq!(pieces("#0072B2"), 3);
    // threshold=5 is dashed: far more pieces.
    assert!(pieces("#E69F00") > 50, "{}", pieces("#E69F00"));
    let t = texts(&svg);
    for label in [
        "group size",
        "ready",
        "threshold=2",
        "threshold=5",
        "required",
        "threshold=2: under capacity (10 rounds)",
        "threshold=5: under capacity (7 rounds)",
    ] {
        assert!(t.iter().any(|x| x == label), "{label}: {t:?}");
    }
    // The strips: short rectangles in the runs' colours, none shaded full height.
    let strips = |fill: &str| {
        elements(&svg, "rect")
            .into_iter()
            .filter(|(tag, _)| attr(tag, "fill") == Some(fill) && num(tag, "height") < 20.0)
            .count()
    };
    assert!(strips("#0072B2") > 2 && strips("#E69F00") > 2);
    assert!(!svg.contains(UNDER_CAPACITY));
}

/// The bulkhead's four layouts (split shared and 24, healthy and slowdown): 7 distinct
/// series would be too many for one panel; a panel per stream holds 4 each.
#[test]
fn a_panel_holds_at_most_four_series() {
    let svg = stdout_ok(&argv(
        "plot bulkhead --split shared,24 --mode healthy,slowdown -o -",
    ));
    let t = texts(&svg);
    assert!(t.iter().any(|x| x == "tracking dropped") && t.iter().any(|x| x == "event dropped"));
    for run in [
        "split=shared mode=healthy",
        "split=shared mode=slowdown",
        "split=24 mode=healthy",
        "split=24 mode=slowdown",
    ] {
        assert!(t.iter().any(|x| x == run), "{run}: {t:?}");
    }
    // Each panel: 4 lines, solid or cut into dashes, one colour per run.
    let colours: std::collections::BTreeSet<&str> = elements(&svg, "polyline")
        .into_iter()
        .filter(|(tag, _)| attr(tag, "stroke-width") == Some("3"))
        .map(|(tag, _)| attr(tag, "stroke").unwrap())
        .collect();
    assert_eq!(colours.len(), 4, "{colours:?}");
    // Two runs of two series each stay one panel.
    let svg = stdout_ok(&argv(
        "plot bulkhead --split shared,24 --mode slowdown -o -",
    ));
    assert!(texts(&svg)
        .iter()
        .any(|x| x == "split=24: tracking dropped"));
}

/// Every text is at least [`plot::MIN_TEXT_PX`] pixels at the chart's size, at the default
/// width and a phone's, and the chart is as wide as asked; the Turkish chart says the
/// lesson's words in Turkish, with the same marks in the same places.
#[test]
fn text_is_large_at_every_width_and_turkish_on_demand() {
    for args in [
        "plot autoscale -o -",
        "plot autoscale --threshold 2,3,5 --cooldown 0,3,8 -o -",
        "plot consumers --consumers 1,2,4,8 -o -",
        "plot bulkhead --split shared,24 --mode healthy,slowdown -o -",
        "plot autoscale --seed 1..=30 --summary -o -",
    ] {
        for width in ["960", "358", "280", "3840"] {
            let svg = stdout_ok(&argv(&format!("{args} --width {width}")));
            let root = elements(&svg, "svg")[0].0;
            assert_eq!(num(root, "width"), width.parse::<f64>().unwrap(), "{args}");
            for (tag, text) in elements(&svg, "text") {
                let size = num(tag, "font-size");
                assert!(
                    size >= plot::MIN_TEXT_PX - 1e-9,
                    "{args} --width {width}: {text} at {size}"
                );
            }
        }
    }
    let en = stdout_ok(&argv("plot autoscale -o -"));
    let tr = stdout_ok(&argv("plot autoscale --lang tr -o -"));
    let t = texts(&tr);
    for label in [
        "capsim autoscale: eşik=2 soğuma=0 tohum=20261001",
        "örnek sayısı",
        "tur (1 dk)",
        "grup boyutu",
        "hazır",
        "gerekli",
        "ani artış (150. ile 189. turlar arası)",
        "kapasite altı (10 tur)",
        "örnek bozulur (tur 40, 95, 170)",
    ] {
        assert!(t.iter().any(|x| x == label), "{label}: {t:?}");
    }
    let shapes = |svg: &str| elements(svg, "rect").len() + elements(svg, "polyline").len();
    assert_eq!(shapes(&tr), shapes(&en));
    let e = one_line_error(&argv("plot autoscale --width 279 -o -"));
    assert_eq!(
        e.trim_end(),
        "error: invalid value '279' for '--width <PX>': accepted values are 280 to 3840"
    );
    let e = one_line_error(&argv("plot autoscale --lang de -o -"));
    assert!(e.contains("'de'") && e.contains("en, tr"), "{e}");
}

/// A formula run marks each evaluation with a tick on the round axis: as many as the
/// metrics' `evaluations`, at rounds 0, 15, 30, …
#[test]
fn formula_evaluations_and_hook_waits_are_marked() {
    let formula = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/formulas/demand.formula"
    );
    // One run, three views: its metrics row, its chart and its trace.
    let run = |command: &[&str], more: &[&str]| {
        stdout_ok(&[command, &["--formula", formula, "--launch-hook", "3"], more].concat())
    };
    let row = run(&["autoscale"], &["--format", "csv"]);
    let evaluations = column(&row, "evaluations")[0];
    let svg = run(&["plot", "autoscale"], &["-o", "-"]);
    let round = round_at(&svg);
    let ticks: Vec<f64> = marks_of(&svg, TICK)
        .into_iter()
        .map(|(x, _)| round(x).round())
        .collect();
    let expected: Vec<f64> = (0..16).map(|i| 15.0 * f64::from(i)).collect();
    assert_eq!(evaluations, 16.0);
    assert_eq!(ticks, expected);
    let t = texts(&svg);
    assert!(
        t.iter()
            .any(|x| x == "formula evaluation (every 15 rounds)"),
        "{t:?}"
    );
    assert!(
        t.iter().any(|x| x == "an instance waits in a hook"),
        "{t:?}"
    );
    // The hook-wait windows are exactly the rounds the trace shows an instance in
    // Pending:Wait or Removing:Wait.
    let flags =
        Flags::<Autoscale>::from_pairs([("formula", formula), ("launch-hook", "3")]).unwrap();
    let p = flags.grid().unwrap().params(0);
    let mut lines = plot::Lines::default();
    capsim::trace::observe::<Autoscale>(&p, &mut lines).unwrap();
    let trace = run(&["trace", "autoscale"], &["--format", "csv"]);
    let waits: Vec<f64> = column(&trace, "pending_wait")
        .iter()
        .zip(column(&trace, "removing_wait"))
        .zip(column(&trace, "round"))
        .filter(|((a, b), _)| **a + *b > 0.0)
        .map(|(_, r)| r)
        .collect();
    assert!(!waits.is_empty());
    let covered: Vec<f64> = lines
        .hook_waits
        .iter()
        .flat_map(|&(a, b)| (a as u32..b as u32).map(f64::from))
        .collect();
    assert_eq!(covered, waits);
    // Without a formula or a hook: no ticks, no windows of waits.
    let plain = stdout_ok(&["plot", "autoscale", "-o", "-"]);
    assert!(!plain.contains(TICK));
    assert!(!texts(&plain)
        .iter()
        .any(|x| x.contains("hook") || x.contains("formula")));
}

/// The bulkhead's slowdown is shaded from `--failure-start` to the end, and only in
/// slowdown mode.
#[test]
fn the_bulkhead_chart_marks_the_slowdown() {
    let svg = stdout_ok(&[
        "plot",
        "bulkhead",
        "--split",
        "shared,24",
        "--mode",
        "slowdown",
        "-o",
        "-",
    ]);
    assert!(texts(&svg)
        .iter()
        .any(|x| x == "slowdown (from round 1000)"));
    // A round is 1 / --rounds-per-second s (the lesson's 100); runs of different lengths
    // share the bare "round".
    assert!(texts(&svg).iter().any(|x| x == "round (1/100 s)"));
    let mixed = stdout_ok(&[
        "plot",
        "bulkhead",
        "--rounds-per-second",
        "100,250",
        "-o",
        "-",
    ]);
    assert!(texts(&mixed).iter().any(|x| x == "round"));
    let slow = stdout_ok(&["plot", "bulkhead", "--rounds-per-second", "12.5", "-o", "-"]);
    assert!(texts(&slow).iter().any(|x| x == "round (1/12.5 s)"));
    let round = round_at(&svg);
    let window: Vec<&str> = elements(&svg, "rect")
        .into_iter()
        .map(|(tag, _)| tag)
        .filter(|tag| attr(tag, "fill") == Some(INPUT_SHADE) && num(tag, "height") > 100.0)
        .collect();
    assert_eq!(window.len(), 1);
    let x = num(window[0], "x");
    assert!((round(x) - 1000.0).abs() <= 5.0, "{}", round(x));
    assert!((round(x + num(window[0], "width")) - 4000.0).abs() <= 5.0);
    let healthy = stdout_ok(&["plot", "bulkhead", "--mode", "healthy", "-o", "-"]);
    assert!(!texts(&healthy).iter().any(|x| x.starts_with("slowdown")));
    let late = stdout_ok(&[
        "plot",
        "bulkhead",
        "--mode",
        "slowdown",
        "--failure-start",
        "4000",
        "-o",
        "-",
    ]);
    assert!(
        !texts(&late).iter().any(|x| x.starts_with("slowdown")),
        "a slowdown after the horizon"
    );
}

/// `-o FILE.png` (the png feature): a PNG (its signature, and an IHDR of the SVG's size) of
/// exactly the SVG that `-o FILE.svg` writes for the same flags, rasterised with its text.
#[cfg(feature = "png")]
#[test]
fn png_is_the_svg_rasterised() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    for args in [
        &["autoscale", "--threshold", "2,5"][..],
        &["autoscale", "--threshold", "2,3,5", "--cooldown", "0,3,8"],
        &["bulkhead", "--seed", "1..=50", "--summary"],
    ] {
        let svg_path = dir.join("same.svg");
        let png_path = dir.join("same.PNG");
        let mut a = vec!["plot"];
        a.extend(args);
        let mut with_svg = a.clone();
        with_svg.extend(["-o", svg_path.to_str().unwrap()]);
        stdout_ok(&with_svg);
        let mut with_png = a.clone();
        with_png.extend(["-o", png_path.to_str().unwrap()]);
        stdout_ok(&with_png);
        let png = std::fs::read(&png_path).unwrap();
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        // The PNG signature, then the IHDR chunk: width and height, big-endian.
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        let root = elements(&svg, "svg")[0].0;
        let size = (num(root, "width") as u32, num(root, "height") as u32);
        assert_eq!((be(&png[16..20]), be(&png[20..24])), size, "{args:?}");
        assert_eq!(
            png,
            plot::png(&svg).unwrap(),
            "{args:?}: the SVG file's rasterisation"
        );
        // The text is drawn: the same SVG without its <text> elements gives other pixels.
        let mut bare = String::new();
        let mut rest = svg.as_str();
        while let Some(at) = rest.find("<text") {
            bare.push_str(&rest[..at]);
            let end = rest[at..].find("</text>").unwrap() + at + "</text>".len();
            rest = &rest[end..];
        }
        bare.push_str(rest);
        let decode = |b: &[u8]| resvg::tiny_skia::Pixmap::decode_png(b).unwrap();
        let (full, plain) = (decode(&png), decode(&plot::png(&bare).unwrap()));
        let differ = full
            .pixels()
            .iter()
            .zip(plain.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert!(differ > 2000, "{args:?}: {differ} pixels of text");
    }
}

/// The value at pixel `y` of a single chart, read off its value-axis tick labels (the
/// right-aligned numbers left of the plot): the lowest and the highest tick's pixels and
/// values.
fn value_at(svg: &str) -> impl Fn(f64) -> f64 {
    let ticks: Vec<(f64, f64)> = elements(svg, "text")
        .into_iter()
        .filter(|(tag, t)| attr(tag, "text-anchor") == Some("end") && t.parse::<f64>().is_ok())
        .map(|(tag, t)| (num(tag, "y"), t.parse().unwrap()))
        .collect();
    assert!(ticks.len() >= 3, "{ticks:?}");
    let (a, b) = (ticks[0], ticks[ticks.len() - 1]);
    move |y| a.1 + (y - a.0) * (b.1 - a.1) / (b.0 - a.0)
}

/// The polylines of stroke width `width`, each as its points (pixels).
fn polylines(svg: &str, width: &str) -> Vec<Vec<(f64, f64)>> {
    elements(svg, "polyline")
        .into_iter()
        .filter(|(tag, _)| attr(tag, "stroke-width") == Some(width))
        .map(|(tag, _)| {
            attr(tag, "points")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// A formula run draws the formula's target beside the group size and the demand: a wide
/// band (under the other lines) whose every point, read back through the axes' tick labels,
/// is the trace's `target_dedicated` at that round, from round 0 to the last; every target
/// the trace shows is drawn. A run without a formula has none, and a grid draws it for its
/// formula runs only.
#[test]
fn a_formula_run_draws_its_target() {
    let formula = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/formulas/cpu-busy.formula"
    );
    let svg = stdout_ok(&["plot", "autoscale", "--formula", formula, "-o", "-"]);
    let trace = stdout_ok(&[
        "trace",
        "autoscale",
        "--formula",
        formula,
        "--format",
        "csv",
    ]);
    let target = column(&trace, "target_dedicated");
    assert_eq!(target.len(), 240);
    let t = texts(&svg);
    for label in ["group size", "required", "target ($TargetDedicatedNodes)"] {
        assert!(t.iter().any(|x| x == label), "{label}: {t:?}");
    }
    // The band on the plot and its legend swatch (two points).
    let mut bands = polylines(&svg, "8");
    bands.sort_by_key(|b| std::cmp::Reverse(b.len()));
    assert_eq!(bands.len(), 2, "{bands:?}");
    assert_eq!(bands[1].len(), 2);
    let (round, value) = (round_at(&svg), value_at(&svg));
    let drawn: Vec<(usize, f64)> = bands[0]
        .iter()
        .map(|&(x, y)| (round(x).round() as usize, value(y)))
        .collect();
    assert_eq!(drawn.first().unwrap().0, 0);
    assert_eq!(drawn.last().unwrap().0, 239);
    for &(r, v) in &drawn {
        assert!(
            (v - target[r]).abs() < 0.25,
            "round {r}: drawn {v}, trace {}",
            target[r]
        );
    }
    let mut seen: Vec<i64> = target.iter().map(|&v| v as i64).collect();
    seen.sort_unstable();
    seen.dedup();
    let mut shown: Vec<i64> = drawn.iter().map(|&(_, v)| v.round() as i64).collect();
    shown.sort_unstable();
    shown.dedup();
    assert_eq!(shown, seen);
    assert!(seen.len() > 3, "{seen:?}");
    // The band is drawn before (under) the group size's line.
    let band = svg.find("stroke-width=\"8\"").unwrap();
    let size = svg.find("stroke=\"#0072B2\" stroke-width=\"3\"").unwrap();
    assert!(band < size);
    // Without a formula: no band, no legend entry.
    let plain = stdout_ok(&["plot", "autoscale", "-o", "-"]);
    assert!(polylines(&plain, "8").is_empty());
    assert!(!plain.contains("TargetDedicatedNodes"));
    // A grid of a plain run and a formula one: a panel per stream, the target's holding
    // the formula run's band only (dashed, as the second run's lines are: many pieces, of
    // one colour), captioned once.
    let both = format!("none,{formula}");
    let svg = stdout_ok(&["plot", "autoscale", "--formula", &both, "-o", "-"]);
    let colours: Vec<&str> = elements(&svg, "polyline")
        .into_iter()
        .filter(|(tag, _)| attr(tag, "stroke-width") == Some("8"))
        .map(|(tag, _)| attr(tag, "stroke").unwrap())
        .collect();
    assert!(colours.len() > 10, "{colours:?}");
    assert!(colours.iter().all(|c| *c == colours[0]), "{colours:?}");
    assert_eq!(
        texts(&svg)
            .iter()
            .filter(|x| x.ends_with("target ($TargetDedicatedNodes)"))
            .count(),
        1
    );
    // Small multiples: a band in each of the 9 panels, and one in the legend line.
    let svg = stdout_ok(&[
        "plot",
        "autoscale",
        "--formula",
        formula,
        "--threshold",
        "1..=9",
        "-o",
        "-",
    ]);
    assert_eq!(polylines(&svg, "8").len(), 10);
}
