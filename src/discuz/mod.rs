//! Reading Discuz! X pages: PC HTML and mobile-API JSON into [`crate::model::ThreadPage`].
//! Pure: bytes in, data out (no network, no clock, no database).
//!
//! The reference for every rule here is `shared/discuz/MARKUP.md`; section numbers in
//! comments (§4.3 …) point into it.
//!
//! * [`parse_page`] sniffs JSON vs HTML and dispatches to [`parse_api`] / [`parse_html`].
//! * [`parse_forumdisplay`] reads a `module=forumdisplay` API answer (day-thread discovery).
//! * [`decode`] turns bytes into text (BOM, HTTP header, meta charset; GBK as GB18030).
//!
//! Error pages are errors ([`PageError`]), never a page with zero posts.

mod api;
mod body;
mod dtime;
mod html;
mod lite;

use crate::config::Charset;
use crate::model::{ThreadPage, Timestamp};

pub use api::{parse_api, parse_api_with_warnings, parse_forumdisplay};
pub use body::{StyledText, is_large_size, is_red_color, parse_color, styled_text};
pub use dtime::{parse_absolute, parse_post_time, parse_relative};
pub use html::{parse_html, parse_html_with_floor_names, parse_html_with_warnings};

/// A field the parser could not read on a page it still returns. The field is left
/// unknown (empty author, no floor, time 0 = [`UNKNOWN_TIME`]); every other field and
/// every other post of the page are kept. Names the floor and pid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseWarning {
    pub pid: Option<u64>,
    /// The floor label as shown (`5#`, `沙发`), or `?` when there was none.
    pub floor: String,
    pub message: String,
}

impl std::fmt::Display for ParseWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "floor {} (pid {pid}): {}", self.floor, self.message),
            None => write!(f, "floor {}: {}", self.floor, self.message),
        }
    }
}

/// The post time of a post whose time could not be read (see [`ParseWarning`]): outside
/// every game day, so such a post never counts for a day until a later fetch reads it.
pub const UNKNOWN_TIME: Timestamp = 0;

/// A parsed page and the fields it could not read.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub page: ThreadPage,
    pub warnings: Vec<ParseWarning>,
}

/// What the caller knows about the bytes it hands to a parser.
#[derive(Debug, Clone)]
pub struct ParseContext {
    /// URL or file path: named in every error.
    pub source: String,
    /// The thread id when the caller knows it (pages usually say it).
    pub tid: Option<u64>,
    /// The page that was requested, if any.
    pub page: Option<u32>,
    /// When the page was fetched: the base for relative times (刚刚, N 分钟前, 昨天 HH:MM…).
    pub fetched_at: Timestamp,
    /// The forum's (viewer's) timezone.
    pub tz: chrono_tz::Tz,
    /// Auto: HTTP header / meta / BOM sniffing.
    pub charset: Charset,
}

impl ParseContext {
    /// A context with the defaults: no tid/page, Asia/Shanghai, charset auto.
    pub fn new(source: impl Into<String>, fetched_at: Timestamp) -> Self {
        ParseContext {
            source: source.into(),
            tid: None,
            page: None,
            fetched_at,
            tz: chrono_tz::Asia::Shanghai,
            charset: Charset::Auto,
        }
    }
}

/// One thread of a board listing (`module=forumdisplay`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ThreadSummary {
    pub tid: u64,
    pub subject: String,
    pub author: String,
    pub author_uid: Option<u64>,
    pub time: Timestamp,
    pub replies: u32,
}

