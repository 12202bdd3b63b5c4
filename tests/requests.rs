//! Integration tests: requests (issue 13). The daemon against the test forum over loopback,
//! counting what it asks for in the forum's request log: an API backfill at a large `ppp`
//! (and at a site's cap), the fall-back to PC pages when the API is closed, PC pages only
//! for the posts the API cannot vouch for, and one request per thread for an unchanged
//! poll however often `sync` runs.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use bansha::config::Config;
use bansha::daemon::Daemon;
use bansha::fetch::{CookieJar, FetchOptions, Fetcher};
use bansha::model::Post;
use bansha::store::Store;
use bansha::time::{Clock, ManualClock, parse_local};
use bansha_testforum::{ForumSpec, TestForum, ThreadSpec};

const TID: u64 = 3001;
const NAMES: [&str; 6] = ["导演", "傻树", "白色防御者", "甲", "乙", "丙"];

fn ts(s: &str) -> i64 {
    parse_local(s, chrono_tz::Asia::Shanghai).unwrap()
}

/// The message of post `i`: `styled` posts vote in red and enlarged, post `size_only`
/// is enlarged without colour (the API shows no trace of it), the rest is plain.
fn message(i: usize, styled: &[usize], size_only: Option<usize>) -> String {
    if styled.contains(&i) {
        format!("第{i}楼 投票对象：[color=Red][size=5]乙[/size][/color]")
    } else if size_only == Some(i) {
        format!("第{i}楼 [size=6]只是放大[/size]")
    } else {
        format!("第{i}楼：今天的发言，站边有问题。")
    }
}

fn spec(posts: usize, styled: &[usize], size_only: Option<usize>) -> ForumSpec {
    let mut s = ForumSpec::board_of("2026-03-04 12:00", &NAMES, 301);
    s.threads = vec![ThreadSpec::minute_by_minute(
        TID,
        "D1 讨论帖",
        &NAMES,
        posts,
        |i| message(i, styled, size_only),
    )];
    s
}

struct Game {
    forum: TestForum,
    dir: PathBuf,
    clock: Arc<ManualClock>,
}

impl Game {
    fn new(name: &str, spec: ForumSpec, daemon_extra: &str) -> Game {
        let forum = TestForum::start(spec).unwrap();
        let dir = crate::common::scratch_dir(&format!("requests-{name}-{}", fastrand::u64(..)));
        let text = format!(
            "[forum]\nbase_url = \"{}\"\nmin_interval_ms = 0\n\n\
             [daemon]\nrequest_timeout_ms = 2000\nretries = 1\nbackoff_ms = 10\n{daemon_extra}\n\n\
             [game]\nname = \"g\"\nrules = \"r.toml\"\ndb = \"g.sqlite\"\n\n\
             [[day]]\nnumber = 1\ndiscussion = [{TID}]\nopens = \"2026-03-01 00:00\"\ncloses = \"2026-03-05 21:00\"\n",
            forum.base_url()
        );
        std::fs::write(dir.join("g.toml"), text).unwrap();
        let clock = Arc::new(ManualClock::new(ts("2026-03-04 12:00")));
        Game { forum, dir, clock }
    }

    fn cfg(&self) -> Config {
        Config::load(&self.dir.join("g.toml")).unwrap()
    }

    /// A fresh daemon on the same database: what each `bansha sync` from cron is.
    fn daemon(&self) -> Daemon {
        let cfg = self.cfg();
        let store = Store::open(&cfg.db_path()).unwrap();
        let fetcher =
            Fetcher::new(FetchOptions::from_config(&cfg), CookieJar::new(), None).unwrap();
        Daemon::new(
            cfg,
            store,
            fetcher,
            self.clock.clone(),
            self.dir.join("reports"),
        )
    }

    fn advance(&self, secs: i64) {
        self.clock.advance(secs);
        self.forum.set_now(self.clock.now());
    }

