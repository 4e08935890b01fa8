//! The bulkhead command: its table of `Param`s and metrics, and its grid's runs batched
//! on one arrival stream per seed.

use capsim_core::bulkhead::{self, Breaker, Mode, Split};
use capsim_core::{Error, Observer};

#[cfg(test)]
use super::batch::batches;
use super::batch::{batched_window, lanes_or_alone};
use super::grid::Grid;
use super::{param_axis, Ahead, Column, Metric, Model, Need, Outcome, Param, Rule, Value};

/// `capsim bulkhead`: a shared slot pool vs. partitioned pools.
pub struct Bulkhead;

impl Model for Bulkhead {
    type Params = bulkhead::Params;
    type Metrics = bulkhead::Metrics;
    type Scratch = ();
    type Round = bulkhead::RoundState;
    const PARAMS: &'static [Param<bulkhead::Params>] = &[
        param!(split: Split,
            "'shared', or the tracking pool's slots (events get the rest)",
            "shared, or 1 to total-slots - 1", "shared,{LESSON_SPLIT}"),
        param!(mode: Mode,
            "Slowdown: event requests hold slow-hold rounds from failure-start",
            "healthy or slowdown", "healthy,slowdown"),
        param!(total_slots: u32, "Slots in all", "1 to {MAX_TOTAL_SLOTS}", "32"),
        param!(rounds_per_second: f64,
            "Rounds per second", "numbers > 0", "100"),
        param!(horizon: u32, "Rounds simulated", "1 to {MAX_HORIZON}", "4000"),
        param!(failure_start: u32,
            "First round of the slowdown", "0 to 4294967295", "1000"),
        param!(tracking_rate: f64,
            "Tracking requests per second", "numbers >= 0, at most {MAX_ARRIVALS_PER_ROUND} per round", "416.67"),
        param!(event_rate: f64,
            "Event requests per second", "numbers >= 0, at most {MAX_ARRIVALS_PER_ROUND} per round", "97.22"),
        param!(tracking_hold: u32,
            "Rounds a tracking request holds its slot", "1 to {MAX_HOLD}", "4"),
        param!(event_hold: u32,
            "Rounds an event request holds its slot", "1 to {MAX_HOLD}", "6"),
        param!(slow_hold: u32,
            "Rounds an event request holds its slot during the slowdown", "1 to {MAX_HOLD}", "22"),
        param!(resilience.failure_end: Option<u32>,
            "Round the slowdown ends (excluded); 'none': it lasts to the horizon",
            "none, or a round after failure-start (up to 4294967295)", "none"),
        param!(resilience.breaker: Option<Breaker>,
            "Circuit breaker on the event calls: opens when the failed share of the calls ended in the last WINDOW rounds reaches RATIO, rejects for OPEN_ROUNDS (default {DEFAULT_OPEN_ROUNDS}), then lets one probe through",
            "none, or RATIO:WINDOW[:OPEN_ROUNDS] with RATIO above 0 up to 1, WINDOW 1 to {MAX_WINDOW}, OPEN_ROUNDS 1 to {MAX_HORIZON}",
            "none"),
        param!(resilience.retries: u32,
            "Retries of an event request whose try is dropped, rejected or fails", "0 to {MAX_RETRIES}", "0"),
        param!(resilience.retry_backoff: u32,
            "Rounds waited after a try ends before its retry (0: the next round)", "0 to {MAX_RETRY_BACKOFF}", "0"),
        param!(seed: u32,
            "Arrival generator seed", "1 to {MAX_SEED}", "20260801"),
    ];
    const NAME: &'static str = "bulkhead";
    const VALIDATE: fn(&bulkhead::Params) -> Result<(), Error> = bulkhead::Params::validate;
    const NEEDS: &'static [Need<bulkhead::Params>] = &[
        Need {
            flags: &["failure_start", "slow_hold", "failure_end"],
            rule: Rule::Needs("--mode slowdown", "a healthy day has no slowdown"),
            holds: |p| p.mode == Mode::Slowdown,
            example: &[("mode", "slowdown")],
        },
        Need {
            flags: &["retry_backoff"],
            rule: Rule::Needs("--retries above 0", ""),
            holds: |p| p.resilience.retries > 0,
            example: &[("retries", "2")],
        },
    ];
    const SEED_AFTER: &'static str = "mode";
    const HEADLINE: &'static [&'static str] = &["split", "mode", "seed"];
    const HEADLINE_METRICS: &'static [&'static str] = &[
        "tracking_served",
        "tracking_dropped",
        "event_served",
        "event_dropped",
        "idle_slots",
        "busy_slot_rounds",
    ];
    const METRICS: &'static [Metric<bulkhead::Metrics>] = metrics![
        tracking_served,
        tracking_dropped,
        event_served,
        event_dropped,
        idle_slots,
        busy_slot_rounds,
        breaker_opened_round,
        dependency_calls,
        broken_slot_rounds,
    ];

    fn scratch() {}

    fn run_observed<O: Observer<Self::Round>>(
        p: &Self::Params,
        _: &mut (),
        observer: &mut O,
    ) -> Outcome<Self::Metrics> {
        bulkhead::run_observed(p, observer)
    }

    batched_run_window! {
        /// Runs the combinations that share an arrival stream (they differ only in flags
        /// that do not shape the stream) together, up to `BULKHEAD_LANES` (16) at a time:
        /// the stream is drawn once per batch. See `batched_window`.
        stream: &bulkhead::Stream::FLAGS,
        lanes: BULKHEAD_LANES,
        |grid, _, batch| run_bulkhead_batch(grid, batch)
    }
}

