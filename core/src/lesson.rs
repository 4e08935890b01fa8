//! The five lesson outputs, byte for byte, written into any [`core::fmt::Write`].
//!
//! Each renderer runs the lesson's sweep with the lesson's parameters and prints what the
//! lesson program prints, so the firmware and the CLI show the same bytes. The only storage
//! needed is the consumers lesson's ([`ConsumersSpace`]): the main engine's [`Workspace`] (at
//! least [`LESSON_SHIPMENTS`] shipments; with a smaller one the consumers lesson returns a
//! capacity error and the others still render), or the small-memory engine's
//! ([`consumers::windowed`], through [`render_with`]: [`WindowedOnStack`] puts its 6.8 KB on
//! the consumers lesson's stack, so a 16 KiB board runs the whole suite).
//! The bulkhead lesson's [`bulkhead::Workspace`] (eleven layouts, 6.6 KB) is on the stack
//! while it runs.
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

use crate::bulkhead::{Mode, Split};
use crate::consumers::{self, windowed, Workspace};
use crate::jsfmt::{pad_end, round, Fixed, Num};
use crate::rng::{GroupLcg, GroupStream, ParkMiller, UnitRng};
use crate::{autoscale, bulkhead, Capacity, Error, Observer};

/// The shipments in the consumers lesson's workload.
pub const LESSON_SHIPMENTS: usize = 5000;

/// The events in the consumers lesson's workload (5000 shipments × 7): a workspace sorting
/// this many whole generates the queue fastest (see [`consumers::Workspace`]).
pub const LESSON_EVENTS: usize = LESSON_SHIPMENTS * 7;

/// The consumers lesson's configurations (N × S): a workspace with this many lanes renders
/// the lesson in one pass over its queue.
pub const LESSON_CONFIGURATIONS: usize = STORE_SLOTS.len() * CONSUMER_COUNTS.len();

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

/// The language a lesson is written in: the lessons' own Turkish (the default, byte for
/// byte the lesson programs' output), or English.
///
/// Both languages print the same numbers in the same order: every sentence is one
/// `say!` call whose arguments are shared by its two format strings (the compiler
/// rejects a format string that leaves an argument out or asks for one more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Lang {
    /// Turkish, as the lessons print it (unaccented, as the lesson programs write it).
    #[default]
    Tr,
    /// English: a translation of every header, label and sentence.
    En,
}

impl Lang {
    /// Both languages, the default first.
    pub const ALL: [Lang; 2] = [Lang::Tr, Lang::En];

    /// Returns the language's code on the command line (`tr`, `en`).
    pub const fn name(self) -> &'static str {
        match self {
            Lang::Tr => "tr",
            Lang::En => "en",
        }
    }

    /// Returns the language whose code is `name`, if any.
    pub fn from_name(name: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Returns `tr` in Turkish and `en` in English.
    const fn pick<T: Copy>(self, tr: T, en: T) -> T {
        match self {
            Lang::Tr => tr,
            Lang::En => en,
        }
    }
}

