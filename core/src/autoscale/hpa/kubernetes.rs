//! Kubernetes' own expectations, ported as facts (inputs and expected replica counts, not
//! code) from `pkg/controller/podautoscaler` (kubernetes/kubernetes, the v1.33-era files:
//! `replica_calculator_test.go` with the configurable tolerances, `horizontal_test.go` with
//! `TestScalingWithRules` and `TestNormalizeDesiredReplicasWithBehavior`). Each case carries
//! its original's name: the Go test function, or `Function/entry` for an entry of a table.
//!
//! How the originals' fixtures read here:
//! - **Times** are seconds with now = 0. A time a test leaves unset (Go's zero time: a pod's
//!   start, a condition's transition, a sample's timestamp) is [`ZERO`], long before;
//!   `hotCPUCreationTime()` is now, `coolCPUCreationTime()` three minutes ago.
//! - **The calculator's settings** are the tests': tolerance 0.1, CPU initialization period
//!   2 minutes, initial readiness delay 10 seconds; a sample's window is one minute.
//! - **Pods** of `replica_calculator_test.go` have two containers, each requesting the
//!   listed quantity and using the listed level (`makePodMetricLevels`): a pod requests and
//!   uses twice the listed milli-values, or the named container's alone when the test names
//!   one (the metrics client picks the container; the calculator sees the pod's value). A pod
//!   whose levels are not listed has no sample. `horizontal_test.go` splits a pod's request
//!   and level over its two containers (`level/2` each).
//! - **Scale events** of `generateEventsUniformDistribution(events, 120)` sit at the middles
//!   of equal slices of the last 120 seconds, oldest first.
//!
//! Not expressible, and why (counted in `not_expressible_cases_are_listed`):
//! - `TestReplicaCalcDisjointResourcesMetrics`, `TestReplicaCalcSuperfluousMetrics`: samples
//!   for pods the pod list does not hold; capsim samples its own replicas only.
//! - `TestReplicaCalcEmptyCPURequest` and the five entries of `TestCalculatePodRequests`:
//!   containers without requests, init containers; every capsim replica requests its
//!   capacity.
//! - `TestNormalizeDesiredReplicas` (5 entries), `TestConvertDesiredReplicasWithRules`
//!   (5 entries): the controller's legacy path for an HPA without `behavior` (scale-up
//!   capped at max(2 × current, 4), a fixed downscale window); capsim always applies a
//!   behavior, Kubernetes' documented defaults when none is given.
//! - What `TestStoreScaleEvents` and `TestNormalizeDesiredReplicasWithBehavior` check of
//!   the stored lists (which slot an event or recommendation takes, the `outdated` flags):
//!   storage layout. Their counts per period and stabilized replicas are ported.
//! - The controller tests of `horizontal_test.go` that check conditions, events, status
//!   writes, selectors, metric-API errors and monitor labels: API machinery, no replica
//!   count. Thirteen of its controller tests that end in a count are ported (fourteen runs) (`controller`).

extern crate std;

use std::vec::Vec;

use super::behavior::Behavior;
use super::behavior::{RateKind, RatePolicy, Rules, Select};
use super::controller::{History, Limit, Spec};
use super::replicas::{
    average_value, classify, resource_utilization, total_average_value, total_value, Class, Phase,
    Pod, Readiness, Ready, Recommendation, Sample, Tolerances, Unavailable,
};

/// Go's zero time, long before now.
const ZERO: i64 = i64::MIN / 4;
/// `hotCPUCreationTime()`: now.
const HOT: i64 = 0;
/// `coolCPUCreationTime()`: three minutes ago.
const COOL: i64 = -180;
/// `defaultTestingCPUInitializationPeriod` and `defaultTestingDelayOfInitialReadinessStatus`.
const TESTING: Readiness = Readiness {
    cpu_initialization_period: 120,
    initial_readiness_delay: 10,
};
const TOLERANCE: Tolerances = Tolerances::both(0.1);

/// The metric of a `replica_calculator_test.go` case.
#[derive(Clone, Copy, Debug)]
enum Metric {
    /// CPU, a utilisation target (`GetResourceReplicas`): expected utilisation and raw value.
    Utilization { target: u32, used: i64, raw: i64 },
    /// A Pods metric's average value (`GetMetricReplicas`): expected average.
    Pods { target: i64, usage: i64 },
    /// An Object metric, value target (`GetObjectMetricReplicas`).
    Object { target: i64 },
    /// An External metric (summed), value target (`GetExternalMetricReplicas`).
    External { target: i64 },
    /// An Object or External metric with an average-value target: expected value per
    /// replica.
    PerPod { target: i64, usage: i64 },
}

/// A `replica_calculator_test.go` case: its pods as the test's fixture builds them.
#[derive(Clone, Copy, Debug)]
struct Calc {
    name: &'static str,
    current: u32,
    /// `Err(())`: the original expects an error (no count).
    expected: Result<u32, ()>,
    metric: Metric,
    /// Per pod, milli (already both containers' or the named one's).
    requests: &'static [i64],
    levels: &'static [i64],
    readiness: &'static [bool],
    start: &'static [i64],
    phase: &'static [Phase],
    deleting: &'static [bool],
    tolerances: Tolerances,
}

const CALC: Calc = Calc {
    name: "",
    current: 0,
    expected: Err(()),
    metric: Metric::Object { target: 1 },
    requests: &[],
    levels: &[],
    readiness: &[],
    start: &[],
    phase: &[],
    deleting: &[],
    tolerances: TOLERANCE,
};

const fn cpu(target: u32, used: i64, raw: i64) -> Metric {
    Metric::Utilization { target, used, raw }
}

const R: Phase = Phase::Running;
const P: Phase = Phase::Pending;
const F: Phase = Phase::Failed;

impl Calc {
    /// The pods the test's fake clients list: `max(current, len(podPhase))` of them.
    fn pods(&self) -> Vec<(Pod, u32)> {
        let n = (self.current as usize).max(self.phase.len());
        (0..n)
            .map(|i| {
                let pod = Pod {
                    phase: self.phase.get(i).copied().unwrap_or(Phase::Running),
                    deleting: self.deleting.get(i).copied().unwrap_or(false),
                    started: Some(self.start.get(i).copied().unwrap_or(ZERO)),
                    ready: Some(Ready {
                        ready: self.readiness.get(i).copied().unwrap_or(true),
                        since: ZERO,
                    }),
                    sample: self.levels.get(i).map(|&value| Sample {
                        value,
                        at: ZERO,
                        window: 60,
                    }),
                    request: self.requests.get(i).copied().unwrap_or(0),
                };
                (pod, 1)
            })
            .collect()
    }

