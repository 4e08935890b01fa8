//! The Azure Batch autoscale formula language: parse once, evaluate every interval.
//!
//! A formula is up to 100 `;`-separated statements (`$TargetDedicatedNodes = min(10,
//! $PendingTasks.GetSample(1));`) over service variables, user variables, sampled metrics
//! and a handful of functions. This module parses it into a fixed-capacity [`Program`],
//! keeps the metric samples in a fixed [`History`], and evaluates the program into an
//! [`Outcome`]: the node targets, the deallocation option and the results string exactly as
//! Batch's `EvaluateAutoScale` prints it. `no_std`, no allocation, no `unsafe`; every error
//! is a [`FormulaError`] with a line and column; nothing panics on any input.
//!
//! ```
//! use capsim_core::formula::{evaluate, History, Inputs, Program, Timestamp, Workspace};
//! let src = "$curTime = time();\n$TargetDedicatedNodes = $curTime.hour < 18 ? 20 : 10;";
//! let program = Program::from_source(src).unwrap();
//! let history: History = History::default();
//! let now = Timestamp::parse("2016-10-13T19:18:47.805Z").unwrap();
//! let mut ws = Workspace::new(1);
//! let out = evaluate(&program, &Inputs::new(now, &history), &mut ws).unwrap();
//! assert_eq!(out.dedicated, Some(10));
//! let mut s = heapless::String::<128>::new();
//! core::fmt::write(&mut s, format_args!("{out}")).unwrap();
//! assert_eq!(s, "$TargetDedicatedNodes=10;$NodeDeallocationOption=requeue;$curTime=2016-10-13T19:18:47.805Z");
//! ```
//!
//! # How a scaling policy drives it
//!
//! 1. Once: `Program::parse` (reject the formula at enable time on error), a `History::new(delay)`
//!    and a `Workspace::new(seed)` (the `rand()` stream).
//! 2. Every round `t` (1 round = 1 minute, simulated time `epoch + 60·t` s): record the
//!    round's metric values twice, at `60t` and `60t + 30` s ([`History::record_all`]).
//! 3. Every `K` rounds: build [`Inputs`] (time, history, the current values such as
//!    `$CurrentDedicatedNodes`, the current targets) and call [`evaluate`]. On `Ok`, apply
//!    `dedicated` / `low_priority` (when `Some`) and `deallocation`; on `Err` leave the group
//!    unchanged and count a failed evaluation. The outcome's `Display` is the results string;
//!    after a failure [`Workspace::results`] gives the variables assigned before it.
//!
//! # Capacities
//!
//! | what | limit | why |
//! |---|---|---|
//! | source | [`MAX_SOURCE_BYTES`] = 8192 bytes of UTF-8 | Batch: "cannot exceed 8 KB"; the wider reading (KiB, bytes), so no formula Batch accepts is refused |
//! | statements | [`MAX_STATEMENTS`] = 100 non-empty | Batch's limit (empty statements `;;` are free) |
//! | tokens | not stored: read one at a time, one token of look-ahead | |
//! | expression nodes | [`Program`]: [`MAX_NODES`] = 8192 (24 bytes each); [`BoundedProgram<NODES>`] for a board | a node per token, a token per byte at least: every formula within 8 KB fits |
//! | user variables | [`MAX_VARIABLES`] = 100 | one per statement at most |
//! | nesting | [`MAX_NESTING`] = 24 levels of brackets, calls, vector literals and `?:` branches; [`MAX_PREFIX`] = 8 prefix operators in a row | bounds the parser's recursion |
//! | tree height | [`MAX_HEIGHT`] = 64 operators from an expression's root to a value (a chain `a+b+c` counts one per operator) | bounds the evaluator's recursion |
//! | vector literal | [`MAX_VECTOR_LITERAL`] = 240 values | Batch documents no vector literal; as long as the longest `GetSample` |
//! | vector values | [`Workspace`]: [`VECTOR_POOL`] = 39,840 doubles per evaluation (temporaries freed as they are consumed); [`BoundedWorkspace<POOL>`] for a board | the most any 100-statement formula needs over 240 samples (derivation at [`VECTOR_POOL`]) |
//! | history | `History<N>`, default [`DEFAULT_HISTORY`] = 240 samples (2 h) per metric | windows reach back 60 min in the docs |
//!
//! Going over any of these is an error value, never a panic. Errors travel out of the
//! recursive parser and evaluator as a one-byte signal (the error itself is stored once),
//! which keeps their frames small: the deepest inputs the limits admit parse and evaluate in
//! a 48 KB stack (x86_64 release; `tests/tests/formula_props.rs`).
//!
//! # Decisions where the documentation is silent
//!
//! * **Precedence** (undocumented): C's. Postfix `.`/calls, then unary `-` `!`, `*` `/`,
//!   `+` `-`, `<` `<=` `>` `>=`, `==` `!=`, `&&`, `||`, then `?:` (right-associative);
//!   binary operators are left-associative. Every documented formula means what its prose
//!   says under it, and it is what every C-family reader expects.
//! * **`&&` and `||`** evaluate both sides (no short circuit): the only side effects are
//!   `rand()`, `stop()` and sampling failures, which then do not depend on the other
//!   operand's value. `?:` evaluates only the chosen branch (the documented PowerShell
//!   example reads `$CurrentDedicated` only in a branch it does not take).
//! * **Truth**: non-zero is true (documented); comparisons give exactly 1 or 0; NaN is true.
//! * **Fractional targets** are truncated toward zero (users report 0.5 → 0 and 2.9 → 2);
//!   negative → 0; NaN or ±∞ fail the evaluation (`InvalidTargetValue`); above
//!   `u32::MAX` saturates. The results string prints the assigned value unrounded.
//! * **Aliases**: `$TargetDedicated`, `$TargetLowPriority`, `$CurrentDedicated`. When a
//!   name and its alias are both assigned the full name wins (documented).
//! * **Names**: service variables match ignoring ASCII case (Batch's REST example lists
//!   `$targetDedicatedNodes` as the target) and print as first written; user variables are
//!   case-sensitive and `x` and `$x` are two variables (results print names as written).
//!   Function, method and constant names are case-sensitive and reserved as user names.
//! * **Read-only variables used as values** (`$CurrentDedicatedNodes * 1.1`): the current
//!   value supplied in [`Inputs::current`], else the latest available sample, else the
//!   evaluation fails (`InsufficientSampleData`).
//! * **Reading a target before assigning it** gives the pool's current target
//!   ([`Inputs::target_dedicated`]); `$NodeDeallocationOption` reads as `requeue` (the
//!   documented default) unless [`Inputs::deallocation`] says otherwise.
//! * **Weekday**: ISO 8601's, Monday = 1 … Sunday = 7 (spec §4.1's proposal). Batch
//!   documents "1 for Monday" and weekday tests `weekday >= 1 && weekday <= 5`, which fit
//!   Sunday = 0 (.NET's `DayOfWeek`, capsim's choice before issue 18) as well; Microsoft's
//!   formula generators Azure/batch-shipyard (`convoy/autoscale.py`, scenario `weekend`)
//!   and Azure/doAzureParallel ship `weekday >= 6 && weekday <= 7` as the weekend, which is
//!   right only with Sunday = 7, and no public formula tests `weekday == 0`. Timestamps are
//!   UTC; `TimeInterval_Year` = 365 days.
//! * **`$CPUPercent`** is supplied as a fraction, 0 to 1 (spec §15 Q5): Batch's table calls
//!   it a percentage, but every Microsoft formula compares it with `0.7`, `0.2`, `0.8` where
//!   its prose says 70, 20, 80 percent. The policy's mapping is in
//!   `crate::autoscale::formula`.
//! * **`time("")`** is now: Batch documents `time(string dateTime="")`.
//! * **Static types**: the parser knows most nodes' types and rejects a node whose known
//!   operand types do not combine (the evaluator would fail it on every evaluation that
//!   reaches it), a final target that is not a double and a deallocation option that is not
//!   a word (unless a `stop()` could end the evaluation first).
//! * **Numbers**: digits with an optional fraction (`1`, `0.7`); no exponent, no leading `.`;
//!   beyond the largest double is an error. Strings: `"..."` on one line, no escapes.
//!   Comments: `//` to end of line. Lines end at `\n`, `\r\n` or a lone `\r`.
//! * **Vector literals** `[a, b, c]` of doubles are accepted (the docs write `v = [1,2,3]`).
//!   Element-wise vector operations need equal lengths. Only the operand combinations of the
//!   documented operations table are accepted (`vec * 2` yes, `2 * vec` no).
//! * **Functions' edge cases**: `avg`, `max`, `min`, `range` of no values and `std` of fewer
//!   than two fail (`EmptyVector`); `len`, `sum`, `norm` of none are 0. `max`/`min` skip NaN
//!   unless all are NaN. `std` is the sample deviation (Welford). `percentile(v, p)`: nearest
//!   rank, `p` from 0 to 100 (outside or NaN fails: `ArgumentOutOfRange`). `val(v, i)`: `i`
//!   truncated, out of range fails. `rand()`: uniform in [0, 1) from the workspace's seeded
//!   stream. `stop()` ends the evaluation successfully;
//!   assignments before it stand.
//! * **Sampling** (spec §7.2): sample `k` sits at `k·30 s`; a window `(lo, hi]` holds the
//!   samples with `lo < s ≤ hi`; one interval argument `a` means `(T − a, T]`, two mean
//!   `(T − max, T − min]`, timestamps are absolute points. Available = in the window,
//!   recorded at or before `T − delay`, present, still in the ring. Percent =
//!   `100·available/possible` (100 for an empty window without a required percentage; with
//!   one, an empty window fails). `GetSample(count)` returns the last `count` available samples;
//!   vectors are oldest first. Failures print Batch's documented message with the line and
//!   column of the method name and the percentage received rounded down.
//! * **Results string**: `$TargetDedicatedNodes`, `$TargetDedicated`, `$TargetLowPriorityNodes`,
//!   `$TargetLowPriority` (those assigned), `$NodeDeallocationOption` (always), then user
//!   variables in ordinal byte order of their names, each `name=value` joined by `;`.
//!   Doubles print as JavaScript's `String(x)` ([`crate::jsfmt::Num`]), vectors as `[1,2,3]`,
//!   timestamps as `2016-10-13T19:18:47.805Z`, intervals as ISO 8601 durations (`PT10M`),
//!   strings raw, deallocation options as their word.

