//! The competing-consumers lesson: a run per store size S and consumer count N, on the main
//! engine's [`Workspace`] or the small-memory engine's ([`ConsumersSpace`]), and the S × N
//! tables it prints.

use super::lang::Lang;
use crate::consumers::{windowed, Workspace};
use crate::jsfmt::{Fixed, Num};
use crate::{consumers, Capacity, Error, Observer};
use core::fmt::{self, Write};

/// The shipments in the consumers lesson's workload.
pub const LESSON_SHIPMENTS: usize = 5000;

/// The events in the consumers lesson's workload (5000 shipments × 7): a workspace sorting
/// this many whole generates the queue fastest (see [`crate::consumers::Workspace`]).
pub const LESSON_EVENTS: usize = LESSON_SHIPMENTS * 7;

/// The consumers lesson's configurations (N × S): a workspace with this many lanes renders
/// the lesson in one pass over its queue.
pub const LESSON_CONFIGURATIONS: usize = STORE_SLOTS.len() * CONSUMER_COUNTS.len();

// ---------------------------------------------------------------- competing consumers

/// The consumers lesson's store slots (S): one table each.
pub const STORE_SLOTS: [u32; 2] = [2, 4];
/// The consumers lesson's consumer counts (N): one row of each table.
pub const CONSUMER_COUNTS: [u32; 6] = [1, 2, 3, 4, 6, 8];

/// What the consumers lesson prints: a run per configuration, by S then N.
#[derive(Default)]
pub(super) struct ConsumersResults {
    tables: [[consumers::Metrics; CONSUMER_COUNTS.len()]; STORE_SLOTS.len()],
}

/// Storage for the consumers lesson's runs, and the engine that uses it.
pub trait ConsumersSpace {
    /// Runs `configs` (configurations of one workload, the lesson's) into `out`, in order,
    /// reporting to `observer` as the engine's `run_with` (or batch) does.
    fn run_configs<O: Observer<consumers::RoundState>>(
        &mut self,
        configs: &[consumers::Params],
        observer: &mut O,
        out: &mut [consumers::Metrics],
    ) -> Result<(), Error>;
}

impl<const N: usize, const F: usize, const R: usize, const Q: usize> ConsumersSpace
    for Workspace<N, F, R, Q>
{
    fn run_configs<O: Observer<consumers::RoundState>>(
        &mut self,
        configs: &[consumers::Params],
        observer: &mut O,
        out: &mut [consumers::Metrics],
    ) -> Result<(), Error> {
        let Some(base) = configs.first() else {
            return Ok(());
        };
        if N < base.shipments as usize {
            return Err(Error::CapacityExceeded {
                capacity: Capacity::WorkspaceShipments,
                limit: N as u32,
            });
        }
        // The configurations share one workload: with R lanes, each pass over the queue runs
        // R of them (all of them on a host).
        let lanes = R.max(1);
        for (params, out) in configs.chunks(lanes).zip(out.chunks_mut(lanes)) {
            let draws = consumers::LessonDraws::new(base);
            consumers::run_batch_with(params, draws, self, observer, out)?;
        }
        Ok(())
    }
}

impl<const W: usize, const B: usize> ConsumersSpace for windowed::Workspace<W, B> {
    fn run_configs<O: Observer<consumers::RoundState>>(
        &mut self,
        configs: &[consumers::Params],
        observer: &mut O,
        out: &mut [consumers::Metrics],
    ) -> Result<(), Error> {
        for (p, m) in configs.iter().zip(out.iter_mut()) {
            *m = windowed::run_with(p, windowed::LessonKeys::new(p), self, observer)?;
        }
        Ok(())
    }
}

/// The small-memory engine ([`consumers::windowed`]) with its workspace for the lesson's
/// shipments (625 bytes of bits and a window of [`ON_STACK_WINDOW`] events, 6 KB) on the
/// stack while the consumers lesson runs: it adds nothing to static RAM, and no more to the
/// peak stack than the other lessons take (about 9.8 KB on a Cortex-M0, the group lessons
/// 10 KB).
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowedOnStack;

/// [`WindowedOnStack`]'s window: twice the default halves the passes over the shipments
/// (the consumers lesson takes 959 million instructions on a Cortex-M3 where 256 took 1,137).
pub const ON_STACK_WINDOW: usize = 512;

type LessonWindow = windowed::Workspace<{ windowed::words_for(LESSON_SHIPMENTS) }, ON_STACK_WINDOW>;

impl ConsumersSpace for WindowedOnStack {
    fn run_configs<O: Observer<consumers::RoundState>>(
        &mut self,
        configs: &[consumers::Params],
        observer: &mut O,
        out: &mut [consumers::Metrics],
    ) -> Result<(), Error> {
        let mut ws = LessonWindow::new();
        ws.run_configs(configs, observer, out)
    }
}

