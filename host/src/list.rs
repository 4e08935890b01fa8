//! Parameter lists on the command line: `2,3,5`, ranges `1..=10000` and `1..5`, and the
//! model-specific items (`shared`, `healthy`, `40:95:170`).

use capsim_core::autoscale::{
    Action, Adjustment, Event, Events, FailureRounds, Hook, HookResult, LifecycleHook, Provider,
    Reclaim, RemovalPolicy, Step, Steps, Stockout, Timed, TimedAction, MAX_EVENTS,
    MAX_FAILURE_ROUNDS, MAX_HOOKS, MAX_STEPS, MAX_TIMED, NO_BOUND, OPEN,
};
use capsim_core::autoscale::{OnPreemption, PreemptionRounds, WarmState, MAX_PREEMPTION_ROUNDS};
use capsim_core::bulkhead::{Breaker, Mode, Split};
use capsim_core::consumers::{Outage, Routing};

/// The most values one flag may expand to (ranges included).
pub const MAX_LIST_LEN: usize = 1_000_000;

/// A parsed, non-empty list of values for one parameter.
#[derive(Clone, Debug)]
pub struct List<T>(pub Vec<T>);

/// A value that may appear in a comma-separated list.
pub trait Item: Sized + Clone {
    /// Parses one comma-separated item into one or more values.
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String>;

    /// The words the item takes (`oldest`, `none`), for suggestions.
    const WORDS: &'static [&'static str] = &[];

    /// Returns what the user likely meant by `s`, an item that failed to parse: the nearest
    /// of [`Item::WORDS`] (`olde`: `oldest`), or for ranges `A..=B` for `A-B`.
    fn hint(s: &str) -> Option<String> {
        closest(s, Self::WORDS).map(str::to_string)
    }

    /// Whether the item's errors say on their own what is accepted; if not, a flag's error
    /// ends with the flag's documented accepted values ([`with_accepted`]).
    const NAMES_ITS_VALUES: bool = false;

    /// Whether error `e` says on its own what is wrong ([`Item::NAMES_ITS_VALUES`] unless
    /// an item's errors differ: a file's error among counts' is complete).
    fn names_its_values(e: &str) -> bool {
        let _ = e;
        Self::NAMES_ITS_VALUES
    }
}

/// Returns the candidate nearest `s` if it is close enough to be a typo of it (for "did
/// you mean …?"): one that starts with `s`, or one within an edit distance of a third of
/// its length (at least 1); the first of equally near ones.
pub fn closest<'a>(s: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let near = |c: &&str| {
        let d = edit_distance(s, c);
        (d <= (c.chars().count() / 3).max(1) || (s.len() >= 2 && c.starts_with(s))).then_some(d)
    };
    candidates
        .iter()
        .filter_map(|c| near(c).map(|d| (d, *c)))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Returns the edit distance between `a` and `b` in characters: insertions, deletions,
/// substitutions and swaps of two neighbours (`stpo`: `stop`) count one each.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // d[i][j]: the distance between a[..i] and b[..j].
    let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// Returns `A..=B` for `A-B` (two integers with a dash between): the range syntax meant.
fn dash_range(s: &str) -> Option<String> {
    let (a, b) = s.split_once('-')?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    (digits(a) && digits(b)).then(|| format!("{a}..={b}"))
}

/// A flag's parse error `e`, ended with the flag's documented `accepted` values (unless the
/// item's errors say them, or the flag documents none): every number's error names the
/// flag's own range, not the integer type's. A suggestion (`; did you mean X?`) stays last.
pub fn with_accepted<T: Item>(e: String, accepted: &str) -> String {
    if T::names_its_values(&e) || accepted.is_empty() {
        return e;
    }
    match e.find("; did you mean ") {
        Some(at) => format!("{}; accepted values are {accepted}{}", &e[..at], &e[at..]),
        None => format!("{e}; accepted values are {accepted}"),
    }
}

