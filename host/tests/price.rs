//! Issue 21's money: `--price D:S:P` and the `cost` metric. The expected costs are computed
//! here from the trace of the same run (`capsim trace autoscale … --format csv`): billed
//! instance-rounds are the trace's state columns summed (every state but Stopped; a
//! Preempted spot instance is in no state column), billed spot ones its `spot` column less
//! `preempted`, Stopped ones its `stopped` column, and a warm pool its `warm` column. The
//! prices are powers of two, so every product and sum is exact whatever the order.

mod common;

use common::{argv, autoscale_row as row, capsim, example, one_line_error, stdout_ok, Csv};
use serde_json::Value;

/// The trace's columns summed over the day, by name (0 for a column the trace lacks).
struct Sums(Csv);

impl Sums {
    fn of(args: &[&str]) -> Self {
        let trace = Csv::of(&[&["trace", "autoscale"], args].concat());
        assert_eq!(trace.rows.len(), 240, "{args:?}");
        Self(trace)
    }

    fn get(&self, name: &str) -> u64 {
        self.0.find(name).map_or(0, |_| self.0.sum(name))
    }

    /// Instance-rounds in a billed state (the lifecycle's states but Stopped).
    fn billed_states(&self) -> u64 {
        "pending pending_wait in_service standby protected removing removing_wait restarting"
            .split(' ')
            .map(|c| self.get(c))
            .sum()
    }
}

fn cost(v: &Value) -> f64 {
    v["cost"].as_f64().unwrap_or_else(|| panic!("cost in {v}"))
}

const PRICE: &str = "1:0.25:0.0625";
const D: f64 = 1.0;
const S: f64 = 0.25;
const P: f64 = 0.0625;

#[test]
fn the_cost_of_stop_is_the_traces_billed_and_stopped_rounds_priced() {
    let args = ["--reclaim", "stop"];
    let t = Sums::of(&args);
    let v = row(&[&args[..], &["--price", PRICE]].concat());
    let expected = t.billed_states() as f64 * D + t.get("stopped") as f64 * P;
    assert_eq!(cost(&v), expected);
    // The issue's figures: 2,655 billed (the metric), 1,433 Stopped.
    assert_eq!(t.billed_states(), 2655);
    assert_eq!(t.get("stopped"), 1433);
    assert_eq!(v["price"], "1:0.25:0.0625");
}

#[test]
fn the_cost_of_the_preempted_nodes_formula_prices_its_spot_rounds() {
    let f = example("preempted-nodes.formula");
    let args = ["--formula", &f, "--preemption-rate", "0.02"];
    let t = Sums::of(&args);
    let v = row(&[&args[..], &["--price", PRICE]].concat());
    // A preempted spot instance is in no billed state; billed spot = spot − preempted.
    let spot = t.get("spot") - t.get("preempted");
    let dedicated = t.billed_states() - spot;
    assert!(t.get("preempted") > 0 && spot > 0 && dedicated > 0);
    let expected = dedicated as f64 * D + spot as f64 * S + t.get("stopped") as f64 * P;
    assert_eq!(cost(&v), expected);
}

#[test]
fn the_cost_of_a_warm_pool_prices_its_warm_instances() {
    // A Running pool: every warm instance-round is billed as a dedicated one.
    let args = ["--warm-pool", "6:running"];
    let t = Sums::of(&args);
    let v = row(&[&args[..], &["--price", PRICE]].concat());
    assert!(t.get("warm") > 0);
    let expected = (t.billed_states() + t.get("warm")) as f64 * D;
    assert_eq!(cost(&v), expected);
    // A Stopped pool's warm instances are Stopped, its refills booting are billed: the
    // trace's `warm` column holds both, so with one price for billed and Stopped the bill is
    // every instance-round the trace shows, whichever the split.
    let args = ["--warm-pool", "6", "--reclaim", "stop"];
    let t = Sums::of(&args);
    let v = row(&[&args[..], &["--price", "0.5:0.25:0.5"]].concat());
    let all = t.billed_states() + t.get("stopped") + t.get("warm");
    assert_eq!(cost(&v), all as f64 * 0.5);
    // And with Stopped free the bill is the billed rounds only: fewer than the Stopped
    // pool's every round, more than the group's own states (the refills boot billed).
    let free = cost(&row(&[&args[..], &["--price", "1:1:0"]].concat()));
    let billed = t.billed_states() as f64;
    assert!(
        billed < free && free < billed + t.get("warm") as f64,
        "{free}"
    );
}