#[inline(never)]
pub(super) fn consumers_results<O: Observer<consumers::RoundState>, S: ConsumersSpace + ?Sized>(
    ws: &mut S,
    observer: &mut O,
    results: &mut ConsumersResults,
) -> Result<(), Error> {
    let base = consumers::Params::default();
    // Configurations that run alike run once (see `consumers::LaneKey`): ten runs for the
    // twelve rows, also where a small board runs them one at a time. Only the distinct ones
    // are kept (a board's stack holds one parameter set per run).
    let grid = STORE_SLOTS
        .iter()
        .flat_map(|&slots| CONSUMER_COUNTS.iter().map(move |&n| (slots, n)));
    let mut unique: [consumers::Params; LESSON_CONFIGURATIONS] =
        core::array::from_fn(|_| base.clone());
    let mut count = 0;
    let mut source = [0u8; LESSON_CONFIGURATIONS];
    for ((slots, consumers), from) in grid.zip(source.iter_mut()) {
        let key = consumers::LaneKey::of(consumers, slots);
        *from = match unique[..count].iter().position(|u| u.lane_key() == key) {
            Some(j) => j as u8,
            None => {
                if let Some(slot) = unique.get_mut(count) {
                    (slot.slots, slot.consumers) = (slots, consumers);
                }
                count += 1;
                (count - 1) as u8
            }
        };
    }
    // The distinct runs' metrics go to the first cells, then each cell takes its run's, from
    // the last cell back: a cell's run is never after it, so no run is overwritten first.
    let cells = results.tables.as_flattened_mut();
    ws.run_configs(&unique[..count], observer, &mut cells[..count])?;
    for (i, &from) in source.iter().enumerate().rev() {
        if let Some(&m) = cells.get(usize::from(from)) {
            cells[i] = m;
        }
    }
    Ok(())
}

#[inline(never)]
pub(super) fn write_consumers<W: Write>(
    out: &mut W,
    results: &ConsumersResults,
    lang: Lang,
) -> fmt::Result {
    /// K01: peak write requests per second.
    const PEAK: f64 = 97.22;
    /// Lesson 01's processing capacity (half the peak).
    const PROCESSING: f64 = 48.61;
    let base = consumers::Params::default();
    say!(
        out,
        lang,
        "is yuku: {} gonderi x {} olay (V4) = {} olay\n",
        "workload: {} shipments x {} events (V4) = {} events\n",
        base.shipments,
        base.events_per_shipment,
        base.events()
    )?;
    out.write_str(lang.pick(
        "depo yuvasi S: turda en fazla S olay uygulanir (model parametresi)\n\n",
        "store slots S: at most S events are applied a round (a model parameter)\n\n",
    ))?;
    let [n_w, drain_w, speedup_w, gain_w, throughput_w, reordered_w, wrong_w] =
        lang.pick([3, 12, 8, 22, 15, 14, 17], [3, 12, 8, 13, 12, 9, 17]);
    for (table, &slots) in results.tables.iter().zip(STORE_SLOTS.iter()) {
        writeln!(out, "S = {slots}")?;
        out.write_str(lang.pick(
            "  N  bosalma turu  hizlanma  ek tuketicinin katkisi  verim(olay/tur)  \
             sirasi bozulan  yanlis son durum\n",
            "  N  drain rounds   speedup  marginal gain  events/round  \
             reordered  wrong final state\n",
        ))?;
        // Speedups are against N = 1, the first row (the lesson's `taban`).
        let [single, ..] = table;
        let single = single.rounds as f64;
        let mut previous: Option<(f64, u32)> = None;
        for (m, &n) in table.iter().zip(CONSUMER_COUNTS.iter()) {
            let speedup = single / m.rounds as f64;
            write!(
                out,
                "{n:>n_w$}  {:>drain_w$}  {:>speedup_w$}  ",
                m.rounds,
                Fixed(speedup, 2)
            )?;
            match previous {
                None => write!(out, "{:>gain_w$}", "-")?,
                Some((h, pn)) => write!(
                    out,
                    "{:>gain_w$}",
                    Fixed((speedup - h) / f64::from(n - pn), 3)
                )?,
            }
            writeln!(
                out,
                "  {:>throughput_w$}  {:>reordered_w$}  {:>wrong_w$}",
                Fixed(m.throughput, 3),
                m.reordered_shipments,
                m.wrong_final_state
            )?;
            previous = Some((speedup, n));
        }
        writeln!(out)?;
    }
    // The first table (fewest slots): its single consumer, and its two largest counts.
    let [first_slots, ..] = STORE_SLOTS;
    let [first_table, ..] = &results.tables;
    let [single, ..] = first_table;
    let [.., a, b] = first_table;
    let [.., n_a, n_b] = CONSUMER_COUNTS;
    say!(
        out,
        lang,
        "K01 donusu: tepe yazma {} olay/s, 01. dersin isleme kapasitesi {} olay/s\n",
        "back to K01: peak writes {} events/s, lesson 01's processing capacity {} events/s\n",
        Num(PEAK),
        Num(PROCESSING)
    )?;
    for slots in STORE_SLOTS {
        let ceiling = f64::from(slots) / single.throughput;
        say!(
            out,
            lang,
            "  S = {}: asimptotik tavan {} tuketici -> tek tuketici en az {} olay/s \
             (kuyruklu) / {} olay/s (eszamanli)\n",
            "  S = {}: asymptotic ceiling {} consumers -> one consumer needs at least {} events/s \
             (queued) / {} events/s (synchronous)\n",
            slots,
            Fixed(ceiling, 2),
            Fixed(PROCESSING / ceiling, 2),
            Fixed(PEAK / ceiling, 2)
        )?;
    }
    say!(
        out,
        lang,
        "  S = {}, N {} -> {}: bosalma {}%, sirasi bozulan +{}%, yanlis son \
         durum {} -> {}\n",
        "  S = {}, N {} -> {}: drain {}%, reordered +{}%, wrong final \
         state {} -> {}\n",
        first_slots,
        n_a,
        n_b,
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
