//! `--policy hpa` (issue 35): the trace's recommendations recomputed from the trace itself,
//! by the documented algorithm written again here for a group whose replicas share the
//! demand equally (Kubernetes' docs: desired = ceil(current × currentMetric / target), the
//! tolerance, not-yet-ready pods at 0 on a scale-up, missing ones at 100 % on a
//! scale-down; the stabilization window over the earlier recommendations; Pods and Percent
//! limits per period); the rows, the plot and the flags around them.

mod common;

use common::{argv, capsim, error_naming, json_rows, stdout_ok};

/// One trace row, by column name.
struct Row<'a> {
    header: &'a [&'a str],
    cells: Vec<&'a str>,
}

impl Row<'_> {
    fn text(&self, key: &str) -> &str {
        let i = self
            .header
            .iter()
            .position(|h| *h == key)
            .unwrap_or_else(|| panic!("{key}"));
        self.cells[i]
    }
    fn int(&self, key: &str) -> i64 {
        self.text(key)
            .parse()
            .unwrap_or_else(|_| panic!("{key}: {}", self.text(key)))
    }
    fn opt(&self, key: &str) -> Option<i64> {
        let t = self.text(key);
        (!t.is_empty()).then(|| t.parse().unwrap())
    }
    fn float(&self, key: &str) -> f64 {
        self.text(key).parse().unwrap()
    }
}

/// The HPA the runs below configure, as the test reads it.
struct Setup {
    /// CPU utilisation target, percent.
    target: i64,
    capacity: f64,
    min: i64,
    max: i64,
    sync: i64,
    down_window: i64,
    /// Scale-up policies `(pods, value, period)` (Max); scale-down: Percent 100 per 15 s.
    up: &'static [(bool, i64, i64)],
}

/// The metric's recommendation for one row (`None`: no ready pod with a sample).
fn recommend(s: &Setup, r: &Row) -> Option<(i64, i64)> {
    let (current, ready, unready, missing) = (
        r.int("hpa_current"),
        r.int("hpa_ready"),
        r.int("hpa_unready"),
        r.int("hpa_missing"),
    );
    if ready == 0 {
        return None;
    }
    let request = (s.capacity * 1000.0).round() as i64;
    let share = (r.float("demand") * 1000.0 / ready as f64).round().max(0.0) as i64;
    let (values, requests) = (share * ready, request * ready);
    let util = values * 100 / requests;
    let ratio = util as f64 / s.target as f64;
    let within = |x: f64| (0.9..=1.1).contains(&x);
    let scale_up_with_unready = unready > 0 && ratio > 1.0;
    if !scale_up_with_unready && missing == 0 {
        let replicas = if within(ratio) {
            current
        } else {
            (ratio * ready as f64).ceil() as i64
        };
        return Some((replicas, util));
    }
    // Missing pods count at 100 % of their request on a scale-down, at 0 on a scale-up;
    // unready ones at 0 on a scale-up.
    let (mut values2, mut requests2, mut counted) = (values, requests, ready);
    if missing > 0 && ratio != 1.0 {
        if ratio < 1.0 {
            values2 += missing * request * s.target.max(100) / 100;
        }
        requests2 += missing * request;
        counted += missing;
    }
    if scale_up_with_unready {
        requests2 += unready * request;
        counted += unready;
    }
    let ratio2 = (values2 * 100 / requests2) as f64 / s.target as f64;
    if within(ratio2) || (ratio < 1.0 && ratio2 > 1.0) || (ratio > 1.0 && ratio2 < 1.0) {
        return Some((current, util));
    }
    let replicas = (ratio2 * counted as f64).ceil() as i64;
    if (ratio2 < 1.0 && replicas > current) || (ratio2 > 1.0 && replicas < current) {
        return Some((current, util));
    }
    Some((replicas, util))
}

