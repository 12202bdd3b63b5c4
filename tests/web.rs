//! `bansha serve` (issue 15): plain-HTTP tests of sign-in, roles, CSRF and escaping against
//! the real binary, and end-to-end tests in headless Chromium (`browser`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::common::{bansha, page_post, scratch_dir, store_one_page};

pub const BASE: &str = "http://127.0.0.1:18080/";
pub const DIRECTOR: &str = "director-token-3f9a1c77e2b04d55";
pub const MODERATOR: &str = "moderator-token-8c21d0e6a94f4b13";
/// The clock of the spawned server: day 1, before its 关门.
pub const DURING_DAY1: &str = "2026-03-03 12:00";
/// A player's post carrying markup meant to run in the page.
pub const XSS: &str =
    "<script>window.__xss=1</script><img src=x onerror=\"window.__xss=2\"> 你是傻逼";

/// A post quoting an insult before making it: the flagged span is the second 傻逼.
pub const QUOTED_INSULT: &str = "“傻逼”是他先说的，你才是傻逼";

/// Seats and roles; no player's name contains a role or camp word, so a page that shows
/// a role is caught by looking for the role's name.
pub const SEATS: &[(&str, &str)] = &[
    ("子鼠", "狼人"),
    ("丑牛", "狼人"),
    ("寅虎", "预言家"),
    ("卯兔", "女巫"),
    ("辰龙", "村长"),
    ("巳蛇", "医生"),
    ("午马", "猎人"),
    ("未羊", "村民"),
    ("申猴", "村民"),
    ("酉鸡", "村民"),
    ("戌狗", "丘比特"),
    ("亥猪", "混血儿"),
];

/// Night 0 (开局) and night 1 of the game: links, a kill, a 预言 (private feedback).
const N0: &str = "[[action]]\nactor = \"戌狗\"\nskill = \"丘比特之箭\"\ntargets = [\"未羊\", \"申猴\"]\n[[action]]\nactor = \"亥猪\"\nskill = \"认亲\"\ntargets = [\"子鼠\"]\n";
const N1: &str = "[[action]]\nactor = \"丑牛\"\nskill = \"杀人\"\ntargets = [\"酉鸡\"]\n[[action]]\nactor = \"寅虎\"\nskill = \"预言\"\ntargets = [\"子鼠\"]\n";

