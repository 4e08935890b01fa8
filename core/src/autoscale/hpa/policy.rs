//! The HPA as the group's scaling policy ([`HpaPolicy`]): one controller sync a round, over
//! the group's instances as the controller would list them as pods.
//!
//! **Time.** A round is one sync period ([`Hpa::sync_period`], 15 seconds by default, as
//! `--horizontal-pod-autoscaler-sync-period`): the sync of round `t` runs at `t × period`
//! seconds, in the round's decision (after its health check), so every window, policy
//! period, initialization period and readiness delay is compared in seconds, exactly as
//! the controller compares them with syncs that far apart.
//!
//! **Replicas as pods.** The target's `spec.replicas` is what the group holds or has asked
//! for (serving, on their way, in flight). Each instance is listed as a pod:
//! - asked for, not yet in the group (an apply delay): Pending;
//! - on its way into service (Pending, Pending:Wait, Restarting): Running, not ready since
//!   its start (the round of its launch decision); its CPU sample reads 0 (capsim models no
//!   start-up load), and it has no sample of a Pods metric (the application serves nothing
//!   yet);
//! - serving (InService, Protected): Running and ready, sampled at the sync: its share of
//!   the round's demand (the demand spread over the serving replicas that are not broken),
//!   a window of 0 (the sample is the round's load);
//! - serving but broken (the lesson's permanent failure): Running, not ready, no sample
//!   (its container is down);
//! - Removing:Wait: being deleted (ignored); Standby, Stopped and Preempted instances are not
//!   the target's pods.
//!
//! A replica requests its capacity; values are milli-requests per round. What the sync
//! decided is kept for the round's trace ([`HpaRound`]).

use crate::error::{ensure, ensure_within, Accepted, Error};

use super::super::policy::{InstanceView, ScalingPolicy, Signal};
use super::super::state::State;
use super::behavior::{Behavior, Rules, MAX_PERIOD, MAX_RATE_POLICIES, MAX_STABILIZATION_WINDOW};
use super::controller::{History, HpaRound, Spec, MAX_HISTORY};
use super::replicas::{
    average_value, classify, resource_utilization, total_average_value, total_value, Class, Phase,
    Pod, Readiness, Ready, Sample, Tolerances, Unavailable,
};

/// The metric and its target (`spec.metrics[0]`); values are milli-units of requests per
/// round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Target {
    /// `Resource` cpu, `Utilization`: percent of a replica's request (its capacity).
    CpuUtilization(u32),
    /// `Resource` cpu, `AverageValue`: a replica's usage, in milli-requests.
    CpuAverageValue(u64),
    /// `Pods` metric (the requests a replica serves), `AverageValue`, milli-requests.
    PodsAverageValue(u64),
    /// `External` metric (the round's demand), `Value`: the whole demand, milli-requests.
    ExternalValue(u64),
    /// `External` metric, `AverageValue`: the demand per replica, milli-requests.
    ExternalAverageValue(u64),
}

impl Target {
    /// Returns the metric as Kubernetes names its source (`Resource`, `Pods`, `External`).
    pub const fn source(self) -> &'static str {
        match self {
            Target::CpuUtilization(_) | Target::CpuAverageValue(_) => "Resource",
            Target::PodsAverageValue(_) => "Pods",
            Target::ExternalValue(_) | Target::ExternalAverageValue(_) => "External",
        }
    }

    /// Returns whether the metric is External (the only kind that scales to zero).
    pub const fn external(self) -> bool {
        matches!(
            self,
            Target::ExternalValue(_) | Target::ExternalAverageValue(_)
        )
    }

    /// Returns whether the CPU readiness rules apply (a CPU resource metric).
    pub const fn cpu(self) -> bool {
        matches!(self, Target::CpuUtilization(_) | Target::CpuAverageValue(_))
    }
}

/// The largest average or total value a target takes, in milli-requests (10^12: a billion
/// requests).
pub const MAX_TARGET_VALUE: u64 = 1_000_000_000_000;

