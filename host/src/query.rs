//! A command given as (name, value) pairs, as a URL query gives it: the browser playground's
//! entry point. `lesson=all` is `capsim lesson all`; `model=autoscale&threshold=3&format=json`
//! is `capsim autoscale --threshold 3 --format json`: every flag is a pair of the same name
//! (without the dashes) taking the same values, and the output and error lines are the
//! command line's bytes. A flag without a value is a bare pair (`summary`, or `summary=`):
//! `trace=autoscale&formula-text=…&evaluations` is `capsim trace autoscale --formula
//! editor.formula --evaluations`; `plot=autoscale&threshold=2,5` is `capsim plot autoscale
//! --threshold 2,5 -o -` (the SVG on stdout). [`run`] holds what the command prints (the
//! playground's); [`run_into`] writes it as it comes (the Python package's). A model
//! command's chart is `capsim plot`'s for the same flags; two pairs of the page's own say
//! how it is drawn, as `capsim plot --width W --lang L` does: `chart-width=W` (pixels,
//! [`plot::WIDTHS`]; the page's box) and `chart-lang=L` (`en`, `tr`). They change the chart
//! only, never the output.

use std::io::Write;

use capsim_core::consumers::{Workspace, DEFAULT_IN_FLIGHT};
use capsim_core::lesson::{self, Lang, Lesson, LESSON_CONFIGURATIONS, LESSON_SHIPMENTS};

use crate::glossary;
use crate::models::{self, Autoscale, Bulkhead, Consumers, Flags, Model, Param, MAX_RUNS};
use crate::output::Format;
use crate::plot::{self, Plotted};
use crate::sweep::{self, Failure, Options, Progress};
use crate::trace::Traced;

/// The most runs a browser page runs: a page that computes for minutes looks broken.
pub const BROWSER_MAX_RUNS: u64 = 100_000;

/// The lessons `capsim lesson NAME` prints, and what each is (`capsim lesson` lists them).
pub const LESSONS: [(&str, &str); 6] = [
    (
        "group",
        "the auto-scaling lesson's two threshold/cooldown pairs",
    ),
    (
        "group-sweep",
        "the auto-scaling lesson's 3 x 3 threshold x cooldown sweep",
    ),
    (
        "group-ledger",
        "the auto-scaling lesson's churn cost ledger",
    ),
    ("consumers", "the consumers lesson's S x N tables"),
    ("bulkhead", "the bulkhead lesson's layouts and split table"),
    ("all", "the five above, in this order"),
];

/// Returns `capsim lesson`'s list: a lesson a line, its name and what it is.
pub fn lesson_list() -> String {
    LESSONS
        .iter()
        .map(|(name, about)| format!("{name:12}  {about}\n"))
        .collect()
}

/// Returns "; did you mean X?" for the candidate nearest `s`, if one is near enough.
fn did_you_mean(s: &str, candidates: &[&str]) -> String {
    crate::list::closest(s, candidates)
        .map(|c| format!("; did you mean {c}?"))
        .unwrap_or_default()
}

/// The model commands by name.
pub const MODELS: [&str; 3] = ["autoscale", "consumers", "bulkhead"];

/// What a command printed: stdout's bytes, the error line (with `error: `, as stderr shows
/// it) if it failed, and the chart of its runs (model commands): `capsim plot`'s picture.
#[derive(Debug, Default)]
pub struct Printed {
    /// Exactly what the command line writes to stdout.
    pub stdout: Vec<u8>,
    /// The one line the command line writes to stderr, if any, without its newline.
    pub error: Option<String>,
    /// What `capsim plot` draws for the same flags, as an `<svg id="chart">`; or, for a grid
    /// it does not draw (more than [`plot::MAX_MULTIPLES_RUNS`] runs), a one-line
    /// `<p id="chart-note">` saying why.
    pub chart: Option<String>,
    /// The warnings of the command's formula (`formula-text`, or `formula=check`'s file):
    /// a formula Batch accepts that cannot work as written, one line each as `capsim
    /// formula check` writes them to stderr (`editor.formula:2:29: warning: …`).
    pub warnings: Vec<String>,
}