/// Recomputes every sync of `args`' trace and compares; returns the rounds a window and a
/// policy held the count back.
fn recompute(s: &Setup, args: &[&str]) -> (usize, usize) {
    let csv = stdout_ok(&[&["trace", "autoscale"], args, &["--format", "csv"]].concat());
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Row> = lines
        .map(|l| Row {
            header: &header,
            cells: l.split(',').collect(),
        })
        .collect();
    // (round, recommendation) of the syncs that read the metric; (round, change) of the
    // syncs that changed the count.
    let mut recommendations: Vec<(i64, i64)> = Vec::new();
    let mut changes: Vec<(i64, i64)> = Vec::new();
    let (mut windows, mut policies, mut read) = (0, 0, 0);
    for r in &rows {
        let t = r.int("round");
        let now = t * s.sync;
        let current = r.int("hpa_current");
        let (desired, limit) = (r.int("hpa_desired"), r.text("hpa_limit"));
        let what = format!("round {t}: {}", r.cells.join(","));
        if current < s.min || current > s.max {
            assert_eq!(r.opt("hpa_recommendation"), None, "{what}");
            assert_eq!(desired, current.clamp(s.min, s.max), "{what}");
        } else {
            let Some((rec, util)) = recommend(s, r) else {
                assert_eq!(
                    (r.opt("hpa_recommendation"), limit),
                    (None, "FailedGetMetric"),
                    "{what}"
                );
                assert_eq!(desired, current, "{what}");
                continue;
            };
            assert_eq!(r.opt("hpa_recommendation"), Some(rec), "{what}");
            read += 1;
            assert_eq!(r.int("hpa_metric"), util, "{what}");
            // The scale-down window: the highest recommendation of the last `window`
            // seconds (strictly after its start), this one included; no scale-up window.
            let down = recommendations
                .iter()
                .filter(|&&(at, _)| at * s.sync > now - s.down_window)
                .map(|&(_, v)| v)
                .fold(rec, i64::max);
            let stabilized = current.max(rec).min(down);
            assert_eq!(r.int("hpa_stabilized"), stabilized, "{what}");
            recommendations.push((t, rec));
            if stabilized != rec {
                windows += 1;
            }
            let within = |period: i64, sign: i64| -> i64 {
                changes
                    .iter()
                    .filter(|&&(at, c)| at * s.sync > now - period && c.signum() == sign)
                    .map(|&(_, c)| c.abs())
                    .sum()
            };
            let (want, why) = if stabilized > current {
                let limit =
                    s.up.iter()
                        .map(|&(pods, value, period)| {
                            let start = current - within(period, 1) + within(period, -1);
                            if pods {
                                start + value
                            } else {
                                (start as f64 * (1.0 + value as f64 / 100.0)).ceil() as i64
                            }
                        })
                        .max()
                        .unwrap()
                        .max(current);
                if s.max > limit {
                    (
                        stabilized.min(limit),
                        if stabilized > limit {
                            "ScaleUpLimit"
                        } else {
                            "DesiredWithinRange"
                        },
                    )
                } else {
                    (
                        stabilized.min(s.max),
                        if stabilized > s.max {
                            "TooManyReplicas"
                        } else {
                            "DesiredWithinRange"
                        },
                    )
                }
            } else if stabilized < current {
                // Percent 100 per 15 seconds: down to 0, so the minimum binds first.
                let start = current - within(15, 1) + within(15, -1);
                let limit = ((start as f64) * 0.0) as i64;
                let floor = s.min.max(limit.min(current));
                let why = if s.min < limit.min(current) {
                    "ScaleDownLimit"
                } else {
                    "TooFewReplicas"
                };
                (
                    stabilized.max(floor),
                    if stabilized < floor {
                        why
                    } else {
                        "DesiredWithinRange"
                    },
                )
            } else {
                (stabilized, "DesiredWithinRange")
            };
            assert_eq!((desired, limit), (want, why), "{what}");
            if why.ends_with("Limit") {
                policies += 1;
            }
        }
        if desired != current {
            changes.push((t, desired - current));
        }
    }
    // The metric was read in nearly every round (the first syncs of a scale-up aside).
    assert!(
        read * 10 >= rows.len() * 9,
        "{read} of {} rounds",
        rows.len()
    );
    (windows, policies)
}

#[test]
fn the_lessons_day_under_the_default_hpa_recomputes_from_its_trace() {
    let k8s = Setup {
        target: 80,
        capacity: 100.0,
        min: 1,
        max: i32::MAX as i64,
        sync: 15,
        down_window: 300,
        up: &[(true, 4, 15), (false, 100, 15)],
    };
    let (windows, _) = recompute(&k8s, &["--policy", "hpa"]);
    assert!(windows > 0, "the 300-second window holds some scale-down");
}

#[test]
fn the_example_scenario_recomputes_from_its_trace() {
    let scenario = format!(
        "{}/../examples/scenarios/hpa.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let s = Setup {
        target: 60,
        capacity: 100.0,
        min: 2,
        max: 60,
        sync: 15,
        down_window: 300,
        up: &[(true, 4, 15), (false, 100, 15)],
    };
    let (windows, _) = recompute(&s, &["--scenario", &scenario]);
    assert!(windows >= 20, "{windows}");
    // A slow scale-up policy holds the count back where the demand climbs.
    let slow = Setup {
        up: &[(true, 1, 60)],
        ..s
    };
    let (_, policies) = recompute(
        &slow,
        &[
            "--scenario",
            &scenario,
            "--hpa-scale-up-policies",
            "Pods:1:60",
        ],
    );
    assert!(policies >= 10, "{policies}");
}

