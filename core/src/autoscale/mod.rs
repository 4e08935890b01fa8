//! Auto-scaling group: a scaling policy and a health check change the same group size.
//!
//! With default [`Params`] this is the lesson's model (`grup.mjs`, its specification), for
//! any demand curve: one that goes negative can empty the group (scaling to zero). With
//! [`Lifecycle`] options it is the group as providers run it (Alibaba Auto Scaling first,
//! AWS EC2 Auto Scaling second): instances move through the seed's states ([`State`]),
//! lifecycle hooks hold them in wait states, protected instances are never scaled in,
//! scale-in may stop instead of release, and the provider's three delays of the lesson's
//! ledger (health-check latency, apply delay, capacity availability) can be switched on.
//!
//! A round is five phases over a [`Group`] (each a method of it, in this order; one file a
//! phase in `reference/`):
//! 1. permanent failures strike (the first serving, healthy instance per listed round); then
//!    the round's scripted user actions (Standby, protection) apply, in list order; then,
//!    with the spot class ([`Spot`]), preempted nodes come back, notices count down and
//!    running spot instances are struck;
//! 2. the health check (it ignores the cooldown) checks every serving instance through the
//!    [`HealthCheck`] seam; `threshold` failed results in a row replace it in place;
//! 3. launches delayed by `apply_delay` join; the [`ScalingPolicy`] seam decides a change,
//!    which launches (Stopped instances restart first) or scales in (InService victims by
//!    the removal policy, through Removing into Removing:Wait or out);
//! 4. timers advance: boot, restart and hook waits (a timer set in phases 1–3 counts down
//!    now; a wait entered now starts next round, so a hook of H rounds adds exactly H);
//!    then a warm pool's ([`WarmPool`]) refills advance and launch;
//! 5. metrics, then the observer ([`crate::Observer::round`], `round_done`).
//!
//! The lesson's defaults are [`LessonPolicy`] (ready-only counting, its cooldown, down to
//! required + 1) and [`LessonCheck`]; its other quirks are named where they live: the
//! minimum that starts at 99 ([`Params::min_size_start`]), the `splice(-1, 1)` that cancels
//! launches from the end once no ready instance is left ([`RemovalPolicy::Lesson`]), and a
//! scale-in of an empty group that still counts as an action. New randomness would need a
//! generator of its own: no option draws from the lesson's.
//!
//! # Engines
//!
//! The folder's floor plan: `spec.rs` the parameters and metrics every engine reads,
//! `reference/` the reference engine, `fast/` the fast engines, `plan.rs` the one choice
//! between them, and this file the public runs, which ask the plan and call the engine it
//! names. Every engine computes the same [`Metrics`], bit for bit:
//!
//! - **The reference engine**, [`Group`] (`reference/`, [`Engine::General`]): the group as
//!   instance records, changed phase by phase as above, as the lesson's loop changes them.
//!   It assumes nothing: any [`ScalingPolicy`], [`HealthCheck`], lifecycle option and
//!   [`Observer`]. The one to read first beside the lesson's program; [`run_custom`],
//!   [`run_formula`], [`run_in`] and every observed run take it.
//! - **Masks** (`fast/mod.rs`, `fast/masks.rs`, [`Engine::Masks`]): one run of the lesson's
//!   policy and check with the lesson's lifecycle (every option off), a boot of at most 8
//!   rounds and a threshold a byte holds, unobserved (an [`Observer`] without
//!   [`Observer::ROUNDS`]). The group is a few 256-bit masks and a round is word operations.
//! - **Lockstep** (`fast/lockstep.rs`, [`Engine::Lockstep`]): the runs of one [`run_sweep`]
//!   that Masks applies to and that share their rounds, capacity and failure probability, a
//!   block of rounds of each in turn on one cached stream; a run that differs from an
//!   earlier one only by a higher threshold is that run's until it first replaces an
//!   instance.
//!
//! Which engine runs is chosen in one place, [`plan()`]; the fast engines read a parameter
//! set only through the part the plan compares (`plan.rs`). Their costs are measured in
//! `host/benches/README.md`.
//!
//! Storage is a fixed-capacity group of instance records in every state (Stopped ones
//! included), 16 bytes each, in a [`GroupStorage`] the caller provides (a run holds one copy
//! of it, never moved: the group lessons need under 10 KB of a board's stack): at most
//! [`MAX_GROUP_SIZE`] on a board and through [`run`], any `N` through [`run_in`] (the host
//! gives thousands); a run that would grow past it returns [`Error::CapacityExceeded`]
//! naming the capacity (and, with an apply delay, whether the launches in flight took it).
//! Validation happens once in [`Params::validate`]; nothing here panics on any input.
//!
//! # Where this differs from the specification's §10 proposal (`specs/lifecycle.md`)
//!
//! - **State names** are the providers' (Pending, Pending:Wait, Removing:Wait, plus
//!   Restarting for a Stopped instance starting again), so a board reads like the console.
//!   Removing lasts no whole round (no `removing_rounds`): nothing in the issue needs it.
//! - **The cooldown belongs to the policy**, not the group: the formula policy (seed 003)
//!   replaces it with its own interval. The policy hears whether its decision acted
//!   ([`ScalingPolicy::applied`]); a scale-in that removes nothing does not act (no action
//!   counted, no cooldown), except the lesson's empty-group quirk above.
//! - **Protected instances are health-checked** and replaced like any serving instance
//!   (AWS: protection covers scale-in only); the spec's Alibaba reading freezes their health,
//!   which would leave a broken protected instance serving forever and take checks (and the
//!   lesson's draws) away from serving instances. The replacement is not protected.
//! - **`scale_in_blocked_rounds`** counts a shortfall only while Protected or Standby
//!   instances remain (the issue's "because the rest were protected"); a negative demand
//!   asking for more than the group holds is not blocked, just exhausted.
//! - **Removal by age** uses the round of the launch decision, ties in storage order
//!   (oldest: first; newest: last), instead of an instance id: one `u32` less per record.
//!   Only the lesson's order cancels launches when InService instances run out (its
//!   `splice(-1, 1)`); a cancelled launch skips the terminate hook (it never served).
//! - **Economical mode**: unhealthy instances are released and replaced, never stopped (the
//!   2021 English page; §12 Q5), since a stopped broken instance would return broken. A
//!   healthy-looking but broken instance that scale-in stops stays broken when restarted.
//!   Restarts go in storage order, pass through the launch hook, and never fail in a
//!   stockout (the stopped instance's capacity counts as reserved; Alibaba may release it
//!   instead, not modelled). `max_instances` counts Stopped records against the maximum;
//!   a group above it whose scale-in stops instances keeps them as records (Alibaba
//!   releases Stopped ones first: not modelled).
//! - **Apply delay** delays scale-out only (scale-in stays immediate); the instances in
//!   flight count as pending for `count_pending`; a stockout is judged in the round they
//!   join (when the provider launches them); their time to service counts from the decision.
//! - **Stockout and the health check**: when a replacement cannot launch, the unhealthy
//!   instance leaves and nothing takes its place (the group shrinks; the policy asks again
//!   next round).
//! - **Bounds chosen for a board's stack**: check latency 0 to 7 rounds (the results in
//!   transit fit a byte of the record), apply delay 0 to 64 (a ring of counts), 16 scripted
//!   actions (every copy of [`Params`] holds room for them), hooks 1 to 360 rounds
//!   (Alibaba's six-hour cap at one round per minute).
//! - **Billing** follows the ledger lesson ("every launched instance is paid for two rounds
//!   and does no work"): an instance is billed in every round it is in the group, Stopped
//!   aside, and billed idle in every round it does not serve, so a launch is idle-billed for
//!   its `boot_rounds` rounds from its launch round (at least one: it joins at the end of a
//!   round at the soonest), then any launch-hook wait; a restart for its `restart_rounds`
//!   (at least one). The lesson's under-capacity count reads readiness at the end of the
//!   round instead, so an instance whose boot ends in a round counts as capacity in that
//!   round though it is also idle-billed for it.
//! - **Group size** (min/max and the booting share) counts every record, Stopped included,
//!   as Alibaba's console lists Stopped instances in the group.
//! - **Scripted actions** take a count instead of a selector: each moves the first `count`
//!   instances (storage order) in its source state; Standby never decrements the desired
//!   count (the lesson's policy replaces the instance, as AWS does without decrement).
//! - **Not modelled** (no scenario file): several hooks per direction, heartbeats and
//!   early completion, hook flavours, Detach, group deletion, configuration versions. A
//!   warm pool ([`WarmPool`]) and a spot class ([`Spot`]) are modelled (issue 21), each in
//!   its own file.
//!
//! ```
//! use capsim_core::autoscale::{run, Params};
//! let m = run(&Params { threshold: 2, cooldown: 0, ..Params::default() }).unwrap();
//! assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
//! ```

