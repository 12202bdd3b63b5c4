//! HTTP to the forum: cookies, login, politeness, retries.
//!
//! One [`Fetcher`] per forum. It sends one request at a time to the forum's host, never
//! closer together than `min_interval_ms`, with a desktop User-Agent and the director's
//! cookies. [`Fetcher::get_with`] takes a classifier that turns the raw response into a
//! value or a [`Verdict`] (retry, login problem, gone): transport faults and 5xx are
//! retried with exponential backoff and jitter, a login problem triggers one re-login when
//! credentials exist, a gone/forbidden page is returned as such and never retried.
//!
//! Secrets (cookie values, the password) never appear in logs or errors.

pub mod cookies;
pub mod fingerprint;
pub mod paging;
pub mod private_file;

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::config::{Charset, Config};
pub use cookies::{
    CookieFile, CookieJar, load_cookie_file, load_cookies_txt, parse_cookie_file,
    permission_warning,
};

/// A desktop browser User-Agent: no `bot`/`spider`/`crawl` (robots get stripped pages)
/// and no phone words (phones get the touch template).
pub const USER_AGENT: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 \
     (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

/// Install rustls' ring provider (once per process; "already installed" is fine).
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The PC thread page: oldest first, PC template forced.
pub fn thread_url(base: &str, tid: u64, page: u32) -> String {
    format!(
        "{}forum.php?mod=viewthread&tid={tid}&page={page}&mobile=no&ordertype=2",
        crate::report::with_slash(base)
    )
}

/// The mobile-API thread page (always UTF-8 JSON).
pub fn api_thread_url(base: &str, tid: u64, page: u32, ppp: Option<u32>) -> String {
    let mut u = format!(
        "{}api/mobile/index.php?version=4&module=viewthread&tid={tid}&page={page}&ordertype=2",
        crate::report::with_slash(base)
    );
    if let Some(p) = ppp {
        u.push_str(&format!("&ppp={p}"));
    }
    u
}

/// The mobile-API thread list of a board.
pub fn api_forumdisplay_url(base: &str, fid: u64, page: u32) -> String {
    format!(
        "{}api/mobile/index.php?version=4&module=forumdisplay&fid={fid}&page={page}",
        crate::report::with_slash(base)
    )
}

fn api_login_url(base: &str, gbk: bool) -> String {
    format!(
        "{}api/mobile/index.php?version=4&module=login&loginsubmit=yes&loginfield=auto{}",
        crate::report::with_slash(base),
        if gbk { "" } else { "&charset=utf-8" }
    )
}

/// The host part of a base URL (`bbs.example.com`, `127.0.0.1`).
pub fn host_of(base: &str) -> String {
    let rest = base.split_once("://").map(|(_, r)| r).unwrap_or(base);
    let hostport = rest.split('/').next().unwrap_or("");
    let host = hostport
        .rsplit_once('@')
        .map(|(_, h)| h)
        .unwrap_or(hostport);
    host.split(':').next().unwrap_or("").to_ascii_lowercase()
}

/// Delay before retry number `attempt` (0-based): `base · 2^attempt`, scaled by a jitter
/// factor in [0.5, 1.5) taken from `r` ∈ [0, 1), capped at five minutes.
pub fn backoff_delay(base: Duration, attempt: u32, r: f64) -> Duration {
    let exp = base.saturating_mul(1u32 << attempt.min(16));
    let jittered = exp.mul_f64(0.5 + r.clamp(0.0, 0.999_999));
    jittered.min(Duration::from_secs(300))
}

/// A password, never printed.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Credentials for the mobile-API login.
#[derive(Debug, Clone)]
pub struct Login {
    pub username: String,
    pub password: Secret,
}

/// How the fetcher talks to one forum.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    pub base_url: String,
    pub charset: Charset,
    pub min_interval: Duration,
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    pub backoff: Duration,
}

