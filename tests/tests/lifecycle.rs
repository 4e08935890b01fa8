//! The group lifecycle's invariants over random parameters, and the lesson model recovered
//! from the general one when every lifecycle option is off.

use capsim_core::autoscale::{
    self, Action, Event, Hook, HookResult, Lifecycle, LifecycleHook, Metrics, Params, Provider,
    Reclaim, RemovalPolicy, Stockout, Timed, TimedAction, NO_BOUND,
};
use capsim_core::rng::GroupLcg;
use capsim_core::Error;
use capsim_tests::{check_lifecycle_run, reference, GroupTape};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;

fn below(r: &mut Pcg32, n: u32) -> u32 {
    r.next_u32() % n
}

fn chance(r: &mut Pcg32) -> bool {
    r.next_u32() & 1 == 1
}

/// Random lesson parameters: small groups, demand curves that may dip below zero.
fn random_params(r: &mut Pcg32) -> Params<'static> {
    let mut p = Params {
        threshold: 1 + below(r, 4),
        cooldown: below(r, 6),
        seed: 1 + below(r, 1_000_000),
        rounds: 1 + below(r, 200),
        boot_rounds: below(r, 6),
        transient_failure: f64::from(below(r, 30)) / 100.0,
        demand_base: f64::from(below(r, 1500)) - 100.0,
        demand_amplitude: f64::from(below(r, 600)),
        demand_period: f64::from(20 + below(r, 180)),
        surge_start: below(r, 150),
        surge_end: below(r, 200),
        surge: f64::from(below(r, 1600)) - 800.0,
        ..Params::default()
    };
    p.failure_rounds.clear();
    for _ in 0..below(r, 4) {
        p.failure_rounds.push(below(r, 200)).unwrap();
    }
    p
}

fn random_hook(r: &mut Pcg32) -> Option<Hook> {
    chance(r).then(|| Hook {
        rounds: 1 + below(r, 8),
        result: if below(r, 4) == 0 {
            HookResult::Abandon
        } else {
            HookResult::Continue
        },
    })
}

fn random_lifecycle(r: &mut Pcg32) -> Lifecycle<'static> {
    Lifecycle {
        launch_hooks: &[],
        terminate_hooks: &[],
        at: Default::default(),
        task_rounds: None,
        launch_hook: random_hook(r),
        terminate_hook: random_hook(r),
        count_pending: chance(r),
        protected: below(r, 7),
        removal_policy: [
            RemovalPolicy::Lesson,
            RemovalPolicy::Oldest,
            RemovalPolicy::Newest,
        ][below(r, 3) as usize],
        reclaim: if chance(r) {
            Reclaim::Stop
        } else {
            Reclaim::Release
        },
        restart_rounds: below(r, 5),
        check_latency: below(r, 5),
        apply_delay: below(r, 6),
        stockout: chance(r).then(|| {
            let start = below(r, 150);
            Stockout {
                start,
                end: start + 1 + below(r, 40),
            }
        }),
        events: (0..below(r, 5))
            .map(|_| Event {
                round: below(r, 200),
                action: [
                    Action::EnterStandby,
                    Action::ExitStandby,
                    Action::Protect,
                    Action::Unprotect,
                ][below(r, 4) as usize],
                count: 1 + below(r, 4),
            })
            .collect(),
        min_instances: chance(r).then(|| below(r, 12)),
        max_instances: chance(r).then(|| 12 + below(r, 20)),
        check_interval: 1 + below(r, 4),
        policy: match below(r, 3) {
            0 => autoscale::Policy::Lesson,
            1 => autoscale::Policy::TargetTracking {
                target: 1 + below(r, 100),
                disable_scale_in: chance(r),
            },
            _ => {
                let mut steps = autoscale::Steps::new();
                // Bounds in thousandths of a percent: a decimal one now and then.
                let split = below(r, 120_000);
                let _ = steps.push(autoscale::Step {
                    low: 0,
                    high: 1 + split,
                    adjustment: autoscale::Adjustment::Change(-1 - below(r, 3) as i16),
                });
                let _ = steps.push(autoscale::Step {
                    low: 1 + split + below(r, 30_000),
                    high: autoscale::OPEN,
                    adjustment: autoscale::Adjustment::Percent(1 + below(r, 60) as i16),
                });
                autoscale::Policy::Step(steps)
            }
        },
        ..spot_or_warm_pool(r)
    }
}

