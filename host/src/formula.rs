//! `capsim formula check|eval`: the autoscale formula language on the command line.
//!
//! `check` parses a file and checks the limits; `eval` runs one evaluation, as Batch's
//! `EvaluateAutoScale` does, against samples given on the command line.

use std::path::{Path, PathBuf};

use capsim_core::formula::{
    evaluate, Deallocation, FormulaError, History, Inputs, Metric, Program, TimeInterval,
    Timestamp, Workspace, DEFAULT_HISTORY, MAX_HEIGHT, MAX_NESTING, MAX_NODES, MAX_PREFIX,
    MAX_SOURCE_BYTES, MAX_STATEMENTS, MAX_VARIABLES, MAX_VECTOR_LITERAL, METRIC_COUNT,
    TICKS_PER_SECOND, VECTOR_POOL,
};

use crate::input::{read_bounded, InputError};

/// The time `time()` returns without `--at`: the simulator's epoch (spec §11).
pub const DEFAULT_AT: &str = "2026-10-01T00:00:00Z";

/// Limits and conventions, shown by `capsim formula --help` (the numbers are the core's
/// constants; `tests` compare this text with them).
pub const FORMULA_HELP: &str = "\
Limits: a formula is at most 8 KB (8192 bytes) and 100 statements (Batch's limits); every
formula within them fits capsim's own capacities: 8192 expression nodes, 100 user variables
and, per evaluation, 39840 vector values. Nesting: at most 24 levels of brackets, calls,
vector literals and ?: branches, 8 prefix operators in a row and 64 operators from an
expression's root to a value; a vector literal holds at most 240 values; --sample takes at most
240 values (2 hours) per variable. check also rejects what is a type error whatever the
samples (\"abc\" + 1, a string target), with its line and column.
Values: $CPUPercent is a fraction from 0 to 1, as in every Microsoft example (their prose
says \"70 percent\", their formulas compare with 0.7): a formula comparing it with 70 never
scales out. check warns of that, and of a target that truncates back to the current size
($CurrentDedicatedNodes * 1.25 from 3 nodes: 3.75, truncated to 3), on stderr with status 0
(--deny-warnings: status 1). time().weekday is ISO 8601's: 1 = Monday ... 7 = Sunday. time(\"\") is now.
A formula that breaks the grammar or a limit exits with status 2 and one line, as compilers
print it: FILE:LINE:COL: error: message. FILE must be a regular file (or a character device),
or - for standard input (<stdin>:LINE:COL in errors); a directory, a FIFO or a missing file is
one line and status 2; at most 8193 bytes are read.
eval: an evaluation that fails (e.g. insufficient sample data) exits with status 1 and one
line, FILE:LINE:COL: error: message; nothing is printed on stdout.";

/// The figures [`FORMULA_HELP`] states, in its order (checked against the text by tests).
pub const FORMULA_HELP_FIGURES: [usize; 10] = [
    MAX_SOURCE_BYTES,
    MAX_STATEMENTS,
    MAX_NODES,
    MAX_VARIABLES,
    VECTOR_POOL,
    MAX_NESTING,
    MAX_PREFIX,
    MAX_HEIGHT,
    MAX_VECTOR_LITERAL,
    DEFAULT_HISTORY,
];

/// The formula subcommands.
#[cfg_attr(feature = "cli", derive(clap::Subcommand))]
#[derive(Debug)]
pub enum FormulaCommand {
    /// Parse a formula file and check Batch's limits; silent on success but for warnings (stderr: a formula Batch accepts that cannot work as meant)
    #[cfg_attr(feature = "cli", command(after_help = FORMULA_HELP))]
    Check {
        /// The formula file (UTF-8; - reads standard input)
        file: PathBuf,
        /// A warning is an error: exit status 1 after printing them
        #[cfg_attr(feature = "cli", arg(long))]
        deny_warnings: bool,
    },
    /// Evaluate a formula once and print the results string as Batch's EvaluateAutoScale does
    #[cfg_attr(feature = "cli", command(after_help = FORMULA_HELP))]
    Eval(EvalArgs),
    /// What a group run supplies for each formula variable: sampled, read as a value, or set by the formula, with its unit
    Variables,
}

/// How a formula meets a variable in a group run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Read-only, sampled twice a round (`$X.GetSample(…)`).
    Sampled,
    /// Read-only, read as a value (the pool's current count).
    Value,
    /// Assigned by the formula; the group applies it.
    Set,
    /// A flag of the run, not a variable.
    Flag,
}

impl Kind {
    /// The word `capsim formula variables` and docs/formulas.md print.
    pub const fn word(self) -> &'static str {
        match self {
            Kind::Sampled => "sampled",
            Kind::Value => "value",
            Kind::Set => "set",
            Kind::Flag => "flag",
        }
    }
}

