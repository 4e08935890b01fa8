//! Board glue: the only module that knows addresses and clocks.
//!
//! The rest of the firmware sees an activity LED ([`OutputPin`]), a delay ([`DelayNs`]) and a
//! work counter ([`Mark`]). Porting to another board means implementing those two traits for
//! it, writing its `memory/<board>.x`, and naming it in `build.rs`, which maps each target to
//! one board and sets `cfg(board = "...")`.
//!
//! The work counter counts executed instructions exactly when QEMU runs with `-icount
//! shift=0`, where the emulated clock advances one nanosecond per instruction. On Cortex-M it
//! counts SysTick ticks of the core clock and converts them (exact to one tick: 40 to 80
//! instructions); on RISC-V it reads `minstret`, which QEMU derives from the same count.

use core::convert::Infallible;
use embedded_hal::{
    delay::DelayNs,
    digital::{ErrorType, OutputPin},
};

pub use this::{Led, NAME};

/// Milliseconds to pause after each simulated round with the `step-mode` feature: 200, or
/// `CAPSIM_STEP_PAUSE_MS` at build time (decimal; the script's QEMU run of step mode uses 2).
pub const STEP_PAUSE_MS: u32 = match option_env!("CAPSIM_STEP_PAUSE_MS") {
    Some(ms) => parse_ms(ms.as_bytes()),
    None => 200,
};

/// Parses a decimal `u32` at compile time; anything else fails the build.
const fn parse_ms(digits: &[u8]) -> u32 {
    assert!(!digits.is_empty(), "CAPSIM_STEP_PAUSE_MS is empty");
    let mut value: u32 = 0;
    let mut i = 0;
    while i < digits.len() {
        assert!(
            digits[i].is_ascii_digit(),
            "CAPSIM_STEP_PAUSE_MS is not decimal"
        );
        let Some(v) = value.checked_mul(10) else {
            panic!("CAPSIM_STEP_PAUSE_MS is over 2^32 - 1")
        };
        let Some(v) = v.checked_add((digits[i] - b'0') as u32) else {
            panic!("CAPSIM_STEP_PAUSE_MS is over 2^32 - 1")
        };
        value = v;
        i += 1;
    }
    value
}

/// The board's peripherals, behind `embedded-hal` traits.
pub struct Board {
    /// Toggled once per finished report line.
    pub led: Led,
    /// Paces step mode.
    pub delay: Delay,
}

/// Takes the board's peripherals and starts its tick counter; call once.
pub fn init() -> Board {
    clock::start();
    Board {
        led: this::led(),
        delay: Delay,
    }
}

/// A busy-wait delay on the board's free-running tick counter, or, where that counter does
/// not advance (the real nRF51822 has no SysTick, so it reads 0 for ever), on a counted loop
/// of core clock cycles: step mode never waits for ever.
pub struct Delay;

impl DelayNs for Delay {
    fn delay_ns(&mut self, ns: u32) {
        let wait = (u64::from(ns) * this::TICK_HZ).div_ceil(1_000_000_000);
        let start = clock::ticks();
        if !(0..1000).any(|_| clock::ticks() != start) {
            clock::spin(wait);
            return;
        }
        let end = start + wait;
        while clock::ticks() < end {}
    }
}

/// A reading of the work counter.
#[derive(Clone, Copy)]
pub struct Mark(u64);

impl Mark {
    /// Returns the counter now.
    pub fn now() -> Self {
        Mark(clock::work())
    }

    /// Returns the instructions executed since `self`. Reads the counter before converting,
    /// so that the conversion (a software division on Cortex-M0) is not counted.
    pub fn instructions_since(self) -> u64 {
        clock::instructions(clock::work() - self.0)
    }
}

/// Cortex-M: pins are register writes, the clock is SysTick.
#[cfg(target_arch = "arm")]
mod arm {
    use super::{ErrorType, Infallible, OutputPin};

    /// An output pin that is one register write per level: `(address, value)` for each.
    pub struct MmioPin {
        pub high: (usize, u32),
        pub low: (usize, u32),
    }

    impl ErrorType for MmioPin {
        type Error = Infallible;
    }