/// Runs the command the pairs describe, at most `max_runs` runs (the command line's own
/// limit, [`MAX_RUNS`], applies too); `progress` is told of the runs as they finish.
pub fn run(pairs: &[(&str, &str)], max_runs: u64, progress: &impl Progress) -> Printed {
    let mut printed = Printed::default();
    let mut session = Session {
        max_runs,
        progress,
        out: &mut printed.stdout,
        chart: Some(None),
        warnings: Vec::new(),
    };
    let result = dispatch(pairs, &mut session);
    printed.warnings = std::mem::take(&mut session.warnings);
    printed.chart = session.chart.flatten();
    printed.error = result.err().map(|e| error_line(&e));
    printed
}

/// Runs the command the pairs describe as [`run`] does (at most [`MAX_RUNS`] runs, the
/// command line's limit), writing to `out` what the command line writes to stdout as it
/// writes it: a grid's rows a window at a time, `out` flushed after each window. No chart is
/// drawn. The error is the line the command line writes to stderr ([`Printed::error`]);
/// the bytes before it are written, as the command line's are.
pub fn run_into(
    pairs: &[(&str, &str)],
    progress: &impl Progress,
    out: &mut dyn Write,
) -> Result<(), String> {
    let mut session = Session {
        max_runs: MAX_RUNS,
        progress,
        out,
        chart: None,
        warnings: Vec::new(),
    };
    dispatch(pairs, &mut session).map_err(|e| error_line(&e))
}

/// The line the binary writes to stderr for the error `e`: a formula's located error as it
/// is (also when a flag's value carried it, as the binary unwraps clap's `invalid value …`
/// around it), a value's own message that names its flag (`--demand-file d.csv: line 17:
/// …`) alone, as the binary unwraps it too, else `error: …`.
fn error_line(e: &str) -> String {
    let value_message = e.split_once(" <LIST>': ").map(|(head, rest)| {
        let first = rest.lines().next().unwrap_or(rest).trim();
        let flag = head.rsplit_once("'--").map(|(_, f)| f);
        (
            first,
            flag.is_some_and(|f| first.starts_with(&format!("--{f} "))),
        )
    });
    match value_message {
        Some((line, _)) if crate::input::is_located(line) => line.to_string(),
        Some((line, true)) => format!("error: {line}"),
        _ if crate::input::is_located(e) => e.to_string(),
        _ => format!("error: {e}"),
    }
}

/// A command's budget and where its output goes: at most `max_runs` runs, `progress` told of
/// them as they finish, stdout's bytes to `out`.
struct Session<'a, P> {
    max_runs: u64,
    progress: &'a P,
    out: &'a mut dyn Write,
    /// A model command's chart, when one is drawn (`Some`): `Some(None)` until it is.
    chart: Option<Option<String>>,
    /// The warnings of the command's formula.
    warnings: Vec<String>,
}

/// The error of a failed write to stdout, as the binary words it.
fn write_error(e: std::io::Error) -> String {
    format!("cannot write the output: {e}")
}

fn dispatch(pairs: &[(&str, &str)], session: &mut Session<impl Progress>) -> Result<(), String> {
    let found = pairs
        .iter()
        .position(|(k, _)| matches!(*k, "lesson" | "model" | "trace" | "plot"))
        // `formula` is also autoscale's flag: it is the command only when no other is given.
        .or_else(|| pairs.iter().position(|(k, _)| *k == "formula"));
    let Some(at) = found else {
        return Err(
            "a command is required: lesson=NAME, model=NAME, trace=NAME, plot=NAME or formula=check|eval"
                .to_string(),
        );
    };
    let (kind, name) = pairs[at];
    let mut rest: Vec<(&str, &str)> = pairs
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, p)| *p)
        .collect();
    if kind != "lesson" {
        if let Some(i) = rest.iter().position(|(k, _)| *k == "formula-text") {
            let (_, text) = rest.remove(i);
            if rest.iter().any(|(k, _)| *k == "formula-text") {
                return Err("the argument 'formula-text' cannot be used multiple times".into());
            }
            if kind != "formula" {
                if rest.iter().any(|(k, _)| *k == "formula") {
                    return Err(format!(
                        "formula-text and formula cannot both be given (formula-text is the file {FORMULA_TEXT_FILE})"
                    ));
                }
                rest.push(("formula", FORMULA_TEXT_FILE));
            }
            let path = std::path::Path::new(FORMULA_TEXT_FILE);
            return crate::input::with_file(path, text, || command(kind, name, &rest, session));
        }
    }
    command(kind, name, &rest, session)
}