/// Why a response is not a usable thread page. Every message names the source.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("{origin}: empty response body")]
    Empty { origin: String },
    #[error("{origin}: truncated page ({detail}); retry")]
    Truncated { origin: String, detail: String },
    #[error("{origin}: CC-defence page 「{title}」 (request rate limit); wait and retry")]
    CcDefence { origin: String, title: String },
    #[error("{origin}: anti-harvest JavaScript page (防采集) instead of the thread; back off")]
    AntiScrape { origin: String },
    #[error("{origin}: server error page: {detail}; retry later")]
    ServerError { origin: String, detail: String },
    #[error("{origin}: not a thread page (no #postlist and no #messagetext): {detail}")]
    NotThreadPage { origin: String, detail: String },
    #[error(
        "{origin}: a Discuz! {version} thread page (viewthread.php): bansha reads the thread \
         pages of Discuz! X (forum.php?mod=viewthread) only"
    )]
    UnsupportedVersion { origin: String, version: String },
    #[error("{origin}: thread missing: 「{message}」")]
    ThreadMissing { origin: String, message: String },
    #[error("{origin}: no permission: 「{message}」")]
    NoPermission { origin: String, message: String },
    #[error("{origin}: login required or login expired: 「{message}」")]
    LoginRequired { origin: String, message: String },
    #[error("{origin}: account or IP banned: 「{message}」")]
    Banned { origin: String, message: String },
    #[error("{origin}: forum closed: 「{message}」; retry later")]
    BoardClosed { origin: String, message: String },
    #[error("{origin}: forum message page: 「{message}」")]
    ForumMessage { origin: String, message: String },
    #[error("{origin}: malformed JSON: {detail}")]
    MalformedJson { origin: String, detail: String },
    #[error("{origin}: API error `{code}`")]
    ApiError { origin: String, code: String },
    #[error("{origin}: {detail}")]
    Malformed { origin: String, detail: String },
}

impl PageError {
    /// Worth retrying later: truncated, CC page, anti-scrape, 5xx-like, closed board.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            PageError::Empty { .. }
                | PageError::Truncated { .. }
                | PageError::CcDefence { .. }
                | PageError::AntiScrape { .. }
                | PageError::ServerError { .. }
                | PageError::NotThreadPage { .. }
                | PageError::BoardClosed { .. }
        )
    }
    /// Login required / expired login.
    pub fn is_login_problem(&self) -> bool {
        matches!(self, PageError::LoginRequired { .. })
    }
    /// Thread missing / no permission / banned: skip, don't retry.
    pub fn is_gone(&self) -> bool {
        matches!(
            self,
            PageError::ThreadMissing { .. }
                | PageError::NoPermission { .. }
                | PageError::Banned { .. }
        )
    }
    /// The source (URL or path) the error is about.
    pub fn source_name(&self) -> &str {
        match self {
            PageError::Empty { origin }
            | PageError::AntiScrape { origin }
            | PageError::Truncated { origin, .. }
            | PageError::CcDefence { origin, .. }
            | PageError::ServerError { origin, .. }
            | PageError::NotThreadPage { origin, .. }
            | PageError::UnsupportedVersion { origin, .. }
            | PageError::ThreadMissing { origin, .. }
            | PageError::NoPermission { origin, .. }
            | PageError::LoginRequired { origin, .. }
            | PageError::Banned { origin, .. }
            | PageError::BoardClosed { origin, .. }
            | PageError::ForumMessage { origin, .. }
            | PageError::MalformedJson { origin, .. }
            | PageError::ApiError { origin, .. }
            | PageError::Malformed { origin, .. } => origin,
        }
    }
}

/// Map a forum message (`#messagetext` text, or API `messageval`/`messagestr`) to an error
/// kind (MARKUP §8.2). `login_block` = the page carried the login form (`#messagelogin`)
/// or the API `messageval` had the `//1` suffix.
pub(crate) fn classify_message(
    source: &str,
    key: &str,
    text: &str,
    login_block: bool,
) -> PageError {
    let s = source.to_string();
    let message = if text.trim().is_empty() {
        one_line(key, MESSAGE_MAX)
    } else {
        one_line(text, MESSAGE_MAX)
    };
    let has = |needles: &[&str]| needles.iter().any(|n| text.contains(n) || key.contains(n));
    if has(&[
        "thread_nonexistence",
        "post_check",
        "主题不存在",
        "帖子不存在",
    ]) {
        return PageError::ThreadMissing { origin: s, message };
    }
    if has(&[
        "user_banned",
        "账号被禁用",
        "IP 地址不在允许范围",
        "IP地址不在允许范围",
        "您的访问受限",
    ]) {
        return PageError::Banned { origin: s, message };
    }
    if login_block
        || key.ends_with("//1")
        || has(&[
            "to_login",
            "not_loggedin",
            "viewperm_login_nopermission",
            "尚未登录",
            "先登录",
            "请登录",
        ])
    {
        return PageError::LoginRequired { origin: s, message };
    }
    if has(&[
        "nopermission",
        "forum_passwd",
        "forum_access_view_disallow",
        "forum_nonexistence",
        "没有权限",
        "无法进行此操作",
        "只有特定用户组",
        "阅读权限高于",
        "需要密码",
        "版块不存在",
    ]) {
        return PageError::NoPermission { origin: s, message };
    }
    if has(&["board_closed", "站点暂时关闭", "站点关闭"]) {
        return PageError::BoardClosed { origin: s, message };
    }
    PageError::ForumMessage { origin: s, message }
}

