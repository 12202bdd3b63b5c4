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
//! - No request for a name that is not this server's (`Host` not an IP, `localhost` or
//!   `[serve] hosts`: 421), no unlimited wrong tokens (`limit.rs`), no session without an
//!   expiry, no connection held silent past `idle_secs` (`net.rs`).
//! - No player-written string reaches the page unescaped ([`html::esc`]); the page's
//!   Content-Security-Policy allows only its own nonce'd script and style.
//! - No director-only section (roles, night feedback, the director's tally) for a
//!   moderator session: 403, and the moderator's pages never include them.

mod decide;
pub mod html;
pub mod limit;
pub mod net;
mod routes;
pub mod session;
pub mod views;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;
use axum::routing::{get, post};

use crate::config::Config;
use crate::rules::RuleSet;
use crate::store::Store;
use crate::time::Clock;
pub use session::{DIRECTOR_TOKEN_ENV, MODERATOR_TOKEN_ENV, Role, Tokens, tokens};
use session::{Session, Sessions};

/// Where `bansha serve` listens unless told otherwise: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8075";
/// Seconds a connection may stay silent, unless `[serve] idle_secs` says.
pub const DEFAULT_IDLE_SECS: u64 = 20;
/// Hours a sign-in lasts, unless `[serve] session_hours` says.
pub const DEFAULT_SESSION_HOURS: u64 = 12;

/// The server's state: the config's path (reloaded per request), the tokens, one store
/// connection, the sessions, the sign-in limits.
pub struct App {
    config: PathBuf,
    rules: PathBuf,
    game: String,
    tokens: Tokens,
    store: Mutex<Store>,
    /// Decisions made through this connection (SQLite's data_version counts only others').
    writes: AtomicU64,
    sessions: Mutex<Sessions>,
    limiter: Mutex<limit::LoginLimiter>,
    clock: Arc<dyn Clock>,
    poll_secs: u64,
    /// `[serve] hosts`, lower-case.
    hosts: Vec<String>,
    tls: bool,
    session_secs: i64,
    idle: std::time::Duration,
    /// The session cookie's name, fixed once the address is known ([`serve`]).
    cookie: OnceLock<String>,
    db: PathBuf,
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
            sessions: Mutex::new(Sessions::default()),
            limiter: Mutex::new(limit::LoginLimiter::default()),
            clock,
            poll_secs: cfg.serve.poll_secs.unwrap_or(3),
            hosts: cfg.serve.hosts.iter().map(|h| h.to_lowercase()).collect(),
            tls: cfg.serve.tls,
            session_secs: 3600 * cfg.serve.session_hours.unwrap_or(DEFAULT_SESSION_HOURS) as i64,
            idle: std::time::Duration::from_secs(cfg.serve.idle_secs.unwrap_or(DEFAULT_IDLE_SECS)),
            cookie: OnceLock::new(),
            db,
        })
    }

    fn cookie_name(&self) -> &str {
        self.cookie
            .get_or_init(|| session::cookie_name(&self.db.display().to_string(), self.tls))
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
        let id = cookie(headers, self.cookie_name())?;
        let now = self.clock.now();
        let s = self.sessions.lock().ok()?.get(&id, now)?;
        Some((id, s))
    }

    fn load(&self) -> Result<(Config, RuleSet), String> {
        let cfg = Config::load(&self.config).map_err(|e| e.to_string())?;
        let rules = RuleSet::load(&cfg.rules_path()).map_err(|e| e.to_string())?;
        Ok((cfg, rules))
    }

    /// Whether `host` (a `Host` header's or an `Origin`'s name, port stripped) names this
    /// server: an IP address (DNS rebinding needs a name), `localhost`, or `[serve] hosts`.
    fn host_allowed(&self, host: &str) -> bool {
        let name = host_name(host);
        name.parse::<std::net::IpAddr>().is_ok()
            || name == "localhost"
            || self.hosts.iter().any(|h| host_name(h) == name)
    }

    /// Whether a POST comes from this page: not cross-site, and its `Origin` (when sent)
    /// is the `Host` it was sent to or one of `[serve] hosts` (a TLS proxy's public name,
    /// whatever `Host` the proxy passes on).
    fn same_origin(&self, headers: &HeaderMap) -> bool {
        let h = |k: header::HeaderName| headers.get(k).and_then(|v| v.to_str().ok());
        if headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v == "cross-site")
        {
            return false;
        }
        let Some(origin) = h(header::ORIGIN) else {
            return true;
        };
        let Some((_, authority)) = origin.split_once("://") else {
            return false;
        };
        let named = self
            .hosts
            .iter()
            .any(|n| host_name(n) == host_name(authority));
        named || h(header::HOST).is_some_and(|host| host.eq_ignore_ascii_case(authority))
    }
}