mod error;
mod eval;
mod history;
mod lexer;
mod lint;
mod program;
mod run;
mod time;

use core::fmt;

pub use error::{ErrorKind, FormulaError, Snippet};
pub use eval::{evaluate, BoundedWorkspace, Inputs, Outcome, Results, Workspace};
pub use history::{History, DEFAULT_DELAY, DEFAULT_HISTORY, SAMPLE_PERIOD};
pub use lint::{Warning, WarningKind, LINT_SIZES};
pub use program::{BoundedProgram, Node, Program};
pub use run::AutoScaleRun;
pub use time::{TimeInterval, Timestamp, TICKS_PER_MS, TICKS_PER_SECOND};

/// Batch's limit on the formula's length: 8 KB, read as 8192 bytes.
pub const MAX_SOURCE_BYTES: usize = 8192;
/// Batch's limit on the number of statements.
pub const MAX_STATEMENTS: usize = 100;
/// Expression nodes a [`Program`] holds by default: every formula within Batch's limits.
///
/// Every node is made from a token of its own (a number, a string, a name, an operator, a
/// `[` or a `?`; a method call reuses its receiver's node), and every token is at least one
/// byte of source, so a formula of at most [`MAX_SOURCE_BYTES`] bytes has at most 8192
/// nodes (`x=1+1+1…` reaches 8190). A board may give a [`Program`] fewer.
pub const MAX_NODES: usize = MAX_SOURCE_BYTES;
/// User variables in one program: each of the at most [`MAX_STATEMENTS`] statements
/// assigns at most one variable, so no formula within Batch's limits has more.
pub const MAX_VARIABLES: usize = MAX_STATEMENTS;
/// Nesting of brackets, calls, vector literals and `?:` branches inside a statement's
/// expression (`x = ((1))` is two levels).
pub const MAX_NESTING: usize = 24;
/// Prefix operators (`-`, `!`) in a row.
pub const MAX_PREFIX: usize = 8;
/// Operators (including calls, members and methods) on one path from an expression's root
/// to a value: `x = 1 + 1` is one, a chain `1 + 1 + … + 1` of 64 additions is 64.
pub const MAX_HEIGHT: usize = 64;
/// Values in one vector literal `[a, b, …]`. Batch documents no vector literal (its docs
/// only write `v = [1,2,3]` in prose); capsim accepts them up to the default history's
/// length, so that no vector is longer than a `GetSample` over [`DEFAULT_HISTORY`].
pub const MAX_VECTOR_LITERAL: usize = DEFAULT_HISTORY;
/// Doubles a [`Workspace`] holds by default: the most any formula within Batch's limits
/// needs over a [`History`] of [`DEFAULT_HISTORY`] samples.
///
/// Derivation. Let `L` = 240, the longest vector: a `GetSample` returns at most the
/// history's 240 samples, a vector literal holds at most [`MAX_VECTOR_LITERAL`] = 240
/// values, and element-wise operations and `lg`/`ln`/`log` keep their operand's length.
/// The evaluator frees every temporary as soon as the node that consumed it is done (its
/// vector result moves down to where the pool stood), so at any moment the pool holds
/// * the values of the statements already run: at most `MAX_STATEMENTS − 1` = 99, one
///   vector each (a statement assigns one value; an overwritten one is not reclaimed);
/// * one pending operand of each node on the path from the statement's root to the node
///   being evaluated (a binary operator's left side, `percentile`'s or `val`'s vector, a
///   vector literal's elements so far): at most [`MAX_HEIGHT`] = 64 ancestors;
/// * the node itself: two operands and its result, 3 vectors.
///
/// So `(99 + 64 + 3) × 240 = 39,840` doubles (318,720 bytes) suffice for every formula of
/// at most 100 statements; `tests/tests/formula.rs` drives the worst cases of each term.
/// A board may give a [`Workspace`] less.
pub const VECTOR_POOL: usize = (MAX_STATEMENTS - 1 + MAX_HEIGHT + 3) * DEFAULT_HISTORY;

