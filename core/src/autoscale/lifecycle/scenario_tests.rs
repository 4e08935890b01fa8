//! The scenario engine through whole runs: hooks that complete early, heartbeats and caps,
//! sequences, ROLLBACK, timed actions. Expected values are derived here from the lesson's
//! boot (two rounds, S000: "açılış" 48.9 s rounded to 2 rounds) and the providers' rules.

use super::hooks::{LifecycleHook, Provider, Transition};
use super::timed::{Timed, TimedAction, NO_BOUND};
use super::{HookResult, Lifecycle};
use crate::autoscale::spec::Params;
use crate::autoscale::state::{RoundState, State};
use crate::autoscale::{run, run_with};
use crate::rng::GroupLcg;
use crate::Observer;

extern crate std;

/// The lesson's boot, in rounds (S000).
const LESSON_BOOT: u32 = 2;

fn hook(timeout: u16) -> LifecycleHook {
    LifecycleHook::plain(timeout, HookResult::Continue)
}

fn with(lifecycle: Lifecycle<'_>) -> Params<'_> {
    Params {
        lifecycle,
        ..Params::default()
    }
}

/// `with`, the policy counting launches in progress (a long wait would otherwise launch
/// every round of it: the lesson's false demand signal).
fn counting(lifecycle: Lifecycle<'_>) -> Params<'_> {
    with(Lifecycle {
        count_pending: true,
        ..lifecycle
    })
}

fn hooks(list: &[LifecycleHook]) -> Lifecycle<'_> {
    Lifecycle {
        launch_hooks: list,
        ..Lifecycle::default()
    }
}

fn terminate_hooks(list: &[LifecycleHook]) -> Lifecycle<'_> {
    Lifecycle {
        terminate_hooks: list,
        ..Lifecycle::default()
    }
}

/// Timed actions `(round, what, value)` as lifecycle options: constants, so the list is a
/// `'static` the compiler keeps (the run borrows it).
macro_rules! at {
    ($(($round:expr, $what:expr, $value:expr)),* $(,)?) => {
        Lifecycle {
            at: &[$(TimedAction { round: $round, what: $what, value: $value }),*],
            ..Lifecycle::default()
        }
    };
}

/// Every round's state.
#[derive(Default)]
struct Rounds(std::vec::Vec<RoundState>);

impl Observer<RoundState> for Rounds {
    fn round(&mut self, s: &RoundState) {
        self.0.push(*s);
    }
}

fn rounds(p: &Params) -> Rounds {
    let mut r = Rounds::default();
    run_with(p, &mut GroupLcg::new(p.seed), &mut r).unwrap();
    r
}

#[test]
fn the_lessons_boot_is_two_rounds() {
    assert_eq!(Params::default().boot_rounds, LESSON_BOOT);
}

#[test]
fn a_hooks_job_completes_its_wait_early() {
    let mut h = hook(10);
    h.action_rounds = 3;
    let m = run(&with(hooks(&[h]))).unwrap();
    assert_eq!(m.time_to_in_service_max, LESSON_BOOT + 3);
    // Without the job, the whole timeout.
    let m = run(&with(hooks(&[hook(10)]))).unwrap();
    assert_eq!(m.time_to_in_service_max, LESSON_BOOT + 10);
    // A job at or past the timeout never completes it.
    h.action_rounds = 10;
    assert_eq!(
        run(&with(hooks(&[h]))).unwrap().time_to_in_service_max,
        LESSON_BOOT + 10
    );
}

#[test]
fn heartbeats_extend_a_wait_until_the_providers_cap() {
    // Alibaba: a heartbeat every 5 rounds of a 10-round timeout, 20 heartbeats at most:
    // 20 × 5 rounds, then one last full timeout.
    let mut h = hook(10);
    h.heartbeat_every = 5;
    let m = run(&counting(hooks(&[h]))).unwrap();
    assert_eq!(m.time_to_in_service_max, LESSON_BOOT + 20 * 5 + 10);
    // AWS: a heartbeat every round of a 2-round timeout runs into the global timeout,
    // 100 × the timeout.
    let h = LifecycleHook {
        provider: Provider::Aws,
        default_result: HookResult::Continue,
        timeout: 2,
        heartbeat_every: 1,
        ..hook(2)
    };
    let m = run(&counting(hooks(&[h]))).unwrap();
    assert_eq!(m.time_to_in_service_max, LESSON_BOOT + 100 * 2);
    // Alibaba: six hours at most (a 240-round day is too short to see it end: 400 rounds).
    let h = LifecycleHook {
        timeout: 300,
        heartbeat_every: 100,
        ..hook(300)
    };
    let list = [h];
    let p = Params {
        rounds: 400,
        ..counting(hooks(&list))
    };
    let m = run(&p).unwrap();
    assert_eq!(m.time_to_in_service_max, LESSON_BOOT + 360);
}

#[test]
fn the_one_hook_flags_are_a_plain_hook() {
    for (result, transition) in [
        (HookResult::Continue, Transition::Launch),
        (HookResult::Abandon, Transition::Launch),
        (HookResult::Continue, Transition::Terminate),
        (HookResult::Abandon, Transition::Terminate),
    ] {
        let short = crate::autoscale::Hook { rounds: 7, result };
        let flag = match transition {
            Transition::Launch => Lifecycle {
                launch_hook: Some(short),
                ..Lifecycle::default()
            },
            Transition::Terminate => Lifecycle {
                terminate_hook: Some(short),
                ..Lifecycle::default()
            },
        };
        let plain = [LifecycleHook::plain(7, result)];
        let listed = match transition {
            Transition::Launch => hooks(&plain),
            Transition::Terminate => terminate_hooks(&plain),
        };
        assert_eq!(run(&with(flag)).unwrap(), run(&with(listed)).unwrap());
    }
}

