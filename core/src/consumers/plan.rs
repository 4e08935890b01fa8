//! The one place that says which engine runs for which input.

use super::lanes::wheel::wheel_fits;
use super::spec::{Flow, LaneKey, Workload};

/// How a batch's queue is made and which lane engine plays it, chosen once per batch by
/// [`plan`] from the workload, whether the run is observed and the room to sort it whole.
///
/// Every engine computes the same rounds, bit for bit (`tests/tests/engines.rs` checks each
/// against the reference port of the lesson program); they differ in what they assume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Plan {
    /// The workload generated whole and sorted at once (it fits the sort's room and every
    /// processing time is below 64 rounds). An unobserved lane then plays the sorted array
    /// with the engine [`WholeLane::of`] names; an observed one with the timing wheel.
    /// Should the sort find a shipment's arrivals out of step order, the batch falls back
    /// to [`Plan::MergedWheel`], which reports it.
    SortedWhole {
        /// Whether the one configuration is observed (its rounds reported).
        observed: bool,
    },
    /// The queue merged on the fly, each lane on the timing wheel (every processing time is
    /// below 64 rounds).
    MergedWheel,
    /// The queue merged on the fly, each lane on the general event-driven engine (some
    /// processing time reaches 64 rounds).
    MergedEvent,
    /// An arrival process, a buffer or keyed routing ([`Workload::flow`] other than [`Flow::default`]): the reference engine
    /// (`reference.rs`), round by round, on the lesson's queue kept in arrival order (in the
    /// sort's room) or on the arrival process's. No other engine plays these.
    Reference,
}

/// The engine an unobserved lane plays a queue sorted whole with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WholeLane {
    /// One consumer: events apply in queue order, the last in the round that sums every
    /// event's delay.
    Serial,
    /// 2 to 8 consumers and a store that never binds (N ≤ S): the earliest of N keys picks
    /// the next event to apply.
    Free(u32),
    /// Otherwise: whole wheel rounds with no check per event while every consumer holds an
    /// event, then the timing wheel for the last rounds.
    Rounds(LaneKey),
}

impl WholeLane {
    /// Returns the engine for lane `key`.
    pub const fn of(key: LaneKey) -> Self {
        if key.store_never_binds() {
            match key.consumers {
                1 => return WholeLane::Serial,
                2..=8 => return WholeLane::Free(key.consumers),
                _ => {}
            }
        }
        WholeLane::Rounds(key)
    }
}

/// Returns the plan for a batch on workload `w`: `observed` when its one configuration
/// reports its rounds, `sort_room` the most events the caller's storage sorts whole.
pub fn plan(w: &Workload, observed: bool, sort_room: usize) -> Plan {
    if w.flow != Flow::default() {
        return Plan::Reference;
    }
    let fits = wheel_fits(w);
    let sortable = usize::try_from(w.events()).is_ok_and(|e| e > 0 && e <= sort_room);
    if fits && sortable {
        Plan::SortedWhole { observed }
    } else if fits {
        Plan::MergedWheel
    } else {
        Plan::MergedEvent
    }
}

#[cfg(test)]
mod tests {
    use super::{plan, Plan, WholeLane};
    use crate::consumers::{Flow, LaneKey, Params};

    #[test]
    fn the_lesson_sorted_whole_when_room_merged_otherwise() {
        let w = Params::default().workload();
        assert_eq!(
            plan(&w, false, 35_000),
            Plan::SortedWhole { observed: false }
        );
        assert_eq!(plan(&w, true, 35_000), Plan::SortedWhole { observed: true });
        // One event short of room: merged, on the wheel (processing times below 64).
        assert_eq!(plan(&w, false, 34_999), Plan::MergedWheel);
        assert_eq!(plan(&w, false, 0), Plan::MergedWheel);
    }