/// Parses a whole number; the error says what is wrong with `s` (negative, too large, not
/// an integer) and leaves the range to the flag ([`with_accepted`]).
fn parse_u32(s: &str) -> Result<u32, String> {
    s.parse::<u32>().map_err(|_| {
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if s.strip_prefix('-').is_some_and(digits) {
            format!("'{s}' is negative")
        } else if digits(s.strip_prefix('+').unwrap_or(s)) {
            format!("'{s}' is too large")
        } else {
            format!("'{s}' is not an integer")
        }
    })
}

impl Item for u32 {
    fn hint(s: &str) -> Option<String> {
        dash_range(s)
    }

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let range = s
            .split_once("..=")
            .map(|(a, b)| (a, b, true))
            .or_else(|| s.split_once("..").map(|(a, b)| (a, b, false)));
        match range {
            None => out.push(parse_u32(s)?),
            Some((a, b, inclusive)) => {
                let (lo, hi) = (parse_u32(a)?, parse_u32(b)?);
                // The last value, if any: `a..b` stops before `b`, so `0..0` is as empty as `1..1`.
                let last = if inclusive {
                    Some(u64::from(hi))
                } else {
                    u64::from(hi).checked_sub(1)
                };
                let hi = match last {
                    Some(hi) if hi >= u64::from(lo) => hi,
                    _ => return Err(format!("range '{s}' is empty")),
                };
                if hi - u64::from(lo) + 1 + out.len() as u64 > MAX_LIST_LEN as u64 {
                    return Err(format!("more than {MAX_LIST_LEN} values"));
                }
                out.extend((u64::from(lo)..=hi).map(|v| v as u32));
            }
        }
        Ok(())
    }
}

/// An optional integer: `none`, or integers and ranges as for `u32`.
impl Item for Option<u32> {
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        if s == "none" {
            out.push(None);
            return Ok(());
        }
        let mut values = Vec::new();
        u32::parse_item(s, &mut values)?;
        out.extend(values.into_iter().map(Some));
        Ok(())
    }
}

/// Step adjustments: `BAND/BAND/…` or `none`; a BAND is `[LOW]..[HIGH]:ADJ` (utilisation
/// percent 0 to 65534, LOW included, HIGH excluded, either omitted for an open end) and ADJ
/// is `+N` or `-N` instances, `+N%` or `-N%` of the current capacity, or `=N` instances
/// exactly (AWS's ChangeInCapacity, PercentChangeInCapacity, ExactCapacity; N to 32767).
impl Item for Option<Steps> {
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        if s == "none" {
            out.push(None);
            return Ok(());
        }
        let mut steps = Steps::new();
        for band in s.split('/') {
            let bad = || {
                format!(
                    "'{band}' is not a band [LOW]..[HIGH]:ADJ (bounds 0 to 65534; ADJ +N, -N, +N%, -N% or =N, N to 32767)"
                )
            };
            let (range, adj) = band.split_once(':').ok_or_else(bad)?;
            let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
            let bound = |b: &str, open: u16| -> Result<u16, String> {
                if b.is_empty() {
                    return Ok(open);
                }
                match b.parse::<u16>() {
                    Ok(v) if v < OPEN => Ok(v),
                    _ => Err(bad()),
                }
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
        out.push(Some(steps));
        Ok(())
    }
}

impl Item for f64 {
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() => {
                out.push(v);
                Ok(())
            }
            _ => Err(format!("'{s}' is not a finite number")),
        }
    }
}

impl Item for Split {
    const WORDS: &'static [&'static str] = &["shared"];

    fn hint(s: &str) -> Option<String> {
        dash_range(s).or_else(|| closest(s, Self::WORDS).map(str::to_string))
    }

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        if s == "shared" {
            out.push(Split::Shared);
            return Ok(());
        }
        let mut slots = Vec::new();
        u32::parse_item(s, &mut slots)
            .map_err(|_| format!("'{s}' is neither 'shared' nor a number of tracking slots"))?;
        out.extend(slots.into_iter().map(Split::Partitioned));
        Ok(())
    }
}