/// Sniffs JSON (mobile API) vs HTML (PC page) and dispatches. Fields the parser could
/// not read are logged as warnings (see [`parse_page_with_warnings`] to get them).
pub fn parse_page(bytes: &[u8], ctx: &ParseContext) -> Result<ThreadPage, PageError> {
    parse_page_with_warnings(bytes, ctx).map(|p| log_warnings(p, ctx))
}

/// [`parse_page`], handing back the unreadable fields instead of logging them.
pub fn parse_page_with_warnings(bytes: &[u8], ctx: &ParseContext) -> Result<Parsed, PageError> {
    let body = strip_bom_ws(bytes);
    match body.first() {
        Some(b'{') | Some(b'[') => parse_api_with_warnings(bytes, ctx),
        _ => parse_html_with_warnings(bytes, ctx, &[]),
    }
}

pub(crate) fn log_warnings(p: Parsed, ctx: &ParseContext) -> ThreadPage {
    for w in &p.warnings {
        tracing::warn!("{}: {w}", ctx.source);
    }
    p.page
}

/// A forum message or API error as one readable line: tags stripped, character
/// references decoded, whitespace (CR/LF, `<P>`, `<br>`) collapsed to single spaces,
/// cut to `max` characters (with `…`).
pub fn one_line(s: &str, max: usize) -> String {
    static RE_SCRIPT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?is)<script\b.*?(?:</script\s*>|$)|<style\b.*?(?:</style\s*>|$)")
            .unwrap()
    });
    let s = if s.contains('<') {
        RE_SCRIPT.replace_all(s, " ")
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    let mut plain = String::with_capacity(s.len());
    let mut rest: &str = &s;
    while let Some(i) = rest.find('<') {
        plain.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        // A tag starts with a letter, `/` or `!`; a lone `<` (`a < b`) is text.
        if after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!') {
            match after.find('>') {
                Some(j) => {
                    plain.push(' ');
                    rest = &after[j + 1..];
                }
                None => {
                    rest = "";
                }
            }
        } else {
            plain.push('<');
            rest = after;
        }
    }
    plain.push_str(rest);
    let text = unescape_html(&plain);
    let mut out = String::with_capacity(text.len());
    for w in text.split(|c: char| c.is_whitespace() || c == '\u{a0}') {
        if w.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    if out.chars().count() > max {
        let cut: String = out.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    } else {
        out
    }
}

/// The longest forum message an error line quotes.
pub(crate) const MESSAGE_MAX: usize = 120;

/// Skip a leading UTF-8 BOM and ASCII whitespace.
pub(crate) fn strip_bom_ws(mut b: &[u8]) -> &[u8] {
    loop {
        if let Some(rest) = b.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
            b = rest;
        } else if let Some((c, rest)) = b.split_first() {
            if c.is_ascii_whitespace() {
                b = rest;
            } else {
                return b;
            }
        } else {
            return b;
        }
    }
}

/// The charset a `Content-Type`-like value names (`text/html; charset=gbk`).
fn charset_from_content_type(ct: &str) -> Option<&'static encoding_rs::Encoding> {
    let lower = ct.to_ascii_lowercase();
    let i = lower.find("charset")?;
    let rest = lower[i + "charset".len()..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let rest = rest.trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    label_encoding(&rest[..end])
}

fn label_encoding(label: &str) -> Option<&'static encoding_rs::Encoding> {
    let l = label.trim().to_ascii_lowercase();
    if l.is_empty() {
        return None;
    }
    if matches!(l.as_str(), "gbk" | "gb2312" | "gb18030" | "x-gbk" | "cp936") {
        return Some(encoding_rs::GB18030);
    }
    encoding_rs::Encoding::for_label(l.as_bytes())
}

