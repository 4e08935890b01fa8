//! The five lesson outputs, byte for byte, written into any [`core::fmt::Write`].
//!
//! Each renderer runs the lesson's sweep with the lesson's parameters and prints what the
//! lesson program prints, so the firmware and the CLI show the same bytes. The only storage
//! needed is the consumers lesson's ([`ConsumersSpace`]): the main engine's [`Workspace`] (at
//! least [`LESSON_SHIPMENTS`] shipments; with a smaller one the consumers lesson returns a
//! capacity error and the others still render), or the small-memory engine's
//! ([`crate::consumers::windowed`], through [`render_with`]: [`WindowedOnStack`] puts its 6.8 KB on
//! the consumers lesson's stack, so a 16 KiB board runs the whole suite).
//! The bulkhead lesson's [`crate::bulkhead::Workspace`] (eleven layouts, 6.6 KB) is on the stack
//! while it runs.
//!
//! ```
//! use capsim_core::{consumers::Workspace, lesson::{render_all, LESSON_SHIPMENTS}};
//! struct Count(usize);
//! impl core::fmt::Write for Count {
//!     fn write_str(&mut self, s: &str) -> core::fmt::Result { self.0 += s.len(); Ok(()) }
//! }
//! let mut out = Count(0);
//! render_all(&mut out, &mut Workspace::<LESSON_SHIPMENTS>::new()).unwrap();
//! assert!(out.0 > 4000);
//! ```

use core::fmt::{self, Write};

use crate::consumers::Workspace;
use crate::{autoscale, bulkhead, consumers, Error, Observer};

/// One of the five lesson outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Lesson {
    /// The two threshold/cooldown pairs of the auto-scaling lesson.
    Group,
    /// The auto-scaling lesson's 3 × 3 threshold × cooldown sweep.
    GroupSweep,
    /// The auto-scaling lesson's churn cost ledger.
    GroupLedger,
    /// The consumers lesson's S × N tables.
    Consumers,
    /// The bulkhead lesson's layouts and split table.
    Bulkhead,
}

impl Lesson {
    /// All five, in the order `capsim lesson all` prints them.
    pub const ALL: [Lesson; 5] = [
        Lesson::Group,
        Lesson::GroupSweep,
        Lesson::GroupLedger,
        Lesson::Consumers,
        Lesson::Bulkhead,
    ];

    /// Returns the lesson's name on the command line (and of its golden file).
    pub const fn name(self) -> &'static str {
        match self {
            Lesson::Group => "group",
            Lesson::GroupSweep => "group-sweep",
            Lesson::GroupLedger => "group-ledger",
            Lesson::Consumers => "consumers",
            Lesson::Bulkhead => "bulkhead",
        }
    }

    /// Returns the lesson called `name`, if any.
    pub fn from_name(name: &str) -> Option<Lesson> {
        Lesson::ALL.into_iter().find(|l| l.name() == name)
    }
}

mod lang;

/// Writes one sentence in `lang`: `write!` with the Turkish or the English format string
/// and the same arguments, so both languages print the same numbers in the same order.
macro_rules! say {
    ($out:expr, $lang:expr, $tr:literal, $en:literal $(, $arg:expr)* $(,)?) => {
        match $lang {
            Lang::Tr => write!($out, $tr $(, $arg)*),
            Lang::En => write!($out, $en $(, $arg)*),
        }
    };
}

// The lessons, one file each (after `say!`, which they use).
mod bulkheads;
mod competing_consumers;
mod group;

pub use bulkheads::LESSON_SPLIT;
use bulkheads::{bulkhead_results, write_bulkhead};
use competing_consumers::{consumers_results, write_consumers};
pub use competing_consumers::{ConsumersSpace, WindowedOnStack, ON_STACK_WINDOW};
pub use competing_consumers::{CONSUMER_COUNTS, STORE_SLOTS};
pub use competing_consumers::{LESSON_CONFIGURATIONS, LESSON_EVENTS, LESSON_SHIPMENTS};
use group::{
    group_results, group_results_shared, pair_runs, pair_runs_shared, write_group, write_ledger,
    write_sweep, LEDGER_PAIRS, SWEEP_PAIRS,
};
pub use group::{GROUP_STREAM_DRAWS, SWEEP_COOLDOWNS, SWEEP_THRESHOLDS};
pub use lang::Lang;

/// Why a lesson could not be rendered.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LessonError {
    /// The writer failed.
    Fmt,
    /// A model run failed (for example, a workspace too small for the consumers lesson).
    Model(Error),
}

impl From<fmt::Error> for LessonError {
    fn from(_: fmt::Error) -> Self {
        LessonError::Fmt
    }
}