/// `none`, or `RATIO:WINDOW[:OPEN_ROUNDS]` (the ranges are the core's `validate`'s).
impl Item for Option<Breaker> {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        if s == "none" {
            out.push(None);
            return Ok(());
        }
        match Breaker::parse(s) {
            Some(b) => {
                out.push(Some(b));
                Ok(())
            }
            None => Err(format!(
                "'{s}' is not RATIO:WINDOW[:OPEN_ROUNDS] or 'none' (a number and one or two integers)"
            )),
        }
    }
}

impl Item for Mode {
    const WORDS: &'static [&'static str] = &["healthy", "slowdown"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(match s {
            "healthy" => Mode::Healthy,
            "slowdown" => Mode::Slowdown,
            _ => return Err(format!("'{s}' is not a mode (healthy or slowdown)")),
        });
        Ok(())
    }
}

impl Item for FailureRounds {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let mut rounds = FailureRounds::new();
        if s != "none" {
            for part in s.split(':') {
                rounds.push(parse_u32(part)?).map_err(|_| {
                    format!("'{s}' lists more than {MAX_FAILURE_ROUNDS} failure rounds")
                })?;
            }
        }
        out.push(rounds);
        Ok(())
    }
}

/// A hook: `ROUNDS[:continue|abandon]` (ROUNDS may be a range) or `none`.
impl Item for Option<Hook> {
    const WORDS: &'static [&'static str] = &["none"];

    fn hint(s: &str) -> Option<String> {
        dash_range(s).or_else(|| closest(s, Self::WORDS).map(str::to_string))
    }

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        if s == "none" {
            out.push(None);
            return Ok(());
        }
        let (rounds, result) = match s.rsplit_once(':') {
            Some((r, "continue")) => (r, HookResult::Continue),
            Some((r, "abandon")) => (r, HookResult::Abandon),
            Some(_) => return Err(format!("'{s}': the result is 'continue' or 'abandon'")),
            None => (s, HookResult::Continue),
        };
        let mut all = Vec::new();
        u32::parse_item(rounds, &mut all)
            .map_err(|e| format!("'{s}' is not ROUNDS[:continue|abandon] or 'none': {e}"))?;
        out.extend(all.into_iter().map(|rounds| Some(Hook { rounds, result })));
        Ok(())
    }
}

/// `yes` or `no`.
impl Item for bool {
    const WORDS: &'static [&'static str] = &["yes", "no"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(match s {
            "yes" => true,
            "no" => false,
            _ => return Err(format!("'{s}' is neither 'yes' nor 'no'")),
        });
        Ok(())
    }
}

impl Item for RemovalPolicy {
    const WORDS: &'static [&'static str] = &["lesson", "oldest", "newest", "oldest-template"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(match s {
            "lesson" => RemovalPolicy::Lesson,
            "oldest" => RemovalPolicy::Oldest,
            "newest" => RemovalPolicy::Newest,
            "oldest-template" => RemovalPolicy::OldestTemplate,
            _ => {
                return Err(format!(
                    "'{s}' is not a removal policy (lesson, oldest, newest or oldest-template)"
                ))
            }
        });
        Ok(())
    }
}

impl Item for Reclaim {
    const WORDS: &'static [&'static str] = &["release", "stop"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(match s {
            "release" => Reclaim::Release,
            "stop" => Reclaim::Stop,
            _ => return Err(format!("'{s}' is not a reclaim mode (release or stop)")),
        });
        Ok(())
    }
}

/// A span of rounds `A..B` (B excluded) or `A..=B`, or `none`: `(start, end)`, `end` excluded.
fn parse_span(s: &str) -> Result<Option<(u32, u32)>, String> {
    if s == "none" {
        return Ok(None);
    }
    let bad = || format!("'{s}' is not A..B, A..=B or 'none'");
    let (start, end) = match s.split_once("..=") {
        Some((a, b)) => (parse_u32(a)?, parse_u32(b)?.checked_add(1).ok_or_else(bad)?),
        None => {
            let (a, b) = s.split_once("..").ok_or_else(bad)?;
            (parse_u32(a)?, parse_u32(b)?)
        }
    };
    if start >= end {
        return Err(format!("range '{s}' is empty"));
    }
    Ok(Some((start, end)))
}

