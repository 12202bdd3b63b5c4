//! The game config (`--config GAME.toml`), as fixed by `docs/interfaces.md`.
//! Unknown keys are rejected; every problem is reported as `file:key: message`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;
use chrono_tz::Tz;
use serde::{Deserialize, Deserializer};

use crate::model::Timestamp;
use crate::time;
use crate::tomlfile::{FileError, FileErrors, load_toml};

/// A local wall-clock time in the game's timezone, as written in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalTime(pub NaiveDateTime);

impl<'de> Deserialize<'de> for LocalTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        time::parse_naive(&s).map(LocalTime).ok_or_else(|| {
            serde::de::Error::custom(format!("`{s}` is not a time (want YYYY-MM-DD HH:MM[:SS])"))
        })
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub forum: Forum,
    pub game: Game,
    #[serde(default, rename = "player")]
    pub players: Vec<Player>,
    #[serde(default, rename = "day")]
    pub days: Vec<Day>,
    #[serde(default, rename = "event")]
    pub events: Vec<Event>,
    /// `[daemon]`: how `bansha run`/`sync` poll (optional; every key has a default).
    #[serde(default)]
    pub daemon: Daemon,
    /// `[serve]`: the web page of `bansha serve` (optional).
    #[serde(default)]
    pub serve: Serve,
    /// Set by [`Config::load`]: the file this came from.
    #[serde(skip)]
    pub path: PathBuf,
    /// Set by [`Config::load`]: the parsed timezone.
    #[serde(skip, default = "default_tz_value")]
    pub tz: Tz,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
pub enum Charset {
    #[default]
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "gbk")]
    Gbk,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Forum {
    pub base_url: String,
    #[serde(default)]
    pub charset: Charset,
    pub cookie_file: Option<PathBuf>,
    pub username_env: Option<String>,
    pub password_env: Option<String>,
    #[serde(default = "default_min_interval")]
    pub min_interval_ms: u64,
}

fn default_min_interval() -> u64 {
    2000
}

/// `[daemon]`: polling and fault handling for `bansha run` / `bansha sync`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Daemon {
    /// Seconds between polls of the active threads.
    pub poll_interval_secs: u64,
    /// Seconds between polls in the last hour before 关门.
    pub final_hour_interval_secs: u64,
    /// Seconds after 关门 before the final re-read and the day's reports (late pages).
    pub grace_secs: u64,
    /// How many recent pages a re-read covers (edits and deletions).
    pub recheck_pages: u32,
    /// Seconds between re-reads of recent pages.
    pub recheck_interval_secs: u64,
    /// Per-request timeout.
    pub request_timeout_ms: u64,
    /// Retries per request after the first attempt (timeouts, 5xx, CC and anti-scrape pages).
    pub retries: u32,
    /// First retry delay; doubles each retry, with jitter.
    pub backoff_ms: u64,
    /// Where the day's final reports go (default: `reports/` next to the config).
    pub reports_dir: Option<PathBuf>,
    /// Read threads through the mobile API (`api/mobile/index.php`) instead of PC pages.
    pub use_api: bool,
    /// Posts per page asked of the mobile API for bulk reads (backfill, re-reads, the final
    /// re-read at 关门); a site that caps it answers less and is paged at its cap. 0: never
    /// use the API for bulk reads (PC pages only, unless `use_api`).
    pub api_ppp: u32,
    /// The forum's PC posts per page (stock 10), to find the PC page of a post; corrected
    /// from the pager when the forum disagrees.
    pub pc_ppp: u32,
    /// After an API read, read the PC page of each post whose API text is styled (colour,
    /// bold), so its font size is judged. false: only the newest PC page (and edited
    /// posts' pages); older unstyled-looking and styled posts alike keep size unknown.
    pub styled_pc_pages: bool,
    /// Optional thread discovery: the board to list (`module=forumdisplay`).
    pub fid: Option<u64>,
    /// Optional thread discovery: a regex the day threads' titles match; the capture
    /// group `day` (or the first group) is the day number.
    pub title_pattern: Option<String>,
}

