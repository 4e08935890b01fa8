//! The capsim lesson suite on a Raspberry Pi Pico (RP2040, Cortex-M0+ at 125 MHz).
//!
//! The Pico shows up as a USB serial port (usb-device and usbd-serial on rp2040-hal's USB
//! bus, polled by the `USBCTRL_IRQ` interrupt, so enumeration goes on while a lesson
//! computes). When a terminal opens the port (it sets DTR), or 5 s after reset without one
//! (for RTT alone), it runs the whole suite: the report (exactly `capsim lesson all`) over
//! the port and over RTT (`defmt-rtt`, for `probe-rs`), the time each lesson took to RTT.
//! The on-board LED (GPIO25) changes every half second while a lesson computes, so the board
//! never looks frozen.
//!
//! Then step mode: the group lesson's run (threshold 2, cooldown 0), one round every
//! [`STEP_MS`] on the hardware timer, its rows those of `capsim trace autoscale --format
//! csv`, the LED lit on each round that launches instances. Closing and opening the
//! terminal again, or typing a key in it, runs everything again: `e` in English (`capsim
//! lesson all --lang en`), `t` in Turkish, any other key in the same language as before.
//! The image built with the feature `english` (`pico-en.uf2`) starts in English.
//!
//! The LED's signal also drives GPIO15 (pin 20), for an LED wired there: a Pico W's own
//! LED hangs off its wireless chip (CYW43439), not GPIO25, and stays dark in this image.

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
use embedded_hal::{delay::DelayNs, digital::OutputPin};
use rp2040_hal::{
    self as hal,
    pac::{self, interrupt},
    usb::UsbBus,
    Timer,
};
use usb_device::{
    bus::UsbBusAllocator,
    device::{StringDescriptors, UsbDevice, UsbDeviceBuilder, UsbVidPid},
    UsbError,
};
use usbd_serial::SerialPort;

/// The second-stage bootloader for the Pico's W25Q16JV flash, first in the image.
#[link_section = ".boot2"]
#[used]
pub static BOOT2: [u8; 256] = rp2040_boot2::BOOT_LOADER_W25Q080;

/// The Pico's crystal.
const XTAL_HZ: u32 = 12_000_000;
/// Milliseconds between two rounds in step mode: 240 rounds take 24 s.
const STEP_MS: u32 = 100;
/// Microseconds to wait for a terminal after reset before running for RTT alone.
const WAIT_FOR_TERMINAL_US: u64 = 5_000_000;
/// Microseconds a line waits for a host that stopped reading before it is dropped.
const STALL_US: u64 = 1_000_000;

/// The USB device and its serial port, shared by `main` and the USB interrupt.
static USB: Mutex<RefCell<Option<Usb>>> = Mutex::new(RefCell::new(None));
/// Bytes typed in the terminal (counted by the USB interrupt, which discards them).
static KEYS: AtomicU32 = AtomicU32::new(0);
/// The last byte typed in the terminal.
static LAST_KEY: AtomicU32 = AtomicU32::new(0);
/// The language of the first run: English in the `english` build (`pico-en.uf2`).
const FIRST_LANG: Lang = if cfg!(feature = "english") {
    Lang::En
} else {
    Lang::Tr
};

struct Usb {
    device: UsbDevice<'static, UsbBus>,
    serial: SerialPort<'static, UsbBus>,
}

impl Usb {
    /// Answers the host and counts what it sent.
    fn poll(&mut self) {
        if self.device.poll(&mut [&mut self.serial]) {
            let mut buf = [0; 16];
            if let Ok(n) = self.serial.read(&mut buf) {
                if let Some(&last) = buf[..n].last() {
                    LAST_KEY.store(u32::from(last), Ordering::Relaxed);
                }
                let n = u32::try_from(n).unwrap_or(u32::MAX);
                KEYS.store(
                    KEYS.load(Ordering::Relaxed).wrapping_add(n),
                    Ordering::Relaxed,
                );
            }
        }
    }
}

#[interrupt]
fn USBCTRL_IRQ() {
    cortex_m::interrupt::free(|cs| {
        if let Some(usb) = USB.borrow(cs).borrow_mut().as_mut() {
            usb.poll();
        }
    });
}

/// Whether a terminal holds the port open (it set DTR).
fn terminal_open() -> bool {
    cortex_m::interrupt::free(|cs| {
        USB.borrow(cs)
            .borrow()
            .as_ref()
            .is_some_and(|usb| usb.serial.dtr())
    })
}

/// The USB serial port: bytes go out while a terminal holds it open, and are dropped
/// otherwise (or after [`STALL_US`] without progress), so the suite never waits for ever.
struct UsbSerial {
    timer: Timer,
}

impl Serial for UsbSerial {
    fn send(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        let mut since = self.timer.get_counter().ticks();
        while !rest.is_empty() {
            let sent = cortex_m::interrupt::free(|cs| {
                let mut usb = USB.borrow(cs).borrow_mut();
                let usb = usb.as_mut()?;
                if !usb.serial.dtr() {
                    return None;
                }
                match usb.serial.write(rest) {
                    Ok(n) => Some(n),
                    Err(UsbError::WouldBlock) => Some(0),
                    Err(_) => None,
                }
            });
            let now = self.timer.get_counter().ticks();
            match sent {
                None => return,
                Some(0) if now - since > STALL_US => return,
                // Give the USB interrupt a moment (about 8 µs) to hand the host a packet.
                Some(0) => cortex_m::asm::delay(1000),
                Some(n) => {
                    rest = &rest[n..];
                    since = now;
                }
            }
        }
    }
}

