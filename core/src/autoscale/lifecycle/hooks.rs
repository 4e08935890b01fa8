//! Lifecycle hooks as the providers run them: several per transition, one after another;
//! a job that completes the wait early; heartbeats that restart its timeout; each
//! provider's caps on a wait.
//!
//! Facts (lifecycle spec §4; one round = 60 s, seconds round up to whole rounds):
//! - **Timeout** (`HeartbeatTimeout`): Alibaba 30–21,600 s (1–360 rounds), AWS 30–7,200 s
//!   (1–120 rounds) (Alibaba CreateLifecycleHook; AWS PutLifecycleHook).
//! - **Early completion**: `CompleteLifecycleAction` ends the wait "ahead of schedule" with
//!   the result given (Alibaba CompleteLifecycleAction; AWS completing-lifecycle-hooks).
//!   Here the hook's job completes `action_rounds` rounds into the wait, with CONTINUE.
//! - **Heartbeat**: `RecordLifecycleActionHeartbeat` restarts the timeout: "if the timeout
//!   period is one hour, and you call this command after 30 minutes, the instance remains in
//!   a wait state for an additional hour, or a total of 90 minutes" (AWS). Alibaba "extends
//!   the timeout", at most 20 times, and a wait lasts no longer than six hours (Alibaba
//!   RecordLifecycleActionHeartbeat); restarting it to the full timeout is the spec's
//!   reading (§12 Q1).
//! - **Global timeout** (AWS): a wait lasts at most 48 hours or 100 × the heartbeat timeout,
//!   whichever is smaller (AWS lifecycle-hooks, `GlobalTimeout`). At a cap the wait ends with
//!   the hook's default result (spec §10.5; neither provider names the result there).
//! - **Default result**: Alibaba CONTINUE, AWS ABANDON when none is given (Alibaba
//!   CreateLifecycleHook; AWS PutLifecycleHook "The default value is ABANDON"). Alibaba
//!   also takes ROLLBACK (CompleteLifecycleAction, API 2014-08-28: "continue responding to
//!   the scaling activity (CONTINUE), abandon the scaling activity (ABANDON), or perform a
//!   rollback (ROLLBACK)"; terraform-provider-alicloud #5550 added it to `default_result`).
//! - **How many**: AWS 50 lifecycle hooks per group (EC2 Auto Scaling quotas); Alibaba 6
//!   (2021 API text) or 10 (2025 pages). [`MAX_HOOKS`] is AWS's 50, both transitions
//!   together.
//!
//! The order of several hooks of one transition is the spec's proposal (§10.5, §12 Q2):
//! they run in list order, each with a fresh timeout. A launch: CONTINUE after the last
//! hook puts the instance in service; ABANDON ends the launch (AWS) — under Alibaba the
//! result that counts is the last hook's (CompleteLifecycleAction: the final action is the
//! result of the hook that ends last), so an earlier ABANDON only passes the instance on.
//! ROLLBACK releases a launch at once, like ABANDON. A removal: CONTINUE passes it to the
//! next hook, ABANDON ends the remaining hooks and removes it (both providers), ROLLBACK
//! takes the removal back: the instance returns to InService (a GUESS: Alibaba documents
//! the word, not its effect on one instance).

use super::HookResult;

/// The most lifecycle hooks one group may have, launch and terminate together (AWS's quota,
/// "Lifecycle hooks per Auto Scaling group 50"; Alibaba allows 6 or 10).
pub const MAX_HOOKS: usize = 50;

/// Whose rules a hook follows: its accepted timeout, default result and caps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Provider {
    /// Alibaba Cloud Auto Scaling (the lesson's provider and the spec's primary one).
    #[default]
    Alibaba,
    /// Amazon EC2 Auto Scaling.
    Aws,
}

impl Provider {
    /// Returns the provider as the key spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Provider::Alibaba => "alibaba",
            Provider::Aws => "aws",
        }
    }

    /// Returns the longest timeout, in rounds: Alibaba 21,600 s, AWS 7,200 s.
    pub const fn max_timeout(self) -> u32 {
        match self {
            Provider::Alibaba => 360,
            Provider::Aws => 120,
        }
    }

    /// Returns the result of a hook that names none: Alibaba CONTINUE, AWS ABANDON.
    pub const fn default_result(self) -> HookResult {
        match self {
            Provider::Alibaba => HookResult::Continue,
            Provider::Aws => HookResult::Abandon,
        }
    }

    /// Returns the most heartbeats one wait takes (Alibaba 20; AWS: no count, its global
    /// timeout ends the wait).
    pub const fn max_heartbeats(self) -> u32 {
        match self {
            Provider::Alibaba => 20,
            Provider::Aws => u32::MAX,
        }
    }

    /// Returns the longest a wait of a hook with `timeout` rounds may last, heartbeats and
    /// all: Alibaba six hours (360 rounds); AWS min(48 hours, 100 × timeout).
    pub const fn wait_cap(self, timeout: u32) -> u32 {
        match self {
            Provider::Alibaba => 360,
            Provider::Aws => {
                let hundred = timeout.saturating_mul(100);
                if hundred < 2880 {
                    hundred
                } else {
                    2880
                }
            }
        }
    }
}

