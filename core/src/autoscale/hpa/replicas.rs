//! The replica calculator: how many replicas one metric asks for (Kubernetes'
//! `pkg/controller/podautoscaler/replica_calculator.go`).
//!
//! Values are milli-units as Kubernetes' quantities are (`100m` CPU is 100); times are seconds
//! on any clock (the group's: round × sync period). A pod list is a slice of `(Pod, n)`: each
//! pod stands for `n` identical pods, so a group of thousands is a few entries. Every sum is
//! an integer sum, so no order of the pods changes a result; ratios, ceilings and tolerances
//! are the controller's `float64` operations, in its order, through `libm`.

/// A pod's phase as the calculator reads it: only Pending and Failed pods are set apart (a
/// Succeeded pod counts as a Running one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not yet running (being scheduled, pulling its image): never counted ready.
    Pending,
    /// Running (or Succeeded).
    Running,
    /// Failed: ignored.
    Failed,
}

/// A pod's `Ready` condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ready {
    /// Its status (`True`).
    pub ready: bool,
    /// Its `lastTransitionTime`, in seconds.
    pub since: i64,
}

/// A pod's latest metric sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The value, in milli-units (for a resource: the pod's usage).
    pub value: i64,
    /// When it was taken, in seconds.
    pub at: i64,
    /// The window it averages over, in seconds.
    pub window: i64,
}

/// One pod, as the controller lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pod {
    /// Its phase.
    pub phase: Phase,
    /// Whether it has a deletion timestamp (being deleted: ignored).
    pub deleting: bool,
    /// Its `startTime`, in seconds; `None`: not set.
    pub started: Option<i64>,
    /// Its `Ready` condition; `None`: it has none.
    pub ready: Option<Ready>,
    /// Its metric sample; `None`: the metrics API returned none for it.
    pub sample: Option<Sample>,
    /// Its request of the resource, in milli-units (the sum over its containers).
    pub request: i64,
}

/// How the controller counts a pod (its `groupPods`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Counted with its sample.
    Ready,
    /// Not yet ready (Pending, or for CPU: unready or sampled too early): left out, or
    /// counted at 0 when the others ask to scale up.
    Unready,
    /// Running without a sample: counted at the target (100 % of its request for a resource)
    /// when the others ask to scale down, at 0 when they ask to scale up.
    Missing,
    /// Failed or being deleted: left out.
    Ignored,
}

/// The controller's readiness settings for CPU, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Readiness {
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`: within it of its start, a
    /// pod counts only once ready and sampled a whole window after it became ready.
    pub cpu_initialization_period: i64,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`: after the period, an unready
    /// pod whose readiness last changed within this delay of its start is taken as not yet
    /// ready (it has never been ready); one that changed later is counted.
    pub initial_readiness_delay: i64,
}

impl Default for Readiness {
    /// Kubernetes' defaults: five minutes and 30 seconds.
    fn default() -> Self {
        Self {
            cpu_initialization_period: 300,
            initial_readiness_delay: 30,
        }
    }
}

/// The usage ratios within which the controller keeps the current count (its tolerances).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerances {
    /// A ratio down to `1 − scale_down` keeps the count.
    pub scale_down: f64,
    /// A ratio up to `1 + scale_up` keeps the count.
    pub scale_up: f64,
}

impl Tolerances {
    /// Returns the same tolerance both ways (`--horizontal-pod-autoscaler-tolerance`).
    pub const fn both(t: f64) -> Self {
        Self {
            scale_down: t,
            scale_up: t,
        }
    }

    /// Returns whether `ratio` is within the tolerances (no change).
    pub fn within(&self, ratio: f64) -> bool {
        1.0 - self.scale_down <= ratio && ratio <= 1.0 + self.scale_up
    }
}

impl Default for Tolerances {
    /// Kubernetes' default: 0.1 both ways.
    fn default() -> Self {
        Self::both(0.1)
    }
}

/// Why the metric gave no replica count (the controller then leaves the count as it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Unavailable {
    /// No pod matches the selector.
    NoPods,
    /// No ready pod has a sample ("did not receive metrics for targeted pods").
    NoMetrics,
    /// The counted pods request nothing ("no metrics returned matched known pods").
    NoRequests,
}

/// What a metric of pods computed: the replica count and the current value it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recommendation {
    /// The replicas the metric asks for.
    pub replicas: u32,
    /// The current value: for a utilisation target, percent of the request; for a value
    /// target, the average sample (milli).
    pub current: i64,
    /// For a utilisation target, the ready pods' average raw usage (milli); else `current`.
    pub raw: i64,
}

