//! `bansha init`: write a complete, commented game config to start from: the forum, the
//! game, every `[[day]]` with times proposed from the rule set, the `[[player]]` entries
//! (from the 报名帖 when one is given: every replier with name and uid, in reply order) and
//! every `[[event]]` kind, documented and commented out.

use std::path::{Path, PathBuf};

use super::*;
use crate::activity::propose_schedule;
use crate::model::ThreadPage;
use crate::rules::RuleSet;

/// Every `[[event]]` kind, as commented TOML. Lines starting `## ` are prose; lines
/// starting `# ` are an example to uncomment. The same list is in
/// `docs/director-setup.md` (a test keeps them in step with [`crate::config::Event`]).
pub const EVENTS_DOC: &str = r#"## ── Events ─────────────────────────────────────────────────────────────────────
## Facts the director records as the game goes: any number of [[event]] tables, in any
## order. Times are in the game's timezone (YYYY-MM-DD HH:MM). Player names must be the
## names of [[player]] entries. Uncomment an example and fill it in when it happens.
##
## out — a player leaves the game (voted out, killed at night, a red card…). From `at` on
## they have no vote and their posts count as 诈尸. `cause` is free text: vote | night | card | …
# [[event]]
# kind = "out"
# player = "傻树"
# at = "2026-03-05 21:10"
# cause = "vote"
##
## revive — a player who was out is back in the game from `at`.
# [[event]]
# kind = "revive"
# player = "傻树"
# at = "2026-03-06 09:00"
##
## sheriff — the player is 警长 from `at` (their ballot weighs what the rule set says).
# [[event]]
# kind = "sheriff"
# player = "白色防御者"
# at = "2026-03-03 21:05"
##
## role — a role that changes how a ballot counts (皇权 sets, 身份 revealed), from `at`.
# [[event]]
# kind = "role"
# player = "白色防御者"
# role = "国王"
# at = "2026-03-04 09:00"
##
## status — a status held from one day to another, inclusive (寡言, 齐心, 迷魂…).
# [[event]]
# kind = "status"
# player = "傻树"
# status = "寡言"
# from_day = 2
# to_day = 2
##
## vote-weight — the director sets a player's ballot weight for one day by hand.
# [[event]]
# kind = "vote-weight"
# day = 2
# player = "白色防御者"
# weight = 2.0
##
## accelerate / delay — the director's ruling on 加速 / 延时 for a day, over the count
## of requests in the 进程帖 (the last one for a day wins). `granted = false` rules the
## day NOT accelerated (delayed), whatever requests were parsed.
# [[event]]
# kind = "accelerate"
# day = 2
# [[event]]
# kind = "delay"
# day = 2
##
## proxy-vote — a 代投 the director records for a player: `target` is a player or "弃权".
# [[event]]
# kind = "proxy-vote"
# day = 2
# voter = "傻树"
# target = "弃权"
# at = "2026-03-05 20:00"
##
## substitute — a 替补 takes over the player's seat and role from `at` (once per role:
## 「每名角色仅限更换一次替补」). `by`: the substitute's own forum account, when they do not
## play on through the player's; its posts from `at` on count for the seat.
# [[event]]
# kind = "substitute"
# player = "傻树"
# at = "2026-03-06 12:00"
# by = "替补小号"
##
## lose — your ruling that a camp is defeated (投降, two 红牌 in one camp…): the night engine
## applies the rule set's camp-lost rules from `at` on (075: the wolves lose 杀人, 寡妇刀).
# [[event]]
# kind = "lose"
# camp = "狼人阵营"
# at = "2026-03-07 21:00"
##
## game-over — the game is over; `winner` as announced (a side or players). Once `at` has
## passed and every closed day has its reports, `bansha run` says so and stops polling.
# [[event]]
# kind = "game-over"
# winner = "好人阵营"
# at = "2026-03-08 21:30"
"#;

/// Every event kind the config accepts (`kind = "…"`), for the documentation tests.
pub const EVENT_KINDS: [&str; 12] = [
    "out",
    "revive",
    "sheriff",
    "role",
    "status",
    "vote-weight",
    "accelerate",
    "delay",
    "proxy-vote",
    "substitute",
    "lose",
    "game-over",
];

/// A replier of the 报名帖, in reply order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signup {
    pub name: String,
    pub uid: Option<u64>,
    pub floor: Option<u32>,
}

