//! How autoscale runs are computed on the host: a thread's storage (a board's group, the
//! host's large one) and caches (demand tables, seeds' streams, a formula's workspace), and
//! a grid's batches. The host picks the storage and the caches; the core's plan
//! (`autoscale::plan`, asked by every `autoscale::run_in` and `run_batch`) picks the engine.

use capsim_core::autoscale::{
    self, Chosen, Demand, FormulaPolicy, GroupStorage, LessonCheck, Table, Timed,
};
use capsim_core::formula::{self, History, Program, TimeInterval, DEFAULT_DELAY};
use capsim_core::rng::GroupStream;
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

/// Returns whether `r` is a run that stopped at a board's group capacity (256 records): on
/// the host it runs again in a [`HostGroup`].
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

/// A thread's storage for its autoscale runs, and what runs of a grid share.
#[derive(Default)]
pub struct AutoscaleScratch {
    caches: Caches,
    /// A board's group (`autoscale::MAX_GROUP_SIZE` records: the fast engines' own), for the
    /// runs nothing watches.
    board: Option<Box<GroupStorage>>,
    /// A group of up to [`HOST_GROUP_SIZE`] instances, for watched runs and runs that
    /// outgrow a board's.
    group: Option<HostGroup>,
}

/// What a thread's runs share: computed once, read by every run that needs it.
#[derive(Default)]
struct Caches {
    formula: FormulaScratch,
    /// The demand of the last runs' curve, by round.
    demand: Option<(autoscale::DemandCurve, Vec<f64>)>,
    /// Each seed's generator stream (the grid's pairs of one seed draw the same numbers).
    streams: HashMap<u32, GroupStream<Box<[u32]>>>,
    /// A batch's stream: one seed's runs (`autoscale::run_batch`), then the next seed's.
    batch_stream: Option<GroupStream<Box<[u32]>>>,
}

/// The most rounds whose demand a thread tabulates (8 bytes each).
const MAX_DEMAND_TABLE: u32 = 100_000;
/// The draws a thread keeps per seed (4 bytes each): the lesson's runs draw under 3,000.
const STREAM_DRAWS: usize = 4096;
/// The most seeds whose streams a thread keeps (16 KiB each).
const MAX_STREAMS: usize = 1024;

/// A run's demand: the file's table, the curve tabulated once per demand parameters, or
/// the curve itself (a run too long to tabulate).
enum RunDemand<'a> {
    File(Table<'a>),
    Tabled(&'a [f64], &'a autoscale::Params<'a>),
    Curve(&'a autoscale::Params<'a>),
}

impl Demand for RunDemand<'_> {
    fn at(&self, t: u32) -> f64 {
        match self {
            RunDemand::File(table) => table.at(t),
            RunDemand::Tabled(table, p) => table
                .get(t as usize)
                .copied()
                .unwrap_or_else(|| p.demand(t)),
            RunDemand::Curve(p) => p.demand(t),
        }
    }
}

/// Returns `p`'s demand curve by round, tabulated once per demand parameters in `cache`.
fn demand_table<'a>(
    cache: &'a mut Option<(autoscale::DemandCurve, Vec<f64>)>,
    p: &autoscale::Params,
) -> &'a [f64] {
    let key = p.demand_curve();
    if cache.as_ref().is_none_or(|(k, _)| *k != key) {
        let table = (0..p.rounds).map(|t| p.demand(t)).collect();
        *cache = Some((key, table));
    }
    cache.as_ref().map_or(&[][..], |(_, t)| &t[..])
}

impl AutoscaleScratch {
    /// Runs `p`, calling `observer` after every round: the one way an autoscale run is
    /// computed on the host (every view of a run, trace, plot and chart, comes here too: the
    /// same parameters, the same run). The storage: a board's group when nothing watches the
    /// run (the fast engines' own), then the host's group if it outgrew it; a watched run
    /// goes to the host's group at once (run twice, its observer would see two runs), and
    /// so does a formula's: its targets stop at the group's capacity as at a pool's quota,
    /// so in a board's group it would stop at 256 instead of outgrowing it.
    pub fn run<O: Observer<autoscale::RoundState>>(
        &mut self,
        p: &AutoscaleParams,
        observer: &mut O,
    ) -> Outcome<autoscale::Metrics> {
        p.core.validate()?;
        if let Some(table) = p.table() {
            table.check(&p.core)?;
        }
        if !O::ROUNDS && p.formula.0.is_none() {
            let board = &mut **self.board.get_or_insert_with(Box::default);
            let r = run_in(&mut self.caches, p, board, &mut ());
            if !board_full(&r) {
                return r;
            }
        }
        self.run_in_host_group(p, observer)
    }

    /// Runs `p` (checked) in the thread's host group.
    fn run_in_host_group<O: Observer<autoscale::RoundState>>(
        &mut self,
        p: &AutoscaleParams,
        observer: &mut O,
    ) -> Outcome<autoscale::Metrics> {
        let group = &mut **self
            .group
            .get_or_insert_with(|| Box::new(GroupStorage::with_capacity()));
        run_in(&mut self.caches, p, group, observer)
    }
}