/// The number of read-only service variables.
pub const METRIC_COUNT: usize = 20;

/// The read-only service variables: sampled metrics and current pool counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[allow(missing_docs)] // each variant is the variable of the same name
pub enum Metric {
    CPUPercent,
    WallClockSeconds,
    MemoryBytes,
    DiskBytes,
    DiskReadBytes,
    DiskWriteBytes,
    DiskReadOps,
    DiskWriteOps,
    NetworkInBytes,
    NetworkOutBytes,
    SampleNodeCount,
    ActiveTasks,
    RunningTasks,
    PendingTasks,
    SucceededTasks,
    FailedTasks,
    TaskSlotsPerNode,
    CurrentDedicatedNodes,
    CurrentLowPriorityNodes,
    PreemptedNodeCount,
}

const METRIC_NAMES: [&str; METRIC_COUNT] = [
    "$CPUPercent",
    "$WallClockSeconds",
    "$MemoryBytes",
    "$DiskBytes",
    "$DiskReadBytes",
    "$DiskWriteBytes",
    "$DiskReadOps",
    "$DiskWriteOps",
    "$NetworkInBytes",
    "$NetworkOutBytes",
    "$SampleNodeCount",
    "$ActiveTasks",
    "$RunningTasks",
    "$PendingTasks",
    "$SucceededTasks",
    "$FailedTasks",
    "$TaskSlotsPerNode",
    "$CurrentDedicatedNodes",
    "$CurrentLowPriorityNodes",
    "$PreemptedNodeCount",
];