/// The name part of `host[:port]` or `[v6]:port`, lower-case.
fn host_name(h: &str) -> String {
    let h = h.trim().to_lowercase();
    if let Some(rest) = h.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("").to_string();
    }
    match h.rsplit_once(':') {
        Some((n, port)) if port.chars().all(|c| c.is_ascii_digit()) && !n.contains(':') => {
            n.to_string()
        }
        _ => h,
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

/// A refusal as a Chinese page with a way back (`back`), or for the page's own script
/// (which asks for JSON) as `{ok: false, message}`.
fn refuse(headers: &HeaderMap, status: StatusCode, msg: &str, back: &str) -> Response {
    if wants_json(headers) {
        return json_answer(status, false, msg);
    }
    let nonce = random_hex(16);
    html_page(status, html::refusal_page(msg, back, &nonce), &nonce)
}

/// The page's script sends `Accept: application/json` with its POSTs.
fn wants_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

fn json_answer(status: StatusCode, ok: bool, msg: &str) -> Response {
    respond(
        status,
        "application/json",
        serde_json::json!({ "ok": ok, "message": msg }).to_string(),
        None,
    )
}

type AppState = State<Arc<App>>;

/// The routes (tests drive them with plain HTTP). Every request's `Host` is checked first.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(routes::index))
        .route("/login", get(routes::login_form).post(routes::login))
        .route("/logout", post(routes::logout))
        .route("/day", get(routes::page_day))
        .route("/flags", get(routes::page_flags))
        .route("/game", get(routes::page_game))
        .route("/part/{name}", get(routes::part))
        .route("/api/version", get(routes::version))
        .route("/flags/{id}/confirm", post(decide::flag_confirm))
        .route("/flags/{id}/dismiss", post(decide::flag_dismiss))
        .route("/cards/{id}/withdraw", post(decide::card_withdraw))
        .route("/sessions/{handle}/end", post(decide::session_end))
        .route("/activity/{day}/cards", post(decide::activity_cards))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            check_host,
        ))
        .with_state(app)
}

/// Refuse (421, in Chinese) a request whose `Host` does not name this server: a page on
/// another name that resolves here (DNS rebinding) reaches nothing.
async fn check_host(
    State(app): AppState,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !app.host_allowed(host) {
        tracing::debug!("web: a request for an unknown host was refused");
        return plain(
            StatusCode::MISDIRECTED_REQUEST,
            "此地址不是本服务的名字（Host 不在 [serve] hosts 里）。This host name is not served here.",
        );
    }
    next.run(req).await
}

/// Serve until `shutdown` completes: connections bounded in number and silence
/// ([`net::Bounded`]), each request's client address known (the sign-in limits).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let addr = listener.local_addr()?;
    let _ = app.cookie.set(session::cookie_name(
        &format!("{} {addr}", app.db.display()),
        app.tls,
    ));
    let listener = net::Bounded::new(listener, app.idle);
    axum::serve(
        listener,
        router(app).into_make_service_with_connect_info::<net::ClientAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}
