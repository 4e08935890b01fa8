//! A run's rounds as CSV rows, written into any `core::fmt::Write`: what `capsim trace
//! <model> --format csv` prints, and what a board with the `trace` feature prints, byte for
//! byte (both call these functions).
//!
//! Each model has a header (its columns) and a row writer for its per-round state. Numbers
//! are integers, except autoscale's demand, written as JavaScript prints it.

use core::fmt::{self, Write};

use crate::autoscale::{self, State};
use crate::{bulkhead, consumers, jsfmt, Observer, Round};

/// The autoscale columns before the lifecycle's states.
pub const AUTOSCALE_COLUMNS: [&str; 10] = [
    "round", "demand", "required", "size", "ready", "booting", "broken", "launched", "replaced",
    "removed",
];

/// The columns a group driven by a formula adds after the lifecycle's states: the
/// dedicated target after the round's decision, and whether the formula was evaluated (1)
/// and failed (1) in the round.
pub const AUTOSCALE_FORMULA_COLUMNS: [&str; 3] =
    ["target_dedicated", "evaluated", "evaluation_failed"];

/// The columns a scenario's autoscale run adds after the states: lifecycle-hook waits that
/// ended this round (completed, timed out or capped), heartbeats recorded, and timed
/// operator actions applied. A run without scenario hooks or timed actions has none of them
/// (its rows are the lesson's).
pub const AUTOSCALE_SCENARIO_COLUMNS: [&str; 3] = ["hooks_ended", "heartbeats", "actions"];

/// Which of autoscale's optional column groups a trace has. Each is written after the
/// lifecycle's states, in this order: [`AUTOSCALE_SPOT_COLUMNS`],
/// [`AUTOSCALE_FORMULA_COLUMNS`], [`AUTOSCALE_SCENARIO_COLUMNS`]. None of them: the lesson's
/// columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AutoscaleColumns {
    /// A run with the spot class or a warm pool: [`AUTOSCALE_SPOT_COLUMNS`].
    pub spot: bool,
    /// A group driven by a formula: [`AUTOSCALE_FORMULA_COLUMNS`].
    pub formula: bool,
    /// A run with scenario hooks or timed actions: [`AUTOSCALE_SCENARIO_COLUMNS`].
    pub scenario: bool,
    /// A group driven by Kubernetes' HPA: [`AUTOSCALE_HPA_COLUMNS`].
    #[cfg(feature = "hpa")]
    pub hpa: bool,
}

/// The columns a group driven by Kubernetes' HPA adds last: the sync's replicas
/// (`spec.replicas`), its pods as the controller counted them (ready, not yet ready,
/// without a sample), the metric's current value (percent of the request for a utilisation
/// target, requests otherwise), the metric's recommendation, the count after the
/// stabilization windows, the count set after the policies and bounds, and what bound it
/// (the controller's reason). A sync that did not read the metric leaves its value and
/// recommendation empty.
#[cfg(feature = "hpa")]
pub const AUTOSCALE_HPA_COLUMNS: [&str; 9] = [
    "hpa_current",
    "hpa_ready",
    "hpa_unready",
    "hpa_missing",
    "hpa_metric",
    "hpa_recommendation",
    "hpa_stabilized",
    "hpa_desired",
    "hpa_limit",
];

/// The consumers columns.
pub const CONSUMERS_COLUMNS: [&str; 5] = [
    "round",
    "applied",
    "reordered",
    "busy_consumers",
    "queue_left",
];

/// The columns a consumers run with an arrival process, a buffer or keyed routing adds
/// ([`consumers::Params::flow`] not the lesson's): events arrived and dropped this round, and the queue's
/// backlog after the arrivals.
pub const CONSUMERS_FLOW_COLUMNS: [&str; 3] = ["arrived", "dropped", "backlog"];

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

/// The columns of a run with the options the lesson does not have (`--failure-end`,
/// `--breaker`, `--retries`), after the others: the breaker's state at the start of the round
/// (0 closed or none, 1 open, 2 half-open), the retries waiting at its end, the round's
/// dependency calls and the requests the breaker rejected.
pub const BULKHEAD_OPTION_COLUMNS: [&str; 4] =
    ["breaker", "retries_waiting", "dependency_calls", "rejected"];

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

