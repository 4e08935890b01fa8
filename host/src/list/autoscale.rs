//! The autoscale flags' items: scaling steps, failure rounds, hooks (the lesson's and a
//! scenario's), the removal policy, reclaim, stockout rounds, scripted and timed actions,
//! preemption rounds and the warm pool.

use capsim_core::autoscale::{
    Action, Adjustment, Event, Events, FailureRounds, Hook, HookResult, LifecycleHook, Provider,
    Reclaim, RemovalPolicy, Step, Steps, Stockout, Timed, TimedAction, MAX_EVENTS,
    MAX_FAILURE_ROUNDS, MAX_HOOKS, MAX_STEPS, MAX_TIMED, NO_BOUND, OPEN, STEP_BOUND_UNIT,
};
use capsim_core::autoscale::{
    OnPreemption, PreemptionRounds, WarmState, MAX_MINUS_DESIRED, MAX_PREEMPTION_ROUNDS,
};

use super::{closest, dash_range, none_or, parse_u32, range_or_word, span_item, word_item, Item};

/// Step adjustments: `BAND/BAND/…` or `none`; a BAND is `[LOW]..[HIGH]:ADJ` (utilisation
/// percent 0 to [`MAX_STEP_BOUND`], at most 3 decimals, either omitted for an open end; a
/// band that removes holds (LOW, HIGH], the others [LOW, HIGH), as AWS has it) and ADJ
/// is `+N` or `-N` instances, `+N%` or `-N%` of the current capacity, or `=N` instances
/// exactly (AWS's ChangeInCapacity, PercentChangeInCapacity, ExactCapacity; N to 32767).
impl Item for Option<Steps> {
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        none_or(s, out, |steps| {
            steps.push(parse_steps(s)?);
            Ok(())
        })
    }
}

/// The largest bound of a step band, in percent (a utilisation of 10,000 times the target).
pub const MAX_STEP_BOUND: u32 = 1_000_000;

/// Parses a step bound, a percent of at most 3 decimals (`40`, `40.5`), into thousandths
/// of a percent ([`STEP_BOUND_UNIT`]).
fn step_bound(b: &str) -> Option<u32> {
    let (whole, fraction) = b.split_once('.').unwrap_or((b, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    if !digits(whole) || (b.contains('.') && (!digits(fraction) || fraction.len() > 3)) {
        return None;
    }
    let whole: u32 = whole.parse().ok().filter(|&w| w <= MAX_STEP_BOUND)?;
    let thousandths: u32 = format!("{fraction:0<3}").parse().ok()?;
    let v = whole * STEP_BOUND_UNIT + thousandths;
    (v <= MAX_STEP_BOUND * STEP_BOUND_UNIT).then_some(v)
}

/// Parses one value of `--steps` other than `none` (see the `Option<Steps>` item).
fn parse_steps(s: &str) -> Result<Steps, String> {
    let mut steps = Steps::new();
    for band in s.split('/') {
        let bad = || {
            format!(
                    "'{band}' is not a band [LOW]..[HIGH]:ADJ (bounds 0 to {MAX_STEP_BOUND} percent, at most 3 decimals; ADJ +N, -N, +N%, -N% or =N, N to 32767)"
                )
        };
        let (range, adj) = band.split_once(':').ok_or_else(bad)?;
        let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
        let bound = |b: &str, open: u32| -> Result<u32, String> {
            if b.is_empty() {
                return Ok(open);
            }
            step_bound(b).ok_or_else(bad)
        };
        let number = |n: &str| n.parse::<i16>().map_err(|_| bad());
        if !adj.starts_with(['+', '-', '=']) {
            return Err(bad());
        }
        let adjustment = if let Some(n) = adj.strip_prefix('=') {
            Adjustment::Exact(
                n.parse::<u16>()
                    .ok()
                    .filter(|&n| n <= 32767)
                    .ok_or_else(bad)?,
            )
        } else if let Some(p) = adj.strip_suffix('%') {
            Adjustment::Percent(number(p)?)
        } else {
            Adjustment::Change(number(adj)?)
        };
        steps
            .push(Step {
                low: bound(lo, 0)?,
                high: bound(hi, OPEN)?,
                adjustment,
            })
            .map_err(|_| format!("more than {MAX_STEPS} bands"))?;
    }
    Ok(steps)
}

/// Implements [`Item`] for a list of rounds of at most `MAX` (a `heapless::Vec<u32, MAX>`):
/// `A:B:…`, or `none` for none; `WHAT` names them in the error of a list too long.
macro_rules! rounds_item {
    ($(#[$doc:meta])* $T:ident, $max:ident, $what:literal) => {
        $(#[$doc])*
        impl Item for $T {
            const WORDS: &'static [&'static str] = &["none"];

            fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
                let mut rounds = $T::new();
                if s != "none" {
                    for part in s.split(':') {
                        rounds
                            .push(parse_u32(part)?)
                            .map_err(|_| format!("'{s}' lists more than {} {}", $max, $what))?;
                    }
                }
                out.push(rounds);
                Ok(())
            }
        }
    };
}

rounds_item!(
    /// The rounds at which an instance breaks for good: `A:B:…` or `none`.
    FailureRounds,
    MAX_FAILURE_ROUNDS,
    "failure rounds"
);

/// Parses `N[:WORD]`: `N` an integer or a range (as for `u32`), each with the value `words`
/// gives `WORD` (the first word's without one); `what` names WORD and `form` the syntax in
/// the errors.
fn counts_and_word<T: Copy>(
    s: &str,
    words: [(&str, T); 2],
    what: &str,
    form: &str,
) -> Result<(Vec<u32>, T), String> {
    let (counts, value) = match s.rsplit_once(':') {
        Some((n, w)) => match words.iter().find(|(word, _)| *word == w) {
            Some(&(_, value)) => (n, value),
            None => {
                let [(a, _), (b, _)] = words;
                return Err(format!("'{s}': {what} is '{a}' or '{b}'"));
            }
        },
        None => (s, words[0].1),
    };
    let mut all = Vec::new();
    u32::parse_item(counts, &mut all).map_err(|e| format!("'{s}' is not {form}: {e}"))?;
    Ok((all, value))
}

/// A hook: `ROUNDS[:continue|abandon]` (ROUNDS may be a range) or `none`.
impl Item for Option<Hook> {
    const WORDS: &'static [&'static str] = &["none"];

    fn hint(s: &str) -> Option<String> {
        range_or_word(s, Self::WORDS)
    }

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        none_or(s, out, |hooks| {
            let results = [
                ("continue", HookResult::Continue),
                ("abandon", HookResult::Abandon),
            ];
            let form = "ROUNDS[:continue|abandon] or 'none'";
            let (all, result) = counts_and_word(s, results, "the result", form)?;
            hooks.extend(all.into_iter().map(|rounds| Hook { rounds, result }));
            Ok(())
        })
    }
}

