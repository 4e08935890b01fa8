//! What you watch is what ran. For every parameter of each model's `PARAMS` table (set to an
//! accepted value other than the lesson's), and for random combinations of them (a formula,
//! its interval and its sample delay among them), the run a view shows (`trace::observe`,
//! the one observed path that `capsim trace`, `capsim plot` and the playground's chart share)
//! is the run the grid reports: its per-round states sum to the grid's metrics, and its CSV
//! trace is those states.

use capsim::models::{Ahead, Autoscale, Bulkhead, Consumers, Flags, Model};
use capsim::trace::{self, Traced};
use capsim_core::autoscale::State;
use capsim_core::{autoscale, bulkhead, consumers, Observer};

/// Every round a run reports, by model.
#[derive(Default)]
struct Tape {
    group: Vec<autoscale::RoundState>,
    consumers: Vec<consumers::RoundState>,
    bulkhead: Vec<bulkhead::RoundState>,
}

impl Observer<autoscale::RoundState> for Tape {
    fn round(&mut self, s: &autoscale::RoundState) {
        self.group.push(*s);
    }
}

impl Observer<consumers::RoundState> for Tape {
    fn round(&mut self, s: &consumers::RoundState) {
        self.consumers.push(*s);
    }
}

impl Observer<bulkhead::RoundState> for Tape {
    fn round(&mut self, s: &bulkhead::RoundState) {
        self.bulkhead.push(*s);
    }
}

