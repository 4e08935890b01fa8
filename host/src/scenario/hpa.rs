//! A scenario's `[hpa]` table: a Kubernetes HorizontalPodAutoscaler's `spec` written as
//! TOML, in the YAML's shape and with its keys, turned into the `--hpa-*` flags (and
//! `--policy hpa`, `--min-instances`, `--max-instances`):
//!
//! ```toml
//! [hpa]
//! minReplicas = 2                       # --min-instances
//! maxReplicas = 40                      # --max-instances
//!
//! [[hpa.metrics]]                       # one metric: --hpa-target
//! type = "Resource"
//! resource = { name = "cpu", target = { type = "Utilization", averageUtilization = 60 } }
//!
//! [hpa.behavior.scaleDown]              # --hpa-scale-down-*
//! stabilizationWindowSeconds = 300
//! policies = [{ type = "Percent", value = 100, periodSeconds = 15 }]
//! selectPolicy = "Max"
//! tolerance = 0.05
//!
//! [hpa.controller]                      # kube-controller-manager's HPA flags
//! sync-period = "15s"                   # --horizontal-pod-autoscaler-sync-period
//! tolerance = 0.1
//! cpu-initialization-period = "5m"
//! initial-readiness-delay = "30s"
//! ```
//!
//! Metrics: `Resource` (`cpu` only: a replica requests its capacity) with a `Utilization`
//! or `AverageValue` target, `Pods` with `AverageValue` (each replica's requests per round),
//! `External` with `Value` or `AverageValue` (the round's demand); a Pods or External
//! metric's `metric.name` names it and changes nothing. Values are numbers or Kubernetes
//! quantities (`"500m"`, `"2k"`), in requests per round; durations are seconds or Go
//! durations (`"1m30s"`).

use toml::{Table, Value};

/// The keys of `[hpa]`.
pub const KEYS: [&str; 5] = [
    "minReplicas",
    "maxReplicas",
    "metrics",
    "behavior",
    "controller",
];

const METRIC_KEYS: [&str; 4] = ["type", "resource", "pods", "external"];
const RULE_KEYS: [&str; 4] = [
    "stabilizationWindowSeconds",
    "policies",
    "selectPolicy",
    "tolerance",
];
const CONTROLLER_KEYS: [&str; 4] = [
    "sync-period",
    "tolerance",
    "cpu-initialization-period",
    "initial-readiness-delay",
];

fn unknown(table: &str, key: &str, accepted: &[&str]) -> String {
    format!(
        " unknown key '{key}' in [{table}]{} (accepted: {})",
        super::hint(key, accepted),
        accepted.join(", ")
    )
}

fn check_keys(table: &str, t: &Table, accepted: &[&str]) -> Result<(), String> {
    match t.keys().find(|k| !accepted.contains(&k.as_str())) {
        Some(k) => Err(unknown(table, k, accepted)),
        None => Ok(()),
    }
}

fn sub<'a>(table: &str, v: &'a Value) -> Result<&'a Table, String> {
    v.as_table()
        .ok_or_else(|| format!(" [{table}] must be a table"))
}

fn integer(table: &str, key: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::Integer(i) if *i >= 0 => Ok(i.to_string()),
        _ => Err(format!(" [{table}] '{key}': a non-negative integer")),
    }
}

/// A quantity (`80`, `0.5`, `"500m"`, `"2k"`) as thousandths text the flags take (at most
/// three decimals: Kubernetes' milli).
fn quantity(table: &str, key: &str, v: &Value) -> Result<String, String> {
    let bad = || {
        format!(" [{table}] '{key}': a number or a quantity (\"500m\", \"2k\") with at most three decimals")
    };
    let text = match v {
        Value::Integer(i) if *i >= 0 => return Ok(i.to_string()),
        Value::Float(f) if f.is_finite() && *f >= 0.0 => format!("{f}"),
        Value::String(s) => s.clone(),
        _ => return Err(bad()),
    };
    let (digits, scale) = match text.char_indices().last() {
        Some((i, 'm')) => (&text[..i], -3),
        Some((i, 'k')) => (&text[..i], 3),
        Some((i, 'M')) => (&text[..i], 6),
        Some((i, 'G')) => (&text[..i], 9),
        _ => (&text[..], 0),
    };
    let milli = crate::list::hpa::parse_thousandths(digits, u64::MAX / 1000).ok_or_else(bad)?;
    let milli = match scale {
        -3 if milli % 1000 == 0 => milli / 1000,
        -3 => return Err(bad()),
        0 => milli,
        e => milli.checked_mul(10u64.pow(e as u32)).ok_or_else(bad)?,
    };
    Ok(crate::list::hpa::thousandths_text(milli))
}