impl FetchOptions {
    pub fn from_config(cfg: &Config) -> Self {
        FetchOptions {
            base_url: crate::report::with_slash(&cfg.forum.base_url),
            charset: cfg.forum.charset,
            min_interval: Duration::from_millis(cfg.forum.min_interval_ms),
            timeout: Duration::from_millis(cfg.daemon.request_timeout_ms),
            retries: cfg.daemon.retries,
            backoff: Duration::from_millis(cfg.daemon.backoff_ms),
        }
    }
}

/// One HTTP response, body read in full.
#[derive(Debug, Clone)]
pub struct Raw {
    pub url: String,
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// What a classifier makes of a response.
#[derive(Debug)]
pub enum Verdict<T> {
    Ok(T),
    /// A transient fault (CC page, anti-scrape page, truncated page…): retry with backoff.
    Retry(String),
    /// Not logged in, or the login expired: re-login once if credentials exist.
    Login(String),
    /// The thread is gone or forbidden: report and skip, never retry.
    Gone(String),
    /// Anything else that retrying will not fix.
    Fatal(String),
}

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum FetchError {
    #[error("{url}: gave up after {attempts} attempts: {last}")]
    Exhausted {
        url: String,
        attempts: u32,
        last: String,
    },
    #[error("{url}: not logged in or the login expired ({msg}); {hint}")]
    Login {
        url: String,
        msg: String,
        hint: String,
    },
    #[error("{url}: {msg}")]
    Gone { url: String, msg: String },
    #[error("{url}: {msg}")]
    Fatal { url: String, msg: String },
    #[error("the stop signal arrived")]
    Stopped,
    /// Nothing answers at the forum's address (connection refused, no such host): retrying
    /// cannot help, and every other request would fail the same way.
    #[error(
        "cannot reach the forum at {base_url}: {msg}; check forum.base_url in the game config (and the network)"
    )]
    Unreachable { base_url: String, msg: String },
}

/// Why one request got no response.
#[derive(Debug)]
enum SendError {
    Stopped,
    /// Connection refused, DNS failure: not a fault a live forum has.
    Unreachable(String),
    /// Anything else (a stall, a cut-off body): retried.
    Failed(String),
}

fn send_error(e: reqwest::Error) -> SendError {
    if e.is_connect() && !e.is_timeout() {
        // The innermost cause says it best ("Connection refused (os error 111)",
        // "failed to lookup address information: …").
        let mut last = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            last = s.to_string();
            src = s.source();
        }
        SendError::Unreachable(last)
    } else {
        SendError::Failed(describe_reqwest(e))
    }
}

impl FetchError {
    pub fn is_gone(&self) -> bool {
        matches!(self, FetchError::Gone { .. })
    }
    pub fn is_login(&self) -> bool {
        matches!(self, FetchError::Login { .. })
    }
}

/// Counters for diagnostics and tests.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FetchStats {
    pub requests: u64,
    pub retries: u64,
    pub logins: u64,
}

/// The forum's HTTP client. Cheap to share behind an `Arc`.
pub struct Fetcher {
    http: reqwest::Client,
    opts: FetchOptions,
    jar: Mutex<CookieJar>,
    login: Option<Login>,
    /// Whether pages are expected to show a logged-in viewer.
    expect_login: bool,
    /// One request at a time to the host; holds when the last one finished.
    gate: tokio::sync::Mutex<Option<Instant>>,
    stats: Mutex<FetchStats>,
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fetcher")
            .field("base_url", &self.opts.base_url)
            .field("login", &self.login.as_ref().map(|l| &l.username))
            .finish()
    }
}

impl Fetcher {
    pub fn new(opts: FetchOptions, jar: CookieJar, login: Option<Login>) -> anyhow::Result<Self> {
        install_crypto_provider();
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(opts.timeout)
            .connect_timeout(opts.timeout)
            .build()?;
        let expect_login = jar.has_login() || login.is_some();
        Ok(Fetcher {
            http,
            opts,
            jar: Mutex::new(jar),
            login,
            expect_login,
            gate: tokio::sync::Mutex::new(None),
            stats: Mutex::new(FetchStats::default()),
            stop: None,
        })
    }

