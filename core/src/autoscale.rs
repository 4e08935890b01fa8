//! Auto-scaling group: a scaling policy and a health check change the same group size.
//!
//! Each round, in this order: permanent failures strike (one ready, healthy instance per
//! listed round); the health check (which ignores the cooldown) draws one number per ready,
//! non-broken instance and replaces an instance after `threshold` consecutive failures; the
//! scaling policy, if the cooldown has passed, launches up to the demand or terminates the
//! first ready instances down to demand + 1 (it counts ready instances only; past the last
//! ready one the lesson's `splice(-1, 1)` takes booting instances from the end); booting
//! instances advance; then the metrics are updated. The lesson program is the specification,
//! for any demand curve: one that goes negative can empty the group (scaling to zero).
//!
//! Storage is a fixed-capacity group of at most [`MAX_GROUP_SIZE`] instances; a run that
//! would grow past it returns [`Error::CapacityExceeded`]. Validation happens once in
//! [`Params::validate`]; nothing here panics on any input.
//!
//! ```
//! use capsim_core::autoscale::{run, Params};
//! let m = run(&Params { threshold: 2, cooldown: 0, ..Params::default() }).unwrap();
//! assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
//! ```

use crate::error::{check_seed, ensure, Accepted, Capacity, Error};
use crate::rng::{GroupLcg, UnitRng};
use crate::Observer;

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
        }
    }
}

/// Fuzzing: mostly valid parameters near the lesson's scale (see `fuzzing`); rounds stay at
/// most 1000 unless a field is drawn as any `u32`, and negative and surging demand are
/// both covered.
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
        ensure(self.surge.is_finite(), "surge", Accepted::FINITE)
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
        libm::ceil(self.demand(t) / self.capacity)
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
    /// Largest group size seen, at most [`MAX_GROUP_SIZE`].
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
}

#[derive(Clone, Copy)]
struct Instance {
    ready: bool,
    broken: bool,
    boot_left: u32,
    failures: u32,
}

impl Instance {
    const fn booting(boot_rounds: u32) -> Self {
        Self {
            ready: false,
            broken: false,
            boot_left: boot_rounds,
            failures: 0,
        }
    }
}

const GROUP_FULL: Error = Error::CapacityExceeded {
    capacity: Capacity::GroupSize,
    limit: MAX_GROUP_SIZE as u32,
};

// Every counter in `Metrics` rises by at most `MAX_GROUP_SIZE` per round (a round launches
// at most as many instances as the group then holds: replacements take ready slots, scale-out
// fills the rest up to the capacity), plus the initial group: so none reaches `u32::MAX`.
const _: () = assert!(
    (MAX_GROUP_SIZE as u64) * (MAX_ROUNDS as u64 + 1) < u32::MAX as u64,
    "a u32 metric could overflow"
);

/// JavaScript's `Math.max` for two numbers: NaN if either is NaN (Rust's `f64::max` would
/// drop it), otherwise the larger, +0 over -0.
fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

/// The lesson's scale-in, `for (i = 0; i < steps; i++) grup.splice(grup.findIndex((o) =>
/// o.hazir), 1)`, in one pass whatever `steps` is (a double, possibly huge or infinite).
///
/// Each step removes the first ready instance; once none is ready `findIndex` gives -1 and
/// `splice(-1, 1)` removes the last instance; on an empty group a step does nothing. So the
/// steps remove the first `min(steps, ready)` ready instances, then booting ones from the
/// end, and any steps beyond the group's size change nothing.
fn scale_in(group: &mut heapless::Vec<Instance, MAX_GROUP_SIZE>, ready: &mut usize, steps: f64) {
    // `steps` is an integer (a difference of integers) or larger than any group.
    let steps = if steps >= group.len() as f64 {
        group.len()
    } else {
        steps as usize
    };
    let ready_removed = steps.min(*ready);
    let mut left = ready_removed;
    group.retain(|o| {
        if o.ready && left > 0 {
            left -= 1;
            false
        } else {
            true
        }
    });
    *ready -= ready_removed;
    // What remains beyond the ready ones comes off the end (all booting by now).
    let from_end = steps - ready_removed;
    group.truncate(group.len().saturating_sub(from_end));
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
    simulate(params, |t| params.required(t), rng, observer)
}

