//! `capsim metrics`: what every metric of every model means, and its unit.
//!
//! One table serves the command, the playground's glossary (its tooltips) and the README's
//! glossary; a test checks that it names each model's metrics exactly once, in the order the
//! rows print them, so a new metric without a meaning fails the tests.

use std::fmt::Write as _;

use crate::models::{self, Autoscale, Bulkhead, Consumers};

/// One metric: its model, its row key, its unit and what it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The model's command (`autoscale`).
    pub model: &'static str,
    /// The metric's key in rows (`under_capacity_rounds`).
    pub key: &'static str,
    /// Its unit (`rounds`, `instance-rounds`, `fraction 0-1` …).
    pub unit: &'static str,
    /// What it counts, in one sentence.
    pub meaning: &'static str,
}

const fn entry(
    model: &'static str,
    key: &'static str,
    unit: &'static str,
    meaning: &'static str,
) -> Entry {
    Entry {
        model,
        key,
        unit,
        meaning,
    }
}

/// The models in the order `capsim metrics` prints them.
pub const MODELS: [&str; 3] = ["autoscale", "consumers", "bulkhead"];

/// Every metric of every model, by model, in row order. A round is one minute of the group
/// lesson's story; an instance-round is one instance for one round.
pub const GLOSSARY: &[Entry] = &[
    entry("autoscale", "min_size", "instances",
        "Smallest group size seen (it starts at 99, as in the lesson, so it never exceeds 99; 0 once the group was empty)"),
    entry("autoscale", "max_size", "instances", "Largest group size seen"),
    entry("autoscale", "max_launching", "instances", "Most instances booting at once"),
    entry("autoscale", "max_launching_ratio", "fraction 0-1",
        "Largest share of the group booting at once (NaN, null in JSON, once the group was empty: the lesson's 0 / 0)"),
    entry("autoscale", "under_capacity_rounds", "rounds",
        "Rounds that ended with fewer ready instances than the demand requires"),
    entry("autoscale", "launched", "instances", "Instances launched, by scaling and by replacement"),
    entry("autoscale", "false_replacements", "instances",
        "Healthy instances replaced after transient health-check failures"),
    entry("autoscale", "broken_rounds", "instance-rounds",
        "Instance-rounds a permanently broken instance stayed in service"),
    entry("autoscale", "scaling_actions", "actions",
        "Scale-out and scale-in actions (at most one a round)"),
    entry("autoscale", "replacements", "instances", "Instances replaced by the health check"),
    entry("autoscale", "time_to_in_service_max", "rounds",
        "Most rounds from a launch (or restart) decision to the first round the instance serves: apply delay + boot + hook wait"),
    entry("autoscale", "scale_in_blocked_rounds", "rounds",
        "Rounds in which scale-in wanted to remove more instances than it could (the rest protected)"),
    entry("autoscale", "restarts_from_stopped", "instances",
        "Stopped instances restarted by scale-out (not counted in launched)"),
    entry("autoscale", "failed_launches", "requests",
        "Launch requests that failed for want of capacity (stock-out rounds)"),
    entry("autoscale", "hook_timeouts", "hooks", "Lifecycle hooks that ended at their timeout"),
    entry("autoscale", "abandoned_launches", "instances",
        "Launches a launch hook abandoned (released before serving)"),
    entry("autoscale", "billed_rounds", "instance-rounds",
        "Instance-rounds billed in full (every state but Stopped and Preempted; a Running warm pool's instances included)"),
    entry("autoscale", "idle_billed_rounds", "instance-rounds",
        "Billed instance-rounds that served nothing (booting, waiting in a hook, restarting, removing)"),
    entry("autoscale", "evaluations", "evaluations",
        "Autoscale formula evaluations (0 without --formula)"),
    entry("autoscale", "failed_evaluations", "evaluations",
        "Formula evaluations that failed and left the group unchanged"),
    entry("autoscale", "target_changes", "evaluations",
        "Successful formula evaluations that changed the dedicated target"),
    entry("autoscale", "clamped_rounds", "rounds",
        "Rounds in which the policy wanted more than --max-instances or fewer than --min-instances allow (its decision clamped; 0 without them)"),
    entry("autoscale", "hook_completions", "waits",
        "Lifecycle-hook waits the hook's job completed before the timeout (--launch-hooks/--terminate-hooks action=N; CompleteLifecycleAction)"),
    entry("autoscale", "heartbeats", "heartbeats",
        "Lifecycle-hook heartbeats recorded, each restarting its hook's timeout (heartbeat=K; RecordLifecycleActionHeartbeat)"),
    entry("autoscale", "hook_cap_timeouts", "waits",
        "Lifecycle-hook waits the provider's cap ended: AWS's global timeout (100 x the timeout, at most 2880 rounds), Alibaba's six hours (360 rounds)"),
    entry("autoscale", "hook_rollbacks", "hooks",
        "Hook results that were ROLLBACK (Alibaba): a launch released, a removal taken back into service"),
    entry("autoscale", "detached", "instances", "Instances taken out of the group by timed detach actions (--at)"),
    entry("autoscale", "lost_task_rounds", "node-rounds",
        "Task work lost by scale-in removals (--task-rounds): the rounds a requeued or terminated task had run"),
    entry("autoscale", "failed_tasks", "tasks",
        "Running tasks failed by removals under $NodeDeallocationOption = terminate"),
    entry("autoscale", "drain_rounds", "node-rounds",
        "Rounds removed nodes stayed, billed and taking no new work, to finish their task (taskcompletion) and clean up its data (retaineddata)"),
    entry("autoscale", "stopped_rounds", "instance-rounds",
        "Instance-rounds in Stopped (economical mode's stopped instances and a Stopped warm pool's warm ones): disks and EIPs still billed, not in billed_rounds"),
    entry("autoscale", "spot_max", "instances",
        "Most spot (low-priority) instances in the group at once, preempted ones included; 0 without the spot class"),
    entry("autoscale", "preemptions", "instances",
        "Spot instances taken back by preemption (--preemption-rate, --preemption-rounds)"),
    entry("autoscale", "billed_spot_rounds", "instance-rounds",
        "Spot instance-rounds billed in full (part of billed_rounds; preempted and stopped ones are not)"),
    entry("autoscale", "warm_starts", "instances",
        "Instances a scale-out took from the warm pool (they serve after --restart-rounds; not in launched)"),
    entry("autoscale", "cost", "price units",
        "Only with --price D:S:P: (billed_rounds - billed_spot_rounds) x D + billed_spot_rounds x S + stopped_rounds x P (preempted instance-rounds are free)"),
    entry("consumers", "rounds", "rounds", "Rounds until the queue drained"),
    entry("consumers", "reordered_shipments", "shipments",
        "Shipments that saw one of their events applied after a later one"),
    entry("consumers", "wrong_final_state", "shipments",
        "Shipments whose last applied event is not their final one: the store ends in the wrong state"),
    entry("consumers", "throughput", "events/round", "Events applied per round (events / rounds)"),
    entry("consumers", "max_backlog", "events",
        "Most events queued at once, after a round's arrivals (the lesson's queue: every event at round 0); at most --buffer; without a buffer, the smallest buffer that drops nothing"),
    entry("consumers", "dropped_events", "events",
        "Events that arrived at a full queue (--buffer) and were dropped, never applied"),
    entry("consumers", "dropped_shipments", "shipments",
        "Shipments with at least one dropped event"),
    entry("bulkhead", "tracking_served", "requests", "Tracking requests that got a slot"),
    entry("bulkhead", "tracking_dropped", "requests",
        "Tracking requests dropped: no free slot in their pool when they arrived"),
    entry("bulkhead", "event_served", "requests", "Event requests that got a slot"),
    entry("bulkhead", "event_dropped", "requests",
        "Event requests dropped: no free slot in their pool when they arrived"),
    entry("bulkhead", "idle_slots", "slots",
        "Free slots of the other pool at each drop, summed over every drop: capacity a partition kept idle"),
    entry("bulkhead", "busy_slot_rounds", "slot-rounds",
        "Busy slots summed over rounds (divided by the rounds: the mean busy slots)"),
    entry("bulkhead", "breaker_opened_round", "round",
        "The first round the --breaker opened ('none': no breaker, or it never opened)"),
    entry("bulkhead", "dependency_calls", "calls",
        "Event calls that reached the dependency (took a slot), retries included; without retries, event_served"),
    entry("bulkhead", "broken_slot_rounds", "slot-rounds",
        "Slot-rounds taken by calls to the broken dependency: slow-hold rounds for each call made during the slowdown"),
];