/// A duration: seconds, or a Go duration of `h`, `m` and `s` parts (`"1m30s"`).
fn duration(table: &str, key: &str, v: &Value) -> Result<String, String> {
    let bad =
        || format!(" [{table}] '{key}': seconds, or a duration such as \"15s\", \"5m\", \"1m30s\"");
    let s = match v {
        Value::Integer(i) if *i >= 0 => return Ok(i.to_string()),
        Value::String(s) => s.as_str(),
        _ => return Err(bad()),
    };
    let (mut total, mut number) = (0u64, String::new());
    for c in s.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(bad()),
        };
        let n: u64 = number.parse().map_err(|_| bad())?;
        total = n
            .checked_mul(unit)
            .and_then(|x| total.checked_add(x))
            .ok_or_else(bad)?;
        number.clear();
    }
    if !number.is_empty() || s.is_empty() {
        return Err(bad());
    }
    Ok(total.to_string())
}

fn string<'a>(table: &str, key: &str, v: &'a Value, words: &[&str]) -> Result<&'a str, String> {
    match v {
        Value::String(s) if words.contains(&s.as_str()) => Ok(s),
        _ => Err(format!(" [{table}] '{key}': one of {}", words.join(", "))),
    }
}

/// A metric's `target` as `--hpa-target`'s `KIND:VALUE` for `kinds` (`(type, key, kind)`).
fn target(table: &str, t: &Table, kinds: &[(&str, &str, &str)]) -> Result<String, String> {
    let types: Vec<&str> = kinds.iter().map(|k| k.0).collect();
    let Some(ty) = t.get("type") else {
        return Err(format!(
            " [{table}] needs a 'type' ({})",
            types.join(" or ")
        ));
    };
    let ty = string(table, "type", ty, &types)?;
    let &(_, key, kind) = kinds.iter().find(|k| k.0 == ty).ok_or_else(String::new)?;
    let mut accepted = vec!["type"];
    accepted.push(key);
    check_keys(table, t, &accepted)?;
    let Some(v) = t.get(key) else {
        return Err(format!(" [{table}] needs '{key}' for type {ty}"));
    };
    let value = if key == "averageUtilization" {
        integer(table, key, v)?
    } else {
        quantity(table, key, v)?
    };
    Ok(format!("{kind}:{value}"))
}

/// The one metric of `metrics` as `--hpa-target`'s value.
fn metric(v: &Value) -> Result<String, String> {
    let name = "hpa.metrics";
    let Some(items) = v.as_array() else {
        return Err(format!(" '{name}' must be an array of tables ([[{name}]])"));
    };
    let [m] = &items[..] else {
        return Err(format!(
            " [[{name}]]: capsim's HPA reads one metric (every metric here follows the same demand), {} given",
            items.len()
        ));
    };
    let m = sub(name, m)?;
    check_keys(name, m, &METRIC_KEYS)?;
    let Some(ty) = m.get("type") else {
        return Err(format!(
            " [[{name}]] needs a 'type' (Resource, Pods or External)"
        ));
    };
    let ty = string(name, "type", ty, &["Resource", "Pods", "External"])?;
    let key = ty.to_ascii_lowercase();
    let table = format!("{name}.{key}");
    let Some(source) = m.get(&key) else {
        return Err(format!(" [[{name}]] of type {ty} needs '{key}'"));
    };
    let source = sub(&table, source)?;
    let target_table = format!("{table}.target");
    let target_of = |kinds: &[(&str, &str, &str)]| -> Result<String, String> {
        let Some(t) = source.get("target") else {
            return Err(format!(" [{table}] needs a 'target'"));
        };
        target(&target_table, sub(&target_table, t)?, kinds)
    };
    match ty {
        "Resource" => {
            check_keys(&table, source, &["name", "target"])?;
            match source.get("name") {
                Some(Value::String(n)) if n == "cpu" => {}
                _ => {
                    return Err(format!(
                        " [{table}] 'name': cpu (a replica requests its capacity of requests, its only resource)"
                    ))
                }
            }
            target_of(&[
                ("Utilization", "averageUtilization", "utilization"),
                ("AverageValue", "averageValue", "cpu:average-value"),
            ])
        }
        "Pods" => {
            check_keys(&table, source, &["metric", "target"])?;
            target_of(&[("AverageValue", "averageValue", "pods:average-value")])
        }
        _ => {
            check_keys(&table, source, &["metric", "target"])?;
            target_of(&[
                ("Value", "value", "external:value"),
                ("AverageValue", "averageValue", "external:average-value"),
            ])
        }
    }
}