/// The model, with `required(t)` supplied by the caller: a sweep whose runs share a demand
/// curve computes it once (see `lesson`).
pub(crate) fn simulate<R: UnitRng, O: Observer>(
    params: &Params,
    required: impl Fn(u32) -> f64,
    rng: &mut R,
    observer: &mut O,
) -> Result<Metrics, Error> {
    params.validate()?;
    let mut group: heapless::Vec<Instance, MAX_GROUP_SIZE> = heapless::Vec::new();
    // `Array.from({ length: gerekli(0) })`: JavaScript clamps a negative length to 0 (an
    // empty group); a length it would accept but the group cannot hold is a capacity error.
    let initial = required(0);
    if initial > MAX_GROUP_SIZE as f64 {
        return Err(GROUP_FULL);
    }
    // Now at most 256, or negative, -0 or -inf: `as` saturates those to 0.
    for _ in 0..initial as usize {
        group
            .push(Instance {
                ready: true,
                ..Instance::booting(0)
            })
            .map_err(|_| GROUP_FULL)?;
    }
    // Ready instances, kept up to date instead of recounted.
    let mut ready = group.len();
    let mut m = Metrics {
        min_size: 99,
        ..Metrics::default()
    };
    let cooldown = i64::from(params.cooldown);
    let mut last_action = -cooldown;
    for t in 0..params.rounds {
        // `gerekli(t)`, a double as in the lesson: an integer, or ±inf for extreme curves
        // (never NaN: the demand is a sum of finite terms and a finite product). Every
        // comparison below is the lesson's, in doubles.
        let needed = required(t);
        if params.failure_rounds.contains(&t) {
            if let Some(victim) = group.iter_mut().find(|o| o.ready && !o.broken) {
                victim.broken = true;
            }
        }
        // Health check: ignores the cooldown.
        for o in group.iter_mut() {
            if !o.ready {
                continue;
            }
            if o.broken {
                m.broken_rounds += 1;
            }
            // A broken instance fails without a draw (the lesson's `&&` short-circuits).
            let passed = !o.broken && rng.next_unit() >= params.transient_failure;
            // At most `rounds` consecutive failures: no overflow.
            o.failures = if passed { 0 } else { o.failures + 1 };
            if o.failures >= params.threshold {
                m.replacements += 1;
                if !o.broken {
                    m.false_replacements += 1;
                }
                *o = Instance::booting(params.boot_rounds);
                m.launched += 1;
                ready -= 1;
            }
        }
        // Scaling policy: counts ready instances only.
        if i64::from(t) - last_action >= cooldown {
            let ready_f = ready as f64;
            if ready_f < needed {
                // The lesson pushes `g - hazir` instances (an integer, or more than fit).
                let add = needed - ready_f;
                if add > (MAX_GROUP_SIZE - group.len()) as f64 {
                    return Err(GROUP_FULL);
                }
                let add = add as usize; // an integer from 1 to 256 here
                for _ in 0..add {
                    group
                        .push(Instance::booting(params.boot_rounds))
                        .map_err(|_| GROUP_FULL)?;
                }
                m.launched += add as u32;
                m.scaling_actions += 1;
                last_action = i64::from(t);
            } else if ready_f > needed + 1.0 {
                scale_in(&mut group, &mut ready, ready_f - needed - 1.0);
                m.scaling_actions += 1;
                last_action = i64::from(t);
            }
        }
        if ready < group.len() {
            for o in group.iter_mut().filter(|o| !o.ready) {
                o.boot_left = o.boot_left.saturating_sub(1);
                if o.boot_left == 0 {
                    o.ready = true;
                    ready += 1;
                }
            }
        }
        let size = group.len() as u32; // at most 256
        let launching = size - ready as u32;
        m.min_size = m.min_size.min(size);
        m.max_size = m.max_size.max(size);
        m.max_launching = m.max_launching.max(launching);
        // An empty group gives 0 / 0 = NaN, and `Math.max` keeps NaN for the rest of the run.
        m.max_launching_ratio = js_max(
            m.max_launching_ratio,
            f64::from(launching) / f64::from(size),
        );
        if (ready as f64) < needed {
            m.under_capacity_rounds += 1;
        }
        observer.round_done(u64::from(t));
    }
    Ok(m)
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
