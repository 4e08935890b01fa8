//! The small-memory consumers engine (`consumers::windowed`) against the main engine and the
//! reference's vectors: the same metrics, the same rounds observed, the same errors.
//!
//! The main engine is itself checked against the lesson program (differential vectors, the
//! tick-by-tick port in `properties.rs`, the `consumers` fuzz target), so agreement with it
//! over the whole accepted parameter range is agreement with the lesson.

use capsim_core::consumers::windowed::{self, words_for, AnyDraws, LessonKeys};
use capsim_core::consumers::{
    self, LessonDraws, Params, RoundState, WorkloadDraws, Workspace, MAX_CONSUMERS, MAX_SHIPMENTS,
};
use capsim_core::{Capacity, Error, Observer};
use serde_json::Value;

type Small = windowed::Workspace<{ words_for(MAX_SHIPMENTS) }>;
/// The main engine with room for any accepted workload's shipments in flight.
type Main = Workspace<MAX_SHIPMENTS, 8192>;

/// SplitMix64: the test's own parameter generator.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// In `lo..=hi`.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next() % (u64::from(hi - lo) + 1)) as u32
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Every round an observer is told about, with its state.
#[derive(Default, PartialEq, Debug)]
struct Watch {
    states: Vec<RoundState>,
    done: Vec<u64>,
}

impl Observer<RoundState> for Watch {
    fn round(&mut self, state: &RoundState) {
        self.states.push(*state);
    }

    fn round_done(&mut self, round: u64) {
        self.done.push(round);
    }
}

/// `round_done` only, as a board pacing the lesson sees it.
#[derive(Default, PartialEq, Debug)]
struct Pace(Vec<u64>);

impl<S: capsim_core::Round> Observer<S> for Pace {
    const ROUNDS: bool = false;

    fn round_done(&mut self, round: u64) {
        self.0.push(round);
    }
}

/// Whether the main engine legitimately refused: its in-flight heap is a fixed capacity the
/// small engine does not have.
fn in_flight_full<T>(r: &Result<T, Error>) -> bool {
    matches!(
        r,
        Err(Error::CapacityExceeded {
            capacity: Capacity::ShipmentsInFlight,
            ..
        })
    )
}

/// Runs both engines on the lesson's draws and asserts they agree; returns the result.
fn agree(p: &Params, main: &mut Main, small: &mut Small) -> Result<consumers::Metrics, Error> {
    let want = consumers::run(p, main);
    let got = windowed::run(p, small);
    if !in_flight_full(&want) {
        assert_eq!(got, want, "{p:?}");
    }
    got
}

/// Both engines observed: the same states and rounds, or the same pacing.
fn agree_observed(p: &Params, main: &mut Main, small: &mut Small) {
    let (mut a, mut b) = (Watch::default(), Watch::default());
    let want = consumers::run_with(p, LessonDraws::new(p), main, &mut a);
    let got = windowed::run_with(p, LessonKeys::new(p), small, &mut b);
    assert_eq!(got, want, "{p:?}");
    if want.is_ok() {
        assert!(a == b, "observed rounds differ: {p:?}");
    }
    let (mut a, mut b) = (Pace::default(), Pace::default());
    consumers::run_with(p, LessonDraws::new(p), main, &mut a).ok();
    windowed::run_with(p, LessonKeys::new(p), small, &mut b).ok();
    assert!(a == b, "paced rounds differ: {p:?}");
}

fn random_params(mix: &mut Mix, max_events: u32) -> Params {
    let events_per_shipment = match mix.range(0, 3) {
        0 => 1,
        1 => 126,
        _ => mix.range(1, 126),
    };
    let most = (max_events / events_per_shipment).max(1);
    let shipments = match mix.range(0, 4) {
        0 => 1,
        1 => most,
        _ => mix.range(1, most),
    };
    let queue_gap = match mix.range(0, 9) {
        0 => 0.0,
        1 => consumers::MAX_QUEUE_GAP,
        2 => f64::from_bits(1 + mix.range(0, 5) as u64), // subnormal: arrivals tie
        3 => 1e-300,
        4 => mix.unit() * 1e-3,
        5 => mix.unit() * 1e9,
        6 => 1.0,
        _ => mix.unit() * 10.0,
    };
    let rounds = |mix: &mut Mix| match mix.range(0, 5) {
        0 => 0,
        1 => mix.range(0, 1 << 20),
        _ => mix.range(0, 20),
    };
    Params {
        consumers: match mix.range(0, 3) {
            0 => 1,
            1 => MAX_CONSUMERS as u32,
            _ => mix.range(1, MAX_CONSUMERS as u32),
        },
        slots: match mix.range(0, 4) {
            0 => 1,
            1 => u32::MAX,
            _ => mix.range(1, 9),
        },
        shipments,
        events_per_shipment,
        queue_gap,
        seed: mix.range(1, 2_147_483_646),
        final_event_rounds: rounds(mix),
        event_rounds_min: rounds(mix),
        event_rounds_spread: rounds(mix),
        ..Params::default()
    }
}

