//! Formula errors: every one a value with the line and column it points at.

use core::fmt;

use super::{Metric, Type};

/// Up to 31 bytes of formula text quoted in an error (a token, a name, a date string).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Snippet {
    bytes: [u8; 31],
    len: u8,
    cut: bool,
}

impl Snippet {
    /// The end of the formula, quoted as `end of formula`.
    pub const END: Snippet = Snippet {
        bytes: [0; 31],
        len: 0,
        cut: false,
    };

    /// Copies `s`, cut at a character boundary if longer than 31 bytes.
    pub(crate) fn new(s: &str) -> Snippet {
        let mut n = s.len().min(31);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        let mut bytes = [0; 31];
        bytes[..n].copy_from_slice(&s.as_bytes()[..n]);
        Snippet {
            bytes,
            len: n as u8,
            cut: n < s.len(),
        }
    }

    /// Returns the quoted text (possibly cut short).
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }
}

impl fmt::Debug for Snippet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for Snippet {
    /// Writes `'text'` (with `...` if cut), or `end of formula` for [`Snippet::END`].
    /// Control and invisible characters are written as `\u{XXXX}` escapes (a tab, a
    /// carriage return or a zero-width space would otherwise be unreadable or break the line
    /// an error is printed on); `\` is written `\\`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.len == 0 && !self.cut {
            return f.write_str("end of formula");
        }
        f.write_str("'")?;
        for c in self.as_str().chars() {
            if c == '\\' {
                f.write_str("\\\\")?;
            } else if is_invisible(c) {
                write!(f, "\\u{{{:04X}}}", u32::from(c))?;
            } else {
                write!(f, "{c}")?;
            }
        }
        f.write_str(if self.cut { "...'" } else { "'" })
    }
}

/// Characters that print as nothing, as white space other than the space, or move the
/// cursor: control characters, Unicode white space, format characters (zero-width, bidi
/// controls, BOM), variation selectors and fillers.
fn is_invisible(c: char) -> bool {
    (c.is_control() || c.is_whitespace()) && c != ' '
        || matches!(u32::from(c),
            0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
            | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
            | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF)
}

#[cfg(feature = "defmt")]
impl defmt::Format for Snippet {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "{=str}", self.as_str())
    }
}