use crate::error::Error;
use crate::rng::{GroupLcg, GroupStream, UnitRng};
use crate::Observer;

mod fast;
mod formula;
pub mod hpa;
mod lifecycle;
mod plan;
mod policy;
mod reference;
mod spec;
mod spot;
mod state;
mod warm;

pub use formula::{
    check_interval, FormulaPolicy, DEFAULT_EVALUATION_INTERVAL, EPOCH, MAX_EVALUATION_INTERVAL,
    MIN_EVALUATION_INTERVAL,
};
pub use lifecycle::{
    Action, Adjustment, Event, Events, Hook, HookResult, Lifecycle, Policy, Reclaim, RemovalPolicy,
    Step, Steps, Stockout, MAX_APPLY_DELAY, MAX_CHECK_INTERVAL, MAX_CHECK_LATENCY, MAX_EVENTS,
    MAX_HOOK_ROUNDS, MAX_STEPS, OPEN, TARGET_TRACKING_SCALE_IN_ROUNDS,
};
pub use lifecycle::{
    LifecycleHook, Provider, Timed, TimedAction, Transition, MAX_HOOKS, MAX_TASK_ROUNDS, MAX_TIMED,
    NO_BOUND, RETAINED_DATA_ROUNDS,
};
pub use plan::{plan, Engine, Runs};
#[cfg(feature = "hpa")]
pub use policy::InstanceView;
pub use policy::{
    utilization, HealthCheck, LessonCheck, LessonPolicy, ScalingPolicy, Signal, StepPolicy,
    TargetTracking,
};
pub use reference::{Group, GroupStorage};
pub(crate) use spec::{group_full, in_flight_full, js_max, required_count, GROUP_FULL};
pub use spec::{
    Curve, Demand, DemandCurve, FailureRounds, Metrics, Params, Table, MAX_FAILURE_ROUNDS,
    MAX_GROUP_SIZE, MAX_ROUNDS, MAX_ROUNDS_PER_PERIOD,
};
pub use spot::{
    OnPreemption, PreemptionRounds, Spot, MAX_PREEMPTION_NOTICE, MAX_PREEMPTION_ROUNDS,
};
pub use state::{RoundState, State, StateCounts};
pub use warm::{WarmPool, WarmState, MAX_WARM_POOL};

