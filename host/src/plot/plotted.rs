//! What each model charts: [`Plotted`], its series, y axis and legend place, and the marks
//! (surges, failure rounds, evaluations, hook waits) a run of it draws.

use capsim_core::{autoscale, bulkhead};

use super::{round_list, Lines, Marks, PlotRound, Series, Tone, Window};
use crate::models::{Autoscale, Bulkhead, Consumers};
use crate::trace::Traced;

/// A model the CLI can chart.
pub trait Plotted: Traced<Round: PlotRound> {
    /// The chart's y axis label.
    const Y_LABEL: &'static str;
    /// What each of the run's series shows, in the order [`Lines`] keeps them.
    const SERIES: &'static [&'static str];
    /// The series drawn for a run with `p`: [`Plotted::SERIES`], and those of its options.
    fn series_of(p: &Self::Params) -> Vec<&'static str> {
        let _ = p;
        Self::SERIES.to_vec()
    }

    /// The round axis' label, with the round's length where the model fixes it.
    const X_LABEL: &'static str = "round";

    /// The round axis' label for run `p` (a round's length may be a parameter).
    fn x_label(p: &Self::Params) -> String {
        let _ = p;
        Self::X_LABEL.to_string()
    }

    /// What the chart marks for run `p` (its rounds observed in `lines`): the failure
    /// rounds, the surge, the slowdown, formula evaluations, hook waits, rounds under
    /// capacity.
    fn marks(p: &Self::Params, lines: &Lines) -> Marks {
        let _ = (p, lines);
        Marks::default()
    }

    /// What a run with `p` keeps: the series [`Plotted::series_of`] names, in its order.
    fn lines(p: &Self::Params) -> Lines {
        Lines {
            extra: Self::split(p),
            ..Lines::default()
        }
    }
}

/// Draws a series that several of `runs` runs share once (the demand's required instances,
/// the same for every threshold; two runs that the same formula empties), labelled by the
/// runs that share it, or by what it shows only when every run does.
pub(super) fn dedup(series: Vec<Series>, runs: u64) -> Vec<Series> {
    let name = |s: &Series| {
        s.label
            .strip_suffix(&s.what)
            .and_then(|n| n.strip_suffix(": "))
            .unwrap_or("")
            .to_string()
    };
    let mut kept: Vec<(Series, Vec<String>)> = Vec::new();
    for s in series {
        if let Some((_, names)) = kept
            .iter_mut()
            .find(|(k, _)| k.points == s.points && k.what == s.what)
        {
            names.push(name(&s));
            continue;
        }
        let first = name(&s);
        kept.push((s, vec![first]));
    }
    kept.into_iter()
        .map(|(mut s, names)| {
            if names.len() > 1 {
                s.label = if names.len() as u64 >= runs {
                    s.what.clone()
                } else {
                    format!("{}: {}", names.join(", "), s.what)
                };
            }
            s
        })
        .collect()
}

pub(super) fn named(name: &str, what: &str) -> String {
    if name.is_empty() {
        what.to_string()
    } else {
        format!("{name}: {what}")
    }
}

