//! The day's final reports, written once at 关门 + grace into `reports/day-N/`.
//!
//! A `DONE` marker is written last, so a crash mid-way rewrites the day on the next start
//! and a finished day is never rewritten.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::game::reports::{DayReport, FORMATS, day_report};
use crate::model::Timestamp;
use crate::store::Store;

/// Writes a day's reports into `dir` (the reports root) as of `now` (the daemon's clock);
/// returns the files written. The store is the daemon's own (the flag list scans first).
pub trait ReportWriter {
    fn write_day(
        &self,
        cfg: &Config,
        store: &mut Store,
        day: u32,
        dir: &Path,
        now: Timestamp,
    ) -> anyhow::Result<Vec<PathBuf>>;
}

/// Any closure with the right shape is a writer (tests, the demo).
impl<F> ReportWriter for F
where
    F: Fn(&Config, &mut Store, u32, &Path, Timestamp) -> anyhow::Result<Vec<PathBuf>>,
{
    fn write_day(
        &self,
        cfg: &Config,
        store: &mut Store,
        day: u32,
        dir: &Path,
        now: Timestamp,
    ) -> anyhow::Result<Vec<PathBuf>> {
        self(cfg, store, day, dir, now)
    }
}

/// The folder of one day's reports.
pub fn day_dir(root: &Path, day: u32) -> PathBuf {
    root.join(format!("day-{day}"))
}

/// Days whose reports are complete (their `DONE` marker exists).
pub fn days_written(root: &Path) -> BTreeSet<u32> {
    let Ok(rd) = std::fs::read_dir(root) else {
        return BTreeSet::new();
    };
    rd.filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n: u32 = name.strip_prefix("day-")?.parse().ok()?;
            e.path().join("DONE").exists().then_some(n)
        })
        .collect()
}

pub fn mark_written(root: &Path, day: u32) -> std::io::Result<()> {
    let d = day_dir(root, day);
    std::fs::create_dir_all(&d)?;
    std::fs::write(d.join("DONE"), b"")
}

/// Write `bytes` to `path` atomically (temp file + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// The final state of the day's posts (`posts.json`, the shape of `bansha posts --format
/// json`): the record the day's reports were computed from.
pub fn write_posts_json(
    cfg: &Config,
    store: &Store,
    day: u32,
    dir: &Path,
) -> anyhow::Result<PathBuf> {
    let forum = cfg.forum_key();
    let mut posts = Vec::new();
    for tid in super::plan::day_threads(cfg, day) {
        for p in store.posts(&forum, tid)? {
            let cur = p.current();
            posts.push(serde_json::json!({
                "tid": p.tid,
                "pid": p.pid,
                "floor": p.floor,
                "author": p.author,
                "uid": p.uid,
                "time": cfg.fmt_time(p.time),
                "quote_pid": p.quote.as_ref().and_then(|q| q.pid),
                "text": cur.text,
                "red": cur.red,
                "large": cur.large,
                "edited": p.edited(),
                "missing": p.missing(),
                "revisions": p.revisions.len(),
            }));
        }
    }
    let path = dir.join("posts.json");
    write_atomic(&path, serde_json::to_string_pretty(&posts)?.as_bytes())?;
    Ok(path)
}

/// Only the day's `posts.json`.
#[derive(Debug, Clone, Copy, Default)]
pub struct PostsOnly;

impl ReportWriter for PostsOnly {
    fn write_day(
        &self,
        cfg: &Config,
        store: &mut Store,
        day: u32,
        root: &Path,
        _now: Timestamp,
    ) -> anyhow::Result<Vec<PathBuf>> {
        let dir = day_dir(root, day);
        std::fs::create_dir_all(&dir)?;
        Ok(vec![write_posts_json(cfg, store, day, &dir)?])
    }
}

/// The reports a director publishes, exactly as the report commands print them:
/// `bansha tally`, `bansha activity`, `bansha elevator` and `bansha flags` for the day in
/// text, JSON and BBCode (`tally.txt`, `tally.json`, `tally.bbcode`, …, `flags.bbcode`), plus
/// `posts.json`, computed in-process by the game layer ([`crate::game::reports`]) as of the
/// daemon's clock. The rule set is read again for the day (a fix the director made is
/// used). A report that fails is recorded in `errors.txt` (and logged) instead of blocking
/// the others.
#[derive(Debug, Clone, Copy, Default)]
pub struct StandardReports;

impl ReportWriter for StandardReports {
    fn write_day(
        &self,
        cfg: &Config,
        store: &mut Store,
        day: u32,
        root: &Path,
        now: Timestamp,
    ) -> anyhow::Result<Vec<PathBuf>> {
        let dir = day_dir(root, day);
        std::fs::create_dir_all(&dir)?;
        let mut files = vec![write_posts_json(cfg, store, day, &dir)?];
        let mut errors = String::new();
        let rules = crate::rules::RuleSet::load(&cfg.rules_path());
        for report in DayReport::ALL {
            let cmd = report.command();
            for (format, fmt, ext) in FORMATS {
                let out = match &rules {
                    Ok(rules) => day_report(cfg, rules, store, report, day, format, now),
                    Err(e) => Err(crate::game::Error::input(e)),
                };
                match out {
                    Ok(text) => {
                        let path = dir.join(format!("{cmd}.{ext}"));
                        write_atomic(&path, text.as_bytes())?;
                        files.push(path);
                    }
                    Err(e) => {
                        tracing::error!(day, "`bansha {cmd} --format {fmt}` failed: {e}");
                        errors.push_str(&format!("bansha {cmd} --day {day} --format {fmt}: {e}\n"));
                    }
                }
            }
        }
        if !errors.is_empty() {
            let path = dir.join("errors.txt");
            errors.push_str("Fix the problem and run the commands by hand, or delete DONE in this folder to have the daemon write the day again.\n");
            write_atomic(&path, errors.as_bytes())?;
            files.push(path);
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_days_with_a_done_marker_count_as_written() {
        let root = std::env::temp_dir().join(format!("bansha-reports-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(day_dir(&root, 1)).unwrap();
        std::fs::create_dir_all(day_dir(&root, 2)).unwrap();
        mark_written(&root, 2).unwrap();
        assert_eq!(days_written(&root), [2].into());
        assert!(days_written(&root.join("nope")).is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
