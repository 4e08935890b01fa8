//! A batch's runs in lockstep ([`run_lockstep`]): every run of the fast path on one cached
//! stream, by blocks of rounds, and the runs that follow another until it first replaces an
//! instance ([`follows`]).

// Word-parallel code indexes several runs by the same index.
#![allow(clippy::needless_range_loop)]

use super::{needed_ahead, Run, AHEAD};
use crate::autoscale::metrics::Metrics;
use crate::autoscale::plan::LessonGroup;
use crate::autoscale::spec::Params;
use crate::error::Error;
use crate::rng::{GroupLcg, GroupStream};

/// Runs `params` (valid, the fast engines apply to each, sharing their `Shared` part, `demand`
/// and the stream's seed: [`super::super::plan()`] says [`super::super::Engine::Lockstep`])
/// in lockstep by blocks: rounds `t..t + AHEAD` of every run, then the next block. Within a
/// block a run keeps its state at hand (no per-round switch between runs), and after each
/// round the stream computes up to two draws ahead, so its generator's dependent chain
/// overlaps the simulations instead of preceding them: the runs draw the same numbers, and
/// the stream stays about a block ahead of the leading run.
pub(in crate::autoscale) fn run_lockstep<S: AsRef<[u32]> + AsMut<[u32]>, const N: usize>(
    params: &[Params; N],
    demand: impl Fn(u32) -> f64,
    stream: &mut GroupStream<S>,
) -> [Result<Metrics, Error>; N] {
    let demand0 = demand(0);
    let mut runs: [Result<Run, Error>; N] = core::array::from_fn(|i| Run::new(&params[i], demand0));
    let seed = stream.seed();
    let mut at: [(usize, GroupLcg); N] = core::array::from_fn(|_| (0, GroupLcg::new(seed)));
    // Runs that are an earlier run's until it first replaces an instance ([`follows`]): they
    // wait, and take its state from before the block in which it did.
    let mut leader: [Option<usize>; N] = [None; N];
    for j in 0..N {
        leader[j] = (0..j)
            .find(|&i| leader[i].is_none() && runs[i].is_ok() && follows(&params[i], &params[j]));
    }
    let mut snapshot: Option<(Run, (usize, GroupLcg))> = None;
    let (rounds, capacity) = (params[0].rounds, params[0].capacity);
    let mut ahead = [0i64; AHEAD];
    // The leading reader's position, and how far it went in the last block.
    let (mut lead, mut span) = (0, 0);
    let mut t0 = 0;
    while t0 < rounds {
        needed_ahead(&mut ahead, t0, rounds, capacity, &demand);
        let t1 = rounds.min(t0.saturating_add(AHEAD as u32));
        // This block's draws were computed during the last one; now the next block's.
        let want = lead + 3 * span + 256;
        let before = lead;
        for i in 0..N {
            let Ok(r) = &mut runs[i] else { continue };
            if leader[i].is_some() {
                continue;
            }
            let followed = leader.contains(&Some(i));
            if followed {
                snapshot = Some((r.clone(), at[i].clone()));
            }
            let mut reader = stream.checks_at(at[i].0, at[i].1.clone(), r.p);
            let result = r.rounds(t0, t1, &ahead, &mut reader, |reader| {
                if reader.filled() < want {
                    reader.produce(2);
                }
            });
            at[i] = reader.position();
            lead = lead.max(at[i].0);
            let diverged = result.is_err() || r.m.replacements > 0;
            if let Err(e) = result {
                runs[i] = Err(e);
            }
            if followed && diverged {
                // The followers run this block themselves (they come later in the order),
                // from where the leader started it.
                if let Some((run, pos)) = &snapshot {
                    for j in i + 1..N {
                        if leader[j] == Some(i) {
                            let mut own = run.clone();
                            own.threshold = params[j].threshold;
                            runs[j] = Ok(own);
                            at[j] = pos.clone();
                            leader[j] = None;
                        }
                    }
                }
            }
        }
        span = lead - before;
        t0 = t1;
    }
    core::array::from_fn(|i| match &runs[leader[i].unwrap_or(i)] {
        Ok(r) => Ok(r.finish()),
        Err(e) => Err(*e),
    })
}

/// Returns whether a run of `b` is the run of `a` until `a` first replaces an instance (the
/// `Shared` part is the lockstep's): they have the same `Course` and differ only in the
/// threshold, both 3 or more and `a`'s the lower. Until a streak reaches `a`'s threshold, the streaks are counted the
/// same way whatever the threshold, and nothing else reads it: the same groups, the same
/// draws, the same metrics.
fn follows(a: &Params, b: &Params) -> bool {
    let (a, b) = (LessonGroup::of(a).0, LessonGroup::of(b).0);
    3 <= a.threshold && a.threshold < b.threshold && a.course == b.course
}