/// The largest tolerance, in thousandths (100).
pub const MAX_TOLERANCE: u32 = 100_000;

/// The longest sync period, in seconds (an hour).
pub const MAX_SYNC_PERIOD: u32 = 3600;

/// The longest CPU initialization period and initial readiness delay, in seconds (a day).
pub const MAX_READINESS_SECONDS: u32 = 86_400;

/// The syncs a stabilization window or a policy period may span: what a [`History`]
/// remembers, less the sync that stores and one it reuses.
pub const MAX_SYNCS_REMEMBERED: u32 = MAX_HISTORY as u32 - 2;

/// A Kubernetes Horizontal Pod Autoscaler and its controller's settings; [`Default`] is
/// Kubernetes' defaults (CPU at 80 %, tolerance 0.1, syncs every 15 seconds, a 300-second
/// CPU initialization period, a 30-second initial readiness delay, the default
/// `behavior`). `minReplicas` and `maxReplicas` are the group's `min_instances` (1 when
/// not given, Kubernetes' default) and `max_instances` (`i32::MAX` when not given: no bound
/// but the group's storage, which stops a run that outgrows it).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Hpa {
    /// The metric and its target.
    pub target: Target,
    /// The scale-up tolerance, in thousandths (`--horizontal-pod-autoscaler-tolerance`, or
    /// `behavior.scaleUp.tolerance`), 0 to [`MAX_TOLERANCE`].
    pub scale_up_tolerance: u32,
    /// The scale-down tolerance, in thousandths.
    pub scale_down_tolerance: u32,
    /// Seconds between syncs: one round. 1 to [`MAX_SYNC_PERIOD`].
    pub sync_period: u32,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`, seconds.
    pub cpu_initialization_period: u32,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`, seconds.
    pub initial_readiness_delay: u32,
    /// `behavior`.
    pub behavior: Behavior,
}

impl Default for Hpa {
    fn default() -> Self {
        Self {
            target: Target::CpuUtilization(80),
            scale_up_tolerance: 100,
            scale_down_tolerance: 100,
            sync_period: 15,
            cpu_initialization_period: 300,
            initial_readiness_delay: 30,
            behavior: Behavior::default(),
        }
    }
}

impl Hpa {
    /// Returns the tolerances as ratios.
    pub fn tolerances(&self) -> Tolerances {
        Tolerances {
            scale_up: f64::from(self.scale_up_tolerance) / 1000.0,
            scale_down: f64::from(self.scale_down_tolerance) / 1000.0,
        }
    }

    /// Returns the readiness settings.
    pub fn readiness(&self) -> Readiness {
        Readiness {
            cpu_initialization_period: i64::from(self.cpu_initialization_period),
            initial_readiness_delay: i64::from(self.initial_readiness_delay),
        }
    }

