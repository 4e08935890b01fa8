//! How autoscale runs are computed on the host: a thread's scratch (demand tables, seeds'
//! streams, the host's large group, a formula's workspace), the lesson's policy on the fast
//! path, the general engine every view takes, and a grid's lockstep batches.

use capsim_core::autoscale::{self, Demand as _, FormulaPolicy, GroupStorage, Timed};
use capsim_core::formula::{self, History, Program, TimeInterval, DEFAULT_DELAY};
use capsim_core::rng::{GroupLcg, GroupStream};
use capsim_core::{Capacity, Error, Observer};
use std::collections::HashMap;
use std::sync::Arc;

use super::files::timed_formulas;
use super::{Autoscale, AutoscaleParams, LoadedFormula};
use crate::models::grid::Grid;
use crate::models::{Model, Outcome};

/// The most instances a group holds on the host (a board's group holds
/// `autoscale::MAX_GROUP_SIZE`, 256): the storage of a run that outgrows a board's.
pub const HOST_GROUP_SIZE: usize = 16_384;

/// A host group's records (16 bytes each: 256 KiB), boxed, made for the first run that needs it.
pub type HostGroup = Box<GroupStorage<HOST_GROUP_SIZE>>;

/// Returns whether `r` is a run that stopped at a board's group capacity (the fast path's
/// and `autoscale::run`'s 256 records): on the host it runs again in a [`HostGroup`].
fn board_full<M>(r: &Outcome<M>) -> bool {
    matches!(
        r,
        Err(Error::CapacityExceeded {
            capacity: Capacity::GroupSize | Capacity::GroupWithInFlight,
            limit,
        }) if *limit as usize == autoscale::MAX_GROUP_SIZE
    )
}

/// Returns whether a timed action of `p` swaps a formula in.
pub(super) fn has_timed_formula(p: &autoscale::Params) -> bool {
    p.lifecycle.at.iter().any(|a| a.what == Timed::Formula)
}

/// Returns whether a timed action of `p` acts on a formula only (swaps one in, or sets its
/// evaluation interval).
pub(super) fn has_formula_action(p: &autoscale::Params) -> bool {
    p.lifecycle
        .at
        .iter()
        .any(|a| matches!(a.what, Timed::Formula | Timed::EvaluationInterval))
}

/// A formula run's history and workspace (53 KB), reused by a thread's runs.
pub type FormulaScratch = Option<Box<(History, formula::Workspace)>>;

/// A thread's storage for its autoscale runs: the formula's, and what runs of a grid share.
#[derive(Default)]
pub struct AutoscaleScratch {
    formula: FormulaScratch,
    /// The demand of the last runs' curve, by round.
    demand: Option<(autoscale::DemandCurve, Vec<f64>)>,
    /// Each seed's generator stream (the grid's pairs of one seed draw the same numbers).
    streams: HashMap<u32, GroupStream<Box<[u32]>>>,
    /// A batch's stream: one seed's runs in lockstep (`autoscale::run_sweep`), then the next.
    batch_stream: Option<GroupStream<Box<[u32]>>>,
    /// A group of up to [`HOST_GROUP_SIZE`] instances, for runs that outgrow a board's.
    group: Option<HostGroup>,
}

/// The most rounds whose demand a thread tabulates (8 bytes each).
const MAX_DEMAND_TABLE: u32 = 100_000;
/// The draws a thread keeps per seed (4 bytes each): the lesson's runs draw under 3,000.
const STREAM_DRAWS: usize = 4096;
/// The most seeds whose streams a thread keeps (16 KiB each).
const MAX_STREAMS: usize = 1024;

impl AutoscaleScratch {
    /// Returns `p`'s demand curve by round, tabulated once per demand parameters.
    fn demand_table(&mut self, p: &autoscale::Params) -> &[f64] {
        let key = p.demand_curve();
        if self.demand.as_ref().is_none_or(|(k, _)| *k != key) {
            let table = (0..p.rounds).map(|t| p.demand(t)).collect();
            self.demand = Some((key, table));
        }
        self.demand.as_ref().map_or(&[][..], |(_, t)| &t[..])
    }

    /// Runs the lesson's policy on `p` with the shared demand table and stream.
    pub(super) fn run_lesson_policy(&mut self, p: &AutoscaleParams) -> Outcome<autoscale::Metrics> {
        let r = match p.table() {
            None => self.run_lesson_fast(&p.core),
            Some(table) => {
                p.core.validate()?;
                table.check(&p.core)?;
                let mut rng = GroupLcg::new(p.core.seed);
                autoscale::run_with_demand(&p.core, |t| table.at(t), &mut rng, &mut ())
            }
        };
        if board_full(&r) {
            return self.run_general(p, &mut ());
        }
        r
    }

