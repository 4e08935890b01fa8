//! The real-board images (`firmware/boards/common`) run the lessons with observers the QEMU
//! boards do not: the group lessons observed round by round (the micro:bit's matrix shows
//! each round) and the others paced (the heartbeat). Their report must still be the lessons'
//! bytes, `tests/golden/*.out`, and the engines must call the observer as they go, or the
//! board's heartbeat never comes.

use capsim_core::autoscale::RoundState;
use capsim_core::lesson::{render_with, Lesson, WindowedOnStack};
use capsim_core::{bulkhead, consumers, Observer};

/// As the boards' group observer: every round's state (so the plan takes the reference engine).
#[derive(Default)]
struct Shown {
    states: u64,
    rounds: u64,
    largest: u32,
}

impl Observer<RoundState> for Shown {
    fn round(&mut self, state: &RoundState) {
        self.states += 1;
        self.largest = self.largest.max(state.size);
    }

    fn round_done(&mut self, _round: u64) {
        self.rounds += 1;
    }
}

/// The lessons' renderer takes an observer of every model: the group lessons run no other.
impl Observer<consumers::RoundState> for Shown {}

impl Observer<bulkhead::RoundState> for Shown {}

/// As the boards' heartbeat: `round_done` only, no per-round state (the fast paths stay).
#[derive(Default)]
struct Beat(u64);

impl<S: capsim_core::Round> Observer<S> for Beat {
    const ROUNDS: bool = false;

    fn round_done(&mut self, _round: u64) {
        self.0 += 1;
    }
}

#[test]
fn group_lessons_observed_round_by_round_print_the_golden_bytes() {
    for lesson in [Lesson::Group, Lesson::GroupSweep, Lesson::GroupLedger] {
        let mut out = String::new();
        let mut shown = Shown::default();
        render_with(lesson, &mut out, &mut WindowedOnStack, &mut shown).unwrap();
        assert!(
            out.as_bytes() == capsim_tests::golden(lesson.name()),
            "{}",
            lesson.name()
        );
        // Every run of the lesson is 240 rounds ("240 tur", its first line), each shown once.
        assert!(
            shown.states > 0 && shown.states.is_multiple_of(240),
            "{}: {}",
            lesson.name(),
            shown.states
        );
        assert_eq!(shown.rounds, shown.states, "{}", lesson.name());
        assert!(shown.largest > 0, "{}: no instance shown", lesson.name());
    }
}

#[test]
fn paced_lessons_print_the_golden_bytes_and_report_their_rounds() {
    for lesson in Lesson::ALL {
        let mut out = String::new();
        let mut beat = Beat::default();
        render_with(lesson, &mut out, &mut WindowedOnStack, &mut beat).unwrap();
        assert!(
            out.as_bytes() == capsim_tests::golden(lesson.name()),
            "{}",
            lesson.name()
        );
        assert!(beat.0 > 0, "{}: no round reported", lesson.name());
    }
}
