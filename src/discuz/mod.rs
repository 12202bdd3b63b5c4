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

use crate::config::Charset;
use crate::model::{ThreadPage, Timestamp};

pub use api::{parse_api, parse_forumdisplay};
pub use body::{is_large_size, is_red_color, parse_color};
pub use dtime::{parse_absolute, parse_post_time, parse_relative};
pub use html::{parse_html, parse_html_with_floor_names};

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
        key.to_string()
    } else {
        text.trim().to_string()
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

/// Sniffs JSON (mobile API) vs HTML (PC page) and dispatches.
pub fn parse_page(bytes: &[u8], ctx: &ParseContext) -> Result<ThreadPage, PageError> {
    let body = strip_bom_ws(bytes);
    match body.first() {
        Some(b'{') | Some(b'[') => parse_api(bytes, ctx),
        _ => parse_html(bytes, ctx),
    }
}

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

/// Decode bytes to text. Explicit charsets win; `Auto` looks at a BOM, then the
/// `Content-Type` header, then the `<meta>`/XML declaration/`charset = '…'` script
/// variable in the first 4 KiB, then whether the bytes are valid UTF-8 (else GB18030).
/// GBK is always decoded as GB18030 (a superset). A leading BOM is dropped.
pub fn decode(bytes: &[u8], charset: Charset, content_type: Option<&str>) -> String {
    let enc: &'static encoding_rs::Encoding = match charset {
        Charset::Utf8 => encoding_rs::UTF_8,
        Charset::Gbk => encoding_rs::GB18030,
        Charset::Auto => sniff(bytes, content_type),
    };
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    let (text, _) = enc.decode_without_bom_handling(bytes);
    text.into_owned()
}

fn sniff(bytes: &[u8], content_type: Option<&str>) -> &'static encoding_rs::Encoding {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return encoding_rs::UTF_8;
    }
    if let Some(enc) = content_type.and_then(charset_from_content_type) {
        return enc;
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
                    return enc;
                }
            }
            from = at;
        }
    }
    // Valid UTF-8 with at least one 3-byte sequence (CJK) or pure ASCII: UTF-8. Valid UTF-8
    // made only of 2-byte sequences is almost always GBK by accident (投票 = CD B6 C6 B1).
    match std::str::from_utf8(bytes) {
        Ok(s) if s.is_ascii() || s.chars().any(|c| c as u32 >= 0x800) => encoding_rs::UTF_8,
        _ => encoding_rs::GB18030,
    }
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