pub struct Fixture {
    pub dir: PathBuf,
    pub cfg: PathBuf,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The game config: 075 rules, the players above, day 1 with its three threads on the
/// forum at `base`, and the `[serve]` tokens.
pub fn config_text(base: &str) -> String {
    let rules = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/075-zhifou.toml");
    let mut cfg = format!(
        r#"[forum]
base_url = "{base}"
min_interval_ms = 5
[game]
name = "[075]网页测试局"
rules = "{}"
db = "game.sqlite"
directors = ["导演"]
[serve]
director_token = "{DIRECTOR}"
moderator_token = "{MODERATOR}"
poll_secs = 1
[[day]]
number = 1
discussion = [800]
vote = 801
process = 802
opens = "2026-03-02 09:00"
closes = "2026-03-03 21:00"
"#,
        rules.display()
    );
    for (i, (n, r)) in SEATS.iter().enumerate() {
        cfg.push_str(&format!(
            "[[player]]\nname = \"{n}\"\nuid = {}\nseat = {}\nrole = \"{r}\"\n",
            100 + i,
            i + 1
        ));
    }
    cfg
}

/// A stored game: the day's posts (one of them an XSS payload with an insult, one ballot
/// with markup), flags scanned, nights 0 and 1 resolved.
pub fn fixture(name: &str) -> Fixture {
    let dir = scratch_dir(&format!("web-{name}"));
    let cfg = dir.join("game.toml");
    std::fs::write(&cfg, config_text(BASE)).unwrap();
    let db = dir.join("game.sqlite");
    let src = |tid: u64| format!("{BASE}forum.php?mod=viewthread&tid={tid}");
    let p = |floor: u32, pid: u64, author: &str, uid: u64, time: &str, text: &str| {
        page_post(floor, pid, author, uid, time, text)
    };
    store_one_page(
        &db,
        BASE,
        800,
        vec![
            p(1, 8000, "导演", 1, "2026-03-02 09:00", "第一天讨论开始"),
            p(2, 8001, "子鼠", 100, "2026-03-02 10:00", XSS),
            p(3, 8002, "寅虎", 102, "2026-03-02 10:05", "我觉得丑牛可疑"),
            p(4, 8003, "卯兔", 103, "2026-03-02 10:10", QUOTED_INSULT),
        ],
        &src(800),
    );
    store_one_page(
        &db,
        BASE,
        801,
        vec![
            p(1, 8100, "导演", 1, "2026-03-02 09:00", "投票开始"),
            p(
                2,
                8101,
                "子鼠",
                100,
                "2026-03-02 11:00",
                "投票对象：寅虎\n投票理由：划水",
            ),
            p(
                3,
                8102,
                "丑牛",
                101,
                "2026-03-02 11:30",
                "投票对象：<b onmouseover=alert(1)>寅虎</b>\n投票理由：<script>alert(2)</script>",
            ),
        ],
        &src(801),
    );
    store_one_page(
        &db,
        BASE,
        802,
        vec![
            p(1, 8200, "导演", 1, "2026-03-02 09:00", "进程帖"),
            p(2, 8201, "卯兔", 103, "2026-03-02 12:00", "申请加速"),
        ],
        &src(802),
    );
    let c = cfg.to_str().unwrap();
    let (code, _, err) = bansha(&["flags", "--config", c]);
    assert_eq!(code, 0, "{err}");
    for (n, actions) in [(0, N0), (1, N1)] {
        let f = dir.join(format!("n{n}.toml"));
        std::fs::write(&f, actions).unwrap();
        let (code, out, err) = bansha(&[
            "night",
            "--config",
            c,
            "--night",
            &n.to_string(),
            "--actions",
            f.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "night {n}: {out}\n{err}");
    }
    Fixture { dir, cfg }
}

/// A running `bansha serve`; killed (by its own handle) when dropped.
pub struct Server {
    child: Child,
    pub addr: String,
    pub log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Start on a free loopback port, with the clock at `clock`; returns once it listens
    /// (it prints its address first).
    pub fn start(cfg: &Path, clock: &str, env: &[(&str, &str)]) -> Server {
        let log = cfg.with_file_name(format!("serve-{}.log", std::process::id()));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_bansha"));
        cmd.args(["-v", "serve", "--listen", "127.0.0.1:0", "--config"])
            .arg(cfg)
            .env(bansha::time::CLOCK_START_ENV, clock)
            .env_remove(bansha::web::DIRECTOR_TOKEN_ENV)
            .env_remove(bansha::web::MODERATOR_TOKEN_ENV)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start bansha serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let Some(addr) = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .map(str::to_string)
        else {
            let _ = child.wait();
            panic!(
                "serve did not start: {line:?}\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        };
        Server { child, addr, log }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, k: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request over a fresh connection (`Connection: close`), the response read
/// to its end. Enough for the server and for chromedriver.
pub fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    // Read the head, then as much body as it announces (chromedriver keeps the connection
    // open after its answer, whatever `Connection: close` asked).
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    let complete = |raw: &[u8]| -> bool {
        let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
            return false;
        };
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let body = &raw[split + 4..];
        if let Some(n) = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|n| n.trim().parse::<usize>().ok())
        {
            return body.len() >= n;
        }
        if head.contains("transfer-encoding: chunked") || head.contains("transfer-encoding:chunked")
        {
            return body.ends_with(b"0\r\n\r\n");
        }
        false
    };
    loop {
        let n = s.read(&mut buf).unwrap_or(0);
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
        if complete(&raw) {
            break;
        }
    }
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        while let Some(nl) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(
                String::from_utf8_lossy(&rest[..nl])
                    .split(';')
                    .next()
                    .unwrap()
                    .trim(),
                16,
            )
            .unwrap_or(0);
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[nl + 2..nl + 2 + size]);
            rest = &rest[nl + 2 + size + 2..];
        }
        body = out;
    }
    Resp {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

pub fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// A signed-in session: the cookie header value and the page's CSRF token.
pub struct Session {
    pub cookie: String,
    pub csrf: String,
}

pub fn login(srv: &Server, token: &str, name: &str) -> Session {
    let r = http(
        &srv.addr,
        "POST",
        "/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &format!("token={}&name={}", enc(token), enc(name)),
    );
    assert_eq!(r.status, 303, "{r:?}");
    let sc = r
        .header("set-cookie")
        .expect("a session cookie")
        .to_string();
    let cookie = sc.split(';').next().unwrap().to_string();
    let page = get(srv, &cookie, "/flags");
    assert_eq!(page.status, 200);
    let csrf = page
        .body
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a CSRF token in the page")
        .to_string();
    Session { cookie, csrf }
}

pub fn get(srv: &Server, cookie: &str, path: &str) -> Resp {
    http(&srv.addr, "GET", path, &[("Cookie", cookie)], "")
}

fn post(
    srv: &Server,
    cookie: Option<&str>,
    path: &str,
    body: &str,
    extra: &[(&str, &str)],
) -> Resp {
    let mut h = vec![("Content-Type", "application/x-www-form-urlencoded")];
    if let Some(c) = cookie {
        h.push(("Cookie", c));
    }
    h.extend_from_slice(extra);
    http(&srv.addr, "POST", path, &h, body)
}

/// A POST of a signed-in session with its CSRF token after `body` (`card=red&` or "").
fn act_as(srv: &Server, s: &Session, path: &str, body: &str, extra: &[(&str, &str)]) -> Resp {
    post(
        srv,
        Some(&s.cookie),
        path,
        &format!("{body}csrf={}", s.csrf),
        extra,
    )
}

/// The public handle of the session signed in as `name`, from the director's list.
fn session_handle(srv: &Server, director: &Session, name: &str) -> String {
    get(srv, &director.cookie, "/part/sessions")
        .body
        .split("<tr data-session=\"")
        .skip(1)
        .find(|row| row.contains(name))
        .and_then(|row| row.split('"').next())
        .unwrap_or_else(|| panic!("{name}'s session is not listed"))
        .to_string()
}

fn flag_status(cfg: &Path, id: i64) -> String {
    let c = bansha::config::Config::load(cfg).unwrap();
    let s = bansha::store::Store::open(&c.db_path()).unwrap();
    s.flag(&c.forum_key(), id).unwrap().unwrap().status
}

/// The id of the open flag on the XSS post (子鼠's insult).
pub fn xss_flag_id(cfg: &Path) -> i64 {
    let c = bansha::config::Config::load(cfg).unwrap();
    let s = bansha::store::Store::open(&c.db_path()).unwrap();
    s.flags(&c.forum_key())
        .unwrap()
        .into_iter()
        .find(|f| f.flag.pid == 8001 && f.flag.category == "insult")
        .expect("the insult in the XSS post is flagged")
        .id
}

#[test]
fn sign_in_sets_an_httponly_strict_cookie_and_tokens_stay_out_of_urls_pages_and_logs() {
    let fx = fixture("signin");
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    // Not signed in: pages send to the login form; data and actions are refused.
    let r = http(&srv.addr, "GET", "/day", &[], "");
    assert_eq!((r.status, r.header("location")), (303, Some("/login")));
    assert_eq!(http(&srv.addr, "GET", "/api/version", &[], "").status, 401);
    assert_eq!(http(&srv.addr, "GET", "/part/flags", &[], "").status, 401);
    let login_page = http(&srv.addr, "GET", "/login", &[], "");
    assert_eq!(login_page.status, 200);
    assert!(
        login_page
            .body
            .contains("method=\"post\" action=\"/login\"")
    );
    // A wrong token is refused; a token in the query string is not a way in.
    let r = post(&srv, None, "/login", "token=not-the-token-at-all", &[]);
    assert_eq!(r.status, 403);
    assert!(r.header("set-cookie").is_none());
    let r = http(&srv.addr, "GET", &format!("/day?token={DIRECTOR}"), &[], "");
    assert_eq!(r.status, 303, "{r:?}");
    // The right token: a session cookie, HttpOnly and SameSite=Strict; the redirect
    // carries no token.
    let r = post(&srv, None, "/login", &format!("token={DIRECTOR}"), &[]);
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("/day"));
    let sc = r.header("set-cookie").unwrap();
    assert!(
        sc.contains("HttpOnly") && sc.contains("SameSite=Strict"),
        "{sc}"
    );
    assert!(!sc.contains(DIRECTOR));
    let cookie = sc.split(';').next().unwrap();
    let day = get(&srv, cookie, "/day");
    assert_eq!(day.status, 200);
    assert!(day.body.contains("[075]网页测试局"), "{}", day.body);
    assert!(!day.body.contains(DIRECTOR) && !day.body.contains(MODERATOR));
    // A login from another site is refused even with the right token.
    let r = post(
        &srv,
        None,
        "/login",
        &format!("token={DIRECTOR}"),
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(r.status, 403);
    // The moderator's token from the environment overrides the file's.
    let env_token = "moderator-from-the-environment-1";
    let srv2 = Server::start(
        &fx.cfg,
        DURING_DAY1,
        &[(bansha::web::MODERATOR_TOKEN_ENV, env_token)],
    );
    assert_eq!(
        post(&srv2, None, "/login", &format!("token={MODERATOR}"), &[]).status,
        403
    );
    let s = login(&srv2, env_token, "版主乙");
    assert_eq!(get(&srv2, &s.cookie, "/flags").status, 200);
    // Logging out ends the session.
    let r = act_as(&srv2, &s, "/logout", "", &[]);
    assert_eq!(r.status, 303);
    assert_eq!(get(&srv2, &s.cookie, "/api/version").status, 401);
    let logs = srv.log_text() + &srv2.log_text();
    assert!(logs.contains("signed in"), "info logging is on: {logs}");
    for t in [DIRECTOR, MODERATOR, env_token] {
        assert!(!logs.contains(t), "a token in the log:\n{logs}");
    }
}

#[test]
fn a_moderator_sees_flags_ledger_and_public_views_but_no_roles_night_feedback_or_director_tally() {
    let fx = fixture("roles");
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let d = login(&srv, DIRECTOR, "导演");
    let m = login(&srv, MODERATOR, "版主甲");
    // What only the director may see: 403 for the moderator, 200 for the director.
    for part in ["state", "nights", "tally-director"] {
        let path = format!("/part/{part}?day=1");
        assert_eq!(get(&srv, &m.cookie, &path).status, 403, "{part}");
        assert_eq!(get(&srv, &d.cookie, &path).status, 200, "{part}");
    }
    for part in [
        "tally-public",
        "activity",
        "flags",
        "ledger",
        "state-public",
        "nights-public",
    ] {
        let r = get(&srv, &m.cookie, &format!("/part/{part}?day=1"));
        assert_eq!(r.status, 200, "{part}");
        assert!(!r.body.contains("class=\"error\""), "{part}: {}", r.body);
    }
    // The director's game page shows roles and the 预言 feedback; the moderator's shows
    // neither, on any page.
    let dg = get(&srv, &d.cookie, "/game").body;
    assert!(dg.contains("预言家") && dg.contains("混血儿"), "{dg}");
    assert!(
        dg.contains("私信：寅虎"),
        "the seer's private feedback: {dg}"
    );
    let feedback: Vec<String> = dg
        .split("私信：寅虎")
        .nth(1)
        .and_then(|r| r.split("<pre class=\"bbcode\">").nth(1))
        .and_then(|r| r.split("</pre>").next())
        .map(|b| b.lines().skip(1).map(str::to_string).collect())
        .unwrap();
    assert!(!feedback.is_empty());
    for page in ["/day", "/flags", "/game"] {
        let body = get(&srv, &m.cookie, page).body;
        for (_, role) in SEATS {
            assert!(
                !body.contains(role),
                "{page} shows the role {role}:\n{body}"
            );
        }
        for line in &feedback {
            assert!(
                !body.contains(line.as_str()),
                "{page} shows feedback {line}"
            );
        }
        assert!(!body.contains("data-src=\"/part/state?") && !body.contains("/part/nights?"));
    }
    // The moderator's day page has the public 公示 but not the director's tally.
    let md = get(&srv, &m.cookie, "/day").body;
    assert!(md.contains("id=\"tally-public\"") && !md.contains("id=\"tally-director\""));
    // The director's tally is there for the director.
    let dd = get(&srv, &d.cookie, "/day").body;
    assert!(dd.contains("id=\"tally-director\"") && dd.contains("id=\"tally-public\""));
    // A moderator cannot withdraw a card (the director overrules).
    let r = act_as(&srv, &m, "/cards/1/withdraw", "", &[]);
    assert_eq!(r.status, 403);
}

#[test]
fn actions_without_the_session_or_its_csrf_token_are_refused_and_change_nothing() {
    let fx = fixture("csrf");
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let m = login(&srv, MODERATOR, "版主甲");
    let other = login(&srv, MODERATOR, "版主丙");
    let id = xss_flag_id(&fx.cfg);
    let path = format!("/flags/{id}/confirm");
    let refusals = [
        (
            "no token",
            post(&srv, Some(&m.cookie), &path, "card=blue", &[]),
        ),
        (
            "a wrong token",
            post(&srv, Some(&m.cookie), &path, "card=blue&csrf=0123abcd", &[]),
        ),
        (
            "another session's token",
            post(
                &srv,
                Some(&m.cookie),
                &path,
                &format!("card=blue&csrf={}", other.csrf),
                &[],
            ),
        ),
        (
            "no session",
            post(
                &srv,
                None,
                &path,
                &format!("card=blue&csrf={}", m.csrf),
                &[],
            ),
        ),
        (
            "another site",
            act_as(
                &srv,
                &m,
                &path,
                "card=blue&",
                &[("Origin", "http://evil.example")],
            ),
        ),
    ];
    for (what, r) in &refusals {
        assert_eq!(r.status, 403, "{what}: {r:?}");
        assert_eq!(flag_status(&fx.cfg, id), "open", "{what}");
    }
    let r = post(
        &srv,
        Some(&m.cookie),
        &format!("/flags/{id}/dismiss"),
        "",
        &[],
    );
    assert_eq!(r.status, 403);
    assert_eq!(flag_status(&fx.cfg, id), "open");
    // With the token (form field or header) it is the same store operation as
    // `bansha flags confirm`, recorded with the moderator's name and role.
    let v0 = get(&srv, &m.cookie, "/api/version").body;
    let r = post(
        &srv,
        Some(&m.cookie),
        &path,
        "card=yellow",
        &[("X-CSRF-Token", &m.csrf)],
    );
    assert_eq!(r.status, 303, "{r:?}");
    assert_eq!(flag_status(&fx.cfg, id), "confirmed");
    let c = bansha::config::Config::load(&fx.cfg).unwrap();
    let store = bansha::store::Store::open(&c.db_path()).unwrap();
    let cards = store.cards(&c.forum_key()).unwrap();
    assert_eq!(cards.len(), 1);
    assert_eq!(
        (
            cards[0].player.as_str(),
            cards[0].card.as_str(),
            cards[0].given_by.as_str()
        ),
        ("子鼠", "yellow", "版主甲 (moderator)")
    );
    assert_ne!(
        get(&srv, &m.cookie, "/api/version").body,
        v0,
        "the page sees the change"
    );
    let ledger = get(&srv, &m.cookie, "/part/ledger").body;
    assert!(ledger.contains("data-player=\"子鼠\""), "{ledger}");
    // Deciding it again is refused with the command's own message; nothing changes.
    let r = act_as(&srv, &m, &path, "card=red&", &[]);
    assert_eq!(r.status, 409, "{r:?}");
    assert!(
        r.body.contains("已经处理过了") && r.body.contains("id=\"back\""),
        "a Chinese refusal with a way back: {}",
        r.body
    );
    assert_eq!(store.cards(&c.forum_key()).unwrap().len(), 1);
}

#[test]
fn player_written_markup_renders_as_text_everywhere() {
    let fx = fixture("escape");
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let d = login(&srv, DIRECTOR, "");
    for page in ["/day", "/flags", "/game"] {
        let r = get(&srv, &d.cookie, page);
        assert_eq!(r.status, 200);
        let b = &r.body;
        // The page's one script is its own, nonce'd and allowed by the CSP; no player
        // markup is live.
        assert_eq!(b.matches("<script").count(), 1, "{page}:\n{b}");
        assert!(b.contains("<script nonce=\""), "{page}");
        let csp = r.header("content-security-policy").unwrap();
        assert!(
            csp.contains("script-src 'nonce-") && !csp.contains("unsafe-inline"),
            "{csp}"
        );
        for live in ["<img", "onerror=\"", "<b onmouseover"] {
            assert!(!b.contains(live), "{page} has live markup {live}:\n{b}");
        }
    }
    // The XSS post is in the flag queue as text, the insult marked.
    let flags = get(&srv, &d.cookie, "/part/flags").body;
    assert!(
        flags.contains("&lt;script&gt;window.__xss=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt; 你是<mark id=\"hit-"),
        "{flags}"
    );
    // The ballot with markup: in both tallies as text.
    let t = get(&srv, &d.cookie, "/part/tally-director?day=1").body;
    assert!(t.contains("&lt;script&gt;") || t.contains("&lt;b"), "{t}");
}

/// The Set-Cookie of a sign-in, and the cookie (`name=value`) it sets.
fn sign_in_cookie(srv: &Server, token: &str, extra: &[(&str, &str)]) -> Resp {
    post(srv, None, "/login", &format!("token={}", enc(token)), extra)
}

#[test]
fn wrong_tokens_are_rate_limited_per_client_and_logged_a_bounded_number_of_times() {
    let fx = fixture("ratelimit");
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let codes: Vec<u16> = (0..40)
        .map(|i| sign_in_cookie(&srv, &format!("wrong-token-number-{i:04}-xxxx"), &[]).status)
        .collect();
    let limit = bansha::web::limit::PER_CLIENT as usize;
    assert!(codes[..limit].iter().all(|c| *c == 403), "{codes:?}");
    assert!(codes[limit..].iter().all(|c| *c == 429), "{codes:?}");
    // Limited, the right token is not even looked at, and the answer says when to retry.
    let r = sign_in_cookie(&srv, DIRECTOR, &[]);
    assert_eq!(r.status, 429);
    assert!(r.header("set-cookie").is_none());
    assert!(r.header("retry-after").is_some());
    assert!(r.body.contains("错误的令牌太多"), "{}", r.body);
    let warns = srv
        .log_text()
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("web:"))
        .count();
    assert!(warns <= 2, "one line per wrong token:\n{}", srv.log_text());
}

#[test]
fn a_token_with_surrounding_spaces_in_the_config_signs_in_with_the_token_itself() {
    let fx = fixture("spaces");
    let text = std::fs::read_to_string(&fx.cfg).unwrap().replace(
        &format!("director_token = \"{DIRECTOR}\""),
        &format!("director_token = \"  {DIRECTOR} \""),
    );
    std::fs::write(&fx.cfg, text).unwrap();
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    assert_eq!(sign_in_cookie(&srv, DIRECTOR, &[]).status, 303);
    assert_eq!(
        sign_in_cookie(&srv, &format!(" {DIRECTOR}\n"), &[]).status,
        303
    );
}

#[test]
fn a_foreign_host_name_is_refused_and_a_tls_proxy_with_its_name_configured_works() {
    let fx = fixture("hosts");
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    // DNS rebinding: a name that resolves here, with a matching Origin.
    let evil = [
        ("Host", "attacker.example:8075"),
        ("Origin", "http://attacker.example:8075"),
    ];
    assert_eq!(http(&srv.addr, "GET", "/login", &evil[..1], "").status, 421);
    let r = sign_in_cookie(&srv, DIRECTOR, &evil);
    assert_eq!(r.status, 421);
    assert!(r.header("set-cookie").is_none());
    let s = login(&srv, MODERATOR, "版主甲");
    let id = xss_flag_id(&fx.cfg);
    let r = post(
        &srv,
        Some(&s.cookie),
        &format!("/flags/{id}/confirm"),
        &format!("card=blue&csrf={}", s.csrf),
        &evil,
    );
    assert_eq!(r.status, 421);
    assert_eq!(flag_status(&fx.cfg, id), "open");
    // `localhost` and IP addresses are this server's names.
    let port = srv.addr.rsplit(':').next().unwrap().to_string();
    let lh = format!("localhost:{port}");
    assert_eq!(
        http(&srv.addr, "GET", "/login", &[("Host", &lh)], "").status,
        200
    );
    drop(srv);
    // Behind a TLS proxy named in `hosts` that passes Host on as 127.0.0.1: the browser's
    // Origin is the proxy's name; the cookie is __Host- prefixed and Secure.
    let text = std::fs::read_to_string(&fx.cfg).unwrap().replace(
        "poll_secs = 1\n",
        "poll_secs = 1\nhosts = [\"bansha.example.org\"]\ntls = true\n",
    );
    std::fs::write(&fx.cfg, text).unwrap();
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let r = sign_in_cookie(&srv, DIRECTOR, &[("Origin", "https://bansha.example.org")]);
    assert_eq!(r.status, 303, "{r:?}");
    let sc = r.header("set-cookie").unwrap();
    assert!(
        sc.starts_with("__Host-bansha_") && sc.contains("; Secure") && sc.contains("Path=/"),
        "{sc}"
    );
    // The proxy may also pass its own name on as Host.
    let r = sign_in_cookie(
        &srv,
        DIRECTOR,
        &[
            ("Host", "bansha.example.org"),
            ("Origin", "https://bansha.example.org"),
        ],
    );
    assert_eq!(r.status, 303, "{r:?}");
    // Another site's Origin is still refused.
    let r = sign_in_cookie(&srv, DIRECTOR, &[("Origin", "https://evil.example")]);
    assert_eq!(r.status, 403);
}

#[test]
fn the_session_cookie_is_named_per_instance_expires_and_the_director_can_end_a_session() {
    let fx = fixture("cookie");
    let a = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let b = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let name = |srv: &Server| {
        let r = sign_in_cookie(srv, DIRECTOR, &[]);
        let sc = r.header("set-cookie").unwrap().to_string();
        assert!(
            sc.contains("Max-Age=43200") && !sc.contains("Secure"),
            "{sc}"
        );
        sc.split('=').next().unwrap().to_string()
    };
    let (na, nb) = (name(&a), name(&b));
    assert_ne!(na, nb, "two servers on one host share a cookie name");
    assert_ne!(na, "bansha_session");
    let d = login(&a, DIRECTOR, "导演");
    let m = login(&a, MODERATOR, "版主甲");
    let handle = session_handle(&a, &d, "版主甲");
    assert_eq!(get(&a, &m.cookie, "/part/sessions").status, 403);
    // A moderator cannot end the director's session.
    let r = act_as(&a, &m, &format!("/sessions/{handle}/end"), "", &[]);
    assert_eq!(r.status, 403);
    let r = act_as(&a, &d, &format!("/sessions/{handle}/end"), "", &[]);
    assert_eq!(r.status, 303, "{r:?}");
    assert_eq!(get(&a, &m.cookie, "/api/version").status, 401);
    assert_eq!(get(&a, &d.cookie, "/api/version").status, 200);
}

#[test]
fn sign_in_names_posing_as_another_role_or_reversing_text_are_refused() {
    let fx = fixture("names");
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    for bad in [
        "[075]导演A (director)",
        "导演A",
        "甲\u{202E}乙",
        "名字很长很长很长很长很长很长很长很长",
    ] {
        let r = post(
            &srv,
            None,
            "/login",
            &format!("token={}&name={}", enc(MODERATOR), enc(bad)),
            &[],
        );
        assert_eq!(r.status, 422, "{bad:?}: {r:?}");
        assert!(r.header("set-cookie").is_none());
        assert!(r.body.contains("名字"), "{}", r.body);
    }
}

#[test]
fn silent_half_open_connections_are_closed_and_do_not_starve_the_page() {
    let fx = fixture("halfopen");
    let text = std::fs::read_to_string(&fx.cfg)
        .unwrap()
        .replace("poll_secs = 1\n", "poll_secs = 1\nidle_secs = 1\n");
    std::fs::write(&fx.cfg, text).unwrap();
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let silent: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&srv.addr).unwrap())
        .collect();
    // Each is closed by the server: a read ends (EOF or reset) well before our deadline.
    for mut c in silent {
        c.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut b = [0u8; 16];
        match c.read(&mut b) {
            Ok(0) => {}
            Err(e)
                if e.kind() != std::io::ErrorKind::WouldBlock
                    && e.kind() != std::io::ErrorKind::TimedOut => {}
            other => panic!("a silent connection was held open: {other:?}"),
        }
    }
    assert_eq!(http(&srv.addr, "GET", "/login", &[], "").status, 200);
}

