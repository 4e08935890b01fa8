//! The operators: [`Cx::binary`] over every pair of operand types (numbers, vectors,
//! timestamps, intervals, strings), with the timestamp members and the unit conversions it
//! uses.

use super::super::error::ErrorKind;
use super::super::program::{BinOp, Node};
use super::super::time::{TimeInterval, Timestamp};
use super::{bool_f, Cx, Value, R};

impl<const N: usize, const NODES: usize, const POOL: usize> Cx<'_, '_, '_, '_, N, NODES, POOL> {
    pub(super) fn binary(&mut self, n: &Node, op: BinOp, a: Value, b: Value) -> R<Value> {
        use BinOp::*;
        use Value::*;
        let mismatch = ErrorKind::Operands {
            op: op.symbol(),
            left: a.ty(),
            right: Some(b.ty()),
        };
        match op {
            Add | Sub | Mul | Div => {
                let f = |x: f64, y: f64| match op {
                    Add => x + y,
                    Sub => x - y,
                    Mul => x * y,
                    _ => x / y,
                };
                match (a, b) {
                    (Double(x), Double(y)) => Ok(Double(f(x, y))),
                    (Vector { start, len }, Double(y)) => {
                        let (s, l) = (usize::from(start), usize::from(len));
                        let out = self.alloc(n, l)?;
                        for j in 0..l {
                            let x = self.ws.at(s + j);
                            self.set(out + j, f(x, y));
                        }
                        Ok(Self::vector(out, l))
                    }
                    (Vector { start: s1, len: l1 }, Vector { start: s2, len: l2 }) => {
                        if l1 != l2 {
                            return Err(self.fail(
                                n,
                                ErrorKind::VectorLengths {
                                    left: u32::from(l1),
                                    right: u32::from(l2),
                                },
                            ));
                        }
                        let (s1, s2, l) = (usize::from(s1), usize::from(s2), usize::from(l1));
                        let out = self.alloc(n, l)?;
                        for j in 0..l {
                            let (x, y) = (self.ws.at(s1 + j), self.ws.at(s2 + j));
                            self.set(out + j, f(x, y));
                        }
                        Ok(Self::vector(out, l))
                    }
                    (Double(x), Interval(t)) if op == Mul => self.timed(n, scale(t, x, false)),
                    (Interval(t), Double(x)) if op == Mul || op == Div => {
                        self.timed(n, scale(t, x, op == Div))
                    }
                    (Interval(x), Interval(y)) if op == Add || op == Sub => {
                        let r = if op == Add {
                            x.checked_add(y)
                        } else {
                            x.checked_sub(y)
                        };
                        self.timed(n, r.map(Interval))
                    }
                    (Interval(i), Time(t)) | (Time(t), Interval(i)) if op == Add => {
                        let r = Timestamp(t).checked_add(TimeInterval(i));
                        self.timed(n, r.map(|t| Time(t.ticks())))
                    }
                    (Time(x), Time(y)) if op == Sub => {
                        self.timed(n, x.checked_sub(y).map(Interval))
                    }
                    _ => Err(self.fail(n, mismatch)),
                }
            }
            Lt | Le | Gt | Ge | Eq | Ne => {
                let ord = match (a, b) {
                    (Double(x), Double(y)) => x.partial_cmp(&y),
                    (Str { start: s1, len: l1 }, Str { start: s2, len: l2 }) => Some(
                        self.prog
                            .text(s1, l1)
                            .as_bytes()
                            .cmp(self.prog.text(s2, l2).as_bytes()),
                    ),
                    (Time(x), Time(y)) | (Interval(x), Interval(y)) => Some(x.cmp(&y)),
                    _ => return Err(self.fail(n, mismatch)),
                };
                use core::cmp::Ordering::*;
                let r = match (op, ord) {
                    (Ne, None) => true,
                    (_, None) => false,
                    (Lt, Some(o)) => o == Less,
                    (Le, Some(o)) => o != Greater,
                    (Gt, Some(o)) => o == Greater,
                    (Ge, Some(o)) => o != Less,
                    (Eq, Some(o)) => o == Equal,
                    (_, Some(o)) => o != Equal,
                };
                Ok(Double(bool_f(r)))
            }
            And | Or => match (a, b) {
                (Double(x), Double(y)) => Ok(Double(bool_f(if op == And {
                    x != 0.0 && y != 0.0
                } else {
                    x != 0.0 || y != 0.0
                }))),
                _ => Err(self.fail(n, mismatch)),
            },
        }
    }
}

/// `100·available/possible`, one correctly rounded division (100 for an empty window).
pub(super) fn percent(possible: u64, available: u64) -> f64 {
    if possible == 0 {
        100.0
    } else {
        (100 * available) as f64 / possible as f64
    }
}

/// An interval times (or divided by) a double, rounded to the nearest tick.
fn scale(ticks: i64, x: f64, divide: bool) -> Option<Value> {
    let r = if divide {
        ticks as f64 / x
    } else {
        ticks as f64 * x
    };
    let r = libm::round(r);
    // 9.2e18 is just inside i64; NaN fails the comparison.
    if r.is_finite() && libm::fabs(r) < 9.2e18 {
        Some(Value::Interval(r as i64))
    } else {
        None
    }
}