    fn run(&self) {
        let pods = self.pods();
        let tol = &self.tolerances;
        let got: Result<(u32, Option<(i64, i64)>), Unavailable> = match self.metric {
            Metric::Utilization { target, .. } => {
                resource_utilization(self.current, &pods, target, tol, 0, true, &TESTING)
                    .map(|r: Recommendation| (r.replicas, Some((r.current, r.raw))))
            }
            Metric::Pods { target, .. } => {
                average_value(self.current, &pods, target, tol, 0, false, &TESTING)
                    .map(|r| (r.replicas, Some((r.current, r.current))))
            }
            Metric::Object { target } => {
                total_value(self.current, self.levels[0], target, tol, &pods).map(|r| (r, None))
            }
            Metric::External { target } => {
                let sum = self.levels.iter().sum();
                total_value(self.current, sum, target, tol, &pods).map(|r| (r, None))
            }
            Metric::PerPod { target, .. } => {
                let sum = self.levels.iter().sum();
                let (r, per) = total_average_value(self.current, sum, target, tol);
                Ok((r, Some((per, per))))
            }
        };
        match (self.expected, got) {
            (Err(()), Err(_)) => {}
            (Ok(want), Ok((replicas, read))) => {
                assert_eq!(replicas, want, "{}: replicas", self.name);
                let expected_read = match self.metric {
                    Metric::Utilization { used, raw, .. } => Some((used, raw)),
                    Metric::Pods { usage, .. } | Metric::PerPod { usage, .. } => {
                        Some((usage, usage))
                    }
                    _ => None,
                };
                assert_eq!(read, expected_read, "{}: current value", self.name);
            }
            (want, got) => panic!("{}: expected {want:?}, got {got:?}", self.name),
        }
    }
}