fn workspaces() -> (Box<Main>, Box<Small>) {
    (
        Box::new(Workspace::new()),
        Box::new(windowed::Workspace::new()),
    )
}

#[test]
fn equals_the_main_engine_on_random_parameters() {
    let (mut main, mut small) = workspaces();
    let mut mix = Mix(20_260_731);
    let mut ok = 0;
    for case in 0..300 {
        let p = random_params(&mut mix, if case % 10 == 0 { 40_000 } else { 3_000 });
        if agree(&p, &mut main, &mut small).is_ok() {
            ok += 1;
        }
    }
    assert!(ok > 250, "only {ok} runs succeeded");
}

#[test]
fn equals_the_main_engine_observed() {
    let (mut main, mut small) = workspaces();
    let mut mix = Mix(7);
    for _ in 0..60 {
        let mut p = random_params(&mut mix, 1_500);
        // Observing reports every round: keep the processing times short.
        p.final_event_rounds %= 40;
        p.event_rounds_min %= 40;
        p.event_rounds_spread %= 40;
        agree_observed(&p, &mut main, &mut small);
    }
    agree_observed(&Params::default(), &mut main, &mut small);
}

#[test]
fn equals_the_main_engine_at_the_extremes() {
    let (mut main, mut small) = workspaces();
    let lesson = Params::default();
    let mut cases = vec![
        Params {
            shipments: 1,
            events_per_shipment: 1,
            ..lesson.clone()
        },
        Params {
            shipments: 1,
            events_per_shipment: 126,
            consumers: 64,
            ..lesson.clone()
        },
        Params {
            shipments: MAX_SHIPMENTS as u32,
            events_per_shipment: 1,
            consumers: 8,
            ..lesson.clone()
        },
        Params {
            shipments: 400,
            events_per_shipment: 126,
            consumers: 64,
            slots: 3,
            ..lesson.clone()
        },
    ];
    for gap in [
        0.0,
        -0.0,
        f64::from_bits(1),
        1e-300,
        1e-3,
        consumers::MAX_QUEUE_GAP,
    ] {
        for (shipments, steps) in [(1, 126), (3000, 7), (200, 126), (MAX_SHIPMENTS as u32, 1)] {
            cases.push(Params {
                shipments,
                events_per_shipment: steps,
                queue_gap: gap,
                consumers: 5,
                slots: 2,
                ..lesson.clone()
            });
        }
    }
    for p in &cases {
        agree(p, &mut main, &mut small).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    }
    // Bad parameters: the same error.
    for p in [
        Params {
            consumers: 0,
            ..lesson.clone()
        },
        Params {
            shipments: MAX_SHIPMENTS as u32 + 1,
            ..lesson.clone()
        },
        Params {
            queue_gap: f64::NAN,
            ..lesson.clone()
        },
    ] {
        let want = consumers::run(&p, &mut main);
        assert!(matches!(want, Err(Error::OutOfRange { .. })), "{p:?}");
        assert_eq!(windowed::run(&p, &mut small), want);
    }
}

#[test]
fn a_small_workspace_reports_its_capacity() {
    let mut ws = windowed::Workspace::<{ words_for(100) }, 8>::new();
    assert_eq!(ws.capacity(), 128);
    let p = Params {
        shipments: 129,
        ..Params::default()
    };
    assert_eq!(
        windowed::run(&p, &mut ws),
        Err(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: 128
        })
    );
    // A one-event window is slow but exact.
    let p = Params {
        shipments: 128,
        consumers: 3,
        ..Params::default()
    };
    let mut main = Box::new(Workspace::<128>::new());
    assert_eq!(windowed::run(&p, &mut ws), consumers::run(&p, &mut main));
    let mut one = windowed::Workspace::<4, 1>::new();
    assert_eq!(windowed::run(&p, &mut one), consumers::run(&p, &mut main));
}

/// Draws from a handful of values, 0 and the largest double below 1 among them: starts tie
/// across shipments and, with a small gap, a shipment's arrivals can round out of step order.
struct Coarse(u64);

