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
//! - [`Observer`]: watching a run round by round, over any model's round state ([`Round`]).
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
mod observe;
pub mod rng;
pub mod trace;

pub use error::{Accepted, Bound, Capacity, Error, SEED_RANGE};
pub use observe::{Observer, Round};
