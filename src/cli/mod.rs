//! The command line (contract: `shared/CONTRACTS.md`). Each command lives in its own file;
//! this file holds the argument types and the dispatch.

mod activity;
mod demo;
mod flags;
mod import;
mod posts;
mod sync;
mod tally;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "bansha",
    version,
    about = "Vote, activity and compliance automation for 版杀 games on Discuz! forums"
)]
pub struct Cli {
    /// More logging (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
pub struct ConfigArg {
    /// The game config (TOML).
    #[arg(long, short = 'c')]
    pub config: PathBuf,
}

#[derive(Debug, Args, Clone)]
pub struct FormatArg {
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The whole pipeline on an embedded sample game, over loopback HTTP.
    Demo(DemoArgs),
    /// Validate rule files; every problem as `file:key: message`.
    CheckRules {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Import saved thread pages (HTML, UTF-8/GBK) or API JSON into the store.
    Import(ImportArgs),
    /// The stored posts, current text and revisions.
    Posts(PostsArgs),
    /// The daemon: poll, store, re-tally, re-check, report at 关门.
    Run(RunArgs),
    /// One polling pass, then exit.
    Sync(RunArgs),
    /// Votes as of now, or as of TIME.
    Tally(TallyArgs),
    /// Post counts, 潜水, 诈尸, 加速/延时 for a day.
    Activity(DayArgs),
    /// The 电梯楼 for a day, as BBCode.
    Elevator(DayArgs),
    /// Flagged posts (banned phrasing, red/large text, 诈尸, floods); `confirm`, `dismiss`.
    Flags(flags::FlagsArgs),
    /// The card ledger with escalations; `withdraw`, `add`.
    Cards(flags::CardsArgs),
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the demo's files (config, database, reports) in this folder instead of a
    /// temporary one.
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    /// The thread id, when a file does not say (API JSON always does; PC pages usually do).
    #[arg(long)]
    pub tid: Option<u64>,
    /// When the pages were saved (`YYYY-MM-DD HH:MM[:SS]`), for relative post times;
    /// default: the file's modification time.
    #[arg(long)]
    pub saved_at: Option<String>,
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct PostsArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    #[arg(long)]
    pub tid: Option<u64>,
    #[arg(long)]
    pub day: Option<u32>,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    /// Where the reports written at 关门 go (default: `reports/` next to the config).
    #[arg(long)]
    pub reports: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TallyArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    #[arg(long)]
    pub day: u32,
    /// Tally as of this moment (`YYYY-MM-DD HH:MM[:SS]`, game timezone).
    #[arg(long)]
    pub at: Option<String>,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
pub struct DayArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    #[arg(long)]
    pub day: u32,
    #[command(flatten)]
    pub format: FormatArg,
}

/// A command's failure: bad input (exit 2) or a failure at run time (exit 1).
#[derive(Debug)]
pub enum CliError {
    /// Bad usage, config, rule file or input: exit status 2.
    Input(String),
    /// Anything else (network, disk): exit status 1.
    Runtime(String),
}

impl CliError {
    pub fn message(&self) -> &str {
        match self {
            CliError::Input(m) | CliError::Runtime(m) => m,
        }
    }
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Runtime(_) => 1,
        }
    }
    pub fn input(e: impl std::fmt::Display) -> Self {
        CliError::Input(e.to_string())
    }
    pub fn runtime(e: impl std::fmt::Display) -> Self {
        CliError::Runtime(e.to_string())
    }
}

pub type CliResult = Result<(), CliError>;

pub fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}

/// Load the game config, mapping problems to exit status 2.
pub fn load_config(arg: &ConfigArg) -> Result<crate::config::Config, CliError> {
    crate::config::Config::load(&arg.config).map_err(CliError::input)
}

pub fn dispatch(cli: Cli) -> CliResult {
    match cli.command {
        Command::CheckRules { files } => check_rules(&files),
        Command::Demo(a) => demo::run(&a),
        Command::Import(a) => import::run(&a),
        Command::Posts(a) => posts::run(&a),
        Command::Run(a) => sync::run(&a, false),
        Command::Sync(a) => sync::run(&a, true),
        Command::Tally(a) => tally::run(&a),
        Command::Activity(a) => activity::run_activity(&a),
        Command::Elevator(a) => activity::run_elevator(&a),
        Command::Flags(a) => flags::run_flags(&a),
        Command::Cards(a) => flags::run_cards(&a),
    }
}

fn check_rules(files: &[PathBuf]) -> CliResult {
    let sets = crate::rules::check_files(files).map_err(CliError::input)?;
    for s in sets {
        println!("{}: ok ({})", s.path.display(), s.meta.name);
    }
    Ok(())
}
