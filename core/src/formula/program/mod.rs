//! A formula as a fixed-capacity [`Program`]: its node tree and statements, the tables of
//! functions, methods, members and service variables, parsed ([`parser`]) and checked
//! ([`types`]) once.

use super::error::FormulaError;
use super::lexer::Tok;
use super::time::TICKS_PER_SECOND;
use super::{
    Deallocation, Metric, Type, MAX_NODES, MAX_SOURCE_BYTES, MAX_STATEMENTS, MAX_VARIABLES,
};

mod parser;
mod types;

#[cfg(test)]
pub(crate) use types::{binary_type, unary_type};

pub(crate) const NONE: u16 = u16::MAX;
/// Slots 0..5: the read-write service variables; then the user variables.
pub(crate) const SERVICE_SLOTS: usize = 5;
pub(crate) const SLOTS: usize = SERVICE_SLOTS + MAX_VARIABLES;
pub(crate) const NO_SLOT: u8 = u8::MAX;
/// The read-write service variables (and aliases), in results order.
pub(crate) const SERVICE_NAMES: [&str; SERVICE_SLOTS] = [
    "$TargetDedicatedNodes",
    "$TargetDedicated",
    "$TargetLowPriorityNodes",
    "$TargetLowPriority",
    "$NodeDeallocationOption",
];
pub(crate) const DEALLOCATION_SLOT: u8 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Avg,
    Len,
    Lg,
    Ln,
    Log,
    Max,
    Min,
    Norm,
    Percentile,
    Rand,
    Range,
    Std,
    Stop,
    Sum,
    Time,
    Val,
}

/// name, function, fewest and most arguments, the accepted counts in words.
const FUNCS: [(&str, Func, u16, u16, &str); 16] = [
    ("avg", Func::Avg, 0, u16::MAX, "a list"),
    ("len", Func::Len, 0, u16::MAX, "a list"),
    ("lg", Func::Lg, 1, 1, "one argument"),
    ("ln", Func::Ln, 1, 1, "one argument"),
    ("log", Func::Log, 1, 1, "one argument"),
    ("max", Func::Max, 0, u16::MAX, "a list"),
    ("min", Func::Min, 0, u16::MAX, "a list"),
    ("norm", Func::Norm, 0, u16::MAX, "a list"),
    ("percentile", Func::Percentile, 2, 2, "two arguments"),
    ("rand", Func::Rand, 0, 0, "no arguments"),
    ("range", Func::Range, 0, u16::MAX, "a list"),
    ("std", Func::Std, 0, u16::MAX, "a list"),
    ("stop", Func::Stop, 0, 0, "no arguments"),
    ("sum", Func::Sum, 0, u16::MAX, "a list"),
    ("time", Func::Time, 0, 1, "zero or one argument"),
    ("val", Func::Val, 2, 2, "two arguments"),
];