/// Runs the command `kind=name` with the other pairs `rest`.
fn command(
    kind: &str,
    name: &str,
    rest: &[(&str, &str)],
    session: &mut Session<impl Progress>,
) -> Result<(), String> {
    if kind == "formula" {
        return formula(name, rest, session);
    }
    // `--scenario FILE.toml` is the autoscale commands' flag.
    let (scenario, rest) = match name {
        "autoscale" => scenario_pair(rest)?,
        _ => (None, rest.to_vec()),
    };
    let rest = &rest[..];
    if name == "autoscale" {
        // The formulas' warnings, as the command line writes them to stderr first.
        let formulas = rest.iter().copied().filter(|(k, _)| *k == "formula");
        if let Ok(flags) = Flags::<Autoscale>::from_pairs(formulas) {
            if let Ok(flags) = over_scenario(flags, scenario) {
                session.warnings = crate::trace::formula_warnings(&flags);
            }
        }
    }
    if kind == "trace" {
        return match name {
            "autoscale" => trace_autoscale(rest, scenario, session.out),
            "consumers" => trace::<Consumers>(rest, session.out),
            "bulkhead" => trace::<Bulkhead>(rest, session.out),
            _ => Err(format!(
                "unrecognized subcommand '{name}'{}",
                did_you_mean(name, &MODELS)
            )),
        };
    }
    if kind == "plot" {
        return match name {
            "autoscale" => plot_svg::<Autoscale>(name, rest, scenario, session.out),
            "consumers" => plot_svg::<Consumers>(name, rest, None, session.out),
            "bulkhead" => plot_svg::<Bulkhead>(name, rest, None, session.out),
            _ => Err(format!(
                "unrecognized subcommand '{name}'{}",
                did_you_mean(name, &MODELS)
            )),
        };
    }
    if kind == "lesson" {
        let mut lang = Lang::Tr;
        for &(k, v) in rest {
            match (k, Lang::from_name(v)) {
                ("lang", Some(l)) => lang = l,
                ("lang", None) => {
                    return Err(format!(
                        "invalid value '{v}' for '--lang <LANG>' [possible values: tr, en]"
                    ))
                }
                _ => return Err(format!("unexpected argument '--{k}' found")),
            }
        }
        return lessons(name, lang, session.out);
    }
    match name {
        "autoscale" => model::<Autoscale>(name, rest, scenario, session),
        "consumers" => model::<Consumers>(name, rest, None, session),
        "bulkhead" => model::<Bulkhead>(name, rest, None, session),
        _ => Err(format!(
            "unrecognized subcommand '{name}'{}",
            did_you_mean(name, &MODELS)
        )),
    }
}

/// The file a `formula-text` pair is: `formula-text=TEXT` reads, parses and names TEXT
/// exactly as the command line does a file of this name holding TEXT
/// ([`crate::input::with_file`]); with a model or trace it is `--formula editor.formula`,
/// with `formula=check|eval` the command's FILE.
pub const FORMULA_TEXT_FILE: &str = "editor.formula";

/// Command pairs: (flag without dashes, value).
type Pairs<'a> = Vec<(&'a str, &'a str)>;

/// Takes the `scenario` pair (`--scenario FILE.toml`, the autoscale commands') out of
/// `pairs`: its value, and the other pairs.
fn scenario_pair<'a>(pairs: &[(&'a str, &'a str)]) -> Result<(Option<&'a str>, Pairs<'a>), String> {
    let mut scenario = None;
    let mut rest = Vec::with_capacity(pairs.len());
    for &(k, v) in pairs {
        if k != "scenario" {
            rest.push((k, v));
        } else if scenario.replace(v).is_some() {
            return Err(
                "the argument '--scenario <FILE.toml>' cannot be used multiple times".into(),
            );
        }
    }
    Ok((scenario, rest))
}

