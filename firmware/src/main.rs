//! capsim firmware: runs the whole lesson suite on a microcontroller and exits.
//!
//! It prints exactly what `capsim lesson all` prints on the host (the report goes over
//! semihosting stdout, or as defmt frames with the `defmt`/`rtt` features), notes the work
//! per lesson and the peak stack on the side (see `report`), and exits through semihosting:
//! status 0 when every lesson ran, 1 after a lesson error, 101 after a panic, 102 after a
//! fault. It links no allocator, uses no `alloc` and has no big static (but the `paths` build:
//! a formula's program and workspace, `paths::FORMULA`): every board runs the consumers lesson
//! with the small-memory engine, its 6.8 KB workspace on that lesson's stack.

#![no_std]
#![no_main]

#[cfg(all(feature = "defmt", feature = "rtt"))]
compile_error!("features `defmt` and `rtt` each link a defmt logger: enable one of them");

#[cfg(feature = "rtt")]
use defmt_rtt as _;
#[cfg(feature = "defmt")]
use defmt_semihosting as _;

// First: the logging macros are visible in the modules declared after it.
mod fmt;

mod board;
mod paths;
mod report;
mod stack;

use capsim_core::{
    autoscale,
    lesson::{self, Lang, Lesson, LessonError, WindowedOnStack},
    rng::GroupLcg,
    Observer,
};
use embedded_hal::{delay::DelayNs, digital::OutputPin};

/// Exit status after a panic.
const PANICKED: i32 = 101;
/// Exit status after a CPU fault or an unexpected exception or interrupt.
const FAULTED: i32 = 102;

#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
#[cfg_attr(target_arch = "riscv32", riscv_rt::entry)]
fn main() -> ! {
    let board::Board { led, mut delay } = board::init();
    let mut out = report::LineWriter::new(led);
    let status = if cfg!(feature = "paths") {
        paths::run(&mut out)
    } else if cfg!(feature = "trace") {
        trace(&mut out, &mut delay)
    } else {
        lessons(&mut out, &mut delay)
    };
    semihosting::process::exit(status)
}

/// Runs the lesson suite; returns the exit status (1 after a lesson error).
fn lessons<P: OutputPin, D: DelayNs>(out: &mut report::LineWriter<P>, delay: &mut D) -> i32 {
    let lang = if cfg!(feature = "english") {
        Lang::En
    } else {
        Lang::Tr
    };
    let mut failures = 0;
    let mut peak = 0;
    for lesson in Lesson::ALL {
        stack::paint();
        let start = board::Mark::now();
        let result =
            lesson::render_with_in(lesson, lang, out, &mut WindowedOnStack, &mut Pace(delay));
        let work = start.instructions_since();
        let flushed = out.flush().map_err(LessonError::from);
        let result = result.and(flushed);
        let stack = stack::peak();
        peak = peak.max(stack);
        match result {
            Ok(()) => report::work(lesson.name(), work, stack),
            Err(error) => {
                report::failed(lesson.name(), &error);
                failures += 1;
            }
        }
    }
    report::stack(board::NAME, peak, stack::size());
    i32::from(failures > 0)
}

/// Paces the simulation in step mode: a pause after each simulated round, so that a class
/// can watch the LED (and a debugger) follow the rounds.
struct Pace<'a, D>(&'a mut D);

impl<S: capsim_core::Round, D: DelayNs> Observer<S> for Pace<'_, D> {
    /// It paces the rounds the engines process and needs no per-round state.
    const ROUNDS: bool = false;

    fn round_done(&mut self, _round: u64) {
        if cfg!(feature = "step-mode") {
            self.0.delay_ms(board::STEP_PAUSE_MS);
        }
    }
}

/// The `trace` feature: prints what `capsim trace autoscale --format csv` prints (the group
/// lesson's run, threshold 2, cooldown 0), through the core's own CSV writer; returns the
/// exit status.
fn trace<P: OutputPin, D: DelayNs>(out: &mut report::LineWriter<P>, delay: &mut D) -> i32 {
    let p = autoscale::Params::default();
    stack::paint();
    let start = board::Mark::now();
    let mut watch = Trace {
        out,
        delay,
        result: Ok(()),
    };
    let header = capsim_core::trace::autoscale_header(watch.out);
    let run = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut watch);
    let written = header.and(watch.result).and(watch.out.flush());
    let result = run
        .map_err(LessonError::from)
        .and(written.map_err(LessonError::from));
    let failed = match result {
        Ok(_) => {
            report::work("trace", start.instructions_since(), stack::peak());
            false
        }
        Err(error) => {
            report::failed("trace", &error);
            true
        }
    };
    report::stack(board::NAME, stack::peak(), stack::size());
    i32::from(failed)
}

/// Writes each round as a CSV row; in step mode, paces the rows and lights the LED for half
/// the pause on each round that launched instances.
struct Trace<'a, P, D> {
    out: &'a mut report::LineWriter<P>,
    delay: &'a mut D,
    result: core::fmt::Result,
}

impl<P: OutputPin, D: DelayNs> Observer<autoscale::RoundState> for Trace<'_, P, D> {
    fn round(&mut self, s: &autoscale::RoundState) {
        let row = capsim_core::trace::autoscale_row(self.out, s);
        if self.result.is_ok() {
            self.result = row;
        }
        self.out.light(s.launched > 0);
        if cfg!(feature = "step-mode") {
            self.delay.delay_ms(board::STEP_PAUSE_MS / 2);
            self.out.light(false);
            self.delay.delay_ms(board::STEP_PAUSE_MS / 2);
        }
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    die(PANICKED, format_args!("{info}"))
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::exception]
unsafe fn HardFault(frame: &cortex_m_rt::ExceptionFrame) -> ! {
    die(
        FAULTED,
        format_args!("HardFault at pc {:#010x}", frame.pc()),
    )
}

/// Any exception or interrupt without a handler of its own (cortex-m-rt's default loops).
#[cfg(target_arch = "arm")]
#[cortex_m_rt::exception]
unsafe fn DefaultHandler(irqn: i16) -> ! {
    die(FAULTED, format_args!("unexpected exception {irqn}"))
}

/// riscv-rt sends every exception and interrupt without a handler of its own here (its
/// default loops).
#[cfg(target_arch = "riscv32")]
#[export_name = "abort"]
fn abort() -> ! {
    let cause = riscv::register::mcause::read().bits();
    let pc = riscv::register::mepc::read();
    die(
        FAULTED,
        format_args!("trap, mcause {cause:#x} at pc {pc:#010x}"),
    )
}

/// Notes what went wrong and exits with `status`, so that a failing run ends red at once.
fn die(status: i32, what: core::fmt::Arguments<'_>) -> ! {
    report::fatal(what);
    semihosting::process::exit(status)
}
