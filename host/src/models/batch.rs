//! Batching a grid's runs: runs that share a workload (the same values of a part's flags,
//! the core's `Workload::FLAGS` or `Stream::FLAGS`) run together on one stream, in windows,
//! their outcomes in grid order.

#[cfg(feature = "cli")]
use rayon::prelude::*;

use super::grid::Grid;
use super::{Ahead, Model, Outcome};

/// How far past a window's start a run's batch partners may lie.
const BATCH_LOOKAHEAD: u64 = 65_536;

/// Runs `runs` of `grid` in batches of runs that share a workload (equal values of the
/// `stream` flags), at most `lanes` a batch, with `run_batch` (given the thread's scratch),
/// on the current rayon pool, and returns their outcomes in grid order.
///
/// A run's partners may lie up to [`BATCH_LOOKAHEAD`] runs past the window's start (the seed
/// is innermost, so partners are a seed list apart); their outcomes wait in `ahead`.
pub(super) fn batched_window<M: Model>(
    grid: &Grid<M>,
    runs: std::ops::Range<u64>,
    ahead: &mut Ahead<M::Metrics>,
    done: &(dyn Fn(u64) + Sync),
    stream: &[&str],
    lanes: usize,
    run_batch: impl Fn(&mut M::Scratch, &[u64]) -> Vec<(u64, Outcome<M::Metrics>)> + Sync,
) -> Vec<Outcome<M::Metrics>> {
    let limit = runs.start.saturating_add(BATCH_LOOKAHEAD).min(grid.stop);
    let batches = batches(grid, runs.clone(), limit, ahead, stream, lanes);
    let run = |scratch: &mut M::Scratch, batch: &Vec<u64>| {
        let outcomes = run_batch(scratch, batch);
        done(batch.len() as u64);
        outcomes
    };
    #[cfg(feature = "cli")]
    let finished: Vec<Vec<(u64, Outcome<M::Metrics>)>> =
        batches.par_iter().map_init(M::scratch, run).collect();
    #[cfg(not(feature = "cli"))]
    let finished: Vec<Vec<(u64, Outcome<M::Metrics>)>> = {
        let mut scratch = M::scratch();
        batches.iter().map(|b| run(&mut scratch, b)).collect()
    };
    for (i, outcome) in finished.into_iter().flatten() {
        ahead.insert(i, outcome);
    }
    // Every run of the window is in `ahead` now; should one not be, it runs here.
    let mut scratch = None;
    runs.map(|i| {
        ahead.remove(&i).unwrap_or_else(|| {
            let scratch = scratch.get_or_insert_with(M::scratch);
            M::run(&grid.params(i), scratch)
        })
    })
    .collect()
}

/// The outcomes of `batch`'s runs computed together into `metrics` (one lane a run, in
/// order) when that succeeded (`together` is `Ok`); otherwise `alone()`'s, each run on its
/// own, so that every run gets its own outcome.
pub(super) fn lanes_or_alone<M, E>(
    batch: &[u64],
    together: Result<(), E>,
    metrics: impl IntoIterator<Item = M>,
    alone: impl FnOnce() -> Vec<(u64, Outcome<M>)>,
) -> Vec<(u64, Outcome<M>)> {
    match together {
        Ok(()) => batch
            .iter()
            .copied()
            .zip(metrics)
            .map(|(i, m)| (i, Ok(m)))
            .collect(),
        Err(_) => alone(),
    }
}

/// Whether `flag` (`queue-gap`, as the core's `Workload::FLAGS` and `Stream::FLAGS` name
/// them) is the flag of row key `key` (`queue_gap`).
pub(super) fn is_flag_of(flag: &str, key: &str) -> bool {
    flag.len() == key.len()
        && flag
            .bytes()
            .zip(key.bytes())
            .all(|(f, k)| f == k || (f == b'-' && k == b'_'))
}

