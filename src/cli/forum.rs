//! `bansha test-forum`: the project's test forum, serving the sample game (the demo's two
//! days) and a 报名帖 on 127.0.0.1 until stopped, so a new director can try `init`, `sync`
//! and `run` from the docs alone. It writes the director's cookies and the rule set into a
//! folder and prints the base URL and what to run next.

use std::path::{Path, PathBuf};

use super::*;
use crate::config::Config;
use bansha_testforum::{ForumSpec, PostSpec, TestForum, ThreadSpec};

/// The 报名帖's thread id (the sample game's threads are 1001… and 2001…).
pub(super) const SIGNUP_TID: u64 = 1000;
/// The director's account on the demo forum.
const DIRECTOR_UID: u64 = 1;

pub fn run(a: &TestForumArgs) -> CliResult {
    let Started {
        forum: _serving,
        guide,
    } = start(&a.dir, a.port)?;
    emit(&guide)?;
    // Until stopped (Ctrl-C, SIGTERM): the forum answers on its own threads meanwhile.
    loop {
        std::thread::park();
    }
}

/// A running test forum and what to tell the director about it.
pub(super) struct Started {
    pub forum: TestForum,
    /// The base URL, the threads, the files written and the next commands.
    pub guide: String,
}

/// Write the director's files into `dir` and start the forum on `127.0.0.1:port`.
pub(super) fn start(dir: &Path, port: u16) -> Result<Started, CliError> {
    let game = sample_game()?;
    let mut spec = ForumSpec::parse(Path::new("config/demo-forum.toml"), super::demo::FORUM)
        .map_err(CliError::runtime)?;
    let director = spec
        .users
        .iter()
        .find(|u| u.uid == DIRECTOR_UID)
        .map(|u| u.name.clone())
        .ok_or_else(|| CliError::Runtime("the demo forum has no director account".into()))?;
    spec.threads
        .insert(0, signup_thread(&spec, &game, &director));
    let rules = dir.join("rules").join("075-zhifou.toml");
    std::fs::create_dir_all(dir.join("rules"))
        .map_err(|e| CliError::runtime(format!("{}: {e}", dir.display())))?;
    std::fs::write(&rules, super::demo::RULES)
        .map_err(|e| CliError::runtime(format!("{}: {e}", rules.display())))?;
    let forum = TestForum::start_on(spec, port).map_err(|e| {
        CliError::Runtime(format!(
            "the test forum cannot listen on 127.0.0.1:{port}: {e} (another one running? give --port 0 for any free port)"
        ))
    })?;
    let cookies = dir.join("cookies.txt");
    forum
        .write_cookies_txt(&cookies, DIRECTOR_UID)
        .map_err(|e| CliError::runtime(format!("{}: {e}", cookies.display())))?;
    super::demo::private(&cookies);
    let guide = guide(&forum.base_url(), dir, &rules, &cookies, &game, &director);
    Ok(Started { forum, guide })
}

/// The sample game's config (its days and threads), as the demo uses it.
fn sample_game() -> Result<Config, CliError> {
    Config::from_str(Path::new("config/sample-game.toml"), super::demo::GAME)
        .map_err(CliError::runtime)
}

/// The 报名帖: the director opens it a day before day 1; every player of the sample game
/// replies 报名, in seat order, a minute apart.
fn signup_thread(spec: &ForumSpec, game: &Config, director: &str) -> ThreadSpec {
    let first_open = game
        .days
        .iter()
        .filter_map(|d| d.opens)
        .min()
        .map(|t| t.0)
        .unwrap_or_default();
    let at = |minutes: i64| {
        (first_open - chrono::Duration::days(1) + chrono::Duration::minutes(minutes))
            .format("%Y-%m-%d %H:%M")
            .to_string()
    };
    let mut players: Vec<_> = game.players.iter().collect();
    players.sort_by_key(|p| p.seat);
    let mut posts = vec![PostSpec::new(
        director,
        &at(0),
        &format!(
            "{} 报名帖\n回复本帖报名，满{}人开局。",
            game.game.name,
            players.len()
        ),
    )];
    for (i, p) in (1..).zip(&players) {
        if spec.users.iter().any(|u| u.name == p.name) {
            posts.push(PostSpec::new(&p.name, &at(i), "报名"));
        }
    }
    ThreadSpec {
        tid: SIGNUP_TID,
        fid: spec.forums.first().map_or(2, |f| f.fid),
        subject: format!("{} 报名帖", game.game.name),
        posts,
    }
}

/// What the director reads: where the forum is, its threads, the files, the next steps.
fn guide(
    base: &str,
    dir: &Path,
    rules: &Path,
    cookies: &Path,
    game: &Config,
    director: &str,
) -> String {
    let config: PathBuf = dir.join("075.toml");
    let first = game.days.iter().filter_map(|d| d.opens).min();
    let mut s = format!(
        "测试论坛已启动：{base} （Ctrl-C 停止）\n\
         报名帖：tid {SIGNUP_TID}（导演 {director}）\n"
    );
    for d in &game.days {
        let tid = |t: Option<u64>| t.map(|t| t.to_string()).unwrap_or_else(|| "—".into());
        let when = |t: Option<crate::config::LocalTime>| {
            t.map(|t| t.0.format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_default()
        };
        s.push_str(&format!(
            "第{}天：讨论帖 {}，投票帖 {}，进程帖 {}（{} 至 {}）\n",
            d.number,
            d.discussion
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("、"),
            tid(d.vote),
            tid(d.process),
            when(d.opens),
            when(d.closes)
        ));
    }
    s.push_str(&format!(
        "导演的登录 cookies：{}\n规则：{}\n\n",
        cookies.display(),
        rules.display()
    ));
    let first = first
        .map(|t| t.0.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default();
    s.push_str(&format!(
        "Next, in another terminal (docs/director-setup.md, \"Your first hours\"):\n\
         1. bansha init --config {c} --rules {r} --base-url {base} --cookie-file {k} --signup {SIGNUP_TID} --first-day \"{first}\" --days {n} --director \"{director}\"\n\
         2. In {c}, fill in each [[day]]'s threads and times as listed above.\n\
         3. bansha sync --config {c}\n\
         4. bansha tally --config {c} --day {n}\n\
         5. bansha run --config {c} -v\n",
        c = config.display(),
        r = rules.display(),
        k = cookies.display(),
        n = game.days.len(),
    ));
    s
}
