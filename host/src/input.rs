//! Input files read with a bound: at most the limit plus one byte, never the whole file.
//!
//! Every flag that takes a file (`capsim formula check|eval FILE`, `capsim autoscale
//! --formula FILE`, `--demand-file FILE`, `capsim summary FILE…`) reads it through
//! [`read_bounded`] (a whole small file) or [`open`] and [`BoundedLines`] (a file read line
//! by line), so `/dev/zero` or a 1 GB file ends at once with one line, and a directory, a
//! FIFO, a socket or a missing file is one clear line too. `-` is standard input (read
//! with the same bound; a pipe there is what `-` is for), at most once a process: a second
//! `-` is refused ([`InputError::StdinTaken`]) rather than read as an empty file. The caller turns the
//! [`InputError`] into its flag's message (its `Display` is `PATH: what went wrong`).
//!
//! ```
//! use capsim::input::{read_bounded, InputError};
//! let dir = std::env::temp_dir();
//! let e = read_bounded(&dir, 8192).unwrap_err();
//! assert!(matches!(e, InputError::NotAFile { .. }));
//! assert!(e.to_string().ends_with("is a directory, not a file"));
//! ```

use std::cell::RefCell;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a bounded read failed.
#[derive(Debug)]
pub enum InputError {
    /// Nothing at the path.
    Missing {
        /// The path as given.
        path: PathBuf,
    },
    /// A directory, FIFO, socket or other non-file: not read (a FIFO with no writer would
    /// block the read forever).
    NotAFile {
        /// The path as given.
        path: PathBuf,
        /// What it is instead, e.g. `a directory`.
        what: &'static str,
    },
    /// A regular file of `len` bytes, over the `limit`: refused before it is read.
    TooBig {
        /// The path as given.
        path: PathBuf,
        /// The file's length.
        len: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file has more than `limit` bytes (only `limit + 1` were read).
    TooLong {
        /// The path as given.
        path: PathBuf,
        /// The limit in bytes.
        limit: usize,
    },
    /// The bytes are not UTF-8.
    NotUtf8 {
        /// The path as given.
        path: PathBuf,
    },
    /// Standard input (`-`) was already read by an earlier `-` of the same process: a
    /// command reads it once.
    StdinTaken {
        /// The path as given (`-`).
        path: PathBuf,
    },
    /// Opening or reading failed (permission denied, I/O error).
    Io {
        /// The path as given.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
}

impl InputError {
    /// The path as given.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Missing { path }
            | InputError::NotAFile { path, .. }
            | InputError::TooBig { path, .. }
            | InputError::TooLong { path, .. }
            | InputError::NotUtf8 { path }
            | InputError::StdinTaken { path }
            | InputError::Io { path, .. } => path,
        }
    }

    /// What went wrong, without the path (`no such file`).
    pub fn reason(&self) -> String {
        match self {
            InputError::Missing { .. } => "no such file".to_string(),
            InputError::NotAFile { what, .. } => format!("is {what}, not a file"),
            InputError::TooBig { len, limit, .. } => {
                format!("{len} bytes; at most {limit} are accepted")
            }
            InputError::TooLong { limit, .. } => format!("longer than the limit of {limit} bytes"),
            InputError::NotUtf8 { .. } => "not UTF-8 text".to_string(),
            InputError::StdinTaken { .. } => {
                "standard input is read once, and an earlier - has read it".to_string()
            }
            InputError::Io { error, .. }
                if error.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                "permission denied".to_string()
            }
            InputError::Io { error, .. } => format!("cannot read: {error}"),
        }
    }
}

impl fmt::Display for InputError {
    /// Writes `PATH: reason`, one line (`<stdin>` for `-`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", display_name(self.path()), self.reason())
    }
}

impl std::error::Error for InputError {}

/// What a non-file is, in words (`None` for a regular file or a character device such as
/// `/dev/zero` or a terminal, which are read).
fn kind_of(meta: &std::fs::Metadata) -> Option<&'static str> {
    let ft = meta.file_type();
    if ft.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
        if ft.is_block_device() {
            return Some("a block device");
        }
    }
    None
}

/// The name of standard input in messages, as compilers print it.
pub const STDIN_NAME: &str = "<stdin>";

