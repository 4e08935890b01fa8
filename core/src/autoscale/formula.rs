//! A Batch autoscale formula as the group's scaling policy (seed 003, spec §11).
//!
//! The policy samples the group every round, evaluates the formula every `interval` rounds
//! and steers the group toward the last successful target. What it supplies for each
//! read-only variable (spec §8.2; `D` = the round's demand, negative read as 0, `C` = the
//! capacity per instance, `R` = serving instances, `N` = nodes, `g` = `ceil(D / C)`):
//!
//! | variable | sample |
//! |---|---|
//! | `$CPUPercent` | `min(1, D / (R·C))`, a fraction as the documented formulas compare it (0.7, 0.2); **missing** when `R = 0` (no node reports) |
//! | `$WallClockSeconds` | `60·R` |
//! | `$SampleNodeCount`, `$CurrentDedicatedNodes` | `N` = serving + launching + Standby (every node in the pool that is not leaving or Stopped) |
//! | `$PendingTasks` / `$RunningTasks` / `$ActiveTasks` | `g` / `min(g, R)` / `g − min(g, R)`: one task = `C` requests, one slot per node |
//! | `$SucceededTasks` | the running tasks of the round |
//! | `$TaskSlotsPerNode` | 1 |
//! | `$CurrentLowPriorityNodes` | with the spot class: its nodes, Preempted ones included (Batch: "Spot/Low-priority compute nodes which have been preempted are included in this count"); else 0 |
//! | `$PreemptedNodeCount` | with the spot class: its nodes in the Preempted state; else 0 |
//! | memory, disk, network, `$FailedTasks` | 0 (not modelled) |
//!
//! With the spot class, `N` (`$CurrentDedicatedNodes`) counts dedicated nodes only and
//! `$SampleNodeCount` both classes' (Preempted nodes aside).
//!
//! Round `t`'s values are recorded at `60t` and `60t + 30` s after the epoch, when the policy
//! decides (after the round's health check); with the one-minute delay an evaluation at
//! `60t` sees samples up to round `t − 1`'s first. `$CurrentDedicatedNodes` and
//! `$CurrentLowPriorityNodes` read as values give the current count (pool properties).
//!
//! Decisions:
//! - **Evaluations** at rounds `0, K, 2K, …` (`K` = `interval`): Batch sizes a pool created
//!   with autoscale from an evaluation at enable time, then every interval. So a run of
//!   `rounds` rounds evaluates `ceil(rounds / K)` times; the first usually fails when the
//!   formula samples (nothing is recorded yet).
//! - **A timed formula** ([`super::Timed::Formula`], a program of
//!   [`FormulaPolicy::with_programs`]) replaces the program at its round and restarts the
//!   schedule there, as a timed interval does: Batch's enable-autoscale with a new formula.
//!   The target, the samples and the deallocation option carry over to the new formula.
//! - **The target** starts as the initial group's size and changes only on a successful
//!   evaluation that assigns `$TargetDedicatedNodes` (fractions truncated by the evaluator).
//!   Every round the group is steered to it (Batch keeps resizing a pool to its target):
//!   the change is `target − (N + launches in flight)`. A failed evaluation changes nothing.
//! - **Capacity**: a scale-out never asks for more than the group's free records (the 256
//!   records are the simulated quota; Batch: quotas may stop a pool short of its target).
//! - **Scale-in** goes through the group's removal policy (InService victims; under the
//!   lesson's order, launches from the end once none is left); Batch documents no order.
//! - **`$NodeDeallocationOption`**: `requeue` and `terminate` remove at once (they differ
//!   in the fate of the tasks, which the model does not carry); `taskcompletion` drains the
//!   node one round (Removing:Wait, billed, not serving: a lesson task lasts one round);
//!   `retaineddata` two (the task, then its data clean-up). A terminate hook adds to it.
//! - `$TargetLowPriorityNodes` applies to the spot class when the group has it
//!   ([`super::Spot::enabled`]): the spot target starts at 0 and changes on a successful
//!   evaluation that assigns it; the spot class is steered to it every round like the
//!   dedicated one (`target − (spot nodes + spot launches in flight)`, Preempted nodes
//!   counted, as Batch counts them, and scaled in first). Without the class it is evaluated
//!   and dropped (one instance class).
//! - `rand()` draws from the caller's [`BoundedWorkspace`], never from the health check's
//!   generator, so the lesson's draws are untouched.