/// Writes one sentence in `lang`: `write!` with the Turkish or the English format string
/// and the same arguments, so both languages print the same numbers in the same order.
macro_rules! say {
    ($out:expr, $lang:expr, $tr:literal, $en:literal $(, $arg:expr)* $(,)?) => {
        match $lang {
            Lang::Tr => write!($out, $tr $(, $arg)*),
            Lang::En => write!($out, $en $(, $arg)*),
        }
    };
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

/// Writes one lesson's output, in Turkish as the lesson prints it ([`render_in`] chooses
/// the language).
///
/// The group lessons' runs share one generator stream here, cached on the stack
/// ([`GROUP_STREAM_DRAWS`] draws, 4 bytes each); [`render_observed`] recomputes it for each
/// run instead, for a board's small stack.
pub fn render<W: Write, const N: usize, const F: usize, const R: usize, const Q: usize>(
    lesson: Lesson,
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<(), LessonError> {
    render_in(lesson, Lang::Tr, out, ws)
}

/// [`render`] in `lang`: the same runs, the same numbers in the same places.
pub fn render_in<W: Write, const N: usize, const F: usize, const R: usize, const Q: usize>(
    lesson: Lesson,
    lang: Lang,
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<(), LessonError> {
    match lesson {
        Lesson::Group => {
            compute_then_write(out, group_results_shared, |o, r| write_group(o, r, lang))
        }
        Lesson::GroupSweep => compute_then_write(
            out,
            |r| pair_runs_shared(&SWEEP_PAIRS, r),
            |o, r| write_sweep(o, r, lang),
        ),
        Lesson::GroupLedger => compute_then_write(
            out,
            |r| pair_runs_shared(&LEDGER_PAIRS, r),
            |o, r| write_ledger(o, r, lang),
        ),
        _ => render_with_in(lesson, lang, out, ws, &mut ()),
    }
}

/// Writes all five lesson outputs, in [`Lesson::ALL`] order.
pub fn render_all<W: Write, const N: usize, const F: usize, const R: usize, const Q: usize>(
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<(), LessonError> {
    render_all_in(Lang::Tr, out, ws)
}

/// [`render_all`] in `lang`.
pub fn render_all_in<W: Write, const N: usize, const F: usize, const R: usize, const Q: usize>(
    lang: Lang,
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
) -> Result<(), LessonError> {
    for lesson in Lesson::ALL {
        render_in(lesson, lang, out, ws)?;
    }
    Ok(())
}

/// Writes one lesson's output, calling `observer` after every simulated round.
pub fn render_observed<
    W: Write,
    O: Observer,
    const N: usize,
    const F: usize,
    const R: usize,
    const Q: usize,
>(
    lesson: Lesson,
    out: &mut W,
    ws: &mut Workspace<N, F, R, Q>,
    observer: &mut O,
) -> Result<(), LessonError> {
    render_with(lesson, out, ws, observer)
}

/// [`render_observed`] with the consumers lesson run in `space`: either engine's workspace,
/// or [`WindowedOnStack`]. The output is the same bytes whichever runs it.
pub fn render_with<W: Write, O: Observer, S: ConsumersSpace + ?Sized>(
    lesson: Lesson,
    out: &mut W,
    ws: &mut S,
    observer: &mut O,
) -> Result<(), LessonError> {
    render_with_in(lesson, Lang::Tr, out, ws, observer)
}

/// [`render_with`] in `lang`.
pub fn render_with_in<W: Write, O: Observer, S: ConsumersSpace + ?Sized>(
    lesson: Lesson,
    lang: Lang,
    out: &mut W,
    ws: &mut S,
    observer: &mut O,
) -> Result<(), LessonError> {
    match lesson {
        Lesson::Group => compute_then_write(
            out,
            |r| group_results(observer, r),
            |o, r| write_group(o, r, lang),
        ),
        Lesson::GroupSweep => compute_then_write(
            out,
            |r| pair_runs(&SWEEP_PAIRS, observer, r),
            |o, r| write_sweep(o, r, lang),
        ),
        Lesson::GroupLedger => compute_then_write(
            out,
            |r| pair_runs(&LEDGER_PAIRS, observer, r),
            |o, r| write_ledger(o, r, lang),
        ),
        Lesson::Consumers => compute_then_write(
            out,
            |r| consumers_results(ws, observer, r),
            |o, r| write_consumers(o, r, lang),
        ),
        Lesson::Bulkhead => compute_then_write(
            out,
            |r| bulkhead_results(observer, r),
            |o, r| write_bulkhead(o, r, lang),
        ),
    }
}

/// Computes a lesson's results in place, then writes them. Each lesson gets its own copy,
/// kept out of line so that one lesson's results never add to another's peak stack; the
/// computing and writing halves are out of line too, so their frames never coexist.
#[inline(never)]
fn compute_then_write<W: Write, T: Default>(
    out: &mut W,
    compute: impl FnOnce(&mut T) -> Result<(), Error>,
    write: impl FnOnce(&mut W, &T) -> fmt::Result,
) -> Result<(), LessonError> {
    let mut results = T::default();
    compute(&mut results)?;
    write(out, &results)?;
    Ok(())
}

// ---------------------------------------------------------------- auto-scaling group
//
// Each lesson is a results type, a function that computes it and one that writes it.

/// Rounds per hour in the lesson's story (one round is one minute).
const ROUNDS_PER_HOUR: f64 = 60.0;

/// Hours in the ledger's day.
const HOURS_PER_DAY: f64 = 24.0;

/// Draws of the group lessons' stream that [`render`] caches: the lesson's runs draw at
/// most 2,659 (12 KiB of stack).
pub const GROUP_STREAM_DRAWS: usize = 3072;

/// Returns the group lessons' shared stream, of the lesson's seed, nothing computed yet.
fn lesson_stream() -> GroupStream<[u32; GROUP_STREAM_DRAWS]> {
    GroupStream::new(
        autoscale::Params::default().seed,
        [0u32; GROUP_STREAM_DRAWS],
    )
}

/// The lesson's rounds: its demand curve is tabulated once per lesson.
const LESSON_ROUNDS: usize = 240;

/// A health-check threshold and a scaling cooldown: what the auto-scaling lessons vary.
#[derive(Clone, Copy, Debug, Default)]
struct Pair {
    threshold: u32,
    cooldown: u32,
}

impl Pair {
    const fn new(threshold: u32, cooldown: u32) -> Self {
        Self {
            threshold,
            cooldown,
        }
    }
}

/// A pair as the lessons name it, in a language.
struct Named(Pair, Lang);

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Named(pair, lang) = self;
        say!(
            f,
            lang,
            "esik {}, soguma {}",
            "threshold {}, cooldown {}",
            pair.threshold,
            pair.cooldown
        )
    }
}

/// One pair's run of the lesson's group.
#[derive(Clone, Copy, Debug, Default)]
struct PairRun {
    pair: Pair,
    metrics: autoscale::Metrics,
}

/// `demand(t)` for the lesson's rounds: every run of a lesson shares the demand curve.
struct DemandTable([f64; LESSON_ROUNDS]);

impl DemandTable {
    fn new() -> Self {
        let p = autoscale::Params::default();
        Self(core::array::from_fn(|t| p.demand(t as u32)))
    }

    /// [`DemandTable::new`], with `stream` computing its first draws between the rounds'
    /// `sin` calls: the generator's dependent chain overlaps them.
    fn new_producing<S: AsRef<[u32]> + AsMut<[u32]>>(stream: &mut GroupStream<S>) -> Self {
        let p = autoscale::Params::default();
        Self(core::array::from_fn(|t| {
            stream.produce(4);
            p.demand(t as u32)
        }))
    }

    /// Runs the lesson's group with `pair`, every other parameter the lesson's.
    fn run<R: UnitRng, O: Observer>(
        &self,
        pair: Pair,
        rng: &mut R,
        observer: &mut O,
    ) -> Result<PairRun, Error> {
        let params = autoscale::Params {
            threshold: pair.threshold,
            cooldown: pair.cooldown,
            ..autoscale::Params::default()
        };
        let demand = |t: u32| match self.0.get(t as usize) {
            Some(&d) => d,
            None => params.demand(t),
        };
        let metrics = autoscale::simulate(&params, demand, rng, observer)?;
        Ok(PairRun { pair, metrics })
    }

    /// Runs every pair into `runs`, each from the start of one shared stream of the
    /// lesson's seed (in lockstep: see [`autoscale::run_sweep`]).
    fn run_pairs_shared<const P: usize>(
        &self,
        pairs: &[Pair; P],
        runs: &mut [PairRun; P],
        stream: &mut GroupStream<[u32; GROUP_STREAM_DRAWS]>,
    ) -> Result<(), Error> {
        let lesson = autoscale::Params::default();
        let params = pairs.map(|pair| autoscale::Params {
            threshold: pair.threshold,
            cooldown: pair.cooldown,
            ..lesson.clone()
        });
        let demand = |t: u32| match self.0.get(t as usize) {
            Some(&d) => d,
            None => lesson.demand(t),
        };
        let results = autoscale::run_sweep(&params, demand, stream);
        for ((run, &pair), result) in runs.iter_mut().zip(pairs).zip(results) {
            *run = PairRun {
                pair,
                metrics: result?,
            };
        }
        Ok(())
    }

    /// Runs every pair, in order, into `runs`.
    fn run_pairs<O: Observer>(
        &self,
        pairs: &[Pair],
        observer: &mut O,
        runs: &mut [PairRun],
    ) -> Result<(), Error> {
        for (run, &pair) in runs.iter_mut().zip(pairs) {
            let mut rng = GroupLcg::new(autoscale::Params::default().seed);
            *run = self.run(pair, &mut rng, observer)?;
        }
        Ok(())
    }

    /// Returns the fewest and the most instances the lesson's demand requires.
    fn required_range(&self) -> (f64, f64) {
        let p = autoscale::Params::default();
        self.0
            .iter()
            .map(|&d| p.required_for(d))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), g| {
                (lo.min(g), hi.max(g))
            })
    }
}

