//! Tokens, read one at a time (the lexer is `Copy`, so peeking is a copy).

use super::error::{ErrorKind, FormulaError, Snippet};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Tok {
    Num(f64),
    /// A string literal; the token's span includes the quotes.
    Str,
    /// An identifier, with its `$` if any.
    Ident,
    Semi,
    Assign,
    EqEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Star,
    Slash,
    AndAnd,
    OrOr,
    Bang,
    Question,
    Colon,
    LParen,
    RParen,
    Comma,
    Dot,
    LBracket,
    RBracket,
    Eof,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Copy)]
pub(crate) struct Lexer<'s> {
    src: &'s str,
    pos: usize,
    line: u32,
    col: u32,
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s str) -> Self {
        Lexer {
            src,
            pos: 0,
            line: 1,
            col: 1,
        }
    }

    fn peek_byte(&self, k: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + k).copied()
    }

    /// Moves one byte on, counting lines and characters (not UTF-8 continuation bytes).
    /// A line ends at `\n`, `\r\n` or a lone `\r` (classic Mac OS files).
    fn bump(&mut self) {
        if let Some(b) = self.peek_byte(0) {
            self.pos += 1;
            (self.line, self.col) = advance(self.line, self.col, b, self.peek_byte(0));
        }
    }

    fn error(&self, line: u32, col: u32, kind: ErrorKind) -> FormulaError {
        FormulaError { line, col, kind }
    }

    /// Skips whitespace and `//` comments.
    fn skip_trivia(&mut self) {
        loop {
            match self.peek_byte(0) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.bump(),
                Some(b'/') if self.peek_byte(1) == Some(b'/') => {
                    while !matches!(self.peek_byte(0), None | Some(b'\n' | b'\r')) {
                        self.bump();
                    }
                }
                _ => return,
            }
        }
    }

    /// Reads the next token. Never inlined: the recursive parser calls it from every level,
    /// and its locals would otherwise sit in each level's frame.
    #[inline(never)]
    pub fn next_token(&mut self) -> Result<Token, FormulaError> {
        self.skip_trivia();
        let (start, line, col) = (self.pos, self.line, self.col);
        let Some(b) = self.peek_byte(0) else {
            return Ok(Token {
                tok: Tok::Eof,
                start,
                end: start,
                line,
                col,
            });
        };
        let two = |lx: &mut Self, second: u8, yes: Tok, no: Tok| {
            lx.bump();
            if lx.peek_byte(0) == Some(second) {
                lx.bump();
                yes
            } else {
                no
            }
        };
        let tok = match b {
            b';' | b'+' | b'-' | b'*' | b'/' | b'?' | b':' | b'(' | b')' | b',' | b'.' | b'['
            | b']' => {
                self.bump();
                match b {
                    b';' => Tok::Semi,
                    b'+' => Tok::Plus,
                    b'-' => Tok::Minus,
                    b'*' => Tok::Star,
                    b'/' => Tok::Slash,
                    b'?' => Tok::Question,
                    b':' => Tok::Colon,
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b',' => Tok::Comma,
                    b'.' => Tok::Dot,
                    b'[' => Tok::LBracket,
                    _ => Tok::RBracket,
                }
            }
            b'=' => two(self, b'=', Tok::EqEq, Tok::Assign),
            b'<' => two(self, b'=', Tok::Le, Tok::Lt),
            b'>' => two(self, b'=', Tok::Ge, Tok::Gt),
            b'!' => two(self, b'=', Tok::Ne, Tok::Bang),
            b'&' | b'|' => {
                self.bump();
                if self.peek_byte(0) != Some(b) {
                    let s = if b == b'&' { "&" } else { "|" };
                    return Err(self.error(line, col, ErrorKind::UnexpectedChar(Snippet::new(s))));
                }
                self.bump();
                if b == b'&' {
                    Tok::AndAnd
                } else {
                    Tok::OrOr
                }
            }
            b'0'..=b'9' => {
                while matches!(self.peek_byte(0), Some(b'0'..=b'9')) {
                    self.bump();
                }
                if self.peek_byte(0) == Some(b'.') && matches!(self.peek_byte(1), Some(b'0'..=b'9'))
                {
                    self.bump();
                    while matches!(self.peek_byte(0), Some(b'0'..=b'9')) {
                        self.bump();
                    }
                }
                // Digits and one '.' always parse; a literal beyond the largest double (about
                // 1.8e308) is an error, not infinity.
                let text = self.src.get(start..self.pos).unwrap_or("");
                match text.parse::<f64>() {
                    Ok(v) if v.is_finite() => Tok::Num(v),
                    _ => {
                        return Err(self.error(
                            line,
                            col,
                            ErrorKind::NumberOutOfRange(Snippet::new(text)),
                        ))
                    }
                }
            }
            b'"' => {
                self.bump();
                loop {
                    match self.peek_byte(0) {
                        Some(b'"') => {
                            self.bump();
                            break;
                        }
                        None | Some(b'\n' | b'\r') => {
                            return Err(self.error(line, col, ErrorKind::UnterminatedString));
                        }
                        Some(_) => self.bump(),
                    }
                }
                Tok::Str
            }
            b'$' | b'a'..=b'z' | b'A'..=b'Z' => {
                self.bump();
                if b == b'$' && !matches!(self.peek_byte(0), Some(b'a'..=b'z' | b'A'..=b'Z')) {
                    return Err(self.error(
                        line,
                        col,
                        ErrorKind::UnexpectedChar(Snippet::new("$")),
                    ));
                }
                while matches!(
                    self.peek_byte(0),
                    Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_')
                ) {
                    self.bump();
                }
                Tok::Ident
            }
            _ => {
                let ch = self
                    .src
                    .get(start..)
                    .and_then(|t| t.chars().next())
                    .unwrap_or('?');
                let mut buf = [0u8; 4];
                return Err(self.error(
                    line,
                    col,
                    ErrorKind::UnexpectedChar(Snippet::new(ch.encode_utf8(&mut buf))),
                ));
            }
        };
        Ok(Token {
            tok,
            start,
            end: self.pos,
            line,
            col,
        })
    }
}

/// The (line, column) after byte `b` at (line, col), `next` being the byte after `b`: `\n`
/// and a `\r` not followed by `\n` end a line; UTF-8 continuation bytes add no column.
pub(crate) fn advance(line: u32, col: u32, b: u8, next: Option<u8>) -> (u32, u32) {
    match b {
        b'\n' => (line + 1, 1),
        b'\r' if next != Some(b'\n') => (line + 1, 1),
        b'\r' => (line, col),
        _ if b & 0xC0 == 0x80 => (line, col),
        _ => (line, col + 1),
    }
}