impl Default for Daemon {
    fn default() -> Self {
        Daemon {
            poll_interval_secs: 300,
            final_hour_interval_secs: 60,
            grace_secs: 120,
            recheck_pages: 3,
            recheck_interval_secs: 1800,
            request_timeout_ms: 30_000,
            retries: 4,
            backoff_ms: 2_000,
            reports_dir: None,
            use_api: false,
            api_ppp: 1000,
            pc_ppp: 10,
            styled_pc_pages: true,
            fid: None,
            title_pattern: None,
        }
    }
}

/// `[serve]`: `bansha serve`. Tokens may instead come from the environment
/// (`BANSHA_DIRECTOR_TOKEN`, `BANSHA_MODERATOR_TOKEN`), which overrides the file.
#[derive(Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Serve {
    /// Where to listen (default `127.0.0.1:8075`); `--listen` overrides.
    pub listen: Option<String>,
    /// The director's token: everything, roles and night feedback included.
    pub director_token: Option<String>,
    /// The moderators' token: flags, the card ledger and the public views.
    pub moderator_token: Option<String>,
    /// Seconds between the page's checks for new data (default 3).
    pub poll_secs: Option<u64>,
    /// The names the page is reached by besides loopback (`bansha.example.org`, a TLS
    /// proxy's name): any other `Host` or `Origin` is refused (DNS rebinding).
    pub hosts: Vec<String>,
    /// Behind a TLS proxy: the session cookie is `__Host-` prefixed and `Secure`.
    pub tls: bool,
    /// Hours a sign-in lasts (default 12).
    pub session_hours: Option<u64>,
    /// Seconds a connection may stay silent before it is closed (default 20).
    pub idle_secs: Option<u64>,
}

/// Tokens are never printed, not even in debug output.
impl std::fmt::Debug for Serve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = |t: &Option<String>| if t.is_some() { "(set)" } else { "(unset)" };
        f.debug_struct("Serve")
            .field("listen", &self.listen)
            .field("director_token", &set(&self.director_token))
            .field("moderator_token", &set(&self.moderator_token))
            .field("poll_secs", &self.poll_secs)
            .field("hosts", &self.hosts)
            .field("tls", &self.tls)
            .field("session_hours", &self.session_hours)
            .field("idle_secs", &self.idle_secs)
            .finish()
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Game {
    pub name: String,
    pub rules: PathBuf,
    #[serde(default = "default_tz")]
    pub timezone: String,
    pub db: Option<PathBuf>,
    #[serde(default)]
    pub directors: Vec<String>,
}

fn default_tz() -> String {
    "Asia/Shanghai".into()
}

fn default_tz_value() -> Tz {
    chrono_tz::Asia::Shanghai
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    pub name: String,
    pub uid: Option<u64>,
    pub seat: Option<u32>,
    pub role: Option<String>,
    /// Other names this account has posted under (a rename mid-game): authors are matched by
    /// uid first, then by name or alias.
    #[serde(default)]
    pub aliases: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Day {
    pub number: u32,
    #[serde(default)]
    pub discussion: Vec<u64>,
    pub vote: Option<u64>,
    pub process: Option<u64>,
    pub opens: Option<LocalTime>,
    pub closes: Option<LocalTime>,
    /// When ballots stop, where voting outlasts the discussion (排球少年: 「20：30关门投票
    /// 21：00投票结束」); default: `closes`.
    #[serde(default)]
    pub vote_closes: Option<LocalTime>,
}

fn granted_by_default() -> bool {
    true
}

/// Facts the director records (`[[event]]`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Event {
    Out {
        player: String,
        at: LocalTime,
        cause: String,
    },
    Revive {
        player: String,
        at: LocalTime,
    },
    Sheriff {
        player: String,
        at: LocalTime,
    },
    Role {
        player: String,
        role: String,
        at: LocalTime,
    },
    Status {
        player: String,
        status: String,
        from_day: u32,
        to_day: u32,
    },
    VoteWeight {
        day: u32,
        player: String,
        weight: f64,
    },
    /// `at`: when it takes effect (default: the day's `opens`). `granted = false`: the
    /// director's ruling that the day is NOT accelerated, whatever requests were parsed (a
    /// question read as a request, a request the director voids).
    Accelerate {
        day: u32,
        #[serde(default)]
        at: Option<LocalTime>,
        #[serde(default = "granted_by_default")]
        granted: bool,
    },
    /// `granted = false`: the day is not delayed, whatever requests were parsed.
    Delay {
        day: u32,
        #[serde(default)]
        at: Option<LocalTime>,
        #[serde(default = "granted_by_default")]
        granted: bool,
    },
    ProxyVote {
        day: u32,
        voter: String,
        target: String,
        at: LocalTime,
    },
    /// The director rules a camp defeated (投降, 红牌 判负): the engine applies the rule
    /// set's camp-lost rules (075: the wolves lose 杀人, 寡妇刀).
    Lose {
        camp: String,
        at: LocalTime,
    },
    /// The game is over: `winner` as the director announces it (a side, or players). From
    /// `at` on the daemon stops polling and says so. (The night engine will record this
    /// itself; until then the director writes it.)
    GameOver {
        winner: String,
        at: LocalTime,
    },
    /// A 替补 takes over the player's seat and role from `at` (「替补玩家将收到该玩家的角色、
    /// 身份、行动及账号、密码，代替该玩家继续游戏」). `by`: the substitute's own forum account,
    /// when the seat is not played on through the player's; its posts from `at` on count for
    /// the seat. 「每名角色仅限更换一次替补」: a second one for the same player is refused.
    Substitute {
        player: String,
        at: LocalTime,
        #[serde(default)]
        by: Option<String>,
    },
    /// The director's answer to a prompt a red card raised (the 殉职 of a 警长 who follows
    /// the red-carded player by 殉情): `card` is the ledger card's id (for a red merged from
    /// 3 黄, the third 黄's), `actor`/`skill`/`targets`/`choice` as in an actions file.
    Answer {
        card: i64,
        actor: String,
        skill: String,
        #[serde(default)]
        targets: Vec<String>,
        #[serde(default)]
        choice: Option<String>,
    },
}