/// Which transition a hook holds: AWS `EC2_INSTANCE_LAUNCHING` / Alibaba `SCALE_OUT`, or
/// `EC2_INSTANCE_TERMINATING` / `SCALE_IN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Transition {
    /// A launch (or a restart of a Stopped instance): the wait is Pending:Wait.
    Launch,
    /// A removal by scale-in: the wait is Removing:Wait (AWS Terminating:Wait).
    Terminate,
}

/// One lifecycle hook of a scenario (8 bytes). Which transition it holds is the list it is
/// in ([`super::Lifecycle::launch_hooks`], [`super::Lifecycle::terminate_hooks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LifecycleHook {
    /// Whose rules it follows.
    pub provider: Provider,
    /// The result at its timeout (or at the provider's cap).
    pub default_result: HookResult,
    /// The timeout, in rounds: 1 to the provider's [`Provider::max_timeout`].
    pub timeout: u16,
    /// Rounds into the wait after which its job completes it with CONTINUE; 0: never (it
    /// lasts until its timeout). A value at or beyond the timeout never completes it
    /// either, unless heartbeats keep the wait open that long.
    pub action_rounds: u16,
    /// Every this many rounds of the wait a heartbeat restarts the timeout; 0: none.
    pub heartbeat_every: u16,
}

impl LifecycleHook {
    /// Returns a hook that only waits: `timeout` rounds, then `result` (the one-hook flags'
    /// shorthand, Alibaba's rules).
    pub const fn plain(timeout: u16, result: HookResult) -> Self {
        Self {
            provider: Provider::Alibaba,
            default_result: result,
            timeout,
            action_rounds: 0,
            heartbeat_every: 0,
        }
    }

    /// Returns whether the hook's settings are within its provider's accepted ranges.
    pub fn valid(&self) -> bool {
        let timeout = u32::from(self.timeout);
        (1..=self.provider.max_timeout()).contains(&timeout)
            && (self.default_result != HookResult::Rollback || self.provider == Provider::Alibaba)
    }
}

/// How a wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The hook's job completed it (CompleteLifecycleAction, CONTINUE).
    Completed,
    /// Its timeout passed without a heartbeat.
    TimedOut,
    /// The provider's cap ended it (AWS global timeout, Alibaba's six hours).
    Capped,
}

/// The progress of one instance's wait: which hook of its transition holds it, the
/// heartbeats it has had and the rounds it has waited. It lives in the record's failure
/// counter, which no waiting instance uses (only serving ones are checked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Wait {
    /// The hook's index among its transition's hooks; [`Wait::DRAIN`]: a drain, no hook.
    pub hook: u8,
    /// Heartbeats so far.
    pub heartbeats: u8,
    /// Rounds waited so far (at most AWS's 2,880).
    pub waited: u16,
}

impl Wait {
    /// The hook index of a wait that is a drain only (a formula's deallocation option).
    pub const DRAIN: u8 = u8::MAX;

    pub const fn at(hook: u8) -> Self {
        Self {
            hook,
            heartbeats: 0,
            waited: 0,
        }
    }

    pub const fn pack(self) -> u32 {
        (self.hook as u32) | ((self.heartbeats as u32) << 8) | ((self.waited as u32) << 16)
    }

    pub const fn unpack(bits: u32) -> Self {
        Self {
            hook: (bits & 0xff) as u8,
            heartbeats: ((bits >> 8) & 0xff) as u8,
            waited: (bits >> 16) as u16,
        }
    }

