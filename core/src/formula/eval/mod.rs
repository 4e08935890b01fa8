//! The evaluator: a [`Program`](super::Program) over [`Inputs`] into an [`Outcome`].

use super::error::{ErrorKind, FormulaError, Snippet};
use super::history::History;
use super::program::{
    BoundedProgram, Expr, Member, Node, UnOp, DEALLOCATION_SLOT, NONE, NO_SLOT, SLOTS,
};
use super::time::{Timestamp, TICKS_PER_SECOND};
use super::{Deallocation, Metric, Type, MAX_NODES, METRIC_COUNT, VECTOR_POOL};

mod functions;
mod ops;
mod results;
mod samples;

pub use results::Results;

const P: i64 = 30 * TICKS_PER_SECOND;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Double(f64),
    /// `len` doubles at `start` in the workspace's pool.
    Vector {
        start: u16,
        len: u16,
    },
    /// Text in the program's source.
    Str {
        start: u16,
        len: u16,
    },
    Time(i64),
    Interval(i64),
    Dealloc(Deallocation),
}

impl Value {
    fn ty(self) -> Type {
        match self {
            Value::Double(_) => Type::Double,
            Value::Vector { .. } => Type::DoubleVec,
            Value::Str { .. } => Type::String,
            Value::Time(_) => Type::Timestamp,
            Value::Interval(_) => Type::TimeInterval,
            Value::Dealloc(_) => Type::Deallocation,
        }
    }
}

/// What one evaluation reads besides the program.
pub struct Inputs<'h, const N: usize> {
    /// The evaluation time: `time()` and the end of every sample window.
    pub now: Timestamp,
    /// The sampled metrics.
    pub history: &'h History<N>,
    /// Values a read-only variable takes when used as a value (not through a sampling
    /// method), e.g. `$CurrentDedicatedNodes`; `None`: its latest available sample.
    pub current: [Option<f64>; METRIC_COUNT],
    /// The pool's current dedicated target, read by `$TargetDedicatedNodes` before the
    /// formula assigns it.
    pub target_dedicated: f64,
    /// The pool's current low-priority target.
    pub target_low_priority: f64,
    /// The current deallocation option, read before the formula assigns it.
    pub deallocation: Deallocation,
}

impl<'h, const N: usize> Inputs<'h, N> {
    /// Returns inputs at `now` over `history`, with no current values and targets 0.
    pub fn new(now: Timestamp, history: &'h History<N>) -> Self {
        Inputs {
            now,
            history,
            current: [None; METRIC_COUNT],
            target_dedicated: 0.0,
            target_low_priority: 0.0,
            deallocation: Deallocation::Requeue,
        }
    }
}

/// An evaluator's storage at the host's capacity ([`VECTOR_POOL`] vector values): enough
/// for every formula within Batch's limits over the default history. About 314 KB: keep it
/// in a `Box` or a `static`.
pub type Workspace = BoundedWorkspace<VECTOR_POOL>;

/// The evaluator's storage: variable values, the vector pool and the `rand()` stream.
///
/// Reused across evaluations (each starts afresh except the random stream). `POOL` is the
/// number of doubles the vectors of one evaluation may hold: [`Workspace`] has
/// [`VECTOR_POOL`] (39,840), the most any formula within Batch's limits can need over the
/// default 240-sample history (the derivation is at [`VECTOR_POOL`]); a board may choose
/// less (`BoundedWorkspace<512>` is about 7 KB) and gets
/// [`super::ErrorKind::Capacity`] naming the limit when an evaluation needs more.
pub struct BoundedWorkspace<const POOL: usize> {
    values: [Value; SLOTS],
    assigned: [bool; SLOTS],
    /// Where each slot was last assigned (line, col), for target errors.
    at: [(u16, u16); SLOTS],
    pool: [f64; POOL],
    pool_len: usize,
    rng: u64,
}

impl<const POOL: usize> BoundedWorkspace<POOL> {
    /// Pool offsets are `u16`.
    const FITS: () = assert!(POOL <= u16::MAX as usize, "POOL must be at most 65535");

    /// Returns an empty workspace whose `rand()` stream starts from `seed`.
    pub const fn new(seed: u64) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::FITS;
        BoundedWorkspace {
            values: [Value::Double(0.0); SLOTS],
            assigned: [false; SLOTS],
            at: [(0, 0); SLOTS],
            pool: [0.0; POOL],
            pool_len: 0,
            rng: seed,
        }
    }

    /// Restarts the `rand()` stream from `seed`, as [`Workspace::new`] would, without
    /// rewriting the pool (evaluations start afresh anyway).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = seed;
    }

    /// SplitMix64, scaled to [0, 1) with 53 bits.
    fn next_rand(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    fn at(&self, i: usize) -> f64 {
        self.pool.get(i).copied().unwrap_or(f64::NAN)
    }
}

