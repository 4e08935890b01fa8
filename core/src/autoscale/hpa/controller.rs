//! One controller sync (Kubernetes' `reconcileAutoscaler` and its normalization with
//! `behavior`), and what it remembers between syncs: the recommendations of the stabilization
//! windows and the scale events of the scaling policies' periods.

use super::behavior::{scale_down_limit, scale_up_limit, Behavior};
use super::replicas::Unavailable;

/// The most recommendations, and scale events of each direction, a [`History`] keeps.
pub const MAX_HISTORY: usize = 256;

/// What bound a sync's desired count (the controller's `ScalingLimited` reasons, and the
/// paths of its reconcile that skip the metric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Limit {
    /// `DesiredWithinRange`: nothing did.
    WithinRange,
    /// `TooFewReplicas`: raised to the minimum.
    TooFew,
    /// `TooManyReplicas`: lowered to the maximum.
    TooMany,
    /// `ScaleUpLimit`: held back by the scale-up policies.
    ScaleUp,
    /// `ScaleDownLimit`: held back by the scale-down policies.
    ScaleDown,
    /// The current count is below the minimum: set to it, without the metric.
    BelowMin,
    /// The current count is above the maximum: set to it, without the metric.
    AboveMax,
    /// `ScalingDisabled`: the target has no replicas and the minimum is not 0.
    Disabled,
    /// The metric gave no count (no change).
    NoMetric(Unavailable),
}

impl Limit {
    /// Returns the reason as the controller words it (capsim's words for the paths that
    /// skip the metric).
    pub const fn name(self) -> &'static str {
        match self {
            Limit::WithinRange => "DesiredWithinRange",
            Limit::TooFew => "TooFewReplicas",
            Limit::TooMany => "TooManyReplicas",
            Limit::ScaleUp => "ScaleUpLimit",
            Limit::ScaleDown => "ScaleDownLimit",
            Limit::BelowMin => "BelowMinReplicas",
            Limit::AboveMax => "AboveMaxReplicas",
            Limit::Disabled => "ScalingDisabled",
            Limit::NoMetric(_) => "FailedGetMetric",
        }
    }

    /// Returns whether a scaling policy held the count back.
    pub const fn rate_limited(self) -> bool {
        matches!(self, Limit::ScaleUp | Limit::ScaleDown)
    }
}

/// The HPA's bounds and behavior (`minReplicas`, `maxReplicas`, `behavior`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec<'a> {
    /// `minReplicas`.
    pub min: u32,
    /// `maxReplicas`.
    pub max: u32,
    /// `behavior`.
    pub behavior: &'a Behavior,
}

/// What one sync decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sync {
    /// The replicas the sync started from (the target's `spec.replicas`).
    pub current: u32,
    /// The metric's count; `None` where the sync did not read it.
    pub recommendation: Option<u32>,
    /// The count after the stabilization windows (the recommendation where there is none).
    pub stabilized: u32,
    /// The count the sync sets, after the policies and the bounds.
    pub desired: u32,
    /// What bound `desired`.
    pub limit: Limit,
}

impl Sync {
    /// Returns whether a stabilization window held the count back (the stabilized count
    /// differs from the recommendation).
    pub fn stabilized_away(&self) -> bool {
        self.recommendation.is_some_and(|r| r != self.stabilized)
    }
}

/// A recommendation or a scale event, with its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    at: i64,
    /// The recommendation, or the replicas a scale event added or removed.
    value: u32,
    /// A scale event older than its direction's longest policy period (its slot is reused).
    outdated: bool,
}

type Entries<const H: usize> = heapless::Vec<Entry, H>;

/// Stores `entry` in the last slot `reusable` marks, or after the others; a full list
/// (only when a run's windows hold more than `H` syncs) reuses its oldest slot.
fn store<const H: usize>(list: &mut Entries<H>, entry: Entry, reusable: impl Fn(&Entry) -> bool) {
    if let Some(i) = list.iter().rposition(reusable) {
        list[i] = entry;
    } else if let Err(entry) = list.push(entry) {
        if let Some((i, _)) = list.iter().enumerate().min_by_key(|(_, e)| e.at) {
            list[i] = entry;
        }
    }
}

/// What the controller remembers of one HPA: its recommendations (the stabilization
/// windows read them) and its scale events (the policies' periods read them), up to `H` of
/// each (enough when every window and period spans at most `H − 2` syncs).
#[derive(Clone, Debug, Default)]
pub struct History<const H: usize = MAX_HISTORY> {
    recommendations: Entries<H>,
    scale_up: Entries<H>,
    scale_down: Entries<H>,
}

impl<const H: usize> History<H> {
    /// Returns an empty history.
    pub const fn new() -> Self {
        Self {
            recommendations: Entries::new(),
            scale_up: Entries::new(),
            scale_down: Entries::new(),
        }
    }

    /// Remembers recommendation `replicas` made at `at` (a test's history).
    pub fn recommended(&mut self, at: i64, replicas: u32) {
        let _ = self.recommendations.push(Entry {
            at,
            value: replicas,
            outdated: false,
        });
    }

    /// Remembers a scale event at `at` that added (`up`) or removed `replicas` (a test's
    /// history; a sync stores its own).
    pub fn scaled(&mut self, at: i64, up: bool, replicas: u32) {
        let list = if up {
            &mut self.scale_up
        } else {
            &mut self.scale_down
        };
        let _ = list.push(Entry {
            at,
            value: replicas,
            outdated: false,
        });
    }

