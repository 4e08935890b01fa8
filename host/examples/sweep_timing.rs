//! Times each lesson sweep rendered through capsim-core: warm, on one thread, into a writer
//! that only counts bytes. `host/benches/compare-reference.sh` runs it next to the reference
//! programs under node and prints the ratios.
//!
//! Usage: `sweep_timing [--min-secs S] [SWEEP...]`, SWEEP one of `group_sweep`, `consumers`,
//! `bulkhead` (default: all three). Prints `<sweep> <ms per sweep> <bytes rendered>` per line.

use capsim_core::consumers::{Workspace, DEFAULT_IN_FLIGHT};
use capsim_core::lesson::{render, Lesson, LESSON_CONFIGURATIONS, LESSON_EVENTS, LESSON_SHIPMENTS};
use std::hint::black_box;
use std::time::Instant;

const SWEEPS: [(&str, Lesson); 3] = [
    ("group_sweep", Lesson::GroupSweep),
    ("consumers", Lesson::Consumers),
    ("bulkhead", Lesson::Bulkhead),
];
const WARM_UP: u32 = 5;

/// Counts bytes: rendering without the cost of storing the text.
struct Sink(usize);

impl core::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// What `capsim lesson` uses: one lane per consumers configuration.
type Ws = Workspace<LESSON_SHIPMENTS, DEFAULT_IN_FLIGHT, LESSON_CONFIGURATIONS, LESSON_EVENTS>;

/// Renders `lesson` `n` times and returns the seconds taken and the bytes of one render.
fn batch(lesson: Lesson, n: u64, ws: &mut Ws) -> (f64, usize) {
    let mut sink = Sink(0);
    let start = Instant::now();
    for _ in 0..n {
        render(black_box(lesson), &mut sink, ws).expect("render");
    }
    let secs = start.elapsed().as_secs_f64();
    (secs, black_box(sink.0) / n as usize)
}

/// Warms up, then times one batch lasting at least `min_secs`; returns ms per sweep and bytes.
fn time(lesson: Lesson, min_secs: f64, ws: &mut Ws) -> (f64, usize) {
    batch(lesson, WARM_UP.into(), ws);
    let mut n = 1;
    loop {
        let (secs, bytes) = batch(lesson, n, ws);
        if secs >= min_secs {
            return (secs * 1e3 / n as f64, bytes);
        }
        // Aim 10% past the target from the last rate; at least double when the batch was tiny.
        let per = secs / n as f64;
        n = if secs < 0.05 {
            n * 2
        } else {
            ((min_secs * 1.1 / per) as u64).max(n + 1)
        };
    }
}

fn main() {
    let mut min_secs = 1.0;
    let mut chosen = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--min-secs" {
            let v = args.next().expect("--min-secs needs a value");
            min_secs = v.parse().expect("--min-secs: not a number");
        } else if let Some(&s) = SWEEPS.iter().find(|(name, _)| *name == a) {
            chosen.push(s);
        } else {
            eprintln!("unknown sweep {a:?}; expected group_sweep, consumers or bulkhead");
            std::process::exit(2);
        }
    }
    if chosen.is_empty() {
        chosen = SWEEPS.to_vec();
    }
    let mut ws = Box::new(Ws::new());
    for (name, lesson) in chosen {
        let (ms, bytes) = time(lesson, min_secs, &mut ws);
        println!("{name} {ms:.6} {bytes}");
    }
}
