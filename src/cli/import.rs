//! `bansha import`: saved thread pages (PC HTML, UTF-8/GBK) or mobile-API JSON into the
//! store, through the game layer's import pipeline ([`crate::game::import`]); each stored
//! file is printed as it is committed, and the command exits 2 if any file was bad.

use std::path::Path;

use super::*;
use crate::game::import::{GameThreads, Imported, file_error, import_files};
use crate::model::Timestamp;
use crate::store::Store;

pub fn run(a: &ImportArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    let saved_at = match &a.saved_at {
        None => None,
        Some(s) => Some(crate::time::parse_local(s, cfg.tz).ok_or_else(|| {
            CliError::Input(format!(
                "--saved-at `{s}` is not a time (want YYYY-MM-DD HH:MM[:SS])"
            ))
        })?),
    };
    let db_path = cfg.db_path();
    // Opened on this thread while the reader thread reads and parses the first files (a
    // fresh database's schema is a few milliseconds of an import's fixed cost).
    let open = || -> Result<Store, crate::game::Error> {
        let store = Store::open(&db_path).map_err(crate::game::Error::runtime)?;
        store
            .bulk_checkpoints()
            .map_err(crate::game::Error::runtime)?;
        Ok(store)
    };
    let forum = cfg.forum_key();
    let known: Vec<u64> = cfg.threads().into_iter().map(|t| t.2).collect();
    let tz = cfg.tz;
    let charset = cfg.forum.charset;
    let parse = |path: &Path, bytes: &[u8], fetched_at: Timestamp| {
        let mut ctx = crate::discuz::ParseContext {
            source: path.display().to_string(),
            tid: None,
            page: None,
            fetched_at,
            tz,
            charset,
        };
        // The page's own thread id first, so that a contradicting --tid is caught; --tid
        // only fills in for a page that does not say.
        match crate::discuz::parse_page_with_warnings(bytes, &ctx) {
            Ok(p) => Ok(p),
            Err(e) => match a.tid {
                None => Err(file_error(&e)),
                Some(t) => {
                    ctx.tid = Some(t);
                    crate::discuz::parse_page_with_warnings(bytes, &ctx).map_err(|e| file_error(&e))
                }
            },
        }
    };
    let game = GameThreads {
        known,
        config: cfg.path.display().to_string(),
        admit_all: a.not_in_game,
    };
    let mut report = |r: Imported| {
        let mut out = r.summary();
        out.push('\n');
        for w in &r.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        if !game.known.contains(&r.tid) {
            out.push_str(&format!(
                "  note: thread {} is not part of this game (not named in {}); stored because {}\n",
                r.tid,
                game.config,
                if a.not_in_game {
                    "of --not-in-game"
                } else {
                    "--tid names it"
                }
            ));
        }
        emit(&out).map_err(|e| crate::game::Error::Runtime(e.message().to_string()))
    };
    let (failed, store) = import_files(
        open,
        &forum,
        &a.files,
        a.tid,
        saved_at,
        &game,
        parse,
        &mut report,
    )?;
    // Closing the store checkpoints the write-ahead log into the file: done before the
    // command's answer, as before.
    drop(store);
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::Input(format!(
            "{} of {} files not imported (nothing from them was stored):\n  {}",
            failed.len(),
            a.files.len(),
            failed.join("\n  ")
        )))
    }
}
