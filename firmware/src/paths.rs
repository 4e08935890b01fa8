//! The `paths` feature: instead of the lesson suite, runs model paths the lessons never take
//! and prints what the host prints for the same runs, byte for byte:
//!
//! 1. each run of [`LIFECYCLE`], as `capsim trace autoscale FLAGS --format csv` prints it
//!    (the core's CSV writer; FLAGS are written next to each run);
//! 2. on boards with the RAM for a formula program of 512 nodes (about 22 KB, and a 7 KB
//!    workspace, in static RAM: every board but the micro:bit v1's 16 KiB), Microsoft's documented example 1 evaluated at
//!    2016-10-13T19:18:47.805Z, as `capsim formula eval
//!    examples/formulas/working-hours-evaluated.formula --at 2016-10-13T19:18:47.805Z`
//!    prints its results string.
//!
//! `scripts/firmware-test.sh` lists the same host command lines in the same order.

use capsim_core::{
    autoscale::{
        self, Action, Event, Events, Hook, HookResult, Lifecycle, Reclaim, RemovalPolicy, Stockout,
    },
    lesson::LessonError,
    rng::GroupLcg,
    trace::CsvTrace,
};
use embedded_hal::digital::OutputPin;

use crate::{board, report, stack};

/// A lifecycle run: the host's `capsim trace autoscale` flags for it (the notes name the run
/// by them; the script runs them on the host) and its options.
struct Run {
    flags: &'static str,
    seed: u32,
    lifecycle: fn() -> Lifecycle<'static>,
}

/// The lifecycle runs, in the order the script lists their host command lines.
const LIFECYCLE: [Run; 2] = [
    Run {
        flags: "--launch-hook 3:abandon --terminate-hook 2 --reclaim stop --stockout-rounds 100..120 --check-latency 2 --apply-delay 3 --protected 4 --events 10:protect:2+60:standby:1",
        seed: 20_261_001,
        lifecycle: every_option,
    },
    Run {
        flags: "--launch-hook 5 --reclaim stop --restart-rounds 3 --removal-policy newest --count-pending yes --seed 7",
        seed: 7,
        lifecycle: || Lifecycle {
            launch_hook: Some(Hook {
                rounds: 5,
                result: HookResult::Continue,
            }),
            reclaim: Reclaim::Stop,
            restart_rounds: 3,
            removal_policy: RemovalPolicy::Newest,
            count_pending: true,
            ..Lifecycle::default()
        },
    },
];

/// The first run's options: every lifecycle option at once.
fn every_option() -> Lifecycle<'static> {
    let mut events = Events::new();
    for event in [
        Event {
            round: 10,
            action: Action::Protect,
            count: 2,
        },
        Event {
            round: 60,
            action: Action::EnterStandby,
            count: 1,
        },
    ] {
        // Two of the sixteen an event list holds.
        let _ = events.push(event);
    }
    Lifecycle {
        launch_hook: Some(Hook {
            rounds: 3,
            result: HookResult::Abandon,
        }),
        terminate_hook: Some(Hook {
            rounds: 2,
            result: HookResult::Continue,
        }),
        reclaim: Reclaim::Stop,
        stockout: Some(Stockout {
            start: 100,
            end: 120,
        }),
        check_latency: 2,
        apply_delay: 3,
        protected: 4,
        events,
        ..Lifecycle::default()
    }
}

/// Runs the paths; returns the exit status (1 after an error).
pub fn run<P: OutputPin>(out: &mut report::LineWriter<P>) -> i32 {
    let mut failures = 0;
    let mut peak = 0;
    for run in &LIFECYCLE {
        stack::paint();
        let start = board::Mark::now();
        let p = autoscale::Params {
            seed: run.seed,
            lifecycle: (run.lifecycle)(),
            ..autoscale::Params::default()
        };
        let header = capsim_core::trace::autoscale_header(out);
        let mut rows = CsvTrace::new(&mut *out, false);
        let result = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut rows);
        let rows = rows.result;
        let written = header.and(rows).and(out.flush());
        let result = result
            .map(|_| ())
            .map_err(LessonError::from)
            .and(written.map_err(LessonError::from));
        peak = peak.max(stack::peak());
        // The notes name a run by its host flags.
        match result {
            Ok(()) => report::work(run.flags, start.instructions_since(), stack::peak()),
            Err(error) => {
                report::failed(run.flags, &error);
                failures += 1;
            }
        }
    }
    #[cfg(not(board = "microbit"))]
    {
        stack::paint();
        let start = board::Mark::now();
        match formula(out) {
            Ok(()) => report::work("formula", start.instructions_since(), stack::peak()),
            Err(()) => failures += 1,
        }
        peak = peak.max(stack::peak());
    }
    report::stack(board::NAME, peak, stack::size());
    i32::from(failures > 0)
}

/// Microsoft's example 1, as the EvaluateAutoScale snippet prints it.
#[cfg(not(board = "microbit"))]
const EXAMPLE_1: &str = include_str!("../../examples/formulas/working-hours-evaluated.formula");

/// The expression nodes and vector values a board's formula holds: example 1 takes far
/// fewer; a formula over them is a capacity error naming the limit.
#[cfg(not(board = "microbit"))]
const BOARD_CAPACITY: usize = 512;

/// The formula's program (about 22 KB, its 8 KB source included) and workspace (about 7 KB),
/// in static RAM: built in place, never copied through the stack. Only the `paths` build
/// links them.
#[cfg(not(board = "microbit"))]
static FORMULA: critical_section::Mutex<
    core::cell::RefCell<(
        capsim_core::formula::BoundedProgram<BOARD_CAPACITY>,
        capsim_core::formula::BoundedWorkspace<BOARD_CAPACITY>,
    )>,
> = critical_section::Mutex::new(core::cell::RefCell::new((
    capsim_core::formula::BoundedProgram::new(),
    capsim_core::formula::BoundedWorkspace::new(1),
)));

/// Evaluates [`EXAMPLE_1`] once at the documented time, with `capsim formula eval`'s
/// defaults (no samples, a 60 s delay, `rand()` seed 1), and prints the results string.
#[cfg(not(board = "microbit"))]
fn formula<P: OutputPin>(out: &mut report::LineWriter<P>) -> Result<(), ()> {
    use capsim_core::formula::{evaluate, History, Inputs, Timestamp, DEFAULT_DELAY};
    use core::fmt::Write as _;
    let failed = |what: &dyn core::fmt::Display| {
        error!("# error formula: {}", crate::fmt::Show(what));
    };
    let history: History<1> = History::new(DEFAULT_DELAY);
    let Some(now) = Timestamp::parse("2016-10-13T19:18:47.805Z") else {
        failed(&"the documented time does not parse");
        return Err(());
    };
    critical_section::with(|cs| {
        let mut formula = FORMULA.borrow_ref_mut(cs);
        let (program, ws) = &mut *formula;
        if let Err(e) = program.parse(EXAMPLE_1) {
            failed(&e);
            return Err(());
        }
        match evaluate(program, &Inputs::new(now, &history), ws) {
            Ok(outcome) => {
                if writeln!(out, "{outcome}").and(out.flush()).is_err() {
                    failed(&"stdout failed");
                    return Err(());
                }
                Ok(())
            }
            Err(e) => {
                failed(&e);
                Err(())
            }
        }
    })
}
