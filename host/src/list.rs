//! Parameter lists on the command line: `2,3,5`, ranges `1..=10000` and `1..5`, and the
//! model-specific items (`shared`, `healthy`, `40:95:170`), each model's in its own file
//! (`list/autoscale.rs`, `list/consumers.rs`, `list/bulkhead.rs`).

mod autoscale;
mod bulkhead;
mod consumers;
pub mod hpa;

pub use autoscale::{hook_text, timed_text, WarmSize, MAX_STEP_BOUND};

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

/// The hint of an item that takes ranges and words: `A..=B` for `A-B`, else the nearest of
/// `words`.
fn range_or_word(s: &str, words: &[&str]) -> Option<String> {
    dash_range(s).or_else(|| closest(s, words).map(str::to_string))
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
        none_or(s, out, |values| u32::parse_item(s, values))
    }
}

/// Parses an optional item: `none`, or the values `some` pushes for `s`, each `Some`.
pub(crate) fn none_or<T>(
    s: &str,
    out: &mut Vec<Option<T>>,
    some: impl FnOnce(&mut Vec<T>) -> Result<(), String>,
) -> Result<(), String> {
    if s == "none" {
        out.push(None);
        return Ok(());
    }
    let mut values = Vec::new();
    some(&mut values)?;
    out.extend(values.into_iter().map(Some));
    Ok(())
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

/// An optional number: `none`, or a finite number.
impl Item for Option<f64> {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        none_or(s, out, |values| {
            f64::parse_item(s, values)
                .map_err(|_| format!("'{s}' is not a finite number or 'none'"))
        })
    }
}

/// Implements [`Item`] for a type whose values are words: `WORD => VALUE, …` (its
/// [`Item::WORDS`], in that order), and the error for any other item.
macro_rules! word_item {
    ($(#[$doc:meta])* $T:ty { $($word:literal => $value:expr),+ $(,)? } else |$s:ident| $error:expr) => {
        $(#[$doc])*
        impl $crate::list::Item for $T {
            const WORDS: &'static [&'static str] = &[$($word),+];

            fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
                out.push(match s {
                    $($word => $value,)+
                    $s => return Err($error),
                });
                Ok(())
            }
        }
    };
}
use word_item;

word_item!(
    /// `yes` or `no`.
    bool {
        "yes" => true,
        "no" => false,
    } else |s| format!("'{s}' is neither 'yes' nor 'no'")
);

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

/// Implements [`Item`] for `Option<T>`, `T` a span of rounds `{ start, end }` (`end`
/// excluded): `A..B`, `A..=B`, or `none` ([`parse_span`]).
macro_rules! span_item {
    ($(#[$doc:meta])* $T:ident) => {
        $(#[$doc])*
        impl $crate::list::Item for Option<$T> {
            const WORDS: &'static [&'static str] = &["none"];

            fn hint(s: &str) -> Option<String> {
                $crate::list::range_or_word(s, Self::WORDS)
            }

            fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
                out.push($crate::list::parse_span(s)?.map(|(start, end)| $T { start, end }));
                Ok(())
            }
        }
    };
}
use span_item;

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
    use capsim_core::autoscale::{
        Action, Events, FailureRounds, Hook, HookResult, RemovalPolicy, Stockout,
    };
    use capsim_core::bulkhead::{Mode, Split};

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