    impl OutputPin for MmioPin {
        fn set_high(&mut self) -> Result<(), Infallible> {
            // SAFETY: the board's `led()` built this pin from its GPIO registers.
            unsafe { write_reg(self.high.0, self.high.1) };
            Ok(())
        }

        fn set_low(&mut self) -> Result<(), Infallible> {
            // SAFETY: as in `set_high`.
            unsafe { write_reg(self.low.0, self.low.1) };
            Ok(())
        }
    }

    /// Writes one word to a device register.
    ///
    /// # Safety
    /// `addr` must be a writable register of this board.
    pub unsafe fn write_reg(addr: usize, value: u32) {
        // SAFETY: the caller names a device register; volatile because writes act.
        unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
    }

    /// SysTick counts down from 2^24 - 1 on the core clock; its exception counts the wraps,
    /// so `ticks` is a 64-bit count of core clock ticks.
    pub mod clock {
        use core::sync::atomic::{AtomicU32, Ordering};
        use cortex_m::peripheral::{syst::SystClkSource, SCB, SYST};

        const RELOAD: u32 = (1 << 24) - 1;
        /// Written only by the SysTick exception (load and store: Cortex-M0 has no atomic add).
        static WRAPS: AtomicU32 = AtomicU32::new(0);

        #[cortex_m_rt::exception]
        fn SysTick() {
            WRAPS.store(WRAPS.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }

        pub fn start() {
            // SAFETY: only `init` touches SysTick, once.
            let mut syst = unsafe { cortex_m::Peripherals::steal() }.SYST;
            syst.set_clock_source(SystClkSource::Core);
            syst.set_reload(RELOAD);
            syst.clear_current();
            syst.enable_interrupt();
            syst.enable_counter();
            // The cleared counter reads 0 until its first reload, which is not a wrap. Bounded:
            // a chip without SysTick (the real nRF51822) reads 0 for ever.
            for _ in 0..1000 {
                if SYST::get_current() != 0 {
                    break;
                }
            }
        }

        pub fn ticks() -> u64 {
            loop {
                let wraps = WRAPS.load(Ordering::Relaxed);
                let current = SYST::get_current();
                // A wrap whose exception has not been taken yet still counts.
                let pending = SCB::is_pendst_pending() && current > RELOAD / 2;
                if WRAPS.load(Ordering::Relaxed) == wraps {
                    let wraps = u64::from(wraps) + u64::from(pending);
                    return (wraps << 24) + u64::from(RELOAD - current);
                }
            }
        }

        pub fn work() -> u64 {
            ticks()
        }

        /// Busy-waits about `ticks` core clock cycles without a clock to read.
        pub fn spin(ticks: u64) {
            for _ in 0..ticks >> 31 {
                cortex_m::asm::delay(1 << 31);
            }
            cortex_m::asm::delay((ticks & 0x7FFF_FFFF) as u32);
        }

        /// Under `-icount shift=0` a tick of `TICK_HZ` is `1e9 / TICK_HZ` instructions.
        pub fn instructions(ticks: u64) -> u64 {
            ticks * 1_000_000_000 / super::super::this::TICK_HZ
        }
    }
}

/// RISC-V: the clock is the CLINT's `mtime`, the work counter `minstret`.
#[cfg(target_arch = "riscv32")]
mod riscv32 {
    pub mod clock {
        pub fn start() {}

        /// Reads the CLINT's 64-bit `mtime`, its high half twice so that a carry between the
        /// halves is never seen.
        pub fn ticks() -> u64 {
            const MTIME: usize = 0x0200_BFF8;
            loop {
                // SAFETY: QEMU virt's CLINT; mtime is readable in machine mode.
                let (hi, lo, hi2) = unsafe {
                    (
                        core::ptr::read_volatile((MTIME + 4) as *const u32),
                        core::ptr::read_volatile(MTIME as *const u32),
                        core::ptr::read_volatile((MTIME + 4) as *const u32),
                    )
                };
                if hi == hi2 {
                    return (u64::from(hi) << 32) | u64::from(lo);
                }
            }
        }

