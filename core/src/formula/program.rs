//! The parser: source text to a fixed-capacity [`Program`], checked once.

use super::error::{ErrorKind, FormulaError, Snippet};
use super::lexer::{advance, Lexer, Tok, Token};
use super::time::TICKS_PER_SECOND;
use super::{
    Deallocation, Metric, Type, MAX_HEIGHT, MAX_NESTING, MAX_NODES, MAX_PREFIX, MAX_SOURCE_BYTES,
    MAX_STATEMENTS, MAX_VARIABLES, MAX_VECTOR_LITERAL,
};

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

    fn parse_inner(&mut self, src: &str) -> Result<(), FormulaError> {
        if src.len() > MAX_SOURCE_BYTES {
            // Point at the first byte over the limit.
            let bytes = src.as_bytes();
            let mut lx = (1u32, 1u32);
            for (i, &b) in bytes[..MAX_SOURCE_BYTES].iter().enumerate() {
                lx = advance(lx.0, lx.1, b, bytes.get(i + 1).copied());
            }
            return Err(FormulaError {
                line: lx.0,
                col: lx.1,
                kind: ErrorKind::TooLong { bytes: src.len() },
            });
        }
        self.src[..src.len()].copy_from_slice(src.as_bytes());
        self.src_len = src.len() as u16;
        let mut lexer = Lexer::new(src);
        let tok = lexer.next_token()?;
        let mut slot_ty = [None; SLOTS];
        // Before the formula assigns them, targets read the pool's (doubles) and the
        // deallocation option reads the current one.
        slot_ty[..usize::from(DEALLOCATION_SLOT)].fill(Some(Type::Double));
        slot_ty[usize::from(DEALLOCATION_SLOT)] = Some(Type::Deallocation);
        let mut p = Parser {
            prog: self,
            src,
            lexer,
            tok,
            depth: 0,
            err: None,
            slot_ty,
            slot_at: [(0, 0); SLOTS],
            has_stop: false,
        };
        if p.formula().is_err() || p.final_targets().is_err() {
            // `Halt` always comes with a recorded error.
            return Err(p.err.unwrap_or(FormulaError {
                line: 1,
                col: 1,
                kind: ErrorKind::TooDeep,
            }));
        }
        self.sort_users();
        Ok(())
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

struct Parser<'p, 's, const NODES: usize> {
    prog: &'p mut BoundedProgram<NODES>,
    src: &'s str,
    lexer: Lexer<'s>,
    tok: Token,
    depth: usize,
    err: Option<FormulaError>,
    /// Each slot's type after the statements parsed so far (`None`: not known statically).
    slot_ty: [Option<Type>; SLOTS],
    /// Where each slot was last assigned (the statement's first token).
    slot_at: [(u32, u32); SLOTS],
    /// Whether a `stop()` call appears (then later statements may not run).
    has_stop: bool,
}

/// A parse failure; the error itself waits in `Parser::err`. Keeping results this small keeps
/// the recursive parser's stack frames small.
struct Halt;

type R<T> = Result<T, Halt>;

impl<'s, const NODES: usize> Parser<'_, 's, NODES> {
    fn text(&self, t: &Token) -> &'s str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    fn snippet(&self, t: &Token) -> Snippet {
        if t.tok == Tok::Eof {
            Snippet::END
        } else {
            Snippet::new(self.text(t))
        }
    }

    /// Records the error at `t` and stops the parse. Never inlined: error values in every
    /// recursive frame would swell the parser's stack use.
    #[inline(never)]
    fn at(&mut self, t: Token, kind: ErrorKind) -> Halt {
        self.err = Some(FormulaError {
            line: t.line,
            col: t.col,
            kind,
        });
        Halt
    }

    fn advance(&mut self) -> R<()> {
        match self.lexer.next_token() {
            Ok(t) => {
                self.tok = t;
                Ok(())
            }
            Err(e) => {
                self.err = Some(e);
                Err(Halt)
            }
        }
    }

    fn peek(&mut self) -> R<Token> {
        let mut l = self.lexer;
        l.next_token().map_err(|e| {
            self.err = Some(e);
            Halt
        })
    }

    fn expected(&mut self, what: &'static str) -> Halt {
        let found = self.snippet(&self.tok);
        self.at(self.tok, ErrorKind::Expected { what, found })
    }

    fn expect(&mut self, t: Tok, what: &'static str) -> R<()> {
        if self.tok.tok != t {
            return Err(self.expected(what));
        }
        self.advance()
    }

    fn height(&self, i: u16) -> u8 {
        self.prog.nodes.get(usize::from(i)).map_or(0, |n| n.height)
    }

    /// Adds a node whose children are `kids`; checks the capacity, the tree height and the
    /// operand types.
    fn push(&mut self, expr: Expr, t: &Token, kids: &[u16]) -> R<u16> {
        let h = match kids.iter().map(|&k| self.height(k)).max() {
            Some(h) => h.saturating_add(1),
            None => 0,
        };
        self.push_h(expr, t, h)
    }

    /// The height of a node over a list of `count` arguments whose tallest is `h`.
    fn over_list(count: u16, h: u8) -> u8 {
        if count == 0 {
            0
        } else {
            h.saturating_add(1)
        }
    }

    fn push_h(&mut self, expr: Expr, t: &Token, height: u8) -> R<u16> {
        if usize::from(height) > MAX_HEIGHT {
            return Err(self.at(*t, ErrorKind::TooTall));
        }
        let ty = self.static_type(&expr, t)?;
        let i = self.prog.node_count;
        let Some(slot) = self.prog.nodes.get_mut(usize::from(i)) else {
            return Err(self.at(
                *t,
                ErrorKind::Capacity {
                    what: "expression nodes",
                    limit: NODES as u32,
                },
            ));
        };
        *slot = Node {
            expr,
            next: NONE,
            height,
            ty,
            line: t.line as u16,
            col: t.col as u16,
        };
        self.prog.node_count += 1;
        Ok(i)
    }

    fn formula(&mut self) -> R<()> {
        loop {
            while self.tok.tok == Tok::Semi {
                self.advance()?;
            }
            if self.tok.tok == Tok::Eof {
                return Ok(());
            }
            if usize::from(self.prog.stmt_count) >= MAX_STATEMENTS {
                return Err(self.at(self.tok, ErrorKind::TooManyStatements));
            }
            self.statement()?;
            if !matches!(self.tok.tok, Tok::Semi | Tok::Eof) {
                return Err(self.expected("';'"));
            }
        }
    }

    fn user_slot(&self, name: &str) -> Option<u8> {
        (0..usize::from(self.prog.user_count))
            .map(|i| SERVICE_SLOTS + i)
            .find(|&s| self.prog.slot_name(s) == name)
            .map(|s| s as u8)
    }

    fn statement(&mut self) -> R<()> {
        let start = self.tok;
        if start.tok != Tok::Ident {
            return Err(self.expected("a statement"));
        }
        let name = self.text(&start);
        let next = self.peek()?;
        if next.tok == Tok::Assign {
            let service = if name.starts_with('$') {
                if Metric::lookup(name).is_some() {
                    return Err(self.at(start, ErrorKind::ReadOnly(Snippet::new(name))));
                }
                service_slot(name)
            } else {
                if is_reserved(name) {
                    return Err(self.at(start, ErrorKind::Reserved(Snippet::new(name))));
                }
                None
            };
            self.advance()?;
            self.advance()?;
            let e = self.expr()?;
            let name = self.src.get(start.start..start.end).unwrap_or("");
            let slot = match service.or_else(|| self.user_slot(name)) {
                Some(s) => s,
                None => {
                    if usize::from(self.prog.user_count) >= MAX_VARIABLES {
                        return Err(self.at(
                            start,
                            ErrorKind::Capacity {
                                what: "user variables",
                                limit: MAX_VARIABLES as u32,
                            },
                        ));
                    }
                    self.prog.user_count += 1;
                    (SERVICE_SLOTS + usize::from(self.prog.user_count) - 1) as u8
                }
            };
            let entry = &mut self.prog.names[usize::from(slot)];
            if entry.1 == 0 {
                *entry = (start.start as u16, (start.end - start.start) as u16);
            }
            // Statements run in order and an assignment always completes before the next
            // statement, so a later read sees this expression's type.
            self.slot_ty[usize::from(slot)] = self.node_ty(e);
            self.slot_at[usize::from(slot)] = (start.line, start.col);
            return self.add_stmt(slot, e, &start);
        }
        if !name.starts_with('$') && func(name).is_some() && next.tok == Tok::LParen {
            let e = self.postfix()?;
            return self.add_stmt(NO_SLOT, e, &start);
        }
        self.advance()?;
        Err(self.expected("'='"))
    }

    fn add_stmt(&mut self, slot: u8, expr: u16, t: &Token) -> R<()> {
        let i = usize::from(self.prog.stmt_count);
        if let Some(s) = self.prog.stmts.get_mut(i) {
            *s = Stmt {
                slot,
                expr,
                line: t.line as u16,
                col: t.col as u16,
            };
            self.prog.stmt_count += 1;
        }
        Ok(())
    }

    /// expression = or-chain [ '?' expression ':' expression ] (right-associative).
    fn expr(&mut self) -> R<u16> {
        // The statement's own expression is depth 1; each bracket, call, vector literal or
        // `?:` branch inside it one more.
        if self.depth > MAX_NESTING {
            return Err(self.at(self.tok, ErrorKind::TooDeep));
        }
        self.depth += 1;
        let r = self.conditional();
        self.depth -= 1;
        r
    }

    fn conditional(&mut self) -> R<u16> {
        let first = self.tok;
        let c = self.binary(1)?;
        if self.tok.tok != Tok::Question {
            return Ok(c);
        }
        self.advance()?;
        let t = self.expr()?;
        self.expect(Tok::Colon, "':'")?;
        let e = self.expr()?;
        self.push(Expr::Cond { c, t, e }, &first, &[c, t, e])
    }

    /// Precedence climbing: recursion depth is bounded by the six precedence levels.
    fn binary(&mut self, min: u8) -> R<u16> {
        let mut left = self.unary()?;
        while let Some((op, prec)) = binop(self.tok.tok) {
            if prec < min {
                break;
            }
            let t = self.tok;
            self.advance()?;
            let right = self.binary(prec + 1)?;
            left = self.push(
                Expr::Binary {
                    op,
                    l: left,
                    r: right,
                },
                &t,
                &[left, right],
            )?;
        }
        Ok(left)
    }

    /// Prefix operators (at most [`MAX_PREFIX`] in a row) are collected in a fixed stack, then
    /// applied innermost first.
    fn unary(&mut self) -> R<u16> {
        let mut ops = [(UnOp::Neg, 0u16, 0u16); MAX_PREFIX];
        let mut n = 0;
        while matches!(self.tok.tok, Tok::Minus | Tok::Bang) {
            if n >= MAX_PREFIX {
                return Err(self.at(self.tok, ErrorKind::TooManyPrefix));
            }
            let op = if self.tok.tok == Tok::Minus {
                UnOp::Neg
            } else {
                UnOp::Not
            };
            ops[n] = (op, self.tok.line as u16, self.tok.col as u16);
            n += 1;
            self.advance()?;
        }
        let mut e = self.postfix()?;
        while n > 0 {
            n -= 1;
            let (op, line, col) = ops[n];
            let t = Token {
                line: u32::from(line),
                col: u32::from(col),
                ..self.tok
            };
            e = self.push(Expr::Unary { op, e }, &t, &[e])?;
        }
        Ok(e)
    }

    fn postfix(&mut self) -> R<u16> {
        let mut e = self.primary()?;
        while self.tok.tok == Tok::Dot {
            e = self.member_or_method(e)?;
        }
        Ok(e)
    }

    /// `.member` or `.Method(args)` after `e` (at the `.`). Kept out of line, like
    /// [`Self::primary`] and [`Self::identifier`], so that each level of the recursive
    /// descent keeps a small frame (see the stack figure in the module docs).
    #[inline(never)]
    fn member_or_method(&mut self, mut e: u16) -> R<u16> {
        {
            self.advance()?;
            let t = self.tok;
            if t.tok != Tok::Ident {
                return Err(self.expected("a member or method name"));
            }
            let name = self.text(&t);
            if let Some(&(_, method, lo, hi, accepted)) = METHODS.iter().find(|m| m.0 == name) {
                let receiver = self.prog.nodes.get(usize::from(e)).map(|n| n.expr);
                let Some(Expr::Metric(metric)) = receiver else {
                    return Err(self.at(t, ErrorKind::NotSampled(Snippet::new(name))));
                };
                self.advance()?;
                self.expect(Tok::LParen, "'('")?;
                let (first, count, h) = self.args(Tok::RParen, "')'")?;
                if count < lo || count > hi {
                    return Err(self.at(
                        t,
                        ErrorKind::ArgumentCount {
                            name: method.name(),
                            accepted,
                        },
                    ));
                }
                // The receiver node becomes the method call (it has no other user).
                let expr = Expr::Method {
                    metric,
                    method,
                    first,
                    count,
                };
                let height = Self::over_list(count, h);
                if usize::from(height) > MAX_HEIGHT {
                    return Err(self.at(t, ErrorKind::TooTall));
                }
                let ty = self.static_type(&expr, &t)?;
                if let Some(n) = self.prog.nodes.get_mut(usize::from(e)) {
                    *n = Node {
                        expr,
                        next: NONE,
                        height,
                        ty,
                        line: t.line as u16,
                        col: t.col as u16,
                    };
                }
            } else if let Some(&(_, member)) = MEMBERS.iter().find(|m| m.0 == name) {
                self.advance()?;
                e = self.push(Expr::Member { obj: e, member }, &t, &[e])?;
            } else {
                return Err(self.at(t, ErrorKind::UnknownMember(Snippet::new(name))));
            }
        }
        Ok(e)
    }

    /// Parses arguments up to `close` (the opening bracket is consumed); links them through
    /// `next` and returns (first, count, tallest height).
    fn args(&mut self, close: Tok, what: &'static str) -> R<(u16, u16, u8)> {
        let (mut first, mut last, mut count, mut h) = (NONE, NONE, 0u16, 0u8);
        if self.tok.tok == close {
            self.advance()?;
            return Ok((first, 0, 0));
        }
        loop {
            let a = self.expr()?;
            if first == NONE {
                first = a;
            } else if let Some(n) = self.prog.nodes.get_mut(usize::from(last)) {
                n.next = a;
            }
            last = a;
            count = count.saturating_add(1);
            h = h.max(self.height(a));
            if self.tok.tok == Tok::Comma {
                self.advance()?;
                continue;
            }
            self.expect(close, what)?;
            return Ok((first, count, h));
        }
    }

    /// A bracketed expression here (the common deep path, kept in a small frame), anything
    /// else in [`Self::value`].
    fn primary(&mut self) -> R<u16> {
        match self.tok.tok {
            Tok::LParen => {
                self.advance()?;
                let e = self.expr()?;
                self.expect(Tok::RParen, "')'")?;
                Ok(e)
            }
            Tok::Ident => self.identifier(self.tok),
            _ => self.value(),
        }
    }

    #[inline(never)]
    fn value(&mut self) -> R<u16> {
        let t = self.tok;
        match t.tok {
            Tok::Num(v) => {
                self.advance()?;
                self.push(Expr::Num(v), &t, &[])
            }
            Tok::Str => {
                self.advance()?;
                let expr = Expr::Str {
                    start: (t.start + 1) as u16,
                    len: (t.end - t.start).saturating_sub(2) as u16,
                };
                self.push(expr, &t, &[])
            }
            Tok::LBracket => {
                self.advance()?;
                let (first, count, h) = self.args(Tok::RBracket, "']'")?;
                if usize::from(count) > MAX_VECTOR_LITERAL {
                    return Err(self.at(
                        t,
                        ErrorKind::Capacity {
                            what: "values in a vector literal",
                            limit: MAX_VECTOR_LITERAL as u32,
                        },
                    ));
                }
                self.push_h(Expr::Vector { first, count }, &t, Self::over_list(count, h))
            }
            _ => Err(self.expected("a value")),
        }
    }

    /// A name: a call (on the deep path, in [`Self::call`]) or a value ([`Self::name`]).
    #[inline(never)]
    fn identifier(&mut self, t: Token) -> R<u16> {
        let name = self.src.get(t.start..t.end).unwrap_or("");
        self.advance()?;
        if !name.starts_with('$') {
            if let Some(f) = func(name) {
                return self.call(&t, f);
            }
        }
        self.name(&t, name)
    }

    /// `f(args)` after the name `t` (the `(` not yet consumed).
    #[inline(never)]
    fn call(&mut self, t: &Token, (f, lo, hi, accepted): (Func, u16, u16, &'static str)) -> R<u16> {
        if self.tok.tok != Tok::LParen {
            return Err(self.expected("'('"));
        }
        self.advance()?;
        let (first, count, h) = self.args(Tok::RParen, "')'")?;
        if count < lo || count > hi {
            return Err(self.at(
                *t,
                ErrorKind::ArgumentCount {
                    name: f.name(),
                    accepted,
                },
            ));
        }
        self.push_h(
            Expr::Call {
                func: f,
                first,
                count,
            },
            t,
            Self::over_list(count, h),
        )
    }

    /// A name that is not a call: a constant, a deallocation word or a variable.
    #[inline(never)]
    fn name(&mut self, t: &Token, name: &str) -> R<u16> {
        let t = *t;
        if !name.starts_with('$') {
            if self.tok.tok == Tok::LParen {
                return Err(self.at(t, ErrorKind::UnknownFunction(Snippet::new(name))));
            }
            if let Some(&(_, ticks)) = TIME_CONSTANTS.iter().find(|c| c.0 == name) {
                return self.push(Expr::Interval(ticks), &t, &[]);
            }
            if let Some(d) = Deallocation::from_word(name) {
                return self.push(Expr::Dealloc(d), &t, &[]);
            }
        } else {
            if let Some(s) = service_slot(name) {
                return self.push(Expr::Var(s), &t, &[]);
            }
            if let Some(m) = Metric::lookup(name) {
                return self.push(Expr::Metric(m), &t, &[]);
            }
        }
        match self.user_slot(name) {
            Some(s) => self.push(Expr::Var(s), &t, &[]),
            None => Err(self.at(t, ErrorKind::UndefinedVariable(Snippet::new(name)))),
        }
    }
}

/// The static type checks. Each mirrors the evaluator: a node whose operand types are all
/// known and do not combine fails on every evaluation that reaches it, so it is rejected
/// at parse time with the error (and the position) the evaluation would report. A node
/// with an operand whose type depends on the evaluation (a `?:` with branches of two
/// types, a variable assigned one) is left to the evaluator; nothing the evaluator accepts
/// is rejected, except code that could never evaluate (a type error in a branch that is
/// never taken).
impl<const NODES: usize> Parser<'_, '_, NODES> {
    fn node_ty(&self, i: u16) -> Option<Type> {
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
    fn static_type(&mut self, expr: &Expr, t: &Token) -> R<Option<Type>> {
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
                                if !text.is_empty() && super::Timestamp::parse(text).is_none() {
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
    fn final_targets(&mut self) -> R<()> {
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
