//! `capsim`: the lessons' outputs byte for byte, and parameter sweeps of their models.
//!
//! Bad input exits with status 2 and one line on stderr naming the flag and what it accepts;
//! nothing here panics on input.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::OnceLock;

use capsim_core::lesson::{self, Lang, Lesson};
use clap::{CommandFactory, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use capsim::models::{Autoscale, Bulkhead, Consumers, Flags, Model};
use capsim::output::Format;
use capsim::plot::Plotted;
use capsim::sweep::{self, Failure, Options, Progress};
use capsim::trace::Traced;

const LIMITS: &str = "\
Every parameter flag takes a comma-separated list of values (integer flags also take ranges,
'1..=100' or '1..101'); the command runs every combination, the first flag outermost and the
seed innermost. Limits: each list at most 1000000 values, at most 1000000 runs per command;
seeds 1 to 2147483646; --threads 0 (one per core) to 256. Bad input exits with status 2 and
one line on stderr.";

/// `capsim autoscale`'s limits: [`LIMITS`] and the group's capacity.
const AUTOSCALE_LIMITS: &str = "\
Every parameter flag takes a comma-separated list of values (integer flags also take ranges,
'1..=100' or '1..101'); the command runs every combination, the first flag outermost and the
seed innermost. Limits: each list at most 1000000 values, at most 1000000 runs per command;
seeds 1 to 2147483646; --threads 0 (one per core) to 256. Bad input exits with status 2 and
one line on stderr. A group holds at most 16384 instances here (every state, Stopped included,
plus the launches an apply delay holds in flight; a board's group holds 256): a run that needs
more stops with an error naming that capacity. A run has at most 50 lifecycle hooks in all
(AWS's quota per group; the one-hook flags included) and 125 timed actions (AWS's scheduled
actions per group); a scenario file is at most 1048576 bytes.";

/// Capacity and resilience lessons, runnable and bit-for-bit reproducible.
#[derive(Parser, Debug)]
#[command(name = "capsim", version, about, after_help = LIMITS)]
struct Cli {
    /// `None`: a short usage line and the commands on stderr, status 2.
    #[command(subcommand)]
    command: Option<Command>,
}

/// `capsim lesson`'s accepted names, each with its line of help.
fn lesson_names() -> clap::builder::PossibleValuesParser {
    capsim::query::LESSONS
        .iter()
        .map(|(name, about)| clap::builder::PossibleValue::new(name).help(about))
        .collect::<Vec<_>>()
        .into()
}

// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    /// Print a lesson's output exactly as the lesson program prints it (no NAME: list them)
    Lesson {
        /// The lesson (without it: the list of lessons)
        #[arg(value_name = "NAME", value_parser = lesson_names())]
        name: Option<String>,
        /// The language of the output: tr, the lessons' own Turkish (byte for byte), or en,
        /// an English translation with the same numbers in the same places
        #[arg(long, value_name = "LANG", default_value = "tr", value_parser = ["tr", "en"])]
        lang: String,
    },
    /// Auto-scaling group with a health check: threshold x cooldown sweeps
    #[command(after_help = AUTOSCALE_LIMITS)]
    Autoscale {
        #[command(flatten)]
        model: AutoscaleArgs,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Competing consumers on one queue with a store of S slots
    #[command(after_help = LIMITS)]
    Consumers {
        #[command(flatten)]
        model: Flags<Consumers>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// One run, one row per round: watch it unfold (CSV rows are what a board prints)
    #[command(subcommand)]
    Trace(TraceCommand),
    /// One run per value of the listed flags, charted over the rounds as an SVG file
    #[command(subcommand)]
    Plot(PlotCommand),
    /// Azure Batch autoscale formulas: check a formula file, evaluate it once, or list the variables a group supplies
    #[command(subcommand, after_help = capsim::formula::FORMULA_HELP)]
    Formula(capsim::formula::FormulaCommand),
    /// One shared slot pool vs. partitioned pools, healthy or with a slow dependency
    #[command(after_help = LIMITS)]
    Bulkhead {
        #[command(flatten)]
        model: Flags<Bulkhead>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Print a shell completion script: bash, zsh, fish, powershell or elvish
    Completions {
        /// The shell
        #[arg(value_enum, value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print the manual page as roff (capsim man > capsim.1; man -l capsim.1), or a command's (capsim man trace autoscale)
    Man {
        /// The command whose page to print (none: capsim's own, which lists the commands)
        #[arg(value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Merge the JSON rows of a grid's shards (--format json --shard K/N, in shard order) into the --summary of the whole grid
    #[command(after_help = SUMMARY_HELP)]
    Summary {
        /// The shards' outputs, in shard order (- reads standard input, once)
        #[arg(value_name = "FILE", required = true)]
        files: Vec<String>,
        /// Output format, as --summary prints it: aligned table, JSON Lines or CSV
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// What every metric of the rows means, and its unit
    Metrics {
        /// autoscale, consumers or bulkhead (default: all three)
        #[arg(value_name = "MODEL", value_parser = capsim::glossary::MODELS)]
        model: Option<String>,
    },
}

const SUMMARY_HELP: &str = "\
capsim summary of the outputs of shards 1..N (each capsim MODEL ... --format json --shard K/N,
given in shard order) prints the bytes --summary of the whole grid prints, in --format table,
json or csv; a grid run with --columns LIST summarizes those metrics. The rows tell the model,
the metrics and the combinations (consecutive rows sharing every parameter but the seed);
every combination must have the seeds of one bounded by others, in order, and the
combinations must step through the grid's values in grid order, or the error names the file
and line where a shard is missing, out of place or given twice (status 2; no combination is
written before it is known to be whole). A table takes two passes over the rows, so it
reads files, not - (standard input serves json and csv). Limits: a row is at most 1048576
bytes, a file at most 4294967296 bytes, 1000000 rows in all (a grid's most runs). Not
recoverable from rows: a grid whose lists repeat a value (--threshold 2,2: refused), a grid
of one combination missing its first or last seeds, whole blocks of the first flag's values
missing at either end (they read as the smaller grid they are).";

const TRACE_HELP: &str = "\
One run: every flag takes one value (a list or range of more is an error). One row per round,
in round order. Columns: autoscale round demand required size ready booting broken launched
replaced removed, then the instances per lifecycle state (a --formula run adds target_dedicated
evaluated evaluation_failed: the target after the round's decision, 1 in a round with an
evaluation, 1 when it failed; --evaluations prints the evaluations instead); consumers round applied reordered
busy_consumers queue_left (every round, the ones the engine skips included), and arrived
dropped backlog with --arrival-rate, --outage, --buffer or --routing keyed; bulkhead round
busy tracking_served tracking_dropped event_served event_dropped, and tracking_busy
event_busy for a split layout, then breaker (0 closed, 1 open, 2 half-open) retries_waiting
dependency_calls rejected with --failure-end, --breaker or --retries. Every format streams the rows: a table's widths are fixed by
its first 4096 rows (a later, wider cell widens its own line only).";

/// `capsim trace <model>`.
#[derive(Subcommand, Debug)]
enum TraceCommand {
    /// The auto-scaling group's rounds
    #[command(after_help = TRACE_HELP)]
    Autoscale {
        #[command(flatten)]
        model: AutoscaleArgs,
        #[command(flatten)]
        out: TraceArgs,
        /// Instead of the rounds, one JSON Line per formula evaluation, as Batch's AutoScaleRun records it: {"round": R, "timestamp": "...Z", "results": "$TargetDedicatedNodes=...; ...", "error": null or "line L, col C: message"} (needs --formula; not with --format)
        #[arg(long, conflicts_with_all = ["format", "columns"])]
        evaluations: bool,
    },
    /// The consumers' rounds
    #[command(after_help = TRACE_HELP)]
    Consumers {
        #[command(flatten)]
        model: Flags<Consumers>,
        #[command(flatten)]
        out: TraceArgs,
    },
    /// The bulkhead's rounds
    #[command(after_help = TRACE_HELP)]
    Bulkhead {
        #[command(flatten)]
        model: Flags<Bulkhead>,
        #[command(flatten)]
        out: TraceArgs,
    },
}

/// `capsim trace`'s output flag.
#[derive(clap::Args, Debug)]
struct TraceArgs {
    /// Output format: aligned table (numbers with a fraction to 4 significant digits), JSON Lines (one object per round), or CSV (JSON and CSV keep every digit)
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// The columns to show, comma-separated, in that order, in every format ['help' lists the run's columns]
    #[arg(long, value_name = "LIST")]
    columns: Option<String>,
}

const PLOT_HELP: &str = "\
Every combination of the flags' values is one run (at most 8 in one chart, of any number of
rounds); each run draws its series, labelled by its values of the listed flags. A chart
whose panel would hold more than 4 series draws a panel per stream (a line per run in each,
the series every run shares in grey), or, if one would still hold more, a panel per run;
9 to 36 runs (the lesson's 3 x 3 sweep, say) are always a panel per run, captioned by its
values, every panel on the same axes. autoscale: group size, ready
and required instances (a --formula run adds the formula's target, the trace's
target_dedicated, as a wide band under them); consumers: events not yet applied; bulkhead: tracking and event
requests dropped so far. Marks: the autoscale surge and the bulkhead slowdown shaded grey,
the rounds under capacity (the metric under_capacity_rounds) red, hook waits blue (a run's
own as a strip under its lines when several runs share a panel), failure rounds as black
rules, formula evaluations as ticks; the legend sits under the plots. A series of more
than 1024 rounds is drawn through each bucket's
lowest and highest value (512 to 1024 buckets): its extremes are the run's. The SVG is the
same bytes on every machine. -o - writes it to stdout; -o FILE.png writes the same chart as
PNG in a build with the png feature (cargo install --path host --locked --features png), and
is refused otherwise (convert the SVG, e.g. rsvg-convert -o x.png x.svg); any other extension
is refused.";

/// `capsim plot <model>`.
#[derive(Subcommand, Debug)]
enum PlotCommand {
    /// Group size, ready and required instances over the rounds
    #[command(after_help = PLOT_HELP)]
    Autoscale {
        #[command(flatten)]
        model: AutoscaleArgs,
        #[command(flatten)]
        out: PlotArgs,
    },
    /// Events not yet applied over the rounds
    #[command(after_help = PLOT_HELP)]
    Consumers {
        #[command(flatten)]
        model: Flags<Consumers>,
        #[command(flatten)]
        out: PlotArgs,
    },
    /// Requests dropped so far, per stream, over the rounds
    #[command(after_help = PLOT_HELP)]
    Bulkhead {
        #[command(flatten)]
        model: Flags<Bulkhead>,
        #[command(flatten)]
        out: PlotArgs,
    },
}

/// `capsim plot`'s output flag.
#[derive(clap::Args, Debug)]
struct PlotArgs {
    /// The SVG file to write, or - for stdout; FILE.png writes the same chart as PNG in a build with the png feature [another extension than .svg (or .png) is refused]
    #[arg(short = 'o', long = "output", value_name = "FILE.svg", required = true)]
    output: std::path::PathBuf,
    /// Instead of the rounds, a histogram of --metric across every run (e.g. --seed 1..=500) [at most 100000 runs]
    #[arg(long)]
    summary: bool,
    /// The metric of the --summary histogram (a key of the model's rows) [autoscale: launched; consumers: rounds; bulkhead: tracking_dropped]
    #[arg(long, value_name = "KEY", requires = "summary")]
    metric: Option<String>,
    /// The chart's width in pixels, its height following (every text at least 15 px at this size) [280 to 3840]
    #[arg(long, value_name = "PX", default_value = "960")]
    width: String,
    /// The language of the chart's words: en, or tr (the lessons' Turkish)
    #[arg(long, value_name = "LANG", default_value = "en", value_parser = ["en", "tr"])]
    lang: String,
}

/// The autoscale commands' parameters: the model's flags, over `--scenario FILE.toml`'s (an
/// autoscale setup written down, [`capsim::scenario`]).
#[derive(clap::Args, Debug)]
struct AutoscaleArgs {
    #[command(flatten)]
    model: Flags<Autoscale>,
    /// A scenario file (TOML): [params] with the rows' keys and the flags' values (an array is a list), [[launch_hooks]] and [[terminate_hooks]] (timeout, default_result, action_rounds, heartbeat_every, provider), [[at]] (round and timed actions); flags given here override it [at most 1048576 bytes; at most 50 hooks, 125 timed actions]
    #[arg(long, value_name = "FILE.toml")]
    scenario: Option<std::path::PathBuf>,
}

impl AutoscaleArgs {
    /// Returns the flags over the scenario's (the flags alone without one), having written
    /// their formulas' warnings to stderr (as `capsim formula check` writes them).
    fn flags(self) -> Result<Flags<Autoscale>, Failure> {
        let flags = match &self.scenario {
            None => self.model,
            Some(path) => self
                .model
                .over(capsim::scenario::flags::<Autoscale>(path).map_err(Failure::Input)?),
        };
        for w in capsim::trace::formula_warnings(&flags) {
            eprintln!("{w}");
        }
        Ok(flags)
    }
}

/// Flags every model command shares.
#[derive(clap::Args, Debug)]
struct RunArgs {
    /// Output format: aligned table for people (the headline parameters, the swept ones and the lesson's metrics; numbers with a fraction to 4 significant digits), JSON Lines (one object per run, every key) or CSV (every key); JSON and CSV keep every digit
    #[cfg_attr(
        feature = "parquet",
        arg(
            help = "Output format: aligned table for people (the headline parameters, the swept ones and the lesson's metrics; numbers with a fraction to 4 significant digits), JSON Lines (one object per run, every key), CSV (every key), or parquet: the JSON rows as an Apache Parquet file on stdout (redirect it: > grid.parquet); JSON, CSV and parquet keep every digit"
        )
    )]
    #[arg(long, value_enum, default_value = "table")]
    format: RowFormat,
    /// Aggregate each parameter combination across its seeds: mean, std, min, p5, p50, p95, max of every metric
    #[arg(long)]
    summary: bool,
    /// Worker threads for the runs (output order and bytes do not depend on it) [0 (one per core) to 256]
    #[arg(long, value_name = "N", default_value_t = 0, allow_hyphen_values = true, value_parser = parse_threads)]
    threads: usize,
    /// The columns to show, comma-separated: metrics and parameters (row keys), in every format and in --summary; the rows hold the swept parameters, then the named columns in that order ['all': every metric (the table's full width); 'help' lists them, the table's default metrics marked]
    #[arg(long, value_name = "LIST")]
    columns: Option<String>,
    /// Run only the K-th of N contiguous slices of the grid: runs len*(K-1)/N to len*K/N (rounded down, end excluded); shards 1..N concatenated are the whole grid's csv or json bytes (csv's header in shard 1 only) [1 <= K <= N <= 1000000; not with table or --summary]
    #[arg(long, value_name = "K/N", allow_hyphen_values = true, value_parser = sweep::Shard::parse)]
    shard: Option<sweep::Shard>,
}

/// The model commands' `--format`: the row formats, and in a build with the parquet feature
/// an Apache Parquet file of the JSON rows ([`capsim::parquet`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum RowFormat {
    /// Aligned columns for people
    Table,
    /// One JSON object per line
    Json,
    /// Comma-separated values with a header line
    Csv,
    /// An Apache Parquet file: a column per key, typed by its values
    #[cfg(feature = "parquet")]
    Parquet,
}

impl RowFormat {
    /// The rows' format: Parquet is made of the JSON rows.
    fn rows(self) -> Format {
        match self {
            RowFormat::Table => Format::Table,
            RowFormat::Json => Format::Json,
            RowFormat::Csv => Format::Csv,
            #[cfg(feature = "parquet")]
            RowFormat::Parquet => Format::Json,
        }
    }
}

/// The most worker threads `--threads` accepts: more only loads the machine.
const MAX_THREADS: usize = 256;

/// Parses `--threads`: 0 (one per core) to [`MAX_THREADS`].
fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n <= MAX_THREADS => Ok(n),
        _ => Err(format!(
            "accepted values are 0 (one per core) to {MAX_THREADS}"
        )),
    }
}

fn main() -> ExitCode {
    // A last line of defence: a bug must still end in one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!("error: internal error: {msg}");
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_failure(e),
    };
    let Some(command) = cli.command else {
        eprint!("{}", short_usage());
        return ExitCode::from(2);
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = run(command, &mut out).and_then(|()| out.flush().map_err(Failure::Io));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("{}", error_line(&msg));
            ExitCode::from(2)
        }
        Err(Failure::Evaluation(msg)) => {
            eprintln!("{}", error_line(&msg));
            ExitCode::from(1)
        }
        // A closed pipe (`capsim ... | head`) is not an error worth a message.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Io(e)) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(1)
        }
    }
}