/// Returns `flags` over the scenario file's (none: `flags`), as the command line's
/// `--scenario` gives them.
fn over_scenario<M: Model>(flags: Flags<M>, scenario: Option<&str>) -> Result<Flags<M>, String> {
    match scenario {
        None => Ok(flags),
        Some(path) => Ok(flags.over(crate::scenario::flags::<M>(std::path::Path::new(path))?)),
    }
}

/// `capsim plot MODEL [flags] [--summary [--metric KEY]] [--width PX] [--lang LANG] -o -`:
/// the chart's SVG.
fn plot_svg<M: Plotted>(
    name: &str,
    pairs: &[(&str, &str)],
    scenario: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), String> {
    let mut summary = false;
    let mut metric = None;
    let (mut width, mut lang) = (None, None);
    let mut flags = Vec::new();
    for &(k, v) in pairs {
        match k {
            "width" if width.replace(v).is_some() => {
                return Err("the argument '--width <PX>' cannot be used multiple times".into())
            }
            "lang" if lang.replace(v).is_some() => {
                return Err("the argument '--lang <LANG>' cannot be used multiple times".into())
            }
            "width" | "lang" => {}
            // A URL gives a flag without a value as `summary` (or `summary=`).
            "summary" if !v.is_empty() => {
                return Err(format!(
                    "unexpected value '{v}' for '--summary' found; no more were expected"
                ))
            }
            "summary" if summary => {
                return Err("the argument '--summary' cannot be used multiple times".into())
            }
            "summary" => summary = true,
            "metric" if metric.replace(v).is_some() => {
                return Err("the argument '--metric <KEY>' cannot be used multiple times".into())
            }
            "metric" => {}
            _ => flags.push((k, v)),
        }
    }
    let flags = Flags::<M>::from_pairs(flags)?;
    if metric.is_some() && !summary {
        return Err("the following required arguments were not provided: --summary".into());
    }
    let look = plot::Look::parse(
        width.unwrap_or(&plot::WIDTH.to_string()),
        lang.unwrap_or("en"),
    )?;
    let flags = over_scenario(flags, scenario)?;
    let svg = if summary {
        let default = plot::SUMMARY_METRIC
            .iter()
            .find(|(m, _)| *m == name)
            .map_or("", |(_, k)| *k);
        plot::histogram_with(name, &flags, metric.unwrap_or(default), look)
    } else {
        plot::plot_with(name, &flags, look)
    }?;
    out.write_all(svg.as_bytes()).map_err(write_error)
}

/// A trace's own pairs, taken out of its model's flags.
struct TracePairs<'a> {
    /// `format`'s value (table without one), and where among the pairs it was given.
    format: (Format, Option<usize>),
    /// Where `evaluations` (autoscale's) was given, if it was.
    evaluations: Option<usize>,
    /// `columns`' value, and where it was given.
    columns: (Option<&'a str>, Option<usize>),
    /// The model's flags.
    flags: Vec<(&'a str, &'a str)>,
}

/// Splits a trace's pairs into its own (`format`, and `evaluations` where `evaluations` is
/// one of the model's) and the model's flags; a repeated or ill-valued one is the command
/// line's error.
fn trace_pairs<'a>(
    pairs: &[(&'a str, &'a str)],
    evaluations: bool,
) -> Result<TracePairs<'a>, String> {
    let mut t = TracePairs {
        format: (Format::Table, None),
        evaluations: None,
        columns: (None, None),
        flags: Vec::new(),
    };
    for (i, &(k, v)) in pairs.iter().enumerate() {
        match k {
            "format" => {
                if t.format.1.replace(i).is_some() {
                    return Err(
                        "the argument '--format <FORMAT>' cannot be used multiple times".into(),
                    );
                }
                t.format.0 = Format::from_name(v).ok_or_else(|| {
                    let hint = did_you_mean(v, &["table", "json", "csv"]);
                    format!("invalid value '{v}' for '--format <FORMAT>' [possible values: table, json, csv]{hint}")
                })?;
            }
            "columns" => {
                if t.columns.1.replace(i).is_some() {
                    return Err(
                        "the argument '--columns <LIST>' cannot be used multiple times".into(),
                    );
                }
                t.columns.0 = Some(v);
            }
            // A URL gives a flag without a value as `evaluations` (or `evaluations=`).
            "evaluations" if evaluations => {
                if !v.is_empty() {
                    return Err(format!(
                        "unexpected value '{v}' for '--evaluations' found; no more were expected"
                    ));
                }
                if t.evaluations.replace(i).is_some() {
                    return Err("the argument '--evaluations' cannot be used multiple times".into());
                }
            }
            _ => t.flags.push((k, v)),
        }
    }
    Ok(t)
}

