//! Stack high-water mark by painting.
//!
//! [`paint`] fills the unused stack, from its bottom (the end of `.bss`) up to just below the
//! current stack pointer, with a pattern; [`peak`] later finds the lowest word that no longer
//! holds it. Everything above that word, including the frames of `main` and of exception
//! handlers, counts as used, so the figure is an upper bound on what the run needed.

/// A word that ordinary data rarely is.
const PATTERN: u32 = 0xDEAD_BEEF;
/// Bytes left unpainted below the stack pointer: room for an exception frame taken while
/// painting (Cortex-M4F with FPU context: 104 bytes) lands on stack that is not painted.
const MARGIN: usize = 128;

extern "C" {
    /// Highest stack address (the initial stack pointer).
    static _stack_start: u32;
}
#[cfg(target_arch = "arm")]
extern "C" {
    /// Lowest stack address (cortex-m-rt: the end of `.bss` and `.uninit`).
    #[link_name = "_stack_end"]
    static STACK_BOTTOM: u32;
}
#[cfg(target_arch = "riscv32")]
extern "C" {
    /// Lowest stack address (riscv-rt: the start of the `.stack` section).
    #[link_name = "__estack"]
    static STACK_BOTTOM: u32;
}

fn top() -> usize {
    core::ptr::addr_of!(_stack_start) as usize
}

fn bottom() -> usize {
    core::ptr::addr_of!(STACK_BOTTOM) as usize
}

fn stack_pointer() -> usize {
    let sp: usize;
    // SAFETY: reads the stack pointer register; no memory is touched.
    unsafe {
        #[cfg(target_arch = "arm")]
        core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags));
        #[cfg(target_arch = "riscv32")]
        core::arch::asm!("mv {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags));
    }
    sp
}

/// Returns the stack size in bytes: from the end of static RAM to the top of RAM.
pub fn size() -> usize {
    top() - bottom()
}

/// Paints the unused stack; `main` calls it before each lesson.
pub fn paint() {
    let end = stack_pointer() - MARGIN;
    let mut at = bottom();
    while at < end {
        // SAFETY: [bottom, sp - MARGIN) is RAM below every live frame; an exception taken
        // meanwhile stacks within the margin.
        unsafe { core::ptr::write_volatile(at as *mut u32, PATTERN) };
        at += 4;
    }
}

/// Returns the deepest stack use since [`paint`], in bytes.
pub fn peak() -> usize {
    let mut at = bottom();
    // SAFETY: reads words of the stack region that lie below the live frames.
    while at < top() && unsafe { core::ptr::read_volatile(at as *const u32) } == PATTERN {
        at += 4;
    }
    top() - at
}
