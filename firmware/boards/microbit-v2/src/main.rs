//! The capsim lesson suite on a BBC micro:bit v2 (nRF52833, Cortex-M4F at 64 MHz).
//!
//! At reset it runs the whole suite: the report (exactly `capsim lesson all`) goes over the
//! USB serial port (UARTE0 at 115200 baud to the interface chip, which bridges it to USB) and
//! over RTT (`defmt-rtt`, for `probe-rs`); the time each lesson took goes to RTT. The 5 × 5
//! matrix shows each group round as two bars (rows 1–2: the group's size, rows 3–4: the
//! instances the demand requires, one LED for 4 instances) and lights row 5 on a round whose
//! health check replaced an instance or whose launch failed; during the other lessons a
//! light runs along row 5, one step every half second, so the board never looks frozen.
//!
//! Then step mode: button A sets the health threshold (1 to 5, shown on row 1), button B
//! the cooldown (0 to 4, shown on row 5), and two seconds after the last press the group
//! lesson runs with them, one round every [`STEP_MS`] on the TIMER0 delay, its rows those of
//! `capsim trace autoscale --threshold T --cooldown C --format csv`, each shown on the
//! matrix as it is written.
//!
//! Pins: nrf-rs/microbit, `microbit-common/src/v2/gpio.rs` (rows P0.21, P0.22, P0.15, P0.24,
//! P0.19, active high; columns P0.28, P0.11, P0.31, P1.05, P0.30, active low; buttons A P0.14
//! and B P0.23, low when pressed; UART TX P0.06, RX P1.08).

#![no_std]
#![no_main]

use core::{
    cell::RefCell,
    sync::atomic::{AtomicU32, Ordering},
};

use capsim_boards_common::{run_steps, run_suite, Desk, Lang, Report, Serial};
use capsim_core::autoscale::RoundState;
use cortex_m::interrupt::Mutex;
use defmt_rtt as _;
use embedded_hal::{
    delay::DelayNs,
    digital::{InputPin, OutputPin},
};
use nrf52833_hal::{
    self as hal,
    gpio::{p0, p1, Input, Level, Output, Pin, PullUp, PushPull},
    pac::{self, interrupt, TIMER0, TIMER1, TIMER2, UARTE0},
    timer::{Periodic, Timer},
    uarte::{self, Baudrate, Parity, Uarte},
};

/// Milliseconds between two rounds in step mode: 240 rounds take 24 s.
const STEP_MS: u32 = 100;
/// Instances one LED of a bar stands for (the lesson's groups need 6 to 18).
const PER_LED: u32 = 4;

/// The frame the display interrupt shows: bit `5 * row + column` lights that LED.
static FRAME: AtomicU32 = AtomicU32::new(0);
/// The display's pins and its refresh timer, owned by the `TIMER2` interrupt.
static MATRIX: Mutex<RefCell<Option<Matrix>>> = Mutex::new(RefCell::new(None));

/// The LED matrix, one row lit at a time, 1 ms each (a 200 Hz frame).
struct Matrix {
    rows: [Pin<Output<PushPull>>; 5],
    cols: [Pin<Output<PushPull>>; 5],
    timer: Timer<TIMER2, Periodic>,
    row: usize,
}

impl Matrix {
    /// Darkens the lit row, then lights the next one's LEDs of `frame`.
    fn next_row(&mut self, frame: u32) {
        // The nRF GPIO pins are infallible.
        let _ = self.rows[self.row].set_low();
        self.row = (self.row + 1) % 5;
        for (c, col) in self.cols.iter_mut().enumerate() {
            let _ = if frame >> (5 * self.row + c) & 1 == 1 {
                col.set_low()
            } else {
                col.set_high()
            };
        }
        let _ = self.rows[self.row].set_high();
    }
}

#[interrupt]
fn TIMER2() {
    cortex_m::interrupt::free(|cs| {
        if let Some(matrix) = MATRIX.borrow(cs).borrow_mut().as_mut() {
            matrix.timer.reset_event();
            matrix.next_row(FRAME.load(Ordering::Relaxed));
        }
    });
}

