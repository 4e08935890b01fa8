//! Auto-scaling group: a scaling policy and a health check change the same group size.
//!
//! With default [`Params`] this is the lesson's model (`grup.mjs`, its specification), for
//! any demand curve: one that goes negative can empty the group (scaling to zero). With
//! [`Lifecycle`] options it is the group as providers run it (Alibaba Auto Scaling first,
//! AWS EC2 Auto Scaling second): instances move through the seed's states ([`State`]),
//! lifecycle hooks hold them in wait states, protected instances are never scaled in,
//! scale-in may stop instead of release, and the provider's delays can be switched on. Where
//! the model departs from the specification's proposal, and why:
//! `docs/decisions/autoscale-lifecycle.md`.
//!
//! A round is five phases, in this order (one file a phase in `reference/`):
//! 1. permanent failures strike, then scripted and timed actions apply, then the spot class
//!    ([`Spot`]) is preempted;
//! 2. the health check ([`HealthCheck`]; it ignores the cooldown) checks every serving
//!    instance; `threshold` failed results in a row replace it in place;
//! 3. delayed launches join; the [`ScalingPolicy`] decides a change, which launches
//!    (Stopped instances restart first) or scales in (by the removal policy);
//! 4. timers advance (boot, restart, hook waits: a hook of H rounds adds exactly H), then a
//!    warm pool ([`WarmPool`]) refills;
//! 5. metrics, then the observer ([`crate::Observer::round`], `round_done`).
//!
//! The lesson's defaults are [`LessonPolicy`] and [`LessonCheck`]; its quirks are named where
//! they live ([`Params::min_size_start`], [`RemovalPolicy::Lesson`]). No option draws from
//! the lesson's generator.
//!
//! # Runs
//!
//! Three doors, each asking [`plan()`] which engine computes the run:
//! - [`run`]: the lesson's generator, the parameters' own policy and check ([`Chosen::of`],
//!   [`LessonCheck::of`]) and demand curve, a board's storage;
//! - [`run_in`]: every part the caller's: storage ([`GroupStorage`] of any capacity), demand
//!   ([`Demand`]), policy, check, generator and observer;
//! - [`run_batch`]: parameter sets of one seed and one demand curve, each reading one cached
//!   stream from its start (in lockstep when they share their rounds, capacity and failure
//!   probability).
//!
//! And one convenience for boards, on the same dispatch: [`run_with`], [`run`] with the
//! caller's generator and observer (a board's trace).
//!
//! A run's records live in storage the caller provides or in a frame of their own (never on
//! the stack while a fast engine runs): 16 bytes each, at most [`MAX_GROUP_SIZE`] on a board;
//! a run that would grow past its storage returns [`Error::CapacityExceeded`] naming the
//! capacity. Validation happens once, in [`Params::validate`]; nothing here panics.
//!
//! # Engines
//!
//! The reference engine (`reference/`) computes every input; the fast engines (`fast/`: bit
//! masks, and a batch's runs in lockstep) the lesson's policy, check and lifecycle in a
//! board's storage, unobserved. [`plan()`] (`plan.rs`) is the one choice between them; the
//! fast engines read a parameter set only through the part it compares. Every engine
//! computes the same [`Metrics`], bit for bit (`tests/tests/engines.rs`); their costs are in
//! `host/benches/README.md`.
//!
//! ```
//! use capsim_core::autoscale::{run, Params};
//! let m = run(&Params { threshold: 2, cooldown: 0, ..Params::default() }).unwrap();
//! assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
//! ```

use crate::error::Error;
use crate::rng::{GroupLcg, GroupStream, UnitRng};
use crate::Observer;

mod chosen;
mod fast;
mod formula;
pub mod hpa;
mod lifecycle;
mod limits;
mod metrics;
mod plan;
mod policy;
mod reference;
mod spec;
mod spot;
mod state;
mod warm;