impl Metric {
    /// Every metric, in declaration order (index = `metric as usize`).
    pub const ALL: [Metric; METRIC_COUNT] = [
        Metric::CPUPercent,
        Metric::WallClockSeconds,
        Metric::MemoryBytes,
        Metric::DiskBytes,
        Metric::DiskReadBytes,
        Metric::DiskWriteBytes,
        Metric::DiskReadOps,
        Metric::DiskWriteOps,
        Metric::NetworkInBytes,
        Metric::NetworkOutBytes,
        Metric::SampleNodeCount,
        Metric::ActiveTasks,
        Metric::RunningTasks,
        Metric::PendingTasks,
        Metric::SucceededTasks,
        Metric::FailedTasks,
        Metric::TaskSlotsPerNode,
        Metric::CurrentDedicatedNodes,
        Metric::CurrentLowPriorityNodes,
        Metric::PreemptedNodeCount,
    ];

    /// Returns the variable's name with its `$`.
    pub fn name(self) -> &'static str {
        METRIC_NAMES[self as usize]
    }

    /// Finds a metric by name (`$` optional), ignoring ASCII case; `$CurrentDedicated` is
    /// an alias of `$CurrentDedicatedNodes`.
    pub fn lookup(name: &str) -> Option<Metric> {
        let bare = name.strip_prefix('$').unwrap_or(name);
        if bare.eq_ignore_ascii_case("CurrentDedicated") {
            return Some(Metric::CurrentDedicatedNodes);
        }
        METRIC_NAMES
            .iter()
            .position(|n| n[1..].eq_ignore_ascii_case(bare))
            .and_then(|i| Metric::ALL.get(i).copied())
    }
}