/// Writes a run's under-capacity rounds out of all its rounds, padded to `width`.
fn under_capacity<W: Write>(
    out: &mut W,
    width: usize,
    m: &autoscale::Metrics,
    rounds: u32,
) -> fmt::Result {
    pad_end(
        out,
        width,
        format_args!("{}/{}", m.under_capacity_rounds, rounds),
    )
}

/// The group lesson's pairs: one that churns, one that holds still.
const GROUP_PAIRS: [Pair; 2] = [Pair::new(2, 0), Pair::new(5, 8)];

/// What the group lesson prints.
#[derive(Default)]
struct GroupResults {
    required_min: f64,
    required_max: f64,
    runs: [PairRun; GROUP_PAIRS.len()],
}

#[inline(never)]
fn group_results<O: Observer>(observer: &mut O, results: &mut GroupResults) -> Result<(), Error> {
    let demand = DemandTable::new();
    demand.run_pairs(&GROUP_PAIRS, observer, &mut results.runs)?;
    (results.required_min, results.required_max) = demand.required_range();
    Ok(())
}

/// [`group_results`] without an observer, the runs sharing one stream.
#[inline(never)]
fn group_results_shared(results: &mut GroupResults) -> Result<(), Error> {
    let mut stream = lesson_stream();
    let demand = DemandTable::new_producing(&mut stream);
    demand.run_pairs_shared(&GROUP_PAIRS, &mut results.runs, &mut stream)?;
    (results.required_min, results.required_max) = demand.required_range();
    Ok(())
}

