//! The formula's functions: [`Cx::call`] evaluates a call of a [`Func`], list functions fold
//! their flattened arguments ([`Fold`]: count, sum, mean and variance by Welford, the extremes
//! of the numbers), and the argument helpers check each argument's type, reporting a
//! mismatch at the argument.

use super::super::error::{ErrorKind, Snippet};
use super::super::program::{Func, Node};
use super::super::time::Timestamp;
use super::{Cx, Flow, Value, R};

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
                other => return Err(self.wrong_type(&an, name, other)),
            }
            self.ws.pool_len = mark;
            a = an.next;
        }
        Ok(fold)
    }

    /// Evaluates the `k`-th argument (0-based) of a call.
    pub(super) fn arg(&mut self, first: u16, k: u16) -> R<(Value, Node)> {
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
            other => Err(self.wrong_type(n, name, other)),
        }
    }

    pub(super) fn double_arg(&mut self, name: &'static str, v: Value, n: &Node) -> R<f64> {
        match v {
            Value::Double(x) => Ok(x),
            other => Err(self.wrong_type(n, name, other)),
        }
    }

    /// Never inlined (nor are [`Self::method`] and [`Self::fail`]): their locals would sit in
    /// every level of the recursive [`Self::eval`].
    #[inline(never)]
    pub(super) fn call(&mut self, n: &Node, func: Func, first: u16, count: u16) -> R<Value> {
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
                    other => Err(self.wrong_type(&an, name, other)),
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
                    (other, an) => Err(self.wrong_type(&an, name, other)),
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
}