#[test]
fn a_red_card_needs_confirming_and_a_withdrawn_flag_can_be_decided_again() {
    let fx = fixture("redcard");
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let m = login(&srv, MODERATOR, "版主甲");
    let d = login(&srv, DIRECTOR, "导演");
    let id = xss_flag_id(&fx.cfg);
    let path = format!("/flags/{id}/confirm");
    // Red without confirming: a Chinese question with a confirming form; nothing changed.
    let r = act_as(&srv, &m, &path, "card=red&", &[]);
    assert_eq!(r.status, 409);
    assert!(
        r.body.contains("罚下") && r.body.contains("name=\"sure\" value=\"1\""),
        "{}",
        r.body
    );
    assert_eq!(flag_status(&fx.cfg, id), "open");
    // The page's script gets JSON.
    let r = act_as(
        &srv,
        &m,
        &path,
        "card=red&",
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 409);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["confirm"], true);
    // Confirmed: the card, and what it caused.
    let r = act_as(
        &srv,
        &m,
        &path,
        "card=red&sure=1&",
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 200, "{r:?}");
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    let msg = v["message"].as_str().unwrap();
    assert!(msg.contains("红牌") && msg.contains("子鼠 被罚下"), "{msg}");
    let q = get(&srv, &m.cookie, "/part/flags").body;
    assert!(
        q.contains("被罚下"),
        "the flag shows what the card caused: {q}"
    );
    // The director withdraws it: the flag can be decided again, from the page.
    let c = bansha::config::Config::load(&fx.cfg).unwrap();
    let card = bansha::store::Store::open(&c.db_path())
        .unwrap()
        .cards(&c.forum_key())
        .unwrap()[0]
        .id;
    let r = act_as(&srv, &d, &format!("/cards/{card}/withdraw"), "", &[]);
    assert_eq!(r.status, 303);
    let q = get(&srv, &m.cookie, "/part/flags").body;
    let flag = q.split(&format!("id=\"flag-{id}\"")).nth(1).unwrap();
    let flag = flag.split("</article>").next().unwrap();
    assert!(
        flag.contains("data-card=\"blue\"") && flag.contains("已被 导演（导演） 撤销"),
        "{flag}"
    );
    let r = act_as(&srv, &m, &path, "card=blue&", &[]);
    assert_eq!(r.status, 303, "{r:?}");
    assert_eq!(flag_status(&fx.cfg, id), "confirmed");
    // Deciding it once more is refused in Chinese with a way back.
    let r = act_as(&srv, &m, &path, "card=blue&", &[]);
    assert_eq!(r.status, 409);
    assert!(r.body.contains("已经处理过了") && r.body.contains("href=\"/flags\""));
}