pub use chosen::Chosen;
pub use formula::{
    check_interval, FormulaPolicy, DEFAULT_EVALUATION_INTERVAL, EPOCH, MAX_EVALUATION_INTERVAL,
    MIN_EVALUATION_INTERVAL,
};
pub use lifecycle::{
    Action, Adjustment, Event, Events, Hook, HookResult, Lifecycle, Policy, Reclaim, RemovalPolicy,
    Step, Steps, Stockout, MAX_EVENTS, OPEN, STEP_BOUND_UNIT, TARGET_TRACKING_SCALE_IN_ROUNDS,
    TARGET_TRACKING_SCALE_OUT_ROUNDS,
};
pub use lifecycle::{
    LifecycleHook, Provider, Timed, TimedAction, Transition, MAX_HOOKS, MAX_TASK_ROUNDS, MAX_TIMED,
    NO_BOUND, RETAINED_DATA_ROUNDS,
};
pub use limits::{
    MAX_APPLY_DELAY, MAX_CHECK_INTERVAL, MAX_CHECK_LATENCY, MAX_FAILURE_ROUNDS, MAX_GROUP_SIZE,
    MAX_HOOK_ROUNDS, MAX_ROUNDS, MAX_ROUNDS_PER_PERIOD, MAX_STEPS,
};
pub use metrics::Metrics;
pub use plan::{plan, Engine, Runs};
#[cfg(feature = "hpa")]
pub use policy::InstanceView;
pub use policy::{
    utilization, HealthCheck, LessonCheck, LessonPolicy, ScalingPolicy, Signal, StepPolicy,
    TargetTracking,
};
pub use reference::GroupStorage;
use reference::{FastOnly, OnStack, Records};
pub use spec::{Curve, Demand, DemandCurve, FailureRounds, Params, Table};
pub use spot::{
    OnPreemption, PreemptionRounds, Spot, MAX_PREEMPTION_NOTICE, MAX_PREEMPTION_ROUNDS,
};
pub use state::{RoundState, State, StateCounts};
pub use warm::{WarmPool, WarmState, MAX_MINUS_DESIRED, MAX_WARM_POOL};

/// Runs the model with the lesson's generator seeded from `params.seed`.
pub fn run(params: &Params) -> Result<Metrics, Error> {
    run_with(params, &mut GroupLcg::new(params.seed), &mut ())
}

/// Runs the model as [`run`] does, drawing health checks from `rng` (`params.seed` is not
/// used) and calling `observer` after every round: a board's convenience.
pub fn run_with<R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    run_with_demand(params, &mut OnStack, &Curve(params), rng, observer)
}

/// [`run_with`] with `demand` supplied by the caller (a batch's runs alone): the
/// parameters' own policy and check, a board's storage.
fn run_with_demand<S: Records, R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    storage: &mut S,
    demand: &impl Demand,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut policy = Chosen::of(params);
    let mut check = LessonCheck::of(params);
    dispatch(
        params,
        storage,
        demand,
        &mut policy,
        &mut check,
        rng,
        observer,
    )
}

/// A lesson's run ([`crate::lesson`]): [`run_with`] with the lesson's demand table. Watched
/// round by round it runs in a board's storage; unwatched (a board pacing the suite) its
/// storage holds no records (`FastOnly`): the lesson's parameters take a fast engine, so a
/// board's lesson image links no reference engine, and no option or policy the lessons do
/// not run.
pub(crate) fn run_lesson<R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    demand: &impl Demand,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    if O::ROUNDS {
        run_with_demand(params, &mut OnStack, demand, rng, observer)
    } else {
        run_with_demand(params, &mut FastOnly, demand, rng, observer)
    }
}

/// A lesson's batch ([`run_batch`], the lesson's pairs on its stream), in no records
/// (`FastOnly`, as [`run_lesson`]'s unwatched runs).
pub(crate) fn run_lesson_batch<S: AsRef<[u32]> + AsMut<[u32]>, const N: usize>(
    params: &[Params; N],
    demand: impl Demand,
    stream: &mut GroupStream<S>,
) -> [Result<Metrics, Error>; N] {
    batch_in(params, demand, stream, &mut FastOnly)
}