/// Returns whether `path` is `-`, standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether a `-` of this process has read standard input (a second `-` would read nothing
/// and could pass for an empty file, so it is refused).
static STDIN_TAKEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Claims standard input for the `-` at `path`; refuses a second claim.
fn claim_stdin(path: &Path) -> Result<(), InputError> {
    if STDIN_TAKEN.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return Err(InputError::StdinTaken {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// Returns the name to print for `path`: [`STDIN_NAME`] for `-`, else the path as given.
pub fn display_name(path: &Path) -> String {
    if is_stdin(path) {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

/// An error at a place in a file, as compilers print it so that editors jump to it:
/// `PATH:LINE:COL: error: message` ([`STDIN_NAME`] for `-`), the whole line (printed without
/// the `error: ` other messages start with: see [`is_located`]).
pub fn located(path: &Path, line: u32, col: u32, message: &dyn fmt::Display) -> String {
    format!("{}:{line}:{col}: error: {message}", display_name(path))
}

/// Returns whether `line` is an error as [`located`] writes it (`PATH:L:C: error: …`).
pub fn is_located(line: &str) -> bool {
    let Some((head, _)) = line.split_once(": error: ") else {
        return false;
    };
    let mut parts = head.rsplitn(3, ':');
    let number =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    number(parts.next()) && number(parts.next()) && parts.next().is_some_and(|p| !p.is_empty())
}

/// Reads the UTF-8 text of the file at `path` (`-`: standard input), reading at most
/// `limit + 1` bytes.
///
/// Refuses, before opening, a directory, a FIFO, a socket and a block device; reads
/// regular files and character devices (`/dev/zero` ends after `limit + 1` bytes with
/// [`InputError::TooLong`]). A file of exactly `limit` bytes is read whole.
pub fn read_bounded(path: &Path, limit: usize) -> Result<String, InputError> {
    let owned = || path.to_path_buf();
    if let Some(text) = given(path) {
        if text.len() > limit {
            return Err(InputError::TooLong {
                path: owned(),
                limit,
            });
        }
        return Ok(text);
    }
    let mut bytes = Vec::new();
    let read = if is_stdin(path) {
        claim_stdin(path)?;
        std::io::stdin()
            .lock()
            .take(limit as u64 + 1)
            .read_to_end(&mut bytes)
    } else {
        metadata_of(path)?;
        bytes.reserve(limit.min(1 << 16) + 1);
        open_file(path)?
            .take(limit as u64 + 1)
            .read_to_end(&mut bytes)
    };
    read.map_err(|error| InputError::Io {
        path: owned(),
        error,
    })?;
    if bytes.len() > limit {
        return Err(InputError::TooLong {
            path: owned(),
            limit,
        });
    }
    String::from_utf8(bytes).map_err(|_| InputError::NotUtf8 { path: owned() })
}

/// Returns the metadata of the file at `path`, refusing what is not a file to read
/// ([`kind_of`]: a directory, a FIFO, a socket, a block device) before it is opened.
fn metadata_of(path: &Path) -> Result<std::fs::Metadata, InputError> {
    let owned = || path.to_path_buf();
    let meta = std::fs::metadata(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => InputError::Missing { path: owned() },
        _ => InputError::Io {
            path: owned(),
            error,
        },
    })?;
    if let Some(what) = kind_of(&meta) {
        return Err(InputError::NotAFile {
            path: owned(),
            what,
        });
    }
    Ok(meta)
}

/// Opens the file at `path` for reading.
fn open_file(path: &Path) -> Result<std::fs::File, InputError> {
    std::fs::File::open(path).map_err(|error| InputError::Io {
        path: path.to_path_buf(),
        error,
    })
}

thread_local! {
    /// The texts [`with_file`] gives, by path (innermost last).
    static GIVEN: RefCell<Vec<(PathBuf, String)>> = const { RefCell::new(Vec::new()) };
}

/// Returns the text [`with_file`] gives for `path`, if it gives one on this thread.
fn given(path: &Path) -> Option<String> {
    GIVEN.with(|g| {
        g.borrow()
            .iter()
            .rev()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.clone())
    })
}

/// Runs `f` with a file at `path` holding `text`: while it runs, [`read_bounded`] and
/// [`open`] of that exact path on this thread read `text` (with the same limit and errors as
/// a regular file of those bytes) instead of the file system. The playground's
/// `formula-text` is such a file, so a text in the address bar is read, parsed and named
/// exactly as a file of that text is by the command line; so are the Python package's
/// formula texts and demand curves.
///
/// ```
/// use capsim::input::{read_bounded, with_file};
/// let path = std::path::Path::new("no/such/dir/editor.formula");
/// let read = with_file(path, "$TargetDedicatedNodes = 1;", || read_bounded(path, 8192));
/// assert_eq!(read.unwrap(), "$TargetDedicatedNodes = 1;");
/// assert!(read_bounded(path, 8192).is_err());
/// ```
pub fn with_file<R>(path: &Path, text: &str, f: impl FnOnce() -> R) -> R {
    /// Takes the text away again, even if `f` unwinds.
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            GIVEN.with(|g| g.borrow_mut().pop());
        }
    }
    GIVEN.with(|g| g.borrow_mut().push((path.to_path_buf(), text.to_string())));
    let _pop = Pop;
    f()
}

/// Opens `path` (`-`: standard input) for a read of at most `limit` bytes: refuses a
/// directory, a FIFO, a socket or a block device as [`read_bounded`] does, and a regular
/// file longer than `limit` before reading it ([`InputError::TooBig`]); the reader returned
/// stops after `limit + 1` bytes, so [`BoundedLines`] can tell an input over the limit.
pub fn open(path: &Path, limit: u64) -> Result<Box<dyn Read>, InputError> {
    let owned = || path.to_path_buf();
    if let Some(text) = given(path) {
        let len = text.len() as u64;
        if len > limit {
            return Err(InputError::TooBig {
                path: owned(),
                len,
                limit,
            });
        }
        return Ok(Box::new(std::io::Cursor::new(text.into_bytes())));
    }
    if is_stdin(path) {
        claim_stdin(path)?;
        return Ok(Box::new(std::io::stdin().take(limit.saturating_add(1))));
    }
    let meta = metadata_of(path)?;
    if meta.is_file() && meta.len() > limit {
        return Err(InputError::TooBig {
            path: owned(),
            len: meta.len(),
            limit,
        });
    }
    let file = open_file(path)?;
    Ok(Box::new(file.take(limit.saturating_add(1))))
}

/// Why a line could not be read ([`BoundedLines`]); `Display` is `line N: what` (or the
/// whole input's limit).
#[derive(Debug)]
pub enum LineError {
    /// The input has more than `limit` bytes.
    TooLong {
        /// The limit in bytes.
        limit: u64,
    },
    /// Line `number` is longer than `max` bytes.
    LineTooLong {
        /// The 1-based line number.
        number: usize,
        /// The longest line accepted, in bytes.
        max: usize,
    },
    /// Line `number` is not UTF-8.
    NotUtf8 {
        /// The 1-based line number.
        number: usize,
    },
    /// Reading line `number` failed.
    Io {
        /// The 1-based line number.
        number: usize,
        /// The operating system's error.
        error: std::io::Error,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong { limit } => write!(f, "more than {limit} bytes"),
            LineError::LineTooLong { number, max } => {
                write!(f, "line {number}: longer than {max} bytes")
            }
            LineError::NotUtf8 { number } => write!(f, "line {number}: not UTF-8 text"),
            LineError::Io { number, error } => write!(f, "line {number}: {error}"),
        }
    }
}

