//! The autoscale command: its parameters (the core's plus the policy, the formula and the
//! demand file), its table of `Param`s and metrics, and how a grid's runs share demand
//! tables, seeds' streams and lockstep sweeps.

mod files;
mod hpa;
mod scratch;
mod values;

pub use files::{
    timed_formula, timed_formula_path, DemandFile, FormulaFile, LoadedDemand, LoadedFormula,
};
pub use hpa::HpaFlags;
pub use scratch::{AutoscaleScratch, FormulaScratch, HostGroup, HOST_GROUP_SIZE};
pub use values::{PolicyName, Price, MAX_PRICE};

use crate::list::WarmSize;
use crate::output::Cell;
use capsim_core::autoscale::{
    self, Events, FailureRounds, Hook, LifecycleHook, Reclaim, RemovalPolicy, Steps, Stockout,
    TimedAction,
};
use capsim_core::autoscale::{OnPreemption, PreemptionRounds};
use capsim_core::{Error, Observer};
use scratch::{has_formula_action, run_autoscale_batch, AUTOSCALE_FREE, AUTOSCALE_LANES};
use std::sync::Arc;

use super::batch::batched_window;
use super::grid::Grid;
use super::{
    param_axis, Ahead, Column, Derived, Metric, Model, Need, Outcome, Param, Present, Rule, Value,
};

/// `capsim autoscale`'s parameters: the core's, plus the formula that may replace the
/// lesson's policy (host-only: a path and a parsed program).
#[derive(Clone, Debug)]
pub struct AutoscaleParams {
    /// The core model's parameters (the table's `core.` rows). A scenario's lists (hooks,
    /// timed actions) are the process's: the parser keeps each distinct list once
    /// (`list::autoscale`), and a grid's runs share it.
    pub core: autoscale::Params<'static>,
    /// The formula driving the group, if any.
    pub formula: FormulaFile,
    /// Rounds between evaluations, 5 to 10,080.
    pub evaluation_interval: u32,
    /// Seconds from a sample's recording to its availability to the formula (a provider
    /// item; Batch: about a minute).
    pub sample_delay: u32,
    /// The demand table replacing the lesson's curve, if any.
    pub demand_file: DemandFile,
    /// The scaling policy (`core.lifecycle.policy` is built from it and the three below,
    /// by [`Model::derive`]).
    pub policy: PolicyName,
    /// Target tracking's utilisation, percent.
    pub target_utilization: u32,
    /// Target tracking never scales in.
    pub disable_scale_in: bool,
    /// What one instance-round costs (`--price`); `None`: no `cost` column.
    pub price: Option<Price>,
    /// The step policy's bands (shared: a grid's runs copy their parameters).
    pub steps: Option<Arc<Steps>>,
    /// The Kubernetes HPA's flags (`--policy hpa`).
    pub hpa: HpaFlags,
}

impl AutoscaleParams {
    /// Sets `core.lifecycle.policy` from the policy flags.
    fn set_policy(&mut self) {
        self.core.lifecycle.policy = match self.policy {
            PolicyName::Lesson => autoscale::Policy::Lesson,
            PolicyName::TargetTracking => autoscale::Policy::TargetTracking {
                target: self.target_utilization,
                disable_scale_in: self.disable_scale_in,
            },
            PolicyName::Step => {
                autoscale::Policy::Step(self.steps.as_deref().cloned().unwrap_or_default())
            }
            PolicyName::Hpa => autoscale::Policy::Hpa(self.hpa.hpa()),
        };
    }

    /// Returns the cooldown as a row shows it: `None` where the run has none (target
    /// tracking, a formula) and the flag keeps its default, 0; a value given to a grid's
    /// runs is shown in all of them, so that rows of different values stay apart.
    fn cooldown(&self) -> Option<u32> {
        (self.core.cooldown != 0 || self.has_cooldown()).then_some(self.core.cooldown)
    }

    /// Whether the run's policy waits for a cooldown: the lesson's only (AWS documents
    /// none for target tracking and step scaling; a formula has its evaluation interval).
    fn has_cooldown(&self) -> bool {
        self.runs_policy(PolicyName::Lesson)
    }

    /// Whether the run's policy is `policy`, not replaced by a formula.
    fn runs_policy(&self, policy: PolicyName) -> bool {
        self.formula.0.is_none() && self.policy == policy
    }

    /// Whether the run can have spot instances: a formula that sets
    /// `$TargetLowPriorityNodes`, or, without a formula, a mixed-instances split with a spot
    /// part (`--on-demand-percent` below 100).
    fn spot_capacity(&self) -> bool {
        match &self.formula.0 {
            Some(f) => f.program.sets_low_priority(),
            None => self
                .core
                .lifecycle
                .spot
                .on_demand_percent
                .is_some_and(|p| p < 100),
        }
    }

    /// Whether the run's spot instances can be preempted (a rate above 0 or scripted rounds).
    fn preempts(&self) -> bool {
        let spot = &self.core.lifecycle.spot;
        self.spot_capacity()
            && (spot.preemption_rate.is_some_and(|r| r > 0.0) || !spot.preemption_rounds.is_empty())
    }