    /// Returns the first setting outside its accepted range: Kubernetes' API validation
    /// (a target above 0, windows to 3,600 seconds, 1 or more policies per direction of
    /// values ≥ 1 and periods of 1 to 1,800 seconds), capsim's bounds (the constants above),
    /// and every window and period within [`MAX_SYNCS_REMEMBERED`] syncs.
    pub fn validate(&self) -> Result<(), Error> {
        let value_ok = |v: u64| (1..=MAX_TARGET_VALUE).contains(&v);
        let target_ok = match self.target {
            Target::CpuUtilization(p) => p >= 1 && p <= i32::MAX as u32,
            Target::CpuAverageValue(v)
            | Target::PodsAverageValue(v)
            | Target::ExternalValue(v)
            | Target::ExternalAverageValue(v) => value_ok(v),
        };
        ensure(
            target_ok,
            "hpa-target",
            Accepted::Numbers {
                min: crate::error::Bound::Open(0.0),
                max: crate::error::Bound::Closed(MAX_TARGET_VALUE as f64 / 1000.0),
            },
        )?;
        let tolerance = Accepted::Numbers {
            min: crate::error::Bound::Closed(0.0),
            max: crate::error::Bound::Closed(f64::from(MAX_TOLERANCE) / 1000.0),
        };
        ensure(
            self.scale_up_tolerance <= MAX_TOLERANCE,
            "hpa-scale-up-tolerance",
            tolerance,
        )?;
        ensure(
            self.scale_down_tolerance <= MAX_TOLERANCE,
            "hpa-scale-down-tolerance",
            tolerance,
        )?;
        ensure_within(self.sync_period, 1, MAX_SYNC_PERIOD, "hpa-sync-period")?;
        ensure_within(
            self.cpu_initialization_period,
            0,
            MAX_READINESS_SECONDS,
            "hpa-cpu-initialization-period",
        )?;
        ensure_within(
            self.initial_readiness_delay,
            0,
            MAX_READINESS_SECONDS,
            "hpa-initial-readiness-delay",
        )?;
        let remembered = MAX_SYNCS_REMEMBERED.saturating_mul(self.sync_period);
        for (rules, window, policies) in [
            (
                &self.behavior.scale_up,
                "hpa-scale-up-stabilization",
                "hpa-scale-up-policies",
            ),
            (
                &self.behavior.scale_down,
                "hpa-scale-down-stabilization",
                "hpa-scale-down-policies",
            ),
        ] {
            let longest = MAX_STABILIZATION_WINDOW.min(remembered);
            ensure(
                rules.stabilization_window <= longest,
                window,
                Accepted::Syncs { max: longest },
            )?;
            ensure(
                policies_ok(rules, MAX_PERIOD.min(remembered)),
                policies,
                Accepted::RatePolicies {
                    max: MAX_RATE_POLICIES as u32,
                    max_period: MAX_PERIOD.min(remembered),
                },
            )?;
        }
        Ok(())
    }
}

fn policies_ok(rules: &Rules, max_period: u32) -> bool {
    !rules.policies.is_empty()
        && rules.policies.iter().all(|p| {
            p.value >= 1 && p.value <= i32::MAX as u32 && (1..=max_period).contains(&p.period)
        })
}

/// The pods of one sync, by class (the instances' pods; launches in flight are added as
/// Pending at the decision).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Census {
    /// Serving pods counted with their samples (each the demand's share).
    serving: u32,
    /// Booting pods counted with their CPU samples (0): only past the initialization
    /// period with no initial readiness delay.
    booting_ready: u32,
    unready: u32,
    missing: u32,
}

/// Kubernetes' Horizontal Pod Autoscaler driving the group: one sync a round (see the module
/// doc for how instances read as pods).
#[derive(Clone, Debug)]
pub struct HpaPolicy<'a> {
    hpa: &'a Hpa,
    min: u32,
    max: Option<u32>,
    /// A replica's request, milli-requests.
    request: i64,
    history: History,
    census: Census,
    last: Option<HpaRound>,
}

/// Returns `x` rounded to the nearest integer as milli-units (negative to 0, saturating).
fn milli(x: f64) -> i64 {
    let m = libm::round(x * 1000.0);
    if m >= i64::MAX as f64 {
        i64::MAX
    } else if m > 0.0 {
        m as i64
    } else {
        0
    }
}

/// Long before any sync (Go's zero time).
const LONG_AGO: i64 = i64::MIN / 4;

/// Returns the pod instance `o` reads as at `now` (`None`: not a pod of the target), for a
/// sync period of `period` seconds; `cpu`: the metric is CPU.
fn pod_of(o: &InstanceView, now: i64, period: u32, cpu: bool, request: i64) -> Option<Pod> {
    let started = i64::from(o.since) * i64::from(period);
    let running = |ready, value: Option<i64>| Pod {
        phase: Phase::Running,
        deleting: false,
        started: Some(started),
        ready: Some(Ready {
            ready,
            since: started,
        }),
        sample: value.map(|value| Sample {
            value,
            at: now,
            window: 0,
        }),
        request,
    };
    match o.state {
        // Only a CPU sample exists before the replica serves, and it reads 0.
        s if s.launching() => Some(running(false, cpu.then_some(0))),
        // The serving pods' samples are the share, filled in at the decision.
        s if s.serves() && !o.broken => Some(running(true, Some(0))),
        s if s.serves() => Some(running(false, None)),
        State::Removing | State::RemovingWait => Some(Pod {
            deleting: true,
            ..running(false, None)
        }),
        _ => None,
    }
}