    /// Runs `p` on the general path in the thread's host group, calling `observer` after
    /// every round: the lesson's policy or `p`'s formula. Every view of a run (trace, plot)
    /// and every run that outgrows a board's group comes here.
    pub fn run_general<O: Observer<autoscale::RoundState>>(
        &mut self,
        p: &AutoscaleParams,
        observer: &mut O,
    ) -> Outcome<autoscale::Metrics> {
        let core = &p.core;
        core.validate()?;
        if let Some(table) = p.table() {
            table.check(core)?;
        }
        // The lesson's curve from the thread's table (the same numbers as `p.demand(t)`),
        // and the health check's draws from the seed's shared stream (the same as
        // `GroupLcg::new(seed)`'s): a grid's runs compute them once.
        if p.table().is_none() && core.rounds <= MAX_DEMAND_TABLE {
            self.demand_table(core);
        }
        let Self {
            formula,
            demand: tabulated,
            group,
            ..
        } = self;
        let table = match (p.table(), tabulated) {
            (None, Some((_, t))) if core.rounds <= MAX_DEMAND_TABLE => &t[..],
            _ => &[][..],
        };
        let demand = |t: u32| match table.get(t as usize) {
            Some(&d) => d,
            None => p.demand(t),
        };
        let group = &mut **group.get_or_insert_with(|| Box::new(GroupStorage::with_capacity()));
        let stream = stream_of(&mut self.streams, core.seed);
        let mut rng = stream.reader();
        let Some(f) = &p.formula.0 else {
            return autoscale::run_in(core, group, demand, &mut rng, observer);
        };
        let (history, ws) = &mut **formula.get_or_insert_with(|| {
            Box::new((History::new(DEFAULT_DELAY), formula::Workspace::new(0)))
        });
        let delay = TimeInterval::from_seconds(p.sample_delay.into());
        if history.delay() != delay {
            *history = History::new(delay);
        }
        // Restart the rand() stream only: rewriting the 314 KB workspace would cost more
        // than the run (evaluations start afresh anyway).
        ws.reseed(u64::from(core.seed));
        // The command's timed formulas, by index (the actions' values).
        let swaps: Vec<Arc<LoadedFormula>> = if has_timed_formula(core) {
            timed_formulas().clone()
        } else {
            Vec::new()
        };
        let programs: Vec<&Program> = swaps.iter().map(|f| &*f.program).collect();
        let mut policy = FormulaPolicy::new(
            &f.program,
            history,
            ws,
            p.evaluation_interval,
            core.capacity,
        )?
        .with_programs(&programs);
        autoscale::run_formula_in(core, group, demand, &mut policy, &mut rng, observer)
    }

    /// Runs the lesson's policy on `p`, on the fast path when it applies, with the shared
    /// demand table and stream; a board's group (256 instances).
    fn run_lesson_fast(&mut self, p: &autoscale::Params) -> Outcome<autoscale::Metrics> {
        p.validate()?;
        if p.rounds > MAX_DEMAND_TABLE {
            return autoscale::run(p);
        }
        self.demand_table(p);
        let table = self.demand.as_ref().map_or(&[][..], |(_, t)| &t[..]);
        let demand = |t: u32| {
            table
                .get(t as usize)
                .copied()
                .unwrap_or_else(|| p.demand(t))
        };
        let stream = stream_of(&mut self.streams, p.seed);
        autoscale::run_with_demand(p, demand, &mut stream.reader(), &mut ())
    }
}

impl AutoscaleScratch {
    /// Runs `runs` (one seed, one demand curve; the lesson's policy) in lockstep on one
    /// stream, eight at a time at most (`autoscale::run_sweep`): the generator's chain
    /// overlaps the simulations, and the stream's buffer serves seed after seed.
    fn run_sweep(&mut self, runs: &[autoscale::Params]) -> Vec<Outcome<autoscale::Metrics>> {
        let Some(first) = runs.first() else {
            return Vec::new();
        };
        self.demand_table(first);
        let Self {
            demand,
            batch_stream,
            ..
        } = self;
        let table = demand.as_ref().map_or(&[][..], |(_, t)| &t[..]);
        let demand = |t: u32| {
            table
                .get(t as usize)
                .copied()
                .unwrap_or_else(|| first.demand(t))
        };
        let stream = batch_stream.get_or_insert_with(|| {
            GroupStream::new(first.seed, vec![0; STREAM_DRAWS].into_boxed_slice())
        });
        stream.restart(first.seed);
        let mut outcomes = Vec::with_capacity(runs.len());
        let mut rest = runs;
        while !rest.is_empty() {
            rest = match rest.len() {
                8.. => sweep_chunk::<8>(rest, &demand, stream, &mut outcomes),
                4..=7 => sweep_chunk::<4>(rest, &demand, stream, &mut outcomes),
                2 | 3 => sweep_chunk::<2>(rest, &demand, stream, &mut outcomes),
                _ => sweep_chunk::<1>(rest, &demand, stream, &mut outcomes),
            };
        }
        outcomes
    }
}