#[test]
fn without_price_no_byte_changes() {
    for format in ["table", "csv", "json"] {
        for extra in [&[][..], &["--reclaim", "stop", "--warm-pool", "0,6"][..]] {
            let plain = [&["autoscale"][..], extra, &["--format", format]].concat();
            let none = [&plain[..], &["--price", "none"]].concat();
            let a = capsim(&plain);
            let b = capsim(&none);
            assert_eq!(a.status.code(), Some(0));
            assert_eq!(a.stdout, b.stdout, "{format} {extra:?}");
            let text = String::from_utf8(a.stdout).unwrap();
            assert!(!text.contains("cost") && !text.contains("price"), "{text}");
        }
    }
    let plain = capsim(&["trace", "autoscale", "--format", "csv"]);
    let priced = capsim(&["trace", "autoscale", "--format", "csv", "--price", PRICE]);
    assert_eq!(plain.stdout, priced.stdout);
    // With a price the JSON row is the row without it plus its two keys.
    let v = row(&["--price", PRICE]);
    let mut bare = row(&[]);
    let obj = bare.as_object_mut().unwrap();
    assert!(!obj.contains_key("cost"));
    assert_eq!(v.as_object().unwrap().len(), obj.len() + 2);
    // `price` after the options (before the metrics), `cost` the last metric.
    let text = stdout_ok(&["autoscale", "--price", PRICE, "--format", "json"]);
    assert!(text.contains(r#""warm_pool_reuse":"no","price":"1:0.25:0.0625","min_size""#));
    assert!(text.contains(r#""warm_starts":0,"cost":"#), "{text}");
}

#[test]
fn prices_at_their_extremes() {
    let zero = row(&["--reclaim", "stop", "--price", "0:0:0"]);
    assert_eq!(cost(&zero), 0.0);
    assert_eq!(zero["cost"].to_string(), "0.0");
    let t = Sums::of(&["--reclaim", "stop"]);
    let big = row(&["--reclaim", "stop", "--price", "1e9:1e9:1e9"]);
    assert_eq!(
        cost(&big),
        (t.billed_states() + t.get("stopped")) as f64 * 1e9
    );
    // Stopped only.
    let stopped = row(&["--reclaim", "stop", "--price", "0:0:1"]);
    assert_eq!(cost(&stopped), 1433.0);
    // A grid of prices is a comma list of triples: one row each, in order.
    let text = stdout_ok(&argv(
        "autoscale --price 0:0:0,1:0:0 --columns billed_rounds,cost --format csv",
    ));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    // The swept price, then the columns named.
    assert_eq!(
        lines,
        [
            "price,billed_rounds,cost",
            "0:0:0,2688,0",
            "1:0:0,2688,2688"
        ]
    );
}

#[test]
fn bad_prices_are_one_line() {
    for bad in [
        "1",
        "1:2",
        "1:2:3:4",
        "-1:0:0",
        "1:x:0",
        "1:0:1e10",
        "1:0:inf",
        "1:0:NaN",
        "",
        "1,0.2,0.05:0",
    ] {
        let err = one_line_error(&["autoscale", "--price", bad]);
        assert!(err.contains("--price"), "{bad}: {err}");
    }
    // A grid mixing priced and unpriced runs is refused (its rows could not share a header).
    let err = one_line_error(&["autoscale", "--price", "none,1:0.2:0.05"]);
    assert!(err.contains("'price'"), "{err}");
    for column in ["cost", "price"] {
        let err = one_line_error(&["autoscale", "--columns", column]);
        assert!(err.contains("--price"), "{err}");
    }
    for cmd in [&["trace", "autoscale"][..], &["plot", "autoscale"][..]] {
        let err = one_line_error(&[cmd, &["--price", "1:2"]].concat());
        assert!(err.contains("--price"), "{err}");
    }
}

#[test]
fn capsim_metrics_defines_cost() {
    let text = stdout_ok(&["metrics"]);
    // In the autoscale section (before consumers').
    let autoscale = &text[..text.find("consumers").unwrap()];
    let line = autoscale
        .lines()
        .find(|l| l.trim_start().starts_with("cost "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("--price") && line.contains("stopped_rounds"),
        "{line}"
    );
}

#[test]
fn priced_rows_summarize_shard_and_merge_as_the_grid_does() {
    let grid = ["autoscale", "--price", PRICE, "--seed", "1..=4"];
    // The grid's own summary and `capsim summary` of its JSON rows agree, cost included.
    let summary = stdout_ok(&[&grid[..], &["--summary", "--format", "json"]].concat());
    assert!(summary.contains(r#""price":"1:0.25:0.0625""#), "{summary}");
    assert!(summary.contains(r#""cost_mean":"#), "{summary}");
    let rows = stdout_ok(&[&grid[..], &["--format", "json"]].concat());
    let file = common::temp_file("price-rows.json", &rows);
    let merged = stdout_ok(&["summary", &file, "--format", "json"]);
    assert_eq!(merged, summary);
    // The mean cost is the rows' costs averaged here.
    let costs: Vec<f64> = rows
        .lines()
        .map(|l| cost(&serde_json::from_str(l).unwrap()))
        .collect();
    let mean = costs.iter().sum::<f64>() / costs.len() as f64;
    let s: Value = serde_json::from_str(summary.lines().next().unwrap()).unwrap();
    assert!((s["cost_mean"].as_f64().unwrap() - mean).abs() < 1e-9);
    // Shards concatenate to the whole grid's CSV; an empty shard's header has both keys.
    let whole = stdout_ok(&[&grid[..], &["--format", "csv"]].concat());
    let mut joined = String::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        joined += &stdout_ok(&[&grid[..], &["--format", "csv", "--shard", &shard]].concat());
    }
    assert_eq!(joined, whole);
    let empty = stdout_ok(&argv(&format!(
        "autoscale --price {PRICE} --format csv --shard 1/2"
    )));
    let header = empty.lines().next().unwrap();
    assert_eq!(Some(header), whole.lines().next());
    assert!(
        header.contains(",warm_pool_reuse,price,min_size,"),
        "{header}"
    );
    assert!(header.ends_with(",warm_starts,cost"), "{header}");
}

#[test]
fn plot_takes_the_price_and_draws_the_cost() {
    let svg = common::temp_file("price-hist.svg", "");
    let summary = format!("plot autoscale --summary --price {PRICE} --seed 1..=5 --metric cost -o");
    stdout_ok(&[&argv(&summary)[..], &[&svg]].concat());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("capsim autoscale: cost over 5 runs"),
        "{text}"
    );
    let err = one_line_error(
        &[
            &argv("plot autoscale --summary --metric cost -o")[..],
            &[&svg],
        ]
        .concat(),
    );
    assert!(err.contains("--price"), "{err}");
    // A price changes nothing in a run's plot: the rounds do not depend on it.
    let plain = common::temp_file("price-plain.svg", "");
    let priced = common::temp_file("price-priced.svg", "");
    stdout_ok(&["plot", "autoscale", "-o", &plain]);
    stdout_ok(&["plot", "autoscale", "--price", PRICE, "-o", &priced]);
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&priced).unwrap()
    );
}
