//! Warnings: formulas Batch accepts that cannot work as their author meant.
//!
//! - **`$CPUPercent` against a percent.** The value is a fraction from 0 to 1 (every
//!   Microsoft example compares it with 0.7; their prose says "70 percent"), so a
//!   comparison of it (or of a variable holding its average, minimum, maximum or
//!   percentile) with a constant above 1 never holds, or always does.
//! - **A target that truncates back to the current size.** Batch truncates a target to a
//!   whole number, so `$TargetDedicatedNodes = $CurrentDedicatedNodes * 1.25` from 3 nodes
//!   asks for 3.75, gets 3, and never grows. A target that is `a × $CurrentDedicatedNodes +
//!   b` (through user variables, either branch of a `?:` and a `min` or `max` with a
//!   constant cap too, as Microsoft's `cpu-400` example writes it) is checked for every
//!   group size up to the host's group capacity: the sizes where it wants to grow but
//!   truncates back to the size itself.
//!
//! The checks read the parsed program only (no evaluation), so `formula check`, a run's
//! evaluation log and the playground give the same warnings.

use core::fmt;

use super::program::{BinOp, BoundedProgram, Expr, Func, UnOp, NONE, SERVICE_SLOTS, SLOTS};
use super::Metric;
use crate::jsfmt::Num;

/// The largest group size a target's truncation is checked at (the host's group capacity).
pub const LINT_SIZES: u32 = 16_384;

/// What a warning is about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WarningKind {
    /// `$CPUPercent` (a fraction, 0 to 1) compared with `constant`, above 1.
    CpuPercentScale {
        /// The constant it is compared with.
        constant: f64,
    },
    /// A target `factor × $CurrentDedicatedNodes + offset` that truncates back to the
    /// current size for every size from `first` to `last` (and wants more there).
    TruncatedTarget {
        /// The target's name as written (`$TargetDedicatedNodes`).
        target: &'static str,
        /// The factor of the current size.
        factor: f64,
        /// The constant added.
        offset: f64,
        /// The smallest size it stays at.
        first: u32,
        /// The largest size it stays at.
        last: u32,
    },
}

/// One warning, where its source is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Warning {
    /// The source line, 1-based.
    pub line: u32,
    /// The source column, 1-based.
    pub col: u32,
    /// What it is about.
    pub kind: WarningKind,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            WarningKind::CpuPercentScale { constant } => write!(
                f,
                "$CPUPercent is a fraction from 0 to 1 (Batch's value; its prose says percent), compared here with {}: did you mean {}?",
                Num(constant),
                Num(constant / 100.0)
            ),
            WarningKind::TruncatedTarget {
                target,
                factor,
                offset,
                first,
                last,
            } => {
                let wanted = factor * f64::from(last) + offset;
                write!(
                    f,
                    "{target} is truncated to a whole number: at {} nodes it asks for {} and gets {last}, the current size, so from {first} to {last} nodes the group never grows",
                    last,
                    Num(wanted)
                )
            }
        }
    }
}

/// Names of the target slots, as the statements write them.
const TARGETS: [&str; 4] = [
    "$TargetDedicatedNodes",
    "$TargetDedicated",
    "$TargetLowPriorityNodes",
    "$TargetLowPriority",
];

impl<const NODES: usize> BoundedProgram<NODES> {
    /// Hands `warn` each warning of the program ([`WarningKind`]), in statement order.
    pub fn lint(&self, mut warn: impl FnMut(Warning)) {
        // Per slot: whether it holds a $CPUPercent value, and its value as
        // a × $CurrentDedicatedNodes + b when it is one.
        let mut cpu = [false; SLOTS];
        let mut affine = [Affine::NONE; SLOTS];
        for s in &self.stmts[..usize::from(self.stmt_count)] {
            self.comparisons(s.expr, &cpu, &mut warn);
            let slot = usize::from(s.slot);
            if slot >= SLOTS {
                continue;
            }
            let value = self.affine(s.expr, &affine);
            if slot >= SERVICE_SLOTS {
                cpu[slot] = self.is_cpu(s.expr, &cpu);
                affine[slot] = value;
            } else if let Some(target) = TARGETS.get(slot) {
                // The first form that stays (one warning a statement).
                let stays = value
                    .all()
                    .iter()
                    .find_map(|&(a, b)| stuck(a, b).map(|s| (a, b, s)));
                if let Some((a, b, (first, last))) = stays {
                    warn(Warning {
                        line: u32::from(s.line),
                        col: u32::from(s.col),
                        kind: WarningKind::TruncatedTarget {
                            target,
                            factor: a,
                            offset: b,
                            first,
                            last,
                        },
                    });
                }
            }
        }
    }