word_item!(
    RemovalPolicy {
        "lesson" => RemovalPolicy::Lesson,
        "oldest" => RemovalPolicy::Oldest,
        "newest" => RemovalPolicy::Newest,
        "oldest-template" => RemovalPolicy::OldestTemplate,
    } else |s| format!("'{s}' is not a removal policy (lesson, oldest, newest or oldest-template)")
);

word_item!(
    Reclaim {
        "release" => Reclaim::Release,
        "stop" => Reclaim::Stop,
    } else |s| format!("'{s}' is not a reclaim mode (release or stop)")
);

span_item!(
    /// Stockout rounds: `A..B` (B excluded), `A..=B`, or `none`.
    Stockout
);

/// Scripted actions: `ROUND:ACTION:COUNT` joined by `+`, or `none`.
impl Item for Events {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let mut events = Events::new();
        if s != "none" {
            for part in s.split('+') {
                let bad = || format!("'{part}' is not ROUND:ACTION:COUNT");
                let mut fields = part.split(':');
                let (Some(round), Some(action), Some(count), None) =
                    (fields.next(), fields.next(), fields.next(), fields.next())
                else {
                    return Err(bad());
                };
                let action = match action {
                    "standby" => Action::EnterStandby,
                    "unstandby" => Action::ExitStandby,
                    "protect" => Action::Protect,
                    "unprotect" => Action::Unprotect,
                    _ => {
                        return Err(format!(
                            "'{action}' is not an action (standby, unstandby, protect or unprotect)"
                        ))
                    }
                };
                let event = Event {
                    round: parse_u32(round)?,
                    action,
                    count: parse_u32(count)?,
                };
                events
                    .push(event)
                    .map_err(|_| format!("'{s}' lists more than {MAX_EVENTS} actions"))?;
            }
        }
        out.push(events);
        Ok(())
    }
}