#[test]
fn hooks_of_a_transition_run_one_after_another() {
    let mut first = hook(6);
    first.action_rounds = 2;
    let second = hook(4);
    let m = run(&with(hooks(&[first, second]))).unwrap();
    assert_eq!(m.time_to_in_service_max, LESSON_BOOT + 2 + 4);
    // The shorthand runs first, then the list.
    let list = [second];
    let p = with(Lifecycle {
        launch_hook: Some(crate::autoscale::Hook {
            rounds: 3,
            result: HookResult::Continue,
        }),
        ..hooks(&list)
    });
    assert_eq!(run(&p).unwrap().time_to_in_service_max, LESSON_BOOT + 3 + 4);
    // AWS: an ABANDON ends the launch at once; Alibaba: only the last hook's result counts.
    for (provider, abandoned) in [(Provider::Aws, true), (Provider::Alibaba, false)] {
        let first = LifecycleHook {
            provider,
            default_result: HookResult::Abandon,
            ..hook(2)
        };
        let m = run(&with(hooks(&[first, second]))).unwrap();
        assert_eq!(m.abandoned_launches > 0, abandoned, "{provider:?}");
        assert_eq!(m.time_to_in_service_max > 0, !abandoned, "{provider:?}");
    }
}

#[test]
fn a_rollback_keeps_the_instance_in_service() {
    let removal = |result| LifecycleHook {
        default_result: result,
        ..hook(3)
    };
    let cont = rounds(&with(terminate_hooks(&[removal(HookResult::Continue)])));
    let back = rounds(&with(terminate_hooks(&[removal(HookResult::Rollback)])));
    // Every removal comes back after its 3 rounds: the group never shrinks below what it
    // has once grown to, by scale-in.
    let removed: u32 = back.0.iter().map(|s| s.removed).sum();
    assert!(removed > 0);
    let last = |r: &Rounds| r.0.last().map_or(0, |s| s.counts.get(State::InService));
    assert!(last(&back) > last(&cont), "{} {}", last(&back), last(&cont));
    // A terminate ABANDON ends the remaining hooks: a long second hook is skipped.
    let abandon_then_long = [removal(HookResult::Abandon), hook(50)];
    let cont_then_long = [removal(HookResult::Continue), hook(50)];
    let (abandon_then_long, cont_then_long) = (
        terminate_hooks(&abandon_then_long),
        terminate_hooks(&cont_then_long),
    );
    let a = run(&with(abandon_then_long)).unwrap();
    let c = run(&with(cont_then_long)).unwrap();
    assert!(a.billed_rounds < c.billed_rounds);
}

#[test]
fn a_timed_maximum_holds_the_group_from_its_round_on() {
    let p = with(at!((100, Timed::MaxInstances, 12)));
    let r = rounds(&p);
    let after = r.0.iter().filter(|s| s.round >= 101).map(|s| s.size);
    assert_eq!(
        after.clone().max(),
        Some(12),
        "the surge needs more than 12"
    );
    // Before round 100 nothing changed: the lesson's own rounds.
    let lesson = rounds(&Params::default());
    assert_eq!(r.0[..100], lesson.0[..100]);
    assert!(lesson.0[101..].iter().any(|s| s.size > 12));
    assert_eq!(r.0[100].actions, 1);
    // Lifting it again lets the group grow.
    let p = with(at!(
        (100, Timed::MaxInstances, 12),
        (160, Timed::MaxInstances, NO_BOUND),
    ));
    let r = rounds(&p);
    assert!(r.0[161..].iter().any(|s| s.size > 12));
}

#[test]
fn timed_desired_detach_and_standby_move_the_group() {
    // Round 10: detach 2 of the serving instances; they leave at once.
    let lesson = rounds(&Params::default());
    let r = rounds(&with(at!((10, Timed::Detach, 2))));
    assert_eq!(r.0[10].counts.serving() + 2, lesson.0[10].counts.serving());
    // The lesson's policy, counting ready instances, launches two more in the same round.
    assert_eq!(r.0[10].launched, lesson.0[10].launched + 2);
    assert_eq!(r.0[10].actions, 1);
    // Desired 20 at round 30: 20 instances serving or launching at its end.
    let r = rounds(&with(at!((30, Timed::Desired, 20))));
    let s = r.0[30];
    assert!(s.counts.serving() + s.counts.launching() >= 20, "{s:?}");
    // Standby as a timed action is the scripted event.
    let ev = Lifecycle {
        events: [crate::autoscale::Event {
            round: 50,
            action: crate::autoscale::Action::EnterStandby,
            count: 3,
        }]
        .into_iter()
        .collect(),
        ..Lifecycle::default()
    };
    assert_eq!(
        run(&with(ev)).unwrap(),
        run(&with(at!((50, Timed::Standby, 3)))).unwrap()
    );
}

#[test]
fn the_bounds_of_timed_actions_are_checked() {
    let bad = with(Lifecycle {
        min_instances: Some(5),
        ..at!((10, Timed::MaxInstances, 4))
    });
    assert!(run(&bad).is_err());
    let bad = with(at!((10, Timed::Detach, 0)));
    assert!(run(&bad).is_err());
    let ok = with(Lifecycle {
        min_instances: Some(5),
        ..at!(
            (10, Timed::MinInstances, NO_BOUND),
            (20, Timed::MaxInstances, 4),
        )
    });
    assert!(run(&ok).is_ok());
    let mut h = hook(121);
    h.provider = Provider::Aws;
    assert!(run(&with(hooks(&[h]))).is_err());
}