/// A successful evaluation. `Display` writes the results string.
pub struct Outcome<'a, const NODES: usize = MAX_NODES, const POOL: usize = VECTOR_POOL> {
    /// Dedicated nodes to target (`$TargetDedicatedNodes`, else `$TargetDedicated`,
    /// truncated), or `None` when the formula assigned neither.
    pub dedicated: Option<u32>,
    /// Low-priority nodes to target, likewise.
    pub low_priority: Option<u32>,
    /// The deallocation option (`requeue` unless assigned).
    pub deallocation: Deallocation,
    /// Whether `stop()` ended the evaluation.
    pub stopped: bool,
    program: &'a BoundedProgram<NODES>,
    ws: &'a BoundedWorkspace<POOL>,
}

/// Why an evaluation stopped early; a failure's error waits in `Cx::err`. Keeping results
/// this small keeps the recursive evaluator's stack frames small.
enum Flow {
    Fail,
    Stop,
}

type R<T> = Result<T, Flow>;

/// Evaluates `program` once. On `Err` nothing should change (Batch makes no change to the
/// pool after a failed evaluation).
pub fn evaluate<'a, const N: usize, const NODES: usize, const POOL: usize>(
    program: &'a BoundedProgram<NODES>,
    inputs: &Inputs<'_, N>,
    ws: &'a mut BoundedWorkspace<POOL>,
) -> Result<Outcome<'a, NODES, POOL>, FormulaError> {
    ws.assigned = [false; SLOTS];
    ws.pool_len = 0;
    let mut stopped = false;
    {
        let mut cx = Cx {
            prog: program,
            inputs,
            ws: &mut *ws,
            err: None,
        };
        for s in program.stmts.iter().take(program.statements()) {
            match cx.eval(s.expr) {
                Ok(v) => {
                    let slot = usize::from(s.slot);
                    if s.slot != NO_SLOT && slot < SLOTS {
                        cx.ws.values[slot] = v;
                        cx.ws.assigned[slot] = true;
                        cx.ws.at[slot] = (s.line, s.col);
                    }
                }
                Err(Flow::Stop) => {
                    stopped = true;
                    break;
                }
                Err(Flow::Fail) => {
                    // `Flow::Fail` always comes with a recorded error.
                    return Err(cx.err.take().unwrap_or(FormulaError {
                        line: u32::from(s.line),
                        col: u32::from(s.col),
                        kind: ErrorKind::TimeOutOfRange,
                    }));
                }
            }
        }
    }
    let ws: &'a BoundedWorkspace<POOL> = ws;
    let dedicated = target(ws, 0, 1)?;
    let low_priority = target(ws, 2, 3)?;
    let d = usize::from(DEALLOCATION_SLOT);
    let deallocation = if ws.assigned[d] {
        match ws.values[d] {
            Value::Dealloc(x) => x,
            _ => {
                return Err(FormulaError {
                    line: u32::from(ws.at[d].0),
                    col: u32::from(ws.at[d].1),
                    kind: ErrorKind::InvalidDeallocation,
                })
            }
        }
    } else {
        inputs.deallocation
    };
    Ok(Outcome {
        dedicated,
        low_priority,
        deallocation,
        stopped,
        program,
        ws,
    })
}

/// The node count a target slot (or, if unassigned, its alias) asks for.
fn target<const POOL: usize>(
    ws: &BoundedWorkspace<POOL>,
    full: usize,
    alias: usize,
) -> Result<Option<u32>, FormulaError> {
    let slot = if ws.assigned[full] {
        full
    } else if ws.assigned[alias] {
        alias
    } else {
        return Ok(None);
    };
    let name = if slot == full {
        "the dedicated or low-priority target"
    } else {
        "the target alias"
    };
    match ws.values[slot] {
        Value::Double(v) if v.is_finite() => Ok(Some(if v <= 0.0 {
            0
        } else if v >= u32::MAX as f64 {
            u32::MAX
        } else {
            libm::trunc(v) as u32
        })),
        _ => Err(FormulaError {
            line: u32::from(ws.at[slot].0),
            col: u32::from(ws.at[slot].1),
            kind: ErrorKind::InvalidTarget(name),
        }),
    }
}

struct Cx<'p, 'i, 'h, 'w, const N: usize, const NODES: usize, const POOL: usize> {
    prog: &'p BoundedProgram<NODES>,
    inputs: &'i Inputs<'h, N>,
    ws: &'w mut BoundedWorkspace<POOL>,
    err: Option<FormulaError>,
}

