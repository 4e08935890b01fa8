//! What each flag needs to change a run, stated once per flag in its model's [`Model::NEEDS`]
//! table, and the one check after parsing that applies them ([`check`]), as ripgrep derives
//! its high-level arguments from the low-level ones once (`HiArgs::from_low_args`).
//!
//! A flag given a value other than its default where it cannot act would be ignored: the run
//! would print the rows of a run without it, under a column that says otherwise. So a grid
//! in which no run both has the flag at a value other than its default and meets what the
//! flag needs is one line, status 2, naming the flag and what it needs:
//! `--steps: needs --policy step (without it the flag would be ignored)`.
//!
//! The defaults never trigger it: a script or a page that passes every flag's default runs
//! as before. In a grid, the rule is the runs': if one run meets the need (the `--policy`
//! list holds the policy the flag needs), the flag is taken, applies to the runs that meet it
//! and is ignored by the others (`--policy lesson,target-tracking --target-utilization 70`
//! compares the lesson's policy with target tracking at 70 %).

use super::{Grid, Model};
use crate::output::Cell;

/// What a flag needs to act, as its error says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// It needs this (`--policy step`), for this reason ("" for none): `--steps: needs
    /// --policy step (without it the flag would be ignored)`, `--cooldown: needs --policy
    /// lesson or step (target tracking has no cooldown; without it the flag would be
    /// ignored)`.
    Needs(&'static str, &'static str),
    /// It does nothing beside this flag, for this reason: `--surge: would be ignored with
    /// --demand-file (the file's rows are the demand)`.
    NotWith(&'static str, &'static str),
}

/// One statement of what some flags need to act: they act in a run whose parameters meet
/// `holds`.
pub struct Need<P> {
    /// The flags (row keys) it is about.
    pub flags: &'static [&'static str],
    /// What they need, as the error says it.
    pub rule: Rule,
    /// Whether a run's parameters let the flags act (with their own values set).
    pub holds: fn(&P) -> bool,
    /// Flags and values (keys as the flags without dashes) that meet the need when added to
    /// a command that lacks it (`[("policy", "step")]`; empty for [`Rule::NotWith`]): the
    /// tests' way to give every flag what it needs.
    pub example: &'static [(&'static str, &'static str)],
}

impl<P> Need<P> {
    /// Returns the one-line error for `flag` (without dashes) given where it cannot act.
    pub fn error(&self, flag: &str) -> String {
        match self.rule {
            Rule::Needs(what, "") => {
                format!("--{flag}: needs {what} (without it the flag would be ignored)")
            }
            Rule::Needs(what, why) => {
                format!("--{flag}: needs {what} ({why}; without it the flag would be ignored)")
            }
            Rule::NotWith(other, why) => {
                format!("--{flag}: would be ignored with {other} ({why})")
            }
        }
    }
}

/// A statement not yet met, for one flag given: its axis, and which of its values are not
/// the default's (a value's cell, set on the defaults, differs from the default's cell).
struct Open<'a, P> {
    need: &'a Need<P>,
    key: &'static str,
    axis: usize,
    changed: Vec<bool>,
}

/// Returns the range error of a value of axis `a` not the default (`changed`), set on the
/// defaults alone: a value outside its range is named as such before what its flag needs
/// (`--preemption-rate -1` is out of range, not a flag without spot capacity). An error
/// about another parameter, or about the flag beside another (`'none' unless
/// --arrival-rate is given`), is left to the need's line.
fn value_error<M: Model>(grid: &Grid<M>, a: usize, changed: &[bool]) -> Option<String> {
    let flag = grid.axis_key(a).replace('_', "-");
    changed
        .iter()
        .enumerate()
        .filter(|(_, &c)| c)
        .find_map(
            |(j, _)| match (M::VALIDATE)(&grid.set_on(M::Params::default(), a, j)) {
                Err(e @ capsim_core::Error::OutOfRange { param, accepted })
                    if param == flag
                        && !matches!(
                            accepted,
                            capsim_core::Accepted::OnlyWith { .. }
                                | capsim_core::Accepted::ZeroWithSpot
                        ) =>
                {
                    Some(e.to_string())
                }
                _ => None,
            },
        )
}

/// Applies every model's [`Model::NEEDS`] to `grid`: the first flag (in the table's order of
/// statements) given a value other than its default in some run, but in no run with both
/// that value and what it needs, is the error. Runs differing only in the seed are tried
/// once (no need reads the seed). A value outside its range is that error instead.
pub fn check<M: Model>(grid: &Grid<M>) -> Result<(), String> {
    let default = M::Params::default();
    let mut open: Vec<Open<'_, M::Params>> = Vec::new();
    for need in M::NEEDS {
        for &key in need.flags {
            let Some(axis) = grid.axis_of(key) else {
                continue;
            };
            let Some(param) = M::PARAMS.iter().find(|q| q.key == key) else {
                continue;
            };
            let unset: Cell = (param.cell)(&default);
            let changed: Vec<bool> = (0..grid.axis_len(axis))
                .map(|j| (param.cell)(&grid.set_on(default.clone(), axis, j)) != unset)
                .collect();
            if changed.iter().any(|&c| c) {
                open.push(Open {
                    need,
                    key,
                    axis,
                    changed,
                });
            }
        }
    }
    if open.is_empty() {
        return Ok(());
    }
    let seed = grid.axis_of("seed");
    let mut digits = vec![0; grid.axes()];
    loop {
        let p = grid.params(grid.index(&digits));
        open.retain(|o| !(o.changed[digits[o.axis]] && (o.need.holds)(&p)));
        if open.is_empty() {
            return Ok(());
        }
        // The next combination, the last axis fastest, the seed's held at its first value.
        let mut a = grid.axes();
        loop {
            if a == 0 {
                let o = &open[0];
                return Err(value_error(grid, o.axis, &o.changed)
                    .unwrap_or_else(|| o.need.error(&o.key.replace('_', "-"))));
            }
            a -= 1;
            if Some(a) == seed {
                continue;
            }
            digits[a] += 1;
            if digits[a] < grid.axis_len(a) {
                break;
            }
            digits[a] = 0;
        }
    }
}
