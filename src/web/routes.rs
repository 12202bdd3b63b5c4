//! Sign-in, sign-out, the three pages, their sections and the version the script polls.

use axum::extract::{ConnectInfo, Path as UrlPath, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;

use super::limit::{Limited, LogLine};
use super::net::ClientAddr;
use super::session::{self, Session};
use super::views::{self, Ctx, Part};
use super::*;
use crate::model::Timestamp;

pub(super) async fn index(State(app): AppState, headers: HeaderMap) -> Response {
    match app.session(&headers) {
        Some(_) => redirect("/day"),
        None => redirect("/login"),
    }
}

pub(super) async fn login_form(State(app): AppState) -> Response {
    login_page(&app, StatusCode::OK, None)
}

fn login_page(app: &App, status: StatusCode, msg: Option<&str>) -> Response {
    let nonce = random_hex(16);
    html_page(status, html::login_page(&app.game, &nonce, msg), &nonce)
}

pub(super) async fn login(
    State(app): AppState,
    ConnectInfo(ClientAddr(ip)): ConnectInfo<ClientAddr>,
    headers: HeaderMap,
    body: String,
) -> Response {
    if !app.same_origin(&headers) {
        return refuse(
            &headers,
            StatusCode::FORBIDDEN,
            "拒绝：这个请求来自别的网站。",
            "/login",
        );
    }
    let now = app.clock.now();
    let limited = app.limiter.lock().map(|mut l| l.check(ip, now));
    if let Ok(Err(why)) = limited {
        let (who, at) = match why {
            Limited::Client { retry_at } => ("这台电脑", retry_at),
            Limited::Global { retry_at } => ("所有人", retry_at),
        };
        let cfg = Config::load(&app.config).ok();
        let at = cfg.map_or_else(|| format!("{} 秒后", at - now), |c| c.fmt_time(at));
        let mut r = login_page(
            &app,
            StatusCode::TOO_MANY_REQUESTS,
            Some(&format!(
                "错误的令牌太多，{who}暂时不能登录，请在 {at} 之后再试。"
            )),
        );
        if let Ok(v) = HeaderValue::from_str(&(at_secs(now, why)).to_string()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return r;
    }
    let f = form(&body);
    let token = f.get("token").map(String::as_str).unwrap_or("");
    let Some(role) = app.role_of(token.trim()) else {
        let line = app
            .limiter
            .lock()
            .map_or(LogLine::None, |mut l| l.failed(ip, now));
        match line {
            LogLine::FirstFailure => {
                tracing::warn!("web: a sign-in from {ip} with an unknown token was refused")
            }
            LogLine::ClientLimited => tracing::warn!(
                "web: {ip} sent {} unknown tokens; its sign-ins are refused for {} s",
                limit::PER_CLIENT,
                limit::WINDOW_SECS
            ),
            LogLine::GlobalLimited => tracing::warn!(
                "web: {} unknown tokens in {} s; all sign-ins are refused until the window ends",
                limit::GLOBAL,
                limit::WINDOW_SECS
            ),
            LogLine::None => {}
        }
        return login_page(&app, StatusCode::FORBIDDEN, Some("令牌不对。"));
    };
    let name = match session::sign_in_name(f.get("name").map_or("", String::as_str), role) {
        Ok(n) => n,
        Err(msg) => return login_page(&app, StatusCode::UNPROCESSABLE_ENTITY, Some(&msg)),
    };
    let id = random_hex(32);
    let s = Session {
        role,
        name,
        csrf: random_hex(32),
        handle: random_hex(6),
        since: now,
        expires: now + app.session_secs,
        last_seen: now,
        flash: None,
    };
    tracing::info!("web: {} signed in", s.by());
    if let Ok(mut m) = app.sessions.lock() {
        m.insert(id.clone(), s);
    }
    let mut r = redirect("/day");
    let c = session::set_cookie(app.cookie_name(), &id, app.session_secs, app.tls);
    if let Ok(v) = HeaderValue::from_str(&c) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

fn at_secs(now: Timestamp, why: Limited) -> i64 {
    match why {
        Limited::Client { retry_at } | Limited::Global { retry_at } => (retry_at - now).max(1),
    }
}

pub(super) async fn logout(State(app): AppState, headers: HeaderMap, body: String) -> Response {
    let (id, _) = match post_session(&app, &headers, &form(&body)) {
        Ok(x) => x,
        Err(r) => return *r,
    };
    if let Ok(mut m) = app.sessions.lock() {
        m.remove(&id);
    }
    let mut r = redirect("/login");
    let c = session::set_cookie(app.cookie_name(), "", 0, app.tls);
    if let Ok(v) = HeaderValue::from_str(&c) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

/// The session of a POST, refused (403, in Chinese) without a session, with a wrong or
/// missing CSRF token (form field `csrf` or header `X-CSRF-Token`), or from another site.
pub(super) fn post_session(
    app: &App,
    headers: &HeaderMap,
    f: &HashMap<String, String>,
) -> Result<(String, Session), Box<Response>> {
    if !app.same_origin(headers) {
        return Err(Box::new(refuse(
            headers,
            StatusCode::FORBIDDEN,
            "拒绝：这个请求来自别的网站，什么也没有改。",
            "/flags",
        )));
    }
    let Some((id, s)) = app.session(headers) else {
        return Err(Box::new(refuse(
            headers,
            StatusCode::FORBIDDEN,
            "拒绝：没有登录，或登录已过期、已被导演结束。什么也没有改。",
            "/login",
        )));
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
            Err(Box::new(refuse(
                headers,
                StatusCode::FORBIDDEN,
                "拒绝：缺少或错误的表单校验码（CSRF）。请回到页面重新操作；什么也没有改。",
                "/flags",
            )))
        }
    }
}

/// Which sections a page shows for a role: (part, in a side-by-side row with the next).
fn page_parts(page: &str, role: Role) -> Vec<Vec<Part>> {
    let d = role == Role::Director;
    match page {
        "day" if d => vec![
            vec![Part::Status],
            vec![Part::TallyDirector, Part::TallyPublic],
            vec![Part::Activity],
            vec![Part::Changes, Part::Elevator],
        ],
        "day" => vec![
            vec![Part::Status],
            vec![Part::TallyPublic],
            vec![Part::Activity],
        ],
        "flags" => vec![vec![Part::Flags], vec![Part::Ledger]],
        "game" if d => vec![
            vec![Part::State, Part::StatePublic],
            vec![Part::Nights],
            vec![Part::Sessions],
        ],
        _ => vec![vec![Part::StatePublic], vec![Part::NightsPublic]],
    }
}

/// The day asked for (`?day=N`), else the day open now.
fn the_day(cfg: &Config, uri: &Uri, now: Timestamp) -> Option<u32> {
    query(uri)
        .get("day")
        .and_then(|d| d.parse::<u32>().ok())
        .or_else(|| views::current_day(cfg, now))
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
            let nonce = random_hex(16);
            return html_page(
                StatusCode::INTERNAL_SERVER_ERROR,
                html::refusal_page(&format!("配置或规则文件有错：{e}"), "/day", &nonce),
                &nonce,
            );
        }
    };
    let now = app.clock.now();
    let q = query(uri);
    let day = the_day(&cfg, uri, now);
    let flash = app
        .sessions
        .lock()
        .ok()
        .and_then(|mut m| m.get_mut(&id).and_then(|s| s.flash_take()));
    let mut content = String::new();
    if page == "day" {
        content.push_str(&html::day_nav(&cfg, day));
    }
    let rendered = with_ctx(app, &sess, &cfg, &rules, &q, now, |ctx| {
        let mut content = String::new();
        for row in page_parts(page, sess.role) {
            if row.len() > 1 {
                content.push_str("<div class=\"cols\">");
            }
            for &p in &row {
                let src = format!("/part/{}{}", p.name(), part_query(day, &q));
                let inner = views::render(p, ctx, day);
                content.push_str(&html::live_section(p.name(), p.title(), &src, &inner));
            }
            if row.len() > 1 {
                content.push_str("</div>");
            }
        }
        content
    });
    match rendered {
        Ok(c) => content.push_str(&c),
        Err(r) => return *r,
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
            tz: cfg.tz.name(),
        },
        &content,
    );
    html_page(StatusCode::OK, body, &nonce)
}