/// The line an error prints: `error: message`, or a formula's located error as it is
/// (`demand.formula:4:24: error: …`, as compilers print theirs).
fn error_line(msg: &str) -> String {
    if capsim::input::is_located(msg) {
        msg.to_string()
    } else {
        format!("error: {msg}")
    }
}

/// Prints help and version as clap does; squeezes every other clap error into one line.
fn clap_failure(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = e.print();
        return ExitCode::from(2);
    }
    let text = e.render().to_string();
    // A value whose own message names its flag (`--demand-file d.csv: line 17: …`) is
    // that message alone; a formula's located error (`f.formula:4:24: error: …`) too.
    if let Some((_, rest)) = text.split_once(" <LIST>': ") {
        let first = rest.lines().next().unwrap_or(rest).trim();
        if capsim::input::is_located(first) {
            eprintln!("{first}");
            return ExitCode::from(2);
        }
    }
    if let Some((head, rest)) = text.split_once(" <LIST>': ") {
        if let Some(flag) = head.rsplit_once("'--").map(|(_, f)| f) {
            if rest.starts_with(&format!("--{flag} ")) {
                eprintln!("error: {}", rest.lines().next().unwrap_or(rest).trim());
                return ExitCode::from(2);
            }
        }
    }
    let line: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("Usage:")
                && !l.starts_with("For more information")
                && !l.starts_with("tip:")
        })
        .collect();
    let line = line.join(" ");
    // A model command's --format parquet, in a build without the feature.
    let model = std::env::args()
        .nth(1)
        .is_some_and(|c| capsim::query::MODELS.contains(&c.as_str()));
    let hint = if model && line.contains("invalid value 'parquet' for '--format <FORMAT>'") {
        "; --format parquet is in a build with the parquet feature (cargo install --path host --locked --features parquet)".to_string()
    } else {
        suggestion(&e)
    };
    eprintln!("{line}{hint}");
    ExitCode::from(2)
}