/// Returns `list` as a `'static` slice, leaking it only the first time that list is seen
/// (the core keeps a scenario's lists by reference, so that its parameters stay small).
fn intern<T: PartialEq + Clone + Send + Sync + 'static>(
    pool: &'static std::sync::Mutex<Vec<&'static [T]>>,
    list: Vec<T>,
) -> &'static [T] {
    if list.is_empty() {
        return &[];
    }
    let mut pool = pool
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(seen) = pool.iter().find(|s| ***s == list[..]) {
        return seen;
    }
    let leaked: &'static [T] = Box::leak(list.into_boxed_slice());
    pool.push(leaked);
    leaked
}

/// Parses a scenario's list: `none` (empty), or parts joined by `+`, each as `one` parses it,
/// at most `max` (`what` names them in the error); the list interned in `pool`.
fn plus_list<T: PartialEq + Clone + Send + Sync + 'static>(
    s: &str,
    pool: &'static std::sync::Mutex<Vec<&'static [T]>>,
    max: usize,
    what: &str,
    one: impl Fn(&str) -> Result<T, String>,
) -> Result<&'static [T], String> {
    if s == "none" {
        return Ok(&[]);
    }
    let mut list = Vec::new();
    for part in s.split('+') {
        list.push(one(part)?);
        if list.len() > max {
            return Err(format!("'{s}' lists more than {max} {what}"));
        }
    }
    Ok(intern(pool, list))
}

static HOOK_LISTS: std::sync::Mutex<Vec<&'static [LifecycleHook]>> =
    std::sync::Mutex::new(Vec::new());
static TIMED_LISTS: std::sync::Mutex<Vec<&'static [TimedAction]>> =
    std::sync::Mutex::new(Vec::new());

/// Returns one scenario hook as its flag spells it:
/// `TIMEOUT[:RESULT][:action=N][:heartbeat=K][:PROVIDER]` (the parts that differ from a
/// plain Alibaba hook with CONTINUE).
pub fn hook_text(h: &LifecycleHook) -> String {
    let mut s = h.timeout.to_string();
    if h.default_result != h.provider.default_result() {
        s.push(':');
        s.push_str(h.default_result.name());
    }
    if h.action_rounds != 0 {
        s.push_str(&format!(":action={}", h.action_rounds));
    }
    if h.heartbeat_every != 0 {
        s.push_str(&format!(":heartbeat={}", h.heartbeat_every));
    }
    if h.provider != Provider::Alibaba {
        s.push(':');
        s.push_str(h.provider.name());
    }
    s
}

/// Returns one timed action as its flag spells it: `ROUND:KEY=VALUE`.
pub fn timed_text(a: &TimedAction) -> String {
    let value =
        if a.value == NO_BOUND && matches!(a.what, Timed::MinInstances | Timed::MaxInstances) {
            "none".to_string()
        } else {
            a.value.to_string()
        };
    let value = match a.what {
        Timed::Formula => crate::models::timed_formula_path(a.value).unwrap_or(value),
        _ => value,
    };
    format!("{}:{}={value}", a.round, a.what.key())
}