    /// A fetcher from the game config: cookies from `forum.cookie_file`, credentials from
    /// the environment variables `forum.username_env` / `forum.password_env`. Warnings
    /// (a cookie file readable by others) are logged and returned.
    pub fn from_config(cfg: &Config) -> anyhow::Result<(Self, Vec<String>)> {
        let mut warnings = Vec::new();
        // Logged as found, so they are shown even when loading fails further on.
        let mut warn = |w: String| {
            tracing::warn!("{w}");
            warnings.push(w);
        };
        // Only files that hold secrets are checked: the cookie file. The game config holds
        // none (credentials come from environment variables it only names), so a
        // world-readable config is normal and not warned about.
        let host = host_of(&cfg.forum.base_url);
        let jar = match &cfg.forum.cookie_file {
            Some(p) => {
                let p = cfg.resolve(p);
                if let Some(w) = permission_warning(&p) {
                    warn(w);
                }
                let file = load_cookie_file(&p, &host)?;
                // Before the first request: an expired login is a warning, not a surprise.
                // The forum judges expiry by the real clock, even when replaying a game.
                let now = crate::time::Clock::now(&crate::time::SystemClock);
                for w in file.expiry_warnings(now) {
                    warn(format!("{}: {w}", p.display()));
                }
                file.jar
            }
            None => CookieJar::new(),
        };
        let login = match (&cfg.forum.username_env, &cfg.forum.password_env) {
            (Some(u), Some(p)) => {
                let get = |name: &str| {
                    std::env::var(name).map_err(|_| {
                        anyhow::anyhow!(
                            "{}:forum: environment variable `{name}` (named by username_env/password_env) is not set",
                            cfg.path.display()
                        )
                    })
                };
                Some(Login {
                    username: get(u)?,
                    password: Secret::new(get(p)?),
                })
            }
            _ => None,
        };
        Ok((
            Fetcher::new(FetchOptions::from_config(cfg), jar, login)?,
            warnings,
        ))
    }

    /// Abort waits (politeness gap, backoff) when this flag goes up.
    pub fn with_stop(mut self, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.stop = Some(stop);
        self
    }

    pub fn options(&self) -> &FetchOptions {
        &self.opts
    }

    pub fn base_url(&self) -> &str {
        &self.opts.base_url
    }

    /// Pages should show a logged-in viewer (cookies or credentials were given).
    pub fn expects_login(&self) -> bool {
        self.expect_login
    }

    pub fn stats(&self) -> FetchStats {
        *self.stats.lock().unwrap()
    }

    /// The cookie prefix learned from the cookies (`B7Y9_2132_`), if any.
    pub fn cookie_prefix(&self) -> Option<String> {
        self.jar.lock().unwrap().prefix().map(str::to_string)
    }

    fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Sleep, waking early when the stop flag goes up. Returns false when stopped.
    async fn pause(&self, d: Duration) -> bool {
        let until = Instant::now() + d;
        loop {
            if self.stopped() {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            tokio::time::sleep((until - now).min(Duration::from_millis(100))).await;
        }
    }

    /// One request through the host gate: waits out the politeness gap, sends, reads the
    /// whole body, applies `Set-Cookie`.
    async fn send(&self, url: &str, form: Option<Vec<u8>>) -> Result<Raw, SendError> {
        let mut gate = self.gate.lock().await;
        if let Some(last) = *gate {
            let next = last + self.opts.min_interval;
            let now = Instant::now();
            if next > now && !self.pause(next - now).await {
                return Err(SendError::Stopped);
            }
        }
        self.stats.lock().unwrap().requests += 1;
        let mut req = match &form {
            Some(body) => self
                .http
                .post(url)
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                )
                .body(body.clone()),
            None => self.http.get(url),
        };
        req = req.header(
            reqwest::header::ACCEPT,
            "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8",
        );
        req = req.header(reqwest::header::ACCEPT_LANGUAGE, "zh-CN,zh;q=0.9");
        let cookie = self.jar.lock().unwrap().header();
        if let Some(c) = cookie {
            req = req.header(reqwest::header::COOKIE, c);
        }
        let result = async {
            let resp = req.send().await.map_err(send_error)?;
            let status = resp.status().as_u16();
            {
                let mut jar = self.jar.lock().unwrap();
                for v in resp.headers().get_all(reqwest::header::SET_COOKIE) {
                    if let Ok(s) = v.to_str() {
                        jar.apply_set_cookie(s);
                    }
                }
            }
            let content_type = resp
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let body = resp
                .bytes()
                .await
                .map_err(|e| SendError::Failed(describe_reqwest(e)))?
                .to_vec();
            Ok(Raw {
                url: url.to_string(),
                status,
                content_type,
                body,
            })
        }
        .await;
        *gate = Some(Instant::now());
        result
    }