impl From<Error> for LessonError {
    fn from(e: Error) -> Self {
        LessonError::Model(e)
    }
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LessonError::Fmt => f.write_str("the output could not be written"),
            LessonError::Model(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for LessonError {}

/// Writes one lesson's output, in Turkish as the lesson prints it ([`render_in`] chooses
/// the language).
///
/// The group lessons' runs share one generator stream here, cached on the stack
/// ([`GROUP_STREAM_DRAWS`] draws, 4 bytes each); [`render_observed`] recomputes it for each
/// run instead, for a board's small stack.
pub fn render<W: Write, const N: usize, const F: usize, const R: usize, const Q: usize>(
    lesson: Lesson,
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<(), LessonError> {
    render_in(lesson, Lang::Tr, out, ws)
}

/// [`render`] in `lang`: the same runs, the same numbers in the same places.
pub fn render_in<W: Write, const N: usize, const F: usize, const R: usize, const Q: usize>(
    lesson: Lesson,
    lang: Lang,
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<(), LessonError> {
    match lesson {
        Lesson::Group => {
            compute_then_write(out, group_results_shared, |o, r| write_group(o, r, lang))
        }
        Lesson::GroupSweep => compute_then_write(
            out,
            |r| pair_runs_shared(&SWEEP_PAIRS, r),
            |o, r| write_sweep(o, r, lang),
        ),
        Lesson::GroupLedger => compute_then_write(
            out,
            |r| pair_runs_shared(&LEDGER_PAIRS, r),
            |o, r| write_ledger(o, r, lang),
        ),
        _ => render_with_in(lesson, lang, out, ws, &mut ()),
    }
}

/// Writes all five lesson outputs, in [`Lesson::ALL`] order.
pub fn render_all<W: Write, const N: usize, const F: usize, const R: usize, const Q: usize>(
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<(), LessonError> {
    render_all_in(Lang::Tr, out, ws)
}

/// [`render_all`] in `lang`.
pub fn render_all_in<W: Write, const N: usize, const F: usize, const R: usize, const Q: usize>(
    lang: Lang,
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<(), LessonError> {
    for lesson in Lesson::ALL {
        render_in(lesson, lang, out, ws)?;
    }
    Ok(())
}

/// An observer of the lessons' runs: an [`Observer`] of each model's round state (one that
/// implements `Observer<S>` for every `S`, as `()` does, is one).
pub trait LessonObserver:
    Observer<autoscale::RoundState> + Observer<consumers::RoundState> + Observer<bulkhead::RoundState>
{
}

impl<O> LessonObserver for O where
    O: Observer<autoscale::RoundState>
        + Observer<consumers::RoundState>
        + Observer<bulkhead::RoundState>
        + ?Sized
{
}

/// Writes one lesson's output, calling `observer` after every simulated round.
pub fn render_observed<
    W: Write,
    O: LessonObserver,
    const N: usize,
    const F: usize,
    const R: usize,
    const Q: usize,
>(
    lesson: Lesson,
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
    observer: &mut O,
) -> Result<(), LessonError> {
    render_with(lesson, out, ws, observer)
}

/// [`render_observed`] with the consumers lesson run in `space`: either engine's workspace,
/// or [`WindowedOnStack`]. The output is the same bytes whichever runs it.
pub fn render_with<W: Write, O: LessonObserver, S: ConsumersSpace + ?Sized>(
    lesson: Lesson,
    out: &mut W,
    ws: &mut S,
    observer: &mut O,
) -> Result<(), LessonError> {
    render_with_in(lesson, Lang::Tr, out, ws, observer)
}

/// [`render_with`] in `lang`.
pub fn render_with_in<W: Write, O: LessonObserver, S: ConsumersSpace + ?Sized>(
    lesson: Lesson,
    lang: Lang,
    out: &mut W,
    ws: &mut S,
    observer: &mut O,
) -> Result<(), LessonError> {
    match lesson {
        Lesson::Group => compute_then_write(
            out,
            |r| group_results(observer, r),
            |o, r| write_group(o, r, lang),
        ),
        Lesson::GroupSweep => compute_then_write(
            out,
            |r| pair_runs(&SWEEP_PAIRS, observer, r),
            |o, r| write_sweep(o, r, lang),
        ),
        Lesson::GroupLedger => compute_then_write(
            out,
            |r| pair_runs(&LEDGER_PAIRS, observer, r),
            |o, r| write_ledger(o, r, lang),
        ),
        Lesson::Consumers => compute_then_write(
            out,
            |r| consumers_results(ws, observer, r),
            |o, r| write_consumers(o, r, lang),
        ),
        Lesson::Bulkhead => compute_then_write(
            out,
            |r| bulkhead_results(observer, r),
            |o, r| write_bulkhead(o, r, lang),
        ),
    }
}

/// Computes a lesson's results in place, then writes them. Each lesson gets its own copy,
/// kept out of line so that one lesson's results never add to another's peak stack; the
/// computing and writing halves are out of line too, so their frames never coexist.
#[inline(never)]
fn compute_then_write<W: Write, T: Default>(
    out: &mut W,
    compute: impl FnOnce(&mut T) -> Result<(), Error>,
    write: impl FnOnce(&mut W, &T) -> fmt::Result,
) -> Result<(), LessonError> {
    let mut results = T::default();
    compute(&mut results)?;
    write(out, &results)?;
    Ok(())
}
