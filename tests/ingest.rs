//! Integration tests: ingest. Pages are saved from the project's test forum (real HTTP on
//! 127.0.0.1) or taken from the fixture files, then imported through the `bansha` command
//! entry point (`bansha::cli::dispatch`, in-process); assertions are on what the store holds.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bansha::cli::{Cli, dispatch};
use bansha::model::Post;
use bansha::store::{SourceKind, Store};
use bansha_testforum::{
    FloorMode, ForumSpec, PostSpec, SiteCharset, TestForum, ThreadSpec, UserSpec,
};
use clap::Parser;

const TZ: chrono_tz::Tz = chrono_tz::Asia::Shanghai;
const NOW: &str = "2026-03-04 23:30:00";

fn ts(s: &str) -> i64 {
    bansha::time::parse_local(s, TZ).unwrap()
}

/// A scratch directory, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("bansha-ingest-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
    fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// GET over a fresh connection; the body (headers stripped).
fn get(f: &TestForum, target: &str) -> Vec<u8> {
    let mut s = TcpStream::connect(f.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {}\r\nUser-Agent: Mozilla/5.0 Firefox/120.0\r\nConnection: close\r\n\r\n",
        f.addr()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    assert!(raw.starts_with(b"HTTP/1.1 200"), "{target}: not 200");
    raw[split + 4..].to_vec()
}

fn save(f: &TestForum, target: &str, to: &Path) -> PathBuf {
    std::fs::write(to, get(f, target)).unwrap();
    to.to_path_buf()
}

fn users() -> Vec<UserSpec> {
    ["导演A", "傻树", "小红", "阿蓝"]
        .iter()
        .enumerate()
        .map(|(i, n)| UserSpec {
            uid: if i == 0 { 1 } else { 100 + i as u64 },
            name: n.to_string(),
            password: None,
        })
        .collect()
}

/// Thread 1002: `n` posts a minute apart from 09:00, authors rotating.
fn spec(n: usize) -> ForumSpec {
    let names = ["导演A", "傻树", "小红", "阿蓝"];
    let posts = (0..n)
        .map(|i| {
            let t = bansha::time::format_local(ts("2026-03-04 09:00") + 60 * i as i64, TZ);
            let author = if i == 0 { "导演A" } else { names[1 + i % 3] };
            PostSpec::new(author, &t, &format!("第{}楼\n投票对象：小红", i + 1))
        })
        .collect();
    let mut s = ForumSpec {
        users: users(),
        threads: vec![ThreadSpec {
            tid: 1002,
            fid: 2,
            subject: "[075]第二天投票帖".into(),
            posts,
        }],
        ..Default::default()
    };
    s.site.now = Some(NOW.into());
    s.site.ppp = 10;
    s
}

fn write_config(dir: &Dir, base_url: &str) -> PathBuf {
    let p = dir.path("game.toml");
    std::fs::write(
        &p,
        format!(
            r#"[forum]
base_url = "{base_url}"
[game]
name = "[075]知否知否应是绿肥红瘦"
rules = "rules.toml"
db = "game.sqlite"
[[player]]
name = "傻树"
[[day]]
number = 2
discussion = [1001]
vote = 1002
"#
        ),
    )
    .unwrap();
    p
}

fn bansha(args: &[&str]) -> Result<(), String> {
    let mut v = vec!["bansha"];
    v.extend_from_slice(args);
    dispatch(Cli::try_parse_from(v).map_err(|e| e.to_string())?).map_err(|e| {
        assert_eq!(e.exit_code(), 2, "{}", e.message());
        e.message().to_string()
    })
}

/// Run the real `bansha` binary; its stdout (the command must succeed).
fn bansha_out(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bansha {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn import(cfg: &Path, files: &[&Path]) -> Result<(), String> {
    let mut a = vec![
        "import".to_string(),
        "--config".into(),
        cfg.display().to_string(),
        "--saved-at".into(),
        NOW.into(),
    ];
    a.extend(files.iter().map(|f| f.display().to_string()));
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    bansha(&refs)
}

fn stored(dir: &Dir, forum: &str, tid: u64) -> Vec<Post> {
    Store::open(&dir.path("game.sqlite"))
        .unwrap()
        .posts(forum, tid)
        .unwrap()
}

fn forum_key(f: &TestForum) -> String {
    bansha::config::forum_key(&f.base_url())
}

#[test]
fn saved_pc_pages_import_with_floors_authors_times_and_text() {
    let dir = Dir::new("pc");
    let f = TestForum::start(spec(25)).unwrap();
    let cfg = write_config(&dir, &f.base_url());
    let files: Vec<PathBuf> = (1..=3)
        .map(|p| {
            save(
                &f,
                &format!("/forum.php?mod=viewthread&tid=1002&page={p}"),
                &dir.path(&format!("p{p}.html")),
            )
        })
        .collect();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    import(&cfg, &refs).unwrap();
    let posts = stored(&dir, &forum_key(&f), 1002);
    assert_eq!(posts.len(), 25);
    assert_eq!(
        posts.iter().map(|p| p.pid).collect::<Vec<_>>(),
        f.pids(1002),
        "every pid the forum shows, in floor order"
    );
    for (i, p) in posts.iter().enumerate() {
        assert_eq!(p.floor, Some(i as u32 + 1));
        assert_eq!(
            p.time,
            ts("2026-03-04 09:00") + 60 * i as i64,
            "floor {}",
            i + 1
        );
        assert_eq!(
            p.first().text.trim(),
            format!("第{}楼\n投票对象：小红", i + 1)
        );
        assert!(!p.missing() && !p.edited());
    }
    assert_eq!(posts[1].author, "小红");
    assert_eq!(posts[1].uid, Some(102));
    let store = Store::open(&dir.path("game.sqlite")).unwrap();
    let t = store.thread(&forum_key(&f), 1002).unwrap().unwrap();
    assert_eq!((t.total_pages, t.last_page_seen, t.posts), (3, 3, 25));
    assert!(t.title.contains("第二天投票帖"), "{}", t.title);
    let log = store.fetch_log(&forum_key(&f), 1002).unwrap();
    assert_eq!(log.len(), 3);
    assert!(
        log.iter()
            .all(|e| e.kind == SourceKind::File && e.outcome == "ok")
    );
    assert_eq!(log[0].fetched_at, ts(NOW));
    assert!(log[2].source.ends_with("p3.html"));
    // `posts` runs on it, for every selector and format, and prints those 25 posts.
    let c = cfg.display().to_string();
    let base = f.base_url();
    let json = bansha_out(&["posts", "--config", &c, "--format", "json"]);
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    let arr = j.as_array().unwrap_or_else(|| panic!("{json}"));
    assert_eq!(arr.len(), 25, "{json}");
    for (i, p) in arr.iter().enumerate() {
        assert_eq!(p["tid"], 1002);
        assert_eq!(p["floor"], i as u64 + 1);
        assert_eq!(
            p["text"].as_str().unwrap(),
            format!("第{}楼\n投票对象：小红", i + 1)
        );
        assert_eq!(p["time"].as_str().unwrap(), {
            let t = ts("2026-03-04 09:00") + 60 * i as i64;
            bansha::time::format_local(t, TZ)
        });
        assert_eq!(
            (p["edited"].as_bool(), p["missing"].as_bool()),
            (Some(false), Some(false))
        );
    }
    assert_eq!(arr[1]["author"], "小红");
    assert_eq!(arr[1]["uid"], 102);
    let text = bansha_out(&["posts", "--config", &c, "--day", "2", "--format", "text"]);
    assert!(text.contains("== 帖子 1002 "), "{text}");
    assert!(text.contains("(25 posts)"), "{text}");
    assert!(text.contains("2# 小红 2026-03-04 09:01:00 pid "), "{text}");
    assert!(text.contains("    第25楼\n    投票对象：小红"), "{text}");
    let bb = bansha_out(&[
        "posts", "--config", &c, "--tid", "1002", "--format", "bbcode",
    ]);
    let lines: Vec<&str> = bb.lines().filter(|l| l.starts_with("[url=")).collect();
    assert_eq!(lines.len(), 25, "{bb}");
    let pid2 = arr[1]["pid"].as_u64().unwrap();
    assert_eq!(
        lines[1],
        format!(
            "[url={base}forum.php?mod=redirect&goto=findpost&ptid=1002&pid={pid2}]2#[/url] 小红 2026-03-04 09:01:00：第2楼 投票对象：小红"
        )
    );
    let e = bansha(&["posts", "--config", &c, "--day", "9"]).unwrap_err();
    assert!(e.contains("day 9"), "{e}");
    let e = bansha(&["posts", "--config", &c, "--day", "2", "--tid", "77"]).unwrap_err();
    assert!(e.contains("thread 77"), "{e}");
}

#[test]
fn reimporting_the_same_files_changes_nothing() {
    let dir = Dir::new("idem");
    let f = TestForum::start(spec(12)).unwrap();
    let cfg = write_config(&dir, &f.base_url());
    let p1 = save(
        &f,
        "/forum.php?mod=viewthread&tid=1002&page=1",
        &dir.path("p1.html"),
    );
    let p2 = save(
        &f,
        "/forum.php?mod=viewthread&tid=1002&page=2",
        &dir.path("p2.html"),
    );
    import(&cfg, &[&p1, &p2]).unwrap();
    let before = stored(&dir, &forum_key(&f), 1002);
    import(&cfg, &[&p2, &p1]).unwrap();
    assert_eq!(stored(&dir, &forum_key(&f), 1002), before);
    let store = Store::open(&dir.path("game.sqlite")).unwrap();
    let log = store.fetch_log(&forum_key(&f), 1002).unwrap();
    assert_eq!(log.len(), 4);
    assert!(
        log[2..]
            .iter()
            .all(|e| e.new_posts == 0 && e.changed == 0 && e.missing == 0)
    );
    assert!(
        store
            .floor_changes(&forum_key(&f), 1002)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn snapshots_before_and_after_edit_and_delete_keep_history() {
    let dir = Dir::new("hist");
    let f = TestForum::start(spec(14)).unwrap();
    let cfg = write_config(&dir, &f.base_url());
    let pids = f.pids(1002);
    let early: Vec<PathBuf> = (1..=2)
        .map(|p| {
            save(
                &f,
                &format!("/forum.php?mod=viewthread&tid=1002&page={p}"),
                &dir.path(&format!("early-p{p}.html")),
            )
        })
        .collect();
    // The author of floor 5 changes the ballot; a moderator deletes floor 3 (X3.4 renumbers).
    assert!(f.edit_post(pids[4], "投票对象：阿蓝", ts("2026-03-04 12:00")));
    assert!(f.delete_post(pids[2]));
    let late: Vec<PathBuf> = (1..=2)
        .map(|p| {
            save(
                &f,
                &format!("/forum.php?mod=viewthread&tid=1002&page={p}"),
                &dir.path(&format!("late-p{p}.html")),
            )
        })
        .collect();
    import(&cfg, &[&early[0], &early[1]]).unwrap();
    import(&cfg, &[&late[1], &late[0]]).unwrap();
    let posts = stored(&dir, &forum_key(&f), 1002);
    assert_eq!(posts.len(), 14, "nothing is ever deleted");
    let by_pid = |pid: u64| posts.iter().find(|p| p.pid == pid).unwrap();
    let edited = by_pid(pids[4]);
    assert_eq!(edited.revisions.len(), 2);
    assert!(edited.first().text.contains("投票对象：小红"));
    assert!(edited.current().text.contains("投票对象：阿蓝"));
    let notice = edited.current().edit.as_ref().expect("edit notice");
    assert_eq!(notice.editor, edited.author);
    assert_eq!(notice.time, Some(ts("2026-03-04 12:00")));
    assert_eq!(edited.floor, Some(4), "renumbered after the deletion");
    let gone = by_pid(pids[2]);
    assert!(gone.missing());
    assert_eq!(gone.floor, Some(3));
    assert!(gone.first().text.contains("第3楼"));
    // pid 11 moved from page 2 to page 1: page 2 (imported first) must not call it missing.
    let moved = by_pid(pids[10]);
    assert!(!moved.missing());
    assert_eq!(moved.floor, Some(10));
    assert_eq!(posts.iter().filter(|p| p.missing()).count(), 1);
    let store = Store::open(&dir.path("game.sqlite")).unwrap();
    let fc = store.floor_changes(&forum_key(&f), 1002).unwrap();
    assert!(
        fc.iter()
            .any(|c| c.pid == pids[10] && c.old_floor == Some(11) && c.new_floor == Some(10))
    );
    assert_eq!(fc.len(), 11, "floors 4..14 each moved up once");
}

#[test]
fn deleted_floor_placeholders_mark_the_post_deleted() {
    let dir = Dir::new("placeholder");
    let mut s = spec(6);
    s.site.floor_mode = FloorMode::Position;
    let f = TestForum::start(s).unwrap();
    let cfg = write_config(&dir, &f.base_url());
    let pids = f.pids(1002);
    let a = save(
        &f,
        "/forum.php?mod=viewthread&tid=1002",
        &dir.path("a.html"),
    );
    assert!(f.delete_post(pids[3]));
    let b = save(
        &f,
        "/forum.php?mod=viewthread&tid=1002",
        &dir.path("b.html"),
    );
    import(&cfg, &[&a, &b]).unwrap();
    let posts = stored(&dir, &forum_key(&f), 1002);
    assert_eq!(posts.len(), 6);
    let p = posts.iter().find(|p| p.pid == pids[3]).unwrap();
    assert!(p.missing());
    let store = Store::open(&dir.path("game.sqlite")).unwrap();
    let ev = store.presence_log(&forum_key(&f), 1002).unwrap();
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].pid, pids[3]);
}

#[test]
fn html_and_api_views_import_to_the_same_posts() {
    let html_dir = Dir::new("view-html");
    let api_dir = Dir::new("view-api");
    let f = TestForum::start(spec(8)).unwrap();
    let h = save(
        &f,
        "/forum.php?mod=viewthread&tid=1002",
        &html_dir.path("p1.html"),
    );
    let j = save(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=1002&ppp=10",
        &api_dir.path("p1.json"),
    );
    import(&write_config(&html_dir, &f.base_url()), &[&h]).unwrap();
    import(&write_config(&api_dir, &f.base_url()), &[&j]).unwrap();
    let key = |p: &Post| {
        (
            p.pid,
            p.author.clone(),
            p.uid,
            p.time,
            p.first().text.trim().to_string(),
        )
    };
    let a: Vec<_> = stored(&html_dir, &forum_key(&f), 1002)
        .iter()
        .map(key)
        .collect();
    let b: Vec<_> = stored(&api_dir, &forum_key(&f), 1002)
        .iter()
        .map(key)
        .collect();
    assert_eq!(a.len(), 8);
    assert_eq!(a, b);
    // The API page re-imported into the HTML-fed store adds no revision.
    import(&write_config(&html_dir, &f.base_url()), &[&j]).unwrap();
    assert!(
        stored(&html_dir, &forum_key(&f), 1002)
            .iter()
            .all(|p| p.revisions.len() == 1)
    );
}

#[test]
fn gbk_pages_import_with_chinese_intact() {
    let dir = Dir::new("gbk");
    let mut s = spec(3);
    s.site.charset = SiteCharset::Gbk;
    let f = TestForum::start(s).unwrap();
    let cfg = write_config(&dir, &f.base_url());
    let p = save(
        &f,
        "/forum.php?mod=viewthread&tid=1002",
        &dir.path("gbk.html"),
    );
    let bytes = std::fs::read(&p).unwrap();
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the saved page is GBK"
    );
    import(&cfg, &[&p]).unwrap();
    let posts = stored(&dir, &forum_key(&f), 1002);
    assert_eq!(posts.len(), 3);
    assert_eq!(posts[0].author, "导演A");
    assert!(posts[2].first().text.contains("第3楼\n投票对象：小红"));
}

#[test]
fn bad_files_are_named_and_store_nothing_while_good_files_import() {
    let dir = Dir::new("bad");
    let f = TestForum::start(spec(5)).unwrap();
    let cfg = write_config(&dir, &f.base_url());
    let good = save(
        &f,
        "/forum.php?mod=viewthread&tid=1002",
        &dir.path("good.html"),
    );
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/discuz");
    let cc = fx.join("cc-refresh.html");
    let missing_thread = fx.join("msg-thread-missing.html");
    let truncated = dir.path("truncated.html");
    let full = std::fs::read(&good).unwrap();
    std::fs::write(&truncated, &full[..full.len() * 2 / 3]).unwrap();
    let nowhere = dir.path("never-saved.html");
    let err = import(&cfg, &[&cc, &good, &missing_thread, &truncated, &nowhere]).unwrap_err();
    assert!(err.starts_with("4 of 5 files not imported"), "{err}");
    for bad in [&cc, &missing_thread, &truncated, &nowhere] {
        let name = bad.display().to_string();
        assert!(
            err.lines().any(|l| l.trim_start().starts_with(&name)),
            "no line names {name}:\n{err}"
        );
    }
    assert!(!err.contains("good.html"), "{err}");
    assert_eq!(stored(&dir, &forum_key(&f), 1002).len(), 5);
    let store = Store::open(&dir.path("game.sqlite")).unwrap();
    assert_eq!(store.tids(&forum_key(&f)).unwrap(), vec![1002]);
    assert_eq!(store.fetch_log(&forum_key(&f), 1002).unwrap().len(), 1);
    // --tid that contradicts the page is refused too.
    let c = cfg.display().to_string();
    let g = good.display().to_string();
    let err = bansha(&[
        "import",
        "--config",
        &c,
        "--tid",
        "4242",
        "--saved-at",
        NOW,
        &g,
    ])
    .unwrap_err();
    assert!(err.contains("--tid says 4242"), "{err}");
    let err = bansha(&["import", "--config", &c, "--saved-at", "yesterday", &g]).unwrap_err();
    assert!(err.contains("--saved-at"), "{err}");
}

#[test]
fn captured_real_api_response_imports() {
    let dir = Dir::new("captured");
    let cfg = write_config(&dir, "https://bbs.saraba1st.com/2b/");
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/discuz/captured/s1-viewthread-1.json");
    // The captured thread is not one of the game's: stored only when told to.
    let (c, f) = (cfg.display().to_string(), file.display().to_string());
    let args = [
        "import",
        "--config",
        &c,
        "--saved-at",
        NOW,
        "--not-in-game",
        &f,
    ];
    bansha(&args).unwrap();
    let store = Store::open(&dir.path("game.sqlite")).unwrap();
    let tids = store.tids("bbs.saraba1st.com/2b").unwrap();
    assert_eq!(tids.len(), 1);
    assert_eq!(tids, vec![1814693]);
    let posts = store.posts("bbs.saraba1st.com/2b", tids[0]).unwrap();
    // The response's two posts, as the forum gave them (pid, floor = `number`, author,
    // `authorid`, `dbdateline`), the second with its message text.
    type Row<'a> = (u64, Option<u32>, &'a str, Option<u64>, i64);
    let got: Vec<Row> = posts
        .iter()
        .map(|p| (p.pid, p.floor, p.author.as_str(), p.uid, p.time))
        .collect();
    assert_eq!(
        got,
        vec![
            (42787580, Some(1), "sonic3908", Some(137121), 1551626855),
            (42787586, Some(2), "sonic3908", Some(137121), 1551626899),
        ]
    );
    assert_eq!(
        posts[1].current().text.trim(),
        "for手机用户：闪迪SSD PLUS 120G全新未拆，150 三星DDR3 1600，8G*2，380 单买不包邮，全部打包包邮 有意者短消息或者留言"
    );
    assert!(posts.iter().all(|p| p.revisions.len() == 1 && !p.missing()));
}

/// Regression (issue 16): several `bansha import` processes on one fresh database at once
/// used to break each other's schema migration ("table threads already exists"). Each
/// child's stderr is kept and shown if it fails.
#[test]
fn concurrent_imports_into_one_fresh_database_all_succeed() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/discuz/captured/s1-viewthread-1.json");
    for round in 0..3 {
        let dir = Dir::new(&format!("concurrent-{round}"));
        let cfg = write_config(&dir, "https://bbs.saraba1st.com/2b/");
        let children: Vec<std::process::Child> = (0..6)
            .map(|_| {
                std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
                    .arg("import")
                    .arg("--config")
                    .arg(&cfg)
                    .args(["--saved-at", NOW, "--not-in-game"])
                    .arg(&file)
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {:?}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let store = Store::open(&dir.path("game.sqlite")).unwrap();
        assert_eq!(
            store.schema_version().unwrap(),
            bansha::store::SCHEMA_VERSION
        );
        let posts = store.posts("bbs.saraba1st.com/2b", 1814693).unwrap();
        assert_eq!(posts.len(), 2);
        // Six imports of one page: one revision each, six fetch-log entries.
        assert!(posts.iter().all(|p| p.revisions.len() == 1));
        assert_eq!(
            store
                .fetch_log("bbs.saraba1st.com/2b", 1814693)
                .unwrap()
                .len(),
            6
        );
    }
}
