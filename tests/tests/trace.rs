//! The observer contract: every round reported once, in order, and the per-round states sum
//! to the run's metrics, over random parameters; the lesson runs' traces equal the golden
//! traces the reference programs print (`tests/tools/gen_traces.py`), byte for byte.

use capsim_core::consumers::{Event, LessonDraws, Queue, QueueSpace, Workspace};
use capsim_core::rng::{GroupLcg, ParkMiller};
use capsim_core::trace::{self, CsvTrace};
use capsim_core::{autoscale, bulkhead, consumers, Observer};
use capsim_tests::read;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;

/// Records every state the observer contract hands over, and every `round_done`.
#[derive(Default)]
struct Tape {
    group: Vec<autoscale::RoundState>,
    consumers: Vec<consumers::RoundState>,
    bulkhead: Vec<bulkhead::RoundState>,
    done: Vec<u64>,
}

impl Observer<autoscale::RoundState> for Tape {
    fn round_done(&mut self, round: u64) {
        self.done.push(round);
    }

    fn round(&mut self, s: &autoscale::RoundState) {
        self.group.push(*s);
    }
}

impl Observer<consumers::RoundState> for Tape {
    fn round_done(&mut self, round: u64) {
        self.done.push(round);
    }

    fn round(&mut self, s: &consumers::RoundState) {
        self.consumers.push(*s);
    }
}

impl Observer<bulkhead::RoundState> for Tape {
    fn round_done(&mut self, round: u64) {
        self.done.push(round);
    }

    fn round(&mut self, s: &bulkhead::RoundState) {
        self.bulkhead.push(*s);
    }
}

impl Tape {
    /// Asserts rounds 0, 1, 2, ... in `done` and in the states' `round`s.
    fn assert_rounds(&self, rounds: impl Iterator<Item = u64>, what: &str) {
        let want: Vec<u64> = (0..self.done.len() as u64).collect();
        assert_eq!(self.done, want, "{what}: round_done in order");
        assert!(rounds.eq(want.into_iter()), "{what}: states in order");
    }
}

fn below(r: &mut Pcg32, n: u32) -> u32 {
    r.next_u32() % n
}

#[test]
fn autoscale_rounds_sum_to_the_metrics() {
    let mut r = Pcg32::seed_from_u64(10);
    for _ in 0..400 {
        let mut p = autoscale::Params {
            threshold: 1 + below(&mut r, 6),
            cooldown: below(&mut r, 10),
            seed: 1 + below(&mut r, 1_000_000),
            rounds: 1 + below(&mut r, 300),
            boot_rounds: below(&mut r, 5),
            transient_failure: f64::from(below(&mut r, 40)) / 100.0,
            demand_base: f64::from(below(&mut r, 1500)),
            ..autoscale::Params::default()
        };
        p.lifecycle.check_latency = below(&mut r, 3);
        p.lifecycle.apply_delay = below(&mut r, 3);
        let mut tape = Tape::default();
        let m = autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut tape).unwrap();
        let t = &tape.group;
        tape.assert_rounds(t.iter().map(|s| u64::from(s.round)), "autoscale");
        assert_eq!(t.len(), p.rounds as usize);
        assert_eq!(
            t.iter().map(|s| s.launched).sum::<u32>(),
            m.launched,
            "{p:?}"
        );
        assert_eq!(
            t.iter().map(|s| s.replaced).sum::<u32>(),
            m.replacements,
            "{p:?}"
        );
        assert_eq!(t.iter().map(|s| s.size).max().unwrap(), m.max_size, "{p:?}");
        assert_eq!(t.iter().map(|s| s.size).min().unwrap(), m.min_size, "{p:?}");
        for s in t {
            assert_eq!(s.size, s.counts.total(), "{p:?}");
            assert!(s.broken <= s.size, "{p:?}");
        }
    }
}

