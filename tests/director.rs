//! Integration tests: director-ready (issue 12), all through the `bansha` binary. Never a
//! wrong answer in silence; setup in minutes; output that pastes and pipes; safe from cron.
//! The live tests serve the demo game (`config/demo-forum.toml`) on 127.0.0.1 and use the
//! demo's game config (`config/sample-game.toml`) pointed at it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bansha_testforum::{ForumSpec, TestForum};

use super::common::{bansha, scratch_dir};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_bansha")
}

struct Live {
    forum: TestForum,
    dir: PathBuf,
    cfg: PathBuf,
}

impl Live {
    fn c(&self) -> &str {
        self.cfg.to_str().unwrap()
    }
    fn db(&self) -> PathBuf {
        self.dir.join("demo.sqlite")
    }
    fn edit_config(&self, f: impl FnOnce(String) -> String) {
        let t = std::fs::read_to_string(&self.cfg).unwrap();
        std::fs::write(&self.cfg, f(t)).unwrap();
    }
}

fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The demo forum on a free loopback port and the demo game's config pointed at it.
fn live(name: &str) -> Live {
    let spec = ForumSpec::load(&Path::new(ROOT).join("config/demo-forum.toml")).unwrap();
    let forum = TestForum::start(spec).unwrap();
    let dir = scratch_dir(&format!("director-{name}"));
    let game = std::fs::read_to_string(Path::new(ROOT).join("config/sample-game.toml"))
        .unwrap()
        .replace("http://127.0.0.1:18080/", &forum.base_url())
        .replace(
            "rules/075-zhifou.toml",
            &format!("{ROOT}/rules/075-zhifou.toml"),
        );
    let cfg = dir.join("game.toml");
    std::fs::write(&cfg, game).unwrap();
    let cookies = dir.join("cookies.txt");
    forum.write_cookies_txt(&cookies, 1).unwrap();
    chmod(&cookies, 0o600);
    Live { forum, dir, cfg }
}

/// [`live`], synced once.
fn synced(name: &str) -> Live {
    let l = live(name);
    let (code, out, err) = bansha(&["sync", "--config", l.c()]);
    assert_eq!(code, 0, "{out}{err}");
    l
}

fn result_line(text: &str) -> &str {
    text.lines()
        .find(|l| l.starts_with("结果："))
        .unwrap_or_else(|| panic!("no result line:\n{text}"))
}

fn last_line(text: &str) -> &str {
    text.trim_end().lines().last().unwrap()
}

// ---------------------------------------------------------------------------------------
// Never a wrong answer in silence
// ---------------------------------------------------------------------------------------

#[test]
fn a_typod_db_is_an_error_and_creates_no_database() {
    let l = synced("typo");
    l.edit_config(|t| t.replace("db = \"demo.sqlite\"", "db = \"dmeo.sqlite\""));
    let c = l.c();
    for args in [
        vec!["tally", "--config", c, "--day", "2"],
        vec!["activity", "--config", c, "--day", "2"],
        vec!["elevator", "--config", c, "--day", "2"],
        vec!["posts", "--config", c],
        vec!["changes", "--config", c, "--since", "2026-03-01 00:00"],
    ] {
        let (code, out, err) = bansha(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("dmeo.sqlite") && err.contains("no such database"),
            "{args:?}: {err}"
        );
        assert!(out.is_empty(), "{args:?}: {out}");
    }
    assert!(!l.dir.join("dmeo.sqlite").exists());
}

