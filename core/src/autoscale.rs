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
//! A round is five phases over a [`Group`] (each a method of it, in this order):
//! 1. permanent failures strike (the first serving, healthy instance per listed round); then
//!    the round's scripted user actions (Standby, protection) apply, in list order;
//! 2. the health check (it ignores the cooldown) checks every serving instance through the
//!    [`HealthCheck`] seam; `threshold` failed results in a row replace it in place;
//! 3. launches delayed by `apply_delay` join; the [`ScalingPolicy`] seam decides a change,
//!    which launches (Stopped instances restart first) or scales in (InService victims by
//!    the removal policy, through Removing into Removing:Wait or out);
//! 4. timers advance: boot, restart and hook waits (a timer set in phases 1–3 counts down
//!    now; a wait entered now starts next round, so a hook of H rounds adds exactly H);
//! 5. metrics, then the observer ([`crate::Observer::group_round`], `round_done`).
//!
//! The lesson's defaults are [`LessonPolicy`] (ready-only counting, its cooldown, down to
//! required + 1) and [`LessonCheck`]; its other quirks are named where they live: the
//! minimum that starts at 99 ([`Params::min_size_start`]), the `splice(-1, 1)` that cancels
//! launches from the end once no ready instance is left ([`RemovalPolicy::Lesson`]), and a
//! scale-in of an empty group that still counts as an action. New randomness would need a
//! generator of its own: no option draws from the lesson's.
//!
//! Unobserved runs (an [`Observer`] without [`Observer::ROUNDS`]) of the lesson's policy with
//! every lifecycle option off take a fast path that keeps the group as bit masks
//! (`autoscale/fast.rs`, bit-identical, ≈ 4× faster), as do the runs of [`run_sweep`].
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
//!   early completion, hook flavours, Detach, warm pools, group deletion, configuration
//!   versions.
//!
//! ```
//! use capsim_core::autoscale::{run, Params};
//! let m = run(&Params { threshold: 2, cooldown: 0, ..Params::default() }).unwrap();
//! assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
//! ```

use crate::error::{check_seed, ensure, Accepted, Capacity, Error};
use crate::rng::{GroupLcg, GroupStream, UnitRng};
use crate::Observer;

mod fast;
mod formula;
mod group;
mod lifecycle;
mod policy;
mod state;

pub use formula::{
    check_interval, FormulaPolicy, DEFAULT_EVALUATION_INTERVAL, EPOCH, MAX_EVALUATION_INTERVAL,
    MIN_EVALUATION_INTERVAL,
};
pub use group::{Group, GroupStorage};
pub use lifecycle::{
    Action, Adjustment, Event, Events, Hook, HookResult, Lifecycle, Policy, Reclaim, RemovalPolicy,
    Step, Steps, Stockout, MAX_APPLY_DELAY, MAX_CHECK_INTERVAL, MAX_CHECK_LATENCY, MAX_EVENTS,
    MAX_HOOK_ROUNDS, MAX_STEPS, OPEN, TARGET_TRACKING_SCALE_IN_ROUNDS,
};
pub use policy::{
    utilization, HealthCheck, LessonCheck, LessonPolicy, ScalingPolicy, Signal, StepPolicy,
    TargetTracking,
};
pub use state::{RoundState, State, StateCounts};

/// The most instances a group may hold at once.
pub const MAX_GROUP_SIZE: usize = 256;
/// The most permanent-failure rounds one run may list.
pub const MAX_FAILURE_ROUNDS: usize = 64;
/// The most rounds one run may simulate.
pub const MAX_ROUNDS: u32 = 10_000_000;

/// The most rounds per demand period (keeps the sine's argument below 2^20 · π/2).
pub const MAX_ROUNDS_PER_PERIOD: f64 = 131_000.0;

/// The rounds at which one ready, healthy instance breaks for good.
pub type FailureRounds = heapless::Vec<u32, MAX_FAILURE_ROUNDS>;

