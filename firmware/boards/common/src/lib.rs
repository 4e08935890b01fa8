//! What the real-board images share: the report sink, the suite loop, the step-mode run of
//! the group lesson and the heartbeat.
//!
//! A board gives a [`Serial`] port (where the report's bytes go, besides RTT) and a [`Desk`]
//! (a real timer, and what the class sees: the micro:bit's LED matrix, the Pico's LED). The
//! report is exactly `capsim lesson all` (or `capsim lesson all --lang en`, as the board
//! chooses at run time): each line goes out whole over the serial port and
//! as one `defmt::println!` over RTT. The notes (time per lesson, progress, errors) go only
//! over RTT, as `defmt::info!`/`error!` lines starting with `#`, like the QEMU firmware's.
//! Nothing here allocates: the line buffer and every engine's workspace live on the stack.

#![no_std]

use core::fmt;

use capsim_core::{
    autoscale, bulkhead, consumers,
    lesson::{self, Lesson, LessonError, WindowedOnStack},
    rng::GroupLcg,
    trace, Observer,
};
use heapless::String;

/// Longest report line kept whole (the lessons' longest is under 200 bytes); a longer one
/// goes out in pieces.
const LINE: usize = 256;

/// Microseconds between two heartbeats while a lesson computes: the board never looks
/// frozen for longer than this (plus one simulated round).
pub const HEARTBEAT_US: u64 = 500_000;

/// The serial port the report's bytes go to.
pub trait Serial {
    /// Sends `bytes` (one report line, its `\n` included). A port that nobody listens to
    /// drops them; it never fails the run.
    fn send(&mut self, bytes: &[u8]);
}

/// What a board shows and how it keeps time.
pub trait Desk {
    /// Microseconds since boot, from a real timer.
    fn micros(&mut self) -> u64;
    /// Waits `ms` milliseconds on a real timer.
    fn delay_ms(&mut self, ms: u32);
    /// Shows one round of an auto-scaling group (the group lessons and the step-mode run).
    fn show_group(&mut self, state: &autoscale::RoundState);
    /// Shows that a lesson is still computing: called every [`HEARTBEAT_US`] or so, `beat`
    /// counting up from 1 in each lesson.
    fn heartbeat(&mut self, beat: u32);
}

/// A [`fmt::Write`] that collects one line at a time and sends each finished line over the
/// serial port and RTT.
pub struct Report<S> {
    line: String<LINE>,
    serial: S,
}

impl<S: Serial> Report<S> {
    /// Returns a sink that sends to `serial`.
    pub fn new(serial: S) -> Self {
        Self {
            line: String::new(),
            serial,
        }
    }

    /// The serial port.
    pub fn serial(&mut self) -> &mut S {
        &mut self.serial
    }

    /// Sends out what is collected, finished with its `\n` or not.
    pub fn flush(&mut self) {
        if self.line.is_empty() {
            return;
        }
        self.serial.send(self.line.as_bytes());
        defmt::println!("{=str}", self.line.strip_suffix('\n').unwrap_or(&self.line));
        self.line.clear();
    }

    fn push(&mut self, piece: &str) -> fmt::Result {
        if self.line.push_str(piece).is_ok() {
            return Ok(());
        }
        for c in piece.chars() {
            if self.line.push(c).is_err() {
                self.flush();
                self.line.push(c).map_err(|_| fmt::Error)?;
            }
        }
        Ok(())
    }
}

impl<S: Serial> fmt::Write for Report<S> {
    fn write_str(&mut self, mut s: &str) -> fmt::Result {
        while let Some(end) = s.find('\n') {
            let (line, rest) = s.split_at(end + 1);
            self.push(line)?;
            self.flush();
            s = rest;
        }
        self.push(s)
    }
}

/// Beats the heart every [`HEARTBEAT_US`] and notes the progress over RTT.
struct Heart<'a, D> {
    desk: &'a mut D,
    lesson: &'static str,
    start: u64,
    last: u64,
    beats: u32,
}

impl<'a, D: Desk> Heart<'a, D> {
    fn new(desk: &'a mut D, lesson: &'static str) -> Self {
        let start = desk.micros();
        Self {
            desk,
            lesson,
            start,
            last: start,
            beats: 0,
        }
    }

    /// After each simulated round: one timer read, and a beat when one is due.
    fn round(&mut self, round: u64) {
        let now = self.desk.micros();
        if now.wrapping_sub(self.last) >= HEARTBEAT_US {
            self.last = now;
            self.beats += 1;
            self.desk.heartbeat(self.beats);
            // Once every 4 beats (about 2 s), a note over RTT too.
            if self.beats.is_multiple_of(4) {
                defmt::info!(
                    "# {=str}: running, round {=u64}, {=u64} ms",
                    self.lesson,
                    round,
                    now.wrapping_sub(self.start) / 1000
                );
            }
        }
    }
}

