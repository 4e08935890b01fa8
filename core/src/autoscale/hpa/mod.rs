//! Kubernetes' Horizontal Pod Autoscaler, as its controller computes it
//! (`pkg/controller/podautoscaler`), with no clock and no API: pure functions of the pods, the
//! metric and what the controller remembers.
//!
//! - [`replicas`]: the replica calculator. desired = ceil(current × currentMetric /
//!   targetMetric), unless within the tolerances; not-yet-ready pods count 0 when the others
//!   ask to scale up, pods without a sample count at the target (100 % of their request)
//!   when they ask to scale down and 0 when they ask to scale up, and for CPU the
//!   initialization period and the initial readiness delay decide who is ready.
//! - [`behavior`]: `behavior`'s rules per direction (stabilization window, Pods and Percent
//!   policies, `selectPolicy`) with Kubernetes' defaults, and the two rate limits.
//! - [`controller`]: one sync: the reconcile's bounds, the stabilization windows, the
//!   policies, and the [`History`] of recommendations and scale events they read.
//! - `policy` (core's feature `hpa`, host-only: no board carries it): the HPA as the group's
//!   scaling policy, one sync a round, and how the group's instances read as pods.
//!
//! Its contract is Kubernetes' own test suite: `kubernetes.rs` (a test) ports the expectations
//! of `replica_calculator_test.go` and of the behavior tests of `horizontal_test.go`, each
//! case named after its original, and says which could not be expressed.

pub mod behavior;
pub mod controller;
#[cfg(feature = "hpa")]
pub mod policy;
pub mod replicas;

#[cfg(test)]
mod kubernetes;

pub use behavior::{
    Behavior, RateKind, RatePolicies, RatePolicy, Rules, Select, MAX_PERIOD, MAX_RATE_POLICIES,
    MAX_STABILIZATION_WINDOW,
};
pub use controller::{History, HpaRound, Limit, Spec, Sync, MAX_HISTORY};
#[cfg(feature = "hpa")]
pub use policy::{Hpa, HpaPolicy, Target};
pub use replicas::{
    Class, Phase, Pod, Readiness, Ready, Recommendation, Sample, Tolerances, Unavailable,
};