    #[test]
    fn processing_times_of_64_rounds_leave_the_wheel() {
        // 1 + 62 = 63 < 64 fits; 1 + 63 = 64 does not; the last event alone counts too.
        let fits = Params {
            event_rounds_spread: 62,
            ..Params::default()
        }
        .workload();
        assert_eq!(
            plan(&fits, false, 1 << 20),
            Plan::SortedWhole { observed: false }
        );
        let long = Params {
            event_rounds_spread: 63,
            ..Params::default()
        }
        .workload();
        assert_eq!(plan(&long, false, 1 << 20), Plan::MergedEvent);
        let last = Params {
            final_event_rounds: 64,
            ..Params::default()
        }
        .workload();
        assert_eq!(plan(&last, false, 1 << 20), Plan::MergedEvent);
        // With one event per shipment only the last event's time counts.
        let one = Params {
            events_per_shipment: 1,
            event_rounds_spread: 1000,
            ..Params::default()
        };
        assert_eq!(
            plan(&one.workload(), false, 1 << 20),
            Plan::SortedWhole { observed: false }
        );
    }

    #[test]
    fn every_flow_option_goes_to_the_reference_engine() {
        use crate::consumers::{Outage, Routing};
        let lesson = Params::default();
        let with = |flow: Flow| Params {
            flow,
            ..lesson.clone()
        };
        let options = [
            with(Flow {
                arrival_rate: Some(0.5),
                ..Flow::default()
            }),
            with(Flow {
                arrival_rate: Some(0.5),
                outage: Some(Outage { start: 0, end: 1 }),
                ..Flow::default()
            }),
            with(Flow {
                buffer: Some(u32::MAX),
                ..Flow::default()
            }),
            with(Flow {
                routing: Routing::Keyed,
                ..Flow::default()
            }),
        ];
        for (p, flag) in options.iter().zip(Flow::FLAGS) {
            assert_ne!(p.flow, Flow::default());
            // Each names its own flag first (the outage's run has a rate too).
            let first = p.flow.first_difference(&Flow::default());
            assert_eq!(
                first,
                Some(if flag == "outage" {
                    "arrival-rate"
                } else {
                    flag
                })
            );
            for (observed, room) in [(false, 35_000), (true, 35_000), (false, 0)] {
                assert_eq!(
                    plan(&p.workload(), observed, room),
                    Plan::Reference,
                    "{p:?}"
                );
            }
            // A flow option is part of the workload: batches never mix it with the lesson's.
            assert!(lesson.workload().first_difference(&p.workload()).is_some());
        }
        assert_eq!(lesson.flow, Flow::default());
        assert_eq!(lesson.flow.first_difference(&Flow::default()), None);
    }

    #[test]
    fn whole_lanes_by_consumers_and_slots() {
        let lane = |n, s| WholeLane::of(LaneKey::of(n, s));
        assert_eq!(lane(1, 1), WholeLane::Serial);
        assert_eq!(lane(1, 4), WholeLane::Serial);
        assert_eq!(lane(2, 2), WholeLane::Free(2));
        assert_eq!(lane(8, 100), WholeLane::Free(8));
        assert_eq!(
            lane(9, 9),
            WholeLane::Rounds(LaneKey {
                consumers: 9,
                slots: 9
            })
        );
        assert_eq!(
            lane(8, 2),
            WholeLane::Rounds(LaneKey {
                consumers: 8,
                slots: 2
            })
        );
        assert_eq!(
            lane(64, 1),
            WholeLane::Rounds(LaneKey {
                consumers: 64,
                slots: 1
            })
        );
    }

    #[test]
    fn lane_keys_fold_slots_above_the_consumers() {
        assert_eq!(LaneKey::of(1, 2), LaneKey::of(1, 4));
        assert_eq!(LaneKey::of(2, 2), LaneKey::of(2, 4));
        assert_ne!(LaneKey::of(3, 2), LaneKey::of(3, 4));
        assert_eq!(
            LaneKey::of(3, 4),
            LaneKey {
                consumers: 3,
                slots: 3
            }
        );
    }
}