/// One row of the mapping from the simulator to the formula's variables.
#[derive(Clone, Debug)]
pub struct Variable {
    /// The variable(s), or the flag.
    pub name: &'static str,
    /// How the formula meets it.
    pub kind: Kind,
    /// Its unit.
    pub unit: &'static str,
    /// What capsim supplies (or does with it).
    pub supplied: String,
}

/// The mapping from the simulator to the formula's variables (`capsim_core::autoscale`'s
/// formula policy states each and why), in the order `capsim formula variables` and
/// docs/formulas.md print it. `D` is the round's demand in requests (a negative demand read as 0), `C`
/// the requests one instance serves in a round (`--capacity`), `R` the serving instances,
/// `N` the nodes and `g` = ceil(D / C). The limits and defaults are the code's own
/// constants (a board's and the host's group, the evaluation interval, the sample delay).
pub fn variables() -> Vec<Variable> {
    use crate::models::{AutoscaleParams, HOST_GROUP_SIZE, MAX_SAMPLE_DELAY};
    use capsim_core::autoscale::{
        DEFAULT_EVALUATION_INTERVAL, MAX_EVALUATION_INTERVAL, MAX_GROUP_SIZE,
        MIN_EVALUATION_INTERVAL,
    };
    let v = |name, kind, unit, supplied: &str| Variable {
        name,
        kind,
        unit,
        supplied: supplied.to_string(),
    };
    let delay = AutoscaleParams::default().sample_delay;
    vec![
        v("$CPUPercent", Kind::Sampled, "fraction 0-1", "min(1, D / (R·C)), the busy share of the serving instances, as Microsoft's formulas compare it (0.7, 0.2, not 70); missing when nothing serves"),
        v("$PendingTasks", Kind::Sampled, "tasks (one task = C requests)", "g, the instances the demand needs"),
        v("$RunningTasks, $ActiveTasks", Kind::Sampled, "tasks", "min(g, R), g − min(g, R)"),
        v("$SucceededTasks", Kind::Sampled, "tasks", "the round's running tasks"),
        v("$SampleNodeCount, $CurrentDedicatedNodes", Kind::Sampled, "nodes (instances)", "N = serving + booting + Standby (not leaving, not Stopped); with the spot class $CurrentDedicatedNodes the dedicated ones, $SampleNodeCount both classes' (Preempted nodes aside)"),
        v("$CurrentLowPriorityNodes, $PreemptedNodeCount", Kind::Sampled, "nodes", "with the spot class (any spot flag): its nodes, Preempted ones included as Batch counts them, and those Preempted; without it 0"),
        v("$CurrentDedicatedNodes, $CurrentLowPriorityNodes", Kind::Value, "nodes", "read as a value: the current count of each (--set in formula eval)"),
        v("$WallClockSeconds", Kind::Sampled, "seconds", "60·R"),
        v("$TaskSlotsPerNode", Kind::Sampled, "slots", "1"),
        v("every other sampled one", Kind::Sampled, "-", "0, not modelled: memory, disk, network, $FailedTasks"),
        v("$TargetDedicatedNodes", Kind::Set, "nodes", &format!("the target the group is steered to every round (read: the current target); fractions truncated; a scale-out stops at the group's capacity ({MAX_GROUP_SIZE} on a board, {HOST_GROUP_SIZE} on the host) as at a pool's quota")),
        v("$NodeDeallocationOption", Kind::Set, "a word", "requeue or terminate: a removed node leaves at once; taskcompletion, retaineddata: drained one or two rounds (billed, not serving)"),
        v("$TargetLowPriorityNodes", Kind::Set, "nodes", &format!("with the spot class (any spot flag, --preemption-rate 0 for none): the spot class's target, steered to every round like the dedicated one, within the same capacity ({HOST_GROUP_SIZE} on the host); without it evaluated and dropped")),
        v("--evaluation-interval", Kind::Flag, "rounds (minutes)", &format!("{MIN_EVALUATION_INTERVAL} to {MAX_EVALUATION_INTERVAL}, default {DEFAULT_EVALUATION_INTERVAL}; the first evaluation in round 0, at 2026-10-01T00:00:00Z, one minute a round")),
        v("--sample-delay", Kind::Flag, "seconds", &format!("0 to {MAX_SAMPLE_DELAY}, default {delay}: a sample is available that long after it is recorded (twice a round, 30 s apart)")),
    ]
}

