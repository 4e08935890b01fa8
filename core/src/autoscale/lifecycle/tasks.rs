//! What removal does to the work: a node runs tasks of `task_rounds` rounds back to back
//! from the round it serves, and scale-in removes it mid-task. Azure Batch's
//! `$NodeDeallocationOption` decides (spec formula §8; Batch "Create a formula to scale
//! compute nodes", `$NodeDeallocationOption`):
//!
//! | option | the running task | the node |
//! |---|---|---|
//! | `requeue` (Batch's default) | stopped and queued again: the rounds done are lost (`lost_task_rounds`) | leaves at once |
//! | `terminate` | stopped and failed (`failed_tasks`), its rounds lost | leaves at once |
//! | `taskcompletion` | runs to its end | stays, billed and taking no new work, for the task's remaining rounds (`drain_rounds`) |
//! | `retaineddata` | runs to its end, then its retained data is cleaned up | stays the remaining rounds plus [`RETAINED_DATA_ROUNDS`] |
//!
//! A node's task progress is the rounds it has served since it came into service, modulo
//! `task_rounds`: at the decision in round `t`, a node serving since round `s` is
//! `(t − s) mod task_rounds` rounds into its task and has the rest to go, the decision's
//! round included. A terminate hook's wait comes on top (its timeout plus the drain). Only
//! scale-in removals are dealt with: a health-check replacement is a failed node, not a
//! deallocation. Policies other than a formula have no option: their removals requeue.

use crate::formula::Deallocation;

/// The longest task, in rounds (a week of one-minute rounds).
pub const MAX_TASK_ROUNDS: u32 = 10_080;

/// Rounds a node under `retaineddata` takes, after its task, to clean up the task's
/// retained data (the spec's `retained_rounds` default, 1).
pub const RETAINED_DATA_ROUNDS: u32 = 1;

/// What removing one node does to its task: (rounds of work lost, tasks failed, rounds the
/// node drains before it leaves, the decision's round included).
pub fn deallocate(option: Deallocation, task_rounds: u32, done: u32) -> (u32, u32, u32) {
    let left = task_rounds.saturating_sub(done % task_rounds.max(1));
    match option {
        Deallocation::Requeue => (done % task_rounds.max(1), 0, 0),
        Deallocation::Terminate => (done % task_rounds.max(1), 1, 0),
        Deallocation::TaskCompletion => (0, 0, left),
        Deallocation::RetainedData => (0, 0, left.saturating_add(RETAINED_DATA_ROUNDS)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_option_deals_with_the_task_as_batch_documents() {
        // A node 3 rounds into a 10-round task.
        assert_eq!(deallocate(Deallocation::Requeue, 10, 3), (3, 0, 0));
        assert_eq!(deallocate(Deallocation::Terminate, 10, 3), (3, 1, 0));
        assert_eq!(deallocate(Deallocation::TaskCompletion, 10, 3), (0, 0, 7));
        assert_eq!(deallocate(Deallocation::RetainedData, 10, 3), (0, 0, 8));
        // 23 rounds of service: the third task, 3 rounds in.
        assert_eq!(deallocate(Deallocation::TaskCompletion, 10, 23), (0, 0, 7));
        // A task that starts this round: nothing lost, the whole task to go.
        assert_eq!(deallocate(Deallocation::Requeue, 10, 20), (0, 0, 0));
        assert_eq!(deallocate(Deallocation::TaskCompletion, 10, 20), (0, 0, 10));
        // One-round tasks.
        assert_eq!(deallocate(Deallocation::TaskCompletion, 1, 5), (0, 0, 1));
    }
}