#[test]
fn the_scenario_is_the_command_line_it_stands_for() {
    let scenario = format!(
        "{}/../examples/scenarios/hpa.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let flags = "autoscale --policy hpa --min-instances 2 --max-instances 60 --hpa-target utilization:60 --hpa-scale-down-stabilization 300 --hpa-scale-down-policies Percent:100:15 --hpa-scale-up-stabilization 0 --hpa-scale-up-policies Pods:4:15/Percent:100:15 --hpa-scale-up-select Max --hpa-sync-period 15 --hpa-tolerance 0.1 --hpa-cpu-initialization-period 300 --hpa-initial-readiness-delay 30 --format json";
    let by_flags = json_rows(&argv(flags));
    let by_file = json_rows(&["autoscale", "--scenario", &scenario, "--format", "json"]);
    assert_eq!(by_flags, by_file);
    assert_eq!(by_file[0]["policy"], "hpa");
    assert_eq!(by_file[0]["hpa_scale_down_stabilization"], 300);
    // The HPA is not the lesson's policy: other rows than the lesson's.
    let lesson = json_rows(&["autoscale", "--format", "json"]);
    assert_ne!(lesson[0]["launched"], by_file[0]["launched"]);
}

#[test]
fn an_hpa_flag_without_the_hpa_is_refused() {
    for (flag, value) in [
        ("--hpa-target", "utilization:50"),
        ("--hpa-tolerance", "0.2"),
        ("--hpa-sync-period", "30"),
        ("--hpa-scale-down-policies", "Pods:1:60"),
        ("--hpa-scale-up-select", "Disabled"),
    ] {
        error_naming(&["autoscale", flag, value], &[flag, "needs --policy hpa"]);
        error_naming(
            &["autoscale", "--policy", "target-tracking", flag, value],
            &[flag, "needs --policy hpa"],
        );
    }
    // A grid whose policy list holds the HPA takes them.
    let rows = json_rows(&argv(
        "autoscale --policy lesson,hpa --hpa-tolerance 0.2 --format json",
    ));
    assert_eq!(rows.len(), 2);
}

#[test]
fn windows_and_periods_stay_within_what_the_history_remembers() {
    // 254 syncs: at a 1-second sync, a 300-second window is too long.
    error_naming(
        &argv("autoscale --policy hpa --hpa-sync-period 1 --hpa-scale-down-stabilization 300"),
        &["--hpa-scale-down-stabilization", "254"],
    );
    stdout_ok(&argv(
        "autoscale --policy hpa --hpa-sync-period 1 --hpa-scale-down-stabilization 254",
    ));
    // Kubernetes' own bounds at the default sync: a 3600-second window, 1800-second periods.
    stdout_ok(&argv("autoscale --policy hpa --hpa-scale-down-stabilization 3600 --hpa-scale-up-policies Pods:1:1800"));
    error_naming(
        &argv("autoscale --policy hpa --hpa-scale-down-stabilization 3601"),
        &["--hpa-scale-down-stabilization", "3600"],
    );
    error_naming(
        &argv("autoscale --policy hpa --hpa-scale-up-policies Pods:1:1801"),
        &["--hpa-scale-up-policies", "1800"],
    );
    // Scaling to zero needs an External metric (Kubernetes' validation).
    error_naming(
        &argv("autoscale --policy hpa --min-instances 0"),
        &["--min-instances"],
    );
    stdout_ok(&argv(
        "autoscale --policy hpa --min-instances 0 --hpa-target external:average-value:80",
    ));
}

#[test]
fn the_chart_marks_what_held_the_group_back() {
    let scenario = format!(
        "{}/../examples/scenarios/hpa.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let svg = stdout_ok(&[
        "plot",
        "autoscale",
        "--scenario",
        &scenario,
        "--hpa-scale-up-policies",
        "Pods:1:60",
        "-o",
        "-",
    ]);
    assert!(
        svg.contains("HPA held back by the stabilization window"),
        "legend"
    );
    assert!(svg.contains("HPA held back by a scaling policy"), "legend");
    assert!(svg.contains("round (15 s sync)"), "axis");
    let plain = stdout_ok(&["plot", "autoscale", "-o", "-"]);
    assert!(!plain.contains("HPA held back"));
    let out = capsim(&[
        "plot",
        "autoscale",
        "--policy",
        "hpa",
        "--hpa-sync-period",
        "30",
        "-o",
        "-",
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("round (30 s sync)"));
}