/// `behavior.scaleUp` or `behavior.scaleDown` as its four flags.
fn rules(direction: &str, v: &Value, out: &mut Vec<(String, String)>) -> Result<(), String> {
    let table = format!("hpa.behavior.{direction}");
    let t = sub(&table, v)?;
    check_keys(&table, t, &RULE_KEYS)?;
    let flag = |what: &str| {
        let d = if direction == "scaleUp" { "up" } else { "down" };
        format!("hpa-scale-{d}-{what}")
    };
    if let Some(w) = t.get("stabilizationWindowSeconds") {
        out.push((
            flag("stabilization"),
            integer(&table, "stabilizationWindowSeconds", w)?,
        ));
    }
    if let Some(p) = t.get("policies") {
        let bad = || format!(" [{table}] 'policies': an array of {{ type, value, periodSeconds }}");
        let items = p.as_array().filter(|a| !a.is_empty()).ok_or_else(bad)?;
        let mut texts = Vec::new();
        for item in items {
            let item = item.as_table().ok_or_else(bad)?;
            let policy = format!("{table}.policies");
            check_keys(&policy, item, &["type", "value", "periodSeconds"])?;
            let (Some(ty), Some(value), Some(period)) = (
                item.get("type"),
                item.get("value"),
                item.get("periodSeconds"),
            ) else {
                return Err(bad());
            };
            texts.push(format!(
                "{}:{}:{}",
                string(&policy, "type", ty, &["Pods", "Percent"])?,
                integer(&policy, "value", value)?,
                integer(&policy, "periodSeconds", period)?
            ));
        }
        out.push((flag("policies"), texts.join("/")));
    }
    if let Some(s) = t.get("selectPolicy") {
        let s = string(&table, "selectPolicy", s, &["Max", "Min", "Disabled"])?;
        out.push((flag("select"), s.to_string()));
    }
    if let Some(v) = t.get("tolerance") {
        out.push((flag("tolerance"), quantity(&table, "tolerance", v)?));
    }
    Ok(())
}

