//! The five lesson outputs, byte for byte, against the lessons' own printed tables
//! (`tests/golden/*.out`, copied from the lesson programs' output).

use capsim_core::consumers::Workspace;
use capsim_core::lesson::{render, render_all, Lesson, LESSON_SHIPMENTS};
use capsim_tests::{golden, lesson_workspace, rendered};

/// Returns the lesson's golden output as text.
fn golden_text(lesson: Lesson) -> String {
    String::from_utf8(golden(lesson.name())).expect("golden files are UTF-8")
}

fn assert_same(lesson: Lesson) {
    let (want, got) = (golden_text(lesson), rendered(lesson));
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        assert_eq!(g, w, "{} line {}", lesson.name(), i + 1);
    }
    assert_eq!(got, want, "{}: whole output", lesson.name());
}

#[test]
fn group() {
    assert_same(Lesson::Group);
}

#[test]
fn group_sweep() {
    assert_same(Lesson::GroupSweep);
}

#[test]
fn group_ledger() {
    assert_same(Lesson::GroupLedger);
}

#[test]
fn consumers() {
    assert_same(Lesson::Consumers);
}

#[test]
fn bulkhead() {
    assert_same(Lesson::Bulkhead);
}

#[test]
fn all_is_the_five_in_order() {
    let want: String = Lesson::ALL.into_iter().map(golden_text).collect();
    let mut got = String::new();
    render_all(&mut got, &mut lesson_workspace()).unwrap();
    assert_eq!(got, want);
}

#[test]
fn consumers_renders_the_same_with_any_number_of_lanes() {
    use capsim_core::consumers::DEFAULT_IN_FLIGHT;
    use capsim_core::lesson::LESSON_CONFIGURATIONS;
    let want = golden_text(Lesson::Consumers);
    let mut out = String::new();
    let mut ws = Box::new(Workspace::<
        LESSON_SHIPMENTS,
        DEFAULT_IN_FLIGHT,
        LESSON_CONFIGURATIONS,
    >::new());
    render(Lesson::Consumers, &mut out, &mut ws).unwrap();
    assert_eq!(out, want, "12 lanes");
    let mut out = String::new();
    let mut ws = Box::new(Workspace::<LESSON_SHIPMENTS, 32, 5>::new());
    render(Lesson::Consumers, &mut out, &mut ws).unwrap();
    assert_eq!(out, want, "5 lanes, 32 in flight");
}

#[test]
fn a_small_workspace_fails_only_the_consumers_lesson() {
    let mut ws = Workspace::<100>::new();
    for lesson in Lesson::ALL {
        let mut out = String::new();
        let result = render(lesson, &mut out, &mut ws);
        assert_eq!(
            result.is_err(),
            lesson == Lesson::Consumers,
            "{}",
            lesson.name()
        );
    }
}