/// Groups the runs of `runs` not yet in `ahead` into batches of at most `lanes` runs sharing
/// a workload (the same digits on the `stream` axes): each run not yet taken leads a batch
/// and takes its next partners below `limit`, in grid order.
pub(super) fn batches<M: Model>(
    grid: &Grid<M>,
    runs: std::ops::Range<u64>,
    limit: u64,
    ahead: &Ahead<M::Metrics>,
    stream: &[&str],
    lanes: usize,
) -> Vec<Vec<u64>> {
    // The axes a batch may vary, innermost first.
    let free: Vec<usize> = (0..grid.axes())
        .rev()
        .filter(|&a| {
            !stream.iter().any(|f| is_flag_of(f, grid.axis_key(a))) && grid.axis_len(a) > 1
        })
        .collect();
    let mut taken = std::collections::BTreeSet::new();
    let mut batches = Vec::new();
    for i in runs {
        if ahead.contains_key(&i) || taken.contains(&i) {
            continue;
        }
        let mut batch = vec![i];
        let mut digits = grid.digits(i);
        'partners: while batch.len() < lanes {
            // The next run in grid order with the same stream digits: count up on the free axes.
            let mut carried = true;
            for &a in &free {
                digits[a] += 1;
                if digits[a] < grid.axis_len(a) {
                    carried = false;
                    break;
                }
                digits[a] = 0;
            }
            if carried {
                break;
            }
            let j = grid.index(&digits);
            if j >= limit {
                break 'partners;
            }
            if !ahead.contains_key(&j) && taken.insert(j) {
                batch.push(j);
            }
        }
        batches.push(batch);
    }
    batches
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::super::*;
    use super::*;
    use capsim_core::{bulkhead, consumers};

    /// Sets each of `M`'s parameters in turn to a value other than `default`'s (the first
    /// of a few candidates its flag takes that changes the run) and returns the parameter
    /// key with the run.
    fn each_param_changed<M: Model>(default: &M::Params) -> Vec<(&'static str, M::Params)>
    where
        M::Params: Clone + PartialEq + std::fmt::Debug,
    {
        const CANDIDATES: [&str; 11] = [
            "2", "3", "24", "0.5", "17", "slowdown", "healthy", "16", "keyed", "0..5", "0.5:9",
        ];
        M::PARAMS
            .iter()
            .map(|q| {
                let changed = CANDIDATES
                    .iter()
                    .filter_map(|s| (q.parse)(s).ok())
                    .map(|axis| {
                        let mut p = default.clone();
                        axis.0.set(&mut p, 0);
                        p
                    })
                    .find(|p| p != default)
                    .unwrap_or_else(|| panic!("no candidate changes {}", q.key));
                (q.key, changed)
            })
            .collect()
    }

    /// Asserts that `flags` are exactly `M`'s parameters whose change changes `part`.
    fn assert_flags_name_the_part<M: Model, T: PartialEq>(
        flags: &[&str],
        part: fn(&M::Params) -> T,
        default: &M::Params,
    ) where
        M::Params: Clone + PartialEq + std::fmt::Debug,
    {
        let changed = each_param_changed::<M>(default);
        assert_eq!(changed.len(), M::PARAMS.len());
        for (key, p) in &changed {
            let listed = flags.iter().any(|f| is_flag_of(f, key));
            assert_eq!(part(p) != part(default), listed, "{key}");
        }
        // Every listed flag is a parameter.
        for flag in flags {
            assert!(
                changed.iter().any(|(key, _)| is_flag_of(flag, key)),
                "{flag}"
            );
        }
    }

    /// `Workload::FLAGS` is exactly the consumers parameters that change the workload (the
    /// grid batches runs by it), `Stream::FLAGS` the bulkhead parameters that change the
    /// arrival stream.
    #[test]
    fn the_part_flags_are_the_parameters_of_the_part() {
        assert_flags_name_the_part::<Consumers, _>(
            &consumers::Workload::FLAGS,
            consumers::Params::workload,
            &consumers::Params::default(),
        );
        assert_flags_name_the_part::<Bulkhead, _>(
            &bulkhead::Stream::FLAGS,
            bulkhead::Params::stream,
            &bulkhead::Params::default(),
        );
    }

    #[test]
    fn flags_match_keys_dash_for_underscore() {
        assert!(is_flag_of("queue-gap", "queue_gap"));
        assert!(is_flag_of("seed", "seed"));
        assert!(!is_flag_of("queue_gap", "queue-gap"));
        assert!(!is_flag_of("queue-gap", "queue_gaps"));
        assert!(!is_flag_of("horizon", "seed"));
    }
}
