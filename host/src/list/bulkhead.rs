//! The bulkhead flags' items: the split, the circuit breaker and the mode.

use capsim_core::bulkhead::{Breaker, Mode, Split};

use super::{none_or, range_or_word, word_item, Item};

impl Item for Split {
    const WORDS: &'static [&'static str] = &["shared"];

    fn hint(s: &str) -> Option<String> {
        range_or_word(s, Self::WORDS)
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
        none_or(s, out, |breaker| {
            breaker.push(Breaker::parse(s).ok_or_else(|| {
                format!(
                    "'{s}' is not RATIO:WINDOW[:OPEN_ROUNDS] or 'none' (a number and one or two integers)"
                )
            })?);
            Ok(())
        })
    }
}

word_item!(
    Mode {
        "healthy" => Mode::Healthy,
        "slowdown" => Mode::Slowdown,
    } else |s| format!("'{s}' is not a mode (healthy or slowdown)")
);
