//! The daemon: polling the forum, resuming after crashes, reports at 关门.
//!
//! All state lives in the store (last page seen per thread, every post), so a restart
//! resumes where the last run stopped; each page is parsed completely before one store
//! transaction writes it, so a crash never leaves half a page. The clock is injected and
//! [`Daemon::step`] does one pass at the clock's time, so tests drive the daemon pass by
//! pass without waiting on the wall clock; [`Daemon::run`] loops `step` until stopped.

pub mod discover;
mod flags;
pub mod plan;
pub mod reports;
pub mod watch;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::ProgressBar;

use crate::config::Config;
use crate::discuz::{ParseContext, parse_page};
use crate::fetch::{FetchError, Fetcher, Verdict, api_thread_url, fingerprint, thread_url};
use crate::model::{ThreadPage, Timestamp};
use crate::store::{FetchInfo, PageChanges, PageFingerprint, SourceKind, Store};
use crate::time::Clock;
use plan::{Policy, ThreadState};
pub use reports::{ReportWriter, StandardReports};

/// Seconds between two listings of the board for thread discovery.
const DISCOVERY_INTERVAL: i64 = 600;

/// What one pass did.
#[derive(Debug, Default, Clone)]
pub struct PassSummary {
    pub threads: usize,
    pub pages: u32,
    /// Pages whose fingerprint matched the last stored fetch (not parsed, not stored).
    pub unchanged: u32,
    pub new_posts: usize,
    pub changed: usize,
    pub missing: usize,
    /// Failures that the next pass retries (network, retries exhausted).
    pub errors: Vec<String>,
    /// Threads found gone or forbidden (skipped from now on).
    pub gone: Vec<u64>,
    /// Report files written at 关门.
    pub reports: Vec<PathBuf>,
    /// The stop signal cut the pass short (after a complete page).
    pub stopped: bool,
    /// Threads where something changed.
    pub changed_threads: BTreeSet<u64>,
    /// What the re-tallies found (days whose 投票帖 changed).
    pub tally_events: Vec<(u32, watch::Event)>,
    /// Flags raised this pass (ids in the store's `flags`).
    pub new_flags: Vec<i64>,
}

/// A failure that ends the daemon (the director must act): login, disk, config.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("{0}")]
    Login(FetchError),
    #[error("{0}")]
    Store(#[from] crate::store::StoreError),
    #[error("writing the day {day} reports: {msg}")]
    Reports { day: u32, msg: String },
}

pub struct Daemon {
    cfg: Config,
    forum: String,
    store: Store,
    fetcher: Fetcher,
    clock: Arc<dyn Clock>,
    policy: Policy,
    use_api: bool,
    /// When each thread's recent pages were last re-read.
    rechecked: HashMap<u64, Timestamp>,
    /// Threads that are gone or forbidden, with the forum's message.
    gone: BTreeMap<u64, String>,
    written: BTreeSet<u32>,
    reports_dir: PathBuf,
    writer: Box<dyn ReportWriter>,
    stop: Arc<AtomicBool>,
    progress: bool,
    /// Thread discovery (`[daemon] fid` + `title_pattern`) and when it last ran.
    discovery: Option<(u64, regex::Regex)>,
    last_discovery: Option<Timestamp>,
    /// Re-tally after changes with this executable (`bansha tally --format json`).
    tally_exe: Option<PathBuf>,
    tallies: HashMap<u32, watch::Snapshot>,
}

impl std::fmt::Debug for Daemon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Daemon")
            .field("forum", &self.forum)
            .field("reports_dir", &self.reports_dir)
            .finish()
    }
}

