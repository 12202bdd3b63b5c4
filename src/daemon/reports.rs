//! The day's final reports, written once at 关门 + grace into `reports/day-N/`.
//!
//! A `DONE` marker is written last, so a crash mid-way rewrites the day on the next start
//! and a finished day is never rewritten.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::store::Store;
use crate::time::Clock;

/// Writes a day's reports into `dir` (the reports root); returns the files written.
pub trait ReportWriter {
    fn write_day(
        &self,
        cfg: &Config,
        store: &Store,
        day: u32,
        dir: &Path,
    ) -> anyhow::Result<Vec<PathBuf>>;

    /// The winner line when the engine's timeline has the game over by the writer's clock
    /// (`None`: the game goes on, or the writer cannot tell).
    fn engine_winner(&self, _cfg: &Config) -> Option<String> {
        None
    }

    /// Write the game's 结算 公示 into `root` (`结算.bbcode`, `结算.txt`): `headline` (the
    /// director's `game-over` winner) first when the engine's timeline has none.
    fn write_settlement(
        &self,
        _cfg: &Config,
        _root: &Path,
        _headline: Option<&str>,
    ) -> anyhow::Result<Vec<PathBuf>> {
        Ok(Vec::new())
    }
}

/// The file of the game's 结算 公示 (its existence: written).
pub fn settlement_path(root: &Path) -> PathBuf {
    root.join("结算.bbcode")
}

/// Any closure with the right shape is a writer (tests, the demo).
impl<F> ReportWriter for F
where
    F: Fn(&Config, &Store, u32, &Path) -> anyhow::Result<Vec<PathBuf>>,
{
    fn write_day(
        &self,
        cfg: &Config,
        store: &Store,
        day: u32,
        dir: &Path,
    ) -> anyhow::Result<Vec<PathBuf>> {
        self(cfg, store, day, dir)
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
        store: &Store,
        day: u32,
        root: &Path,
    ) -> anyhow::Result<Vec<PathBuf>> {
        let dir = day_dir(root, day);
        std::fs::create_dir_all(&dir)?;
        Ok(vec![write_posts_json(cfg, store, day, &dir)?])
    }
}

/// The report commands run at 关门, each in every format: `tally`, `activity` and the
/// `elevator` (电梯楼), and the day's `flags` (the moderators' list, with a note where
/// styling could not be checked).
pub const REPORT_COMMANDS: [&str; 4] = ["tally", "activity", "elevator", "flags"];
pub const REPORT_FORMATS: [(&str, &str); 3] =
    [("text", "txt"), ("json", "json"), ("bbcode", "bbcode")];

/// The reports a director publishes, written exactly as the report commands print them:
/// `bansha tally`, `bansha activity`, `bansha elevator` and `bansha flags` for the day in
/// text, JSON and BBCode (`tally.txt`, `tally.json`, `tally.bbcode`, …, `flags.bbcode`), plus
/// `posts.json`. It runs the `bansha`
/// executable (`exe`) against the game config, so the files match what the director gets
/// by hand. A command that fails is recorded in `errors.txt` (and logged) instead of
/// blocking the others.
#[derive(Clone)]
pub struct StandardReports {
    pub exe: PathBuf,
    /// The daemon's clock: each command runs with `BANSHA_CLOCK_START` at its time, so a
    /// replayed day's reports are written as of the replay clock (its 关门 passed), not
    /// as of the moment the replay started. `None`: the commands read the real clock.
    pub clock: Option<std::sync::Arc<dyn Clock>>,
}

impl std::fmt::Debug for StandardReports {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandardReports")
            .field("exe", &self.exe)
            .field("clock", &self.clock.as_ref().map(|c| c.now()))
            .finish()
    }
}

impl StandardReports {
    /// Use the running executable (the `bansha` binary).
    pub fn current_exe() -> anyhow::Result<Self> {
        Ok(StandardReports {
            exe: std::env::current_exe()?,
            clock: None,
        })
    }

    /// Run the report commands as of `clock`'s time.
    pub fn with_clock(mut self, clock: std::sync::Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }
}

impl StandardReports {
    /// `bansha ARGS --config C`, as of the writer's clock.
    fn command(&self, cfg: &Config, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(&self.exe);
        if let Some(c) = &self.clock {
            command.env(crate::time::CLOCK_START_ENV, format!("@{}", c.now()));
        }
        let (cmd, rest) = args.split_first().expect("a subcommand");
        command
            .arg(cmd)
            .arg("--config")
            .arg(&cfg.path)
            .args(rest)
            .stdin(std::process::Stdio::null());
        command
    }
}

impl ReportWriter for StandardReports {
    fn engine_winner(&self, cfg: &Config) -> Option<String> {
        let out = self
            .command(cfg, &["state", "--format", "json"])
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        super::closing::winner_of_state(&v)
    }

    fn write_settlement(
        &self,
        cfg: &Config,
        root: &Path,
        headline: Option<&str>,
    ) -> anyhow::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(root)?;
        let mut files = Vec::new();
        // The text first: the BBCode's existence marks the 结算 written.
        for (format, path) in [
            ("text", root.join("结算.txt")),
            ("bbcode", settlement_path(root)),
        ] {
            let out = self.command(cfg, &["state", "--format", format]).output()?;
            let mut text = match headline {
                Some(h) if format == "bbcode" => format!("[b]{h}[/b]\n"),
                Some(h) => format!("{h}\n"),
                None => String::new(),
            };
            if out.status.success() {
                text.push_str(&String::from_utf8_lossy(&out.stdout));
            } else {
                let msg = String::from_utf8_lossy(&out.stderr).trim().to_string();
                tracing::warn!(
                    "`bansha state --format {format}` failed: {msg}; the 结算 has the winner only"
                );
            }
            write_atomic(&path, text.as_bytes())?;
            files.push(path);
        }
        Ok(files)
    }

    fn write_day(
        &self,
        cfg: &Config,
        store: &Store,
        day: u32,
        root: &Path,
    ) -> anyhow::Result<Vec<PathBuf>> {
        let dir = day_dir(root, day);
        std::fs::create_dir_all(&dir)?;
        let mut files = vec![write_posts_json(cfg, store, day, &dir)?];
        let mut errors = String::new();
        for cmd in REPORT_COMMANDS {
            for (format, ext) in REPORT_FORMATS {
                let out = self
                    .command(cfg, &[cmd, "--day", &day.to_string(), "--format", format])
                    .output();
                match out {
                    Ok(o) if o.status.success() => {
                        let path = dir.join(format!("{cmd}.{ext}"));
                        write_atomic(&path, &o.stdout)?;
                        files.push(path);
                    }
                    Ok(o) => {
                        let msg = String::from_utf8_lossy(&o.stderr).trim().to_string();
                        tracing::error!(day, "`bansha {cmd} --format {format}` failed: {msg}");
                        errors.push_str(&format!(
                            "bansha {cmd} --day {day} --format {format}: {msg}\n"
                        ));
                    }
                    Err(e) => {
                        tracing::error!(day, "cannot run {}: {e}", self.exe.display());
                        errors.push_str(&format!(
                            "bansha {cmd} --day {day} --format {format}: cannot run {}: {e}\n",
                            self.exe.display()
                        ));
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