/// What went wrong. [`ErrorKind::code`] gives Batch's (or the simulator's) error code.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ErrorKind {
    /// The source is longer than [`super::MAX_SOURCE_BYTES`].
    TooLong {
        /// The source's length in bytes.
        bytes: usize,
    },
    /// More than [`super::MAX_STATEMENTS`] non-empty statements.
    TooManyStatements,
    /// A token that does not fit the grammar.
    Expected {
        /// What the grammar needed, e.g. `';'`.
        what: &'static str,
        /// The token found instead.
        found: Snippet,
    },
    /// A character that starts no token.
    UnexpectedChar(Snippet),
    /// A number literal beyond the largest double (about 1.8e308).
    NumberOutOfRange(Snippet),
    /// A string literal without its closing `"` on the same line.
    UnterminatedString,
    /// A call of a function the language does not have.
    UnknownFunction(Snippet),
    /// A user variable read before any statement assigns it.
    UndefinedVariable(Snippet),
    /// A `.name` that is neither a timestamp member nor a sampling method.
    UnknownMember(Snippet),
    /// A sampling method called on something other than a read-only service variable.
    NotSampled(Snippet),
    /// An assignment to a read-only service variable.
    ReadOnly(Snippet),
    /// An assignment to a function, method, constant or deallocation word.
    Reserved(Snippet),
    /// A call with the wrong number of arguments.
    ArgumentCount {
        /// The function or method.
        name: &'static str,
        /// The accepted counts, in words.
        accepted: &'static str,
    },
    /// Brackets, calls, vector literals or `?:` branches nested more than
    /// [`super::MAX_NESTING`] levels deep.
    TooDeep,
    /// More than [`super::MAX_PREFIX`] prefix operators (`-`, `!`) in a row.
    TooManyPrefix,
    /// More than [`super::MAX_HEIGHT`] operators (calls, members, ...) on one path from an
    /// expression's root to a value.
    TooTall,
    /// A fixed capacity of the program or the workspace is full.
    Capacity {
        /// What filled up.
        what: &'static str,
        /// Its capacity.
        limit: u32,
    },
    /// An operator applied to operand types the language does not combine.
    Operands {
        /// The operator.
        op: &'static str,
        /// The left (or only) operand's type.
        left: Type,
        /// The right operand's type (`None` for a unary operator).
        right: Option<Type>,
    },
    /// A function or method argument of the wrong type.
    Argument {
        /// The function or method.
        name: &'static str,
        /// The argument's type.
        found: Type,
    },
    /// Element-wise operation on vectors of different lengths.
    VectorLengths {
        /// The left vector's length.
        left: u32,
        /// The right vector's length.
        right: u32,
    },
    /// A function that needs values got an empty list (or `std` fewer than two).
    EmptyVector(&'static str),
    /// A function argument outside the values it accepts (`percentile`'s `p`).
    ArgumentOutOfRange {
        /// The function.
        name: &'static str,
        /// The argument's value.
        value: f64,
        /// The accepted values, in words.
        accepted: &'static str,
    },
    /// `val(v, i)` with `i` outside `v`.
    IndexOutOfRange {
        /// The index (truncated).
        index: f64,
        /// The vector's length.
        len: u32,
    },
    /// `time(s)` with a string that is neither W3C-DTF nor RFC 1123.
    InvalidDateTime(Snippet),
    /// Time arithmetic left the years 0001 to 9999 (or the tick range).
    TimeOutOfRange,
    /// A sampling call's required percentage was not met (Batch's documented failure).
    InsufficientSampleData {
        /// The variable sampled.
        metric: Metric,
        /// The percentage the formula asked for, as written.
        wanted: f64,
        /// The percentage available, rounded down.
        received: u32,
    },
    /// A read-only variable used as a value, with no available sample and no current value.
    NoSample(Metric),
    /// `GetSample(count)` with a count below 1.
    SampleCount,
    /// A target that is not a finite double at the end of the evaluation.
    InvalidTarget(&'static str),
    /// `$NodeDeallocationOption` assigned something other than a deallocation word.
    InvalidDeallocation,
}

impl ErrorKind {
    /// Returns the error code: Batch's where it documents one (`InsufficientSampleData`),
    /// else the simulator's (spec §10.3).
    pub fn code(&self) -> &'static str {
        use ErrorKind::*;
        match self {
            TooLong { .. } => "FormulaTooLong",
            TooManyStatements => "TooManyStatements",
            Expected { .. }
            | UnexpectedChar(_)
            | NumberOutOfRange(_)
            | UnterminatedString
            | TooDeep
            | TooManyPrefix
            | TooTall => "SyntaxError",
            UnknownFunction(_) | UnknownMember(_) | NotSampled(_) | Reserved(_) => {
                "UnknownIdentifier"
            }
            UndefinedVariable(_) => "UndefinedVariable",
            ReadOnly(_) => "ReadOnlyVariable",
            ArgumentCount { .. } => "WrongArgumentCount",
            Capacity { .. } => "CapacityExceeded",
            Operands { .. } | Argument { .. } | VectorLengths { .. } => "TypeMismatch",
            EmptyVector(_) => "EmptyVector",
            IndexOutOfRange { .. } => "IndexOutOfRange",
            ArgumentOutOfRange { .. } => "ArgumentOutOfRange",
            InvalidDateTime(_) | TimeOutOfRange => "InvalidDateTime",
            InsufficientSampleData { .. } | NoSample(_) | SampleCount => "InsufficientSampleData",
            InvalidTarget(_) | InvalidDeallocation => "InvalidTargetValue",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match self {
            TooLong { bytes } => write!(
                f,
                "the formula is {bytes} bytes; the limit is 8 KB ({} bytes)",
                super::MAX_SOURCE_BYTES
            ),
            TooManyStatements => write!(
                f,
                "more than {} statements (the limit)",
                super::MAX_STATEMENTS
            ),
            Expected { what, found } => write!(f, "expected {what} before {found}"),
            UnexpectedChar(s) => write!(f, "unexpected character {s}"),
            NumberOutOfRange(s) => write!(
                f,
                "number {s} is beyond the largest double (about 1.8e308)"
            ),
            UnterminatedString => f.write_str("unterminated string"),
            UnknownFunction(s) => write!(f, "unknown function {s}"),
            UndefinedVariable(s) => write!(f, "variable {s} is read before it is assigned"),
            UnknownMember(s) => write!(f, "unknown member or method {s}"),
            NotSampled(s) => write!(f, "method {s} applies only to read-only service variables"),
            ReadOnly(s) => write!(f, "{s} is a read-only service variable"),
            Reserved(s) => write!(f, "{s} is a reserved word"),
            ArgumentCount { name, accepted } => write!(f, "{name} takes {accepted}"),
            TooDeep => write!(
                f,
                "more than {} levels of nested brackets, calls, vector literals and ?: branches (the limit)",
                super::MAX_NESTING
            ),
            TooManyPrefix => write!(
                f,
                "more than {} prefix operators in a row (the limit)",
                super::MAX_PREFIX
            ),
            TooTall => write!(
                f,
                "more than {} operators on one path from the expression's root to a value (the limit)",
                super::MAX_HEIGHT
            ),
            Capacity { what, limit } => write!(f, "more than {limit} {what} (the limit)"),
            Operands {
                op,
                left,
                right: Some(r),
            } => write!(f, "operator '{op}' does not apply to {left} and {r}"),
            Operands {
                op,
                left,
                right: None,
            } => write!(f, "operator '{op}' does not apply to {left}"),
            Argument { name, found } => write!(f, "{name} does not accept a {found}"),
            VectorLengths { left, right } => {
                write!(f, "vectors of lengths {left} and {right} cannot be combined")
            }
            EmptyVector(name) => write!(f, "{name} of too few values"),
            ArgumentOutOfRange {
                name,
                value,
                accepted,
            } => write!(
                f,
                "{name} takes {accepted}, got {}",
                crate::jsfmt::Num(*value)
            ),
            IndexOutOfRange { index, len } => write!(
                f,
                "index {} is outside a vector of length {len}",
                crate::jsfmt::Num(*index)
            ),
            InvalidDateTime(s) => write!(f, "cannot read {s} as a date and time"),
            TimeOutOfRange => f.write_str("time arithmetic outside the years 0001 to 9999"),
            InsufficientSampleData {
                metric,
                wanted,
                received,
            } => write!(
                f,
                "Insufficient data from data set: {} wanted {}%, received {received}%",
                metric.name(),
                crate::jsfmt::Num(*wanted)
            ),
            NoSample(m) => write!(f, "no sample of {} is available", m.name()),
            SampleCount => f.write_str("GetSample's count must be at least 1"),
            InvalidTarget(name) => write!(f, "{name} is not a finite number"),
            InvalidDeallocation => f.write_str(
                "$NodeDeallocationOption must be requeue, terminate, taskcompletion or retaineddata",
            ),
        }
    }
}

/// A parse or evaluation failure at a 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FormulaError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl fmt::Display for FormulaError {
    /// Writes `line L, col C: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, col {}: {}", self.line, self.col, self.kind)
    }
}

impl core::error::Error for FormulaError {}