#[test]
fn the_days_fixed_activity_cards_are_confirmed_from_the_page_after_closing_once() {
    let fx = fixture("fixedcards");
    let count = || {
        let c = bansha::config::Config::load(&fx.cfg).unwrap();
        let s = bansha::store::Store::open(&c.db_path()).unwrap();
        s.cards(&c.forum_key())
            .unwrap()
            .iter()
            .filter(|k| k.category.starts_with("activity:"))
            .count()
    };
    // Before 关门 the report is interim: refused, nothing given.
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    let d = login(&srv, DIRECTOR, "导演");
    let act = get(&srv, &d.cookie, "/part/activity?day=1").body;
    assert!(
        act.contains("关门后才能确认") && !act.contains("give-cards"),
        "{act}"
    );
    let r = act_as(&srv, &d, "/activity/1/cards", "", &[]);
    assert_eq!(r.status, 409);
    assert!(r.body.contains("还没有关门"), "{}", r.body);
    assert_eq!(count(), 0);
    drop(srv);
    // After 关门: the button names the cards; pressing it gives them, once.
    let srv = Server::start(&fx.cfg, "2026-03-04 10:00", &[]);
    let d = login(&srv, DIRECTOR, "导演");
    let act = get(&srv, &d.cookie, "/part/activity?day=1").body;
    assert!(
        act.contains("give-cards") && act.contains("还没有确认"),
        "{act}"
    );
    let r = act_as(
        &srv,
        &d,
        "/activity/1/cards",
        "",
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 200, "{r:?}");
    let n = count();
    assert!(n > 0, "no card given: {}", r.body);
    assert!(r.body.contains(&format!("{n} 张")), "{}", r.body);
    let r = act_as(&srv, &d, "/activity/1/cards", "", &[]);
    assert_eq!(r.status, 303);
    assert_eq!(count(), n, "given twice");
    let act = get(&srv, &d.cookie, "/part/activity?day=1").body;
    assert!(act.contains(&format!("已确认 {n} 张")), "{act}");
}

#[test]
fn a_game_without_roles_says_so_in_chinese_not_as_an_error() {
    let fx = fixture("noroles");
    let text = std::fs::read_to_string(&fx.cfg).unwrap();
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("role = "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&fx.cfg, text).unwrap();
    let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
    for (token, parts) in [
        (MODERATOR, &["state-public", "nights-public"][..]),
        (
            DIRECTOR,
            &["state", "state-public", "nights", "nights-public"][..],
        ),
    ] {
        let s = login(&srv, token, "");
        for part in parts {
            let b = get(&srv, &s.cookie, &format!("/part/{part}")).body;
            assert!(
                b.contains("本局还没有配置角色")
                    && !b.contains("class=\"error\"")
                    && !b.contains("has no role"),
                "{part}: {b}"
            );
        }
    }
}