    /// GET `url` and classify the response, with bounded retries (exponential backoff and
    /// jitter) for transport faults, 5xx and [`Verdict::Retry`], one re-login for
    /// [`Verdict::Login`] when credentials exist, and no retry for [`Verdict::Gone`].
    pub async fn get_with<T>(
        &self,
        url: &str,
        mut classify: impl FnMut(Raw) -> Verdict<T>,
    ) -> Result<T, FetchError> {
        if self.login.is_some() && !self.jar.lock().unwrap().has_login() {
            self.login().await?;
        }
        let mut relogged = false;
        let mut attempt = 0u32;
        loop {
            if self.stopped() {
                return Err(FetchError::Stopped);
            }
            let outcome = match self.send(url, None).await {
                Err(SendError::Stopped) => return Err(FetchError::Stopped),
                Err(SendError::Unreachable(msg)) => {
                    return Err(FetchError::Unreachable {
                        base_url: self.opts.base_url.clone(),
                        msg,
                    });
                }
                Err(SendError::Failed(e)) => Verdict::Retry(e),
                Ok(raw) if raw.status >= 500 => Verdict::Retry(format!("HTTP {}", raw.status)),
                Ok(raw) if raw.status == 429 => Verdict::Retry("HTTP 429".into()),
                Ok(raw) => classify(raw),
            };
            match outcome {
                Verdict::Ok(v) => return Ok(v),
                Verdict::Retry(why) => {
                    if attempt >= self.opts.retries {
                        return Err(FetchError::Exhausted {
                            url: url.to_string(),
                            attempts: attempt + 1,
                            last: why,
                        });
                    }
                    let d = backoff_delay(self.opts.backoff, attempt, fastrand::f64());
                    tracing::warn!(
                        url,
                        attempt = attempt + 1,
                        delay_ms = d.as_millis() as u64,
                        "{why}; retrying"
                    );
                    self.stats.lock().unwrap().retries += 1;
                    attempt += 1;
                    if !self.pause(d).await {
                        return Err(FetchError::Stopped);
                    }
                }
                Verdict::Login(msg) => {
                    if self.login.is_some() && !relogged {
                        tracing::warn!(url, "login expired ({msg}); logging in again");
                        relogged = true;
                        self.login().await?;
                        continue;
                    }
                    let hint = if self.login.is_some() {
                        "logging in again did not help: check the account".to_string()
                    } else if self.expect_login {
                        "export fresh cookies (saltkey and auth) from the browser into the cookie file".to_string()
                    } else {
                        "configure forum.cookie_file or forum.username_env/password_env".to_string()
                    };
                    return Err(FetchError::Login {
                        url: url.to_string(),
                        msg,
                        hint,
                    });
                }
                Verdict::Gone(msg) => {
                    return Err(FetchError::Gone {
                        url: url.to_string(),
                        msg,
                    });
                }
                Verdict::Fatal(msg) => {
                    return Err(FetchError::Fatal {
                        url: url.to_string(),
                        msg,
                    });
                }
            }
        }
    }