/// Runs the model with every part the caller's: the group's records in `storage` (up to `N`
/// instances: a host's group of thousands is boxed), the demand of each round, the scaling
/// policy (the parameters' own: [`Chosen::of`]), the health check (the lesson's:
/// [`LessonCheck::of`]), the generator the check draws from and the observer called after
/// every round. The policy and the check are the caller's, so the parameters' policy
/// fields (`cooldown`, `lifecycle.policy`, `lifecycle.count_pending`) and
/// `transient_failure` act only through the policy and check the caller built from them.
/// A policy's own counts (a formula's evaluations) go into the metrics
/// ([`ScalingPolicy::finish`]).
///
/// ```
/// use capsim_core::autoscale::{run, run_in, Chosen, GroupStorage, LessonCheck, Params};
/// use capsim_core::rng::GroupLcg;
/// let p = Params { demand_base: 300_000.0, demand_amplitude: 0.0, surge: 0.0, ..Params::default() };
/// assert!(run(&p).is_err()); // 3,000 instances: more than a board's 256
/// let mut storage = Box::new(GroupStorage::<4096>::with_capacity());
/// let (mut policy, mut check) = (Chosen::of(&p), LessonCheck::of(&p));
/// let mut rng = GroupLcg::new(p.seed);
/// let m = run_in(&p, &mut *storage, |t| p.demand(t), &mut policy, &mut check, &mut rng, &mut ())
///     .unwrap();
/// assert!((3000..=4096).contains(&m.max_size)); // 3,000 needed, replacements on top
/// ```
///
/// A policy returns a change; a target-tracking one subtracts what it counts:
///
/// ```
/// use capsim_core::autoscale::{run_in, GroupStorage, LessonCheck, Params, ScalingPolicy, Signal};
/// use capsim_core::rng::GroupLcg;
///
/// /// Keeps ten instances serving or on their way, whatever the demand.
/// struct Fixed(u32);
/// impl ScalingPolicy for Fixed {
///     fn decide(&mut self, s: &Signal) -> i64 {
///         let have = s.counts.serving() + s.counts.launching() + s.in_flight;
///         i64::from(self.0) - i64::from(have)
///     }
/// }
/// let p = Params::default();
/// let mut check = LessonCheck { transient_failure: 0.0 };
/// let mut rng = GroupLcg::new(p.seed);
/// let mut storage = GroupStorage::new();
/// let m = run_in(&p, &mut storage, |t| p.demand(t), &mut Fixed(10), &mut check, &mut rng, &mut ())
///     .unwrap();
/// // 9 serve at first (900 / 100): 1 launch; 3 break for good and are replaced.
/// assert_eq!((m.max_size, m.launched), (10, 1 + 3));
/// ```
pub fn run_in<
    const N: usize,
    P: ScalingPolicy,
    H: HealthCheck,
    R: UnitRng,
    O: Observer<RoundState>,
>(
    params: &Params,
    storage: &mut GroupStorage<N>,
    demand: impl Demand,
    policy: &mut P,
    check: &mut H,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    dispatch(params, storage, &demand, policy, check, rng, observer)
}

