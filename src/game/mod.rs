//! The game as one owner: the config, its rule set and its store, opened once, and
//! everything computed from them — the timeline ([`timeline`]), the tally, the activity
//! report, the flag queue and card ledger, the nights and the state, the reports written at
//! 关门. The command line, the daemon and the web page call this layer and only handle
//! arguments, schedules, routes and output; none of them computes a report itself.

pub mod activity;
pub mod authors;
pub mod changes;
pub mod flags;
pub mod guard;
pub mod import;
pub mod manor;
pub mod night;
pub mod reports;
pub mod tally;
pub mod timeline;

use crate::config::Config;
use crate::rules::RuleSet;
use crate::store::Store;

/// A failure of the game layer. The command line maps it to an exit status
/// (`cli::CliError`), the web page to an HTTP status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Bad input: the config, a rule file, an actions file, an argument, missing data the
    /// director must supply first.
    Input(String),
    /// A failure at run time (disk, database).
    Runtime(String),
    /// A resolution stopped to ask the director something (a mid-night answer); the
    /// message says what and where to answer.
    NeedInput(String),
}

impl Error {
    pub fn message(&self) -> &str {
        match self {
            Error::Input(m) | Error::Runtime(m) | Error::NeedInput(m) => m,
        }
    }
    pub fn input(e: impl std::fmt::Display) -> Self {
        Error::Input(e.to_string())
    }
    pub fn runtime(e: impl std::fmt::Display) -> Self {
        Error::Runtime(e.to_string())
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// The config, its rule set and its store, loaded once.
pub struct Game {
    pub cfg: Config,
    pub rules: RuleSet,
    pub store: Store,
}

impl Game {
    /// Load the config's rule set and open its existing database (read-write, never
    /// created: a missing database is an error naming it).
    pub fn open(cfg: Config) -> Result<Game> {
        // A missing rule file names `game.rules` and where it was looked for.
        let path = cfg.rules_file().map_err(Error::input)?;
        let rules = RuleSet::load(&path).map_err(Error::input)?;
        let store = guard::open_store(&cfg)?;
        Ok(Game { cfg, rules, store })
    }

    /// The game from parts already loaded (the daemon's store, the web page's per-request
    /// config).
    pub fn from_parts(cfg: Config, rules: RuleSet, store: Store) -> Game {
        Game { cfg, rules, store }
    }

    /// Who is in the game at every moment: see [`timeline::roster`].
    pub fn roster(&self) -> Result<crate::roster::Roster> {
        timeline::roster(&self.cfg, &self.rules, &self.store)
    }
}