impl<const N: usize, const NODES: usize, const POOL: usize> Cx<'_, '_, '_, '_, N, NODES, POOL> {
    fn node(&self, i: u16) -> Node {
        // Indices come from the parser; an impossible one reads as a NaN literal.
        self.prog
            .nodes
            .get(usize::from(i))
            .copied()
            .unwrap_or(Node {
                expr: Expr::Num(f64::NAN),
                next: NONE,
                height: 0,
                ty: None,
                line: 0,
                col: 0,
            })
    }

    fn alloc(&mut self, n: &Node, len: usize) -> R<usize> {
        let start = self.ws.pool_len;
        if len > POOL.saturating_sub(start) {
            return Err(self.fail(
                n,
                ErrorKind::Capacity {
                    what: "vector values in one evaluation",
                    limit: POOL as u32,
                },
            ));
        }
        self.ws.pool_len += len;
        Ok(start)
    }

    fn set(&mut self, i: usize, x: f64) {
        if let Some(p) = self.ws.pool.get_mut(i) {
            *p = x;
        }
    }

    fn vector(start: usize, len: usize) -> Value {
        Value::Vector {
            start: start as u16,
            len: len as u16,
        }
    }

    /// Evaluates node `i`, then frees its temporaries: a vector it computed is moved down
    /// to where the pool stood before (nothing else points there: variables are assigned
    /// only between statements), so the pool holds the variables' vectors plus one pending
    /// operand per node on the path being evaluated (the bound of [`VECTOR_POOL`]).
    fn eval(&mut self, i: u16) -> R<Value> {
        let mark = self.ws.pool_len;
        let v = self.eval_node(i)?;
        Ok(match v {
            Value::Vector { start, len } if usize::from(start) >= mark => {
                let (s, l) = (usize::from(start), usize::from(len));
                if s > mark {
                    self.ws.pool.copy_within(s..s + l, mark);
                }
                self.ws.pool_len = mark + l;
                Self::vector(mark, l)
            }
            other => {
                self.ws.pool_len = mark;
                other
            }
        })
    }

    fn eval_node(&mut self, i: u16) -> R<Value> {
        let n = self.node(i);
        match n.expr {
            Expr::Num(v) => Ok(Value::Double(v)),
            Expr::Str { start, len } => Ok(Value::Str { start, len }),
            Expr::Interval(t) => Ok(Value::Interval(t)),
            Expr::Dealloc(d) => Ok(Value::Dealloc(d)),
            Expr::Var(slot) => self.read_slot(&n, usize::from(slot)),
            Expr::Metric(m) => self.metric_value(&n, m),
            Expr::Vector { first, count } => {
                let start = self.ws.pool_len;
                let mut a = first;
                for k in 0..usize::from(count) {
                    let an = self.node(a);
                    let x = match self.eval(a)? {
                        Value::Double(x) => x,
                        other => return Err(self.wrong_type(&an, "a vector literal", other)),
                    };
                    // Temporaries of the element are dropped; the element takes the next slot.
                    self.ws.pool_len = start + k;
                    let at = self.alloc(&an, 1)?;
                    self.set(at, x);
                    a = an.next;
                }
                Ok(Self::vector(start, usize::from(count)))
            }
            Expr::Call { func, first, count } => self.call(&n, func, first, count),
            Expr::Method {
                metric,
                method,
                first,
                count,
            } => self.method(&n, metric, method, first, count),
            Expr::Member { obj, member } => match self.eval(obj)? {
                Value::Time(t) => Ok(Value::Double(member_value(Timestamp(t), member))),
                other => Err(self.wrong_type(&n, member.name(), other)),
            },
            Expr::Unary { op, e } => {
                let v = self.eval(e)?;
                match (op, v) {
                    (UnOp::Neg, Value::Double(x)) => Ok(Value::Double(-x)),
                    (UnOp::Neg, Value::Interval(t)) => match t.checked_neg() {
                        Some(t) => Ok(Value::Interval(t)),
                        None => Err(self.fail(&n, ErrorKind::TimeOutOfRange)),
                    },
                    (UnOp::Not, Value::Double(x)) => Ok(Value::Double(bool_f(x == 0.0))),
                    (op, v) => Err(self.fail(
                        &n,
                        ErrorKind::Operands {
                            op: if op == UnOp::Neg { "-" } else { "!" },
                            left: v.ty(),
                            right: None,
                        },
                    )),
                }
            }
            Expr::Binary { op, l, r } => {
                let a = self.eval(l)?;
                let b = self.eval(r)?;
                self.binary(&n, op, a, b)
            }
            Expr::Cond { c, t, e } => match self.eval(c)? {
                Value::Double(x) => self.eval(if x != 0.0 { t } else { e }),
                other => Err(self.fail(
                    &n,
                    ErrorKind::Operands {
                        op: "?:",
                        left: other.ty(),
                        right: None,
                    },
                )),
            },
        }
    }