#[inline(never)]
fn write_group<W: Write>(out: &mut W, results: &GroupResults, lang: Lang) -> fmt::Result {
    let p = autoscale::Params::default();
    say!(
        out,
        lang,
        "{} tur, ornek basina {} istek, acilis {} tur; tohum {}\n",
        "{} rounds, {} requests per instance, boot {} rounds; seed {}\n",
        p.rounds,
        Num(p.capacity),
        p.boot_rounds,
        p.seed
    )?;
    say!(
        out,
        lang,
        "gerekli ornek {} ile {} arasinda degisiyor\n\n",
        "required instances vary between {} and {}\n\n",
        Num(results.required_min),
        Num(results.required_max)
    )?;
    say!(
        out,
        lang,
        "{:<22}{:<15}{:<13}{:<20}{:<19}baslatilan ornek\n",
        "{:<26}{:<15}{:<8}{:<19}{:<23}instances launched\n",
        lang.pick("cift", "pair"),
        lang.pick("grup min-max", "group min-max"),
        lang.pick("dalgalanma", "swing"),
        lang.pick("es zamanli degisim", "changing at once"),
        lang.pick("kapasite alti tur", "under-capacity rounds"),
    )?;
    let [pair_w, range_w, swing_w, once_w, under_w] =
        lang.pick([22, 15, 13, 20, 19], [26, 15, 8, 19, 23]);
    for PairRun { pair, metrics: m } in &results.runs {
        pad_end(out, pair_w, format_args!("{}", Named(*pair, lang)))?;
        pad_end(out, range_w, format_args!("{}-{}", m.min_size, m.max_size))?;
        // The lesson's spread, signed as in JavaScript (min starts at 99, so a group that
        // stays above 99 would make it negative; not with the lesson's constants).
        write!(
            out,
            "{:<swing_w$}",
            i64::from(m.max_size) - i64::from(m.min_size)
        )?;
        let pct = round(100.0 * m.max_launching_ratio);
        match lang {
            Lang::Tr => pad_end(
                out,
                once_w,
                format_args!("{} (%{})", m.max_launching, Num(pct)),
            )?,
            Lang::En => pad_end(
                out,
                once_w,
                format_args!("{} ({}%)", m.max_launching, Num(pct)),
            )?,
        }
        under_capacity(out, under_w, m, p.rounds)?;
        writeln!(out, "{}", m.launched)?;
    }
    for PairRun { pair, metrics: m } in &results.runs {
        say!(
            out,
            lang,
            "{}: {} saglik degistirmesi ({} yanlis), {} olcekleme eylemi, \
             bozuk ornek {} tur trafikte kaldi\n",
            "{}: {} health replacements ({} false), {} scaling actions, \
             a broken instance stayed in traffic {} rounds\n",
            Named(*pair, lang),
            m.replacements,
            m.false_replacements,
            m.scaling_actions,
            m.broken_rounds
        )?;
    }
    Ok(())
}

/// Runs the lesson's group with each of `pairs`, on one demand table, into `runs`.
#[inline(never)]
fn pair_runs<O: Observer, const P: usize>(
    pairs: &[Pair; P],
    observer: &mut O,
    runs: &mut [PairRun; P],
) -> Result<(), Error> {
    DemandTable::new().run_pairs(pairs, observer, runs)
}

/// [`pair_runs`] without an observer, the runs sharing one stream.
#[inline(never)]
fn pair_runs_shared<const P: usize>(
    pairs: &[Pair; P],
    runs: &mut [PairRun; P],
) -> Result<(), Error> {
    let mut stream = lesson_stream();
    DemandTable::new_producing(&mut stream).run_pairs_shared(pairs, runs, &mut stream)
}

