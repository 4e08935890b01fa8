//! `--policy hpa`: Kubernetes' Horizontal Pod Autoscaler's flags (its spec and its
//! controller's settings), how they build the core's [`Hpa`], and how they show in rows.

use capsim_core::autoscale::hpa::{Hpa, RatePolicies, Rules, Select, Target};

use crate::list::hpa::{policies_text, target_text, thousandths_text, Tolerance};
use crate::models::Value;
use crate::output::Cell;

/// The HPA's flags, each as its `--hpa-*` flag takes it (Kubernetes' defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HpaFlags {
    /// `--hpa-target`: the metric and its target (`spec.metrics[0]`).
    pub target: Target,
    /// `--hpa-tolerance`: both directions' (the controller's flag).
    pub tolerance: Tolerance,
    /// `--hpa-scale-up-tolerance`: `behavior.scaleUp.tolerance`, or the controller's.
    pub scale_up_tolerance: Option<Tolerance>,
    /// `--hpa-scale-down-tolerance`: `behavior.scaleDown.tolerance`, or the controller's.
    pub scale_down_tolerance: Option<Tolerance>,
    /// `--hpa-sync-period`: seconds between syncs, one round.
    pub sync_period: u32,
    /// `--hpa-cpu-initialization-period`, seconds.
    pub cpu_initialization_period: u32,
    /// `--hpa-initial-readiness-delay`, seconds.
    pub initial_readiness_delay: u32,
    /// `behavior.scaleUp`: its window, policies and `selectPolicy`.
    pub scale_up: Rules,
    /// `behavior.scaleDown`.
    pub scale_down: Rules,
}

impl Default for HpaFlags {
    fn default() -> Self {
        let k8s = Hpa::default();
        Self {
            target: k8s.target,
            tolerance: Tolerance(k8s.scale_up_tolerance),
            scale_up_tolerance: None,
            scale_down_tolerance: None,
            sync_period: k8s.sync_period,
            cpu_initialization_period: k8s.cpu_initialization_period,
            initial_readiness_delay: k8s.initial_readiness_delay,
            scale_up: k8s.behavior.scale_up,
            scale_down: k8s.behavior.scale_down,
        }
    }
}

impl HpaFlags {
    /// Returns the core's HPA for these flags.
    pub fn hpa(&self) -> Hpa {
        let tolerance = |t: Option<Tolerance>| t.unwrap_or(self.tolerance).0;
        Hpa {
            target: self.target,
            scale_up_tolerance: tolerance(self.scale_up_tolerance),
            scale_down_tolerance: tolerance(self.scale_down_tolerance),
            sync_period: self.sync_period,
            cpu_initialization_period: self.cpu_initialization_period,
            initial_readiness_delay: self.initial_readiness_delay,
            behavior: capsim_core::autoscale::hpa::Behavior {
                scale_up: self.scale_up.clone(),
                scale_down: self.scale_down.clone(),
            },
        }
    }
}

/// The target as `--hpa-target` takes it (`utilization:80`).
impl Value for Target {
    fn cell(&self) -> Cell {
        Cell::Text(target_text(self))
    }
}

/// A tolerance as a number (`0.1`).
impl Value for Tolerance {
    fn cell(&self) -> Cell {
        Cell::Float(f64::from(self.0) / 1000.0)
    }

    fn flag_text(&self) -> String {
        thousandths_text(self.0.into())
    }
}

/// `none`, or the tolerance.
impl Value for Option<Tolerance> {
    fn cell(&self) -> Cell {
        self.map_or(Cell::Word("none"), |t| t.cell())
    }

    fn flag_text(&self) -> String {
        self.map_or("none".to_string(), |t| t.flag_text())
    }
}

/// The policies as the flags take them (`Pods:4:15/Percent:100:15`).
impl Value for RatePolicies {
    fn cell(&self) -> Cell {
        Cell::Text(policies_text(self))
    }
}

/// `Max`, `Min` or `Disabled`.
impl Value for Select {
    fn cell(&self) -> Cell {
        Cell::Word(self.name())
    }
}
