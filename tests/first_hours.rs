//! Integration tests: a director's first hours and replaying an archive (issue 26), through
//! the `bansha` binary. The local test forum (`bansha test-forum`) and the docs' steps; one
//! replay clock (`BANSHA_CLOCK_START`) for `state`, the reports, the daemon's 关门 reports,
//! its logs and the game's end.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bansha_testforum::{ForumSpec, TestForum};

use super::common::{bansha, scratch_dir};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_bansha")
}

/// `bansha ARGS` with the replay clock at `clock`: (exit code, stdout, stderr).
fn at_clock(clock: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .env("BANSHA_CLOCK_START", clock)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The sample game (the demo's forum and config) with roles — 狼人 傻树 and 月下独酌,
/// 预言家, 女巫, 猎人, the others 村民 — and both wolves voted out, the second at day 2's
/// 关门: the game ends there with the 村民阵营's win. Synced into a fresh store.
struct Replay {
    _forum: TestForum,
    dir: PathBuf,
    cfg: PathBuf,
}

const ROLES: [&str; 5] = ["狼人", "预言家", "狼人", "女巫", "猎人"];

const WOLVES_OUT: &str = r#"
[[event]]
kind = "out"
player = "傻树"
at = "2026-03-03 21:00"
cause = "vote"

[[event]]
kind = "out"
player = "月下独酌"
at = "2026-03-05 21:00"
cause = "vote"
"#;

impl Replay {
    fn new(name: &str, daemon: &str) -> Replay {
        let spec = ForumSpec::load(&Path::new(ROOT).join("config/demo-forum.toml")).unwrap();
        let forum = TestForum::start(spec).unwrap();
        let dir = scratch_dir(&format!("first-{name}"));
        let sample = std::fs::read_to_string(Path::new(ROOT).join("config/sample-game.toml"))
            .unwrap()
            .replace("http://127.0.0.1:18080/", &forum.base_url())
            .replace("min_interval_ms = 0", "min_interval_ms = 5")
            .replace(
                "rules/075-zhifou.toml",
                &format!("{ROOT}/rules/075-zhifou.toml"),
            );
        let mut text = String::new();
        let mut seat = 0;
        for line in sample.lines() {
            text.push_str(line);
            text.push('\n');
            if line.starts_with("uid = ") {
                text.push_str(&format!(
                    "role = \"{}\"\n",
                    ROLES.get(seat).copied().unwrap_or("村民")
                ));
                seat += 1;
            }
        }
        text.push_str(WOLVES_OUT);
        if !daemon.is_empty() {
            text.push_str(&format!("\n[daemon]\n{daemon}\n"));
        }
        let cfg = dir.join("game.toml");
        std::fs::write(&cfg, text).unwrap();
        let cookies = dir.join("cookies.txt");
        forum.write_cookies_txt(&cookies, 1).unwrap();
        chmod_600(&cookies);
        let r = Replay {
            _forum: forum,
            dir,
            cfg,
        };
        // Synced as of the end of day 2, without reports.
        let (code, out, err) = at_clock("2026-03-05 22:00", &["sync", "--config", r.c()]);
        assert_eq!(code, 0, "{out}{err}");
        r
    }

    fn c(&self) -> &str {
        self.cfg.to_str().unwrap()
    }
}

fn chmod_600(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn player<'a>(state: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    super::common::state_player(state, name)
}

fn state_at(r: &Replay, clock: &str) -> serde_json::Value {
    let (code, out, err) = at_clock(clock, &["state", "--config", r.c(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// A child process this test started, ended (by its own handle) when the test ends,
/// whether it passed or not.
struct Started(std::process::Child);

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for(what: &str, deadline: Duration, log: &Path, mut done: impl FnMut() -> bool) {
    let end = Instant::now() + deadline;
    while !done() {
        assert!(
            Instant::now() < end,
            "{what}: not within {deadline:?}\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ---------------------------------------------------------------------------------------
// One clock for every command
// ---------------------------------------------------------------------------------------

#[test]
fn state_and_tally_under_a_replay_clock_answer_as_of_it_before_and_after_close() {
    let r = Replay::new("replay", "");
    // An hour before day 2's 关门: 月下独酌's out (at 关门) has not happened; the tally leads.
    let before = state_at(&r, "2026-03-05 20:00");
    assert_eq!(player(&before, "月下独酌")["alive"], true, "{before}");
    assert_eq!(player(&before, "傻树")["alive"], false, "{before}");
    assert_eq!(before["game_over"], false, "{before}");
    let (code, tally, err) = at_clock(
        "2026-03-05 20:00",
        &["tally", "--config", r.c(), "--day", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(tally.contains("（关门前的统计，非最终结果）"), "{tally}");
    assert!(!tally.contains("结果：出局"), "{tally}");
    // Half an hour after: out, the game over, the tally final.
    let after = state_at(&r, "2026-03-05 21:30");
    assert_eq!(player(&after, "月下独酌")["alive"], false, "{after}");
    assert_eq!(after["winner"], "村民阵营", "{after}");
    let (code, tally, err) = at_clock(
        "2026-03-05 21:30",
        &["tally", "--config", r.c(), "--day", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(tally.contains("结果：出局 星河"), "{tally}");
    // `--at` says the same as the clock.
    let (code, out, _) = bansha(&[
        "state",
        "--config",
        r.c(),
        "--format",
        "json",
        "--at",
        "2026-03-05 20:00",
    ]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(player(&j, "月下独酌")["alive"], true);
}

#[test]
fn activity_under_a_replay_clock_counts_the_posts_made_by_then() {
    let r = Replay::new("activity", "");
    let posts = |clock: &str| -> u64 {
        let (code, out, err) = at_clock(
            clock,
            &[
                "activity",
                "--config",
                r.c(),
                "--day",
                "2",
                "--format",
                "json",
            ],
        );
        assert_eq!(code, 0, "{err}");
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        j["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["posts"].as_u64().unwrap())
            .sum()
    };
    let (noon, end) = (posts("2026-03-04 12:00"), posts("2026-03-05 22:00"));
    assert!(0 < noon && noon < end, "{noon} {end}");
}

#[test]
fn sync_with_reports_under_a_replay_clock_writes_final_reports_the_result_and_the_settlement() {
    let r = Replay::new("sync-reports", "");
    let reports = r.dir.join("reports");
    let (code, out, err) = at_clock(
        "2026-03-05 21:05",
        &[
            "sync",
            "-v",
            "--config",
            r.c(),
            "--reports",
            reports.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let tally = std::fs::read_to_string(reports.join("day-2/tally.txt")).unwrap();
    assert!(tally.contains("结果：出局 星河"), "{tally}");
    assert!(!tally.contains("目前领先"), "{tally}");
    assert!(reports.join("day-2/DONE").exists());
    assert!(reports.join("day-1/DONE").exists());
    // The log says the result and the next step, at the replayed time.
    assert!(
        err.contains("day 2 closed: 星河 is out (星河、老王 平票（7票）"),
        "{err}"
    );
    assert!(
        err.contains("); next: record it with `bansha tally --config"),
        "{err}"
    );
    assert!(
        err.contains("--day 2 --confirm`, then resolve night 2 with `bansha night"),
        "{err}"
    );
    assert!(err.contains("2026-03-05 21:0"), "{err}");
    // No `game-over` event: the engine's winner ends the game, with its 结算 公示.
    let settlement = std::fs::read_to_string(reports.join("结算.bbcode")).unwrap();
    assert!(
        settlement.contains("[b]村民阵营 胜利，游戏结束[/b]"),
        "{settlement}"
    );
    assert!(settlement.contains("已出局（按出局顺序）"), "{settlement}");
    assert!(
        !settlement.contains("狼人"),
        "roles stay private: {settlement}"
    );
    assert!(
        err.contains("game over: 村民阵营 胜利，游戏结束 (the engine's timeline"),
        "{err}"
    );
}

#[test]
fn run_under_a_replay_clock_writes_the_days_reports_as_of_its_clock_not_its_start() {
    // Started three seconds before day 2's 关门, one second of grace: the reports are
    // written as of 21:00:01 by the daemon's clock, after the start value.
    let r = Replay::new("run-clock", "grace_secs = 1\nfinal_hour_interval_secs = 1");
    let log = r.dir.join("run.log");
    let mut child = Started(
        Command::new(bin())
            .env("BANSHA_CLOCK_START", "2026-03-05 20:59:57")
            .args(["run", "-v", "--config", r.c()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    let done = r.dir.join("reports/day-2/DONE");
    wait_for("day 2's reports", Duration::from_secs(60), &log, || {
        done.exists()
    });
    let stopped = Instant::now() + Duration::from_secs(60);
    // The game ends at that 关门 (the engine's winner): the daemon stops by itself.
    let status = loop {
        if let Some(st) = child.0.try_wait().unwrap() {
            break st;
        }
        if Instant::now() > stopped {
            panic!(
                "the daemon did not stop at the game's end:\n{}",
                std::fs::read_to_string(&log).unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{text}");
    let tally = std::fs::read_to_string(r.dir.join("reports/day-2/tally.txt")).unwrap();
    assert!(tally.contains("结果：出局 星河"), "{tally}\n{text}");
    assert!(text.contains("day 2 closed: 星河 is out"), "{text}");
    assert!(r.dir.join("reports/结算.bbcode").exists(), "{text}");
}

// ---------------------------------------------------------------------------------------
// A forum to try on, from the printed steps
// ---------------------------------------------------------------------------------------

/// `bansha test-forum` until the guide's last step is printed: (child, the guide).
fn start_test_forum(dir: &Path) -> (Started, Vec<String>) {
    let mut child = Command::new(bin())
        .args(["test-forum", "--port", "0", "--dir"])
        .arg(dir.join("forum"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    let stdout = child.stdout.take().unwrap();
    let child = Started(child);
    let out = std::io::BufReader::new(stdout);
    for line in out.lines() {
        let line = line.unwrap();
        let last = line.starts_with("5. ");
        lines.push(line);
        if last {
            break;
        }
    }
    (child, lines)
}

#[test]
fn a_new_director_runs_init_sync_and_tally_against_the_test_forum_from_its_guide() {
    let dir = scratch_dir("first-test-forum");
    let (_forum, guide) = start_test_forum(&dir);
    let text = guide.join("\n");
    let step = |n: &str| {
        guide
            .iter()
            .find(|l| l.starts_with(n))
            .unwrap_or_else(|| panic!("no step {n}:\n{text}"))
            .trim_start_matches(n)
            .replacen("bansha ", &format!("'{}' ", bin()), 1)
    };
    let sh = |cmd: &str| {
        let out = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .current_dir(&dir)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert!(text.contains("报名帖：tid 1000"), "{text}");
    // 1. init reads the 报名帖: every player, the director left out.
    let (code, out, err) = sh(&step("1. "));
    assert_eq!(code, 0, "{text}\n{out}{err}");
    assert!(out.contains("18 players"), "{out}");
    // 2. The threads and times as the guide lists them (and a short politeness gap).
    let cfg = dir.join("forum/075.toml");
    let mut config = std::fs::read_to_string(&cfg).unwrap();
    for line in guide.iter().filter(|l| l.starts_with('第')) {
        let day: String = line
            .trim_start_matches('第')
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let nums: Vec<&str> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| s.len() == 4)
            .collect();
        config = config.replace(
            &format!("number = {day}\ndiscussion = []\n# vote = 0\n# process = 0\n"),
            &format!(
                "number = {day}\ndiscussion = [{}]\nvote = {}\nprocess = {}\n",
                nums[0], nums[1], nums[2]
            ),
        );
    }
    config = config.replace("min_interval_ms = 2000", "min_interval_ms = 5");
    std::fs::write(&cfg, config).unwrap();
    // 3. sync shows each thread as it reads it.
    let (code, out, err) = sh(&step("3. "));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("synced 6 threads"), "{out}");
    assert!(err.contains("读取 1/6：第1天 讨论帖 1001…"), "{err}");
    assert!(err.contains("读取 6/6：第2天 进程帖 2003…"), "{err}");
    // 4. The tally of the last day.
    let (code, out, err) = sh(&step("4. "));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("结果：出局 星河"), "{out}");
}

// ---------------------------------------------------------------------------------------
// First hours: messages that say what to do
// ---------------------------------------------------------------------------------------

#[test]
fn sync_without_its_rule_file_refuses_naming_the_key_and_where_it_looked() {
    let dir = scratch_dir("first-no-rules");
    let cfg = dir.join("g.toml");
    std::fs::write(
        &cfg,
        "[forum]\nbase_url = \"http://127.0.0.1:9/\"\n[game]\nname = \"g\"\nrules = \"rules/075.toml\"\n[[player]]\nname = \"甲\"\n",
    )
    .unwrap();
    for cmd in ["sync", "run"] {
        let (code, _, err) = bansha(&[cmd, "--config", cfg.to_str().unwrap()]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("g.toml:game.rules: 找不到规则文件 `rules/075.toml`"),
            "{err}"
        );
        assert!(
            err.contains(&dir.join("rules/075.toml").display().to_string()),
            "{err}"
        );
    }
}

#[test]
fn init_refuses_a_thread_address_as_base_url_saying_what_to_give() {
    let dir = scratch_dir("first-init-url");
    let out = dir.join("g.toml");
    let (code, _, err) = bansha(&[
        "init",
        "--config",
        out.to_str().unwrap(),
        "--rules",
        &format!("{ROOT}/rules/075-zhifou.toml"),
        "--base-url",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=1814690&extra=page%3D1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("是帖子 1814690 的地址，不是论坛的地址")
            && err.contains("`https://bbs.example.com/`")
            && err.contains("--signup"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn an_unknown_player_in_an_actions_file_gets_the_closest_names() {
    let g = super::common::NightGame::new(
        "first-near",
        "075-zhifou.toml",
        "[075]测试局",
        super::common::SEATS_075,
        100,
        "",
    );
    let n0 = "[[action]]\nactor = \"丘比\"\nskill = \"丘比特之箭\"\ntargets = [\"民1\", \"民22\"]\n\
              [[action]]\nactor = \"混血\"\nskill = \"认 亲\"\ntargets = [\"狼1\"]\n";
    let (code, _, err) = g.night(0, n0, "text");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("目标 民22 不是本局玩家；最接近的玩家：民2"),
        "{err}"
    );
    assert!(
        err.contains("规则中没有技能<认 亲>；最接近的技能：认亲"),
        "{err}"
    );
}

#[test]
fn changes_are_listed_in_post_time_order() {
    let r = Replay::new("changes", "");
    let (code, out, err) = at_clock(
        "2026-03-05 22:00",
        &[
            "changes",
            "--config",
            r.c(),
            "--since",
            "2026-03-01 00:00",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let posted: Vec<&str> = j["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["posted"].as_str().unwrap())
        .collect();
    assert!(posted.len() > 10, "{out}");
    let mut sorted = posted.clone();
    sorted.sort();
    assert_eq!(posted, sorted);
    // Everything was seen in one sync: first-seen order would be thread by thread.
    assert!(
        posted.first().unwrap().starts_with("2026-03-02"),
        "{posted:?}"
    );
}

#[test]
fn the_state_table_is_aligned_by_display_width() {
    let r = Replay::new("state-table", "");
    let (code, out, err) = at_clock("2026-03-05 22:00", &["state", "--config", r.c()]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("座位"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 19, "{out}");
    // The 身份 column starts at the same display column on every row.
    let col = |row: &str, cell: &str| {
        let at = row.find(cell).unwrap_or_else(|| panic!("{cell} in {row}"));
        unicode_width::UnicodeWidthStr::width(&row[..at])
    };
    let header = col(rows[0], "身份");
    for (row, role) in rows[1..]
        .iter()
        .zip(ROLES.iter().chain(["村民"; 13].iter()))
    {
        assert_eq!(col(row, role), header, "{out}");
    }
}

#[test]
fn a_json_cookie_export_is_read_and_an_expired_login_is_warned_before_sending() {
    let r = Replay::new("cookies-json", "");
    // The same login as a Cookie-Editor export, its auth cookie expired in 2001.
    let txt = std::fs::read_to_string(r.dir.join("cookies.txt")).unwrap();
    let cookies: Vec<serde_json::Value> = txt
        .lines()
        .map(|l| l.trim_start_matches("#HttpOnly_"))
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let expires = if f[5].ends_with("auth") {
                1_000_000_000
            } else {
                4_000_000_000u64
            };
            serde_json::json!({"domain": f[0], "path": f[2], "name": f[5], "value": f[6],
                               "expirationDate": expires, "httpOnly": true})
        })
        .collect();
    assert!(cookies.len() >= 2, "{txt}");
    let json = r.dir.join("cookies.json");
    std::fs::write(&json, serde_json::to_string(&cookies).unwrap()).unwrap();
    chmod_600(&json);
    let cfg = std::fs::read_to_string(&r.cfg).unwrap().replace(
        "cookie_file = \"cookies.txt\"",
        "cookie_file = \"cookies.json\"",
    );
    std::fs::write(&r.cfg, cfg).unwrap();
    let (code, out, err) = at_clock("2026-03-05 22:00", &["sync", "--config", r.c()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("cookies.json: cookie `B7Y9_2132_auth` expired at 2001-09-09"),
        "{err}"
    );
    let warned = err.find("expired at").unwrap();
    let first_read = err.find("读取 1/").unwrap();
    assert!(
        warned < first_read,
        "warned before the first request: {err}"
    );
}