/// The sync's pods as four entries of identical pods (each class of the census: the
/// calculator counts them as the census did), with the launches in flight as Pending.
fn pods(c: &Census, in_flight: u32, share: i64, request: i64, now: i64) -> [(Pod, u32); 4] {
    let ready = |value| Pod {
        phase: Phase::Running,
        deleting: false,
        started: Some(LONG_AGO),
        ready: Some(Ready {
            ready: true,
            since: LONG_AGO,
        }),
        sample: Some(Sample {
            value,
            at: now,
            window: 0,
        }),
        request,
    };
    let missing = Pod {
        sample: None,
        ..ready(0)
    };
    let pending = Pod {
        phase: Phase::Pending,
        ..missing
    };
    [
        (ready(share), c.serving),
        // Counted only under the CPU rules: External metrics never see one.
        (ready(0), c.booting_ready),
        (pending, c.unready.saturating_add(in_flight)),
        (missing, c.missing),
    ]
}

/// The metric's recommendation for `current` replicas in round `s` at `now`, and the
/// metric's current value.
fn recommend(
    hpa: &Hpa,
    c: &Census,
    request: i64,
    s: &Signal,
    current: u32,
    now: i64,
) -> (Result<u32, Unavailable>, Option<i64>) {
    let tol = hpa.tolerances();
    let readiness = hpa.readiness();
    let share = if c.serving > 0 {
        milli(s.demand / f64::from(c.serving))
    } else {
        0
    };
    let pods = pods(c, s.in_flight, share, request, now);
    // The value in thousandths: a utilisation's percent scaled, a value's milli as read.
    let read = |r: Result<super::replicas::Recommendation, Unavailable>, scale: i64| match r {
        Ok(r) => (Ok(r.replicas), Some(r.current.saturating_mul(scale))),
        Err(e) => (Err(e), None),
    };
    let total = milli(s.demand);
    let value = |v: u64| v.min(i64::MAX as u64) as i64;
    match hpa.target {
        Target::CpuUtilization(p) => read(
            resource_utilization(current, &pods, p, &tol, now, true, &readiness),
            1000,
        ),
        Target::CpuAverageValue(v) => read(
            average_value(current, &pods, value(v), &tol, now, true, &readiness),
            1,
        ),
        Target::PodsAverageValue(v) => read(
            average_value(current, &pods, value(v), &tol, now, false, &readiness),
            1,
        ),
        Target::ExternalValue(v) => (
            total_value(current, total, value(v), &tol, &pods),
            Some(total),
        ),
        Target::ExternalAverageValue(v) => {
            let (r, per) = total_average_value(current, total, value(v), &tol);
            (Ok(r), Some(per))
        }
    }
}

impl<'a> HpaPolicy<'a> {
    /// Returns the policy for `hpa` on a group whose replicas serve `capacity` requests, with
    /// the group's bounds `min` (1 when `None`) and `max` (`i32::MAX`, Kubernetes' largest
    /// `maxReplicas`, when `None`).
    pub fn new(hpa: &'a Hpa, capacity: f64, min: Option<u32>, max: Option<u32>) -> Self {
        Self {
            hpa,
            min: min.unwrap_or(1),
            max,
            request: milli(capacity),
            history: History::new(),
            census: Census::default(),
            last: None,
        }
    }

    /// The sync's time: round × sync period, in seconds.
    fn now(&self, round: u32) -> i64 {
        i64::from(round) * i64::from(self.hpa.sync_period)
    }
}

