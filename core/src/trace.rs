//! A run's rounds as CSV rows, written into any `core::fmt::Write`: what `capsim trace
//! <model> --format csv` prints, and what a board with the `trace` feature prints, byte for
//! byte (both call these functions).
//!
//! Each model has a header (its columns) and a row writer for its per-round state. Numbers
//! are integers, except autoscale's demand, written as JavaScript prints it.

use core::fmt::{self, Write};

use crate::autoscale::{self, State};
use crate::{bulkhead, consumers, jsfmt};

/// The autoscale columns before the lifecycle's states.
pub const AUTOSCALE_COLUMNS: [&str; 10] = [
    "round", "demand", "required", "size", "ready", "booting", "broken", "launched", "replaced",
    "removed",
];

/// The consumers columns.
pub const CONSUMERS_COLUMNS: [&str; 5] = [
    "round",
    "applied",
    "reordered",
    "busy_consumers",
    "queue_left",
];

/// The bulkhead columns; a split layout adds [`BULKHEAD_SPLIT_COLUMNS`].
pub const BULKHEAD_COLUMNS: [&str; 6] = [
    "round",
    "busy",
    "tracking_served",
    "tracking_dropped",
    "event_served",
    "event_dropped",
];

/// A split layout's per-pool busy columns.
pub const BULKHEAD_SPLIT_COLUMNS: [&str; 2] = ["tracking_busy", "event_busy"];

/// Returns the column name of a lifecycle state (lower case, `_` for `:`).
pub const fn state_column(s: State) -> &'static str {
    match s {
        State::Pending => "pending",
        State::PendingWait => "pending_wait",
        State::InService => "in_service",
        State::Standby => "standby",
        State::Protected => "protected",
        State::Removing => "removing",
        State::RemovingWait => "removing_wait",
        State::Stopped => "stopped",
        State::Restarting => "restarting",
        State::Preempted => "preempted",
    }
}

fn header<W: Write + ?Sized>(out: &mut W, columns: &[&str]) -> fmt::Result {
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        out.write_str(c)?;
    }
    Ok(())
}

/// The columns a run with the spot class or a warm pool adds after the states: the spot
/// instances in the group (every state), the preempted ones among them (state `Preempted`),
/// and the instances in the warm pool (warm, or refills booting; not in `size`).
pub const AUTOSCALE_SPOT_COLUMNS: [&str; 3] = ["spot", "preempted", "warm"];

/// Writes the autoscale header line (with its newline).
pub fn autoscale_header<W: Write + ?Sized>(out: &mut W) -> fmt::Result {
    autoscale_header_with(out, false)
}

/// Writes the autoscale header line (with its newline); `spot` (a run with the spot class or
/// a warm pool) adds [`AUTOSCALE_SPOT_COLUMNS`].
pub fn autoscale_header_with<W: Write + ?Sized>(out: &mut W, spot: bool) -> fmt::Result {
    header(out, &AUTOSCALE_COLUMNS)?;
    for s in &State::ALL[..State::LIFECYCLE] {
        write!(out, ",{}", state_column(*s))?;
    }
    if spot {
        out.write_char(',')?;
        header(out, &AUTOSCALE_SPOT_COLUMNS)?;
    }
    out.write_char('\n')
}

/// Writes one autoscale row (with its newline).
pub fn autoscale_row<W: Write + ?Sized>(out: &mut W, s: &autoscale::RoundState) -> fmt::Result {
    autoscale_row_with(out, s, false)
}

/// Writes one autoscale row (with its newline); `spot` adds the spot columns.
pub fn autoscale_row_with<W: Write + ?Sized>(
    out: &mut W,
    s: &autoscale::RoundState,
    spot: bool,
) -> fmt::Result {
    write!(out, "{},", s.round)?;
    write!(out, "{}", jsfmt::Num(s.demand))?;
    write!(
        out,
        ",{},{},{},{},{},{},{},{}",
        s.required,
        s.size,
        s.counts.serving(),
        s.counts.launching(),
        s.broken,
        s.launched,
        s.replaced,
        s.removed
    )?;
    for n in &s.counts.0[..State::LIFECYCLE] {
        write!(out, ",{n}")?;
    }
    if spot {
        write!(
            out,
            ",{},{},{}",
            s.spot,
            s.counts.get(State::Preempted),
            s.warm
        )?;
    }
    out.write_char('\n')
}

/// Writes the consumers header line (with its newline).
pub fn consumers_header<W: Write + ?Sized>(out: &mut W) -> fmt::Result {
    header(out, &CONSUMERS_COLUMNS)?;
    out.write_char('\n')
}

/// Writes one consumers row (with its newline).
pub fn consumers_row<W: Write + ?Sized>(out: &mut W, s: &consumers::RoundState) -> fmt::Result {
    writeln!(
        out,
        "{},{},{},{},{}",
        s.round, s.applied, s.reordered, s.busy_consumers, s.queue_left
    )
}

/// Writes the bulkhead header line (with its newline); `split` adds the per-pool columns.
pub fn bulkhead_header<W: Write + ?Sized>(out: &mut W, split: bool) -> fmt::Result {
    header(out, &BULKHEAD_COLUMNS)?;
    if split {
        out.write_char(',')?;
        header(out, &BULKHEAD_SPLIT_COLUMNS)?;
    }
    out.write_char('\n')
}

/// Writes one bulkhead row (with its newline); `split` adds the per-pool columns.
pub fn bulkhead_row<W: Write + ?Sized>(
    out: &mut W,
    s: &bulkhead::RoundState,
    split: bool,
) -> fmt::Result {
    write!(
        out,
        "{},{},{},{},{},{}",
        s.round, s.busy, s.tracking_served, s.tracking_dropped, s.event_served, s.event_dropped
    )?;
    if split {
        write!(out, ",{},{}", s.first_busy, s.second_busy)?;
    }
    out.write_char('\n')
}

/// An observer that writes each round as a CSV row into `out`, keeping the first write error
/// (the run goes on; check [`CsvTrace::result`] after it).
pub struct CsvTrace<W> {
    /// Where the rows go.
    pub out: W,
    /// Whether the run has extra columns: a bulkhead's split layout (its per-pool columns),
    /// an autoscale run's spot class ([`AUTOSCALE_SPOT_COLUMNS`]).
    pub split: bool,
    /// The first write error, if any.
    pub result: fmt::Result,
}

impl<W: Write> CsvTrace<W> {
    /// A trace writing into `out` (no header: write it first with the model's `*_header`).
    pub const fn new(out: W, split: bool) -> Self {
        Self {
            out,
            split,
            result: Ok(()),
        }
    }

    fn keep(&mut self, r: fmt::Result) {
        if self.result.is_ok() {
            self.result = r;
        }
    }
}

impl<W: Write> crate::Observer for CsvTrace<W> {
    fn group_round(&mut self, s: &autoscale::RoundState) {
        let r = autoscale_row_with(&mut self.out, s, self.split);
        self.keep(r);
    }

    fn consumers_round(&mut self, s: &consumers::RoundState) {
        let r = consumers_row(&mut self.out, s);
        self.keep(r);
    }

    fn bulkhead_round(&mut self, s: &bulkhead::RoundState) {
        let r = bulkhead_row(&mut self.out, s, self.split);
        self.keep(r);
    }
}
