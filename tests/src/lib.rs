//! Shared helpers for the cross-crate tests and the CLI's tests (`capsim` has this crate as a
//! dev-dependency, and so has the fuzz crate): the committed expected files, a workspace for
//! the lessons, the group lifecycle's invariants, and the [`reference`](mod@reference) ports of the lesson
//! programs, the one oracle the tests and the fuzz targets compare the engines against.

pub mod reference;

use capsim_core::autoscale::{self, HookResult, Metrics, Params, Reclaim, RoundState, State};
use capsim_core::autoscale::{Chosen, Curve, GroupStorage, LessonCheck, ScalingPolicy};
use capsim_core::consumers::Workspace;
use capsim_core::lesson::{render, Lesson, LESSON_SHIPMENTS};
use capsim_core::rng::{GroupLcg, UnitRng};
use capsim_core::{Error, Observer};

/// Returns the text of `tests/<relative>` (`golden/…`, `data/…`); panics naming the file.
pub fn read(relative: &str) -> String {
    let path = format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Returns what the lesson program printed for lesson `name` (`tests/golden/<name>.out`).
pub fn golden(name: &str) -> Vec<u8> {
    read(&format!("golden/{name}.out")).into_bytes()
}

/// Returns the English translation of lesson `name`'s output (`tests/golden/<name>.en.out`):
/// the same rows and the same numbers as [`golden`], in English.
pub fn golden_en(name: &str) -> Vec<u8> {
    read(&format!("golden/{name}.en.out")).into_bytes()
}

/// Returns a workspace that holds every lesson, on the heap (it is tens of kilobytes).
pub fn lesson_workspace() -> Box<Workspace<LESSON_SHIPMENTS>> {
    Box::new(Workspace::new())
}

/// Returns `lesson` rendered with a fresh [`lesson_workspace`].
pub fn rendered(lesson: Lesson) -> String {
    let mut out = String::new();
    render(lesson, &mut out, &mut lesson_workspace())
        .unwrap_or_else(|e| panic!("{}: {e}", lesson.name()));
    out
}

/// Records every round's snapshot of a group run.
#[derive(Default)]
pub struct GroupTape(pub Vec<RoundState>);

impl Observer<RoundState> for GroupTape {
    fn round(&mut self, s: &RoundState) {
        self.0.push(*s);
    }
}

/// Wants every round's state and does nothing with it: a run it watches takes the reference
/// engine (`autoscale::plan`), whatever its parameters.
pub struct Watched;

impl Observer<RoundState> for Watched {}

/// Runs `p` on the reference engine: its own policy and check ([`Chosen::of`],
/// [`LessonCheck::of`]) and demand curve through `autoscale::run_in`, in a board's storage,
/// [`Watched`], the health checks drawing from `rng`. What the fast engines must equal.
pub fn reference_run<R: UnitRng>(p: &Params, rng: &mut R) -> Result<Metrics, Error> {
    let (mut policy, mut check) = (Chosen::of(p), LessonCheck::of(p));
    let mut storage = GroupStorage::new();
    autoscale::run_in(
        p,
        &mut storage,
        Curve(p),
        &mut policy,
        &mut check,
        rng,
        &mut Watched,
    )
}

/// Runs `p` driven by `policy` (a formula, a test's own) with the lesson's check, demand
/// curve and generator of `p.seed`, in a board's storage, calling `observer` after every
/// round: `autoscale::run_in` with every other part the parameters' own.
pub fn run_policy<P: ScalingPolicy, O: Observer<RoundState>>(
    p: &Params,
    policy: &mut P,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut storage = GroupStorage::new();
    autoscale::run_in(
        p,
        &mut storage,
        Curve(p),
        policy,
        &mut LessonCheck::of(p),
        &mut GroupLcg::new(p.seed),
        observer,
    )
}

/// Sums `f` over the snapshots of rounds `from..=to` (clamped to the run).
fn window(tape: &[RoundState], from: i64, to: i64, f: impl Fn(&RoundState) -> u32) -> u32 {
    tape.iter()
        .filter(|s| (from..=to).contains(&i64::from(s.round)))
        .map(f)
        .sum()
}

/// Asserts that a successful run of `p` that gave `m` and reported `tape` (every round's
/// snapshot) adds up, whatever drives it (the threshold policy or a formula): one snapshot
/// a round, the state counts add up to the group, and the billed, idle, launched, restarted
/// and failed-launch metrics are the per-round figures summed, the group's extremes and
/// under-capacity rounds the rounds' own, the evaluations and failed ones the rounds marked
/// so. The `formula_lifecycle` fuzz target's oracle, and
/// part of [`check_lifecycle_run`]'s.
pub fn check_round_sums(p: &Params, tape: &[RoundState], m: &Metrics) {
    assert_eq!(tape.len(), p.rounds as usize, "{p:?}");
    let (mut billed, mut idle, mut serving) = (0u64, 0u64, 0u64);
    for s in tape {
        assert_eq!(s.counts.total(), s.size, "{p:?} round {}", s.round);
        // A warm pool's instances are not in the group, but billed when they run.
        let b =
            s.size - s.counts.get(State::Stopped) - s.counts.get(State::Preempted) + s.warm_billed;
        billed += u64::from(b);
        idle += u64::from(b - s.counts.serving() + s.entered_service);
        serving += u64::from(s.counts.serving());
    }
    assert_eq!(m.billed_rounds, billed, "{p:?}");
    assert_eq!(m.idle_billed_rounds, idle, "{p:?}");
    assert!(m.billed_rounds >= serving);
    let sum = |f: fn(&RoundState) -> u64| tape.iter().map(f).sum::<u64>();
    assert_eq!(
        u64::from(m.launched),
        sum(|s| u64::from(s.launched)),
        "{p:?}"
    );
    // A round's restarts are Stopped instances' and the warm pool's warm starts.
    assert_eq!(
        u64::from(m.restarts_from_stopped) + u64::from(m.warm_starts),
        sum(|s| u64::from(s.restarted))
    );
    // Stopped instance-rounds: the group's Stopped records and a Stopped warm pool's ones.
    assert_eq!(
        m.stopped_rounds,
        // In u64: a max-desired pool of a group without a maximum counts up to u32::MAX.
        sum(
            |s| u64::from(s.counts.get(State::Stopped)) + u64::from(s.warm)
                - u64::from(s.warm_billed)
        ),
        "{p:?}"
    );
    assert_eq!(u64::from(m.preemptions), sum(|s| u64::from(s.preempted)));
    assert_eq!(m.spot_max, tape.iter().map(|s| s.spot).max().unwrap_or(0));
    assert!(m.billed_spot_rounds <= m.billed_rounds);
    if !p.lifecycle.spot.enabled() {
        assert_eq!((m.spot_max, m.preemptions, m.billed_spot_rounds), (0, 0, 0));
    }
    if p.lifecycle.warm_pool.size == 0 {
        assert_eq!(m.warm_starts, 0);
        assert!(tape.iter().all(|s| s.warm == 0));
    }
    assert_eq!(m.failed_launches, sum(|s| u64::from(s.failed)), "{p:?}");
    // The evaluation record: a round marked evaluated per evaluation, failed per failure.
    assert_eq!(
        u64::from(m.evaluations),
        sum(|s| u64::from(s.evaluated)),
        "{p:?}"
    );
    assert_eq!(
        u64::from(m.failed_evaluations),
        sum(|s| u64::from(s.evaluation_failed)),
        "{p:?}"
    );
    assert!(tape.iter().all(|s| s.evaluated || !s.evaluation_failed));
    let sizes = || tape.iter().map(|s| s.size);
    assert_eq!(m.max_size, sizes().max().unwrap_or(0), "{p:?}");
    // The lesson's minimum starts at `min_size_start` (99: it never exceeds 99).
    assert_eq!(
        Some(m.min_size),
        sizes().chain([p.min_size_start]).min(),
        "{p:?}"
    );
}

/// Asserts the lifecycle's invariants on a successful run of `p` that gave `m` and reported
/// `tape` (every round's snapshot): the state counts add up, hook waits end by their timeout,
/// and the billing and counting metrics are the per-round figures summed. Shared by the
/// random-parameter test (`tests/lifecycle.rs`) and the `lifecycle` fuzz target.
pub fn check_lifecycle_run(p: &Params, tape: &[RoundState], m: &Metrics) {
    check_round_sums(p, tape, m);
    let l = &p.lifecycle;
    assert_eq!(tape.len(), p.rounds as usize, "{p:?}");
    let (mut billed, mut idle, mut serving) = (0u64, 0u64, 0u64);
    let boot = i64::from(p.boot_rounds.max(1));
    let restart = i64::from(l.restart_rounds.max(1));
    // A scenario's hooks wait as long as their jobs, heartbeats and caps make them: the
    // windows below hold for the one-hook flags only.
    let (launch_list, terminate_list) = (!l.launch_hooks.is_empty(), !l.terminate_hooks.is_empty());
    for s in tape {
        // Every instance is in exactly one state: the counts add up to the group.
        assert_eq!(s.counts.total(), s.size, "{p:?}");
        assert!(s.size as usize <= autoscale::MAX_GROUP_SIZE);
        // Removing lasts no whole round here.
        assert_eq!(s.counts.get(State::Removing), 0);
        // A warm pool's instances are not in the group, but billed when they run.
        let b =
            s.size - s.counts.get(State::Stopped) - s.counts.get(State::Preempted) + s.warm_billed;
        billed += u64::from(b);
        // Billed idle: every round an instance is billed and does not serve, so the round at
        // whose end it comes into service too (it serves from the next one).
        idle += u64::from(b - s.counts.serving() + s.entered_service);
        serving += u64::from(s.counts.serving());
        let t = i64::from(s.round);
        // An instance comes into service `boot` rounds (`restart` for a restart) plus its
        // launch-hook wait after the round it joined, counting that round: those entering
        // now joined in that one round (some may have left since: replaced, cancelled,
        // abandoned).
        let hook = l.launch_hook.map_or(0, |h| i64::from(h.rounds));
        let joined = window(tape, t - boot - hook + 1, t - boot - hook + 1, |s| {
            s.launched
        }) + window(tape, t - restart - hook + 1, t - restart - hook + 1, |s| {
            s.restarted
        });
        assert!(
            launch_list || s.entered_service <= joined,
            "{p:?} round {t}"
        );
        // Hooks end by their timeout: an instance launched (joined) in round j waits in
        // Pending:Wait at the end of rounds j + boot − 1 … j + boot + H − 2 only, so those
        // waiting now were launched or restarted in a window H rounds wide.
        let waiting = s.counts.get(State::PendingWait);
        match l.launch_hook {
            _ if launch_list => {}
            None => assert_eq!(waiting, 0),
            Some(h) => {
                let h = i64::from(h.rounds);
                let launched = window(tape, t - boot - h + 2, t - boot + 1, |s| s.launched);
                let restarted = window(tape, t - restart - h + 2, t - restart + 1, |s| s.restarted);
                assert!(waiting <= launched + restarted, "{p:?} round {t}");
            }
        }
        // A victim waits in Removing:Wait at the end of rounds v … v + H − 2 only.
        let leaving = s.counts.get(State::RemovingWait);
        match l.terminate_hook {
            _ if terminate_list => {}
            None => assert_eq!(leaving, 0),
            Some(h) => {
                let removed = window(tape, t - i64::from(h.rounds) + 2, t, |s| s.removed);
                assert!(leaving <= removed, "{p:?} round {t}");
            }
        }
        if l.reclaim == Reclaim::Release {
            assert_eq!(s.counts.get(State::Stopped), 0);
        }
    }
    // Billed ≥ serving; billing and idleness are the per-round counts summed.
    assert_eq!(m.billed_rounds, billed, "{p:?}");
    assert_eq!(m.idle_billed_rounds, idle, "{p:?}");
    assert!(m.billed_rounds >= serving);
    assert_eq!(
        u64::from(m.launched),
        tape.iter().map(|s| u64::from(s.launched)).sum::<u64>()
    );
    assert_eq!(
        m.restarts_from_stopped + m.warm_starts,
        tape.iter().map(|s| s.restarted).sum::<u32>()
    );
    assert_eq!(
        m.failed_launches,
        tape.iter().map(|s| u64::from(s.failed)).sum::<u64>()
    );
    if l.stockout.is_none() {
        assert_eq!(m.failed_launches, 0);
    }
    if l.reclaim == Reclaim::Release {
        assert_eq!(m.restarts_from_stopped, 0);
    }
    if l.launch_hook
        .is_none_or(|h| h.result == HookResult::Continue)
        && l.launch_hooks
            .iter()
            .all(|h| h.default_result == HookResult::Continue)
    {
        assert_eq!(m.abandoned_launches, 0);
    }
    // The scenario's per-round counts sum to its metrics; none without a scenario.
    let sum = |f: fn(&RoundState) -> u32| tape.iter().map(|s| u64::from(f(s))).sum::<u64>();
    assert_eq!(u64::from(m.heartbeats), sum(|s| s.heartbeats), "{p:?}");
    assert_eq!(
        u64::from(m.hook_timeouts + m.hook_completions + m.hook_cap_timeouts),
        sum(|s| s.hooks_ended),
        "{p:?}"
    );
    assert_eq!(
        sum(|s| s.actions),
        tape.iter()
            .map(|s| l.at.iter().filter(|a| a.round == s.round).count() as u64)
            .sum::<u64>()
    );
    if !launch_list && !terminate_list {
        assert_eq!(
            m.heartbeats + m.hook_completions + m.hook_cap_timeouts + m.hook_rollbacks,
            0
        );
    }
    if l.task_rounds.is_none() {
        assert_eq!(
            m.lost_task_rounds + m.drain_rounds + u64::from(m.failed_tasks),
            0
        );
    }
}
