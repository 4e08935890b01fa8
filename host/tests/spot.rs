//! Issue 21 through the CLI: the spot class, preemption, the warm pool and the price of
//! Stopped instances. Expected values come from the figures (225 rounds short, 1,433
//! Stopped instance-rounds, the lesson's 10 rounds short) or from another view of the same
//! run (a metric against its trace's column), never from the code under test.

mod common;

use common::{autoscale_row as row, capsim, example, n, one_line_error, stdout_ok, Csv};

/// The CSV trace of `capsim trace autoscale ARGS`.
fn trace(args: &[&str]) -> Csv {
    Csv::of(&[&["trace", "autoscale"], args].concat())
}

#[test]
fn stopped_rounds_is_the_traces_sum_of_stopped() {
    let v = row(&["--reclaim", "stop"]);
    let t = trace(&["--reclaim", "stop"]);
    assert_eq!(t.rows.len(), 240);
    // One run, two views: the metric is the trace's column summed; the figure.
    assert_eq!(n(&v, "stopped_rounds"), t.sum("stopped"));
    assert_eq!(n(&v, "stopped_rounds"), 1433);
    // Released instances are never Stopped.
    assert_eq!(n(&row(&[]), "stopped_rounds"), 0);
}

#[test]
fn the_preempted_nodes_formula_gets_its_low_priority_nodes() {
    let formula = example("preempted-nodes.formula");
    // Without the spot class: the 225 rounds short, spot metrics 0.
    let off = row(&["--formula", &formula]);
    assert_eq!(n(&off, "under_capacity_rounds"), 225);
    assert_eq!((n(&off, "spot_max"), n(&off, "preemptions")), (0, 0));
    // With it and no preemption: at most 5 (the bound), the 25 nodes arrive.
    let on = row(&["--formula", &formula, "--preemption-rate", "0"]);
    assert!(n(&on, "under_capacity_rounds") <= 5, "{on}");
    assert_eq!(n(&on, "spot_max"), 25);
    assert_eq!(n(&on, "preemptions"), 0);
    assert!(n(&on, "billed_spot_rounds") > 0);
    assert!(n(&on, "billed_spot_rounds") <= n(&on, "billed_rounds"));
    // A 2 % rate: preemptions, and the rounds they cost.
    let hit = row(&["--formula", &formula, "--preemption-rate", "0.02"]);
    assert!(n(&hit, "preemptions") > 0, "{hit}");
    assert!(n(&hit, "under_capacity_rounds") >= n(&on, "under_capacity_rounds"));
    // The trace of that run shows the spot columns; the plain trace has none.
    let t = trace(&["--formula", &formula, "--preemption-rate", "0.02"]);
    // The spot columns come right after the states, then a formula run's own.
    let spot = t.find("spot").unwrap();
    assert_eq!(
        &t.header[spot..],
        [
            "spot",
            "preempted",
            "warm",
            "target_dedicated",
            "evaluated",
            "evaluation_failed"
        ]
    );
    let max = t.ints("spot").into_iter().max();
    assert_eq!(max, Some(n(&hit, "spot_max")));
    let plain = trace(&[]);
    assert!(!plain
        .header
        .iter()
        .any(|c| ["spot", "preempted", "warm"].contains(&c.as_str())));
}

#[test]
fn a_warm_pool_shortens_the_lessons_shortfalls() {
    let lesson = row(&[]);
    assert_eq!(n(&lesson, "under_capacity_rounds"), 10);
    let warm = row(&["--warm-pool", "6"]);
    assert!(n(&warm, "under_capacity_rounds") < 10, "{warm}");
    assert!(n(&warm, "warm_starts") > 0);
    // A Stopped pool's warm instances are Stopped instance-rounds: 6 at least in round 0.
    assert!(n(&warm, "stopped_rounds") >= 6);
    // --warm-pool 0 changes no byte, in any format, and in the trace.
    for format in ["json", "csv", "table"] {
        let plain = stdout_ok(&["autoscale", "--format", format]);
        let zero = stdout_ok(&["autoscale", "--warm-pool", "0", "--format", format]);
        assert_eq!(plain, zero, "{format}");
    }
    let plain = stdout_ok(&["trace", "autoscale", "--format", "csv"]);
    let zero = stdout_ok(&["trace", "autoscale", "--warm-pool", "0", "--format", "csv"]);
    assert_eq!(plain, zero);
}

