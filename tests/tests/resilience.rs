//! The bulkhead's options beyond the lesson (issue 26): a slowdown that ends, a circuit
//! breaker and retries. Expectations come from the lesson's printed figures
//! (`reference/expected/bulkhead.out`), the reference port, or counts taken in the test from
//! the fast engine's rounds (a breaker changes nothing before it opens, so a plain run's rounds
//! say when it must open).

use capsim_core::bulkhead::{
    self, Breaker, Metrics, Mode, Params, Resilience, RoundState, Split, MAX_RETRIES,
    MAX_RETRY_BACKOFF, MAX_WINDOW,
};
use capsim_core::{Error, Observer};
use capsim_tests::reference;

/// The lesson's shared pool in slowdown: `tek havuz (32) yavaslama`.
fn slowdown() -> Params {
    Params {
        mode: Mode::Slowdown,
        ..Params::default()
    }
}

fn breaker(ratio: f64, window: u32) -> Option<Breaker> {
    Some(Breaker {
        ratio,
        window,
        open_rounds: bulkhead::DEFAULT_OPEN_ROUNDS,
    })
}

fn run(p: &Params) -> Metrics {
    bulkhead::run(p).unwrap()
}

/// Each round's event requests served, from the fast engine (a plain run).
fn events_served_per_round(p: &Params) -> Vec<u32> {
    struct Rounds(Vec<u32>);
    impl Observer<RoundState> for Rounds {
        fn round(&mut self, s: &RoundState) {
            self.0.push(s.event_served);
        }
    }
    let mut rounds = Rounds(Vec::new());
    bulkhead::run_observed(p, &mut rounds).unwrap();
    rounds.0
}

/// The first round at which the calls ended in the `window` rounds up to it are at least one
/// and at least `ratio` of them failed, computed from a plain run's served events: a call
/// made at `s` is recorded when its slot frees, at `s + hold`, and failed when made in the
/// slowdown.
fn first_opening(p: &Params, ratio: f64, window: u32) -> Option<u32> {
    let served = events_served_per_round(p);
    let mut ended = vec![(0u64, 0u64); p.horizon as usize + 128];
    for (s, &n) in served.iter().enumerate() {
        let s = s as u32;
        let fails = p.mode == Mode::Slowdown && s >= p.failure_start;
        let end = s + if fails { p.slow_hold } else { p.event_hold };
        let e = &mut ended[end as usize];
        e.0 += u64::from(n);
        if fails {
            e.1 += u64::from(n);
        }
    }
    (0..p.horizon).find(|&t| {
        let low = (t + 1).saturating_sub(window) as usize;
        let (calls, failed) = ended[low..=t as usize]
            .iter()
            .fold((0, 0), |a, e| (a.0 + e.0, a.1 + e.1));
        calls >= 1 && failed as f64 >= ratio * calls as f64
    })
}

/// The lesson's figures (`tek havuz (32) yavaslama`): 13966 tracking served, 3358 event
/// requests served, every one a single call.
#[test]
fn off_by_default_the_lesson_and_its_calls() {
    let m = run(&slowdown());
    assert_eq!((m.tracking_served, m.event_served), (13966, 3358));
    assert_eq!(m.dependency_calls, 3358);
    assert_eq!(m.breaker_opened_round, None);
    // The event requests served before round 1000 are the healthy run's of 1000 rounds (the
    // same stream and state until then); the rest were calls to the broken dependency, 22
    // slot-rounds each.
    let before = run(&Params {
        horizon: 1000,
        ..Params::default()
    });
    assert_eq!(m.broken_slot_rounds, 22 * (3358 - before.event_served));
    // A healthy run calls no broken dependency.
    assert_eq!(run(&Params::default()).broken_slot_rounds, 0);
}

/// Done when: `--breaker 0.5:9` opens after the failure start, when its window first has a
/// failed share of a half (the first slow calls end, 22 rounds after the slowdown starts),
/// and takes fewer broken slot-rounds than no breaker.
#[test]
fn the_breaker_opens_after_the_failure_and_cuts_the_broken_slot_rounds() {
    let plain = run(&slowdown());
    let p = Params {
        resilience: Resilience {
            breaker: breaker(0.5, 9),
            ..slowdown().resilience
        },
        ..slowdown()
    };
    let m = run(&p);
    let opened = m.breaker_opened_round.unwrap();
    assert!(opened > 1000, "{opened}");
    assert_eq!(Some(opened), first_opening(&slowdown(), 0.5, 9));
    // The first call made at round 1000 or later ends at its 22nd round.
    let served = events_served_per_round(&slowdown());
    let first_slow = (1000..4000).find(|&s| served[s] > 0).unwrap() as u32;
    assert_eq!(opened, first_slow + 22);
    assert!(m.broken_slot_rounds < plain.broken_slot_rounds);
    // Every broken call before it opened was made in [1000, opened): those are the calls
    // its detection let through (the lesson's 220 slot-rounds are 10 such calls).
    let let_through: u32 = served[1000..opened as usize].iter().sum();
    assert!(m.broken_slot_rounds >= 22 * u64::from(let_through));
    // The neighbour gains: fewer tracking requests dropped.
    assert!(m.tracking_dropped < plain.tracking_dropped);
    assert_eq!(reference_of(&p), m);
}