/// Returns how the controller counts `pod` at time `now`; `cpu`: the metric is the CPU
/// resource (the only one whose readiness rules apply).
pub fn classify(pod: &Pod, now: i64, cpu: bool, readiness: &Readiness) -> Class {
    if pod.deleting || pod.phase == Phase::Failed {
        return Class::Ignored;
    }
    if pod.phase == Phase::Pending {
        return Class::Unready;
    }
    let Some(sample) = pod.sample else {
        return Class::Missing;
    };
    if !cpu {
        return Class::Ready;
    }
    let (Some(condition), Some(started)) = (pod.ready, pod.started) else {
        return Class::Unready;
    };
    let unready = if started.saturating_add(readiness.cpu_initialization_period) > now {
        // Within the initialisation period: ready, and sampled a whole window after that.
        !condition.ready || sample.at < condition.since.saturating_add(sample.window)
    } else {
        // After it: unready and never ready (its readiness last changed right after start).
        !condition.ready
            && started.saturating_add(readiness.initial_readiness_delay) > condition.since
    };
    if unready {
        Class::Unready
    } else {
        Class::Ready
    }
}

/// The pods of each class, summed (what the two passes of the calculator read).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    listed: u64,
    ready: u64,
    /// The ready pods' samples and requests.
    values: i64,
    requests: i64,
    unready: u64,
    unready_requests: i64,
    missing: u64,
    /// The missing pods' requests, and for a resource what they are counted at on a
    /// scale-down (each pod's request × fallback / 100, rounded down per pod).
    missing_requests: i64,
    missing_fallback: i64,
}

fn weighted(value: i64, n: u32) -> i64 {
    value.saturating_mul(i64::from(n))
}

fn tally(pods: &[(Pod, u32)], now: i64, cpu: bool, readiness: &Readiness, fallback: i64) -> Tally {
    let mut t = Tally::default();
    for (pod, n) in pods {
        let k = u64::from(*n);
        t.listed += k;
        match classify(pod, now, cpu, readiness) {
            Class::Ready => {
                t.ready += k;
                // A ready pod always has a sample.
                let value = pod.sample.map_or(0, |s| s.value);
                t.values = t.values.saturating_add(weighted(value, *n));
                t.requests = t.requests.saturating_add(weighted(pod.request, *n));
            }
            Class::Unready => {
                t.unready += k;
                t.unready_requests = t.unready_requests.saturating_add(weighted(pod.request, *n));
            }
            Class::Missing => {
                t.missing += k;
                t.missing_requests = t.missing_requests.saturating_add(weighted(pod.request, *n));
                let each = pod.request.saturating_mul(fallback) / 100;
                t.missing_fallback = t.missing_fallback.saturating_add(weighted(each, *n));
            }
            Class::Ignored => {}
        }
    }
    t
}

/// Returns `ceil(x)` as a replica count (0 below zero, saturating above `i32::MAX`, the
/// controller's `int32`).
pub(crate) fn ceil_replicas(x: f64) -> u32 {
    let c = libm::ceil(x);
    if c >= f64::from(i32::MAX) {
        i32::MAX as u32
    } else if c > 0.0 {
        c as u32
    } else {
        0
    }
}

fn count(n: u64) -> f64 {
    n as f64
}

/// The ratio of `current` to the target.
fn ratio(current: i64, target: i64) -> f64 {
    current as f64 / target as f64
}

/// The usage of the pods (`values` over `requests`), in whole percent.
fn utilization(values: i64, requests: i64) -> i64 {
    values.saturating_mul(100) / requests
}

/// The second pass of both calculators: the count once missing and unready pods are filled
/// in, or `current` where the controller keeps it.
fn second_pass(
    current: u32,
    first: f64,
    second: f64,
    counted: u64,
    tolerances: &Tolerances,
) -> u32 {
    // The change would be too small, or would reverse the direction.
    if tolerances.within(second) || (first < 1.0 && second > 1.0) || (first > 1.0 && second < 1.0) {
        return current;
    }
    let replicas = ceil_replicas(second * count(counted));
    // The number of pods counted would reverse the direction.
    if (second < 1.0 && replicas > current) || (second > 1.0 && replicas < current) {
        return current;
    }
    replicas
}

/// A resource metric with a utilisation target: `target` percent of the pods' requests
/// (the controller's `GetResourceReplicas`). `cpu`: the resource is CPU, so the readiness
/// rules apply.
pub fn resource_utilization(
    current: u32,
    pods: &[(Pod, u32)],
    target: u32,
    tolerances: &Tolerances,
    now: i64,
    cpu: bool,
    readiness: &Readiness,
) -> Result<Recommendation, Unavailable> {
    let target = i64::from(target);
    // On a scale-down a missing pod counts at 100 % of its request, or at the target when
    // that is higher.
    let t = tally(pods, now, cpu, readiness, target.max(100));
    if t.listed == 0 {
        return Err(Unavailable::NoPods);
    }
    if t.ready == 0 {
        return Err(Unavailable::NoMetrics);
    }
    if t.requests == 0 {
        return Err(Unavailable::NoRequests);
    }
    let used = utilization(t.values, t.requests);
    let first = ratio(used, target);
    let found = Recommendation {
        replicas: current,
        current: used,
        raw: t.values / t.ready as i64,
    };
    let scale_up_with_unready = t.unready > 0 && first > 1.0;
    if !scale_up_with_unready && t.missing == 0 {
        if tolerances.within(first) {
            return Ok(found);
        }
        return Ok(Recommendation {
            replicas: ceil_replicas(first * count(t.ready)),
            ..found
        });
    }
    let (mut values, mut requests, mut counted) = (t.values, t.requests, t.ready);
    if t.missing > 0 && first != 1.0 {
        if first < 1.0 {
            values = values.saturating_add(t.missing_fallback);
        }
        requests = requests.saturating_add(t.missing_requests);
        counted += t.missing;
    }
    if scale_up_with_unready {
        requests = requests.saturating_add(t.unready_requests);
        counted += t.unready;
    }
    let second = ratio(utilization(values, requests), target);
    Ok(Recommendation {
        replicas: second_pass(current, first, second, counted, tolerances),
        ..found
    })
}

