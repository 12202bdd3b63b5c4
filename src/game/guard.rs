//! What every report command checks before it answers, so that it never answers from
//! nothing: the database must exist (it is opened read-only, never created), the config
//! must list the players, and the day's threads must have stored pages.

use super::Error;
use crate::config::{Config, ThreadKind};
use crate::store::Store;

/// The game's database, opened read-only; a missing file is an error (exit 2) naming the
/// path, never a fresh empty database.
pub fn open_store(cfg: &Config) -> Result<Store, Error> {
    Store::open_existing(&cfg.db_path()).map_err(|e| match e {
        crate::store::StoreError::Invalid { .. } => {
            Error::Input(format!("{e} (game.db in {})", cfg.path.display()))
        }
        e => Error::Runtime(e.to_string()),
    })
}

/// A report about players needs the players: a config without `[[player]]` would judge
/// every ballot "不是本局玩家" and every post as a stranger's.
pub fn require_players(cfg: &Config) -> Result<(), Error> {
    if cfg.players.is_empty() {
        return Err(Error::Input(format!(
            "{}: no [[player]] entries; list the game's players (name, uid, seat) before \
             reporting (`bansha init --signup TID` lists the sign-up thread's repliers)",
            cfg.path.display()
        )));
    }
    Ok(())
}

fn kind_zh(k: ThreadKind) -> &'static str {
    match k {
        ThreadKind::Discussion => "讨论帖",
        ThreadKind::Vote => "投票帖",
        ThreadKind::Process => "进程帖",
    }
}

/// The day's threads of the given kinds must each have stored pages; the error lists every
/// one that has none and says how to get them.
pub fn require_pages(
    cfg: &Config,
    store: &Store,
    day: u32,
    kinds: &[ThreadKind],
) -> Result<(), Error> {
    let forum = cfg.forum_key();
    let mut missing = Vec::new();
    for (d, kind, tid) in cfg.threads() {
        if d != day || !kinds.contains(&kind) {
            continue;
        }
        let stored = store
            .thread(&forum, tid)
            .map_err(Error::runtime)?
            .is_some_and(|t| t.posts > 0);
        if !stored {
            missing.push(format!("thread {tid} ({})", kind_zh(kind)));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let c = cfg.path.display();
    Err(Error::Input(format!(
        "{}: day {day}: no stored pages for {}; run `bansha sync --config {c}` or \
         `bansha import --config {c} --tid TID SAVED-PAGES` first",
        cfg.db_path().display(),
        missing.join(", ")
    )))
}