/// A random scenario hook within its provider's ranges (ROLLBACK under Alibaba only).
fn random_scenario_hook(r: &mut Pcg32) -> LifecycleHook {
    let provider = if chance(r) {
        Provider::Aws
    } else {
        Provider::Alibaba
    };
    let results = [
        HookResult::Continue,
        HookResult::Abandon,
        HookResult::Rollback,
    ];
    let result = results[below(r, if provider == Provider::Aws { 2 } else { 3 }) as usize];
    LifecycleHook {
        provider,
        default_result: result,
        timeout: 1 + below(r, 8) as u16,
        action_rounds: below(r, 6) as u16,
        heartbeat_every: below(r, 4) as u16,
    }
}

/// A scenario's lists, kept by the test for the run to borrow.
#[derive(Default)]
struct Scenario {
    launch_hooks: Vec<LifecycleHook>,
    terminate_hooks: Vec<LifecycleHook>,
    at: Vec<TimedAction>,
}

/// Scenario hooks and timed actions, half the time each (the lists for `scenario.apply`);
/// bounds that keep the minimum (below 12) under the maximum (12 or more).
fn random_scenario(r: &mut Pcg32) -> Scenario {
    let mut scenario = Scenario::default();
    if chance(r) {
        scenario.launch_hooks = (0..1 + below(r, 3))
            .map(|_| random_scenario_hook(r))
            .collect();
    }
    if chance(r) {
        scenario.terminate_hooks = (0..1 + below(r, 3))
            .map(|_| random_scenario_hook(r))
            .collect();
    }
    if chance(r) {
        scenario.at = (0..1 + below(r, 5))
            .map(|_| {
                let what = Timed::ALL[below(r, Timed::ALL.len() as u32) as usize];
                let value = match what {
                    Timed::MinInstances => [NO_BOUND, below(r, 12)][below(r, 2) as usize],
                    Timed::MaxInstances => [NO_BOUND, 12 + below(r, 20)][below(r, 2) as usize],
                    Timed::Desired => below(r, 30),
                    Timed::EvaluationInterval => 5 + below(r, 20),
                    _ => 1 + below(r, 4),
                };
                TimedAction {
                    round: below(r, 200),
                    what,
                    value,
                }
            })
            .collect();
    }
    scenario
}

impl Scenario {
    /// Puts the lists on `l` (borrowed for the run).
    fn apply<'a>(&'a self, l: &mut Lifecycle<'a>) {
        l.launch_hooks = &self.launch_hooks;
        l.terminate_hooks = &self.terminate_hooks;
        l.at = &self.at;
    }
}

/// The spot class (a third of the time) or a warm pool (another third: the two exclude
/// each other), else neither.
fn spot_or_warm_pool(r: &mut Pcg32) -> Lifecycle<'static> {
    let mut l = Lifecycle::default();
    match below(r, 3) {
        0 => {
            l.spot = autoscale::Spot {
                preemption_rate: chance(r).then(|| f64::from(below(r, 30)) / 100.0),
                preemption_rounds: (0..below(r, 3)).map(|_| below(r, 200)).collect(),
                preemption_notice: below(r, 4),
                on_preemption: if chance(r) {
                    autoscale::OnPreemption::Replace
                } else {
                    autoscale::OnPreemption::Stay
                },
                on_demand_base: chance(r).then(|| below(r, 10)),
                on_demand_percent: Some(below(r, 101)),
            }
        }
        1 => {
            l.warm_pool = autoscale::WarmPool {
                size: below(r, 12),
                state: if chance(r) {
                    autoscale::WarmState::Running
                } else {
                    autoscale::WarmState::Stopped
                },
                reuse: chance(r),
            }
        }
        _ => {}
    }
    l
}