/// One run's parameters; [`Default`] gives the lesson's constants.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Params {
    /// Consecutive failed health checks that get an instance replaced (`esik`), ≥ 1.
    pub threshold: u32,
    /// Rounds after a scaling action before the next one (`soguma`).
    pub cooldown: u32,
    /// Seed of the health-check generator (`tohum`), 1 to 2^31 − 2.
    pub seed: u32,
    /// Rounds simulated (`TUR`), 1 to [`MAX_ROUNDS`].
    pub rounds: u32,
    /// Requests one instance serves (`KAPASITE`), > 0.
    pub capacity: f64,
    /// Rounds an instance takes to boot (`ACILIS`).
    pub boot_rounds: u32,
    /// Probability that a healthy instance fails one check (`GECICI`), 0 to 1.
    pub transient_failure: f64,
    /// Rounds at which an instance breaks permanently (`BOZULMA_ANI`).
    pub failure_rounds: FailureRounds,
    /// Demand curve: `base + amplitude * sin(2π t / period) + (surge in [surge_start,
    /// surge_end))`, in requests per round.
    pub demand_base: f64,
    /// See [`Params::demand_base`].
    pub demand_amplitude: f64,
    /// See [`Params::demand_base`]; > 0.
    pub demand_period: f64,
    /// First round of the surge.
    pub surge_start: u32,
    /// First round after the surge.
    pub surge_end: u32,
    /// Extra demand during the surge.
    pub surge: f64,
    /// Where the minimum group size starts: the lesson's `min: 99`, so a group that never
    /// shrinks below 99 reports 99. `u32::MAX` gives the true minimum.
    pub min_size_start: u32,
    /// Hooks, protection, removal, reclaim and the provider's delays; off by default.
    pub lifecycle: Lifecycle,
}

impl Default for Params {
    fn default() -> Self {
        let mut failure_rounds = FailureRounds::new();
        for t in [40, 95, 170] {
            // Three entries always fit in MAX_FAILURE_ROUNDS.
            let _ = failure_rounds.push(t);
        }
        Self {
            threshold: 2,
            cooldown: 0,
            seed: 20_261_001,
            rounds: 240,
            capacity: 100.0,
            boot_rounds: 2,
            transient_failure: 0.08,
            failure_rounds,
            demand_base: 900.0,
            demand_amplitude: 380.0,
            demand_period: 120.0,
            surge_start: 150,
            surge_end: 190,
            surge: 520.0,
            min_size_start: 99,
            lifecycle: Lifecycle::default(),
        }
    }
}

/// Fuzzing: mostly valid parameters near the lesson's scale (see `fuzzing`); rounds stay at
/// most 1000 unless a field is drawn as any `u32`, and negative and surging demand are
/// both covered. The lifecycle options stay off (the lesson's; `Lifecycle` has its own impl,
/// for the `lifecycle` target).
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Params {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use crate::fuzzing::{f64_field, u32_field};
        let lesson = Self::default();
        let rounds = u32_field(u, lesson.rounds, 1..=1000)?;
        let failure_rounds = if u.ratio(1u8, 4)? {
            lesson.failure_rounds.clone()
        } else {
            let mut list = FailureRounds::new();
            let len = u.int_in_range(0..=MAX_FAILURE_ROUNDS)?;
            for _ in 0..len {
                // Mostly rounds the run reaches, sometimes any.
                let t = u32_field(u, 0, 0..=rounds)?;
                let _ = list.push(t); // len <= MAX_FAILURE_ROUNDS
            }
            list
        };
        Ok(Self {
            threshold: u32_field(u, lesson.threshold, 1..=8)?,
            cooldown: u32_field(u, lesson.cooldown, 0..=20)?,
            seed: u32_field(
                u,
                lesson.seed,
                *crate::SEED_RANGE.start()..=*crate::SEED_RANGE.end(),
            )?,
            rounds,
            capacity: f64_field(u, lesson.capacity, 1e-3, 1000.0)?,
            boot_rounds: u32_field(u, lesson.boot_rounds, 0..=10)?,
            transient_failure: f64_field(u, lesson.transient_failure, 0.0, 1.0)?,
            failure_rounds,
            demand_base: f64_field(u, lesson.demand_base, -3000.0, 30_000.0)?,
            demand_amplitude: f64_field(u, lesson.demand_amplitude, -5000.0, 5000.0)?,
            demand_period: f64_field(u, lesson.demand_period, 1e-2, 1000.0)?,
            surge_start: u32_field(u, lesson.surge_start, 0..=rounds)?,
            surge_end: u32_field(u, lesson.surge_end, 0..=rounds)?,
            surge: f64_field(u, lesson.surge, -3000.0, 10_000.0)?,
            // The fuzz target compares runs with the lesson program's port: the lesson's
            // policy and no lifecycle option.
            min_size_start: lesson.min_size_start,
            lifecycle: Lifecycle::default(),
        })
    }
}