/// Runs the model with the lesson's generator seeded from `params.seed`.
pub fn run(params: &Params) -> Result<Metrics, Error> {
    run_with(params, &mut GroupLcg::new(params.seed), &mut ())
}

/// Runs the model drawing health checks from `rng` (`params.seed` is not used), calling
/// `observer` after every round.
pub fn run_with<R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    run_with_demand(params, |t| params.demand(t), rng, observer)
}

/// Runs the model as [`run_with`] does, with `demand(t)` supplied by the caller (the
/// lesson's policy takes the fast path when it applies): a table of `params.demand(t)`, so
/// that runs sharing a demand curve compute it once, or any demand ([`Table`]: check it
/// first).
pub fn run_with_demand<R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    demand: impl Fn(u32) -> f64,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    // The lesson's group as bit masks, when nothing needs the reference engine: no
    // lifecycle option, and no per-round states to report.
    if plan(Runs::One {
        params,
        observed: O::ROUNDS,
    }) == Engine::Masks
    {
        params.validate()?;
        return fast::run(params, demand, rng, observer);
    }
    run_general(params, demand, rng, observer)
}

/// Runs parameter sets of one seed and one demand curve (a sweep's pairs), each reading
/// `stream` (of their seed) from its start: result `i` is what
/// `run_with_demand(&params[i], &demand, &mut stream.reader(), &mut ())` returns.
///
/// When every set takes the fast path and they share their rounds, capacity and failure
/// probability, the runs go in lockstep, a block of rounds of each in turn, while the
/// stream's generator computes ahead between their rounds: its dependent chain then overlaps
/// the simulations instead of preceding them (what that saves is measured in
/// `host/benches/README.md`).
///
/// ```
/// use capsim_core::autoscale::{run, run_sweep, Params};
/// use capsim_core::rng::GroupStream;
/// let p = Params::default();
/// let pairs = [2, 5].map(|threshold| Params { threshold, ..p.clone() });
/// let mut stream = GroupStream::new(p.seed, [0u32; 3072]);
/// let results = run_sweep(&pairs, |t| p.demand(t), &mut stream);
/// assert_eq!(results[1], run(&pairs[1]));
/// ```
pub fn run_sweep<S: AsRef<[u32]> + AsMut<[u32]>, const N: usize>(
    params: &[Params; N],
    demand: impl Fn(u32) -> f64,
    stream: &mut GroupStream<S>,
) -> [Result<Metrics, Error>; N] {
    if plan(Runs::Sweep(params)) == Engine::Lockstep {
        return fast::run_lockstep(params, demand, stream);
    }
    core::array::from_fn(|i| run_with_demand(&params[i], &demand, &mut stream.reader(), &mut ()))
}

/// [`run_with_demand`] on the reference engine, in storage of its own ([`run_in`]). Out of
/// line, like the fast path: the group's records (4 KiB) are never on a board's stack while
/// the fast path runs.
#[inline(never)]
fn run_general<R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    demand: impl Fn(u32) -> f64,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    run_in(params, &mut GroupStorage::new(), demand, rng, observer)
}

