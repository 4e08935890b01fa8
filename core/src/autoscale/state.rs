//! Instance states, their counts, and the per-round snapshot an observer sees.

/// Where an instance is in its lifecycle; the doc of each variant gives the provider's name
/// (Alibaba first, AWS second) and what the simulator does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum State {
    /// `Pending` (AWS `Pending`): launched and booting for `boot_rounds`; billed, not serving.
    Pending,
    /// `Pending:Wait`: held by a launch hook until its timeout; billed, not serving.
    PendingWait,
    /// `InService`: serving; health-checked; the only scale-in candidate.
    InService,
    /// `Standby`: out of service, not checked, never removed; billed. Nothing enters it
    /// from the command line (it needs scripted user actions).
    Standby,
    /// `Protected` (AWS: scale-in protection): serving and checked, never a scale-in victim.
    Protected,
    /// `Removing` (AWS `Terminating`): chosen by scale-in. It lasts no whole round here: the
    /// victim moves on in the same phase (to `Removing:Wait`, or out of the group).
    Removing,
    /// `Removing:Wait` (AWS `Terminating:Wait`): held by a terminate hook; billed, not serving.
    RemovingWait,
    /// `Stopped` (economical reclaim mode): out of service, billed for storage only (not in
    /// `billed_rounds`); restarted first at scale-out.
    Stopped,
    /// A Stopped instance starting again for `restart_rounds` (Alibaba shows it as
    /// `Pending`); billed, not serving.
    Restarting,
    /// `preempted` (Azure Batch's node state): a spot instance taken back that stays in the
    /// pool until capacity returns (see `spot`); not serving, not billed. Only the spot
    /// class (off by default) enters it.
    Preempted,
}

impl State {
    /// How many states there are (the length of [`StateCounts`]).
    pub const COUNT: usize = 10;

    /// The states a group without the spot class can be in (the first nine: a plain trace's
    /// columns).
    pub const LIFECYCLE: usize = 9;

    /// Every state, in declaration order (the index of [`StateCounts`]).
    pub const ALL: [State; State::COUNT] = [
        State::Pending,
        State::PendingWait,
        State::InService,
        State::Standby,
        State::Protected,
        State::Removing,
        State::RemovingWait,
        State::Stopped,
        State::Restarting,
        State::Preempted,
    ];

    /// Returns the provider's name of the state (Alibaba's spelling).
    pub const fn name(self) -> &'static str {
        match self {
            State::Pending => "Pending",
            State::PendingWait => "Pending:Wait",
            State::InService => "InService",
            State::Standby => "Standby",
            State::Protected => "Protected",
            State::Removing => "Removing",
            State::RemovingWait => "Removing:Wait",
            State::Stopped => "Stopped",
            State::Restarting => "Restarting",
            State::Preempted => "Preempted",
        }
    }

    /// Returns whether the instance serves requests (what the lesson calls ready).
    pub const fn serves(self) -> bool {
        matches!(self, State::InService | State::Protected)
    }

    /// Returns whether the instance is on its way into service (booting, waiting, restarting).
    pub const fn launching(self) -> bool {
        matches!(
            self,
            State::Pending | State::PendingWait | State::Restarting
        )
    }

    /// Returns whether the instance is billed in full (every state but Stopped and
    /// Preempted).
    pub const fn billed(self) -> bool {
        !matches!(self, State::Stopped | State::Preempted)
    }
}

/// How many instances are in each state, indexed by `State as usize`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StateCounts(pub [u32; State::COUNT]);

impl StateCounts {
    /// Returns the count of one state.
    pub const fn get(&self, s: State) -> u32 {
        self.0[s as usize]
    }

    /// Returns the instances that serve (InService and Protected).
    pub const fn serving(&self) -> u32 {
        self.get(State::InService) + self.get(State::Protected)
    }

    /// Returns the instances on their way into service (Pending, Pending:Wait, Restarting).
    pub const fn launching(&self) -> u32 {
        self.get(State::Pending) + self.get(State::PendingWait) + self.get(State::Restarting)
    }

    /// Returns every instance record (the group size; Stopped ones included).
    pub fn total(&self) -> u32 {
        self.0.iter().sum()
    }

    pub(crate) fn enter(&mut self, s: State) {
        self.0[s as usize] += 1;
    }

    pub(crate) fn leave(&mut self, s: State) {
        self.0[s as usize] -= 1;
    }
}