impl Event {
    /// Player names this event refers to (for validation).
    fn players(&self) -> Vec<&str> {
        match self {
            Event::Out { player, .. }
            | Event::Substitute { player, .. }
            | Event::Revive { player, .. }
            | Event::Sheriff { player, .. }
            | Event::Role { player, .. }
            | Event::Status { player, .. }
            | Event::VoteWeight { player, .. } => vec![player],
            Event::ProxyVote { voter, target, .. } if target == "弃权" => vec![voter],
            Event::ProxyVote { voter, target, .. } => vec![voter, target],
            Event::Answer { actor, targets, .. } => {
                let mut v = vec![actor.as_str()];
                v.extend(targets.iter().map(String::as_str));
                v
            }
            Event::Accelerate { .. }
            | Event::Delay { .. }
            | Event::Lose { .. }
            | Event::GameOver { .. } => vec![],
        }
    }
}

impl Config {
    /// Load and validate a game config. All problems are reported, each as `file:key: msg`.
    pub fn load(path: &Path) -> Result<Config, FileErrors> {
        let mut cfg: Config =
            load_toml(path).map_err(|e| FileErrors(vec![FileError::counted(e)]))?;
        cfg.path = path.to_path_buf();
        cfg.validate()?;
        Ok(cfg)
    }

    /// Parse from a string (tests, the demo); `path` names the source in errors.
    pub fn from_str(path: &Path, text: &str) -> Result<Config, FileErrors> {
        let mut cfg: Config = crate::tomlfile::parse_toml(path, text)
            .map_err(|e| FileErrors(vec![FileError::counted(e)]))?;
        cfg.path = path.to_path_buf();
        cfg.validate()?;
        Ok(cfg)
    }

