//! The command line's list and range parsing (`capsim::list::parse`) for every item type.
//!
//! The input is read as UTF-8 (lossily), at most 256 bytes; a range may still expand to a
//! million values, so only lists up to 4096 values are written back out (about 3000 inputs a
//! second). Checks: no panic; a parsed list is non-empty and within `MAX_LIST_LEN`; writing
//! it back out (`2,3,5`, `shared`, `40:95:170`, `none`; the lifecycle items as a run's name
//! shows them: `3:abandon`, `150..190`, `0:protect:3+50:standby:1`, a price `1:0.2:0.05`) parses to the same values; a single
//! range `a..=b` / `a..b` of integers is exactly those integers; error messages are one line
//! when the input is.
#![no_main]

use capsim::list::{parse, Item, List, MAX_LIST_LEN};
use capsim::models::{Price, Value};
use capsim_core::autoscale::{Events, FailureRounds, Hook, Reclaim, RemovalPolicy, Stockout};
use capsim_core::bulkhead::{Mode, Split};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 256 {
        return;
    }
    let s = String::from_utf8_lossy(data);
    check::<u32>(&s, |v| v.to_string());
    check::<f64>(&s, |v| v.to_string());
    check::<Split>(&s, |v| v.to_string());
    check::<Mode>(&s, |v| v.name().to_string());
    check::<FailureRounds>(&s, |v| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter().map(u32::to_string).collect::<Vec<_>>().join(":")
        }
    });
    // The lifecycle items, written back as rows and run names show them.
    check::<Option<Hook>>(&s, Value::flag_text);
    check::<bool>(&s, Value::flag_text);
    check::<RemovalPolicy>(&s, Value::flag_text);
    check::<Reclaim>(&s, Value::flag_text);
    check::<Option<Stockout>>(&s, Value::flag_text);
    check::<Events>(&s, Value::flag_text);
    check::<Option<Price>>(&s, Value::flag_text);
    single_range(&s);
});

/// Lists written back out and parsed again up to this length (a range can expand to a
/// million values; rendering those would slow every input that has one).
const ROUND_TRIP_MAX: usize = 4096;

fn check<T: Item + core::fmt::Debug>(s: &str, render: impl Fn(&T) -> String) {
    match parse::<T>(s) {
        Ok(List(values)) => {
            assert!(!values.is_empty() && values.len() <= MAX_LIST_LEN, "{s:?}");
            if values.len() > ROUND_TRIP_MAX {
                return; // long ranges: `single_range` checks their values
            }
            let text = values.iter().map(&render).collect::<Vec<_>>().join(",");
            let again = parse::<T>(&text).unwrap_or_else(|e| panic!("{s:?} -> {text:?}: {e}"));
            assert_eq!(
                format!("{values:?}"),
                format!("{:?}", again.0),
                "{s:?} -> {text:?}"
            );
        }
        Err(msg) => {
            assert!(!msg.is_empty(), "{s:?}");
            if !s.contains(['\n', '\r']) {
                assert!(!msg.contains(['\n', '\r']), "{s:?}: {msg:?}");
            }
        }
    }
}

/// `a..=b` and `a..b` with plain decimal integers: exactly the integers of the range.
fn single_range(s: &str) {
    let (a, b, inclusive) = match s.split_once("..=") {
        Some((a, b)) => (a, b, true),
        None => match s.split_once("..") {
            Some((a, b)) => (a, b, false),
            None => return,
        },
    };
    let plain = |x: &str| !x.is_empty() && x.len() <= 10 && x.bytes().all(|c| c.is_ascii_digit());
    if !plain(a) || !plain(b) {
        return;
    }
    let (Ok(lo), Ok(hi)) = (a.parse::<u64>(), b.parse::<u64>()) else {
        return;
    };
    let parsed = parse::<u32>(s);
    if lo > u64::from(u32::MAX) || hi > u64::from(u32::MAX) {
        assert!(parsed.is_err(), "{s:?}");
        return;
    }
    let end = if inclusive { hi + 1 } else { hi };
    if end <= lo || end - lo > MAX_LIST_LEN as u64 {
        assert!(parsed.is_err(), "{s:?}");
        return;
    }
    let got = parsed.unwrap_or_else(|e| panic!("{s:?}: {e}")).0;
    assert!(got.iter().map(|&v| u64::from(v)).eq(lo..end), "{s:?}");
}
