//! A grid's JSON Lines or CSV rows written straight from its runs' parameters and metrics:
//! the bytes a [`RowWriter`] writes for their [`crate::models::row`]s, without a row per run.
//!
//! A grid's runs of one combination differ in their seed alone (the innermost axis, whose
//! flag sets nothing else: [`Model::PARAMS`]). So a combination's parameter columns are
//! written once, in two parts around the seed's column, and each run writes those parts,
//! its seed and its metrics (a metric the same as the last run's is its bytes copied:
//! [`LineCells`]).

use std::io::{self, Write};

use crate::models::{Grid, Model, RowPlan};
use crate::output::{Format, LineCells, RowWriter};

/// The rows of one grid, run after run in grid order, in JSON Lines or CSV.
pub(super) struct GridRows<M: Model> {
    format: Format,
    plan: RowPlan,
    /// The runs of one combination: the seed list's length (1 without one).
    seeds: u64,
    /// The combination (`run / seeds`) whose parameters this holds, with the seed of the
    /// last run written.
    combination: Option<(u64, M::Params)>,
    /// The parameter columns before the seed's and those after it, the seed's lead-in
    /// (`,"seed":`, CSV's comma), and the combination's bytes of the first and last.
    before: LineCells,
    after: LineCells,
    seed_lead: Vec<u8>,
    head: Vec<u8>,
    tail: Vec<u8>,
    /// The metric columns (the model's, then the derived ones the rows show).
    metrics: LineCells,
    /// The line being written.
    line: Vec<u8>,
}

impl<M: Model> GridRows<M> {
    /// Returns the rows of `grid`'s runs in `format` (JSON or CSV); `first` is a run's
    /// parameters (the grid's runs all show the same keys, `check_present`).
    pub(super) fn new(grid: &Grid<M>, first: &M::Params, format: Format) -> Self {
        let plan = RowPlan::of::<M>(first);
        let params = plan.param_keys::<M>();
        let at = params.iter().position(|k| *k == "seed");
        let (before, rest) = params.split_at(at.unwrap_or(params.len()));
        let after = rest.get(1..).unwrap_or_default();
        Self {
            format,
            seeds: grid.seeds().max(1) as u64,
            combination: None,
            before: LineCells::new(before.iter().copied(), format, true),
            seed_lead: LineCells::new(["seed"], format, before.is_empty())
                .lead(0)
                .to_vec(),
            after: LineCells::new(after.iter().copied(), format, false),
            head: Vec::new(),
            tail: Vec::new(),
            metrics: LineCells::new(plan.metric_keys::<M>(), format, params.is_empty()),
            line: Vec::new(),
            plan,
        }
    }

    /// Returns the rows' keys, in row order (CSV's header).
    pub(super) fn keys(&self) -> Vec<&'static str> {
        let mut keys = self.plan.param_keys::<M>();
        keys.extend(self.plan.metric_keys::<M>());
        keys
    }

    /// Writes the row of run `i` of `grid`, whose metrics are `m` (runs come in grid
    /// order); `writer` writes a CSV header first if it is owed.
    pub(super) fn write(
        &mut self,
        grid: &Grid<M>,
        i: u64,
        m: &M::Metrics,
        writer: &mut RowWriter,
        out: &mut impl Write,
    ) -> io::Result<()> {
        if self.combination.is_none() {
            // The first row: a CSV header, unless written (or skipped, `--shard`) already.
            writer.write_header(out, &self.keys())?;
        }
        let combination = i / self.seeds;
        let p = match &mut self.combination {
            Some((c, p)) if *c == combination => {
                grid.set_seed(p, i);
                p
            }
            _ => {
                let p = grid.params(i);
                let Self {
                    plan,
                    before,
                    after,
                    head,
                    tail,
                    ..
                } = self;
                let mut k = 0;
                before.cells();
                after.cells();
                plan.params::<M>(&p, |key, cell| {
                    if key != "seed" {
                        let part = if k < before.len() {
                            &mut *before
                        } else {
                            &mut *after
                        };
                        part.push_cell(cell);
                        k += 1;
                    }
                });
                head.clear();
                before.write(head);
                tail.clear();
                after.write(tail);
                &mut self.combination.insert((combination, p)).1
            }
        };
        let line = &mut self.line;
        line.clear();
        line.extend_from_slice(&self.head);
        if let Some(cell) = self.plan.seed::<M>(p) {
            line.extend_from_slice(&self.seed_lead);
            cell.write_as(self.format, line);
        }
        line.extend_from_slice(&self.tail);
        let cells = self.metrics.cells();
        self.plan.metrics::<M>(p, m, |_, cell| cells.push(cell));
        self.metrics.write(line);
        line.extend_from_slice(if self.format == Format::Json {
            b"}\n"
        } else {
            b"\n"
        });
        out.write_all(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{self, Autoscale, Bulkhead, Consumers, Flags};

    /// The rows of `pairs`' grid written by [`GridRows`] and by a [`RowWriter`] of each
    /// run's [`models::row`], in `format`.
    fn both<M: Model>(pairs: &[(&str, &str)], format: Format) -> (String, String) {
        let grid = Flags::<M>::from_pairs(pairs.iter().copied())
            .unwrap()
            .grid()
            .unwrap();
        let mut scratch = M::scratch();
        let mut fast = GridRows::new(&grid, &grid.params(0), format);
        let (mut writer, mut plain) = (RowWriter::new(format, &[]), RowWriter::new(format, &[]));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..grid.len() {
            let p = grid.params(i);
            let m = M::run(&p, &mut scratch).unwrap();
            fast.write(&grid, i, &m, &mut writer, &mut a).unwrap();
            plain.push(&mut b, models::row::<M>(&p, &m)).unwrap();
        }
        (String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap())
    }

    /// A grid's rows written straight from its runs are the rows' bytes: seeds innermost
    /// or absent, several combinations, a parameter's result column, the optional keys.
    #[test]
    fn grid_rows_are_the_rows_bytes() {
        for format in [Format::Json, Format::Csv] {
            for pairs in [
                &[("threshold", "2,5"), ("seed", "1..=3")][..],
                &[("threshold", "2,3"), ("cooldown", "0,8")][..],
                &[
                    ("launch-hook", "2,3:abandon"),
                    ("price", "1:0.2:0.05"),
                    ("seed", "7,1"),
                ][..],
                &[("seed", "5")][..],
            ] {
                let (fast, plain) = both::<Autoscale>(pairs, format);
                assert!(!fast.is_empty());
                assert_eq!(fast, plain, "{pairs:?} {format:?}");
            }
            let pairs = [
                ("consumers", "1,4"),
                ("shipments", "200"),
                ("seed", "1..=3"),
            ];
            let (fast, plain) = both::<Consumers>(&pairs, format);
            assert_eq!(fast, plain, "{format:?}");
            let pairs = [("split", "shared,24"), ("seed", "1..=3")];
            let (fast, plain) = both::<Bulkhead>(&pairs, format);
            assert_eq!(fast, plain, "{format:?}");
        }
    }
}