/// Returns `seed`'s stream of the thread's `streams` (made at its first run; at most
/// [`MAX_STREAMS`] are kept).
fn stream_of(
    streams: &mut HashMap<u32, GroupStream<Box<[u32]>>>,
    seed: u32,
) -> &mut GroupStream<Box<[u32]>> {
    if streams.len() >= MAX_STREAMS && !streams.contains_key(&seed) {
        streams.clear();
    }
    streams
        .entry(seed)
        .or_insert_with(|| GroupStream::new(seed, vec![0; STREAM_DRAWS].into_boxed_slice()))
}

/// Runs the first `N` of `runs` with `autoscale::run_sweep` into `outcomes`; returns the rest.
fn sweep_chunk<'a, const N: usize>(
    runs: &'a [autoscale::Params],
    demand: &impl Fn(u32) -> f64,
    stream: &mut GroupStream<Box<[u32]>>,
    outcomes: &mut Vec<Outcome<autoscale::Metrics>>,
) -> &'a [autoscale::Params] {
    match runs.split_first_chunk::<N>() {
        Some((chunk, rest)) => {
            outcomes.extend(autoscale::run_sweep(chunk, demand, stream));
            rest
        }
        None => &[],
    }
}

/// Autoscale runs in lockstep on one seed's stream at most: the lesson's sweep, nine.
pub(super) const AUTOSCALE_LANES: usize = 16;

/// The flags a batch of autoscale runs may vary: the rest (seed, demand, …) they share.
pub(super) const AUTOSCALE_FREE: [&str; 2] = ["threshold", "cooldown"];

/// Runs `batch` (runs of `grid` that differ only in threshold and cooldown) in lockstep on
/// one stream; formula runs, invalid ones and long ones run each on its own.
pub(super) fn run_autoscale_batch(
    grid: &Grid<Autoscale>,
    batch: &[u64],
    scratch: &mut AutoscaleScratch,
) -> Vec<(u64, Outcome<autoscale::Metrics>)> {
    let params: Vec<AutoscaleParams> = batch.iter().map(|&i| grid.params(i)).collect();
    let together = params.len() > 1
        && params.iter().all(|p| {
            p.formula.0.is_none()
                && !has_timed_formula(&p.core)
                && p.demand_file.0.is_none()
                && p.core.rounds <= MAX_DEMAND_TABLE
                && p.core.validate().is_ok()
        });
    if !together {
        return batch
            .iter()
            .zip(&params)
            .map(|(&i, p)| (i, Autoscale::run(p, scratch)))
            .collect();
    }
    let cores: Vec<autoscale::Params> = params.into_iter().map(|p| p.core).collect();
    let outcomes = scratch.run_sweep(&cores);
    batch
        .iter()
        .copied()
        .zip(outcomes)
        .map(|(i, r)| {
            if board_full(&r) {
                (i, scratch.run_general(&grid.params(i), &mut ()))
            } else {
                (i, r)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's runs sharing demand tables and seeds' streams give each run's own
    /// metrics: seeds revisited, the demand changed between runs, runs drawing past the
    /// kept draws, and a run too long to tabulate.
    #[test]
    fn shared_autoscale_runs_equal_runs_alone() {
        let mut scratch = AutoscaleScratch::default();
        let lesson = autoscale::Params::default();
        let mut cases = Vec::new();
        for seed in [1, 20_261_001, 7, 1, 20_261_001] {
            for (threshold, cooldown) in [(2, 0), (5, 8), (3, 3)] {
                cases.push(autoscale::Params {
                    threshold,
                    cooldown,
                    seed,
                    ..lesson.clone()
                });
            }
            cases.push(autoscale::Params {
                seed,
                surge: 2000.0,
                rounds: 2000,
                ..lesson.clone()
            });
        }
        cases.push(autoscale::Params {
            rounds: MAX_DEMAND_TABLE + 1,
            demand_base: 100.0,
            ..lesson.clone()
        });
        for p in &cases {
            let alone = autoscale::run(p).unwrap();
            let shared = scratch.run_lesson_fast(p).unwrap();
            assert_eq!(format!("{shared:?}"), format!("{alone:?}"), "{p:?}");
        }
    }
}