fn formula(name: &str) -> String {
    format!("{}/../examples/formulas/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Accepted values of each autoscale parameter (separated by spaces), none of them the
/// lesson's; a formula and a demand file by their names in `examples/`. A parameter missing
/// here fails the test: a new row of the table needs its values.
const AUTOSCALE_VALUES: &[(&str, &str)] = &[
    ("threshold", "1 3 5"),
    ("cooldown", "3 8"),
    ("rounds", "60 400"),
    ("capacity", "60 150"),
    ("boot_rounds", "0 5 9"),
    ("transient_failure", "0 0.3 1"),
    ("failure_rounds", "none 5:10:10:200"),
    ("demand_base", "100 1500 30000"),
    ("demand_amplitude", "0 900"),
    ("demand_period", "30 500"),
    ("surge_start", "0 100"),
    ("surge_end", "60 239"),
    ("surge", "-800 1500"),
    ("launch_hook", "3 2:abandon"),
    ("terminate_hook", "2 4:abandon"),
    ("count_pending", "yes"),
    ("protected", "3 256"),
    ("removal_policy", "oldest newest"),
    ("reclaim", "stop"),
    ("restart_rounds", "0 4"),
    ("check_latency", "2 7"),
    ("apply_delay", "3 20"),
    ("stockout_rounds", "100..150 0..=5"),
    (
        "events",
        "3:standby:2+6:unstandby:2 0:protect:3+50:unprotect:3",
    ),
    ("formula", "zero.formula demand.formula cpu-busy.formula"),
    ("min_instances", "0 10 30 150"),
    ("max_instances", "0 12 18"),
    ("check_interval", "2 10080"),
    // `step` alone is an error (it needs `--steps`), so it is not a value to set alone.
    ("policy", "target-tracking hpa"),
    ("target_utilization", "1 80 100"),
    ("disable_scale_in", "yes"),
    ("steps", "..40:-1/80..120:+2/120..:+30% ..50:=3/50..:+100%"),
    (
        "hpa_target",
        "utilization:1 utilization:60 cpu:average-value:70 pods:average-value:55.5 external:value:3000 external:average-value:75",
    ),
    ("hpa_tolerance", "0 0.5 100"),
    ("hpa_scale_up_tolerance", "0 0.02"),
    ("hpa_scale_down_tolerance", "0.36 100"),
    ("hpa_sync_period", "2 60 3600"),
    ("hpa_cpu_initialization_period", "0 20 86400"),
    ("hpa_initial_readiness_delay", "0 86400"),
    ("hpa_scale_up_stabilization", "0 60 3600"),
    ("hpa_scale_up_policies", "Pods:1:60 Percent:10:15/Pods:2:30 Pods:1:1800"),
    ("hpa_scale_up_select", "Min Disabled"),
    ("hpa_scale_down_stabilization", "0 3600"),
    ("hpa_scale_down_policies", "Pods:1:15 Percent:10:60/Pods:3:15"),
    ("hpa_scale_down_select", "Min Disabled"),
    ("demand_file", "flash-crowd.csv slow-ramp.csv"),
    ("evaluation_interval", "5 10080"),
    ("sample_delay", "0 600"),
    (
        "launch_hooks",
        "10:action=3 2:continue:heartbeat=1:aws+5:abandon",
    ),
    ("terminate_hooks", "4:rollback 3:abandon+50"),
    (
        "at",
        "100:max_instances=12 30:standby=2+60:unstandby=2+10:detach=1+120:template=2+220:desired=8",
    ),
    ("task_rounds", "1 10080"),
    ("preemption_rate", "0 0.02 1"),
    ("preemption_rounds", "0 60:150"),
    ("preemption_notice", "2 1440"),
    ("on_preemption", "replace"),
    ("on_demand_base", "0 4"),
    ("on_demand_percent", "0 50 100"),
    ("warm_pool", "6 3:running 256 max-desired"),
    ("warm_pool_reuse", "yes"),
    ("price", "0:0:0 1:0.2:0.05 1e9:1e9:1e9"),
    ("seed", "1 2147483646"),
];

/// Accepted values of each consumers parameter, as [`AUTOSCALE_VALUES`].
const CONSUMERS_VALUES: &[(&str, &str)] = &[
    ("consumers", "5 64"),
    ("slots", "1 3"),
    ("shipments", "1 300"),
    ("events_per_shipment", "1 20"),
    ("queue_gap", "0"),
    ("final_event_rounds", "0 20"),
    ("event_rounds_min", "0 5"),
    ("event_rounds_spread", "0 10"),
    ("arrival_rate", "none 0.5 65536"),
    ("outage", "none 100..300 0..1"),
    ("buffer", "none 1 300"),
    ("routing", "shared keyed"),
    ("seed", "1 2147483646"),
];

/// Accepted values of each bulkhead parameter, as [`AUTOSCALE_VALUES`].
const BULKHEAD_VALUES: &[(&str, &str)] = &[
    ("split", "1 31 16"),
    ("mode", "slowdown healthy"),
    ("total_slots", "2 100"),
    ("rounds_per_second", "10 1000"),
    ("horizon", "1 500"),
    ("failure_start", "0 200"),
    ("tracking_rate", "0 1000"),
    ("event_rate", "0 500"),
    ("tracking_hold", "1 127"),
    ("event_hold", "1 127"),
    ("slow_hold", "1 127"),
    ("failure_end", "none 1500"),
    ("breaker", "none 0.5:9:20 0.000001:1:1"),
    ("retries", "0 2 10"),
    ("retry_backoff", "0 3"),
    ("seed", "1 2147483646"),
];

/// The values of `model`'s parameter `key` in its `table`.
fn values_in(model: &str, table: &[(&str, &str)], key: &str) -> Vec<String> {
    let (_, values) = table
        .iter()
        .find(|(k, _)| *k == key)
        .unwrap_or_else(|| panic!("{model} parameter {key} has no test values"));
    values.split(' ').map(String::from).collect()
}

fn autoscale_values(key: &str) -> Vec<String> {
    let values = values_in("autoscale", AUTOSCALE_VALUES, key);
    let root = env!("CARGO_MANIFEST_DIR");
    match key {
        "formula" => values.iter().map(|f| formula(f)).collect(),
        "demand_file" => values
            .iter()
            .map(|f| format!("{root}/../examples/demand/{f}"))
            .collect(),
        _ => values,
    }
}

fn consumers_values(key: &str) -> Vec<String> {
    values_in("consumers", CONSUMERS_VALUES, key)
}

fn bulkhead_values(key: &str) -> Vec<String> {
    values_in("bulkhead", BULKHEAD_VALUES, key)
}

/// `Math.max` over the booting shares, NaN kept (the metric's rule, written again here).
fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a >= b {
        a
    } else {
        b
    }
}

fn check_autoscale(p: &capsim::models::AutoscaleParams, m: &autoscale::Metrics, tape: &Tape) {
    let t = &tape.group;
    let what = format!("{p:?}");
    assert_eq!(t.len(), p.core.rounds as usize, "{what}");
    let sum = |f: &dyn Fn(&autoscale::RoundState) -> u64| t.iter().map(f).sum::<u64>();
    assert_eq!(sum(&|s| s.launched.into()), u64::from(m.launched), "{what}");
    assert_eq!(
        sum(&|s| s.replaced.into()),
        u64::from(m.replacements),
        "{what}"
    );
    assert_eq!(
        sum(&|s| s.restarted.into()),
        u64::from(m.restarts_from_stopped) + u64::from(m.warm_starts),
        "{what}"
    );
    assert_eq!(sum(&|s| s.failed.into()), m.failed_launches, "{what}");
    // Billed: every record but Stopped and Preempted ones, and a warm pool's running ones.
    let billed = |s: &autoscale::RoundState| {
        u64::from(
            s.size - s.counts.get(State::Stopped) - s.counts.get(State::Preempted) + s.warm_billed,
        )
    };
    assert_eq!(sum(&billed), m.billed_rounds, "{what}");
    let stopped = |s: &autoscale::RoundState| {
        u64::from(s.counts.get(State::Stopped) + s.warm - s.warm_billed)
    };
    assert_eq!(sum(&stopped), m.stopped_rounds, "{what}");
    assert_eq!(
        sum(&|s| s.preempted.into()),
        u64::from(m.preemptions),
        "{what}"
    );
    let spot = t.iter().map(|s| s.spot).max().unwrap_or(0);
    assert_eq!(spot, m.spot_max, "{what}");
    // Idle: billed and not serving in the round, the round an instance comes into service
    // included (it serves from the next).
    let idle = |s: &autoscale::RoundState| {
        billed(s) - u64::from(s.counts.serving()) + u64::from(s.entered_service)
    };
    assert_eq!(sum(&idle), m.idle_billed_rounds, "{what}");
    let short = t
        .iter()
        .filter(|s| i64::from(s.counts.serving()) < s.required)
        .count();
    assert_eq!(short as u32, m.under_capacity_rounds, "{what}");
    // The chart's shaded rounds under capacity are those rounds, and its legend counts them.
    let marks = capsim::plot::marks_of::<Autoscale>(p).unwrap();
    let under: Vec<&capsim::plot::Window> = marks
        .windows
        .iter()
        .filter(|w| w.tone == capsim::plot::Tone::UnderCapacity)
        .collect();
    if m.under_capacity_rounds == 0 {
        assert!(under.is_empty(), "{what}");
    } else {
        assert_eq!(under.len(), 1, "{what}");
        let n = m.under_capacity_rounds;
        let label = format!(
            "under capacity ({n} round{})",
            if n == 1 { "" } else { "s" }
        );
        assert_eq!(under[0].label, label, "{what}");
        let shaded: Vec<u32> = t
            .iter()
            .filter(|s| i64::from(s.counts.serving()) < s.required)
            .map(|s| s.round)
            .collect();
        let windows = &under[0].rounds;
        if windows.len() < capsim::plot::MAX_WINDOWS {
            let covered: Vec<u32> = windows
                .iter()
                .flat_map(|&(a, b)| a as u32..b as u32)
                .collect();
            assert_eq!(covered, shaded, "{what}");
        } else {
            // Merged past the bound: every round under capacity is still shaded.
            let inside = |r: u32| windows.iter().any(|&(a, b)| (a..b).contains(&f64::from(r)));
            assert!(shaded.iter().all(|&r| inside(r)), "{what}");
        }
    }
    let max_size = t.iter().map(|s| s.size).max().unwrap_or(0);
    assert_eq!(max_size, m.max_size, "{what}");
    // The smallest size the trace shows (not capped at the lesson program's 99).
    let min_size = t.iter().map(|s| s.size).min().unwrap_or(0);
    assert_eq!(min_size, m.min_size, "{what}");
    let booting = t.iter().map(|s| s.counts.launching()).max().unwrap_or(0);
    assert_eq!(booting, m.max_launching, "{what}");
    let ratio = t.iter().fold(0.0, |r, s| {
        js_max(r, f64::from(s.counts.launching()) / f64::from(s.size))
    });
    assert_eq!(
        format!("{ratio:?}"),
        format!("{:?}", m.max_launching_ratio),
        "{what}"
    );
    for s in t {
        assert_eq!(s.counts.total(), s.size, "{what}");
    }
    // A scenario's hooks or timed actions add their columns; the sums are the metrics.
    let l = &p.core.lifecycle;
    let scenario = !l.launch_hooks.is_empty() || !l.terminate_hooks.is_empty() || !l.at.is_empty();
    let heartbeats: u32 = t.iter().map(|s| s.heartbeats).sum();
    assert_eq!(heartbeats, m.heartbeats, "{what}");
    let ended: u32 = t.iter().map(|s| s.hooks_ended).sum();
    assert_eq!(
        ended,
        m.hook_timeouts + m.hook_completions + m.hook_cap_timeouts,
        "{what}"
    );
    // The spot class and the warm pool add their columns, a formula run the evaluation
    // columns, a scenario its hooks' and actions' (and only they do).
    let hpa = p.formula.0.is_none() && matches!(l.policy, autoscale::Policy::Hpa(_));
    let columns = capsim_core::trace::AutoscaleColumns {
        spot: l.spot.enabled() || l.warm_pool.size > 0,
        formula: p.formula.0.is_some(),
        scenario,
        hpa,
    };
    check_hpa(p, m, t, hpa);
    let extra = columns != capsim_core::trace::AutoscaleColumns::default();
    let mut csv = String::new();
    capsim_core::trace::autoscale_header_with(&mut csv, columns).unwrap();
    for s in t {
        capsim_core::trace::autoscale_row_with(&mut csv, s, columns).unwrap();
    }
    assert_eq!(trace::csv::<Autoscale>(p).0, csv, "{what}");
    if !extra {
        let mut plain = String::new();
        capsim_core::trace::autoscale_header(&mut plain).unwrap();
        for s in t {
            capsim_core::trace::autoscale_row(&mut plain, s).unwrap();
        }
        assert_eq!(plain, csv, "{what}");
    }
}

/// A Kubernetes HPA's run: a sync every round; what it sets is what the group did (its fresh
/// launches less its removals) where nothing else changes the count (a plain lifecycle, no
/// bound of the group's own, no stockout); a formula replaces the HPA (no syncs).
fn check_hpa(
    p: &capsim::models::AutoscaleParams,
    m: &autoscale::Metrics,
    t: &[autoscale::RoundState],
    hpa: bool,
) {
    let what = format!("{p:?}");
    if !hpa {
        assert!(t.iter().all(|s| s.hpa.is_none()), "{what}");
        return;
    }
    let plain = autoscale::Lifecycle {
        policy: p.core.lifecycle.policy.clone(),
        ..autoscale::Lifecycle::default()
    };
    let exact = p.core.lifecycle == plain && m.clamped_rounds == 0;
    for s in t {
        let h = s
            .hpa
            .unwrap_or_else(|| panic!("round {} has no sync: {what}", s.round));
        let sync = h.sync;
        if exact {
            let fresh = i64::from(s.launched) - i64::from(s.replaced);
            assert_eq!(
                i64::from(sync.desired) - i64::from(sync.current),
                fresh - i64::from(s.removed),
                "round {}: {what}",
                s.round
            );
        }
        // Every replica the sync starts from is one of its pods, in one class.
        assert_eq!(
            h.ready + h.unready + h.missing,
            sync.current,
            "round {}: {what}",
            s.round
        );
    }
}

fn check_consumers(p: &consumers::Params, m: &consumers::Metrics, tape: &Tape) {
    let t = &tape.consumers;
    let what = format!("{p:?}");
    assert_eq!(t.len() as u64, m.rounds, "{what}");
    let applied: u64 = t.iter().map(|s| u64::from(s.applied)).sum();
    assert_eq!(applied, p.events() - m.dropped_events, "{what}");
    let dropped: u64 = t.iter().map(|s| s.dropped).sum();
    assert_eq!(dropped, m.dropped_events, "{what}");
    let reordered: u32 = t.iter().map(|s| s.reordered).sum();
    assert_eq!(reordered, m.reordered_shipments, "{what}");
    for (i, s) in t.iter().enumerate() {
        assert_eq!(s.round, i as u64, "{what}");
        assert!(s.applied <= p.slots, "{what}");
    }
    let last = t.last().unwrap();
    assert_eq!((last.queue_left, last.busy_consumers), (0, 0), "{what}");
    // A flow option adds its columns (arrived, dropped, backlog), and only it does.
    let flow = p.flow != capsim_core::consumers::Flow::default();
    if flow {
        let backlog = t.iter().map(|s| s.backlog).max().unwrap_or(0);
        assert_eq!(backlog, m.max_backlog, "{what}");
    }
    let mut csv = String::new();
    capsim_core::trace::consumers_header_with(&mut csv, flow).unwrap();
    for s in t {
        capsim_core::trace::consumers_row_with(&mut csv, s, flow).unwrap();
    }
    assert_eq!(trace::csv::<Consumers>(p).0, csv, "{what}");
}

fn check_bulkhead(p: &bulkhead::Params, m: &bulkhead::Metrics, tape: &Tape) {
    let t = &tape.bulkhead;
    let what = format!("{p:?}");
    assert_eq!(t.len(), p.horizon as usize, "{what}");
    let sum = |f: fn(&bulkhead::RoundState) -> u32| t.iter().map(|s| u64::from(f(s))).sum::<u64>();
    assert_eq!(sum(|s| s.busy), m.busy_slot_rounds, "{what}");
    assert_eq!(sum(|s| s.tracking_served), m.tracking_served, "{what}");
    assert_eq!(sum(|s| s.tracking_dropped), m.tracking_dropped, "{what}");
    assert_eq!(sum(|s| s.event_served), m.event_served, "{what}");
    assert_eq!(sum(|s| s.event_dropped), m.event_dropped, "{what}");
    assert_eq!(sum(|s| s.dependency_calls), m.dependency_calls, "{what}");
    for s in t {
        assert_eq!(s.first_busy + s.second_busy, s.busy, "{what}");
    }
    // The breaker is first open in the round the metric names.
    let opened = t
        .iter()
        .position(|s| s.breaker == bulkhead::BreakerState::Open)
        .map(|r| r as u32);
    assert_eq!(opened, m.breaker_opened_round, "{what}");
    let split = Bulkhead::split(p);
    let options = Bulkhead::options(p);
    let mut csv = String::new();
    capsim_core::trace::bulkhead_header_with(&mut csv, split, options).unwrap();
    for s in t {
        capsim_core::trace::bulkhead_row_with(&mut csv, s, split, options).unwrap();
    }
    assert_eq!(trace::csv::<Bulkhead>(p).0, csv, "{what}");
}

/// Runs the grid of `pairs` as the model command does (`run_window`, batches included) and
/// checks every run against its observed run: the same outcome, and `check` on its rounds.
/// Returns how many runs succeeded (an invalid combination is skipped).
fn agree<M: Model + Traced>(
    pairs: &[(String, String)],
    check: fn(&M::Params, &M::Metrics, &Tape),
) -> usize
where
    M::Metrics: std::fmt::Debug,
    Tape: Observer<M::Round>,
{
    let flags = Flags::<M>::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
    let grid = flags.grid().unwrap();
    let mut ahead = Ahead::new();
    let outcomes = M::run_window(&grid, 0..grid.len(), &mut ahead, &|_| {});
    let mut ok = 0;
    for (i, outcome) in outcomes.iter().enumerate() {
        let p = grid.params(i as u64);
        if (M::VALIDATE)(&p).is_err() {
            assert!(outcome.is_err(), "{pairs:?}");
            continue;
        }
        let mut tape = Tape::default();
        let observed = trace::observe::<M>(&p, &mut tape);
        match (outcome, &observed) {
            (Ok(m), Ok(seen)) => {
                assert_eq!(format!("{m:?}"), format!("{seen:?}"), "{pairs:?} run {i}");
                check(&p, m, &tape);
                ok += 1;
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{pairs:?}"),
            _ => panic!("{pairs:?} run {i}: grid {outcome:?}, view {observed:?}"),
        }
    }
    ok
}

/// A small deterministic generator (xorshift64*) for the random combinations.
struct Pick(u64);

impl Pick {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// Gives the flags of `pairs` what they need (`Model::NEEDS`): a flag refused by the one
/// rule gets its need's example (`--policy step` for `--steps`), added to the list if the
/// flag is given; a flag that would be ignored beside another (`--surge` with
/// `--demand-file`), or whose need has no example, is dropped.
fn with_needs<M: Model>(pairs: &mut Vec<(String, String)>) {
    let root = env!("CARGO_MANIFEST_DIR");
    // The flags dropped: never added back by another's example.
    let mut dropped: Vec<String> = Vec::new();
    for _ in 0..2 * M::PARAMS.len() {
        let Err(e) = Flags::<M>::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .and_then(|f| f.grid().map(|_| ()))
        else {
            return;
        };
        let refused = M::NEEDS.iter().find_map(|n| {
            n.flags
                .iter()
                .map(|k| k.replace('_', "-"))
                .find(|f| e == n.error(f))
                .map(|f| (n, f))
        });
        let Some((need, flag)) = refused else {
            panic!("{pairs:?}: {e}");
        };
        let example: Vec<(String, String)> = need
            .example
            .iter()
            .map(|(k, v)| {
                let v = match v.strip_prefix("examples/") {
                    Some(path) => format!("{root}/../examples/{path}"),
                    None => v.to_string(),
                };
                (k.replace('_', "-"), v)
            })
            .collect();
        let mut added = false;
        if matches!(need.rule, capsim::models::Rule::Needs(..))
            && !example.iter().any(|(k, _)| dropped.contains(k))
        {
            for (k, v) in &example {
                match pairs.iter_mut().find(|(f, _)| f == k) {
                    Some((_, list)) if list.split(',').any(|x| x == v) => {}
                    Some((_, list)) => {
                        *list = format!("{list},{v}");
                        added = true;
                    }
                    None => {
                        pairs.push((k.clone(), v.clone()));
                        added = true;
                    }
                }
            }
        }
        if !added {
            pairs.retain(|(k, _)| *k != flag);
            dropped.push(flag);
        }
    }
    panic!("{pairs:?}: the needs do not settle");
}

/// Every parameter alone (each of its test values, with the policy it needs), then `combos` random combinations of
/// two to six parameters on top of a list that makes a grid of several runs (`sweep`), plus
/// `always` (a formula) in every second one.
fn every_parameter<M: Model + Traced>(
    values: fn(&str) -> Vec<String>,
    check: fn(&M::Params, &M::Metrics, &Tape),
    sweep: (&str, &str),
    always: Option<&str>,
    combos: usize,
) where
    M::Metrics: std::fmt::Debug,
    Tape: Observer<M::Round>,
{
    let keys: Vec<&str> = M::PARAMS.iter().map(|q| q.key).collect();
    for q in M::PARAMS {
        let vs = values(q.key);
        assert!(
            vs.iter().any(|v| *v != q.lesson_text()),
            "{}: no value other than the lesson's",
            q.key
        );
        for v in vs {
            let mut pairs = vec![(q.flag(), v.clone())];
            with_needs::<M>(&mut pairs);
            let ran = agree::<M>(&pairs, check);
            assert!(ran > 0, "{} {v}: nothing ran", q.key);
        }
    }
    let mut pick = Pick(0x9e37_79b9_7f4a_7c15);
    let mut ran = 0;
    for c in 0..combos {
        let mut pairs = vec![(sweep.0.replace('_', "-"), sweep.1.to_string())];
        if let Some(key) = always.filter(|_| c % 2 == 0) {
            let vs = values(key);
            pairs.push((key.replace('_', "-"), vs[pick.below(vs.len())].clone()));
        }
        for _ in 0..2 + pick.below(5) {
            let key = keys[pick.below(keys.len())];
            if pairs.iter().any(|(k, _)| *k == key.replace('_', "-")) {
                continue;
            }
            let vs = values(key);
            pairs.push((key.replace('_', "-"), vs[pick.below(vs.len())].clone()));
        }
        with_needs::<M>(&mut pairs);
        ran += agree::<M>(&pairs, check);
    }
    assert!(ran >= combos, "{ran} runs of {combos} combinations");
}

#[test]
fn autoscale_views_show_the_run_the_metrics_describe() {
    every_parameter::<Autoscale>(
        autoscale_values,
        check_autoscale,
        ("threshold", "2,3,5"),
        Some("formula"),
        60,
    );
}

#[test]
fn consumers_views_show_the_run_the_metrics_describe() {
    every_parameter::<Consumers>(
        consumers_values,
        check_consumers,
        ("consumers", "1,4"),
        None,
        30,
    );
}

#[test]
fn bulkhead_views_show_the_run_the_metrics_describe() {
    every_parameter::<Bulkhead>(
        bulkhead_values,
        check_bulkhead,
        ("split", "shared,24"),
        None,
        30,
    );
}

/// The formula's own parameters change the run a view shows (they were dropped once).
#[test]
fn a_formulas_interval_and_sample_delay_reach_the_trace() {
    let with = |extra: &[(&str, &str)]| {
        let mut pairs = vec![("formula", formula("demand.formula"))];
        pairs.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        let flags =
            Flags::<Autoscale>::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();
        trace::csv::<Autoscale>(&flags.grid().unwrap().params(0)).0
    };
    let base = with(&[]);
    assert_ne!(base, with(&[("evaluation-interval", "5")]));
    assert_ne!(base, with(&[("sample-delay", "0")]));
    let lesson = trace::csv::<Autoscale>(&Default::default()).0;
    assert_ne!(base, lesson);
}