use crate::error::{Accepted, Error};
use core::fmt;

use crate::formula::{
    evaluate, AutoScaleRun, BoundedProgram, BoundedWorkspace, Deallocation, FormulaError, History,
    Inputs, Metric, TimeInterval, Timestamp, DEFAULT_HISTORY, MAX_NODES, METRIC_COUNT, VECTOR_POOL,
};

use super::metrics::Metrics;
use super::policy::{ScalingPolicy, Signal};
use super::state::{State, StateCounts};

/// Batch's default evaluation interval: 15 minutes (rounds).
pub const DEFAULT_EVALUATION_INTERVAL: u32 = 15;
/// Batch's shortest evaluation interval: 5 minutes.
pub const MIN_EVALUATION_INTERVAL: u32 = 5;
/// Batch's longest evaluation interval: 168 hours.
pub const MAX_EVALUATION_INTERVAL: u32 = 10_080;

/// `time()` at round 0: 2026-10-01T00:00:00Z, a Thursday (the lesson's seed 20261001).
pub const EPOCH: Timestamp = match Timestamp::from_unix_ms(1_790_812_800_000) {
    Some(t) => t,
    None => panic!("the epoch is in range"),
};

/// Checks an evaluation interval (rounds): 5 to 10,080.
pub fn check_interval(interval: u32) -> Result<(), Error> {
    if (MIN_EVALUATION_INTERVAL..=MAX_EVALUATION_INTERVAL).contains(&interval) {
        Ok(())
    } else {
        Err(Error::OutOfRange {
            param: "evaluation-interval",
            accepted: Accepted::integers(
                MIN_EVALUATION_INTERVAL as u64,
                MAX_EVALUATION_INTERVAL as u64,
            ),
        })
    }
}

/// The last evaluation of a [`FormulaPolicy`]: its round, its time and its outcome (the
/// error, `None` when no time was left to evaluate at).
type Last = (u32, Option<Timestamp>, Result<(), Option<FormulaError>>);

/// A parsed formula driving the group. The program, history and workspace live in the
/// caller's storage (about 205, 43 and 314 KB at the default capacities, which hold every
/// formula within Batch's limits): a host boxes them, a board keeps smaller ones static
/// (`N` samples of history, `NODES` expression nodes, `POOL` vector values).
pub struct FormulaPolicy<
    'a,
    const N: usize = DEFAULT_HISTORY,
    const NODES: usize = MAX_NODES,
    const POOL: usize = VECTOR_POOL,
> {
    program: &'a BoundedProgram<NODES>,
    /// The programs a timed formula action may swap in, by index (none unless
    /// [`Self::with_programs`]): caller-owned, so the policy stays small.
    programs: &'a [&'a BoundedProgram<NODES>],
    history: &'a mut History<N>,
    ws: &'a mut BoundedWorkspace<POOL>,
    capacity: f64,
    interval: u32,
    /// The round the evaluation schedule starts (0; a timed action's round after it sets a
    /// new interval).
    schedule_start: u32,
    target: Option<u32>,
    /// The low-priority target (the spot class), from 0.
    spot_target: u32,
    /// This round's dedicated scale-out (it takes free records before the spot class).
    asked: i64,
    deallocation: Deallocation,
    /// Evaluations run.
    pub evaluations: u32,
    /// Evaluations that failed (the group left unchanged).
    pub failed_evaluations: u32,
    /// Successful evaluations that changed the dedicated target.
    pub target_changes: u32,
    /// The last evaluation: its round, timestamp and error (`None` if it succeeded).
    last: Option<Last>,
}

impl<'a, const N: usize, const NODES: usize, const POOL: usize> FormulaPolicy<'a, N, NODES, POOL> {
    /// Returns the policy for `program`, evaluated every `interval` rounds (checked), with
    /// `capacity` requests per instance (for `$CPUPercent` and the task counts). `history`
    /// is cleared; `ws` keeps its `rand()` stream.
    pub fn new(
        program: &'a BoundedProgram<NODES>,
        history: &'a mut History<N>,
        ws: &'a mut BoundedWorkspace<POOL>,
        interval: u32,
        capacity: f64,
    ) -> Result<Self, Error> {
        check_interval(interval)?;
        history.clear();
        Ok(Self {
            program,
            programs: &[],
            history,
            ws,
            capacity,
            interval,
            schedule_start: 0,
            target: None,
            spot_target: 0,
            asked: 0,
            deallocation: Deallocation::Requeue,
            evaluations: 0,
            failed_evaluations: 0,
            target_changes: 0,
            last: None,
        })
    }