/// Decode bytes to text. The charset is taken from a BOM, then `charset` (the game
/// config), the `Content-Type` header, the `<meta>`/XML declaration/`charset = '…'`
/// script variable in the first 4 KiB; GBK is always decoded as GB18030 (a superset).
/// A leading BOM is dropped.
///
/// **The bytes overrule a declaration they contradict** (migrated forums and browser
/// saves often keep a stale `<meta charset=gbk>` on a UTF-8 file): a body that is valid
/// UTF-8 and holds at least one 3-byte sequence (CJK) is UTF-8 whatever it declares,
/// and a body declared UTF-8 that is not valid UTF-8 but decodes cleanly as GB18030 is
/// GB18030. (Valid UTF-8 made only of 2-byte sequences is what short GBK text looks
/// like by accident — 投票 = CD B6 C6 B1 — so there the declaration stands.)
pub fn decode(bytes: &[u8], charset: Charset, content_type: Option<&str>) -> String {
    decode_cow(bytes, charset, content_type).into_owned()
}

/// [`decode`] without the copy: the bytes themselves when they are UTF-8 and read as
/// UTF-8 (one validation pass, the common case), else the decoded text.
pub fn decode_cow<'b>(
    bytes: &'b [u8],
    charset: Charset,
    content_type: Option<&str>,
) -> std::borrow::Cow<'b, str> {
    let declared = match charset {
        Charset::Utf8 => Some(encoding_rs::UTF_8),
        Charset::Gbk => Some(encoding_rs::GB18030),
        Charset::Auto => declared_charset(bytes, content_type),
    };
    let bom = bytes.starts_with(&[0xEF, 0xBB, 0xBF]);
    let body = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    let valid = std::str::from_utf8(bytes).ok();
    let enc = if bom {
        encoding_rs::UTF_8
    } else {
        from_bytes(valid, bytes, declared)
    };
    if enc == encoding_rs::UTF_8
        && let Some(s) = valid
    {
        // Valid UTF-8 read as UTF-8: what `decode_without_bom_handling` would return.
        return std::borrow::Cow::Borrowed(&s[bytes.len() - body.len()..]);
    }
    let (text, _) = enc.decode_without_bom_handling(body);
    text
}

/// The encoding the bytes themselves say, given what the page declares (`valid`: the
/// bytes as text when they are UTF-8).
fn from_bytes(
    valid: Option<&str>,
    bytes: &[u8],
    declared: Option<&'static encoding_rs::Encoding>,
) -> &'static encoding_rs::Encoding {
    match valid {
        Some(s) if s.is_ascii() => declared.unwrap_or(encoding_rs::UTF_8),
        // A character at or above U+0800 is a three- or four-byte sequence: lead byte ≥ 0xE0.
        Some(s) if s.bytes().any(|b| b >= 0xE0) => encoding_rs::UTF_8,
        Some(_) => declared.unwrap_or(encoding_rs::GB18030),
        None => match declared {
            Some(e) if e == encoding_rs::UTF_8 => {
                let (_, had_errors) = encoding_rs::GB18030.decode_without_bom_handling(bytes);
                if had_errors {
                    encoding_rs::UTF_8
                } else {
                    encoding_rs::GB18030
                }
            }
            Some(e) => e,
            None => encoding_rs::GB18030,
        },
    }
}

/// What the header or the page declares, if anything.
fn declared_charset(
    bytes: &[u8],
    content_type: Option<&str>,
) -> Option<&'static encoding_rs::Encoding> {
    if let Some(enc) = content_type.and_then(charset_from_content_type) {
        return Some(enc);
    }
    let head = &bytes[..bytes.len().min(4096)];
    let head = String::from_utf8_lossy(head).to_ascii_lowercase();
    // <meta charset="gbk">, <meta http-equiv content="text/html; charset=gbk">,
    // <?xml encoding="gbk"?>, header script `charset = 'gbk'`.
    for key in ["charset", "encoding"] {
        let mut from = 0;
        while let Some(i) = head[from..].find(key) {
            let at = from + i + key.len();
            let rest = head[at..].trim_start();
            if let Some(rest) = rest.strip_prefix('=') {
                let rest = rest.trim_start().trim_start_matches(['"', '\'']);
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                    .unwrap_or(rest.len());
                if let Some(enc) = label_encoding(&rest[..end]) {
                    return Some(enc);
                }
            }
            from = at;
        }
    }
    None
}