pub(super) async fn page_day(State(app): AppState, headers: HeaderMap, uri: Uri) -> Response {
    render_page(&app, &headers, &uri, "day")
}

pub(super) async fn page_flags(State(app): AppState, headers: HeaderMap, uri: Uri) -> Response {
    render_page(&app, &headers, &uri, "flags")
}

pub(super) async fn page_game(State(app): AppState, headers: HeaderMap, uri: Uri) -> Response {
    render_page(&app, &headers, &uri, "game")
}

pub(super) async fn part(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(name): UrlPath<String>,
    uri: Uri,
) -> Response {
    let Some((_, sess)) = app.session(&headers) else {
        return plain(StatusCode::UNAUTHORIZED, "未登录（not signed in）");
    };
    let Some(p) = Part::parse(&name) else {
        return plain(StatusCode::NOT_FOUND, "没有这一栏（no such section）");
    };
    if p.director_only() && sess.role != Role::Director {
        return plain(StatusCode::FORBIDDEN, "拒绝：这是导演的视图。");
    }
    let (cfg, rules) = match app.load() {
        Ok(x) => x,
        Err(e) => {
            return fragment(
                StatusCode::OK,
                html::error_box(&format!("配置或规则文件有错：{e}")),
            );
        }
    };
    let now = app.clock.now();
    let q = query(&uri);
    let day = q.get("day").and_then(|d| d.parse().ok());
    match with_ctx(&app, &sess, &cfg, &rules, &q, now, |ctx| {
        views::render(p, ctx, day)
    }) {
        Ok(html) => fragment(StatusCode::OK, html),
        Err(r) => *r,
    }
}