/// Returns the flags (without dashes) and values `[hpa]` stands for; `policy_given`: the
/// scenario's `[params]` sets `policy` (else `[hpa]` sets it to `hpa`).
pub fn pairs(v: &Value, policy_given: bool) -> Result<Vec<(String, String)>, String> {
    let t = sub("hpa", v)?;
    check_keys("hpa", t, &KEYS)?;
    let mut out = Vec::new();
    if !policy_given {
        out.push(("policy".to_string(), "hpa".to_string()));
    }
    if let Some(m) = t.get("minReplicas") {
        out.push(("min-instances".into(), integer("hpa", "minReplicas", m)?));
    }
    if let Some(m) = t.get("maxReplicas") {
        out.push(("max-instances".into(), integer("hpa", "maxReplicas", m)?));
    }
    if let Some(m) = t.get("metrics") {
        out.push(("hpa-target".into(), metric(m)?));
    }
    if let Some(b) = t.get("behavior") {
        let b = sub("hpa.behavior", b)?;
        check_keys("hpa.behavior", b, &["scaleUp", "scaleDown"])?;
        for direction in ["scaleUp", "scaleDown"] {
            if let Some(r) = b.get(direction) {
                rules(direction, r, &mut out)?;
            }
        }
    }
    if let Some(c) = t.get("controller") {
        let c = sub("hpa.controller", c)?;
        check_keys("hpa.controller", c, &CONTROLLER_KEYS)?;
        for key in CONTROLLER_KEYS {
            let Some(v) = c.get(key) else {
                continue;
            };
            let value = if key == "tolerance" {
                quantity("hpa.controller", key, v)?
            } else {
                duration("hpa.controller", key, v)?
            };
            out.push((format!("hpa-{key}"), value));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<(String, String)>, String> {
        let t: Table = text.parse().unwrap();
        pairs(&t["hpa"], false)
    }

    #[test]
    fn the_spec_becomes_the_flags() {
        let got = parsed(
            r#"
[hpa]
minReplicas = 2
maxReplicas = 40
[[hpa.metrics]]
type = "Resource"
resource = { name = "cpu", target = { type = "Utilization", averageUtilization = 60 } }
[hpa.behavior.scaleDown]
stabilizationWindowSeconds = 300
policies = [{ type = "Percent", value = 100, periodSeconds = 15 }, { type = "Pods", value = 4, periodSeconds = 60 }]
selectPolicy = "Min"
tolerance = "50m"
[hpa.controller]
sync-period = "30s"
cpu-initialization-period = "1m30s"
"#,
        )
        .unwrap();
        let want = [
            ("policy", "hpa"),
            ("min-instances", "2"),
            ("max-instances", "40"),
            ("hpa-target", "utilization:60"),
            ("hpa-scale-down-stabilization", "300"),
            ("hpa-scale-down-policies", "Percent:100:15/Pods:4:60"),
            ("hpa-scale-down-select", "Min"),
            ("hpa-scale-down-tolerance", "0.05"),
            ("hpa-sync-period", "30"),
            ("hpa-cpu-initialization-period", "90"),
        ];
        let got: Vec<(&str, &str)> = got.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn every_metric_kind_and_quantity_reads() {
        for (metric, flag) in [
            (
                r#"type = "Pods"
pods = { metric = { name = "rps" }, target = { type = "AverageValue", averageValue = "2k" } }"#,
                "pods:average-value:2000",
            ),
            (
                r#"type = "External"
external = { metric = { name = "demand" }, target = { type = "Value", value = 900 } }"#,
                "external:value:900",
            ),
            (
                r#"type = "External"
external = { metric = { name = "demand" }, target = { type = "AverageValue", averageValue = 80.5 } }"#,
                "external:average-value:80.5",
            ),
            (
                r#"type = "Resource"
resource = { name = "cpu", target = { type = "AverageValue", averageValue = "75500m" } }"#,
                "cpu:average-value:75.5",
            ),
        ] {
            let got = parsed(&format!("[hpa]\n[[hpa.metrics]]\n{metric}\n")).unwrap();
            assert_eq!(
                got[1],
                ("hpa-target".to_string(), flag.to_string()),
                "{metric}"
            );
        }
    }

    #[test]
    fn what_capsim_cannot_run_is_one_line() {
        for (text, says) in [
            ("[hpa]\nscaleTargetRef = 1\n", "unknown key 'scaleTargetRef' in [hpa]"),
            ("[hpa]\n[[hpa.metrics]]\ntype = \"Resource\"\nresource = { name = \"memory\", target = { type = \"Utilization\", averageUtilization = 60 } }\n", "'name': cpu"),
            ("[hpa]\n[[hpa.metrics]]\ntype = \"Pods\"\npods = { target = { type = \"Utilization\", averageUtilization = 60 } }\n", "'type': one of AverageValue"),
            ("[hpa]\n[[hpa.metrics]]\ntype = \"Object\"\n", "one of Resource, Pods, External"),
            ("[hpa]\nmetrics = [{ type = \"Pods\" }, { type = \"Pods\" }]\n", "one metric"),
            ("[hpa.behavior.scaleUp]\npolicies = []\n", "'policies'"),
            ("[hpa.controller]\nsync-period = \"15ms\"\n", "'sync-period'"),
            ("[hpa.behavior.scaleDown]\ntolerance = \"1u\"\n", "'tolerance'"),
        ] {
            let e = parsed(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
