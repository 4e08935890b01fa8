//! `--summary`: a grid's runs aggregated per parameter combination across its seeds.
//!
//! The seed is the innermost list, so one combination's runs are consecutive. For every
//! metric: mean, sample standard deviation (n − 1; 0 for one run), min, the 5th, 50th and
//! 95th percentiles (linear interpolation between closest ranks, as numpy's default), max.

use crate::output::{Cell, Key, Row};

/// The statistics, in output order.
pub const STATS: [&str; 7] = ["mean", "std", "min", "p5", "p50", "p95", "max"];

/// Returns the statistics of `values` in [`STATS`] order.
pub fn stats(values: &mut [f64]) -> [f64; 7] {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return [f64::NAN; 7];
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let pct = |p: f64| {
        let h = (n - 1) as f64 * p;
        let lo = h.floor() as usize;
        let hi = (lo + 1).min(n - 1);
        values[lo] + (h - lo as f64) * (values[hi] - values[lo])
    };
    [
        mean,
        var.sqrt(),
        values[0],
        pct(0.05),
        pct(0.50),
        pct(0.95),
        values[n - 1],
    ]
}

/// One parameter combination's runs as they arrive: its parameters and each metric's
/// values, nothing more (a grid's summary holds one combination at a time).
pub struct Combination {
    /// The first run's parameters, without the seed.
    params: Row,
    /// Each metric's values, in the order of `metrics`.
    values: Vec<Vec<f64>>,
    runs: usize,
}

impl Combination {
    /// Starts a combination with its first run.
    pub fn new(first: &Row, metrics: &[&str]) -> Self {
        let params = first
            .iter()
            .filter(|(k, _)| k != "seed" && !metrics.contains(&k.as_ref()))
            .cloned()
            .collect();
        let mut c = Self {
            params,
            values: vec![Vec::new(); metrics.len()],
            runs: 0,
        };
        c.add(first, metrics);
        c
    }

    /// Adds one run's metrics.
    pub fn add(&mut self, run: &Row, metrics: &[&str]) {
        self.runs += 1;
        for (metric, values) in metrics.iter().zip(&mut self.values) {
            if let Some(v) = run
                .iter()
                .find(|(k, _)| k == metric)
                .and_then(|(_, v)| v.number())
            {
                values.push(v);
            }
        }
    }

    /// Returns the number of runs added.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Returns the summary row: parameters (without the seed), `seeds`, then
    /// `<metric>_<stat>` for every metric.
    pub fn finish(self, metrics: &[&str]) -> Row {
        let mut out = self.params;
        out.push((Key::Borrowed("seeds"), Cell::Int(self.runs as u64)));
        for (metric, mut values) in metrics.iter().zip(self.values) {
            for (name, value) in STATS.iter().zip(stats(&mut values)) {
                out.push((Key::Owned(format!("{metric}_{name}")), Cell::Stat(value)));
            }
        }
        out
    }
}

/// Aggregates consecutive groups of `per_combination` rows: parameters (without the seed),
/// `seeds`, then `<metric>_<stat>` for every metric.
pub fn summarize(rows: &[Row], per_combination: usize, metrics: &[&str]) -> Vec<Row> {
    rows.chunks(per_combination.max(1))
        .map(|runs| {
            let mut c = Combination::new(&runs[0], metrics);
            for run in &runs[1..] {
                c.add(run, metrics);
            }
            c.finish(metrics)
        })
        .collect()
}

/// Rearranges summary rows for a table: one line per (combination, metric).
pub fn long_form(summary: &[Row], params: &[&str], metrics: &[&'static str]) -> Vec<Row> {
    let mut out = Vec::new();
    for row in summary {
        for metric in metrics {
            let mut line: Row = row
                .iter()
                .filter(|(k, _)| params.contains(&k.as_ref()) || k == "seeds")
                .cloned()
                .collect();
            line.push((Key::Borrowed("metric"), Cell::Word(metric)));
            for name in STATS {
                let key = format!("{metric}_{name}");
                if let Some((_, v)) = row.iter().find(|(k, _)| *k == key) {
                    line.push((Key::Borrowed(name), v.clone()));
                }
            }
            out.push(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_a_known_sample() {
        let mut v: Vec<f64> = (1..=21).map(f64::from).collect();
        let s = stats(&mut v);
        assert_eq!(s[0], 11.0);
        assert!((s[1] - 6.2048368229954285).abs() < 1e-12);
        assert_eq!((s[2], s[3], s[4], s[5], s[6]), (1.0, 2.0, 11.0, 20.0, 21.0));
        assert_eq!(stats(&mut [4.0])[1], 0.0);
    }
}