/// `capsim trace MODEL [flags] [--format F]`.
fn trace<M: Traced>(pairs: &[(&str, &str)], out: &mut dyn Write) -> Result<(), String> {
    let t = trace_pairs(pairs, false)?;
    write_trace::<M>(
        &Flags::<M>::from_pairs(t.flags)?,
        t.format.0,
        t.columns.0,
        out,
    )
}

/// Writes the trace of the one run `flags` describe.
fn write_trace<M: Traced>(
    flags: &Flags<M>,
    format: Format,
    columns: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), String> {
    let p = crate::trace::single(flags)?;
    (M::VALIDATE)(&p).map_err(|e| e.to_string())?;
    crate::trace::write_columns::<M>(&p, format, columns, out).map_err(trace_stop)
}

fn trace_stop(e: crate::trace::Stop) -> String {
    match e {
        crate::trace::Stop::Input(m) => m,
        crate::trace::Stop::Io(e) => write_error(e),
    }
}

/// `capsim trace autoscale [flags] [--format F | --evaluations]`: with `evaluations` (a pair
/// without a value), one JSON Line per formula evaluation, the bytes
/// [`crate::trace::write_evaluations`] writes for the command line.
fn trace_autoscale(
    pairs: &[(&str, &str)],
    scenario: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), String> {
    let t = trace_pairs(pairs, true)?;
    let flags = Flags::<Autoscale>::from_pairs(t.flags)?;
    let Some(at) = t.evaluations else {
        return write_trace(
            &over_scenario(flags, scenario)?,
            t.format.0,
            t.columns.0,
            out,
        );
    };
    // As clap words a conflict: the one given first, then the other.
    let given = [
        (t.format.1, "--format <FORMAT>"),
        (t.columns.1, "--columns <LIST>"),
    ];
    if let Some((f, flag)) = given
        .into_iter()
        .filter_map(|(i, flag)| i.map(|i| (i, flag)))
        .min()
    {
        return Err(if at < f {
            format!("the argument '--evaluations' cannot be used with '{flag}'")
        } else {
            format!("the argument '{flag}' cannot be used with '--evaluations'")
        });
    }
    let p = crate::trace::single(&over_scenario(flags, scenario)?)?;
    (Autoscale::VALIDATE)(&p).map_err(|e| e.to_string())?;
    crate::trace::write_evaluations(&p, out).map_err(trace_stop)
}

