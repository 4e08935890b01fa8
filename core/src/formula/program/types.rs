//! The static check after parsing: each node's type where it is known before evaluation,
//! each function's and method's arguments against what it accepts, the operator table
//! ([`binary_type`], [`unary_type`], the one the evaluator's arithmetic follows) and the
//! targets a formula must leave assigned ([`Parser::final_targets`]).

use super::super::error::{ErrorKind, Snippet};
use super::super::lexer::Token;
use super::super::Type;
use super::parser::{Halt, Parser, R};
use super::{BinOp, Expr, Func, Method, UnOp, DEALLOCATION_SLOT, EMPTY_NODE, NONE};

/// The static type checks. Each mirrors the evaluator: a node whose operand types are all
/// known and do not combine fails on every evaluation that reaches it, so it is rejected
/// at parse time with the error (and the position) the evaluation would report. A node
/// with an operand whose type depends on the evaluation (a `?:` with branches of two
/// types, a variable assigned one) is left to the evaluator; nothing the evaluator accepts
/// is rejected, except code that could never evaluate (a type error in a branch that is
/// never taken).
impl<const NODES: usize> Parser<'_, '_, NODES> {
    pub(super) fn node_ty(&self, i: u16) -> Option<Type> {
        self.prog.nodes.get(usize::from(i)).and_then(|n| n.ty)
    }

    fn node_at(&self, i: u16) -> Token {
        let n = self
            .prog
            .nodes
            .get(usize::from(i))
            .copied()
            .unwrap_or(EMPTY_NODE);
        Token {
            line: u32::from(n.line),
            col: u32::from(n.col),
            ..self.tok
        }
    }

    /// The `k`-th argument (0-based) of a list starting at `first`.
    fn nth(&self, first: u16, k: u16) -> u16 {
        let mut a = first;
        for _ in 0..k {
            a = self.prog.nodes.get(usize::from(a)).map_or(NONE, |n| n.next);
        }
        a
    }

    fn argument(&mut self, name: &'static str, a: u16, found: Type) -> Halt {
        let t = self.node_at(a);
        self.at(t, ErrorKind::Argument { name, found })
    }

    /// Requires argument `a` to be one of `ok` when its type is known.
    fn want(&mut self, name: &'static str, a: u16, ok: &[Type]) -> R<()> {
        match self.node_ty(a) {
            Some(ty) if !ok.contains(&ty) => Err(self.argument(name, a, ty)),
            _ => Ok(()),
        }
    }