/// Returns "; did you mean X?" for a misspelt flag, value or command, X the nearest of the
/// accepted ones by [`capsim::list::closest`] (the same rule as the playground's, not
/// clap's own tips); "" if none is near.
fn suggestion(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    // The command the error is about: the words of the command line naming subcommands.
    let mut cmd = Cli::command();
    for word in std::env::args().skip(1) {
        match cmd.find_subcommand(&word) {
            Some(sub) => cmd = sub.clone(),
            None => break,
        }
    }
    let (typed, accepted): (Option<String>, Vec<String>) = match e.kind() {
        ErrorKind::UnknownArgument => (
            text(ContextKind::InvalidArg),
            cmd.get_arguments()
                .filter_map(|a| a.get_long())
                .map(|l| format!("--{l}"))
                .collect(),
        ),
        ErrorKind::InvalidSubcommand => (
            text(ContextKind::InvalidSubcommand),
            cmd.get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect(),
        ),
        ErrorKind::InvalidValue => (
            text(ContextKind::InvalidValue),
            match e.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(v)) => v.clone(),
                _ => Vec::new(),
            },
        ),
        _ => (None, Vec::new()),
    };
    let accepted: Vec<&str> = accepted.iter().map(String::as_str).collect();
    typed
        .and_then(|t| capsim::list::closest(&t, &accepted))
        .map(|c| format!("; did you mean {c}?"))
        .unwrap_or_default()
}

