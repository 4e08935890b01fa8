//! Parameter lists on the command line: `2,3,5`, ranges `1..=10000` and `1..5`, and the
//! model-specific items (`shared`, `healthy`, `40:95:170`).

use capsim_core::autoscale::{FailureRounds, MAX_FAILURE_ROUNDS};
use capsim_core::bulkhead::{Mode, Split};

/// The most values one flag may expand to (ranges included).
pub const MAX_LIST_LEN: usize = 1_000_000;

/// A parsed, non-empty list of values for one parameter.
#[derive(Clone, Debug)]
pub struct List<T>(pub Vec<T>);

/// A value that may appear in a comma-separated list.
pub trait Item: Sized + Clone {
    /// Parses one comma-separated item into one or more values.
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String>;
}

fn parse_u32(s: &str) -> Result<u32, String> {
    s.parse::<u32>()
        .map_err(|_| format!("'{s}' is not an integer from 0 to 4294967295"))
}

impl Item for u32 {
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

impl Item for Mode {
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

/// Parses a comma-separated list (clap value parser).
pub fn parse<T: Item>(s: &str) -> Result<List<T>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("'{s}' has an empty item"));
        }
        T::parse_item(part, &mut out)?;
        if out.len() > MAX_LIST_LEN {
            return Err(format!("more than {MAX_LIST_LEN} values"));
        }
    }
    Ok(List(out))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