#[test]
fn lifecycle_invariants_hold_for_random_parameters() {
    let mut r = Pcg32::seed_from_u64(8);
    let mut ran = 0;
    for _ in 0..1500 {
        let mut p = random_params(&mut r);
        p.lifecycle = random_lifecycle(&mut r);
        let scenario = random_scenario(&mut r);
        scenario.apply(&mut p.lifecycle);
        if chance(&mut r) {
            p.lifecycle.task_rounds = Some(1 + below(&mut r, 12));
        }
        let mut tape = GroupTape::default();
        let m = match autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut tape) {
            Ok(m) => m,
            // A demand the group cannot hold is a value, not a panic.
            Err(Error::CapacityExceeded { .. }) => continue,
            Err(e) => panic!("{p:?}: {e}"),
        };
        ran += 1;
        check_lifecycle_run(&p, &tape.0, &m);
    }
    assert!(ran > 1000, "only {ran} runs fit the group");
}

#[test]
fn time_to_in_service_is_boot_plus_hook_wait() {
    // Nothing else interferes: no apply delay, no restarts, hooks that continue.
    let mut r = Pcg32::seed_from_u64(9);
    let mut checked = 0;
    for _ in 0..600 {
        let mut p = random_params(&mut r);
        let hook = random_hook(&mut r).map(|h| Hook {
            result: HookResult::Continue,
            ..h
        });
        p.lifecycle = Lifecycle {
            launch_hook: hook,
            count_pending: chance(&mut r),
            protected: below(&mut r, 4),
            check_latency: below(&mut r, 4),
            ..Lifecycle::default()
        };
        let Ok(m) = autoscale::run(&p) else { continue };
        let want = p.boot_rounds.max(1) + hook.map_or(0, |h| h.rounds);
        if m.time_to_in_service_max > 0 {
            assert_eq!(m.time_to_in_service_max, want, "{p:?}");
            checked += 1;
        }
        if hook.is_some() {
            // Every launch that waited long enough timed out its hook exactly once.
            assert!(m.hook_timeouts <= m.launched, "{p:?}");
        }
    }
    assert!(
        checked > 300,
        "only {checked} runs put an instance into service"
    );
}

// ---------------------------------------------------------------- the lesson

/// The lesson's ten metrics (the lifecycle ones are not the reference's).
fn lesson_part(m: &Metrics) -> [u64; 10] {
    [
        m.min_size.into(),
        m.max_size.into(),
        m.max_launching.into(),
        m.max_launching_ratio.to_bits(),
        m.under_capacity_rounds.into(),
        m.launched.into(),
        m.false_replacements.into(),
        m.broken_rounds.into(),
        m.scaling_actions.into(),
        m.replacements.into(),
    ]
}