    /// One round of the wait under `hook` with `timer` rounds left: returns how it ended,
    /// if it did, and its result. Counts a heartbeat in `beats`.
    pub fn step(
        &mut self,
        hook: &LifecycleHook,
        timer: &mut u32,
        beats: &mut u32,
    ) -> Option<(Ending, HookResult)> {
        self.waited = self.waited.saturating_add(1);
        let waited = u32::from(self.waited);
        if hook.action_rounds != 0 && waited == u32::from(hook.action_rounds) {
            return Some((Ending::Completed, HookResult::Continue));
        }
        let timeout = u32::from(hook.timeout);
        let cap = hook.provider.wait_cap(timeout);
        let every = u32::from(hook.heartbeat_every);
        if every != 0
            && waited.is_multiple_of(every)
            && waited < cap
            && u32::from(self.heartbeats) < hook.provider.max_heartbeats()
        {
            self.heartbeats = self.heartbeats.saturating_add(1);
            *beats = beats.saturating_add(1);
            *timer = timeout;
            return None;
        }
        *timer = timer.saturating_sub(1);
        if *timer == 0 {
            Some((Ending::TimedOut, hook.default_result))
        } else if waited >= cap {
            Some((Ending::Capped, hook.default_result))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(provider: Provider, timeout: u16, action: u16, every: u16) -> LifecycleHook {
        LifecycleHook {
            provider,
            default_result: HookResult::Continue,
            timeout,
            action_rounds: action,
            heartbeat_every: every,
        }
    }

    /// Runs a wait to its end: (rounds waited, how it ended, heartbeats).
    fn wait(h: &LifecycleHook) -> (u32, Ending, u32) {
        let mut w = Wait::at(0);
        let mut timer = u32::from(h.timeout);
        let mut beats = 0;
        for round in 1..=10_000 {
            if let Some((end, _)) = w.step(h, &mut timer, &mut beats) {
                return (round, end, beats);
            }
        }
        (0, Ending::TimedOut, beats)
    }

    #[test]
    fn records_stay_small() {
        assert_eq!(core::mem::size_of::<LifecycleHook>(), 8);
        let w = Wait {
            hook: 49,
            heartbeats: 20,
            waited: 2880,
        };
        assert_eq!(Wait::unpack(w.pack()), w);
    }

    /// AWS's own example: a one-hour timeout and a heartbeat after 30 minutes wait 90
    /// minutes in all (one heartbeat only: the second would come at 60).
    #[test]
    fn a_heartbeat_restarts_the_timeout_as_aws_documents() {
        let mut w = Wait::at(0);
        let h = hook(Provider::Aws, 60, 0, 30);
        let mut timer = 60;
        let mut beats = 0;
        let mut ended = None;
        for round in 1..=200u32 {
            // Only the heartbeat at 30: skip the later ones by ending the cadence.
            let h = if round > 30 {
                LifecycleHook {
                    heartbeat_every: 0,
                    ..h
                }
            } else {
                h
            };
            if w.step(&h, &mut timer, &mut beats).is_some() {
                ended = Some(round);
                break;
            }
        }
        assert_eq!(ended, Some(90));
        assert_eq!(beats, 1);
    }

    /// A hook's (timeout, completion, heartbeat cadence), and how its wait ends: (rounds
    /// waited, how, heartbeats).
    type Case = ((u16, u16, u16), (u32, Ending, u32));

    #[test]
    fn the_providers_caps_end_a_wait() {
        let alibaba: [Case; 5] = [
            // No heartbeat: the timeout.
            ((10, 0, 0), (10, Ending::TimedOut, 0)),
            // The longest timeout is a timeout, not the cap.
            ((360, 0, 0), (360, Ending::TimedOut, 0)),
            // The job completes it early.
            ((10, 3, 0), (3, Ending::Completed, 0)),
            // 20 heartbeats every 5 rounds, then a last full timeout: 100 + 10.
            ((10, 0, 5), (110, Ending::TimedOut, 20)),
            // Six hours at most (heartbeats at 100, 200, 300).
            ((300, 0, 100), (360, Ending::Capped, 3)),
        ];
        let aws: [Case; 2] = [
            // A heartbeat every round is stopped by 100 × the timeout.
            ((2, 0, 1), (200, Ending::Capped, 199)),
            // And by 48 hours for long timeouts.
            ((120, 0, 60), (2880, Ending::Capped, 47)),
        ];
        for (provider, cases) in [(Provider::Alibaba, &alibaba[..]), (Provider::Aws, &aws)] {
            for &((timeout, action, every), ended) in cases {
                let h = hook(provider, timeout, action, every);
                assert_eq!(wait(&h), ended, "{h:?}");
            }
        }
    }

    #[test]
    fn the_providers_ranges_and_defaults() {
        let mut h = hook(Provider::Aws, 120, 0, 0);
        assert!(h.valid());
        h.timeout = 121;
        assert!(!h.valid());
        h.provider = Provider::Alibaba;
        assert!(h.valid());
        h.timeout = 361;
        assert!(!h.valid());
        h.timeout = 0;
        assert!(!h.valid());
        h.timeout = 1;
        h.default_result = HookResult::Rollback;
        assert!(h.valid());
        h.provider = Provider::Aws;
        assert!(!h.valid(), "ROLLBACK is Alibaba's");
        assert_eq!(Provider::Aws.default_result(), HookResult::Abandon);
        assert_eq!(Provider::Alibaba.default_result(), HookResult::Continue);
    }
}