/// `capsim formula check FILE` and `capsim formula eval FILE [--at T] [--sample S]...
/// [--set S]... [--delay N] [--seed N]`; FILE is the `file` pair (or `formula-text`'s
/// [`FORMULA_TEXT_FILE`]).
fn formula(
    name: &str,
    pairs: &[(&str, &str)],
    session: &mut Session<impl Progress>,
) -> Result<(), String> {
    use crate::formula::{EvalArgs, Failure, FormulaCommand, DEFAULT_AT};
    let mut file = FORMULA_TEXT_FILE.to_string();
    let mut args = EvalArgs {
        file: std::path::PathBuf::new(),
        at: DEFAULT_AT.to_string(),
        sample: Vec::new(),
        set: Vec::new(),
        delay: 60,
        seed: 1,
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut deny_warnings = false;
    for &(k, v) in pairs {
        let once = matches!(k, "file" | "at" | "delay" | "seed" | "deny-warnings");
        if once && seen.contains(&k) {
            let value = match k {
                "file" => return Err(format!("unexpected argument '{v}' found")),
                "at" => "TIME",
                "delay" => "SECONDS",
                _ => "N",
            };
            return Err(format!(
                "the argument '--{k} <{value}>' cannot be used multiple times"
            ));
        }
        seen.push(k);
        match (name, k) {
            (_, "file") => file = v.to_string(),
            ("check", "deny-warnings") if v.is_empty() => deny_warnings = true,
            ("eval", "at") => args.at = v.to_string(),
            ("eval", "sample") => args.sample.push(v.to_string()),
            ("eval", "set") => args.set.push(v.to_string()),
            ("eval", "delay") => {
                args.delay = match v.parse::<i64>() {
                    Ok(n) if (0..=86_400).contains(&n) => n as u32,
                    Ok(n) => {
                        return Err(format!(
                            "invalid value '{v}' for '--delay <SECONDS>': {n} is not in 0..=86400"
                        ))
                    }
                    Err(e) => {
                        return Err(format!("invalid value '{v}' for '--delay <SECONDS>': {e}"))
                    }
                }
            }
            ("eval", "seed") => {
                args.seed = v
                    .parse()
                    .map_err(|e| format!("invalid value '{v}' for '--seed <N>': {e}"))?
            }
            _ => return Err(format!("unexpected argument '--{k}' found")),
        }
    }
    args.file = file.into();
    let cmd = match name {
        "check" => FormulaCommand::Check {
            file: args.file,
            deny_warnings,
        },
        "eval" => FormulaCommand::Eval(args),
        _ => {
            return Err(format!(
                "unrecognized subcommand '{name}'{}",
                did_you_mean(name, &["check", "eval"])
            ))
        }
    };
    let add = |session: &mut Session<_>, warnings: Vec<String>| {
        for w in warnings {
            if !session.warnings.contains(&w) {
                session.warnings.push(w);
            }
        }
    };
    match crate::formula::run(&cmd) {
        Ok(ran) => {
            add(session, ran.warnings);
            session
                .out
                .write_all(ran.stdout.as_bytes())
                .map_err(write_error)
        }
        Err((warnings, Failure::Input(m) | Failure::Evaluation(m))) => {
            add(session, warnings);
            Err(m)
        }
    }
}

/// `capsim lesson NAME --lang LANG`.
fn lessons(name: &str, lang: Lang, out: &mut dyn Write) -> Result<(), String> {
    let chosen: Vec<Lesson> = match (name, Lesson::from_name(name)) {
        (_, Some(l)) => vec![l],
        ("all", None) => Lesson::ALL.to_vec(),
        _ => {
            let names: Vec<&str> = LESSONS.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "invalid value '{name}' for '[NAME]' [possible values: {}]{}",
                names.join(", "),
                did_you_mean(name, &names)
            ));
        }
    };
    let mut ws = Box::new(Workspace::<
        LESSON_SHIPMENTS,
        DEFAULT_IN_FLIGHT,
        LESSON_CONFIGURATIONS,
    >::new());
    let mut text = String::new();
    for l in chosen {
        lesson::render_in(l, lang, &mut text, &mut ws).map_err(|e| e.to_string())?;
    }
    out.write_all(text.as_bytes()).map_err(write_error)
}

/// `capsim plot`'s SVG for `flags` drawn as `look` says, its root given `id="chart"`, or a
/// note saying why not.
fn chart<M: Plotted>(name: &str, flags: &models::Flags<M>, look: plot::Look) -> String {
    note_or_svg(plot::plot_with(name, flags, look))
}

/// The SVG with `id="chart"`, or the error as a one-line note.
fn note_or_svg(drawn: Result<String, String>) -> String {
    match drawn {
        Ok(svg) => svg.replacen("<svg ", "<svg id=\"chart\" ", 1),
        Err(e) => {
            let e = e
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            format!("<p id=\"chart-note\">No chart: {e}.</p>")
        }
    }
}

/// `capsim plot MODEL --summary`'s histogram of the model's default metric (see
/// [`plot::SUMMARY_METRIC`]) for `flags` drawn as `look` says, its root given `id="chart"`,
/// or a note saying why not.
fn histogram<M: Plotted>(name: &str, flags: &models::Flags<M>, look: plot::Look) -> String {
    let metric = plot::SUMMARY_METRIC
        .iter()
        .find(|(m, _)| *m == name)
        .map_or("", |(_, k)| *k);
    note_or_svg(plot::histogram_with(name, flags, metric, look))
}