fn reference_of(p: &Params) -> Metrics {
    match reference::bulkhead(p) {
        reference::Lesson::Metrics(m) => m,
        reference::Lesson::OverCapacity => panic!("{p:?} over capacity"),
    }
}

/// Done when: retries multiply the calls reaching the dependency.
#[test]
fn retries_multiply_the_dependency_calls() {
    let calls = |retries| {
        run(&Params {
            resilience: Resilience {
                retries,
                ..slowdown().resilience
            },
            ..slowdown()
        })
        .dependency_calls
    };
    assert_eq!(calls(0), 3358);
    assert!(calls(2) > calls(0), "{} vs {}", calls(2), calls(0));
    assert!(calls(MAX_RETRIES) >= calls(2));
    // A healthy day has no failures: only drops (27 in the lesson) are retried.
    let healthy = |retries| {
        run(&Params {
            resilience: Resilience {
                retries,
                ..Default::default()
            },
            ..Params::default()
        })
    };
    assert_eq!(healthy(0).event_dropped, 27);
    assert!(healthy(1).event_dropped < 27);
    // The extremes against the reference.
    for p in [
        Params {
            horizon: 1500,
            failure_start: 300,
            resilience: Resilience {
                retries: MAX_RETRIES,
                retry_backoff: MAX_RETRY_BACKOFF,
                ..slowdown().resilience
            },
            ..slowdown()
        },
        Params {
            horizon: 1500,
            failure_start: 300,
            resilience: Resilience {
                retries: MAX_RETRIES,
                breaker: breaker(0.5, 9),
                ..slowdown().resilience
            },
            ..slowdown()
        },
    ] {
        assert_eq!(run(&p), reference_of(&p), "{p:?}");
    }
}

/// Done when: a slowdown that ends at round 2000 serves more tracking requests than one that
/// lasts; ending it at the horizon is the lesson's run.
#[test]
fn a_failure_that_ends_serves_more_tracking_requests() {
    let ended = Params {
        resilience: Resilience {
            failure_end: Some(2000),
            ..slowdown().resilience
        },
        ..slowdown()
    };
    let m = run(&ended);
    assert!(m.tracking_served > 13966, "{}", m.tracking_served);
    assert_eq!(m, reference_of(&ended));
    for end in [4000, u32::MAX] {
        let at_horizon = run(&Params {
            resilience: Resilience {
                failure_end: Some(end),
                ..slowdown().resilience
            },
            ..slowdown()
        });
        assert_eq!(at_horizon, run(&slowdown()), "end {end}");
    }
    // The smallest end: one slow round (1000 only).
    let one = Params {
        resilience: Resilience {
            failure_end: Some(1001),
            ..slowdown().resilience
        },
        ..slowdown()
    };
    assert_eq!(run(&one), reference_of(&one));
}

/// The breaker's ranges at their ends: the smallest ratio opens at the first failed call
/// (never on a healthy day: 0 itself is refused), ratio 1 only when every call in the
/// window failed; a one-round and the
/// longest window open when a plain run's rounds say they must; open rounds 1 and the most.
#[test]
fn breaker_extremes() {
    let healthy = Params::default();
    for (p, ratio, window) in [
        (healthy.clone(), f64::MIN_POSITIVE, 9),
        (healthy.clone(), 1.0, 9),
        (slowdown(), 1.0, 9),
        (slowdown(), 0.5, 1),
        (slowdown(), 0.5, MAX_WINDOW),
        (slowdown(), f64::MIN_POSITIVE, MAX_WINDOW),
    ] {
        let m = run(&Params {
            resilience: Resilience {
                breaker: breaker(ratio, window),
                ..p.resilience
            },
            ..p.clone()
        });
        assert_eq!(
            m.breaker_opened_round,
            first_opening(&p, ratio, window),
            "{ratio}:{window} {:?}",
            p.mode
        );
    }
    // Healthy, ratio 1: never (no call fails).
    assert_eq!(
        run(&Params {
            resilience: Resilience {
                breaker: breaker(1.0, 9),
                ..Default::default()
            },
            ..Params::default()
        })
        .breaker_opened_round,
        None
    );
    // The longest window on the lesson's horizon: the failures pass half of every call ended
    // since round 0 only long after the slowdown starts.
    assert!(first_opening(&slowdown(), 0.5, MAX_WINDOW).unwrap() > 1022);
    for open_rounds in [1, bulkhead::MAX_HORIZON] {
        for split in [Split::Shared, Split::Partitioned(24)] {
            let p = Params {
                split,
                horizon: 3000,
                resilience: Resilience {
                    breaker: Some(Breaker {
                        ratio: 0.5,
                        window: 9,
                        open_rounds,
                    }),
                    failure_end: Some(2500),
                    ..slowdown().resilience
                },
                ..slowdown()
            };
            assert_eq!(run(&p), reference_of(&p), "{p:?}");
        }
    }
}

