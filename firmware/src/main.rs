//! capsim firmware: runs the whole lesson suite on a microcontroller and exits.
//!
//! It prints exactly what `capsim lesson all` prints on the host (the report goes over
//! semihosting stdout, or as defmt frames with the `defmt`/`rtt` features), notes the work
//! per lesson and the peak stack on the side (see `report`), and exits through semihosting:
//! status 0 when every lesson ran, 1 after a lesson error, 101 after a panic, 102 after a
//! fault. It links no allocator and uses no `alloc`; the one big buffer, the consumers
//! lesson's workspace, is a static.

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
mod report;
mod stack;

use capsim_core::{
    consumers::Workspace,
    lesson::{self, Lesson, LessonError},
    Error, Observer,
};
use embedded_hal::delay::DelayNs;
use static_cell::ConstStaticCell;

/// Exit status after a panic.
const PANICKED: i32 = 101;
/// Exit status after a CPU fault or an unexpected exception or interrupt.
const FAULTED: i32 = 102;

#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
#[cfg_attr(target_arch = "riscv32", riscv_rt::entry)]
fn main() -> ! {
    let board::Board { led, mut delay } = board::init();
    let workspace = workspace();
    let mut out = report::LineWriter::new(led);
    let mut failures = 0;
    let mut peak = 0;
    for lesson in Lesson::ALL {
        stack::paint();
        let start = board::Mark::now();
        let result = lesson::render_observed(lesson, &mut out, workspace, &mut Pace(&mut delay));
        let work = start.instructions_since();
        let flushed = out.flush().map_err(LessonError::from);
        let result = result.and(flushed);
        let stack = stack::peak();
        peak = peak.max(stack);
        match result {
            Ok(()) => report::work(lesson.name(), work, stack),
            Err(error) => {
                report::failed(lesson.name(), &error);
                if !board_too_small(&error) {
                    failures += 1;
                }
            }
        }
    }
    report::stack(board::NAME, peak, stack::size());
    semihosting::process::exit(if failures == 0 { 0 } else { 1 })
}

/// Returns the consumers lesson's workspace, a static in `.bss` (a few bytes per shipment),
/// built in place (`Workspace::new` is const: it never passes through the stack).
fn workspace() -> &'static mut Workspace<{ board::SHIPMENTS }, { board::IN_FLIGHT }> {
    static WORKSPACE: ConstStaticCell<Workspace<{ board::SHIPMENTS }, { board::IN_FLIGHT }>> =
        ConstStaticCell::new(Workspace::new());
    // `main` calls this once; a second call would panic (exit 101), not alias.
    WORKSPACE.take()
}

/// Returns whether `error` is the one this board expects: a workspace too small for a lesson.
fn board_too_small(error: &LessonError) -> bool {
    board::SHIPMENTS < lesson::LESSON_SHIPMENTS
        && matches!(error, LessonError::Model(Error::CapacityExceeded { .. }))
}

/// Paces the simulation in step mode: a pause after each simulated round, so that a class
/// can watch the LED (and a debugger) follow the rounds.
struct Pace<'a, D>(&'a mut D);

impl<D: DelayNs> Observer for Pace<'_, D> {
    fn round_done(&mut self, _round: u64) {
        if cfg!(feature = "step-mode") {
            self.0.delay_ms(board::STEP_PAUSE_MS);
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