/// The timer, the on-board LED and its copy on GPIO15.
struct PicoDesk<L, X> {
    timer: Timer,
    led: L,
    /// GPIO15 (pin 20): the same signal, for an LED and resistor wired to it (a Pico W's
    /// on-board LED is on its wireless chip).
    external: X,
}

impl<L: OutputPin, X: OutputPin> PicoDesk<L, X> {
    fn light(&mut self, on: bool) {
        // RP2040 GPIO pins are infallible.
        let _ = if on {
            self.led.set_high()
        } else {
            self.led.set_low()
        };
        let _ = if on {
            self.external.set_high()
        } else {
            self.external.set_low()
        };
    }
}

impl<L: OutputPin, X: OutputPin> Desk for PicoDesk<L, X> {
    fn micros(&mut self) -> u64 {
        self.timer.get_counter().ticks()
    }

    fn delay_ms(&mut self, ms: u32) {
        self.timer.delay_ms(ms);
    }

    fn show_group(&mut self, s: &RoundState) {
        self.light(s.launched > 0);
    }

    fn heartbeat(&mut self, beat: u32) {
        self.light(beat % 2 == 1);
    }
}

#[rp2040_hal::entry]
fn main() -> ! {
    let Some(mut p) = pac::Peripherals::take() else {
        halt("peripherals taken twice")
    };
    let mut watchdog = hal::Watchdog::new(p.WATCHDOG);
    let Ok(clocks) = hal::clocks::init_clocks_and_plls(
        XTAL_HZ,
        p.XOSC,
        p.CLOCKS,
        p.PLL_SYS,
        p.PLL_USB,
        &mut p.RESETS,
        &mut watchdog,
    ) else {
        halt("clocks did not start")
    };
    let timer = Timer::new(p.TIMER, &mut p.RESETS, &clocks);
    let sio = hal::Sio::new(p.SIO);
    let pins = hal::gpio::Pins::new(p.IO_BANK0, p.PADS_BANK0, sio.gpio_bank0, &mut p.RESETS);
    let mut desk = PicoDesk {
        timer,
        led: pins.gpio25.into_push_pull_output(),
        external: pins.gpio15.into_push_pull_output(),
    };

    let Some(bus) = cortex_m::singleton!(: UsbBusAllocator<UsbBus> = UsbBusAllocator::new(
        UsbBus::new(p.USBCTRL_REGS, p.USBCTRL_DPRAM, clocks.usb_clock, true, &mut p.RESETS),
    )) else {
        halt("USB bus taken twice")
    };
    let bus: &'static UsbBusAllocator<UsbBus> = bus;
    let serial = SerialPort::new(bus);
    let strings = StringDescriptors::default()
        .manufacturer("capsim")
        .product("capsim lesson suite")
        .serial_number("pico");
    // pid.codes' test VID/PID for CDC-ACM serial ports.
    let Ok(builder) = UsbDeviceBuilder::new(bus, UsbVidPid(0x16c0, 0x27dd)).strings(&[strings])
    else {
        halt("USB strings")
    };
    let device = builder.device_class(usbd_serial::USB_CLASS_CDC).build();
    cortex_m::interrupt::free(|cs| USB.borrow(cs).replace(Some(Usb { device, serial })));
    // SAFETY: the handler only takes USB inside a critical section.
    unsafe { pac::NVIC::unmask(pac::Interrupt::USBCTRL_IRQ) };

    let mut out = Report::new(UsbSerial { timer });
    let mut lang = FIRST_LANG;
    // Reset: wait for a terminal, blinking at 2 Hz; without one, run for RTT after 5 s.
    let start = desk.micros();
    while !terminal_open() && desk.micros() - start < WAIT_FOR_TERMINAL_US {
        let on = (desk.micros() - start) / 250_000 % 2 == 0;
        desk.light(on);
        desk.delay_ms(10);
    }
    loop {
        defmt::info!("# pico: the lesson suite");
        run_suite(&mut out, &mut desk, lang);
        if let Err(error) = run_steps(&mut out, &mut desk, 2, 0, STEP_MS) {
            defmt::error!("# error step mode: {}", error);
        }
        // Done: a short blink every 2 s until the terminal reopens or a key comes.
        defmt::info!("# done: reopen the terminal or type a key to run again");
        let keys = KEYS.load(Ordering::Relaxed);
        let mut was_open = terminal_open();
        loop {
            let open = terminal_open();
            if (open && !was_open) || KEYS.load(Ordering::Relaxed) != keys {
                match char::from_u32(LAST_KEY.load(Ordering::Relaxed)) {
                    Some('e' | 'E') => lang = Lang::En,
                    Some('t' | 'T') => lang = Lang::Tr,
                    _ => {}
                }
                break;
            }
            was_open = open;
            let on = desk.micros() / 100_000 % 20 == 0;
            desk.light(on);
            desk.delay_ms(10);
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
    loop {
        cortex_m::asm::wfi();
    }
}
