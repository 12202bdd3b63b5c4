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
use crate::fetch::paging::LAST_PAGE;
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
    /// Revisions the moderation scan read this pass (only those not scanned before).
    pub revisions_scanned: usize,
}

/// A failure that ends the daemon (the director must act): login, disk, config.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("{0}")]
    Login(FetchError),
    /// Nothing answers at `forum.base_url` (connection refused, DNS failure).
    #[error("{0}")]
    Unreachable(FetchError),
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
    /// Re-tally (in-process, by the game layer) after a pass that changed a 投票帖.
    tally_watch: bool,
    tallies: HashMap<u32, watch::Snapshot>,
    /// Set when [`Daemon::run`] stopped because the game is over.
    game_over: Option<String>,
    /// The rule file the flag scan uses, with its modification time: loaded again only
    /// when the file changes.
    flag_rules: Option<(Option<std::time::SystemTime>, crate::rules::RuleSet)>,
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
            gone: BTreeMap::new(),
            written,
            reports_dir,
            writer: Box::new(reports::PostsOnly),
            stop,
            progress: false,
            discovery,
            last_discovery: None,
            tally_watch: false,
            tallies: HashMap::new(),
            game_over: None,
            flag_rules: None,
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

    /// After a pass in which a day's 投票帖 changed, re-tally (the game layer's tally, as
    /// `bansha tally` computes it) and log new ballots, 改票 and a new leader (what
    /// `bansha run` does).
    pub fn with_tally_watch(mut self) -> Self {
        self.tally_watch = true;
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
                .write_day(
                    &self.cfg,
                    &mut self.store,
                    day,
                    &self.reports_dir,
                    self.clock.now(),
                )
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
        let mut first = true;
        while !self.stopped() {
            let sum = match self.step().await {
                // At the start an unreachable forum is a wrong base_url: stop. Later it is
                // the network going away for a while: say so once per pass, poll again.
                Err(DaemonError::Unreachable(e)) if !first => {
                    tracing::warn!("{e}; polling again at the next interval");
                    PassSummary::default()
                }
                r => r?,
            };
            first = false;
            if let Some(msg) = self.finished_game() {
                tracing::info!("{msg}");
                self.game_over = Some(msg);
                break;
            }
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

    /// Why the daemon stopped by itself: the game is over (a `game-over` event), with the
    /// winner. `None` while it runs, or when it stopped on a signal.
    pub fn game_over(&self) -> Option<&str> {
        self.game_over.as_deref()
    }

    /// The game is over when a `game-over` event's time has passed and every day that
    /// closed before it has its reports. The config file is re-read for its events, so an
    /// event the director adds while the daemon runs is seen at the next pass.
    fn finished_game(&mut self) -> Option<String> {
        if self.cfg.path.is_file()
            && let Ok(c) = Config::load(&self.cfg.path)
        {
            self.cfg.events = c.events;
        }
        let now = self.clock.now();
        let (winner, at) = self.cfg.game_over(now)?;
        let pending = self.cfg.days.iter().any(|d| {
            d.closes.is_some_and(|c| self.cfg.ts(c) <= at) && !self.written.contains(&d.number)
        });
        if pending {
            return None;
        }
        Some(format!(
            "game over: {winner} (recorded at {}); every closed day has its reports; nothing more to poll",
            self.cfg.fmt_time(at)
        ))
    }

    /// Re-tally the days whose 投票帖 changed in this pass and log the differences.
    fn retally(&mut self, sum: &mut PassSummary) {
        if !self.tally_watch {
            return;
        }
        let days: Vec<u32> = self
            .cfg
            .days
            .iter()
            .filter(|d| d.vote.is_some_and(|t| sum.changed_threads.contains(&t)))
            .map(|d| d.number)
            .collect();
        for day in days {
            match self.tally_snapshot(day) {
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

    /// The day's tally as of now, from the game layer, as a snapshot.
    fn tally_snapshot(&mut self, day: u32) -> Result<watch::Snapshot, String> {
        let now = self.clock.now();
        self.flag_rules()?;
        let Some((_, rules)) = &self.flag_rules else {
            return Err("no rule set".into());
        };
        let tid = crate::game::tally::vote_tid(&self.cfg, day).map_err(|e| e.to_string())?;
        let t = crate::game::tally::stored_tally(&self.cfg, rules, &self.store, day, tid, now)
            .map_err(|e| e.to_string())?;
        watch::of_tally(&t)
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
            Err(e @ FetchError::Unreachable { .. }) => return Err(DaemonError::Unreachable(e)),
            Err(e) => {
                tracing::warn!("thread discovery on board {fid} failed: {e}");
                return Ok(());
            }
        };
        self.last_discovery = Some(now);
        for f in discover::new_threads(&self.cfg, &list, &re) {
            if discover::add_to_config(&mut self.cfg, &f) {
                tracing::info!(day = f.day, tid = f.tid, kind = crate::daemon::floor_text::kind(f.kind), subject = %f.subject, "discovered a day thread; add it (and the day's closes) to the config");
            } else {
                tracing::warn!(day = f.day, tid = f.tid, subject = %f.subject, "found another {} thread for the day; not polled until it is in the config", crate::daemon::floor_text::kind(f.kind));
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
                // Every other thread would fail the same way: end the pass now.
                Err(e @ FetchError::Unreachable { .. }) => {
                    return Err(DaemonError::Unreachable(e));
                }
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

    /// Poll one thread (see ARCHITECTURE.md, "Requests: API and PC pages"):
    /// 1. at a backfill, PC page 1 (its pager tells the thread's length);
    /// 2. a long thread's bulk read, or every poll with `use_api`, through the mobile API,
    ///    paged at the `ppp` the forum served;
    /// 3. live reads of PC pages from the PC cursor (after a bulk read: the newest PC
    ///    page), following the pager;
    /// 4. when due (persisted cadence) or at the final pass, a re-read of recent (or all)
    ///    posts: through the API when it is usable, else PC pages;
    /// 5. the PC pages of API-read posts the API cannot vouch for (new and styled, or
    ///    edited), so their font size is judged.
    ///
    /// The API refusing (closed, missing, not JSON) is remembered for the forum and the
    /// pass falls back to PC pages; nothing read before the refusal is lost.
    async fn poll_thread(
        &mut self,
        tid: u64,
        final_pass: bool,
        sum: &mut PassSummary,
    ) -> Result<(), FetchError> {
        let now = self.clock.now();
        let store_fatal = |e: crate::store::StoreError| FetchError::Fatal {
            url: format!("store {tid}"),
            msg: e.to_string(),
        };
        let prior = self
            .store
            .poll_state(&self.forum, tid)
            .map_err(store_fatal)?;
        let legacy = self
            .store
            .thread_pages(&self.forum, tid)
            .map_err(store_fatal)?
            .map(|(_, last)| last)
            .filter(|&p| p > 0);
        let mut st = prior.unwrap_or_default();
        if prior.is_none() {
            // Before schema step 3 the only cursor was `threads.last_page_seen`, in the
            // live source's pages; mark the thread as started before the first request,
            // so a crash mid-backfill is not mistaken for such an old cursor.
            if self.use_api {
                st.api_page = legacy;
            } else {
                st.pc_page = legacy;
            }
            self.store
                .set_poll_state(&self.forum, tid, &st)
                .map_err(store_fatal)?;
        }
        let cursor = if self.use_api {
            st.api_page
        } else {
            st.pc_page
        };
        let backfill = cursor.is_none();
        let mut fs = self.store.forum_state(&self.forum).map_err(store_fatal)?;
        let mut api_ok = self.api_usable(&fs, now);
        let mut pc_ppp = fs.pc_ppp.unwrap_or(self.cfg.daemon.pc_ppp).max(1);
        let mut acc = Reads::default();

        // 1. A PC backfill starts with page 1: its pager tells the thread's size, and a
        //    thread of a few pages is cheapest read on PC pages.
        let mut pc_from = st.pc_page.unwrap_or(1);
        let mut api_bulk = false;
        if backfill && !self.use_api {
            let Some(seen) = self
                .read_page(tid, Via::Pc, pc_from, final_pass, sum, &mut acc)
                .await?
            else {
                return Ok(());
            };
            acc.pc_live = Some((seen.page, seen.total_pages));
            api_bulk = api_ok && seen.total_pages.saturating_sub(seen.page) > PC_FOLLOW_MAX;
            pc_from = match plan::next_page(seen.page, seen.total_pages) {
                Some(n) if api_bulk => seen.total_pages.max(n),
                Some(n) => n,
                None => 0,
            };
        }
        if let Some(p) = acc.pc_ppp_seen {
            pc_ppp = p;
        }
        // 2. The API: the whole thread after a long thread's first PC page, the newest
        //    pages on a live API poll (`use_api`).
        if api_ok && (api_bulk || self.use_api) {
            let asked = self.api_ppp_asked();
            // A bulk read starts at 1; a live API poll at its cursor, moved to the served
            // page size if the site's cap changed.
            let start = match (cursor, st.api_ppp, asked) {
                _ if api_bulk => 1,
                (Some(p), Some(old), Some(new)) if old != new => plan::rescale_page(p, old, new),
                (Some(p), _, _) => p,
                (None, _, _) => 1,
            };
            if api_bulk {
                acc.min_api_ppp = pc_ppp;
            }
            if !self
                .read_forward(tid, Via::Api, start, final_pass, sum, &mut acc)
                .await?
            {
                api_ok = false;
                if api_bulk {
                    // Back to PC pages, right after the first.
                    pc_from = acc.pc_live.map(|(p, _)| p + 1).unwrap_or(1);
                }
            }
        }
        // 3. PC pages from the PC cursor (after an API bulk read: the newest PC page),
        //    following the pager.
        if (!self.use_api || !api_ok) && pc_from > 0 {
            let done = acc.pc_live.is_some_and(|(p, t)| p >= t && pc_from > t);
            if !done {
                self.read_forward(tid, Via::Pc, pc_from, final_pass, sum, &mut acc)
                    .await?;
            }
        }
        // 4. The re-read of recent posts, on its own (persisted) cadence.
        let state = ThreadState {
            tid,
            last_page: cursor,
            total_pages: None,
            last_recheck_at: st.last_recheck_at,
        };
        let recheck = !backfill && (final_pass || plan::recheck_due(&state, now, &self.policy));
        if recheck {
            let done = api_ok
                && self
                    .api_recheck(tid, final_pass, &st, pc_ppp, sum, &mut acc)
                    .await?;
            if !done {
                let last = acc
                    .pc_read
                    .iter()
                    .copied()
                    .max()
                    .or(st.pc_page)
                    .unwrap_or(1);
                for p in plan::recheck_pages(last, &self.policy, final_pass, &acc.pc_read) {
                    if self.stopped() {
                        return Err(FetchError::Stopped);
                    }
                    self.read_page(tid, Via::Pc, p, final_pass, sum, &mut acc)
                        .await?;
                }
            }
        }
        // What the API said about the forum: refused (remembered), or usable again.
        if let Some(why) = acc.refused.take() {
            tracing::warn!(
                tid,
                "the mobile API refused ({why}); reading PC pages, retrying the API in {} h",
                API_RETRY_SECS / 3600
            );
            fs.api_closed = Some((now, why));
        } else if acc.api_count > 0 || acc.api_last.is_some() {
            fs.api_closed = None;
        }
        // The PC page size the pager agrees with (to find the PC page of a post).
        if let Some(p) = acc.pc_ppp_seen {
            pc_ppp = p;
            fs.pc_ppp = Some(p);
        } else if let (Some((_, total)), true) = (acc.pc_last, acc.api_count > 0) {
            let learned = plan::learn_pc_ppp(acc.api_count, total, pc_ppp);
            if learned != pc_ppp {
                tracing::info!(
                    from = pc_ppp,
                    to = learned,
                    "PC posts per page corrected from the pager"
                );
                pc_ppp = learned;
            }
            fs.pc_ppp = Some(pc_ppp);
        }
        // 5. PC pages for the API-read posts whose size the API cannot show. A post not on
        //    the page its index points to (deleted floors shift PC pages) gets one try on
        //    the neighbouring page its pid points to.
        if !acc.for_pc.is_empty() {
            let indices: Vec<usize> = acc.for_pc.iter().map(|&(i, _)| i).collect();
            let pages = plan::pc_pages_for(&indices, pc_ppp, &acc.pc_read);
            for p in pages {
                if self.stopped() {
                    return Err(FetchError::Stopped);
                }
                self.read_page(tid, Via::Pc, p, final_pass, sum, &mut acc)
                    .await?;
            }
            let mut retry = BTreeSet::new();
            for &(i, pid) in &acc.for_pc {
                if acc.pc_pids.contains(&pid) {
                    continue;
                }
                let p = plan::pc_page_of(i, pc_ppp);
                let n = match acc.pc_spans.get(&p) {
                    Some(&(lo, _)) if pid < lo => p.saturating_sub(1),
                    Some(&(_, hi)) if pid > hi => p + 1,
                    _ => continue,
                };
                if n > 0 && !acc.pc_read.contains(&n) {
                    retry.insert(n);
                }
            }
            for p in retry {
                if self.stopped() {
                    return Err(FetchError::Stopped);
                }
                self.read_page(tid, Via::Pc, p, final_pass, sum, &mut acc)
                    .await?;
            }
            let lost = acc
                .for_pc
                .iter()
                .filter(|(_, pid)| !acc.pc_pids.contains(pid))
                .count();
            if lost > 0 {
                tracing::warn!(
                    tid,
                    posts = lost,
                    "styled or edited posts not found on their PC pages; their font size stays unknown"
                );
            }
        }
        // Remember where this thread stands.
        if let Some((page, total)) = acc.pc_live {
            st.pc_page = Some(page);
            st.pc_total = Some(total);
        }
        if let Some((page, ppp)) = acc.api_live {
            st.api_page = Some(page);
            st.api_ppp = Some(ppp);
        }
        if let Some(n) = acc.api_posts {
            st.api_posts = Some(n);
        }
        if backfill || recheck {
            st.last_recheck_at = Some(now);
        }
        self.store
            .set_poll_state(&self.forum, tid, &st)
            .map_err(store_fatal)?;
        self.store
            .set_forum_state(&self.forum, &fs)
            .map_err(store_fatal)?;
        Ok(())
    }

    /// The `ppp` asked of the API (None: the site's default).
    fn api_ppp_asked(&self) -> Option<u32> {
        Some(self.cfg.daemon.api_ppp).filter(|&p| p > 0)
    }

    /// Whether to read through the API: bulk reads are on (or `use_api`), and it has not
    /// refused in the last [`API_RETRY_SECS`].
    fn api_usable(&self, fs: &crate::store::ForumState, now: Timestamp) -> bool {
        (self.use_api || self.cfg.daemon.api_ppp > 0)
            && fs
                .api_closed
                .as_ref()
                .is_none_or(|(at, _)| now - at >= API_RETRY_SECS)
    }

    /// Read pages from `start`, following the pager to the end (with a progress bar on
    /// long backfills). False when the API refused (nothing stored for that page).
    async fn read_forward(
        &mut self,
        tid: u64,
        via: Via,
        start: u32,
        final_pass: bool,
        sum: &mut PassSummary,
        acc: &mut Reads,
    ) -> Result<bool, FetchError> {
        let mut page = start.max(1);
        let mut bar: Option<ProgressBar> = None;
        let mut fetched = BTreeSet::new();
        loop {
            let Some(seen) = self.read_page(tid, via, page, final_pass, sum, acc).await? else {
                return Ok(false);
            };
            fetched.insert(seen.page);
            let (api, second) = match via {
                Via::Pc => {
                    acc.pc_live = Some((seen.page, seen.total_pages));
                    (false, seen.total_pages)
                }
                Via::Api => {
                    let ppp = acc.api_ppp_served.unwrap_or(1);
                    acc.api_live = Some((seen.page, ppp));
                    (true, ppp)
                }
            };
            if via == Via::Pc || self.use_api {
                // The live cursor moves page by page: a crash resumes here.
                self.store
                    .set_poll_cursor(&self.forum, tid, api, seen.page, second)
                    .map_err(|e| FetchError::Fatal {
                        url: format!("store {tid}"),
                        msg: e.to_string(),
                    })?;
            }
            let remaining = seen.total_pages.saturating_sub(seen.page);
            if self.progress && bar.is_none() && remaining >= 3 {
                bar = Some(progress_bar(tid, start, seen.total_pages));
            }
            if let Some(b) = &bar {
                b.set_length(seen.total_pages.into());
                b.set_position(seen.page.into());
            }
            match plan::next_page(seen.page, seen.total_pages) {
                Some(n) if !fetched.contains(&n) => page = n,
                _ => break,
            }
            if via == Via::Api
                && acc.min_api_ppp > 0
                && acc.api_ppp_served.is_some_and(|p| p <= acc.min_api_ppp)
            {
                // The site caps the API at no more than a PC page: PC pages cost the
                // same and show font sizes.
                tracing::info!(
                    tid,
                    ppp = acc.api_ppp_served,
                    "the forum caps the API's page size at a PC page's; reading PC pages"
                );
                return Ok(false);
            }
            if self.stopped() {
                return Err(FetchError::Stopped);
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        Ok(true)
    }

    /// The re-read of recent posts through the API: the API page(s) holding the newest
    /// `recheck_pages` PC pages' worth of posts, or every API page at the final pass.
    /// False when the API refused.
    async fn api_recheck(
        &mut self,
        tid: u64,
        final_pass: bool,
        st: &crate::store::PollState,
        pc_ppp: u32,
        sum: &mut PassSummary,
        acc: &mut Reads,
    ) -> Result<bool, FetchError> {
        if final_pass {
            // Every API page not read in this pass yet.
            let mut page = 1;
            loop {
                if !acc.api_read.contains(&page) {
                    if self.stopped() {
                        return Err(FetchError::Stopped);
                    }
                    if self
                        .read_page(tid, Via::Api, page, final_pass, sum, acc)
                        .await?
                        .is_none()
                    {
                        return Ok(false);
                    }
                }
                if page >= acc.api_total.max(1) {
                    break;
                }
                page += 1;
            }
            return Ok(true);
        }
        // The newest API page, unless this pass read it already.
        if acc.api_last.is_none()
            && self
                .read_page(tid, Via::Api, LAST_PAGE, final_pass, sum, acc)
                .await?
                .is_none()
        {
            return Ok(false);
        }
        let Some((last, ppp)) = acc.api_last else {
            return Ok(true);
        };
        let count = acc.api_posts.or(st.api_posts).unwrap_or(0);
        let window = self.policy.recheck_pages.saturating_mul(pc_ppp.max(1));
        for p in plan::api_pages_for_recent(count, ppp, window) {
            if p >= last || acc.api_read.contains(&p) {
                continue;
            }
            if self.stopped() {
                return Err(FetchError::Stopped);
            }
            if self
                .read_page(tid, Via::Api, p, final_pass, sum, acc)
                .await?
                .is_none()
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Read one page and account for it in `acc`. None when the API refused.
    async fn read_page(
        &mut self,
        tid: u64,
        via: Via,
        page: u32,
        final_pass: bool,
        sum: &mut PassSummary,
        acc: &mut Reads,
    ) -> Result<Option<PageSeen>, FetchError> {
        let read = match self
            .fetch_and_store(tid, via, page, final_pass, sum)
            .await?
        {
            Outcome::Refused(why) => {
                acc.refused = Some(why);
                return Ok(None);
            }
            Outcome::Read(r) => r,
        };
        let seen = read.seen;
        match via {
            Via::Pc => {
                acc.pc_read.insert(seen.page);
                let pids = read.posts.iter().map(|&(pid, _)| pid);
                if let (Some(lo), Some(hi)) = (pids.clone().min(), pids.clone().max()) {
                    acc.pc_spans.insert(seen.page, (lo, hi));
                }
                acc.pc_pids.extend(pids);
                if seen.page < seen.total_pages && read.slots > 0 {
                    acc.pc_ppp_seen = Some(read.slots);
                }
                if seen.page >= seen.total_pages {
                    acc.pc_last = Some((seen.page, seen.total_pages));
                }
            }
            Via::Api => {
                acc.api_read.insert(seen.page);
                acc.api_total = seen.total_pages;
                let ppp = read
                    .ppp
                    .or(acc.api_ppp_served)
                    .unwrap_or(read.posts.len().max(1) as u32);
                acc.api_ppp_served = Some(ppp);
                let base = (seen.page.max(1) as usize - 1) * ppp as usize;
                for (i, (pid, styled)) in read.posts.iter().enumerate() {
                    let new = read.new_posts.contains(pid);
                    let edited = read.changed.contains(pid) && !new;
                    if (new && *styled && self.cfg.daemon.styled_pc_pages) || edited {
                        acc.for_pc.push((base + i, *pid));
                    }
                }
                if seen.page >= seen.total_pages {
                    acc.api_last = Some((seen.page, ppp));
                    if !read.posts.is_empty() {
                        let count = base + read.posts.len();
                        acc.api_posts = Some(count as u32);
                        acc.api_count = count;
                    }
                }
            }
        }
        Ok(Some(seen))
    }

    /// Fetch one page, parse it completely, then store it in one transaction. Failures are
    /// written to the fetch log; nothing of a failed page is stored. A page whose
    /// fingerprint (see [`crate::fetch::fingerprint`]) matches the last stored fetch of the
    /// same page is neither parsed nor stored, only logged as `unchanged` — except in the
    /// final re-read at 关门, which parses every page. The viewer check (login expired)
    /// runs on every page, unchanged or not. An API answer that refuses (closed, missing
    /// module, not JSON, no permission) is [`Outcome::Refused`], logged, never retried.
    async fn fetch_and_store(
        &mut self,
        tid: u64,
        via: Via,
        page: u32,
        final_pass: bool,
        sum: &mut PassSummary,
    ) -> Result<Outcome, FetchError> {
        let base = self.fetcher.base_url().to_string();
        let (url, kind) = match via {
            Via::Api => (
                api_thread_url(&base, tid, page, self.api_ppp_asked()),
                SourceKind::Api,
            ),
            Via::Pc => (thread_url(&base, tid, page), SourceKind::Html),
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
                if kind == SourceKind::Api && matches!(raw.status, 403 | 404 | 410) {
                    return Verdict::Ok(Fetched::Refused(format!("HTTP {}", raw.status)));
                }
                let ppp = match kind {
                    SourceKind::Api => crate::fetch::paging::served_ppp(&raw.body),
                    _ => None,
                };
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
                    return Verdict::Ok(Fetched::Unchanged(
                        PageSeen {
                            page: k.served_page,
                            total_pages: k.total_pages,
                        },
                        ppp,
                    ));
                }
                let parsed = parse_page(&raw.body, &ctx);
                if kind == SourceKind::Api
                    && let Err(e) = &parsed
                    && api_refusal(e)
                {
                    return Verdict::Ok(Fetched::Refused(e.to_string()));
                }
                match classify(parsed, tid, expects_login) {
                    Verdict::Ok(tp) => Verdict::Ok(Fetched::Parsed(tp, fp.map(|f| f.hash), ppp)),
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
        let (tp, fp, ppp) = match result {
            Ok(Fetched::Parsed(tp, fp, ppp)) => (tp, fp, ppp),
            Ok(Fetched::Unchanged(seen, ppp)) => {
                self.store
                    .log_fetch_unchanged(&self.forum, tid, &info)
                    .map_err(|e| store_err(&url, e))?;
                sum.pages += 1;
                sum.unchanged += 1;
                return Ok(Outcome::Read(PageRead {
                    seen,
                    ppp,
                    ..PageRead::default()
                }));
            }
            Ok(Fetched::Refused(why)) => {
                if let Err(le) = self.store.log_fetch_failure(
                    &self.forum,
                    tid,
                    &info,
                    &format!("api refused: {why}"),
                ) {
                    tracing::error!("cannot write the fetch log: {le}");
                }
                return Ok(Outcome::Refused(why));
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
        let posts = tp
            .posts
            .iter()
            .filter(|p| !p.duplicate && !p.deleted)
            .filter_map(|p| {
                // The directors' own fonts are theirs to use (导演专用的放大字体).
                let director = self.cfg.game.directors.contains(&p.author);
                Some((p.pid?, !director && plan::api_body_styled(&p.html)))
            })
            .collect();
        Ok(Outcome::Read(PageRead {
            seen: PageSeen {
                page: tp.page,
                total_pages: tp.total_pages,
            },
            ppp,
            posts,
            slots: tp.posts.iter().filter(|p| !p.duplicate).count() as u32,
            new_posts: changes.new_posts,
            changed: changes.changed,
        }))
    }
}

/// A PC backfill follows at most this many pages after page 1; a longer thread is read
/// through the API (its size is known from page 1's pager).
const PC_FOLLOW_MAX: u32 = 2;

/// Seconds before an API that refused is tried again.
const API_RETRY_SECS: i64 = 6 * 3600;

/// Which way a page is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    Pc,
    Api,
}

/// Where a fetched page sits in its thread.
#[derive(Debug, Clone, Copy, Default)]
struct PageSeen {
    page: u32,
    total_pages: u32,
}

/// One page read and stored (or unchanged).
#[derive(Debug, Default)]
struct PageRead {
    seen: PageSeen,
    /// API pages: the posts per page the forum served.
    ppp: Option<u32>,
    /// The page's posts in order (pid, whose API body shows styling); empty if unchanged.
    posts: Vec<(u64, bool)>,
    /// Page slots taken (posts and deleted-floor placeholders, no pinned copies).
    slots: u32,
    new_posts: Vec<u64>,
    changed: Vec<u64>,
}

enum Outcome {
    Read(PageRead),
    Refused(String),
}

/// What one poll of a thread has read so far.
#[derive(Debug, Default)]
struct Reads {
    pc_read: BTreeSet<u32>,
    /// The last PC page reached by following the pager (page, total).
    pc_live: Option<(u32, u32)>,
    /// A bulk API read stops when the served page is no larger than this (0: never).
    min_api_ppp: u32,
    /// PC posts per page, from a full (not the last) PC page.
    pc_ppp_seen: Option<u32>,
    /// The PC pager's last page, when read (page, total).
    pc_last: Option<(u32, u32)>,
    api_read: BTreeSet<u32>,
    api_total: u32,
    api_ppp_served: Option<u32>,
    /// The last API page reached by following the pager (page, served ppp).
    api_live: Option<(u32, u32)>,
    /// The API's last page (page, served ppp), when read.
    api_last: Option<(u32, u32)>,
    /// The thread's post count, from the API's last page.
    api_posts: Option<u32>,
    api_count: usize,
    /// API-read posts whose PC page must be read: (index in thread order, pid).
    for_pc: Vec<(usize, u64)>,
    /// Pids seen on PC pages in this poll, and each PC page's (lowest, highest) pid.
    pc_pids: std::collections::HashSet<u64>,
    pc_spans: BTreeMap<u32, (u64, u64)>,
    refused: Option<String>,
}

/// A fetched page: parsed (with its fingerprint, if it has one, and the API's served
/// `ppp`), unchanged, or an API refusal.
enum Fetched {
    Parsed(ThreadPage, Option<String>, Option<u32>),
    Unchanged(PageSeen, Option<u32>),
    Refused(String),
}

/// An API answer that says the API will not serve threads (closed, module missing, not
/// JSON at all, no permission through the API): fall back to PC pages.
fn api_refusal(e: &crate::discuz::PageError) -> bool {
    use crate::discuz::PageError as E;
    matches!(
        e,
        E::ApiError { .. }
            | E::MalformedJson { .. }
            | E::Malformed { .. }
            | E::NotThreadPage { .. }
            | E::NoPermission { .. }
            | E::ForumMessage { .. }
            | E::Empty { .. }
    )
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

/// Log field values without Rust debug text (`floor=Some(3)`): a floor as `3` or `?`.
pub(crate) mod floor_text {
    pub fn floor<T: std::fmt::Display>(f: Option<T>) -> String {
        f.map(|f| f.to_string()).unwrap_or_else(|| "?".into())
    }
    pub fn kind(k: crate::config::ThreadKind) -> &'static str {
        match k {
            crate::config::ThreadKind::Discussion => "discussion",
            crate::config::ThreadKind::Vote => "vote",
            crate::config::ThreadKind::Process => "process",
        }
    }
}

fn log_changes(cfg: &Config, tp: &ThreadPage, c: &PageChanges) {
    let find = |pid: u64| tp.posts.iter().find(|p| p.pid == Some(pid) && !p.duplicate);
    for &pid in &c.new_posts {
        if let Some(p) = find(pid) {
            tracing::info!(tid = tp.tid, pid, floor = %floor_text::floor(p.floor), author = %p.author, time = %cfg.fmt_time(p.time), "new post: {}", excerpt(&p.text));
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
        tracing::info!(tid = tp.tid, pid, old = %floor_text::floor(*old), new = %floor_text::floor(*new), "floor renumbered");
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
    fn api_refusals_fall_back_to_pc_but_missing_threads_and_logins_do_not() {
        use crate::discuz::{PageError, ParseContext, parse_page};
        let ctx = ParseContext::new("api", 0);
        let err = |body: &[u8]| parse_page(body, &ctx).unwrap_err();
        for body in [
            &br#"{"error":"mobile_is_closed"}"#[..],
            br#"{"error":"module_not_exists"}"#,
            b"<html><body>404 Not Found</body></html>",
            b"",
        ] {
            let e = err(body);
            assert!(api_refusal(&e), "{e}");
        }
        let missing = std::fs::read("tests/fixtures/discuz/captured/s1-viewthread-error.json")
            .expect("fixture");
        assert!(!api_refusal(&err(&missing)));
        let login = PageError::LoginRequired {
            origin: "api".into(),
            message: "x".into(),
        };
        assert!(!api_refusal(&login));
        let cc = PageError::CcDefence {
            origin: "api".into(),
            title: "x".into(),
        };
        assert!(!api_refusal(&cc));
    }

    #[test]
    fn excerpt_is_short_and_single_line() {
        assert_eq!(excerpt("a\n b"), "a b");
        assert_eq!(excerpt(&"字".repeat(50)).chars().count(), 41);
    }
}
