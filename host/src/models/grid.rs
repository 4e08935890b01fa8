//! A model's flags ([`Flags`]: one per `Param`, parsed into axes) and the runs they
//! span ([`Grid`]: the product of the axes, the seed innermost, decoded run by run).

#[cfg(feature = "cli")]
use clap::{Arg, ArgMatches, Command, FromArgMatches};
use std::marker::PhantomData;
use std::sync::Arc;

use super::{Axis, Model, Param, Parsed, MAX_RUNS};

/// A model command's parameter flags, one per [`Param`], as clap parsed them.
pub struct Flags<M: Model> {
    /// Each parameter's values, in [`Model::PARAMS`] order (`None`: flag omitted).
    values: Vec<Option<Parsed<M::Params>>>,
}

impl<M: Model> std::fmt::Debug for Flags<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let given: Vec<&str> = M::PARAMS
            .iter()
            .zip(&self.values)
            .filter(|(_, v)| v.is_some())
            .map(|(p, _)| p.key)
            .collect();
        f.debug_struct("Flags").field("given", &given).finish()
    }
}

impl<M: Model> Flags<M> {
    /// Returns the flags given as (flag without dashes, value) pairs, in command-line order,
    /// as the command line would parse them: the first bad one fails with clap's text
    /// (without `error: `).
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, String> {
        let mut values: Vec<Option<Parsed<M::Params>>> = M::PARAMS.iter().map(|_| None).collect();
        for (flag, value) in pairs {
            let Some(at) = M::PARAMS.iter().position(|p| p.flag() == flag) else {
                return Err(format!("unexpected argument '--{flag}' found"));
            };
            if values[at].is_some() {
                return Err(format!(
                    "the argument '--{flag} <LIST>' cannot be used multiple times"
                ));
            }
            let parsed = (M::PARAMS[at].parse)(value)
                .map_err(|e| format!("invalid value '{value}' for '--{flag} <LIST>': {e}"))?;
            values[at] = Some(parsed);
        }
        Ok(Self { values })
    }

    /// Returns the flag `key` alone (its values as given; the others omitted).
    pub fn only(&self, key: &str) -> Self {
        let values = M::PARAMS
            .iter()
            .zip(&self.values)
            .map(|(p, v)| if p.key == key { v.clone() } else { None })
            .collect();
        Self { values }
    }

    /// Returns these flags over `base`: a parameter given here keeps its values, the others
    /// take `base`'s (the command line's flags over a scenario file's). Flags that say one
    /// thing two ways ([`Model::TOGETHER`]: `--launch-hook` and `--launch-hooks`) replace
    /// each other: one given here drops `base`'s of either.
    pub fn over(self, mut base: Self) -> Self {
        for group in M::TOGETHER {
            let given = |f: &Self, k: &str| {
                M::PARAMS
                    .iter()
                    .position(|p| p.key == k)
                    .is_some_and(|at| f.values[at].is_some())
            };
            if group.iter().any(|k| given(&self, k)) {
                for (p, v) in M::PARAMS.iter().zip(&mut base.values) {
                    if group.contains(&p.key) {
                        *v = None;
                    }
                }
            }
        }
        let values = self
            .values
            .into_iter()
            .zip(base.values)
            .map(|(mine, theirs)| mine.or(theirs))
            .collect();
        Self { values }
    }
}

#[cfg(feature = "cli")]
impl<M: Model> FromArgMatches for Flags<M> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let values = M::PARAMS
            .iter()
            .map(|p| matches.get_one::<Parsed<M::Params>>(p.key).cloned())
            .collect();
        Ok(Self { values })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for (p, v) in M::PARAMS.iter().zip(&mut self.values) {
            if let Some(parsed) = matches.get_one::<Parsed<M::Params>>(p.key) {
                *v = Some(parsed.clone());
            }
        }
        Ok(())
    }
}