    /// Returns the run's demand table, if a demand file replaces the lesson's curve.
    pub fn table(&self) -> Option<autoscale::Table<'_>> {
        self.demand_file
            .0
            .as_ref()
            .map(|f| autoscale::Table(f.values()))
    }

    /// Returns the demand of round `t`: the file's row, or the lesson's curve.
    pub fn demand(&self, t: u32) -> f64 {
        match self.table() {
            Some(table) => autoscale::Demand::at(&table, t),
            None => self.core.demand(t),
        }
    }
}

/// The longest sample delay `--sample-delay` takes: ten minutes.
pub const MAX_SAMPLE_DELAY: u32 = 600;

impl Default for AutoscaleParams {
    fn default() -> Self {
        Self {
            // The smallest size the group had: the lesson program's minimum starts at 99
            // (`Params::min_size_start`), which no lesson run reaches but a group of more
            // than 99 instances would report.
            core: autoscale::Params {
                min_size_start: u32::MAX,
                ..autoscale::Params::default()
            },
            formula: FormulaFile::default(),
            evaluation_interval: autoscale::DEFAULT_EVALUATION_INTERVAL,
            sample_delay: 60, // formula::DEFAULT_DELAY
            demand_file: DemandFile::default(),
            policy: PolicyName::Lesson,
            target_utilization: 50,
            disable_scale_in: false,
            steps: None,
            price: None,
            hpa: HpaFlags::default(),
        }
    }
}

/// `capsim autoscale`: the auto-scaling group with a health check.
pub struct Autoscale;

