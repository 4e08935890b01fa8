//! The auto-scaling group's three lessons (the two pairs, the 3 × 3 sweep, the churn ledger):
//! each is a results type, a function that computes it from the lesson's shared stream, and
//! one that writes it, byte for byte as the lesson program prints it.

use super::lang::Lang;
use crate::jsfmt::{pad_end, round, Fixed, Num};
use crate::rng::{GroupLcg, GroupStream, UnitRng};
use crate::{autoscale, Error, Observer};
use core::fmt::{self, Write};

// ---------------------------------------------------------------- auto-scaling group
//
// Each lesson is a results type, a function that computes it and one that writes it.

/// Rounds per hour in the lesson's story (one round is one minute).
const ROUNDS_PER_HOUR: f64 = 60.0;

/// Hours in the ledger's day.
const HOURS_PER_DAY: f64 = 24.0;

/// Draws of the group lessons' stream that [`super::render`] caches: the lesson's runs draw at
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
pub(super) struct Pair {
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
pub(super) struct PairRun {
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
    fn run<R: UnitRng, O: Observer<autoscale::RoundState>>(
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
        let metrics = autoscale::run_lesson(&params, &demand, rng, observer)?;
        Ok(PairRun { pair, metrics })
    }

    /// Runs every pair into `runs`, each from the start of one shared stream of the
    /// lesson's seed (in lockstep: see [`autoscale::run_batch`]).
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
        let results = autoscale::run_lesson_batch(&params, demand, stream);
        for ((run, &pair), result) in runs.iter_mut().zip(pairs).zip(results) {
            *run = PairRun {
                pair,
                metrics: result?,
            };
        }
        Ok(())
    }

    /// Runs every pair, in order, into `runs`.
    fn run_pairs<O: Observer<autoscale::RoundState>>(
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
pub(super) struct GroupResults {
    required_min: f64,
    required_max: f64,
    runs: [PairRun; GROUP_PAIRS.len()],
}

#[inline(never)]
pub(super) fn group_results<O: Observer<autoscale::RoundState>>(
    observer: &mut O,
    results: &mut GroupResults,
) -> Result<(), Error> {
    let demand = DemandTable::new();
    demand.run_pairs(&GROUP_PAIRS, observer, &mut results.runs)?;
    (results.required_min, results.required_max) = demand.required_range();
    Ok(())
}

/// [`group_results`] without an observer, the runs sharing one stream.
#[inline(never)]
pub(super) fn group_results_shared(results: &mut GroupResults) -> Result<(), Error> {
    let mut stream = lesson_stream();
    let demand = DemandTable::new_producing(&mut stream);
    demand.run_pairs_shared(&GROUP_PAIRS, &mut results.runs, &mut stream)?;
    (results.required_min, results.required_max) = demand.required_range();
    Ok(())
}

#[inline(never)]
pub(super) fn write_group<W: Write>(
    out: &mut W,
    results: &GroupResults,
    lang: Lang,
) -> fmt::Result {
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
pub(super) fn pair_runs<O: Observer<autoscale::RoundState>, const P: usize>(
    pairs: &[Pair; P],
    observer: &mut O,
    runs: &mut [PairRun; P],
) -> Result<(), Error> {
    DemandTable::new().run_pairs(pairs, observer, runs)
}

/// [`pair_runs`] without an observer, the runs sharing one stream.
#[inline(never)]
pub(super) fn pair_runs_shared<const P: usize>(
    pairs: &[Pair; P],
    runs: &mut [PairRun; P],
) -> Result<(), Error> {
    let mut stream = lesson_stream();
    DemandTable::new_producing(&mut stream).run_pairs_shared(pairs, runs, &mut stream)
}

/// The sweep's thresholds (outer).
pub const SWEEP_THRESHOLDS: [u32; 3] = [2, 3, 5];
/// The sweep's cooldowns (inner).
pub const SWEEP_COOLDOWNS: [u32; 3] = [0, 3, 8];
/// Every threshold with every cooldown, in table order.
pub(super) const SWEEP_PAIRS: [Pair; SWEEP_THRESHOLDS.len() * SWEEP_COOLDOWNS.len()] = {
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
pub(super) fn write_sweep<W: Write>(
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
pub(super) const LEDGER_PAIRS: [Pair; 3] = [Pair::new(2, 0), Pair::new(3, 3), Pair::new(5, 3)];

/// Writes the ledger lesson from one run per [`LEDGER_PAIRS`] pair.
#[inline(never)]
pub(super) fn write_ledger<W: Write>(
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
