//! The parser: source text to the nodes and statements of a [`BoundedProgram`], by recursive
//! descent with one token of look-ahead ([`Parser`]). A failure records one
//! [`FormulaError`] (where and what) and unwinds as [`Halt`]; the limits (`MAX_*`) are
//! checked as the tree grows, so a program that parses fits its capacity.

use super::super::error::{ErrorKind, FormulaError, Snippet};
use super::super::lexer::{advance, Lexer, Tok, Token};
use super::super::{
    Deallocation, Metric, Type, MAX_HEIGHT, MAX_NESTING, MAX_PREFIX, MAX_SOURCE_BYTES,
    MAX_STATEMENTS, MAX_VARIABLES, MAX_VECTOR_LITERAL,
};
use super::{
    binop, func, is_reserved, service_slot, BoundedProgram, Expr, Func, Node, Stmt, UnOp,
    DEALLOCATION_SLOT, MEMBERS, METHODS, NONE, NO_SLOT, SERVICE_SLOTS, SLOTS, TIME_CONSTANTS,
};

impl<const NODES: usize> BoundedProgram<NODES> {
    pub(super) fn parse_inner(&mut self, src: &str) -> Result<(), FormulaError> {
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
}

pub(super) struct Parser<'p, 's, const NODES: usize> {
    pub(super) prog: &'p mut BoundedProgram<NODES>,
    pub(super) src: &'s str,
    pub(super) lexer: Lexer<'s>,
    pub(super) tok: Token,
    pub(super) depth: usize,
    pub(super) err: Option<FormulaError>,
    /// Each slot's type after the statements parsed so far (`None`: not known statically).
    pub(super) slot_ty: [Option<Type>; SLOTS],
    /// Where each slot was last assigned (the statement's first token).
    pub(super) slot_at: [(u32, u32); SLOTS],
    /// Whether a `stop()` call appears (then later statements may not run).
    pub(super) has_stop: bool,
}

/// A parse failure; the error itself waits in `Parser::err`. Keeping results this small keeps
/// the recursive parser's stack frames small.
pub(super) struct Halt;

pub(super) type R<T> = Result<T, Halt>;

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
    pub(super) fn at(&mut self, t: Token, kind: ErrorKind) -> Halt {
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
        let node = self.node(expr, t, height)?;
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
        *slot = node;
        self.prog.node_count += 1;
        Ok(i)
    }

    /// The node of `expr` at `t`, of the given `height` (checked, with its static type).
    fn node(&mut self, expr: Expr, t: &Token, height: u8) -> R<Node> {
        if usize::from(height) > MAX_HEIGHT {
            return Err(self.at(*t, ErrorKind::TooTall));
        }
        let ty = self.static_type(&expr, t)?;
        Ok(Node {
            expr,
            next: NONE,
            height,
            ty,
            line: t.line as u16,
            col: t.col as u16,
        })
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
                let (first, count, h) = self.call_args(t, method.name(), (lo, hi, accepted))?;
                // The receiver node becomes the method call (it has no other user).
                let expr = Expr::Method {
                    metric,
                    method,
                    first,
                    count,
                };
                let node = self.node(expr, &t, Self::over_list(count, h))?;
                if let Some(n) = self.prog.nodes.get_mut(usize::from(e)) {
                    *n = node;
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

    /// `(args)` of the function or method `name` named at `t` (the `(` not yet consumed): the
    /// first argument's node, the count and the list's height; [`ErrorKind::ArgumentCount`]
    /// unless `lo` to `hi` arguments (`accepted` says so in words).
    fn call_args(
        &mut self,
        t: Token,
        name: &'static str,
        (lo, hi, accepted): (u16, u16, &'static str),
    ) -> R<(u16, u16, u8)> {
        self.expect(Tok::LParen, "'('")?;
        let (first, count, h) = self.args(Tok::RParen, "')'")?;
        if count < lo || count > hi {
            return Err(self.at(t, ErrorKind::ArgumentCount { name, accepted }));
        }
        Ok((first, count, h))
    }

    /// `f(args)` after the name `t` (the `(` not yet consumed).
    #[inline(never)]
    fn call(&mut self, t: &Token, (f, lo, hi, accepted): (Func, u16, u16, &'static str)) -> R<u16> {
        let (first, count, h) = self.call_args(*t, f.name(), (lo, hi, accepted))?;
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