#[test]
fn a_day_whose_threads_have_no_stored_pages_names_the_thread_to_sync() {
    let l = synced("nopages");
    l.edit_config(|t| {
        t + "\n[[day]]\nnumber = 3\ndiscussion = [3001]\nvote = 3002\nprocess = 3003\n\
             opens = \"2026-03-06 09:00\"\ncloses = \"2026-03-07 21:00\"\n"
    });
    let (code, _, err) = bansha(&["tally", "--config", l.c(), "--day", "3"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("thread 3002 (投票帖)") && err.contains("bansha sync"),
        "{err}"
    );
    let (code, out, err) = bansha(&["posts", "--config", l.c(), "--day", "3"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("thread 3001") && err.contains("bansha sync"),
        "{err}"
    );
    let (code, _, err) = bansha(&["activity", "--config", l.c(), "--day", "3"]);
    assert_eq!(code, 2, "{err}");
    for t in ["3001", "3002", "3003"] {
        assert!(err.contains(&format!("thread {t}")), "{err}");
    }
    assert!(err.contains("bansha import"), "{err}");
    // Day 2's threads are stored: its reports work.
    let (code, _, err) = bansha(&["activity", "--config", l.c(), "--day", "2"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_tally_at_a_time_before_the_day_opens_says_so() {
    let l = synced("early");
    let (code, out, err) = bansha(&[
        "tally",
        "--config",
        l.c(),
        "--day",
        "2",
        "--at",
        "2026-03-04 08:00",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("day 2 opens at 2026-03-04 09:00"), "{err}");
    assert!(out.is_empty());
}

#[test]
fn a_config_without_players_is_an_error_not_a_tally_of_strangers() {
    let l = synced("noplayers");
    l.edit_config(|t| {
        // Everything from the first [[player]] up to the first [[day]] goes, events too.
        let start = t.find("[[player]]").unwrap();
        let end = t.find("[[day]]").unwrap();
        let head = format!("{}{}", &t[..start], &t[end..]);
        head[..head.find("[[event]]").unwrap()].to_string()
    });
    for cmd in ["tally", "activity", "elevator"] {
        let (code, out, err) = bansha(&[cmd, "--config", l.c(), "--day", "2"]);
        assert_eq!(code, 2, "{cmd}: {out}{err}");
        assert!(err.contains("no [[player]]"), "{cmd}: {err}");
        assert!(!out.contains("不是本局玩家"), "{out}");
    }
}

#[test]
fn an_interim_tally_says_who_leads_and_never_who_is_out_or_elected() {
    let l = synced("interim");
    let c = l.c();
    let tally = |day: &str, at: &str, format: &str| {
        let (code, out, err) = bansha(&[
            "tally", "--config", c, "--day", day, "--at", at, "--format", format,
        ]);
        assert_eq!(code, 0, "{err}");
        out
    };
    // Day 2 (放逐投票) an hour before 关门, and day 1 (the 警长 election).
    for (day, at) in [("2", "2026-03-05 20:00"), ("1", "2026-03-03 20:00")] {
        let text = tally(day, at, "text");
        let line = result_line(&text);
        assert!(line.contains("目前"), "{line}");
        assert!(!line.contains("出局") && !line.contains("当选"), "{line}");
        let bb = tally(day, at, "bbcode");
        let last = last_line(&bb);
        assert!(last.contains("目前"), "{last}");
        assert!(!last.contains("出局") && !last.contains("当选"), "{bb}");
        assert!(bb.contains("未关门") && !bb.contains("投票结果"), "{bb}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&tally("2", "2026-03-05 20:00", "json")).unwrap();
    assert_eq!(json["interim"], true);
    let json: serde_json::Value =
        serde_json::from_str(&tally("2", "2026-03-05 21:30", "json")).unwrap();
    assert_eq!(json["interim"], false);
    // After 关门 the same tally is final and says what happened.
    let text = tally("2", "2026-03-05 21:30", "text");
    let line = result_line(&text);
    assert!(!line.contains("目前"), "{line}");
    assert!(line.contains("出局"), "{line}");
    let bb = tally("2", "2026-03-05 21:30", "bbcode");
    assert!(bb.contains("投票结果") && !bb.contains("目前"), "{bb}");
    let text = tally("1", "2026-03-03 21:30", "text");
    assert!(result_line(&text).contains("当选警长"), "{text}");
}

// ---------------------------------------------------------------------------------------
// Setup in minutes
// ---------------------------------------------------------------------------------------

#[test]
fn init_writes_a_complete_config_with_the_signup_threads_repliers_in_reply_order() {
    let l = live("init");
    let out_cfg = l.dir.join("new-game.toml");
    let (code, out, err) = bansha(&[
        "init",
        "--config",
        out_cfg.to_str().unwrap(),
        "--rules",
        &format!("{ROOT}/rules/075-zhifou.toml"),
        "--base-url",
        &l.forum.base_url(),
        "--cookie-file",
        l.dir.join("cookies.txt").to_str().unwrap(),
        "--signup",
        "1001",
        "--first-day",
        "2026-03-02 09:00",
        "--days",
        "2",
        "--director",
        "[075]导演A",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // The 报名帖's repliers, from the forum's data: every author after floor 1, once, in
    // order of their first reply, with their uid.
    let spec = ForumSpec::load(&Path::new(ROOT).join("config/demo-forum.toml")).unwrap();
    let thread = spec.threads.iter().find(|t| t.tid == 1001).unwrap();
    let mut want: Vec<(String, Option<u64>)> = Vec::new();
    for p in thread.posts.iter().skip(1) {
        if p.author != thread.posts[0].author && !want.iter().any(|w| w.0 == p.author) {
            let uid = spec
                .users
                .iter()
                .find(|u| u.name == p.author)
                .map(|u| u.uid);
            want.push((p.author.clone(), uid));
        }
    }
    assert!(want.len() > 5);
    let cfg = bansha::config::Config::load(&out_cfg).unwrap();
    let got: Vec<(String, Option<u64>)> = cfg
        .players
        .iter()
        .map(|p| (p.name.clone(), p.uid))
        .collect();
    assert_eq!(got, want);
    // The seats are proposed in reply order.
    assert_eq!(cfg.players[0].seat, Some(1));
    // The days, proposed from the rule set ("一般讨论日持续两天"), match the ones the
    // sample game's director announced.
    let sample =
        bansha::config::Config::load(&Path::new(ROOT).join("config/sample-game.toml")).unwrap();
    assert_eq!(cfg.days.len(), 2);
    for (a, b) in cfg.days.iter().zip(&sample.days) {
        assert_eq!((a.number, a.opens, a.closes), (b.number, b.opens, b.closes));
    }
    assert_eq!(cfg.forum.base_url, l.forum.base_url());
    assert_eq!(cfg.game.directors, vec!["[075]导演A".to_string()]);
    // Every event kind is documented in the file.
    let text = std::fs::read_to_string(&out_cfg).unwrap();
    for k in bansha::cli::init::EVENT_KINDS {
        assert!(text.contains(&format!("kind = \"{k}\"")), "{k}");
    }
    // It refuses to overwrite.
    let (code, _, err) = bansha(&[
        "init",
        "--config",
        out_cfg.to_str().unwrap(),
        "--rules",
        &format!("{ROOT}/rules/075-zhifou.toml"),
        "--base-url",
        "http://127.0.0.1:9/",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
}

#[test]
fn init_reads_a_saved_signup_page() {
    let dir = scratch_dir("director-init-saved");
    let out_cfg = dir.join("g.toml");
    let (code, out, err) = bansha(&[
        "init",
        "--config",
        out_cfg.to_str().unwrap(),
        "--rules",
        &format!("{ROOT}/rules/075-zhifou.toml"),
        "--base-url",
        "https://bbs.example.com/",
        "--first-day",
        "2026-03-04 09:00",
        "--signup-page",
        &format!("{ROOT}/tests/fixtures/discuz/thread-5001-p1.html"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let cfg = bansha::config::Config::load(&out_cfg).unwrap();
    // Read by hand from the fixture: floor 1 is 张三's (the opener); 李四 (uid 101) replies
    // first at floor 2; 张三's later floors do not make him a player.
    assert_eq!(cfg.players[0].name, "李四");
    assert_eq!(cfg.players[0].uid, Some(101));
    assert!(cfg.players.iter().all(|p| p.name != "张三"));
    // A Wednesday start: day 2 runs over the weekend and gets a day more.
    assert_eq!(cfg.days.len(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The fenced blocks of one language in a Markdown file, in order.
fn fenced(md: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in md.lines() {
        match &mut cur {
            None if line.trim() == format!("```{lang}") => cur = Some(String::new()),
            Some(_) if line.trim() == "```" => out.push(cur.take().unwrap()),
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    out
}

/// A plain HTTP/1.1 GET against the test forum, as a browser's "save page" gets it.
fn http_get(base: &str, path: &str) -> Vec<u8> {
    use std::io::{Read, Write};
    let host = base.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).unwrap();
    let at = resp.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    assert!(
        resp.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&resp[..at])
    );
    resp[at + 4..].to_vec()
}

#[test]
fn the_setup_docs_example_config_works_copied_verbatim() {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/director-setup.md")).unwrap();
    let blocks = fenced(&doc, "toml");
    let example = &blocks[0];
    let dir = scratch_dir("director-doc");
    let cfg = dir.join("075.toml");
    std::fs::write(&cfg, example).unwrap();
    // The config loads as written (rules/ is found from the project folder, where the doc
    // says to run bansha) and names players, days and threads.
    let loaded = bansha::config::Config::load(&cfg).unwrap();
    assert!(!loaded.players.is_empty(), "the example has no [[player]]");
    assert!(loaded.days.iter().all(|d| d.vote.is_some()));
    // Every report command gets past the config, the rule set and the players, and stops
    // at the database that a first sync would create.
    for cmd in ["tally", "activity", "elevator"] {
        let out = Command::new(bin())
            .args([cmd, "--config", cfg.to_str().unwrap(), "--day", "1"])
            .current_dir(ROOT)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(err.contains("no such database"), "{cmd}: {err}");
    }
    // And it tallies: the doc's 投票帖, served by the test forum, saved as a browser would
    // save it and imported into the verbatim config's database.
    let forum = TestForum::start(
        ForumSpec::parse(
            Path::new("doc-forum.toml"),
            r#"
[site]
human_time = false
[[forum]]
fid = 2
name = "版杀区"
[[user]]
uid = 1
name = "[075]导演A"
[[user]]
uid = 101
name = "傻树"
[[user]]
uid = 102
name = "白色防御者"
[[thread]]
tid = 1814694
fid = 2
subject = "[075] 第一天投票帖"
[[thread.post]]
author = "[075]导演A"
time = "2026-03-04 09:00:00"
message = "投票格式：投票对象：XX 投票理由：XX"
[[thread.post]]
author = "傻树"
time = "2026-03-04 10:00:00"
message = "投票对象：白色防御者\n投票理由：发言奇怪"
[[thread.post]]
author = "白色防御者"
time = "2026-03-04 11:00:00"
message = "投票对象：傻树\n投票理由：票型"
"#,
        )
        .unwrap(),
    )
    .unwrap();
    let page = dir.join("thread-1814694-1-1.html");
    std::fs::write(
        &page,
        http_get(&forum.base_url(), "forum.php?mod=viewthread&tid=1814694"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(bin())
            .args(args)
            .current_dir(ROOT)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let c = cfg.to_str().unwrap();
    let (code, out, err) = run(&[
        "import",
        "--config",
        c,
        "--saved-at",
        "2026-03-05 22:00",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let (code, out, err) = run(&["tally", "--config", c, "--day", "1", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let t: serde_json::Value = serde_json::from_str(&out).unwrap();
    let valid: Vec<(&str, &str)> = t["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["valid"] == true)
        .map(|b| (b["voter"].as_str().unwrap(), b["target"].as_str().unwrap()))
        .collect();
    assert_eq!(
        valid,
        [("傻树", "白色防御者"), ("白色防御者", "傻树")],
        "{out}"
    );
    // The events block of the doc documents every kind and loads appended to the example.
    let events = blocks
        .iter()
        .find(|b| b.contains("kind = \"game-over\""))
        .expect("an example of every [[event]] kind");
    for k in bansha::cli::init::EVENT_KINDS {
        assert!(events.contains(&format!("kind = \"{k}\"")), "{k}");
    }
    std::fs::write(&cfg, format!("{example}\n{events}")).unwrap();
    let loaded = bansha::config::Config::load(&cfg).unwrap();
    assert_eq!(loaded.events.len(), bansha::cli::init::EVENT_KINDS.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_readme_installs_before_it_uses_bansha_and_links_only_to_files_in_the_repo() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let install = readme.find("cargo install --path .").expect("install step");
    let first_use = readme
        .lines()
        .scan(0, |pos, l| {
            let start = *pos;
            *pos += l.len() + 1;
            Some((start, l))
        })
        .find(|(_, l)| l.trim_start().starts_with("bansha "))
        .map(|(p, _)| p)
        .unwrap();
    assert!(install < first_use, "bansha is used before it is installed");
    assert!(
        !readme.contains("CONTRACTS.md"),
        "CONTRACTS.md is not in the repo"
    );
    let mut rest = readme.as_str();
    let mut links = 0;
    while let Some(i) = rest.find("](") {
        let tail = &rest[i + 2..];
        let end = tail.find(')').unwrap();
        let target = &tail[..end];
        if !target.starts_with("http") && !target.starts_with('#') {
            let path = target.split('#').next().unwrap();
            assert!(
                Path::new(ROOT).join(path).exists(),
                "README links to {target}"
            );
            links += 1;
        }
        rest = &tail[end..];
    }
    assert!(links > 0);
    // Every `path.md` the README names in backticks is in the repo too.
    for w in readme.split('`').skip(1).step_by(2) {
        if w.ends_with(".md") && !w.contains(' ') {
            assert!(Path::new(ROOT).join(w).exists(), "README names {w}");
        }
    }
}

#[test]
fn changes_lists_ballots_changes_requests_edits_and_deletions_since_a_time() {
    let l = synced("changes");
    let c = l.c();
    let (code, out, err) = bansha(&["changes", "--config", c, "--since", "2026-01-01 00:00"]);
    assert_eq!(code, 0, "{err}");
    for what in ["新票", "改票", "加速申请"] {
        assert!(out.contains(what), "{what}:\n{out}");
    }
    // Now the forum changes: an edit and a deletion in day 2's 讨论帖, then a sync.
    // On the thread's last page, which every sync reads.
    let all = l.forum.pids(2001);
    let pids = [all[all.len() - 3], all[all.len() - 2]];
    let now = bansha::time::parse_local("2026-03-05 22:10", chrono_tz::Asia::Shanghai).unwrap();
    assert!(l.forum.edit_post(pids[0], "改过的发言", now));
    assert!(l.forum.delete_post(pids[1]));
    let (code, out, err) = bansha(&["sync", "--config", c]);
    assert_eq!(code, 0, "{out}{err}");
    // Since the last call: the edit and the deletion are there.
    let (code, out, err) = bansha(&["changes", "--config", c]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("上次查看"), "{out}");
    assert!(out.contains("编辑") && out.contains("改过的发言"), "{out}");
    assert!(
        out.contains(&format!("pid={}", pids[1])) && (out.contains("删除") || out.contains("不见")),
        "{out}"
    );
    // What the last call already showed is not shown again.
    assert!(!out.contains("新票") && !out.contains("加速申请"), "{out}");
    // Nothing new since: nothing.
    let (code, out, err) = bansha(&["changes", "--config", c]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("变动：0 项"), "{out}");
    let (code, json, err) = bansha(&[
        "changes",
        "--config",
        c,
        "--since",
        "2026-01-01 00:00",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["what"] == "改票")
    );
}

#[test]
fn changes_without_since_the_first_time_says_how_to_ask() {
    let l = synced("changes-first");
    let (code, _, err) = bansha(&["changes", "--config", l.c()]);
    assert_eq!(code, 2);
    assert!(err.contains("--since"), "{err}");
    // It is the director's list, never a 公示.
    let (code, out, err) = bansha(&[
        "changes",
        "--config",
        l.c(),
        "--since",
        "2026-03-05 12:00",
        "--format",
        "bbcode",
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("--format text or json"), "{err}");
}

#[test]
fn the_daemon_writes_the_elevator_at_close_and_stops_when_the_game_is_over() {
    let l = live("gameover");
    l.edit_config(|t| {
        t + "\n[[event]]\nkind = \"game-over\"\nwinner = \"好人阵营\"\nat = \"2026-03-05 21:30\"\n"
    });
    let mut child = Command::new(bin())
        .args(["run", "--config", l.c()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("the daemon kept running after the game was over");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(status.success(), "{err}");
    assert!(err.contains("game over: 好人阵营"), "{err}");
    for day in ["day-1", "day-2"] {
        let d = l.dir.join("reports").join(day);
        for f in ["elevator.bbcode", "elevator.txt", "tally.bbcode", "DONE"] {
            assert!(d.join(f).exists(), "{day}/{f}");
        }
    }
    let el = std::fs::read_to_string(l.dir.join("reports/day-2/elevator.bbcode")).unwrap();
    assert!(el.contains("authorid=101"), "{el}");
}

// ---------------------------------------------------------------------------------------
// Output that pastes and scripts that pipe
// ---------------------------------------------------------------------------------------

/// The display column where `needle` starts in `line`.
fn column(line: &str, needle: &str) -> usize {
    bansha::report::display_width(&line[..line.find(needle).unwrap()])
}

#[test]
fn text_columns_line_up_by_display_width() {
    let l = synced("columns");
    let (code, out, err) = bansha(&[
        "tally",
        "--config",
        l.c(),
        "--day",
        "2",
        "--at",
        "2026-03-05 21:30",
    ]);
    assert_eq!(code, 0, "{err}");
    let valid: Vec<&str> = out
        .lines()
        .skip_while(|x| !x.starts_with("有效票"))
        .skip(1)
        .take_while(|x| !x.is_empty())
        .filter(|x| x.contains(" -> "))
        .collect();
    assert!(valid.len() > 5, "{out}");
    let cols: Vec<usize> = valid.iter().map(|x| column(x, " -> ")).collect();
    assert!(cols.windows(2).all(|w| w[0] == w[1]), "{cols:?}\n{out}");
    let (code, out, err) = bansha(&["activity", "--config", l.c(), "--day", "2"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|x| {
            ["全天在场", "部分在场", "已出局"]
                .iter()
                .any(|p| x.ends_with(p))
        })
        .collect();
    assert!(rows.len() > 10, "{out}");
    let cols: Vec<usize> = rows
        .iter()
        .map(|x| {
            column(
                x,
                if x.contains("已投") {
                    "已投"
                } else {
                    "未投"
                },
            )
        })
        .collect();
    assert!(cols.windows(2).all(|w| w[0] == w[1]), "{cols:?}\n{out}");
    let (_, out, _) = bansha(&["elevator", "--config", l.c(), "--day", "2"]);
    let rows: Vec<&str> = out.lines().filter(|x| x.contains(" 帖 ")).collect();
    let cols: Vec<usize> = rows.iter().map(|x| column(x, " 帖 ")).collect();
    assert!(cols.windows(2).all(|w| w[0] == w[1]), "{cols:?}\n{out}");
}

#[test]
fn public_bbcode_has_no_markdown_stray_separators_or_debug_text() {
    let l = synced("bbcode");
    // A ballot for a name that is no player: it used to be quoted in Markdown backticks.
    let pid = l.forum.add_post(
        2002,
        "傻树",
        "投票对象：路人甲\n投票理由：试试",
        bansha::time::parse_local("2026-03-05 20:30", chrono_tz::Asia::Shanghai).unwrap(),
    );
    let (code, out, err) = bansha(&["sync", "--config", l.c()]);
    assert_eq!(code, 0, "{out}{err}");
    let c = l.c();
    let mut all = String::new();
    for (cmd, day, at) in [
        ("tally", "1", Some("2026-03-03 21:30")),
        ("tally", "2", Some("2026-03-05 21:30")),
        ("tally", "2", Some("2026-03-05 20:45")),
        ("activity", "2", None),
        ("elevator", "2", None),
    ] {
        for format in ["bbcode", "text"] {
            let mut args = vec![cmd, "--config", c, "--day", day, "--format", format];
            if let Some(at) = at {
                args.extend(["--at", at]);
            }
            let (code, out, err) = bansha(&args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert!(!out.contains('`'), "{args:?}:\n{out}");
            assert!(
                !out.contains("Some(") && !out.contains("None"),
                "{args:?}:\n{out}"
            );
            assert!(
                !out.contains(" -\n") && !out.contains("出局 -"),
                "{args:?}:\n{out}"
            );
            all.push_str(&out);
        }
    }
    assert!(
        all.contains("「路人甲」"),
        "the unknown target is quoted in 「」"
    );
    assert!(pid > 0);
}

#[test]
fn output_into_a_closed_pipe_ends_quietly_with_status_0() {
    let l = synced("pipe");
    // Deterministic: the pipe's reading end is closed before bansha writes.
    for args in [
        vec!["posts", "--config", l.c()],
        vec!["tally", "--config", l.c(), "--day", "2"],
        vec![
            "activity",
            "--config",
            l.c(),
            "--day",
            "2",
            "--format",
            "json",
        ],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(bin())
            .args(&args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
    // As a user types it.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' posts --config '{}' | head -1", bin(), l.c()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn default_verbosity_is_warnings_and_the_summary_and_v_adds_clean_info_lines() {
    let l = live("verbosity");
    let (code, out, err) = bansha(&["sync", "--config", l.c()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("synced 6 threads"), "{out}");
    assert!(!err.contains("INFO"), "{err}");
    let l = live("verbosity-v");
    let (code, _, err) = bansha(&["sync", "-v", "--config", l.c()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("INFO") && err.contains("new post"), "{err}");
    assert!(!err.contains("Some("), "{err}");
    // Log times are in the game's timezone (Asia/Shanghai, +08:00).
    let first = err.lines().find(|x| x.contains("INFO")).unwrap();
    assert!(first.contains("+08:00"), "{first}");
}

// ---------------------------------------------------------------------------------------
// Safe to run from cron
// ---------------------------------------------------------------------------------------

#[test]
fn a_second_sync_on_the_same_database_says_who_holds_the_lock_and_a_crash_releases_it() {
    let l = live("lock");
    // A daemon holds the database; it sleeps between polls.
    let mut daemon = Command::new(bin())
        .args(["run", "--config", l.c()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = PathBuf::from(format!("{}.lock", l.db().display()));
    let want = format!("pid {}", daemon.id());
    let end = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&lock).is_ok_and(|s| s.contains(&want)) {
        assert!(Instant::now() < end, "the daemon never took the lock");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, out, err) = bansha(&["sync", "--config", l.c()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(&want) && err.contains("bansha run"), "{err}");
    assert!(err.contains("demo.sqlite"), "{err}");
    // kill -9: the operating system releases the lock with the process.
    daemon.kill().unwrap();
    daemon.wait().unwrap();
    let (code, out, err) = bansha(&["sync", "--config", l.c()]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn an_unreachable_forum_fails_fast_with_one_line_about_base_url() {
    let dir = scratch_dir("director-unreachable");
    // A port nothing listens on: bind one, then let it go.
    let port = {
        let s = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        s.local_addr().unwrap().port()
    };
    let game = std::fs::read_to_string(Path::new(ROOT).join("config/sample-game.toml"))
        .unwrap()
        .replace(
            "http://127.0.0.1:18080/",
            &format!("http://127.0.0.1:{port}/"),
        )
        .replace("cookie_file = \"cookies.txt\"\n", "")
        .replace(
            "rules/075-zhifou.toml",
            &format!("{ROOT}/rules/075-zhifou.toml"),
        );
    let cfg = dir.join("game.toml");
    std::fs::write(&cfg, game).unwrap();
    let (code, out, err) = bansha(&["sync", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("check forum.base_url") && err.contains(&port.to_string()),
        "{err}"
    );
    assert!(!err.contains("retrying"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_database_folder_that_does_not_exist_is_named() {
    let l = live("nofolder");
    l.edit_config(|t| t.replace("db = \"demo.sqlite\"", "db = \"nosuch/demo.sqlite\""));
    let (code, out, err) = bansha(&["sync", "--config", l.c()]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(
        err.contains("nosuch") && err.contains("does not exist"),
        "{err}"
    );
    assert!(!l.dir.join("nosuch").exists());
}

#[test]
fn a_read_only_database_is_named_with_the_problem_and_still_reads() {
    use std::os::unix::process::CommandExt;
    let l = synced("readonly");
    // Everything the unprivileged run needs sits in the game folder (a clone under /root
    // is not readable by other users): the rule set and the binary.
    let rules = l.dir.join("075-zhifou.toml");
    std::fs::copy(format!("{ROOT}/rules/075-zhifou.toml"), &rules).unwrap();
    l.edit_config(|t| {
        t.replace(
            &format!("{ROOT}/rules/075-zhifou.toml"),
            rules.to_str().unwrap(),
        )
    });
    let exe = l.dir.join("bansha");
    if std::fs::hard_link(bin(), &exe).is_err() {
        std::fs::copy(bin(), &exe).unwrap();
    }
    chmod(&exe, 0o755);
    for f in std::fs::read_dir(&l.dir).unwrap() {
        let p = f.unwrap().path();
        if p.is_file() && p != exe {
            chmod(&p, 0o444);
        }
    }
    chmod(&l.dir, 0o555);
    // Root ignores file modes: run bansha as an unprivileged user then.
    let run = |args: &[&str]| {
        let mut cmd = Command::new(&exe);
        cmd.args(args).current_dir(&l.dir);
        if std::fs::File::create(l.dir.join("probe")).is_ok() {
            let _ = std::fs::remove_file(l.dir.join("probe"));
            cmd.uid(65534).gid(65534);
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&["sync", "--config", l.c()]);
    assert_ne!(code, Some(0), "{out}{err}");
    assert!(err.contains("demo.sqlite"), "{err}");
    assert!(
        err.contains("read-only") || err.contains("Permission denied"),
        "{err}"
    );
    // Reports only read: they work on a read-only database.
    let (code, out, err) = run(&["tally", "--config", l.c(), "--day", "2"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("票数"), "{out}");
    chmod(&l.dir, 0o755);
    let _ = std::fs::remove_dir_all(&l.dir);
}

#[test]
fn only_files_holding_secrets_get_the_mode_warning() {
    let l = live("modes");
    chmod(&l.cfg, 0o644);
    let (code, _, err) = bansha(&["sync", "--config", l.c()]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("readable by other users"), "{err}");
    chmod(&l.dir.join("cookies.txt"), 0o644);
    let (code, _, err) = bansha(&["sync", "--config", l.c()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("cookies.txt is readable by other users"),
        "{err}"
    );
    assert!(!err.contains("game.toml"), "{err}");
}

#[test]
fn processes_opening_a_new_database_at_once_never_both_migrate_it() {
    // A cron'd sync and a report started together on a database that does not exist yet:
    // both open it, only one creates the schema, neither fails.
    let dir = scratch_dir("director-migrate-race");
    for round in 0..20 {
        let db = dir.join(format!("r{round}.sqlite"));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let db = db.clone();
                std::thread::spawn(move || bansha::store::Store::open(&db).map(|_| ()))
            })
            .collect();
        for h in handles {
            let r = h.join().unwrap();
            assert!(r.is_ok(), "round {round}: {}", r.unwrap_err());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