impl WorkloadDraws for Coarse {
    fn draw(&mut self, shipment: u32, index: u32) -> f64 {
        let mut mix = Mix(self.0 ^ (u64::from(shipment) << 32) ^ u64::from(index));
        const VALUES: [f64; 6] = [0.0, 1.0 - f64::EPSILON / 2.0, 0.5, 0.25, 1e-9, 0.999_999];
        VALUES[(mix.next() % VALUES.len() as u64) as usize]
    }
}

#[test]
fn equals_the_main_engine_on_any_draws_ties_and_order_errors() {
    let (mut main, mut small) = workspaces();
    let mut mix = Mix(99);
    let (mut order_errors, mut ok) = (0, 0);
    for case in 0..200 {
        let mut p = random_params(&mut mix, 4_000);
        if case % 2 == 0 {
            // Large starts against a small gap: rounding decides the order.
            p.queue_gap = [1e-3, 1e-7, 0.1, 3.0][case % 4];
            p.shipments = p.shipments.max(2000 / p.events_per_shipment);
        }
        let seed = mix.next();
        let want = consumers::run_with(&p, Coarse(seed), &mut main, &mut ());
        let got = windowed::run_with(&p, AnyDraws(Coarse(seed)), &mut small, &mut ());
        if !in_flight_full(&want) {
            assert_eq!(got, want, "{p:?} seed {seed}");
        }
        match got {
            Err(Error::WorkloadOrder { .. }) => order_errors += 1,
            Ok(_) => ok += 1,
            _ => {}
        }
        // A generic generator through sub-streams.
        let draws = || consumers::SubstreamDraws::<rand_pcg::Pcg32>::new(seed);
        let want = consumers::run_with(&p, draws(), &mut main, &mut ());
        let got = windowed::run_with(&p, AnyDraws(draws()), &mut small, &mut ());
        if !in_flight_full(&want) {
            assert_eq!(got, want, "{p:?} pcg seed {seed}");
        }
    }
    assert!(
        order_errors > 50 && ok > 50,
        "{order_errors} order errors, {ok} runs"
    );
}

// ---------------------------------------------------------------- the reference's vectors

fn u(v: &Value, key: &str) -> u32 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key}")) as u32
}

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key}"))
}

#[test]
fn matches_the_reference_vectors() {
    let mut small = Box::new(Small::new());
    let text = capsim_tests::read("data/consumers.jsonl");
    let mut checked = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if cfg!(debug_assertions) && v["heavy"] == Value::Bool(true) {
            continue;
        }
        let (p, want) = (&v["params"], &v["expected"]);
        let params = Params {
            consumers: u(p, "consumers"),
            slots: u(p, "slots"),
            shipments: u(p, "shipments"),
            events_per_shipment: u(p, "events_per_shipment"),
            queue_gap: f(p, "queue_gap"),
            seed: u(p, "seed"),
            final_event_rounds: u(p, "final_event_rounds"),
            event_rounds_min: u(p, "event_rounds_min"),
            event_rounds_spread: u(p, "event_rounds_spread"),
            ..Params::default()
        };
        let m = windowed::run(&params, &mut small).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(m.rounds, want["rounds"].as_u64().unwrap(), "{p}");
        assert_eq!(m.reordered_shipments, u(want, "reordered_shipments"), "{p}");
        assert_eq!(m.wrong_final_state, u(want, "wrong_final_state"), "{p}");
        assert_eq!(
            m.throughput.to_bits(),
            f(want, "throughput").to_bits(),
            "{p}"
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} vectors");
}

// ---------------------------------------------------------------- the lesson

#[test]
fn renders_every_lesson_as_the_lesson_program_prints_it() {
    use capsim_core::lesson::{render_with, Lesson, WindowedOnStack, LESSON_SHIPMENTS};
    let mut in_caller = Box::new(windowed::Workspace::<{ words_for(LESSON_SHIPMENTS) }, 64>::new());
    for lesson in Lesson::ALL {
        let mut out = String::new();
        render_with(lesson, &mut out, &mut WindowedOnStack, &mut ()).unwrap();
        assert!(
            out.as_bytes() == capsim_tests::golden(lesson.name()),
            "{}",
            lesson.name()
        );
        if lesson == Lesson::Consumers {
            let mut again = String::new();
            render_with(lesson, &mut again, &mut *in_caller, &mut ()).unwrap();
            assert_eq!(again, out);
        }
    }
    // Too small for the lesson's shipments: its capacity error, as the main engine's.
    let mut small = windowed::Workspace::<{ words_for(4000) }>::new();
    let e = render_with(Lesson::Consumers, &mut String::new(), &mut small, &mut ());
    assert_eq!(
        e,
        Err(capsim_core::lesson::LessonError::Model(
            Error::CapacityExceeded {
                capacity: Capacity::WorkspaceShipments,
                limit: 4000
            }
        ))
    );
}