/// Runs parameter sets of one seed and one demand curve (a batch of a grid's runs), each
/// reading `stream` (of their seed) from its start, with the parameters' own policy and
/// check in a board's storage: result `i` is what
/// `run_with(&params[i], &mut stream.reader(), &mut ())` returns with `demand` for the curve.
///
/// When [`plan()`] says [`Engine::Lockstep`] (every set takes the fast path and they share
/// their rounds, capacity and failure probability), the runs go in lockstep, a block of rounds
/// of each in turn, while the stream's generator computes ahead between their rounds: its
/// dependent chain then overlaps the simulations instead of preceding them (what that saves
/// is measured in `host/benches/README.md`).
///
/// ```
/// use capsim_core::autoscale::{run, run_batch, Params};
/// use capsim_core::rng::GroupStream;
/// let p = Params::default();
/// let pairs = [2, 5].map(|threshold| Params { threshold, ..p.clone() });
/// let mut stream = GroupStream::new(p.seed, [0u32; 3072]);
/// let results = run_batch(&pairs, |t| p.demand(t), &mut stream);
/// assert_eq!(results[1], run(&pairs[1]));
/// ```
pub fn run_batch<S: AsRef<[u32]> + AsMut<[u32]>, const N: usize>(
    params: &[Params; N],
    demand: impl Demand,
    stream: &mut GroupStream<S>,
) -> [Result<Metrics, Error>; N] {
    batch_in(params, demand, stream, &mut OnStack)
}

/// [`run_batch`], each run that goes alone in `storage`.
fn batch_in<S: AsRef<[u32]> + AsMut<[u32]>, T: Records, const N: usize>(
    params: &[Params; N],
    demand: impl Demand,
    stream: &mut GroupStream<S>,
    storage: &mut T,
) -> [Result<Metrics, Error>; N] {
    if plan(Runs::Batch(params)) == Engine::Lockstep {
        return fast::run_lockstep(params, |t| demand.at(t), stream);
    }
    core::array::from_fn(|i| {
        run_with_demand(&params[i], storage, &demand, &mut stream.reader(), &mut ())
    })
}

/// The one dispatch every run goes through: asks [`plan()`] for the engine, runs it (the
/// reference engine in `storage`'s records), and adds the policy's counts.
fn dispatch<S: Records, P: ScalingPolicy, H: HealthCheck, R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    storage: &mut S,
    demand: &impl Demand,
    policy: &mut P,
    check: &mut H,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let engine = plan(Runs::One {
        params,
        observed: O::ROUNDS,
        lessons: policy.is_lessons(params) && check.is_lessons(params),
        capacity: S::CAPACITY,
    });
    params.validate()?;
    let mut metrics = if engine == Engine::Masks {
        fast::run(params, |t| demand.at(t), rng, observer)?
    } else {
        storage
            .with(|records| reference::run(params, records, demand, policy, check, rng, observer))?
    };
    policy.finish(&mut metrics);
    Ok(metrics)
}

#[cfg(test)]
mod tests {
    use super::{run, run_lesson, Curve, Params, RoundState};
    use crate::error::{Accepted, Error};
    use crate::rng::GroupLcg;
    use crate::Observer;

    /// Paces the rounds, wants no state (a board running the suite).
    struct Paced;
    impl Observer<RoundState> for Paced {
        const ROUNDS: bool = false;
    }
    /// Wants every round's state.
    struct Watched;
    impl Observer<RoundState> for Watched {}

    /// A lesson's unwatched run takes the fast engines only: the lesson's parameters give
    /// the run's metrics, an option the lesson does not have is refused (never computed on
    /// another engine); watched, the reference engine gives the run's own.
    #[test]
    fn a_lessons_unwatched_run_reaches_the_fast_engines_only() {
        let lesson = Params::default();
        let mut rng = GroupLcg::new(lesson.seed);
        let paced = run_lesson(&lesson, &Curve(&lesson), &mut rng, &mut Paced);
        assert_eq!(paced, run(&lesson));
        let mut delayed = lesson.clone();
        delayed.lifecycle.apply_delay = 1;
        let mut rng = GroupLcg::new(lesson.seed);
        let refused = run_lesson(&delayed, &Curve(&delayed), &mut rng, &mut Paced);
        let lesson_only = Error::OutOfRange {
            param: "lesson",
            accepted: Accepted::LessonOnly,
        };
        assert_eq!(refused, Err(lesson_only));
        let mut rng = GroupLcg::new(lesson.seed);
        let watched = run_lesson(&delayed, &Curve(&delayed), &mut rng, &mut Watched);
        assert_eq!(watched, run(&delayed));
        assert_ne!(watched, run(&lesson));
    }
}
