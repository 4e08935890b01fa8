//! The core's values the parameter tables state: a table's help, accepted and lesson texts
//! name them as `{NAME}` ([`fill`] writes the value), so that `--help`, the errors and the
//! playground's parameter list say what the code does, and a limit changed in the core
//! changes the text with it.

use capsim_core::autoscale::hpa;
use capsim_core::autoscale::{
    self, Provider, DEFAULT_EVALUATION_INTERVAL, MAX_APPLY_DELAY, MAX_CHECK_INTERVAL,
    MAX_CHECK_LATENCY, MAX_EVALUATION_INTERVAL, MAX_EVENTS, MAX_FAILURE_ROUNDS, MAX_GROUP_SIZE,
    MAX_HOOKS, MAX_HOOK_ROUNDS, MAX_PREEMPTION_NOTICE, MAX_PREEMPTION_ROUNDS, MAX_ROUNDS,
    MAX_STEPS, MAX_TASK_ROUNDS, MAX_TIMED, MAX_WARM_POOL, MIN_EVALUATION_INTERVAL,
    TARGET_TRACKING_SCALE_IN_ROUNDS, TARGET_TRACKING_SCALE_OUT_ROUNDS,
};
use capsim_core::{bulkhead, consumers, formula, lesson};

use crate::output::Cell;

/// A value as a table writes it (a float as the rows write it: `1e9`, `0.000001`).
fn float(v: f64) -> String {
    Cell::Float(v).text()
}

