//! Which engine computes which input: the one choice, [`plan()`]. Every run asks it: the
//! public runs ([`super::run_in`], [`super::run_batch`] and the conveniences on them) call no
//! engine it did not name.
//!
//! Three engines compute the same metrics, bit for bit:
//! - [`Engine::Reference`]: the group as instance records (`reference/`), changed phase by
//!   phase as the lesson's loop (`grup.mjs`) changes them, with every policy, health check,
//!   lifecycle option, storage and observer. Read it first.
//! - [`Engine::Masks`] (`fast/`): the lesson's policy and check
//!   ([`super::ScalingPolicy::is_lessons`], [`super::HealthCheck::is_lessons`]) with every
//!   lifecycle option as the lesson has it, the group as bit masks (a board's
//!   [`super::MAX_GROUP_SIZE`]); one unobserved run.
//! - [`Engine::Lockstep`] (`fast/lockstep.rs`): a batch's runs on masks, a block of rounds
//!   of each in turn on one cached stream, when they share their [`Shared`] part.
//!
//! The fast engines read a parameter set only through its [`LessonGroup`]: its projection
//! names every field of [`Params`], so a new field does not compile until it is sorted into
//! a part (and then the batch's `==` on that part compares it) or into what must be the
//! lesson's for the fast engines to apply.

use super::lifecycle::Lifecycle;
use super::limits::{BOOT_RING, MAX_GROUP_SIZE};
use super::spec::eq_by_bits;
use super::spec::{FailureRounds, Params};

/// The engine that computes an input ([`plan()`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The reference engine (`reference/`): every input.
    Reference,
    /// The lesson's group as bit masks: one run of the lesson's policy, unobserved.
    Masks,
    /// A batch's runs in lockstep on bit masks ([`super::run_batch`]).
    Lockstep,
    /// A batch whose runs cannot go in lockstep: each runs alone, on the engine
    /// [`plan()`] gives it as [`Runs::One`].
    Alone,
}

/// What [`plan()`] chooses for.
#[derive(Clone, Copy, Debug)]
pub enum Runs<'a> {
    /// One run.
    One {
        /// The run's parameters.
        params: &'a Params<'a>,
        /// Whether the observer wants per-round states ([`crate::Observer::ROUNDS`]).
        observed: bool,
        /// Whether the run's policy and check are the lesson's as `params` set them up
        /// ([`super::ScalingPolicy::is_lessons`] and [`super::HealthCheck::is_lessons`]).
        lessons: bool,
        /// The records the run's storage holds.
        capacity: usize,
    },
    /// The parameter sets of one [`super::run_batch`] (one seed, one demand curve; the
    /// lesson's policy and check, a board's storage).
    Batch(&'a [Params<'a>]),
}

/// Returns the engine that computes `runs`: the only place the choice is made.
///
/// - One run: [`Engine::Masks`] when it is unobserved, runs the lesson's policy and check in
///   a board's storage ([`super::MAX_GROUP_SIZE`] records: the masks' own, so a run that
///   outgrows it fails alike), and the fast engines apply to its parameters (the lesson's
///   lifecycle, a boot that fits the booting ring, a threshold a byte holds); else
///   [`Engine::Reference`].
/// - A batch: [`Engine::Lockstep`] when it has runs, every one valid and one the fast
///   engines apply to, and they share their rounds, capacity and failure probability (by bits,
///   the `Shared` part of what the fast engines read); else [`Engine::Alone`].
pub fn plan(runs: Runs<'_>) -> Engine {
    match runs {
        Runs::One {
            params,
            observed,
            lessons,
            capacity,
        } => {
            if !observed && lessons && capacity == MAX_GROUP_SIZE && applies(params) {
                Engine::Masks
            } else {
                Engine::Reference
            }
        }
        Runs::Batch(sets) => {
            let together = sets.iter().all(|p| {
                p.validate().is_ok()
                    && applies(p)
                    && LessonGroup::of(p).0.shared == LessonGroup::of(&sets[0]).0.shared
            });
            if together && !sets.is_empty() {
                Engine::Lockstep
            } else {
                Engine::Alone
            }
        }
    }
}

