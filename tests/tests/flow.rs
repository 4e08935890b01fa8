//! The consumers lesson's next question: an arrival process with an outage, a bounded
//! buffer, and keyed routing (`--arrival-rate`, `--outage`, `--buffer`, `--routing`).
//!
//! Every expectation is either derived here from the arrivals (a queue never holds more
//! events than ever arrive) or the reference port's (`reference::consumers_flow`, written
//! from the documented contract with growable queues and the lesson's countdown).

use capsim_core::consumers::{
    self, Flow, Metrics, Outage, Params, Routing, Workspace, MAX_ARRIVAL_RATE, MAX_SHIPMENTS,
    MIN_ARRIVAL_RATE,
};
use capsim_core::Error;
use capsim_tests::reference;

/// Runs `p` on the core as the host does: one configuration, the queue's room lent.
fn core(p: &Params) -> Result<Metrics, Error> {
    let mut ws = Box::new(Workspace::<MAX_SHIPMENTS>::new());
    let mut events = vec![0u32; p.events() as usize];
    let mut out = [Metrics::default()];
    consumers::run_batch_sorted_with(
        std::slice::from_ref(p),
        consumers::LessonDraws::new(p),
        &mut ws,
        &mut [],
        &mut events,
        &mut (),
        &mut out,
    )?;
    Ok(out[0])
}

