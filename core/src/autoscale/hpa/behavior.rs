//! `behavior`: how fast the count may change in each direction (Kubernetes'
//! `HorizontalPodAutoscalerBehavior`, its defaults, and the controller's two rate limits).

/// The most scaling policies one direction takes (capsim's bound: Kubernetes sets none).
pub const MAX_RATE_POLICIES: usize = 8;

/// The longest stabilization window, in seconds (Kubernetes' `MaxStabilizationWindowSeconds`).
pub const MAX_STABILIZATION_WINDOW: u32 = 3600;

/// The longest scaling-policy period, in seconds (Kubernetes' `MaxPeriodSeconds`).
pub const MAX_PERIOD: u32 = 1800;

/// What a scaling policy's value counts (`HPAScalingPolicyType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RateKind {
    /// `Pods`: at most `value` replicas per period.
    Pods,
    /// `Percent`: at most `value` percent of the replicas at the period's start.
    Percent,
}

impl RateKind {
    /// Returns the kind as Kubernetes spells it.
    pub const fn name(self) -> &'static str {
        match self {
            RateKind::Pods => "Pods",
            RateKind::Percent => "Percent",
        }
    }
}

/// One scaling policy (`HPAScalingPolicy`): the change allowed within `period` seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RatePolicy {
    /// Pods or Percent.
    pub kind: RateKind,
    /// The change, ≥ 1.
    pub value: u32,
    /// The period, 1 to [`MAX_PERIOD`] seconds.
    pub period: u32,
}

/// Which policy's limit applies when a direction has several (`selectPolicy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Select {
    /// `Max`: the policy allowing the largest change (the default).
    #[default]
    Max,
    /// `Min`: the policy allowing the smallest change.
    Min,
    /// `Disabled`: no change in this direction.
    Disabled,
}

impl Select {
    /// Returns the choice as Kubernetes spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Select::Max => "Max",
            Select::Min => "Min",
            Select::Disabled => "Disabled",
        }
    }
}

/// A direction's policies.
pub type RatePolicies = heapless::Vec<RatePolicy, MAX_RATE_POLICIES>;

/// One direction's rules (`HPAScalingRules`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rules {
    /// `stabilizationWindowSeconds`, 0 to [`MAX_STABILIZATION_WINDOW`]: scaling up takes the
    /// lowest recommendation of the window, scaling down the highest.
    pub stabilization_window: u32,
    /// `selectPolicy`.
    pub select: Select,
    /// `policies`: 1 to [`MAX_RATE_POLICIES`].
    pub policies: RatePolicies,
}

impl Rules {
    fn of(stabilization_window: u32, policies: &[RatePolicy]) -> Self {
        let mut list = RatePolicies::new();
        for p in policies {
            // At most two: they fit.
            let _ = list.push(*p);
        }
        Self {
            stabilization_window,
            select: Select::Max,
            policies: list,
        }
    }

    /// Kubernetes' scale-up default: no window, at most 4 pods or 100 % per 15 seconds,
    /// whichever is more.
    pub fn default_scale_up() -> Self {
        Self::of(
            0,
            &[
                RatePolicy {
                    kind: RateKind::Pods,
                    value: 4,
                    period: 15,
                },
                RatePolicy {
                    kind: RateKind::Percent,
                    value: 100,
                    period: 15,
                },
            ],
        )
    }

    /// Kubernetes' scale-down default: a 300-second window, at most 100 % per 15 seconds.
    pub fn default_scale_down() -> Self {
        Self::of(
            300,
            &[RatePolicy {
                kind: RateKind::Percent,
                value: 100,
                period: 15,
            }],
        )
    }

    /// Returns the longest of the policies' periods (0 without policies).
    pub fn longest_period(&self) -> u32 {
        self.policies.iter().map(|p| p.period).max().unwrap_or(0)
    }
}

/// Both directions' rules (`behavior`); [`Default`] is Kubernetes' when none is given.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Behavior {
    /// `scaleUp`.
    pub scale_up: Rules,
    /// `scaleDown`.
    pub scale_down: Rules,
}

impl Default for Behavior {
    fn default() -> Self {
        Self {
            scale_up: Rules::default_scale_up(),
            scale_down: Rules::default_scale_down(),
        }
    }
}

/// The replicas each policy of `rules` started its period with: `current`, less what was
/// added within the period, plus what was removed (`changed(period)` returns both).
fn period_start(current: u32, period: u32, changed: &impl Fn(u32) -> (i64, i64)) -> i64 {
    let (added, removed) = changed(period);
    i64::from(current) - added + removed
}

/// The most replicas scaling up may reach now (`calculateScaleUpLimitWithScalingRules`):
/// per policy, its period's starting replicas plus `value` pods or `value` percent (rounded
/// up), the largest of them (`Max`) or the smallest (`Min`); `Disabled`: `current`.
/// `changed(period)` returns the replicas added and removed within the last `period`
/// seconds. May be below `current` (the caller keeps `current` then).
pub fn scale_up_limit(current: u32, rules: &Rules, changed: impl Fn(u32) -> (i64, i64)) -> i64 {
    let pick: fn(i64, i64) -> i64 = match rules.select {
        Select::Disabled => return i64::from(current),
        Select::Min => i64::min,
        Select::Max => i64::max,
    };
    let mut limit: Option<i64> = None;
    for p in &rules.policies {
        let start = period_start(current, p.period, &changed);
        let proposed = match p.kind {
            RateKind::Pods => start + i64::from(p.value),
            // Rounded up: a small group would otherwise never grow.
            RateKind::Percent => {
                libm::ceil(start as f64 * (1.0 + f64::from(p.value) / 100.0)) as i64
            }
        };
        limit = Some(limit.map_or(proposed, |l| pick(l, proposed)));
    }
    limit.unwrap_or(i64::from(current))
}

/// The fewest replicas scaling down may reach now (`calculateScaleDownLimitWithBehaviors`):
/// per policy, its period's starting replicas less `value` pods or `value` percent (rounded
/// toward zero), the smallest of them (`Max`: the largest change) or the largest (`Min`);
/// `Disabled`: `current`. May be above `current` (the caller keeps `current` then).
pub fn scale_down_limit(current: u32, rules: &Rules, changed: impl Fn(u32) -> (i64, i64)) -> i64 {
    let pick: fn(i64, i64) -> i64 = match rules.select {
        Select::Disabled => return i64::from(current),
        Select::Min => i64::max,
        Select::Max => i64::min,
    };
    let mut limit: Option<i64> = None;
    for p in &rules.policies {
        let start = period_start(current, p.period, &changed);
        let proposed = match p.kind {
            RateKind::Pods => start - i64::from(p.value),
            RateKind::Percent => (start as f64 * (1.0 - f64::from(p.value) / 100.0)) as i64,
        };
        limit = Some(limit.map_or(proposed, |l| pick(l, proposed)));
    }
    limit.unwrap_or(i64::from(current))
}
