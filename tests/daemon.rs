//! Integration tests: daemon. The daemon against the project's test forum over loopback
//! HTTP, driven pass by pass with an injected clock; assertions are on what the store holds.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bansha::config::Config;
use bansha::daemon::Daemon;
use bansha::fetch::{CookieJar, FetchOptions, Fetcher, Login, Secret};
use bansha::store::Store;
use bansha::time::{Clock, ManualClock, parse_local};
use bansha_testforum::{Fault, ForumSpec, PostSpec, TestForum, ThreadSpec, UserSpec};

const DISC: u64 = 1001;
const VOTE: u64 = 1002;

struct Game {
    forum: TestForum,
    dir: PathBuf,
    cfg_path: PathBuf,
    clock: Arc<ManualClock>,
}

/// A scratch folder of its own (removed when the test ends, kept when it fails).
fn tmpdir(name: &str) -> PathBuf {
    crate::common::scratch_dir(&format!("daemon-{name}-{}", fastrand::u64(..)))
}

fn ts(s: &str) -> i64 {
    parse_local(s, chrono_tz::Asia::Shanghai).unwrap()
}

fn users() -> Vec<UserSpec> {
    ["导演", "傻树", "白色防御者", "甲", "乙"]
        .iter()
        .enumerate()
        .map(|(i, n)| UserSpec {
            uid: 101 + i as u64,
            name: n.to_string(),
            password: Some(format!("pw{i}")),
        })
        .collect()
}

/// A forum with a discussion thread of `disc_posts` posts and a vote thread of 3 posts.
fn spec(disc_posts: usize) -> ForumSpec {
    let mut s = ForumSpec::default();
    s.site.human_time = false;
    s.site.now = Some("2026-03-04 12:00".into());
    s.users = users();
    s.forums = vec![bansha_testforum::ForumInfo {
        fid: 2,
        name: "版杀".into(),
    }];
    let mk = |n: usize, first: &str| -> Vec<PostSpec> {
        (0..n)
            .map(|i| {
                let author = ["导演", "傻树", "白色防御者", "甲", "乙"][i % 5];
                let msg = if i == 0 {
                    first.to_string()
                } else {
                    format!("第{i}条发言")
                };
                PostSpec::new(
                    author,
                    &format!("2026-03-04 {:02}:{:02}", 9 + i / 60, i % 60),
                    &msg,
                )
            })
            .collect()
    };
    s.threads = vec![
        ThreadSpec {
            tid: DISC,
            fid: 2,
            subject: "D1 讨论帖".into(),
            posts: mk(disc_posts, "讨论开始"),
        },
        ThreadSpec {
            tid: VOTE,
            fid: 2,
            subject: "D1 投票帖".into(),
            posts: mk(3, "投票开始"),
        },
    ];
    s
}

fn config_text(base: &str, extra_forum: &str, extra_daemon: &str) -> String {
    let mut text = base_config(base, extra_forum);
    // `extra_daemon` lines override the defaults below or add keys.
    for line in extra_daemon.lines().filter(|l| l.contains('=')) {
        let key = line.split('=').next().unwrap().trim();
        let existing = text
            .lines()
            .find(|l| l.starts_with(&format!("{key} =")))
            .map(str::to_string);
        text = match existing {
            Some(e) => text.replace(&e, line),
            None => text.replace("[daemon]\n", &format!("[daemon]\n{line}\n")),
        };
    }
    text
}

fn base_config(base: &str, extra_forum: &str) -> String {
    format!(
        r#"[forum]
base_url = "{base}"
min_interval_ms = 5
{extra_forum}

[daemon]
request_timeout_ms = 700
retries = 4
backoff_ms = 10
recheck_pages = 3
recheck_interval_secs = 1800
grace_secs = 120

[game]
name = "测试局"
rules = "rules.toml"
db = "game.sqlite"

[[day]]
number = 1
discussion = [{DISC}]
vote = {VOTE}
opens = "2026-03-04 09:00"
closes = "2026-03-05 21:00"
"#
    )
}

impl Game {
    fn new(name: &str, forum_spec: ForumSpec, extra_forum: &str, extra_daemon: &str) -> Game {
        let forum = TestForum::start(forum_spec).unwrap();
        let dir = tmpdir(name);
        let cfg_path = dir.join("game.toml");
        std::fs::write(
            &cfg_path,
            config_text(&forum.base_url(), extra_forum, extra_daemon),
        )
        .unwrap();
        let clock = Arc::new(ManualClock::new(ts("2026-03-04 12:00")));
        Game {
            forum,
            dir,
            cfg_path,
            clock,
        }
    }

    /// A game with a real rule file (075), a director and four players.
    fn with_players(name: &str, forum_spec: ForumSpec, extra_daemon: &str) -> Game {
        let g = Game::new(name, forum_spec, "", extra_daemon);
        let text = std::fs::read_to_string(&g.cfg_path).unwrap().replace(
            "db = \"game.sqlite\"\n",
            "db = \"game.sqlite\"\ndirectors = [\"导演\"]\n",
        );
        let players: String = ["傻树", "白色防御者", "甲", "乙"]
            .iter()
            .enumerate()
            .map(|(i, n)| format!("\n[[player]]\nname = \"{n}\"\nseat = {}\n", i + 1))
            .collect();
        std::fs::write(&g.cfg_path, text + &players).unwrap();
        std::fs::copy(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/075-zhifou.toml"),
            g.dir.join("rules.toml"),
        )
        .unwrap();
        g
    }

    fn cfg(&self) -> Config {
        Config::load(&self.cfg_path).unwrap()
    }