/// The flags every model command takes besides its parameters, and the chart's own pairs.
const OPTIONS: [&str; 7] = [
    "format",
    "summary",
    "threads",
    "columns",
    "shard",
    "chart-width",
    "chart-lang",
];

/// `capsim MODEL [flags] [--format F] [--summary] [--threads N] [--columns LIST] [--shard K/N]`.
fn model<M: Plotted>(
    name: &str,
    pairs: &[(&str, &str)],
    scenario: Option<&str>,
    session: &mut Session<impl Progress>,
) -> Result<(), String> {
    let mut options = Options::new(Format::Table, false, 0);
    let mut flags = Vec::new();
    let mut seen = Vec::new();
    let (mut width, mut lang) = (plot::WIDTH.to_string(), "en");
    for &(k, v) in pairs {
        if OPTIONS.contains(&k) {
            if seen.contains(&k) {
                let value = match k {
                    "summary" => "",
                    "threads" => " <N>",
                    "columns" => " <LIST>",
                    "shard" => " <K/N>",
                    "chart-width" => " <PX>",
                    "chart-lang" => " <LANG>",
                    _ => " <FORMAT>",
                };
                return Err(format!(
                    "the argument '--{k}{value}' cannot be used multiple times"
                ));
            }
            seen.push(k);
        }
        match k {
            "format" => {
                options.format = Format::from_name(v).ok_or_else(|| {
                    let hint = did_you_mean(v, &["table", "json", "csv"]);
                    format!("invalid value '{v}' for '--format <FORMAT>' [possible values: table, json, csv]{hint}")
                })?;
            }
            // A URL gives a flag without a value as `summary` (or `summary=`).
            "summary" if v.is_empty() => options.summary = true,
            "summary" => {
                return Err(format!(
                    "unexpected value '{v}' for '--summary' found; no more were expected"
                ))
            }
            // The browser runs on one thread whatever the flag says (it is checked as the
            // command line does); the bytes do not depend on it.
            "threads" => match v.parse::<usize>() {
                Ok(n) if n <= 256 => options.threads = n,
                _ => {
                    return Err(format!(
                        "invalid value '{v}' for '--threads <N>': accepted values are 0 (one per core) to 256"
                    ))
                }
            },
            "columns" => options.columns = Some(v.to_string()),
            "chart-width" => width = v.to_string(),
            "chart-lang" => lang = v,
            "shard" => {
                options.shard = Some(
                    sweep::Shard::parse(v)
                        .map_err(|e| format!("invalid value '{v}' for '--shard <K/N>': {e}"))?,
                )
            }
            _ => flags.push((k, v)),
        }
    }
    let flags = Flags::<M>::from_pairs(flags.iter().copied()).map_err(|e| {
        // clap's suggestion for a misspelt flag, as the command line prints it.
        let unknown = flags
            .iter()
            .find(|(k, _)| !M::PARAMS.iter().any(|p| p.flag() == *k));
        match unknown {
            Some((k, _)) if e.starts_with("unexpected argument") => {
                let mut known: Vec<String> = M::PARAMS
                    .iter()
                    .map(|p| format!("--{}", p.flag()))
                    .collect();
                known.extend(OPTIONS.iter().map(|o| format!("--{o}")));
                if name == "autoscale" {
                    known.push("--scenario".to_string());
                }
                let known: Vec<&str> = known.iter().map(String::as_str).collect();
                format!("{e}{}", did_you_mean(&format!("--{k}"), &known))
            }
            _ => e,
        }
    })?;
    let look = plot::Look::parse(&width, lang).map_err(|e| {
        e.replace("'--width <PX>'", "'chart-width'")
            .replace("'--lang <LANG>'", "'chart-lang'")
    })?;
    let flags = over_scenario(flags, scenario)?;
    let grid = flags.grid()?;
    let limit = session.max_runs.min(MAX_RUNS);
    if grid.len() > limit {
        return Err(format!(
            "the parameter lists make {} runs; the browser runs at most {limit} (the command line runs up to {MAX_RUNS})",
            grid.len()
        ));
    }
    let summary = options.summary;
    let result = sweep::sweep_grid(grid, &options, &mut session.out, session.progress);
    if let (Ok(()), Some(chart_drawn)) = (&result, session.chart.as_mut()) {
        *chart_drawn = Some(if summary {
            histogram(name, &flags, look)
        } else {
            chart(name, &flags, look)
        });
    }
    match result {
        Ok(()) => Ok(()),
        Err(Failure::Input(e) | Failure::Evaluation(e)) => Err(e),
        Err(Failure::Io(e)) => Err(write_error(e)),
    }
}

