//! Which columns a model's rows hold: every metric key, the parameters a row shows, the
//! table's default columns and `--columns`' names, and the [`RowPlan`] that writes a row.

use super::{shown, Model};
use crate::output::{Cell, Key, Row};

/// Returns every metric key of `M`, in contract order (the derived ones last), whether a
/// run shows it or not: what `--columns` and `capsim metrics` know.
pub fn metric_keys<M: Model>() -> Vec<&'static str> {
    M::METRICS
        .iter()
        .map(|m| m.key)
        .chain(M::DERIVED.iter().map(|d| d.key))
        .collect()
}

/// Returns the metric keys a run with `p` shows, in contract order.
pub fn metric_keys_for<M: Model>(p: &M::Params) -> Vec<&'static str> {
    let mut keys = metric_keys::<M>();
    keys.retain(|k| shown::<M>(k, p));
    keys
}

/// Returns a run's row: its parameters (the seed after [`Model::SEED_AFTER`]), then its
/// metrics.
pub fn row<M: Model>(p: &M::Params, m: &M::Metrics) -> Row {
    let mut row = Row::new();
    row_into::<M>(&mut row, p, m, &RowPlan::of::<M>(p));
    row
}

/// The parameters and derived metrics a run's row shows, in row order (the seed after
/// [`Model::SEED_AFTER`], the optional keys of [`Model::PRESENT`] only when on): found once
/// for a grid, whose runs all show the same ([`super::check_present`]).
pub struct RowPlan {
    /// Indices into [`Model::PARAMS`], in row order.
    params: Vec<usize>,
    /// Indices into [`Model::DERIVED`].
    derived: Vec<usize>,
    /// The seed's index into [`Model::PARAMS`], if the row shows it.
    seed: Option<usize>,
}

impl RowPlan {
    /// Returns the plan of the row of a run with `p`.
    pub fn of<M: Model>(p: &M::Params) -> Self {
        let seed = M::PARAMS.iter().position(|q| q.key == "seed");
        let mut params = Vec::with_capacity(M::PARAMS.len());
        for (i, q) in M::PARAMS.iter().enumerate() {
            if q.key == "seed" || !shown::<M>(q.key, p) {
                continue;
            }
            params.push(i);
            params.extend(seed.filter(|_| q.key == M::SEED_AFTER));
        }
        let derived = (0..M::DERIVED.len())
            .filter(|&i| shown::<M>(M::DERIVED[i].key, p))
            .collect();
        let seed = seed.filter(|s| params.contains(s));
        Self {
            params,
            derived,
            seed,
        }
    }
}

impl RowPlan {
    /// Hands `column` each parameter column of a run with `p` (a parameter, its result
    /// column after it), in row order.
    pub fn params<M: Model>(&self, p: &M::Params, mut column: impl FnMut(&'static str, Cell)) {
        for q in self.params.iter().filter_map(|&i| M::PARAMS.get(i)) {
            column(q.key, (q.cell)(p));
            if let Some(result) = &q.result {
                column(result.key, (result.cell)(p));
            }
        }
    }

    /// Returns the seed's cell of a run with `p`, if the row shows the seed.
    pub fn seed<M: Model>(&self, p: &M::Params) -> Option<Cell> {
        let q = M::PARAMS.get(self.seed?)?;
        Some((q.cell)(p))
    }

    /// Returns the keys of the parameter columns, in row order ([`RowPlan::params`]').
    pub fn param_keys<M: Model>(&self) -> Vec<&'static str> {
        let mut keys = Vec::with_capacity(self.params.len() + 4);
        for q in self.params.iter().filter_map(|&i| M::PARAMS.get(i)) {
            keys.push(q.key);
            keys.extend(q.result.as_ref().map(|r| r.key));
        }
        keys
    }

    /// Returns the keys of the metric columns, in row order ([`RowPlan::metrics`]').
    pub fn metric_keys<M: Model>(&self) -> Vec<&'static str> {
        let derived = self.derived.iter().filter_map(|&i| M::DERIVED.get(i));
        M::METRICS
            .iter()
            .map(|m| m.key)
            .chain(derived.map(|d| d.key))
            .collect()
    }

    /// Hands `column` each metric column of a run with `p` and metrics `m`: the model's
    /// metrics, then the derived ones the row shows.
    pub fn metrics<M: Model>(
        &self,
        p: &M::Params,
        m: &M::Metrics,
        mut column: impl FnMut(&'static str, Cell),
    ) {
        for metric in M::METRICS {
            column(metric.key, (metric.cell)(m));
        }
        for d in self.derived.iter().filter_map(|&i| M::DERIVED.get(i)) {
            column(d.key, (d.cell)(p, m));
        }
    }
}

/// Puts a run's row ([`row`]'s cells) into `row`, emptied first (its storage reused: a
/// grid writes its rows one after another), with the keys `plan` says.
pub fn row_into<M: Model>(row: &mut Row, p: &M::Params, m: &M::Metrics, plan: &RowPlan) {
    row.clear();
    row.reserve(plan.params.len() * 2 + M::METRICS.len() + plan.derived.len());
    plan.params::<M>(p, |key, cell| row.push((Key::Borrowed(key), cell)));
    plan.metrics::<M>(p, m, |key, cell| row.push((Key::Borrowed(key), cell)));
}

/// Returns the keys of the row of a run with `p`, in [`row`]'s order (a CSV header with no
/// row to take it from: an empty `--shard 1/N`); `None`: every key any run may have.
pub fn row_keys<M: Model>(p: Option<&M::Params>) -> Vec<&'static str> {
    let mut keys = Vec::with_capacity(M::PARAMS.len() * 2 + M::METRICS.len());
    let seed = M::PARAMS.iter().find(|q| q.key == "seed");
    for q in M::PARAMS.iter().filter(|q| q.key != "seed") {
        if p.is_some_and(|p| !shown::<M>(q.key, p)) {
            continue;
        }
        keys.push(q.key);
        keys.extend(q.result.as_ref().map(|r| r.key));
        keys.extend(seed.filter(|_| q.key == M::SEED_AFTER).map(|s| s.key));
    }
    match p {
        Some(p) => keys.extend(metric_keys_for::<M>(p)),
        None => keys.extend(metric_keys::<M>()),
    }
    keys
}

/// Returns the table's columns: the headline parameters, the swept ones (each with its
/// result column, if it has one), every metric.
pub fn table_keys<M: Model>(swept: &[&'static str]) -> Vec<&'static str> {
    let mut keys = M::HEADLINE.to_vec();
    for key in swept_columns::<M>(swept) {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.extend(metric_keys::<M>());
    keys
}

/// Returns the columns of the swept parameters `swept`: each parameter, then its result
/// column if it has one, in [`Model::PARAMS`] order.
pub fn swept_columns<M: Model>(swept: &[&str]) -> Vec<&'static str> {
    let mut keys = Vec::new();
    for q in M::PARAMS.iter().filter(|q| swept.contains(&q.key)) {
        keys.push(q.key);
        keys.extend(q.result.as_ref().map(|r| r.key));
    }
    keys
}

/// Returns every parameter column of `M`'s rows (each parameter, then its result column),
/// in [`Model::PARAMS`] order: what `--columns` takes besides the metrics.
pub fn param_columns<M: Model>() -> Vec<&'static str> {
    let all: Vec<&str> = M::PARAMS.iter().map(|q| q.key).collect();
    swept_columns::<M>(&all)
}
