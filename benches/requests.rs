//! Benchmark: requests (run with `cargo bench --bench requests`; the counts are
//! deterministic, so `cargo bench --profile dev --bench requests` gives the same figures
//! on a loaded machine).
//!
//! Counts the requests the daemon sends to the test forum (its request log) for
//! 1. the backfill of a 2,000-post thread (PC 10 a page), PC pages only vs the mobile API
//!    (hybrid, API only, a site capping `ppp` at 30, a closed API), at several shares of
//!    styled posts (which the hybrid reads on PC pages for their font size);
//! 2. a day's polling of a live game: 30 polls ten minutes apart while 300 posts arrive
//!    in a thread that starts with 100, each poll a new `sync` process (cron), PC vs API.
//!
//! Each request is one anti-CC slot: at a polite 2 s gap, seconds of a director's wait are
//! twice the count.

use std::sync::Arc;

use bansha::config::Config;
use bansha::daemon::Daemon;
use bansha::fetch::{CookieJar, FetchOptions, Fetcher};
use bansha::store::Store;
use bansha::time::{Clock, ManualClock};
use bansha_testforum::{ForumSpec, TestForum, ThreadSpec};

const TID: u64 = 4001;
const NAMES: [&str; 8] = ["导演", "傻树", "白色防御者", "甲", "乙", "丙", "丁", "戊"];