/// The lesson's consumers loop written out tick by tick, recording each round's row as the
/// reference program would (independent of the event-driven engine).
fn tick_by_tick_rows(p: &consumers::Params) -> Vec<consumers::RoundState> {
    let mut order = Box::new(QueueSpace::<2000>::new());
    let events: Vec<Event> = Queue::new(p, LessonDraws::new(p), &mut order)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut held: Vec<Option<(Event, u32)>> = vec![None; p.consumers as usize];
    let mut last = vec![-1i64; p.shipments as usize];
    let mut reordered = vec![false; p.shipments as usize];
    let (mut next, mut round, mut applied) = (0usize, 0u64, 0usize);
    let mut rows = Vec::new();
    while applied < events.len() {
        // The lesson's queue: every event arrives in round 0, and waits until taken.
        let backlog = (events.len() - next) as u64;
        for (_, left) in held.iter_mut().flatten() {
            *left = left.saturating_sub(1);
        }
        let (mut slots, mut now, mut newly) = (p.slots, 0, 0);
        for c in held.iter_mut() {
            if let Some((e, 0)) = c {
                if slots > 0 {
                    slots -= 1;
                    let g = e.shipment as usize;
                    if i64::from(e.step) < last[g] && !reordered[g] {
                        reordered[g] = true;
                        newly += 1;
                    }
                    last[g] = i64::from(e.step);
                    applied += 1;
                    now += 1;
                    *c = None;
                }
            }
        }
        for c in held.iter_mut() {
            if c.is_none() && next < events.len() {
                *c = Some((events[next], events[next].rounds));
                next += 1;
            }
        }
        rows.push(consumers::RoundState {
            round,
            applied: now,
            reordered: newly,
            busy_consumers: held.iter().filter(|c| c.is_some()).count() as u32,
            queue_left: (events.len() - next) as u64,
            arrived: if round == 0 { events.len() as u64 } else { 0 },
            dropped: 0,
            backlog,
        });
        round += 1;
    }
    rows
}

#[test]
fn consumers_rounds_are_every_round_and_sum_to_the_metrics() {
    let mut r = Pcg32::seed_from_u64(11);
    let mut ws = Box::new(Workspace::<2000>::new());
    // Room to sort every workload below whole (400 shipments × 9 events at most).
    let mut sorted = Box::new(Workspace::<400, { consumers::DEFAULT_IN_FLIGHT }, 1, 3600>::new());
    for case in 0..120 {
        let p = consumers::Params {
            consumers: 1 + below(&mut r, 12),
            slots: 1 + below(&mut r, 5),
            shipments: 1 + below(&mut r, 400),
            events_per_shipment: 1 + below(&mut r, 9),
            queue_gap: f64::from(below(&mut r, 4)),
            seed: 1 + below(&mut r, 1_000_000),
            final_event_rounds: below(&mut r, 9),
            event_rounds_min: below(&mut r, 4),
            event_rounds_spread: below(&mut r, 12),
            ..consumers::Params::default()
        };
        let mut tape = Tape::default();
        let m = consumers::run_with(&p, LessonDraws::new(&p), &mut ws, &mut tape).unwrap();
        let t = &tape.consumers;
        tape.assert_rounds(t.iter().map(|s| s.round), "consumers");
        assert_eq!(t.len() as u64, m.rounds, "{p:?}");
        assert_eq!(
            t.iter().map(|s| u64::from(s.applied)).sum::<u64>(),
            p.events()
        );
        assert_eq!(
            t.iter().map(|s| s.reordered).sum::<u32>(),
            m.reordered_shipments
        );
        assert!(t.iter().all(|s| s.applied <= p.slots), "{p:?}");
        // The skipped rounds too, row for row (a third of the cases: the loop is slow).
        if case % 3 == 0 {
            assert_eq!(*t, tick_by_tick_rows(&p), "{p:?}");
        }
        // The workload sorted whole: the same rows.
        let mut whole = Tape::default();
        let again = consumers::run_with(&p, LessonDraws::new(&p), &mut sorted, &mut whole);
        assert_eq!(again.unwrap(), m, "{p:?}");
        assert_eq!(whole.consumers, *t, "{p:?}");
        whole.assert_rounds(whole.consumers.iter().map(|s| s.round), "consumers, sorted");
    }
}

#[test]
fn bulkhead_rounds_sum_to_the_metrics() {
    let mut r = Pcg32::seed_from_u64(12);
    for _ in 0..200 {
        let total_slots = 2 + below(&mut r, 60);
        let p = bulkhead::Params {
            split: if below(&mut r, 2) == 0 {
                bulkhead::Split::Shared
            } else {
                bulkhead::Split::Partitioned(1 + below(&mut r, total_slots - 1))
            },
            mode: if below(&mut r, 2) == 0 {
                bulkhead::Mode::Healthy
            } else {
                bulkhead::Mode::Slowdown
            },
            seed: 1 + below(&mut r, 1_000_000),
            total_slots,
            horizon: 1 + below(&mut r, 2000),
            failure_start: below(&mut r, 1500),
            tracking_rate: f64::from(below(&mut r, 900)),
            event_rate: f64::from(below(&mut r, 300)),
            tracking_hold: 1 + below(&mut r, 10),
            event_hold: 1 + below(&mut r, 10),
            slow_hold: 1 + below(&mut r, 40),
            ..bulkhead::Params::default()
        };
        let mut tape = Tape::default();
        let m = bulkhead::run_with(&p, &mut ParkMiller::new(p.seed), &mut tape).unwrap();
        let t = &tape.bulkhead;
        tape.assert_rounds(t.iter().map(|s| u64::from(s.round)), "bulkhead");
        assert_eq!(t.len(), p.horizon as usize);
        let sum =
            |f: fn(&bulkhead::RoundState) -> u32| t.iter().map(|s| u64::from(f(s))).sum::<u64>();
        assert_eq!(sum(|s| s.busy), m.busy_slot_rounds, "{p:?}");
        assert_eq!(sum(|s| s.tracking_served), m.tracking_served, "{p:?}");
        assert_eq!(sum(|s| s.tracking_dropped), m.tracking_dropped, "{p:?}");
        assert_eq!(sum(|s| s.event_served), m.event_served, "{p:?}");
        assert_eq!(sum(|s| s.event_dropped), m.event_dropped, "{p:?}");
        assert!(t.iter().all(|s| s.first_busy + s.second_busy == s.busy));
    }
}

