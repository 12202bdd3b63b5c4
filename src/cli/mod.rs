//! The command line (contract: `docs/interfaces.md`). Each command lives in its own file;
//! this file holds the argument types and the dispatch.

mod activity;
pub(crate) mod changes;
#[cfg(feature = "demo")]
mod demo;
mod flags;
#[cfg(feature = "demo")]
mod forum;
mod import;
pub mod init;
mod lock;
mod manor;
mod night;
mod posts;
mod serve;
mod signals;
mod sync;
mod tally;

/// The game layer's checks, as every command that reads the store makes them.
use crate::game::guard;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "bansha",
    version = crate::version::short(),
    long_version = crate::version::long(),
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
    #[cfg(feature = "demo")]
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
    /// Resolve a night (N = 0 is 开局) from an actions file; stores it in the timeline.
    Night(NightArgs),
    /// A 暴风雪山庄 (排球少年) game day up to its 公决 from a day-input file: 确认死者
    /// skills, moves and day skills in order; stored with the 公决 pending.
    Day(ManorDayArgs),
    /// The game as it stands (or stood at TIME): seats, alive/out, roles and camps, 警长,
    /// statuses, links, counters, skill uses left.
    State(StateArgs),
    /// Write a complete, commented game config to start from (days proposed from the rule
    /// set; players from the 报名帖).
    Init(InitArgs),
    /// What is new since TIME (or since the last call): ballots, 改票, edits, deletions,
    /// 加速/延时 requests.
    Changes(ChangesArgs),
    /// Flagged posts (banned phrasing, red/large text, 诈尸, floods); `confirm`, `dismiss`.
    Flags(flags::FlagsArgs),
    /// The card ledger with escalations; `withdraw`, `add`.
    Cards(flags::CardsArgs),
    /// The web page for the director and moderators: the day's tally and activity, the flag
    /// queue and card ledger, the game state and nights, live (127.0.0.1 by default).
    Serve(ServeArgs),
    /// The test forum on 127.0.0.1 until stopped: the sample game's threads and a 报名帖,
    /// to try `init`, `sync` and `run` on. Prints the base URL and what to run next.
    #[cfg(feature = "demo")]
    TestForum(TestForumArgs),
}

#[derive(Debug, Args)]
pub struct TestForumArgs {
    /// Where the director's files go (cookies.txt, the rule set; the config you write).
    #[arg(long, default_value = "bansha-test-forum")]
    pub dir: PathBuf,
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 18080)]
    pub port: u16,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    /// Where to listen (`HOST:PORT`); default `[serve] listen`, else 127.0.0.1:8075.
    /// Anything but loopback sends tokens and cookies in clear unless a TLS proxy is in
    /// front.
    #[arg(long)]
    pub listen: Option<String>,
}

#[derive(Debug, Args)]
pub struct NightArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    #[arg(long)]
    pub night: u32,
    /// The night actions file (TOML, `[[action]] actor skill targets`); prompt answers too.
    #[arg(long)]
    pub actions: PathBuf,
    /// The random seed (default: the actions file's `seed`, else one derived from the game
    /// and the night); recorded with the result.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Resolve and print without storing.
    #[arg(long)]
    pub dry_run: bool,
    /// With `--format bbcode`: write the private messages (致 X：…) to this file; the
    /// standard output holds the public 公示 alone.
    #[arg(long)]
    pub private_out: Option<PathBuf>,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
pub struct ManorDayArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    #[arg(long)]
    pub day: u32,
    /// The day-input file (TOML: `[[confirm]]`, `[[step]]`, `announce_case`, `keep`).
    #[arg(long)]
    pub input: PathBuf,
    /// Resolve and print without storing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
pub struct ChangesArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    /// Changes first seen at or after this time (`YYYY-MM-DD HH:MM[:SS]`, game timezone);
    /// default: the last time `bansha changes` was run for this database.
    #[arg(long)]
    pub since: Option<String>,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
