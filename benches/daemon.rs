//! Benchmark: daemon (run with `cargo bench --bench daemon`).
//!
//! 1. CPU time per poll of ten unchanged threads (target < 5 ms): the daemon's own thread
//!    time (`/proc/thread-self/schedstat`), the test forum serving from other threads. The
//!    pages are skipped by their fingerprint (not parsed, not stored); the breakdown shows
//!    the fingerprint's cost next to what parsing and storing a page would cost.
//! 2. Resident memory of the daemon on a 20,000-post game (target < 50 MB): this binary
//!    re-runs itself as a child that backfills the game from the test forum in the parent
//!    and polls it ten times, then reports its own VmHWM / VmRSS (`/proc/self/status`).

use std::sync::Arc;
use std::time::Instant;

use bansha::config::Config;
use bansha::daemon::Daemon;
use bansha::fetch::{CookieJar, FetchOptions, Fetcher};
use bansha::store::Store;
use bansha::time::ManualClock;
use bansha_testforum::{ForumSpec, TestForum, ThreadSpec};

const CHILD_ENV: &str = "BANSHA_BENCH_DAEMON_CHILD";

fn forum(threads: u64, posts_per_thread: usize, ppp: u32) -> ForumSpec {
    let names = ["傻树", "白色防御者", "甲", "乙", "丙", "丁", "戊", "己"];
    let mut s = ForumSpec::board_of("2026-03-04 12:00", &names, 200);
    s.site.ppp = ppp;
    s.threads = (0..threads)
        .map(|t| {
            ThreadSpec::minute_by_minute(
                2001 + t,
                &format!("D{} 讨论帖", t + 1),
                &names,
                posts_per_thread,
                |i| {
                    format!(
                        "第{i}楼：今天的发言，投票给[color=Red]白色防御者[/color]，理由是昨天的站边有问题。"
                    )
                },
            )
        })
        .collect();
    s
}

fn config(dir: &std::path::Path, base: &str, threads: u64) -> Config {
    config_with(dir, base, threads, false)
}

fn config_with(dir: &std::path::Path, base: &str, threads: u64, use_api: bool) -> Config {
    let tids: Vec<String> = (0..threads).map(|t| (2001 + t).to_string()).collect();
    let text = format!(
        "[forum]\nbase_url = \"{base}\"\nmin_interval_ms = 0\n\n[daemon]\nrecheck_interval_secs = 1000000\nuse_api = {use_api}\n\n\
         [game]\nname = \"bench\"\nrules = \"r.toml\"\ndb = \"bench.sqlite\"\n\n\
         [[day]]\nnumber = 1\ndiscussion = [{}]\nopens = \"2026-03-01 00:00\"\ncloses = \"2026-03-30 21:00\"\n",
        tids.join(", "),
        use_api = use_api
    );
    let p = dir.join("bench.toml");
    std::fs::write(&p, text).unwrap();
    Config::load(&p).unwrap()
}

fn daemon(cfg: Config) -> Daemon {
    let store = Store::open(&cfg.db_path()).unwrap();
    let fetcher = Fetcher::new(FetchOptions::from_config(&cfg), CookieJar::new(), None).unwrap();
    let clock = Arc::new(ManualClock::new(
        bansha::time::parse_local("2026-03-04 12:00", cfg.tz).unwrap(),
    ));
    let dir = cfg.dir().join("reports");
    Daemon::new(cfg, store, fetcher, clock, dir)
}

fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix(key)?
                .trim_start_matches(':')
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("bansha-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn child(cfg_path: &str) {
    let cfg = Config::load(std::path::Path::new(cfg_path)).unwrap();
    let mut d = daemon(cfg);
    let rt = rt();
    let t = Instant::now();
    let s = rt.block_on(d.sync_once()).unwrap();
    let backfill = t.elapsed();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    for _ in 0..10 {
        rt.block_on(d.sync_once()).unwrap();
    }
    println!(
        "{} {} {} {:.1}",
        s.new_posts,
        status_kb("VmHWM"),
        status_kb("VmRSS"),
        backfill.as_secs_f64()
    );
}

