//! The autoscale model's parameters ([`Params`]), the shared errors and JavaScript helpers,
//! and the demand seam ([`Demand`], [`Curve`], [`Table`]). It imports the lifecycle options a
//! parameter set carries and the folder's ground floor (`limits.rs`, `metrics.rs`).

use super::lifecycle::Lifecycle;
use super::limits::{MAX_FAILURE_ROUNDS, MAX_GROUP_SIZE, MAX_ROUNDS, MAX_ROUNDS_PER_PERIOD};
use crate::error::{check_seed, ensure, ensure_positive, ensure_within, Accepted, Capacity, Error};
/// The rounds at which one ready, healthy instance breaks for good.
pub type FailureRounds = heapless::Vec<u32, MAX_FAILURE_ROUNDS>;

/// One run's parameters; [`Default`] gives the lesson's constants.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Params<'a> {
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
    pub lifecycle: Lifecycle<'a>,
}

impl Default for Params<'_> {
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
impl<'a> arbitrary::Arbitrary<'a> for Params<'static> {
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

impl Params<'_> {
    /// Returns the first parameter outside its accepted range, if any.
    pub fn validate(&self) -> Result<(), Error> {
        ensure(self.threshold >= 1, "threshold", Accepted::at_least(1))?;
        check_seed(self.seed)?;
        ensure_within(self.rounds, 1, MAX_ROUNDS, "rounds")?;
        ensure_positive(self.capacity, "capacity")?;
        ensure_within(self.transient_failure, 0.0, 1.0, "transient-failure")?;
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

    /// Returns the demand in round `t` (`talep`), evaluated as the lesson does. It reads
    /// the fields of [`Params::demand_curve`]: a field read here belongs there.
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

/// Equality by bits, for the parts a comparison of parameter sets uses: a float compares by
/// its bits (0 differs from -0, a NaN equals the same NaN), so equal parts give equal runs.
pub(crate) trait SameBits {
    /// Returns whether `self` and `other` have the same bits.
    fn same_bits(&self, other: &Self) -> bool;
}

impl SameBits for u32 {
    fn same_bits(&self, other: &Self) -> bool {
        self == other
    }
}

impl SameBits for f64 {
    fn same_bits(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

/// Implements `PartialEq` for a struct by [`SameBits`] on each listed field (every field).
macro_rules! eq_by_bits {
    ($part:ident { $($field:ident),+ $(,)? }) => {
        impl PartialEq for $part {
            fn eq(&self, other: &Self) -> bool {
                use $crate::autoscale::spec::SameBits;
                $(self.$field.same_bits(&other.$field))&&+
            }
        }
    };
}
pub(crate) use eq_by_bits;

/// Declares [`DemandCurve`] from the one list of the [`Params`] fields it holds: the struct
/// (each field the same-named one of [`Params`]), [`Params::demand_curve`] and the equality
/// by bits.
macro_rules! demand_curve {
    ($($field:ident: $ty:ty),+ $(,)?) => {
        /// The demand curve's part of [`Params`] ([`Params::demand_curve`]): every field
        /// [`Params::demand`] reads, and the rounds a run reads it for. Equality is by bits
        /// (0 differs from -0), so a table of one curve's demand by round serves exactly the
        /// runs of that curve (the host's grids tabulate it once). Its fields are listed
        /// once, beside `demand`, and a test checks that the other fields leave the demand
        /// as it is.
        #[derive(Clone, Copy, Debug)]
        pub struct DemandCurve {
            $(
                #[doc = concat!("[`Params::", stringify!($field), "`].")]
                pub $field: $ty,
            )+
        }

        impl Params<'_> {
            /// Returns the demand curve's part of the parameters: what [`Params::demand`]
            /// reads, and the rounds it is read for.
            pub fn demand_curve(&self) -> DemandCurve {
                DemandCurve {
                    $($field: self.$field,)+
                }
            }
        }

        eq_by_bits!(DemandCurve { $($field),+ });
    };
}

// What [`Params::demand`] reads, and the rounds it is read for: a field read there belongs
// here.
demand_curve! {
    rounds: u32,
    demand_base: f64,
    demand_amplitude: f64,
    demand_period: f64,
    surge_start: u32,
    surge_end: u32,
    surge: f64,
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
pub struct Curve<'a>(pub &'a Params<'a>);

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

#[cfg(test)]
mod tests {
    use super::{js_max, Params};

    /// The curve changes exactly with the fields the demand reads (and the rounds), by bits.
    #[test]
    fn the_demand_curve_is_what_the_demand_reads() {
        let lesson = Params::default();
        let curve: [fn(&mut Params); 8] = [
            |p| p.rounds = 1,
            |p| p.demand_base = -0.0,
            |p| p.demand_amplitude = 0.0,
            |p| p.demand_period = 1.0,
            |p| p.surge_start = 0,
            |p| p.surge_end = u32::MAX,
            |p| p.surge = -1e300,
            |p| p.demand_base = 0.0,
        ];
        let not_curve: [fn(&mut Params); 5] = [
            |p| p.threshold = 1,
            |p| p.capacity = 1.0,
            |p| p.seed = 7,
            |p| p.transient_failure = 1.0,
            |p| p.lifecycle.count_pending = true,
        ];
        let demand = |p: &Params| {
            (0..240)
                .map(|t| p.demand(t).to_bits())
                .collect::<heapless::Vec<u64, 240>>()
        };
        for (i, change) in curve.iter().enumerate() {
            let mut p = lesson.clone();
            change(&mut p);
            assert!(p.demand_curve() != lesson.demand_curve(), "curve field {i}");
        }
        let (mut zero, mut minus) = (lesson.clone(), lesson.clone());
        zero.demand_base = 0.0;
        minus.demand_base = -0.0;
        assert!(zero.demand_curve() != minus.demand_curve());
        for (i, change) in not_curve.iter().enumerate() {
            let mut p = lesson.clone();
            change(&mut p);
            assert!(p.demand_curve() == lesson.demand_curve(), "field {i}");
            assert_eq!(demand(&p), demand(&lesson), "field {i}");
        }
    }

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
