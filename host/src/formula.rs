//! `capsim formula check|eval`: the autoscale formula language on the command line.
//!
//! `check` parses a file and checks the limits; `eval` runs one evaluation, as Batch's
//! `EvaluateAutoScale` does, against samples given on the command line.

use std::path::{Path, PathBuf};

use capsim_core::formula::{
    evaluate, Deallocation, History, Inputs, Metric, Program, TimeInterval, Timestamp, Workspace,
    DEFAULT_HISTORY, METRIC_COUNT, TICKS_PER_SECOND,
};

/// The time `time()` returns without `--at`: the simulator's epoch (spec §11).
pub const DEFAULT_AT: &str = "2026-10-01T00:00:00Z";

/// Limits and conventions, shown by `capsim formula --help`.
pub const FORMULA_HELP: &str = "\
Limits: a formula is at most 8 KB (8192 bytes) and 100 statements (Batch's limits), at most
1024 expression nodes, 64 user variables and 24 levels of nesting; an evaluation holds at most
1024 vector values; --sample takes at most 240 values (2 hours) per variable. A formula that
breaks the grammar or a limit exits with status 2 and one line: error: line L, col C: message.
eval: an evaluation that fails (e.g. insufficient sample data) exits with status 1 and one
line; nothing is printed on stdout.";

/// The formula subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum FormulaCommand {
    /// Parse a formula file and check Batch's limits; silent on success
    #[command(after_help = FORMULA_HELP)]
    Check {
        /// The formula file (UTF-8)
        file: PathBuf,
    },
    /// Evaluate a formula once and print the results string as Batch's EvaluateAutoScale does
    #[command(after_help = FORMULA_HELP)]
    Eval(EvalArgs),
}

/// `capsim formula eval` flags.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// The formula file (UTF-8)
    pub file: PathBuf,
    /// The evaluation time, returned by time() and ending every sample window (RFC 3339, e.g. 2016-10-13T19:18:47.805Z, or RFC 1123)
    #[arg(long, value_name = "TIME", default_value = DEFAULT_AT)]
    pub at: String,
    /// Samples of a read-only variable, oldest first, 30 s apart; the last is the newest available one (recorded at or before --at minus --delay); an empty field is a missing sample; at most 240 values. Repeatable. Without it a variable has no samples
    #[arg(long, value_name = "NAME=V1:V2:...")]
    pub sample: Vec<String>,
    /// A current value: $CurrentDedicatedNodes=10 (read as a value, not sampled), $TargetDedicatedNodes=8 (the pool's current target, read before the formula assigns it), $NodeDeallocationOption=taskcompletion. Repeatable
    #[arg(long, value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Seconds between a sample's recording and its availability to the formula (Batch: about a minute)
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u32).range(0..=86_400))]
    pub delay: u32,
    /// Seed of the rand() stream
    #[arg(long, value_name = "N", default_value_t = 1)]
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

/// Runs a formula subcommand; returns what to print on stdout.
pub fn run(cmd: &FormulaCommand) -> Result<String, Failure> {
    match cmd {
        FormulaCommand::Check { file } => {
            let src = read(file)?;
            parse(&src)?;
            Ok(String::new())
        }
        FormulaCommand::Eval(args) => {
            let src = read(&args.file)?;
            eval(&src, args)
        }
    }
}

fn read(path: &Path) -> Result<String, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::Input(format!("{}: cannot read: {e}", path.display())))?;
    String::from_utf8(bytes)
        .map_err(|_| Failure::Input(format!("{}: not UTF-8 text", path.display())))
}

fn parse(src: &str) -> Result<Box<Program>, Failure> {
    let mut program = Box::new(Program::new());
    // The core checks the 8 KB and 100-statement limits and names them in its error.
    program
        .parse(src)
        .map_err(|e| Failure::Input(e.to_string()))?;
    Ok(program)
}

const SAMPLE_ACCEPTED: &str = "NAME=V1:V2:... with NAME a read-only variable ($CPUPercent, $PendingTasks, ...) and at most 240 numbers";

/// Evaluates `src` once with the flags' inputs.
pub fn eval(src: &str, args: &EvalArgs) -> Result<String, Failure> {
    let program = parse(src)?;
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
    for s in &args.set {
        set(&mut inputs, s)?;
    }
    let mut ws = Box::new(Workspace::new(args.seed));
    match evaluate(&program, &inputs, &mut ws) {
        Ok(out) => Ok(format!("{out}\n")),
        Err(e) => Err(Failure::Evaluation(e.to_string())),
    }
}

fn set(inputs: &mut Inputs<'_, DEFAULT_HISTORY>, s: &str) -> Result<(), Failure> {
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
    } else if is("TargetLowPriorityNodes") || is("TargetLowPriority") {
        inputs.target_low_priority = number()?;
    } else if is("NodeDeallocationOption") {
        inputs.deallocation = Deallocation::from_word(value).ok_or_else(bad)?;
    } else {
        let m = Metric::lookup(bare).ok_or_else(bad)?;
        inputs.current[m as usize] = Some(number()?);
    }
    Ok(())
}
