//! A flag's values as a grid axis: [`Value`] (what a row shows of a value), [`Axis`] and
//! [`Parsed`] (a parsed list that sets its field run by run), and the parsers the `param!`
//! tables use.

use std::sync::Arc;

use capsim_core::autoscale::{Events, FailureRounds, Hook, Reclaim, RemovalPolicy, Stockout};
use capsim_core::bulkhead::{Mode, Split};

use super::limits;
use crate::list::{parse, Item};
use crate::output::Cell;

/// A parameter or metric value a row can show.
pub trait Value: Clone + Send + Sync + 'static {
    /// Returns the value as a row shows it.
    fn cell(&self) -> Cell;

    /// Whether the value has a second part shown in a column of its own, `<key>_result`
    /// (a hook's default result), so that the first stays a number in JSON.
    const RESULT: bool = false;

    /// Returns the second part (read only when [`Value::RESULT`]).
    fn result(&self) -> Cell {
        Cell::Word("none")
    }

    /// Returns the value as its flag takes it: errors name a run by it.
    fn flag_text(&self) -> String {
        self.cell().text()
    }
}

impl Value for u32 {
    fn cell(&self) -> Cell {
        Cell::Int((*self).into())
    }
}

/// `none`, or the integer.
impl Value for Option<u32> {
    fn cell(&self) -> Cell {
        self.map_or(Cell::Word("none"), |v| Cell::Int(v.into()))
    }
}

impl Value for u64 {
    fn cell(&self) -> Cell {
        Cell::Int(*self)
    }
}

impl Value for f64 {
    fn cell(&self) -> Cell {
        Cell::Float(*self)
    }
}

impl Value for Split {
    fn cell(&self) -> Cell {
        match self {
            Split::Shared => Cell::Word("shared"),
            Split::Partitioned(k) => Cell::Int((*k).into()),
        }
    }
}

/// Implements [`Value`] for types a row shows by their `name()` (`healthy`, `oldest`).
macro_rules! named_values {
    ($($T:ty),+ $(,)?) => {$(
        impl $crate::models::Value for $T {
            fn cell(&self) -> $crate::output::Cell {
                $crate::output::Cell::Word(self.name())
            }
        }
    )+};
}
pub(crate) use named_values;

named_values!(Mode, RemovalPolicy, Reclaim);

impl Value for FailureRounds {
    fn cell(&self) -> Cell {
        Cell::Ints(self.to_vec())
    }
}

/// A hook shows its rounds (or `none`) and, in `<key>_result`, its default result.
impl Value for Option<Hook> {
    fn cell(&self) -> Cell {
        self.map_or(Cell::Word("none"), |h| Cell::Int(h.rounds.into()))
    }

    const RESULT: bool = true;

    fn result(&self) -> Cell {
        Cell::Word(self.map_or("none", |h| h.result.name()))
    }

    fn flag_text(&self) -> String {
        self.map_or("none".to_string(), |h| {
            format!("{}:{}", h.rounds, h.result.name())
        })
    }
}

/// `yes` or `no`.
impl Value for bool {
    fn cell(&self) -> Cell {
        Cell::Word(if *self { "yes" } else { "no" })
    }
}

/// `[]` or `[A,B]` in JSON, `none` or `A..B` as text.
impl Value for Option<Stockout> {
    fn cell(&self) -> Cell {
        self.map_or(Cell::Ints(Vec::new()), |s| Cell::Span(s.start, s.end))
    }
}

/// `none`, or the actions as the flag takes them (`0:protect:3+50:standby:1`).
impl Value for Events {
    fn cell(&self) -> Cell {
        if self.is_empty() {
            return Cell::Word("none");
        }
        let actions: Vec<String> = self
            .iter()
            .map(|e| format!("{}:{}:{}", e.round, e.action.name(), e.count))
            .collect();
        Cell::Text(actions.join("+"))
    }
}

/// One flag's values as a grid axis: how many, and how to put the `i`th into a run.
pub trait Axis<P>: Send + Sync {
    /// Returns the number of values.
    fn len(&self) -> usize;
    /// Returns false: a list has at least one value.
    fn is_empty(&self) -> bool {
        false
    }
    /// Sets the `i`th value on `p`.
    fn set(&self, p: &mut P, i: usize);
}

/// A parsed list of one parameter's values and the field they go to.
pub struct Values<P, T> {
    /// The values, in the order given.
    pub values: Vec<T>,
    /// Puts a value into its field.
    pub set: fn(&mut P, T),
}

impl<P, T: Value> Axis<P> for Values<P, T> {
    fn len(&self) -> usize {
        self.values.len()
    }
    fn set(&self, p: &mut P, i: usize) {
        (self.set)(p, self.values[i].clone());
    }
}

/// A flag's parsed values, as clap hands them over.
pub struct Parsed<P>(pub(super) Arc<dyn Axis<P>>);

impl<P> Clone for Parsed<P> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

/// Parses a comma-separated list of `T` into an axis setting a field with `set`.
pub fn axis<P: 'static, T: Item + Value>(s: &str, set: fn(&mut P, T)) -> Result<Parsed<P>, String> {
    let values = parse::<T>(s)?.0;
    Ok(Parsed(Arc::new(Values { values, set })))
}

/// [`axis`] for a parameter whose documented accepted values are `accepted`: an error
/// ends with them ([`crate::list::with_accepted`]).
pub fn param_axis<P: 'static, T: Item + Value>(
    s: &str,
    accepted: &str,
    set: fn(&mut P, T),
) -> Result<Parsed<P>, String> {
    axis(s, set).map_err(|e| crate::list::with_accepted::<T>(e, &limits::fill(accepted)))
}