/// Returns whether the fast engines compute `params` exactly: the lifecycle is the lesson's
/// ([`Lifecycle::default`], so a new option, off by default, leaves the fast path whenever
/// it is on) and the group fits them ([`LessonGroup::fits`]).
pub(crate) fn applies(params: &Params) -> bool {
    let (group, lifecycle) = LessonGroup::of(params);
    // `restart_rounds` is read only when a Stopped instance restarts, and the lesson's
    // release (which the comparison demands) never stops one.
    let lesson = Lifecycle {
        restart_rounds: lifecycle.restart_rounds,
        ..Lifecycle::default()
    };
    *lifecycle == lesson && group.fits()
}

/// What the fast engines read of a parameter set, in the parts a batch compares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LessonGroup<'a> {
    /// Consecutive failed checks before a replacement: the one field in which runs that
    /// follow one another in a batch differ.
    pub threshold: u32,
    /// What every run of one lockstep batch shares.
    pub shared: Shared,
    /// What a run that follows another in a batch has as its leader has it.
    pub course: Course<'a>,
}

/// The part of a lesson group every run of one lockstep batch shares (besides the demand
/// and the stream's seed, which the batch takes once): the rounds, and the capacity and
/// failure probability (by bits) that the stream's answers and the instances needed ahead
/// are computed from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shared {
    pub rounds: u32,
    pub capacity: f64,
    pub transient_failure: f64,
}

eq_by_bits!(Shared {
    rounds,
    capacity,
    transient_failure
});

/// The part of a lesson group that decides a run's course besides its threshold: a run
/// with a higher threshold and the same course is the lower one's run until that one
/// first replaces an instance (`fast/lockstep.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Course<'a> {
    pub cooldown: u32,
    pub boot_rounds: u32,
    pub min_size_start: u32,
    pub failure_rounds: &'a FailureRounds,
}

impl<'a> LessonGroup<'a> {
    /// Returns `params`' lesson group and its lifecycle (which must be the lesson's for the
    /// fast engines: [`applies`]). Every field is named, so a new one does not compile until
    /// it is sorted into a part, or into what the fast engines take from elsewhere.
    #[inline(always)]
    pub(crate) fn of(params: &'a Params<'a>) -> (Self, &'a Lifecycle<'a>) {
        let Params {
            threshold,
            cooldown,
            rounds,
            capacity,
            boot_rounds,
            transient_failure,
            failure_rounds,
            min_size_start,
            lifecycle,
            // Taken from elsewhere: the run's generator (a batch's stream is of one seed)
            // and its demand (a batch's is one curve).
            seed: _,
            demand_base: _,
            demand_amplitude: _,
            demand_period: _,
            surge_start: _,
            surge_end: _,
            surge: _,
        } = params;
        let group = Self {
            threshold: *threshold,
            shared: Shared {
                rounds: *rounds,
                capacity: *capacity,
                transient_failure: *transient_failure,
            },
            course: Course {
                cooldown: *cooldown,
                boot_rounds: *boot_rounds,
                min_size_start: *min_size_start,
                failure_rounds,
            },
        };
        (group, lifecycle)
    }