fn main() {
    if let Ok(p) = std::env::var(CHILD_ENV) {
        child(&p);
        return;
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }

    // 1. CPU per poll of ten unchanged threads (3 pages each).
    let f = TestForum::start(forum(10, 25, 10)).unwrap();
    let dir = tmp("poll");
    let cfg = config(&dir, &f.base_url(), 10);
    let mut d = daemon(cfg);
    let rt = rt();
    rt.block_on(d.sync_once()).unwrap();
    rt.block_on(d.sync_once()).unwrap(); // the first re-read is behind us
    let polls = 200;
    let (c0, t0) = (thread_cpu_ns(), Instant::now());
    for _ in 0..polls {
        let s = rt.block_on(d.sync_once()).unwrap();
        assert_eq!(s.pages, 10);
        assert_eq!(s.unchanged, 10, "every page skipped by its fingerprint");
    }
    let cpu_ms = (thread_cpu_ns() - c0) as f64 / 1e6 / polls as f64;
    let wall_ms = t0.elapsed().as_secs_f64() * 1e3 / polls as f64;
    println!(
        "daemon/poll-10-unchanged-threads: {cpu_ms:.2} ms CPU per poll (daemon thread), {wall_ms:.2} ms wall (target < 5 ms CPU)"
    );
    // Where the time goes: one page parsed, and stored unchanged.
    let url = bansha::fetch::thread_url(&f.base_url(), 2001, 3);
    let raw = rt
        .block_on(d.fetcher().get_with(&url, bansha::fetch::Verdict::Ok))
        .unwrap();
    let ctx = bansha::discuz::ParseContext::new(url.clone(), 1_772_596_800);
    let n = 200;
    let c0 = thread_cpu_ns();
    let mut tp = None;
    for _ in 0..n {
        tp = Some(bansha::discuz::parse_page(&raw.body, &ctx).unwrap());
    }
    let parse_ms = (thread_cpu_ns() - c0) as f64 / 1e6 / n as f64;
    let tp = tp.unwrap();
    let mut store = Store::open(&dir.join("bench.sqlite")).unwrap();
    let info = bansha::store::FetchInfo {
        source: url,
        kind: bansha::store::SourceKind::Html,
        page: 3,
        fetched_at: 1_772_596_800,
    };
    let c0 = thread_cpu_ns();
    for _ in 0..n {
        store.store_page("127.0.0.1", &tp, &info).unwrap();
    }
    let store_ms = (thread_cpu_ns() - c0) as f64 / 1e6 / n as f64;
    let c0 = thread_cpu_ns();
    for _ in 0..n {
        assert!(bansha::fetch::fingerprint::html(&raw.body).is_some());
    }
    let fp_ms = (thread_cpu_ns() - c0) as f64 / 1e6 / n as f64;
    println!(
        "daemon/breakdown: one PC page ({} KB, {} posts): fingerprint {fp_ms:.3} ms (what an unchanged page costs instead of:) parse {parse_ms:.2} ms, store unchanged {store_ms:.2} ms",
        raw.body.len() / 1024,
        tp.posts.len()
    );
    drop(d);
    let _ = std::fs::remove_dir_all(&dir);

    // 1b. The same through the mobile API (JSON).
    let dir = tmp("poll-api");
    let cfg = config_with(&dir, &f.base_url(), 10, true);
    let mut d = daemon(cfg);
    rt.block_on(d.sync_once()).unwrap();
    rt.block_on(d.sync_once()).unwrap();
    let (c0, t0) = (thread_cpu_ns(), Instant::now());
    for _ in 0..polls {
        let s = rt.block_on(d.sync_once()).unwrap();
        assert_eq!(s.unchanged, 10, "every page skipped by its fingerprint");
    }
    let cpu_ms = (thread_cpu_ns() - c0) as f64 / 1e6 / polls as f64;
    let wall_ms = t0.elapsed().as_secs_f64() * 1e3 / polls as f64;
    println!(
        "daemon/poll-10-unchanged-threads-api: {cpu_ms:.2} ms CPU per poll (daemon thread), {wall_ms:.2} ms wall (use_api = true)"
    );
    drop(d);
    let _ = std::fs::remove_dir_all(&dir);

    // 2. Resident memory on a 20,000-post game: 10 threads × 2,000 posts, ppp 50.
    let f = TestForum::start(forum(10, 2000, 50)).unwrap();
    let dir = tmp("rss");
    let cfg = config(&dir, &f.base_url(), 10);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, &cfg.path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8_lossy(&out.stdout);
    let v: Vec<&str> = line.split_whitespace().collect();
    let mb = |kb: &str| kb.parse::<f64>().unwrap_or(0.0) / 1024.0;
    println!(
        "daemon/memory-20000-posts: backfilled {} posts in {} s; peak RSS (VmHWM) {:.1} MB, RSS after 10 polls {:.1} MB (target < 50 MB)",
        v[0],
        v[3],
        mb(v[1]),
        mb(v[2])
    );
    let _ = std::fs::remove_dir_all(&dir);
}