impl Func {
    pub(crate) fn name(self) -> &'static str {
        FUNCS.iter().find(|f| f.1 == self).map_or("?", |f| f.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    GetSample,
    GetSamplePercent,
    GetSamplePeriod,
    Count,
    HistoryBeginTime,
}

const METHODS: [(&str, Method, u16, u16, &str); 5] = [
    (
        "GetSample",
        Method::GetSample,
        1,
        3,
        "one to three arguments",
    ),
    (
        "GetSamplePercent",
        Method::GetSamplePercent,
        1,
        2,
        "one or two arguments",
    ),
    (
        "GetSamplePeriod",
        Method::GetSamplePeriod,
        0,
        0,
        "no arguments",
    ),
    ("Count", Method::Count, 0, 0, "no arguments"),
    (
        "HistoryBeginTime",
        Method::HistoryBeginTime,
        0,
        0,
        "no arguments",
    ),
];

impl Method {
    pub(crate) fn name(self) -> &'static str {
        METHODS.iter().find(|m| m.1 == self).map_or("?", |m| m.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Member {
    Year,
    Month,
    Day,
    Weekday,
    Hour,
    Minute,
    Second,
}

const MEMBERS: [(&str, Member); 7] = [
    ("year", Member::Year),
    ("month", Member::Month),
    ("day", Member::Day),
    ("weekday", Member::Weekday),
    ("hour", Member::Hour),
    ("minute", Member::Minute),
    ("second", Member::Second),
];

impl Member {
    pub(crate) fn name(self) -> &'static str {
        MEMBERS.iter().find(|m| m.1 == self).map_or("?", |m| m.0)
    }
}

const TIME_CONSTANTS: [(&str, i64); 10] = [
    ("TimeInterval_Zero", 0),
    ("TimeInterval_100ns", 1),
    ("TimeInterval_Microsecond", 10),
    ("TimeInterval_Millisecond", 10_000),
    ("TimeInterval_Second", TICKS_PER_SECOND),
    ("TimeInterval_Minute", 60 * TICKS_PER_SECOND),
    ("TimeInterval_Hour", 3600 * TICKS_PER_SECOND),
    ("TimeInterval_Day", 86_400 * TICKS_PER_SECOND),
    ("TimeInterval_Week", 7 * 86_400 * TICKS_PER_SECOND),
    ("TimeInterval_Year", 365 * 86_400 * TICKS_PER_SECOND),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Not,
}

impl UnOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Not => "!",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl BinOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// The binary operator a token is, and its precedence (higher binds tighter).
fn binop(t: Tok) -> Option<(BinOp, u8)> {
    Some(match t {
        Tok::OrOr => (BinOp::Or, 1),
        Tok::AndAnd => (BinOp::And, 2),
        Tok::EqEq => (BinOp::Eq, 3),
        Tok::Ne => (BinOp::Ne, 3),
        Tok::Lt => (BinOp::Lt, 4),
        Tok::Le => (BinOp::Le, 4),
        Tok::Gt => (BinOp::Gt, 4),
        Tok::Ge => (BinOp::Ge, 4),
        Tok::Plus => (BinOp::Add, 5),
        Tok::Minus => (BinOp::Sub, 5),
        Tok::Star => (BinOp::Mul, 6),
        Tok::Slash => (BinOp::Div, 6),
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Expr {
    Num(f64),
    /// A string literal's text (without the quotes) as a span of the source.
    Str {
        start: u16,
        len: u16,
    },
    Interval(i64),
    Dealloc(Deallocation),
    /// A read-write service variable or a user variable.
    Var(u8),
    /// A read-only service variable used as a value.
    Metric(Metric),
    /// `[a, b, ...]`: `count` arguments linked through `Node::next`.
    Vector {
        first: u16,
        count: u16,
    },
    Call {
        func: Func,
        first: u16,
        count: u16,
    },
    Method {
        metric: Metric,
        method: Method,
        first: u16,
        count: u16,
    },
    Member {
        obj: u16,
        member: Member,
    },
    Unary {
        op: UnOp,
        e: u16,
    },
    Binary {
        op: BinOp,
        l: u16,
        r: u16,
    },
    Cond {
        c: u16,
        t: u16,
        e: u16,
    },
}

/// One expression node (24 bytes on a 64-bit target). Public only so that a caller can
/// size a [`Program`]'s node capacity; its fields are private.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub(crate) expr: Expr,
    /// The next argument of the same call (or `NONE`).
    pub(crate) next: u16,
    /// Operators from this node to its deepest value (0 for a value).
    pub(crate) height: u8,
    /// The node's type when the parser knows it (`None`: it depends on the evaluation).
    pub(crate) ty: Option<Type>,
    pub(crate) line: u16,
    pub(crate) col: u16,
}

const EMPTY_NODE: Node = Node {
    expr: Expr::Num(0.0),
    next: NONE,
    height: 0,
    ty: Some(Type::Double),
    line: 0,
    col: 0,
};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Stmt {
    /// The assigned slot, or `NO_SLOT` for a bare call (`stop();`).
    pub slot: u8,
    pub expr: u16,
    pub line: u16,
    pub col: u16,
}

/// A parsed formula at the host's capacity ([`MAX_NODES`]): holds every formula within
/// Batch's limits. About 205 KB: keep it in a `Box` or a `static`.
pub type Program = BoundedProgram<MAX_NODES>;

/// A parsed formula: fixed capacity, checked once, evaluated any number of times.
///
/// It keeps its own copy of the source (names and string literals point into it), so it
/// borrows nothing. `NODES` is the expression-node capacity: [`Program`] has
/// [`MAX_NODES`] (8192), which holds every formula within Batch's limits; a board may
/// choose fewer (`BoundedProgram<512>` is about 22 KB) and gets
/// [`super::ErrorKind::Capacity`] naming the limit for a formula that needs more.
pub struct BoundedProgram<const NODES: usize> {
    pub(crate) src: [u8; MAX_SOURCE_BYTES],
    pub(crate) src_len: u16,
    pub(crate) nodes: [Node; NODES],
    pub(crate) node_count: u16,
    pub(crate) stmts: [Stmt; MAX_STATEMENTS],
    pub(crate) stmt_count: u8,
    /// Each slot's name as first written: (start, len) in the source; len 0 = not written.
    pub(crate) names: [(u16, u16); SLOTS],
    pub(crate) user_count: u8,
    /// The user slots in results order (ordinal byte order of their names).
    pub(crate) order: [u8; MAX_VARIABLES],
}

impl<const NODES: usize> Default for BoundedProgram<NODES> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const NODES: usize> BoundedProgram<NODES> {
    /// Node indices are `u16` with `u16::MAX` reserved.
    const FITS: () = assert!(NODES < u16::MAX as usize, "NODES must be below 65535");

    /// Returns the empty program (no statements; evaluates to `requeue` and no targets).
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::FITS;
        BoundedProgram {
            src: [0; MAX_SOURCE_BYTES],
            src_len: 0,
            nodes: [EMPTY_NODE; NODES],
            node_count: 0,
            stmts: [Stmt {
                slot: NO_SLOT,
                expr: NONE,
                line: 0,
                col: 0,
            }; MAX_STATEMENTS],
            stmt_count: 0,
            names: [(0, 0); SLOTS],
            user_count: 0,
            order: [0; MAX_VARIABLES],
        }
    }

    /// Parses `src` into `self` (replacing what was there); on error `self` is empty.
    /// Works in place: no 33 KB temporary on the stack.
    pub fn parse(&mut self, src: &str) -> Result<(), FormulaError> {
        self.clear();
        let r = self.parse_inner(src);
        if r.is_err() {
            self.clear();
        }
        r
    }

    /// Empties the program (entries past the counts are never read).
    fn clear(&mut self) {
        self.src_len = 0;
        self.node_count = 0;
        self.stmt_count = 0;
        self.user_count = 0;
        self.names.fill((0, 0));
    }

    /// Parses `src` into a new program (returned by value: fine on a host's main stack).
    pub fn from_source(src: &str) -> Result<Self, FormulaError> {
        let mut p = Self::new();
        p.parse(src)?;
        Ok(p)
    }

    /// Returns the number of non-empty statements.
    pub fn statements(&self) -> usize {
        usize::from(self.stmt_count)
    }

    /// Returns the number of expression nodes used (of `NODES`).
    pub fn nodes(&self) -> usize {
        usize::from(self.node_count)
    }

    /// Returns the number of user variables (of [`MAX_VARIABLES`]).
    pub fn user_variables(&self) -> usize {
        usize::from(self.user_count)
    }

    /// Returns whether a statement assigns the low-priority target
    /// (`$TargetLowPriorityNodes`, or its alias `$TargetLowPriority`).
    pub fn sets_low_priority(&self) -> bool {
        self.stmts[..usize::from(self.stmt_count)]
            .iter()
            .any(|s| s.slot == 2 || s.slot == 3)
    }

    /// Returns the source the program was parsed from.
    pub fn source(&self) -> &str {
        core::str::from_utf8(&self.src[..usize::from(self.src_len)]).unwrap_or("")
    }

    /// Returns the source text of a span.
    pub(crate) fn text(&self, start: u16, len: u16) -> &str {
        let (s, l) = (usize::from(start), usize::from(len));
        // Spans start and end at ASCII bytes, so the slice alone is valid UTF-8 (checking
        // only the slice keeps name look-ups cheap).
        self.src
            .get(s..s + l)
            .and_then(|b| core::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    /// Returns a slot's name as first written, or its canonical spelling.
    pub(crate) fn slot_name(&self, slot: usize) -> &str {
        match self.names.get(slot) {
            Some(&(s, l)) if l > 0 => self.text(s, l),
            _ => SERVICE_NAMES.get(slot).copied().unwrap_or("?"),
        }
    }

    fn sort_users(&mut self) {
        let n = usize::from(self.user_count);
        for i in 0..n {
            self.order[i] = (SERVICE_SLOTS + i) as u8;
        }
        // Insertion sort: at most 64 names, no allocation.
        for i in 1..n {
            let mut j = i;
            while j > 0 {
                let a = self.slot_name(usize::from(self.order[j - 1]));
                let b = self.slot_name(usize::from(self.order[j]));
                if a.as_bytes() <= b.as_bytes() {
                    break;
                }
                self.order.swap(j - 1, j);
                j -= 1;
            }
        }
    }
}

fn func(name: &str) -> Option<(Func, u16, u16, &'static str)> {
    FUNCS
        .iter()
        .find(|f| f.0 == name)
        .map(|&(_, f, lo, hi, a)| (f, lo, hi, a))
}

/// Service variables are matched ignoring ASCII case (Batch lists `$targetDedicatedNodes`
/// as the target in its REST example).
fn service_slot(name: &str) -> Option<u8> {
    SERVICE_NAMES
        .iter()
        .position(|s| s.eq_ignore_ascii_case(name))
        .map(|p| p as u8)
}

fn is_reserved(name: &str) -> bool {
    FUNCS.iter().any(|f| f.0 == name)
        || METHODS.iter().any(|m| m.0 == name)
        || TIME_CONSTANTS.iter().any(|c| c.0 == name)
        || Deallocation::from_word(name).is_some()
}