/// The sweep's thresholds (outer) and cooldowns (inner).
const SWEEP_THRESHOLDS: [u32; 3] = [2, 3, 5];
const SWEEP_COOLDOWNS: [u32; 3] = [0, 3, 8];
/// Every threshold with every cooldown, in table order.
const SWEEP_PAIRS: [Pair; SWEEP_THRESHOLDS.len() * SWEEP_COOLDOWNS.len()] = {
    let mut pairs = [Pair::new(0, 0); SWEEP_THRESHOLDS.len() * SWEEP_COOLDOWNS.len()];
    let mut i = 0;
    while i < pairs.len() {
        let (t, c) = (i / SWEEP_COOLDOWNS.len(), i % SWEEP_COOLDOWNS.len());
        pairs[i] = Pair::new(SWEEP_THRESHOLDS[t], SWEEP_COOLDOWNS[c]);
        i += 1;
    }
    pairs
};

/// Returns the sweep's run no other beats by `better(candidate, best)`; the first of equals,
/// as the lesson's `reduce` keeps it.
fn best(
    runs: &[PairRun; SWEEP_PAIRS.len()],
    better: impl Fn(&autoscale::Metrics, &autoscale::Metrics) -> bool,
) -> PairRun {
    let [first, rest @ ..] = runs;
    rest.iter().fold(*first, |best, candidate| {
        if better(&candidate.metrics, &best.metrics) {
            *candidate
        } else {
            best
        }
    })
}

/// Writes the sweep lesson from one run per [`SWEEP_PAIRS`] pair.
#[inline(never)]
fn write_sweep<W: Write>(
    out: &mut W,
    runs: &[PairRun; SWEEP_PAIRS.len()],
    lang: Lang,
) -> fmt::Result {
    let rounds = autoscale::Params::default().rounds;
    let hours = f64::from(rounds) / ROUNDS_PER_HOUR;
    let per_hour = |m: &autoscale::Metrics| Fixed(f64::from(m.launched) / hours, 1);
    say!(
        out,
        lang,
        "{} tur = {} saat; her satir ayni talep egrisi ve ayni tohumla kosuldu\n\n",
        "{} rounds = {} hours; every row ran with the same demand curve and the same seed\n\n",
        rounds,
        Num(hours)
    )?;
    say!(
        out,
        lang,
        "{:<7}{:<9}{:<15}{:<13}{:<13}{:<16}{:<17}{:<12}saatte baslatilan\n",
        "{:<11}{:<10}{:<15}{:<7}{:<9}{:<16}{:<20}{:<15}launched per hour\n",
        lang.pick("esik", "threshold"),
        lang.pick("soguma", "cooldown"),
        lang.pick("grup min-max", "group min-max"),
        lang.pick("dalgalanma", "swing"),
        lang.pick("es zamanli", "at once"),
        lang.pick("kapasite alti", "under capacity"),
        lang.pick("yanlis degisim", "false replacements"),
        lang.pick("bozuk tur", "broken rounds"),
    )?;
    let [threshold_w, cooldown_w, range_w, swing_w, once_w, under_w, false_w, broken_w] = lang
        .pick(
            [7, 9, 15, 13, 13, 16, 17, 12],
            [11, 10, 15, 7, 9, 16, 20, 15],
        );
    for PairRun { pair, metrics: m } in runs {
        // One write a row: the table's cells are ASCII numbers, padded by bytes.
        let mut row = Row::new();
        row.int(pair.threshold.into(), threshold_w)?;
        row.int(pair.cooldown.into(), cooldown_w)?;
        let start = row.len;
        row.int(m.min_size.into(), 0)?;
        row.bytes(b"-")?;
        row.int(m.max_size.into(), 0)?;
        row.pad(start + range_w)?;
        row.int(i64::from(m.max_size) - i64::from(m.min_size), swing_w)?;
        row.int(m.max_launching.into(), once_w)?;
        let start = row.len;
        row.int(m.under_capacity_rounds.into(), 0)?;
        row.bytes(b"/")?;
        row.int(rounds.into(), 0)?;
        row.pad(start + under_w)?;
        row.int(m.false_replacements.into(), false_w)?;
        row.int(m.broken_rounds.into(), broken_w)?;
        writeln!(row, "{}", per_hour(m))?;
        out.write_str(row.as_str()?)?;
    }
    let most = best(runs, |b, a| b.launched > a.launched);
    let least = best(runs, |b, a| b.launched < a.launched);
    let longest = best(runs, |b, a| b.broken_rounds > a.broken_rounds);
    say!(
        out,
        lang,
        "\nsurekli degisim ureten cift: {} — saatte {} ornek, {} yanlis degistirme\n",
        "\nthe pair that churns all the time: {} — {} instances an hour, {} false replacements\n",
        Named(most.pair, lang),
        per_hour(&most.metrics),
        most.metrics.false_replacements
    )?;
    say!(
        out,
        lang,
        "en az degisim ureten cift: {} — saatte {} ornek, kapasite alti {} tur\n",
        "the pair that churns least: {} — {} instances an hour, {} rounds under capacity\n",
        Named(least.pair, lang),
        per_hour(&least.metrics),
        least.metrics.under_capacity_rounds
    )?;
    say!(
        out,
        lang,
        "bozuk ornegi en uzun tasiyan cift: {} — {} tur trafikte\n",
        "the pair that keeps a broken instance longest: {} — {} rounds in traffic\n",
        Named(longest.pair, lang),
        longest.metrics.broken_rounds
    )?;
    Ok(())
}