    fn expr(&self, i: u16) -> Option<(Expr, u16, u16, u16)> {
        self.nodes
            .get(usize::from(i))
            .map(|n| (n.expr, n.line, n.col, n.next))
    }

    /// Warns of every comparison under node `i` of a $CPUPercent value with a constant
    /// above 1.
    fn comparisons(&self, i: u16, cpu: &[bool; SLOTS], warn: &mut impl FnMut(Warning)) {
        let Some((e, line, col, _)) = self.expr(i) else {
            return;
        };
        match e {
            Expr::Binary { op, l, r } => {
                let compares = matches!(
                    op,
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
                );
                if compares {
                    let against = |v: u16, c: u16| {
                        self.is_cpu(v, cpu)
                            .then(|| self.constant(c))
                            .flatten()
                            .filter(|k| libm::fabs(*k) > 1.0)
                    };
                    if let Some(constant) = against(l, r).or_else(|| against(r, l)) {
                        warn(Warning {
                            line: u32::from(line),
                            col: u32::from(col),
                            kind: WarningKind::CpuPercentScale { constant },
                        });
                    }
                }
                self.comparisons(l, cpu, warn);
                self.comparisons(r, cpu, warn);
            }
            Expr::Unary { e, .. } => self.comparisons(e, cpu, warn),
            Expr::Cond { c, t, e } => {
                self.comparisons(c, cpu, warn);
                self.comparisons(t, cpu, warn);
                self.comparisons(e, cpu, warn);
            }
            Expr::Call { first, .. } | Expr::Method { first, .. } | Expr::Vector { first, .. } => {
                let mut a = first;
                while a != NONE {
                    self.comparisons(a, cpu, warn);
                    a = self.expr(a).map_or(NONE, |(_, _, _, next)| next);
                }
            }
            Expr::Member { obj, .. } => self.comparisons(obj, cpu, warn),
            _ => {}
        }
    }

    /// Whether node `i` is a $CPUPercent value: the variable, its samples, a function of
    /// them that keeps their scale (average, minimum, maximum, percentile, a value), or a
    /// user variable holding one.
    fn is_cpu(&self, i: u16, cpu: &[bool; SLOTS]) -> bool {
        let Some((e, ..)) = self.expr(i) else {
            return false;
        };
        let any = |first: u16| {
            let mut a = first;
            while a != NONE {
                if self.is_cpu(a, cpu) {
                    return true;
                }
                a = self.expr(a).map_or(NONE, |(_, _, _, next)| next);
            }
            false
        };
        match e {
            Expr::Metric(m) | Expr::Method { metric: m, .. } => m == Metric::CPUPercent,
            Expr::Var(slot) => cpu.get(usize::from(slot)).copied().unwrap_or(false),
            Expr::Call { func, first, .. } => {
                matches!(
                    func,
                    Func::Avg | Func::Max | Func::Min | Func::Percentile | Func::Val
                ) && any(first)
            }
            Expr::Vector { first, .. } => any(first),
            Expr::Cond { t, e, .. } => self.is_cpu(t, cpu) || self.is_cpu(e, cpu),
            _ => false,
        }
    }

    /// Node `i` as a number, if it is a constant (`70`, `-70`).
    fn constant(&self, i: u16) -> Option<f64> {
        match self.expr(i)?.0 {
            Expr::Num(v) => Some(v),
            Expr::Unary { op: UnOp::Neg, e } => self.constant(e).map(|v| -v),
            _ => None,
        }
    }

