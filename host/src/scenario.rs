//! Scenario files: one TOML file for a whole group setup (`capsim autoscale --scenario
//! FILE.toml`, and `capsim trace autoscale` / `capsim plot autoscale` alike).
//!
//! A scenario is the command line written down: [`load`] turns it into (flag, value) pairs
//! in the flags' own syntax, which the model then parses exactly as it parses its flags, so
//! a scenario and the command line it stands for print the same bytes. The file holds:
//!
//! - `[params]`: keys are the model's JSON keys (`threshold`, `launch_hook`,
//!   `demand_file` …); a value is a string in the flag's syntax, a number, a boolean (`yes` /
//!   `no`), or an array of those, which makes a grid exactly as the flag's comma list does
//!   (`threshold = [2, 3, 5]` is `--threshold 2,3,5`).
//! - `[[launch_hooks]]` and `[[terminate_hooks]]`: lifecycle hooks, run in file order, with
//!   `timeout` (rounds, required), `default_result` (`continue`, `abandon`, `rollback`),
//!   `action_rounds`, `heartbeat_every` and `provider` (`alibaba`, `aws`). They become the
//!   `launch_hooks` / `terminate_hooks` parameters; a single hook that only waits (Alibaba's
//!   rules, no job, no heartbeat) is the one-hook flag `launch_hook` / `terminate_hook`
//!   itself, so its rows are those of `--launch-hook`.
//! - `[hpa]`: a Kubernetes HorizontalPodAutoscaler's `spec` in its YAML's shape
//!   (`minReplicas`, `maxReplicas`, `[[hpa.metrics]]`, `[hpa.behavior.scaleUp]` and
//!   `scaleDown`) and the controller's settings (`[hpa.controller]`), which become
//!   `--policy hpa` (unless `[params]` sets the policy), `--min-instances`,
//!   `--max-instances` and the `--hpa-*` flags (see `scenario/hpa.rs`).
//! - `[[at]]`: timed operator actions, each `round = R` and one or more of
//!   `min_instances`, `max_instances` (an integer or `"none"`), `desired`, `standby`,
//!   `unstandby`, `protect`, `unprotect`, `detach` (counts), `template` (a version ≥ 1) and
//!   `evaluation_interval` (a formula's, 5 to 10,080: its schedule restarts there) and
//!   `formula` (a formula file, relative to the scenario's folder, that drives the group from
//!   that round on; its schedule restarts there), applied in the table's key order; they
//!   become the `at` parameter.
//!
//! Flags given on the command line override the file's values (the caller merges them).
//! Errors are one line: a TOML error names the file, line and column
//! (`FILE:LINE:COL: message`); an unknown key names the key and the accepted ones.

use std::path::Path;

use toml::{Table, Value};

mod hpa;

/// The longest scenario file read, in bytes (more is refused after reading one byte more).
pub const MAX_SCENARIO_BYTES: usize = 1 << 20;

/// The keys of a hook table.
pub const HOOK_KEYS: [&str; 5] = [
    "timeout",
    "default_result",
    "action_rounds",
    "heartbeat_every",
    "provider",
];

/// The keys of an `[[at]]` table besides `round`, in the order they are documented.
pub const AT_KEYS: [&str; 11] = [
    "min_instances",
    "max_instances",
    "desired",
    "standby",
    "unstandby",
    "protect",
    "unprotect",
    "detach",
    "template",
    "evaluation_interval",
    "formula",
];

/// The top-level tables a scenario may have.
pub const TABLES: [&str; 5] = ["params", "launch_hooks", "terminate_hooks", "at", "hpa"];

/// A loaded scenario: parameter values as the flags take them, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scenario {
    /// (flag without dashes, value) pairs, e.g. `("launch-hooks", "10:action=3")`.
    pub pairs: Vec<(String, String)>,
}