impl ScalingPolicy for HpaPolicy<'_> {
    fn decide(&mut self, s: &Signal) -> i64 {
        let now = self.now(s.round);
        let held = u64::from(s.counts.serving())
            + u64::from(s.counts.launching())
            + u64::from(s.in_flight);
        let current = held.min(u64::from(u32::MAX)) as u32;
        let spec = Spec {
            min: self.min,
            max: self.max.unwrap_or(i32::MAX as u32),
            behavior: &self.hpa.behavior,
        };
        let (hpa, census, request) = (self.hpa, self.census, self.request);
        let mut metric = None;
        let sync = self.history.sync(now, current, &spec, || {
            let (r, m) = recommend(hpa, &census, request, s, current, now);
            metric = m;
            r
        });
        self.last = Some(HpaRound {
            ready: census.serving + census.booting_ready,
            unready: census.unready.saturating_add(s.in_flight),
            missing: census.missing,
            metric,
            sync,
        });
        i64::from(sync.desired) - i64::from(current)
    }

    fn reads_instances(&self) -> bool {
        true
    }

    fn instances(&mut self, round: u32, instances: &mut dyn Iterator<Item = InstanceView>) {
        let now = self.now(round);
        let (cpu, readiness) = (self.hpa.target.cpu(), self.hpa.readiness());
        let mut c = Census::default();
        for o in instances {
            let Some(pod) = pod_of(&o, now, self.hpa.sync_period, cpu, self.request) else {
                continue;
            };
            match classify(&pod, now, cpu, &readiness) {
                Class::Ready if o.state.serves() => c.serving += 1,
                Class::Ready => c.booting_ready += 1,
                Class::Unready => c.unready += 1,
                Class::Missing => c.missing += 1,
                Class::Ignored => {}
            }
        }
        self.census = c;
    }

    fn hpa_round(&self) -> Option<HpaRound> {
        self.last
    }
}

/// Fuzzing: settings near Kubernetes' defaults, each field sometimes any value (invalid ones
/// must be an `Err`): every target, tolerances to 2, syncs of 1 to 60 seconds, windows and
/// periods to ten minutes, 1 to 3 policies a direction and every `selectPolicy`.
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Hpa {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use super::behavior::{RateKind, RatePolicy, Select};
        use crate::fuzzing::u32_field;
        let k8s = Self::default();
        let value = |u: &mut arbitrary::Unstructured<'a>| -> arbitrary::Result<u64> {
            Ok(u64::from(u32_field(u, 80_000, 1..=500_000)?))
        };
        let target = match u.int_in_range(0u8..=4)? {
            0 => Target::CpuUtilization(u32_field(u, 80, 1..=200)?),
            1 => Target::CpuAverageValue(value(u)?),
            2 => Target::PodsAverageValue(value(u)?),
            3 => Target::ExternalValue(u64::from(u32_field(u, 900_000, 1..=5_000_000)?)),
            _ => Target::ExternalAverageValue(value(u)?),
        };
        let rules = |window: u32, u: &mut arbitrary::Unstructured<'a>| {
            let mut r = Rules {
                stabilization_window: u32_field(u, window, 0..=600)?,
                select: *u.choose(&[Select::Max, Select::Min, Select::Disabled])?,
                policies: Default::default(),
            };
            for _ in 0..u.int_in_range(1..=3)? {
                let kind = if u.arbitrary()? {
                    RateKind::Pods
                } else {
                    RateKind::Percent
                };
                let _ = r.policies.push(RatePolicy {
                    kind,
                    value: u32_field(u, 4, 1..=200)?,
                    period: u32_field(u, 15, 1..=600)?,
                }); // at most 3
            }
            Ok(r)
        };
        let behavior = if u.arbitrary()? {
            k8s.behavior.clone()
        } else {
            Behavior {
                scale_up: rules(0, u)?,
                scale_down: rules(300, u)?,
            }
        };
        Ok(Self {
            target,
            scale_up_tolerance: u32_field(u, 100, 0..=2000)?,
            scale_down_tolerance: u32_field(u, 100, 0..=2000)?,
            sync_period: u32_field(u, 15, 1..=60)?,
            cpu_initialization_period: u32_field(u, 300, 0..=600)?,
            initial_readiness_delay: u32_field(u, 30, 0..=120)?,
            behavior,
        })
    }
}