    /// One `sync`; returns the requests it made (path and query).
    fn sync(&self, d: &mut Daemon) -> Vec<String> {
        let before = self.forum.request_count();
        let s = rt().block_on(d.sync_once()).unwrap();
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        self.forum.requests()[before..]
            .iter()
            .map(|r| r.target.clone())
            .collect()
    }

    fn posts(&self, d: &Daemon) -> Vec<Post> {
        d.store().posts(&self.cfg().forum_key(), TID).unwrap()
    }

    fn forum_pids(&self) -> BTreeSet<u64> {
        self.forum.pids(TID).into_iter().collect()
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn api(reqs: &[String]) -> Vec<&String> {
    reqs.iter().filter(|r| r.contains("api/mobile")).collect()
}

/// The PC pages asked for, in order.
fn pc_pages(reqs: &[String]) -> Vec<u32> {
    reqs.iter()
        .filter(|r| r.contains("mod=viewthread") && !r.contains("api/mobile"))
        .map(|r| {
            r.split('&')
                .find_map(|kv| kv.strip_prefix("page="))
                .and_then(|p| p.parse().ok())
                .unwrap()
        })
        .collect()
}

fn stored_pids(posts: &[Post]) -> BTreeSet<u64> {
    posts.iter().map(|p| p.pid).collect()
}

#[test]
fn a_2000_post_backfill_is_a_handful_of_api_requests_plus_pc_pages_for_styled_posts() {
    // Styled posts at indices 5, 6 (same PC page 1), 1234 (page 124), 1999 (the newest
    // page, read anyway); a size-only post at 700.
    let g = Game::new("backfill", spec(2000, &[5, 6, 1234, 1999], Some(700)), "");
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    // PC page 1 (the pager shows 200 pages), the API at ppp=1000 (2 pages), the newest PC
    // page, and the one PC page holding a styled post not read yet: 5 requests, not 200.
    let api_reqs = api(&reqs);
    assert_eq!(api_reqs.len(), 2, "{reqs:#?}");
    assert!(
        api_reqs.iter().all(|r| r.contains("ppp=1000")),
        "{api_reqs:?}"
    );
    assert_eq!(pc_pages(&reqs), vec![1, 200, 124], "{reqs:#?}");
    assert_eq!(reqs.len(), 5);
    let posts = g.posts(&d);
    assert_eq!(stored_pids(&posts), g.forum_pids());
    assert!(posts.iter().all(|p| p.revisions.len() == 1 && !p.missing()));
    // Every styled post's enlarged text was judged from its PC page.
    for i in [5, 6, 1234, 1999] {
        let p = &posts[i];
        assert!(p.current().text.contains(&format!("第{i}楼")));
        assert_eq!(p.current().large, "乙", "post {i}");
        assert_eq!(p.current().red, "乙", "post {i}");
    }
    // The size-only post was read through the API only: its size is not known (the
    // documented limit of the hybrid, ARCHITECTURE.md).
    assert_eq!(posts[700].current().large, "");
    assert!(posts[700].current().text.contains("只是放大"));
}

#[test]
fn a_site_capping_ppp_is_paged_at_the_served_cap() {
    let mut s = spec(2000, &[], None);
    s.site.api_ppp_max = Some(30);
    let g = Game::new("capped", s, "");
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    // 2,000 posts at the site's cap of 30: 67 API pages, each still asking for 1000.
    let api_reqs = api(&reqs);
    assert_eq!(api_reqs.len(), 67, "{reqs:#?}");
    let pages: BTreeSet<u32> = api_reqs
        .iter()
        .map(|r| {
            r.split('&')
                .find_map(|kv| kv.strip_prefix("page="))
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(pages, (1..=67).collect());
    assert_eq!(pc_pages(&reqs), vec![1, 200]);
    assert_eq!(stored_pids(&g.posts(&d)), g.forum_pids());
}

#[test]
fn a_cap_no_larger_than_a_pc_page_sends_the_backfill_back_to_pc_pages() {
    let mut s = spec(300, &[], None);
    s.site.api_ppp_max = Some(10);
    let g = Game::new("smallcap", s, "");
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    // One API page shows the cap of 10: PC pages cost the same and show sizes.
    assert_eq!(api(&reqs).len(), 1, "{reqs:#?}");
    assert_eq!(pc_pages(&reqs), (1..=30).collect::<Vec<_>>());
    assert_eq!(stored_pids(&g.posts(&d)), g.forum_pids());
}

#[test]
fn a_closed_api_falls_back_to_pc_pages_and_is_remembered_until_retried() {
    let mut s = spec(300, &[], None);
    s.site.api_closed = true;
    let g = Game::new("closed", s, "");
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    // Page 1, the refused API call, then every other PC page.
    assert_eq!(api(&reqs).len(), 1, "{reqs:#?}");
    assert_eq!(pc_pages(&reqs), (1..=30).collect::<Vec<_>>());
    assert_eq!(stored_pids(&g.posts(&d)), g.forum_pids());
    let log = d.store().fetch_log(&g.cfg().forum_key(), TID).unwrap();
    assert!(
        log.iter()
            .any(|e| e.outcome.contains("api refused") && e.outcome.contains("mobile_is_closed")),
        "{log:#?}"
    );
    // A later sync (a new process) past the recheck interval re-reads recent PC pages
    // without asking the closed API again.
    drop(d);
    g.advance(3600);
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    assert!(api(&reqs).is_empty(), "{reqs:#?}");
    assert_eq!(pc_pages(&reqs), vec![30, 27, 28, 29]);
    // Six hours on, the API is open again: it is tried, and it does the re-read.
    g.forum.set_api_closed(false);
    g.advance(6 * 3600);
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    assert_eq!(pc_pages(&reqs), vec![30], "{reqs:#?}");
    assert_eq!(api(&reqs).len(), 1, "{reqs:#?}");
}

#[test]
fn an_unchanged_poll_costs_one_request_per_thread_however_often_sync_runs() {
    let g = Game::new("cron", spec(200, &[], None), "");
    let mut d = g.daemon();
    g.sync(&mut d);
    drop(d);
    // `sync` from cron every minute: a new process each time, one request each.
    for minute in 1..=29 {
        g.advance(60);
        let mut d = g.daemon();
        let reqs = g.sync(&mut d);
        assert_eq!(reqs.len(), 1, "minute {minute}: {reqs:#?}");
        assert_eq!(pc_pages(&reqs), vec![20]);
    }
    // At 30 minutes the stored cadence says re-read: the newest API page (1000 a page:
    // the whole thread) instead of three PC pages.
    g.advance(60);
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    assert_eq!(pc_pages(&reqs), vec![20], "{reqs:#?}");
    let api_reqs = api(&reqs);
    assert_eq!(api_reqs.len(), 1, "{reqs:#?}");
    assert!(api_reqs[0].contains("page=99999"), "{api_reqs:?}");
    drop(d);
    g.advance(60);
    let mut d = g.daemon();
    assert_eq!(g.sync(&mut d).len(), 1);
}

#[test]
fn an_edit_found_by_the_api_reread_gets_its_pc_page_for_the_font_size() {
    let g = Game::new("edit", spec(200, &[], None), "");
    let mut d = g.daemon();
    g.sync(&mut d);
    let pid = g.forum.pids(TID)[42];
    g.advance(1900);
    assert!(g.forum.edit_post(
        pid,
        "第42楼 改成：[size=5][color=Red]甲[/color][/size]",
        g.clock.now()
    ));
    let reqs = g.sync(&mut d);
    // The newest PC page (unchanged), the API re-read that finds the edit, and the PC
    // page holding the edited post (index 42 → page 5).
    assert_eq!(pc_pages(&reqs), vec![20, 5], "{reqs:#?}");
    assert_eq!(api(&reqs).len(), 1);
    let posts = g.posts(&d);
    let p = posts.iter().find(|p| p.pid == pid).unwrap();
    assert_eq!(p.revisions.len(), 2);
    assert_eq!(p.current().large, "甲");
    assert_eq!(p.current().red, "甲");
}

#[test]
fn the_final_reread_at_close_goes_through_the_api() {
    let g = Game::new("final", spec(2000, &[], None), "grace_secs = 120");
    let mut d = g.daemon();
    g.sync(&mut d);
    let pid = g.forum.pids(TID)[10];
    g.clock.set(ts("2026-03-05 21:02"));
    g.forum.set_now(g.clock.now());
    assert!(
        g.forum
            .edit_post(pid, "第10楼 改票：[color=Red]丙[/color]", g.clock.now())
    );
    let before = g.forum.request_count();
    let s = rt().block_on(d.step()).unwrap();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert!(!s.reports.is_empty());
    let reqs: Vec<String> = g.forum.requests()[before..]
        .iter()
        .map(|r| r.target.clone())
        .collect();
    // The pass's own poll (newest PC page, and the due re-read: the newest API page),
    // then the final re-read: the newest PC page, every API page, and the PC page of the
    // edited post — 6 requests, where PC pages alone are 200.
    let api_pages: Vec<&str> = api(&reqs)
        .iter()
        .map(|r| {
            r.split('&')
                .find_map(|kv| kv.strip_prefix("page="))
                .unwrap()
        })
        .collect();
    assert_eq!(api_pages, ["99999", "1", "2"], "{reqs:#?}");
    assert_eq!(pc_pages(&reqs), vec![200, 200, 2], "{reqs:#?}");
    let p = g.posts(&d).into_iter().find(|p| p.pid == pid).unwrap();
    assert!(p.current().text.contains("丙"));
}

/// What both views must agree on, post by post.
fn essentials(
    p: &Post,
) -> (
    u64,
    Option<u32>,
    String,
    Option<u64>,
    i64,
    String,
    String,
    bool,
) {
    let r = p.current();
    (
        p.pid,
        p.floor,
        p.author.clone(),
        p.uid,
        p.time,
        r.text.clone(),
        r.red.clone(),
        p.quote.is_some(),
    )
}

#[test]
fn the_api_view_and_the_pc_view_of_the_same_thread_store_the_same_posts() {
    let styled = [3, 17, 250];
    let mut s = spec(300, &styled, None);
    // Quote-replies, whose markup differs most between the two renderings.
    s.threads[0].posts[120].reply_to = Some(7);
    s.threads[0].posts[121].reply_to = Some(18);
    let g = Game::new("views", s, "");
    let pc = Game {
        forum: TestForum::start(spec(1, &[], None)).unwrap(),
        dir: g.dir.join("pc"),
        clock: g.clock.clone(),
    };
    // The same forum read twice: hybrid (API bulk) and PC pages only.
    std::fs::create_dir_all(&pc.dir).unwrap();
    let text = std::fs::read_to_string(g.dir.join("g.toml"))
        .unwrap()
        .replace("[daemon]\n", "[daemon]\napi_ppp = 0\n");
    std::fs::write(pc.dir.join("g.toml"), text).unwrap();
    let mut hybrid = g.daemon();
    let reqs = g.sync(&mut hybrid);
    assert!(api(&reqs).len() == 1, "{reqs:#?}");
    let mut pc_only = pc.daemon();
    let before = g.forum.request_count();
    rt().block_on(pc_only.sync_once()).unwrap();
    let pc_reqs = &g.forum.requests()[before..];
    assert_eq!(pc_reqs.len(), 30);
    assert!(pc_reqs.iter().all(|r| !r.target.contains("api/mobile")));
    let a = g.posts(&hybrid);
    let b = pc_only.store().posts(&g.cfg().forum_key(), TID).unwrap();
    assert_eq!(a.len(), 300);
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b.iter()) {
        assert_eq!(essentials(x), essentials(y));
    }
    // Enlarged text: the PC view has it everywhere, the hybrid for every styled post.
    for i in styled {
        assert_eq!(a[i].current().large, "乙", "post {i}");
        assert_eq!(b[i].current().large, "乙", "post {i}");
    }
}

#[test]
fn the_directors_styled_posts_need_no_pc_page() {
    // Post 1236 is the director's (导演专用的放大字体): styled, but not the players' to
    // check; post 5 is a player's.
    assert_eq!(NAMES[1236 % NAMES.len()], "导演");
    let g = Game::new("director", spec(2000, &[5, 1236], None), "");
    let text = std::fs::read_to_string(g.dir.join("g.toml"))
        .unwrap()
        .replace(
            "db = \"g.sqlite\"\n",
            "db = \"g.sqlite\"\ndirectors = [\"导演\"]\n",
        );
    std::fs::write(g.dir.join("g.toml"), text).unwrap();
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    // Page 1 holds post 5; page 124 (post 1236) is not read.
    assert_eq!(pc_pages(&reqs), vec![1, 200], "{reqs:#?}");
    assert_eq!(api(&reqs).len(), 2);
    assert_eq!(g.posts(&d)[5].current().large, "乙");
}

#[test]
fn deleted_floors_shifting_pc_pages_send_the_styled_post_to_the_next_page() {
    // Position mode: five deleted floors still take PC slots (placeholders) but are not
    // in the API's list, so the styled post at slot 32 (PC page 4) is API index 27,
    // which points at page 3.
    let mut s = spec(300, &[32], None);
    s.site.floor_mode = bansha_testforum::FloorMode::Position;
    for i in 1..=5 {
        s.threads[0].posts[i].deleted = true;
    }
    let g = Game::new("shifted", s, "");
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    assert_eq!(pc_pages(&reqs), vec![1, 30, 3, 4], "{reqs:#?}");
    let posts = g.posts(&d);
    let p = posts
        .iter()
        .find(|p| p.current().text.contains("第32楼"))
        .unwrap();
    assert_eq!(p.current().large, "乙");
}

#[test]
fn a_database_from_before_the_stored_cursors_resumes_at_its_last_page() {
    let g = Game::new("upgrade", spec(200, &[], None), "");
    let mut d = g.daemon();
    g.sync(&mut d);
    drop(d);
    // What a schema-2 database holds: `threads.last_page_seen`, no paging state.
    let db = g.cfg().db_path();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("DELETE FROM poll_state; DELETE FROM forum_state;")
        .unwrap();
    drop(conn);
    g.advance(60);
    let mut d = g.daemon();
    let reqs = g.sync(&mut d);
    // The last page (from `threads`), and the re-read no stored cadence vouches against;
    // no new backfill.
    assert_eq!(pc_pages(&reqs), vec![20], "{reqs:#?}");
    assert_eq!(api(&reqs).len(), 1, "{reqs:#?}");
    g.advance(60);
    assert_eq!(g.sync(&mut g.daemon()).len(), 1);
}

#[test]
fn bansha_sync_run_twice_costs_one_request_per_unchanged_thread_the_second_time() {
    let g = Game::new("cli", spec(200, &[], None), "");
    let cfg = g.dir.join("g.toml");
    let cfg = cfg.to_str().unwrap();
    let (code, _, err) = crate::common::bansha(&["sync", "--config", cfg]);
    assert_eq!(code, 0, "{err}");
    let first = g.forum.request_count();
    // PC page 1, the API page of 1000, the newest PC page.
    assert_eq!(first, 3, "{:#?}", g.forum.requests());
    let (code, _, err) = crate::common::bansha(&["sync", "--config", cfg]);
    assert_eq!(code, 0, "{err}");
    let second: Vec<String> = g.forum.requests()[first..]
        .iter()
        .map(|r| r.target.clone())
        .collect();
    assert_eq!(pc_pages(&second), vec![20], "{second:#?}");
    assert_eq!(second.len(), 1);
}