/// A metric of the pods with an average-value target of `target` milli-units: a Pods
/// metric (`cpu` false: `GetMetricReplicas`) or a resource's raw value (`cpu` for CPU:
/// `GetRawResourceReplicas`); the controller's `calcPlainMetricReplicas`.
pub fn average_value(
    current: u32,
    pods: &[(Pod, u32)],
    target: i64,
    tolerances: &Tolerances,
    now: i64,
    cpu: bool,
    readiness: &Readiness,
) -> Result<Recommendation, Unavailable> {
    let t = tally(pods, now, cpu, readiness, 0);
    if t.listed == 0 {
        return Err(Unavailable::NoPods);
    }
    if t.ready == 0 {
        return Err(Unavailable::NoMetrics);
    }
    let usage = t.values / t.ready as i64;
    let first = ratio(usage, target);
    let found = Recommendation {
        replicas: current,
        current: usage,
        raw: usage,
    };
    let scale_up_with_unready = t.unready > 0 && first > 1.0;
    if !scale_up_with_unready && t.missing == 0 {
        if tolerances.within(first) {
            return Ok(found);
        }
        return Ok(Recommendation {
            replicas: ceil_replicas(first * count(t.ready)),
            ..found
        });
    }
    let (mut values, mut counted) = (t.values, t.ready);
    if t.missing > 0 && first != 1.0 {
        if first < 1.0 {
            // On a scale-down a missing pod counts at exactly the target.
            values = values.saturating_add(target.saturating_mul(t.missing as i64));
        }
        counted += t.missing;
    }
    if scale_up_with_unready {
        counted += t.unready;
    }
    let second = ratio(values / counted as i64, target);
    Ok(Recommendation {
        replicas: second_pass(current, first, second, counted, tolerances),
        ..found
    })
}

/// Returns the pods that are Running and ready (what an Object or External metric with a
/// value target multiplies by), or [`Unavailable::NoPods`] when none is listed.
pub fn ready_pods(pods: &[(Pod, u32)]) -> Result<u64, Unavailable> {
    if pods.iter().all(|(_, n)| *n == 0) {
        return Err(Unavailable::NoPods);
    }
    Ok(pods
        .iter()
        .filter(|(p, _)| p.phase == Phase::Running && p.ready.is_some_and(|r| r.ready))
        .map(|(_, n)| u64::from(*n))
        .sum())
}

/// One value for the whole target (an Object metric, or the sum of an External metric's
/// series) with a value target (`getUsageRatioReplicaCount`): the ratio times the ready pods,
/// or with no replicas at all, the ratio alone (scaling from zero).
pub fn total_value(
    current: u32,
    usage: i64,
    target: i64,
    tolerances: &Tolerances,
    pods: &[(Pod, u32)],
) -> Result<u32, Unavailable> {
    let r = ratio(usage, target);
    if current == 0 {
        return Ok(ceil_replicas(r));
    }
    if tolerances.within(r) {
        return Ok(current);
    }
    Ok(ceil_replicas(r * count(ready_pods(pods)?)))
}

/// One value for the whole target with an average-value target of `target` per replica
/// (`GetObjectPerPodMetricReplicas`, `GetExternalPerPodMetricReplicas`): `ceil(usage /
/// target)` unless within the tolerances of `replicas` (the target's status replicas).
/// Also returns the value per replica (`ceil(usage / replicas)`; 0 with no replicas).
pub fn total_average_value(
    replicas: u32,
    usage: i64,
    target: i64,
    tolerances: &Tolerances,
) -> (u32, i64) {
    let r = usage as f64 / (target as f64 * f64::from(replicas));
    let count = if tolerances.within(r) {
        replicas
    } else {
        ceil_replicas(ratio(usage, target))
    };
    let per_replica = if replicas == 0 {
        0
    } else {
        libm::ceil(usage as f64 / f64::from(replicas)) as i64
    };
    (count, per_replica)
}