/// The query a section is fetched again with: the page's day and `since`.
fn part_query(day: Option<u32>, q: &HashMap<String, String>) -> String {
    let mut params = form_urlencoded::Serializer::new(String::new());
    if let Some(d) = day {
        params.append_pair("day", &d.to_string());
    }
    if let Some(s) = q.get("since") {
        params.append_pair("since", s);
    }
    let p = params.finish();
    if p.is_empty() { p } else { format!("?{p}") }
}

/// Run `f` with what a section is computed from: the store (locked), the session's role
/// and CSRF token, the page's query, the live sessions.
fn with_ctx<R>(
    app: &App,
    sess: &Session,
    cfg: &Config,
    rules: &RuleSet,
    q: &HashMap<String, String>,
    now: Timestamp,
    f: impl FnOnce(&Ctx<'_>) -> R,
) -> Result<R, Box<Response>> {
    let sessions = app
        .sessions
        .lock()
        .map(|mut s| s.list(now))
        .unwrap_or_default();
    let Ok(store) = app.store.lock() else {
        return Err(Box::new(plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "store lock poisoned",
        )));
    };
    let ctx = Ctx {
        cfg,
        rules,
        store: &store,
        now,
        role: sess.role,
        csrf: &sess.csrf,
        query: q,
        sessions: &sessions,
        me: &sess.handle,
    };
    Ok(f(&ctx))
}

pub(super) async fn version(State(app): AppState, headers: HeaderMap) -> Response {
    if app.session(&headers).is_none() {
        return plain(StatusCode::UNAUTHORIZED, "未登录（not signed in）");
    }
    respond(
        StatusCode::OK,
        "application/json",
        serde_json::json!({ "version": app.version(), "now": app.clock.now() }).to_string(),
        None,
    )
}