impl Daemon {
    /// `reports_dir`: where the day's final reports go (one folder per day). Only
    /// `posts.json` is written until [`Daemon::with_writer`] installs [`StandardReports`]
    /// (what `bansha run` does).
    pub fn new(
        cfg: Config,
        store: Store,
        fetcher: Fetcher,
        clock: Arc<dyn Clock>,
        reports_dir: PathBuf,
    ) -> Self {
        let written = reports::days_written(&reports_dir);
        let discovery = match (cfg.daemon.fid, &cfg.daemon.title_pattern) {
            // The config loader has checked the pattern.
            (Some(fid), Some(p)) => regex::Regex::new(p).ok().map(|re| (fid, re)),
            _ => None,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let fetcher = fetcher.with_stop(stop.clone());
        Daemon {
            forum: cfg.forum_key(),
            policy: Policy::from_config(&cfg),
            use_api: cfg.daemon.use_api,
            cfg,
            store,
            fetcher,
            clock,
            rechecked: HashMap::new(),
            gone: BTreeMap::new(),
            written,
            reports_dir,
            writer: Box::new(reports::PostsOnly),
            stop,
            progress: false,
            discovery,
            last_discovery: None,
            tally_exe: None,
            tallies: HashMap::new(),
        }
    }

    /// Replace how the day's reports are written.
    pub fn with_writer(mut self, w: Box<dyn ReportWriter>) -> Self {
        self.writer = w;
        self
    }

    /// Show a progress bar while backfilling (interactive `sync`; hidden when stderr is not
    /// a terminal).
    pub fn with_progress(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }

    /// After a pass in which a day's 投票帖 changed, re-tally with `exe tally --format json`
    /// and log new ballots, 改票 and a new leader (what `bansha run` does).
    pub fn with_tally_watch(mut self, exe: PathBuf) -> Self {
        self.tally_exe = Some(exe);
        self
    }

    /// Raise this flag to stop after the current page.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Threads skipped because the forum says they are gone or forbidden.
    pub fn gone(&self) -> &BTreeMap<u64, String> {
        &self.gone
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// One polling pass over the threads active at the clock's time (no reports):
    /// what `bansha sync` does.
    pub async fn sync_once(&mut self) -> Result<PassSummary, DaemonError> {
        let now = self.clock.now();
        self.discover(now).await?;
        let tids = plan::active_threads(&self.cfg, now);
        let mut sum = PassSummary::default();
        self.poll_threads(&tids, false, &mut sum).await?;
        self.retally(&mut sum);
        self.scan_flags(&mut sum);
        Ok(sum)
    }

    /// One daemon step at the clock's time: poll the active threads, then for each day
    /// whose 关门 + grace has passed and whose reports are not written, re-read all its
    /// pages once more and write its reports.
    pub async fn step(&mut self) -> Result<PassSummary, DaemonError> {
        let mut sum = self.sync_once().await?;
        if sum.stopped {
            return Ok(sum);
        }
        let now = self.clock.now();
        for day in plan::reports_due(&self.cfg, now, &self.written) {
            let tids = plan::day_threads(&self.cfg, day);
            let errors_before = sum.errors.len();
            self.poll_threads(&tids, true, &mut sum).await?;
            if sum.stopped {
                return Ok(sum);
            }
            if sum.errors.len() > errors_before {
                // Retry the final re-read on the next pass rather than report on a
                // partial view.
                tracing::warn!(
                    day,
                    "final re-read incomplete; reports postponed to the next pass"
                );
                continue;
            }
            let files = self
                .writer
                .write_day(&self.cfg, &self.store, day, &self.reports_dir)
                .map_err(|e| DaemonError::Reports {
                    day,
                    msg: format!("{e:#}"),
                })?;
            reports::mark_written(&self.reports_dir, day).map_err(|e| DaemonError::Reports {
                day,
                msg: e.to_string(),
            })?;
            tracing::info!(day, files = files.len(), dir = %self.reports_dir.display(), "day closed: final reports written");
            self.written.insert(day);
            sum.reports.extend(files);
        }
        Ok(sum)
    }

    /// Loop [`Daemon::step`] until the stop flag goes up, sleeping until the next wake-up
    /// (computed from the clock; the sleep wakes early on stop). A login failure ends the
    /// loop with an error.
    pub async fn run(&mut self) -> Result<(), DaemonError> {
        while !self.stopped() {
            let sum = self.step().await?;
            if !sum.errors.is_empty() {
                tracing::warn!(
                    errors = sum.errors.len(),
                    "pass finished with errors; retrying next pass"
                );
            }
            let now = self.clock.now();
            let wake = plan::next_wake(&self.cfg, now, &self.written);
            tracing::debug!(secs = wake - now, "sleeping until the next poll");
            while !self.stopped() && self.clock.now() < wake {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        }
        tracing::info!("stopped");
        Ok(())
    }

    /// Re-tally the days whose 投票帖 changed in this pass and log the differences.
    fn retally(&mut self, sum: &mut PassSummary) {
        let Some(exe) = self.tally_exe.clone() else {
            return;
        };
        let days: Vec<u32> = self
            .cfg
            .days
            .iter()
            .filter(|d| d.vote.is_some_and(|t| sum.changed_threads.contains(&t)))
            .map(|d| d.number)
            .collect();
        for day in days {
            match watch::run_tally(&exe, &self.cfg.path, day) {
                Ok(snap) => {
                    let events = watch::diff(self.tallies.get(&day), &snap);
                    watch::log(day, &events);
                    sum.tally_events
                        .extend(events.into_iter().map(|e| (day, e)));
                    self.tallies.insert(day, snap);
                }
                Err(e) => tracing::warn!(day, "re-tally failed: {e}"),
            }
        }
    }

    /// List the board and add new day threads to the (in-memory) config; at most every
    /// ten minutes. A failure is logged and retried later; only a login problem is fatal.
    async fn discover(&mut self, now: Timestamp) -> Result<(), DaemonError> {
        let Some((fid, re)) = self.discovery.clone() else {
            return Ok(());
        };
        if self
            .last_discovery
            .is_some_and(|t| now - t < DISCOVERY_INTERVAL)
        {
            return Ok(());
        }
        let url = crate::fetch::api_forumdisplay_url(self.fetcher.base_url(), fid, 1);
        let mut ctx = ParseContext::new(url.clone(), now);
        ctx.tz = self.cfg.tz;
        let list = self
            .fetcher
            .get_with(&url, |raw| {
                match crate::discuz::parse_forumdisplay(&raw.body, &ctx) {
                    Ok(l) => Verdict::Ok(l),
                    Err(e) if e.is_login_problem() => Verdict::Login(e.to_string()),
                    Err(e) if e.is_gone() => Verdict::Gone(e.to_string()),
                    Err(e) if e.is_retryable() => Verdict::Retry(e.to_string()),
                    Err(e) => Verdict::Fatal(e.to_string()),
                }
            })
            .await;
        let list = match list {
            Ok(l) => l,
            Err(e @ FetchError::Login { .. }) => return Err(DaemonError::Login(e)),
            Err(e) => {
                tracing::warn!("thread discovery on board {fid} failed: {e}");
                return Ok(());
            }
        };
        self.last_discovery = Some(now);
        for f in discover::new_threads(&self.cfg, &list, &re) {
            if discover::add_to_config(&mut self.cfg, &f) {
                tracing::info!(day = f.day, tid = f.tid, kind = ?f.kind, subject = %f.subject, "discovered a day thread; add it (and the day's closes) to the config");
            } else {
                tracing::warn!(day = f.day, tid = f.tid, subject = %f.subject, "found another {:?} thread for the day; not polled until it is in the config", f.kind);
            }
        }
        Ok(())
    }

    async fn poll_threads(
        &mut self,
        tids: &[u64],
        final_pass: bool,
        sum: &mut PassSummary,
    ) -> Result<(), DaemonError> {
        for &tid in tids {
            if self.stopped() {
                sum.stopped = true;
                return Ok(());
            }
            if let Some(why) = self.gone.get(&tid) {
                tracing::debug!(tid, "skipped (gone: {why})");
                continue;
            }
            sum.threads += 1;
            match self.poll_thread(tid, final_pass, sum).await {
                Ok(()) => {}
                Err(FetchError::Stopped) => {
                    sum.stopped = true;
                    return Ok(());
                }
                Err(e @ FetchError::Login { .. }) => return Err(DaemonError::Login(e)),
                Err(e @ FetchError::Gone { .. }) => {
                    tracing::error!(tid, "thread gone or forbidden, skipping it: {e}");
                    self.gone.insert(tid, e.to_string());
                    sum.gone.push(tid);
                }
                Err(e) => {
                    tracing::error!(tid, "{e}");
                    sum.errors.push(e.to_string());
                }
            }
        }
        Ok(())
    }

    /// Poll one thread: the last known page, following pages while the pager shows more,
    /// and (when due, or at the final pass) a re-read of recent (or all) pages.
    async fn poll_thread(
        &mut self,
        tid: u64,
        final_pass: bool,
        sum: &mut PassSummary,
    ) -> Result<(), FetchError> {
        let rec = self
            .store
            .thread_pages(&self.forum, tid)
            .map_err(|e| FetchError::Fatal {
                url: format!("store {tid}"),
                msg: e.to_string(),
            })?;
        let st = ThreadState {
            tid,
            last_page: rec.map(|(_, last)| last).filter(|&p| p > 0),
            total_pages: rec.map(|(total, _)| total).filter(|&p| p > 0),
            last_recheck_at: self.rechecked.get(&tid).copied(),
        };
        let now = self.clock.now();
        let recheck = final_pass || plan::recheck_due(&st, now, &self.policy);
        let mut fetched = BTreeSet::new();
        let mut page = plan::first_page(&st);
        let start = page;
        let mut bar: Option<ProgressBar> = None;
        loop {
            let tp = self.fetch_and_store(tid, page, final_pass, sum).await?;
            fetched.insert(tp.page);
            let remaining = tp.total_pages.saturating_sub(tp.page);
            if self.progress && bar.is_none() && remaining >= 3 {
                bar = Some(progress_bar(tid, start, tp.total_pages));
            }
            if let Some(b) = &bar {
                b.set_length(tp.total_pages.into());
                b.set_position(tp.page.into());
            }
            match plan::next_page(tp.page, tp.total_pages) {
                Some(n) if !fetched.contains(&n) => page = n,
                _ => break,
            }
            if self.stopped() {
                return Err(FetchError::Stopped);
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        if st.last_page.is_none() {
            // A backfill has just read every page.
            self.rechecked.insert(tid, now);
        } else if recheck {
            let last = fetched.iter().copied().max().unwrap_or(1);
            for p in plan::recheck_pages(last, &self.policy, final_pass, &fetched) {
                if self.stopped() {
                    return Err(FetchError::Stopped);
                }
                self.fetch_and_store(tid, p, final_pass, sum).await?;
            }
            self.rechecked.insert(tid, now);
        }
        Ok(())
    }

    /// Fetch one page, parse it completely, then store it in one transaction. Failures are
    /// written to the fetch log; nothing of a failed page is stored. A page whose
    /// fingerprint (see [`crate::fetch::fingerprint`]) matches the last stored fetch of the
    /// same page is neither parsed nor stored, only logged as `unchanged` — except in the
    /// final re-read at 关门, which parses every page. The viewer check (login expired)
    /// runs on every page, unchanged or not.
    async fn fetch_and_store(
        &mut self,
        tid: u64,
        page: u32,
        final_pass: bool,
        sum: &mut PassSummary,
    ) -> Result<PageSeen, FetchError> {
        let base = self.fetcher.base_url().to_string();
        let (url, kind) = if self.use_api {
            (api_thread_url(&base, tid, page, None), SourceKind::Api)
        } else {
            (thread_url(&base, tid, page), SourceKind::Html)
        };
        let store_err = |url: &str, e: crate::store::StoreError| FetchError::Fatal {
            url: url.to_string(),
            msg: format!("storing the page: {e}"),
        };
        let known = if final_pass {
            None
        } else {
            self.store
                .page_fingerprint(&self.forum, tid, kind, page)
                .map_err(|e| store_err(&url, e))?
        };
        let expects_login = self.fetcher.expects_login();
        let clock = self.clock.clone();
        let mut ctx = ParseContext::new(url.clone(), clock.now());
        ctx.tid = Some(tid);
        ctx.page = Some(page);
        ctx.tz = self.cfg.tz;
        ctx.charset = self.cfg.forum.charset;
        let result = self
            .fetcher
            .get_with(&url, |raw| {
                ctx.fetched_at = clock.now();
                let fp = match kind {
                    SourceKind::Api => fingerprint::api(&raw.body),
                    _ => fingerprint::html(&raw.body),
                };
                if let (Some(fp), Some(k)) = (&fp, &known)
                    && fp.hash == k.fingerprint
                {
                    if expects_login && fp.viewer_uid == Some(0) {
                        return Verdict::Login(
                            "the page shows a guest viewer (discuz_uid = '0' / member_uid 0)"
                                .into(),
                        );
                    }
                    return Verdict::Ok(Fetched::Unchanged(PageSeen {
                        page: k.served_page,
                        total_pages: k.total_pages,
                    }));
                }
                match classify(parse_page(&raw.body, &ctx), tid, expects_login) {
                    Verdict::Ok(tp) => Verdict::Ok(Fetched::Parsed(tp, fp.map(|f| f.hash))),
                    Verdict::Retry(m) => Verdict::Retry(m),
                    Verdict::Login(m) => Verdict::Login(m),
                    Verdict::Gone(m) => Verdict::Gone(m),
                    Verdict::Fatal(m) => Verdict::Fatal(m),
                }
            })
            .await;
        let info = FetchInfo {
            source: url.clone(),
            kind,
            page,
            fetched_at: ctx.fetched_at,
        };
        let (tp, fp) = match result {
            Ok(Fetched::Parsed(tp, fp)) => (tp, fp),
            Ok(Fetched::Unchanged(seen)) => {
                self.store
                    .log_fetch_unchanged(&self.forum, tid, &info)
                    .map_err(|e| store_err(&url, e))?;
                sum.pages += 1;
                sum.unchanged += 1;
                return Ok(seen);
            }
            Err(FetchError::Stopped) => return Err(FetchError::Stopped),
            Err(e) => {
                if let Err(le) =
                    self.store
                        .log_fetch_failure(&self.forum, tid, &info, &e.to_string())
                {
                    tracing::error!("cannot write the fetch log: {le}");
                }
                return Err(e);
            }
        };
        let info = FetchInfo {
            page: tp.page,
            ..info
        };
        let changes = self
            .store
            .store_page(&self.forum, &tp, &info)
            .map_err(|e| store_err(&url, e))?;
        if let Some(fp) = fp {
            // Stored after the page itself: a crash in between only costs a re-parse.
            let rec = PageFingerprint {
                fingerprint: fp,
                served_page: tp.page,
                total_pages: tp.total_pages,
            };
            self.store
                .set_page_fingerprint(&self.forum, tid, kind, page, &rec, info.fetched_at)
                .map_err(|e| store_err(&url, e))?;
        }
        sum.pages += 1;
        if !changes.is_empty() {
            sum.changed_threads.insert(tid);
        }
        log_changes(&self.cfg, &tp, &changes);
        sum.new_posts += changes.new_posts.len();
        sum.changed += changes.changed.len();
        sum.missing += changes.missing.len();
        Ok(PageSeen {
            page: tp.page,
            total_pages: tp.total_pages,
        })
    }
}

/// Where a fetched page sits in its thread.
#[derive(Debug, Clone, Copy)]
struct PageSeen {
    page: u32,
    total_pages: u32,
}

/// A fetched page: parsed (with its fingerprint, if it has one), or unchanged.
enum Fetched {
    Parsed(ThreadPage, Option<String>),
    Unchanged(PageSeen),
}

/// Map a parse result to what the fetcher should do.
fn classify(
    r: Result<ThreadPage, crate::discuz::PageError>,
    tid: u64,
    expects_login: bool,
) -> Verdict<ThreadPage> {
    match r {
        Ok(tp) if expects_login && tp.viewer_uid == Some(0) => {
            Verdict::Login("the page shows a guest viewer (discuz_uid = '0' / member_uid 0)".into())
        }
        Ok(tp) if tp.tid != 0 && tp.tid != tid => Verdict::Fatal(format!(
            "asked for thread {tid}, the forum served thread {}",
            tp.tid
        )),
        Ok(mut tp) => {
            if tp.tid == 0 {
                tp.tid = tid;
            }
            Verdict::Ok(tp)
        }
        Err(e) if e.is_login_problem() => Verdict::Login(e.to_string()),
        Err(e) if e.is_gone() => Verdict::Gone(e.to_string()),
        Err(e) if e.is_retryable() => Verdict::Retry(e.to_string()),
        Err(e) => Verdict::Fatal(e.to_string()),
    }
}

fn excerpt(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

fn log_changes(cfg: &Config, tp: &ThreadPage, c: &PageChanges) {
    let find = |pid: u64| tp.posts.iter().find(|p| p.pid == Some(pid) && !p.duplicate);
    for &pid in &c.new_posts {
        if let Some(p) = find(pid) {
            tracing::info!(tid = tp.tid, pid, floor = ?p.floor, author = %p.author, time = %cfg.fmt_time(p.time), "new post: {}", excerpt(&p.text));
        }
    }
    for &pid in &c.changed {
        let who = find(pid).map(|p| p.author.clone()).unwrap_or_default();
        tracing::info!(tid = tp.tid, pid, author = %who, "post edited");
    }
    for &pid in &c.missing {
        tracing::warn!(tid = tp.tid, pid, "post missing (deleted or hidden)");
    }
    for &pid in &c.reappeared {
        tracing::info!(tid = tp.tid, pid, "post back");
    }
    for (pid, old, new) in &c.refloored {
        tracing::info!(tid = tp.tid, pid, ?old, ?new, "floor renumbered");
    }
}

fn progress_bar(tid: u64, start: u32, total: u32) -> ProgressBar {
    use std::io::IsTerminal;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(total.into())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{msg} [{bar:30}] page {pos}/{len} ({eta} left)")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("thread {tid}"));
    bar.set_position(start.saturating_sub(1).into());
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PagePost;

    fn page(tid: u64, viewer: Option<u64>) -> ThreadPage {
        ThreadPage {
            tid,
            title: "t".into(),
            page: 1,
            total_pages: 1,
            posts: Vec::<PagePost>::new(),
            author_filtered: false,
            viewer_uid: viewer,
        }
    }

    #[test]
    fn guest_viewer_is_a_login_problem_only_when_logged_in_was_expected() {
        assert!(matches!(
            classify(Ok(page(5, Some(0))), 5, true),
            Verdict::Login(_)
        ));
        assert!(matches!(
            classify(Ok(page(5, Some(0))), 5, false),
            Verdict::Ok(_)
        ));
        assert!(matches!(
            classify(Ok(page(5, Some(7))), 5, true),
            Verdict::Ok(_)
        ));
    }

    #[test]
    fn another_threads_page_is_never_stored() {
        assert!(matches!(
            classify(Ok(page(6, None)), 5, false),
            Verdict::Fatal(_)
        ));
    }

    #[test]
    fn excerpt_is_short_and_single_line() {
        assert_eq!(excerpt("a\n b"), "a b");
        assert_eq!(excerpt(&"字".repeat(50)).chars().count(), 41);
    }
}