        pub fn work() -> u64 {
            riscv::register::minstret::read64()
        }

        /// `mtime` always advances on QEMU virt: never called there.
        pub fn spin(wait: u64) {
            let end = wait.saturating_add(ticks());
            while ticks() < end {}
        }

        pub fn instructions(retired: u64) -> u64 {
            retired
        }
    }
}

#[cfg(target_arch = "arm")]
use arm::clock;
#[cfg(target_arch = "riscv32")]
use riscv32::clock;

#[cfg(board = "lm3s6965evb")]
mod this {
    use super::arm::{write_reg, MmioPin};

    pub const NAME: &str = "lm3s6965evb";
    /// Core clock after reset (QEMU: the 200 MHz PLL divided by 16, from the RCC reset value).
    pub const TICK_HZ: u64 = 12_500_000;
    pub type Led = MmioPin;

    /// The EVB's status LED, on port F pin 0.
    pub fn led() -> Led {
        const RCGC2: usize = 0x400F_E108;
        const GPIOF: usize = 0x4002_5000;
        // SAFETY: clock gate, direction and digital enable of GPIO port F.
        unsafe {
            write_reg(RCGC2, 1 << 5);
            write_reg(GPIOF + 0x400, 1);
            write_reg(GPIOF + 0x51C, 1);
        }
        // Address bits 9:2 mask the data register: offset 1 << 2 reaches pin 0 alone.
        MmioPin {
            high: (GPIOF + 4, 1),
            low: (GPIOF + 4, 0),
        }
    }
}

#[cfg(board = "mps2-an386")]
mod this {
    use super::arm::MmioPin;

    pub const NAME: &str = "mps2-an386";
    /// The FPGA clock that drives the Cortex-M4.
    pub const TICK_HZ: u64 = 25_000_000;
    pub type Led = MmioPin;

    /// LED 0: bit 0 of the FPGA I/O LED register.
    pub fn led() -> Led {
        const FPGAIO_LED: usize = 0x4002_8000;
        MmioPin {
            high: (FPGAIO_LED, 1),
            low: (FPGAIO_LED, 0),
        }
    }
}

#[cfg(board = "microbit")]
mod this {
    use super::arm::{write_reg, MmioPin};

    pub const NAME: &str = "microbit";
    /// nRF51822 HCLK. QEMU gives this Cortex-M0 a SysTick; the real chip has none, so on a
    /// real micro:bit the work figures read 0 and step mode's delay counts cycles instead.
    pub const TICK_HZ: u64 = 16_000_000;
    pub type Led = MmioPin;

    /// The matrix's top-left LED: row 1 (P0.13) driven high while column 1 (P0.4) is low.
    pub fn led() -> Led {
        const P0: usize = 0x5000_0000;
        const OUTSET: usize = P0 + 0x508;
        const OUTCLR: usize = P0 + 0x50C;
        const DIRSET: usize = P0 + 0x518;
        const ROW1: u32 = 1 << 13;
        const COL1: u32 = 1 << 4;
        // SAFETY: direction and output registers of GPIO port 0.
        unsafe {
            write_reg(DIRSET, ROW1 | COL1);
            write_reg(OUTCLR, ROW1 | COL1);
        }
        MmioPin {
            high: (OUTSET, ROW1),
            low: (OUTCLR, ROW1),
        }
    }
}

#[cfg(board = "riscv-virt")]
mod this {
    use super::{ErrorType, Infallible, OutputPin};

    pub const NAME: &str = "riscv-virt";
    /// The CLINT's `mtime` rate.
    pub const TICK_HZ: u64 = 10_000_000;
    pub type Led = NoLed;

    /// QEMU virt has no LED: a pin that goes nowhere.
    pub struct NoLed;

    impl ErrorType for NoLed {
        type Error = Infallible;
    }

    impl OutputPin for NoLed {
        fn set_high(&mut self) -> Result<(), Infallible> {
            Ok(())
        }

        fn set_low(&mut self) -> Result<(), Infallible> {
            Ok(())
        }
    }

    pub fn led() -> Led {
        NoLed
    }
}