    /// The values node `i` may take of the form `a × $CurrentDedicatedNodes + b` (up to
    /// [`CANDIDATES`]): each branch of a `?:`, the argument of a `min` or `max` that follows
    /// the size (a constant one only caps it), sums and multiples of them by constants.
    fn affine(&self, i: u16, vars: &[Affine; SLOTS]) -> Affine {
        let Some((e, ..)) = self.expr(i) else {
            return Affine::NONE;
        };
        match e {
            Expr::Num(v) => Affine::one(0.0, v),
            Expr::Metric(Metric::CurrentDedicatedNodes) => Affine::one(1.0, 0.0),
            Expr::Var(slot) => vars.get(usize::from(slot)).copied().unwrap_or(Affine::NONE),
            Expr::Unary { op: UnOp::Neg, e } => self.affine(e, vars).map(|(a, b)| Some((-a, -b))),
            Expr::Binary { op, l, r } => {
                let (x, y) = (self.affine(l, vars), self.affine(r, vars));
                let mut out = Affine::NONE;
                for &(a1, b1) in x.all() {
                    for &(a2, b2) in y.all() {
                        let v = match op {
                            BinOp::Add => Some((a1 + a2, b1 + b2)),
                            BinOp::Sub => Some((a1 - a2, b1 - b2)),
                            BinOp::Mul if a1 == 0.0 => Some((b1 * a2, b1 * b2)),
                            BinOp::Mul if a2 == 0.0 => Some((a1 * b2, b1 * b2)),
                            BinOp::Div if a2 == 0.0 && b2 != 0.0 => Some((a1 / b2, b1 / b2)),
                            _ => None,
                        };
                        match v {
                            Some(v) => out.push(v),
                            // Not of the form: the whole is not either.
                            None => return Affine::NONE,
                        }
                    }
                }
                out
            }
            Expr::Cond { t, e, .. } => self.affine(t, vars).union(self.affine(e, vars)),
            Expr::Call {
                func: Func::Min | Func::Max,
                first,
                ..
            } => {
                let mut out = Affine::NONE;
                let mut a = first;
                while a != NONE {
                    for &(k, c) in self.affine(a, vars).all() {
                        if k != 0.0 {
                            out.push((k, c));
                        }
                    }
                    a = self.expr(a).map_or(NONE, |(_, _, _, next)| next);
                }
                out
            }
            _ => Affine::NONE,
        }
    }
}

/// The most forms `a × $CurrentDedicatedNodes + b` a value is followed as.
const CANDIDATES: usize = 4;

/// The forms `(a, b)` a value may take (the first [`CANDIDATES`]).
#[derive(Clone, Copy, Debug)]
struct Affine {
    forms: [(f64, f64); CANDIDATES],
    len: usize,
}

impl Affine {
    const NONE: Affine = Affine {
        forms: [(0.0, 0.0); CANDIDATES],
        len: 0,
    };

    fn one(a: f64, b: f64) -> Self {
        let mut x = Self::NONE;
        x.push((a, b));
        x
    }

    fn all(&self) -> &[(f64, f64)] {
        &self.forms[..self.len]
    }

    fn push(&mut self, v: (f64, f64)) {
        if self.len < CANDIDATES && !self.all().contains(&v) {
            self.forms[self.len] = v;
            self.len += 1;
        }
    }

    fn union(mut self, other: Self) -> Self {
        for &v in other.all() {
            self.push(v);
        }
        self
    }

    fn map(self, f: impl Fn((f64, f64)) -> Option<(f64, f64)>) -> Self {
        let mut out = Self::NONE;
        for &v in self.all() {
            if let Some(w) = f(v) {
                out.push(w);
            }
        }
        out
    }
}