/// Lights the first `n` (at most 5) LEDs of `row`.
/// The letter E on the matrix: rows 1, 3 and 5 lit, the left column between them.
const LETTER_E: u32 = 0b11111 | 1 << 5 | 0b11111 << 10 | 1 << 15 | 0b11111 << 20;
/// The letter T on the matrix: row 1 lit, the middle column below it.
const LETTER_T: u32 = 0b11111 | 1 << 7 | 1 << 12 | 1 << 17 | 1 << 22;

fn bar(row: u32, n: u32) -> u32 {
    ((1 << n.min(5)) - 1) << (5 * row)
}

/// UARTE0 to the interface chip: the USB serial port.
struct Uart(Uarte<UARTE0>);

impl Serial for Uart {
    fn send(&mut self, bytes: &[u8]) {
        // The report's line buffer is in RAM (EasyDMA reads RAM only) and under its 64 KiB
        // limit; the UART has no receiver to wait for, so a failure can only be a bug.
        let _ = self.0.write(bytes);
    }
}

/// The timers and the buttons.
struct MicrobitDesk {
    delay: Timer<TIMER0>,
    clock: Timer<TIMER1, Periodic>,
    /// The 1 MHz counter's last reading and wraps (every 71 minutes), for a 64-bit clock.
    last: u32,
    wraps: u32,
    button_a: Pin<Input<PullUp>>,
    button_b: Pin<Input<PullUp>>,
}

impl Desk for MicrobitDesk {
    fn micros(&mut self) -> u64 {
        let now = self.clock.read();
        if now < self.last {
            self.wraps += 1;
        }
        self.last = now;
        (u64::from(self.wraps) << 32) | u64::from(now)
    }

    fn delay_ms(&mut self, ms: u32) {
        self.delay.delay_ms(ms);
    }

    fn show_group(&mut self, s: &RoundState) {
        let size = s.size.div_ceil(PER_LED);
        let required = u32::try_from(s.required.max(0))
            .unwrap_or(u32::MAX)
            .div_ceil(PER_LED);
        let mut frame = bar(0, size) | bar(1, size) | bar(2, required) | bar(3, required);
        if s.replaced > 0 || s.failed > 0 {
            frame |= bar(4, 5);
        }
        FRAME.store(frame, Ordering::Relaxed);
    }

    fn heartbeat(&mut self, beat: u32) {
        FRAME.store(1 << (20 + beat % 5), Ordering::Relaxed);
    }
}

impl MicrobitDesk {
    /// Whether button A and button B are down (they pull their pins low).
    fn buttons(&mut self) -> (bool, bool) {
        (
            self.button_a.is_low().unwrap_or(false),
            self.button_b.is_low().unwrap_or(false),
        )
    }

    /// Shows the step mode's settings and waits for presses: A steps the threshold through
    /// 1 to 5, B the cooldown through 0 to 4; returns two seconds after the last press.
    fn choose(&mut self, threshold: &mut u32, cooldown: &mut u32) {
        // A button still held from reset (the language choice) is not a press.
        let mut was = self.buttons();
        let mut last_press: Option<u64> = None;
        loop {
            FRAME.store(bar(0, *threshold) | bar(4, *cooldown), Ordering::Relaxed);
            let now = self.micros();
            if last_press.is_some_and(|t| now - t >= 2_000_000) {
                return;
            }
            let down = self.buttons();
            if down.0 && !was.0 {
                *threshold = *threshold % 5 + 1;
                last_press = Some(now);
            }
            if down.1 && !was.1 {
                *cooldown = (*cooldown + 1) % 5;
                last_press = Some(now);
            }
            was = down;
            // Polling every 20 ms also debounces.
            self.delay.delay_ms(20);
        }
    }
}