/// The observer of the consumers and bulkhead lessons: the heartbeat only (no per-round
/// state, so the engines keep their fast paths).
struct Beat<'a, D>(Heart<'a, D>);

impl<S: capsim_core::Round, D: Desk> Observer<S> for Beat<'_, D> {
    const ROUNDS: bool = false;

    fn round_done(&mut self, round: u64) {
        self.0.round(round);
    }
}

/// The observer of the group lessons: each round on the desk, and the heartbeat.
struct Show<'a, D>(Heart<'a, D>);

impl<D: Desk> Observer<autoscale::RoundState> for Show<'_, D> {
    fn round(&mut self, state: &autoscale::RoundState) {
        self.0.desk.show_group(state);
    }

    fn round_done(&mut self, round: u64) {
        self.0.round(round);
    }
}

/// The renderer takes an observer of every model; the group lessons run no other (the
/// heartbeat all the same).
impl<D: Desk> Observer<consumers::RoundState> for Show<'_, D> {
    fn round_done(&mut self, round: u64) {
        self.0.round(round);
    }
}

impl<D: Desk> Observer<bulkhead::RoundState> for Show<'_, D> {
    fn round_done(&mut self, round: u64) {
        self.0.round(round);
    }
}

pub use capsim_core::lesson::Lang;

/// Runs the lesson suite in `lang`: the report (exactly `capsim lesson all`, with `--lang en`
/// for [`Lang::En`]) to `out`, the time each lesson took to RTT. Returns the number of
/// lessons that failed.
pub fn run_suite<S: Serial, D: Desk>(out: &mut Report<S>, desk: &mut D, lang: Lang) -> u32 {
    let mut failures = 0;
    let suite_start = desk.micros();
    for lesson in Lesson::ALL {
        let start = desk.micros();
        let ws = &mut WindowedOnStack;
        let result = match lesson {
            Lesson::Group | Lesson::GroupSweep | Lesson::GroupLedger => {
                let show = &mut Show(Heart::new(desk, lesson.name()));
                lesson::render_with_in(lesson, lang, out, ws, show)
            }
            _ => {
                let beat = &mut Beat(Heart::new(desk, lesson.name()));
                lesson::render_with_in(lesson, lang, out, ws, beat)
            }
        };
        out.flush();
        let ms = desk.micros().wrapping_sub(start) / 1000;
        match result {
            Ok(()) => defmt::info!("# time {=str}: {=u64} ms", lesson.name(), ms),
            Err(error) => {
                failures += 1;
                defmt::error!("# error {=str}: {}", lesson.name(), error);
            }
        }
    }
    let ms = desk.micros().wrapping_sub(suite_start) / 1000;
    defmt::info!("# time suite: {=u64} ms, {=u32} failed", ms, failures);
    failures
}

/// The group lesson's run with `threshold` and `cooldown`, one round every `pause_ms`: the
/// rows `capsim trace autoscale --threshold T --cooldown C --format csv` prints, each round
/// on the desk as it is written.
pub fn run_steps<S: Serial, D: Desk>(
    out: &mut Report<S>,
    desk: &mut D,
    threshold: u32,
    cooldown: u32,
    pause_ms: u32,
) -> Result<(), LessonError> {
    let p = autoscale::Params {
        threshold,
        cooldown,
        ..autoscale::Params::default()
    };
    defmt::info!(
        "# step mode: threshold {=u32}, cooldown {=u32}, {=u32} ms a round",
        threshold,
        cooldown,
        pause_ms
    );
    let header = trace::autoscale_header(out);
    let mut steps = Steps {
        out,
        desk,
        pause_ms,
        result: header,
    };
    let run = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut steps);
    let written = steps.result;
    out.flush();
    run.map_err(LessonError::from)?;
    written.map_err(LessonError::from)
}

/// Writes each round as a CSV row, shows it and waits.
struct Steps<'a, S, D> {
    out: &'a mut Report<S>,
    desk: &'a mut D,
    pause_ms: u32,
    result: fmt::Result,
}

impl<S: Serial, D: Desk> Observer<autoscale::RoundState> for Steps<'_, S, D> {
    fn round(&mut self, state: &autoscale::RoundState) {
        let row = trace::autoscale_row(self.out, state);
        if self.result.is_ok() {
            self.result = row;
        }
        self.desk.show_group(state);
        self.desk.delay_ms(self.pause_ms);
    }
}
