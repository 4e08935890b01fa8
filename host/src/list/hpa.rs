//! `--policy hpa`'s own items: the metric target, thousandths (tolerances), a direction's
//! scaling policies and `selectPolicy`.

use capsim_core::autoscale::hpa::{
    RateKind, RatePolicies, RatePolicy, Select, Target, MAX_RATE_POLICIES,
};

use super::{word_item, Item};

/// Parses a decimal with at most three decimals as thousandths (`0.1` is 100), at most
/// `max` thousandths.
pub fn parse_thousandths(s: &str, max: u64) -> Option<u64> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && frac.is_empty() || !digits(whole) || !digits(frac) || frac.len() > 3 {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac: u64 = format!("{frac:0<3}").parse().ok()?;
    let v = whole.checked_mul(1000)?.checked_add(frac)?;
    (v <= max).then_some(v)
}

/// Writes thousandths as the flags take them (`100` is `0.1`).
pub fn thousandths_text(v: u64) -> String {
    let (whole, frac) = (v / 1000, v % 1000);
    if frac == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{}", format!("{frac:03}").trim_end_matches('0'))
    }
}

/// A tolerance, in thousandths: 0 to 100 in steps of 0.001 (Kubernetes' quantities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tolerance(pub u32);

impl Item for Tolerance {
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let max = u64::from(capsim_core::autoscale::hpa::policy::MAX_TOLERANCE);
        let v = parse_thousandths(s, max).ok_or_else(|| {
            format!("'{s}' is not a tolerance from 0 to 100 (at most three decimals)")
        })?;
        out.push(Tolerance(v as u32));
        Ok(())
    }
}

/// A direction's tolerance: `none` (the controller's `--hpa-tolerance`) or a tolerance.
impl Item for Option<Tolerance> {
    const WORDS: &'static [&'static str] = &["none"];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        super::none_or(s, out, |v| Tolerance::parse_item(s, v))
    }
}

/// `--hpa-target`: `utilization:P` (`cpu:utilization:P`), `cpu:average-value:V`,
/// `pods:average-value:V`, `external:value:V`, `external:average-value:V`.
impl Item for Target {
    const WORDS: &'static [&'static str] = &[
        "utilization:80",
        "cpu:average-value:",
        "pods:average-value:",
        "external:value:",
        "external:average-value:",
    ];

    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let bad = || format!("'{s}' is not a metric target");
        let form = s
            .strip_prefix("cpu:utilization:")
            .map(|p| ("utilization", p));
        let (kind, v) = form
            .or_else(|| s.strip_prefix("utilization:").map(|p| ("utilization", p)))
            .or_else(|| s.rsplit_once(':'))
            .ok_or_else(bad)?;
        let max = capsim_core::autoscale::hpa::policy::MAX_TARGET_VALUE;
        let value = || parse_thousandths(v, max).filter(|&m| m > 0).ok_or_else(bad);
        out.push(match kind {
            "utilization" => match v.parse::<u32>() {
                Ok(p) if p >= 1 && p <= i32::MAX as u32 => Target::CpuUtilization(p),
                _ => return Err(bad()),
            },
            "cpu:average-value" => Target::CpuAverageValue(value()?),
            "pods:average-value" => Target::PodsAverageValue(value()?),
            "external:value" => Target::ExternalValue(value()?),
            "external:average-value" => Target::ExternalAverageValue(value()?),
            _ => return Err(bad()),
        });
        Ok(())
    }
}

/// Returns the target as `--hpa-target` takes it.
pub fn target_text(t: &Target) -> String {
    match *t {
        Target::CpuUtilization(p) => format!("utilization:{p}"),
        Target::CpuAverageValue(v) => format!("cpu:average-value:{}", thousandths_text(v)),
        Target::PodsAverageValue(v) => format!("pods:average-value:{}", thousandths_text(v)),
        Target::ExternalValue(v) => format!("external:value:{}", thousandths_text(v)),
        Target::ExternalAverageValue(v) => {
            format!("external:average-value:{}", thousandths_text(v))
        }
    }
}

