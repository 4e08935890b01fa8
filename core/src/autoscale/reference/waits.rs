//! Phase 4 of a round: boot and restart timers, and the lifecycle hooks' waits (launch
//! hooks in Pending:Wait, terminate hooks and drains in Removing:Wait).

use super::super::lifecycle::hooks::{Ending, Wait};
use super::super::lifecycle::hooks::{LifecycleHook, Provider, Transition};
use super::super::lifecycle::HookResult;
use super::super::state::State;
use super::Group;

impl Group<'_> {
    /// Returns hook `k` of `transition`: the one-hook shorthand first, then the scenario's
    /// hooks of that transition in list order.
    pub(super) fn hook(&self, transition: Transition, k: u8) -> Option<LifecycleHook> {
        let lc = &self.params.lifecycle;
        let short = match transition {
            Transition::Launch => lc.launch_hook,
            Transition::Terminate => lc.terminate_hook,
        };
        let list = match transition {
            Transition::Launch => lc.launch_hooks,
            Transition::Terminate => lc.terminate_hooks,
        };
        let k = usize::from(k);
        match short {
            // At most MAX_HOOK_ROUNDS (360): fits.
            Some(h) if k == 0 => Some(LifecycleHook::plain(h.rounds as u16, h.result)),
            Some(_) => list.get(k - 1).copied(),
            None => list.get(k).copied(),
        }
    }

    /// Steps instance `i`'s `wait` on `hook` by one round and stores it in the record; when
    /// the wait ends, counts how and returns the hook's result.
    #[inline(always)]
    fn step_wait(&mut self, i: usize, wait: &mut Wait, hook: &LifecycleHook) -> Option<HookResult> {
        let o = &mut self.instances[i];
        let ended = wait.step(hook, &mut o.timer, &mut self.now.heartbeats);
        o.failures = wait.pack();
        let (ending, result) = ended?;
        self.count_ending(ending, result);
        Some(result)
    }

    /// Counts how a wait ended.
    fn count_ending(&mut self, ending: Ending, result: HookResult) {
        self.now.hooks_ended += 1;
        match ending {
            Ending::TimedOut => {
                self.metrics.hook_timeouts = self.metrics.hook_timeouts.saturating_add(1)
            }
            Ending::Completed => {
                self.metrics.hook_completions = self.metrics.hook_completions.saturating_add(1)
            }
            Ending::Capped => {
                self.metrics.hook_cap_timeouts = self.metrics.hook_cap_timeouts.saturating_add(1)
            }
        }
        if result == HookResult::Rollback {
            self.metrics.hook_rollbacks = self.metrics.hook_rollbacks.saturating_add(1);
        }
    }

    /// Phase 4: timers advance in storage order, one transition per instance at most. A
    /// timer set in this round's phases 1–3 counts down now; a wait entered now starts
    /// counting next round (so a launch hook of H rounds adds exactly H rounds). A wait's
    /// progress is the record's [`Wait`] ([`super::super::lifecycle::hooks`]).
    pub(super) fn advance(&mut self, t: u32) {
        let busy = self.counts.launching() + self.counts.get(State::RemovingWait);
        if busy == 0 {
            return;
        }
        let mut i = 0;
        while i < self.instances.len() {
            let state = self.instances[i].state;
            let kept = match state {
                State::Pending | State::Restarting => {
                    let o = &mut self.instances[i];
                    o.timer = o.timer.saturating_sub(1);
                    if o.timer == 0 {
                        match self.hook(Transition::Launch, 0) {
                            Some(h) => {
                                self.set(i, State::PendingWait);
                                self.instances[i].timer = u32::from(h.timeout);
                                self.instances[i].failures = Wait::at(0).pack();
                            }
                            None => self.serve(i, t),
                        }
                    }
                    true
                }
                State::PendingWait => self.launch_wait(i, t),
                State::RemovingWait => self.removal_wait(i),
                _ => true,
            };
            if kept {
                i += 1;
            }
        }
    }

    /// Moves instance `i` on to hook `k` of `transition` if there is one; returns whether
    /// there was.
    pub(super) fn next_hook(&mut self, i: usize, transition: Transition, k: u8) -> bool {
        match self.hook(transition, k) {
            Some(h) => {
                let o = &mut self.instances[i];
                o.timer = u32::from(h.timeout);
                o.failures = Wait::at(k).pack();
                true
            }
            None => false,
        }
    }

    /// One round of a Pending:Wait; returns whether the record stays.
    pub(super) fn launch_wait(&mut self, i: usize, t: u32) -> bool {
        let o = &mut self.instances[i];
        let mut wait = Wait::unpack(o.failures);
        let Some(hook) = self.hook(Transition::Launch, wait.hook) else {
            self.instances[i].failures = 0;
            self.serve(i, t);
            return true;
        };
        let Some(result) = self.step_wait(i, &mut wait, &hook) else {
            return true;
        };
        let next = wait.hook.saturating_add(1);
        let passes = match result {
            HookResult::Continue => true,
            // Alibaba: only the last hook's result counts.
            HookResult::Abandon => {
                hook.provider == Provider::Alibaba && self.hook(Transition::Launch, next).is_some()
            }
            HookResult::Rollback => false,
        };
        if !passes {
            self.metrics.abandoned_launches = self.metrics.abandoned_launches.saturating_add(1);
            self.drop_at(i);
            return false;
        }
        if !self.next_hook(i, Transition::Launch, next) {
            self.instances[i].failures = 0;
            self.serve(i, t);
        }
        true
    }

    /// One round of a Removing:Wait (a terminate hook, or a drain); returns whether the
    /// record stays.
    pub(super) fn removal_wait(&mut self, i: usize) -> bool {
        let o = &mut self.instances[i];
        let mut wait = Wait::unpack(o.failures);
        let hook = if wait.hook == Wait::DRAIN {
            None
        } else {
            self.hook(Transition::Terminate, wait.hook)
        };
        let Some(hook) = hook else {
            // A drain without a terminate hook is no hook timing out.
            let o = &mut self.instances[i];
            o.timer = o.timer.saturating_sub(1);
            return o.timer > 0 || self.leave(i);
        };
        let Some(result) = self.step_wait(i, &mut wait, &hook) else {
            return true;
        };
        match result {
            HookResult::Continue => {
                let next = wait.hook.saturating_add(1);
                self.next_hook(i, Transition::Terminate, next) || self.leave(i)
            }
            HookResult::Abandon => self.leave(i),
            HookResult::Rollback => {
                self.set(i, State::InService);
                let o = &mut self.instances[i];
                o.forget_checks();
                // Serving again from the next round (its task model starts over).
                o.timer = self.now.round + 1;
                true
            }
        }
    }

    /// Puts instance `i` into service at the end of round `t`: it serves from round `t + 1`.
    pub(super) fn serve(&mut self, i: usize, t: u32) {
        self.set(i, State::InService);
        if self.params.lifecycle.task_rounds.is_some() {
            // Its first task starts in the round it first serves.
            self.instances[i].timer = t + 1;
        }
        self.now.entered_service += 1;
        let waited = (t + 1).saturating_sub(self.instances[i].since);
        let m = &mut self.metrics;
        m.time_to_in_service_max = m.time_to_in_service_max.max(waited);
    }
}
