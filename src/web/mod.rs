//! `bansha serve`: the web page for the director and the moderators, over the store the
//! daemon writes. Server-rendered HTML (axum on the current-thread tokio runtime) and a
//! small script that polls [`App::version`] and reloads the page's sections when the store
//! changes.
//!
//! Invariants (as absences):
//! - No tally, activity, flag, ledger or night logic here: each section is the output of
//!   the library function the matching CLI command calls (`views.rs`).
//! - No write to the store except a flag decision (confirm/dismiss) and a card withdrawal,
//!   through the same functions as `bansha flags confirm|dismiss` and `bansha cards
//!   withdraw`. Flags are never scanned here (the daemon and `bansha flags` do that).
//! - No token in a URL, a log line or a page: it is POSTed once to `/login`, then a
//!   random session id in an HttpOnly, SameSite=Strict cookie stands for it.
//! - No POST without a session and its CSRF token (403), no cross-site POST (Origin).
//! - No player-written string reaches the page unescaped ([`html::esc`]); the page's
//!   Content-Security-Policy allows only its own nonce'd script and style.
//! - No director-only section (roles, night feedback, the director's tally) for a
//!   moderator session: 403, and the moderator's pages never include them.

pub mod html;
pub mod views;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;
use axum::routing::{get, post};

use crate::config::Config;
use crate::rules::RuleSet;
use crate::store::Store;
use crate::time::Clock;
use views::{Ctx, Part};

/// The environment variables that override `[serve]`'s tokens.
pub const DIRECTOR_TOKEN_ENV: &str = "BANSHA_DIRECTOR_TOKEN";
pub const MODERATOR_TOKEN_ENV: &str = "BANSHA_MODERATOR_TOKEN";
/// Where `bansha serve` listens unless told otherwise: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8075";
const COOKIE: &str = "bansha_session";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Director,
    Moderator,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Director => "director",
            Role::Moderator => "moderator",
        }
    }
    fn zh(self) -> &'static str {
        match self {
            Role::Director => "导演",
            Role::Moderator => "版主",
        }
    }
}

/// The two tokens (either may be absent; at least one is present).
#[derive(Clone)]
pub struct Tokens {
    pub director: Option<String>,
    pub moderator: Option<String>,
}

/// The tokens from `[serve]`, each overridden by its environment variable.
pub fn tokens(cfg: &Config) -> Result<Tokens, String> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let t = Tokens {
        director: env(DIRECTOR_TOKEN_ENV).or_else(|| cfg.serve.director_token.clone()),
        moderator: env(MODERATOR_TOKEN_ENV).or_else(|| cfg.serve.moderator_token.clone()),
    };
    for (name, v) in [
        (DIRECTOR_TOKEN_ENV, &t.director),
        (MODERATOR_TOKEN_ENV, &t.moderator),
    ] {
        if v.as_ref().is_some_and(|v| v.trim().chars().count() < 16) {
            return Err(format!(
                "{name}: a token needs at least 16 characters (e.g. `openssl rand -hex 16`)"
            ));
        }
    }
    if t.director.is_none() && t.moderator.is_none() {
        return Err(format!(
            "{}: no tokens: set [serve] director_token / moderator_token, or {DIRECTOR_TOKEN_ENV} / {MODERATOR_TOKEN_ENV}",
            cfg.path.display()
        ));
    }
    if t.director.is_some() && t.director == t.moderator {
        return Err(
            "the director's and the moderators' tokens must differ (the roles see different things)"
                .into(),
        );
    }
    Ok(t)
}

#[derive(Clone)]
struct Session {
    role: Role,
    name: Option<String>,
    csrf: String,
    flash: Option<String>,
}

impl Session {
    /// Recorded as `--by` on a decision: the name given at login, and the role.
    fn by(&self) -> String {
        match &self.name {
            Some(n) => format!("{n} ({})", self.role.as_str()),
            None => self.role.as_str().to_string(),
        }
    }
    fn who(&self) -> String {
        match &self.name {
            Some(n) => format!("{n}（{}）", self.role.zh()),
            None => self.role.zh().to_string(),
        }
    }
}

/// The server's state: the config's path (reloaded per request), the tokens, one store
/// connection, the sessions.
pub struct App {
    config: PathBuf,
    rules: PathBuf,
    game: String,
    tokens: Tokens,
    store: Mutex<Store>,
    /// Decisions made through this connection (SQLite's data_version counts only others').
    writes: AtomicU64,
    sessions: Mutex<HashMap<String, Session>>,
    clock: Arc<dyn Clock>,
    poll_secs: u64,
}