/// A table row built in place, written at once (cheaper than a `write!` a cell). Its cells
/// are ASCII, so padding counts bytes; the buffer starts as spaces, so padding only moves
/// the end (nothing is written past the end and then left behind it).
struct Row {
    buf: [u8; 256],
    len: usize,
}

impl Row {
    fn new() -> Self {
        Self {
            buf: [b' '; 256],
            len: 0,
        }
    }

    /// Appends `v` in decimal, then spaces up to `width` bytes for the cell (`padEnd`).
    fn int(&mut self, v: i64, width: usize) -> fmt::Result {
        let start = self.len;
        if v < 0 {
            self.bytes(b"-")?;
        }
        let mut rest = v.unsigned_abs();
        let mut digits = 1;
        let mut above = rest;
        while above >= 10 {
            above /= 10;
            digits += 1;
        }
        // The digits written in place, last first.
        let end = self.len + digits;
        let cell = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        for digit in cell.iter_mut().rev() {
            *digit = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        self.len = end;
        self.pad(start + width)
    }

    fn bytes(&mut self, b: &[u8]) -> fmt::Result {
        let end = self.len + b.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(b);
        self.len = end;
        Ok(())
    }

    /// Appends spaces up to byte `end` (none if the row is that long already): the bytes
    /// past the end are spaces still.
    fn pad(&mut self, end: usize) -> fmt::Result {
        if end > self.len {
            if end > self.buf.len() {
                return Err(fmt::Error);
            }
            self.len = end;
        }
        Ok(())
    }

    fn as_str(&self) -> Result<&str, fmt::Error> {
        // Only `str`s and ASCII digits went in.
        core::str::from_utf8(&self.buf[..self.len]).map_err(|_| fmt::Error)
    }
}

impl Write for Row {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.bytes(s.as_bytes())
    }
}

/// The ledger's pairs.
const LEDGER_PAIRS: [Pair; 3] = [Pair::new(2, 0), Pair::new(3, 3), Pair::new(5, 3)];