    /// Log in through the mobile API (`module=login`) with the configured credentials.
    /// The response's cookies (`{pre}saltkey`, `{pre}auth`) replace the old ones.
    pub async fn login(&self) -> Result<(), FetchError> {
        let Some(login) = &self.login else {
            return Err(FetchError::Fatal {
                url: self.opts.base_url.clone(),
                msg: "no credentials configured".into(),
            });
        };
        let gbk = self.opts.charset == Charset::Gbk;
        let url = api_login_url(&self.opts.base_url, gbk);
        let body = form_body(
            &[
                ("username", login.username.as_str()),
                ("password", login.password.expose()),
                ("cookietime", "2592000"),
            ],
            gbk,
        );
        {
            // A fresh login wants a fresh saltkey.
            let mut jar = self.jar.lock().unwrap();
            let names: Vec<String> = jar
                .names()
                .filter(|n| n.ends_with("auth") || n.ends_with("saltkey"))
                .map(str::to_string)
                .collect();
            for n in names {
                jar.remove(&n);
            }
        }
        let mut attempt = 0;
        let raw = loop {
            match self.send(&url, Some(body.clone())).await {
                Ok(r) if r.status < 500 => break r,
                Ok(r) if attempt >= self.opts.retries => {
                    return Err(FetchError::Exhausted {
                        url,
                        attempts: attempt + 1,
                        last: format!("HTTP {}", r.status),
                    });
                }
                Err(SendError::Stopped) => return Err(FetchError::Stopped),
                Err(SendError::Unreachable(msg)) => {
                    return Err(FetchError::Unreachable {
                        base_url: self.opts.base_url.clone(),
                        msg,
                    });
                }
                Err(SendError::Failed(e)) if attempt >= self.opts.retries => {
                    return Err(FetchError::Exhausted {
                        url,
                        attempts: attempt + 1,
                        last: e,
                    });
                }
                _ => {
                    let d = backoff_delay(self.opts.backoff, attempt, fastrand::f64());
                    attempt += 1;
                    if !self.pause(d).await {
                        return Err(FetchError::Stopped);
                    }
                }
            }
        };
        self.stats.lock().unwrap().logins += 1;
        match login_outcome(&raw.body) {
            Ok(uid) => {
                tracing::info!(uid, user = %login.username, "logged in");
                if !self.jar.lock().unwrap().has_login() {
                    return Err(FetchError::Login {
                        url,
                        msg: "the login answer set no auth cookie".into(),
                        hint: "check that the forum's mobile API is enabled".into(),
                    });
                }
                Ok(())
            }
            Err(msg) => Err(FetchError::Login {
                url,
                msg,
                hint: "check the username/password environment variables".into(),
            }),
        }
    }
}

fn describe_reqwest(e: reqwest::Error) -> String {
    // reqwest errors carry the URL; every message built from this one names it already
    // (the retry warning's `url=`, `Exhausted`'s `{url}:`), so it is dropped here.
    let e = e.without_url();
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_body() || e.is_decode() {
        "the body was cut off"
    } else {
        "request failed"
    };
    let mut msg = format!("{kind}: {e}");
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        msg.push_str(&format!(": {s}"));
        src = s.source();
    }
    msg
}

/// `application/x-www-form-urlencoded`, in GBK for GBK sites (Discuz! reads form input in
/// the site charset).
pub fn form_body(fields: &[(&str, &str)], gbk: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        for (j, s) in [k, v].into_iter().enumerate() {
            if j == 1 {
                out.push(b'=');
            }
            let bytes: Vec<u8> = if gbk {
                encoding_rs::GBK.encode(s).0.into_owned()
            } else {
                s.as_bytes().to_vec()
            };
            for b in bytes {
                match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                        out.push(b)
                    }
                    b' ' => out.push(b'+'),
                    _ => out.extend_from_slice(format!("%{b:02X}").as_bytes()),
                }
            }
        }
    }
    out
}