/// What `$NodeDeallocationOption` says to do with running tasks on removed nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Deallocation {
    /// Stop tasks now and put them back on the queue (Batch's default).
    #[default]
    Requeue,
    /// Stop tasks now and drop them.
    Terminate,
    /// Let running tasks finish, then remove the node.
    TaskCompletion,
    /// Wait until task-retained data is cleaned up, then remove the node.
    RetainedData,
}

impl Deallocation {
    /// Returns the formula word: `requeue`, `terminate`, `taskcompletion`, `retaineddata`.
    pub fn word(self) -> &'static str {
        match self {
            Deallocation::Requeue => "requeue",
            Deallocation::Terminate => "terminate",
            Deallocation::TaskCompletion => "taskcompletion",
            Deallocation::RetainedData => "retaineddata",
        }
    }

    /// Parses a formula word.
    pub fn from_word(w: &str) -> Option<Self> {
        [
            Deallocation::Requeue,
            Deallocation::Terminate,
            Deallocation::TaskCompletion,
            Deallocation::RetainedData,
        ]
        .into_iter()
        .find(|d| d.word() == w)
    }
}

/// The language's value types (named in type errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Type {
    /// A 64-bit float (also the boolean type).
    Double,
    /// A vector of doubles.
    DoubleVec,
    /// Text.
    String,
    /// A point in time.
    Timestamp,
    /// A duration.
    TimeInterval,
    /// A `$NodeDeallocationOption` word.
    Deallocation,
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Type::Double => "double",
            Type::DoubleVec => "doubleVec",
            Type::String => "string",
            Type::Timestamp => "timestamp",
            Type::TimeInterval => "timeinterval",
            Type::Deallocation => "deallocation option",
        })
    }
}