    fn validate(&mut self) -> Result<(), FileErrors> {
        let p = self.path.clone();
        let mut errs = Vec::new();
        let mut err = |key: String, msg: String| errs.push(FileError::new(&p, key, msg));
        match self.game.timezone.parse::<Tz>() {
            Ok(tz) => self.tz = tz,
            Err(_) => err(
                "game.timezone".into(),
                format!("未知的时区 `{}`（例：Asia/Shanghai）", self.game.timezone),
            ),
        }
        if !(self.forum.base_url.starts_with("http://")
            || self.forum.base_url.starts_with("https://"))
        {
            err(
                "forum.base_url".into(),
                "须以 http:// 或 https:// 开头".into(),
            );
        }
        if let Some(m) = page_url_message(&self.forum.base_url) {
            err("forum.base_url".into(), m);
        }
        if self.forum.username_env.is_some() != self.forum.password_env.is_some() {
            err(
                "forum".into(),
                "username_env 与 password_env 须同时填写".into(),
            );
        }
        if let Some(p) = &self.daemon.title_pattern
            && let Err(e) = regex::Regex::new(p)
        {
            err(
                "daemon.title_pattern".into(),
                format!("正则表达式有误：{e}"),
            );
        }
        if self.daemon.title_pattern.is_some() != self.daemon.fid.is_some() {
            err(
                "daemon".into(),
                "fid 与 title_pattern 须同时填写（自动发现新的帖子）".into(),
            );
        }
        if self.daemon.pc_ppp == 0 {
            err("daemon.pc_ppp".into(), "论坛每页至少显示 1 帖".into());
        }
        if self.daemon.poll_interval_secs == 0 || self.daemon.final_hour_interval_secs == 0 {
            err(
                "daemon.poll_interval_secs".into(),
                "轮询间隔至少 1 秒".into(),
            );
        }
        for (key, t) in [
            ("serve.director_token", &self.serve.director_token),
            ("serve.moderator_token", &self.serve.moderator_token),
        ] {
            if t.as_ref().is_some_and(|t| t.trim().chars().count() < 16) {
                err(
                    key.into(),
                    "令牌至少 16 个字符（例如 `openssl rand -hex 16`）".into(),
                );
            }
        }
        if let (Some(d), Some(m)) = (&self.serve.director_token, &self.serve.moderator_token)
            && d == m
        {
            err(
                "serve.moderator_token".into(),
                "须与 director_token 不同（导演与版主看到的内容不同）".into(),
            );
        }
        if self.serve.poll_secs == Some(0) {
            err("serve.poll_secs".into(), "网页最多每秒检查一次".into());
        }
        for (key, v) in [
            ("serve.session_hours", self.serve.session_hours),
            ("serve.idle_secs", self.serve.idle_secs),
        ] {
            if v == Some(0) {
                err(key.into(), "至少为 1".into());
            }
        }
        let mut names = HashSet::new();
        let mut seats = HashMap::new();
        // Entries are counted as the director counts them: the first `[[player]]` is
        // `player[1]`, as the first `[[action]]` of an actions file is `action[1]`.
        for (i, pl) in (1..).zip(&self.players) {
            if pl.name.trim().is_empty() {
                err(format!("player[{i}].name"), "玩家名为空".into());
            } else if pl.name.trim() != pl.name {
                err(
                    format!("player[{i}].name"),
                    format!("`{}` 前后有空格", pl.name),
                );
            }
            if !names.insert(pl.name.as_str()) {
                err(
                    format!("player[{i}].name"),
                    format!("玩家 `{}` 重复列出", pl.name),
                );
            }
            if let Some(s) = pl.seat {
                if s == 0 {
                    err(format!("player[{i}].seat"), "座位从 1 开始编号".into());
                }
                if let Some(other) = seats.insert(s, pl.name.as_str()) {
                    err(
                        format!("player[{i}].seat"),
                        format!("座位 {s} 已是 `{other}` 的座位"),
                    );
                }
            }
        }
        let mut days = HashSet::new();
        for (i, d) in (1..).zip(&self.days) {
            if !days.insert(d.number) {
                err(
                    format!("day[{i}].number"),
                    format!("第{}天重复列出", d.number),
                );
            }
            if let (Some(o), Some(c)) = (d.opens, d.closes)
                && o >= c
            {
                err(
                    format!("day[{i}].closes"),
                    "closes（关门）须晚于 opens（开门）".into(),
                );
            }
            if let (Some(c), Some(v)) = (d.closes, d.vote_closes)
                && v < c
            {
                err(
                    format!("day[{i}].vote_closes"),
                    "vote_closes 不能早于 closes（投票截至 vote_closes；讨论截至 closes）".into(),
                );
            }
            if d.vote_closes.is_some() && d.closes.is_none() {
                err(
                    format!("day[{i}].vote_closes"),
                    "填写 vote_closes 时须同时填写 closes（讨论结束时间）".into(),
                );
            }
        }
        // Aliases and substitutes' accounts name one seat each: never another player's name
        // or alias (a post would belong to two seats).
        let mut accounts: HashMap<&str, &str> = HashMap::new();
        for pl in &self.players {
            accounts.insert(pl.name.as_str(), pl.name.as_str());
        }
        for (i, pl) in (1..).zip(&self.players) {
            for (j, a) in (1..).zip(&pl.aliases) {
                if let Some(other) = accounts.insert(a.as_str(), pl.name.as_str())
                    && other != pl.name
                {
                    err(
                        format!("player[{i}].aliases[{j}]"),
                        format!("`{a}` 已是 `{other}` 的名字或别名"),
                    );
                }
            }
        }
        let mut substituted: HashMap<&str, usize> = HashMap::new();
        for (i, e) in (1..).zip(&self.events) {
            if let Event::Substitute { player, by, .. } = e {
                if let Some(first) = substituted.insert(player.as_str(), i) {
                    err(
                        format!("event[{i}]"),
                        format!(
                            "`{player}` 已有替补（event[{first}]）：「每名角色仅限更换一次替补」；\
                             无法继续进行游戏、又不能再换替补的角色红牌罚下：\
                             「无法继续进行游戏的角色无法更换替补时红牌罚下」（`bansha cards add --card red`）"
                        ),
                    );
                }
                if let Some(b) = by
                    && let Some(other) = accounts.get(b.as_str())
                    && other != player
                {
                    err(
                        format!("event[{i}].by"),
                        format!("`{b}` 已是 `{other}` 的账号"),
                    );
                }
            }
        }
        self.check_overlaps(&mut err);
        for (i, e) in (1..).zip(&self.events) {
            for name in e.players() {
                if !names.contains(name) {
                    err(format!("event[{i}]"), format!("`{name}` 不是本局玩家"));
                }
            }
            if let Event::VoteWeight { weight, .. } = e
                && !(*weight >= 0.0 && weight.is_finite())
            {
                err(format!("event[{i}].weight"), "票数须为非负数".into());
            }
            if let Event::Status {
                from_day, to_day, ..
            } = e
                && from_day > to_day
            {
                err(format!("event[{i}].to_day"), "to_day 早于 from_day".into());
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(FileErrors(errs))
        }
    }

    /// The seat (the player's configured name) a post by `author` (forum uid `uid`) at
    /// `time` belongs to: by uid first, then by name or alias, then a substitute's own
    /// account from the substitution on. `None`: not a player's post.
    pub fn seat_of_author(&self, author: &str, uid: Option<u64>, time: Timestamp) -> Option<&str> {
        if let Some(u) = uid
            && let Some(p) = self.players.iter().find(|p| p.uid == Some(u))
        {
            return Some(p.name.as_str());
        }
        if let Some(p) = self
            .players
            .iter()
            .find(|p| p.name == author || p.aliases.iter().any(|a| a == author))
        {
            return Some(p.name.as_str());
        }
        self.events.iter().find_map(|e| match e {
            Event::Substitute {
                player,
                at,
                by: Some(b),
            } if b == author && time >= self.ts(*at) => Some(player.as_str()),
            _ => None,
        })
    }

    /// Days whose times overlap (a day opens before the day before it closes): one error
    /// naming both days, on the later entry's `opens`.
    fn check_overlaps(&self, err: &mut impl FnMut(String, String)) {
        let mut timed: Vec<(usize, &Day, LocalTime, LocalTime)> = (1..)
            .zip(&self.days)
            .filter_map(|(i, d)| Some((i, d, d.opens?, d.closes?)))
            .collect();
        timed.sort_by_key(|&(_, d, o, _)| (o, d.number));
        for w in timed.windows(2) {
            let (_, a, _, a_closes) = w[0];
            let (j, b, b_opens, _) = w[1];
            if b_opens < a_closes {
                err(
                    format!("day[{j}].opens"),
                    format!(
                        "第{}天（开门 {}）与第{}天（关门 {}）重叠：一天须在前一天关门之后开门",
                        b.number,
                        b_opens.0.format("%Y-%m-%d %H:%M"),
                        a.number,
                        a_closes.0.format("%Y-%m-%d %H:%M")
                    ),
                );
            }
        }
    }

    /// The rule file `game.rules` names: beside the config file, else in the working
    /// directory. Missing: an error naming the key and every place looked in.
    pub fn rules_file(&self) -> Result<PathBuf, FileError> {
        let p = &self.game.rules;
        let beside = self.dir().join(p);
        if beside.is_file() {
            return Ok(beside);
        }
        let mut looked = vec![beside];
        if p.is_relative() {
            if p.is_file() {
                return Ok(p.to_path_buf());
            }
            let cwd = std::env::current_dir().unwrap_or_default().join(p);
            if cwd != looked[0] {
                looked.push(cwd);
            }
        }
        let looked: Vec<String> = looked.iter().map(|l| l.display().to_string()).collect();
        Err(FileError::new(
            &self.path,
            "game.rules",
            format!(
                "找不到规则文件 `{}`（查找了 {}）；请填写本局规则文件的路径，相对于此配置文件所在的文件夹",
                p.display(),
                looked.join(" 和 ")
            ),
        ))
    }

    /// A config-local time as a timestamp in the game's timezone.
    pub fn ts(&self, t: LocalTime) -> Timestamp {
        time::local_to_ts(t.0, self.tz)
    }

    /// Format a timestamp as `YYYY-MM-DD HH:MM:SS` in the game's timezone.
    pub fn fmt_time(&self, ts: Timestamp) -> String {
        time::format_local(ts, self.tz)
    }

    /// The directory relative paths are resolved against.
    pub fn dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// A path from the config: relative to the config file if it exists there, else to the
    /// working directory.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            return p.to_path_buf();
        }
        let beside = self.dir().join(p);
        if beside.exists() || !p.exists() {
            beside
        } else {
            p.to_path_buf()
        }
    }

    pub fn rules_path(&self) -> PathBuf {
        self.resolve(&self.game.rules)
    }

    /// The SQLite file: `game.db`, or `<config stem>.sqlite` next to the config file.
    pub fn db_path(&self) -> PathBuf {
        match &self.game.db {
            Some(p) if p.is_absolute() => p.clone(),
            Some(p) => self.dir().join(p),
            None => {
                let stem = self
                    .path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("bansha");
                self.dir().join(format!("{stem}.sqlite"))
            }
        }
    }

    /// The store's key for this forum: the base URL without scheme and trailing slash
    /// (`127.0.0.1:18080`, `bbs.example.com/forum`).
    pub fn forum_key(&self) -> String {
        forum_key(&self.forum.base_url)
    }

    pub fn player(&self, name: &str) -> Option<&Player> {
        self.players.iter().find(|p| p.name == name)
    }

    pub fn day(&self, n: u32) -> Option<&Day> {
        self.days.iter().find(|d| d.number == n)
    }

    /// When the day's ballots stop: `vote_closes`, else `closes`.
    pub fn vote_closes(&self, day: u32) -> Option<Timestamp> {
        self.day(day)
            .and_then(|d| d.vote_closes.or(d.closes))
            .map(|t| self.ts(t))
    }

    /// The recorded end of the game (`kind = "game-over"`), if its time has come by `now`:
    /// (winner, when).
    pub fn game_over(&self, now: Timestamp) -> Option<(&str, Timestamp)> {
        self.events.iter().find_map(|e| match e {
            Event::GameOver { winner, at } if self.ts(*at) <= now => {
                Some((winner.as_str(), self.ts(*at)))
            }
            _ => None,
        })
    }

    pub fn is_director(&self, author: &str) -> bool {
        self.game.directors.iter().any(|d| d == author)
    }

    /// Every thread id the config names, with the day and the kind of thread.
    pub fn threads(&self) -> Vec<(u32, ThreadKind, u64)> {
        let mut v = Vec::new();
        for d in &self.days {
            for &t in &d.discussion {
                v.push((d.number, ThreadKind::Discussion, t));
            }
            if let Some(t) = d.vote {
                v.push((d.number, ThreadKind::Vote, t));
            }
            if let Some(t) = d.process {
                v.push((d.number, ThreadKind::Process, t));
            }
        }
        v
    }
}