/// The uid from a mobile-API login answer, or the forum's message when it failed.
pub fn login_outcome(body: &[u8]) -> Result<u64, String> {
    let text = String::from_utf8_lossy(body);
    let text = text.trim_start_matches('\u{feff}').trim();
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|_| "the login answer is not JSON (is the mobile API enabled?)".to_string())?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        return Err(format!("the forum's API answered `{e}`"));
    }
    let uid = v
        .pointer("/Variables/member_uid")
        .and_then(|u| {
            u.as_str()
                .map(str::to_string)
                .or(u.as_u64().map(|n| n.to_string()))
        })
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    let messageval = v
        .pointer("/Message/messageval")
        .and_then(|m| m.as_str())
        .unwrap_or("");
    let messagestr = v
        .pointer("/Message/messagestr")
        .and_then(|m| m.as_str())
        .unwrap_or("");
    if uid > 0 && (messageval.is_empty() || messageval.starts_with("login_succeed")) {
        Ok(uid)
    } else if messageval.is_empty() {
        Err("login failed (member_uid is 0)".into())
    } else {
        Err(format!("login failed: {messageval} {messagestr}")
            .trim()
            .to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_is_a_desktop_browser() {
        let ua = USER_AGENT.to_ascii_lowercase();
        for w in [
            "bot", "spider", "crawl", "slurp", "mobile", "android", "iphone", "phone", "wap",
        ] {
            assert!(!ua.contains(w), "{w}");
        }
    }

    #[test]
    fn pc_urls_force_pc_template_and_ascending_order() {
        let u = thread_url("http://127.0.0.1:8080", 7, 3);
        assert_eq!(
            u,
            "http://127.0.0.1:8080/forum.php?mod=viewthread&tid=7&page=3&mobile=no&ordertype=2"
        );
        assert!(api_thread_url("http://h/bbs/", 7, 1, Some(50)).starts_with(
            "http://h/bbs/api/mobile/index.php?version=4&module=viewthread&tid=7&page=1"
        ));
    }

    #[test]
    fn host_is_extracted() {
        assert_eq!(host_of("http://127.0.0.1:18080/"), "127.0.0.1");
        assert_eq!(host_of("https://BBS.Example.com/forum/"), "bbs.example.com");
    }

    #[test]
    fn backoff_grows_with_bounded_jitter() {
        let b = Duration::from_millis(100);
        assert_eq!(backoff_delay(b, 0, 0.5), Duration::from_millis(100));
        assert_eq!(backoff_delay(b, 3, 0.5), Duration::from_millis(800));
        assert!(backoff_delay(b, 2, 0.0) >= Duration::from_millis(200));
        assert!(backoff_delay(b, 2, 0.999) < Duration::from_millis(600));
        assert_eq!(backoff_delay(b, 30, 0.9), Duration::from_secs(300));
    }

    #[test]
    fn form_body_encodes_gbk_for_gbk_sites() {
        assert_eq!(
            form_body(&[("username", "傻树 x")], false),
            b"username=%E5%82%BB%E6%A0%91+x"
        );
        // 傻 = C9 B5, 树 = CA F7 in GBK
        assert_eq!(form_body(&[("u", "傻树")], true), b"u=%C9%B5%CA%F7");
    }

    #[test]
    fn login_outcome_reads_uid_and_failure_message() {
        let ok = br#"{"Version":"4","Variables":{"member_uid":"42","auth":"x"},"Message":{"messageval":"login_succeed","messagestr":"ok"}}"#;
        assert_eq!(login_outcome(ok), Ok(42));
        let bad = "\u{feff}{\"Variables\":{\"member_uid\":\"0\",\"auth\":null},\"Message\":{\"messageval\":\"login_invalid\",\"messagestr\":\"登录失败，您还可以尝试 4 次\"}}";
        let e = login_outcome(bad.as_bytes()).unwrap_err();
        assert!(e.contains("login_invalid") && e.contains("登录失败"), "{e}");
        assert!(login_outcome(b"<html>").is_err());
    }

    #[test]
    fn secret_debug_is_redacted() {
        let l = Login {
            username: "u".into(),
            password: Secret::new("hunter2"),
        };
        assert!(!format!("{l:?}").contains("hunter2"));
    }
}