/// Decode HTML character references in a text value (`&amp;`, `&#12345;`, `&#x4e2d;`,
/// `&nbsp;` → space). Used for API strings that are HTML-escaped text.
pub fn unescape_html(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest[1..].find(';').map(|j| j + 1);
        let decoded = end.filter(|&e| e <= 12).and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" | "#39" => Some('\''),
                "nbsp" => Some(' '),
                _ => {
                    if let Some(hex) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                        u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
                    } else if let Some(dec) = name.strip_prefix('#') {
                        dec.parse::<u32>().ok().and_then(char::from_u32)
                    } else {
                        None
                    }
                }
            };
            c.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(if c == '\u{a0}' { ' ' } else { c });
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_sniffs_bom_header_meta_and_falls_back_to_gb18030() {
        let (gbk, _, _) = encoding_rs::GBK.encode("<html>投票</html>");
        assert_eq!(decode(&gbk, Charset::Auto, None), "<html>投票</html>");
        assert_eq!(decode(&gbk, Charset::Gbk, None), "<html>投票</html>");
        let mut bom = vec![0xEF, 0xBB, 0xBF];
        bom.extend_from_slice("投票".as_bytes());
        assert_eq!(decode(&bom, Charset::Auto, None), "投票");
        // A GBK page whose bytes happen to be valid UTF-8 is still read by its meta.
        let page = "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=gbk\" />";
        let (mut b, _, _) = encoding_rs::GBK.encode(page);
        b.to_mut()
            .extend_from_slice(&encoding_rs::GBK.encode("中").0);
        assert!(decode(&b, Charset::Auto, None).ends_with('中'));
        assert_eq!(
            decode(
                "中".as_bytes(),
                Charset::Auto,
                Some("text/html; charset=UTF-8")
            ),
            "中"
        );
    }

    #[test]
    fn bytes_overrule_a_charset_declaration_they_contradict() {
        // Regression: a UTF-8 save that keeps the forum's `charset=gbk` meta was stored
        // as mojibake (鎶曠エ for 投票).
        let page = "<meta charset=\"gbk\"><p>投票对象：小红</p>";
        assert!(decode(page.as_bytes(), Charset::Auto, None).contains("投票对象：小红"));
        assert!(decode(page.as_bytes(), Charset::Gbk, None).contains("投票对象：小红"));
        assert!(
            decode(
                page.as_bytes(),
                Charset::Auto,
                Some("text/html; charset=GBK")
            )
            .contains("投票对象：小红")
        );
        // And the other way: a GBK body behind a UTF-8 declaration.
        let (gbk, _, _) = encoding_rs::GBK.encode("<meta charset=\"utf-8\"><p>投票对象：小红</p>");
        assert!(decode(&gbk, Charset::Auto, None).contains("投票对象：小红"));
        assert!(!decode(&gbk, Charset::Auto, None).contains('\u{fffd}'));
    }

    #[test]
    fn messages_become_one_readable_line() {
        let m = "开服预备，21点准时开门<P><P>\r\n<a href=\"forum.php\">返回首页</a>&nbsp;&amp;\r\n<br />\t更多";
        assert_eq!(one_line(m, 120), "开服预备，21点准时开门 返回首页 & 更多");
        assert_eq!(one_line("a < b <b>c</b>", 120), "a < b c");
        let long = "字".repeat(300);
        let cut = one_line(&long, 20);
        assert_eq!(cut.chars().count(), 20);
        assert!(cut.ends_with('…'));
        assert!(!one_line("<div\n>x</div\n>\n\n", 20).contains('\n'));
    }

    #[test]
    fn unescape_handles_named_and_numeric_references() {
        assert_eq!(
            unescape_html("a&amp;b&#20013;&#x6587;&nbsp;&bogus; &"),
            "a&b中文 &bogus; &"
        );
    }

    #[test]
    fn message_classification_follows_markup_8_2() {
        let c = |k: &str, t: &str, l: bool| classify_message("u", k, t, l);
        assert!(c("", "抱歉，指定的主题不存在或已被删除或正在被审核", false).is_gone());
        assert!(c("", "抱歉，您尚未登录，没有权限访问该版块", true).is_login_problem());
        assert!(c("viewperm_login_nopermission//1", "", false).is_login_problem());
        assert!(matches!(
            c("", "抱歉，本帖要求阅读权限高于 100 才能浏览", false),
            PageError::NoPermission { .. }
        ));
        assert!(matches!(
            c(
                "",
                "抱歉，您的 IP 地址不在允许范围内，或您的账号被禁用，无法访问本站点",
                false
            ),
            PageError::Banned { .. }
        ));
        assert!(c("", "抱歉，本站点暂时关闭", false).is_retryable());
        assert!(matches!(
            c("", "未定义操作", false),
            PageError::ForumMessage { .. }
        ));
    }
}
