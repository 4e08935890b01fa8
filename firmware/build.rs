//! Puts the board's `memory.x` on the linker's search path.
//!
//! Each target stands for one board (see `src/board.rs`), so the target picks the memory map.
//! The defmt linker script is added only when a defmt logger is linked (`-Tdefmt.x` names a
//! script that the defmt crate provides).

use std::{env, fs, path::PathBuf};

fn main() {
    let target = env::var("TARGET").unwrap_or_default();
    let board = match target.as_str() {
        "thumbv7m-none-eabi" => "lm3s6965evb",
        "thumbv7em-none-eabihf" => "mps2-an386",
        "thumbv6m-none-eabi" => "microbit",
        "riscv32imac-unknown-none-elf" => "riscv-virt",
        other => panic!(
            "no board for target `{other}`: add memory/<board>.x and a board in src/board.rs"
        ),
    };
    println!("cargo::rustc-check-cfg=cfg(board, values(\"lm3s6965evb\", \"mps2-an386\", \"microbit\", \"riscv-virt\"))");
    println!("cargo::rustc-cfg=board=\"{board}\"");

    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let memory = format!("memory/{board}.x");
    fs::copy(&memory, out.join("memory.x")).expect("copy memory.x");
    println!("cargo::rustc-link-search={}", out.display());
    println!("cargo::rerun-if-changed={memory}");
    println!("cargo::rerun-if-changed=build.rs");

    if env::var_os("CARGO_FEATURE_DEFMT").is_some() || env::var_os("CARGO_FEATURE_RTT").is_some() {
        println!("cargo::rustc-link-arg=-Tdefmt.x");
    }
}