/// Values outside the ranges are refused, naming the flag.
#[test]
fn bad_options_are_refused() {
    let param_of = |p: Params| match bulkhead::run(&p) {
        Err(Error::OutOfRange { param, .. }) => param,
        other => panic!("{other:?}"),
    };
    for (ratio, window, open_rounds) in [
        (-0.1, 9, 500),
        (1.1, 9, 500),
        (f64::NAN, 9, 500),
        (0.5, 0, 500),
        (0.5, MAX_WINDOW + 1, 500),
        (0.5, 9, 0),
        (0.5, 9, bulkhead::MAX_HORIZON + 1),
    ] {
        let p = Params {
            resilience: Resilience {
                breaker: Some(Breaker {
                    ratio,
                    window,
                    open_rounds,
                }),
                ..slowdown().resilience
            },
            ..slowdown()
        };
        assert_eq!(param_of(p), "breaker");
    }
    let p = Params {
        resilience: Resilience {
            retries: MAX_RETRIES + 1,
            ..slowdown().resilience
        },
        ..slowdown()
    };
    assert_eq!(param_of(p), "retries");
    let p = Params {
        resilience: Resilience {
            retry_backoff: MAX_RETRY_BACKOFF + 1,
            ..slowdown().resilience
        },
        ..slowdown()
    };
    assert_eq!(param_of(p), "retry-backoff");
    for end in [0, 999, 1000] {
        let p = Params {
            resilience: Resilience {
                failure_end: Some(end),
                ..slowdown().resilience
            },
            ..slowdown()
        };
        assert_eq!(param_of(p), "failure-end");
    }
    // The limits accepted.
    for p in [
        Params {
            resilience: Resilience {
                retries: MAX_RETRIES,
                retry_backoff: MAX_RETRY_BACKOFF,
                ..slowdown().resilience
            },
            ..slowdown()
        },
        Params {
            resilience: Resilience {
                breaker: Some(Breaker {
                    ratio: f64::MIN_POSITIVE,
                    window: MAX_WINDOW,
                    open_rounds: bulkhead::MAX_HORIZON,
                }),
                failure_end: Some(u32::MAX),
                ..slowdown().resilience
            },
            ..slowdown()
        },
    ] {
        assert!(p.validate().is_ok(), "{p:?}");
    }
}

/// A trace with the options has their columns last; summed, the rounds give the run's
/// metrics, and the breaker column turns 1 (open) at `breaker_opened_round`. Without the
/// options the rows are the plain trace's.
#[test]
fn the_trace_shows_the_breaker_and_the_retries() {
    use capsim_core::trace::{bulkhead_header_with, CsvTrace, BULKHEAD_OPTION_COLUMNS};
    let p = Params {
        resilience: Resilience {
            breaker: breaker(0.5, 9),
            retries: 2,
            retry_backoff: 3,
            failure_end: Some(2500),
        },
        ..slowdown()
    };
    let mut text = String::new();
    bulkhead_header_with(&mut text, false, true).unwrap();
    let mut t = CsvTrace::new(&mut text, false).with_options(true);
    let m = bulkhead::run_observed(&p, &mut t).unwrap();
    t.result.unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[header.len() - 4..], BULKHEAD_OPTION_COLUMNS);
    let rows: Vec<Vec<u64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 4000);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let sum = |name: &str| rows.iter().map(|r| r[col(name)]).sum::<u64>();
    assert_eq!(sum("dependency_calls"), m.dependency_calls);
    assert_eq!(sum("tracking_served"), m.tracking_served);
    assert_eq!(sum("event_served"), m.event_served);
    let opened = m.breaker_opened_round.unwrap() as usize;
    let breaker_col = col("breaker");
    assert!(rows[..opened].iter().all(|r| r[breaker_col] == 0));
    assert_eq!(rows[opened][breaker_col], 1);
    // Half-open (2) comes open_rounds later.
    assert_eq!(rows[opened + 500][breaker_col], 2);
    assert!(rows.iter().any(|r| r[col("retries_waiting")] > 0));
    assert!(sum("rejected") > 0);

    // The plain run's rows, with and without the option writer.
    let mut plain = String::new();
    let mut t = CsvTrace::new(&mut plain, true);
    bulkhead::run_observed(&slowdown(), &mut t).unwrap();
    let mut off = String::new();
    let mut t = CsvTrace::new(&mut off, true).with_options(false);
    bulkhead::run_observed(&slowdown(), &mut t).unwrap();
    assert_eq!(plain, off);
}