    /// Returns the policy with `programs`, the formulas a timed action
    /// ([`super::Timed::Formula`]) swaps in by index.
    pub fn with_programs(mut self, programs: &'a [&'a BoundedProgram<NODES>]) -> Self {
        self.programs = programs;
        self
    }

    /// Returns the dedicated target now (`None` before the first round).
    pub fn target(&self) -> Option<u32> {
        self.target
    }

    /// Returns the deallocation option now.
    pub fn deallocation(&self) -> Deallocation {
        self.deallocation
    }

    /// Returns the low-priority target now (0 unless a formula assigned one; applied only
    /// with the spot class).
    pub fn spot_target(&self) -> u32 {
        self.spot_target
    }

    fn record(&mut self, s: &Signal, now: Timestamp, nodes: u32) {
        let d = if s.demand > 0.0 { s.demand } else { 0.0 };
        let r = s.counts.serving();
        let g = s.required.max(0) as f64;
        let running = g.min(f64::from(r));
        let mut v = [Some(0.0); METRIC_COUNT];
        let mut put = |m: Metric, x: Option<f64>| v[m as usize] = x;
        put(
            Metric::CPUPercent,
            (r > 0).then(|| (d / (f64::from(r) * self.capacity)).min(1.0)),
        );
        put(Metric::WallClockSeconds, Some(60.0 * f64::from(r)));
        put(
            Metric::SampleNodeCount,
            Some(f64::from(
                nodes + s.spot.map_or(0, |p| live_spot(&p.counts)),
            )),
        );
        put(Metric::ActiveTasks, Some(g - running));
        put(Metric::RunningTasks, Some(running));
        put(Metric::PendingTasks, Some(g));
        put(Metric::SucceededTasks, Some(running));
        put(Metric::TaskSlotsPerNode, Some(1.0));
        put(Metric::CurrentDedicatedNodes, Some(f64::from(nodes)));
        if let Some(p) = s.spot {
            put(
                Metric::CurrentLowPriorityNodes,
                Some(f64::from(spot_nodes(&p.counts).saturating_sub(p.leaving))),
            );
            put(
                Metric::PreemptedNodeCount,
                Some(f64::from(p.counts.get(State::Preempted))),
            );
        }
        for at in [Some(now), now.checked_add(TimeInterval::from_seconds(30))]
            .into_iter()
            .flatten()
        {
            // Times only move forward, so recording cannot fail.
            let _ = self.history.record_all(at, &v);
        }
    }

    /// Evaluates once at `now`; returns the error if it failed.
    fn evaluate(
        &mut self,
        s: &Signal,
        now: Timestamp,
        nodes: u32,
        current: u32,
    ) -> Result<(), FormulaError> {
        let mut inputs = Inputs::new(now, self.history);
        inputs.current[Metric::CurrentDedicatedNodes as usize] = Some(f64::from(nodes));
        let low = s
            .spot
            .map_or(0, |p| spot_nodes(&p.counts).saturating_sub(p.leaving));
        inputs.current[Metric::CurrentLowPriorityNodes as usize] = Some(f64::from(low));
        inputs.target_dedicated = f64::from(current);
        if s.spot.is_some() {
            inputs.target_low_priority = f64::from(self.spot_target);
        }
        inputs.deallocation = self.deallocation;
        match evaluate(self.program, &inputs, self.ws) {
            Ok(out) => {
                if let Some(n) = out.dedicated {
                    if n != current {
                        self.target_changes += 1;
                    }
                    self.target = Some(n);
                }
                if let (Some(n), Some(_)) = (out.low_priority, s.spot) {
                    self.spot_target = n;
                }
                self.deallocation = out.deallocation;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

/// The dedicated class's nodes a formula sees (`$CurrentDedicatedNodes`): serving, on
/// their way into service, in standby; the spot class is steered by `decide_spot`.
fn dedicated_nodes(s: &Signal) -> u32 {
    let c = &s.counts;
    let nodes = c.serving() + c.launching() + c.get(State::Standby);
    match s.spot {
        Some(p) => nodes - live_spot(&p.counts),
        None => nodes,
    }
}

impl<const N: usize, const NODES: usize, const POOL: usize> ScalingPolicy
    for FormulaPolicy<'_, N, NODES, POOL>
{
    /// The policy's counts: evaluations, failed ones, target changes.
    fn finish(&self, m: &mut Metrics) {
        m.evaluations = self.evaluations;
        m.failed_evaluations = self.failed_evaluations;
        m.target_changes = self.target_changes;
    }

    fn decide(&mut self, s: &Signal) -> i64 {
        let nodes = dedicated_nodes(s);
        let now = EPOCH.checked_add(TimeInterval::from_seconds(60 * i64::from(s.round)));
        let current = *self.target.get_or_insert(nodes);
        if let Some(now) = now {
            self.record(s, now, nodes);
        }
        let since = s.round.wrapping_sub(self.schedule_start);
        if s.round >= self.schedule_start && since.is_multiple_of(self.interval) {
            self.evaluations += 1;
            let result = match now {
                Some(now) => self.evaluate(s, now, nodes, current).map_err(Some),
                None => Err(None),
            };
            if result.is_err() {
                self.failed_evaluations += 1;
            }
            self.last = Some((s.round, now, result));
        }
        let target = i64::from(self.target.unwrap_or(nodes));
        let have = ScalingPolicy::counted(self, s);
        let change = (target - have).min(room(s).max(0));
        self.asked = change.max(0);
        change
    }

    /// The dedicated nodes (serving, on their way, in standby) and their launches asked for.
    fn counted(&self, s: &Signal) -> i64 {
        let spot_flight = s.spot.map_or(0, |p| p.in_flight);
        i64::from(dedicated_nodes(s)) + i64::from(s.in_flight - spot_flight)
    }

    fn decide_spot(&mut self, s: &Signal) -> Option<i64> {
        let p = s.spot?;
        let have =
            i64::from(spot_nodes(&p.counts).saturating_sub(p.leaving)) + i64::from(p.in_flight);
        let room = room(s) - self.asked;
        Some((i64::from(self.spot_target) - have).min(room.max(0)))
    }

    fn node_deallocation(&self) -> Option<Deallocation> {
        Some(self.deallocation)
    }

    fn set_evaluation_interval(&mut self, round: u32, rounds: u32) {
        // Checked with the parameters (5 to 10,080): a new schedule from `round` on.
        self.interval = rounds.max(1);
        self.schedule_start = round;
    }

    fn set_formula(&mut self, round: u32, index: u32) {
        // Batch's "enable autoscale with a new formula": a new schedule from `round` on, the
        // pool's target, samples and deallocation option kept.
        if let Some(program) = self.programs.get(index as usize) {
            self.program = program;
            self.schedule_start = round;
        }
    }

    fn drain_rounds(&self) -> u32 {
        match self.deallocation {
            Deallocation::Requeue | Deallocation::Terminate => 0,
            Deallocation::TaskCompletion => 1,
            Deallocation::RetainedData => 2,
        }
    }

    fn target_dedicated(&self) -> Option<u32> {
        self.target
    }

    fn evaluation(&self, round: u32) -> Option<AutoScaleRun<'_>> {
        let (r, timestamp, result) = self.last?;
        (r == round).then_some(AutoScaleRun {
            round,
            timestamp,
            error: result.err().flatten(),
            failed: result.is_err(),
            results: self,
        })
    }
}

impl<const N: usize, const NODES: usize, const POOL: usize> fmt::Display
    for FormulaPolicy<'_, N, NODES, POOL>
{
    /// Writes the results string of the last evaluation (empty before the first), with the
    /// pool's deallocation option where the formula did not assign one, as the evaluation's
    /// outcome prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.last.is_none() {
            return Ok(());
        }
        self.ws.results_with(self.program, self.deallocation).fmt(f)
    }
}

/// Returns the group's free records for a scale-out (Stopped ones restart in place).
fn room(s: &Signal) -> i64 {
    let c = &s.counts;
    i64::from(s.capacity) - i64::from(c.total()) + i64::from(c.get(State::Stopped))
        - i64::from(s.in_flight)
}

/// Returns the spot nodes that run or are on their way (no Preempted ones).
fn live_spot(c: &StateCounts) -> u32 {
    c.serving() + c.launching() + c.get(State::Standby)
}

/// Returns `$CurrentLowPriorityNodes`: the spot nodes, Preempted ones included.
fn spot_nodes(c: &StateCounts) -> u32 {
    live_spot(c) + c.get(State::Preempted)
}
