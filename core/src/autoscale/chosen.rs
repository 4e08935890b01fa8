//! The policy a run's parameters name ([`Chosen`]): the one place a run's policy is built
//! from `params.lifecycle.policy`.

#[cfg(feature = "hpa")]
use super::hpa::{HpaPolicy, HpaRound};
use super::lifecycle::Policy;
#[cfg(feature = "hpa")]
use super::policy::InstanceView;
use super::policy::{LessonPolicy, ScalingPolicy, Signal, StepPolicy, TargetTracking};
use super::spec::Params;

/// The policy `params.lifecycle.policy` names, built from `params` ([`Chosen::of`]): what
/// [`super::run`] and [`super::run_with`] run, and what a caller of [`super::run_in`] passes
/// for the parameters' own policy.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "hpa", allow(clippy::large_enum_variant))]
pub enum Chosen<'a> {
    /// [`Policy::Lesson`].
    Lesson(LessonPolicy),
    /// [`Policy::TargetTracking`].
    Target(TargetTracking),
    /// [`Policy::Step`].
    Step(StepPolicy<'a>),
    /// [`Policy::Hpa`] (host-only: feature `hpa`). Its history (12 KB) makes the enum that
    /// size on the host; a board's has no such variant.
    #[cfg(feature = "hpa")]
    Hpa(HpaPolicy<'a>),
}

impl<'a> Chosen<'a> {
    /// Returns the policy `params.lifecycle.policy` names, with no decision taken yet: the
    /// one place a run's policy is built from its parameters.
    pub fn of(params: &'a Params) -> Self {
        match &params.lifecycle.policy {
            Policy::Lesson => Chosen::Lesson(LessonPolicy::of(params)),
            Policy::TargetTracking {
                target,
                disable_scale_in,
            } => Chosen::Target(TargetTracking::new(
                *target,
                *disable_scale_in,
                params.capacity,
            )),
            Policy::Step(steps) => Chosen::Step(StepPolicy::new(steps, params.capacity)),
            #[cfg(feature = "hpa")]
            Policy::Hpa(hpa) => Chosen::Hpa(HpaPolicy::new(
                hpa,
                params.capacity,
                params.lifecycle.min_instances,
                params.lifecycle.max_instances,
            )),
        }
    }
}

impl ScalingPolicy for Chosen<'_> {
    fn decide(&mut self, s: &Signal) -> i64 {
        match self {
            Chosen::Lesson(p) => p.decide(s),
            Chosen::Target(p) => p.decide(s),
            Chosen::Step(p) => p.decide(s),
            #[cfg(feature = "hpa")]
            Chosen::Hpa(p) => p.decide(s),
        }
    }

    fn counted(&self, s: &Signal) -> i64 {
        match self {
            Chosen::Lesson(p) => p.counted(s),
            Chosen::Target(p) => p.counted(s),
            Chosen::Step(p) => p.counted(s),
            #[cfg(feature = "hpa")]
            Chosen::Hpa(p) => p.counted(s),
        }
    }

    fn applied(&mut self, round: u32, acted: bool) {
        match self {
            Chosen::Lesson(p) => p.applied(round, acted),
            Chosen::Target(p) => p.applied(round, acted),
            Chosen::Step(p) => p.applied(round, acted),
            #[cfg(feature = "hpa")]
            Chosen::Hpa(p) => p.applied(round, acted),
        }
    }

    fn is_lessons(&self, params: &Params) -> bool {
        matches!(self, Chosen::Lesson(p) if p.is_lessons(params))
    }

    #[cfg(feature = "hpa")]
    fn reads_instances(&self) -> bool {
        matches!(self, Chosen::Hpa(_))
    }

    #[cfg(feature = "hpa")]
    fn instances(&mut self, round: u32, instances: &mut dyn Iterator<Item = InstanceView>) {
        if let Chosen::Hpa(p) = self {
            p.instances(round, instances);
        }
    }

    #[cfg(feature = "hpa")]
    fn hpa_round(&self) -> Option<HpaRound> {
        match self {
            Chosen::Hpa(p) => p.hpa_round(),
            _ => None,
        }
    }
}
