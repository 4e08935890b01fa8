//! Host-side proof of allocation freedom: every model run and every lesson render through
//! `capsim-core` makes zero heap allocations (counted by a global allocator, per thread).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use capsim_core::formula::{self, History, Inputs, Metric, Program, Timestamp};
use capsim_core::lesson::{render, Lesson};
use capsim_core::{autoscale, bulkhead, consumers};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// A writer that only counts bytes (a `String` would allocate by itself).
struct ByteCount(usize);

impl core::fmt::Write for ByteCount {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

#[test]
fn models_and_lessons_never_allocate() {
    let mut ws = capsim_tests::lesson_workspace(); // allocated before counting
    let n = allocations_in(|| {
        autoscale::run(&autoscale::Params::default()).unwrap();
    });
    assert_eq!(n, 0, "autoscale");
    // Every lifecycle option on at once: hooks, protection, a removal policy, stopped
    // instances, the provider's three delays, and an observer of the per-round states.
    let every_option = autoscale::Params {
        lifecycle: autoscale::Lifecycle {
            launch_hook: Some(autoscale::Hook {
                rounds: 3,
                result: autoscale::HookResult::Continue,
            }),
            terminate_hook: Some(autoscale::Hook {
                rounds: 2,
                result: autoscale::HookResult::Continue,
            }),
            count_pending: true,
            protected: 3,
            removal_policy: autoscale::RemovalPolicy::Newest,
            reclaim: autoscale::Reclaim::Stop,
            restart_rounds: 1,
            check_latency: 2,
            apply_delay: 4,
            stockout: Some(autoscale::Stockout {
                start: 150,
                end: 190,
            }),
            events: [
                (30, autoscale::Action::EnterStandby),
                (60, autoscale::Action::ExitStandby),
                (90, autoscale::Action::Unprotect),
            ]
            .map(|(round, action)| autoscale::Event {
                round,
                action,
                count: 2,
            })
            .into_iter()
            .collect(),
            min_instances: Some(4),
            max_instances: Some(30),
            check_interval: 2,
            policy: autoscale::Policy::TargetTracking {
                target: 60,
                disable_scale_in: false,
            },
            // The spot class, split and struck (a warm pool excludes it: see below).
            spot: autoscale::Spot {
                preemption_rate: Some(0.05),
                preemption_rounds: [100, 200].into_iter().collect(),
                preemption_notice: 2,
                on_preemption: autoscale::OnPreemption::Replace,
                on_demand_base: Some(3),
                on_demand_percent: Some(40),
            },
            ..autoscale::Lifecycle::default()
        },
        ..autoscale::Params::default()
    };
    struct Peak(u32);
    impl capsim_core::Observer<autoscale::RoundState> for Peak {
        fn round(&mut self, s: &autoscale::RoundState) {
            self.0 = self.0.max(s.counts.get(autoscale::State::Stopped));
        }
    }
    let mut peak = Peak(0);
    let n = allocations_in(|| {
        let mut rng = capsim_core::rng::GroupLcg::new(1);
        let m = autoscale::run_with(&every_option, &mut rng, &mut peak).unwrap();
        assert!(m.restarts_from_stopped > 0 && m.failed_launches > 0);
    });
    assert_eq!(n, 0, "autoscale with every lifecycle option");
    assert!(peak.0 > 0, "instances were stopped");
    let mut warm = every_option.clone();
    warm.lifecycle.spot = autoscale::Spot::default();
    warm.lifecycle.warm_pool = autoscale::WarmPool {
        size: 6,
        state: autoscale::WarmState::Running,
        reuse: true,
    };
    let n = allocations_in(|| {
        let mut rng = capsim_core::rng::GroupLcg::new(1);
        autoscale::run_with(&warm, &mut rng, &mut Peak(0)).unwrap();
    });
    assert_eq!(n, 0, "autoscale with a warm pool");
    let n = allocations_in(|| {
        let p = consumers::Params {
            consumers: 8,
            ..consumers::Params::default()
        };
        consumers::run(&p, &mut ws).unwrap();
    });
    assert_eq!(n, 0, "consumers");
    let n = allocations_in(|| {
        bulkhead::run(&bulkhead::Params::default()).unwrap();
    });
    assert_eq!(n, 0, "bulkhead");
    for lesson in Lesson::ALL {
        let mut out = ByteCount(0);
        let n = allocations_in(|| render(lesson, &mut out, &mut ws).unwrap());
        assert_eq!(n, 0, "{}", lesson.name());
        assert!(out.0 > 500, "{} rendered", lesson.name());
    }
    // A formula: parse, record samples, evaluate, print the results string.
    let mut program = Box::new(Program::new());
    let mut history: Box<History> = Box::default();
    let mut fws = Box::new(formula::Workspace::new(1));
    let src = "$samples = $PendingTasks.GetSamplePercent(TimeInterval_Minute * 15);\n\
        $tasks = $samples < 70 ? max(0,$PendingTasks.GetSample(1)) : max( $PendingTasks.GetSample(1), avg($PendingTasks.GetSample(TimeInterval_Minute * 15)));\n\
        $curTime = time(); v = [1,2,3] * 2; p = percentile(v, 50);\n\
        $TargetDedicatedNodes = max(0, min($tasks, 20)); $NodeDeallocationOption = taskcompletion;";
    let now = Timestamp::parse("2026-10-01T01:00:00Z").unwrap();
    let mut out = ByteCount(0);
    let n = allocations_in(|| {
        program.parse(src).unwrap();
        for k in 0..40 {
            let at = Timestamp::from_ticks(now.ticks() - k * 300_000_000).unwrap();
            history.record(at, Metric::PendingTasks, k as f64).unwrap();
        }
        let inputs = Inputs::new(now, &history);
        let o = formula::evaluate(&program, &inputs, &mut fws).unwrap();
        core::fmt::write(&mut out, format_args!("{o}")).unwrap();
    });
    assert_eq!(n, 0, "formula");
    assert!(out.0 > 100, "formula results written");
    // A formula-driven run: every round samples, every 5 rounds it evaluates and scales,
    // removed nodes drain (taskcompletion).
    let n = allocations_in(|| {
        let mut policy =
            autoscale::FormulaPolicy::new(&program, &mut history, &mut fws, 5, 100.0).unwrap();
        let p = autoscale::Params::default();
        let m = capsim_tests::run_policy(&p, &mut policy, &mut ()).unwrap();
        assert_eq!(m.evaluations, 48);
        assert!(m.target_changes > 0);
    });
    assert_eq!(n, 0, "formula-driven autoscale run");
    // The counter does count: a Vec allocates.
    assert!(allocations_in(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0);
}
