//! Issue 19, "your own group": groups larger than a board's, and (below) the providers'
//! minimum and maximum size, demand tables and the scaling policies. Expected values come
//! from the arithmetic (a flat demand of D needs ceil(D / capacity) instances) or
//! from the lesson's own figures, never from the code under test.

use capsim_core::autoscale::{self, run, run_in, GroupStorage, Params, MAX_GROUP_SIZE};
use capsim_core::rng::GroupLcg;
use capsim_core::{Capacity, Error};

/// A flat demand with no randomness and no permanent failure: the group is exactly
/// `ceil(demand / 100)` instances every round.
fn flat(demand: f64) -> Params {
    let mut p = Params {
        demand_base: demand,
        demand_amplitude: 0.0,
        surge: 0.0,
        transient_failure: 0.0,
        min_size_start: u32::MAX,
        ..Params::default()
    };
    p.failure_rounds.clear();
    p
}

fn run_big<const N: usize>(p: &Params) -> Result<autoscale::Metrics, Error> {
    let mut storage = Box::new(GroupStorage::<N>::with_capacity());
    run_in(
        p,
        &mut storage,
        |t| p.demand(t),
        &mut GroupLcg::new(p.seed),
        &mut (),
    )
}

#[test]
fn a_group_of_thousands_runs_in_larger_storage() {
    // The run: 300,000 requests need 3,000 instances.
    let p = flat(300_000.0);
    assert_eq!(
        run(&p),
        Err(Error::CapacityExceeded {
            capacity: Capacity::GroupSize,
            limit: MAX_GROUP_SIZE as u32
        })
    );
    let m = run_big::<4096>(&p).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (3000, 3000, 0));
    // The extremes of a 4,096-record group: 4,096 fit, 4,097 are one line naming 4,096.
    let m = run_big::<4096>(&flat(409_600.0)).unwrap();
    assert_eq!(m.max_size, 4096);
    let e = run_big::<4096>(&flat(409_600.5)).unwrap_err();
    assert_eq!(e.to_string(), "group size exceeds its capacity of 4096");
}

#[test]
fn the_lesson_runs_the_same_in_any_storage() {
    let lesson = Params::default();
    let m = run_big::<4096>(&lesson).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
    assert_eq!(m.under_capacity_rounds, 10);
    for delay in [1, 3, 8] {
        let mut p = Params::default();
        p.lifecycle.apply_delay = delay;
        p.lifecycle.count_pending = true;
        assert_eq!(run(&p), run_big::<4096>(&p), "apply delay {delay}");
    }
}

#[test]
fn launches_in_flight_are_named_when_they_fill_the_group() {
    // Issue 18 §3: the lesson's policy counts serving instances only, so under a long apply
    // delay it asks again every round while its launches are in flight: with 19 instances or
    // fewer in the group, the requests in flight are what fill a board's 256 records.
    let mut p = Params::default();
    p.lifecycle.apply_delay = 48;
    let e = run(&p).unwrap_err();
    assert_eq!(
        e,
        Error::CapacityExceeded {
            capacity: Capacity::GroupWithInFlight,
            limit: 256
        }
    );
    assert_eq!(
        e.to_string(),
        "group size with the launches in flight exceeds its capacity of 256"
    );
    // A host's group holds them: the run ends, and its group never came near 256.
    let m = run_big::<16384>(&p).unwrap();
    assert!(m.max_size < 256, "{m:?}");
    // Every accepted delay, the longest included, runs in a host's group.
    p.lifecycle.apply_delay = autoscale::MAX_APPLY_DELAY;
    assert!(run_big::<16384>(&p).is_ok());
}

#[test]
fn max_instances_caps_a_group_that_wants_more() {
    // 1,500 requests need 15; a maximum of 10 keeps 10 all day, the policy clamped in every
    // round (it asks for 5 more each time), and every round under capacity.
    let mut p = flat(1500.0);
    p.lifecycle.max_instances = Some(10);
    let m = run(&p).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (10, 10, 0));
    assert_eq!((m.clamped_rounds, m.under_capacity_rounds), (240, 240));
    // A maximum at the need is no clamp at all; the maximum's extreme 0 empties the group.
    p.lifecycle.max_instances = Some(15);
    let m = run(&p).unwrap();
    assert_eq!((m.max_size, m.clamped_rounds), (15, 0));
    p.lifecycle.max_instances = Some(0);
    assert_eq!(run(&p).unwrap().max_size, 0);
}

#[test]
fn min_instances_holds_a_group_the_policy_would_shrink() {
    // 1,500 requests need 15; a minimum of 20: round 0 launches 5 (they serve from round 2),
    // and from round 2 on the policy wants down to 16 and is held at 20.
    let mut p = flat(1500.0);
    p.lifecycle.min_instances = Some(20);
    let m = run(&p).unwrap();
    assert_eq!((m.min_size, m.max_size, m.launched), (20, 20, 5));
    assert_eq!(m.clamped_rounds, 1 + 238);
    // Equal bounds fix the size; min above max is one error naming both.
    p.lifecycle.max_instances = Some(20);
    assert_eq!(run(&p).unwrap().max_size, 20);
    p.lifecycle.max_instances = Some(19);
    assert_eq!(
        run(&p).unwrap_err().to_string(),
        "--min-instances: accepted values are integers not above --max-instances"
    );
}

#[test]
fn a_health_check_removal_is_not_bounded_by_the_minimum() {
    // 10 instances, minimum 10; the first breaks in round 5, fails its check at once
    // (threshold 1), and in round 5 no capacity exists: its replacement fails and it
    // leaves (9 instances); the restoring launch of the same round fails too; round 6
    // launches one, and round 7, its boot not over, another (the lesson's policy counts
    // serving instances only): 11, which the policy keeps (required + 1).
    let mut p = flat(1000.0);
    p.threshold = 1;
    p.failure_rounds.push(5).unwrap();
    p.lifecycle.min_instances = Some(10);
    p.lifecycle.stockout = Some(autoscale::Stockout { start: 5, end: 6 });
    let m = run(&p).unwrap();
    assert_eq!((m.min_size, m.max_size), (9, 11));
    assert_eq!((m.failed_launches, m.launched), (2, 2));
}

#[test]
fn a_table_of_the_lessons_curve_is_the_lesson() {
    use autoscale::{run_with_demand, Curve, Demand, Table};
    let p = Params::default();
    let table: Vec<f64> = (0..p.rounds).map(|t| p.demand(t)).collect();
    let t = Table(&table);
    t.check(&p).unwrap();
    let m = run_with_demand(&p, |r| t.at(r), &mut GroupLcg::new(p.seed), &mut ()).unwrap();
    // The lesson's figures (its README and `grup.mjs`).
    assert_eq!((m.min_size, m.max_size, m.launched), (7, 24, 46));
    assert_eq!(m.under_capacity_rounds, 10);
    assert_eq!(Curve(&p).at(17).to_bits(), p.demand(17).to_bits());
    // A table shorter than the run, or with a value that is no number, is refused.
    let short = Table(&table[..239]);
    assert_eq!(
        short.check(&p).unwrap_err().to_string(),
        "--rounds: accepted values are integers from 1 to 239"
    );
    let nan = [f64::NAN; 240];
    assert!(Table(&nan).check(&p).is_err());
    // A table read in a host's storage gives the same run.
    let mut storage = Box::new(GroupStorage::<4096>::with_capacity());
    let big = run_in(&p, &mut storage, t, &mut GroupLcg::new(p.seed), &mut ()).unwrap();
    assert_eq!(big, m);
}