/// Reads and parses the scenario at `path` for a model whose parameter keys are `keys`.
///
/// The files a scenario names (`formula`, `demand_file`) are relative to its own folder,
/// so that it runs from anywhere (`-`, stdin, and absolute paths stay as they are).
pub fn load(path: &Path, keys: &[&str]) -> Result<Scenario, String> {
    let text = crate::input::read_bounded(path, MAX_SCENARIO_BYTES)
        .map_err(|e| format!("--scenario {e}"))?;
    let mut scenario = parse(&text, keys).map_err(|e| format!("{}:{e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let relative = |f: &str| match f {
        "none" | "-" => f.to_string(),
        f if Path::new(f).is_absolute() => f.to_string(),
        f => dir.join(f).to_string_lossy().into_owned(),
    };
    for (flag, value) in &mut scenario.pairs {
        if flag == "at" {
            // A timed formula's file: `R:formula=FILE` (in each `+` list of a grid's values).
            let action = |a: &str| match a.split_once(":formula=") {
                Some((round, f)) => format!("{round}:formula={}", relative(f)),
                None => a.to_string(),
            };
            *value = value
                .split(',')
                .map(|l| l.split('+').map(action).collect::<Vec<_>>().join("+"))
                .collect::<Vec<_>>()
                .join(",");
        }
        if FILE_KEYS.contains(&flag.as_str()) {
            *value = value
                .split(',')
                .map(|f| relative(f.trim()))
                .collect::<Vec<_>>()
                .join(",");
        }
    }
    Ok(scenario)
}

/// The flags whose values are files (relative to the scenario's folder).
const FILE_KEYS: [&str; 2] = ["formula", "demand-file"];

/// Parses scenario `text`; an error is `LINE:COL: message` or ` message` (the caller puts the
/// file's name before it).
pub fn parse(text: &str, keys: &[&str]) -> Result<Scenario, String> {
    let table: Table = text.parse().map_err(|e: toml::de::Error| {
        let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        let msg = e.message().lines().next().unwrap_or("").trim().to_string();
        format!("{line}:{col}: {msg}")
    })?;
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut push = |key: &str, value: String| -> Result<(), String> {
        let flag = key.replace('_', "-");
        if pairs.iter().any(|(f, _)| *f == flag) {
            return Err(format!(
                " '{key}' is given twice (in [params] and by its own tables)"
            ));
        }
        pairs.push((flag, value));
        Ok(())
    };
    for (name, value) in &table {
        match name.as_str() {
            "params" => {
                let Value::Table(params) = value else {
                    return Err(" 'params' must be a table ([params])".into());
                };
                for (key, v) in params {
                    if !keys.contains(&key.as_str()) {
                        return Err(format!(
                            " unknown key '{key}' in [params]{} (accepted: {})",
                            hint(key, keys),
                            keys.join(", ")
                        ));
                    }
                    push(key, flag_list(key, v)?)?;
                }
            }
            "launch_hooks" | "terminate_hooks" => {
                let hooks = tables(name, value)?;
                let texts = hooks
                    .iter()
                    .map(|h| hook_text(name, h))
                    .collect::<Result<Vec<_>, _>>()?;
                match shorthand(&hooks) {
                    Some(one) => push(&name[..name.len() - 1], one)?,
                    None => push(name, texts.join("+"))?,
                }
            }
            "hpa" => {
                let policy_given = table.get("params").and_then(|p| p.get("policy")).is_some();
                for (flag, value) in hpa::pairs(value, policy_given)? {
                    push(&flag.replace('-', "_"), value)?;
                }
            }
            "at" => {
                let actions = tables(name, value)?;
                let texts = actions
                    .iter()
                    .map(|t| at_text(t))
                    .collect::<Result<Vec<_>, _>>()?;
                push("at", texts.join("+"))?;
            }
            other => {
                return Err(format!(
                    " unknown table '{other}'{} (accepted: {})",
                    hint(other, &TABLES),
                    TABLES.join(", ")
                ))
            }
        }
    }
    Ok(Scenario { pairs })
}

/// Returns the flags of the scenario at `path` for model `M`, as its command line would
/// give them; an error is one line naming the file.
pub fn flags<M: crate::models::Model>(path: &Path) -> Result<crate::models::Flags<M>, String> {
    let keys: Vec<&str> = M::PARAMS.iter().map(|p| p.key).collect();
    let scenario = load(path, &keys)?;
    crate::models::Flags::<M>::from_pairs(
        scenario
            .pairs
            .iter()
            .map(|(flag, value)| (flag.as_str(), value.as_str())),
    )
    .map_err(|e| match e.split_once(" <LIST>': ") {
        // A formula's located error (`f.formula:4:24: error: …`) is its line alone, as on
        // the command line.
        Some((_, located)) if crate::input::is_located(located) => located.to_string(),
        _ => format!("{}: {e}", path.display()),
    })
}

/// Returns the 1-based line and column (in characters) of byte `at` of `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Returns "; did you mean X?" for a near key, else "".
fn hint(key: &str, accepted: &[&str]) -> String {
    crate::list::closest(key, accepted)
        .map(|c| format!("; did you mean {c}?"))
        .unwrap_or_default()
}

/// Returns one TOML value as the flag spells it: a string as written, a number in its
/// shortest form, a boolean as `yes` / `no`.
fn flag_item(key: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(i) => Ok(i.to_string()),
        Value::Float(f) if f.is_finite() => Ok(format!("{f}")),
        Value::Boolean(b) => Ok(if *b { "yes" } else { "no" }.into()),
        _ => Err(format!(
            " '{key}': a value is a string, a number or a boolean, or an array of them"
        )),
    }
}

