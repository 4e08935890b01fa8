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

pub use error::{Accepted, Bound, Capacity, Error, SEED_RANGE};

/// Watches a run round by round: a teaching board can pause after each round (step mode).
///
/// `()` watches nothing and costs nothing.
pub trait Observer {
    /// Called after each simulated round (an event-driven engine calls it for the rounds in
    /// which something happened, with the round reached).
    fn round_done(&mut self, round: u64) {
        let _ = round;
    }

    /// Called after each round of an auto-scaling group, just before `round_done`, with the
    /// instances per state and the round's launches and removals.
    fn group_round(&mut self, state: &autoscale::RoundState) {
        let _ = state;
    }
}

impl Observer for () {}

impl<O: Observer + ?Sized> Observer for &mut O {
    fn round_done(&mut self, round: u64) {
        (**self).round_done(round);
    }

    fn group_round(&mut self, state: &autoscale::RoundState) {
        (**self).group_round(state);
    }
}