/// One round as a teaching board shows it (handed to [`crate::Observer::round`]).
///
/// Summed over a run, `launched` is the run's `launched`, `replaced` its `replacements`,
/// `restarted` its `restarts_from_stopped + warm_starts`, `failed` its `failed_launches`,
/// `preempted` its `preemptions`; the largest `size` is `max_size`; `b = size − stopped −
/// preempted + warm_billed` is `billed_rounds`, and `b − serving + entered_service` is
/// `idle_billed_rounds`; `stopped + warm − warm_billed` is `stopped_rounds`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RoundState {
    /// The round.
    pub round: u32,
    /// The demand of the round, in requests.
    pub demand: f64,
    /// The instances the demand needs (`ceil(demand / capacity)`, as an integer).
    pub required: i64,
    /// Every instance record at the end of the round (the sum of `counts`).
    pub size: u32,
    /// Instances per state at the end of the round.
    pub counts: StateCounts,
    /// Broken instances in the group at the end of the round (serving or not).
    pub broken: u32,
    /// Fresh instances launched this round (scaling and replacements).
    pub launched: u32,
    /// Instances the health check replaced this round.
    pub replaced: u32,
    /// Instances scale-in chose this round.
    pub removed: u32,
    /// Stopped instances restarted this round.
    pub restarted: u32,
    /// Launch requests that failed this round (capacity not available).
    pub failed: u32,
    /// Instances that came into service at the end of this round (their boot, restart or
    /// launch-hook wait ended): counted serving in `counts`, they serve from the next round,
    /// so this round is still one of their idle billed rounds.
    pub entered_service: u32,
    /// A formula policy's dedicated target after this round's decision (0 under any other
    /// policy).
    pub target_dedicated: u32,
    /// Whether a formula was evaluated this round (its evaluation: [`crate::Observer::note`]).
    pub evaluated: bool,
    /// Whether this round's evaluation failed (the group left unchanged).
    pub evaluation_failed: bool,
    /// Timed operator actions applied this round (a scenario's `[[at]]`).
    pub actions: u32,
    /// Lifecycle-hook waits that ended this round: completed, timed out or capped (each
    /// hook of a sequence is one wait).
    pub hooks_ended: u32,
    /// Lifecycle-hook heartbeats recorded this round.
    pub heartbeats: u32,
    /// Spot instances in the group at the end of the round (every state; 0 without the
    /// spot class). Summed, less the Preempted and Stopped ones: `billed_spot_rounds`.
    pub spot: u32,
    /// Spot instances preempted this round.
    pub preempted: u32,
    /// Instances in the warm pool at the end of the round (warm, and refills booting); not
    /// in `size`. 0 without a pool.
    pub warm: u32,
    /// Of them, the ones billed in full this round (a Running pool's warm ones, and every
    /// refill booting); the rest are Stopped (in `stopped_rounds`).
    pub warm_billed: u32,
    /// The Kubernetes HPA's sync of this round (`None` under any other policy).
    #[cfg(feature = "hpa")]
    pub hpa: Option<super::hpa::HpaRound>,
}

/// A round's note is the formula's evaluation, as Batch's `AutoScaleRun` records it: a group
/// driven by a formula notes one in each round the formula was evaluated, before the round's
/// state (which marks it: `evaluated`, `evaluation_failed`).
impl crate::Round for RoundState {
    type Note<'a> = crate::formula::AutoScaleRun<'a>;
}

/// One instance record (16 bytes; a group holds [`super::MAX_GROUP_SIZE`] of them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instance {
    /// The round of the decision that launched or restarted it (age for removal policies,
    /// start of its time to service).
    pub since: u32,
    /// Rounds left in a timed state (boot, restart, hook wait).
    pub timer: u32,
    /// Consecutive failed health-check results received.
    pub failures: u32,
    /// Health-check results not yet known: bit `i` is the result (1 = failed) of the check
    /// made `i` rounds ago (`check_latency` > 0 only).
    pub in_transit: u8,
    /// Checks made since it entered service, saturating (a result is known once this
    /// exceeds the latency).
    pub checks: u8,
    pub state: State,
    /// [`Instance::BROKEN`], [`Instance::SPOT`], [`Instance::NOTICED`].
    flags: u8,
}

impl Instance {
    /// Broken for good (the lesson's permanent failure).
    const BROKEN: u8 = 1;
    /// Of the spot class.
    const SPOT: u8 = 2;
    /// Struck by a preemption: `timer` counts its notice down (it serves meanwhile).
    const NOTICED: u8 = 4;

    pub const fn new(state: State, since: u32, timer: u32) -> Self {
        Self {
            since,
            timer,
            failures: 0,
            in_transit: 0,
            checks: 0,
            state,
            flags: 0,
        }
    }

    /// Returns the instance as a policy that reads the group sees it.
    #[cfg(feature = "hpa")]
    pub fn view(&self) -> super::policy::InstanceView {
        super::policy::InstanceView {
            state: self.state,
            since: self.since,
            broken: self.broken(),
        }
    }

    /// Returns a fresh launch of the spot class.
    pub const fn spot(state: State, since: u32, timer: u32) -> Self {
        let mut o = Self::new(state, since, timer);
        o.flags = Self::SPOT;
        o
    }

    /// Returns a fresh launch of the spot class (`spot`) or the dedicated one.
    #[inline]
    pub const fn of_class(spot: bool, state: State, since: u32, timer: u32) -> Self {
        if spot {
            Self::spot(state, since, timer)
        } else {
            Self::new(state, since, timer)
        }
    }

    /// Forgets the health check's results (a wait or a stop starts them over).
    #[inline]
    pub fn forget_checks(&mut self) {
        self.failures = 0;
        self.in_transit = 0;
        self.checks = 0;
    }

    pub const fn broken(&self) -> bool {
        self.flags & Self::BROKEN != 0
    }

    pub fn set_broken(&mut self) {
        self.flags |= Self::BROKEN;
    }

    pub const fn is_spot(&self) -> bool {
        self.flags & Self::SPOT != 0
    }

    pub const fn noticed(&self) -> bool {
        self.flags & Self::NOTICED != 0
    }

    pub fn set_noticed(&mut self, on: bool) {
        if on {
            self.flags |= Self::NOTICED;
        } else {
            self.flags &= !Self::NOTICED;
        }
    }
}