pub struct StateArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    /// As of this moment (`YYYY-MM-DD HH:MM[:SS]`, game timezone).
    #[arg(long)]
    pub at: Option<String>,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The config file to write (refused if it exists, unless --force).
    #[arg(long = "config", short = 'c', default_value = "game.toml")]
    pub output: PathBuf,
    /// The game's rule set (`rules/075-zhifou.toml`).
    #[arg(long)]
    pub rules: PathBuf,
    /// The forum's address: where forum.php lives (`https://bbs.example.com/`).
    #[arg(long)]
    pub base_url: String,
    /// The game's name (default: the rule set's).
    #[arg(long)]
    pub name: Option<String>,
    /// When day 1 opens (`YYYY-MM-DD HH:MM`, game timezone); default: tomorrow at the
    /// rule set's opening hour.
    #[arg(long)]
    pub first_day: Option<String>,
    /// How many [[day]] entries to propose.
    #[arg(long, default_value_t = 3)]
    pub days: u32,
    /// The 报名帖 (sign-up thread) tid: its repliers become the [[player]] entries, in
    /// reply order. Fetched from the forum unless --signup-page files are given.
    #[arg(long)]
    pub signup: Option<u64>,
    /// A saved page of the 报名帖 (HTML or API JSON) to read instead of fetching it.
    #[arg(long = "signup-page")]
    pub signup_pages: Vec<PathBuf>,
    /// The director's cookies (Netscape cookies.txt), for fetching and for the config.
    #[arg(long)]
    pub cookie_file: Option<PathBuf>,
    /// The forum's charset: auto | utf-8 | gbk.
    #[arg(long, default_value = "auto", value_parser = ["auto", "utf-8", "gbk"])]
    pub charset: String,
    /// The game's timezone.
    #[arg(long, default_value = "Asia/Shanghai")]
    pub timezone: String,
    /// A director's forum name (repeatable): their posts are never ballots.
    #[arg(long)]
    pub director: Vec<String>,
    /// Overwrite an existing file.
    #[arg(long)]
    pub force: bool,
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
    /// Store pages of threads the game config does not name (by default such a page is
    /// refused: it is not part of the game). `--tid` admits its one thread too.
    #[arg(long)]
    pub not_in_game: bool,
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
    /// Confirm the day's outcome (出局/当选) into the game's timeline, through the night
    /// engine (殉情, 最后一枪, 殉职 follow); prints the day's result instead of the tally.
    #[arg(long)]
    pub confirm: bool,
    /// With --confirm: the answers the outcome needs (an actions file with 最后一枪/殉职).
    #[arg(long, requires = "confirm")]
    pub answers: Option<PathBuf>,
    /// With --confirm and `--format bbcode`: write the private messages to this file; the
    /// standard output holds the public result alone.
    #[arg(long, requires = "confirm")]
    pub private_out: Option<PathBuf>,
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
    /// The command stopped to ask the director something (a night's mid-night answer):
    /// exit status 3; what it needs was printed.
    NeedInput(String),
}

impl CliError {
    pub fn message(&self) -> &str {
        match self {
            CliError::Input(m) | CliError::Runtime(m) | CliError::NeedInput(m) => m,
        }
    }
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Runtime(_) => 1,
            CliError::NeedInput(_) => 3,
        }
    }
    pub fn input(e: impl std::fmt::Display) -> Self {
        CliError::Input(e.to_string())
    }
    pub fn runtime(e: impl std::fmt::Display) -> Self {
        CliError::Runtime(e.to_string())
    }
}

/// The game layer's errors as exit statuses: bad input 2, a failure at run time 1, a
/// question for the director 3.
impl From<crate::game::Error> for CliError {
    fn from(e: crate::game::Error) -> Self {
        match e {
            crate::game::Error::Input(m) => CliError::Input(m),
            crate::game::Error::Runtime(m) => CliError::Runtime(m),
            crate::game::Error::NeedInput(m) => CliError::NeedInput(m),
        }
    }
}

pub type CliResult = Result<(), CliError>;

/// The log filter when `RUST_LOG` is not set. html5ever's tree-builder notes
/// (`foster parenting not implemented`) are about the forum's markup, not anything a user
/// can act on: shown at `-vv` only.
pub fn default_log_filter(verbose: u8) -> String {
    match verbose {
        0 => "warn,html5ever=error".into(),
        1 => "info,html5ever=error".into(),
        _ => "debug".into(),
    }
}

/// Print a command's output to stdout. A closed pipe (`bansha … | head -1`) is not an
/// error: the reader has what it wanted, and the command ends quietly with status 0.
pub fn emit(s: &str) -> CliResult {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::Runtime(format!("writing the output: {e}"))),
    }
}

/// The game's timezone for log timestamps, set when a config is loaded (UTC before).
static LOG_TZ: std::sync::OnceLock<chrono_tz::Tz> = std::sync::OnceLock::new();

/// The command's clock for log timestamps (`BANSHA_CLOCK_START`), set with [`LOG_TZ`].
static LOG_CLOCK: std::sync::OnceLock<std::sync::Arc<dyn crate::time::Clock>> =
    std::sync::OnceLock::new();

/// Log times in the game's timezone, as the director reads every other time.
struct GameTime;

impl tracing_subscriber::fmt::time::FormatTime for GameTime {
    fn format_time(&self, w: &mut tracing_subscriber::fmt::format::Writer<'_>) -> std::fmt::Result {
        use crate::time::Clock;
        // The replay clock when one is set: a replayed day logs the replayed times.
        let ts = match LOG_CLOCK.get() {
            Some(c) => c.now(),
            None => crate::time::SystemClock.now(),
        };
        let now = chrono::DateTime::from_timestamp(ts, 0).unwrap_or_default();
        match LOG_TZ.get() {
            Some(tz) => write!(
                w,
                "{}",
                now.with_timezone(tz).format("%Y-%m-%d %H:%M:%S %:z")
            ),
            None => write!(w, "{}", now.format("%Y-%m-%d %H:%M:%SZ")),
        }
    }
}