impl App {
    /// Open the game's existing database (read-write: decisions are written).
    pub fn new(cfg: &Config, tokens: Tokens, clock: Arc<dyn Clock>) -> Result<App, String> {
        let db = cfg.db_path();
        if !db.is_file() {
            return Err(format!(
                "{}: no database yet (run `bansha sync` or `bansha import` first)",
                db.display()
            ));
        }
        let store = Store::open(&db).map_err(|e| e.to_string())?;
        Ok(App {
            config: cfg.path.clone(),
            rules: cfg.rules_path(),
            game: cfg.game.name.clone(),
            tokens,
            store: Mutex::new(store),
            writes: AtomicU64::new(0),
            sessions: Mutex::new(HashMap::new()),
            clock,
            poll_secs: cfg.serve.poll_secs.unwrap_or(3),
        })
    }

    /// Changes whenever the page may show something new: another connection committed to
    /// the store (the daemon stored posts, a CLI decided a flag), this server decided
    /// something, or the config or rule file was edited.
    pub fn version(&self) -> String {
        let dv = self
            .store
            .lock()
            .map(|s| s.data_version().unwrap_or(-1))
            .unwrap_or(-1);
        let mtime = |p: &std::path::Path| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos())
        };
        format!(
            "{dv}.{}.{}.{}",
            self.writes.load(Ordering::SeqCst),
            mtime(&self.config),
            mtime(&self.rules)
        )
    }

    fn role_of(&self, token: &str) -> Option<Role> {
        // Both compared, in constant time, whatever the first answer.
        let d = self
            .tokens
            .director
            .as_ref()
            .is_some_and(|t| ct_eq(t.as_bytes(), token.as_bytes()));
        let m = self
            .tokens
            .moderator
            .as_ref()
            .is_some_and(|t| ct_eq(t.as_bytes(), token.as_bytes()));
        if d {
            Some(Role::Director)
        } else if m {
            Some(Role::Moderator)
        } else {
            None
        }
    }

    fn session(&self, headers: &HeaderMap) -> Option<(String, Session)> {
        let id = cookie(headers, COOKIE)?;
        let s = self.sessions.lock().ok()?;
        s.get(&id).cloned().map(|x| (id, x))
    }

    fn load(&self) -> Result<(Config, RuleSet), String> {
        let cfg = Config::load(&self.config).map_err(|e| e.to_string())?;
        let rules = RuleSet::load(&cfg.rules_path()).map_err(|e| e.to_string())?;
        Ok((cfg, rules))
    }
}

/// Equal, in time that depends only on the lengths of the digests (always 32 bytes).
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use ring::digest::{SHA256, digest};
    let (x, y) = (digest(&SHA256, a), digest(&SHA256, b));
    x.as_ref()
        .iter()
        .zip(y.as_ref().iter())
        .fold(0u8, |acc, (p, q)| acc | (p ^ q))
        == 0
}

/// `n` random bytes from the operating system, hex.
fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    getrandom::getrandom(&mut b).expect("the operating system's random source");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