/// Returns the metric keys each model's rows print, in order.
pub fn row_keys(model: &str) -> Option<Vec<&'static str>> {
    match model {
        "autoscale" => Some(models::metric_keys::<Autoscale>()),
        "consumers" => Some(models::metric_keys::<Consumers>()),
        "bulkhead" => Some(models::metric_keys::<Bulkhead>()),
        _ => None,
    }
}

/// Returns `model`'s entries, in row order.
pub fn of(model: &str) -> impl Iterator<Item = &'static Entry> + '_ {
    GLOSSARY.iter().filter(move |e| e.model == model)
}

/// `capsim metrics [MODEL]`: each model's metrics as a table (key, unit, meaning); `None`:
/// every model. An unknown model is a one-line error.
pub fn text(model: Option<&str>) -> Result<String, String> {
    let chosen: Vec<&str> = match model {
        None => MODELS.to_vec(),
        Some(m) if MODELS.contains(&m) => vec![m],
        Some(m) => {
            return Err(format!(
                "invalid value '{m}' for '[MODEL]' [possible values: {}]",
                MODELS.join(", ")
            ))
        }
    };
    let mut out = String::new();
    for (i, model) in chosen.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let key_w = of(model).map(|e| e.key.len()).max().unwrap_or(0).max(3) + 2;
        let unit_w = of(model).map(|e| e.unit.len()).max().unwrap_or(0).max(4) + 2;
        let _ = writeln!(out, "{model}");
        let _ = writeln!(out, "  {:<key_w$}{:<unit_w$}meaning", "key", "unit");
        for e in of(model) {
            let _ = writeln!(out, "  {:<key_w$}{:<unit_w$}{}", e.key, e.unit, e.meaning);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_glossary_names_every_metric_once_in_row_order() {
        for model in MODELS {
            let glossary: Vec<&str> = of(model).map(|e| e.key).collect();
            assert_eq!(Some(glossary), row_keys(model), "{model}");
        }
        assert!(GLOSSARY.iter().all(|e| MODELS.contains(&e.model)));
        for e in GLOSSARY {
            assert!(!e.unit.is_empty() && !e.meaning.is_empty(), "{}", e.key);
            assert!(
                !e.meaning.ends_with('.'),
                "{}: a meaning is a phrase",
                e.key
            );
        }
    }

    #[test]
    fn the_text_is_a_table_per_model() {
        let all = text(None).unwrap();
        for e in GLOSSARY {
            let line = all
                .lines()
                .find(|l| l.split_whitespace().next() == Some(e.key))
                .unwrap_or_else(|| panic!("{} missing", e.key));
            assert!(line.contains(e.unit) && line.ends_with(e.meaning), "{line}");
        }
        let one = text(Some("bulkhead")).unwrap();
        assert!(one.starts_with("bulkhead\n  key"));
        assert!(!one.contains("min_size"));
        assert_eq!(
            text(Some("nope")).unwrap_err(),
            "invalid value 'nope' for '[MODEL]' [possible values: autoscale, consumers, bulkhead]"
        );
    }

    #[test]
    fn the_readme_glossary_is_this_table() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
            .expect("README.md");
        let rows: Vec<&str> = readme
            .lines()
            .skip_while(|l| *l != "| model | metric | unit | meaning |")
            .skip(2)
            .take_while(|l| l.starts_with("| "))
            .collect();
        let want: Vec<String> = GLOSSARY
            .iter()
            .map(|e| format!("| {} | `{}` | {} | {} |", e.model, e.key, e.unit, e.meaning))
            .collect();
        assert_eq!(
            rows, want,
            "README.md's glossary (redo it from `capsim metrics`)"
        );
    }
}