/// The sizes `n` (0 to [`LINT_SIZES`]) at which `a·n + b` wants more than `n` but
/// truncates back to `n`, as their first and last; `None` if there are none, or if the
/// target does not follow the current size (`a` is 0).
fn stuck(a: f64, b: f64) -> Option<(u32, u32)> {
    if a == 0.0 {
        return None;
    }
    let mut found: Option<(u32, u32)> = None;
    for n in 0..=LINT_SIZES {
        let x = a * f64::from(n) + b;
        if x > f64::from(n) && x < f64::from(n) + 1.0 {
            found = Some(found.map_or((n, n), |(first, _)| (first, n)));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;
    use std::vec::Vec;

    use crate::formula::Program;

    fn lint(src: &str) -> Vec<String> {
        let mut p = std::boxed::Box::new(Program::new());
        p.parse(src).unwrap();
        let mut out = Vec::new();
        p.lint(|w| out.push(std::format!("{}:{}: {w}", w.line, w.col)));
        out
    }

    #[test]
    fn cpu_percent_against_a_percent_is_a_warning() {
        let w = lint("$avg = avg($CPUPercent.GetSample(TimeInterval_Minute * 5));\n$TargetDedicatedNodes = $avg > 70 ? 10 : 1;\n");
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("2:"), "{w:?}");
        assert!(
            w[0].contains("compared here with 70: did you mean 0.7?"),
            "{w:?}"
        );
        // Microsoft's own formulas compare with fractions: no warning.
        assert!(lint("$a = avg($CPUPercent.GetSample(TimeInterval_Minute * 5));\n$TargetDedicatedNodes = $a > 0.7 ? 10 : 1;\n").is_empty());
        // Scaled to a percent first: no warning.
        assert!(lint("$a = avg($CPUPercent.GetSample(TimeInterval_Minute)) * 100;\n$TargetDedicatedNodes = $a > 70 ? 10 : 1;\n").is_empty());
        // Other variables are not fractions.
        assert!(
            lint("$TargetDedicatedNodes = avg($PendingTasks.GetSample(1)) > 70 ? 10 : 1;\n")
                .is_empty()
        );
        // Either side, and a negative constant's size.
        assert_eq!(
            lint("$TargetDedicatedNodes = 80 <= max($CPUPercent.GetSample(1)) ? 2 : 1;\n").len(),
            1
        );
    }

    #[test]
    fn a_target_that_truncates_back_is_a_warning() {
        let w = lint("$TargetDedicatedNodes = $CurrentDedicatedNodes * 1.25;\n");
        assert_eq!(w.len(), 1, "{w:?}");
        // 3 × 1.25 = 3.75 → 3; 4 × 1.25 = 5 grows; 0 stays at 0 but asks for nothing more.
        assert_eq!(
            w[0],
            "1:1: $TargetDedicatedNodes is truncated to a whole number: at 3 nodes it asks for 3.75 and gets 3, the current size, so from 1 to 3 nodes the group never grows"
        );
        // Through a variable, and as a sum.
        assert_eq!(
            lint("$n = $CurrentDedicatedNodes;\n$TargetDedicatedNodes = $n + 0.5;\n").len(),
            1
        );
        // Doubling always grows; a constant target never follows the size.
        assert!(lint("$TargetDedicatedNodes = $CurrentDedicatedNodes * 2;\n").is_empty());
        assert!(lint("$TargetDedicatedNodes = 3.5;\n").is_empty());
        // Microsoft's example: in a branch, under a cap (1.1 from 1 to 9 nodes).
        let w = lint("$n = (avg($CPUPercent.GetSample(TimeInterval_Minute * 10)) > 0.7) ? ($CurrentDedicatedNodes * 1.1) : $CurrentDedicatedNodes;\n$TargetDedicatedNodes = min(400, $n);\n");
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("at 9 nodes it asks for 9.9 and gets 9"),
            "{w:?}"
        );
        assert!(w[0].contains("from 1 to 9 nodes"), "{w:?}");
        // At 1.0001 the group stays from 1 to 9999 nodes.
        let w = lint("$TargetLowPriorityNodes = 1.0001 * $CurrentDedicatedNodes;\n");
        assert!(w[0].contains("from 1 to 9999 nodes"), "{w:?}");
        assert!(w[0].starts_with("1:1: $TargetLowPriorityNodes"), "{w:?}");
    }
}