impl Params {
    /// Returns the first parameter outside its accepted range, if any.
    pub fn validate(&self) -> Result<(), Error> {
        ensure(self.threshold >= 1, "threshold", Accepted::at_least(1))?;
        check_seed(self.seed)?;
        ensure(
            (1..=MAX_ROUNDS).contains(&self.rounds),
            "rounds",
            Accepted::integers(1, MAX_ROUNDS as u64),
        )?;
        ensure(
            self.capacity.is_finite() && self.capacity > 0.0,
            "capacity",
            Accepted::above(0.0),
        )?;
        ensure(
            (0.0..=1.0).contains(&self.transient_failure),
            "transient-failure",
            Accepted::between(0.0, 1.0),
        )?;
        ensure(
            self.demand_base.is_finite(),
            "demand-base",
            Accepted::FINITE,
        )?;
        ensure(
            self.demand_amplitude.is_finite(),
            "demand-amplitude",
            Accepted::FINITE,
        )?;
        // The sine's argument must stay within fdlibm's medium reduction (see `fdlibm`).
        ensure(
            self.demand_period.is_finite()
                && self.demand_period > 0.0
                && f64::from(self.rounds) / self.demand_period <= MAX_ROUNDS_PER_PERIOD,
            "demand-period",
            Accepted::PeriodOf {
                rounds: self.rounds,
                max_rounds_per_period: MAX_ROUNDS_PER_PERIOD,
            },
        )?;
        ensure(self.surge.is_finite(), "surge", Accepted::FINITE)?;
        self.lifecycle.validate()
    }

    /// Returns the demand in round `t` (`talep`), evaluated as the lesson does.
    pub fn demand(&self, t: u32) -> f64 {
        let t = f64::from(t);
        let wave = crate::fdlibm::sin((2.0 * core::f64::consts::PI * t) / self.demand_period);
        let surge = if t >= f64::from(self.surge_start) && t < f64::from(self.surge_end) {
            self.surge
        } else {
            0.0
        };
        self.demand_base + self.demand_amplitude * wave + surge
    }

    /// Returns the instances needed in round `t` (`gerekli`): `ceil(demand / capacity)`.
    pub fn required(&self, t: u32) -> f64 {
        self.required_for(self.demand(t))
    }

    /// Returns the instances needed for `demand`: `ceil(demand / capacity)`.
    pub fn required_for(&self, demand: f64) -> f64 {
        libm::ceil(demand / self.capacity)
    }
}