/// Returns a `[params]` value as the flag's list: an array's items joined by commas.
fn flag_list(key: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::Array(items) if items.is_empty() => Err(format!(" '{key}': an empty array")),
        Value::Array(items) => Ok(items
            .iter()
            .map(|i| flag_item(key, i))
            .collect::<Result<Vec<_>, _>>()?
            .join(",")),
        _ => flag_item(key, v),
    }
}

/// Returns the tables of an array of tables (`[[name]]`).
fn tables<'a>(name: &str, v: &'a Value) -> Result<Vec<&'a Table>, String> {
    let bad = || format!(" '{name}' must be an array of tables ([[{name}]])");
    let Value::Array(items) = v else {
        return Err(bad());
    };
    items
        .iter()
        .map(|i| match i {
            Value::Table(t) => Ok(t),
            _ => Err(bad()),
        })
        .collect()
}

/// Returns a non-negative integer key's value as text.
fn count(table: &str, key: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::Integer(i) if *i >= 0 => Ok(i.to_string()),
        _ => Err(format!(" [[{table}]] '{key}': a non-negative integer")),
    }
}

/// Returns a string key's value, one of `words`.
fn word<'a>(table: &str, key: &str, v: &'a Value, words: &[&str]) -> Result<&'a str, String> {
    match v {
        Value::String(s) if words.contains(&s.as_str()) => Ok(s),
        _ => Err(format!(" [[{table}]] '{key}': one of {}", words.join(", "))),
    }
}

/// Returns one hook as the `launch-hooks` flag spells it:
/// `TIMEOUT[:RESULT][:action=N][:heartbeat=K][:PROVIDER]`.
fn hook_text(name: &str, h: &Table) -> Result<String, String> {
    for key in h.keys() {
        if !HOOK_KEYS.contains(&key.as_str()) {
            return Err(format!(
                " unknown key '{key}' in [[{name}]]{} (accepted: {})",
                hint(key, &HOOK_KEYS),
                HOOK_KEYS.join(", ")
            ));
        }
    }
    let Some(timeout) = h.get("timeout") else {
        return Err(format!(" [[{name}]] needs a 'timeout' (rounds)"));
    };
    let mut text = count(name, "timeout", timeout)?;
    for key in ["action_rounds", "heartbeat_every"] {
        if h.get(key).and_then(Value::as_integer) == Some(0) {
            return Err(format!(
                " [[{name}]] {key} = 0 would do nothing: 1 or more, or leave it out"
            ));
        }
    }
    if let Some(r) = h.get("default_result") {
        text.push(':');
        text.push_str(word(
            name,
            "default_result",
            r,
            &["continue", "abandon", "rollback"],
        )?);
    }
    if let Some(a) = h.get("action_rounds") {
        text.push_str(&format!(":action={}", count(name, "action_rounds", a)?));
    }
    if let Some(k) = h.get("heartbeat_every") {
        text.push_str(&format!(
            ":heartbeat={}",
            count(name, "heartbeat_every", k)?
        ));
    }
    if let Some(p) = h.get("provider") {
        text.push(':');
        text.push_str(word(name, "provider", p, &["alibaba", "aws"])?);
    }
    Ok(text)
}

/// Returns the one-hook flag's value if `hooks` is a single hook that only waits under
/// Alibaba's rules with CONTINUE or ABANDON (what `--launch-hook T[:RESULT]` means).
fn shorthand(hooks: &[&Table]) -> Option<String> {
    let [h] = hooks else {
        return None;
    };
    let plain = h
        .keys()
        .all(|k| matches!(k.as_str(), "timeout" | "default_result" | "provider"));
    let alibaba = h
        .get("provider")
        .is_none_or(|p| p.as_str() == Some("alibaba"));
    let timeout = h.get("timeout")?.as_integer()?;
    let result = match h.get("default_result").map(|r| r.as_str()) {
        None => "continue",
        Some(Some(r @ ("continue" | "abandon"))) => r,
        Some(_) => return None,
    };
    (plain && alibaba).then(|| format!("{timeout}:{result}"))
}

