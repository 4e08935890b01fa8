//! The bulkhead lesson: the shared layout and the partitioned splits, healthy and with the
//! slowdown, over the lesson's days, and the tables it prints.

use super::lang::Lang;
use crate::bulkhead::{Mode, Split};
use crate::jsfmt::{pad_end, Fixed, Num};
use crate::rng::ParkMiller;
use crate::{bulkhead, Error, Observer};
use core::fmt::{self, Write};

// ---------------------------------------------------------------- bulkhead

/// The lesson's partitioned layout: this many tracking slots, the rest for events.
pub const LESSON_SPLIT: u32 = 24;
/// The split table's layouts, in its order.
const TABLE_SPLITS: [Split; 5] = [
    Split::Shared,
    Split::Partitioned(28),
    Split::Partitioned(LESSON_SPLIT),
    Split::Partitioned(20),
    Split::Partitioned(16),
];
/// The rows of [`TABLE_SPLITS`] that the layout table compares: the shared pool and the
/// lesson's split.
const SHARED_ROW: usize = 0;
const LESSON_ROW: usize = 2;
const _: () = assert!(
    matches!(TABLE_SPLITS[SHARED_ROW], Split::Shared)
        && matches!(TABLE_SPLITS[LESSON_ROW], Split::Partitioned(LESSON_SPLIT))
);
/// The sensitivity line's split.
const SENSITIVITY_SPLIT: u32 = 27;
/// The runs: every table layout on both days, then the sensitivity split on a healthy day.
const BULKHEAD_RUNS: usize = 2 * TABLE_SPLITS.len() + 1;

/// One layout's healthy and slowdown days.
#[derive(Clone, Copy, Default)]
struct Days {
    healthy: bulkhead::Metrics,
    slowdown: bulkhead::Metrics,
}

/// What the bulkhead lesson prints: its runs' metrics, in the batch's order (the batch writes
/// them here, with no copy on the lesson's stack).
#[derive(Default)]
pub(super) struct BulkheadResults {
    runs: [bulkhead::Metrics; BULKHEAD_RUNS],
}

impl BulkheadResults {
    /// The two days of [`TABLE_SPLITS`]`[row]`.
    fn days(&self, row: usize) -> Days {
        Days {
            healthy: self.runs[2 * row],
            slowdown: self.runs[2 * row + 1],
        }
    }

    /// [`SENSITIVITY_SPLIT`] on a healthy day.
    fn sensitivity(&self) -> bulkhead::Metrics {
        self.runs[BULKHEAD_RUNS - 1]
    }
}

#[inline(never)]
pub(super) fn bulkhead_results<O: Observer<bulkhead::RoundState>>(
    observer: &mut O,
    results: &mut BulkheadResults,
) -> Result<(), Error> {
    let p = bulkhead::Params::default();
    // Every run shares the seed and the rates, hence one arrival stream: the eleven distinct
    // layouts the lesson prints (its 15 calls repeat four) run together on it.
    let mut batch: [bulkhead::Params; BULKHEAD_RUNS] = core::array::from_fn(|_| p.clone());
    let (days, sensitivity) = batch.as_chunks_mut::<2>();
    for ([healthy, slowdown], split) in days.iter_mut().zip(TABLE_SPLITS) {
        (healthy.split, healthy.mode) = (split, Mode::Healthy);
        (slowdown.split, slowdown.mode) = (split, Mode::Slowdown);
    }
    for run in sensitivity {
        (run.split, run.mode) = (Split::Partitioned(SENSITIVITY_SPLIT), Mode::Healthy);
    }
    // The eleven lanes (6.6 KB) live in this frame, which ends before the tables are written.
    let mut ws = bulkhead::Workspace::<BULKHEAD_RUNS>::new();
    let rng = &mut ParkMiller::new(p.seed);
    bulkhead::run_lesson_batch_with(&batch, rng, &mut ws, observer, &mut results.runs)
}