/// A direction's scaling policies: `TYPE:VALUE:PERIOD` joined by `/` (`Pods:4:15/Percent:100:15`),
/// TYPE `Pods` or `Percent`, VALUE ≥ 1, PERIOD in seconds (checked against the sync period
/// by the run).
impl Item for RatePolicies {
    fn parse_item(s: &str, out: &mut Vec<Self>) -> Result<(), String> {
        let mut list = RatePolicies::new();
        for p in s.split('/') {
            let bad = || format!("'{p}' is not a scaling policy TYPE:VALUE:PERIOD");
            let parts: Vec<&str> = p.split(':').collect();
            let [kind, value, period] = parts[..] else {
                return Err(bad());
            };
            let kind = match kind {
                "Pods" | "pods" => RateKind::Pods,
                "Percent" | "percent" => RateKind::Percent,
                _ => return Err(bad()),
            };
            let number = |t: &str| t.parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(bad);
            let policy = RatePolicy {
                kind,
                value: number(value)?,
                period: number(period)?,
            };
            list.push(policy)
                .map_err(|_| format!("'{s}' has more than {MAX_RATE_POLICIES} scaling policies"))?;
        }
        out.push(list);
        Ok(())
    }
}

/// Returns the policies as the flags take them.
pub fn policies_text(list: &RatePolicies) -> String {
    let texts: Vec<String> = list
        .iter()
        .map(|p| format!("{}:{}:{}", p.kind.name(), p.value, p.period))
        .collect();
    texts.join("/")
}

word_item!(
    /// `selectPolicy`: `Max`, `Min` or `Disabled` (lower case too).
    Select {
        "Max" => Select::Max,
        "Min" => Select::Min,
        "Disabled" => Select::Disabled,
        "max" => Select::Max,
        "min" => Select::Min,
        "disabled" => Select::Disabled,
    } else |s| format!("'{s}' is not a selectPolicy (Max, Min or Disabled)")
);

#[cfg(test)]
mod tests {
    use super::*;

    fn parse<T: Item>(s: &str) -> Result<Vec<T>, String> {
        let mut out = Vec::new();
        T::parse_item(s, &mut out).map(|()| out)
    }

    #[test]
    fn thousandths_take_three_decimals_at_most() {
        assert_eq!(parse_thousandths("0.1", 100_000), Some(100));
        assert_eq!(parse_thousandths("100", 100_000), Some(100_000));
        assert_eq!(parse_thousandths("0", 100_000), Some(0));
        assert_eq!(parse_thousandths(".005", 100_000), Some(5));
        assert_eq!(parse_thousandths("100.001", 100_000), None);
        assert_eq!(parse_thousandths("0.0005", 100_000), None);
        assert_eq!(parse_thousandths("-1", 100_000), None);
        assert_eq!(parse_thousandths("", 100_000), None);
        assert_eq!(thousandths_text(100), "0.1");
        assert_eq!(thousandths_text(80_500), "80.5");
        assert_eq!(thousandths_text(0), "0");
    }

    #[test]
    fn targets_parse_in_each_form_and_print_back() {
        for (text, target) in [
            ("utilization:80", Target::CpuUtilization(80)),
            ("cpu:utilization:1", Target::CpuUtilization(1)),
            ("cpu:average-value:0.001", Target::CpuAverageValue(1)),
            ("pods:average-value:80", Target::PodsAverageValue(80_000)),
            ("external:value:900", Target::ExternalValue(900_000)),
            (
                "external:average-value:2.5",
                Target::ExternalAverageValue(2_500),
            ),
        ] {
            assert_eq!(parse::<Target>(text).unwrap(), [target], "{text}");
            if !text.starts_with("cpu:utilization") {
                assert_eq!(target_text(&target), text);
            }
        }
        let max = "external:value:1000000000";
        assert_eq!(
            parse::<Target>(max).unwrap(),
            [Target::ExternalValue(1_000_000_000_000)]
        );
        for bad in [
            "utilization:0",
            "pods:utilization:5",
            "external:value:0",
            "external:value:1000000000.001",
            "external:average-value:1e9",
            "cpu:80",
            "utilization:2147483648",
        ] {
            assert!(parse::<Target>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn policies_parse_up_to_eight() {
        let p = parse::<RatePolicies>("Pods:4:15/Percent:100:15").unwrap();
        assert_eq!(policies_text(&p[0]), "Pods:4:15/Percent:100:15");
        let eight = ["Pods:1:1"; 8].join("/");
        assert_eq!(parse::<RatePolicies>(&eight).unwrap()[0].len(), 8);
        let nine = ["Pods:1:1"; 9].join("/");
        assert!(parse::<RatePolicies>(&nine).is_err());
        for bad in ["Pods:0:15", "Pods:4:0", "Pods:4", "Nodes:4:15", ""] {
            assert!(parse::<RatePolicies>(bad).is_err(), "{bad}");
        }
    }
}