/// `capsim formula variables`: [`variables`] as an aligned table (variable, kind, unit,
/// what capsim supplies).
pub fn variables_text() -> String {
    use std::fmt::Write as _;
    let table = variables();
    // A column's width: its longest text, and two spaces.
    let width = |text: fn(&Variable) -> &str| {
        table
            .iter()
            .map(|v| text(v).chars().count())
            .max()
            .unwrap_or(0)
            + 2
    };
    let name_w = width(|v| v.name);
    let kind_w = "sampled".len() + 2;
    let unit_w = width(|v| v.unit);
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.chars().count())));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}{}{}what capsim supplies",
        pad("variable", name_w),
        pad("kind", kind_w),
        pad("unit", unit_w)
    );
    for v in &table {
        let _ = writeln!(
            out,
            "{}{}{}{}",
            pad(v.name, name_w),
            pad(v.kind.word(), kind_w),
            pad(v.unit, unit_w),
            v.supplied
        );
    }
    out.push_str("\nD: the round's demand in requests (negative read as 0); C: --capacity, requests per instance\nand round; R: serving instances; N: nodes; g = ceil(D / C). sampled: recorded twice a round,\n30 s apart (read with $X.GetSample(...)); value: read as a number; set: assigned by the formula.\n");
    out
}

/// `capsim formula eval` flags.
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[derive(Debug)]
pub struct EvalArgs {
    /// The formula file (UTF-8; - reads standard input)
    pub file: PathBuf,
    /// The evaluation time, returned by time() and ending every sample window (RFC 3339, e.g. 2016-10-13T19:18:47.805Z, or RFC 1123)
    #[cfg_attr(feature = "cli", arg(long, value_name = "TIME", default_value = DEFAULT_AT))]
    pub at: String,
    /// Samples of a read-only variable, oldest first, 30 s apart; the last is the newest available one (recorded at or before --at minus --delay); an empty field is a missing sample; at most 240 values. Repeatable. Without it a variable has no samples
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME=V1:V2:..."))]
    pub sample: Vec<String>,
    /// A current value: $CurrentDedicatedNodes=10 (read as a value, not sampled), $TargetDedicatedNodes=8 (the pool's current target, read before the formula assigns it), $NodeDeallocationOption=taskcompletion. Repeatable
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME=VALUE"))]
    pub set: Vec<String>,
    /// Seconds between a sample's recording and its availability to the formula (Batch: about a minute); 0 to 86400
    #[cfg_attr(feature = "cli", arg(long, value_name = "SECONDS", default_value_t = 60, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=86_400)))]
    pub delay: u32,
    /// Seed of the rand() stream, 0 to 18446744073709551615
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "N",
            default_value_t = 1,
            allow_negative_numbers = true
        )
    )]
    pub seed: u64,
}

/// Why a formula command failed.
#[derive(Debug, PartialEq)]
pub enum Failure {
    /// Bad input (unreadable file, bad formula, bad flag): exit status 2.
    Input(String),
    /// The formula parsed but its evaluation failed: exit status 1.
    Evaluation(String),
}

/// What a formula subcommand printed: stdout, and its warnings (stderr's lines).
#[derive(Debug, Default, PartialEq)]
pub struct Ran {
    /// What goes to stdout.
    pub stdout: String,
    /// One line each, as compilers print them: `FILE:LINE:COL: warning: …`.
    pub warnings: Vec<String>,
}

/// Runs a formula subcommand; returns what to print on stdout and the warnings (stderr).
/// `check --deny-warnings` with warnings is [`Failure::Evaluation`] (status 1) after them:
/// its `Err` carries them ahead of its line.
pub fn run(cmd: &FormulaCommand) -> Result<Ran, (Vec<String>, Failure)> {
    let alone = |f: Failure| (Vec::new(), f);
    match cmd {
        FormulaCommand::Check {
            file,
            deny_warnings,
        } => {
            let src = read(file).map_err(alone)?;
            let program = parse(file, &src).map_err(alone)?;
            let warnings = warnings(file, &program);
            if *deny_warnings && !warnings.is_empty() {
                let n = warnings.len();
                let s = if n == 1 { "" } else { "s" };
                let line = format!("{n} warning{s} and --deny-warnings");
                return Err((warnings, Failure::Evaluation(line)));
            }
            Ok(Ran {
                stdout: String::new(),
                warnings,
            })
        }
        FormulaCommand::Eval(args) => {
            let src = read(&args.file).map_err(alone)?;
            let stdout = eval(&src, args).map_err(alone)?;
            Ok(Ran {
                stdout,
                warnings: Vec::new(),
            })
        }
        FormulaCommand::Variables => Ok(Ran {
            stdout: variables_text(),
            warnings: Vec::new(),
        }),
    }
}