#[inline(never)]
pub(super) fn write_bulkhead<W: Write>(
    out: &mut W,
    results: &BulkheadResults,
    lang: Lang,
) -> fmt::Result {
    /// AY3: a ten-minute outage, in seconds.
    const OUTAGE_SECONDS: f64 = 600.0;
    let p = bulkhead::Params::default();
    let total = p.total_slots;
    let horizon = f64::from(p.horizon);
    let rps = p.rounds_per_second;
    say!(
        out,
        lang,
        "model: {} tur ({} s), ariza {}. turda, toplam {} yuva; varislar Poisson (tohum {}), \
         takip {} ve olay {} varis/tur\n",
        "model: {} rounds ({} s), failure at round {}, {} slots in all; Poisson arrivals \
         (seed {}), tracking {} and event {} arrivals/round\n",
        p.horizon,
        Num(horizon / rps),
        p.failure_start,
        total,
        p.seed,
        Fixed(p.tracking_rate / rps, 4),
        Fixed(p.event_rate / rps, 4)
    )?;
    let [layout_w, day_w, count_w, busy_w] = lang.pick([22, 12, 13, 20], [22, 12, 18, 17]);
    write!(
        out,
        "\n{:<layout_w$}{:<day_w$}",
        lang.pick("duzen", "layout"),
        lang.pick("gun", "day")
    )?;
    let titles = lang.pick(
        [
            "takip yanit",
            "takip dusen",
            "olay yanit",
            "olay dusen",
            "atil yuva",
        ],
        [
            "tracking served",
            "tracking dropped",
            "events served",
            "events dropped",
            "idle slots",
        ],
    );
    for title in titles {
        write!(out, "{title:>count_w$}")?;
    }
    writeln!(
        out,
        "{:>busy_w$}",
        lang.pick("ortalama dolu yuva", "mean busy slots")
    )?;
    let mean_busy = |m: &bulkhead::Metrics| m.busy_slot_rounds as f64 / horizon;
    let shared = results.days(SHARED_ROW);
    let split = results.days(LESSON_ROW);
    let layouts = [
        (TABLE_SPLITS[SHARED_ROW], shared),
        (TABLE_SPLITS[LESSON_ROW], split),
    ];
    let [healthy_day, slowdown_day] = lang.pick(["saglikli", "yavaslama"], ["healthy", "slowdown"]);
    for (layout, days) in layouts {
        for (day, m) in [(healthy_day, days.healthy), (slowdown_day, days.slowdown)] {
            match layout {
                Split::Shared => pad_end(
                    out,
                    layout_w,
                    format_args!("{}{total})", lang.pick("tek havuz (", "shared pool (")),
                )?,
                Split::Partitioned(k) => pad_end(
                    out,
                    layout_w,
                    format_args!(
                        "{}{k}/{})",
                        lang.pick("bolmeli (", "partitioned ("),
                        total - k
                    ),
                )?,
            }
            write!(
                out,
                "{day:<day_w$}{:>count_w$}{:>count_w$}{:>count_w$}{:>count_w$}{:>count_w$}",
                m.tracking_served,
                m.tracking_dropped,
                m.event_served,
                m.event_dropped,
                m.idle_slots
            )?;
            writeln!(out, "{:>busy_w$}", Fixed(mean_busy(&m), 2))?;
        }
    }
    let outage_scale = (OUTAGE_SECONDS * rps) / (horizon - f64::from(p.failure_start));
    say!(
        out,
        lang,
        "\narizasiz gunun bedeli: takip dusen {} -> {}, olay dusen {} -> {}; ortalama dolu yuva \
         {} -> {} (doluluk {} -> {}); atil yuva {} -> {}\n",
        "\nthe price of a day without failure: tracking dropped {} -> {}, events dropped {} -> {}; \
         mean busy slots {} -> {} (utilisation {} -> {}); idle slots {} -> {}\n",
        shared.healthy.tracking_dropped,
        split.healthy.tracking_dropped,
        shared.healthy.event_dropped,
        split.healthy.event_dropped,
        Fixed(mean_busy(&shared.healthy), 2),
        Fixed(mean_busy(&split.healthy), 2),
        Fixed(mean_busy(&shared.healthy) / f64::from(total), 3),
        Fixed(mean_busy(&split.healthy) / f64::from(total), 3),
        shared.healthy.idle_slots,
        split.healthy.idle_slots
    )?;
    let saved = shared.slowdown.tracking_dropped as f64 - split.slowdown.tracking_dropped as f64;
    say!(
        out,
        lang,
        "arizali gunun kazanci: takip dusen {} -> {} (%{} az), olay dusen {} -> {}; AY3'un 10 \
         dakikasinda kurtarilan takip istegi {}\n",
        "the gain on the failure day: tracking dropped {} -> {} ({}% fewer), events dropped \
         {} -> {}; tracking requests saved in AY3's 10 minutes {}\n",
        shared.slowdown.tracking_dropped,
        split.slowdown.tracking_dropped,
        Fixed((100.0 * saved) / shared.slowdown.tracking_dropped as f64, 1),
        shared.slowdown.event_dropped,
        split.slowdown.event_dropped,
        Fixed(saved * outage_scale, 0)
    )?;
    let [slots_w, h_tracking_w, h_event_w, s_tracking_w, s_event_w] =
        lang.pick([20, 21, 20, 24, 23], [22, 26, 24, 27, 25]);
    say!(
        out,
        lang,
        "\n{:<20}{:>21}{:>20}{:>24}{:>23}\n",
        "\n{:<22}{:>26}{:>24}{:>27}{:>25}\n",
        lang.pick("takip/olay yuvasi", "tracking/event slots"),
        lang.pick("arizasiz takip dusen", "healthy tracking dropped"),
        lang.pick("arizasiz olay dusen", "healthy events dropped"),
        lang.pick("yavaslamada takip dusen", "slowdown tracking dropped"),
        lang.pick("yavaslamada olay dusen", "slowdown events dropped"),
    )?;
    for (row, split) in TABLE_SPLITS.iter().enumerate() {
        let days = results.days(row);
        match *split {
            Split::Shared => pad_end(
                out,
                slots_w,
                format_args!("{}{total})", lang.pick("tek havuz (", "shared pool (")),
            )?,
            Split::Partitioned(k) => pad_end(out, slots_w, format_args!("{k}/{}", total - k))?,
        }
        writeln!(
            out,
            "{:>h_tracking_w$}{:>h_event_w$}{:>s_tracking_w$}{:>s_event_w$}",
            days.healthy.tracking_dropped,
            days.healthy.event_dropped,
            days.slowdown.tracking_dropped,
            days.slowdown.event_dropped
        )?;
    }
    let alt = results.sensitivity();
    let event_load = (p.event_rate / rps) * f64::from(p.event_hold);
    say!(
        out,
        lang,
        "duyarlilik: {}/{} yerine {}/{} olsaydi arizasiz gunde \
         takip dusen {} -> {}, olay dusen {} -> {}; olay bolmesi {} dolulukta calisirken {} \
         yuvada {} olur\n",
        "sensitivity: with {}/{} replaced by {}/{}, a day without failure would see \
         tracking dropped {} -> {}, events dropped {} -> {}; the event partition, at {} \
         utilisation now, would run on {} slots at {}\n",
        LESSON_SPLIT,
        total - LESSON_SPLIT,
        SENSITIVITY_SPLIT,
        total - SENSITIVITY_SPLIT,
        split.healthy.tracking_dropped,
        alt.tracking_dropped,
        split.healthy.event_dropped,
        alt.event_dropped,
        Fixed(event_load / f64::from(total - LESSON_SPLIT), 3),
        total - SENSITIVITY_SPLIT,
        Fixed(event_load / f64::from(total - SENSITIVITY_SPLIT), 3)
    )?;
    Ok(())
}