/// Post `i` is styled (red and enlarged) when a fixed pseudo-random draw falls under
/// `styled_pct` percent; the draw is the same on every run.
fn styled(i: usize, styled_pct: u32) -> bool {
    let h = (i as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
        % 100;
    (h as u32) < styled_pct
}

fn message(i: usize, styled_pct: u32) -> String {
    if styled(i, styled_pct) {
        format!("第{i}楼 投票对象：[color=Red][size=5]乙[/size][/color]")
    } else {
        format!("第{i}楼：今天的发言，昨天的站边有问题，盘一下。")
    }
}

fn spec(posts: usize, styled_pct: u32) -> ForumSpec {
    let mut s = ForumSpec::board_of("2026-03-04 09:00", &NAMES, 401);
    s.threads = vec![ThreadSpec::minute_by_minute(
        TID,
        "D1 讨论帖",
        &NAMES,
        posts,
        |i| message(i, styled_pct),
    )];
    s
}

struct Run {
    forum: TestForum,
    dir: std::path::PathBuf,
    clock: Arc<ManualClock>,
}

impl Run {
    fn new(name: &str, spec: ForumSpec, daemon_extra: &str) -> Run {
        let forum = TestForum::start(spec).unwrap();
        let dir = std::env::temp_dir().join(format!(
            "bansha-bench-requests-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!(
            "[forum]\nbase_url = \"{}\"\nmin_interval_ms = 0\n\n[daemon]\n{daemon_extra}\n\n\
             [game]\nname = \"bench\"\nrules = \"r.toml\"\ndb = \"bench.sqlite\"\n\n\
             [[day]]\nnumber = 1\ndiscussion = [{TID}]\nopens = \"2026-03-01 00:00\"\ncloses = \"2026-03-30 21:00\"\n",
            forum.base_url()
        );
        std::fs::write(dir.join("bench.toml"), text).unwrap();
        let clock = Arc::new(ManualClock::new(
            bansha::time::parse_local("2026-03-04 09:00", chrono_tz::Asia::Shanghai).unwrap(),
        ));
        Run { forum, dir, clock }
    }

    /// One `bansha sync`: a new daemon on the same database. Returns its requests.
    fn sync(&self, rt: &tokio::runtime::Runtime) -> usize {
        let cfg = Config::load(&self.dir.join("bench.toml")).unwrap();
        let store = Store::open(&cfg.db_path()).unwrap();
        let fetcher =
            Fetcher::new(FetchOptions::from_config(&cfg), CookieJar::new(), None).unwrap();
        let mut d = Daemon::new(cfg, store, fetcher, self.clock.clone(), self.dir.join("r"));
        let before = self.forum.request_count();
        let s = rt.block_on(d.sync_once()).unwrap();
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        self.forum.request_count() - before
    }

    fn api_requests(&self) -> usize {
        self.forum
            .requests()
            .iter()
            .filter(|r| r.target.contains("api/mobile"))
            .count()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

const PC_ONLY: &str = "api_ppp = 0";
const HYBRID: &str = "";
const API_ONLY: &str = "use_api = true";
/// What a fresh `sync` process did before the cadence was stored: every run re-read the
/// recent pages (a re-read was due whenever none was remembered).
const PC_BEFORE: &str = "api_ppp = 0\nrecheck_interval_secs = 0";

fn backfill(rt: &tokio::runtime::Runtime) {
    println!("requests/backfill: a 2,000-post thread (PC 10 a page = 200 pages)");
    println!(
        "  {:<44} {:>8} {:>6} {:>10}",
        "mode", "requests", "of API", "at 2 s gap"
    );
    let row = |what: &str, spec: ForumSpec, extra: &str| {
        let r = Run::new("backfill", spec, extra);
        let n = r.sync(rt);
        println!("  {what:<44} {n:>8} {:>6} {:>8} s", r.api_requests(), n * 2);
    };
    row("PC pages only (api_ppp = 0)", spec(2000, 2), PC_ONLY);
    for pct in [0, 1, 2, 10, 30] {
        row(
            &format!("hybrid (default), {pct}% styled posts"),
            spec(2000, pct),
            HYBRID,
        );
    }
    row(
        "hybrid, 2% styled, styled_pc_pages = false",
        spec(2000, 2),
        "styled_pc_pages = false",
    );
    let mut capped = spec(2000, 2);
    capped.site.api_ppp_max = Some(30);
    row("hybrid, site caps ppp at 30, 2% styled", capped, HYBRID);
    let mut capped = spec(2000, 2);
    capped.site.api_ppp_max = Some(100);
    row("hybrid, site caps ppp at 100, 2% styled", capped, HYBRID);
    let mut capped = spec(2000, 2);
    capped.site.api_ppp_max = Some(10);
    row(
        "hybrid, site caps ppp at 10 (= PC): PC pages",
        capped,
        HYBRID,
    );
    row(
        "API only (use_api = true), 2% styled",
        spec(2000, 2),
        API_ONLY,
    );
    let mut closed = spec(2000, 2);
    closed.site.api_closed = true;
    row("hybrid, API closed (falls back to PC)", closed, HYBRID);
}

fn live_day(rt: &tokio::runtime::Runtime) {
    println!(
        "requests/live-day: 30 polls 10 min apart (cron `sync`), 300 posts arriving (10 a poll, 2% styled) in a thread of 100"
    );
    println!(
        "  {:<44} {:>8} {:>6} {:>10}",
        "mode", "requests", "of API", "per poll"
    );
    for (what, extra) in [
        ("PC pages, cadence not stored (before)", PC_BEFORE),
        ("PC pages only (api_ppp = 0)", PC_ONLY),
        ("hybrid (default): PC polls, API re-reads", HYBRID),
        ("API only (use_api = true)", API_ONLY),
    ] {
        let r = Run::new("live", spec(100, 2), extra);
        r.sync(rt); // the backfill, not counted
        let api_before = r.api_requests();
        let mut n = 0;
        let mut i = 100;
        for _ in 0..30 {
            r.clock.advance(600);
            r.forum.set_now(r.clock.now());
            for k in 0..10 {
                r.forum.add_post(
                    TID,
                    NAMES[i % NAMES.len()],
                    &message(i, 2),
                    r.clock.now() - 600 + 60 * k,
                );
                i += 1;
            }
            n += r.sync(rt);
        }
        println!(
            "  {what:<44} {n:>8} {:>6} {:>10.2}",
            r.api_requests() - api_before,
            n as f64 / 30.0
        );
        // And a quiet hour after: six unchanged polls.
        let mut quiet = 0;
        for _ in 0..6 {
            r.clock.advance(600);
            r.forum.set_now(r.clock.now());
            quiet += r.sync(rt);
        }
        println!(
            "  {:<44} {quiet:>8}",
            "  then a quiet hour (6 unchanged polls)"
        );
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = rt();
    backfill(&rt);
    live_day(&rt);
}
