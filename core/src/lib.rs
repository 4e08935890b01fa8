//! The models behind three capacity and resilience lessons, runnable anywhere and
//! reproducible bit for bit.
//!
//! `#![no_std]`, no `alloc`, no `unsafe`: every model runs in fixed-capacity or
//! caller-provided storage, draws its randomness through [`rng::UnitRng`] (the lessons' own
//! generators, or any `rand_core` generator), does its float maths through `libm`, and reports
//! bad parameters and full capacities as [`Error`] values. Nothing here panics on input.
//!
//! The modules, in the order a reader needs them:
//!
//! - [`rng`]: the three lesson generators and the [`rng::UnitRng`] trait.
//! - [`autoscale`]: auto-scaling group with a health check (lesson 1).
//! - [`consumers`]: competing consumers on one queue with a store of S slots (lesson 2).
//! - [`bulkhead`]: a shared slot pool vs. partitioned pools (lesson 3).
//! - [`fdlibm`]: `sin` as JavaScript computes it (the demand curve needs its exact bits).
//! - [`jsfmt`]: JavaScript's number formatting, which the lessons' tables use.
//! - [`lesson`]: the five lesson outputs, written into any `core::fmt::Write`.
//! - [`trace`]: a run's rounds as CSV rows (`capsim trace`, and the board's trace feature).
//!
//! ```
//! use capsim_core::{consumers::Workspace, lesson};
//! let mut out = heapless::String::<1024>::new();
//! lesson::render(lesson::Lesson::Group, &mut out, &mut Workspace::<0>::new()).unwrap();
//! assert!(out.starts_with("240 tur, ornek basina 100 istek"));
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod autoscale;
pub mod bulkhead;
pub mod consumers;
mod error;
pub mod fdlibm;
pub mod formula;
#[cfg(feature = "arbitrary")]
mod fuzzing;
pub mod jsfmt;
pub mod lesson;
pub mod rng;
pub mod trace;

pub use error::{Accepted, Bound, Capacity, Error, SEED_RANGE};

/// Watches a run round by round: a trace, a plot, a teaching board that pauses after each
/// round (step mode).
///
/// # The contract
///
/// A single run (`run_with` of each model, one configuration) calls, after every round and in
/// round order, first its model's per-round method ([`Observer::group_round`],
/// [`Observer::consumers_round`] or [`Observer::bulkhead_round`]) with a small `Copy` state
/// of that round, then [`Observer::round_done`]. Every round is reported, the ones an
/// event-driven engine skips included (the consumers engine reports them as rounds in which
/// nothing was applied). Summed over a run, the states give the run's metrics (see each
/// state's doc).
///
/// Batched engines (several configurations on one pass: `consumers::run_batch_with` and
/// `bulkhead::run_batch_with` with more than one) report no per-round state: they call only
/// `round_done` (so a board can pace them), lane after lane, with rounds that are not in
/// order across lanes and rounds the consumers engine skips left out. To observe a run, run
/// one configuration.
///
/// `()` watches nothing and costs nothing: engines skip the per-round work when
/// [`Observer::ROUNDS`] is false. Such an observer (a board pacing the lessons) gets only
/// `round_done`, for the rounds the engine processes, as from a batch.
pub trait Observer {
    /// Whether the engine should build and report per-round states (`()` says no, so an
    /// unobserved run does no per-round work for it).
    const ROUNDS: bool = true;

    /// Called after each simulated round, after the model's per-round method.
    fn round_done(&mut self, round: u64) {
        let _ = round;
    }

    /// Called after each round of an auto-scaling group, just before `round_done`, with the
    /// instances per state and the round's launches and removals.
    fn group_round(&mut self, state: &autoscale::RoundState) {
        let _ = state;
    }

    /// Called in each round of an auto-scaling group driven by a formula in which the
    /// formula was evaluated, just before that round's [`Observer::group_round`], with the
    /// evaluation as Batch's `AutoScaleRun` records it.
    fn formula_evaluation(&mut self, run: &formula::AutoScaleRun<'_>) {
        let _ = run;
    }

    /// Called after each round of a consumers run, just before `round_done`.
    fn consumers_round(&mut self, state: &consumers::RoundState) {
        let _ = state;
    }

    /// Called after each round of a bulkhead run, just before `round_done`.
    fn bulkhead_round(&mut self, state: &bulkhead::RoundState) {
        let _ = state;
    }
}

impl Observer for () {
    const ROUNDS: bool = false;
}

impl<O: Observer + ?Sized> Observer for &mut O {
    const ROUNDS: bool = O::ROUNDS;

    fn round_done(&mut self, round: u64) {
        (**self).round_done(round);
    }

    fn group_round(&mut self, state: &autoscale::RoundState) {
        (**self).group_round(state);
    }

    fn formula_evaluation(&mut self, run: &formula::AutoScaleRun<'_>) {
        (**self).formula_evaluation(run);
    }

    fn consumers_round(&mut self, state: &consumers::RoundState) {
        (**self).consumers_round(state);
    }

    fn bulkhead_round(&mut self, state: &bulkhead::RoundState) {
        (**self).bulkhead_round(state);
    }
}