/// Bulkhead combinations run together on one arrival stream at most: a grid's layouts of one
/// seed (the lesson's eleven, `--split` × `--mode` up to 16) draw the stream once.
const BULKHEAD_LANES: usize = 16;

/// Groups the runs of `runs` not yet in `ahead` into batches on one arrival stream, 8 at most.
#[cfg(test)]
fn bulkhead_batches(
    grid: &Grid<Bulkhead>,
    runs: std::ops::Range<u64>,
    limit: u64,
    ahead: &Ahead<bulkhead::Metrics>,
) -> Vec<Vec<u64>> {
    batches(grid, runs, limit, ahead, &bulkhead::Stream::FLAGS, 8)
}

/// `none`, or `RATIO:WINDOW:OPEN_ROUNDS`.
impl Value for Option<Breaker> {
    fn cell(&self) -> super::Cell {
        self.map_or(super::Cell::Word("none"), |b| {
            super::Cell::Text(b.to_string())
        })
    }
}

/// Runs `batch` (runs of `grid`, all on one arrival stream, at most [`BULKHEAD_LANES`]) on
/// one stream; when the batch fails, runs each on its own so that every run gets its own
/// outcome. Runs with the options the lesson does not have (the reference engine's, see
/// `bulkhead::plan`) run on their own.
fn run_bulkhead_batch(
    grid: &Grid<Bulkhead>,
    batch: &[u64],
) -> Vec<(u64, Outcome<bulkhead::Metrics>)> {
    let (lesson, own): (Vec<u64>, Vec<u64>) = batch
        .iter()
        .partition(|&&i| grid.params(i).resilience == bulkhead::Resilience::default());
    let mut outcomes: Vec<(u64, Outcome<bulkhead::Metrics>)> = own
        .iter()
        .map(|&i| (i, bulkhead::run(&grid.params(i))))
        .collect();
    if !lesson.is_empty() {
        outcomes.extend(run_lesson_batch(grid, &lesson));
    }
    outcomes
}

/// [`run_bulkhead_batch`] for runs of the lesson's engine.
fn run_lesson_batch(
    grid: &Grid<Bulkhead>,
    batch: &[u64],
) -> Vec<(u64, Outcome<bulkhead::Metrics>)> {
    let params: Vec<bulkhead::Params> = batch.iter().map(|&i| grid.params(i)).collect();
    // 600 bytes per lane, on this worker's stack.
    let mut ws = bulkhead::Workspace::<BULKHEAD_LANES>::new();
    let mut metrics = [bulkhead::Metrics::default(); BULKHEAD_LANES];
    let together = bulkhead::run_batch(&params, &mut ws, &mut metrics);
    lanes_or_alone(batch, together, metrics, || {
        batch
            .iter()
            .zip(&params)
            .map(|(&i, p)| (i, bulkhead::run(p)))
            .collect()
    })
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::super::tests::grid;
    use super::super::*;
    use super::*;
    use capsim_core::bulkhead;

    fn bulkhead_grid(args: &[&str]) -> Grid<Bulkhead> {
        grid::<Bulkhead>(args)
    }

    /// The core's split and mode read back what they write.
    #[test]
    fn split_and_mode_read_what_they_write() {
        for split in [
            Split::Shared,
            Split::Partitioned(1),
            Split::Partitioned(u32::MAX),
        ] {
            let text = serde_json::to_string(&split).unwrap();
            assert_eq!(serde_json::from_str::<Split>(&text).unwrap(), split);
        }
        for mode in [Mode::Healthy, Mode::Slowdown] {
            let text = serde_json::to_string(&mode).unwrap();
            assert_eq!(serde_json::from_str::<Mode>(&text).unwrap(), mode);
        }
        for bad in [r#""Shared""#, "-1", "4294967296", "2.5", "null"] {
            assert!(serde_json::from_str::<Split>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn grid_decodes_runs_first_flag_outermost() {
        let g = bulkhead_grid(&["--split", "shared,24", "--seed", "7..=9"]);
        assert_eq!(g.len(), 6);
        let runs: Vec<(Split, u32)> = (0..6)
            .map(|i| (g.params(i).split, g.params(i).seed))
            .collect();
        assert_eq!(
            runs,
            vec![
                (Split::Shared, 7),
                (Split::Shared, 8),
                (Split::Shared, 9),
                (Split::Partitioned(24), 7),
                (Split::Partitioned(24), 8),
                (Split::Partitioned(24), 9),
            ]
        );
        assert_eq!(g.digits(4), vec![1, 1]);
        assert_eq!(g.index(&[1, 1]), 4);
        assert_eq!(g.name(4), "split=24 seed=8");
        // A flag given one value is not named; the seed always is.
        let g = bulkhead_grid(&["--split", "20", "--mode", "healthy,slowdown"]);
        assert_eq!(g.name(1), "mode=slowdown seed=20260801");
    }

    #[test]
    fn bulkhead_batches_join_runs_on_one_stream() {
        // Runs i and i + 3 share a seed, hence an arrival stream.
        let g = bulkhead_grid(&["--split", "shared,24", "--seed", "7..=9"]);
        let none = Ahead::new();
        assert_eq!(
            bulkhead_batches(&g, 0..6, 6, &none),
            vec![vec![0, 3], vec![1, 4], vec![2, 5]]
        );
        // A window of two runs takes its partners from later windows, within the limit.
        assert_eq!(
            bulkhead_batches(&g, 0..2, 4, &none),
            vec![vec![0, 3], vec![1]]
        );
        // Runs already computed are neither led nor taken again.
        let mut ahead = Ahead::new();
        ahead.insert(3, Ok(bulkhead::Metrics::default()));
        assert_eq!(
            bulkhead_batches(&g, 3..6, 6, &ahead),
            vec![vec![4], vec![5]]
        );
    }
}