    /// The type of a new node (`t` is where it will point), or the error its evaluation
    /// would always raise. Never inlined: it would swell the recursive parser's frames.
    #[inline(never)]
    pub(super) fn static_type(&mut self, expr: &Expr, t: &Token) -> R<Option<Type>> {
        use Type::*;
        const LIST: [Type; 2] = [Double, DoubleVec];
        const POINT: [Type; 2] = [TimeInterval, Timestamp];
        Ok(match *expr {
            Expr::Num(_) | Expr::Metric(_) => Some(Double),
            Expr::Str { .. } => Some(String),
            Expr::Interval(_) => Some(TimeInterval),
            Expr::Dealloc(_) => Some(Deallocation),
            Expr::Var(slot) => self.slot_ty.get(usize::from(slot)).copied().flatten(),
            Expr::Vector { first, count } => {
                for k in 0..count {
                    self.want("a vector literal", self.nth(first, k), &[Double])?;
                }
                Some(DoubleVec)
            }
            Expr::Member { obj, member } => match self.node_ty(obj) {
                Some(Timestamp) | None => Some(Double),
                Some(found) => {
                    return Err(self.at(
                        *t,
                        ErrorKind::Argument {
                            name: member.name(),
                            found,
                        },
                    ))
                }
            },
            Expr::Unary { op, e } => match self.node_ty(e) {
                None => None,
                Some(ty) => match unary_type(op, ty) {
                    Some(r) => Some(r),
                    None => {
                        return Err(self.at(
                            *t,
                            ErrorKind::Operands {
                                op: op.symbol(),
                                left: ty,
                                right: None,
                            },
                        ))
                    }
                },
            },
            Expr::Binary { op, l, r } => match (self.node_ty(l), self.node_ty(r)) {
                (Some(a), Some(b)) => match binary_type(op, a, b) {
                    Some(ty) => Some(ty),
                    None => {
                        return Err(self.at(
                            *t,
                            ErrorKind::Operands {
                                op: op.symbol(),
                                left: a,
                                right: Some(b),
                            },
                        ))
                    }
                },
                // Comparisons and logic give a double whatever their operands.
                _ if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) => {
                    Some(Double)
                }
                _ => None,
            },
            Expr::Cond { c, t: a, e: b } => {
                if let Some(ty) = self.node_ty(c).filter(|&ty| ty != Double) {
                    return Err(self.at(
                        *t,
                        ErrorKind::Operands {
                            op: "?:",
                            left: ty,
                            right: None,
                        },
                    ));
                }
                match (self.node_ty(a), self.node_ty(b)) {
                    (Some(x), Some(y)) if x == y => Some(x),
                    _ => None,
                }
            }
            Expr::Call { func, first, count } => {
                let name = func.name();
                match func {
                    Func::Avg
                    | Func::Len
                    | Func::Sum
                    | Func::Norm
                    | Func::Max
                    | Func::Min
                    | Func::Range
                    | Func::Std => {
                        for k in 0..count {
                            self.want(name, self.nth(first, k), &LIST)?;
                        }
                        Some(Double)
                    }
                    Func::Lg | Func::Ln | Func::Log => {
                        let a = self.nth(first, 0);
                        self.want(name, a, &LIST)?;
                        self.node_ty(a)
                    }
                    Func::Percentile | Func::Val => {
                        self.want(name, self.nth(first, 0), &LIST)?;
                        self.want(name, self.nth(first, 1), &[Double])?;
                        Some(Double)
                    }
                    Func::Rand => Some(Double),
                    Func::Stop => {
                        self.has_stop = true;
                        None
                    }
                    Func::Time => {
                        if count == 1 {
                            let a = self.nth(first, 0);
                            self.want(name, a, &[String])?;
                            let node = self.prog.nodes.get(usize::from(a)).map(|n| n.expr);
                            if let Some(Expr::Str { start, len }) = node {
                                let text = self.prog.text(start, len);
                                if !text.is_empty()
                                    && super::super::Timestamp::parse(text).is_none()
                                {
                                    let at = self.node_at(a);
                                    return Err(
                                        self.at(at, ErrorKind::InvalidDateTime(Snippet::new(text)))
                                    );
                                }
                            }
                        }
                        Some(Timestamp)
                    }
                }
            }
            Expr::Method {
                method,
                first,
                count,
                ..
            } => {
                let name = method.name();
                match method {
                    Method::GetSamplePeriod => Some(TimeInterval),
                    Method::Count => Some(Double),
                    Method::HistoryBeginTime => Some(Timestamp),
                    Method::GetSamplePercent => {
                        for k in 0..count {
                            self.want(name, self.nth(first, k), &POINT)?;
                        }
                        Some(Double)
                    }
                    Method::GetSample => {
                        let (a, b, c) =
                            (self.nth(first, 0), self.nth(first, 1), self.nth(first, 2));
                        match count {
                            // A count of samples, or a window back from now.
                            1 => self.want(name, a, &[Double, TimeInterval, Timestamp])?,
                            // A window and a required percentage, or a window's two ends.
                            2 => {
                                self.want(name, a, &POINT)?;
                                self.want(name, b, &[Double, TimeInterval, Timestamp])?;
                            }
                            _ => {
                                self.want(name, a, &POINT)?;
                                self.want(name, b, &POINT)?;
                                self.want(name, c, &[Double])?;
                            }
                        }
                        Some(DoubleVec)
                    }
                }
            }
        })
    }

    /// Rejects a final target or deallocation value of the wrong type (the evaluation would
    /// always end with `InvalidTargetValue`). Skipped when a `stop()` call could end an
    /// evaluation before the last assignment.
    pub(super) fn final_targets(&mut self) -> R<()> {
        if self.has_stop {
            return Ok(());
        }
        // The full name wins over its alias (slots 0/1, 2/3), as in the evaluator.
        for (full, alias, name) in [
            (0, 1, "the dedicated or low-priority target"),
            (2, 3, "the dedicated or low-priority target"),
        ] {
            let slot = if self.slot_at[full] != (0, 0) {
                full
            } else if self.slot_at[alias] != (0, 0) {
                alias
            } else {
                continue;
            };
            let name = if slot == full {
                name
            } else {
                "the target alias"
            };
            if matches!(self.slot_ty[slot], Some(ty) if ty != Type::Double) {
                let (line, col) = self.slot_at[slot];
                let t = Token {
                    line,
                    col,
                    ..self.tok
                };
                return Err(self.at(t, ErrorKind::InvalidTarget(name)));
            }
        }
        let d = usize::from(DEALLOCATION_SLOT);
        if self.slot_at[d] != (0, 0)
            && matches!(self.slot_ty[d], Some(ty) if ty != Type::Deallocation)
        {
            let (line, col) = self.slot_at[d];
            let t = Token {
                line,
                col,
                ..self.tok
            };
            return Err(self.at(t, ErrorKind::InvalidDeallocation));
        }
        Ok(())
    }
}

/// The result type of `op` on operands of types `a` and `b`, or `None` where the language
/// does not combine them (the documented operations table). The evaluator's arithmetic
/// follows the same table (`eval.rs`'s tests check every combination against it).
pub(crate) fn binary_type(op: BinOp, a: Type, b: Type) -> Option<Type> {
    use BinOp::*;
    use Type::*;
    match op {
        Add | Sub | Mul | Div => match (a, b) {
            (Double, Double) => Some(Double),
            (DoubleVec, Double) | (DoubleVec, DoubleVec) => Some(DoubleVec),
            (Double, TimeInterval) if op == Mul => Some(TimeInterval),
            (TimeInterval, Double) if op == Mul || op == Div => Some(TimeInterval),
            (TimeInterval, TimeInterval) if op == Add || op == Sub => Some(TimeInterval),
            (TimeInterval, Timestamp) | (Timestamp, TimeInterval) if op == Add => Some(Timestamp),
            (Timestamp, Timestamp) if op == Sub => Some(TimeInterval),
            _ => None,
        },
        Lt | Le | Gt | Ge | Eq | Ne => match (a, b) {
            (Double, Double)
            | (String, String)
            | (Timestamp, Timestamp)
            | (TimeInterval, TimeInterval) => Some(Double),
            _ => None,
        },
        And | Or => (a == Double && b == Double).then_some(Double),
    }
}

/// The result type of a prefix operator on an operand of type `a`.
pub(crate) fn unary_type(op: UnOp, a: Type) -> Option<Type> {
    match (op, a) {
        (UnOp::Neg, Type::Double) | (UnOp::Not, Type::Double) => Some(Type::Double),
        (UnOp::Neg, Type::TimeInterval) => Some(Type::TimeInterval),
        _ => None,
    }
}