/// Writes `,` and the optional `columns` when `on` (nothing when not).
fn optional<W: Write + ?Sized>(out: &mut W, on: bool, columns: &[&str]) -> fmt::Result {
    if on {
        out.write_char(',')?;
        header(out, columns)?;
    }
    Ok(())
}

/// The columns a run with the spot class or a warm pool adds after the states: the spot
/// instances in the group (every state), the preempted ones among them (state `Preempted`),
/// and the instances in the warm pool (warm, or refills booting; not in `size`).
pub const AUTOSCALE_SPOT_COLUMNS: [&str; 3] = ["spot", "preempted", "warm"];

/// Writes the autoscale header line (with its newline).
pub fn autoscale_header<W: Write + ?Sized>(out: &mut W) -> fmt::Result {
    autoscale_header_with(out, AutoscaleColumns::default())
}

/// Writes the autoscale header line (with its newline), with the optional `columns`.
pub fn autoscale_header_with<W: Write + ?Sized>(
    out: &mut W,
    columns: AutoscaleColumns,
) -> fmt::Result {
    header(out, &AUTOSCALE_COLUMNS)?;
    for s in &State::ALL[..State::LIFECYCLE] {
        write!(out, ",{}", state_column(*s))?;
    }
    optional(out, columns.spot, &AUTOSCALE_SPOT_COLUMNS)?;
    optional(out, columns.formula, &AUTOSCALE_FORMULA_COLUMNS)?;
    optional(out, columns.scenario, &AUTOSCALE_SCENARIO_COLUMNS)?;
    #[cfg(feature = "hpa")]
    optional(out, columns.hpa, &AUTOSCALE_HPA_COLUMNS)?;
    out.write_char('\n')
}

/// Writes one autoscale row (with its newline).
pub fn autoscale_row<W: Write + ?Sized>(out: &mut W, s: &autoscale::RoundState) -> fmt::Result {
    autoscale_row_with(out, s, AutoscaleColumns::default())
}

/// Writes one autoscale row (with its newline), with the values of the optional `columns`.
pub fn autoscale_row_with<W: Write + ?Sized>(
    out: &mut W,
    s: &autoscale::RoundState,
    columns: AutoscaleColumns,
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
    if columns.spot {
        write!(
            out,
            ",{},{},{}",
            s.spot,
            s.counts.get(State::Preempted),
            s.warm
        )?;
    }
    if columns.formula {
        write!(
            out,
            ",{},{},{}",
            s.target_dedicated,
            u8::from(s.evaluated),
            u8::from(s.evaluation_failed)
        )?;
    }
    if columns.scenario {
        write!(out, ",{},{},{}", s.hooks_ended, s.heartbeats, s.actions)?;
    }
    #[cfg(feature = "hpa")]
    if columns.hpa {
        hpa_cells(out, s.hpa.as_ref())?;
    }
    out.write_char('\n')
}

/// Writes the HPA's cells of a row (all empty for a round without a sync).
#[cfg(feature = "hpa")]
fn hpa_cells<W: Write + ?Sized>(out: &mut W, h: Option<&autoscale::hpa::HpaRound>) -> fmt::Result {
    let Some(h) = h else {
        return out.write_str(",,,,,,,,,");
    };
    let sync = &h.sync;
    write!(
        out,
        ",{},{},{},{},",
        sync.current, h.ready, h.unready, h.missing
    )?;
    if let Some(m) = h.metric {
        write!(out, "{}", jsfmt::Num(m as f64 / 1000.0))?;
    }
    out.write_char(',')?;
    if let Some(r) = sync.recommendation {
        write!(out, "{r}")?;
    }
    write!(
        out,
        ",{},{},{}",
        sync.stabilized,
        sync.desired,
        sync.limit.name()
    )
}