/// What one run measured (the lesson's `m`).
///
/// No counter can overflow: each rises by at most [`MAX_GROUP_SIZE`] per round (checked at
/// compile time against [`MAX_ROUNDS`]), and the sizes are at most [`MAX_GROUP_SIZE`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Metrics {
    /// Smallest group size seen; starts at 99 as in the lesson, so it never exceeds 99; 0
    /// once the group was empty.
    pub min_size: u32,
    /// Largest group size seen, at most the group's capacity.
    pub max_size: u32,
    /// Most instances booting at once.
    pub max_launching: u32,
    /// Largest share of the group booting at once; NaN once the group was empty (the
    /// lesson's `0 / 0`, which `Math.max` keeps).
    pub max_launching_ratio: f64,
    /// Rounds with fewer ready instances than required (at most [`MAX_ROUNDS`]).
    pub under_capacity_rounds: u32,
    /// Instances launched, by scaling and by replacement.
    pub launched: u32,
    /// Healthy instances replaced after transient failures.
    pub false_replacements: u32,
    /// Instance-rounds a broken instance stayed in service.
    pub broken_rounds: u32,
    /// Scale-out and scale-in actions (at most one per round).
    pub scaling_actions: u32,
    /// Instances replaced by the health check.
    pub replacements: u32,
    /// Most rounds from a launch (or restart) decision to the first round the instance
    /// serves: apply delay + boot (at least 1) + hook wait; the lesson's instances take 2.
    pub time_to_in_service_max: u32,
    /// Rounds in which scale-in wanted to remove more than it could (the rest protected).
    pub scale_in_blocked_rounds: u32,
    /// Stopped instances restarted by scale-out (not counted in `launched`).
    pub restarts_from_stopped: u32,
    /// Launch requests that failed for want of capacity (stockout rounds).
    pub failed_launches: u64,
    /// Lifecycle hooks that ended at their timeout (every hook does).
    pub hook_timeouts: u32,
    /// Launches a launch hook abandoned (released before serving).
    pub abandoned_launches: u32,
    /// Instance-rounds billed in full (every state but Stopped).
    pub billed_rounds: u64,
    /// Billed instance-rounds not serving (booting, waiting, restarting, removing).
    pub idle_billed_rounds: u64,
    /// Formula evaluations (0 without a formula; see [`run_formula`]).
    pub evaluations: u32,
    /// Formula evaluations that failed and left the group unchanged.
    pub failed_evaluations: u32,
    /// Successful evaluations that changed the dedicated target.
    pub target_changes: u32,
    /// Rounds in which the policy wanted more than `max_instances` or less than
    /// `min_instances` allow (its decision was clamped); 0 without those bounds.
    pub clamped_rounds: u32,
}

pub(crate) const GROUP_FULL: Error = group_full(MAX_GROUP_SIZE);

/// The error of a group whose storage holds `capacity` records and needed one more.
pub(crate) const fn group_full(capacity: usize) -> Error {
    Error::CapacityExceeded {
        capacity: Capacity::GroupSize,
        limit: capacity as u32,
    }
}

/// The error of a scale-out that the group's records would hold but not together with the
/// launches already in flight (apply delay).
pub(crate) const fn in_flight_full(capacity: usize) -> Error {
    Error::CapacityExceeded {
        capacity: Capacity::GroupWithInFlight,
        limit: capacity as u32,
    }
}

// Every counter in `Metrics` rises by at most `MAX_GROUP_SIZE` per round in a group of the
// default storage (a round launches at most as many instances as the group then holds:
// replacements take ready slots, scale-out fills the rest up to the capacity), plus the
// initial group: so none reaches `u32::MAX`. In larger storage the per-instance counters
// saturate at `u32::MAX` (a 4,096-instance group would need over a million rounds of every
// instance replaced to reach it).
const _: () = assert!(
    (MAX_GROUP_SIZE as u64) * (MAX_ROUNDS as u64 + 1) < u32::MAX as u64,
    "a u32 metric could overflow"
);

/// JavaScript's `Math.max` for two numbers: NaN if either is NaN (Rust's `f64::max` would
/// drop it), otherwise the larger, +0 over -0.
pub(crate) fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

/// Converts a required-instance count to an integer: `required` is an integer or ±inf (the
/// lesson's doubles), and `as` saturates the infinities; every comparison with it is then
/// the lesson's.
pub(crate) fn required_count(x: f64) -> i64 {
    x as i64
}

