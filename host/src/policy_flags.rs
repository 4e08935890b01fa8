//! A scaling policy's own flags need that policy: `--target-utilization` and
//! `--disable-scale-in` are target tracking's, `--steps` is step scaling's, the `--hpa-*`
//! flags the Kubernetes HPA's. Given without
//! it they would be ignored, so a grid that gives one of them a value other than its
//! default, and whose `--policy` list (the lesson's policy when omitted) does not hold the
//! policy it needs, is one line: `--steps: needs --policy step (…)`.
//!
//! The defaults (`50`, `no`, `none`) never trigger it: they change nothing, so a script or a
//! page that passes every flag's default runs as before. A grid whose `--policy` list holds
//! the policy they need takes them: that policy's runs use them, the other runs ignore them
//! (as a grid's lesson runs ignore `--launch-hook`'s result when there is no hook).

use crate::models::{Autoscale, Grid, Model};
use crate::output::Cell;

/// Each policy flag and the `--policy` value it needs.
pub const NEEDS: [(&str, &str); 16] = [
    ("target_utilization", "target-tracking"),
    ("disable_scale_in", "target-tracking"),
    ("steps", "step"),
    ("hpa_target", "hpa"),
    ("hpa_tolerance", "hpa"),
    ("hpa_scale_up_tolerance", "hpa"),
    ("hpa_scale_down_tolerance", "hpa"),
    ("hpa_sync_period", "hpa"),
    ("hpa_cpu_initialization_period", "hpa"),
    ("hpa_initial_readiness_delay", "hpa"),
    ("hpa_scale_up_stabilization", "hpa"),
    ("hpa_scale_up_policies", "hpa"),
    ("hpa_scale_up_select", "hpa"),
    ("hpa_scale_down_stabilization", "hpa"),
    ("hpa_scale_down_policies", "hpa"),
    ("hpa_scale_down_select", "hpa"),
];

/// The cells of `key`'s values in `grid` (one per value given; none if the flag is omitted).
fn values(grid: &Grid<Autoscale>, key: &str) -> Vec<Cell> {
    let Some(axis) = grid.axis_of(key) else {
        return Vec::new();
    };
    let Some(param) = Autoscale::PARAMS.iter().find(|p| p.key == key) else {
        return Vec::new();
    };
    (0..grid.axis_len(axis))
        .map(|j| {
            let mut digits = vec![0; grid.axes()];
            digits[axis] = j;
            (param.cell)(&grid.params(grid.index(&digits)))
        })
        .collect()
}

/// Checks that every policy flag given a value other than its default comes with the
/// policy it needs in the grid's `--policy` list.
pub fn check(grid: &Grid<Autoscale>) -> Result<(), String> {
    let policies = values(grid, "policy");
    let default = <Autoscale as Model>::Params::default();
    for (key, policy) in NEEDS {
        let Some(param) = Autoscale::PARAMS.iter().find(|p| p.key == key) else {
            continue;
        };
        let unset = (param.cell)(&default);
        if values(grid, key).iter().all(|c| *c == unset) {
            continue;
        }
        if !policies.iter().any(|c| c.text() == policy) {
            return Err(format!(
                "--{}: needs --policy {policy} (without it the flag would be ignored)",
                key.replace('_', "-")
            ));
        }
    }
    Ok(())
}