#[test]
fn serve_refuses_unknown_serve_keys_missing_short_or_equal_tokens_and_a_missing_database() {
    let dir = scratch_dir("web-config");
    let cfg = dir.join("game.toml");
    let c = cfg.to_str().unwrap();
    let base = config_text(BASE);
    let serve_table = format!(
        "[serve]\ndirector_token = \"{DIRECTOR}\"\nmoderator_token = \"{MODERATOR}\"\npoll_secs = 1\n"
    );
    let cases = [
        (
            base.replace(
                &serve_table,
                &format!("{serve_table}director_tokn = \"x\"\n"),
            ),
            "director_tokn",
        ),
        (base.replace(&serve_table, ""), "no tokens"),
        (
            base.replace(DIRECTOR, "short"),
            "serve.director_token: 令牌至少 16 个字符",
        ),
        (
            base.replace(MODERATOR, DIRECTOR),
            "serve.moderator_token: 须与 director_token 不同",
        ),
        (
            base.replace(DIRECTOR, "abababababababababab"),
            "令牌太容易猜到",
        ),
        // A valid config, but no database yet.
        (base.clone(), "no database yet"),
    ];
    for (text, want) in cases {
        std::fs::write(&cfg, &text).unwrap();
        let (code, out, err) = bansha(&["serve", "--config", c, "--listen", "127.0.0.1:0"]);
        assert_eq!(code, 2, "{want}: {out}{err}");
        assert!(err.contains(want), "want {want:?} in: {err}");
        assert!(!err.contains(MODERATOR), "a token in a message: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// End-to-end in headless Chromium through chromedriver (the WebDriver protocol, spoken
/// with the small HTTP client above). Without chromium and chromedriver these tests fail
/// saying how to install them, unless `BANSHA_SKIP_BROWSER=1`.
mod browser {
    use std::net::TcpListener;
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use serde_json::{Value, json};

    use super::*;

    const SKIP_ENV: &str = "BANSHA_SKIP_BROWSER";

    fn which(bin: &str) -> Option<PathBuf> {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(bin))
                .find(|f| f.is_file())
        })
    }

    /// The browser, or None when the tests are told to skip it.
    pub fn chromium() -> Option<(PathBuf, PathBuf)> {
        let browser = ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .find_map(|b| which(b));
        let driver = which("chromedriver");
        match (browser, driver) {
            (Some(b), Some(d)) => Some((b, d)),
            _ if std::env::var(SKIP_ENV).is_ok_and(|v| v == "1") => {
                eprintln!("browser tests skipped ({SKIP_ENV}=1)");
                None
            }
            (b, d) => panic!(
                "the browser tests need chromium and chromedriver (found: chromium {}, chromedriver {}): \
                 install them with `apt-get install chromium chromium-driver` (as .ci/run does), \
                 or set {SKIP_ENV}=1 to skip these tests",
                b.is_some(),
                d.is_some()
            ),
        }
    }

    /// Poll `f` until it returns Some, or fail after `limit` saying what was awaited.
    pub fn wait_for<T>(what: &str, limit: Duration, mut f: impl FnMut() -> Option<T>) -> T {
        let start = Instant::now();
        loop {
            if let Some(v) = f() {
                return v;
            }
            assert!(start.elapsed() < limit, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A chromedriver process and one headless browser session; both end when dropped.
    pub struct Browser {
        driver: Child,
        addr: String,
        session: String,
    }

    impl Drop for Browser {
        fn drop(&mut self) {
            let _ = std::panic::catch_unwind(|| {
                http(
                    &self.addr,
                    "DELETE",
                    &format!("/session/{}", self.session),
                    &[],
                    "",
                )
            });
            let _ = self.driver.kill();
            let _ = self.driver.wait();
        }
    }

    impl Browser {
        pub fn start(width: u32, height: u32) -> Option<Browser> {
            let (chromium, chromedriver) = chromium()?;
            let port = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            // Chromium's own temporary folders go into a scratch folder of the test's
            // (removed when the test ends), not /tmp.
            let tmp = crate::common::scratch_dir(&format!("browser-{port}"));
            let driver = Command::new(chromedriver)
                .arg(format!("--port={port}"))
                .env("TMPDIR", &tmp)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start chromedriver");
            let addr = format!("127.0.0.1:{port}");
            let mut b = Browser {
                driver,
                addr,
                session: String::new(),
            };
            wait_for("chromedriver to listen", Duration::from_secs(30), || {
                TcpStream::connect(&b.addr).ok()
            });
            let caps = json!({"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": chromium.display().to_string(),
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                             "--disable-dev-shm-usage", "--lang=zh-CN",
                             format!("--window-size={width},{height}")],
                }
            }}});
            let v = b.call("POST", "/session", &caps);
            b.session = v["sessionId"]
                .as_str()
                .unwrap_or_else(|| panic!("no WebDriver session: {v}"))
                .to_string();
            Some(b)
        }

        /// One WebDriver command; its `value`.
        fn call(&self, method: &str, path: &str, body: &Value) -> Value {
            let body = if method == "GET" {
                String::new()
            } else {
                body.to_string()
            };
            let r = http(
                &self.addr,
                method,
                path,
                &[("Content-Type", "application/json; charset=utf-8")],
                &body,
            );
            let v: Value = serde_json::from_str(&r.body)
                .unwrap_or_else(|e| panic!("chromedriver {path}: {e}: {}", r.body));
            assert_eq!(r.status, 200, "chromedriver {method} {path}: {v}");
            v["value"].clone()
        }

        fn cmd(&self, method: &str, what: &str, body: Value) -> Value {
            self.call(method, &format!("/session/{}{what}", self.session), &body)
        }

        pub fn goto(&self, url: &str) {
            self.cmd("POST", "/url", json!({ "url": url }));
        }

        pub fn find(&self, css: &str) -> String {
            let v = self.cmd(
                "POST",
                "/element",
                json!({"using": "css selector", "value": css}),
            );
            v.as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("no element {css}: {v}"))
                .to_string()
        }

        pub fn click(&self, css: &str) {
            let e = self.find(css);
            self.cmd("POST", &format!("/element/{e}/click"), json!({}));
        }

        pub fn type_into(&self, css: &str, text: &str) {
            let e = self.find(css);
            self.cmd(
                "POST",
                &format!("/element/{e}/value"),
                json!({ "text": text }),
            );
        }

        /// Run a script in the page (a returned promise is awaited).
        pub fn js(&self, script: &str) -> Value {
            self.cmd(
                "POST",
                "/execute/sync",
                json!({"script": script, "args": []}),
            )
        }

        pub fn sign_in(&self, srv: &Server, token: &str, name: &str) {
            self.goto(&format!("http://{}/login", srv.addr));
            self.type_into("input[name=token]", token);
            if !name.is_empty() {
                self.type_into("input[name=name]", name);
            }
            self.click("button[type=submit]");
            wait_for("the signed-in page", Duration::from_secs(20), || {
                (self.js("return location.pathname") == "/day").then_some(())
            });
        }

        /// A PNG of the page as it is shown.
        pub fn screenshot(&self) -> Vec<u8> {
            let v = self.cmd("GET", "/screenshot", json!({}));
            base64_decode(v.as_str().expect("a base64 screenshot"))
        }

        /// Make the window as tall as the page (for screenshots of the whole view).
        pub fn fit_height(&self, width: u32) {
            let h = self
                .js("return Math.ceil(document.documentElement.scrollHeight)")
                .as_u64()
                .unwrap_or(1200)
                .clamp(600, 6000);
            self.cmd(
                "POST",
                "/window/rect",
                json!({"width": width, "height": h + 140}),
            );
        }
    }

    fn base64_decode(s: &str) -> Vec<u8> {
        let val = |c: u8| -> Option<u32> {
            Some(match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => return None,
            } as u32)
        };
        let mut out = Vec::with_capacity(s.len() * 3 / 4);
        let (mut acc, mut bits) = (0u32, 0);
        for v in s.bytes().filter_map(val) {
            acc = (acc << 6) | v;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
                acc &= (1 << bits) - 1;
            }
        }
        out
    }

    /// The text of the first element matching `css` ("" when there is none).
    pub fn text_of(b: &Browser, css: &str) -> String {
        b.js(&format!(
            "var e=document.querySelector({});return e?e.textContent:''",
            serde_json::to_string(css).unwrap()
        ))
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    fn ledger_blue(b: &Browser, player: &str) -> Option<u64> {
        b.js(&format!(
            "var r=document.querySelector('#ledger tr[data-player=\"{player}\"]');return r?+r.children[1].textContent:null"
        ))
        .as_u64()
    }

    #[test]
    fn browser_a_moderator_confirms_a_flag_and_the_ledger_changes() {
        let Some(b) = Browser::start(1280, 1400) else {
            return;
        };
        let fx = fixture("br-confirm");
        let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
        let id = xss_flag_id(&fx.cfg);
        b.sign_in(&srv, MODERATOR, "版主甲");
        b.goto(&format!("http://{}/flags", srv.addr));
        assert_eq!(ledger_blue(&b, "子鼠"), None, "no card yet");
        b.js("window.__same_page = 1; return 1");
        b.click(&format!("#flag-{id} button.confirm[data-card=blue]"));
        // Answered in place: the ledger row and the message in the flag, no reload.
        let (blue, said) = wait_for("the ledger row", Duration::from_secs(20), || {
            let said = text_of(&b, &format!("#flag-{id} .answer"));
            ledger_blue(&b, "子鼠")
                .filter(|_| !said.is_empty())
                .map(|n| (n, said))
        });
        assert_eq!(blue, 1);
        assert_eq!(flag_status(&fx.cfg, id), "confirmed");
        assert!(said.contains("已确认") && said.contains("蓝牌"), "{said}");
        assert_eq!(
            b.js("return window.__same_page"),
            1,
            "the page was reloaded"
        );
        // The same decision the CLI makes: `bansha cards` lists it, by the moderator.
        let (code, out, err) = bansha(&["cards", "--config", fx.cfg.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("子鼠 蓝牌") && out.contains("版主甲 (moderator)"),
            "{out}"
        );
    }

    #[test]
    fn browser_an_xss_payload_in_a_post_renders_as_text() {
        let Some(b) = Browser::start(1280, 1400) else {
            return;
        };
        let fx = fixture("br-xss");
        let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
        let id = xss_flag_id(&fx.cfg);
        b.sign_in(&srv, DIRECTOR, "");
        for page in ["/flags", "/day"] {
            b.goto(&format!("http://{}{page}", srv.addr));
            let v = b.js(
                "return [typeof window.__xss, document.querySelectorAll('main img, main script, main [onerror], main [onmouseover]').length]",
            );
            assert_eq!(
                v,
                json!(["undefined", 0]),
                "{page}: the payload ran or is live"
            );
        }
        b.goto(&format!("http://{}/flags", srv.addr));
        let text = b.js(&format!(
            "return document.querySelector('#flag-{id} .post').textContent"
        ));
        assert_eq!(text.as_str().unwrap(), XSS, "shown as the player wrote it");
        let marked = b.js(&format!(
            "return document.querySelector('#flag-{id} .post mark').textContent"
        ));
        assert_eq!(marked, "傻逼");
    }

    #[test]
    fn browser_a_moderator_token_cannot_see_roles_or_night_feedback() {
        let Some(b) = Browser::start(1280, 1400) else {
            return;
        };
        let fx = fixture("br-roles");
        let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
        b.sign_in(&srv, MODERATOR, "版主甲");
        for page in ["/day", "/flags", "/game"] {
            b.goto(&format!("http://{}{page}", srv.addr));
            let text = b.js("return document.body.innerText");
            let text = text.as_str().unwrap();
            for (_, role) in SEATS {
                assert!(!text.contains(role), "{page} shows {role}:\n{text}");
            }
            assert!(
                !text.contains("私信"),
                "{page} shows private feedback:\n{text}"
            );
        }
        // Asking for the sections directly, from the signed-in page, is refused.
        let codes = b.js(
            "return Promise.all(['/part/state','/part/nights','/part/tally-director?day=1','/part/state-public'].map(function(u){return fetch(u).then(function(r){return r.status;});}))",
        );
        assert_eq!(codes, json!([403, 403, 403, 200]));
    }

    #[test]
    fn browser_an_action_without_the_csrf_token_is_refused() {
        let Some(b) = Browser::start(1280, 1400) else {
            return;
        };
        let fx = fixture("br-csrf");
        let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
        let id = xss_flag_id(&fx.cfg);
        b.sign_in(&srv, MODERATOR, "版主甲");
        b.goto(&format!("http://{}/flags", srv.addr));
        // A script in the page posting without the token (the cookie goes along).
        let code = b.js(&format!(
            "return fetch('/flags/{id}/confirm',{{method:'POST',headers:{{'Content-Type':'application/x-www-form-urlencoded'}},body:'card=red'}}).then(function(r){{return r.status;}})"
        ));
        assert_eq!(code, 403);
        // The page's own form with its token removed (the field and the page's copy).
        b.js(&format!(
            "document.querySelectorAll('#flag-{id} input[name=csrf]').forEach(function(e){{e.remove();}});delete document.body.dataset.csrf;return 1"
        ));
        b.click(&format!("#flag-{id} button.dismiss"));
        let said = wait_for("the refusal", Duration::from_secs(20), || {
            let t = text_of(&b, &format!("#flag-{id} .answer"));
            t.contains("CSRF").then_some(t)
        });
        assert!(said.contains("拒绝"), "a Chinese refusal: {said}");
        assert_eq!(flag_status(&fx.cfg, id), "open", "nothing changed");
    }

    /// The two windows every page is tried in: a desktop, and a 390×844 phone.
    const VIEWPORTS: [(u32, u32, &str); 2] = [(1280, 900, "desktop"), (390, 844, "phone")];

    /// The page fits the window's width: nothing makes it scroll sideways.
    fn assert_no_sideways_overflow(b: &Browser, what: &str) {
        let v = b.js(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]",
        );
        let (sw, cw) = (v[0].as_u64().unwrap(), v[1].as_u64().unwrap());
        assert!(sw <= cw + 1, "{what}: {sw} px wide in a {cw} px window");
    }

    /// On a phone: every visible button and checkbox is big enough to touch.
    fn assert_touch_sized(b: &Browser, what: &str) {
        let small = b.js(
            "var out=[];document.querySelectorAll('main button, main input[type=checkbox]').forEach(function(e){var r=e.getBoundingClientRect();if(!r.width) return;var min=e.tagName==='INPUT'?24:44;if(r.height<min-0.5) out.push(e.tagName+' '+e.textContent+' '+r.height);});return out",
        );
        assert_eq!(small, json!([]), "{what}: controls too small to touch");
    }

    #[test]
    fn browser_the_moderators_queue_on_a_desktop_and_a_phone() {
        for (w, h, label) in VIEWPORTS {
            let Some(b) = Browser::start(w, h) else {
                return;
            };
            let fx = fixture(&format!("br-queue-{label}"));
            let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
            let xss = xss_flag_id(&fx.cfg);
            let quoted = {
                let c = bansha::config::Config::load(&fx.cfg).unwrap();
                let st = bansha::store::Store::open(&c.db_path()).unwrap();
                st.flags(&c.forum_key())
                    .unwrap()
                    .into_iter()
                    .find(|f| f.flag.pid == 8003)
                    .expect("the quoted insult is flagged")
                    .id
            };
            b.sign_in(&srv, MODERATOR, "版主甲");
            b.goto(&format!("http://{}/flags", srv.addr));
            // The flagged span is marked, not the quoted (first) occurrence.
            let before_mark = b.js(&format!(
                "var m=document.querySelector('#flag-{quoted} .post mark'),t='';for(var n=m.previousSibling;n;n=n.previousSibling)t=n.textContent+t;return t"
            ));
            assert_eq!(before_mark, "“傻逼”是他先说的，你才是", "{label}");
            // In Chinese, with the thread, the day and the phrase the whitelist box names.
            let text = b.js("return document.querySelector('main').innerText");
            let text = text.as_str().unwrap();
            for english in ["open", "confirmed", "insult", "moderator", "forbidden"] {
                assert!(!text.contains(english), "{label}: `{english}` in:\n{text}");
            }
            let head = text_of(&b, &format!("#flag-{quoted} .fhead"));
            assert!(
                head.contains("第1天 讨论帖 4楼") && head.contains("待处理"),
                "{head}"
            );
            let wl = text_of(&b, &format!("#flag-{quoted} label.wl"));
            assert_eq!(wl, "本局不再标记「傻逼」");
            // Keyboard: j goes to the first flag, again to the next.
            b.type_into("body", "j");
            let first = b.js("return document.activeElement.id");
            b.type_into("body", "j");
            let second = b.js("return document.activeElement.id");
            assert_eq!(
                (first, second),
                (
                    json!(format!("flag-{xss}")),
                    json!(format!("flag-{quoted}"))
                ),
                "{label}"
            );
            if label == "phone" {
                assert_no_sideways_overflow(&b, "the queue on a phone");
                assert_touch_sized(&b, "the queue on a phone");
                let name_h = b.js(&format!(
                    "var e=document.querySelector('#flag-{quoted} .author');return e.getBoundingClientRect().height/parseFloat(getComputedStyle(e).fontSize)"
                ));
                assert!(
                    name_h.as_f64().unwrap_or(9.0) < 2.0,
                    "a name wraps: {name_h}"
                );
            }
            // A box ticked and the page's place survive another's decision arriving.
            b.click(&format!("#flag-{quoted} label.wl input"));
            // The reader is at the second flag (room below so the page can keep it there).
            let top = format!(
                "return Math.round(document.getElementById('flag-{quoted}').getBoundingClientRect().top)"
            );
            b.js(&format!(
                "window.__same_page = 1; document.querySelector('main').style.paddingBottom='3000px'; document.getElementById('flag-{quoted}').scrollIntoView(); return 1"
            ));
            let y0 = b.js(&top);
            let (code, out, err) = bansha(&[
                "flags",
                "--config",
                fx.cfg.to_str().unwrap(),
                "confirm",
                &xss.to_string(),
                "--by",
                "版主乙 (moderator)",
            ]);
            assert_eq!(code, 0, "{out}{err}");
            wait_for(
                "the other moderator's decision on the page",
                Duration::from_secs(20),
                || {
                    (b.js(&format!(
                        "var a=document.getElementById('flag-{xss}');return a?a.dataset.open:''"
                    )) == "false")
                        .then_some(())
                },
            );
            let kept = b.js(&format!(
                "return [document.querySelector('#flag-{quoted} label.wl input').checked, window.__same_page]"
            ));
            assert_eq!(
                kept,
                json!([true, 1]),
                "{label}: the box or the page was lost"
            );
            assert_eq!(b.js(&top), y0, "{label}: the reader's place moved");
            // A red card asks first; 取消 leaves it open; 确定 answers in place with what
            // the card caused.
            b.click(&format!("#flag-{quoted} button[data-card=red]"));
            let ask = text_of(&b, &format!("#flag-{quoted} .ask"));
            assert!(ask.contains("罚下"), "{label}: {ask}");
            b.click(&format!("#flag-{quoted} .ask button.no"));
            assert_eq!(text_of(&b, &format!("#flag-{quoted} .ask")), "");
            assert_eq!(flag_status(&fx.cfg, quoted), "open");
            b.click(&format!("#flag-{quoted} button[data-card=red]"));
            b.click(&format!("#flag-{quoted} .ask button.yes"));
            let said = wait_for("the red card's answer", Duration::from_secs(20), || {
                let t = text_of(&b, &format!("#flag-{quoted} .answer"));
                (!t.is_empty()).then_some(t)
            });
            assert!(
                said.contains("红牌") && said.contains("卯兔 被罚下"),
                "{said}"
            );
            assert_eq!(flag_status(&fx.cfg, quoted), "confirmed");
            assert_eq!(b.js("return window.__same_page"), 1);
            if label == "phone" {
                assert_no_sideways_overflow(&b, "the queue and ledger on a phone");
                let len = b.js("return document.documentElement.scrollHeight");
                assert!(len.as_u64().unwrap() < 6000, "a {len} px page");
            }
        }
    }

    #[test]
    fn browser_the_directors_day_on_a_desktop_and_a_phone() {
        for (w, h, label) in VIEWPORTS {
            let Some(b) = Browser::start(w, h) else {
                return;
            };
            let fx = fixture(&format!("br-day-{label}"));
            let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
            b.sign_in(&srv, DIRECTOR, "导演");
            b.goto(&format!("http://{}/day?day=1", srv.addr));
            let header = text_of(&b, "header");
            assert!(header.contains("Asia/Shanghai"), "{header}");
            assert!(!text_of(&b, "#last-sync").is_empty());
            assert!(!text_of(&b, "#daemon").is_empty());
            // The countdown to 关门 runs.
            let c0 = text_of(&b, "#countdown");
            assert!(c0.contains("小时"), "{c0}");
            wait_for("the countdown to tick", Duration::from_secs(10), || {
                (text_of(&b, "#countdown") != c0).then_some(())
            });
            // Before 关门 the activity is marked interim, its 公示 too.
            assert!(text_of(&b, "#activity-interim").contains("暂定"));
            let titles = b.js(
                "return Array.prototype.map.call(document.querySelectorAll('#activity .bbhead span'),function(e){return e.textContent})",
            );
            assert_eq!(titles, json!(["发言统计公示（暂定）"]));
            // The day's fixed cards wait for 关门.
            assert!(text_of(&b, "#activity").contains("关门后才能确认"));
            // What changed since a moment, and the 电梯楼.
            assert!(text_of(&b, "#changes summary").contains("变动"));
            assert!(text_of(&b, "#elevator pre").contains("电梯"));
            if label == "phone" {
                assert_no_sideways_overflow(&b, "the day on a phone");
            }
            // 局势 as an aligned table.
            b.goto(&format!("http://{}/game", srv.addr));
            let cells = b.js("return document.querySelectorAll('#state table.report td').length");
            assert!(cells.as_u64().unwrap() > 12, "{cells}");
            if label == "phone" {
                assert_no_sideways_overflow(&b, "the game on a phone");
            }
            // The server gone: the page says its data may be stale.
            b.goto(&format!("http://{}/day?day=1", srv.addr));
            drop(srv);
            let live = wait_for("the stale mark", Duration::from_secs(20), || {
                let t = text_of(&b, "#live");
                t.contains("连不上").then_some(t)
            });
            assert!(live.contains("过时"), "{live}");
        }
    }

    #[test]
    fn browser_sign_in_refusals_are_chinese_and_the_director_ends_a_session() {
        for (w, h, label) in VIEWPORTS {
            let Some(b) = Browser::start(w, h) else {
                return;
            };
            let fx = fixture(&format!("br-signin-{label}"));
            let srv = Server::start(&fx.cfg, DURING_DAY1, &[]);
            // A moderator calling himself 导演A is told why, on the form.
            b.goto(&format!("http://{}/login", srv.addr));
            b.type_into("input[name=token]", MODERATOR);
            b.type_into("input[name=name]", "导演A");
            b.click("button[type=submit]");
            let msg = wait_for("the refusal", Duration::from_secs(20), || {
                let t = text_of(&b, "p.error");
                (!t.is_empty()).then_some(t)
            });
            assert!(msg.contains("名字里不能有「导演」"), "{msg}");
            if label == "phone" {
                assert_no_sideways_overflow(&b, "the sign-in form on a phone");
            }
            // Signed in properly, the moderator works the queue …
            b.sign_in(&srv, MODERATOR, "版主甲");
            b.goto(&format!("http://{}/flags", srv.addr));
            // … until the director ends that sign-in: the page goes back to the form.
            let d = login(&srv, DIRECTOR, "导演");
            let handle = session_handle(&srv, &d, "版主甲");
            let r = act_as(&srv, &d, &format!("/sessions/{handle}/end"), "", &[]);
            assert_eq!(r.status, 303);
            wait_for("the page to leave", Duration::from_secs(20), || {
                (b.js("return location.pathname") == "/login").then_some(())
            });
        }
    }

    /// The test forum serving day 1's threads (the players as users), for the daemon.
    fn forum_spec() -> bansha_testforum::ForumSpec {
        use bansha_testforum::{ForumInfo, ForumSpec, PostSpec, ThreadSpec, UserSpec};
        let mut s = ForumSpec::default();
        s.site.human_time = false;
        s.site.now = Some(DURING_DAY1.into());
        s.users = std::iter::once(("导演", 1))
            .chain(
                SEATS
                    .iter()
                    .enumerate()
                    .map(|(i, (n, _))| (*n, 100 + i as u64)),
            )
            .map(|(n, uid)| UserSpec {
                uid,
                name: n.to_string(),
                password: None,
            })
            .collect();
        s.forums = vec![ForumInfo {
            fid: 2,
            name: "版杀".into(),
        }];
        let t = |tid: u64, subject: &str, posts: Vec<PostSpec>| ThreadSpec {
            tid,
            fid: 2,
            subject: subject.into(),
            posts,
        };
        s.threads = vec![
            t(
                800,
                "D1 讨论帖",
                vec![
                    PostSpec::new("导演", "2026-03-02 09:00", "第一天讨论开始"),
                    PostSpec::new("寅虎", "2026-03-02 10:05", "我觉得丑牛可疑"),
                ],
            ),
            t(
                801,
                "D1 投票帖",
                vec![
                    PostSpec::new("导演", "2026-03-02 09:00", "投票开始"),
                    PostSpec::new("子鼠", "2026-03-02 11:00", "投票对象：寅虎\n投票理由：划水"),
                ],
            ),
            t(
                802,
                "D1 进程帖",
                vec![PostSpec::new("导演", "2026-03-02 09:00", "进程帖")],
            ),
        ];
        s
    }

    #[test]
    fn browser_a_new_ballot_appears_on_the_open_page_while_the_daemon_syncs() {
        let Some(b) = Browser::start(1280, 1400) else {
            return;
        };
        let forum = bansha_testforum::TestForum::start(forum_spec()).unwrap();
        let dir = scratch_dir("web-br-live");
        let cfg = dir.join("game.toml");
        let cookies = dir.join("cookies.txt");
        forum.write_cookies_txt(&cookies, 1).unwrap();
        let text = config_text(&forum.base_url()).replace(
            "min_interval_ms = 5\n",
            &format!(
                "min_interval_ms = 5\ncookie_file = \"{}\"\n[daemon]\npoll_interval_secs = 1\nfinal_hour_interval_secs = 1\n",
                cookies.display()
            ),
        );
        std::fs::write(&cfg, text).unwrap();
        let bansha_at = |args: &[&str]| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_bansha"));
            c.args(args)
                .arg("--config")
                .arg(&cfg)
                .env(bansha::time::CLOCK_START_ENV, DURING_DAY1)
                .stdin(Stdio::null());
            c
        };
        let out = bansha_at(&["sync"]).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let log = dir.join("run.log");
        struct Kill(Child);
        impl Drop for Kill {
            fn drop(&mut self) {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
        let mut daemon = Kill(
            bansha_at(&["run"])
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .unwrap(),
        );
        let srv = Server::start(&cfg, DURING_DAY1, &[]);
        b.sign_in(&srv, DIRECTOR, "导演");
        b.goto(&format!("http://{}/day?day=1", srv.addr));
        let text_of = |css: &str| -> String {
            b.js(&format!(
                "var e=document.querySelector('{css}');return e?e.textContent:''"
            ))
            .as_str()
            .unwrap_or("")
            .to_string()
        };
        let before = text_of("#tally-public pre");
        assert!(before.contains("子鼠"), "{before}");
        assert!(!before.contains("丑牛"), "{before}");
        // Mark this page load: a reload would lose it.
        b.js("window.__same_page = 1; return 1");
        let t = bansha::time::parse_local("2026-03-03 11:30", chrono_tz::Asia::Shanghai).unwrap();
        forum.add_post(801, "丑牛", "投票对象：子鼠\n投票理由：跟风", t);
        // Every section is fetched again; each is replaced when its answer arrives.
        let (public, director, not_voted) = wait_for(
            "the new ballot in the open page's sections",
            Duration::from_secs(60),
            || {
                if let Ok(Some(st)) = daemon.0.try_wait() {
                    panic!(
                        "the daemon exited ({st:?}):\n{}",
                        std::fs::read_to_string(&log).unwrap_or_default()
                    );
                }
                let p = text_of("#tally-public pre");
                let d = text_of("#tally-director pre");
                let n = text_of("#not-voted");
                (p.contains("丑牛") && d.contains("丑牛") && !n.is_empty() && !n.contains("丑牛"))
                    .then_some((p, d, n))
            },
        );
        assert!(public.contains("子鼠"), "{public}");
        assert!(director.contains("丑牛"), "{director}");
        assert!(!not_voted.contains("丑牛"), "{not_voted}");
        assert_eq!(
            b.js("return window.__same_page"),
            1,
            "the page was reloaded"
        );
        drop(daemon);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The screenshots in `docs/` (`docs/web-*.png`): the sample game of `bansha demo`,
    /// with roles, two nights and one confirmed card added. Every run takes them (into a
    /// scratch folder) and checks each view renders; `BANSHA_WRITE_SCREENSHOTS=1` writes
    /// them into `docs/` instead:
    /// `BANSHA_WRITE_SCREENSHOTS=1 cargo test --test integration web::browser::screenshots`.
    #[test]
    fn screenshots_of_the_sample_game() {
        let Some(b) = Browser::start(1280, 1000) else {
            return;
        };
        let dir = scratch_dir("web-shots");
        let (code, out, err) = bansha(&["demo", "--dir", dir.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}\n{err}");
        let cfg = dir.join("game.toml");
        let roles = [
            "狼人",
            "预言家",
            "村民",
            "女巫",
            "狼人",
            "村民",
            "村长",
            "医生",
            "狼人",
            "村民",
            "丘比特",
            "村民",
            "猎人",
            "村民",
            "混血儿",
            "村民",
            "村民",
            "村民",
        ];
        let mut text = std::fs::read_to_string(&cfg).unwrap();
        for (i, r) in roles.iter().enumerate() {
            text = text.replace(
                &format!("seat = {}\n", i + 1),
                &format!("seat = {}\nrole = \"{r}\"\n", i + 1),
            );
        }
        // The engine records 夜未央's night death itself (night 1 below).
        text = text.replace(
            "[[event]]\nkind = \"out\"\nplayer = \"夜未央\"\nat = \"2026-03-04 08:00\"\ncause = \"night\"\n",
            "",
        );
        text.push_str(&format!(
            "\n[serve]\ndirector_token = \"{DIRECTOR}\"\nmoderator_token = \"{MODERATOR}\"\n"
        ));
        std::fs::write(&cfg, text).unwrap();
        let c = cfg.to_str().unwrap();
        let nights = [
            "[[action]]\nactor = \"一只咸鱼\"\nskill = \"丘比特之箭\"\ntargets = [\"小鱼干\", \"老王\"]\n[[action]]\nactor = \"山有木兮\"\nskill = \"认亲\"\ntargets = [\"傻树\"]\n",
            "[[action]]\nactor = \"阿狸\"\nskill = \"杀人\"\ntargets = [\"夜未央\"]\n[[action]]\nactor = \"白色防御者\"\nskill = \"预言\"\ntargets = [\"星河\"]\n",
        ];
        for (n, a) in nights.iter().enumerate() {
            let f = dir.join(format!("n{n}.toml"));
            std::fs::write(&f, a).unwrap();
            let (code, out, err) = bansha(&[
                "night",
                "--config",
                c,
                "--night",
                &n.to_string(),
                "--actions",
                f.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "night {n}: {out}\n{err}");
        }
        let (code, _, err) = bansha(&["flags", "--config", c]);
        assert_eq!(code, 0, "{err}");
        let (code, out, err) = bansha(&[
            "flags",
            "--config",
            c,
            "confirm",
            "1",
            "--by",
            "版主甲 (moderator)",
            "--at",
            "2026-03-05 21:30",
        ]);
        assert_eq!(code, 0, "{out}\n{err}");
        // Day 2 extended to 23:00 (延时), so at 22:05 it is still open: the interim marks
        // and the countdown show, and the data synced at 22:00 is fresh.
        let text = std::fs::read_to_string(&cfg).unwrap().replace(
            "closes = \"2026-03-05 21:00\"",
            "closes = \"2026-03-05 23:00\"",
        );
        std::fs::write(&cfg, text).unwrap();
        let srv = Server::start(&cfg, "2026-03-05 22:05", &[]);
        let docs = if std::env::var_os("BANSHA_WRITE_SCREENSHOTS").is_some() {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs")
        } else {
            dir.join("shots")
        };
        std::fs::create_dir_all(&docs).unwrap();
        // `then` runs in the page before the picture (e.g. opening a confirmation).
        let shot = |path: &str, file: &str, width: u32, then: &str| {
            b.cmd(
                "POST",
                "/window/rect",
                json!({"width": width, "height": 844}),
            );
            b.goto(&format!("http://{}{path}", srv.addr));
            if !then.is_empty() {
                b.js(then);
            }
            b.fit_height(width);
            let png = b.screenshot();
            assert!(png.starts_with(b"\x89PNG"), "{file}: not a PNG");
            // A rendered view, not a blank or error page: the app's own header is there.
            assert_eq!(
                b.js("return document.querySelectorAll('header').length"),
                1,
                "{file}: {path} did not render the page"
            );
            std::fs::write(docs.join(file), png).unwrap();
        };
        let ask_red = "var b=document.querySelector('article.flag[data-open=true] button[data-card=red]'); if(b) b.click(); return 1";
        b.sign_in(&srv, DIRECTOR, "导演A");
        shot("/day?day=2", "web-day.png", 1280, "");
        shot("/day?day=2", "web-day-phone.png", 390, "");
        shot("/game", "web-game.png", 1280, "");
        b.goto(&format!("http://{}/day", srv.addr));
        b.js("document.querySelector('header form').submit(); return 1");
        wait_for("the login page", Duration::from_secs(20), || {
            (b.js("return location.pathname") == "/login").then_some(())
        });
        b.sign_in(&srv, MODERATOR, "版主甲");
        shot("/flags", "web-flags.png", 1280, ask_red);
        shot("/flags", "web-flags-phone.png", 390, ask_red);
        shot("/game", "web-game-moderator.png", 1280, "");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