/// Where a run's demand comes from: the requests of round `t` (the demand seam). The
/// lesson's curve is [`Params::demand`] ([`Curve`]); a table of your own traffic is
/// [`Table`] (a board can take a static one); any `Fn(u32) -> f64` is one too.
pub trait Demand {
    /// Returns the demand in round `t`, in requests.
    fn at(&self, t: u32) -> f64;
}

/// The lesson's demand curve of a parameter set ([`Params::demand`]).
#[derive(Clone, Copy, Debug)]
pub struct Curve<'a>(pub &'a Params);

impl Demand for Curve<'_> {
    fn at(&self, t: u32) -> f64 {
        self.0.demand(t)
    }
}

/// A demand table: round `t` reads `self.0[t]`; a run of more rounds than the table has is
/// refused by [`Table::check`] (past its end it reads 0).
#[derive(Clone, Copy, Debug)]
pub struct Table<'a>(pub &'a [f64]);

impl Table<'_> {
    /// Returns an error unless the table covers `params.rounds` rounds and every value
    /// is finite. The error names `rounds`, with the table's length as its largest value.
    pub fn check(&self, params: &Params) -> Result<(), Error> {
        let rows = self.0.len().min(MAX_ROUNDS as usize) as u64;
        ensure(
            u64::from(params.rounds) <= rows,
            "rounds",
            Accepted::integers(1, rows),
        )?;
        ensure(
            self.0.iter().all(|d| d.is_finite()),
            "demand-file",
            Accepted::FINITE,
        )
    }
}

impl Demand for Table<'_> {
    fn at(&self, t: u32) -> f64 {
        self.0.get(t as usize).copied().unwrap_or(0.0)
    }
}

impl<F: Fn(u32) -> f64> Demand for F {
    fn at(&self, t: u32) -> f64 {
        self(t)
    }
}

/// Runs the model with the lesson's generator seeded from `params.seed`.
pub fn run(params: &Params) -> Result<Metrics, Error> {
    run_with(params, &mut GroupLcg::new(params.seed), &mut ())
}

/// Runs the model drawing health checks from `rng` (`params.seed` is not used), calling
/// `observer` after every round.
pub fn run_with<R: UnitRng, O: Observer>(
    params: &Params,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    simulate(params, |t| params.demand(t), rng, observer)
}

/// Runs the model as [`run_with`] does, with `demand(t)` supplied by the caller (the
/// lesson's policy takes the fast path when it applies): a table of `params.demand(t)`, so
/// that runs sharing a demand curve compute it once, or any demand ([`Table`]: check it
/// first).
pub fn run_with_demand<R: UnitRng, O: Observer>(
    params: &Params,
    demand: impl Fn(u32) -> f64,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    simulate(params, demand, rng, observer)
}

/// Runs parameter sets of one seed and one demand curve (a sweep's pairs), each reading
/// `stream` (of their seed) from its start: result `i` is what
/// `run_with_demand(&params[i], &demand, &mut stream.reader(), &mut ())` returns.
///
/// When every set takes the fast path and they share their rounds, capacity and failure
/// probability, the runs go in lockstep, a block of rounds of each in turn, while the
/// stream's generator computes ahead between their rounds: its dependent chain then overlaps
/// the simulations instead of preceding them (the lesson's sweep: 2,659 draws, ≈ 17 µs of
/// chain on this machine).
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
    let together = params.iter().all(|p| {
        let first = &params[0];
        p.validate().is_ok()
            && fast::applies(p)
            && p.rounds == first.rounds
            && p.capacity.to_bits() == first.capacity.to_bits()
            && p.transient_failure.to_bits() == first.transient_failure.to_bits()
    });
    if together && N > 0 {
        return fast::run_lockstep(params, demand, stream);
    }
    core::array::from_fn(|i| run_with_demand(&params[i], &demand, &mut stream.reader(), &mut ()))
}