/// A scenario's hooks of one transition: `none`, or hooks joined by `+`, each
/// `TIMEOUT[:continue|abandon|rollback][:action=N][:heartbeat=K][:alibaba|aws]` (the
/// parts after TIMEOUT in any order, each at most once; N and K 1 or more, a part left
/// out being the hook without it; the result defaults to the provider's: Alibaba
/// CONTINUE, AWS ABANDON). TIMEOUT 1 to 360 (Alibaba) or 120 (AWS) rounds; at most 50 hooks
/// (the model checks the ranges and the total).
impl Item for &'static [LifecycleHook] {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(plus_list(s, &HOOK_LISTS, MAX_HOOKS, "hooks", |part| {
            let bad = |why: &str| {
                format!(
                    "'{part}' is not TIMEOUT[:RESULT][:action=N][:heartbeat=K][:PROVIDER]: {why}"
                )
            };
            let mut fields = part.split(':');
            let timeout = fields.next().unwrap_or("");
            let timeout: u16 = timeout.parse().map_err(|_| {
                bad(&format!(
                    "'{timeout}' is not a timeout in rounds (1 to 360)"
                ))
            })?;
            // Each part once: a second result, provider, action or heartbeat would
            // silently replace the first.
            let (mut result, mut provider) = (None, None);
            let (mut action, mut heartbeat) = (None, None);
            for f in fields {
                let number = |v: &str| match v.parse::<u16>() {
                    Ok(0) => Err(bad(&format!(
                        "'{f}': 0 rounds would do nothing (leave it out for a hook without it)"
                    ))),
                    Ok(n) => Ok(n),
                    Err(_) => Err(bad(&format!(
                        "'{v}' is not a count of rounds (1 to 65535)"
                    ))),
                };
                let once = |given: bool, what: &str| {
                    if given {
                        Err(bad(&format!("'{f}' gives its {what} a second time")))
                    } else {
                        Ok(())
                    }
                };
                match f {
                    "continue" | "abandon" | "rollback" => {
                        once(result.is_some(), "result")?;
                        result = Some(match f {
                            "continue" => HookResult::Continue,
                            "abandon" => HookResult::Abandon,
                            _ => HookResult::Rollback,
                        });
                    }
                    "alibaba" | "aws" => {
                        once(provider.is_some(), "provider")?;
                        provider = Some(if f == "aws" {
                            Provider::Aws
                        } else {
                            Provider::Alibaba
                        });
                    }
                    _ => match f.split_once('=') {
                        Some(("action", v)) => {
                            once(action.is_some(), "action")?;
                            action = Some(number(v)?);
                        }
                        Some(("heartbeat", v)) => {
                            once(heartbeat.is_some(), "heartbeat")?;
                            heartbeat = Some(number(v)?);
                        }
                        _ => return Err(bad(&format!("'{f}' is none of continue, abandon, rollback, action=N, heartbeat=K, alibaba, aws"))),
                    },
                }
            }
            let provider = provider.unwrap_or(Provider::Alibaba);
            Ok(LifecycleHook {
                provider,
                default_result: result.unwrap_or(provider.default_result()),
                timeout,
                action_rounds: action.unwrap_or(0),
                heartbeat_every: heartbeat.unwrap_or(0),
            })
        })?);
        Ok(())
    }
}

/// How a timed formula's unreadable file is named in its error.
const TIMED_FORMULA_ERROR: &str = "formula file ";

/// Timed operator actions: `none`, or `ROUND:KEY=VALUE` joined by `+` (KEY min_instances or
/// max_instances with a size or `none`, desired, standby, unstandby, protect, unprotect,
/// detach with a count, template with a version, evaluation_interval with a formula's new
/// interval, formula with a formula file: its index among the command's timed formulas,
/// parsed once per path, [`crate::models::timed_formula`]); at most 125.
impl Item for &'static [TimedAction] {
    const WORDS: &'static [&'static str] = &["none"];

    // A timed formula's file error is its own line: `FILE:L:C: error: …` or
    // `formula file FILE: reason`.
    fn names_its_values(e: &str) -> bool {
        crate::input::is_located(e) || e.starts_with(TIMED_FORMULA_ERROR)
    }

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(plus_list(s, &TIMED_LISTS, MAX_TIMED, "actions", |part| {
            let bad = || format!("'{part}' is not ROUND:KEY=VALUE");
            let (round, action) = part.split_once(':').ok_or_else(bad)?;
            let (key, value) = action.split_once('=').ok_or_else(bad)?;
            let Some(what) = Timed::from_key(key) else {
                let keys: Vec<&str> = Timed::ALL.iter().map(|t| t.key()).collect();
                let hint = closest(key, &keys)
                    .map(|c| format!("; did you mean {c}?"))
                    .unwrap_or_default();
                return Err(format!(
                    "'{key}' is not a timed action{hint} ({})",
                    keys.join(", ")
                ));
            };
            let value = match (what, value) {
                (Timed::MinInstances | Timed::MaxInstances, "none") => NO_BOUND,
                (Timed::Formula, path) => crate::models::timed_formula(path).map_err(|e| {
                    if crate::input::is_located(&e) {
                        e
                    } else {
                        format!("{TIMED_FORMULA_ERROR}{e}")
                    }
                })?,
                _ => parse_u32(value)?,
            };
            Ok(TimedAction {
                round: parse_u32(round)?,
                what,
                value,
            })
        })?);
        Ok(())
    }
}

rounds_item!(
    /// Scripted preemption rounds: `A:B:…` or `none`.
    PreemptionRounds,
    MAX_PREEMPTION_ROUNDS,
    "preemption rounds"
);

word_item!(
    OnPreemption {
        "stay" => OnPreemption::Stay,
        "replace" => OnPreemption::Replace,
    } else |s| format!("'{s}' is neither 'stay' nor 'replace'")
);

/// A warm pool's size and the state its instances wait in: `N[:stopped|running]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarmSize {
    /// The instances the pool keeps warm (0: no pool; `MAX_MINUS_DESIRED`: AWS's default,
    /// the maximum size minus the desired capacity).
    pub size: u32,
    /// The state they wait in (AWS's default: stopped).
    pub state: WarmState,
}