/// `replica_calculator_test.go`, every case a count or an error can express.
const CALCULATOR: &[Calc] = &[
    Calc {
        name: "TestReplicaCalcScaleUp",
        current: 3,
        expected: Ok(5),
        metric: cpu(30, 50, 1000),
        requests: &[2000, 2000, 2000],
        levels: &[600, 1000, 1400],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcContainerScaleUp",
        current: 3,
        expected: Ok(5),
        metric: cpu(30, 50, 500),
        requests: &[1000, 1000, 1000],
        levels: &[300, 500, 700],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpUnreadyLessScale",
        current: 3,
        expected: Ok(4),
        metric: cpu(30, 60, 1200),
        requests: &[2000, 2000, 2000],
        levels: &[600, 1000, 1400],
        readiness: &[false, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpContainerHotCpuLessScale",
        current: 3,
        expected: Ok(4),
        metric: cpu(30, 60, 600),
        requests: &[1000, 1000, 1000],
        levels: &[300, 500, 700],
        start: &[HOT, COOL, COOL],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpHotCpuLessScale",
        current: 3,
        expected: Ok(4),
        metric: cpu(30, 60, 1200),
        requests: &[2000, 2000, 2000],
        levels: &[600, 1000, 1400],
        start: &[HOT, COOL, COOL],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpUnreadyNoScale",
        current: 3,
        expected: Ok(3),
        metric: cpu(30, 40, 800),
        requests: &[2000, 2000, 2000],
        levels: &[800, 1000, 1400],
        readiness: &[true, false, false],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleHotCpuNoScale",
        current: 3,
        expected: Ok(3),
        metric: cpu(30, 40, 800),
        requests: &[2000, 2000, 2000],
        levels: &[800, 1000, 1400],
        readiness: &[true, false, false],
        start: &[COOL, HOT, HOT],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpIgnoresFailedPods",
        current: 2,
        expected: Ok(4),
        metric: cpu(30, 60, 1200),
        requests: &[2000, 2000, 2000, 2000],
        levels: &[1000, 1400],
        readiness: &[true, true, false, false],
        phase: &[R, R, F, F],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingContainerMetricScaleUpIgnoresFailedPods",
        current: 2,
        expected: Ok(4),
        metric: cpu(30, 60, 600),
        requests: &[1000, 1000, 1000, 1000],
        // The failed pods report container1 only: no container2 sample.
        levels: &[500, 700],
        readiness: &[true, true, false, false],
        phase: &[R, R, F, F],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpContainerIgnoresFailedPods",
        current: 2,
        expected: Ok(4),
        metric: cpu(30, 60, 600),
        requests: &[1000, 1000, 1000, 1000],
        levels: &[500, 700],
        readiness: &[true, true, false, false],
        phase: &[R, R, F, F],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpIgnoresDeletionPods",
        current: 2,
        expected: Ok(4),
        metric: cpu(30, 60, 1200),
        requests: &[2000, 2000, 2000, 2000],
        levels: &[1000, 1400],
        readiness: &[true, true, false, false],
        phase: &[R, R, R, R],
        deleting: &[false, false, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpContainerIgnoresDeletionPods",
        current: 2,
        expected: Ok(4),
        metric: cpu(30, 60, 600),
        requests: &[1000, 1000, 1000, 1000],
        levels: &[500, 700],
        readiness: &[true, true, false, false],
        phase: &[R, R, R, R],
        deleting: &[false, false, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpCM",
        current: 3,
        expected: Ok(4),
        metric: Metric::Pods {
            target: 15000,
            usage: 20000,
        },
        levels: &[20000, 10000, 30000],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpCMUnreadyHotCpuNoLessScale",
        current: 3,
        expected: Ok(6),
        metric: Metric::Pods {
            target: 15000,
            usage: 30000,
        },
        levels: &[50000, 10000, 30000],
        readiness: &[true, true, false],
        start: &[COOL, COOL, HOT],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpCMUnreadyHotCpuScaleWouldScaleDown",
        current: 3,
        expected: Ok(7),
        metric: Metric::Pods {
            target: 15000,
            usage: 31666,
        },
        levels: &[50000, 15000, 30000],
        readiness: &[false, true, false],
        start: &[HOT, COOL, HOT],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpCMObject",
        current: 3,
        expected: Ok(4),
        metric: Metric::Object { target: 15000 },
        levels: &[20000],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpCMPerPodObject",
        current: 3,
        expected: Ok(4),
        metric: Metric::PerPod {
            target: 5000,
            usage: 6667,
        },
        levels: &[20000],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpCMObjectIgnoresUnreadyPods",
        current: 3,
        expected: Ok(5),
        metric: Metric::Object { target: 10000 },
        levels: &[50000],
        readiness: &[false, true, false],
        ..CALC
    },
    Calc {
        // Its metric type is podMetric: one pod's sample.
        name: "TestReplicaCalcScaleUpCMExternal",
        current: 1,
        expected: Ok(2),
        metric: Metric::Pods {
            target: 4400,
            usage: 8600,
        },
        levels: &[8600],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpCMExternalIgnoresUnreadyPods",
        current: 3,
        expected: Ok(2),
        metric: Metric::External { target: 4400 },
        levels: &[8600],
        readiness: &[false, true, false],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpCMExternalNoLabels",
        current: 1,
        expected: Ok(2),
        metric: Metric::Pods {
            target: 4400,
            usage: 8600,
        },
        levels: &[8600],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleUpPerPodCMExternal",
        current: 3,
        expected: Ok(4),
        metric: Metric::PerPod {
            target: 2150,
            usage: 2867,
        },
        levels: &[8600],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDown",
        current: 5,
        expected: Ok(3),
        metric: cpu(50, 28, 560),
        requests: &[2000; 5],
        levels: &[200, 600, 1000, 500, 500],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcContainerScaleDown",
        current: 5,
        expected: Ok(3),
        metric: cpu(50, 28, 280),
        requests: &[1000; 5],
        levels: &[100, 300, 500, 250, 250],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownCM",
        current: 5,
        expected: Ok(3),
        metric: Metric::Pods {
            target: 20000,
            usage: 12000,
        },
        levels: &[12000; 5],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownPerPodCMObject",
        current: 5,
        expected: Ok(3),
        metric: Metric::PerPod {
            target: 2000,
            usage: 1200,
        },
        levels: &[6000],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownCMObject",
        current: 5,
        expected: Ok(3),
        metric: Metric::Object { target: 20000 },
        levels: &[12000],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownCMExternal",
        current: 5,
        expected: Ok(3),
        metric: Metric::External { target: 14334 },
        levels: &[8600],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownPerPodCMExternal",
        current: 5,
        expected: Ok(3),
        metric: Metric::PerPod {
            target: 2867,
            usage: 1720,
        },
        levels: &[8600],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownExcludeUnreadyPods",
        current: 5,
        expected: Ok(2),
        metric: cpu(50, 30, 600),
        requests: &[2000; 5],
        levels: &[200, 600, 1000, 500, 500],
        readiness: &[true, true, true, false, false],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownContainerExcludeUnreadyPods",
        current: 5,
        expected: Ok(2),
        metric: cpu(50, 30, 300),
        requests: &[1000; 5],
        levels: &[100, 300, 500, 250, 250],
        readiness: &[true, true, true, false, false],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownExcludeUnscheduledPods",
        current: 5,
        expected: Ok(1),
        metric: cpu(50, 10, 200),
        requests: &[2000; 5],
        levels: &[200],
        readiness: &[true, false, false, false, false],
        phase: &[R, P, P, P, P],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownContainerExcludeUnscheduledPods",
        current: 5,
        expected: Ok(1),
        metric: cpu(50, 10, 100),
        requests: &[1000; 5],
        levels: &[100, 300, 500, 250, 250],
        readiness: &[true, false, false, false, false],
        phase: &[R, P, P, P, P],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownIgnoreHotCpuPods",
        current: 5,
        expected: Ok(2),
        metric: cpu(50, 30, 600),
        requests: &[2000; 5],
        levels: &[200, 600, 1000, 500, 500],
        start: &[COOL, COOL, COOL, HOT, HOT],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownContainerIgnoreHotCpuPods",
        current: 5,
        expected: Ok(2),
        metric: cpu(50, 30, 300),
        requests: &[1000; 5],
        levels: &[100, 300, 500, 1000, 1000],
        start: &[COOL, COOL, COOL, HOT, HOT],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownIgnoresFailedPods",
        current: 5,
        expected: Ok(3),
        metric: cpu(50, 28, 560),
        requests: &[2000; 7],
        levels: &[200, 600, 1000, 500, 500],
        readiness: &[true, true, true, true, true, false, false],
        phase: &[R, R, R, R, R, F, F],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownContainerIgnoresFailedPods",
        current: 5,
        expected: Ok(3),
        metric: cpu(50, 28, 280),
        requests: &[1000; 7],
        levels: &[100, 300, 500, 250, 250],
        readiness: &[true, true, true, true, true, false, false],
        phase: &[R, R, R, R, R, F, F],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownIgnoresDeletionPods",
        current: 5,
        expected: Ok(3),
        metric: cpu(50, 28, 560),
        requests: &[2000; 7],
        levels: &[200, 600, 1000, 500, 500],
        readiness: &[true, true, true, true, true, false, false],
        phase: &[R; 7],
        deleting: &[false, false, false, false, false, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcScaleDownIgnoresDeletionPods_StillRunning",
        current: 5,
        expected: Ok(3),
        metric: cpu(50, 28, 280),
        requests: &[1000; 7],
        levels: &[100, 300, 500, 250, 250],
        readiness: &[true, true, true, true, true, false, false],
        phase: &[R; 7],
        deleting: &[false, false, false, false, false, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcTolerance",
        current: 3,
        expected: Ok(3),
        metric: cpu(100, 102, 2040),
        requests: &[1800, 2000, 2200],
        levels: &[2020, 2060, 2040],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcToleranceCM",
        current: 3,
        expected: Ok(3),
        metric: Metric::Pods {
            target: 20000,
            usage: 20666,
        },
        levels: &[20000, 21000, 21000],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcToleranceCMObject",
        current: 3,
        expected: Ok(3),
        metric: Metric::Object { target: 20000 },
        levels: &[20666],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcTolerancePerPodCMObject",
        current: 4,
        expected: Ok(4),
        metric: Metric::PerPod {
            target: 5000,
            usage: 5042,
        },
        levels: &[20166],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcToleranceCMExternal",
        current: 3,
        expected: Ok(3),
        metric: Metric::External { target: 8888 },
        levels: &[8600],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcTolerancePerPodCMExternal",
        current: 3,
        expected: Ok(3),
        metric: Metric::PerPod {
            target: 2900,
            usage: 2867,
        },
        levels: &[8600],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableTolerance/Outside of a 0% tolerance",
        current: 3,
        expected: Ok(4),
        metric: cpu(100, 101, 2020),
        requests: &[1800, 2000, 2200],
        levels: &[1818, 2020, 2222],
        tolerances: Tolerances::both(0.0),
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableTolerance/Within a 200% scale-up tolerance",
        current: 3,
        expected: Ok(3),
        metric: cpu(100, 190, 3800),
        requests: &[1800, 2000, 2200],
        levels: &[3780, 3820, 3800],
        tolerances: Tolerances {
            scale_down: 0.1,
            scale_up: 2.0,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableTolerance/Outside 8% scale-up tolerance (and superfuous scale-down tolerance)",
        current: 3,
        expected: Ok(4),
        metric: cpu(100, 109, 2180),
        requests: &[1800, 2000, 2200],
        levels: &[2200, 2160, 2180],
        tolerances: Tolerances {
            scale_down: 2.0,
            scale_up: 0.08,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableTolerance/Within a 36% scale-down tolerance",
        current: 3,
        expected: Ok(3),
        metric: cpu(100, 65, 1300),
        requests: &[1800, 2000, 2200],
        levels: &[1320, 1280, 1300],
        tolerances: Tolerances {
            scale_down: 0.36,
            scale_up: 0.1,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableTolerance/Outside a 34% scale-down tolerance",
        current: 3,
        expected: Ok(2),
        metric: cpu(100, 65, 1300),
        requests: &[1800, 2000, 2200],
        levels: &[1320, 1280, 1300],
        tolerances: Tolerances {
            scale_down: 0.34,
            scale_up: 0.1,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableToleranceCM",
        current: 3,
        expected: Ok(4),
        metric: Metric::Pods {
            target: 20000,
            usage: 20666,
        },
        levels: &[20000, 21000, 21000],
        tolerances: Tolerances {
            scale_down: 0.1,
            scale_up: 0.01,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableToleranceCMObject",
        current: 3,
        expected: Ok(4),
        metric: Metric::Object { target: 20000 },
        levels: &[20666],
        tolerances: Tolerances {
            scale_down: 0.1,
            scale_up: 0.01,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableTolerancePerPodCMObject",
        current: 4,
        expected: Ok(5),
        metric: Metric::PerPod {
            target: 5000,
            usage: 5052,
        },
        levels: &[20208],
        tolerances: Tolerances {
            scale_down: 0.1,
            scale_up: 0.01,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableToleranceCMExternal",
        current: 3,
        expected: Ok(4),
        metric: Metric::External { target: 8800 },
        levels: &[8900],
        tolerances: Tolerances {
            scale_down: 0.1,
            scale_up: 0.01,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcConfigurableTolerancePerPodCMExternal",
        current: 3,
        expected: Ok(4),
        metric: Metric::PerPod {
            target: 2800,
            usage: 2867,
        },
        levels: &[8600],
        tolerances: Tolerances {
            scale_down: 0.1,
            scale_up: 0.01,
        },
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetrics",
        current: 4,
        expected: Ok(3),
        metric: cpu(100, 24, 495),
        requests: &[2000; 4],
        levels: &[800, 190],
        ..CALC
    },
    Calc {
        // The original's metrics client errs on the empty list; no count either way.
        name: "TestReplicaCalcEmptyMetrics",
        current: 4,
        expected: Err(()),
        metric: cpu(100, 0, 0),
        requests: &[2000; 4],
        ..CALC
    },
    Calc {
        name: "TestPlainMetricReplicaCalcMissingMetricsNoChangeEq",
        current: 5,
        expected: Ok(5),
        metric: Metric::Pods {
            target: 20000,
            usage: 20000,
        },
        levels: &[20000, 19000, 21000],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsNoChangeEq",
        current: 2,
        expected: Ok(2),
        metric: cpu(100, 100, 2000),
        requests: &[2000; 2],
        levels: &[2000],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsNoChangeGt",
        current: 2,
        expected: Ok(2),
        metric: cpu(100, 190, 3800),
        requests: &[2000; 2],
        levels: &[3800],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsNoChangeLt",
        current: 2,
        expected: Ok(2),
        metric: cpu(100, 60, 1200),
        requests: &[2000; 2],
        levels: &[1200],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsUnreadyChange",
        current: 3,
        expected: Ok(3),
        metric: cpu(50, 45, 900),
        requests: &[2000; 3],
        levels: &[200, 900],
        readiness: &[false, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsHotCpuNoChange",
        current: 3,
        expected: Ok(3),
        metric: cpu(50, 45, 900),
        requests: &[2000; 3],
        levels: &[200, 900],
        start: &[HOT, COOL, COOL],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsUnreadyScaleUp",
        current: 3,
        expected: Ok(4),
        metric: cpu(50, 200, 4000),
        requests: &[2000; 3],
        levels: &[200, 4000],
        readiness: &[false, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsHotCpuScaleUp",
        current: 3,
        expected: Ok(4),
        metric: cpu(50, 200, 4000),
        requests: &[2000; 3],
        levels: &[200, 4000],
        readiness: &[false, true, true],
        start: &[HOT, COOL, COOL],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsUnreadyScaleDown",
        current: 4,
        expected: Ok(3),
        metric: cpu(50, 10, 200),
        requests: &[2000; 4],
        levels: &[200, 200, 200],
        readiness: &[false, true, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcMissingMetricsScaleDownTargetOver100",
        current: 4,
        expected: Ok(2),
        metric: cpu(300, 6, 200),
        requests: &[2000, 2000, 4000, 4000],
        levels: &[400, 200, 200],
        readiness: &[false, true, true, true],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcDuringRollingUpdateWithMaxSurge",
        current: 2,
        expected: Ok(2),
        metric: cpu(50, 10, 200),
        requests: &[2000; 3],
        levels: &[200, 200],
        phase: &[R, R, R],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcDuringRollingUpdateWithMaxSurgeCM",
        current: 2,
        expected: Ok(2),
        metric: Metric::Pods {
            target: 17000,
            usage: 10000,
        },
        levels: &[10000, 10000],
        phase: &[R, R, R],
        ..CALC
    },
    // TestReplicaCalcComputedToleranceAlgImplementation's two runs, its arithmetic done: ten
    // pods using 150m of each container against requests of 300m ± jitter (50 %); a target
    // of int32((1 / (2 × 0.9) + 0.01) × 100) = 56 scales to ceil(10 × 50 / 56) = 9, one of
    // + 0.004 (55) is within the tolerance.
    Calc {
        name: "TestReplicaCalcComputedToleranceAlgImplementation (target 56)",
        current: 10,
        expected: Ok(9),
        metric: cpu(56, 50, 300),
        requests: &[800, 400, 620, 580, 604, 596, 602, 598, 600, 600],
        levels: &[300; 10],
        ..CALC
    },
    Calc {
        name: "TestReplicaCalcComputedToleranceAlgImplementation (target 55)",
        current: 10,
        expected: Ok(10),
        metric: cpu(55, 50, 300),
        requests: &[800, 400, 620, 580, 604, 596, 602, 598, 600, 600],
        levels: &[300; 10],
        ..CALC
    },
];

#[test]
fn replica_calculator_cases_give_kubernetes_counts() {
    for case in CALCULATOR {
        case.run();
    }
}

/// A `TestGroupPods` entry: pods, the resource (CPU or not), each pod's expected class.
struct Grouping {
    name: &'static str,
    cpu: bool,
    pods: &'static [(Pod, Class)],
}

const fn pod(
    phase: Phase,
    started: Option<i64>,
    ready: Option<(bool, i64)>,
    sample: Option<(i64, i64)>,
) -> Pod {
    Pod {
        phase,
        deleting: false,
        started,
        ready: match ready {
            Some((ready, since)) => Some(Ready { ready, since }),
            None => None,
        },
        sample: match sample {
            Some((at, window)) => Some(Sample {
                value: 1,
                at,
                window,
            }),
            None => None,
        },
        request: 0,
    }
}

/// A `PodMetric{Value: 1}`: no timestamp, no window.
const BARE: Option<(i64, i64)> = Some((ZERO, 0));
/// Succeeded pods count as Running (the calculator sets apart Pending and Failed only).
const S: Phase = Phase::Running;

const GROUPINGS: &[Grouping] = &[
    Grouping {
        name: "TestGroupPods/void",
        cpu: true,
        pods: &[],
    },
    Grouping {
        name: "TestGroupPods/count in a ready pod - memory",
        cpu: false,
        pods: &[(pod(S, None, None, Some((0, 60))), Class::Ready)],
    },
    Grouping {
        name: "TestGroupPods/unready a pod without ready condition - CPU",
        cpu: true,
        pods: &[(pod(S, Some(0), None, BARE), Class::Unready)],
    },
    Grouping {
        name: "TestGroupPods/count in a ready pod with fresh metrics during initialization period - CPU",
        cpu: true,
        pods: &[(pod(S, Some(-60), Some((true, -30)), Some((0, 30))), Class::Ready)],
    },
    Grouping {
        name: "TestGroupPods/unready a ready pod without fresh metrics during initialization period - CPU",
        cpu: true,
        pods: &[(pod(S, Some(-60), Some((true, -30)), Some((0, 60))), Class::Unready)],
    },
    Grouping {
        name: "TestGroupPods/unready an unready pod during initialization period - CPU",
        cpu: true,
        pods: &[(pod(S, Some(-600), Some((false, -594)), BARE), Class::Unready)],
    },
    Grouping {
        name: "TestGroupPods/count in a ready pod without fresh metrics after initialization period - CPU",
        cpu: true,
        pods: &[(pod(S, Some(-180), Some((true, -180)), Some((-120, 60))), Class::Ready)],
    },
    Grouping {
        name: "TestGroupPods/count in an unready pod that was ready after initialization period - CPU",
        cpu: true,
        pods: &[(pod(S, Some(-600), Some((false, -540)), BARE), Class::Ready)],
    },
    Grouping {
        name: "TestGroupPods/unready pod that has never been ready after initialization period - CPU",
        cpu: true,
        pods: &[(pod(S, Some(-600), Some((false, -590)), BARE), Class::Ready)],
    },
    Grouping {
        name: "TestGroupPods/a missing pod",
        cpu: true,
        pods: &[(pod(S, Some(-180), None, None), Class::Missing)],
    },
    Grouping {
        name: "TestGroupPods/several pods",
        cpu: true,
        pods: &[
            (pod(S, Some(0), None, BARE), Class::Unready),
            (pod(S, Some(-180), Some((true, -180)), BARE), Class::Ready),
            (pod(S, Some(-180), None, None), Class::Missing),
        ],
    },
    Grouping {
        name: "TestGroupPods/pending pods are unreadied",
        cpu: true,
        pods: &[(pod(Phase::Pending, None, None, None), Class::Unready)],
    },
    Grouping {
        name: "TestGroupPods/ignore pods with deletion timestamps",
        cpu: true,
        pods: &[(
            Pod {
                deleting: true,
                ..pod(Phase::Pending, None, None, BARE)
            },
            Class::Ignored,
        )],
    },
    Grouping {
        name: "TestGroupPods/ignore pods in a failed state",
        cpu: true,
        pods: &[(pod(Phase::Failed, None, None, BARE), Class::Ignored)],
    },
];

#[test]
fn group_pods_cases_classify_as_kubernetes_does() {
    for g in GROUPINGS {
        for (i, (p, class)) in g.pods.iter().enumerate() {
            assert_eq!(
                classify(p, 0, g.cpu, &TESTING),
                *class,
                "{} pod {i}",
                g.name
            );
        }
    }
}

/// `generateScalingRules(pods, podsPeriod, percent, percentPeriod, window)`: Max of a Pods
/// and a Percent policy (a zero value leaves its policy out).
fn rules(pods: u32, pods_period: u32, percent: u32, percent_period: u32, window: u32) -> Rules {
    let mut r = Rules {
        stabilization_window: window,
        select: Select::Max,
        policies: Default::default(),
    };
    if pods != 0 {
        r.policies
            .push(RatePolicy {
                kind: RateKind::Pods,
                value: pods,
                period: pods_period,
            })
            .unwrap();
    }
    if percent != 0 {
        r.policies
            .push(RatePolicy {
                kind: RateKind::Percent,
                value: percent,
                period: percent_period,
            })
            .unwrap();
    }
    r
}

/// `generateEventsUniformDistribution(events, period)`: (seconds ago, change), oldest first.
fn uniform(events: &[u32], period: f64) -> Vec<(i64, u32)> {
    let segment = period / events.len() as f64;
    events
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            let ago = period - segment * (i + 1) as f64 + segment / 2.0;
            (-(ago as i64), e)
        })
        .collect()
}

/// A `TestScalingWithRules` entry.
struct WithRules {
    name: std::string::String,
    up_events: Vec<(i64, u32)>,
    down_events: Vec<(i64, u32)>,
    min: u32,
    max: u32,
    up: Option<Rules>,
    down: Option<Rules>,
    current: u32,
    desired: u32,
    expected: u32,
    limit: Limit,
}

fn with_rules(name: &str, min: u32, max: u32, current: u32, desired: u32) -> WithRules {
    WithRules {
        name: std::format!("TestScalingWithRules/{name}"),
        up_events: Vec::new(),
        down_events: Vec::new(),
        min,
        max,
        up: None,
        down: None,
        current,
        desired,
        expected: 0,
        limit: Limit::WithinRange,
    }
}

impl WithRules {
    fn up(mut self, r: Rules) -> Self {
        self.up = Some(r);
        self
    }
    fn down(mut self, r: Rules) -> Self {
        self.down = Some(r);
        self
    }
    fn events(mut self, up: Vec<(i64, u32)>, down: Vec<(i64, u32)>) -> Self {
        self.up_events = up;
        self.down_events = down;
        self
    }
    fn gives(mut self, expected: u32, limit: Limit) -> Self {
        self.expected = expected;
        self.limit = limit;
        self
    }
}

fn scaling_with_rules() -> Vec<WithRules> {
    use Limit::{ScaleDown, ScaleUp, TooFew, TooMany, WithinRange};
    let e = |v: &[u32]| uniform(v, 120.0);
    let none = Vec::new;
    std::vec![
        with_rules("prenormalized desired replicas within range", 3, 8, 5, 7).gives(7, WithinRange),
        with_rules("prenormalized desired replicas < minReplicas", 2, 8, 3, 1).gives(2, TooFew),
        with_rules("prenormalized desired replicas within range when minReplicas is 0", 0, 10, 1, 0)
            .gives(0, WithinRange),
        with_rules("maxReplicas is the limit because maxReplicas < scaleUpLimit", 1, 10, 20, 1000)
            .gives(10, TooMany),
        with_rules("desired replica count is more than the maximum replica count", 100, 150, 100, 1000)
            .gives(150, TooMany),
        with_rules("scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies", 1, 2000, 3, 1000)
            .up(rules(0, 0, 1, 60, 0))
            .gives(4, ScaleUp),
        // Skipped by the original (`testThis`), its expectation kept: 1000 − 20.
        with_rules("scaleDownLimit is the limit because scaleDownLimit > minReplicas with user defined policies", 3, 2000, 1000, 3)
            .down(rules(20, 60, 0, 0, 0))
            .gives(980, ScaleDown),
        with_rules("scaleUp with default behavior", 1, 1000, 10, 50).gives(20, ScaleUp),
        with_rules("scaleUp with pods policy larger than percent policy", 1, 1000, 10, 500)
            .up(rules(100, 60, 100, 60, 0))
            .gives(110, ScaleUp),
        with_rules("scaleUp with percent policy larger than pods policy", 1, 1000, 10, 500)
            .up(rules(2, 60, 100, 60, 0))
            .gives(20, ScaleUp),
        with_rules("scaleUp with spec MaxReplicas limitation with large pod policy", 1, 1000, 10, 50)
            .up(rules(100, 60, 0, 0, 0))
            .gives(50, WithinRange),
        with_rules("scaleUp with spec MaxReplicas limitation with large percent policy", 1, 1000, 10, 50)
            .up(rules(10000, 60, 0, 0, 0))
            .gives(50, WithinRange),
        with_rules("scaleUp with pod policy limitation", 1, 1000, 10, 50)
            .up(rules(30, 60, 0, 0, 0))
            .gives(40, ScaleUp),
        with_rules("scaleUp with percent policy limitation", 1, 1000, 10, 50)
            .up(rules(0, 0, 200, 60, 0))
            .gives(30, ScaleUp),
        with_rules("scaleDown with percent policy larger than pod policy", 1, 1000, 100, 2)
            .down(rules(20, 60, 1, 60, 300))
            .gives(80, ScaleDown),
        with_rules("scaleDown with pod policy larger than percent policy", 1, 1000, 100, 2)
            .down(rules(2, 60, 1, 60, 300))
            .gives(98, ScaleDown),
        with_rules("scaleDown with spec MinReplicas=nil limitation with large pod policy", 1, 1000, 10, 0)
            .down(rules(100, 60, 0, 0, 300))
            .gives(1, TooFew),
        with_rules("scaleDown with spec MinReplicas limitation with large pod policy", 1, 1000, 10, 0)
            .down(rules(100, 60, 0, 0, 300))
            .gives(1, TooFew),
        with_rules("scaleDown with spec MinReplicas limitation with large percent policy", 5, 1000, 10, 2)
            .down(rules(0, 0, 100, 60, 300))
            .gives(5, TooFew),
        with_rules("scaleDown with pod policy limitation", 1, 1000, 10, 2)
            .down(rules(5, 60, 0, 0, 300))
            .gives(5, ScaleDown),
        with_rules("scaleDown with percent policy limitation", 1, 1000, 10, 5)
            .down(rules(0, 0, 50, 60, 300))
            .gives(5, WithinRange),
        with_rules("scaleUp with spec MaxReplicas limitation with large pod policy and events", 1, 200, 100, 500)
            .events(e(&[1, 5, 9]), none())
            .up(rules(300, 60, 0, 0, 0))
            .gives(200, TooMany),
        with_rules("scaleUp with spec MaxReplicas limitation with large percent policy and events", 1, 200, 100, 500)
            .events(e(&[1, 5, 9]), none())
            .up(rules(0, 0, 10000, 60, 0))
            .gives(200, TooMany),
        with_rules("scaleUp with currentReplicas limitation with rate.PeriodSeconds with a lot of recent scale up events", 1, 1000, 100, 500)
            .events(e(&[1, 5, 9]), none())
            .up(rules(5, 120, 0, 0, 0))
            .gives(100, ScaleUp),
        with_rules("scaleUp with pod policy and previous scale up events", 1, 1000, 100, 500)
            .events(e(&[1, 5, 9]), none())
            .up(rules(150, 120, 0, 0, 0))
            .gives(235, ScaleUp),
        with_rules("scaleUp with percent policy and previous scale up events", 1, 1000, 100, 500)
            .events(e(&[1, 5, 9]), none())
            .up(rules(0, 0, 200, 120, 0))
            .gives(255, ScaleUp),
        with_rules("scaleUp with percent policy and previous scale up and down events", 1, 1000, 6, 24)
            .events(e(&[4]), e(&[2]))
            .up(rules(0, 0, 300, 300, 0))
            .gives(16, ScaleUp),
        with_rules("scaleDown with default policy and previous events", 1, 1000, 10, 5)
            .events(none(), e(&[1, 5, 9]))
            .gives(5, WithinRange),
        with_rules("scaleDown with spec MinReplicas=nil limitation with large pod policy and previous events", 1, 1000, 100, 0)
            .events(none(), e(&[1, 5, 9]))
            .down(rules(115, 120, 0, 0, 300))
            .gives(1, TooFew),
        with_rules("scaleDown with spec MinReplicas limitation with large pod policy and previous events", 5, 1000, 100, 0)
            .events(none(), e(&[1, 5, 9]))
            .down(rules(130, 120, 0, 0, 300))
            .gives(5, TooFew),
        with_rules("scaleDown with spec MinReplicas limitation with large percent policy and previous events", 5, 1000, 100, 2)
            .events(none(), e(&[1, 5, 9]))
            .down(rules(0, 0, 100, 120, 300))
            .gives(5, TooFew),
        with_rules("scaleDown with pod policy limitation and previous events", 1, 1000, 100, 2)
            .events(none(), e(&[1, 5, 9]))
            .down(rules(5, 120, 0, 0, 300))
            .gives(100, ScaleDown),
        with_rules("scaleDown with percent policy limitation and previous events", 1, 1000, 100, 0)
            .events(none(), e(&[2, 4, 6]))
            .down(rules(0, 0, 50, 120, 300))
            .gives(56, ScaleDown),
        with_rules("scaleDown with percent policy and previous scale up and down events", 1, 1000, 10, 1)
            .events(e(&[2]), e(&[4]))
            .down(rules(0, 0, 50, 180, 0))
            .gives(6, ScaleDown),
        with_rules("scaleDown with previous events preventing further scale down", 1, 1000, 100, 0)
            .events(none(), e(&[10, 10, 10]))
            .down(rules(0, 0, 10, 120, 300))
            .gives(100, ScaleDown),
        with_rules("scaleDown with with previous events still allowing more scale down", 1, 1000, 10, 5)
            .events(none(), e(&[10, 10, 10]))
            .down(rules(0, 0, 1000, 120, 300))
            .gives(5, WithinRange),
        with_rules("check 'outdated' flag for events for one behavior for up", 1, 1000, 100, 200)
            .events(e(&[8, 12, 9, 11]), none())
            .up(rules(1000, 60, 0, 0, 0))
            .gives(200, WithinRange),
        with_rules("check that events were not marked 'outdated' for two different policies in the behavior for up", 1, 1000, 100, 200)
            .events(e(&[8, 12, 9, 11]), none())
            .up(rules(1000, 120, 100, 60, 0))
            .gives(200, WithinRange),
        with_rules("check that events were marked 'outdated' for two different policies in the behavior for up", 1, 1000, 100, 200)
            .events(e(&[8, 12, 9, 11]), none())
            .up(rules(1000, 30, 100, 60, 0))
            .gives(200, WithinRange),
        with_rules("check 'outdated' flag for events for one behavior for down", 1, 1000, 100, 5)
            .events(none(), e(&[8, 12, 9, 11]))
            .down(rules(1000, 60, 0, 0, 300))
            .gives(5, WithinRange),
        with_rules("check that events were not marked 'outdated' for two different policies in the behavior for down", 1, 1000, 100, 5)
            .events(none(), e(&[8, 12, 9, 11]))
            .down(rules(1000, 120, 100, 60, 300))
            .gives(5, WithinRange),
        with_rules("check that events were marked 'outdated' for two different policies in the behavior for down", 1, 1000, 100, 5)
            .events(none(), e(&[8, 12, 9, 11]))
            .down(rules(1000, 30, 100, 60, 300))
            .gives(5, WithinRange),
    ]
}

#[test]
fn scaling_with_rules_cases_give_kubernetes_counts() {
    let cases = scaling_with_rules();
    assert_eq!(cases.len(), 42);
    for c in &cases {
        let mut history = History::<64>::new();
        for &(at, v) in &c.up_events {
            history.scaled(at, true, v);
        }
        for &(at, v) in &c.down_events {
            history.scaled(at, false, v);
        }
        let defaults = Behavior::default();
        let behavior = Behavior {
            scale_up: c.up.clone().unwrap_or(defaults.scale_up),
            scale_down: c.down.clone().unwrap_or(defaults.scale_down),
        };
        let spec = Spec {
            min: c.min,
            max: c.max,
            behavior: &behavior,
        };
        let got = history.limit(0, c.current, c.desired, &spec);
        assert_eq!(got, (c.expected, c.limit), "{}", c.name);
    }
}

/// A `TestNormalizeDesiredReplicasWithBehavior` entry: recommendations (seconds ago, count),
/// current, desired, the windows (0 unless the entry sets them), the stabilized count.
struct Stabilization {
    name: &'static str,
    recommendations: &'static [(i64, u32)],
    current: u32,
    desired: u32,
    up_window: u32,
    down_window: u32,
    expected: u32,
}

const STABILIZATIONS: &[Stabilization] = &[
    Stabilization {
        name: "empty recommendations for scaling down",
        recommendations: &[],
        current: 100,
        desired: 5,
        up_window: 0,
        down_window: 0,
        expected: 5,
    },
    Stabilization {
        name: "simple scale down stabilization",
        recommendations: &[(-120, 4), (-60, 5)],
        current: 100,
        desired: 3,
        up_window: 0,
        down_window: 180,
        expected: 5,
    },
    Stabilization {
        name: "simple scale up stabilization",
        recommendations: &[(-120, 4), (-60, 5)],
        current: 1,
        desired: 7,
        up_window: 300,
        down_window: 0,
        expected: 4,
    },
    Stabilization {
        name: "no scale down stabilization",
        recommendations: &[(-120, 1), (-60, 2)],
        current: 100,
        desired: 3,
        up_window: 300,
        down_window: 0,
        expected: 3,
    },
    Stabilization {
        name: "no scale up stabilization",
        recommendations: &[(-120, 4), (-60, 5)],
        current: 1,
        desired: 3,
        up_window: 0,
        down_window: 300,
        expected: 3,
    },
    Stabilization {
        name: "no scale down stabilization, reuse recommendation element",
        recommendations: &[(-600, 10), (-540, 9)],
        current: 100,
        desired: 3,
        up_window: 0,
        down_window: 0,
        expected: 3,
    },
    Stabilization {
        name: "no scale up stabilization, reuse recommendation element",
        recommendations: &[(-600, 10), (-540, 9)],
        current: 1,
        desired: 100,
        up_window: 0,
        down_window: 0,
        expected: 100,
    },
    Stabilization {
        name: "scale down stabilization, reuse one of obsolete recommendation element",
        recommendations: &[(-600, 10), (-60, 4), (-120, 5), (-540, 9)],
        current: 100,
        desired: 3,
        up_window: 0,
        down_window: 180,
        expected: 5,
    },
    Stabilization {
        name: "scale up stabilization, reuse one of obsolete recommendation element",
        recommendations: &[(-6000, 10), (-60, 6), (-120, 5), (-180, 9)],
        current: 1,
        desired: 100,
        up_window: 300,
        down_window: 0,
        expected: 5,
    },
    Stabilization {
        name: "scale up and down stabilization, do not scale up when prenormalized rec goes down",
        recommendations: &[(-6000, 2), (-180, 3)],
        current: 2,
        desired: 1,
        up_window: 300,
        down_window: 300,
        expected: 2,
    },
    Stabilization {
        name: "scale up and down stabilization, do not scale down when prenormalized rec goes up",
        recommendations: &[(-6000, 2), (-180, 1)],
        current: 2,
        desired: 3,
        up_window: 300,
        down_window: 300,
        expected: 2,
    },
];

#[test]
fn stabilization_cases_give_kubernetes_counts() {
    for s in STABILIZATIONS {
        let mut history = History::<16>::new();
        for &(at, r) in s.recommendations {
            history.recommended(at, r);
        }
        let mut behavior = Behavior::default();
        behavior.scale_up.stabilization_window = s.up_window;
        behavior.scale_down.stabilization_window = s.down_window;
        let got = history.stabilize(0, s.current, s.desired, &behavior);
        assert_eq!(
            got, s.expected,
            "TestNormalizeDesiredReplicasWithBehavior/{}",
            s.name
        );
    }
}

#[test]
fn select_min_limits_give_kubernetes_counts() {
    let mut r = rules(2, 60, 50, 60, 300);
    r.select = Select::Min;
    let nothing = |_| (0, 0);
    // TestCalculateScaleUpLimitWithScalingRules: min(1 + 2, ceil(1.5)).
    assert_eq!(super::behavior::scale_up_limit(1, &r, nothing), 2);
    // TestCalculateScaleDownLimitWithBehaviors: max(5 − 2, int(2.5)).
    assert_eq!(super::behavior::scale_down_limit(5, &r, nothing), 3);
}

/// `TestStoreScaleEvents`: the replicas changed within 60 seconds of its stored events
/// (seconds ago, change), the same up and down.
/// Scale events: (seconds ago, replicas changed).
type Events = &'static [(i64, u32)];

const STORED_EVENTS: &[(&str, Events, i64)] = &[
    ("empty entries with default behavior", &[], 0),
    ("empty entries with two-policy-behavior", &[], 0),
    (
        "one outdated entry to be kept untouched without behavior",
        &[(-61, 7)],
        0,
    ),
    (
        "one outdated entry to be replaced with behavior",
        &[(-61, 7)],
        0,
    ),
    (
        "one actual entry to be not touched with behavior",
        &[(-58, 7)],
        7,
    ),
    (
        "two entries, one of them to be replaced",
        &[(-61, 7), (-59, 6)],
        6,
    ),
    (
        "replace one entry, use policies with different periods",
        &[(-29, 8), (-59, 6), (-61, 7), (-61, 9)],
        14,
    ),
    ("two entries, both actual", &[(-58, 7), (-59, 6)], 13),
];

#[test]
fn stored_event_cases_count_as_kubernetes_does() {
    for (name, events, expected) in STORED_EVENTS {
        for up in [true, false] {
            let mut history = History::<8>::new();
            for &(at, v) in *events {
                history.scaled(at, up, v);
            }
            assert_eq!(
                history.changed_within(0, 60, up),
                *expected,
                "TestStoreScaleEvents/{name} (up: {up})"
            );
        }
    }
}

/// A controller test of `horizontal_test.go` that ends in a count: one sync over its pods
/// (all Running and ready since long ago, `level/2` per container), a CPU utilisation
/// target, with Kubernetes' default behavior unless the test gives scale-up rules.
struct Controller {
    name: &'static str,
    min: u32,
    max: u32,
    spec: u32,
    target: u32,
    levels: &'static [i64],
    requests: &'static [i64],
    up: Option<Rules>,
    recommendations: &'static [(i64, u32)],
    expected: u32,
}

fn controller_cases() -> Vec<Controller> {
    let base = |name, min, max, spec, expected| Controller {
        name,
        min,
        max,
        spec,
        target: 0,
        levels: &[],
        requests: &[],
        up: None,
        recommendations: &[],
        expected,
    };
    let tolerance_requests: &'static [i64] = &[400, 200, 310, 290, 302, 298, 301, 299, 300, 300];
    std::vec![
        base("TestScaleUpRCImmediately", 2, 6, 1, 2),
        base("TestScaleDownRCImmediately", 2, 5, 6, 5),
        base("TestTooManyReplicas", 3, 5, 10, 5),
        Controller {
            target: 90,
            levels: &[8000, 9500, 1000],
            requests: &[900, 1000, 1100],
            ..base("TestMaxReplicas", 2, 5, 3, 5)
        },
        Controller {
            target: 30,
            levels: &[300, 500, 700],
            requests: &[1000, 1000, 1000],
            ..base("TestScaleUp", 2, 6, 3, 5)
        },
        Controller {
            target: 10,
            levels: &[100, 200, 300],
            requests: &[100, 100, 100],
            up: Some(rules(0, 0, 700, 60, 0)),
            ..base("TestUpscaleCap", 1, 100, 3, 24)
        },
        Controller {
            target: 10,
            levels: &[100, 200, 300],
            requests: &[100, 100, 100],
            up: Some(rules(0, 0, 700, 60, 0)),
            ..base("TestUpscaleCapGreaterThanMaxReplicas", 1, 20, 3, 20)
        },
        Controller {
            target: 50,
            levels: &[500; 5],
            requests: &[1000; 5],
            ..base("TestMoreReplicasThanSpecNoScale", 1, 8, 4, 4)
        },
        Controller {
            target: 50,
            levels: &[200],
            requests: &[200],
            ..base("TestMissingReports", 1, 5, 4, 2)
        },
        Controller {
            target: 100,
            levels: &[50, 50, 50],
            requests: &[100, 100, 100],
            recommendations: &[(-600, 10), (-60, 4)],
            ..base("TestStabilizeDownscale", 1, 5, 4, 4)
        },
        Controller {
            target: 50,
            levels: &[200, 200],
            requests: &[400, 400],
            ..base("TestEventNotCreated", 1, 5, 2, 2)
        },
        Controller {
            target: 100,
            levels: &[],
            requests: &[1000; 4],
            ..base("TestEmptyMetrics", 2, 6, 4, 4)
        },
        Controller {
            target: 56,
            levels: &[150; 10],
            requests: tolerance_requests,
            ..base(
                "TestComputedToleranceAlgImplementation (target 56)",
                0,
                1000,
                10,
                9
            )
        },
        Controller {
            target: 55,
            levels: &[150; 10],
            requests: tolerance_requests,
            ..base(
                "TestComputedToleranceAlgImplementation (target 55)",
                0,
                1000,
                10,
                10
            )
        },
    ]
}

#[test]
fn controller_cases_give_kubernetes_counts() {
    for c in controller_cases() {
        let pods: Vec<(Pod, u32)> = (0..c.requests.len())
            .map(|i| {
                let pod = Pod {
                    phase: Phase::Running,
                    deleting: false,
                    started: Some(ZERO),
                    ready: Some(Ready {
                        ready: true,
                        since: ZERO,
                    }),
                    sample: c.levels.get(i).map(|l| Sample {
                        value: l / 2 * 2,
                        at: 0,
                        window: 60,
                    }),
                    request: c.requests[i] / 2 * 2,
                };
                (pod, 1)
            })
            .collect();
        let mut behavior = Behavior::default();
        if let Some(up) = &c.up {
            behavior.scale_up = up.clone();
        }
        let spec = Spec {
            min: c.min,
            max: c.max,
            behavior: &behavior,
        };
        let mut history = History::<16>::new();
        for &(at, r) in c.recommendations {
            history.recommended(at, r);
        }
        let sync = history.sync(0, c.spec, &spec, || {
            resource_utilization(c.spec, &pods, c.target, &TOLERANCE, 0, true, &TESTING)
                .map(|r| r.replicas)
        });
        assert_eq!(sync.desired, c.expected, "{}", c.name);
    }
}

/// The originals not ported (see the module doc), by name or table and entry count.
const NOT_EXPRESSIBLE: &[(&str, usize)] = &[
    ("TestReplicaCalcDisjointResourcesMetrics", 1),
    ("TestReplicaCalcSuperfluousMetrics", 1),
    ("TestReplicaCalcEmptyCPURequest", 1),
    ("TestCalculatePodRequests", 5),
    ("TestNormalizeDesiredReplicas", 5),
    ("TestConvertDesiredReplicasWithRules", 5),
];

#[test]
fn not_expressible_cases_are_listed() {
    let ported = CALCULATOR.len()
        + GROUPINGS.len()
        + scaling_with_rules().len()
        + STABILIZATIONS.len()
        + 2
        + STORED_EVENTS.len()
        + controller_cases().len();
    // The count the closing note quotes.
    assert_eq!(ported, 162);
    let skipped: usize = NOT_EXPRESSIBLE.iter().map(|(_, n)| n).sum();
    assert_eq!(skipped, 18);
}