/// Runs the model with any scaling policy and health check (`params.cooldown`,
/// `transient_failure` and `lifecycle.count_pending` are the lesson policy's and check's,
/// so they do nothing here), calling `observer` after every round.
///
/// A policy returns a change; a target-tracking one subtracts what it counts:
///
/// ```
/// use capsim_core::autoscale::{run_custom, LessonCheck, Params, ScalingPolicy, Signal};
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
/// let m = run_custom(&p, &mut Fixed(10), &mut check, &mut rng, &mut ()).unwrap();
/// // 9 serve at first (900 / 100): 1 launch; 3 break for good and are replaced.
/// assert_eq!((m.max_size, m.launched), (10, 1 + 3));
/// ```
pub fn run_custom<P: ScalingPolicy, H: HealthCheck, R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    policy: &mut P,
    check: &mut H,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let demand = |t| params.demand(t);
    let mut storage = GroupStorage::new();
    simulate_in(params, &mut storage, demand, policy, check, rng, observer)
}

/// Runs the model driven by a formula ([`FormulaPolicy`]) with the lesson's health check,
/// and adds the policy's counts to the metrics.
pub fn run_formula<
    const N: usize,
    const NODES: usize,
    const POOL: usize,
    R: UnitRng,
    O: Observer<RoundState>,
>(
    params: &Params,
    policy: &mut FormulaPolicy<'_, N, NODES, POOL>,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut check = LessonCheck::of(params);
    let m = run_custom(params, policy, &mut check, rng, observer)?;
    Ok(policy.counted(m))
}

/// Runs the model on the general path in `storage`: a group of up to `N` instances. Same
/// results as [`run_with_demand`] whenever the group stays within [`MAX_GROUP_SIZE`] (a
/// host's group of thousands: boxed storage, `GroupStorage::<4096>::with_capacity()`).
///
/// ```
/// use capsim_core::autoscale::{run, run_in, GroupStorage, Params};
/// use capsim_core::rng::GroupLcg;
/// let p = Params { demand_base: 300_000.0, demand_amplitude: 0.0, surge: 0.0, ..Params::default() };
/// assert!(run(&p).is_err()); // 3,000 instances: more than a board's 256
/// let mut storage = Box::new(GroupStorage::<4096>::with_capacity());
/// let m = run_in(&p, &mut storage, |t| p.demand(t), &mut GroupLcg::new(p.seed), &mut ()).unwrap();
/// assert!((3000..=4096).contains(&m.max_size)); // 3,000 needed, replacements on top
/// ```
pub fn run_in<const N: usize, R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    storage: &mut GroupStorage<N>,
    demand: impl Demand,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut check = LessonCheck::of(params);
    #[cfg(feature = "hpa")]
    if let Policy::Hpa(hpa) = &params.lifecycle.policy {
        // Built here, not by `Chosen`: its history (12 KB) would make every policy that size.
        let (min, max) = (
            params.lifecycle.min_instances,
            params.lifecycle.max_instances,
        );
        let mut policy = hpa::HpaPolicy::new(hpa, params.capacity, min, max);
        let demand = |t| demand.at(t);
        return simulate_in(
            params,
            storage,
            demand,
            &mut policy,
            &mut check,
            rng,
            observer,
        );
    }
    let mut policy = policy::Chosen::of(params);
    simulate_in(
        params,
        storage,
        |t| demand.at(t),
        &mut policy,
        &mut check,
        rng,
        observer,
    )
}

/// [`run_formula`] in `storage` (see [`run_in`]), with `demand(t)` supplied by the caller.
pub fn run_formula_in<const N: usize, const F: usize, R: UnitRng, O: Observer<RoundState>>(
    params: &Params,
    storage: &mut GroupStorage<N>,
    demand: impl Demand,
    policy: &mut FormulaPolicy<'_, F>,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut check = LessonCheck::of(params);
    let demand = |t| demand.at(t);
    let m = simulate_in(params, storage, demand, policy, &mut check, rng, observer)?;
    Ok(policy.counted(m))
}

fn simulate_in<
    const N: usize,
    P: ScalingPolicy,
    H: HealthCheck,
    R: UnitRng,
    O: Observer<RoundState>,
>(
    params: &Params,
    storage: &mut GroupStorage<N>,
    demand: impl Fn(u32) -> f64,
    policy: &mut P,
    check: &mut H,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    params.validate()?;
    let mut group = Group::new(params, storage, demand(0))?;
    for t in 0..params.rounds {
        group.round(t, demand(t), policy, check, rng, observer)?;
    }
    Ok(*group.metrics())
}
