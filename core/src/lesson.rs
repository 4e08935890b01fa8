//! The five lesson outputs, byte for byte, written into any [`core::fmt::Write`].
//!
//! Each renderer runs the lesson's sweep with the lesson's parameters and prints what the
//! lesson program prints, so the firmware and the CLI show the same bytes. The only storage
//! needed is the consumers [`Workspace`] (at least [`LESSON_SHIPMENTS`] shipments); with a
//! smaller one the consumers lesson returns a capacity error and the others still render.
//!
//! ```
//! use capsim_core::{consumers::Workspace, lesson::{render_all, LESSON_SHIPMENTS}};
//! struct Count(usize);
//! impl core::fmt::Write for Count {
//!     fn write_str(&mut self, s: &str) -> core::fmt::Result { self.0 += s.len(); Ok(()) }
//! }
//! let mut out = Count(0);
//! render_all(&mut out, &mut Workspace::<LESSON_SHIPMENTS>::new()).unwrap();
//! assert!(out.0 > 4000);
//! ```

use core::fmt::{self, Write};

use crate::consumers::{self, Workspace};
use crate::jsfmt::{pad_end, round, Fixed, Num};
use crate::rng::{GroupLcg, ParkMiller};
use crate::{autoscale, bulkhead, Capacity, Error, Observer};

/// The shipments in the consumers lesson's workload.
pub const LESSON_SHIPMENTS: usize = 5000;

/// The consumers lesson's configurations (N × S): a workspace with this many lanes renders
/// the lesson in one pass over its queue.
pub const LESSON_CONFIGURATIONS: usize = 12;

/// One of the five lesson outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Lesson {
    /// The two threshold/cooldown pairs of the auto-scaling lesson.
    Group,
    /// The auto-scaling lesson's 3 × 3 threshold × cooldown sweep.
    GroupSweep,
    /// The auto-scaling lesson's churn cost ledger.
    GroupLedger,
    /// The consumers lesson's S × N tables.
    Consumers,
    /// The bulkhead lesson's layouts and split table.
    Bulkhead,
}

impl Lesson {
    /// All five, in the order `capsim lesson all` prints them.
    pub const ALL: [Lesson; 5] = [
        Lesson::Group,
        Lesson::GroupSweep,
        Lesson::GroupLedger,
        Lesson::Consumers,
        Lesson::Bulkhead,
    ];

    /// Returns the lesson's name on the command line (and of its golden file).
    pub const fn name(self) -> &'static str {
        match self {
            Lesson::Group => "group",
            Lesson::GroupSweep => "group-sweep",
            Lesson::GroupLedger => "group-ledger",
            Lesson::Consumers => "consumers",
            Lesson::Bulkhead => "bulkhead",
        }
    }

    /// Returns the lesson called `name`, if any.
    pub fn from_name(name: &str) -> Option<Lesson> {
        Lesson::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// Why a lesson could not be rendered.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LessonError {
    /// The writer failed.
    Fmt,
    /// A model run failed (for example, a workspace too small for the consumers lesson).
    Model(Error),
}

impl From<fmt::Error> for LessonError {
    fn from(_: fmt::Error) -> Self {
        LessonError::Fmt
    }
}