/// Stockout rounds: `A..B` (B excluded), `A..=B`, or `none`.
impl Item for Option<Stockout> {
    const WORDS: &'static [&'static str] = &["none"];

    fn hint(s: &str) -> Option<String> {
        dash_range(s).or_else(|| closest(s, Self::WORDS).map(str::to_string))
    }

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(parse_span(s)?.map(|(start, end)| Stockout { start, end }));
        Ok(())
    }
}

/// Consumers outage rounds: `A..B` (B excluded), `A..=B`, or `none`.
impl Item for Option<Outage> {
    const WORDS: &'static [&'static str] = &["none"];

    fn hint(s: &str) -> Option<String> {
        dash_range(s).or_else(|| closest(s, Self::WORDS).map(str::to_string))
    }

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(parse_span(s)?.map(|(start, end)| Outage { start, end }));
        Ok(())
    }
}

/// An optional number: `none`, or a finite number.
impl Item for Option<f64> {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        if s == "none" {
            out.push(None);
            return Ok(());
        }
        let mut values = Vec::new();
        f64::parse_item(s, &mut values)
            .map_err(|_| format!("'{s}' is not a finite number or 'none'"))?;
        out.extend(values.into_iter().map(Some));
        Ok(())
    }
}

/// The consumers' routing: `shared` or `keyed`.
impl Item for Routing {
    const WORDS: &'static [&'static str] = &["shared", "keyed"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(match s {
            "shared" => Routing::Shared,
            "keyed" => Routing::Keyed,
            _ => return Err(format!("'{s}' is not a routing")),
        });
        Ok(())
    }
}

/// How a row shows the consumers' flow options (the JSON the core's serde derives write):
/// `none` or the number, `[]` or `[A,B]` (`A..B` as text), the routing's name.
mod flow_values {
    use capsim_core::consumers::{Outage, Routing};

    use crate::models::Value;
    use crate::output::Cell;

    impl Value for Option<f64> {
        fn cell(&self) -> Cell {
            self.map_or(Cell::Word("none"), Cell::Float)
        }
    }

    impl Value for Option<Outage> {
        fn cell(&self) -> Cell {
            self.map_or(Cell::Ints(Vec::new()), |o| Cell::Span(o.start, o.end))
        }
    }

    impl Value for Routing {
        fn cell(&self) -> Cell {
            Cell::Word(self.name())
        }
    }
}

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
/// parts after TIMEOUT in any order; the result defaults to the provider's: Alibaba
/// CONTINUE, AWS ABANDON). TIMEOUT 1 to 360 (Alibaba) or 120 (AWS) rounds; at most 50 hooks
/// (the model checks the ranges and the total).
impl Item for &'static [LifecycleHook] {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        if s == "none" {
            out.push(&[]);
            return Ok(());
        }
        let mut hooks = Vec::new();
        for part in s.split('+') {
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
            let (mut result, mut provider) = (None, Provider::Alibaba);
            let (mut action, mut heartbeat) = (0u16, 0u16);
            for f in fields {
                let number = |v: &str| {
                    v.parse::<u16>()
                        .map_err(|_| bad(&format!("'{v}' is not a count of rounds (0 to 65535)")))
                };
                match f {
                    "continue" => result = Some(HookResult::Continue),
                    "abandon" => result = Some(HookResult::Abandon),
                    "rollback" => result = Some(HookResult::Rollback),
                    "alibaba" => provider = Provider::Alibaba,
                    "aws" => provider = Provider::Aws,
                    _ => match f.split_once('=') {
                        Some(("action", v)) => action = number(v)?,
                        Some(("heartbeat", v)) => heartbeat = number(v)?,
                        _ => return Err(bad(&format!("'{f}' is none of continue, abandon, rollback, action=N, heartbeat=K, alibaba, aws"))),
                    },
                }
            }
            hooks.push(LifecycleHook {
                provider,
                default_result: result.unwrap_or(provider.default_result()),
                timeout,
                action_rounds: action,
                heartbeat_every: heartbeat,
            });
            if hooks.len() > MAX_HOOKS {
                return Err(format!("'{s}' lists more than {MAX_HOOKS} hooks"));
            }
        }
        out.push(intern(&HOOK_LISTS, hooks));
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
        if s == "none" {
            out.push(&[]);
            return Ok(());
        }
        let mut actions = Vec::new();
        for part in s.split('+') {
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
            actions.push(TimedAction {
                round: parse_u32(round)?,
                what,
                value,
            });
            if actions.len() > MAX_TIMED {
                return Err(format!("'{s}' lists more than {MAX_TIMED} actions"));
            }
        }
        out.push(intern(&TIMED_LISTS, actions));
        Ok(())
    }
}