    /// Returns the replicas added (`up`) or removed within the last `period` seconds before
    /// `now` (`getReplicasChangePerPeriod`: events strictly after `now − period`).
    pub fn changed_within(&self, now: i64, period: u32, up: bool) -> i64 {
        let list = if up { &self.scale_up } else { &self.scale_down };
        let cutoff = now - i64::from(period);
        list.iter()
            .filter(|e| e.at > cutoff)
            .map(|e| i64::from(e.value))
            .sum()
    }

    /// Returns `desired` stabilized at `now` (`stabilizeRecommendationWithBehaviors`), and
    /// remembers `desired`: the count is kept within the lowest recommendation of the
    /// scale-up window and the highest of the scale-down window (each with `desired`), as
    /// near `current` as they allow.
    pub fn stabilize(&mut self, now: i64, current: u32, desired: u32, behavior: &Behavior) -> u32 {
        let up_cutoff = now - i64::from(behavior.scale_up.stabilization_window);
        let down_cutoff = now - i64::from(behavior.scale_down.stabilization_window);
        let (mut up, mut down) = (desired, desired);
        for r in &self.recommendations {
            if r.at > up_cutoff {
                up = up.min(r.value);
            }
            if r.at > down_cutoff {
                down = down.max(r.value);
            }
        }
        let stabilized = current.max(up).min(down);
        let entry = Entry {
            at: now,
            value: desired,
            outdated: false,
        };
        store(&mut self.recommendations, entry, |r| {
            r.at < up_cutoff && r.at < down_cutoff
        });
        stabilized
    }

    /// Returns `desired` bounded at `now` by the scaling policies and by `min` and `max`
    /// (`convertDesiredReplicasWithBehaviorRate`), with what bound it.
    pub fn limit(&self, now: i64, current: u32, desired: u32, spec: &Spec<'_>) -> (u32, Limit) {
        let changed = |period| {
            (
                self.changed_within(now, period, true),
                self.changed_within(now, period, false),
            )
        };
        let clamp = |x: i64| x.clamp(0, i64::from(u32::MAX)) as u32;
        if desired > current {
            // Never below the current count: the events have to age first.
            let up = clamp(scale_up_limit(current, &spec.behavior.scale_up, changed)).max(current);
            let (allowed, limit) = if spec.max > up {
                (up, Limit::ScaleUp)
            } else {
                (spec.max, Limit::TooMany)
            };
            if desired > allowed {
                return (allowed, limit);
            }
        } else if desired < current {
            let down = clamp(scale_down_limit(
                current,
                &spec.behavior.scale_down,
                changed,
            ))
            .min(current);
            let (allowed, limit) = if spec.min < down {
                (down, Limit::ScaleDown)
            } else {
                (spec.min, Limit::TooFew)
            };
            if desired < allowed {
                return (allowed, limit);
            }
        }
        (desired, Limit::WithinRange)
    }

    /// Remembers the change from `from` to `to` replicas at `now` (`storeScaleEvent`): it
    /// takes the last slot of its direction's list older than the direction's longest
    /// policy period, or a new one.
    fn store_event(&mut self, now: i64, from: u32, to: u32, behavior: &Behavior) {
        let (list, rules, change) = if to > from {
            (&mut self.scale_up, &behavior.scale_up, to - from)
        } else {
            (&mut self.scale_down, &behavior.scale_down, from - to)
        };
        let cutoff = now - i64::from(rules.longest_period());
        for e in list.iter_mut() {
            if e.at < cutoff {
                e.outdated = true;
            }
        }
        let entry = Entry {
            at: now,
            value: change,
            outdated: false,
        };
        store(list, entry, |e| e.outdated);
    }

    /// Runs one sync at `now` (`reconcileAutoscaler`): from `current` replicas (the target's
    /// `spec.replicas`), with the metric's `recommendation` (read only where the sync needs
    /// it), to the count the sync sets. A change is remembered as a scale event.
    pub fn sync(
        &mut self,
        now: i64,
        current: u32,
        spec: &Spec<'_>,
        recommendation: impl FnOnce() -> Result<u32, Unavailable>,
    ) -> Sync {
        let fixed = |desired, limit| Sync {
            current,
            recommendation: None,
            stabilized: desired,
            desired,
            limit,
        };
        let decided = if current == 0 && spec.min != 0 {
            fixed(current, Limit::Disabled)
        } else if current > spec.max {
            fixed(spec.max, Limit::AboveMax)
        } else if current < spec.min {
            fixed(spec.min, Limit::BelowMin)
        } else {
            match recommendation() {
                Err(why) => fixed(current, Limit::NoMetric(why)),
                Ok(r) => {
                    let stabilized = self.stabilize(now, current, r, spec.behavior);
                    let (desired, limit) = self.limit(now, current, stabilized, spec);
                    Sync {
                        current,
                        recommendation: Some(r),
                        stabilized,
                        desired,
                        limit,
                    }
                }
            }
        };
        if decided.desired != current {
            self.store_event(now, current, decided.desired, spec.behavior);
        }
        decided
    }
}

/// One round's sync as a trace shows it: the pods as the controller counted them, the
/// metric's current value, and what the sync decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HpaRound {
    /// Pods counted with their samples.
    pub ready: u32,
    /// Pods not yet ready (Pending, or unready under the CPU rules).
    pub unready: u32,
    /// Running pods without a sample.
    pub missing: u32,
    /// The metric's current value as the sync read it, in thousandths: of a percent of the
    /// request for a utilisation target, of a request otherwise (the average, or the
    /// External total for a value target); `None` where the sync did not read it.
    pub metric: Option<i64>,
    /// The sync.
    pub sync: Sync,
}
