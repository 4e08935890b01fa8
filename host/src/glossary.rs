//! `capsim metrics`: what every metric of every model means, and its unit.
//!
//! One table, `glossary.toml` (data, as a translator edits it), serves the command, the
//! playground's glossary (its tooltips) and the glossary of docs/metrics.md; a test checks that it
//! names each model's metrics exactly once, in the order the rows print them, so a new metric
//! without a meaning fails the tests.

use std::fmt::Write as _;

use crate::models::{self, Autoscale, Bulkhead, Consumers};

/// One metric: its model, its row key, its unit and what it counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The model's command (`autoscale`).
    pub model: String,
    /// The metric's key in rows (`under_capacity_rounds`).
    pub key: String,
    /// Its unit (`rounds`, `instance-rounds`, `fraction 0-1` …).
    pub unit: String,
    /// What it counts, in one phrase.
    pub meaning: String,
}

/// The models in the order `capsim metrics` prints them.
pub const MODELS: [&str; 3] = ["autoscale", "consumers", "bulkhead"];

/// The glossary as it is written down, for translators as for readers: a `[MODEL.KEY]` table
/// per metric with its `unit` and `meaning`, by model, in row order.
const TEXT: &str = include_str!("glossary.toml");

/// Reads a glossary written as `glossary.toml` is: each top-level table a model, each of its
/// tables a metric (its key) with the strings `unit` and `meaning`, nothing else; the entries
/// in the order written.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
    let mut entries = Vec::new();
    for (model, metrics) in &table {
        let metrics = metrics
            .as_table()
            .ok_or_else(|| format!("'{model}' is not a table of metrics"))?;
        for (key, fields) in metrics {
            let field = |name: &str| {
                fields
                    .get(name)
                    .and_then(toml::Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| format!("{model}.{key}: no string '{name}'"))
            };
            if let Some(other) = fields.as_table().and_then(|t| {
                t.keys()
                    .find(|k| !["unit", "meaning"].contains(&k.as_str()))
            }) {
                return Err(format!("{model}.{key}: unknown field '{other}'"));
            }
            entries.push(Entry {
                model: model.clone(),
                key: key.clone(),
                unit: field("unit")?,
                meaning: field("meaning")?,
            });
        }
    }
    Ok(entries)
}

/// Every metric of every model, by model, in row order (`glossary.toml`, read once). A round is one
/// minute of the group lesson's story; an instance-round is one instance for one round.
pub fn glossary() -> &'static [Entry] {
    static GLOSSARY: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    // The text is this crate's own, and the tests read it: it parses.
    GLOSSARY.get_or_init(|| parse(TEXT).unwrap_or_default())
}

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
    glossary().iter().filter(move |e| e.model == model)
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
    fn the_glossary_text_reads_in_order() {
        assert_eq!(parse(TEXT).map(|g| g.len()), Ok(glossary().len()));
        let text =
            "[m.b]\nunit = \"u\"\nmeaning = \"x\"\n\n[m.a]\nunit = \"v\"\nmeaning = \"y, 'z'\"\n";
        let entry = |key: &str, unit: &str, meaning: &str| Entry {
            model: "m".into(),
            key: key.into(),
            unit: unit.into(),
            meaning: meaning.into(),
        };
        assert_eq!(
            parse(text),
            Ok(vec![entry("b", "u", "x"), entry("a", "v", "y, 'z'")])
        );
        assert_eq!(parse(""), Ok(Vec::new()));
        for (text, error) in [
            ("[m.a]\nunit = \"u\"\n", "m.a: no string 'meaning'"),
            (
                "[m.a]\nunit = \"u\"\nmeaning = \"x\"\nnote = \"n\"\n",
                "m.a: unknown field 'note'",
            ),
            (
                "[m.a]\nunit = 3\nmeaning = \"x\"\n",
                "m.a: no string 'unit'",
            ),
            ("m = 1\n", "'m' is not a table of metrics"),
        ] {
            assert_eq!(parse(text), Err(error.to_string()), "{text}");
        }
        assert!(parse("[m.a\n").is_err());
    }

    #[test]
    fn the_glossary_names_every_metric_once_in_row_order() {
        let models: Vec<&str> = glossary().iter().map(|e| e.model.as_str()).collect();
        let mut order = models.clone();
        order.dedup();
        assert_eq!(order, MODELS, "one table per model, in MODELS order");
        for model in MODELS {
            let glossary: Vec<&str> = of(model).map(|e| e.key.as_str()).collect();
            assert_eq!(Some(glossary), row_keys(model), "{model}");
        }
        assert!(glossary()
            .iter()
            .all(|e| MODELS.contains(&e.model.as_str())));
        for e in glossary() {
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
        for e in glossary() {
            let line = all
                .lines()
                .find(|l| l.split_whitespace().next() == Some(e.key.as_str()))
                .unwrap_or_else(|| panic!("{} missing", e.key));
            assert!(
                line.contains(&e.unit) && line.ends_with(&e.meaning),
                "{line}"
            );
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
    fn the_docs_glossary_is_this_table() {
        let rows = crate::test_support::docs_table(
            "docs/metrics.md",
            "| model | metric | unit | meaning |",
        );
        let want: Vec<String> = glossary()
            .iter()
            .map(|e| format!("| {} | `{}` | {} | {} |", e.model, e.key, e.unit, e.meaning))
            .collect();
        assert_eq!(
            rows, want,
            "docs/metrics.md's glossary (redo it from `capsim metrics`)"
        );
    }
}