impl std::error::Error for LineError {}

/// Lines of an input, read with two bounds: at most `limit` bytes in all (the input should
/// stop after `limit + 1`, as [`open`]'s reader does) and `max_line` bytes a line; a line's
/// end (`\n`, `\r\n`) is not part of it.
pub struct BoundedLines<R> {
    reader: std::io::BufReader<R>,
    line: Vec<u8>,
    read: u64,
    limit: u64,
    max_line: usize,
    number: usize,
}

impl<R: Read> BoundedLines<R> {
    /// Reads `input`'s lines, at most `limit` bytes in all and `max_line` bytes a line.
    pub fn new(input: R, limit: u64, max_line: usize) -> Self {
        Self {
            reader: std::io::BufReader::new(input),
            line: Vec::new(),
            read: 0,
            limit,
            max_line,
            number: 0,
        }
    }

    /// Returns the next line and its 1-based number, or `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(usize, &str)>, LineError> {
        use std::io::BufRead;
        self.line.clear();
        let n = (&mut self.reader)
            .take(self.max_line as u64 + 1)
            .read_until(b'\n', &mut self.line)
            .map_err(|error| LineError::Io {
                number: self.number + 1,
                error,
            })?;
        if n == 0 {
            return Ok(None);
        }
        self.read += n as u64;
        if self.read > self.limit {
            return Err(LineError::TooLong { limit: self.limit });
        }
        self.number += 1;
        let number = self.number;
        if self.line.len() > self.max_line && !self.line.ends_with(b"\n") {
            return Err(LineError::LineTooLong {
                number,
                max: self.max_line,
            });
        }
        let text = std::str::from_utf8(&self.line)
            .map_err(|_| LineError::NotUtf8 { number })?
            .trim_end_matches(['\n', '\r']);
        Ok(Some((number, text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_stop_at_their_bounds() {
        let mut l = BoundedLines::new("ab\r\ncd\n\nef".as_bytes(), 100, 8);
        let mut got = Vec::new();
        while let Some((n, t)) = l.next_line().unwrap() {
            got.push((n, t.to_string()));
        }
        let want = [(1, "ab"), (2, "cd"), (3, ""), (4, "ef")];
        assert_eq!(got, want.map(|(n, t)| (n, t.to_string())));
        // 10 bytes accepted: the 11th ends the read, however long the input.
        let long = std::io::repeat(b'1').take(1 << 30);
        let mut l = BoundedLines::new(long, 10, 1 << 20);
        assert_eq!(l.next_line().unwrap_err().to_string(), "more than 10 bytes");
        // A line of exactly `max_line` bytes is read; one more is refused.
        let mut l = BoundedLines::new("12345678\n123456789\n".as_bytes(), 100, 8);
        assert_eq!(l.next_line().unwrap(), Some((1, "12345678")));
        assert_eq!(
            l.next_line().unwrap_err().to_string(),
            "line 2: longer than 8 bytes"
        );
        let mut l = BoundedLines::new(&b"ok\n\xff\n"[..], 100, 8);
        l.next_line().unwrap();
        assert_eq!(
            l.next_line().unwrap_err().to_string(),
            "line 2: not UTF-8 text"
        );
    }

    #[test]
    fn located_errors_are_recognised() {
        for yes in [
            "a.formula:4:24: error: x",
            "<stdin>:1:1: error: y",
            "C:/f:2:3: error: z",
        ] {
            assert!(is_located(yes), "{yes}");
        }
        for no in [
            "error: a: line 1, col 2: x",
            "a:4: error: x",
            ":1:2: error: x",
            "a:1:x: error: y",
            "a:1:2: warning: y",
        ] {
            assert!(!is_located(no), "{no}");
        }
    }

    /// A text [`with_file`] gives is what [`open`] reads at that path, with a regular
    /// file's limit; the file system's file of that name is not read.
    #[test]
    fn open_reads_a_given_text() {
        let path = Path::new("Cargo.toml");
        let read = |limit| -> Result<String, InputError> {
            let mut text = String::new();
            open(path, limit)?.read_to_string(&mut text).unwrap();
            Ok(text)
        };
        with_file(path, "1\n2\n", || {
            assert_eq!(read(4).unwrap(), "1\n2\n");
            assert!(matches!(
                read(3),
                Err(InputError::TooBig {
                    len: 4,
                    limit: 3,
                    ..
                })
            ));
        });
        assert!(read(1 << 20).unwrap().contains("[package]"));
    }

    #[test]
    fn stdin_is_named_as_compilers_name_it() {
        assert!(is_stdin(Path::new("-")));
        assert!(!is_stdin(Path::new("./-")));
        assert_eq!(display_name(Path::new("-")), "<stdin>");
        assert_eq!(display_name(Path::new("a/b.formula")), "a/b.formula");
    }
}