/// What `capsim` alone prints: the usage line and the commands, one line each.
fn short_usage() -> String {
    let cmd = Cli::command();
    let mut text = String::from("Usage: capsim <COMMAND> [OPTIONS]\n\nCommands:\n");
    let commands: Vec<_> = cmd.get_subcommands().collect();
    let width = commands
        .iter()
        .map(|c| c.get_name().len())
        .max()
        .unwrap_or(0);
    for c in commands {
        let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
        text.push_str(&format!("  {:width$}  {about}\n", c.get_name()));
    }
    text.push_str("\n'capsim COMMAND --help' for a command's flags, 'capsim --help' for more.\n");
    text
}

fn run(command: Command, out: &mut impl Write) -> Result<(), Failure> {
    match command {
        Command::Lesson { name: None, .. } => {
            Ok(out.write_all(capsim::query::lesson_list().as_bytes())?)
        }
        Command::Lesson {
            name: Some(name),
            lang,
        } => print_lesson(&name, &lang, out),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "capsim", out);
            Ok(())
        }
        Command::Man { command } => man_page(&command, out),
        Command::Autoscale { model, run } => sweep(&model.flags()?, &run, out),
        Command::Consumers { model, run } => sweep(&model, &run, out),
        Command::Bulkhead { model, run } => sweep(&model, &run, out),
        Command::Trace(TraceCommand::Autoscale {
            model,
            evaluations: true,
            ..
        }) => {
            let model = model.flags()?;
            let p = capsim::trace::single(&model).map_err(Failure::Input)?;
            (Autoscale::VALIDATE)(&p).map_err(|e| Failure::Input(e.to_string()))?;
            capsim::trace::write_evaluations(&p, out).map_err(|e| match e {
                capsim::trace::Stop::Input(m) => Failure::Input(m),
                capsim::trace::Stop::Io(e) => Failure::Io(e),
            })
        }
        Command::Trace(TraceCommand::Autoscale { model, out: o, .. }) => {
            trace(&model.flags()?, &o, out)
        }
        Command::Trace(TraceCommand::Consumers { model, out: o }) => trace(&model, &o, out),
        Command::Trace(TraceCommand::Bulkhead { model, out: o }) => trace(&model, &o, out),
        Command::Plot(PlotCommand::Autoscale { model, out: o }) => plot(
            "autoscale",
            &model.flags()?,
            &o,
            summary_metric("autoscale"),
            out,
        ),
        Command::Plot(PlotCommand::Consumers { model, out: o }) => {
            plot("consumers", &model, &o, summary_metric("consumers"), out)
        }
        Command::Plot(PlotCommand::Bulkhead { model, out: o }) => {
            plot("bulkhead", &model, &o, summary_metric("bulkhead"), out)
        }
        Command::Summary { files, format } => capsim::merge::merge(&files, format, out),
        Command::Metrics { model } => {
            let text = capsim::glossary::text(model.as_deref()).map_err(Failure::Input)?;
            Ok(out.write_all(text.as_bytes())?)
        }
        Command::Formula(cmd) => match capsim::formula::run(&cmd) {
            Ok(ran) => {
                for w in &ran.warnings {
                    eprintln!("{w}");
                }
                Ok(out.write_all(ran.stdout.as_bytes())?)
            }
            Err((warnings, failure)) => {
                for w in &warnings {
                    eprintln!("{w}");
                }
                Err(match failure {
                    capsim::formula::Failure::Input(m) => Failure::Input(m),
                    capsim::formula::Failure::Evaluation(m) => Failure::Evaluation(m),
                })
            }
        },
    }
}

