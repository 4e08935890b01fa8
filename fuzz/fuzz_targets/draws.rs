//! `autoscale::run_with` or `bulkhead::run_with` (by `bulkhead`) on arbitrary parameters
//! with draws cycling through 1 to 8 arbitrary bytes (`TableRng`: multiples of 1/256), against
//! the lesson program's port on the same draws.
//!
//! The lesson generators almost never draw 0, a value just below 1, or one equal to the
//! transient-failure probability; here they are common: health checks that always fail or
//! pass, Poisson products that never fall (the arrivals capacity) or fall at once, shuffles at
//! their ends. Capped like `autoscale` and `bulkhead`: at most 1000 rounds.
#![no_main]

use arbitrary::Arbitrary;
use capsim_core::{autoscale, bulkhead, Capacity, Error};
use capsim_fuzz::{Lesson, TableRng};
use libfuzzer_sys::fuzz_target;

const MAX_ROUNDS: u32 = 1000;

#[derive(Debug, Arbitrary)]
struct Input {
    bulkhead: bool,
    autoscale: autoscale::Params<'static>,
    layout: bulkhead::Params,
    /// The draws: the first `1 + len % 8` bytes.
    table: [u8; 8],
    len: u8,
}

fuzz_target!(|input: Input| {
    let table = &input.table[..1 + usize::from(input.len) % 8];
    let draws = || TableRng { table, at: 0 };
    if input.bulkhead {
        let mut p = input.layout;
        if p.horizon > MAX_ROUNDS && p.horizon <= bulkhead::MAX_HORIZON {
            p.horizon = 1 + p.horizon % MAX_ROUNDS;
        }
        let result = bulkhead::run_with(&p, &mut draws(), &mut ());
        if p.validate().is_err() {
            assert!(
                matches!(result, Err(Error::OutOfRange { .. })),
                "{p:?}: {result:?}"
            );
            return;
        }
        match (&result, capsim_fuzz::bulkhead_with(&p, &mut draws())) {
            (Ok(m), Lesson::Metrics(expected)) => assert_eq!(*m, expected, "{p:?} {table:?}"),
            (
                Err(Error::CapacityExceeded {
                    capacity: Capacity::ArrivalsPerRound,
                    ..
                }),
                Lesson::OverCapacity,
            ) => {}
            (_, lesson) => panic!("{p:?} {table:?}\ncore   {result:?}\nlesson {lesson:?}"),
        }
    } else {
        let mut p = input.autoscale;
        if p.rounds > MAX_ROUNDS && p.rounds <= autoscale::MAX_ROUNDS {
            p.rounds = 1 + p.rounds % MAX_ROUNDS;
        }
        let result = autoscale::run_with(&p, &mut draws(), &mut ());
        if p.validate().is_err() {
            assert!(
                matches!(result, Err(Error::OutOfRange { .. })),
                "{p:?}: {result:?}"
            );
            return;
        }
        match (&result, capsim_fuzz::autoscale_with(&p, &mut draws())) {
            (Ok(m), Lesson::Metrics(expected)) => {
                // The lesson's metrics (a model may measure more than the lesson does).
                let lesson = |m: &autoscale::Metrics| {
                    format!(
                        "{:?}",
                        (
                            (m.min_size, m.max_size, m.max_launching),
                            m.max_launching_ratio,
                            (m.under_capacity_rounds, m.launched, m.false_replacements),
                            (m.broken_rounds, m.scaling_actions, m.replacements),
                        )
                    )
                };
                assert_eq!(
                    lesson(m),
                    lesson(&expected),
                    "{p:?} {table:?}\ncore   {m:?}\nlesson {expected:?}"
                );
            }
            (
                Err(Error::CapacityExceeded {
                    capacity: Capacity::GroupSize,
                    ..
                }),
                Lesson::OverCapacity,
            ) => {}
            (_, lesson) => panic!("{p:?} {table:?}\ncore   {result:?}\nlesson {lesson:?}"),
        }
    }
});