/// The warnings of `program`, read from `path` ([`capsim_core::formula::Warning`]: a
/// `$CPUPercent` compared with a percent, a target that truncates back to the current
/// size), one line each as compilers print them: `PATH:LINE:COL: warning: message`.
pub fn warnings(path: &Path, program: &Program) -> Vec<String> {
    let name = crate::input::display_name(path);
    let mut out = Vec::new();
    program.lint(|w| out.push(format!("{name}:{}:{}: warning: {w}", w.line, w.col)));
    out
}

/// Reads a formula file: at most 8 KB and one byte ([`read_bounded`]).
fn read(path: &Path) -> Result<String, Failure> {
    read_bounded(path, MAX_SOURCE_BYTES).map_err(|e| {
        Failure::Input(match e {
            InputError::TooLong { .. } => format!(
                "{}: the formula is longer than 8 KB ({MAX_SOURCE_BYTES} bytes), Batch's limit",
                crate::input::display_name(path)
            ),
            e => e.to_string(),
        })
    })
}

fn parse(path: &Path, src: &str) -> Result<Box<Program>, Failure> {
    let mut program = Box::new(Program::new());
    // The core checks the 8 KB and 100-statement limits and names them in its error.
    program
        .parse(src)
        .map_err(|e| Failure::Input(located(path, &e)))?;
    Ok(program)
}

/// A formula's error as compilers print it, so that editors jump to it:
/// `PATH:LINE:COL: error: message` (`<stdin>:4:24: error: …` for `-`), the whole line
/// ([`crate::input::located`]).
pub fn located(path: &Path, e: &FormulaError) -> String {
    crate::input::located(path, e.line, e.col, &e.kind)
}

const SAMPLE_ACCEPTED: &str = "NAME=V1:V2:... with NAME a read-only variable ($CPUPercent, $PendingTasks, ...) and at most 240 numbers";

/// Evaluates `src` once with the flags' inputs.
pub fn eval(src: &str, args: &EvalArgs) -> Result<String, Failure> {
    let program = parse(&args.file, src)?;
    let now = Timestamp::parse(&args.at).ok_or_else(|| {
        Failure::Input(format!(
            "--at: accepted values are RFC 3339 times such as 2016-10-13T19:18:47.805Z (or RFC 1123), got '{}'",
            args.at
        ))
    })?;
    let delay = TimeInterval::from_seconds(i64::from(args.delay));
    let mut history: Box<History> = Box::new(History::new(delay));
    let period = 30 * TICKS_PER_SECOND;
    let newest = now.ticks().saturating_sub(delay.ticks()).div_euclid(period);
    let mut seen = [false; METRIC_COUNT];
    for s in &args.sample {
        let bad = || {
            Failure::Input(format!(
                "--sample: accepted values are {SAMPLE_ACCEPTED}, got '{s}'"
            ))
        };
        let (name, values) = s.split_once('=').ok_or_else(bad)?;
        let metric = Metric::lookup(name.trim()).ok_or_else(bad)?;
        if std::mem::replace(&mut seen[metric as usize], true) {
            return Err(Failure::Input(format!(
                "--sample: {} is given twice",
                metric.name()
            )));
        }
        let fields: Vec<&str> = values.split(':').collect();
        if fields.len() > DEFAULT_HISTORY {
            return Err(bad());
        }
        let first = newest - fields.len() as i64 + 1;
        if Timestamp::from_ticks(first * period).is_none() {
            // The values are fine; --at (minus --delay) leaves no room for them after
            // 0001-01-01T00:00:00Z.
            return Err(Failure::Input(format!(
                "--at: {} minus the {} s delay leaves no room for {} samples 30 s apart after 0001-01-01T00:00:00Z (the earliest time); give a later --at or fewer samples",
                args.at,
                args.delay,
                fields.len()
            )));
        }
        for (i, f) in fields.iter().enumerate() {
            let f = f.trim();
            if f.is_empty() {
                continue; // a missing sample
            }
            let v: f64 = f
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(bad)?;
            let at = Timestamp::from_ticks((first + i as i64) * period).ok_or_else(bad)?;
            history
                .record(at, metric, v)
                .map_err(|e| Failure::Input(format!("--sample: {e}")))?;
        }
    }
    let mut inputs = Inputs::new(now, &history);
    let mut given: Vec<String> = Vec::new();
    for s in &args.set {
        let name = set(&mut inputs, s)?;
        if given.contains(&name) {
            return Err(Failure::Input(format!("--set: {name} is given twice")));
        }
        given.push(name);
    }
    let mut ws = Box::new(Workspace::new(args.seed));
    match evaluate(&program, &inputs, &mut ws) {
        Ok(out) => Ok(format!("{out}\n")),
        Err(e) => Err(Failure::Evaluation(located(&args.file, &e))),
    }
}