impl Model for Autoscale {
    type Params = AutoscaleParams;
    type Metrics = autoscale::Metrics;
    type Scratch = AutoscaleScratch;
    type Round = capsim_core::autoscale::RoundState;
    const PARAMS: &'static [Param<AutoscaleParams>] = &[
        param!(core.threshold: u32,
            "Consecutive failed health checks before an instance is replaced",
            "1 to 4294967295", "{SWEEP_THRESHOLDS}"),
        Param {
            key: "cooldown",
            help: "Rounds after a scaling action before the next one (the lesson's policy's: a row without a cooldown, target tracking's, step scaling's or a formula's, shows none)",
            accepted: "0 to 4294967295",
            lesson: "{SWEEP_COOLDOWNS}",
            parse: |s| {
                param_axis::<_, u32>(s, "0 to 4294967295", |p: &mut AutoscaleParams, v| {
                    p.core.cooldown = v;
                })
            },
            cell: |p| match p.cooldown() {
                Some(c) => Value::cell(&c),
                None => Cell::Word("none"),
            },
            result: None,
            flag_value: |p| p.cooldown().map_or("none".to_string(), |c| c.to_string()),
        },
        param!(core.rounds: u32, "Rounds simulated", "1 to {MAX_ROUNDS}", "240"),
        param!(core.capacity: f64,
            "Requests one instance serves per round", "numbers > 0", "100"),
        param!(core.boot_rounds: u32,
            "Rounds an instance takes to boot (0 and 1 alike, as in the lesson's program: an instance ready at the end of the round that launched it serves from the next)",
            "0 to 4294967295", "2"),
        param!(core.transient_failure: f64,
            "Probability that a healthy instance fails one check", "0 to 1", "0.08"),
        param!(core.failure_rounds: FailureRounds,
            "Rounds at which an instance breaks for good, ':'-separated, or 'none' (the lesson's day: a --demand-file run breaks none unless given)",
            "at most {MAX_FAILURE_ROUNDS} rounds, each 0 to 4294967295", "40:95:170"),
        param!(core.demand_base: f64,
            "Demand curve base, requests per round", "finite numbers", "900"),
        param!(core.demand_amplitude: f64,
            "Demand curve amplitude", "finite numbers", "380"),
        param!(core.demand_period: f64,
            "Demand curve period in rounds", "numbers > 0 and >= rounds / {MAX_ROUNDS_PER_PERIOD}", "120"),
        param!(core.surge_start: u32,
            "First round of the demand surge", "0 to 4294967295", "150"),
        param!(core.surge_end: u32,
            "First round after the demand surge", "0 to 4294967295", "190"),
        param!(core.surge: f64,
            "Extra demand during the surge", "finite numbers", "520"),
        param!("launch_hook", core.lifecycle.launch_hook: Option<Hook>,
            "Launch hook: Pending:Wait for ROUNDS, then its default result",
            "ROUNDS[:continue|abandon], 1 to {MAX_HOOK_ROUNDS}, or none", "none"),
        param!("terminate_hook", core.lifecycle.terminate_hook: Option<Hook>,
            "Terminate hook: Removing:Wait for ROUNDS before the instance leaves",
            "ROUNDS[:continue|abandon], 1 to {MAX_HOOK_ROUNDS}, or none", "none"),
        param!("count_pending", core.lifecycle.count_pending: bool,
            "The policy also counts instances booting, waiting, restarting or not yet applied",
            "no or yes", "no"),
        param!("protected", core.lifecycle.protected: u32,
            "The first N instances of the initial group are Protected: serving, never scaled in",
            "0 to {MAX_GROUP_SIZE}", "0"),
        param!("removal_policy", core.lifecycle.removal_policy: RemovalPolicy,
            "Which InService instances scale-in removes: first in group order, oldest or newest launch, or the oldest launch-template version first (versions from --at template=V)",
            "lesson, oldest, newest or oldest-template", "lesson"),
        param!("reclaim", core.lifecycle.reclaim: Reclaim,
            "Scale-in releases instances, or stops them for scale-out to restart first",
            "release or stop", "release"),
        param!("restart_rounds", core.lifecycle.restart_rounds: u32,
            "Rounds a Stopped instance takes to serve again after a restart (0 and 1 alike, as --boot-rounds)",
            "0 to 4294967295", "1"),
        param!("check_latency", core.lifecycle.check_latency: u32,
            "Rounds after a health check before its result is known", "0 to {MAX_CHECK_LATENCY}", "0"),
        param!("apply_delay", core.lifecycle.apply_delay: u32,
            "Rounds after a scale-out decision before its instances join the group",
            "0 to {MAX_APPLY_DELAY}", "0"),
        param!("stockout_rounds", core.lifecycle.stockout: Option<Stockout>,
            "Rounds A..B (B excluded) in which launch requests fail: counted, not retried that round",
            "A..B or A..=B with A < B, rounds 0 to 4294967295, or none", "none"),
        param!("events", core.lifecycle.events: Events,
            "Scripted actions on the first COUNT instances in the source state, '+'-joined, or none",
            "ROUND:ACTION:COUNT, ROUND 0 to 4294967295, ACTION standby|unstandby|protect|unprotect, COUNT 1 to {MAX_GROUP_SIZE}, at most {MAX_EVENTS}, or none",
            "none"),
        param!("min_instances", core.lifecycle.min_instances: Option<u32>,
            "The group's minimum size (MinSize): the policy's decision is raised to it, scale-in stops there; a health-check removal is not bounded, the next decision restores it",
            "integers >= 0 and <= --max-instances, or none", "none"),
        param!("max_instances", core.lifecycle.max_instances: Option<u32>,
            "The group's maximum size (MaxSize, every state and Stopped ones counted): scale-out stops there, a surplus is scaled in",
            "integers >= 0, or none", "none"),
        param!("check_interval", core.lifecycle.check_interval: u32,
            "Rounds between health checks (rounds that are multiples of it; a broken instance serves between checks; --check-latency counts checks)",
            "1 to {MAX_CHECK_INTERVAL}", "1"),
        param!(policy: PolicyName,
            "Scaling policy: the lesson's exact count, AWS target tracking (--target-utilization, --disable-scale-in), AWS step scaling (--steps) or Kubernetes' Horizontal Pod Autoscaler (the --hpa-* flags; a round is one sync period); a --formula replaces any of them",
            "lesson, target-tracking, step or hpa", "lesson"),
        param!(target_utilization: u32,
            "Target tracking (only): keep the in-service instances' average utilisation (demand / (serving x capacity)) at P percent: desired = ceil(demand / (capacity x P / 100)), out once {TARGET_TRACKING_SCALE_OUT_ROUNDS} rounds in a row are above, in after {TARGET_TRACKING_SCALE_IN_ROUNDS} rounds below (AWS's alarms: their one-minute data points)",
            "1 to 100", "50"),
        param!(disable_scale_in: bool,
            "Target tracking never scales in (AWS DisableScaleIn)", "no or yes", "no"),
        Param {
            key: "steps",
            help: "Step scaling's bands, '/'-joined: [LOW]..[HIGH]:ADJ applies while the utilisation (percent) is in [LOW, HIGH), a band that removes while it is in (LOW, HIGH] (AWS); ADJ +N/-N instances, +N%/-N% of the current capacity (AWS rounding), =N exactly; no band, no change; every round, no cooldown: scaling out adds to the serving instances, the ones warming up count as asked for",
            accepted: "1 to {MAX_STEPS} ascending, non-overlapping bands, bounds 0 to {MAX_STEP_BOUND} with at most 3 decimals, e.g. ..40:-1/80..:+2, or none",
            lesson: "none",
            parse: |s| {
                param_axis::<_, Option<Steps>>(s, "1 to {MAX_STEPS} ascending, non-overlapping bands, bounds 0 to {MAX_STEP_BOUND} with at most 3 decimals, e.g. ..40:-1/80..:+2, or none", |p: &mut AutoscaleParams, v| {
                    p.steps = v.map(Arc::new);
                })
            },
            cell: |p| Value::cell(&p.steps.as_deref().cloned()),
            result: None,
            flag_value: |p| Value::flag_text(&p.steps.as_deref().cloned()),
        },
        param!("hpa_target", hpa.target: capsim_core::autoscale::hpa::Target,
            "Kubernetes HPA (only): the metric and its target. utilization:P keeps CPU at P percent of a replica's request (its capacity): desired = ceil(current x utilisation / P) over the ready pods; cpu:average-value:V and pods:average-value:V keep a replica's requests per round at V (CPU's readiness rules, or none); external:value:V keeps the round's demand at V per ready replica, external:average-value:V at V per replica",
            "utilization:P (1 to 2147483647), or cpu:average-value:V, pods:average-value:V, external:value:V, external:average-value:V (V > 0 to 1e9, three decimals)", "utilization:80"),
        param!("hpa_tolerance", hpa.tolerance: crate::list::hpa::Tolerance,
            "Kubernetes HPA (only): the controller's tolerance (--horizontal-pod-autoscaler-tolerance): a usage ratio within 1 +/- T keeps the count",
            "0 to 100, three decimals", "0.1"),
        param!("hpa_scale_up_tolerance", hpa.scale_up_tolerance: Option<crate::list::hpa::Tolerance>,
            "Kubernetes HPA (only): behavior.scaleUp.tolerance, the ratios up to 1 + T keep the count; none: --hpa-tolerance",
            "0 to 100, three decimals, or none", "none"),
        param!("hpa_scale_down_tolerance", hpa.scale_down_tolerance: Option<crate::list::hpa::Tolerance>,
            "Kubernetes HPA (only): behavior.scaleDown.tolerance, the ratios down to 1 - T keep the count; none: --hpa-tolerance",
            "0 to 100, three decimals, or none", "none"),
        param!("hpa_sync_period", hpa.sync_period: u32,
            "Kubernetes HPA (only): seconds between the controller's syncs (--horizontal-pod-autoscaler-sync-period); one round is one sync, so every --hpa-* time counts rounds of this length",
            "1 to {MAX_SYNC_PERIOD} seconds, each window and policy period within {MAX_SYNCS_REMEMBERED} syncs", "15"),
        param!("hpa_cpu_initialization_period", hpa.cpu_initialization_period: u32,
            "Kubernetes HPA (only): seconds after a pod's start (its launch) in which a CPU metric counts it only once ready; a booting replica is Running and not ready",
            "0 to {MAX_READINESS_SECONDS}", "300"),
        param!("hpa_initial_readiness_delay", hpa.initial_readiness_delay: u32,
            "Kubernetes HPA (only): after the initialization period, a pod not ready since less than this many seconds after its start is taken as never ready (not counted)",
            "0 to {MAX_READINESS_SECONDS}", "30"),
        param!("hpa_scale_up_stabilization", hpa.scale_up.stabilization_window: u32,
            "Kubernetes HPA (only): behavior.scaleUp.stabilizationWindowSeconds: scaling up takes the lowest recommendation of the window",
            "0 to {MAX_STABILIZATION_WINDOW}, at most {MAX_SYNCS_REMEMBERED} sync periods", "0"),
        param!("hpa_scale_up_policies", hpa.scale_up.policies: capsim_core::autoscale::hpa::RatePolicies,
            "Kubernetes HPA (only): behavior.scaleUp.policies, '/'-joined TYPE:VALUE:PERIOD: at most VALUE pods (Pods) or VALUE percent (Percent) more than the period's start, per PERIOD seconds",
            "1 to {MAX_RATE_POLICIES} policies, TYPE Pods or Percent, VALUE >= 1, PERIOD 1 to {MAX_PERIOD} seconds and at most {MAX_SYNCS_REMEMBERED} sync periods", "Pods:4:15/Percent:100:15"),
        param!("hpa_scale_up_select", hpa.scale_up.select: capsim_core::autoscale::hpa::Select,
            "Kubernetes HPA (only): behavior.scaleUp.selectPolicy: the policy allowing the largest change (Max), the smallest (Min), or no scale-up (Disabled)",
            "Max, Min or Disabled", "Max"),
        param!("hpa_scale_down_stabilization", hpa.scale_down.stabilization_window: u32,
            "Kubernetes HPA (only): behavior.scaleDown.stabilizationWindowSeconds: scaling down takes the highest recommendation of the window",
            "0 to {MAX_STABILIZATION_WINDOW}, at most {MAX_SYNCS_REMEMBERED} sync periods", "300"),
        param!("hpa_scale_down_policies", hpa.scale_down.policies: capsim_core::autoscale::hpa::RatePolicies,
            "Kubernetes HPA (only): behavior.scaleDown.policies, '/'-joined TYPE:VALUE:PERIOD: at most VALUE pods (Pods) or VALUE percent (Percent) fewer than the period's start, per PERIOD seconds",
            "1 to {MAX_RATE_POLICIES} policies, TYPE Pods or Percent, VALUE >= 1, PERIOD 1 to {MAX_PERIOD} seconds and at most {MAX_SYNCS_REMEMBERED} sync periods", "Percent:100:15"),
        param!("hpa_scale_down_select", hpa.scale_down.select: capsim_core::autoscale::hpa::Select,
            "Kubernetes HPA (only): behavior.scaleDown.selectPolicy: the policy allowing the largest change (Max), the smallest (Min), or no scale-down (Disabled)",
            "Max, Min or Disabled", "Max"),
        param!(demand_file: DemandFile,
            "CSV of requests per round replacing the demand curve: one column, or a header naming a 'demand' column (a trace's CSV as printed); '-' is stdin; its rows set --rounds unless given (fewer: the first rows)",
            "files of at most {MAX_DEMAND_ROWS} rows and {MAX_DEMAND_BYTES} bytes, or none", "none"),
        param!(formula: FormulaFile,
            "Batch autoscale formula file replacing the threshold policy and its cooldown (see capsim formula --help), or none",
            "files of at most {MAX_SOURCE_KB} KB and {MAX_STATEMENTS} statements, each parsed once, or none", "none"),
        param!(evaluation_interval: u32,
            "Rounds (minutes) between formula evaluations, the first in round 0",
            "{MIN_EVALUATION_INTERVAL} to {MAX_EVALUATION_INTERVAL}", "{DEFAULT_EVALUATION_INTERVAL}"),
        param!(sample_delay: u32,
            "Seconds from a formula sample's recording to its availability (Batch: about a minute)",
            "0 to {MAX_SAMPLE_DELAY}", "{DEFAULT_SAMPLE_DELAY}"),
        param!("launch_hooks", core.lifecycle.launch_hooks: &'static [LifecycleHook],
            "Scenario launch hooks, run in order after --launch-hook, '+'-joined: TIMEOUT rounds, then any of a result, action=N (the hook's job completes the wait after N rounds), heartbeat=K (a heartbeat every K rounds restarts the timeout), the provider (its caps: Alibaba {ALIBABA_MAX_HEARTBEATS} heartbeats and {ALIBABA_WAIT_CAP} rounds a wait, AWS {AWS_WAIT_TIMES} x the timeout and {AWS_WAIT_CAP} rounds)",
            "TIMEOUT[:continue|abandon|rollback][:action=N][:heartbeat=K][:alibaba|aws], TIMEOUT 1 to {ALIBABA_MAX_TIMEOUT} (alibaba) or {AWS_MAX_TIMEOUT} (aws), the result by default the provider's (continue, abandon), rollback alibaba only, at most {MAX_HOOKS} hooks in all, or none",
            "none"),
        param!("terminate_hooks", core.lifecycle.terminate_hooks: &'static [LifecycleHook],
            "Scenario terminate hooks, run in order after --terminate-hook (as --launch-hooks; abandon skips the rest, rollback returns the instance to service)",
            "as --launch-hooks, or none", "none"),
        param!("at", core.lifecycle.at: &'static [TimedAction],
            "Timed operator actions, '+'-joined ROUND:KEY=VALUE, in list order after --events within a round: min_instances / max_instances (a size or none), desired (launch or remove to that many serving and launching), standby / unstandby / protect / unprotect / detach (counts), template (a new launch-template version; --removal-policy oldest-template removes the oldest version first), evaluation_interval (a formula's new interval, {MIN_EVALUATION_INTERVAL} to {MAX_EVALUATION_INTERVAL}: evaluations from that round on every N rounds), formula (a formula FILE that drives the group from that round on, its schedule restarting there; needs --formula; FILE without '+' or ',')",
            "at most {MAX_TIMED} actions, counts and versions 1 to 4294967295, the minimum never above the maximum, or none",
            "none"),
        param!("task_rounds", core.lifecycle.task_rounds: Option<u32>,
            "Each serving node runs tasks of N rounds back to back; a node scale-in removes is dealt with by the formula's $NodeDeallocationOption (requeue: the task's rounds are lost; terminate: lost and failed; taskcompletion: the node drains the rest; retaineddata: the rest and 1 round of clean-up); other policies requeue",
            "1 to {MAX_TASK_ROUNDS}, or none", "none"),
        param!("preemption_rate", core.lifecycle.spot.preemption_rate: Option<f64>,
            "Spot class: the probability that a running spot instance is taken back in a round (its own stream, seeded by --seed; never the health check's); any spot flag turns the class on, and a formula's $TargetLowPriorityNodes then applies to it",
            "0 to 1, or none", "none"),
        param!("preemption_rounds", core.lifecycle.spot.preemption_rounds: PreemptionRounds,
            "Spot class: rounds in which every running spot instance is taken back, ':'-separated, or none",
            "at most {MAX_PREEMPTION_ROUNDS} rounds, each 0 to 4294967295, or none", "none"),
        param!("preemption_notice", core.lifecycle.spot.preemption_notice: u32,
            "Spot class: rounds of notice before a preemption (the instance serves meanwhile; AWS's two minutes are 2)",
            "0 to {MAX_PREEMPTION_NOTICE}", "0"),
        param!("on_preemption", core.lifecycle.spot.on_preemption: OnPreemption,
            "Spot class: a preempted node stays in the pool as Preempted until capacity returns (Azure Batch), or is terminated and replaced by a spot launch at its notice (AWS)",
            "stay or replace", "stay"),
        param!("on_demand_base", core.lifecycle.spot.on_demand_base: Option<u32>,
            "Mixed instances (AWS OnDemandBaseCapacity): the first N instances of the threshold policy's group are dedicated; turns the spot class on",
            "integers >= 0, or none", "none"),
        param!("on_demand_percent", core.lifecycle.spot.on_demand_percent: Option<u32>,
            "Mixed instances (AWS OnDemandPercentageAboveBaseCapacity): above the base, P percent dedicated (a fraction rounds toward dedicated), the rest spot; turns the spot class on",
            "0 to 100, or none", "none"),
        Param {
            key: "warm_pool",
            help: "AWS warm pool: N pre-initialised instances beside the group at round 0, kept Stopped (storage billed) or Running (billed in full); a scale-out takes them first (serving after --restart-rounds), the pool refills by launching; max-desired is AWS's default size, the group's --max-instances minus its desired capacity, each round; not with the spot class",
            accepted: "N[:stopped|running], N 0 to {MAX_WARM_POOL} or max-desired",
            lesson: "0",
            parse: |s| {
                param_axis::<_, WarmSize>(s, "N[:stopped|running], N 0 to {MAX_WARM_POOL} or max-desired", |p: &mut AutoscaleParams, v| {
                    p.core.lifecycle.warm_pool.size = v.size;
                    p.core.lifecycle.warm_pool.state = v.state;
                })
            },
            cell: |p| {
                let w = &p.core.lifecycle.warm_pool;
                Value::cell(&WarmSize {
                    size: w.size,
                    state: w.state,
                })
            },
            result: Some(Column {
                key: "warm_pool_state",
                cell: |p| Cell::Word(p.core.lifecycle.warm_pool.state.name()),
            }),
            flag_value: |p| {
                let w = &p.core.lifecycle.warm_pool;
                Value::flag_text(&WarmSize {
                    size: w.size,
                    state: w.state,
                })
            },
        },
        param!("warm_pool_reuse", core.lifecycle.warm_pool.reuse: bool,
            "AWS ReuseOnScaleIn: scale-in returns instances to the warm pool while fewer than N are warm",
            "no or yes", "no"),
        param!(price: Option<Price>,
            "What an instance-round costs: D:S:P for a dedicated one billed, a spot one billed, a Stopped one (':' joins the three; ',' separates prices, a grid); adds the cost metric",
            "none, or three prices from 0 to {MAX_PRICE} joined by ':'", "none"),
        param!(core.seed: u32,
            "Health-check generator seed (a formula's rand() has its own stream from it)",
            "1 to {MAX_SEED}", "20261001"),
    ];
    const NAME: &'static str = "autoscale";
    const VALIDATE: fn(&AutoscaleParams) -> Result<(), Error> = |p| {
        p.core.validate()?;
        autoscale::check_interval(p.evaluation_interval)?;
        if p.sample_delay > MAX_SAMPLE_DELAY {
            return Err(Error::OutOfRange {
                param: "sample-delay",
                accepted: capsim_core::Accepted::Integers {
                    min: 0,
                    max: Some(MAX_SAMPLE_DELAY.into()),
                },
            });
        }
        Ok(())
    };
    fn check_grid(grid: &Grid<Self>) -> Result<(), String> {
        super::check_present(grid)
    }
    const FOLLOWS: &'static [&'static str] = &["rounds", "failure_rounds"];
    const TOGETHER: &'static [&'static [&'static str]] = &[
        &["launch_hook", "launch_hooks"],
        &["terminate_hook", "terminate_hooks"],
    ];
    const NEEDS: &'static [Need<AutoscaleParams>] = &[
        Need {
            flags: &["policy"],
            rule: Rule::NotWith("--formula", "a formula replaces the scaling policy"),
            holds: |p| p.formula.0.is_none(),
            example: &[],
        },
        Need {
            flags: &["cooldown", "count_pending"],
            rule: Rule::NotWith("--formula", "a formula replaces the policy and its cooldown"),
            holds: |p| p.formula.0.is_none(),
            example: &[],
        },
        Need {
            flags: &["cooldown"],
            rule: Rule::Needs(
                "--policy lesson",
                "target tracking and step scaling have no cooldown",
            ),
            holds: |p| p.has_cooldown(),
            example: &[("policy", "lesson")],
        },
        Need {
            flags: &["count_pending"],
            rule: Rule::Needs("--policy lesson", "the other policies count pending instances"),
            holds: |p| p.runs_policy(PolicyName::Lesson),
            example: &[("policy", "lesson")],
        },
        Need {
            flags: &["target_utilization", "disable_scale_in"],
            rule: Rule::Needs("--policy target-tracking", ""),
            holds: |p| p.runs_policy(PolicyName::TargetTracking),
            example: &[("policy", "target-tracking")],
        },
        Need {
            flags: &["steps"],
            rule: Rule::Needs("--policy step", ""),
            holds: |p| p.runs_policy(PolicyName::Step),
            example: &[("policy", "step")],
        },
        Need {
            flags: &[
                "hpa_target",
                "hpa_tolerance",
                "hpa_scale_up_tolerance",
                "hpa_scale_down_tolerance",
                "hpa_sync_period",
                "hpa_cpu_initialization_period",
                "hpa_initial_readiness_delay",
                "hpa_scale_up_stabilization",
                "hpa_scale_up_policies",
                "hpa_scale_up_select",
                "hpa_scale_down_stabilization",
                "hpa_scale_down_policies",
                "hpa_scale_down_select",
            ],
            rule: Rule::Needs("--policy hpa", ""),
            holds: |p| p.runs_policy(PolicyName::Hpa),
            example: &[("policy", "hpa")],
        },
        Need {
            flags: &[
                "demand_base",
                "demand_amplitude",
                "demand_period",
                "surge_start",
                "surge_end",
                "surge",
            ],
            rule: Rule::NotWith("--demand-file", "the file's rows are the demand"),
            holds: |p| p.demand_file.0.is_none(),
            example: &[],
        },
        Need {
            flags: &["demand_period"],
            rule: Rule::Needs("a --demand-amplitude other than 0", ""),
            holds: |p| p.core.demand_amplitude != 0.0,
            example: &[("demand_amplitude", "380")],
        },
        Need {
            flags: &["surge_start", "surge_end"],
            rule: Rule::Needs("a --surge other than 0", ""),
            holds: |p| p.core.surge != 0.0,
            example: &[("surge", "520")],
        },
        Need {
            flags: &["evaluation_interval", "sample_delay"],
            rule: Rule::Needs("--formula", ""),
            holds: |p| p.formula.0.is_some(),
            example: &[("formula", "examples/formulas/demand.formula")],
        },
        Need {
            flags: &["at"],
            rule: Rule::Needs("--formula for its formula and evaluation_interval actions", ""),
            holds: |p| p.formula.0.is_some() || !has_formula_action(&p.core),
            example: &[("formula", "examples/formulas/demand.formula")],
        },
        Need {
            flags: &["restart_rounds"],
            rule: Rule::Needs("--reclaim stop or a --warm-pool", "nothing else restarts"),
            holds: |p| {
                let l = &p.core.lifecycle;
                l.reclaim == Reclaim::Stop || l.warm_pool.size > 0
            },
            example: &[("reclaim", "stop")],
        },
        Need {
            flags: &["preemption_rate", "preemption_rounds"],
            rule: Rule::Needs(
                "spot capacity: --on-demand-percent below 100, or a --formula setting $TargetLowPriorityNodes",
                "",
            ),
            holds: |p| p.spot_capacity(),
            example: &[("on_demand_percent", "50")],
        },
        Need {
            flags: &["preemption_notice", "on_preemption"],
            rule: Rule::Needs("spot preemptions: --preemption-rate above 0 or --preemption-rounds, with spot capacity", ""),
            holds: |p| p.preempts(),
            example: &[("on_demand_percent", "50"), ("preemption_rate", "0.3")],
        },
        Need {
            flags: &["on_demand_base"],
            rule: Rule::NotWith("--formula", "a formula sets its dedicated target itself"),
            holds: |p| p.formula.0.is_none(),
            example: &[],
        },
        Need {
            flags: &["on_demand_base"],
            rule: Rule::Needs("--on-demand-percent below 100", "above the base every instance is dedicated"),
            holds: |p| p.spot_capacity(),
            example: &[("on_demand_percent", "50")],
        },
        Need {
            flags: &["on_demand_percent"],
            rule: Rule::Needs(
                "a value below 100, or a --formula setting $TargetLowPriorityNodes",
                "100: every instance dedicated",
            ),
            holds: |p| p.spot_capacity(),
            example: &[("formula", "examples/formulas/preempted-nodes.formula")],
        },
        Need {
            flags: &["warm_pool"],
            rule: Rule::Needs(
                "--max-instances for max-desired",
                "AWS's default size is the maximum size minus the desired capacity",
            ),
            holds: |p| {
                let l = &p.core.lifecycle;
                l.warm_pool.size != autoscale::MAX_MINUS_DESIRED || l.max_instances.is_some()
            },
            example: &[("max_instances", "30")],
        },
        Need {
            flags: &["warm_pool_reuse"],
            rule: Rule::Needs("a --warm-pool", ""),
            holds: |p| p.core.lifecycle.warm_pool.size > 0,
            example: &[("warm_pool", "6")],
        },
    ];

    /// Reads each demand file once per distinct path, at most the rows the runs need (the
    /// most `--rounds` given; every row without): `--rounds` longer than a file is refused
    /// here, before any output.
    fn prepare(grid: &Grid<Self>) -> Result<(), String> {
        let Some(axis) = grid.axis_of("demand_file") else {
            return Ok(());
        };
        let base = AutoscaleParams::default;
        let rounds = grid.axis_of("rounds").and_then(|a| {
            (0..grid.axis_len(a))
                .map(|j| grid.set_on(base(), a, j).core.rounds)
                .max()
        });
        let mut read: Vec<(String, Arc<[f64]>)> = Vec::new();
        for j in 0..grid.axis_len(axis) {
            let p = grid.set_on(base(), axis, j);
            let Some(f) = &p.demand_file.0 else {
                continue;
            };
            if !f.is_read() {
                let table = match read.iter().find(|(path, _)| *path == f.path) {
                    Some((_, t)) => Arc::clone(t),
                    None => {
                        let t = f.read(rounds.map(|r| r as usize))?;
                        read.push((f.path.clone(), Arc::clone(&t)));
                        t
                    }
                };
                f.share(table);
            }
            if let Some(r) = rounds {
                let longest = autoscale::Params {
                    rounds: r,
                    ..autoscale::Params::default()
                };
                autoscale::Table(f.values())
                    .check(&longest)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    /// A run on its own day: a demand file's rows set the rounds (unless `--rounds` is
    /// given), and the lesson's day stays the lesson's. The lesson's day is its demand
    /// curve, its surge and the rounds at which its instances break (40, 95, 170, a script
    /// of the lesson's story); the group is the rest (the health check and its transient
    /// failures, boot, capacity, the policy). So a demand file's run breaks no instance at
    /// the lesson's rounds unless `--failure-rounds` is given. Then the policy the policy
    /// flags build.
    fn derive(p: &mut AutoscaleParams, given: &dyn Fn(&str) -> bool) {
        if let Some(f) = &p.demand_file.0 {
            if !given("rounds") {
                p.core.rounds = f.values().len().min(u32::MAX as usize) as u32;
            }
            if !given("failure_rounds") {
                p.core.failure_rounds.clear();
            }
        }
        p.set_policy();
    }
    const PRESENT: &'static [Present<AutoscaleParams>] = &[
        Present {
            key: "price",
            when: |p| p.price.is_some(),
            needs: "--price",
        },
        Present {
            key: "cost",
            when: |p| p.price.is_some(),
            needs: "--price",
        },
    ];
    const DERIVED: &'static [Derived<AutoscaleParams, autoscale::Metrics>] = &[Derived {
        key: "cost",
        cell: |p, m| Cell::Float(p.price.map_or(0.0, |price| price.cost(m))),
    }];
    const SEED_AFTER: &'static str = "cooldown";
    const HEADLINE: &'static [&'static str] = &["threshold", "cooldown", "seed"];
    const HEADLINE_METRICS: &'static [&'static str] = &[
        "min_size",
        "max_size",
        "under_capacity_rounds",
        "false_replacements",
        "broken_rounds",
        "launched",
        "cost",
    ];
    const METRICS: &'static [Metric<autoscale::Metrics>] = metrics![
        min_size,
        max_size,
        max_launching,
        max_launching_ratio,
        under_capacity_rounds,
        launched,
        false_replacements,
        broken_rounds,
        scaling_actions,
        replacements,
        time_to_in_service_max,
        scale_in_blocked_rounds,
        restarts_from_stopped,
        failed_launches,
        hook_timeouts,
        abandoned_launches,
        billed_rounds,
        idle_billed_rounds,
        evaluations,
        failed_evaluations,
        target_changes,
        clamped_rounds,
        hook_completions,
        heartbeats,
        hook_cap_timeouts,
        hook_rollbacks,
        detached,
        lost_task_rounds,
        failed_tasks,
        drain_rounds,
        stopped_rounds,
        spot_max,
        preemptions,
        billed_spot_rounds,
        warm_starts,
    ];

    fn scratch() -> AutoscaleScratch {
        AutoscaleScratch::default()
    }

    /// Runs `p` in the thread's storage and caches (`AutoscaleScratch::run`); the core's plan
    /// picks the engine.
    fn run_observed<O: Observer<Self::Round>>(
        p: &Self::Params,
        scratch: &mut AutoscaleScratch,
        observer: &mut O,
    ) -> Outcome<Self::Metrics> {
        scratch.run(p, observer)
    }

    batched_run_window! {
        /// Runs the combinations that differ only in threshold and cooldown (one seed, one
        /// demand curve) together, up to `AUTOSCALE_LANES` (16) at a time, in lockstep on
        /// one stream. See `batched_window`.
        stream: &Self::PARAMS
            .iter()
            .map(|q| q.key)
            .filter(|k| !AUTOSCALE_FREE.contains(k))
            .collect::<Vec<&str>>(),
        lanes: AUTOSCALE_LANES,
        |grid, scratch, batch| run_autoscale_batch(grid, batch, scratch)
    }
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::super::tests::grid;
    use super::super::*;
    use super::*;
    use capsim_core::autoscale;

    #[test]
    fn lifecycle_flags_are_axes_before_the_seed() {
        let g = grid::<Autoscale>(&["--launch-hook", "3,none", "--seed", "1..=3"]);
        assert_eq!(g.len(), 6);
        // The hook is outer, the seed inner: runs 0-2 have the hook, 3-5 none.
        let hooks: Vec<Option<u32>> = (0..6)
            .map(|i| g.params(i).core.lifecycle.launch_hook.map(|h| h.rounds))
            .collect();
        assert_eq!(hooks, [Some(3), Some(3), Some(3), None, None, None]);
        assert_eq!(g.params(4).core.seed, 2);
        // A run is named as the flags take it: the hook with its result.
        assert_eq!(g.name(1), "launch-hook=3:continue seed=2");
        let g = grid::<Autoscale>(&["--launch-hook", "2:abandon,2", "--stockout-rounds", "5..=9"]);
        assert_eq!(g.name(0), "launch-hook=2:abandon seed=20261001");
        // A swept hook brings its result column into the table, right after it.
        let keys = table_keys::<Autoscale>(&g.swept);
        assert_eq!(keys[3..5], ["launch_hook", "launch_hook_result"]);
        // The stockout as the flag takes it (B excluded): 5..=9 is 5..10.
        let row = row::<Autoscale>(&g.params(0), &autoscale::Metrics::default());
        let cell = |key: &str| row.iter().find(|(k, _)| k == key).unwrap().1.text();
        assert_eq!(cell("stockout_rounds"), "5..10");
        assert_eq!(cell("launch_hook"), "2");
        assert_eq!(cell("launch_hook_result"), "abandon");
        assert_eq!(cell("terminate_hook_result"), "none");
    }
}