    fn read_slot(&mut self, n: &Node, slot: usize) -> R<Value> {
        if self.ws.assigned.get(slot) == Some(&true) {
            return Ok(self.ws.values[slot]);
        }
        match slot {
            0 | 1 => Ok(Value::Double(self.inputs.target_dedicated)),
            2 | 3 => Ok(Value::Double(self.inputs.target_low_priority)),
            4 => Ok(Value::Dealloc(self.inputs.deallocation)),
            _ => Err(self.fail(
                n,
                ErrorKind::UndefinedVariable(Snippet::new(self.prog.slot_name(slot))),
            )),
        }
    }

    fn metric_value(&mut self, n: &Node, m: Metric) -> R<Value> {
        if let Some(v) = self.inputs.current[m as usize] {
            return Ok(Value::Double(v));
        }
        let h = self.inputs.history;
        if let Some((lo, hi)) = h.readable(self.inputs.now.ticks()) {
            let mut k = hi;
            while k >= lo {
                if let Some(v) = h.get(m, k) {
                    return Ok(Value::Double(v));
                }
                k -= 1;
            }
        }
        Err(self.fail(n, ErrorKind::NoSample(m)))
    }

    /// A time arithmetic result, or the out-of-range failure.
    fn timed(&mut self, n: &Node, v: Option<Value>) -> R<Value> {
        match v {
            Some(v) => Ok(v),
            None => Err(self.fail(n, ErrorKind::TimeOutOfRange)),
        }
    }

    /// Records the failure at `n` and stops the evaluation.
    #[inline(never)]
    fn fail(&mut self, n: &Node, kind: ErrorKind) -> Flow {
        self.err = Some(FormulaError {
            line: u32::from(n.line),
            col: u32::from(n.col),
            kind,
        });
        Flow::Fail
    }

    /// [`ErrorKind::Argument`] at `n`: `name` takes no argument of `found`'s type.
    fn wrong_type(&mut self, n: &Node, name: &'static str, found: Value) -> Flow {
        self.fail(
            n,
            ErrorKind::Argument {
                name,
                found: found.ty(),
            },
        )
    }
}

/// A timestamp's member as the formula reads it.
#[inline(never)]
fn member_value(ts: Timestamp, member: Member) -> f64 {
    let (y, mo, d, h, mi, s, _) = ts.fields();
    match member {
        Member::Year => y as f64,
        Member::Month => f64::from(mo),
        Member::Day => f64::from(d),
        Member::Weekday => f64::from(ts.iso_weekday()),
        Member::Hour => f64::from(h),
        Member::Minute => f64::from(mi),
        Member::Second => f64::from(s),
    }
}

pub(super) fn bool_f(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::program::{binary_type, unary_type, BinOp};
    use super::*;

    /// The parser's static type table and the evaluator's arithmetic agree on every
    /// operator and operand type: `check` rejects exactly what every evaluation would.
    #[test]
    fn static_types_match_the_evaluator() {
        let program = BoundedProgram::<8>::new();
        let history: History<4> = History::default();
        let now = Timestamp::from_unix_ms(0).unwrap();
        let inputs = Inputs::new(now, &history);
        let mut ws = BoundedWorkspace::<16>::new(1);
        ws.pool_len = 2;
        let mut cx = Cx {
            prog: &program,
            inputs: &inputs,
            ws: &mut ws,
            err: None,
        };
        let values = [
            Value::Double(2.0),
            Value::Vector { start: 0, len: 2 },
            Value::Str { start: 0, len: 0 },
            Value::Time(1_000),
            Value::Interval(10),
            Value::Dealloc(Deallocation::Requeue),
        ];
        let n = cx.node(0);
        use BinOp::*;
        for op in [Add, Sub, Mul, Div, Lt, Le, Gt, Ge, Eq, Ne, And, Or] {
            for a in values {
                for b in values {
                    let got = cx.binary(&n, op, a, b).ok().map(Value::ty);
                    assert_eq!(got, binary_type(op, a.ty(), b.ty()), "{op:?} {a:?} {b:?}");
                    cx.ws.pool_len = 2;
                }
            }
        }
        // Prefix operators, against the documented table's rows (`-` double, `-`
        // timeinterval, `!` double).
        for a in values {
            for op in [UnOp::Neg, UnOp::Not] {
                let documented = match (op, a) {
                    (UnOp::Neg, Value::Double(_) | Value::Interval(_))
                    | (UnOp::Not, Value::Double(_)) => Some(a.ty()),
                    _ => None,
                };
                assert_eq!(documented, unary_type(op, a.ty()), "{op:?} {a:?}");
            }
        }
    }
}