/// `capsim man [COMMAND...]`: the page of capsim or of one of its commands
/// (`capsim-trace-autoscale(1)`), with every flag and its limits as `--help` shows them.
fn man_page(words: &[String], out: &mut impl Write) -> Result<(), Failure> {
    let mut page = Cli::command();
    page.build();
    let mut name = String::from("capsim");
    for word in words {
        let names: Vec<&str> = page.get_subcommands().map(|c| c.get_name()).collect();
        let Some(next) = page.find_subcommand(word).cloned() else {
            let hint = capsim::list::closest(word, &names)
                .map(|c| format!("; did you mean {c}?"))
                .unwrap_or_default();
            return Err(Failure::Input(format!(
                "capsim man: '{}' has no command '{word}'{hint} (commands: {})",
                name.replace('-', " "),
                names.join(", ")
            )));
        };
        name = format!("{name}-{word}");
        page = next;
    }
    let page = page.name(name);
    Ok(clap_mangen::Man::new(page).render(out)?)
}

/// Adapts an `io::Write` to `fmt::Write`, keeping the I/O error.
struct FmtIo<'a, W: Write> {
    inner: &'a mut W,
    error: Option<io::Error>,
}

impl<W: Write> std::fmt::Write for FmtIo<'_, W> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.inner.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