/// The model, with `demand(t)` supplied by the caller: a sweep whose runs share a demand
/// curve computes it once (see `lesson`).
pub(crate) fn simulate<R: UnitRng, O: Observer>(
    params: &Params,
    demand: impl Fn(u32) -> f64,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    // The lesson's group as bit masks, when nothing needs the general path: no lifecycle
    // option, and no per-round states to report.
    if !O::ROUNDS && fast::applies(params) {
        params.validate()?;
        return fast::run(params, demand, rng, observer);
    }
    simulate_general(params, demand, rng, observer)
}

/// [`simulate`] on the general path. Out of line, like the fast path: the group's records
/// (4 KiB) are never on a board's stack while the fast path runs.
#[inline(never)]
fn simulate_general<R: UnitRng, O: Observer>(
    params: &Params,
    demand: impl Fn(u32) -> f64,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut policy = policy::Chosen::of(params);
    let mut check = LessonCheck {
        transient_failure: params.transient_failure,
    };
    simulate_with(params, demand, &mut policy, &mut check, rng, observer)
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
pub fn run_custom<P: ScalingPolicy, H: HealthCheck, R: UnitRng, O: Observer>(
    params: &Params,
    policy: &mut P,
    check: &mut H,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    simulate_with(params, |t| params.demand(t), policy, check, rng, observer)
}

/// Runs the model driven by a formula ([`FormulaPolicy`]) with the lesson's health check,
/// and adds the policy's counts to the metrics.
pub fn run_formula<
    const N: usize,
    const NODES: usize,
    const POOL: usize,
    R: UnitRng,
    O: Observer,
>(
    params: &Params,
    policy: &mut FormulaPolicy<'_, N, NODES, POOL>,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut check = LessonCheck {
        transient_failure: params.transient_failure,
    };
    let mut m = run_custom(params, policy, &mut check, rng, observer)?;
    m.evaluations = policy.evaluations;
    m.failed_evaluations = policy.failed_evaluations;
    m.target_changes = policy.target_changes;
    Ok(m)
}

fn simulate_with<P: ScalingPolicy, H: HealthCheck, R: UnitRng, O: Observer>(
    params: &Params,
    demand: impl Fn(u32) -> f64,
    policy: &mut P,
    check: &mut H,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut storage = GroupStorage::new();
    simulate_in(params, &mut storage, demand, policy, check, rng, observer)
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
pub fn run_in<const N: usize, R: UnitRng, O: Observer>(
    params: &Params,
    storage: &mut GroupStorage<N>,
    demand: impl Demand,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut policy = policy::Chosen::of(params);
    let mut check = LessonCheck {
        transient_failure: params.transient_failure,
    };
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
pub fn run_formula_in<const N: usize, const F: usize, R: UnitRng, O: Observer>(
    params: &Params,
    storage: &mut GroupStorage<N>,
    demand: impl Demand,
    policy: &mut FormulaPolicy<'_, F>,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    let mut check = LessonCheck {
        transient_failure: params.transient_failure,
    };
    let demand = |t| demand.at(t);
    let mut m = simulate_in(params, storage, demand, policy, &mut check, rng, observer)?;
    m.evaluations = policy.evaluations;
    m.failed_evaluations = policy.failed_evaluations;
    m.target_changes = policy.target_changes;
    Ok(m)
}

fn simulate_in<const N: usize, P: ScalingPolicy, H: HealthCheck, R: UnitRng, O: Observer>(
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

#[cfg(test)]
mod tests {
    use super::js_max;

    /// `Math.max` as ECMA-262 defines it: any NaN gives NaN, and +0 is larger than -0.
    #[test]
    fn js_max_keeps_nan_and_prefers_positive_zero() {
        assert!(js_max(f64::NAN, 0.0).is_nan());
        assert!(js_max(0.5, f64::NAN).is_nan());
        assert_eq!(js_max(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(js_max(0.0, -0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(js_max(0.25, 0.5), 0.5);
        assert_eq!(js_max(0.5, 0.25), 0.5);
    }
}
