//! The formula parser and evaluator on arbitrary text.
//!
//! Checks: nothing panics (debug assertions and overflow checks on); every parse or
//! evaluation error points at a line and column inside the input; parsing stays within the
//! program's capacities; two evaluations in fresh workspaces agree (targets, deallocation,
//! results string); a successful results string always lists `$NodeDeallocationOption`; a
//! board's smaller capacities (`BoundedProgram<64>`, `BoundedWorkspace<256>`) change an
//! outcome only into a capacity error naming their limit.
#![no_main]

use std::sync::OnceLock;

use capsim_core::formula::{
    evaluate, BoundedProgram, BoundedWorkspace, ErrorKind, FormulaError, History, Inputs, Metric,
    Program, Timestamp, Workspace, MAX_NODES, MAX_STATEMENTS, MAX_VARIABLES,
};
use libfuzzer_sys::fuzz_target;

/// Two hours of samples of every metric, every fifth missing, ending at `now()`.
fn history() -> &'static History {
    static H: OnceLock<Box<History>> = OnceLock::new();
    H.get_or_init(|| {
        let mut h: Box<History> = Box::default();
        let last = now().ticks().div_euclid(300_000_000);
        for k in last - 239..=last {
            if k % 5 != 0 {
                let at = Timestamp::from_ticks(k * 300_000_000).unwrap();
                for m in Metric::ALL {
                    h.record(at, m, (k % 23) as f64 / 8.0).unwrap();
                }
            }
        }
        h
    })
}

fn now() -> Timestamp {
    Timestamp::parse("2016-10-13T19:18:47.805Z").unwrap()
}

/// Asserts that `e` points at a line of `src` and at most one column past its end.
fn within(src: &str, e: &FormulaError) {
    // Lines end at \n, \r\n or a lone \r.
    let unified = src.replace("\r\n", "\n").replace('\r', "\n");
    let line = unified
        .split('\n')
        .nth(e.line as usize - 1)
        .unwrap_or_else(|| panic!("{e}: no such line in {src:?}"));
    assert!(
        e.col >= 1 && e.col as usize <= line.chars().count() + 1,
        "{e}: {line:?}"
    );
    let _ = e.to_string();
}

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let mut program = Box::new(Program::new());
    let mut small = Box::new(BoundedProgram::<64>::new());
    let small_parse = small.parse(&src);
    if let Err(e) = program.parse(&src) {
        within(&src, &e);
        assert!(small_parse.is_err(), "{e}: the small program accepted it");
        return;
    }
    if let Err(e) = &small_parse {
        assert_eq!(
            e.kind,
            ErrorKind::Capacity {
                what: "expression nodes",
                limit: 64
            },
            "{e}"
        );
    }
    assert!(program.statements() <= MAX_STATEMENTS);
    assert!(program.nodes() <= MAX_NODES);
    assert!(program.user_variables() <= MAX_VARIABLES);
    let mut inputs = Inputs::new(now(), history());
    inputs.current[Metric::CurrentDedicatedNodes as usize] = Some(10.0);
    inputs.target_dedicated = 4.0;
    let mut first = Box::new(Workspace::new(3));
    let mut second = Box::new(Workspace::new(3));
    let a = evaluate(&program, &inputs, &mut first);
    if small_parse.is_ok() {
        let mut tiny = Box::new(BoundedWorkspace::<256>::new(3));
        let c = evaluate(&small, &inputs, &mut tiny);
        let a_text = a.as_ref().map(|o| o.to_string()).map_err(|e| e.to_string());
        match c {
            Ok(c) => assert_eq!(Ok(c.to_string()), a_text),
            Err(e) if matches!(e.kind, ErrorKind::Capacity { limit: 256, .. }) => {}
            Err(e) => assert_eq!(Err(e.to_string()), a_text),
        }
    }
    let b = evaluate(&program, &inputs, &mut second);
    match (a, b) {
        (Ok(a), Ok(b)) => {
            let text = a.to_string();
            assert_eq!(text, b.to_string());
            assert_eq!(
                (a.dedicated, a.low_priority, a.deallocation),
                (b.dedicated, b.low_priority, b.deallocation)
            );
            // Printed as first written: service names ignore case.
            assert!(
                text.to_ascii_lowercase()
                    .contains("$nodedeallocationoption="),
                "{text}"
            );
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string()); // (an index may be NaN: compare text)
            within(&src, &a);
            let _ = first.results(&program).to_string();
        }
        (a, b) => panic!("not deterministic: {:?} vs {:?}", a.err(), b.err()),
    }
});