fn print_lesson(name: &str, lang: &str, out: &mut impl Write) -> Result<(), Failure> {
    let lang = Lang::from_name(lang).unwrap_or_default(); // clap admits only tr and en
    let lessons: Vec<Lesson> = match Lesson::from_name(name) {
        Some(l) => vec![l],
        None => Lesson::ALL.to_vec(), // clap admits only the five names and "all"
    };
    // Twelve lanes: the consumers lesson's configurations share one pass over its queue.
    let mut ws = Box::new(capsim::LessonWorkspace::new());
    let mut w = FmtIo {
        inner: out,
        error: None,
    };
    for l in lessons {
        if let Err(e) = lesson::render_in(l, lang, &mut w, &mut ws) {
            return Err(match w.error.take() {
                Some(io) => Failure::Io(io),
                None => Failure::Input(e.to_string()),
            });
        }
    }
    Ok(())
}

fn sweep<M: Model>(model: &Flags<M>, args: &RunArgs, out: &mut impl Write) -> Result<(), Failure> {
    let options = Options {
        columns: args.columns.clone(),
        shard: args.shard,
        ..Options::new(args.format.rows(), args.summary, args.threads)
    };
    // `--columns help` lists the metrics: text, not rows.
    #[cfg(feature = "parquet")]
    if args.format == RowFormat::Parquet && args.columns.as_deref() != Some("help") {
        if io::stdout().is_terminal() {
            return Err(Failure::Input(
                "--format parquet writes a binary file: redirect the output to one (> grid.parquet)"
                    .to_string(),
            ));
        }
        let mut rows = capsim::parquet::ParquetRows::new(out);
        let result = sweep_rows(model, &options, &mut rows);
        // The rows before a failed run are in the file, as they are in JSON and CSV.
        let finished = rows.finish().map(drop).map_err(Failure::Io);
        return result.and(finished).map_err(|e| match e {
            // A value that does not fit its column: the rows, not the output, are at fault.
            Failure::Io(e) if e.kind() == io::ErrorKind::InvalidData => {
                Failure::Input(e.to_string())
            }
            e => e,
        });
    }
    sweep_rows(model, &options, out)
}