/// Runs `p` (checked) in `storage` with the thread's caches: the shared demand table and
/// seed's stream, the parameters' own policy (or their formula, in the shared workspace)
/// and the lesson's check.
fn run_in<const N: usize, O: Observer<autoscale::RoundState>>(
    caches: &mut Caches,
    p: &AutoscaleParams,
    storage: &mut GroupStorage<N>,
    observer: &mut O,
) -> Outcome<autoscale::Metrics> {
    let core = &p.core;
    let Caches {
        formula,
        demand,
        streams,
        ..
    } = caches;
    let demand = match p.table() {
        Some(table) => RunDemand::File(table),
        None if core.rounds <= MAX_DEMAND_TABLE => {
            RunDemand::Tabled(demand_table(demand, core), core)
        }
        None => RunDemand::Curve(core),
    };
    let mut rng = stream_of(streams, core.seed).reader();
    let mut check = LessonCheck::of(core);
    let Some(f) = &p.formula.0 else {
        let mut policy = Chosen::of(core);
        return autoscale::run_in(
            core,
            storage,
            demand,
            &mut policy,
            &mut check,
            &mut rng,
            observer,
        );
    };
    let (history, ws) = &mut **formula
        .get_or_insert_with(|| Box::new((History::new(DEFAULT_DELAY), formula::Workspace::new(0))));
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
    autoscale::run_in(
        core,
        storage,
        demand,
        &mut policy,
        &mut check,
        &mut rng,
        observer,
    )
}

impl AutoscaleScratch {
    /// Runs `runs` (one seed, one demand curve; their own policies) as batches on one
    /// stream, eight at a time at most (`autoscale::run_batch`, in lockstep when the plan
    /// says so): the generator's chain overlaps the simulations, and the stream's buffer
    /// serves seed after seed.
    fn run_batch(&mut self, runs: &[autoscale::Params]) -> Vec<Outcome<autoscale::Metrics>> {
        let Some(first) = runs.first() else {
            return Vec::new();
        };
        let Caches {
            demand,
            batch_stream,
            ..
        } = &mut self.caches;
        let table = demand_table(demand, first);
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
                8.. => batch_chunk::<8>(rest, &demand, stream, &mut outcomes),
                4..=7 => batch_chunk::<4>(rest, &demand, stream, &mut outcomes),
                2 | 3 => batch_chunk::<2>(rest, &demand, stream, &mut outcomes),
                _ => batch_chunk::<1>(rest, &demand, stream, &mut outcomes),
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

/// Runs the first `N` of `runs` with `autoscale::run_batch` into `outcomes`; returns the rest.
fn batch_chunk<'a, 'p, const N: usize>(
    runs: &'a [autoscale::Params<'p>],
    demand: &impl Fn(u32) -> f64,
    stream: &mut GroupStream<Box<[u32]>>,
    outcomes: &mut Vec<Outcome<autoscale::Metrics>>,
) -> &'a [autoscale::Params<'p>] {
    match runs.split_first_chunk::<N>() {
        Some((chunk, rest)) => {
            outcomes.extend(autoscale::run_batch(chunk, demand, stream));
            rest
        }
        None => &[],
    }
}

/// Autoscale runs in lockstep on one seed's stream at most: the lesson's sweep, nine.
pub(super) const AUTOSCALE_LANES: usize = 16;

/// The flags a batch of autoscale runs may vary: the rest (seed, demand, …) they share.
pub(super) const AUTOSCALE_FREE: [&str; 2] = ["threshold", "cooldown"];

/// Runs `batch` (runs of `grid` that differ only in threshold and cooldown) as batches on
/// one stream; formula runs, demand files and long ones run each on its own.
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
        });
    if !together {
        return batch
            .iter()
            .zip(&params)
            .map(|(&i, p)| (i, Autoscale::run(p, scratch)))
            .collect();
    }
    let cores: Vec<autoscale::Params> = params.into_iter().map(|p| p.core).collect();
    let outcomes = scratch.run_batch(&cores);
    batch
        .iter()
        .copied()
        .zip(outcomes)
        .map(|(i, r)| {
            if board_full(&r) {
                (i, scratch.run_in_host_group(&grid.params(i), &mut ()))
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
    /// metrics, watched or not: seeds revisited, the demand changed between runs, runs
    /// drawing past the kept draws, a run too long to tabulate, and one that outgrows a
    /// board's group (run again in the host's).
    #[test]
    fn shared_autoscale_runs_equal_runs_alone() {
        /// Counts the rounds it sees (it wants every round's state).
        struct Rounds(u32);
        impl Observer<autoscale::RoundState> for Rounds {
            fn round(&mut self, _: &autoscale::RoundState) {
                self.0 += 1;
            }
        }
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
        let large = autoscale::Params {
            demand_base: 30_000.0,
            ..lesson.clone()
        };
        cases.push(large.clone());
        for p in &cases {
            let mut storage = Box::new(GroupStorage::<HOST_GROUP_SIZE>::with_capacity());
            let (mut policy, mut check) = (Chosen::of(p), LessonCheck::of(p));
            let mut rng = capsim_core::rng::GroupLcg::new(p.seed);
            let alone = autoscale::run_in(
                p,
                &mut *storage,
                |t| p.demand(t),
                &mut policy,
                &mut check,
                &mut rng,
                &mut (),
            )
            .unwrap();
            let host = AutoscaleParams {
                core: p.clone(),
                ..AutoscaleParams::default()
            };
            let shared = scratch.run(&host, &mut ()).unwrap();
            assert_eq!(format!("{shared:?}"), format!("{alone:?}"), "{p:?}");
            let mut rounds = Rounds(0);
            let watched = scratch.run(&host, &mut rounds).unwrap();
            assert_eq!(format!("{watched:?}"), format!("{alone:?}"), "{p:?}");
            assert_eq!(rounds.0, p.rounds, "{p:?}");
        }
        // The large group is more than a board's: the board's run stops at its capacity.
        assert!(board_full(&autoscale::run(&large)));
    }
}