#[cortex_m_rt::entry]
fn main() -> ! {
    let Some(p) = pac::Peripherals::take() else {
        halt("peripherals taken twice")
    };
    // The crystal: the UART's baud rate needs its accuracy.
    let _clocks = hal::Clocks::new(p.CLOCK).enable_ext_hfosc();
    let p0 = p0::Parts::new(p.P0);
    let p1 = p1::Parts::new(p.P1);

    let uart = Uarte::new(
        p.UARTE0,
        uarte::Pins {
            txd: p0.p0_06.into_push_pull_output(Level::High).degrade(),
            rxd: p1.p1_08.into_floating_input().degrade(),
            cts: None,
            rts: None,
        },
        Parity::EXCLUDED,
        Baudrate::BAUD115200,
    );

    let mut display = Timer::periodic(p.TIMER2);
    display.enable_interrupt();
    display.start(1_000u32);
    let matrix = Matrix {
        rows: [
            p0.p0_21.into_push_pull_output(Level::Low).degrade(),
            p0.p0_22.into_push_pull_output(Level::Low).degrade(),
            p0.p0_15.into_push_pull_output(Level::Low).degrade(),
            p0.p0_24.into_push_pull_output(Level::Low).degrade(),
            p0.p0_19.into_push_pull_output(Level::Low).degrade(),
        ],
        cols: [
            p0.p0_28.into_push_pull_output(Level::High).degrade(),
            p0.p0_11.into_push_pull_output(Level::High).degrade(),
            p0.p0_31.into_push_pull_output(Level::High).degrade(),
            p1.p1_05.into_push_pull_output(Level::High).degrade(),
            p0.p0_30.into_push_pull_output(Level::High).degrade(),
        ],
        timer: display,
        row: 0,
    };
    cortex_m::interrupt::free(|cs| MATRIX.borrow(cs).replace(Some(matrix)));
    // SAFETY: the handler only takes MATRIX inside a critical section.
    unsafe { pac::NVIC::unmask(pac::Interrupt::TIMER2) };

    let mut clock = Timer::periodic(p.TIMER1);
    clock.start(u32::MAX);
    let mut desk = MicrobitDesk {
        delay: Timer::new(p.TIMER0),
        clock,
        last: 0,
        wraps: 0,
        button_a: p0.p0_14.into_pullup_input().degrade(),
        button_b: p0.p0_23.into_pullup_input().degrade(),
    };
    let mut out = Report::new(Uart(uart));

    // Button A held at reset (or while plugging in): the suite in English, exactly
    // `capsim lesson all --lang en`; otherwise in Turkish, as the lessons print it. The
    // matrix shows the choice for a second: E or T.
    desk.delay.delay_ms(20);
    let (lang, letter) = if desk.buttons().0 {
        (Lang::En, LETTER_E)
    } else {
        (Lang::Tr, LETTER_T)
    };
    FRAME.store(letter, Ordering::Relaxed);
    desk.delay.delay_ms(1000);

    defmt::info!("# microbit-v2: the lesson suite");
    run_suite(&mut out, &mut desk, lang);

    let (mut threshold, mut cooldown) = (2, 0);
    loop {
        defmt::info!("# step mode: A threshold, B cooldown; runs 2 s after the last press");
        desk.choose(&mut threshold, &mut cooldown);
        let mut note = heapless::String::<64>::new();
        // 64 bytes hold the note.
        let _ = core::fmt::write(
            &mut note,
            format_args!("# threshold {threshold}, cooldown {cooldown}\n"),
        );
        out.serial().send(note.as_bytes());
        if let Err(error) = run_steps(&mut out, &mut desk, threshold, cooldown, STEP_MS) {
            defmt::error!("# error step mode: {}", error);
        }
    }
}

/// Stops here with a note over RTT (no semihosting on a board without a debugger).
fn halt(what: &str) -> ! {
    defmt::error!("# fatal: {=str}", what);
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    defmt::error!("# fatal: {}", defmt::Display2Format(info));
    FRAME.store(bar(0, 5) | bar(4, 5) | 0b10001 << 10, Ordering::Relaxed);
    loop {
        cortex_m::asm::wfi();
    }
}