impl From<Error> for LessonError {
    fn from(e: Error) -> Self {
        LessonError::Model(e)
    }
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LessonError::Fmt => f.write_str("the output could not be written"),
            LessonError::Model(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for LessonError {}

/// Writes one lesson's output.
pub fn render<W: Write, const N: usize, const F: usize, const R: usize>(
    lesson: Lesson,
    out: &mut W,
    ws: &mut Workspace<N, F, R>,
) -> Result<(), LessonError> {
    render_observed(lesson, out, ws, &mut ())
}

/// Writes all five lesson outputs, in [`Lesson::ALL`] order.
pub fn render_all<W: Write, const N: usize, const F: usize, const R: usize>(
    out: &mut W,
    ws: &mut Workspace<N, F, R>,
) -> Result<(), LessonError> {
    for lesson in Lesson::ALL {
        render(lesson, out, ws)?;
    }
    Ok(())
}

/// Writes one lesson's output, calling `observer` after every simulated round.
pub fn render_observed<W: Write, O: Observer, const N: usize, const F: usize, const R: usize>(
    lesson: Lesson,
    out: &mut W,
    ws: &mut Workspace<N, F, R>,
    observer: &mut O,
) -> Result<(), LessonError> {
    match lesson {
        Lesson::Group => group(out, observer),
        Lesson::GroupSweep => group_sweep(out, observer),
        Lesson::GroupLedger => group_ledger(out, observer),
        Lesson::Consumers => consumers_tables(out, ws, observer),
        Lesson::Bulkhead => bulkhead_tables(out, observer),
    }
}

// ---------------------------------------------------------------- auto-scaling group

/// Rounds per hour in the lesson's story (one round is one minute).
const ROUNDS_PER_HOUR: f64 = 60.0;

/// The lesson's rounds: its demand curve is tabulated once per lesson.
const LESSON_ROUNDS: usize = 240;

/// `required(t)` for the lesson's rounds: every run of a lesson shares the demand curve.
struct DemandTable([f64; LESSON_ROUNDS]);

impl DemandTable {
    fn new() -> Self {
        let p = autoscale::Params::default();
        Self(core::array::from_fn(|t| p.required(t as u32)))
    }

    fn run<O: Observer>(
        &self,
        threshold: u32,
        cooldown: u32,
        observer: &mut O,
    ) -> Result<autoscale::Metrics, Error> {
        let params = autoscale::Params {
            threshold,
            cooldown,
            ..autoscale::Params::default()
        };
        let required = |t: u32| match self.0.get(t as usize) {
            Some(&r) => r,
            None => params.required(t),
        };
        let mut rng = GroupLcg::new(params.seed);
        autoscale::simulate(&params, required, &mut rng, observer)
    }
}

// Kept out of line so that one lesson's frame does not add to another's peak stack.
#[inline(never)]
fn group<W: Write, O: Observer>(out: &mut W, observer: &mut O) -> Result<(), LessonError> {
    let p = autoscale::Params::default();
    let pairs = [(2, 0), (5, 8)];
    let demand = DemandTable::new();
    let bad = demand.run(2, 0, observer)?;
    let good = demand.run(5, 8, observer)?;
    writeln!(
        out,
        "{} tur, ornek basina {} istek, acilis {} tur; tohum {}",
        p.rounds,
        Num(p.capacity),
        p.boot_rounds,
        p.seed
    )?;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &g in demand.0.iter() {
        lo = lo.min(g);
        hi = hi.max(g);
    }
    writeln!(
        out,
        "gerekli ornek {} ile {} arasinda degisiyor\n",
        Num(lo),
        Num(hi)
    )?;
    writeln!(
        out,
        "{:<22}{:<15}{:<13}{:<20}{:<19}baslatilan ornek",
        "cift", "grup min-max", "dalgalanma", "es zamanli degisim", "kapasite alti tur"
    )?;
    for ((e, s), m) in pairs.iter().zip([&bad, &good]) {
        pad_end(out, 22, format_args!("esik {e}, soguma {s}"))?;
        pad_end(out, 15, format_args!("{}-{}", m.min_size, m.max_size))?;
        // The lesson's spread, signed as in JavaScript (min starts at 99, so a group that
        // stays above 99 would make it negative; not with the lesson's constants).
        write!(out, "{:<13}", i64::from(m.max_size) - i64::from(m.min_size))?;
        let pct = round(100.0 * m.max_launching_ratio);
        pad_end(out, 20, format_args!("{} (%{})", m.max_launching, Num(pct)))?;
        pad_end(
            out,
            19,
            format_args!("{}/{}", m.under_capacity_rounds, p.rounds),
        )?;
        writeln!(out, "{}", m.launched)?;
    }
    for ((e, s), m) in pairs.iter().zip([&bad, &good]) {
        writeln!(
            out,
            "esik {e}, soguma {s}: {} saglik degistirmesi ({} yanlis), {} olcekleme eylemi, \
             bozuk ornek {} tur trafikte kaldi",
            m.replacements, m.false_replacements, m.scaling_actions, m.broken_rounds
        )?;
    }
    Ok(())
}

// Kept out of line so that one lesson's frame does not add to another's peak stack.
#[inline(never)]
fn group_sweep<W: Write, O: Observer>(out: &mut W, observer: &mut O) -> Result<(), LessonError> {
    const THRESHOLDS: [u32; 3] = [2, 3, 5];
    const COOLDOWNS: [u32; 3] = [0, 3, 8];
    let rounds = autoscale::Params::default().rounds;
    let hours = f64::from(rounds) / ROUNDS_PER_HOUR;
    writeln!(
        out,
        "{rounds} tur = {} saat; her satir ayni talep egrisi ve ayni tohumla kosuldu\n",
        Num(hours)
    )?;
    writeln!(
        out,
        "{:<7}{:<9}{:<15}{:<13}{:<13}{:<16}{:<17}{:<12}saatte baslatilan",
        "esik",
        "soguma",
        "grup min-max",
        "dalgalanma",
        "es zamanli",
        "kapasite alti",
        "yanlis degisim",
        "bozuk tur"
    )?;
    let mut all = [(0u32, 0u32, autoscale::Metrics::default()); 9];
    let pairs = THRESHOLDS
        .iter()
        .flat_map(|&e| COOLDOWNS.iter().map(move |&s| (e, s)));
    let demand = DemandTable::new();
    for (slot, (e, s)) in all.iter_mut().zip(pairs) {
        let m = demand.run(e, s, observer)?;
        *slot = (e, s, m);
        write!(out, "{e:<7}{s:<9}")?;
        pad_end(out, 15, format_args!("{}-{}", m.min_size, m.max_size))?;
        write!(
            out,
            "{:<13}{:<13}",
            i64::from(m.max_size) - i64::from(m.min_size),
            m.max_launching
        )?;
        pad_end(
            out,
            16,
            format_args!("{}/{}", m.under_capacity_rounds, rounds),
        )?;
        write!(out, "{:<17}{:<12}", m.false_replacements, m.broken_rounds)?;
        writeln!(out, "{}", Fixed(f64::from(m.launched) / hours, 1))?;
    }
    // `reduce` keeps the first of equals: replace only on a strict improvement.
    let pick = |better: &dyn Fn(&autoscale::Metrics, &autoscale::Metrics) -> bool| {
        let mut best = all[0];
        for cand in &all[1..] {
            if better(&cand.2, &best.2) {
                best = *cand;
            }
        }
        best
    };
    let most = pick(&|b, a| b.launched > a.launched);
    let least = pick(&|b, a| b.launched < a.launched);
    let longest = pick(&|b, a| b.broken_rounds > a.broken_rounds);
    writeln!(
        out,
        "\nsurekli degisim ureten cift: esik {}, soguma {} — saatte {} ornek, {} yanlis degistirme",
        most.0,
        most.1,
        Fixed(f64::from(most.2.launched) / hours, 1),
        most.2.false_replacements
    )?;
    writeln!(
        out,
        "en az degisim ureten cift: esik {}, soguma {} — saatte {} ornek, kapasite alti {} tur",
        least.0,
        least.1,
        Fixed(f64::from(least.2.launched) / hours, 1),
        least.2.under_capacity_rounds
    )?;
    writeln!(
        out,
        "bozuk ornegi en uzun tasiyan cift: esik {}, soguma {} — {} tur trafikte",
        longest.0, longest.1, longest.2.broken_rounds
    )?;
    Ok(())
}

// Kept out of line so that one lesson's frame does not add to another's peak stack.
#[inline(never)]
fn group_ledger<W: Write, O: Observer>(out: &mut W, observer: &mut O) -> Result<(), LessonError> {
    const PAIRS: [(u32, u32); 3] = [(2, 0), (3, 3), (5, 3)];
    /// Cost of one idle instance-hour, in the lesson's permanent capacity units.
    const UNIT: f64 = 1.0;
    const IN_HAND: [&str; 6] = [
        "en az ve en cok ornek",
        "olcekleme olcutu ve esikleri",
        "soguma suresi",
        "saglik denetimi esigi ve araligi",
        "kucultmede hangi ornegin secilecegi",
        "grubun bagli oldugu sablon surumu",
    ];
    const WITH_PROVIDER: [&str; 3] = [
        "saglik denetimi cagrisinin kendi gecikmesi",
        "olcekleme eyleminin uygulanma gecikmesi",
        "istenen kapasitenin o an bulunabilirligi",
    ];
    const IRREVERSIBLE: [&str; 3] = [
        "sonlandirilan ornegin elindeki is ve yerel diski",
        "sagliksiz damgasi — ornek geri dondurulmez, degistirilir",
        "kucultulen kapasite — geri almak yeni acilis ve soguma turu ister",
    ];
    let p = autoscale::Params::default();
    let hours = f64::from(p.rounds) / ROUNDS_PER_HOUR;
    writeln!(
        out,
        "{:<22}{:<18}{:<16}{:<18}{:<16}bozuk tur",
        "cift", "gunde baslatilan", "acilista gecen", "gunluk bos birim", "kapasite alti"
    )?;
    let demand = DemandTable::new();
    for (e, s) in PAIRS {
        let m = demand.run(e, s, observer)?;
        let daily = (f64::from(m.launched) / hours) * 24.0;
        let idle = (daily * f64::from(p.boot_rounds)) / 60.0;
        pad_end(out, 22, format_args!("esik {e}, soguma {s}"))?;
        write!(out, "{:<18}", Fixed(daily, 0))?;
        pad_end(out, 16, format_args!("{} ornek-saat", Fixed(idle, 1)))?;
        write!(out, "{:<18}", Fixed(idle * UNIT, 1))?;
        pad_end(
            out,
            16,
            format_args!("{}/{}", m.under_capacity_rounds, p.rounds),
        )?;
        writeln!(out, "{}", m.broken_rounds)?;
    }
    writeln!(
        out,
        "\nkarar defteri: {} kalem elde, {} kalem saglayicida",
        IN_HAND.len(),
        WITH_PROVIDER.len()
    )?;
    write!(out, "  saglayicida: ")?;
    for (i, item) in WITH_PROVIDER.iter().enumerate() {
        let sep = if i == 0 { "" } else { "; " };
        write!(out, "{sep}{item}")?;
    }
    writeln!(out)?;
    for item in IRREVERSIBLE {
        writeln!(out, "  geri alinamaz — {item}")?;
    }
    Ok(())
}

// ---------------------------------------------------------------- competing consumers

// Kept out of line so that one lesson's frame does not add to another's peak stack.
#[inline(never)]
fn consumers_tables<W: Write, O: Observer, const N: usize, const F: usize, const R: usize>(
    out: &mut W,
    ws: &mut Workspace<N, F, R>,
    observer: &mut O,
) -> Result<(), LessonError> {
    const SLOTS: [u32; 2] = [2, 4];
    const CONSUMERS: [u32; 6] = [1, 2, 3, 4, 6, 8];
    /// K01: peak write requests per second.
    const PEAK: f64 = 97.22;
    /// Lesson 01's processing capacity (half the peak).
    const PROCESSING: f64 = 48.61;
    let base = consumers::Params::default();
    if N < base.shipments as usize {
        return Err(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: N as u32,
        }
        .into());
    }
    // The twelve configurations share one workload: with R lanes, each pass over the queue
    // runs R of them (one on a small board, all twelve on a host).
    let configs: [consumers::Params; 12] = core::array::from_fn(|i| consumers::Params {
        consumers: CONSUMERS[i % 6],
        slots: SLOTS[i / 6],
        ..base.clone()
    });
    let mut flat = [consumers::Metrics::default(); 12];
    for (params, out) in configs.chunks(R.max(1)).zip(flat.chunks_mut(R.max(1))) {
        let draws = consumers::LessonDraws::new(&base);
        consumers::run_batch_with(params, draws, ws, observer, out)?;
    }
    let results = [
        <[consumers::Metrics; 6]>::try_from(&flat[..6]).unwrap_or_default(),
        <[consumers::Metrics; 6]>::try_from(&flat[6..]).unwrap_or_default(),
    ];
    writeln!(
        out,
        "is yuku: {} gonderi x {} olay (V4) = {} olay",
        base.shipments,
        base.events_per_shipment,
        base.events()
    )?;
    writeln!(
        out,
        "depo yuvasi S: turda en fazla S olay uygulanir (model parametresi)\n"
    )?;
    for (row, &slots) in results.iter().zip(SLOTS.iter()) {
        writeln!(out, "S = {slots}")?;
        writeln!(
            out,
            "  N  bosalma turu  hizlanma  ek tuketicinin katkisi  verim(olay/tur)  \
             sirasi bozulan  yanlis son durum"
        )?;
        // `taban` is the N = 1 run, the first of the row.
        let single = row[0].rounds as f64;
        let mut previous: Option<(f64, u32)> = None;
        for (m, &n) in row.iter().zip(CONSUMERS.iter()) {
            let speedup = single / m.rounds as f64;
            write!(out, "{n:>3}  {:>12}  {:>8}  ", m.rounds, Fixed(speedup, 2))?;
            match previous {
                None => write!(out, "{:>22}", "-")?,
                Some((h, pn)) => {
                    write!(out, "{:>22}", Fixed((speedup - h) / f64::from(n - pn), 3))?
                }
            }
            writeln!(
                out,
                "  {:>15}  {:>14}  {:>17}",
                Fixed(m.throughput, 3),
                m.reordered_shipments,
                m.wrong_final_state
            )?;
            previous = Some((speedup, n));
        }
        writeln!(out)?;
    }
    let single_throughput = results[0][0].throughput; // N = 1, S = 2
    writeln!(
        out,
        "K01 donusu: tepe yazma {} olay/s, 01. dersin isleme kapasitesi {} olay/s",
        Num(PEAK),
        Num(PROCESSING)
    )?;
    for slots in SLOTS {
        let ceiling = f64::from(slots) / single_throughput;
        writeln!(
            out,
            "  S = {slots}: asimptotik tavan {} tuketici -> tek tuketici en az {} olay/s \
             (kuyruklu) / {} olay/s (eszamanli)",
            Fixed(ceiling, 2),
            Fixed(PROCESSING / ceiling, 2),
            Fixed(PEAK / ceiling, 2)
        )?;
    }
    let (a, b) = (results[0][4], results[0][5]); // S = 2, N = 6 and N = 8
    writeln!(
        out,
        "  S = 2, N 6 -> 8: bosalma {}%, sirasi bozulan +{}%, yanlis son durum {} -> {}",
        Fixed((b.rounds as f64 / a.rounds as f64 - 1.0) * 100.0, 1),
        Fixed(
            (f64::from(b.reordered_shipments) / f64::from(a.reordered_shipments) - 1.0) * 100.0,
            0
        ),
        a.wrong_final_state,
        b.wrong_final_state
    )?;
    Ok(())
}

// ---------------------------------------------------------------- bulkhead

// Kept out of line so that one lesson's frame does not add to another's peak stack.
#[inline(never)]
fn bulkhead_tables<W: Write, O: Observer>(
    out: &mut W,
    observer: &mut O,
) -> Result<(), LessonError> {
    use bulkhead::{Mode, Split};
    const LESSON_SPLIT: u32 = 24;
    const TABLE_SPLITS: [Split; 5] = [
        Split::Shared,
        Split::Partitioned(28),
        Split::Partitioned(24),
        Split::Partitioned(20),
        Split::Partitioned(16),
    ];
    const SENSITIVITY_SPLIT: u32 = 27;
    /// AY3: a ten-minute outage, in seconds.
    const OUTAGE_SECONDS: f64 = 600.0;
    let p = bulkhead::Params::default();
    let total = p.total_slots;
    let horizon = f64::from(p.horizon);
    let rps = p.rounds_per_second;
    writeln!(
        out,
        "model: {} tur ({} s), ariza {}. turda, toplam {} yuva; varislar Poisson (tohum {}), \
         takip {} ve olay {} varis/tur",
        p.horizon,
        Num(horizon / rps),
        p.failure_start,
        total,
        p.seed,
        Fixed(p.tracking_rate / rps, 4),
        Fixed(p.event_rate / rps, 4)
    )?;
    write!(out, "\n{:<22}{:<12}", "duzen", "gun")?;
    for title in [
        "takip yanit",
        "takip dusen",
        "olay yanit",
        "olay dusen",
        "atil yuva",
    ] {
        write!(out, "{title:>13}")?;
    }
    writeln!(out, "{:>20}", "ortalama dolu yuva")?;
    // Every run shares the seed and the rates, hence one arrival stream: the eleven distinct
    // layouts the lesson prints (its 15 calls repeat four) run together on it.
    let layouts = [Split::Shared, Split::Partitioned(LESSON_SPLIT)];
    let modes = [Mode::Healthy, Mode::Slowdown];
    let run = |split, mode| bulkhead::Params {
        split,
        mode,
        ..p.clone()
    };
    let mut batch: [bulkhead::Params; 11] = core::array::from_fn(|_| p.clone());
    for (i, split) in TABLE_SPLITS.iter().enumerate() {
        batch[2 * i] = run(*split, Mode::Healthy);
        batch[2 * i + 1] = run(*split, Mode::Slowdown);
    }
    batch[10] = run(Split::Partitioned(SENSITIVITY_SPLIT), Mode::Healthy);
    let results = bulkhead::run_many_with(&batch, &mut ParkMiller::new(p.seed), observer)?;
    let find = |split: Split, mode: Mode| {
        batch
            .iter()
            .zip(results.iter())
            .find(|(q, _)| q.split == split && q.mode == mode)
            .map_or(bulkhead::Metrics::default(), |(_, m)| *m)
    };
    let mut r = [[bulkhead::Metrics::default(); 2]; 2];
    for (row, split) in r.iter_mut().zip(layouts) {
        for (cell, mode) in row.iter_mut().zip(modes) {
            let k = find(split, mode);
            *cell = k;
            match split {
                Split::Shared => pad_end(out, 22, format_args!("tek havuz ({total})"))?,
                Split::Partitioned(s) => {
                    pad_end(out, 22, format_args!("bolmeli ({s}/{})", total - s))?
                }
            }
            let day = if mode == Mode::Healthy {
                "saglikli"
            } else {
                "yavaslama"
            };
            write!(
                out,
                "{day:<12}{:>13}{:>13}{:>13}{:>13}{:>13}",
                k.tracking_served,
                k.tracking_dropped,
                k.event_served,
                k.event_dropped,
                k.idle_slots
            )?;
            writeln!(out, "{:>20}", Fixed(k.busy_slot_rounds as f64 / horizon, 2))?;
        }
    }
    let [[ts, ty], [bs, by]] = r;
    let mean_busy = |m: &bulkhead::Metrics| m.busy_slot_rounds as f64 / horizon;
    let outage_scale = (OUTAGE_SECONDS * rps) / (horizon - f64::from(p.failure_start));
    writeln!(
        out,
        "\narizasiz gunun bedeli: takip dusen {} -> {}, olay dusen {} -> {}; ortalama dolu yuva \
         {} -> {} (doluluk {} -> {}); atil yuva {} -> {}",
        ts.tracking_dropped,
        bs.tracking_dropped,
        ts.event_dropped,
        bs.event_dropped,
        Fixed(mean_busy(&ts), 2),
        Fixed(mean_busy(&bs), 2),
        Fixed(mean_busy(&ts) / f64::from(total), 3),
        Fixed(mean_busy(&bs) / f64::from(total), 3),
        ts.idle_slots,
        bs.idle_slots
    )?;
    let saved = ty.tracking_dropped as f64 - by.tracking_dropped as f64;
    writeln!(
        out,
        "arizali gunun kazanci: takip dusen {} -> {} (%{} az), olay dusen {} -> {}; AY3'un 10 \
         dakikasinda kurtarilan takip istegi {}",
        ty.tracking_dropped,
        by.tracking_dropped,
        Fixed((100.0 * saved) / ty.tracking_dropped as f64, 1),
        ty.event_dropped,
        by.event_dropped,
        Fixed(saved * outage_scale, 0)
    )?;
    writeln!(
        out,
        "\n{:<20}{:>21}{:>20}{:>24}{:>23}",
        "takip/olay yuvasi",
        "arizasiz takip dusen",
        "arizasiz olay dusen",
        "yavaslamada takip dusen",
        "yavaslamada olay dusen"
    )?;
    for split in TABLE_SPLITS {
        let s = find(split, Mode::Healthy);
        let y = find(split, Mode::Slowdown);
        match split {
            Split::Shared => pad_end(out, 20, format_args!("tek havuz ({total})"))?,
            Split::Partitioned(k) => pad_end(out, 20, format_args!("{k}/{}", total - k))?,
        }
        writeln!(
            out,
            "{:>21}{:>20}{:>24}{:>23}",
            s.tracking_dropped, s.event_dropped, y.tracking_dropped, y.event_dropped
        )?;
    }
    let alt = find(Split::Partitioned(SENSITIVITY_SPLIT), Mode::Healthy);
    let event_load = (p.event_rate / rps) * f64::from(p.event_hold);
    writeln!(
        out,
        "duyarlilik: {LESSON_SPLIT}/{} yerine {SENSITIVITY_SPLIT}/{} olsaydi arizasiz gunde \
         takip dusen {} -> {}, olay dusen {} -> {}; olay bolmesi {} dolulukta calisirken {} \
         yuvada {} olur",
        total - LESSON_SPLIT,
        total - SENSITIVITY_SPLIT,
        bs.tracking_dropped,
        alt.tracking_dropped,
        bs.event_dropped,
        alt.event_dropped,
        Fixed(event_load / f64::from(total - LESSON_SPLIT), 3),
        total - SENSITIVITY_SPLIT,
        Fixed(event_load / f64::from(total - SENSITIVITY_SPLIT), 3)
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_demand_table_covers_the_lesson() {
        assert_eq!(
            crate::autoscale::Params::default().rounds as usize,
            super::LESSON_ROUNDS
        );
    }
}