impl WarmSize {
    /// The word of AWS's default size: the group's maximum size minus its desired capacity.
    pub const MAX_MINUS_DESIRED: &'static str = "max-desired";
}

impl Item for WarmSize {
    fn hint(s: &str) -> Option<String> {
        dash_range(s)
    }

    const WORDS: &'static [&'static str] = &[Self::MAX_MINUS_DESIRED];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let states = [
            ("stopped", WarmState::Stopped),
            ("running", WarmState::Running),
        ];
        let (size, state) = s.split_once(':').unwrap_or((s, ""));
        if size == Self::MAX_MINUS_DESIRED {
            let state = match state {
                "" | "stopped" => WarmState::Stopped,
                "running" => WarmState::Running,
                _ => return Err(format!("'{s}': the pool state is 'stopped' or 'running'")),
            };
            out.push(WarmSize {
                size: MAX_MINUS_DESIRED,
                state,
            });
            return Ok(());
        }
        let (all, state) = counts_and_word(s, states, "the pool state", "N[:stopped|running]")?;
        out.extend(all.into_iter().map(|size| WarmSize { size, state }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::parse;

    /// The shared item rules give each flag its own words: the errors as the flags have
    /// always written them, the limits of each list, `none`.
    #[test]
    fn each_item_keeps_its_own_errors_and_limits() {
        let err = |r: Result<(), String>| r.unwrap_err();
        let mut hooks = Vec::new();
        assert_eq!(
            err(Option::<Hook>::parse_item("3:maybe", &mut hooks)),
            "'3:maybe': the result is 'continue' or 'abandon'"
        );
        assert_eq!(
            err(Option::<Hook>::parse_item("x:abandon", &mut hooks)),
            "'x:abandon' is not ROUNDS[:continue|abandon] or 'none': 'x' is not an integer"
        );
        let mut warm = Vec::new();
        assert_eq!(
            err(WarmSize::parse_item("2:hot", &mut warm)),
            "'2:hot': the pool state is 'stopped' or 'running'"
        );
        assert_eq!(
            err(WarmSize::parse_item("x", &mut warm)),
            "'x' is not N[:stopped|running]: 'x' is not an integer"
        );
        WarmSize::parse_item("1..=2:running", &mut warm).unwrap();
        assert_eq!(
            warm,
            [1, 2].map(|size| WarmSize {
                size,
                state: WarmState::Running
            })
        );
        let rounds = |n: usize| vec!["7"; n].join(":");
        assert_eq!(parse::<FailureRounds>(&rounds(64)).unwrap().0[0].len(), 64);
        assert_eq!(
            parse::<FailureRounds>(&rounds(65)).unwrap_err(),
            format!("'{}' lists more than 64 failure rounds", rounds(65))
        );
        assert_eq!(
            parse::<PreemptionRounds>(&rounds(32)).unwrap().0[0].len(),
            32
        );
        assert_eq!(
            parse::<PreemptionRounds>(&rounds(33)).unwrap_err(),
            format!("'{}' lists more than 32 preemption rounds", rounds(33))
        );
        assert!(parse::<PreemptionRounds>("none").unwrap().0[0].is_empty());
        let plus = |part: &str, n: usize| vec![part; n].join("+");
        assert_eq!(
            parse::<&'static [LifecycleHook]>(&plus("5", 50)).unwrap().0[0].len(),
            50
        );
        assert_eq!(
            parse::<&'static [LifecycleHook]>(&plus("5", 51)).unwrap_err(),
            format!("'{}' lists more than 50 hooks", plus("5", 51))
        );
        assert!(parse::<&'static [LifecycleHook]>("none").unwrap().0[0].is_empty());
        assert_eq!(
            parse::<&'static [TimedAction]>(&plus("1:desired=2", 126)).unwrap_err(),
            format!("'{}' lists more than 125 actions", plus("1:desired=2", 126))
        );
        assert!(parse::<&'static [TimedAction]>("none").unwrap().0[0].is_empty());
        let mut reclaim = Vec::new();
        assert_eq!(
            err(Reclaim::parse_item("stp", &mut reclaim)),
            "'stp' is not a reclaim mode (release or stop)"
        );
        assert_eq!(Reclaim::WORDS, ["release", "stop"]);
        assert_eq!(OnPreemption::WORDS, ["stay", "replace"]);
        assert_eq!(parse::<Option<Steps>>("none").unwrap().0, [None]);
    }
}