impl Plotted for Autoscale {
    const Y_LABEL: &'static str = "instances";
    const SERIES: &'static [&'static str] = &["group size", "ready", "required"];
    const X_LABEL: &'static str = "round (1 min)";

    /// A round is one sync period under the Kubernetes HPA.
    fn x_label(p: &crate::models::AutoscaleParams) -> String {
        match &p.core.lifecycle.policy {
            autoscale::Policy::Hpa(hpa) if p.formula.0.is_none() => {
                format!("round ({} s sync)", hpa.sync_period)
            }
            _ => Self::X_LABEL.to_string(),
        }
    }

    fn marks(p: &crate::models::AutoscaleParams, lines: &Lines) -> Marks {
        let c = &p.core;
        let mut marks = Marks::default();
        let end = f64::from(c.rounds);
        // The surge is the lesson's curve's: a demand file's run has none.
        let surged = p.demand_file.0.is_none() && c.surge != 0.0;
        if surged && c.surge_start < c.surge_end && c.surge_start < c.rounds {
            let to = c.surge_end.min(c.rounds);
            marks.windows.push(Window {
                rounds: vec![(f64::from(c.surge_start), f64::from(to))],
                label: format!("surge (rounds {} to {})", c.surge_start, to - 1),
                tone: Tone::Input,
                run: None,
            });
        }
        if lines.short_rounds > 0 {
            let n = lines.short_rounds;
            marks.windows.push(Window {
                rounds: lines.short.clone(),
                label: format!(
                    "under capacity ({n} round{})",
                    if n == 1 { "" } else { "s" }
                ),
                tone: Tone::UnderCapacity,
                run: None,
            });
        }
        if !lines.hook_waits.is_empty() {
            marks.windows.push(Window {
                rounds: lines.hook_waits.clone(),
                label: "an instance waits in a hook".into(),
                tone: Tone::HookWait,
                run: None,
            });
        }
        let failures: Vec<f64> = c
            .failure_rounds
            .iter()
            .filter(|&&r| r < c.rounds)
            .map(|&r| f64::from(r))
            .collect();
        if !failures.is_empty() {
            let label = format!("instance breaks (round {})", round_list(&failures));
            marks.lines.push((failures, label));
        }
        let restarted = c.lifecycle.at.iter().any(|a| {
            matches!(
                a.what,
                autoscale::Timed::EvaluationInterval | autoscale::Timed::Formula
            )
        });
        if p.formula.0.is_some() && restarted {
            // A timed action restarted the schedule: the run's own evaluations.
            let at: Vec<f64> = lines
                .evaluated
                .iter()
                .copied()
                .take_while(|&r| r < end)
                .collect();
            marks.ticks.push((
                at,
                "formula evaluation (the schedule restarts at a timed action)".into(),
            ));
        } else if p.formula.0.is_some() {
            let every = p.evaluation_interval.max(1);
            let at: Vec<f64> = (0..c.rounds)
                .step_by(every as usize)
                .map(f64::from)
                .take_while(|&r| r < end)
                .collect();
            marks
                .ticks
                .push((at, format!("formula evaluation (every {every} rounds)")));
        }
        if matches!(c.lifecycle.policy, autoscale::Policy::Hpa(_)) {
            for (held, what) in [
                (&lines.window_held, "the stabilization window"),
                (&lines.policy_held, "a scaling policy"),
            ] {
                if !held.is_empty() {
                    marks
                        .ticks
                        .push((held.clone(), format!("HPA held back by {what}")));
                }
            }
        }
        marks
    }

    /// With the spot class the two classes are stacked: the dedicated instances, and the
    /// spot ones above them up to the group size. A formula's run adds the formula's
    /// dedicated target (the trace's `target_dedicated`), last.
    fn series_of(p: &Self::Params) -> Vec<&'static str> {
        let mut names = if p.core.lifecycle.spot.enabled() {
            vec![
                "group size (dedicated + spot)",
                "ready",
                "required",
                "dedicated (spot above, to the group size)",
            ]
        } else {
            Self::SERIES.to_vec()
        };
        if p.formula.0.is_some() {
            names.push(TARGET_SERIES);
        }
        names
    }

    fn lines(p: &Self::Params) -> Lines {
        Lines {
            extra: <Self as Traced>::split(p),
            dedicated: p.core.lifecycle.spot.enabled(),
            target: p.formula.0.is_some(),
            ..Lines::default()
        }
    }
}

/// The legend's name of a formula run's target series: the trace's `target_dedicated`, the
/// dedicated target after each round's decision (the last evaluation's
/// `$TargetDedicatedNodes`, truncated, held between evaluations).
pub const TARGET_SERIES: &str = "target ($TargetDedicatedNodes)";

impl Plotted for Consumers {
    const Y_LABEL: &'static str = "events not yet applied";
    /// A plain run draws the first only; a run with a flow option all three.
    const SERIES: &'static [&'static str] = &["backlog", "queued after arrivals", "dropped so far"];
    fn series_of(p: &Self::Params) -> Vec<&'static str> {
        let drawn = if <Self as crate::trace::Traced>::split(p) {
            3
        } else {
            1
        };
        Self::SERIES[..drawn].to_vec()
    }
}

impl Plotted for Bulkhead {
    const Y_LABEL: &'static str = "requests dropped so far";
    const SERIES: &'static [&'static str] = &["tracking dropped", "event dropped"];
    /// With `--breaker` or `--retries`: the requests the breaker rejected so far (rising
    /// while it is open) and the retries waiting.
    fn series_of(p: &Self::Params) -> Vec<&'static str> {
        let mut names = Self::SERIES.to_vec();
        if <Self as crate::trace::Traced>::options(p) {
            names.extend(["rejected by the breaker so far", "retries waiting"]);
        }
        names
    }

    /// A round is 1 / `--rounds-per-second` seconds.
    fn x_label(p: &bulkhead::Params) -> String {
        format!("round (1/{} s)", p.rounds_per_second)
    }

    fn marks(p: &bulkhead::Params, _: &Lines) -> Marks {
        let mut marks = Marks::default();
        // The slowdown lasts to the horizon, or to --failure-end.
        let end = p
            .resilience
            .failure_end
            .map_or(p.horizon, |e| e.min(p.horizon));
        if p.mode == bulkhead::Mode::Slowdown && p.failure_start < end {
            marks.windows.push(Window {
                rounds: vec![(f64::from(p.failure_start), f64::from(end))],
                label: format!("slowdown (from round {})", p.failure_start),
                tone: Tone::Input,
                run: None,
            });
        }
        marks
    }
}