/// The log filter: `RUST_LOG` (`debug`, `bansha=debug,html5ever=off`: targets and levels)
/// when it is set and parses, else [`default_log_filter`].
pub fn log_filter(rust_log: Option<&str>, verbose: u8) -> tracing_subscriber::filter::Targets {
    rust_log
        .filter(|v| !v.trim().is_empty())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            default_log_filter(verbose)
                .parse()
                .expect("the default log filter parses")
        })
}

pub fn init_tracing(verbose: u8) {
    use std::io::IsTerminal;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = log_filter(std::env::var("RUST_LOG").ok().as_deref(), verbose);
    let _ = tracing_subscriber::fmt()
        .with_ansi(std::io::stderr().is_terminal())
        .with_timer(GameTime)
        .with_writer(std::io::stderr)
        .finish()
        .with(filter)
        .try_init();
}

/// Load the game config, mapping problems to exit status 2.
pub fn load_config(arg: &ConfigArg) -> Result<crate::config::Config, CliError> {
    let cfg = crate::config::Config::load(&arg.config).map_err(CliError::input)?;
    let _ = LOG_TZ.set(cfg.tz);
    if let Ok(c) = crate::time::process_clock(cfg.tz) {
        let _ = LOG_CLOCK.set(c);
    }
    Ok(cfg)
}

/// The moment a command answers as of: the replay clock (`BANSHA_CLOCK_START`) when set,
/// else the real clock.
pub fn command_now(cfg: &crate::config::Config) -> Result<crate::model::Timestamp, CliError> {
    Ok(crate::time::process_clock(cfg.tz)
        .map_err(CliError::Input)?
        .now())
}

pub fn dispatch(cli: Cli) -> CliResult {
    match cli.command {
        Command::CheckRules { files } => check_rules(&files),
        #[cfg(feature = "demo")]
        Command::Demo(a) => demo::run(&a),
        Command::Import(a) => import::run(&a),
        Command::Posts(a) => posts::run(&a),
        Command::Run(a) => sync::run(&a, false),
        Command::Sync(a) => sync::run(&a, true),
        Command::Tally(a) => tally::run(&a),
        Command::Activity(a) => activity::run_activity(&a),
        Command::Elevator(a) => activity::run_elevator(&a),
        Command::Night(a) => match manor::rules_of(&a.config)? {
            Some((cfg, m)) => manor::run_night(&a, cfg, m),
            None => night::run_night(&a),
        },
        Command::Day(a) => manor::run_day(&a),
        Command::State(a) => match manor::rules_of(&a.config)? {
            Some((cfg, m)) => manor::run_state(&a, cfg, m),
            None => night::run_state(&a),
        },
        Command::Init(a) => init::run(&a),
        Command::Changes(a) => changes::run(&a),
        Command::Flags(a) => flags::run_flags(&a),
        Command::Cards(a) => flags::run_cards(&a),
        Command::Serve(a) => serve::run(&a),
        #[cfg(feature = "demo")]
        Command::TestForum(a) => forum::run(&a),
    }
}

fn check_rules(files: &[PathBuf]) -> CliResult {
    let sets = crate::rules::check_files(files).map_err(CliError::input)?;
    let mut out = String::new();
    for s in sets {
        out.push_str(&format!("{}: ok ({})\n", s.path.display(), s.meta.name));
        if let Some(e) = &s.engine {
            out.push_str(&bansha_engine::rules::support_report(e));
            out.push_str(&parameter_skills(&s, e));
        }
    }
    emit(&out)
}

/// Skills of the rule post that are not skills of the `[engine]` section but parameters of
/// another declaration (恋爱/私奔 on 丘比特之箭's link, 寡妇刀 an `on_camp_lost` rule, 带队 a
/// `[vote]` weight): every clause of the file that opens with a skill header
/// (`名称<强制> —— …`), with where it is implemented; and the day-1 election of the tally.
fn parameter_skills(s: &crate::rules::RuleSet, e: &bansha_engine::EngineRules) -> String {
    let Ok(text) = std::fs::read_to_string(&s.path) else {
        return String::new();
    };
    let Ok(doc) = toml::from_str::<toml::Value>(&text) else {
        return String::new();
    };
    let head = regex::Regex::new(r"^([\p{Han}]{2,6})\s*(?:<[^>]*>)?\s*——").expect("regex");
    let mut seen: Vec<String> = Vec::new();
    let mut lines = Vec::new();
    for (path, clause) in crate::rules::clauses::cited_clauses(&doc) {
        let Some(name) = head.captures(&clause).map(|c| c[1].to_string()) else {
            continue;
        };
        if e.skills.contains_key(&name) || seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        lines.push(format!("{name}〔{path}〕"));
    }
    let mut out = String::new();
    if !lines.is_empty() {
        out.push_str(&format!("  由参数实现：{}\n", lines.join("、")));
    }
    if !s.vote.election_days.is_empty() {
        let days: Vec<String> = s.vote.election_days.iter().map(|d| d.to_string()).collect();
        out.push_str(&format!(
            "  警长竞选〔vote.election_days = 第{}天，计票实现〕：{}\n",
            days.join("、"),
            s.vote.clause("election")
        ));
    }
    out
}