/// Parses a comma-separated list (clap value parser).
pub fn parse<T: Item>(s: &str) -> Result<List<T>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("'{s}' has an empty item"));
        }
        T::parse_item(part, &mut out).map_err(|e| {
            // Only a suggestion that parses: not `5..=1` for `5-1`.
            let meant = T::hint(part).filter(|h| T::parse_item(h, &mut Vec::new()).is_ok());
            match meant {
                Some(meant) => format!("{e}; did you mean {meant}?"),
                None => e,
            }
        })?;
        if out.len() > MAX_LIST_LEN {
            return Err(format!("more than {MAX_LIST_LEN} values"));
        }
    }
    Ok(List(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Suggestions: the nearest word within a third of its length, a prefix, a swap; none
    /// for a word far from all.
    #[test]
    fn near_words_are_suggested() {
        let words = ["lesson", "oldest", "newest"];
        assert_eq!(closest("olde", &words), Some("oldest"));
        assert_eq!(closest("newset", &words), Some("newest"));
        assert_eq!(closest("lesosn", &words), Some("lesson"));
        assert_eq!(closest("zzzzzz", &words), None);
        assert_eq!(closest("", &words), None);
        assert_eq!(closest("stpo", &["release", "stop"]), Some("stop"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(
            parse::<u32>("1-100").unwrap_err().rsplit("; ").next(),
            Some("did you mean 1..=100?")
        );
        assert_eq!(
            parse::<RemovalPolicy>("lesson,olde").unwrap_err(),
            "'olde' is not a removal policy (lesson, oldest, newest or oldest-template); did you mean oldest?"
        );
        // No range is guessed for a negative number or a float.
        assert!(!parse::<u32>("-100").unwrap_err().contains("did you mean"));
        assert_eq!(
            with_accepted::<u32>(
                "'1-100' is not an integer; did you mean 1..=100?".into(),
                "1 to 9"
            ),
            "'1-100' is not an integer; accepted values are 1 to 9; did you mean 1..=100?"
        );
        assert!(!parse::<f64>("1-2").unwrap_err().contains("did you mean"));
        assert!(!parse::<u32>("5-1").unwrap_err().contains("did you mean"));
        assert!(!parse::<u32>("0-4294967295")
            .unwrap_err()
            .contains("did you mean"));
    }

    #[test]
    fn lists_and_ranges() {
        assert_eq!(parse::<u32>("2,3,5").unwrap().0, vec![2, 3, 5]);
        assert_eq!(parse::<u32>("1..=3,7").unwrap().0, vec![1, 2, 3, 7]);
        assert_eq!(parse::<u32>("1..3").unwrap().0, vec![1, 2]);
        assert!(parse::<u32>("3..=1").is_err());
        assert_eq!(parse::<u32>("0..1").unwrap().0, vec![0]);
        assert_eq!(parse::<u32>("0..=0").unwrap().0, vec![0]);
        // Every empty range is rejected alike, `0..0` included (it once became [0]).
        for empty in [
            "0..0",
            "1..1",
            "5..5",
            "4294967295..4294967295",
            "2..1",
            "1..=0",
        ] {
            assert_eq!(
                parse::<u32>(empty).unwrap_err(),
                format!("range '{empty}' is empty"),
                "{empty}"
            );
        }
        assert!(parse::<u32>("1,,2").is_err());
        assert!(parse::<u32>("-1").is_err());
        assert!(parse::<u32>("0..=4294967295").is_err());
        assert_eq!(parse::<f64>("0.08,1e-3").unwrap().0, vec![0.08, 0.001]);
        assert!(parse::<f64>("nan").is_err());
        let splits = parse::<Split>("shared,28,24").unwrap().0;
        assert_eq!(
            splits,
            vec![
                Split::Shared,
                Split::Partitioned(28),
                Split::Partitioned(24)
            ]
        );
        assert!(parse::<Mode>("healthy,slow").is_err());
        let f = parse::<FailureRounds>("40:95:170,none").unwrap().0;
        assert_eq!((f[0].as_slice(), f[1].len()), (&[40, 95, 170][..], 0));
        let h = parse::<Option<Hook>>("none,3,2..=3:abandon").unwrap().0;
        assert_eq!(h.len(), 4);
        assert_eq!(h[0], None);
        assert_eq!(
            h[1].map(|h| (h.rounds, h.result)),
            Some((3, HookResult::Continue))
        );
        assert_eq!(
            h[3].map(|h| (h.rounds, h.result)),
            Some((3, HookResult::Abandon))
        );
        assert!(parse::<Option<Hook>>("3:maybe").is_err());
        let s = parse::<Option<Stockout>>("150..190,1..=2,none").unwrap().0;
        assert_eq!(
            s[0],
            Some(Stockout {
                start: 150,
                end: 190
            })
        );
        assert_eq!(s[1], Some(Stockout { start: 1, end: 3 }));
        assert_eq!(s[2], None);
        assert!(parse::<Option<Stockout>>("5..5").is_err());
        assert!(parse::<bool>("yes,no").is_ok() && parse::<bool>("true").is_err());
        let e = parse::<Events>("0:protect:3+50:standby:1,none").unwrap().0;
        assert_eq!(e[0].len(), 2);
        assert_eq!(e[0][1].action, Action::EnterStandby);
        assert_eq!((e[0][1].round, e[0][1].count), (50, 1));
        assert!(e[1].is_empty());
        assert!(parse::<Events>("0:protect").is_err());
        assert!(parse::<Events>("0:hibernate:1").is_err());
    }
}

/// Scripted preemption rounds: `A:B:…` or `none`.
impl Item for PreemptionRounds {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let mut rounds = PreemptionRounds::new();
        if s != "none" {
            for part in s.split(':') {
                rounds.push(parse_u32(part)?).map_err(|_| {
                    format!("'{s}' lists more than {MAX_PREEMPTION_ROUNDS} preemption rounds")
                })?;
            }
        }
        out.push(rounds);
        Ok(())
    }
}

impl Item for OnPreemption {
    const WORDS: &'static [&'static str] = &["stay", "replace"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        out.push(match s {
            "stay" => OnPreemption::Stay,
            "replace" => OnPreemption::Replace,
            _ => return Err(format!("'{s}' is neither 'stay' nor 'replace'")),
        });
        Ok(())
    }
}

/// A warm pool's size and the state its instances wait in: `N[:stopped|running]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarmSize {
    /// The instances the pool keeps warm (0: no pool).
    pub size: u32,
    /// The state they wait in (AWS's default: stopped).
    pub state: WarmState,
}

impl Item for WarmSize {
    fn hint(s: &str) -> Option<String> {
        dash_range(s)
    }

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let (size, state) = match s.rsplit_once(':') {
            Some((n, "stopped")) => (n, WarmState::Stopped),
            Some((n, "running")) => (n, WarmState::Running),
            Some(_) => return Err(format!("'{s}': the pool state is 'stopped' or 'running'")),
            None => (s, WarmState::Stopped),
        };
        let mut all = Vec::new();
        u32::parse_item(size, &mut all)
            .map_err(|e| format!("'{s}' is not N[:stopped|running]: {e}"))?;
        out.extend(all.into_iter().map(|size| WarmSize { size, state }));
        Ok(())
    }
}
