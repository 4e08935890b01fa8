//! How the autoscale flags' own values parse and show: the policy, the scenario's lists, the
//! spot class's and the warm pool's values, the steps and `--price`.

use crate::list::{none_or, Item, WarmSize};
use crate::output::Cell;
use capsim_core::autoscale::{self, Adjustment, LifecycleHook, Steps, TimedAction};
use capsim_core::autoscale::{OnPreemption, PreemptionRounds, WarmState};

use crate::models::Value;

/// The scaling policy `--policy` names (its settings have flags of their own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PolicyName {
    /// The lesson's exact-count policy.
    #[default]
    Lesson,
    /// AWS target tracking (`--target-utilization`, `--disable-scale-in`).
    TargetTracking,
    /// AWS step scaling (`--steps`).
    Step,
    /// Kubernetes' Horizontal Pod Autoscaler (the `--hpa-*` flags).
    Hpa,
}

/// `none` for no items, else their texts joined by `+`, as the flags take them.
fn plus_joined<T>(items: &[T], text: fn(&T) -> String) -> Cell {
    if items.is_empty() {
        return Cell::Word("none");
    }
    let texts: Vec<String> = items.iter().map(text).collect();
    Cell::Text(texts.join("+"))
}

/// `none`, or the hooks as the flag takes them (`10:action=3+5:abandon:aws`).
impl Value for &'static [LifecycleHook] {
    fn cell(&self) -> Cell {
        plus_joined(self, crate::list::hook_text)
    }
}

/// `none`, or the actions as the flag takes them (`100:max_instances=12+220:desired=8`).
impl Value for &'static [TimedAction] {
    fn cell(&self) -> Cell {
        plus_joined(self, crate::list::timed_text)
    }
}

impl Item for PolicyName {
    const WORDS: &'static [&'static str] = &["lesson", "target-tracking", "step", "hpa"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(match s {
            "lesson" => Self::Lesson,
            "target-tracking" => Self::TargetTracking,
            "step" => Self::Step,
            "hpa" => Self::Hpa,
            _ => {
                return Err(format!(
                    "'{s}' is not a policy (lesson, target-tracking, step or hpa)"
                ))
            }
        });
        Ok(())
    }
}

impl Value for PreemptionRounds {
    fn cell(&self) -> Cell {
        Cell::Ints(self.to_vec())
    }
}

/// The pool's size, or `max-desired` (AWS's default size); its state has a column of its
/// own, `warm_pool_state`.
impl Value for WarmSize {
    fn cell(&self) -> Cell {
        if self.size == autoscale::MAX_MINUS_DESIRED {
            return Cell::Word(WarmSize::MAX_MINUS_DESIRED);
        }
        Cell::Int(self.size.into())
    }

    /// `N` for a Stopped pool (AWS's default state), `N:running` else.
    fn flag_text(&self) -> String {
        let size = self.cell().text();
        match self.state {
            WarmState::Stopped => size,
            WarmState::Running => format!("{size}:running"),
        }
    }
}

crate::models::named_values!(OnPreemption);

impl Value for PolicyName {
    fn cell(&self) -> Cell {
        Cell::Word(match self {
            Self::Lesson => "lesson",
            Self::TargetTracking => "target-tracking",
            Self::Step => "step",
            Self::Hpa => "hpa",
        })
    }
}

/// `none`, or the bands as the flag takes them.
impl Value for Option<Steps> {
    fn cell(&self) -> Cell {
        let Some(steps) = self else {
            return Cell::Word("none");
        };
        // A bound as the flag takes it: a percent, its decimals without trailing zeros.
        let bound = |b: u32, open: u32| {
            if b == open {
                return String::new();
            }
            let unit = autoscale::STEP_BOUND_UNIT;
            let (whole, fraction) = (b / unit, b % unit);
            if fraction == 0 {
                whole.to_string()
            } else {
                let f = format!("{fraction:03}");
                format!("{whole}.{}", f.trim_end_matches('0'))
            }
        };
        let bands: Vec<String> = steps
            .iter()
            .map(|s| {
                let adj = match s.adjustment {
                    Adjustment::Change(n) => format!("{n:+}"),
                    Adjustment::Percent(n) => format!("{n:+}%"),
                    Adjustment::Exact(n) => format!("={n}"),
                };
                format!(
                    "{}..{}:{adj}",
                    bound(s.low, 0),
                    bound(s.high, autoscale::OPEN)
                )
            })
            .collect();
        Cell::Text(bands.join("/"))
    }
}

/// The largest price of one instance-round `--price` takes (any currency).
pub const MAX_PRICE: f64 = 1e9;

/// `--price D:S:P`: what one instance-round costs billed as a dedicated instance (`D`), as a
/// spot instance (`S`) and Stopped (`P`: its disks and addresses, seed 002). The three are
/// joined by `:` because `,` separates a flag's values: `1:0.2:0.05,1:0.5:0.05` is a grid
/// of two prices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    /// A dedicated instance-round billed in full.
    pub dedicated: f64,
    /// A spot instance-round billed in full.
    pub spot: f64,
    /// A Stopped instance-round (economical mode's stopped instances, a Stopped warm pool).
    pub stopped: f64,
}

impl Price {
    /// The bill of a run: `(billed_rounds − billed_spot_rounds) × D + billed_spot_rounds × S
    /// + stopped_rounds × P`, summed in that order.
    pub fn cost(&self, m: &autoscale::Metrics) -> f64 {
        let dedicated = m.billed_rounds.saturating_sub(m.billed_spot_rounds);
        dedicated as f64 * self.dedicated
            + m.billed_spot_rounds as f64 * self.spot
            + m.stopped_rounds as f64 * self.stopped
    }
}

impl Item for Option<Price> {
    const WORDS: &'static [&'static str] = &["none"];
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        none_or(s, out, |price| {
            price.push(Price::parse(s)?);
            Ok(())
        })
    }
}

impl Price {
    /// Parses `D:S:P`: three prices from 0 to [`MAX_PRICE`].
    fn parse(s: &str) -> Result<Price, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let [d, sp, st] = parts[..] else {
            return Err(format!(
                "'{s}' is not three prices D:S:P (dedicated:spot:stopped, e.g. 1:0.2:0.05)"
            ));
        };
        let mut v = [0.0; 3];
        for (x, t) in v.iter_mut().zip([d, sp, st]) {
            *x = match t.parse::<f64>() {
                Ok(x) if (0.0..=MAX_PRICE).contains(&x) => x,
                _ => {
                    return Err(format!(
                        "'{s}': '{t}' is not a price from 0 to 1e9 (D:S:P, e.g. 1:0.2:0.05)"
                    ))
                }
            };
        }
        Ok(Price {
            dedicated: v[0],
            spot: v[1],
            stopped: v[2],
        })
    }
}

/// `none`, or `D:S:P` as the flag takes it.
impl Value for Option<Price> {
    fn cell(&self) -> Cell {
        match self {
            None => Cell::Word("none"),
            Some(p) => Cell::Text(format!("{}:{}:{}", p.dedicated, p.spot, p.stopped)),
        }
    }
}