pub fn run(a: &InitArgs) -> CliResult {
    if a.output.exists() && !a.force {
        return Err(CliError::Input(format!(
            "{}: already exists; pass --force to overwrite it",
            a.output.display()
        )));
    }
    if !(a.base_url.starts_with("http://") || a.base_url.starts_with("https://")) {
        return Err(CliError::Input(format!(
            "--base-url `{}`: must start with http:// or https://",
            a.base_url
        )));
    }
    if let Some(m) = crate::config::page_url_message(&a.base_url) {
        return Err(CliError::Input(format!("--base-url {m}")));
    }
    let tz: chrono_tz::Tz = a
        .timezone
        .parse()
        .map_err(|_| CliError::Input(format!("--timezone: unknown timezone `{}`", a.timezone)))?;
    let rules = RuleSet::load(&a.rules).map_err(CliError::input)?;
    let out_dir = a
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    if !out_dir.is_dir() {
        return Err(CliError::Input(format!(
            "{}: the folder `{}` does not exist",
            a.output.display(),
            out_dir.display()
        )));
    }
    let first_open = match &a.first_day {
        Some(s) => crate::time::parse_naive(s).ok_or_else(|| {
            CliError::Input(format!(
                "--first-day `{s}` is not a time (want YYYY-MM-DD HH:MM)"
            ))
        })?,
        None => {
            let now = crate::time::Clock::now(&crate::time::SystemClock);
            let today = chrono::DateTime::from_timestamp(now, 0)
                .unwrap_or_default()
                .with_timezone(&tz)
                .date_naive();
            (today + chrono::Days::new(1)).and_time(rules.activity.opens_time())
        }
    };
    let mut base = a.base_url.trim().to_string();
    if !base.ends_with('/') {
        base.push('/');
    }
    let name = a.name.clone().unwrap_or_else(|| rules.meta.name.clone());
    let rules_path = config_relative(&a.rules, &out_dir);
    let head = header(a, &base, &name, &rules_path, tz.name(), &out_dir);
    let (signups, signup_note) = match (a.signup, a.signup_pages.is_empty()) {
        (None, true) => (Vec::new(), None),
        (tid, false) => {
            let pages = read_saved(&a.signup_pages, tid, tz, a.charset())?;
            (repliers(&pages), Some(source_note(tid, &pages)))
        }
        (Some(tid), true) => {
            let pages = fetch_thread(&head, &a.output, tid)?;
            (repliers(&pages), Some(source_note(Some(tid), &pages)))
        }
    };
    let mut text = head;
    text.push_str(&days_block(&rules, first_open, a.days));
    text.push_str(&players_block(&signups, signup_note.as_deref()));
    text.push('\n');
    text.push_str(EVENTS_DOC);
    // What we write must load as it stands.
    crate::config::Config::from_str(&a.output, &text).map_err(|e| {
        CliError::Runtime(format!(
            "bansha init wrote a config it cannot read (a bug): {e}"
        ))
    })?;
    std::fs::write(&a.output, &text)
        .map_err(|e| CliError::Runtime(format!("{}: {e}", a.output.display())))?;
    let mut msg = format!(
        "wrote {}: {} days from {}, {} players",
        a.output.display(),
        a.days,
        first_open.format("%Y-%m-%d %H:%M"),
        signups.len()
    );
    if signups.is_empty() {
        msg.push_str(" (add the [[player]] entries before the first report)");
    }
    msg.push('\n');
    emit(&msg)
}

impl InitArgs {
    fn charset(&self) -> crate::config::Charset {
        match self.charset.as_str() {
            "utf-8" => crate::config::Charset::Utf8,
            "gbk" => crate::config::Charset::Gbk,
            _ => crate::config::Charset::Auto,
        }
    }
}

/// A path (the rule set, the cookie file) as the config should name it: relative to the
/// config's folder when the file is inside it, else absolute (the config resolves paths
/// against its own folder first, wherever bansha is run from).
fn config_relative(path: &Path, out_dir: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(dir) = std::fs::canonicalize(out_dir)
        && let Ok(rel) = abs.strip_prefix(&dir)
    {
        return rel.display().to_string();
    }
    without_verbatim_prefix(&abs.display().to_string()).to_string()
}

/// Windows canonicalizes to verbatim paths (`\\?\C:\…`); a config names `C:\…`, as a
/// director writes it. Other paths (`\\?\UNC\…`, Unix) as they are.
fn without_verbatim_prefix(path: &str) -> &str {
    match path.strip_prefix(r"\\?\") {
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => rest,
        _ => path,
    }
}

fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn header(a: &InitArgs, base: &str, name: &str, rules: &str, tz: &str, out_dir: &Path) -> String {
    let charset = match a.charset() {
        crate::config::Charset::Auto => "auto",
        crate::config::Charset::Utf8 => "utf-8",
        crate::config::Charset::Gbk => "gbk",
    };
    let cookie = match &a.cookie_file {
        Some(p) => format!("cookie_file = {}", q(&config_relative(p, out_dir))),
        None => "# cookie_file = \"secrets/cookies.txt\"".to_string(),
    };
    let stem = a
        .output
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("game");
    format!(
        r#"# The game config for bansha (written by `bansha init`; edit freely).
# Every key is explained; docs/director-setup.md has the whole setup.

[forum]
## Where forum.php lives.
base_url = {base}
## auto | utf-8 | gbk — the forum's charset (auto reads the page's declaration).
charset = "{charset}"
## The director's login: the browser's cookies in Netscape cookies.txt format (keep the
## file private: chmod 600), or username_env/password_env naming two environment variables.
{cookie}
# username_env = "BANSHA_USER"
# password_env = "BANSHA_PASS"
## Keep ≥ 2000: the forum's CC defence trips on requests closer than a second or two.
min_interval_ms = 2000

[game]
name = {name}
## The rule set: one of rules/*.toml.
rules = {rules}
timezone = {tz}
## The SQLite store, relative to this file.
db = {db}
## Posts by these accounts are the director's, never ballots or activity.
directors = [{directors}]

## Optional: how `bansha run` / `bansha sync` poll (defaults shown).
# [daemon]
# poll_interval_secs = 300
# final_hour_interval_secs = 60
# grace_secs = 120
# recheck_pages = 3
# recheck_interval_secs = 1800
# reports_dir = "reports"
# use_api = false

"#,
        base = q(base),
        name = q(name),
        rules = q(rules),
        tz = q(tz),
        db = q(&format!("{stem}.sqlite")),
        directors = a
            .director
            .iter()
            .map(|d| q(d))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

fn days_block(rules: &RuleSet, first_open: chrono::NaiveDateTime, n: u32) -> String {
    let mut s = String::from(
        "## ── Days ───────────────────────────────────────────────────────────────────────
## One [[day]] per discussion day. The times are proposed from the rule set (its day
## length, opening and closing hours, and a day more over a weekend where it says so):
## check them against the director's announcement. Fill in each day's threads as they are
## opened: the tid is the `tid=` number of the thread's address (or the first number of
## thread-TID-1-1.html). discussion = 讨论帖 (a list), vote = 投票帖, process = 进程帖.
",
    );
    for d in propose_schedule(&rules.activity, first_open, n) {
        s.push_str(&format!(
            "\n[[day]]\nnumber = {}\ndiscussion = []\n# vote = 0\n# process = 0\nopens = \"{}\"\ncloses = \"{}\"{}\n",
            d.number,
            d.opens.format("%Y-%m-%d %H:%M"),
            d.closes.format("%Y-%m-%d %H:%M"),
            if d.weekend_extended {
                "   # a day longer: it runs over a weekend"
            } else {
                ""
            }
        ));
    }
    s.push('\n');
    s
}

fn players_block(signups: &[Signup], note: Option<&str>) -> String {
    let mut s = String::from(
        "## ── Players ────────────────────────────────────────────────────────────────────
## One [[player]] per player: the forum name exactly as it shows, the uid (the 电梯楼
## links need it) and the seat. Reports refuse to run without players.
",
    );
    match note {
        Some(n) => s.push_str(&format!(
            "## {n}\n## Every replier is listed in reply order: remove the ones who are not\n## playing and set the seats.\n"
        )),
        None => s.push_str(
            "## No 报名帖 given (bansha init --signup TID lists its repliers here).\n# [[player]]\n# name = \"傻树\"\n# uid = 101\n# seat = 1\n",
        ),
    }
    for (i, p) in signups.iter().enumerate() {
        s.push_str(&format!("\n[[player]]\nname = {}\n", q(&p.name)));
        match p.uid {
            Some(u) => s.push_str(&format!("uid = {u}\n")),
            None => s.push_str("# uid = ?   (the page did not show it)\n"),
        }
        s.push_str(&format!(
            "seat = {}{}\n",
            i + 1,
            p.floor
                .map(|f| format!("   # replied at floor {f}"))
                .unwrap_or_default()
        ));
    }
    s
}

fn source_note(tid: Option<u64>, pages: &[ThreadPage]) -> String {
    let tid = tid.or_else(|| pages.first().map(|p| p.tid)).unwrap_or(0);
    let title = pages.first().map(|p| p.title.as_str()).unwrap_or("");
    format!(
        "From the 报名帖 {tid} {title} ({} page{}).",
        pages.len(),
        if pages.len() == 1 { "" } else { "s" }
    )
}

/// Everyone who replied, first reply first, once each; the thread's author (floor 1, the
/// director who opened sign-up) is left out.
pub fn repliers(pages: &[ThreadPage]) -> Vec<Signup> {
    let mut posts: Vec<_> = pages
        .iter()
        .flat_map(|p| p.posts.iter())
        .filter(|p| p.pid.is_some() && !p.duplicate && !p.deleted)
        .collect();
    posts.sort_by_key(|p| (p.floor.unwrap_or(u32::MAX), p.time, p.pid));
    let opener = posts
        .iter()
        .find(|p| p.floor == Some(1))
        .map(|p| p.author.clone());
    let mut out: Vec<Signup> = Vec::new();
    for p in posts {
        if Some(&p.author) == opener.as_ref() || p.author.trim().is_empty() {
            continue;
        }
        if let Some(s) = out.iter_mut().find(|s| s.name == p.author) {
            if s.uid.is_none() {
                s.uid = p.uid;
            }
            continue;
        }
        out.push(Signup {
            name: p.author.clone(),
            uid: p.uid,
            floor: p.floor,
        });
    }
    out
}

/// Saved pages of the 报名帖 (PC HTML or API JSON), page by page.
fn read_saved(
    files: &[PathBuf],
    tid: Option<u64>,
    tz: chrono_tz::Tz,
    charset: crate::config::Charset,
) -> Result<Vec<ThreadPage>, CliError> {
    let mut pages = Vec::new();
    for f in files {
        let bytes =
            std::fs::read(f).map_err(|e| CliError::Input(format!("{}: {e}", f.display())))?;
        // Relative post times ("3 小时前") are read against the file's modification time.
        let saved = std::fs::metadata(f)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let mut ctx = crate::discuz::ParseContext::new(f.display().to_string(), saved);
        ctx.tz = tz;
        ctx.charset = charset;
        ctx.tid = tid;
        let p =
            crate::discuz::parse_page(&bytes, &ctx).map_err(|e| CliError::Input(e.to_string()))?;
        if let Some(t) = tid
            && p.tid != 0
            && p.tid != t
        {
            return Err(CliError::Input(format!(
                "{}: this is a page of thread {}, not of the 报名帖 {t}",
                f.display(),
                p.tid
            )));
        }
        pages.push(p);
    }
    pages.sort_by_key(|p| p.page);
    Ok(pages)
}

/// Fetch every page of the 报名帖 with the login the config being written names.
fn fetch_thread(head: &str, output: &Path, tid: u64) -> Result<Vec<ThreadPage>, CliError> {
    // The header alone is a valid config: use it for the forum settings and the login.
    let cfg = crate::config::Config::from_str(output, head).map_err(CliError::input)?;
    let (fetcher, _) = crate::fetch::Fetcher::from_config(&cfg).map_err(CliError::input)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::runtime)?;
    rt.block_on(async {
        let mut pages: Vec<ThreadPage> = Vec::new();
        let mut page = 1;
        loop {
            let url = crate::fetch::thread_url(fetcher.base_url(), tid, page);
            let now = crate::time::Clock::now(&crate::time::SystemClock);
            let mut ctx = crate::discuz::ParseContext::new(url.clone(), now);
            ctx.tid = Some(tid);
            ctx.page = Some(page);
            ctx.tz = cfg.tz;
            ctx.charset = cfg.forum.charset;
            let tp = fetcher
                .get_with(&url, |raw| {
                    use crate::fetch::Verdict;
                    match crate::discuz::parse_page(&raw.body, &ctx) {
                        Ok(tp) => Verdict::Ok(tp),
                        Err(e) if e.is_login_problem() => Verdict::Login(e.to_string()),
                        Err(e) if e.is_gone() => Verdict::Gone(e.to_string()),
                        Err(e) if e.is_retryable() => Verdict::Retry(e.to_string()),
                        Err(e) => Verdict::Fatal(e.to_string()),
                    }
                })
                .await
                .map_err(|e| match e {
                    crate::fetch::FetchError::Unreachable { .. } => {
                        CliError::Runtime(e.to_string())
                    }
                    e => CliError::Runtime(format!("the 报名帖 {tid}: {e}")),
                })?;
            let total = tp.total_pages.max(1);
            pages.push(tp);
            if page >= total {
                break;
            }
            page += 1;
        }
        Ok(pages)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Event};

    #[test]
    fn a_windows_verbatim_rules_path_is_written_as_a_director_writes_it() {
        assert_eq!(
            without_verbatim_prefix(r"\\?\C:\Users\导演 甲\bansha\rules\075-zhifou.toml"),
            r"C:\Users\导演 甲\bansha\rules\075-zhifou.toml"
        );
        assert_eq!(
            without_verbatim_prefix(r"\\?\UNC\server\share\r.toml"),
            r"\\?\UNC\server\share\r.toml"
        );
        assert_eq!(
            without_verbatim_prefix("/home/d/rules/r.toml"),
            "/home/d/rules/r.toml"
        );
    }

    /// The kind of an event, by an exhaustive match: a new `Event` variant does not compile
    /// here until it is named, and then the test below wants it documented.
    fn kind(e: &Event) -> &'static str {
        match e {
            Event::Out { .. } => "out",
            Event::Revive { .. } => "revive",
            Event::Sheriff { .. } => "sheriff",
            Event::Role { .. } => "role",
            Event::Status { .. } => "status",
            Event::VoteWeight { .. } => "vote-weight",
            Event::Accelerate { .. } => "accelerate",
            Event::Delay { .. } => "delay",
            Event::ProxyVote { .. } => "proxy-vote",
            Event::Substitute { .. } => "substitute",
            Event::Lose { .. } => "lose",
            Event::GameOver { .. } => "game-over",
            Event::Answer { .. } => "answer",
        }
    }

    #[test]
    fn every_event_kind_is_documented_and_its_example_loads() {
        // Uncomment the examples (`# ` lines), leave the prose (`## ` lines) commented.
        let examples: String = EVENTS_DOC
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .map(|l| format!("{l}\n"))
            .collect();
        let text = format!(
            "[forum]\nbase_url = \"http://127.0.0.1:1/\"\n[game]\nname = \"g\"\nrules = \"r.toml\"\n\
             [[player]]\nname = \"傻树\"\n[[player]]\nname = \"白色防御者\"\n{examples}"
        );
        let cfg = Config::from_str(Path::new("g.toml"), &text).unwrap();
        let kinds: Vec<&str> = cfg.events.iter().map(kind).collect();
        assert_eq!(kinds, EVENT_KINDS);
    }

    #[test]
    fn repliers_are_in_floor_order_once_each_without_the_opener() {
        use crate::model::PagePost;
        let post = |floor: u32, author: &str, uid: u64| PagePost {
            pid: Some(u64::from(floor) + 100),
            floor: Some(floor),
            floor_label: format!("{floor}#"),
            author: author.into(),
            uid: Some(uid),
            time: i64::from(floor),
            edit: None,
            quote: None,
            html: String::new(),
            text: "报名".into(),
            red: String::new(),
            large: String::new(),
            locked: None,
            deleted: false,
            duplicate: false,
        };
        let page = |n: u32, posts: Vec<PagePost>| ThreadPage {
            tid: 9,
            title: "报名".into(),
            page: n,
            total_pages: 2,
            posts,
            author_filtered: false,
            viewer_uid: None,
        };
        // Page 2 read first; the opener replies again at floor 4.
        let pages = [
            page(2, vec![post(21, "丙", 3), post(22, "甲", 1)]),
            page(
                1,
                vec![
                    post(1, "导演", 9),
                    post(2, "甲", 1),
                    post(3, "乙", 2),
                    post(4, "导演", 9),
                ],
            ),
        ];
        let got: Vec<(String, Option<u64>)> = repliers(&pages)
            .into_iter()
            .map(|s| (s.name, s.uid))
            .collect();
        assert_eq!(
            got,
            vec![
                ("甲".to_string(), Some(1)),
                ("乙".to_string(), Some(2)),
                ("丙".to_string(), Some(3))
            ]
        );
    }
}