#[test]
fn with_every_option_off_the_group_is_the_lesson() {
    let mut r = Pcg32::seed_from_u64(10);
    let mut compared = 0;
    for _ in 0..800 {
        let p = random_params(&mut r);
        let reference::Lesson::Metrics(want) = reference::autoscale(&p) else {
            assert!(matches!(
                autoscale::run(&p),
                Err(Error::CapacityExceeded { .. })
            ));
            continue;
        };
        let got = autoscale::run(&p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        assert_eq!(lesson_part(&got), lesson_part(&want), "{p:?}");
        compared += 1;
    }
    assert!(compared > 600, "only {compared} runs compared");
    // And the lesson's own numbers, from its text: "esik 2, soguma 0" 7-24, 46 launched.
    let reference::Lesson::Metrics(m) = reference::autoscale(&Params::default()) else {
        panic!("the lesson fits its group");
    };
    assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
}

#[test]
fn options_that_change_nothing_here_change_nothing() {
    // Without scale-in pressure on protected instances, with hooks of no consequence for
    // counting, the lesson's ten metrics stay: a removal policy is irrelevant when scale-in
    // never happens, a stockout outside the run, and restart_rounds without stopping.
    let mut r = Pcg32::seed_from_u64(11);
    for _ in 0..300 {
        let p = random_params(&mut r);
        let Ok(want) = autoscale::run(&p) else {
            continue;
        };
        let q = Params {
            lifecycle: Lifecycle {
                restart_rounds: below(&mut r, 9),
                stockout: Some(Stockout {
                    start: p.rounds,
                    end: p.rounds + 5,
                }),
                ..Lifecycle::default()
            },
            ..p.clone()
        };
        let got = autoscale::run(&q).unwrap();
        assert_eq!(lesson_part(&got), lesson_part(&want), "{q:?}");
        // The rest too (the ratio, possibly NaN, was compared by its bits above).
        let no_ratio = |m: Metrics| Metrics {
            max_launching_ratio: 0.0,
            ..m
        };
        assert_eq!(no_ratio(got), no_ratio(want), "{q:?}");
    }
}

#[test]
fn extreme_options_end_in_metrics_or_errors_never_panics() {
    let hooks = [
        None,
        Some(Hook {
            rounds: 1,
            result: HookResult::Abandon,
        }),
        Some(Hook {
            rounds: autoscale::MAX_HOOK_ROUNDS,
            result: HookResult::Continue,
        }),
    ];
    let mut runs = 0;
    for boot_rounds in [0, 1, u32::MAX] {
        for hook in hooks {
            for (protected, demand_base) in [(0, -1e300), (256, 1e300), (256, 25_000.0), (3, 0.0)] {
                for reclaim in [Reclaim::Release, Reclaim::Stop] {
                    let p = Params {
                        rounds: 400,
                        boot_rounds,
                        threshold: [1, u32::MAX][runs % 2],
                        transient_failure: 1.0,
                        demand_base,
                        lifecycle: Lifecycle {
                            launch_hooks: &[],
                            terminate_hooks: &[],
                            at: Default::default(),
                            task_rounds: None,
                            launch_hook: hook,
                            terminate_hook: hook,
                            count_pending: runs % 3 == 0,
                            protected,
                            removal_policy: RemovalPolicy::Newest,
                            reclaim,
                            restart_rounds: u32::MAX,
                            check_latency: autoscale::MAX_CHECK_LATENCY,
                            apply_delay: autoscale::MAX_APPLY_DELAY,
                            stockout: Some(Stockout {
                                start: 100,
                                end: u32::MAX,
                            }),
                            events: [(0, Action::Protect), (10, Action::EnterStandby)]
                                .map(|(round, action)| Event {
                                    round,
                                    action,
                                    count: 256,
                                })
                                .into_iter()
                                .collect(),
                            // The bounds' extremes (min never above max).
                            warm_pool: autoscale::WarmPool {
                                size: [0, autoscale::MAX_WARM_POOL][runs % 2],
                                state: autoscale::WarmState::Running,
                                reuse: true,
                            },
                            spot: autoscale::Spot::default(),
                            min_instances: Some([0, 0, 0, u32::MAX][runs % 4]),
                            max_instances: Some([0, u32::MAX, u32::MAX, u32::MAX][runs % 4]),
                            check_interval: [1, autoscale::MAX_CHECK_INTERVAL][runs % 2],
                            policy: autoscale::Policy::TargetTracking {
                                target: [1, 100][runs % 2],
                                disable_scale_in: runs % 3 == 0,
                            },
                        },
                        ..Params::default()
                    };
                    match autoscale::run(&p) {
                        Ok(m) => assert!(m.max_size <= 256),
                        Err(Error::CapacityExceeded { .. }) => {}
                        Err(e) => panic!("{p:?}: {e}"),
                    }
                    runs += 1;
                }
            }
        }
    }
    assert_eq!(runs, 72);
}