/// Applies one `--set NAME=VALUE`; returns the variable's canonical name (an alias names
/// the variable it stands for, so `$TargetDedicated` and `$TargetDedicatedNodes` clash).
fn set(inputs: &mut Inputs<'_, DEFAULT_HISTORY>, s: &str) -> Result<String, Failure> {
    let bad = || {
        Failure::Input(format!(
            "--set: accepted values are NAME=VALUE with NAME a read-only variable, $TargetDedicatedNodes, $TargetLowPriorityNodes or $NodeDeallocationOption, got '{s}'"
        ))
    };
    let (name, value) = s.split_once('=').ok_or_else(bad)?;
    let bare = name.trim().trim_start_matches('$');
    let value = value.trim();
    let number = || {
        value
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(bad)
    };
    let is = |a: &str| bare.eq_ignore_ascii_case(a);
    if is("TargetDedicatedNodes") || is("TargetDedicated") {
        inputs.target_dedicated = number()?;
        Ok("$TargetDedicatedNodes".into())
    } else if is("TargetLowPriorityNodes") || is("TargetLowPriority") {
        inputs.target_low_priority = number()?;
        Ok("$TargetLowPriorityNodes".into())
    } else if is("NodeDeallocationOption") {
        inputs.deallocation = Deallocation::from_word(value).ok_or_else(bad)?;
        Ok("$NodeDeallocationOption".into())
    } else {
        let m = Metric::lookup(bare).ok_or_else(bad)?;
        inputs.current[m as usize] = Some(number()?);
        Ok(m.name().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/formulas.md's "Formula variables and their units" table is [`variables`], row for row
    /// (redo it from `capsim formula variables`).
    #[test]
    fn the_docs_variables_are_this_table() {
        let rows = crate::test_support::docs_table(
            "docs/formulas.md",
            "| variable | kind | unit | what capsim supplies |",
        );
        let want: Vec<String> = variables()
            .iter()
            .map(|v| {
                let name = if v.name.starts_with(['$', '-']) {
                    format!("`{}`", v.name)
                } else {
                    v.name.to_string()
                };
                format!(
                    "| {name} | {} | {} | {} |",
                    v.kind.word(),
                    v.unit,
                    v.supplied
                )
            })
            .collect();
        assert_eq!(rows, want, "docs/formulas.md's formula variables");
        // The limits page states the same capacity.
        let limits =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/limits.md"))
                .unwrap();
        let row = limits
            .lines()
            .find(|l| l.starts_with("| autoscale formula |"))
            .unwrap();
        let host = crate::models::HOST_GROUP_SIZE;
        let host = format!("{},{:03}", host / 1000, host % 1000);
        assert!(
            row.contains(&format!(
                "({host} on the host, {} on a board)",
                capsim_core::autoscale::MAX_GROUP_SIZE
            )),
            "{row}"
        );
    }

    /// The command prints every row: its name, kind, unit and what is supplied, in order.
    #[test]
    fn the_command_prints_every_variable() {
        let text = variables_text();
        let mut lines = text.lines();
        assert!(lines.next().unwrap().starts_with("variable"));
        let table = variables();
        for (v, line) in table.iter().zip(lines) {
            assert!(line.starts_with(v.name), "{line}");
            let rest: Vec<&str> = line[v.name.len()..]
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            assert_eq!(rest, [v.kind.word(), v.unit, v.supplied.as_str()], "{line}");
        }
        // Every read-only variable the evaluator knows that the group samples is listed by name.
        for m in [
            "$CPUPercent",
            "$PendingTasks",
            "$RunningTasks",
            "$ActiveTasks",
            "$SucceededTasks",
            "$SampleNodeCount",
            "$WallClockSeconds",
            "$TaskSlotsPerNode",
            "$CurrentLowPriorityNodes",
            "$PreemptedNodeCount",
        ] {
            assert!(
                table
                    .iter()
                    .any(|v| v.kind == Kind::Sampled && v.name.split(", ").any(|n| n == m)),
                "{m}"
            );
            assert!(capsim_core::formula::Metric::lookup(m).is_some(), "{m}");
        }
    }
}
