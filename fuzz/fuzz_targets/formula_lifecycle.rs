//! A formula and lifecycle options together: `autoscale::run_in` with every example
//! formula of `examples/formulas/` (chosen by the input), an arbitrary evaluation interval,
//! arbitrary group parameters and arbitrary lifecycle options (hooks, protection, removal
//! policy, reclaim, latency, delay, stock-outs, scripted actions, min and max size, check
//! interval).
//!
//! No program computes these runs independently, so the oracle is the run's own record:
//! invalid parameters are an `OutOfRange` error and the only other error is a documented
//! capacity; watching a run does not change it; its rounds sum to its metrics
//! (`capsim_tests::check_round_sums`: states add up to the group; billed, idle, launched,
//! restarted and failed launches are the per-round figures summed; the size extremes are the
//! rounds'); and the formula is evaluated exactly in rounds 0, K, 2K, … (a timed interval
//! or a timed formula restarting the schedule at its round: [`evaluation_rounds`]; the
//! failed and the changing ones among them), each
//! reported to the observer (its note, `Observer::note`) in its round, before that
//! round's state, which marks it. Capped at 400 rounds.
#![no_main]

use capsim_core::autoscale::{self, FormulaPolicy, Lifecycle, Params, Timed};
use capsim_core::formula::{
    AutoScaleRun, BoundedProgram, BoundedWorkspace, History, DEFAULT_DELAY,
};
use capsim_core::{Error, Observer};
use capsim_fuzz::same;
use capsim_tests::{check_round_sums, GroupTape};
use libfuzzer_sys::fuzz_target;

const MAX_ROUNDS: u32 = 400;

/// Every example formula that checks clean (the fuzz input picks one): all but
/// `cpu-400-as-printed.formula`, Microsoft's text with its missing `;`, which `check` rejects.
const FORMULAS: [&str; 15] = [
    include_str!("../../examples/formulas/cpu-400.formula"),
    include_str!("../../examples/formulas/cpu-busy.formula"),
    include_str!("../../examples/formulas/demand.formula"),
    include_str!("../../examples/formulas/initial-size.formula"),
    include_str!("../../examples/formulas/keep-current.formula"),
    include_str!("../../examples/formulas/monday.formula"),
    include_str!("../../examples/formulas/parallel-tasks.formula"),
    include_str!("../../examples/formulas/pending-tasks.formula"),
    include_str!("../../examples/formulas/powershell.formula"),
    include_str!("../../examples/formulas/preempted-nodes.formula"),
    include_str!("../../examples/formulas/task-based.formula"),
    include_str!("../../examples/formulas/working-hours-evaluated.formula"),
    include_str!("../../examples/formulas/working-hours-python.formula"),
    include_str!("../../examples/formulas/working-hours.formula"),
    include_str!("../../examples/formulas/zero.formula"),
];

/// Records every round's state and every evaluation (its round, whether it failed, whether
/// it came before its round's state).
#[derive(Default)]
struct Record {
    tape: GroupTape,
    runs: Vec<(u32, bool, bool)>,
}

impl Observer<autoscale::RoundState> for Record {
    fn note(&mut self, run: &AutoScaleRun<'_>) {
        let before = self.tape.0.len() == run.round as usize;
        // A failure has an error unless the time ran out (never within 400 rounds).
        assert_eq!(run.failed, run.error.is_some());
        self.runs.push((run.round, run.failed, before));
    }

    fn round(&mut self, s: &autoscale::RoundState) {
        self.tape.round(s);
    }
}

/// Nodes and vector values: ample for the examples, small enough to build every input.
const NODES: usize = 2048;
const POOL: usize = 8192;

/// Runs `p` driven by `program`, evaluated every `interval` rounds, watched by `observer`.
fn run<O: Observer<autoscale::RoundState>>(
    p: &Params,
    program: &BoundedProgram<NODES>,
    ws: &mut BoundedWorkspace<POOL>,
    interval: u32,
    observer: &mut O,
) -> Result<autoscale::Metrics, Error> {
    let mut history: History = History::new(DEFAULT_DELAY);
    ws.reseed(u64::from(p.seed));
    // A timed formula (index 0) swaps the same program in: its schedule restarts.
    let programs = [program];
    let mut policy = FormulaPolicy::new(program, &mut history, ws, interval, p.capacity)?
        .with_programs(&programs);
    capsim_tests::run_policy(p, &mut policy, observer)
}

/// The rounds a formula driving `p` evaluates in, counted one by one: every `interval`
/// from round 0, the schedule restarting at a timed interval (with its value) and at a
/// timed formula that names a program given (index 0: the run's own).
fn evaluation_rounds(p: &Params, interval: u32) -> Vec<u32> {
    let (mut start, mut every) = (0, interval);
    (0..p.rounds)
        .filter(|&t| {
            for a in p.lifecycle.at.iter().filter(|a| a.round == t) {
                match a.what {
                    Timed::EvaluationInterval => (start, every) = (t, a.value),
                    Timed::Formula if a.value == 0 => start = t,
                    _ => {}
                }
            }
            (t - start) % every == 0
        })
        .collect()
}

fuzz_target!(|input: (u8, u16, Params, Lifecycle)| {
    let (which, interval, mut p, lifecycle) = input;
    if p.rounds > MAX_ROUNDS && p.rounds <= autoscale::MAX_ROUNDS {
        p.rounds = 1 + p.rounds % MAX_ROUNDS;
    }
    p.lifecycle = lifecycle;
    // 5 to 64 rounds between evaluations (the interval's own bounds are the formula tests').
    let interval = 5 + u32::from(interval) % 60;
    let mut program = Box::new(BoundedProgram::<NODES>::new());
    let source = FORMULAS[usize::from(which) % FORMULAS.len()];
    program
        .parse(source)
        .unwrap_or_else(|e| panic!("an example formula does not parse: {e}"));
    let mut ws = Box::new(BoundedWorkspace::<POOL>::new(0));
    let result = run(&p, &program, &mut ws, interval, &mut ());
    let mut record = Record::default();
    let watched = run(&p, &program, &mut ws, interval, &mut record);
    let tape = record.tape;
    assert!(same(&result, &watched), "watching changed the run: {p:?}");
    if p.validate().is_err() {
        assert!(
            matches!(result, Err(Error::OutOfRange { .. })),
            "{p:?}: {result:?}"
        );
        return;
    }
    let m = match result {
        Ok(m) => m,
        // The group's storage (256 records here) or a launch count the model bounds.
        Err(Error::CapacityExceeded { .. }) => return,
        Err(e) => panic!("{p:?}: {e:?}"),
    };
    check_round_sums(&p, &tape.0, &m);
    let expected = evaluation_rounds(&p, interval);
    assert_eq!(
        m.evaluations as usize,
        expected.len(),
        "{p:?} every {interval}"
    );
    assert!(m.failed_evaluations <= m.evaluations);
    assert!(m.target_changes <= m.evaluations - m.failed_evaluations);
    let rounds: Vec<u32> = record.runs.iter().map(|r| r.0).collect();
    assert_eq!(rounds, expected, "{p:?} every {interval}");
    for &(round, failed, before) in &record.runs {
        let s = &tape.0[round as usize];
        assert!(
            before && s.evaluated && s.evaluation_failed == failed,
            "{p:?} round {round}"
        );
    }
    // The formula's run is the formula's: the lesson's threshold and cooldown scale nothing.
    assert!(m.max_size as usize <= autoscale::MAX_GROUP_SIZE);
});