/// Runs the sweep, with a progress bar when stderr is a terminal.
fn sweep_rows<M: Model>(
    model: &Flags<M>,
    options: &Options,
    out: &mut impl Write,
) -> Result<(), Failure> {
    if !io::stderr().is_terminal() {
        return sweep::sweep(model, options, out, &());
    }
    let bar = Bar(OnceLock::new());
    let result = sweep::sweep(model, options, out, &bar);
    // Gone before an error line or the shell prompt.
    if let Some(b) = bar.0.get() {
        b.finish_and_clear();
    }
    result
}

/// A progress bar on stderr (only ever made when stderr is a terminal): runs done, runs per
/// second, time left. Grids of one run show none.
struct Bar(OnceLock<ProgressBar>);

impl Progress for Bar {
    fn start(&self, runs: u64) {
        if runs < 2 {
            return;
        }
        let style = ProgressStyle::with_template(
            "{wide_bar} {human_pos}/{human_len} runs, {rate} runs/s, {eta} left",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.0}", s.per_sec());
        });
        let bar = ProgressBar::with_draw_target(Some(runs), ProgressDrawTarget::stderr())
            .with_style(style);
        // Ctrl-C clears the bar's line, then ends the command with status 130 (128 + SIGINT),
        // as the signal itself would; the rows of the windows written so far stay written.
        #[cfg(not(target_os = "wasi"))]
        {
            static SHOWN: OnceLock<ProgressBar> = OnceLock::new();
            if SHOWN.set(bar.clone()).is_ok() {
                let _ = ctrlc::set_handler(|| {
                    if let Some(b) = SHOWN.get() {
                        b.finish_and_clear();
                    }
                    std::process::exit(130);
                });
            }
        }
        let _ = self.0.set(bar);
    }

    fn done(&self, runs: u64) {
        if let Some(b) = self.0.get() {
            b.inc(runs);
        }
    }

    fn suspend<R>(&self, write: impl FnOnce() -> R) -> R {
        match self.0.get() {
            Some(b) => b.suspend(write),
            None => write(),
        }
    }
}