/// A lesson's sweep as a flag takes it: `2,3,5`.
fn list(values: &[u32]) -> String {
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A value a table may name: its name, and how it is written.
pub type Limit = (&'static str, fn() -> String);

/// The values a table may name, by name.
pub const LIMITS: &[Limit] = &[
    ("MAX_ROUNDS", || MAX_ROUNDS.to_string()),
    ("MAX_FAILURE_ROUNDS", || MAX_FAILURE_ROUNDS.to_string()),
    ("MAX_ROUNDS_PER_PERIOD", || {
        float(autoscale::MAX_ROUNDS_PER_PERIOD)
    }),
    ("MAX_HOOK_ROUNDS", || MAX_HOOK_ROUNDS.to_string()),
    ("MAX_GROUP_SIZE", || MAX_GROUP_SIZE.to_string()),
    ("MAX_CHECK_LATENCY", || MAX_CHECK_LATENCY.to_string()),
    ("MAX_APPLY_DELAY", || MAX_APPLY_DELAY.to_string()),
    ("MAX_EVENTS", || MAX_EVENTS.to_string()),
    ("MAX_CHECK_INTERVAL", || MAX_CHECK_INTERVAL.to_string()),
    ("TARGET_TRACKING_SCALE_IN_ROUNDS", || {
        TARGET_TRACKING_SCALE_IN_ROUNDS.to_string()
    }),
    ("TARGET_TRACKING_SCALE_OUT_ROUNDS", || {
        TARGET_TRACKING_SCALE_OUT_ROUNDS.to_string()
    }),
    ("MAX_STEPS", || MAX_STEPS.to_string()),
    ("MAX_STEP_BOUND", || crate::list::MAX_STEP_BOUND.to_string()),
    ("MAX_DEMAND_ROWS", || {
        crate::demand::MAX_DEMAND_ROWS.to_string()
    }),
    ("MAX_DEMAND_BYTES", || {
        crate::demand::MAX_DEMAND_BYTES.to_string()
    }),
    ("MAX_SOURCE_KB", || {
        (formula::MAX_SOURCE_BYTES / 1024).to_string()
    }),
    ("MAX_STATEMENTS", || formula::MAX_STATEMENTS.to_string()),
    ("MIN_EVALUATION_INTERVAL", || {
        MIN_EVALUATION_INTERVAL.to_string()
    }),
    ("MAX_EVALUATION_INTERVAL", || {
        MAX_EVALUATION_INTERVAL.to_string()
    }),
    ("DEFAULT_EVALUATION_INTERVAL", || {
        DEFAULT_EVALUATION_INTERVAL.to_string()
    }),
    ("MAX_SAMPLE_DELAY", || super::MAX_SAMPLE_DELAY.to_string()),
    ("DEFAULT_SAMPLE_DELAY", || {
        (formula::DEFAULT_DELAY.ticks() / formula::TICKS_PER_SECOND).to_string()
    }),
    ("ALIBABA_MAX_TIMEOUT", || {
        Provider::Alibaba.max_timeout().to_string()
    }),
    ("AWS_MAX_TIMEOUT", || {
        Provider::Aws.max_timeout().to_string()
    }),
    ("ALIBABA_MAX_HEARTBEATS", || {
        Provider::Alibaba.max_heartbeats().to_string()
    }),
    ("ALIBABA_WAIT_CAP", || {
        Provider::Alibaba.wait_cap(1).to_string()
    }),
    ("AWS_WAIT_CAP", || {
        Provider::Aws.wait_cap(u32::MAX).to_string()
    }),
    ("AWS_WAIT_TIMES", || (Provider::Aws.wait_cap(1)).to_string()),
    ("MAX_HOOKS", || MAX_HOOKS.to_string()),
    ("MAX_TIMED", || MAX_TIMED.to_string()),
    ("MAX_TASK_ROUNDS", || MAX_TASK_ROUNDS.to_string()),
    ("MAX_PREEMPTION_ROUNDS", || {
        MAX_PREEMPTION_ROUNDS.to_string()
    }),
    ("MAX_PREEMPTION_NOTICE", || {
        MAX_PREEMPTION_NOTICE.to_string()
    }),
    ("MAX_WARM_POOL", || MAX_WARM_POOL.to_string()),
    ("MAX_SYNC_PERIOD", || {
        hpa::policy::MAX_SYNC_PERIOD.to_string()
    }),
    ("MAX_READINESS_SECONDS", || {
        hpa::policy::MAX_READINESS_SECONDS.to_string()
    }),
    ("MAX_SYNCS_REMEMBERED", || {
        hpa::policy::MAX_SYNCS_REMEMBERED.to_string()
    }),
    ("MAX_STABILIZATION_WINDOW", || {
        hpa::MAX_STABILIZATION_WINDOW.to_string()
    }),
    ("MAX_PERIOD", || hpa::MAX_PERIOD.to_string()),
    ("MAX_RATE_POLICIES", || hpa::MAX_RATE_POLICIES.to_string()),
    ("MAX_PRICE", || float(super::MAX_PRICE)),
    ("MAX_SEED", || capsim_core::SEED_RANGE.end().to_string()),
    ("SWEEP_THRESHOLDS", || list(&lesson::SWEEP_THRESHOLDS)),
    ("SWEEP_COOLDOWNS", || list(&lesson::SWEEP_COOLDOWNS)),
    ("MAX_CONSUMERS", || consumers::MAX_CONSUMERS.to_string()),
    ("MAX_SHIPMENTS", || consumers::MAX_SHIPMENTS.to_string()),
    ("MAX_EVENTS_PER_SHIPMENT", || {
        consumers::MAX_EVENTS_PER_SHIPMENT.to_string()
    }),
    ("MAX_QUEUE_GAP", || float(consumers::MAX_QUEUE_GAP)),
    ("MIN_ARRIVAL_RATE", || float(consumers::MIN_ARRIVAL_RATE)),
    ("MAX_ARRIVAL_RATE", || float(consumers::MAX_ARRIVAL_RATE)),
    ("CONSUMER_COUNTS", || list(&lesson::CONSUMER_COUNTS)),
    ("STORE_SLOTS", || list(&lesson::STORE_SLOTS)),
    ("LESSON_SPLIT", || lesson::LESSON_SPLIT.to_string()),
    ("MAX_TOTAL_SLOTS", || bulkhead::MAX_TOTAL_SLOTS.to_string()),
    ("MAX_HORIZON", || bulkhead::MAX_HORIZON.to_string()),
    ("MAX_ARRIVALS_PER_ROUND", || {
        float(bulkhead::MAX_ARRIVALS_PER_ROUND_MEAN)
    }),
    ("MAX_HOLD", || bulkhead::MAX_HOLD.to_string()),
    ("MAX_WINDOW", || bulkhead::MAX_WINDOW.to_string()),
    ("DEFAULT_OPEN_ROUNDS", || {
        bulkhead::DEFAULT_OPEN_ROUNDS.to_string()
    }),
    ("MAX_RETRIES", || bulkhead::MAX_RETRIES.to_string()),
    ("MAX_RETRY_BACKOFF", || {
        bulkhead::MAX_RETRY_BACKOFF.to_string()
    }),
];

/// Returns `text` with each `{NAME}` of [`LIMITS`] written as its value (an unknown name
/// stays as written: a test refuses one).
pub fn fill(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match after.find('}').and_then(|end| {
            LIMITS
                .iter()
                .find(|(n, _)| *n == &after[..end])
                .map(|l| (end, l))
        }) {
            Some((end, (_, value))) => {
                out.push_str(&value());
                rest = &after[end + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{Autoscale, Bulkhead, Consumers, Model};

    /// Every `{NAME}` of every table's texts is a value the core states, and no text is
    /// left with a brace: what `--help` says is the code's.
    fn every_name_is_known<M: Model>() {
        for p in M::PARAMS {
            for text in [p.help, p.accepted, p.lesson] {
                let filled = fill(text);
                assert!(!filled.contains('{'), "{}: {filled}", p.key);
            }
        }
    }

    /// What a stated range says, the code does: for every parameter whose accepted values
    /// are `A to B` (integers), A and B are taken and accepted by the model, B + 1 (and A - 1
    /// above 0) refused, by the parser or the model's check.
    fn stated_ranges_are_the_models<M: Model>() {
        // Given with what the flag needs (its statements' examples), a grid's first run.
        let root = env!("CARGO_MANIFEST_DIR");
        let accepted = |text: &str| {
            let (key, value) = text.split_once('=').unwrap();
            let mut pairs = vec![(key.replace('_', "-"), value.to_string())];
            for n in M::NEEDS.iter().filter(|n| n.flags.contains(&key)) {
                if let crate::models::Rule::Needs(..) = n.rule {
                    for (k, v) in n.example {
                        let v = match v.strip_prefix("examples/") {
                            Some(path) => format!("{root}/../examples/{path}"),
                            None => v.to_string(),
                        };
                        pairs.push((k.replace('_', "-"), v));
                    }
                }
            }
            crate::models::Flags::<M>::from_pairs(
                pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
            )
            .and_then(|f| f.grid())
            .is_ok_and(|g| (M::VALIDATE)(&g.params(0)).is_ok())
        };
        let mut checked = 0;
        for q in M::PARAMS {
            let text = q.accepted_text();
            let words: Vec<&str> = text.split([' ', ',', ';']).collect();
            let (Some(a), Some(&"to"), Some(b)) = (words.first(), words.get(1), words.get(2))
            else {
                continue;
            };
            let (Ok(a), Ok(b)) = (a.parse::<u64>(), b.parse::<u64>()) else {
                continue;
            };
            // A range of values: not a count of something (`1 to 20 bands`), nor a bound
            // relative to another parameter (`- event-rounds-min`).
            if !matches!(words.get(3), None | Some(&"") | Some(&"or")) {
                continue;
            }
            let key = q.key;
            assert!(accepted(&format!("{key}={a}")), "{key}: {a} of {text}");
            assert!(accepted(&format!("{key}={b}")), "{key}: {b} of {text}");
            assert!(
                !accepted(&format!("{key}={}", b + 1)),
                "{key}: {} past {text}",
                b + 1
            );
            if a > 0 {
                assert!(
                    !accepted(&format!("{key}={}", a - 1)),
                    "{key}: {} below {text}",
                    a - 1
                );
            }
            checked += 1;
        }
        assert!(checked > 3, "{checked}");
    }

    #[test]
    fn stated_ranges_are_what_the_models_take() {
        stated_ranges_are_the_models::<Autoscale>();
        stated_ranges_are_the_models::<Consumers>();
        stated_ranges_are_the_models::<Bulkhead>();
    }

    #[test]
    fn the_tables_state_the_cores_values() {
        every_name_is_known::<Autoscale>();
        every_name_is_known::<Consumers>();
        every_name_is_known::<Bulkhead>();
        assert_eq!(fill("1 to {MAX_HOOK_ROUNDS}"), "1 to 360");
        assert_eq!(fill("{SWEEP_THRESHOLDS}"), "2,3,5");
        assert_eq!(fill("0.000001 = {MIN_ARRIVAL_RATE}"), "0.000001 = 0.000001");
        assert_eq!(fill("{MAX_QUEUE_GAP}"), "1000000000");
        assert_eq!(fill("a {b} {MAX_HOOKS}"), "a {b} 50");
    }
}