/// When `url` is a page's address rather than the forum's (a thread: `…forum.php?mod=
/// viewthread&tid=N`, `…/thread-N-1-1.html`; any `forum.php?…` page): what to give instead
/// (the folder where forum.php lives) and the thread id when there is one.
pub fn page_in_base_url(url: &str) -> Option<(String, Option<u64>)> {
    let re = regex::Regex::new(
        r"^(?P<base>https?://[^?#]*?/)(?:(?:forum|index)\.php\?[^#]*|thread-(?P<rtid>\d+)-[^/]*\.html|forum\.php)$",
    )
    .expect("regex");
    let u = url.trim();
    let c = re.captures(u)?;
    let tid = c
        .name("rtid")
        .map(|m| m.as_str())
        .or_else(|| {
            regex::Regex::new(r"[?&]tid=(\d+)")
                .expect("regex")
                .captures(u)
                .and_then(|t| t.get(1))
                .map(|m| m.as_str())
        })
        .and_then(|t| t.parse().ok());
    Some((c["base"].to_string(), tid))
}

/// What to say about a page's address given as the forum's (see [`page_in_base_url`]).
pub fn page_url_message(url: &str) -> Option<String> {
    let (base, tid) = page_in_base_url(url)?;
    Some(match tid {
        Some(t) => format!(
            "`{url}` 是帖子 {t} 的地址，不是论坛的地址：请填写 forum.php 所在的文件夹（`{base}`）；帖子编号（{t}）写在报名帖的 --signup 或某个 [[day]] 里"
        ),
        None => format!("`{url}` 是论坛的一个页面：请填写 forum.php 所在的文件夹（`{base}`）"),
    })
}