/// Writes the consumers header line (with its newline).
pub fn consumers_header<W: Write + ?Sized>(out: &mut W) -> fmt::Result {
    consumers_header_with(out, false)
}

/// Writes one consumers row (with its newline).
pub fn consumers_row<W: Write + ?Sized>(out: &mut W, s: &consumers::RoundState) -> fmt::Result {
    consumers_row_with(out, s, false)
}

/// Writes the consumers header line (with its newline); `flow` adds
/// [`CONSUMERS_FLOW_COLUMNS`] (a plain header is [`consumers_header`]'s, byte for byte).
pub fn consumers_header_with<W: Write + ?Sized>(out: &mut W, flow: bool) -> fmt::Result {
    header(out, &CONSUMERS_COLUMNS)?;
    optional(out, flow, &CONSUMERS_FLOW_COLUMNS)?;
    out.write_char('\n')
}

/// Writes one consumers row (with its newline); `flow` adds the
/// [`CONSUMERS_FLOW_COLUMNS`].
pub fn consumers_row_with<W: Write + ?Sized>(
    out: &mut W,
    s: &consumers::RoundState,
    flow: bool,
) -> fmt::Result {
    write!(
        out,
        "{},{},{},{},{}",
        s.round, s.applied, s.reordered, s.busy_consumers, s.queue_left
    )?;
    if flow {
        write!(out, ",{},{},{}", s.arrived, s.dropped, s.backlog)?;
    }
    out.write_char('\n')
}

/// Writes the bulkhead header line (with its newline); `split` adds the per-pool columns.
pub fn bulkhead_header<W: Write + ?Sized>(out: &mut W, split: bool) -> fmt::Result {
    bulkhead_header_with(out, split, false)
}

/// [`bulkhead_header`]; `options` adds [`BULKHEAD_OPTION_COLUMNS`] last.
pub fn bulkhead_header_with<W: Write + ?Sized>(
    out: &mut W,
    split: bool,
    options: bool,
) -> fmt::Result {
    header(out, &BULKHEAD_COLUMNS)?;
    optional(out, split, &BULKHEAD_SPLIT_COLUMNS)?;
    optional(out, options, &BULKHEAD_OPTION_COLUMNS)?;
    out.write_char('\n')
}

/// Writes one bulkhead row (with its newline); `split` adds the per-pool columns.
pub fn bulkhead_row<W: Write + ?Sized>(
    out: &mut W,
    s: &bulkhead::RoundState,
    split: bool,
) -> fmt::Result {
    bulkhead_row_with(out, s, split, false)
}

/// [`bulkhead_row`]; `options` adds [`BULKHEAD_OPTION_COLUMNS`] last.
pub fn bulkhead_row_with<W: Write + ?Sized>(
    out: &mut W,
    s: &bulkhead::RoundState,
    split: bool,
    options: bool,
) -> fmt::Result {
    write!(
        out,
        "{},{},{},{},{},{}",
        s.round, s.busy, s.tracking_served, s.tracking_dropped, s.event_served, s.event_dropped
    )?;
    if split {
        write!(out, ",{},{}", s.first_busy, s.second_busy)?;
    }
    if options {
        let state = match s.breaker {
            bulkhead::BreakerState::Closed => 0,
            bulkhead::BreakerState::Open => 1,
            bulkhead::BreakerState::HalfOpen => 2,
        };
        write!(
            out,
            ",{state},{},{},{}",
            s.retries_waiting, s.dependency_calls, s.rejected
        )?;
    }
    out.write_char('\n')
}

/// Which optional columns a trace has (each model reads its own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// The model's extra columns: a split bulkhead's per-pool columns
    /// ([`BULKHEAD_SPLIT_COLUMNS`]), a consumers run's flow options
    /// ([`CONSUMERS_FLOW_COLUMNS`]).
    pub split: bool,
    /// A bulkhead run's columns of the options the lesson does not have
    /// ([`BULKHEAD_OPTION_COLUMNS`]).
    pub options: bool,
    /// An autoscale run's optional column groups.
    pub autoscale: AutoscaleColumns,
}