#[test]
fn batches_report_no_states() {
    let p = bulkhead::Params::default();
    let q = bulkhead::Params {
        split: bulkhead::Split::Partitioned(24),
        ..p.clone()
    };
    let mut tape = Tape::default();
    let mut ws = Box::new(bulkhead::Workspace::<2>::new());
    let mut out = [bulkhead::Metrics::default(); 2];
    let mut rng = ParkMiller::new(20_260_801);
    bulkhead::run_batch_with(&[p, q], &mut rng, &mut ws, &mut tape, &mut out).unwrap();
    assert!(tape.bulkhead.is_empty());
    // One layout through the batch engine is one run: observed.
    let mut tape = Tape::default();
    let p = bulkhead::Params::default();
    let mut rng = ParkMiller::new(p.seed);
    bulkhead::run_batch_with(&[p], &mut rng, &mut ws, &mut tape, &mut out).unwrap();
    assert_eq!(tape.bulkhead.len(), 4000);
}

/// The lesson's 24/8 slowdown day drops 172 tracking requests (the lesson's table).
#[test]
fn the_slowdown_day_drops_172_tracking_requests_round_by_round() {
    let p = bulkhead::Params {
        split: bulkhead::Split::Partitioned(24),
        mode: bulkhead::Mode::Slowdown,
        ..bulkhead::Params::default()
    };
    let mut tape = Tape::default();
    bulkhead::run_with(&p, &mut ParkMiller::new(p.seed), &mut tape).unwrap();
    let dropped: u32 = tape.bulkhead.iter().map(|s| s.tracking_dropped).sum();
    assert_eq!(dropped, 172);
}

fn autoscale_csv(threshold: u32, cooldown: u32) -> String {
    let p = autoscale::Params {
        threshold,
        cooldown,
        ..autoscale::Params::default()
    };
    let mut out = String::new();
    trace::autoscale_header(&mut out).unwrap();
    let mut t = CsvTrace::new(&mut out, false);
    autoscale::run_with(&p, &mut GroupLcg::new(p.seed), &mut t).unwrap();
    t.result.unwrap();
    out
}

#[test]
fn the_group_lessons_traces_are_the_reference_programs() {
    assert!(autoscale_csv(2, 0) == read("golden/trace-autoscale-2-0.csv"));
    assert!(autoscale_csv(5, 8) == read("golden/trace-autoscale-5-8.csv"));
}

#[test]
fn the_consumers_and_bulkhead_traces_are_the_reference_programs() {
    let p = consumers::Params {
        consumers: 4,
        slots: 2,
        ..consumers::Params::default()
    };
    let mut out = String::new();
    trace::consumers_header(&mut out).unwrap();
    let mut t = CsvTrace::new(&mut out, false);
    let mut ws = Box::new(Workspace::<5000>::new());
    consumers::run_with(&p, LessonDraws::new(&p), &mut ws, &mut t).unwrap();
    t.result.unwrap();
    assert!(out == read("golden/trace-consumers-4-2.csv"));

    let p = bulkhead::Params {
        split: bulkhead::Split::Partitioned(24),
        mode: bulkhead::Mode::Slowdown,
        ..bulkhead::Params::default()
    };
    let mut out = String::new();
    trace::bulkhead_header(&mut out, true).unwrap();
    let mut t = CsvTrace::new(&mut out, true);
    bulkhead::run_with(&p, &mut ParkMiller::new(p.seed), &mut t).unwrap();
    t.result.unwrap();
    assert!(out == read("golden/trace-bulkhead-24-slowdown.csv"));
}