/// Returns one `[[at]]` table as the `at` flag spells it: `ROUND:KEY=VALUE`, one per
/// action key, joined by `+`, in the table's key order.
fn at_text(t: &Table) -> Result<String, String> {
    let Some(round) = t.get("round") else {
        return Err(" [[at]] needs a 'round'".into());
    };
    let round = count("at", "round", round)?;
    let mut parts = Vec::new();
    for (key, v) in t {
        if key == "round" {
            continue;
        }
        if !AT_KEYS.contains(&key.as_str()) {
            let mut accepted = vec!["round"];
            accepted.extend(AT_KEYS);
            return Err(format!(
                " unknown key '{key}' in [[at]]{} (accepted: {})",
                hint(key, &accepted),
                accepted.join(", ")
            ));
        }
        let value = match (key.as_str(), v) {
            ("min_instances" | "max_instances", Value::String(s)) if s == "none" => "none".into(),
            ("formula", Value::String(s)) if !s.is_empty() && !s.contains(['+', ',']) => s.clone(),
            ("formula", _) => {
                return Err(format!(
                    " [[at]] 'formula' at round {round} must be a file's path (without '+' or ',')"
                ))
            }
            _ => count("at", key, v)?,
        };
        parts.push(format!("{round}:{key}={value}"));
    }
    if parts.is_empty() {
        return Err(format!(
            " [[at]] at round {round} has no action (one of {})",
            AT_KEYS.join(", ")
        ));
    }
    Ok(parts.join("+"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: [&str; 4] = ["threshold", "cooldown", "launch_hook", "disable_scale_in"];

    fn pairs(text: &str) -> Vec<(String, String)> {
        parse(text, &KEYS)
            .map(|s| s.pairs)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn pair(f: &str, v: &str) -> (String, String) {
        (f.to_string(), v.to_string())
    }

    #[test]
    fn params_are_the_flags_values() {
        assert_eq!(
            pairs("[params]\nthreshold = 5\ncooldown = \"8\"\ndisable_scale_in = true\n"),
            vec![
                pair("threshold", "5"),
                pair("cooldown", "8"),
                pair("disable-scale-in", "yes")
            ]
        );
        assert_eq!(
            pairs("[params]\nthreshold = [2, 3, 5]\ncooldown = \"0..=3\""),
            vec![pair("threshold", "2,3,5"), pair("cooldown", "0..=3")]
        );
    }

    #[test]
    fn hooks_and_actions_become_their_parameters() {
        let text = "[[launch_hooks]]\ntimeout = 10\naction_rounds = 3\n\
                    [[launch_hooks]]\ntimeout = 5\ndefault_result = \"abandon\"\nprovider = \"aws\"\n\
                    [[terminate_hooks]]\ntimeout = 4\n\
                    [[at]]\nround = 100\nmax_instances = 12\ndesired = 9\n\
                    [[at]]\nround = 5\nmin_instances = \"none\"\n";
        assert_eq!(
            pairs(text),
            vec![
                pair("launch-hooks", "10:action=3+5:abandon:aws"),
                pair("terminate-hook", "4:continue"),
                pair(
                    "at",
                    "100:max_instances=12+100:desired=9+5:min_instances=none"
                ),
            ]
        );
    }

    #[test]
    fn errors_are_one_line_with_the_place_or_the_accepted_keys() {
        let e = parse("[params]\nthreshold = 5\ncooldown = = 8\n", &KEYS).unwrap_err();
        assert!(e.starts_with("3:12: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = parse("[params]\nthreshlod = 5\n", &KEYS).unwrap_err();
        assert_eq!(
            e,
            " unknown key 'threshlod' in [params]; did you mean threshold? (accepted: threshold, cooldown, launch_hook, disable_scale_in)"
        );
        let e = parse("[[at]]\nround = 1\nmax = 3\n", &KEYS).unwrap_err();
        assert!(e.contains("unknown key 'max' in [[at]]"), "{e}");
        assert!(e.contains("accepted: round, min_instances"), "{e}");
        let e = parse("[[launch_hooks]]\naction_rounds = 3\n", &KEYS).unwrap_err();
        assert_eq!(e, " [[launch_hooks]] needs a 'timeout' (rounds)");
        let e = parse("[scenario]\n", &KEYS).unwrap_err();
        assert!(e.contains("unknown table 'scenario'"), "{e}");
        let e = parse(
            "[params]\nlaunch_hook = 3\n[[launch_hooks]]\ntimeout = 2\n",
            &KEYS,
        )
        .unwrap_err();
        assert!(e.contains("given twice"), "{e}");
        let e = parse("[[at]]\nround = -1\ndesired = 3\n", &KEYS).unwrap_err();
        assert!(e.contains("'round': a non-negative integer"), "{e}");
    }

    #[test]
    fn lines_and_columns_count_from_one() {
        assert_eq!(line_col("abc", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ü\nx", 3), (2, 1));
    }
}