/// See [`Config::forum_key`].
pub fn forum_key(base_url: &str) -> String {
    let s = base_url.trim();
    let s = s.split_once("://").map(|(_, r)| r).unwrap_or(s);
    s.trim_end_matches('/').to_ascii_lowercase()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadKind {
    Discussion,
    Vote,
    Process,
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"
[forum]
base_url = "http://127.0.0.1:18080/"

[game]
name = "g"
rules = "rules/075-zhifou.toml"

[[player]]
name = "傻树"
seat = 1

[[player]]
name = "白色防御者"
seat = 2

[[day]]
number = 1
discussion = [1001]
vote = 1002
opens = "2026-03-04 09:00"
closes = "2026-03-05 21:00"

[[event]]
kind = "out"
player = "白色防御者"
at = "2026-03-03 21:10"
cause = "vote"

[[event]]
kind = "proxy-vote"
day = 1
voter = "傻树"
target = "弃权"
at = "2026-03-05 20:00"
"#;

    #[test]
    fn contract_example_loads() {
        let c = Config::from_str(Path::new("g.toml"), OK).unwrap();
        assert_eq!(c.players.len(), 2);
        assert_eq!(c.forum.min_interval_ms, 2000);
        assert_eq!(c.tz, chrono_tz::Asia::Shanghai);
        assert_eq!(c.threads().len(), 2);
        assert!(matches!(c.events[0], Event::Out { .. }));
        assert_eq!(c.db_path(), PathBuf::from("g.sqlite"));
        assert_eq!(c.daemon.poll_interval_secs, 300);
    }

    #[test]
    fn daemon_table_is_optional_and_checked() {
        let with = OK.replace(
            "[game]",
            "[daemon]\npoll_interval_secs = 30\nuse_api = true\n\n[game]",
        );
        let c = Config::from_str(Path::new("g.toml"), &with).unwrap();
        assert_eq!(c.daemon.poll_interval_secs, 30);
        assert!(c.daemon.use_api);
        assert_eq!(c.daemon.grace_secs, 120);
        let bad = OK.replace(
            "[game]",
            "[daemon]\nfid = 3\ntitle_pattern = \"(\"\n\n[game]",
        );
        let e = Config::from_str(Path::new("g.toml"), &bad)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("g.toml:daemon.title_pattern: 正则表达式有误"),
            "{e}"
        );
    }

    #[test]
    fn unknown_key_is_named_with_file_and_key() {
        let bad = OK.replace("seat = 2", "seat = 2\nsaet = 3");
        let e = Config::from_str(Path::new("g.toml"), &bad)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("g.toml:"), "{e}");
        assert!(e.contains("saet"), "{e}");
    }

    #[test]
    fn all_semantic_problems_reported_at_once() {
        let bad = OK
            .replace("seat = 2", "seat = 1")
            .replace("player = \"白色防御者\"", "player = \"无名\"");
        let e = Config::from_str(Path::new("g.toml"), &bad).unwrap_err();
        assert_eq!(e.0.len(), 2, "{e}");
        assert!(
            e.to_string().contains("g.toml:player[2].seat: 座位 1"),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("g.toml:event[1]: `无名` 不是本局玩家"),
            "{e}"
        );
    }

    #[test]
    fn bad_time_is_reported_with_key() {
        let bad = OK.replace("2026-03-04 09:00", "tomorrow");
        let e = Config::from_str(Path::new("g.toml"), &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("day[1].opens") && e.contains("tomorrow"), "{e}");
    }

    #[test]
    fn config_errors_count_entries_from_1_like_the_actions_file() {
        // The second [[day]]'s bad time: `day[2]`, as the second [[action]] is `action[2]`.
        let two = OK.replacen(
            "[[event]]",
            "[[day]]\nnumber = 2\nopens = \"soon\"\n\n[[event]]",
            1,
        );
        let e = Config::from_str(Path::new("g.toml"), &two)
            .unwrap_err()
            .to_string();
        assert!(e.contains("g.toml:") && e.contains("day[2].opens"), "{e}");
        let bad = OK.replace("seat = 2", "seat = 0");
        let e = Config::from_str(Path::new("g.toml"), &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("player[2].seat: 座位从 1 开始编号"), "{e}");
    }

    #[test]
    fn overlapping_days_are_refused_naming_both_days() {
        let two = OK.replacen(
            "[[event]]",
            "[[day]]\nnumber = 2\nopens = \"2026-03-05 09:00\"\ncloses = \"2026-03-06 21:00\"\n\n[[event]]",
            1,
        );
        let e = Config::from_str(Path::new("g.toml"), &two)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "day[2].opens: 第2天（开门 2026-03-05 09:00）与第1天（关门 2026-03-05 21:00）重叠"
            ),
            "{e}"
        );
        let after = two.replace("2026-03-05 09:00\"\ncloses", "2026-03-06 09:00\"\ncloses");
        Config::from_str(Path::new("g.toml"), &after).unwrap();
    }

    #[test]
    fn a_thread_address_as_base_url_is_refused_saying_what_to_give() {
        for (url, tid) in [
            (
                "https://bbs.example.com/forum.php?mod=viewthread&tid=1814690",
                Some(1814690),
            ),
            (
                "https://bbs.example.com/bbs/thread-1814690-1-1.html",
                Some(1814690),
            ),
            (
                "https://bbs.example.com/forum.php?mod=forumdisplay&fid=2",
                None,
            ),
        ] {
            let (base, t) = page_in_base_url(url).unwrap();
            assert!(base.starts_with("https://bbs.example.com/"), "{base}");
            assert_eq!(t, tid, "{url}");
            let bad = OK.replace("http://127.0.0.1:18080/", url);
            let e = Config::from_str(Path::new("g.toml"), &bad)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("forum.base_url: `") && e.contains("forum.php 所在的文件夹"),
                "{e}"
            );
        }
        assert_eq!(page_in_base_url("https://bbs.example.com/bbs/"), None);
        assert_eq!(page_in_base_url("http://127.0.0.1:18080/"), None);
    }

    #[test]
    fn a_missing_rule_file_names_the_key_and_where_it_looked() {
        let dir = std::env::temp_dir().join(format!("bansha-rules-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("rules")).unwrap();
        let cfg_path = dir.join("g.toml");
        let text = OK.replace("rules/075-zhifou.toml", "rules/nope.toml");
        let c = Config::from_str(&cfg_path, &text).unwrap();
        let e = c.rules_file().unwrap_err().to_string();
        assert!(
            e.contains("g.toml:game.rules: 找不到规则文件 `rules/nope.toml`"),
            "{e}"
        );
        assert!(
            e.contains(&dir.join("rules/nope.toml").display().to_string()),
            "{e}"
        );
        // Beside the config comes first, whatever the working directory.
        std::fs::write(dir.join("rules/nope.toml"), "").unwrap();
        assert_eq!(c.rules_file().unwrap(), dir.join("rules/nope.toml"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