/// Writes the ledger lesson from one run per [`LEDGER_PAIRS`] pair.
#[inline(never)]
fn write_ledger<W: Write>(
    out: &mut W,
    runs: &[PairRun; LEDGER_PAIRS.len()],
    lang: Lang,
) -> fmt::Result {
    /// Cost of one idle instance-hour, in the lesson's permanent capacity units.
    const UNIT: f64 = 1.0;
    /// The ledger's items in the operator's hands (counted, not listed, as the lesson does).
    const IN_HAND: [[&str; 2]; 6] = [
        ["en az ve en cok ornek", "the fewest and the most instances"],
        [
            "olcekleme olcutu ve esikleri",
            "the scaling metric and its thresholds",
        ],
        ["soguma suresi", "the cooldown"],
        [
            "saglik denetimi esigi ve araligi",
            "the health check's threshold and interval",
        ],
        [
            "kucultmede hangi ornegin secilecegi",
            "which instance scale-in removes",
        ],
        [
            "grubun bagli oldugu sablon surumu",
            "the template version the group is bound to",
        ],
    ];
    const WITH_PROVIDER: [[&str; 2]; 3] = [
        [
            "saglik denetimi cagrisinin kendi gecikmesi",
            "the health-check call's own latency",
        ],
        [
            "olcekleme eyleminin uygulanma gecikmesi",
            "the delay before a scaling action is applied",
        ],
        [
            "istenen kapasitenin o an bulunabilirligi",
            "whether the requested capacity is available at that moment",
        ],
    ];
    const IRREVERSIBLE: [[&str; 2]; 3] = [
        [
            "sonlandirilan ornegin elindeki is ve yerel diski",
            "a terminated instance's work in hand and its local disk",
        ],
        [
            "sagliksiz damgasi — ornek geri dondurulmez, degistirilir",
            "the unhealthy mark — the instance is not brought back, it is replaced",
        ],
        [
            "kucultulen kapasite — geri almak yeni acilis ve soguma turu ister",
            "capacity scaled in — taking it back takes a new boot and a cooldown",
        ],
    ];
    let text = |[tr, en]: [&'static str; 2]| lang.pick(tr, en);
    let p = autoscale::Params::default();
    let hours = f64::from(p.rounds) / ROUNDS_PER_HOUR;
    say!(
        out,
        lang,
        "{:<22}{:<18}{:<16}{:<18}{:<16}bozuk tur\n",
        "{:<26}{:<17}{:<20}{:<19}{:<16}broken rounds\n",
        lang.pick("cift", "pair"),
        lang.pick("gunde baslatilan", "launched a day"),
        lang.pick("acilista gecen", "spent booting"),
        lang.pick("gunluk bos birim", "idle units a day"),
        lang.pick("kapasite alti", "under capacity"),
    )?;
    let [pair_w, daily_w, booting_w, units_w, under_w] =
        lang.pick([22, 18, 16, 18, 16], [26, 17, 20, 19, 16]);
    for PairRun { pair, metrics: m } in runs {
        let daily = (f64::from(m.launched) / hours) * HOURS_PER_DAY;
        // Instance-hours spent booting: each launch boots for `boot_rounds` minutes.
        let idle = (daily * f64::from(p.boot_rounds)) / ROUNDS_PER_HOUR;
        pad_end(out, pair_w, format_args!("{}", Named(*pair, lang)))?;
        write!(out, "{:<daily_w$}", Fixed(daily, 0))?;
        match lang {
            Lang::Tr => pad_end(
                out,
                booting_w,
                format_args!("{} ornek-saat", Fixed(idle, 1)),
            )?,
            Lang::En => pad_end(
                out,
                booting_w,
                format_args!("{} instance-hours", Fixed(idle, 1)),
            )?,
        }
        write!(out, "{:<units_w$}", Fixed(idle * UNIT, 1))?;
        under_capacity(out, under_w, m, p.rounds)?;
        writeln!(out, "{}", m.broken_rounds)?;
    }
    say!(
        out,
        lang,
        "\nkarar defteri: {} kalem elde, {} kalem saglayicida\n",
        "\ndecision ledger: {} items in hand, {} items with the provider\n",
        IN_HAND.len(),
        WITH_PROVIDER.len()
    )?;
    out.write_str(lang.pick("  saglayicida: ", "  with the provider: "))?;
    for (i, item) in WITH_PROVIDER.into_iter().enumerate() {
        let sep = if i == 0 { "" } else { "; " };
        write!(out, "{sep}{}", text(item))?;
    }
    writeln!(out)?;
    for item in IRREVERSIBLE {
        say!(
            out,
            lang,
            "  geri alinamaz — {}\n",
            "  irreversible — {}\n",
            text(item)
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------- competing consumers

/// The consumers lesson's store slots (S): one table each.
const STORE_SLOTS: [u32; 2] = [2, 4];
/// The consumers lesson's consumer counts (N): one row of each table.
const CONSUMER_COUNTS: [u32; 6] = [1, 2, 3, 4, 6, 8];

/// What the consumers lesson prints: a run per configuration, by S then N.
#[derive(Default)]
struct ConsumersResults {
    tables: [[consumers::Metrics; CONSUMER_COUNTS.len()]; STORE_SLOTS.len()],
}

/// Storage for the consumers lesson's runs, and the engine that uses it.
pub trait ConsumersSpace {
    /// Runs `configs` (configurations of one workload, the lesson's) into `out`, in order,
    /// reporting to `observer` as the engine's `run_with` (or batch) does.
    fn run_configs<O: Observer>(
        &mut self,
        configs: &[consumers::Params],
        observer: &mut O,
        out: &mut [consumers::Metrics],
    ) -> Result<(), Error>;
}

impl<const N: usize, const F: usize, const R: usize, const Q: usize> ConsumersSpace
    for Workspace<N, F, R, Q>
{
    fn run_configs<O: Observer>(
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
    fn run_configs<O: Observer>(
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
    fn run_configs<O: Observer>(
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
fn consumers_results<O: Observer, S: ConsumersSpace + ?Sized>(
    ws: &mut S,
    observer: &mut O,
    results: &mut ConsumersResults,
) -> Result<(), Error> {
    let base = consumers::Params::default();
    let mut configs: [consumers::Params; LESSON_CONFIGURATIONS] =
        core::array::from_fn(|_| base.clone());
    let grid = STORE_SLOTS
        .iter()
        .flat_map(|&slots| CONSUMER_COUNTS.iter().map(move |&n| (slots, n)));
    for (config, (slots, consumers)) in configs.iter_mut().zip(grid) {
        config.slots = slots;
        config.consumers = consumers;
    }
    // Configurations that run alike run once (see `consumers::LaneKey`): ten runs for the
    // twelve rows, also where a small board runs them one at a time.
    let key = consumers::Params::lane_key;
    let mut unique: [consumers::Params; LESSON_CONFIGURATIONS] =
        core::array::from_fn(|_| base.clone());
    let mut count = 0;
    let mut source = [0usize; LESSON_CONFIGURATIONS];
    for (config, from) in configs.iter().zip(source.iter_mut()) {
        *from = match unique[..count].iter().position(|u| key(u) == key(config)) {
            Some(j) => j,
            None => {
                if let Some(slot) = unique.get_mut(count) {
                    *slot = config.clone();
                }
                count += 1;
                count - 1
            }
        };
    }
    let mut metrics = [consumers::Metrics::default(); LESSON_CONFIGURATIONS];
    ws.run_configs(&unique[..count], observer, &mut metrics[..count])?;
    for (cell, &from) in results.tables.as_flattened_mut().iter_mut().zip(&source) {
        if let Some(&m) = metrics.get(from) {
            *cell = m;
        }
    }
    Ok(())
}

#[inline(never)]
fn write_consumers<W: Write>(out: &mut W, results: &ConsumersResults, lang: Lang) -> fmt::Result {
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

// ---------------------------------------------------------------- bulkhead

/// The lesson's partitioned layout: this many tracking slots, the rest for events.
const LESSON_SPLIT: u32 = 24;
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

/// What the bulkhead lesson prints.
#[derive(Default)]
struct BulkheadResults {
    /// By [`TABLE_SPLITS`].
    table: [Days; TABLE_SPLITS.len()],
    /// [`SENSITIVITY_SPLIT`] on a healthy day.
    sensitivity: bulkhead::Metrics,
}

#[inline(never)]
fn bulkhead_results<O: Observer>(
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
    let mut metrics = [bulkhead::Metrics::default(); BULKHEAD_RUNS];
    let rng = &mut ParkMiller::new(p.seed);
    bulkhead::run_batch_with(&batch, rng, &mut ws, observer, &mut metrics)?;
    for (row, [healthy, slowdown]) in results.table.iter_mut().zip(metrics.as_chunks::<2>().0) {
        *row = Days {
            healthy: *healthy,
            slowdown: *slowdown,
        };
    }
    [.., results.sensitivity] = metrics;
    Ok(())
}

#[inline(never)]
fn write_bulkhead<W: Write>(out: &mut W, results: &BulkheadResults, lang: Lang) -> fmt::Result {
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
    let shared = results.table[SHARED_ROW];
    let split = results.table[LESSON_ROW];
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
    for (split, days) in TABLE_SPLITS.iter().zip(&results.table) {
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
    let alt = results.sensitivity;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_runs_each_threshold_with_each_cooldown() {
        // The lesson's table order: thresholds outer, cooldowns inner.
        let pairs = SWEEP_PAIRS.map(|p| (p.threshold, p.cooldown));
        assert_eq!(
            pairs,
            [
                (2, 0),
                (2, 3),
                (2, 8),
                (3, 0),
                (3, 3),
                (3, 8),
                (5, 0),
                (5, 3),
                (5, 8)
            ]
        );
    }

    #[test]
    fn a_row_pads_its_cells_like_pad_end() {
        let mut row = Row::new();
        row.int(-5, 4).unwrap();
        row.int(0, 0).unwrap();
        // Longer than its cell: no padding, no truncation (as padEnd).
        row.int(1_234_567, 3).unwrap();
        row.int(i64::MIN, 0).unwrap();
        row.bytes(b"|").unwrap();
        row.pad(row.len + 2).unwrap();
        write!(row, "{}", Fixed(6.25, 1)).unwrap();
        assert_eq!(
            row.as_str().unwrap(),
            "-5  01234567-9223372036854775808|  6.3"
        );
        // Full: an error, not a panic.
        let mut full = Row::new();
        assert!(full.int(7, 300).is_err());
        assert!(full.bytes(&[b'x'; 256]).is_err());
    }

    #[test]
    fn best_keeps_the_first_of_equals() {
        // The lesson picks with reduce((a, b) => better(b, a) ? b : a): a later equal loses.
        let launched = [4, 9, 9, 2, 5, 2, 9, 3, 4];
        let mut runs = [PairRun::default(); SWEEP_PAIRS.len()];
        for (i, (run, n)) in runs.iter_mut().zip(launched).enumerate() {
            run.pair.threshold = i as u32;
            run.metrics.launched = n;
        }
        assert_eq!(
            best(&runs, |b, a| b.launched > a.launched).pair.threshold,
            1
        );
        assert_eq!(
            best(&runs, |b, a| b.launched < a.launched).pair.threshold,
            3
        );
    }

    #[test]
    fn the_demand_table_covers_the_lesson() {
        assert_eq!(
            crate::autoscale::Params::default().rounds as usize,
            super::LESSON_ROUNDS
        );
    }
}
