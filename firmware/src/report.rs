//! Where the report and the notes go.
//!
//! The report (the lessons' printed text) goes out line by line: plain bytes on semihosting
//! stdout, or one defmt `println!` per line with the `defmt`/`rtt` features. The notes (work
//! per lesson, peak stack, errors) start with `#` and go through the logging shim (`fmt`): to
//! semihosting stderr, or to defmt `info!`/`error!`, so they never mix with the report that is
//! compared with the host's.

use core::fmt;
use embedded_hal::digital::OutputPin;
use heapless::String;

use crate::fmt::Show;

/// Longest report line kept whole (the lessons' longest is under 200 bytes); a longer one
/// goes out in pieces, which the byte-for-byte comparison would catch under defmt.
const LINE: usize = 256;

/// A [`fmt::Write`] that collects one line at a time, sends each finished line out and
/// toggles the activity LED for it.
pub struct LineWriter<P> {
    line: String<LINE>,
    led: P,
    lit: bool,
    /// Set by [`LineWriter::light`]: the caller drives the LED.
    own_led: bool,
    #[cfg(not(any(feature = "defmt", feature = "rtt")))]
    stdout: Option<semihosting::io::Stdout>,
}

impl<P: OutputPin> LineWriter<P> {
    /// Returns a writer that blinks `led`.
    pub fn new(led: P) -> Self {
        Self {
            line: String::new(),
            led,
            lit: false,
            own_led: false,
            #[cfg(not(any(feature = "defmt", feature = "rtt")))]
            stdout: semihosting::io::stdout().ok(),
        }
    }

    /// Lights or darkens the LED, and stops the per-line toggling (the trace blinks it on
    /// launches instead).
    pub fn light(&mut self, on: bool) {
        self.own_led = true;
        // The LED pins of this firmware are infallible.
        let _ = if on {
            self.led.set_high()
        } else {
            self.led.set_low()
        };
    }

    /// Sends out what is collected, finished with its `\n` or not; fails if stdout does.
    pub fn flush(&mut self) -> fmt::Result {
        if self.line.is_empty() {
            return Ok(());
        }
        #[cfg(not(any(feature = "defmt", feature = "rtt")))]
        {
            use semihosting::io::Write as _;
            let stdout = self.stdout.as_mut().ok_or(fmt::Error)?;
            stdout
                .write_all(self.line.as_bytes())
                .map_err(|_| fmt::Error)?;
        }
        #[cfg(any(feature = "defmt", feature = "rtt"))]
        defmt::println!("{=str}", self.line.strip_suffix('\n').unwrap_or(&self.line));
        if self.line.ends_with('\n') && !self.own_led {
            self.lit = !self.lit;
            // The LED pins of this firmware are infallible.
            let _ = if self.lit {
                self.led.set_high()
            } else {
                self.led.set_low()
            };
        }
        self.line.clear();
        Ok(())
    }

    fn push(&mut self, piece: &str) -> fmt::Result {
        if self.line.push_str(piece).is_ok() {
            return Ok(());
        }
        for c in piece.chars() {
            if self.line.push(c).is_err() {
                self.flush()?;
                self.line.push(c).map_err(|_| fmt::Error)?;
            }
        }
        Ok(())
    }
}

impl<P: OutputPin> fmt::Write for LineWriter<P> {
    fn write_str(&mut self, mut s: &str) -> fmt::Result {
        while let Some(end) = s.find('\n') {
            let (line, rest) = s.split_at(end + 1);
            self.push(line)?;
            self.flush()?;
            s = rest;
        }
        self.push(s)
    }
}

/// Notes the instructions and the peak stack one lesson took.
pub fn work(lesson: &str, instructions: u64, stack: usize) {
    info!(
        "# work {}: {} instructions, stack {} bytes",
        lesson, instructions, stack
    );
}

/// Notes the peak stack use.
pub fn stack(board: &str, peak: usize, size: usize) {
    info!("# stack {}: peak {} bytes of {}", board, peak, size);
}

/// Notes that a lesson did not run to its end.
pub fn failed(lesson: &str, error: &capsim_core::lesson::LessonError) {
    error!("# error {}: {}", lesson, error);
}

/// Notes a fault or panic just before the firmware exits with a failure status.
pub fn fatal(what: fmt::Arguments<'_>) {
    error!("# fatal: {}", Show(what));
}
