//! The results string of an evaluation ([`Results`]), as Batch reports it after a success or
//! next to an error, and the [`Outcome`]'s display.

use super::super::program::{BoundedProgram, DEALLOCATION_SLOT, SERVICE_SLOTS};
use super::super::time::{TimeInterval, Timestamp};
use super::super::{Deallocation, MAX_NODES, VECTOR_POOL};
use super::{BoundedWorkspace, Outcome, Value};
use crate::jsfmt::Num;
use core::fmt;

/// The results string of an evaluation: `$TargetDedicatedNodes=10;$NodeDeallocationOption=…`.
///
/// From [`Outcome::results`] after success, or [`super::Workspace::results`] after a failure (the
/// variables assigned before the failing statement, as Batch reports next to an error).
pub struct Results<'a, const NODES: usize = MAX_NODES, const POOL: usize = VECTOR_POOL> {
    program: &'a BoundedProgram<NODES>,
    ws: &'a BoundedWorkspace<POOL>,
    deallocation: Deallocation,
}

impl<const NODES: usize, const POOL: usize> Outcome<'_, NODES, POOL> {
    /// Returns the results string (also what `Display` writes).
    pub fn results(&self) -> Results<'_, NODES, POOL> {
        Results {
            program: self.program,
            ws: self.ws,
            deallocation: self.deallocation,
        }
    }
}

impl<const POOL: usize> BoundedWorkspace<POOL> {
    /// Returns the results string of the last evaluation of `program` in this workspace,
    /// up to the statement that failed.
    pub fn results<'a, const NODES: usize>(
        &'a self,
        program: &'a BoundedProgram<NODES>,
    ) -> Results<'a, NODES, POOL> {
        let d = usize::from(DEALLOCATION_SLOT);
        let deallocation = match (self.assigned[d], self.values[d]) {
            (true, Value::Dealloc(x)) => x,
            _ => Deallocation::Requeue,
        };
        Results {
            program,
            ws: self,
            deallocation,
        }
    }
}

impl<const NODES: usize, const POOL: usize> fmt::Display for Outcome<'_, NODES, POOL> {
    /// Writes the results string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.results().fmt(f)
    }
}

impl<const NODES: usize, const POOL: usize> Results<'_, NODES, POOL> {
    fn write_value(&self, f: &mut fmt::Formatter<'_>, v: Value) -> fmt::Result {
        match v {
            Value::Double(x) => write!(f, "{}", Num(x)),
            Value::Vector { start, len } => {
                f.write_str("[")?;
                for j in 0..usize::from(len) {
                    if j > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}", Num(self.ws.at(usize::from(start) + j)))?;
                }
                f.write_str("]")
            }
            Value::Str { start, len } => f.write_str(self.program.text(start, len)),
            Value::Time(t) => write!(f, "{}", Timestamp(t)),
            Value::Interval(t) => write!(f, "{}", TimeInterval(t)),
            Value::Dealloc(d) => f.write_str(d.word()),
        }
    }
}

impl<const NODES: usize, const POOL: usize> fmt::Display for Results<'_, NODES, POOL> {
    /// Writes the targets assigned, `$NodeDeallocationOption` (always), then the user
    /// variables assigned, in ordinal byte order of their names.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut item = |f: &mut fmt::Formatter<'_>, slot: usize, v: Value| -> fmt::Result {
            if !first {
                f.write_str(";")?;
            }
            first = false;
            write!(f, "{}=", self.program.slot_name(slot))?;
            self.write_value(f, v)
        };
        for slot in 0..usize::from(DEALLOCATION_SLOT) {
            if self.ws.assigned[slot] {
                item(f, slot, self.ws.values[slot])?;
            }
        }
        item(
            f,
            usize::from(DEALLOCATION_SLOT),
            Value::Dealloc(self.deallocation),
        )?;
        for &slot in self
            .program
            .order
            .iter()
            .take(self.program.user_variables())
        {
            let slot = usize::from(slot);
            if slot >= SERVICE_SLOTS && self.ws.assigned.get(slot) == Some(&true) {
                item(f, slot, self.ws.values[slot])?;
            }
        }
        Ok(())
    }
}