#[test]
fn bad_spot_and_warm_pool_options_are_one_line() {
    let err = |args: &[&str], want: &str| {
        let mut all = vec!["autoscale"];
        all.extend_from_slice(args);
        let line = one_line_error(&all);
        assert!(line.contains(want), "{args:?}: {line}");
    };
    err(&["--preemption-rate", "1.5"], "--preemption-rate");
    err(&["--preemption-rate", "-0.1"], "--preemption-rate");
    err(&["--preemption-notice", "1441"], "--preemption-notice");
    err(&["--on-demand-percent", "101"], "--on-demand-percent");
    err(&["--on-preemption", "later"], "--on-preemption");
    err(&["--warm-pool", "257"], "--warm-pool");
    err(&["--warm-pool", "6:hibernated"], "--warm-pool");
    err(
        &["--warm-pool", "6", "--on-demand-percent", "50"],
        "Spot Instances",
    );
    // The accepted extremes run.
    for args in [
        &[
            "--preemption-rate",
            "1",
            "--on-demand-percent",
            "0",
            "--rounds",
            "30",
        ][..],
        &[
            "--preemption-notice",
            "1440",
            "--preemption-rate",
            "0.5",
            "--on-demand-percent",
            "50",
        ],
        &["--preemption-rate", "0", "--on-demand-percent", "50"],
        &["--warm-pool", "256:running", "--warm-pool-reuse", "yes"],
    ] {
        let mut all = vec!["autoscale"];
        all.extend_from_slice(args);
        let out = capsim(&all);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Every round's group size and spot count, read from the run itself.
#[derive(Default)]
struct Classes(Vec<(f64, f64, f64)>);

impl capsim_core::Observer<capsim_core::autoscale::RoundState> for Classes {
    fn round(&mut self, s: &capsim_core::autoscale::RoundState) {
        self.0.push((
            f64::from(s.round),
            f64::from(s.size),
            f64::from(s.size - s.spot),
        ));
    }
}

#[test]
fn the_plot_stacks_the_two_classes() {
    use capsim::models::{Autoscale, Flags};
    let formula = example("preempted-nodes.formula");
    let pairs = [("formula", formula.as_str()), ("preemption-rate", "0.02")];
    let flags = Flags::<Autoscale>::from_pairs(pairs).unwrap();
    let grid = flags.grid().unwrap();
    let series = capsim::plot::series(&grid).unwrap();
    // The group size (both classes) and under it the dedicated ones: the spot instances
    // are the band between the two lines.
    let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "group size (dedicated + spot)",
            "ready",
            "required",
            "dedicated (spot above, to the group size)",
            // A formula run draws the formula's target too.
            "target ($TargetDedicatedNodes)",
        ]
    );
    let mut run = Classes::default();
    capsim::trace::observe::<Autoscale>(&grid.params(0), &mut run).unwrap();
    // 240 rounds are drawn round by round: each point is the run's own.
    let size: Vec<(f64, f64)> = run.0.iter().map(|r| (r.0, r.1)).collect();
    let dedicated: Vec<(f64, f64)> = run.0.iter().map(|r| (r.0, r.2)).collect();
    assert_eq!(series[0].points, size);
    assert_eq!(series[3].points, dedicated);
    assert!(
        run.0.iter().any(|r| r.2 < r.1),
        "some rounds have spot instances"
    );
    // Without the class: the three lines of before, and the formula's target.
    let plain = Flags::<Autoscale>::from_pairs([("formula", formula.as_str())]).unwrap();
    let series = capsim::plot::series(&plain.grid().unwrap()).unwrap();
    let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "group size",
            "ready",
            "required",
            "target ($TargetDedicatedNodes)"
        ]
    );
}
