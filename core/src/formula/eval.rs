//! The evaluator: a [`Program`](super::Program) over [`Inputs`] into an [`Outcome`].

use core::fmt;

use super::error::{ErrorKind, FormulaError, Snippet};
use super::history::History;
use super::program::{
    BinOp, BoundedProgram, Expr, Func, Member, Method, Node, UnOp, DEALLOCATION_SLOT, NONE,
    NO_SLOT, SERVICE_SLOTS, SLOTS,
};
use super::time::{TimeInterval, Timestamp, TICKS_PER_SECOND};
use super::{Deallocation, Metric, Type, MAX_NODES, METRIC_COUNT, VECTOR_POOL};
use crate::jsfmt::Num;

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

/// Folds a flattened `doubleVecList`.
struct Fold {
    n: u32,
    sum: f64,
    sumsq: f64,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
    numbers: u32,
}

impl Fold {
    fn new() -> Self {
        Fold {
            n: 0,
            sum: 0.0,
            sumsq: 0.0,
            mean: 0.0,
            m2: 0.0,
            min: f64::NAN,
            max: f64::NAN,
            numbers: 0,
        }
    }

    fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sumsq += x * x;
        let delta = x - self.mean;
        self.mean += delta / f64::from(self.n);
        self.m2 += delta * (x - self.mean);
        if !x.is_nan() {
            if self.numbers == 0 || x < self.min {
                self.min = x;
            }
            if self.numbers == 0 || x > self.max {
                self.max = x;
            }
            self.numbers += 1;
        }
    }
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
                        other => {
                            return Err(self.fail(
                                &an,
                                ErrorKind::Argument {
                                    name: "a vector literal",
                                    found: other.ty(),
                                },
                            ))
                        }
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
                other => Err(self.fail(
                    &n,
                    ErrorKind::Argument {
                        name: member.name(),
                        found: other.ty(),
                    },
                )),
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

    /// Evaluates each argument of a list function, feeding its values to `fold`; vector
    /// temporaries are freed after each argument (the result is a scalar).
    fn fold_list(&mut self, name: &'static str, first: u16, count: u16) -> R<Fold> {
        let mut fold = Fold::new();
        let mark = self.ws.pool_len;
        let mut a = first;
        for _ in 0..count {
            let an = self.node(a);
            match self.eval(a)? {
                Value::Double(x) => fold.add(x),
                Value::Vector { start, len } => {
                    for j in 0..usize::from(len) {
                        fold.add(self.ws.at(usize::from(start) + j));
                    }
                }
                other => {
                    return Err(self.fail(
                        &an,
                        ErrorKind::Argument {
                            name,
                            found: other.ty(),
                        },
                    ))
                }
            }
            self.ws.pool_len = mark;
            a = an.next;
        }
        Ok(fold)
    }

    /// Evaluates the `k`-th argument (0-based) of a call.
    fn arg(&mut self, first: u16, k: u16) -> R<(Value, Node)> {
        let mut a = first;
        for _ in 0..k {
            a = self.node(a).next;
        }
        let n = self.node(a);
        Ok((self.eval(a)?, n))
    }

    /// A `doubleVec` argument (a double counts as a one-element vector): (start, len).
    fn vec_arg(&mut self, name: &'static str, v: Value, n: &Node) -> R<(usize, usize)> {
        match v {
            Value::Vector { start, len } => Ok((usize::from(start), usize::from(len))),
            Value::Double(x) => {
                let at = self.alloc(n, 1)?;
                self.set(at, x);
                Ok((at, 1))
            }
            other => Err(self.fail(
                n,
                ErrorKind::Argument {
                    name,
                    found: other.ty(),
                },
            )),
        }
    }

    fn double_arg(&mut self, name: &'static str, v: Value, n: &Node) -> R<f64> {
        match v {
            Value::Double(x) => Ok(x),
            other => Err(self.fail(
                n,
                ErrorKind::Argument {
                    name,
                    found: other.ty(),
                },
            )),
        }
    }

    /// Never inlined (nor are [`Self::method`] and [`Self::fail`]): their locals would sit in
    /// every level of the recursive [`Self::eval`].
    #[inline(never)]
    fn call(&mut self, n: &Node, func: Func, first: u16, count: u16) -> R<Value> {
        let name = func.name();
        let empty = |f: &Fold, min: u32| f.n < min;
        let d = |x: f64| Ok(Value::Double(x));
        match func {
            Func::Avg => {
                let f = self.fold_list(name, first, count)?;
                if empty(&f, 1) {
                    return Err(self.fail(n, ErrorKind::EmptyVector(name)));
                }
                d(f.sum / f64::from(f.n))
            }
            Func::Len => d(f64::from(self.fold_list(name, first, count)?.n)),
            Func::Sum => d(self.fold_list(name, first, count)?.sum),
            Func::Norm => d(libm::sqrt(self.fold_list(name, first, count)?.sumsq)),
            Func::Max | Func::Min | Func::Range => {
                let f = self.fold_list(name, first, count)?;
                if empty(&f, 1) {
                    return Err(self.fail(n, ErrorKind::EmptyVector(name)));
                }
                d(match func {
                    Func::Max => f.max,
                    Func::Min => f.min,
                    _ => f.max - f.min,
                })
            }
            Func::Std => {
                let f = self.fold_list(name, first, count)?;
                if empty(&f, 2) {
                    return Err(self.fail(n, ErrorKind::EmptyVector(name)));
                }
                d(libm::sqrt(f.m2 / f64::from(f.n - 1)))
            }
            Func::Lg | Func::Ln | Func::Log => {
                let op = match func {
                    Func::Lg => libm::log2,
                    Func::Ln => libm::log,
                    _ => libm::log10,
                };
                let (v, an) = self.arg(first, 0)?;
                match v {
                    Value::Double(x) => d(op(x)),
                    Value::Vector { start, len } => {
                        let (start, len) = (usize::from(start), usize::from(len));
                        let out = self.alloc(&an, len)?;
                        for j in 0..len {
                            let x = self.ws.at(start + j);
                            self.set(out + j, op(x));
                        }
                        Ok(Self::vector(out, len))
                    }
                    other => Err(self.fail(
                        &an,
                        ErrorKind::Argument {
                            name,
                            found: other.ty(),
                        },
                    )),
                }
            }
            Func::Percentile => {
                let mark = self.ws.pool_len;
                let (v, vn) = self.arg(first, 0)?;
                let (start, len) = self.vec_arg(name, v, &vn)?;
                let (p, pn) = self.arg(first, 1)?;
                let p = self.double_arg(name, p, &pn)?;
                if !(0.0..=100.0).contains(&p) {
                    return Err(self.fail(
                        &pn,
                        ErrorKind::ArgumentOutOfRange {
                            name,
                            value: p,
                            accepted: "p from 0 to 100",
                        },
                    ));
                }
                if len == 0 {
                    return Err(self.fail(n, ErrorKind::EmptyVector(name)));
                }
                let out = self.alloc(n, len)?;
                for j in 0..len {
                    let x = self.ws.at(start + j);
                    self.set(out + j, x);
                }
                let r = match self.ws.pool.get_mut(out..out + len) {
                    Some(s) => {
                        s.sort_unstable_by(f64::total_cmp);
                        // Nearest rank: ceil(p/100 · n) − 1, clamped (p = 0 → the least).
                        let rank = libm::ceil(p / 100.0 * len as f64) - 1.0;
                        let idx = if rank >= 0.0 { rank as usize } else { 0 };
                        s[idx.min(len - 1)]
                    }
                    None => f64::NAN,
                };
                self.ws.pool_len = mark;
                d(r)
            }
            Func::Rand => d(self.ws.next_rand()),
            Func::Stop => Err(Flow::Stop),
            Func::Time => {
                if count == 0 {
                    return Ok(Value::Time(self.inputs.now.ticks()));
                }
                match self.arg(first, 0)? {
                    // `time("")` is now: Batch documents `time(string dateTime="")`.
                    (Value::Str { len: 0, .. }, _) => Ok(Value::Time(self.inputs.now.ticks())),
                    (Value::Str { start, len }, an) => {
                        let text = self.prog.text(start, len);
                        match Timestamp::parse(text) {
                            Some(t) => Ok(Value::Time(t.ticks())),
                            None => {
                                Err(self.fail(&an, ErrorKind::InvalidDateTime(Snippet::new(text))))
                            }
                        }
                    }
                    (other, an) => Err(self.fail(
                        &an,
                        ErrorKind::Argument {
                            name,
                            found: other.ty(),
                        },
                    )),
                }
            }
            Func::Val => {
                let mark = self.ws.pool_len;
                let (v, vn) = self.arg(first, 0)?;
                let (start, len) = self.vec_arg(name, v, &vn)?;
                let (i, inn) = self.arg(first, 1)?;
                let i = libm::trunc(self.double_arg(name, i, &inn)?);
                if !(i >= 0.0 && i < len as f64) {
                    return Err(self.fail(
                        &inn,
                        ErrorKind::IndexOutOfRange {
                            index: i,
                            len: len as u32,
                        },
                    ));
                }
                let x = self.ws.at(start + i as usize);
                self.ws.pool_len = mark;
                d(x)
            }
        }
    }

    /// A sampling argument as an absolute point in time (ticks): an interval looks back
    /// from now, a timestamp is itself.
    fn point(&mut self, name: &'static str, v: Value, n: &Node) -> R<i64> {
        match v {
            Value::Interval(i) => match self.inputs.now.ticks().checked_sub(i) {
                Some(t) => Ok(t),
                None => Err(self.fail(n, ErrorKind::TimeOutOfRange)),
            },
            Value::Time(t) => Ok(t),
            other => Err(self.fail(
                n,
                ErrorKind::Argument {
                    name,
                    found: other.ty(),
                },
            )),
        }
    }

    /// Reads a window's arguments: ((lo, hi) in ticks, required percentage).
    fn window_args(
        &mut self,
        name: &'static str,
        first: u16,
        count: u16,
        allow_percent: bool,
    ) -> R<((i64, i64), Option<f64>)> {
        let now = self.inputs.now.ticks();
        let (a, an) = self.arg(first, 0)?;
        let p0 = self.point(name, a, &an)?;
        let mut p1 = now;
        let mut pct = None;
        if count >= 2 {
            let (b, bn) = self.arg(first, 1)?;
            match b {
                Value::Double(x) if allow_percent && count == 2 => pct = Some(x),
                _ => p1 = self.point(name, b, &bn)?,
            }
        }
        if count >= 3 {
            let (c, cn) = self.arg(first, 2)?;
            pct = Some(self.double_arg(name, c, &cn)?);
        }
        Ok(((p0.min(p1), p0.max(p1)), pct))
    }

    #[inline(never)]
    fn method(&mut self, n: &Node, m: Metric, method: Method, first: u16, count: u16) -> R<Value> {
        let name = method.name();
        let now = self.inputs.now.ticks();
        let h = self.inputs.history;
        match method {
            Method::GetSamplePeriod => Ok(Value::Interval(P)),
            Method::Count => {
                let mut c = 0u32;
                if let Some((lo, hi)) = h.readable(now) {
                    for k in lo..=hi {
                        c += u32::from(h.get(m, k).is_some());
                    }
                }
                Ok(Value::Double(f64::from(c)))
            }
            Method::HistoryBeginTime => {
                if let Some((lo, hi)) = h.readable(now) {
                    for k in lo..=hi {
                        if h.get(m, k).is_some() {
                            return Ok(Value::Time(k * P));
                        }
                    }
                }
                Err(self.fail(n, ErrorKind::NoSample(m)))
            }
            Method::GetSamplePercent => {
                let mark = self.ws.pool_len;
                let ((lo, hi), _) = self.window_args(name, first, count, false)?;
                self.ws.pool_len = mark;
                let (possible, available) = self.count_window(m, lo, hi);
                Ok(Value::Double(percent(possible, available)))
            }
            Method::GetSample => {
                let mark = self.ws.pool_len;
                let (a, an) = self.arg(first, 0)?;
                if let (Value::Double(c), 1) = (a, count) {
                    // The `count` most recent available samples.
                    let c = libm::trunc(c);
                    if c.is_nan() || c < 1.0 {
                        return Err(self.fail(&an, ErrorKind::SampleCount));
                    }
                    let want = if c > N as f64 { N } else { c as usize };
                    let mut got = 0;
                    let mut from = 0;
                    if let Some((lo, hi)) = h.readable(now) {
                        let mut k = hi;
                        while k >= lo && got < want {
                            if h.get(m, k).is_some() {
                                got += 1;
                                from = k;
                            }
                            k -= 1;
                        }
                    }
                    self.ws.pool_len = mark;
                    let out = self.alloc(n, got)?;
                    let mut j = 0;
                    let mut k = from;
                    while j < got {
                        if let Some(v) = h.get(m, k) {
                            self.set(out + j, v);
                            j += 1;
                        }
                        k += 1;
                    }
                    return Ok(Self::vector(out, got));
                }
                self.ws.pool_len = mark;
                let ((lo, hi), pct) = self.window_args(name, first, count, true)?;
                self.ws.pool_len = mark;
                let (possible, available) = self.count_window(m, lo, hi);
                if let Some(wanted) = pct {
                    let got = percent(possible, available);
                    if possible == 0 || got < wanted {
                        let received = if possible == 0 { 0.0 } else { libm::floor(got) };
                        return Err(self.fail(
                            n,
                            ErrorKind::InsufficientSampleData {
                                metric: m,
                                wanted,
                                received: received as u32,
                            },
                        ));
                    }
                }
                let out = self.alloc(n, available as usize)?;
                let (first_k, last_k) = History::<N>::window(lo, hi);
                let (a, b) = h.available(now, first_k, last_k);
                let mut j = 0;
                let mut k = a;
                while k <= b {
                    if let Some(v) = h.get(m, k) {
                        self.set(out + j, v);
                        j += 1;
                    }
                    k += 1;
                }
                Ok(Self::vector(out, j))
            }
        }
    }

    /// (possible, available) samples of `m` in the window `(lo, hi]`.
    fn count_window(&self, m: Metric, lo: i64, hi: i64) -> (u64, u64) {
        let h = self.inputs.history;
        let (first, last) = History::<N>::window(lo, hi);
        let possible = if last >= first {
            (last - first) as u64 + 1
        } else {
            0
        };
        let (a, b) = h.available(self.inputs.now.ticks(), first, last);
        let mut available = 0;
        let mut k = a;
        while k <= b {
            available += u64::from(h.get(m, k).is_some());
            k += 1;
        }
        (possible, available)
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

    fn binary(&mut self, n: &Node, op: BinOp, a: Value, b: Value) -> R<Value> {
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

fn bool_f(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// `100·available/possible`, one correctly rounded division (100 for an empty window).
fn percent(possible: u64, available: u64) -> f64 {
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

/// The results string of an evaluation: `$TargetDedicatedNodes=10;$NodeDeallocationOption=…`.
///
/// From [`Outcome::results`] after success, or [`Workspace::results`] after a failure (the
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

#[cfg(test)]
mod tests {
    use super::super::program::{binary_type, unary_type};
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