    fn daemon_with(&self, jar: CookieJar, login: Option<Login>) -> Daemon {
        let cfg = self.cfg();
        let store = Store::open(&cfg.db_path()).unwrap();
        let fetcher = Fetcher::new(FetchOptions::from_config(&cfg), jar, login).unwrap();
        Daemon::new(
            cfg,
            store,
            fetcher,
            self.clock.clone(),
            self.dir.join("reports"),
        )
    }

    fn daemon(&self) -> Daemon {
        self.daemon_with(CookieJar::new(), None)
    }

    /// Advance both clocks (the daemon's and the forum's).
    fn advance(&self, secs: i64) {
        self.clock.advance(secs);
        self.forum.set_now(self.clock.now());
    }

    /// The visible pids of a thread on the forum.
    fn forum_pids(&self, tid: u64) -> BTreeSet<u64> {
        self.forum.pids(tid).into_iter().collect()
    }

    fn forum_key(&self) -> String {
        self.cfg().forum_key()
    }
}

fn stored_pids(store: &Store, forum: &str, tid: u64) -> BTreeSet<u64> {
    store
        .posts(forum, tid)
        .unwrap()
        .into_iter()
        .map(|p| p.pid)
        .collect()
}

fn present_pids(store: &Store, forum: &str, tid: u64) -> BTreeSet<u64> {
    store
        .posts(forum, tid)
        .unwrap()
        .into_iter()
        .filter(|p| !p.missing())
        .map(|p| p.pid)
        .collect()
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn backfill_then_new_posts_arrive_while_running() {
    let g = Game::new("arrive", spec(25), "", "");
    let mut d = g.daemon();
    let f = g.forum_key();
    let s = block_on(d.step()).unwrap();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(stored_pids(d.store(), &f, DISC), g.forum_pids(DISC));
    assert_eq!(stored_pids(d.store(), &f, DISC).len(), 25);
    assert_eq!(stored_pids(d.store(), &f, VOTE).len(), 3);

    // New posts fill page 3 and start page 4.
    g.advance(300);
    let mut added = Vec::new();
    for i in 0..8 {
        added.push(
            g.forum
                .add_post(DISC, "傻树", &format!("新发言{i}"), g.clock.now()),
        );
    }
    let s = block_on(d.step()).unwrap();
    assert_eq!(s.new_posts, 8, "{s:?}");
    let stored = stored_pids(d.store(), &f, DISC);
    assert_eq!(stored, g.forum_pids(DISC));
    for pid in added {
        assert!(stored.contains(&pid));
    }
    let rec = d.store().thread(&f, DISC).unwrap().unwrap();
    assert_eq!(rec.last_page_seen, 4);
}

#[test]
fn unchanged_thread_costs_one_request_per_poll() {
    let g = Game::new("onereq", spec(35), "", "");
    let mut d = g.daemon();
    block_on(d.step()).unwrap();
    // The first pass re-read recent pages already; later passes within the re-read interval
    // fetch only the last page of each thread.
    for _ in 0..3 {
        g.advance(300);
        g.forum.clear_requests();
        let s = block_on(d.step()).unwrap();
        assert_eq!(s.new_posts, 0);
        let reqs = g.forum.requests();
        assert_eq!(reqs.len(), 2, "one request per thread: {reqs:#?}");
        assert!(
            reqs.iter()
                .any(|r| r.target.contains(&format!("tid={DISC}&page=4")))
        );
        for r in &reqs {
            assert!(r.target.contains("&mobile=no&ordertype=2"), "{}", r.target);
        }
    }
}

#[test]
fn requests_keep_the_politeness_gap_one_at_a_time() {
    // PC pages only (`api_ppp = 0`): enough requests to measure the gaps between.
    let g = Game::new("polite", spec(45), "", "api_ppp = 0");
    // Rewrite the gap to 60 ms for this test.
    let text = std::fs::read_to_string(&g.cfg_path)
        .unwrap()
        .replace("min_interval_ms = 5", "min_interval_ms = 60");
    std::fs::write(&g.cfg_path, text).unwrap();
    let mut d = g.daemon();
    block_on(d.step()).unwrap();
    let reqs = g.forum.requests();
    assert!(reqs.len() >= 6);
    for w in reqs.windows(2) {
        let gap = w[1].since_start.saturating_sub(w[0].since_start);
        assert!(
            gap >= Duration::from_millis(55),
            "gap {gap:?} between {} and {}",
            w[0].target,
            w[1].target
        );
    }
}

#[test]
fn edits_and_deletions_are_recorded_by_the_recheck() {
    let g = Game::new("edits", spec(25), "", "");
    let mut d = g.daemon();
    let f = g.forum_key();
    block_on(d.step()).unwrap();
    let pids = g.forum.pids(DISC);
    let (edited, deleted) = (pids[21], pids[23]);
    g.advance(600);
    assert!(g.forum.edit_post(edited, "改票：傻树", g.clock.now()));
    assert!(g.forum.delete_post(deleted));
    // Within the re-read interval only the last page is read: the deletion shifts floors
    // but the edit on page 3 is seen too since page 3 is the last page.
    g.advance(1800);
    let s = block_on(d.step()).unwrap();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let posts = d.store().posts(&f, DISC).unwrap();
    let e = posts.iter().find(|p| p.pid == edited).unwrap();
    assert_eq!(e.revisions.len(), 2, "{e:?}");
    assert!(e.current().text.contains("改票：傻树"));
    assert!(e.first().text.contains("第21条发言"));
    let x = posts.iter().find(|p| p.pid == deleted).unwrap();
    assert!(x.missing(), "deleted post not marked missing: {x:?}");
    assert_eq!(posts.len(), 25, "nothing is ever removed from the store");
}

#[test]
fn edit_on_an_old_page_is_caught_by_the_final_reread_at_close() {
    let g = Game::new("final", spec(45), "", "recheck_interval_secs = 100000");
    let mut d = g.daemon();
    let f = g.forum_key();
    block_on(d.step()).unwrap();
    let early = g.forum.pids(DISC)[2];
    g.advance(600);
    assert!(g.forum.edit_post(early, "偷偷改了", g.clock.now()));
    block_on(d.step()).unwrap();
    let p = d.store().post(&f, DISC, early).unwrap().unwrap();
    assert_eq!(
        p.revisions.len(),
        1,
        "page 1 is not re-read on a normal poll"
    );
    // 关门 + grace: every page is read once more, then the reports are written.
    g.clock.set(ts("2026-03-05 21:02"));
    g.forum.set_now(g.clock.now());
    let s = block_on(d.step()).unwrap();
    let p = d.store().post(&f, DISC, early).unwrap().unwrap();
    assert_eq!(p.revisions.len(), 2);
    let done = g.dir.join("reports/day-1/DONE");
    assert!(done.exists());
    assert!(!s.reports.is_empty());
    let posts_json = std::fs::read_to_string(g.dir.join("reports/day-1/posts.json")).unwrap();
    assert!(posts_json.contains("偷偷改了"));
    // Written once: the next pass does not re-read everything again.
    g.forum.clear_requests();
    g.advance(60);
    let s = block_on(d.step()).unwrap();
    assert!(s.reports.is_empty());
    assert_eq!(g.forum.request_count(), 2);
}

/// Each fault, injected on the next requests, is survived: the posts arrive and nothing
/// else is stored.
#[test]
fn every_transient_fault_is_survived_with_nothing_lost() {
    let faults = [
        Fault::Http500,
        Fault::Http503,
        Fault::Stall(Duration::from_secs(3)),
        Fault::Truncated,
        Fault::CcPage,
        Fault::AntiScrape,
    ];
    for fault in faults {
        let g = Game::new("faults", spec(12), "", "");
        let mut d = g.daemon();
        let f = g.forum_key();
        block_on(d.step()).unwrap();
        g.advance(300);
        let new = g
            .forum
            .add_post(DISC, "甲", "故障期间的发言", g.clock.now());
        g.forum.inject(fault.clone(), 2);
        let s = block_on(d.step()).unwrap();
        assert!(s.errors.is_empty(), "{fault:?}: {:?}", s.errors);
        assert!(
            d.fetcher().stats().retries >= 2,
            "{fault:?} was not retried"
        );
        assert_eq!(
            stored_pids(d.store(), &f, DISC),
            g.forum_pids(DISC),
            "{fault:?}"
        );
        assert!(stored_pids(d.store(), &f, DISC).contains(&new));
        assert_eq!(
            present_pids(d.store(), &f, DISC).len(),
            13,
            "{fault:?}: nothing marked missing"
        );
    }
}

#[test]
fn a_fault_that_outlasts_the_retries_stores_nothing_and_the_next_pass_catches_up() {
    let g = Game::new("exhaust", spec(5), "", "");
    let mut d = g.daemon();
    let f = g.forum_key();
    block_on(d.step()).unwrap();
    g.advance(300);
    let late = g.forum.add_post(DISC, "乙", "晚到的发言", g.clock.now());
    // retries = 4: five attempts, all truncated.
    g.forum.inject_scoped(
        Fault::Truncated,
        5,
        bansha_testforum::FaultScope {
            tid: Some(DISC),
            path_contains: None,
        },
    );
    let s = block_on(d.step()).unwrap();
    assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
    assert!(
        s.errors[0].contains("gave up after 5 attempts"),
        "{}",
        s.errors[0]
    );
    // Regression: the URL was printed twice (reqwest's error text carries it too).
    assert_eq!(s.errors[0].matches("http://").count(), 1, "{}", s.errors[0]);
    assert_eq!(
        stored_pids(d.store(), &f, DISC).len(),
        5,
        "nothing half-stored"
    );
    let log = d.store().fetch_log(&f, DISC).unwrap();
    assert!(log.iter().any(|e| e.outcome.contains("gave up")), "{log:?}");
    // The forum recovers: the next pass catches up.
    g.advance(300);
    let s = block_on(d.step()).unwrap();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert!(stored_pids(d.store(), &f, DISC).contains(&late));
    assert_eq!(stored_pids(d.store(), &f, DISC), g.forum_pids(DISC));
}

#[test]
fn a_missing_thread_is_reported_and_skipped_not_retried_forever() {
    let g = Game::new("gone", spec(5), "", "");
    let text = std::fs::read_to_string(&g.cfg_path).unwrap().replace(
        &format!("vote = {VOTE}"),
        &format!("vote = {VOTE}\nprocess = 4242"),
    );
    std::fs::write(&g.cfg_path, text).unwrap();
    let mut d = g.daemon();
    let s = block_on(d.step()).unwrap();
    assert_eq!(s.gone, vec![4242]);
    assert!(d.gone()[&4242].contains("4242"), "{:?}", d.gone());
    let hits = |g: &Game| {
        g.forum
            .requests()
            .iter()
            .filter(|r| r.target.contains("tid=4242"))
            .count()
    };
    assert_eq!(hits(&g), 1, "gone is not retried within a pass");
    g.advance(300);
    block_on(d.step()).unwrap();
    assert_eq!(hits(&g), 1, "nor on later passes");
}

#[test]
fn login_required_and_expired_login_are_clear_errors_without_credentials() {
    let mut sp = spec(5);
    sp.site.login_required = true;
    let g = Game::new("nologin", sp, "", "");
    let cookies = g.dir.join("cookies.txt");
    g.forum.write_cookies_txt(&cookies, 102).unwrap();
    let jar = bansha::fetch::load_cookies_txt(&cookies, "127.0.0.1").unwrap();
    let mut d = g.daemon_with(jar.clone(), None);
    let f = g.forum_key();
    block_on(d.step()).unwrap();
    assert_eq!(stored_pids(d.store(), &f, DISC).len(), 5);
    // The session expires on the forum: pages now show a guest.
    g.forum.expire_login();
    g.advance(300);
    let e = block_on(d.step()).unwrap_err().to_string();
    assert!(e.contains("login expired") && e.contains("cookie"), "{e}");
    let (_, auth) = g.forum.login_session(102);
    assert!(!e.contains(&auth));
    assert!(
        !e.contains(
            jar.get(&format!("{}auth", g.forum.cookie_prefix()))
                .unwrap()
        )
    );
    // Without any login at all on a members-only board.
    let mut guest = g.daemon();
    let e = block_on(guest.step()).unwrap_err().to_string();
    assert!(
        e.contains("cookie_file") || e.contains("username_env"),
        "{e}"
    );
}

#[test]
fn with_credentials_an_expired_login_or_login_page_triggers_a_relogin() {
    let mut sp = spec(5);
    sp.site.login_required = true;
    let g = Game::new("relogin", sp, "", "");
    let login = Login {
        username: "傻树".into(),
        password: Secret::new("pw1"),
    };
    let mut d = g.daemon_with(CookieJar::new(), Some(login));
    let f = g.forum_key();
    block_on(d.step()).unwrap();
    assert_eq!(d.fetcher().stats().logins, 1);
    assert_eq!(stored_pids(d.store(), &f, DISC).len(), 5);
    g.forum.expire_login();
    g.advance(300);
    let p1 = g.forum.add_post(DISC, "甲", "登录过期后", g.clock.now());
    block_on(d.step()).unwrap();
    assert_eq!(d.fetcher().stats().logins, 2);
    assert!(stored_pids(d.store(), &f, DISC).contains(&p1));
    g.forum.inject(Fault::LoginRequired, 1);
    g.advance(300);
    let p2 = g.forum.add_post(DISC, "乙", "登录页之后", g.clock.now());
    block_on(d.step()).unwrap();
    assert_eq!(d.fetcher().stats().logins, 3);
    assert!(stored_pids(d.store(), &f, DISC).contains(&p2));
    assert_eq!(present_pids(d.store(), &f, DISC), g.forum_pids(DISC));
}

#[test]
fn the_mobile_api_path_stores_the_same_posts() {
    let g = Game::new("api", spec(23), "", "use_api = true");
    let mut d = g.daemon();
    let f = g.forum_key();
    let s = block_on(d.step()).unwrap();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(stored_pids(d.store(), &f, DISC), g.forum_pids(DISC));
    assert!(
        g.forum
            .requests()
            .iter()
            .all(|r| r.target.contains("api/mobile"))
    );
}

#[test]
fn stop_flag_ends_run_after_the_current_page() {
    let g = Game::new("stop", spec(5), "", "");
    let mut d = g.daemon();
    let stop = d.stop_flag();
    let f = g.forum_key();
    std::thread::scope(|sc| {
        let forum = &g.forum;
        sc.spawn(move || {
            // The clock never moves, so after its first pass `run` would wait forever:
            // only the stop flag ends it.
            wait_for("the first pass", Duration::from_secs(30), || {
                forum.request_count() >= 2
            });
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        block_on(d.run()).unwrap();
    });
    assert_eq!(stored_pids(d.store(), &f, DISC).len(), 5);
    assert_eq!(stored_pids(d.store(), &f, VOTE).len(), 3);
}

fn wait_for(what: &str, deadline: Duration, f: impl FnMut() -> bool) {
    wait_for_logged(what, deadline, None, f)
}

/// [`wait_for`], showing a child's stderr log on timeout.
fn wait_for_logged(
    what: &str,
    deadline: Duration,
    log: Option<&std::path::Path>,
    mut f: impl FnMut() -> bool,
) {
    let end = Instant::now() + deadline;
    while !f() {
        assert!(
            Instant::now() < end,
            "timed out waiting for {what}{}",
            log.map(|l| format!("; the child's stderr:\n{}", log_of(l)))
                .unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_bansha")
}

/// The moment the clock of a spawned `bansha` starts (`BANSHA_CLOCK_START`): after day 1's
/// 关门 and grace, so the tests never depend on the wall clock.
const AFTER_CLOSE: &str = "2026-03-05 21:05";

/// The `bansha` executable with its clock injected.
fn bansha_cmd() -> std::process::Command {
    let mut c = std::process::Command::new(bin());
    c.env(bansha::time::CLOCK_START_ENV, AFTER_CLOSE)
        .stdin(std::process::Stdio::null());
    c
}

/// A child's stderr kept in a file, read back for failure messages.
fn log_of(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("({}: {e})", path.display()))
}

#[test]
fn kill_9_during_backfill_then_restart_yields_exactly_the_forums_posts() {
    // 600 posts = 60 pages; the injected clock is past day 1's 关门, so every configured
    // thread is synced.
    // PC pages only (`api_ppp = 0`): a backfill long enough to be killed in the middle.
    let g = Game::new("kill9", spec(600), "", "api_ppp = 0");
    let text = std::fs::read_to_string(&g.cfg_path)
        .unwrap()
        .replace("min_interval_ms = 5", "min_interval_ms = 15");
    std::fs::write(&g.cfg_path, text).unwrap();
    let cfg = g.cfg();
    let f = g.forum_key();
    let db = cfg.db_path();
    let log = g.dir.join("sync1.log");
    let mut child = bansha_cmd()
        .args(["sync", "--config"])
        .arg(&g.cfg_path)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    // Kill it mid-backfill: once some pages are stored but not all. A child that died
    // first fails the test with its stderr.
    wait_for_logged(
        "a partial backfill",
        Duration::from_secs(60),
        Some(&log),
        || {
            if let Some(st) = child.try_wait().unwrap() {
                panic!("sync exited early ({st:?}):\n{}", log_of(&log));
            }
            db.exists()
                && Store::open(&db)
                    .ok()
                    .and_then(|s| s.thread(&f, DISC).ok().flatten())
                    .is_some_and(|t| t.last_page_seen >= 5)
        },
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let partial = stored_pids(&Store::open(&db).unwrap(), &f, DISC).len();
    assert!(
        partial < 600,
        "the kill came too late to test anything ({partial})"
    );
    let out = bansha_cmd()
        .args(["sync", "--config"])
        .arg(&g.cfg_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let store = Store::open(&db).unwrap();
    let posts = store.posts(&f, DISC).unwrap();
    assert_eq!(posts.len(), 600);
    let pids: BTreeSet<u64> = posts.iter().map(|p| p.pid).collect();
    assert_eq!(pids, g.forum_pids(DISC));
    assert!(posts.iter().all(|p| p.revisions.len() == 1 && !p.missing()));
    // Resumed, not restarted: the second run did not re-read the pages already stored.
    let page1_reads = g
        .forum
        .requests()
        .iter()
        .filter(|r| r.target.contains(&format!("tid={DISC}&page=1&")))
        .count();
    assert_eq!(page1_reads, 1, "page 1 was read again after the restart");
}

#[test]
fn sigterm_stops_run_cleanly() {
    sigterm_after_the_reports_at_close("sigterm");
}

/// `bansha run` on a game with a real rule file and players, its clock injected past day
/// 1's 关门: the first pass writes every report with the real executable, successfully
/// (no `errors.txt`) and with the tally the vote thread gives; then SIGTERM stops it with
/// exit 0.
fn sigterm_after_the_reports_at_close(name: &str) {
    let mut sp = spec(5);
    sp.threads[1].posts = vec![
        PostSpec::new("导演", "2026-03-04 09:00", "投票开始"),
        PostSpec::new("傻树", "2026-03-04 10:00", "投票对象：甲\n投票理由：划水"),
        PostSpec::new(
            "白色防御者",
            "2026-03-04 11:00",
            "投票对象：甲\n投票理由：跟票",
        ),
        PostSpec::new("乙", "2026-03-04 12:00", "投票对象：傻树\n投票理由：冲票"),
    ];
    let g = Game::with_players(name, sp, "poll_interval_secs = 3600");
    let cfg = g.cfg();
    let f = g.forum_key();
    let db = cfg.db_path();
    let log = g.dir.join("run.log");
    let mut child = bansha_cmd()
        .args(["run", "--config"])
        .arg(&g.cfg_path)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let day1 = g.dir.join("reports/day-1");
    wait_for_logged(
        "the first pass",
        Duration::from_secs(120),
        Some(&log),
        || {
            if let Some(st) = child.try_wait().unwrap() {
                panic!("run exited early ({st:?}):\n{}", log_of(&log));
            }
            day1.join("DONE").exists()
        },
    );
    let store = Store::open(&db).unwrap();
    assert_eq!(stored_pids(&store, &f, VOTE).len(), 4);
    assert!(
        !day1.join("errors.txt").exists(),
        "{}\n{}",
        log_of(&day1.join("errors.txt")),
        log_of(&log)
    );
    for file in [
        "posts.json",
        "tally.txt",
        "tally.json",
        "tally.bbcode",
        "activity.txt",
        "activity.json",
        "activity.bbcode",
    ] {
        assert!(
            day1.join(file).exists(),
            "{file} missing:\n{}",
            log_of(&log)
        );
    }
    // The tally the vote thread gives: 甲 2 (傻树, 白色防御者), 傻树 1 (乙).
    let tally: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(day1.join("tally.json")).unwrap()).unwrap();
    let totals: Vec<(String, f64)> = tally["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["target"].as_str().unwrap().to_string(),
                t["votes"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        totals,
        vec![("甲".to_string(), 2.0), ("傻树".to_string(), 1.0)],
        "{tally}"
    );
    // The activity report knows who voted from that tally: 甲 posted no ballot.
    let act: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(day1.join("activity.json")).unwrap())
            .unwrap();
    let voted: Vec<(String, bool)> = act["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["voted"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        voted,
        vec![
            ("傻树".to_string(), true),
            ("白色防御者".to_string(), true),
            ("甲".to_string(), false),
            ("乙".to_string(), true),
        ],
        "{act}"
    );
    let st = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let end = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < end,
            "run did not stop on SIGTERM:\n{}",
            log_of(&log)
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}:\n{}", log_of(&log));
}

/// Regression: SIGTERM while the first request stalled printed `synced 1 threads: 0 pages`,
/// as if the thread had been synced. It says it was interrupted before anything was stored.
#[test]
fn sigterm_during_a_stalled_first_request_says_nothing_was_stored() {
    let g = Game::new("stall-term", spec(5), "", "");
    g.forum.inject(Fault::Stall(Duration::from_secs(600)), 1);
    let log = g.dir.join("sync.log");
    let out = g.dir.join("sync.out");
    let mut child = bansha_cmd()
        .args(["sync", "--config"])
        .arg(&g.cfg_path)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    // The first request has arrived and stalls.
    wait_for_logged(
        "the stalled first request",
        Duration::from_secs(60),
        Some(&log),
        || {
            if let Some(st) = child.try_wait().unwrap() {
                panic!("sync exited early ({st:?}):\n{}", log_of(&log));
            }
            g.forum.request_count() >= 1
        },
    );
    let st = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let end = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < end,
            "sync did not stop on SIGTERM:\n{}",
            log_of(&log)
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = std::fs::read_to_string(&out).unwrap();
    let stderr = log_of(&log);
    assert!(!status.success(), "{status:?}: {stdout}{stderr}");
    assert!(
        stdout.contains("interrupted before anything was stored"),
        "{stdout}\n{stderr}"
    );
    assert!(!stdout.contains("synced"), "{stdout}");
}

#[test]
fn sync_reports_a_bad_cookie_file_with_exit_2() {
    let g = Game::new("badcookie", spec(3), "cookie_file = \"cookies.txt\"", "");
    std::fs::write(
        g.dir.join("cookies.txt"),
        "# Netscape\n127.0.0.1\tFALSE\t/\tFALSE\t0\tB7Y9_2132_auth\tSECRETVALUE\n",
    )
    .unwrap();
    let out = bansha_cmd()
        .args(["sync", "--config"])
        .arg(&g.cfg_path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cookies.txt") && err.contains("saltkey"),
        "{err}"
    );
    assert!(!err.contains("SECRETVALUE"));
    assert!(
        err.contains("readable by other users") || cfg!(not(unix)) || {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(g.dir.join("cookies.txt"))
                .unwrap()
                .permissions()
                .mode()
                & 0o044
                == 0
        },
        "{err}"
    );
}

#[test]
fn expired_cookies_on_a_public_board_are_detected_from_the_guest_viewer() {
    // The board is readable by guests, so an expired login does not show a login page:
    // the page simply shows `discuz_uid = '0'`. With cookies configured that is an error.
    let g = Game::new("guestview", spec(5), "", "");
    let cookies = g.dir.join("cookies.txt");
    g.forum.write_cookies_txt(&cookies, 103).unwrap();
    let jar = bansha::fetch::load_cookies_txt(&cookies, "127.0.0.1").unwrap();
    let mut d = g.daemon_with(jar, None);
    let f = g.forum_key();
    block_on(d.step()).unwrap();
    assert_eq!(stored_pids(d.store(), &f, DISC).len(), 5);
    assert!(g.forum.requests().iter().all(|r| r.uid == 103));
    g.forum.expire_login();
    g.advance(300);
    let late = g.forum.add_post(DISC, "甲", "过期后的发言", g.clock.now());
    let e = block_on(d.step()).unwrap_err().to_string();
    assert!(
        e.contains("discuz_uid = '0'") && e.contains("export fresh cookies"),
        "{e}"
    );
    assert!(
        !stored_pids(d.store(), &f, DISC).contains(&late),
        "a guest view is not stored"
    );
}

#[test]
fn new_day_threads_are_discovered_from_the_board_by_title() {
    let g = Game::new(
        "discover",
        spec(3),
        "",
        "fid = 2\ntitle_pattern = 'D(?P<day>\\d+) '",
    );
    let mut d = g.daemon();
    let f = g.forum_key();
    block_on(d.step()).unwrap();
    // The director opens day 2's threads on the board; the config does not name them.
    g.advance(600);
    let (vote2, _) = g
        .forum
        .add_thread(2, "D2 投票帖", "导演", "D2 投票开始", g.clock.now());
    let (disc2, _) = g
        .forum
        .add_thread(2, "D2 讨论帖", "导演", "D2 讨论开始", g.clock.now());
    g.forum
        .add_thread(2, "闲聊水楼", "甲", "随便聊", g.clock.now());
    g.advance(60);
    g.forum
        .add_post(vote2, "傻树", "投白色防御者", g.clock.now());
    block_on(d.step()).unwrap();
    assert_eq!(d.config().day(2).unwrap().vote, Some(vote2));
    assert_eq!(d.config().day(2).unwrap().discussion, vec![disc2]);
    assert_eq!(stored_pids(d.store(), &f, vote2).len(), 2);
    assert_eq!(stored_pids(d.store(), &f, disc2).len(), 1);
    assert!(
        g.forum
            .requests()
            .iter()
            .any(|r| r.target.contains("module=forumdisplay&fid=2"))
    );
    // The board is listed at most every ten minutes, not on every poll.
    g.forum.clear_requests();
    g.advance(60);
    block_on(d.step()).unwrap();
    assert!(
        !g.forum
            .requests()
            .iter()
            .any(|r| r.target.contains("forumdisplay"))
    );
}

#[test]
fn a_wrong_password_is_a_clear_error_that_never_shows_the_password() {
    let g = Game::new("badpw", spec(3), "", "");
    let login = Login {
        username: "傻树".into(),
        password: Secret::new("not-the-password-xyz"),
    };
    let mut d = g.daemon_with(CookieJar::new(), Some(login));
    let e = block_on(d.step()).unwrap_err().to_string();
    assert!(e.contains("login_invalid"), "{e}");
    assert!(!e.contains("not-the-password-xyz"), "{e}");
    assert!(d.store().posts(&g.forum_key(), DISC).unwrap().is_empty());
}

#[test]
fn sync_logs_in_with_credentials_from_the_named_environment_variables() {
    let mut sp = spec(4);
    sp.site.login_required = true;
    let g = Game::new(
        "envlogin",
        sp,
        "username_env = \"BANSHA_T_USER\"\npassword_env = \"BANSHA_T_PASS\"",
        "",
    );
    let out = bansha_cmd()
        .args(["sync", "--config"])
        .arg(&g.cfg_path)
        .env("BANSHA_T_USER", "白色防御者")
        .env("BANSHA_T_PASS", "pw2")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("pw2"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("7 new posts"));
    let store = Store::open(&g.cfg().db_path()).unwrap();
    assert_eq!(
        stored_pids(&store, &g.forum_key(), DISC),
        g.forum_pids(DISC)
    );
    assert!(g.forum.requests().iter().any(|r| r.uid == 103));
    // Without the variables: exit 2 naming the variable.
    let out = bansha_cmd()
        .args(["sync", "--config"])
        .arg(&g.cfg_path)
        .env_remove("BANSHA_T_USER")
        .env_remove("BANSHA_T_PASS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("BANSHA_T_USER"), "{stderr}");
}

#[test]
fn at_close_the_reports_are_written_in_every_format_into_the_day_folder_in_process() {
    let g = Game::with_players("reportcmds", spec(3), "");
    let mut d = g
        .daemon()
        .with_writer(Box::new(bansha::daemon::StandardReports));
    block_on(d.step()).unwrap();
    g.clock.set(ts("2026-03-05 21:02"));
    let s = block_on(d.step()).unwrap();
    let day = g.dir.join("reports/day-1");
    let files = [
        "tally.txt",
        "tally.json",
        "tally.bbcode",
        "activity.txt",
        "activity.json",
        "activity.bbcode",
        "elevator.txt",
        "elevator.json",
        "elevator.bbcode",
        "flags.txt",
        "flags.json",
        "flags.bbcode",
    ];
    for f in files.iter().chain(&["posts.json", "DONE"]) {
        assert!(
            day.join(f).exists(),
            "{f}: {}",
            log_of(&day.join("errors.txt"))
        );
    }
    assert!(!day.join("errors.txt").exists());
    // posts.json and the 12 reports.
    assert_eq!(s.reports.len(), 13, "{:?}", s.reports);
    // Each file is what its command prints, run by hand at the same moment.
    for f in files {
        let (cmd, ext) = f.split_once('.').unwrap();
        let format = match ext {
            "txt" => "text",
            e => e,
        };
        // The tally as of the daemon's moment (the replay clock runs on).
        let at: &[&str] = match cmd {
            "tally" => &["--at", "2026-03-05 21:02"],
            _ => &[],
        };
        let out = std::process::Command::new(bin())
            .env(bansha::time::CLOCK_START_ENV, "2026-03-05 21:02")
            .args([cmd, "--config"])
            .arg(&g.cfg_path)
            .args(["--day", "1", "--format", format])
            .args(at)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(day.join(f)).unwrap(),
            String::from_utf8(out.stdout).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn at_close_a_report_that_fails_is_listed_in_errors_txt_and_the_others_are_written() {
    // No [[player]] entries: every report about players refuses; posts.json is written.
    let g = Game::new("reporterrors", spec(3), "", "");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/075-zhifou.toml"),
        g.dir.join("rules.toml"),
    )
    .unwrap();
    let mut d = g
        .daemon()
        .with_writer(Box::new(bansha::daemon::StandardReports));
    block_on(d.step()).unwrap();
    g.clock.set(ts("2026-03-05 21:02"));
    let s = block_on(d.step()).unwrap();
    let day = g.dir.join("reports/day-1");
    assert!(day.join("posts.json").exists() && day.join("DONE").exists());
    assert!(!day.join("activity.bbcode").exists());
    let errors = std::fs::read_to_string(day.join("errors.txt")).unwrap();
    assert!(
        errors.contains("activity --day 1 --format bbcode:") && errors.contains("[[player]]"),
        "{errors}"
    );
    assert!(
        s.reports.contains(&day.join("errors.txt")),
        "{:?}",
        s.reports
    );
}

#[test]
fn a_change_in_the_vote_thread_triggers_a_retally_whose_differences_are_reported() {
    let g = Game::with_players("retally", spec(3), "");
    let mut d = g.daemon().with_tally_watch();
    let s = block_on(d.step()).unwrap();
    assert!(s.tally_events.is_empty(), "{:?}", s.tally_events);
    g.advance(300);
    g.forum
        .add_post(VOTE, "傻树", "投票对象：甲", g.clock.now());
    let s = block_on(d.step()).unwrap();
    let kinds = |s: &bansha::daemon::PassSummary| -> Vec<String> {
        s.tally_events
            .iter()
            .map(|(_, e)| format!("{e:?}"))
            .collect()
    };
    assert_eq!(s.tally_events.len(), 2, "{:?}", s.tally_events);
    assert!(
        kinds(&s)
            .iter()
            .any(|k| k.starts_with("NewBallot") && k.contains("傻树")),
        "{:?}",
        kinds(&s)
    );
    // A pass without changes in the vote thread does not re-tally.
    g.advance(300);
    g.forum.add_post(DISC, "甲", "讨论", g.clock.now());
    let s = block_on(d.step()).unwrap();
    assert!(s.tally_events.is_empty(), "{:?}", s.tally_events);
    // A second ballot for another target: a tie, two leaders.
    g.advance(300);
    g.forum
        .add_post(VOTE, "乙", "投票对象：傻树", g.clock.now());
    let s = block_on(d.step()).unwrap();
    let k = kinds(&s);
    assert!(
        k.iter()
            .any(|k| k.starts_with("NewBallot") && k.contains("乙")),
        "{k:?}"
    );
    assert!(
        k.iter()
            .any(|k| k.starts_with("NewLeader") && k.contains("傻树") && k.contains("甲")),
        "{k:?}"
    );
}

/// The outcomes of the last `n` fetch-log entries of a thread.
fn last_outcomes(store: &Store, forum: &str, tid: u64, n: usize) -> Vec<String> {
    let log = store.fetch_log(forum, tid).unwrap();
    log[log.len().saturating_sub(n)..]
        .iter()
        .map(|e| e.outcome.clone())
        .collect()
}

/// Relative times and view counters change on every render: the fingerprint ignores them.
fn noisy_spec(disc_posts: usize) -> ForumSpec {
    let mut s = spec(disc_posts);
    s.site.human_time = true;
    s
}

#[test]
fn unchanged_pages_are_fingerprinted_skipped_and_logged_unchanged_across_restarts() {
    for api in [false, true] {
        let g = Game::new(
            "fpskip",
            noisy_spec(25),
            "",
            if api { "use_api = true" } else { "" },
        );
        let f = g.forum_key();
        {
            let mut d = g.daemon();
            let s = block_on(d.step()).unwrap();
            assert_eq!(s.unchanged, 0, "api={api}: {s:?}");
            g.advance(120);
            let s = block_on(d.step()).unwrap();
            assert!(s.errors.is_empty(), "{:?}", s.errors);
            assert_eq!(s.pages, 2, "api={api}: {s:?}");
            assert_eq!(s.unchanged, 2, "api={api}: {s:?}");
            assert_eq!(last_outcomes(d.store(), &f, DISC, 1), ["unchanged"]);
        }
        // The fingerprints live in the store: a restarted daemon still skips every
        // unchanged page — and, the recheck cadence being stored too, it does not re-read
        // recent pages just because it restarted (issue 13).
        g.advance(120);
        let mut d = g.daemon();
        let s = block_on(d.step()).unwrap();
        assert_eq!(s.pages, 2, "api={api}: {s:?}");
        assert_eq!(s.unchanged, s.pages, "api={api}: {s:?}");
        assert_eq!(stored_pids(d.store(), &f, DISC), g.forum_pids(DISC));
    }
}

#[test]
fn edits_deletions_new_posts_and_locks_arrive_with_fingerprints_on() {
    for api in [false, true] {
        let g = Game::new(
            "fpchange",
            noisy_spec(25),
            "",
            if api { "use_api = true" } else { "" },
        );
        let mut d = g.daemon();
        let f = g.forum_key();
        block_on(d.step()).unwrap();
        g.advance(60);
        let s = block_on(d.step()).unwrap();
        assert_eq!(
            s.unchanged, s.pages,
            "api={api}: fingerprints in use: {s:?}"
        );
        let pids = g.forum.pids(DISC);

        g.advance(60);
        assert!(g.forum.edit_post(pids[22], "改票：傻树", g.clock.now()));
        let s = block_on(d.step()).unwrap();
        assert_eq!(s.changed, 1, "api={api}: {s:?}");
        let p = d.store().post(&f, DISC, pids[22]).unwrap().unwrap();
        assert!(p.current().text.contains("改票：傻树"), "api={api}");

        g.advance(60);
        assert!(g.forum.delete_post(pids[24]));
        block_on(d.step()).unwrap();
        let p = d.store().post(&f, DISC, pids[24]).unwrap().unwrap();
        assert!(p.missing(), "api={api}: deletion not seen: {p:?}");

        g.advance(60);
        let new = g
            .forum
            .add_post(DISC, "甲", "指纹之后的新发言", g.clock.now());
        let s = block_on(d.step()).unwrap();
        assert_eq!(s.new_posts, 1, "api={api}: {s:?}");
        assert!(stored_pids(d.store(), &f, DISC).contains(&new));

        g.advance(60);
        assert!(
            g.forum
                .set_locked(pids[21], Some(bansha_testforum::Lock::Blocked))
        );
        block_on(d.step()).unwrap();
        let p = d.store().post(&f, DISC, pids[21]).unwrap().unwrap();
        assert!(p.locked.is_some(), "api={api}: lock not seen: {p:?}");
        assert!(
            g.forum_pids(DISC)
                .is_subset(&stored_pids(d.store(), &f, DISC))
        );
    }
}

#[test]
fn an_expired_login_on_an_unchanged_page_is_still_detected() {
    for api in [false, true] {
        let g = Game::new(
            "fplogin",
            noisy_spec(5),
            "",
            if api { "use_api = true" } else { "" },
        );
        let cookies = g.dir.join("cookies.txt");
        g.forum.write_cookies_txt(&cookies, 103).unwrap();
        let jar = bansha::fetch::load_cookies_txt(&cookies, "127.0.0.1").unwrap();
        let mut d = g.daemon_with(jar, None);
        block_on(d.step()).unwrap();
        g.advance(60);
        let s = block_on(d.step()).unwrap();
        assert_eq!(s.unchanged, s.pages, "api={api}: {s:?}");
        // Nothing changes on the forum except the login.
        g.forum.expire_login();
        g.advance(60);
        let e = block_on(d.step()).unwrap_err().to_string();
        assert!(
            e.contains("login expired") && e.contains("export fresh cookies"),
            "api={api}: {e}"
        );
    }
}

#[test]
fn the_final_reread_at_close_parses_every_page_despite_fingerprints() {
    // PC pages only (`api_ppp = 0`); the API's final re-read is in tests/requests.rs.
    let g = Game::new("fpfinal", noisy_spec(25), "", "api_ppp = 0");
    let mut d = g.daemon();
    let f = g.forum_key();
    block_on(d.step()).unwrap();
    g.advance(60);
    block_on(d.step()).unwrap();
    let before = d.store().fetch_log(&f, DISC).unwrap().len();
    g.clock.set(ts("2026-03-05 21:02"));
    g.forum.set_now(g.clock.now());
    let s = block_on(d.step()).unwrap();
    assert!(!s.reports.is_empty());
    let log = d.store().fetch_log(&f, DISC).unwrap();
    let final_pages: BTreeSet<u32> = log[before..]
        .iter()
        .filter(|e| e.outcome == "ok")
        .map(|e| e.page)
        .collect();
    assert_eq!(final_pages, BTreeSet::from([1, 2, 3]), "{log:#?}");
}