/// A model's round state as a trace writes it: the header of its columns and one row per
/// round (the model's `*_header_with` and `*_row_with`).
pub trait CsvRow: Round {
    /// Writes the header line (with its newline) of a trace with `columns`.
    fn header<W: Write + ?Sized>(out: &mut W, columns: Columns) -> fmt::Result;

    /// Writes this round's row (with its newline) in a trace with `columns`.
    fn row<W: Write + ?Sized>(&self, out: &mut W, columns: Columns) -> fmt::Result;
}

impl CsvRow for autoscale::RoundState {
    fn header<W: Write + ?Sized>(out: &mut W, columns: Columns) -> fmt::Result {
        autoscale_header_with(out, columns.autoscale)
    }

    fn row<W: Write + ?Sized>(&self, out: &mut W, columns: Columns) -> fmt::Result {
        autoscale_row_with(out, self, columns.autoscale)
    }
}

impl CsvRow for consumers::RoundState {
    fn header<W: Write + ?Sized>(out: &mut W, columns: Columns) -> fmt::Result {
        consumers_header_with(out, columns.split)
    }

    fn row<W: Write + ?Sized>(&self, out: &mut W, columns: Columns) -> fmt::Result {
        consumers_row_with(out, self, columns.split)
    }
}

impl CsvRow for bulkhead::RoundState {
    fn header<W: Write + ?Sized>(out: &mut W, columns: Columns) -> fmt::Result {
        bulkhead_header_with(out, columns.split, columns.options)
    }

    fn row<W: Write + ?Sized>(&self, out: &mut W, columns: Columns) -> fmt::Result {
        bulkhead_row_with(out, self, columns.split, columns.options)
    }
}

/// An observer that writes each round as a CSV row into `out` ([`CsvRow::row`]), keeping the
/// first write error (the run goes on; check [`CsvTrace::result`] after it).
pub struct CsvTrace<W> {
    /// Where the rows go.
    pub out: W,
    /// The optional columns the rows have.
    pub columns: Columns,
    /// The first write error, if any.
    pub result: fmt::Result,
}

impl<W: Write> CsvTrace<W> {
    /// A trace writing into `out` (no header: write it first with the model's `*_header`, or
    /// [`CsvRow::header`]); `split` as [`Columns::split`].
    pub const fn new(out: W, split: bool) -> Self {
        Self::with_columns(
            out,
            Columns {
                split,
                options: false,
                autoscale: AutoscaleColumns {
                    spot: false,
                    formula: false,
                    scenario: false,
                    #[cfg(feature = "hpa")]
                    hpa: false,
                },
            },
        )
    }

    /// A trace writing into `out` with the optional `columns` (no header: write it first,
    /// [`CsvRow::header`]).
    pub const fn with_columns(out: W, columns: Columns) -> Self {
        Self {
            out,
            columns,
            result: Ok(()),
        }
    }

    /// This trace with the option columns of a bulkhead run (see [`bulkhead_row_with`]).
    pub const fn with_options(mut self, options: bool) -> Self {
        self.columns.options = options;
        self
    }

    /// This trace with an autoscale run's optional column groups.
    pub const fn with_autoscale(mut self, columns: AutoscaleColumns) -> Self {
        self.columns.autoscale = columns;
        self
    }
}

impl<W: Write, S: CsvRow> Observer<S> for CsvTrace<W> {
    fn round(&mut self, s: &S) {
        let r = s.row(&mut self.out, self.columns);
        if self.result.is_ok() {
            self.result = r;
        }
    }
}
/// A trace's bytes folded into an FNV-1a hash, and their count: what the engine tests
/// compare of two runs' traces, with no room to keep them.
#[cfg(test)]
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Folded(u64, usize);

#[cfg(test)]
impl Folded {
    /// Nothing written yet.
    pub(crate) const NEW: Folded = Folded(0xcbf2_9ce4_8422_2325, 0);

    /// The bytes written.
    pub(crate) const fn len(&self) -> usize {
        self.1
    }
}

#[cfg(test)]
impl Write for Folded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.1 += s.len();
        Ok(())
    }
}
