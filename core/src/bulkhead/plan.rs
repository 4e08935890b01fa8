//! The one place that says which layouts of a batch play which rounds.

use super::lane::shared_rounds;
use super::spec::{Params, Resilience};

/// Which layouts of a batch play which rounds, chosen once per batch by [`plan`].
///
/// Layouts that differ only in their slowdown play the same rounds until it starts in either
/// of them: such a layout follows an earlier one (its leader) until then and joins with a
/// copy of its state, so those rounds are played once (the lesson grid's healthy and
/// slowdown runs of a split share their first 1,000 rounds). Lane `k` plays
/// `params[order[k]]`: the leaders first, then the followers by the round they join (then
/// by index), so the lanes playing a round are always the first ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan<const B: usize> {
    /// Lane `k` plays layout `order[k]`.
    pub order: [usize; B],
    /// Lanes `0..leaders` play every round.
    pub leaders: usize,
    /// For a follower lane `k` (`k ≥ leaders`): the lane whose state it copies...
    pub leader: [usize; B],
    /// ...at the start of round `join[k]` (the horizon: it never plays a round itself).
    pub join: [u32; B],
    /// Some layout has an option the lesson does not have (an ended slowdown, a breaker,
    /// retries: [`Resilience`]): the batch plays on the reference engine (`reference.rs`), one
    /// layout at a time, and the fields above are not used.
    ///
    /// [`Resilience`]: super::Resilience
    pub reference: bool,
}

/// Returns the plan for the first `B` layouts of `params` (one stream, see [`Stream`]).
///
/// [`Stream`]: super::Stream
#[inline(always)]
pub fn plan<const B: usize>(params: &[Params]) -> Plan<B> {
    let layouts = params.len().min(B);
    let reference = params[..layouts]
        .iter()
        .any(|p| p.resilience != Resilience::default());
    let mut follows: [Option<(usize, u32)>; B] = [None; B];
    for i in 0..layouts {
        follows[i] = (0..i)
            .filter(|&j| follows[j].is_none())
            .find_map(|j| shared_rounds(&params[j], &params[i]).map(|d| (j, d)));
    }
    let mut order = [0usize; B];
    let mut lane_of = [0usize; B];
    let mut leader = [0usize; B];
    let mut join = [0u32; B];
    let mut leaders = 0;
    for (i, f) in follows[..layouts].iter().enumerate() {
        if f.is_none() {
            (order[leaders], lane_of[i]) = (i, leaders);
            leaders += 1;
        }
    }
    let mut k = leaders;
    // Followers by the round they join (a stable selection: at most B rounds of B).
    while k < layouts {
        let next = (0..layouts)
            .filter_map(|i| follows[i].map(|(j, d)| (d, i, j)))
            .filter(|&(_, i, _)| !order[leaders..k].contains(&i))
            .min_by_key(|&(d, i, _)| (d, i));
        let Some((d, i, j)) = next else { break };
        (order[k], leader[k], join[k]) = (i, lane_of[j], d);
        k += 1;
    }
    Plan {
        order,
        leaders,
        leader,
        join,
        reference,
    }
}

#[cfg(test)]
mod tests {
    use super::{plan, Plan};
    use crate::bulkhead::{Mode, Params, Split};

    fn layout(split: Split, mode: Mode) -> Params {
        Params {
            split,
            mode,
            ..Params::default()
        }
    }

    #[test]
    fn slowdown_runs_follow_their_healthy_layout_until_the_slowdown() {
        let (h, s) = (Mode::Healthy, Mode::Slowdown);
        let p = [
            layout(Split::Shared, h),
            layout(Split::Shared, s),
            layout(Split::Partitioned(24), h),
            layout(Split::Partitioned(24), s),
        ];
        let got = plan::<4>(&p);
        // Leaders 0 and 2; 1 copies lane 0 and 3 copies lane 1 (layout 2) at round 1000.
        assert_eq!(
            got,
            Plan {
                order: [0, 2, 1, 3],
                leaders: 2,
                leader: [0, 0, 0, 1],
                join: [0, 0, 1000, 1000],
                reference: false,
            }
        );
    }

    #[test]
    fn other_pools_or_a_slowdown_from_round_0_lead() {
        let other_hold = Params {
            event_hold: 7,
            ..Params::default()
        };
        let from_0 = Params {
            mode: Mode::Slowdown,
            failure_start: 0,
            ..Params::default()
        };
        let got = plan::<3>(&[Params::default(), other_hold.clone(), from_0]);
        assert_eq!((got.order, got.leaders), ([0, 1, 2], 3));
        // Equal layouts: the second joins at the horizon (plays no round itself).
        let got = plan::<2>(&[Params::default(), Params::default()]);
        assert_eq!((got.order, got.leaders, got.join[1]), ([0, 1], 1, 4000));
        // More layouts than lanes: the first B are planned.
        let got = plan::<1>(&[Params::default(), other_hold]);
        assert_eq!((got.order, got.leaders), ([0], 1));
    }

    /// Each option the lesson does not have sends the batch to the reference engine (a
    /// backoff without retries too: it changes nothing, and the reference engine plays the
    /// lesson's inputs as the fast one does); the lesson's values do not.
    #[test]
    fn the_options_go_to_the_reference_engine() {
        use crate::bulkhead::Breaker;
        let lesson = Params::default();
        let with = |f: fn(&mut Params)| {
            let mut p = Params::default();
            f(&mut p);
            plan::<2>(&[lesson.clone(), p]).reference
        };
        assert!(!plan::<1>(core::slice::from_ref(&lesson)).reference);
        assert!(with(|p| p.resilience.retry_backoff = 5));
        assert!(with(|p| p.resilience.failure_end = Some(2000)));
        assert!(with(|p| p.resilience.retries = 1));
        assert!(with(|p| {
            p.resilience.breaker = Some(Breaker {
                ratio: 0.5,
                window: 9,
                open_rounds: 500,
            })
        }));
    }
}
