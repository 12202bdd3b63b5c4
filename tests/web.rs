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
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
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
    let r = post(
        &srv2,
        Some(&s.cookie),
        "/logout",
        &format!("csrf={}", s.csrf),
        &[],
    );
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
    let r = post(
        &srv,
        Some(&m.cookie),
        "/cards/1/withdraw",
        &format!("csrf={}", m.csrf),
        &[],
    );
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
            post(
                &srv,
                Some(&m.cookie),
                &path,
                &format!("card=blue&csrf={}", m.csrf),
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
    let r = post(
        &srv,
        Some(&m.cookie),
        &path,
        &format!("card=red&csrf={}", m.csrf),
        &[],
    );
    assert_eq!(r.status, 409, "{r:?}");
    assert!(r.body.contains("already confirmed"), "{}", r.body);
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
        flags.contains("&lt;script&gt;window.__xss=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt; 你是<mark>傻逼</mark>"),
        "{flags}"
    );
    // The ballot with markup: in both tallies as text.
    let t = get(&srv, &d.cookie, "/part/tally-director?day=1").body;
    assert!(t.contains("&lt;script&gt;") || t.contains("&lt;b"), "{t}");
}
