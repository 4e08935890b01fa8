//! One evaluation on the record, as Batch's `AutoScaleRun` keeps it (spec §10.1): when it
//! ran, the results string and the error, if it failed.

use core::fmt;

use super::error::FormulaError;
use super::time::Timestamp;

/// One evaluation of a formula driving a group: the note ([`crate::Observer::note`]) of the
/// round it ran in, before that round's state ([`crate::Observer::round`]).
///
/// `results` writes Batch's results string (`$TargetDedicatedNodes=…;$NodeDeallocationOption=…;…`,
/// see [`super::Results`]): after a failure, the variables assigned before the failing
/// statement, as Batch reports them next to an error.
#[derive(Clone, Copy)]
pub struct AutoScaleRun<'a> {
    /// The round of the evaluation.
    pub round: u32,
    /// The evaluation time (`time()`, `$CurrentTime` of the evaluation): the simulator's
    /// epoch plus 60 s a round; `None` past 9999-12-31 (no evaluation runs then).
    pub timestamp: Option<Timestamp>,
    /// Why the evaluation failed (`None` when it succeeded, or when it could not run for
    /// want of a time: see [`AutoScaleRun::failed`]).
    pub error: Option<FormulaError>,
    /// Whether the evaluation failed (the group left unchanged).
    pub failed: bool,
    /// Writes the results string.
    pub results: &'a dyn fmt::Display,
}

impl fmt::Debug for AutoScaleRun<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AutoScaleRun")
            .field("round", &self.round)
            .field("timestamp", &self.timestamp)
            .field("error", &self.error)
            .field("failed", &self.failed)
            .field("results", &format_args!("{}", self.results))
            .finish()
    }
}