fn form(body: &str) -> HashMap<String, String> {
    form_urlencoded::parse(body.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn query(uri: &Uri) -> HashMap<String, String> {
    form(uri.query().unwrap_or(""))
}

/// A POST from another site (its Origin is not this host, or the browser says
/// cross-site) is refused whatever it carries.
fn same_origin(headers: &HeaderMap) -> bool {
    let h = |k: header::HeaderName| headers.get(k).and_then(|v| v.to_str().ok());
    if headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == "cross-site")
    {
        return false;
    }
    match (h(header::ORIGIN), h(header::HOST)) {
        (None, _) => true,
        (Some(o), Some(host)) => o.split_once("://").is_some_and(|(_, a)| a == host),
        (Some(_), None) => false,
    }
}

fn respond(status: StatusCode, ctype: &str, body: String, nonce: Option<&str>) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    let h = r.headers_mut();
    let set = |h: &mut HeaderMap, k: header::HeaderName, v: &str| {
        if let Ok(v) = HeaderValue::from_str(v) {
            h.insert(k, v);
        }
    };
    set(h, header::CONTENT_TYPE, ctype);
    set(h, header::CACHE_CONTROL, "no-store");
    set(h, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    // `same-origin`, not `no-referrer`: with no-referrer a browser sends `Origin: null` on
    // the page's own form POSTs, which the cross-site check must refuse.
    set(h, header::REFERRER_POLICY, "same-origin");
    set(h, header::X_FRAME_OPTIONS, "DENY");
    let csp = match nonce {
        Some(n) => format!(
            "default-src 'none'; script-src 'nonce-{n}'; style-src 'nonce-{n}'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ),
        None => "default-src 'none'; frame-ancestors 'none'".to_string(),
    };
    set(h, header::CONTENT_SECURITY_POLICY, &csp);
    r
}

fn html_page(status: StatusCode, body: String, nonce: &str) -> Response {
    respond(status, "text/html; charset=utf-8", body, Some(nonce))
}

fn fragment(status: StatusCode, body: String) -> Response {
    respond(status, "text/html; charset=utf-8", body, None)
}

fn plain(status: StatusCode, msg: &str) -> Response {
    respond(
        status,
        "text/plain; charset=utf-8",
        format!("{msg}\n"),
        None,
    )
}

fn redirect(to: &str) -> Response {
    let mut r = respond(StatusCode::SEE_OTHER, "text/plain", String::new(), None);
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

type AppState = State<Arc<App>>;

/// The routes (tests drive them with plain HTTP).
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/login", get(login_form).post(login))
        .route("/logout", post(logout))
        .route("/day", get(page_day))
        .route("/flags", get(page_flags))
        .route("/game", get(page_game))
        .route("/part/{name}", get(part))
        .route("/api/version", get(version))
        .route("/flags/{id}/confirm", post(flag_confirm))
        .route("/flags/{id}/dismiss", post(flag_dismiss))
        .route("/cards/{id}/withdraw", post(card_withdraw))
        .with_state(app)
}

/// Serve until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(app))
        .with_graceful_shutdown(shutdown)
        .await
}

async fn index(State(app): AppState, headers: HeaderMap) -> Response {
    match app.session(&headers) {
        Some(_) => redirect("/day"),
        None => redirect("/login"),
    }
}

async fn login_form(State(app): AppState) -> Response {
    let nonce = random_hex(16);
    html_page(
        StatusCode::OK,
        html::login_page(&app.game, &nonce, None),
        &nonce,
    )
}

async fn login(State(app): AppState, headers: HeaderMap, body: String) -> Response {
    if !same_origin(&headers) {
        return plain(StatusCode::FORBIDDEN, "forbidden: cross-site request");
    }
    let f = form(&body);
    let token = f.get("token").map(String::as_str).unwrap_or("");
    let Some(role) = app.role_of(token.trim()) else {
        tracing::warn!("web: a login with an unknown token was refused");
        let nonce = random_hex(16);
        return html_page(
            StatusCode::FORBIDDEN,
            html::login_page(&app.game, &nonce, Some("令牌不对。")),
            &nonce,
        );
    };
    let name = f
        .get("name")
        .map(|n| {
            n.chars()
                .filter(|c| !c.is_control())
                .take(40)
                .collect::<String>()
                .trim()
                .to_string()
        })
        .filter(|n| !n.is_empty());
    let id = random_hex(32);
    let s = Session {
        role,
        name,
        csrf: random_hex(32),
        flash: None,
    };
    tracing::info!("web: {} signed in", s.by());
    if let Ok(mut m) = app.sessions.lock() {
        m.insert(id.clone(), s);
    }
    let mut r = redirect("/day");
    if let Ok(v) =
        HeaderValue::from_str(&format!("{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict"))
    {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

/// The session of a POST, refused (403) without a session, with a wrong or missing CSRF
/// token (form field `csrf` or header `X-CSRF-Token`), or from another site.
/// A POST refused with 403 and this message.
struct Refusal(&'static str);

impl Refusal {
    fn response(self) -> Response {
        plain(StatusCode::FORBIDDEN, self.0)
    }
}

fn post_session(
    app: &App,
    headers: &HeaderMap,
    f: &HashMap<String, String>,
) -> Result<(String, Session), Refusal> {
    if !same_origin(headers) {
        return Err(Refusal("forbidden: cross-site request"));
    }
    let Some((id, s)) = app.session(headers) else {
        return Err(Refusal("forbidden: not signed in"));
    };
    let given = f.get("csrf").cloned().or_else(|| {
        headers
            .get("x-csrf-token")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    });
    match given {
        Some(t) if ct_eq(t.as_bytes(), s.csrf.as_bytes()) => Ok((id, s)),
        _ => {
            tracing::warn!("web: a POST without a valid CSRF token was refused");
            Err(Refusal("forbidden: missing or wrong CSRF token"))
        }
    }
}

async fn logout(State(app): AppState, headers: HeaderMap, body: String) -> Response {
    let (id, _) = match post_session(&app, &headers, &form(&body)) {
        Ok(x) => x,
        Err(r) => return r.response(),
    };
    if let Ok(mut m) = app.sessions.lock() {
        m.remove(&id);
    }
    let mut r = redirect("/login");
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static("bansha_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    );
    r
}

/// Which sections a page shows for a role: (part, in a side-by-side row with the next).
fn page_parts(page: &str, role: Role) -> Vec<Vec<Part>> {
    let d = role == Role::Director;
    match page {
        "day" if d => vec![
            vec![Part::TallyDirector, Part::TallyPublic],
            vec![Part::Activity],
        ],
        "day" => vec![vec![Part::TallyPublic], vec![Part::Activity]],
        "flags" => vec![vec![Part::Flags], vec![Part::Ledger]],
        "game" if d => vec![vec![Part::State, Part::StatePublic], vec![Part::Nights]],
        _ => vec![vec![Part::StatePublic], vec![Part::NightsPublic]],
    }
}

fn render_page(app: &App, headers: &HeaderMap, uri: &Uri, page: &'static str) -> Response {
    let Some((id, sess)) = app.session(headers) else {
        return redirect("/login");
    };
    // Read the version before the sections: a change while they render is seen next poll.
    let version = app.version();
    let nonce = random_hex(16);
    let (cfg, rules) = match app.load() {
        Ok(x) => x,
        Err(e) => {
            return html_page(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!(
                    "<!doctype html><meta charset=\"utf-8\">{}",
                    html::error_box(&e)
                ),
                &nonce,
            );
        }
    };
    let now = app.clock.now();
    let q = query(uri);
    let day = q
        .get("day")
        .and_then(|d| d.parse::<u32>().ok())
        .or_else(|| views::current_day(&cfg, now));
    let flash = app
        .sessions
        .lock()
        .ok()
        .and_then(|mut m| m.get_mut(&id).and_then(|s| s.flash.take()));
    let mut content = String::new();
    if page == "day" {
        let mut days: Vec<u32> = cfg.days.iter().map(|d| d.number).collect();
        days.sort();
        content.push_str("<nav class=\"days\">");
        for n in days {
            if Some(n) == day {
                content.push_str(&format!("<strong>第{n}天</strong> "));
            } else {
                content.push_str(&format!("<a href=\"/day?day={n}\">第{n}天</a> "));
            }
        }
        content.push_str("</nav>");
    }
    {
        let store = match app.store.lock() {
            Ok(s) => s,
            Err(_) => return plain(StatusCode::INTERNAL_SERVER_ERROR, "store lock poisoned"),
        };
        let ctx = Ctx {
            cfg: &cfg,
            rules: &rules,
            store: &store,
            now,
            role: sess.role,
            csrf: &sess.csrf,
        };
        for row in page_parts(page, sess.role) {
            if row.len() > 1 {
                content.push_str("<div class=\"cols\">");
            }
            for &p in &row {
                let src = match day {
                    Some(d) => format!("/part/{}?day={d}", p.name()),
                    None => format!("/part/{}", p.name()),
                };
                let inner = views::render(p, &ctx, day);
                content.push_str(&html::live_section(p.name(), p.title(), &src, &inner));
            }
            if row.len() > 1 {
                content.push_str("</div>");
            }
        }
    }
    let title = match page {
        "day" => "今日",
        "flags" => "违规与判罚",
        _ => "局势与夜晚",
    };
    let who = sess.who();
    let body = html::page(
        &html::Page {
            title,
            game: &cfg.game.name,
            active: page,
            role: sess.role.as_str(),
            who: &who,
            csrf: &sess.csrf,
            version: &version,
            poll_secs: app.poll_secs,
            nonce: &nonce,
            flash: flash.as_deref(),
        },
        &content,
    );
    html_page(StatusCode::OK, body, &nonce)
}

async fn page_day(State(app): AppState, headers: HeaderMap, uri: Uri) -> Response {
    render_page(&app, &headers, &uri, "day")
}

async fn page_flags(State(app): AppState, headers: HeaderMap, uri: Uri) -> Response {
    render_page(&app, &headers, &uri, "flags")
}

async fn page_game(State(app): AppState, headers: HeaderMap, uri: Uri) -> Response {
    render_page(&app, &headers, &uri, "game")
}

async fn part(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(name): UrlPath<String>,
    uri: Uri,
) -> Response {
    let Some((_, sess)) = app.session(&headers) else {
        return plain(StatusCode::UNAUTHORIZED, "not signed in");
    };
    let Some(p) = Part::parse(&name) else {
        return plain(StatusCode::NOT_FOUND, "no such section");
    };
    if p.director_only() && sess.role != Role::Director {
        return plain(StatusCode::FORBIDDEN, "forbidden: the director's view");
    }
    let (cfg, rules) = match app.load() {
        Ok(x) => x,
        Err(e) => return fragment(StatusCode::OK, html::error_box(&e)),
    };
    let day = query(&uri).get("day").and_then(|d| d.parse().ok());
    let Ok(store) = app.store.lock() else {
        return plain(StatusCode::INTERNAL_SERVER_ERROR, "store lock poisoned");
    };
    let ctx = Ctx {
        cfg: &cfg,
        rules: &rules,
        store: &store,
        now: app.clock.now(),
        role: sess.role,
        csrf: &sess.csrf,
    };
    fragment(StatusCode::OK, views::render(p, &ctx, day))
}

async fn version(State(app): AppState, headers: HeaderMap) -> Response {
    if app.session(&headers).is_none() {
        return plain(StatusCode::UNAUTHORIZED, "not signed in");
    }
    respond(
        StatusCode::OK,
        "application/json",
        serde_json::json!({ "version": app.version() }).to_string(),
        None,
    )
}

/// Run a decision with the session's `--by`, then back to the flag page with the
/// command's message shown once; a refusal is 409 with the command's message.
fn decide(
    app: &App,
    headers: &HeaderMap,
    body: &str,
    director_only: bool,
    act: impl FnOnce(
        &Config,
        &RuleSet,
        &mut Store,
        &str,
        crate::model::Timestamp,
        &HashMap<String, String>,
    ) -> Result<String, crate::game::Error>,
) -> Response {
    let f = form(body);
    let (id, sess) = match post_session(app, headers, &f) {
        Ok(x) => x,
        Err(r) => return r.response(),
    };
    if director_only && sess.role != Role::Director {
        return plain(StatusCode::FORBIDDEN, "forbidden: the director's decision");
    }
    let (cfg, rules) = match app.load() {
        Ok(x) => x,
        Err(e) => return plain(StatusCode::INTERNAL_SERVER_ERROR, &e),
    };
    let result = {
        let Ok(mut store) = app.store.lock() else {
            return plain(StatusCode::INTERNAL_SERVER_ERROR, "store lock poisoned");
        };
        act(&cfg, &rules, &mut store, &sess.by(), app.clock.now(), &f)
    };
    match result {
        Ok(msg) => {
            app.writes.fetch_add(1, Ordering::SeqCst);
            tracing::info!("web: {msg}");
            if let Ok(mut m) = app.sessions.lock()
                && let Some(s) = m.get_mut(&id)
            {
                s.flash = Some(msg);
            }
            redirect("/flags")
        }
        // The command's refusal (already decided, no such card…); nothing changed.
        Err(e) => plain(status_of(&e), e.message()),
    }
}

/// The game layer's error as an HTTP status: a refusal (bad input, a question for the
/// director) is 409 Conflict, a failure at run time (the database) 500.
fn status_of(e: &crate::game::Error) -> StatusCode {
    match e {
        crate::game::Error::Runtime(_) => StatusCode::INTERNAL_SERVER_ERROR,
        crate::game::Error::Input(_) | crate::game::Error::NeedInput(_) => StatusCode::CONFLICT,
    }
}

async fn flag_confirm(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(id): UrlPath<i64>,
    body: String,
) -> Response {
    decide(
        &app,
        &headers,
        &body,
        false,
        |cfg, rules, store, by, t, f| {
            let card = f.get("card").map(String::as_str).filter(|c| !c.is_empty());
            crate::game::flags::confirm_flag(cfg, rules, store, id, card, by, t)
        },
    )
}

async fn flag_dismiss(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(id): UrlPath<i64>,
    body: String,
) -> Response {
    decide(&app, &headers, &body, false, |cfg, _, store, by, t, f| {
        let whitelist = f.get("whitelist").is_some_and(|v| !v.is_empty());
        crate::game::flags::dismiss_flag(cfg, store, id, whitelist, by, t)
    })
}

async fn card_withdraw(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(id): UrlPath<i64>,
    body: String,
) -> Response {
    decide(&app, &headers, &body, true, |cfg, _, store, by, t, _| {
        crate::game::flags::withdraw_card(cfg, store, id, by, t)
    })
}