#[cfg(feature = "cli")]
impl<M: Model> clap::Args for Flags<M> {
    fn augment_args(mut cmd: Command) -> Command {
        for (p, help) in M::PARAMS.iter().zip(help_lines::<M>()) {
            cmd = cmd.arg(
                Arg::new(p.key)
                    .long(p.flag())
                    .value_name("LIST")
                    .allow_hyphen_values(true)
                    .help(help)
                    .value_parser(p.parse),
            );
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The `--help` lines of `M`'s flags ([`Param::help_line`]), built once a process: every
/// subcommand that takes the model's flags (the model's own, `trace`, `plot`) shares them,
/// and clap builds every subcommand at start, `capsim lesson all` included.
#[cfg(feature = "cli")]
fn help_lines<M: Model>() -> &'static [String] {
    use std::collections::BTreeMap;
    use std::sync::{Mutex, OnceLock, PoisonError};
    static LINES: OnceLock<Mutex<BTreeMap<&'static str, &'static [String]>>> = OnceLock::new();
    let mut lines = LINES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    // One leak a model a process: the lines live as long as the command they describe.
    lines.entry(std::any::type_name::<M>()).or_insert_with(|| {
        M::PARAMS
            .iter()
            .map(Param::help_line)
            .collect::<Vec<_>>()
            .leak()
    })
}

impl<M: Model> Flags<M> {
    /// Returns the grid of runs: every combination of the given flags' values.
    pub fn grid(&self) -> Result<Grid<M>, String> {
        let mut axes = Vec::new();
        let mut len: u64 = 1;
        let mut swept = Vec::new();
        for (param, values) in M::PARAMS.iter().zip(&self.values) {
            let Some(Parsed(values)) = values else {
                continue;
            };
            if values.len() > 1 {
                swept.push(param.key);
            }
            len = len.saturating_mul(values.len() as u64);
            axes.push((param, Arc::clone(values)));
        }
        if len > MAX_RUNS {
            return Err(format!(
                "the parameter lists make {len} runs; at most {MAX_RUNS} are accepted"
            ));
        }
        // Each axis's stride: the runs one of its steps spans (a product of at most
        // `MAX_RUNS`: no overflow).
        let mut strides = vec![1u64; axes.len()];
        for a in (0..axes.len().saturating_sub(1)).rev() {
            strides[a] = strides[a + 1] * axes[a + 1].1.len() as u64;
        }
        let grid = Grid {
            base: M::Params::default(),
            axes,
            strides,
            len,
            stop: len,
            swept,
            _model: PhantomData,
        };
        M::prepare(&grid)?;
        super::needs::check(&grid)?;
        M::check_grid(&grid)?;
        Ok(grid)
    }
}

/// A given flag on the grid: its parameter and its values.
type GridAxis<P> = (&'static Param<P>, Arc<dyn Axis<P>>);

/// The parameter grid of one command: every combination of the listed values, first flag
/// outermost, seed innermost. Run `i`'s parameters are decoded from `i` on demand (mixed
/// radix over the flags' value lists), so a grid of a million runs holds only its lists.
pub struct Grid<M: Model> {
    base: M::Params,
    /// The given flags and their values, outermost first.
    axes: Vec<GridAxis<M::Params>>,
    /// Each axis's stride: run `i` takes value `i / stride % len` of it.
    strides: Vec<u64>,
    /// The number of runs.
    len: u64,
    /// The run before which batches stop looking for partners: the grid's end, or the end
    /// of the runs swept (`--shard`), so that no run past them is run.
    pub(super) stop: u64,
    /// The keys of flags given more than one value (the table shows them).
    pub swept: Vec<&'static str>,
    _model: PhantomData<M>,
}

impl<M: Model> Grid<M> {
    /// Returns the number of runs.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Returns false: a grid has at least one run.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Returns the grid whose batches take no partner from run `stop` on (a shard's end):
    /// the runs' outcomes are the same, only the work past `stop` is saved.
    pub fn stopping_at(mut self, stop: u64) -> Self {
        self.stop = stop.min(self.len);
        self
    }

    /// Returns how many seeds the grid runs per combination (the innermost list).
    pub fn seeds(&self) -> usize {
        self.axis_of("seed").map_or(1, |a| self.axis_len(a))
    }

    /// Returns each axis's index in run `i`, outermost first.
    pub fn digits(&self, mut i: u64) -> Vec<usize> {
        let mut digits = vec![0; self.axes.len()];
        for (d, (_, axis)) in digits.iter_mut().zip(&self.axes).rev() {
            let n = axis.len() as u64;
            *d = (i % n) as usize;
            i /= n;
        }
        digits
    }

    /// Returns the run with the given axis indices (inverse of [`Grid::digits`]).
    pub fn index(&self, digits: &[usize]) -> u64 {
        digits
            .iter()
            .zip(&self.axes)
            .fold(0, |i, (&d, (_, axis))| i * axis.len() as u64 + d as u64)
    }

    /// Returns the position of the axis `key`, if the flag was given.
    pub fn axis_of(&self, key: &str) -> Option<usize> {
        self.axes.iter().position(|(p, _)| p.key == key)
    }

    /// Returns the key of axis `a`.
    pub fn axis_key(&self, a: usize) -> &'static str {
        self.axes[a].0.key
    }

    /// Returns the number of axes (given flags).
    pub fn axes(&self) -> usize {
        self.axes.len()
    }

    /// Returns the length of axis `a`.
    pub fn axis_len(&self, a: usize) -> usize {
        self.axes[a].1.len()
    }

    /// Returns run `i`'s parameters: each given flag's value, then what follows from them
    /// ([`Model::derive`]).
    pub fn params(&self, i: u64) -> M::Params {
        let mut p = self.base.clone();
        for ((_, axis), stride) in self.axes.iter().zip(&self.strides) {
            axis.set(&mut p, ((i / stride) % axis.len() as u64) as usize);
        }
        M::derive(&mut p, &|key| self.axis_of(key).is_some());
        p
    }

    /// Returns `p` with the `j`th value of axis `a` set (nothing derived).
    pub fn set_on(&self, mut p: M::Params, a: usize, j: usize) -> M::Params {
        self.axes[a].1.set(&mut p, j);
        p
    }

    /// Sets the seed of `p`, the parameters of a run of the same combination as run `i`
    /// (every axis but the seed at run `i`'s value), to run `i`'s: then `p` is
    /// [`Grid::params`]`(i)`, since the seed is the innermost axis and its flag sets only
    /// the seed ([`Model::PARAMS`]). Nothing changes without a seed list.
    pub fn set_seed(&self, p: &mut M::Params, i: u64) {
        if let Some((_, axis)) = self.axes.last().filter(|(q, _)| q.key == "seed") {
            axis.set(p, (i % axis.len() as u64) as usize);
        }
    }

    /// Names run `i` for an error: its values of the flags given more than one value, and
    /// its seed (`demand-base=31000 seed=1`).
    pub fn name(&self, i: u64) -> String {
        let p = self.params(i);
        let named =
            |param: &Param<M::Params>| format!("{}={}", param.flag(), (param.flag_value)(&p));
        let mut parts: Vec<String> = self
            .axes
            .iter()
            .filter(|(param, axis)| axis.len() > 1 && param.key != "seed")
            .map(|(param, _)| named(param))
            .collect();
        parts.extend(M::PARAMS.iter().filter(|q| q.key == "seed").map(named));
        parts.join(" ")
    }
}