/// `capsim trace`: checks the one run, then writes its rows.
fn trace<M: Traced>(
    model: &Flags<M>,
    args: &TraceArgs,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let p = capsim::trace::single(model).map_err(Failure::Input)?;
    (M::VALIDATE)(&p).map_err(|e| Failure::Input(e.to_string()))?;
    let columns = args.columns.as_deref();
    capsim::trace::write_columns::<M>(&p, args.format, columns, out).map_err(|e| match e {
        capsim::trace::Stop::Input(m) => Failure::Input(m),
        capsim::trace::Stop::Io(e) => Failure::Io(e),
    })
}

/// The metric `capsim plot MODEL --summary` draws without `--metric`.
fn summary_metric(model: &str) -> &'static str {
    capsim::plot::SUMMARY_METRIC
        .iter()
        .find(|(m, _)| *m == model)
        .map_or("", |(_, k)| *k)
}

/// `capsim plot`: checks the output target, draws the runs, then writes the SVG to the file
/// (or to `out` for `-o -`).
fn plot<M: Plotted>(
    name: &str,
    model: &Flags<M>,
    args: &PlotArgs,
    metric: &str,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let stdout = args.output.as_os_str() == "-";
    let png = args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let written =
        |e: &std::ffi::OsStr| e.eq_ignore_ascii_case("svg") || (png && cfg!(feature = "png"));
    if let Some(ext) = args.output.extension().filter(|e| !written(e)) {
        let also = if png {
            ", or PNG when built with --features png"
        } else if cfg!(feature = "png") {
            " or PNG"
        } else {
            ""
        };
        return Err(Failure::Input(format!(
            "-o {}: capsim plot writes SVG{also}, not .{} (write FILE.svg and convert it, e.g. rsvg-convert -o FILE.png FILE.svg)",
            args.output.display(),
            ext.to_string_lossy()
        )));
    }
    let look = capsim::plot::Look::parse(&args.width, &args.lang).map_err(Failure::Input)?;
    let svg = if args.summary {
        let metric = args.metric.as_deref().unwrap_or(metric);
        capsim::plot::histogram_with(name, model, metric, look)
    } else {
        capsim::plot::plot_with(name, model, look)
    }
    .map_err(Failure::Input)?;
    if stdout {
        return Ok(out.write_all(svg.as_bytes())?);
    }
    #[cfg(feature = "png")]
    if png {
        let bytes = capsim::plot::png(&svg).map_err(Failure::Input)?;
        return std::fs::write(&args.output, bytes)
            .map_err(|e| Failure::Input(format!("cannot write {}: {e}", args.output.display())));
    }
    std::fs::write(&args.output, svg)
        .map_err(|e| Failure::Input(format!("cannot write {}: {e}", args.output.display())))
}