/// The core's metrics, checked bit for bit against the reference port's.
fn checked(p: &Params) -> Metrics {
    let m = core(p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    let want = reference::consumers_flow(p);
    assert_eq!(m.rounds, want.rounds, "rounds of {p:?}");
    assert_eq!(m.reordered_shipments, want.reordered_shipments, "{p:?}");
    assert_eq!(m.wrong_final_state, want.wrong_final_state, "{p:?}");
    assert_eq!(m.throughput.to_bits(), want.throughput.to_bits(), "{p:?}");
    assert_eq!(m.max_backlog, want.max_backlog, "{p:?}");
    assert_eq!(m.dropped_events, want.dropped_events, "{p:?}");
    assert_eq!(m.dropped_shipments, want.dropped_shipments, "{p:?}");
    m
}

fn issue(buffer: Option<u32>) -> Params {
    Params {
        flow: Flow {
            arrival_rate: Some(0.5),
            outage: Some(Outage {
                start: 1000,
                end: 2200,
            }),
            buffer,
            ..Default::default()
        },
        ..Params::default()
    }
}

/// Done when: `--arrival-rate 0.5 --outage 1000..2200 --buffer 300` keeps at most 300
/// events and drops some; a buffer large enough drops nothing.
#[test]
fn an_outage_overflows_a_300_event_buffer_and_a_large_enough_one_drops_nothing() {
    let small = checked(&issue(Some(300)));
    assert!(small.max_backlog <= 300, "{small:?}");
    assert!(small.dropped_events > 0, "{small:?}");
    assert!(small.dropped_shipments > 0 && small.wrong_final_state >= small.dropped_shipments);
    // Every shipment arrives once with its 7 events: no queue ever holds more than the
    // 35,000 events that arrive, so a buffer of 35,000 is never full.
    let p = Params::default();
    let every_event = p.shipments * p.events_per_shipment;
    let large = checked(&issue(Some(every_event)));
    assert_eq!((large.dropped_events, large.dropped_shipments), (0, 0));
    let unbounded = checked(&issue(None));
    assert_eq!(large, unbounded);
    // Without drops every event is applied: throughput · rounds is the 35,000 events.
    assert_eq!((large.throughput * large.rounds as f64).round(), 35_000.0);
    // The smallest buffer that drops nothing is the unbounded run's peak (per the
    // reference port): that one drops nothing, one event less drops some.
    let peak = reference::consumers_flow(&issue(None)).max_backlog as u32;
    assert_eq!(checked(&issue(Some(peak))).dropped_events, 0);
    assert!(checked(&issue(Some(peak - 1))).dropped_events > 0);
}

/// Done when: `--routing keyed --consumers 8 --slots 2` reorders no shipment (a shipment's
/// events go to one consumer, in queue order), on the lesson's queue and on arrivals.
#[test]
fn keyed_routing_reorders_no_shipment() {
    for arrival_rate in [None, Some(0.25)] {
        for (n, s) in [(8, 2), (8, 4), (2, 1), (64, 3)] {
            let p = Params {
                consumers: n,
                slots: s,
                flow: Flow {
                    routing: Routing::Keyed,
                    arrival_rate,
                    ..Default::default()
                },
                ..Params::default()
            };
            let m = checked(&p);
            assert_eq!(m.reordered_shipments, 0, "{p:?}");
            // Nothing dropped, every shipment ends on its last step.
            assert_eq!(m.wrong_final_state, 0, "{p:?}");
        }
    }
    // Shared, the same parameters reorder (the lesson's 2,279 at N = 8, S = 2).
    let shared = checked(&Params {
        consumers: 8,
        slots: 2,
        flow: Flow {
            buffer: Some(u32::MAX),
            ..Default::default()
        },
        ..Params::default()
    });
    assert_eq!(
        (
            shared.rounds,
            shared.reordered_shipments,
            shared.wrong_final_state
        ),
        (17_551, 2_279, 432)
    );
}

/// A buffer on the lesson's queue admits its first `buffer` events (all arrive in round 0).
#[test]
fn a_buffer_on_the_lesson_queue_keeps_its_first_events() {
    for buffer in [1, 2, 300, 34_999, 35_000, u32::MAX] {
        let m = checked(&Params {
            consumers: 3,
            flow: Flow {
                buffer: Some(buffer),
                ..Default::default()
            },
            ..Params::default()
        });
        let kept = u64::from(buffer).min(35_000);
        assert_eq!(m.max_backlog, kept);
        assert_eq!(m.dropped_events, 35_000 - kept);
    }
    // A buffer that holds the whole queue is the lesson's run (N = 3, S = 2: 30,620 rounds).
    let whole = checked(&Params {
        consumers: 3,
        flow: Flow {
            buffer: Some(35_000),
            ..Default::default()
        },
        ..Params::default()
    });
    assert_eq!(
        (
            whole.rounds,
            whole.reordered_shipments,
            whole.wrong_final_state
        ),
        (30_620, 248, 0)
    );
}

/// Without the options nothing changes (the lesson's engines run) and the new metrics say
/// the lesson's queue: every event queued at round 0, none dropped.
#[test]
fn the_lesson_keeps_its_engines_and_reports_its_queue() {
    let p = Params {
        consumers: 8,
        slots: 2,
        ..Params::default()
    };
    assert_eq!(p.flow, Flow::default());
    let m = core(&p).unwrap();
    assert_eq!(
        (m.rounds, m.reordered_shipments, m.wrong_final_state),
        (17_551, 2_279, 432)
    );
    assert_eq!(
        (m.max_backlog, m.dropped_events, m.dropped_shipments),
        (35_000, 0, 0)
    );
    // The reference engine's reading of the same run (a buffer that never binds) agrees.
    let flow = checked(&Params {
        flow: Flow {
            buffer: Some(35_000),
            ..p.flow
        },
        ..p
    });
    assert_eq!(flow, m);
}

/// The flow engine equals the reference across the accepted ranges' extremes and a spread
/// of shapes: consumers 1 to 64, slots 1 to u32::MAX, one event per shipment and 126,
/// processing times of 0 rounds and beyond the wheel, rates at both ends, the smallest and
/// largest buffers, outages from round 0 and to the last round.
#[test]
fn every_flow_run_equals_the_reference() {
    let base = Params {
        shipments: 300,
        ..Params::default()
    };
    let mut cases: Vec<Params> = Vec::new();
    let shapes = [
        base.clone(),
        Params {
            events_per_shipment: 1,
            ..base.clone()
        },
        Params {
            shipments: 20,
            events_per_shipment: 126,
            ..base.clone()
        },
        Params {
            final_event_rounds: 0,
            event_rounds_min: 0,
            event_rounds_spread: 0,
            ..base.clone()
        },
        Params {
            final_event_rounds: 90,
            event_rounds_spread: 70,
            ..base.clone()
        },
        Params {
            queue_gap: 0.0,
            ..base.clone()
        },
    ];
    let options: [(Option<f64>, Option<Outage>, Option<u32>); 9] = [
        (None, None, Some(1)),
        (None, None, Some(500)),
        (Some(0.5), None, None),
        (Some(0.1), Some(Outage { start: 0, end: 1 }), Some(40)),
        (
            Some(2.0),
            Some(Outage {
                start: 30,
                end: 400,
            }),
            Some(200),
        ),
        (Some(MAX_ARRIVAL_RATE), None, Some(u32::MAX)),
        (Some(0.05), None, Some(7)),
        (
            Some(1.0),
            Some(Outage {
                start: 0,
                end: u32::MAX,
            }),
            Some(1000),
        ),
        (Some(0.3), None, Some(1)),
    ];
    for shape in &shapes {
        for &(arrival_rate, outage, buffer) in &options {
            for routing in [Routing::Shared, Routing::Keyed] {
                for (consumers, slots) in [(1, 1), (2, 2), (3, 1), (8, 2), (13, 5), (64, u32::MAX)]
                {
                    cases.push(Params {
                        consumers,
                        slots,
                        flow: Flow {
                            arrival_rate,
                            outage,
                            buffer,
                            routing,
                        },
                        ..shape.clone()
                    });
                }
            }
        }
    }
    // The slowest rate: three shipments, about a million rounds apart.
    for routing in [Routing::Shared, Routing::Keyed] {
        cases.push(Params {
            shipments: 3,
            consumers: 2,
            flow: Flow {
                arrival_rate: Some(MIN_ARRIVAL_RATE),
                routing,
                ..Default::default()
            },
            ..Params::default()
        });
    }
    for p in &cases {
        p.validate().unwrap();
        let m = checked(p);
        if p.flow.routing == Routing::Keyed {
            assert_eq!(m.reordered_shipments, 0, "{p:?}");
        }
        if let Some(b) = p.flow.buffer {
            assert!(m.max_backlog <= u64::from(b), "{p:?}");
        }
    }
    let slow = checked(&cases[cases.len() - 1]);
    assert!(slow.rounds > 1_000_000, "{slow:?}");
}

/// The outage holds back every shipment due in its rounds until its end: with no
/// arrivals before `end`, the first round with a backlog is `end`, and holding back
/// only adds to the peak.
#[test]
fn an_outage_delivers_its_rounds_arrivals_at_its_end() {
    let open = Params {
        shipments: 2000,
        consumers: 8,
        slots: 4,
        flow: Flow {
            arrival_rate: Some(0.25),
            ..Default::default()
        },
        ..Params::default()
    };
    let with = Params {
        flow: Flow {
            outage: Some(Outage {
                start: 1000,
                end: 2200,
            }),
            ..open.flow
        },
        ..open.clone()
    };
    let (a, b) = (checked(&open), checked(&with));
    assert!(b.max_backlog > a.max_backlog, "{a:?} {b:?}");
    // About 0.25 · 1200 = 300 shipments (2,100 events) wait for round 2200.
    assert!(b.max_backlog >= 1500, "{b:?}");
}

fn error(p: &Params) -> String {
    p.validate().unwrap_err().to_string()
}

/// The accepted ranges' ends are accepted; just outside them, and nonsense, are refused
/// with a one-line error naming the flag.
#[test]
fn the_flow_options_ranges() {
    let ok = |p: Params| p.validate().unwrap();
    for rate in [MIN_ARRIVAL_RATE, 1.0, MAX_ARRIVAL_RATE] {
        ok(Params {
            flow: Flow {
                arrival_rate: Some(rate),
                ..Default::default()
            },
            ..Params::default()
        });
    }
    for rate in [
        0.0,
        MIN_ARRIVAL_RATE * 0.999,
        MAX_ARRIVAL_RATE * 1.001,
        -1.0,
        f64::NAN,
        f64::INFINITY,
    ] {
        let e = error(&Params {
            flow: Flow {
                arrival_rate: Some(rate),
                ..Default::default()
            },
            ..Params::default()
        });
        assert_eq!(
            e,
            "--arrival-rate: accepted values are numbers from 0.000001 to 65536"
        );
    }
    ok(Params {
        flow: Flow {
            buffer: Some(1),
            ..Default::default()
        },
        ..Params::default()
    });
    ok(Params {
        flow: Flow {
            buffer: Some(u32::MAX),
            ..Default::default()
        },
        ..Params::default()
    });
    assert_eq!(
        error(&Params {
            flow: Flow {
                buffer: Some(0),
                ..Default::default()
            },
            ..Params::default()
        }),
        "--buffer: accepted values are integers >= 1"
    );
    let with_rate = Params {
        flow: Flow {
            arrival_rate: Some(0.5),
            ..Default::default()
        },
        ..Params::default()
    };
    for (start, end) in [(0, 1), (u32::MAX - 1, u32::MAX), (0, u32::MAX)] {
        ok(Params {
            flow: Flow {
                outage: Some(Outage { start, end }),
                ..with_rate.flow
            },
            ..with_rate.clone()
        });
    }
    for (start, end) in [(5, 5), (6, 5)] {
        assert_eq!(
            error(&Params {
                flow: Flow {
                    outage: Some(Outage { start, end }),
                    ..with_rate.flow
                },
                ..with_rate.clone()
            }),
            "--outage: accepted values are 'none' or rounds A..B (B excluded) with A < B"
        );
    }
    assert_eq!(
        error(&Params {
            flow: Flow {
                outage: Some(Outage { start: 0, end: 1 }),
                ..Default::default()
            },
            ..Params::default()
        }),
        "--outage: accepted values are 'none' unless --arrival-rate is given"
    );
}

/// The board engine plays the lesson's queue only: it refuses each option by name.
#[test]
fn the_windowed_engine_refuses_the_flow_options() {
    let mut ws = consumers::windowed::Workspace::<160, 2048>::new();
    let cases = [
        (
            Params {
                flow: Flow {
                    arrival_rate: Some(0.5),
                    ..Default::default()
                },
                ..Params::default()
            },
            "arrival-rate",
        ),
        (
            Params {
                flow: Flow {
                    buffer: Some(10),
                    ..Default::default()
                },
                ..Params::default()
            },
            "buffer",
        ),
        (
            Params {
                flow: Flow {
                    routing: Routing::Keyed,
                    ..Default::default()
                },
                ..Params::default()
            },
            "routing",
        ),
    ];
    for (p, flag) in cases {
        let e = consumers::windowed::run(&p, &mut ws).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("--{flag}: accepted values are only the default on this engine (it plays the lesson's queue)")
        );
    }
}

/// Without room for the lesson's queue in arrival order, a run with a buffer or keyed
/// routing on it says so (the arrival process needs none).
#[test]
fn the_lesson_queue_needs_room_the_arrival_process_none() {
    let mut ws = Box::new(Workspace::<5000>::new());
    let keyed = Params {
        flow: Flow {
            routing: Routing::Keyed,
            ..Default::default()
        },
        ..Params::default()
    };
    assert_eq!(
        consumers::run(&keyed, &mut ws).unwrap_err().to_string(),
        "queued events (the room lent to sort the queue) exceeds its capacity of 0"
    );
    let arrivals = Params {
        consumers: 8,
        slots: 4,
        flow: Flow {
            arrival_rate: Some(0.3),
            ..keyed.flow
        },
        ..keyed
    };
    let m = consumers::run(&arrivals, &mut ws).unwrap();
    assert_eq!(m, checked(&arrivals));
}
