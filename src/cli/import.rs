//! `bansha import`: saved thread pages (PC HTML, UTF-8/GBK) or mobile-API JSON into the store.
//!
//! Each file is read, parsed and stored on its own: a bad file is reported (naming the file
//! and what was wrong) and stores nothing, and the other files still import. The command
//! exits 2 if any file was bad.

use std::path::{Path, PathBuf};

use super::*;
use crate::model::{ThreadPage, Timestamp};
use crate::store::{FetchInfo, PageChanges, SourceKind, Store, StoreError};

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
    let mut store = Store::open(&cfg.db_path()).map_err(CliError::runtime)?;
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
        match crate::discuz::parse_page(bytes, &ctx) {
            Ok(p) => Ok(p),
            Err(e) => match a.tid {
                None => Err(e.to_string()),
                Some(t) => {
                    ctx.tid = Some(t);
                    crate::discuz::parse_page(bytes, &ctx).map_err(|e| e.to_string())
                }
            },
        }
    };
    let outcome = import_files(&mut store, &forum, &a.files, a.tid, saved_at, parse)
        .map_err(CliError::runtime)?;
    for r in &outcome.imported {
        println!("{}", r.summary());
        if !known.contains(&r.tid) {
            println!(
                "  note: thread {} is not named in {} ([[day]] discussion/vote/process)",
                r.tid,
                cfg.path.display()
            );
        }
    }
    if outcome.failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::Input(format!(
            "{} of {} files not imported (nothing from them was stored):\n  {}",
            outcome.failed.len(),
            a.files.len(),
            outcome.failed.join("\n  ")
        )))
    }
}

/// One file that was stored.
#[derive(Debug, Clone)]
pub struct Imported {
    pub file: PathBuf,
    pub tid: u64,
    pub page: u32,
    pub total_pages: u32,
    pub posts_seen: usize,
    pub changes: PageChanges,
}

impl Imported {
    pub fn summary(&self) -> String {
        let c = &self.changes;
        let mut s = format!(
            "{}: thread {} page {}/{}: {} posts ({} new, {} changed, {} missing",
            self.file.display(),
            self.tid,
            self.page,
            self.total_pages,
            self.posts_seen,
            c.new_posts.len(),
            c.changed.len(),
            c.missing.len()
        );
        if !c.reappeared.is_empty() {
            s.push_str(&format!(", {} reappeared", c.reappeared.len()));
        }
        if !c.refloored.is_empty() {
            s.push_str(&format!(", {} moved floor", c.refloored.len()));
        }
        s.push(')');
        s
    }
}

#[derive(Debug, Default)]
pub struct ImportOutcome {
    pub imported: Vec<Imported>,
    /// One message per bad file, each starting with the file name.
    pub failed: Vec<String>,
}

/// When a file was saved: `--saved-at`, else its modification time.
fn file_time(path: &Path, saved_at: Option<Timestamp>) -> Result<Timestamp, String> {
    if let Some(t) = saved_at {
        return Ok(t);
    }
    let m = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(|e| format!("{}: cannot read its modification time: {e}", path.display()))?;
    match m.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => Ok(d.as_secs() as Timestamp),
        Err(_) => Err(format!(
            "{}: modification time is before 1970; give --saved-at",
            path.display()
        )),
    }
}

/// Read, parse and store each file. `parse(path, bytes, saved_at)` turns a file into a page
/// (its error text need not name the file; this adds it). Only a failing database stops
/// the whole import.
pub fn import_files(
    store: &mut Store,
    forum: &str,
    files: &[PathBuf],
    tid: Option<u64>,
    saved_at: Option<Timestamp>,
    mut parse: impl FnMut(&Path, &[u8], Timestamp) -> Result<ThreadPage, String>,
) -> Result<ImportOutcome, StoreError> {
    let mut out = ImportOutcome::default();
    for file in files {
        let name = file.display().to_string();
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                out.failed.push(format!("{name}: cannot read: {e}"));
                continue;
            }
        };
        let at = match file_time(file, saved_at) {
            Ok(t) => t,
            Err(e) => {
                out.failed.push(e);
                continue;
            }
        };
        let page = match parse(file, &bytes, at) {
            Ok(p) => p,
            Err(e) if e.contains(&name) => {
                out.failed.push(e);
                continue;
            }
            Err(e) => {
                out.failed.push(format!("{name}: {e}"));
                continue;
            }
        };
        if let Some(t) = tid
            && page.tid != t
        {
            out.failed.push(format!(
                "{name}: the page is thread {}, but --tid says {t}",
                page.tid
            ));
            continue;
        }
        if page.tid == 0 {
            out.failed.push(format!(
                "{name}: the page does not say which thread it is; give --tid"
            ));
            continue;
        }
        let info = FetchInfo {
            source: name.clone(),
            kind: SourceKind::File,
            page: page.page,
            fetched_at: at,
        };
        let changes = store.store_page(forum, &page, &info)?;
        out.imported.push(Imported {
            file: file.clone(),
            tid: page.tid,
            page: page.page,
            total_pages: page.total_pages,
            posts_seen: page
                .posts
                .iter()
                .filter(|p| p.pid.is_some() && !p.deleted && !p.duplicate)
                .count(),
            changes,
        });
    }
    Ok(out)
}
