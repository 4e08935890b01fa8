//! Input files read with a bound: at most the limit plus one byte, never the whole file.
//!
//! Every flag that takes a file (`capsim formula check|eval FILE`, `capsim autoscale
//! --formula FILE`, and any later one such as a demand file) reads it through
//! [`read_bounded`], so `/dev/zero` or a 1 GB file ends at once with one line, and a
//! directory, a FIFO, a socket or a missing file is one clear line too. The caller turns the
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
    /// Opening or reading failed (permission denied, I/O error).
    Io {
        /// The path as given.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
}

impl fmt::Display for InputError {
    /// Writes `PATH: reason`, one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Missing { path } => write!(f, "{}: no such file", path.display()),
            InputError::NotAFile { path, what } => {
                write!(f, "{}: is {what}, not a file", path.display())
            }
            InputError::TooLong { path, limit } => write!(
                f,
                "{}: longer than the limit of {limit} bytes",
                path.display()
            ),
            InputError::NotUtf8 { path } => write!(f, "{}: not UTF-8 text", path.display()),
            InputError::Io { path, error } => {
                write!(f, "{}: cannot read: {error}", path.display())
            }
        }
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

/// Reads the UTF-8 text of the file at `path`, reading at most `limit + 1` bytes.
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
    let file = std::fs::File::open(path).map_err(|error| InputError::Io {
        path: owned(),
        error,
    })?;
    let mut bytes = Vec::with_capacity(limit.min(1 << 16) + 1);
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
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

/// Runs `f` with a file at `path` holding `text`: while it runs, [`read_bounded`] of that
/// exact path on this thread reads `text` (with the same limit and errors as a file of those
/// bytes) instead of the file system. The playground's `formula-text` is such a file, so a
/// text in the address bar is read, parsed and named exactly as a file of that text is by
/// the command line.
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