    /// Returns whether the group fits the fast engines: a boot within the booting ring and
    /// a threshold a byte holds.
    pub(crate) fn fits(&self) -> bool {
        self.course.boot_rounds <= BOOT_RING as u32 && self.threshold <= u32::from(u8::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lifecycle::{Action, Event, Hook, HookResult, Reclaim, Stockout};
    use super::super::{Lifecycle, Params, RemovalPolicy, MAX_GROUP_SIZE};
    use super::{applies, plan, Engine, Runs};

    /// Any lifecycle option away from the lesson's value takes the reference engine; only the
    /// restart time of a release (never read) does not.
    #[test]
    fn the_fast_path_takes_the_lessons_lifecycle_only() {
        let lesson = Params::default();
        assert!(applies(&lesson));
        let with = |f: &dyn Fn(&mut Lifecycle)| {
            let mut p = lesson.clone();
            f(&mut p.lifecycle);
            applies(&p)
        };
        assert!(with(&|l| l.restart_rounds = 7));
        let hook = Some(Hook {
            rounds: 1,
            result: HookResult::Continue,
        });
        let options: [&dyn Fn(&mut Lifecycle); 10] = [
            &|l| l.launch_hook = hook,
            &|l| l.terminate_hook = hook,
            &|l| l.count_pending = true,
            &|l| l.protected = 1,
            &|l| l.removal_policy = RemovalPolicy::Oldest,
            &|l| l.reclaim = Reclaim::Stop,
            &|l| l.check_latency = 1,
            &|l| l.apply_delay = 1,
            &|l| l.stockout = Some(Stockout { start: 5, end: 6 }),
            &|l| {
                let _ = l.events.push(Event {
                    round: 1_000_000,
                    action: Action::EnterStandby,
                    count: 1,
                });
            },
        ];
        for (i, option) in options.iter().enumerate() {
            assert!(!with(*option), "option {i}");
        }
        assert!(!applies(&Params {
            boot_rounds: super::super::limits::BOOT_RING as u32 + 1,
            ..lesson.clone()
        }));
        assert!(!applies(&Params {
            threshold: 256,
            ..lesson
        }));
    }

    /// One run: masks unless observed or outside the fast engines. A batch: lockstep when
    /// its runs share rounds, capacity and failure probability (by bits), else each alone.
    #[test]
    fn plan_names_the_engine_of_each_input() {
        let lesson = Params::default();
        let one = |p: &Params, observed| {
            plan(Runs::One {
                params: p,
                observed,
                lessons: true,
                capacity: MAX_GROUP_SIZE,
            })
        };
        assert_eq!(one(&lesson, false), Engine::Masks);
        assert_eq!(one(&lesson, true), Engine::Reference);
        // Another policy or check, or storage of another capacity: the reference engine.
        for (lessons, capacity) in [(false, MAX_GROUP_SIZE), (true, 16_384), (true, 64)] {
            let run = Runs::One {
                params: &lesson,
                observed: false,
                lessons,
                capacity,
            };
            assert_eq!(plan(run), Engine::Reference, "{lessons} {capacity}");
        }
        let stop = Params {
            lifecycle: Lifecycle {
                reclaim: Reclaim::Stop,
                ..Lifecycle::default()
            },
            ..lesson.clone()
        };
        assert_eq!(one(&stop, false), Engine::Reference);

        let pairs = [(2, 0), (5, 8), (3, 3)].map(|(threshold, cooldown)| Params {
            threshold,
            cooldown,
            ..lesson.clone()
        });
        assert_eq!(plan(Runs::Batch(&pairs)), Engine::Lockstep);
        assert_eq!(plan(Runs::Batch(&[])), Engine::Alone);
        let differ: [fn(&mut Params); 5] = [
            |p| p.rounds = 100,
            |p| p.capacity = 50.0,
            |p| p.transient_failure = 0.1,
            |p| p.lifecycle.count_pending = true,
            |p| p.threshold = 0,
        ];
        for (i, change) in differ.iter().enumerate() {
            let mut batch = pairs.clone();
            change(&mut batch[2]);
            assert_eq!(plan(Runs::Batch(&batch)), Engine::Alone, "change {i}");
        }
        // -0 and +0 are other bits: the stream's answers are computed from the bits.
        let mut batch = [lesson.clone(), lesson.clone()];
        batch[0].transient_failure = 0.0;
        batch[1].transient_failure = -0.0;
        assert_eq!(plan(Runs::Batch(&batch)), Engine::Alone);
        // The demand and seed are the batch's: runs that differ only there still share.
        batch[1].transient_failure = 0.0;
        batch[1].demand_base = 1.0;
        batch[1].seed = 7;
        assert_eq!(plan(Runs::Batch(&batch)), Engine::Lockstep);
    }
}