/// Returns the metrics a table of `model`'s rows shows without `--columns` (the lesson's
/// own columns, [`Model::HEADLINE_METRICS`]), for a page that shows the same; `None` for a
/// name that is no model's. A page rounds their numbers as tables do:
/// [`crate::output::readable`].
pub fn headline(model: &str) -> Option<&'static [&'static str]> {
    match model {
        "autoscale" => Some(Autoscale::HEADLINE_METRICS),
        "consumers" => Some(Consumers::HEADLINE_METRICS),
        "bulkhead" => Some(Bulkhead::HEADLINE_METRICS),
        _ => None,
    }
}

/// Returns each row of a model command's JSON Lines (`format=json`, as [`run`] prints them)
/// with every cell's readable text beside its exact one: a line per row, the JSON array of
/// its cells in row order, each `[key, exact, shown]`. `exact` is the cell's JSON text
/// (`0.3890099141955275`, `100.0`, `"shared"`, `null`); `shown` is what a table prints for
/// it ([`crate::output::Cell::write_readable`]: `0.389`, `100`, `shared`, `NaN`), so a page
/// shows the same text as `capsim MODEL --columns KEY` does. The rows are read back as
/// `capsim summary` reads them ([`crate::merge::parse_row`]); a `--summary` row's statistics
/// read back as floats, to 4 significant digits (a table writes them with 3 decimals). A line
/// that is not such a row is an error naming it.
pub fn readable_rows(json_lines: &str) -> Result<String, String> {
    let mut out = String::new();
    for (n, line) in json_lines.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let row = crate::merge::parse_row(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let cells: Vec<[String; 3]> = row
            .iter()
            .map(|(key, cell)| {
                let mut exact = Vec::new();
                cell.write_json(&mut exact);
                let mut shown = String::new();
                cell.write_readable(&mut shown);
                let exact = String::from_utf8(exact).unwrap_or_default();
                [key.to_string(), exact, shown]
            })
            .collect();
        out.push_str(&serde_json::to_string(&cells).map_err(|e| e.to_string())?);
        out.push('\n');
    }
    Ok(out)
}

/// Returns every model's parameters as JSON, for the page's form: per model, each flag with
/// its help, accepted values, default and lesson value — the definitions `--help` prints.
pub fn params_json() -> String {
    fn one<M: Model>(name: &str) -> serde_json::Value {
        let params: Vec<serde_json::Value> = M::PARAMS
            .iter()
            .map(|p: &Param<M::Params>| {
                serde_json::json!({
                    "flag": p.flag(),
                    "help": p.help_text(),
                    "accepted": p.accepted_text(),
                    "lesson": p.lesson_text(),
                    "default": p.default_text(),
                    "help_line": p.help_line(),
                })
            })
            .collect();
        serde_json::json!({
            "model": name,
            "params": params,
            "metrics": models::metric_keys::<M>(),
            // The table's default metrics (the lesson's own columns), and how it rounds a
            // number with a fraction: `output::readable`.
            "headline": M::HEADLINE_METRICS,
            "readable_digits": crate::output::READABLE_DIGITS,
            "glossary": glossary::of(name)
                .map(|e| serde_json::json!({"key": e.key, "unit": e.unit, "meaning": e.meaning}))
                .collect::<Vec<_>>(),
        })
    }
    serde_json::json!({
        "models": [one::<Autoscale>("autoscale"), one::<Consumers>("consumers"), one::<Bulkhead>("bulkhead")],
        "lessons": Lesson::ALL.iter().map(|l| l.name()).collect::<Vec<_>>(),
        "langs": Lang::ALL.iter().map(|l| l.name()).collect::<Vec<_>>(),
        "formats": Format::NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        "max_runs": BROWSER_MAX_RUNS,
    })
    .to_string()
}

#[cfg(test)]
mod tests;
