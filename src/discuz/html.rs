//! PC thread pages (`forum.php?mod=viewthread`, MARKUP §3–§8).
//!
//! Classification before posts (§13.4): empty body, anti-harvest script, CC-defence page,
//! `#messagetext` message page, server error page, page without `#postlist`.
//!
//! A thread page is **complete** when what follows the post list on every Discuz page
//! is there: the post list closed with something after it, or after the last post one
//! of the blocks a thread page has below its posts (`#postlistreply`, `#hiddenpoststip`,
//! the pager `div.pgs`/`div.pgbtn`, `#modactions`, the reply box `#f_pst`/
//! `#fastpostform`, the footer `#ft`), or the document's own `</body>`/`</html>`.
//! Browser saves and DOM dumps often lack `<html>`/`</html>`; a connection cut
//! mid-transfer loses everything after the cut, so a page missing all of these is
//! **truncated** and refused, never returned with the posts before the cut.
//!
//! A field of one post that cannot be read (a customised template's time label, an
//! author link in an unknown place) costs that field with a [`ParseWarning`] naming the
//! floor, never the page.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use scraper::{ElementRef, Html, Selector};

use crate::model::{LockKind, PagePost, ThreadPage};

use super::body::{self, BodyOpts, has_class, node_text};
use super::dtime::parse_post_time;
use super::{
    PageError, ParseContext, ParseWarning, Parsed, UNKNOWN_TIME, classify_message, log_warnings,
};

fn sel(s: &str) -> Selector {
    Selector::parse(s).expect("static selector")
}

macro_rules! selector {
    ($name:ident, $s:expr) => {
        static $name: LazyLock<Selector> = LazyLock::new(|| sel($s));
    };
}

selector!(S_POSTLIST, "#postlist");
selector!(S_MESSAGETEXT, "#messagetext");
selector!(S_MESSAGELOGIN, "#messagelogin");
selector!(
    S_LOGIN_FORM,
    "form[name=\"login\"], form[id^=\"loginform_\"]"
);
selector!(S_ALERT, "div.alert_error, div.alert_info, div.alert_right");
selector!(S_B, "b");
selector!(S_TITLE, "title");
selector!(S_SUBJECT, "#thread_subject");
selector!(S_PG, "div.pg");
selector!(S_PG_STRONG, "strong");
selector!(S_PG_TOTAL, "label span[title]");
selector!(S_A, "a");
selector!(S_PID_TABLE, "table[id^=\"pid\"]");
selector!(S_AUTHOR_LEFT, ".pls .authi a.xw1");
selector!(S_AUTHOR_RIGHT, ".plc .authi a.xi2:not(.avt)");
selector!(S_AUTHOR_CARD, "div[id^=\"userinfo\"] strong a.xi2");
selector!(S_PLS_PI, "td.pls div.pi");
selector!(S_PLC_AUTHI, ".plc .authi");
selector!(S_AUTHORID_LINK, ".authi a[href*=\"authorid=\"]");
selector!(S_POSTNUM, "a[id^=\"postnum\"]");
selector!(S_PI_FLOOR, "div.pi strong a");
selector!(S_EM, "em");
selector!(S_POSTON, "[id^=\"authorposton\"]");
selector!(
    S_FOLLOWER,
    "#postlistreply, #hiddenpoststip, #post_new, #modactions, div.pgs, div.pgbtn, #f_pst, \
     #fastpostform, #ft, #footer"
);
selector!(S_SPACE_LINK, "a[href*=\"uid=\"], a[href*=\"space-uid-\"]");
selector!(S_HEADER_TEXT, ".authi, .pti, .pi, [class*=\"pi\"]");
selector!(S_SPAN_TITLE, "span[title]");
selector!(S_MESSAGE, "td[id^=\"postmessage_\"]");
selector!(S_LOCKED, "div.locked");
selector!(S_PCT, "div.pct");

static RE_DISCUZ_UID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"discuz_uid\s*=\s*'(\d+)'").unwrap());
static RE_TID_SCRIPT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"tid\s*=\s*parseInt\('(\d+)'\)").unwrap());
static RE_TID_URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:[?&;]p?tid=(\d+))|(?:thread-(\d+)-\d+-\d+\.html)").unwrap());
static RE_UID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:[?&;]uid=(\d+))|(?:space-uid-(\d+)\.html)").unwrap());
static RE_GENERATOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"name="generator"\s+content="Discuz!\s*([^"]+)""#).unwrap());
static RE_POWERED_BY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Discuz!</a></strong>\s*<em>([^<]+)</em>").unwrap());
static RE_AUTHORID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"authorid=(\d+)").unwrap());
static RE_FROM_FLOOR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"来自\s*(\d+)?").unwrap());
static RE_DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(\d+)").unwrap());
static RE_POST_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^post_(\d+)$").unwrap());
/// An absolute date-time inside other text (`时间：2022-2-12 23:58:16 | 只看该作者`).
static RE_DATETIME_IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp][Mm])?")
        .unwrap()
});
/// Class names customised templates use to hide an element (the CSS says display:none).
pub(crate) const HIDDEN_CLASSES: &[&str] =
    &["display_none", "dnone", "none", "hide", "hidden", "yc"];

/// The stock/common custom floor names (MARKUP §4.2): index = floor.
const STOCK_FLOOR_NAMES: &[&str] = &["", "楼主", "沙发", "板凳", "地板", "地下室"];

const CC_TITLES: &[&str] = &["频繁刷新限制", "代理服务器访问限制", "页面重载开启"];

/// Parse a PC thread page with the stock floor-name list.
pub fn parse_html(bytes: &[u8], ctx: &ParseContext) -> Result<ThreadPage, PageError> {
    parse_html_with_floor_names(bytes, ctx, &[])
}

fn src(ctx: &ParseContext) -> String {
    ctx.source.clone()
}

pub(crate) fn uid_from_href(h: &str) -> Option<u64> {
    let h = h.replace("&amp;", "&");
    RE_UID
        .captures(&h)
        .and_then(|c| c.get(1).or(c.get(2)))
        .and_then(|m| m.as_str().parse().ok())
}

/// The last ~4 KiB of `s` (on a char boundary).
fn tail(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

fn snippet(s: &str) -> String {
    let t: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    t.chars().take(80).collect()
}

/// Parse a PC thread page. `floor_names` is the site's custom floor-name list in the
/// API's `cache_custominfo_postno` shape (index 0 = suffix, index N = name of floor N,
/// empty = use the number); the stock names (楼主, 沙发, 板凳, 地板…) are tried after it.
/// Unreadable fields are logged as warnings.
pub fn parse_html_with_floor_names(
    bytes: &[u8],
    ctx: &ParseContext,
    floor_names: &[String],
) -> Result<ThreadPage, PageError> {
    parse_html_with_warnings(bytes, ctx, floor_names).map(|p| log_warnings(p, ctx))
}

/// [`parse_html_with_floor_names`], handing back the unreadable fields.
pub fn parse_html_with_warnings(
    bytes: &[u8],
    ctx: &ParseContext,
    floor_names: &[String],
) -> Result<Parsed, PageError> {
    let text = super::decode_cow(bytes, ctx.charset, None);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return Err(PageError::Empty { origin: src(ctx) });
    }
    let lower_head: String = trimmed
        .chars()
        .take(2048)
        .collect::<String>()
        .to_ascii_lowercase();
    let lower_tail = tail(trimmed, 4096).to_ascii_lowercase();
    let closed = lower_tail.contains("</html>") || lower_tail.contains("</body>");
    if !lower_head.contains("<html")
        && lower_head.starts_with("<script")
        && trimmed.contains("location")
    {
        return Err(PageError::AntiScrape { origin: src(ctx) });
    }
    if let Some(p) = super::lite::parse(trimmed, closed, ctx, floor_names) {
        if p.posts_declined > 0 {
            tracing::debug!(
                source = %ctx.source,
                posts = p.posts_declined,
                "fast path: posts read alone through html5ever"
            );
        }
        return Ok(p.parsed);
    }
    tracing::debug!(source = %ctx.source, "fast path declined the page: html5ever reads it whole");
    parse_html_tree(trimmed, closed, ctx, floor_names)
}

/// Both readings of a PC page, for the fast path's tests: the fast path's (`None` when it
/// declines) and the html5ever path's.
#[cfg(test)]
pub(crate) fn both_paths(
    bytes: &[u8],
    ctx: &ParseContext,
    floor_names: &[String],
) -> (Option<super::lite::FastRead>, Result<Parsed, PageError>) {
    let text = super::decode_cow(bytes, ctx.charset, None);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    let lower_tail = tail(trimmed, 4096).to_ascii_lowercase();
    let closed = lower_tail.contains("</html>") || lower_tail.contains("</body>");
    (
        super::lite::parse(trimmed, closed, ctx, floor_names),
        parse_html_tree(trimmed, closed, ctx, floor_names),
    )
}

/// The html5ever path of [`parse_html_with_warnings`] (the reference the fast path in
/// [`super::lite`] is checked against), after the checks on the raw text.
pub(crate) fn parse_html_tree(
    trimmed: &str,
    closed: bool,
    ctx: &ParseContext,
    floor_names: &[String],
) -> Result<Parsed, PageError> {
    let doc = Html::parse_document(trimmed);
    let Some(postlist) = doc.select(&S_POSTLIST).next() else {
        return Err(classify_non_thread(&doc, trimmed, closed, ctx));
    };

    let viewer_uid = RE_DISCUZ_UID
        .captures(trimmed)
        .and_then(|c| c[1].parse().ok());
    let tid = ctx
        .tid
        .or_else(|| {
            RE_TID_SCRIPT
                .captures(trimmed)
                .and_then(|c| c[1].parse().ok())
        })
        .or_else(|| tid_from_links(&doc));
    let Some(tid) = tid else {
        return Err(PageError::Malformed {
            origin: src(ctx),
            detail: "thread page without a thread id (no `tid = parseInt(…)`, no tid= links)"
                .into(),
        });
    };
    let title = doc
        .select(&S_SUBJECT)
        .next()
        .map(node_text)
        .or_else(|| {
            doc.select(&S_TITLE).next().map(|t| {
                let t = node_text(t);
                t.split(" - ").next().unwrap_or("").trim().to_string()
            })
        })
        .unwrap_or_default();
    let (page, total_pages) = pagination(&doc);
    let author_filtered = ctx.source.contains("authorid=")
        || doc.select(&S_PG).any(|pg| {
            pg.select(&S_A)
                .any(|a| a.attr("href").is_some_and(|h| h.contains("authorid=")))
        })
        || doc
            .select(&S_PLC_AUTHI)
            .any(|a| a.text().any(|t| t.contains("显示全部楼层")));

    let mut containers: Vec<ElementRef> = postlist
        .child_elements()
        .filter(|e| e.attr("id").is_some_and(|id| RE_POST_ID.is_match(id)))
        .collect();
    if containers.is_empty() {
        containers = postlist
            .descendent_elements()
            .filter(|e| e.attr("id").is_some_and(|id| RE_POST_ID.is_match(id)))
            .collect();
    }
    let list_closed = closed || followed(postlist, |_| true);
    let Some(&last) = containers.last() else {
        if !list_closed {
            return Err(PageError::Truncated {
                origin: src(ctx),
                detail: "the page ends inside the post list, before its first post".into(),
            });
        }
        return Err(PageError::Malformed {
            origin: src(ctx),
            detail: "#postlist holds no post (div#post_N); a thread always has its first post"
                .into(),
        });
    };
    if !(list_closed || followed(last, is_follower)) {
        return Err(PageError::Truncated {
            origin: src(ctx),
            detail: "the page ends inside the post list (no pager, reply box, footer or \
                     </body> after the last post)"
                .into(),
        });
    }
    let opts = BodyOpts {
        judge_size: true,
        tz: ctx.tz,
    };
    let mut posts = Vec::with_capacity(containers.len());
    let mut warnings = Vec::new();
    let mut seen = HashSet::new();
    for c in containers {
        let pid: u64 = RE_POST_ID
            .captures(c.attr("id").unwrap_or_default())
            .unwrap()[1]
            .parse()
            .map_err(|_| PageError::Malformed {
                origin: src(ctx),
                detail: format!("post id {:?} out of range", c.attr("id")),
            })?;
        let mut p = parse_post(c, pid, ctx, &opts, floor_names, &mut warnings)?;
        if let Some(pid) = p.pid
            && !seen.insert(pid)
        {
            p.duplicate = true;
        }
        posts.push(p);
    }
    finish_posts(
        &mut posts,
        &mut warnings,
        page,
        total_pages,
        author_filtered,
    );
    Ok(Parsed {
        page: ThreadPage {
            tid,
            title,
            page,
            total_pages,
            posts,
            author_filtered,
            viewer_uid,
        },
        warnings,
    })
}

/// What both paths do once every post of a page is read: fill the floors the labels did
/// not give, keep the pinned entries that are a post's only copy, and warn about the
/// floors still unknown.
pub(crate) fn finish_posts(
    posts: &mut [PagePost],
    warnings: &mut Vec<ParseWarning>,
    page: u32,
    total_pages: u32,
    author_filtered: bool,
) {
    fill_floors(posts, page, author_filtered);
    if !author_filtered {
        keep_only_copies(posts, total_pages);
    }
    if author_filtered {
        for p in posts.iter_mut() {
            p.floor = None;
        }
    } else {
        for p in posts
            .iter()
            .filter(|p| p.floor.is_none() && !p.duplicate && !p.deleted)
            // A 推荐 entry says no floor by design (MARKUP §4.3): nothing unreadable.
            .filter(|p| !p.floor_label.contains("推荐"))
        {
            warnings.push(ParseWarning {
                pid: p.pid,
                floor: shown_floor(&p.floor_label),
                message: format!(
                    "cannot read the floor number 「{}」; stored without a floor",
                    p.floor_label
                ),
            });
        }
    }
}

/// One post container read alone through html5ever (the fast path's reading of a post
/// it does not read itself): `raw` is the container's source, `<div id="post_P" …>…</div>`.
pub(crate) fn parse_post_alone(
    raw: &str,
    pid: u64,
    ctx: &ParseContext,
    opts: &BodyOpts,
    floor_names: &[String],
    warnings: &mut Vec<ParseWarning>,
) -> Option<Result<PagePost, PageError>> {
    let frag = Html::parse_fragment(raw);
    let id = format!("post_{pid}");
    let c = frag
        .root_element()
        .child_elements()
        .find(|e| e.attr("id") == Some(id.as_str()))?;
    Some(parse_post(c, pid, ctx, opts, floor_names, warnings))
}

fn shown_floor(label: &str) -> String {
    if label.is_empty() {
        "?".into()
    } else {
        label.to_string()
    }
}

/// Whether an element comes after `el` in document order, outside it, that satisfies
/// `pred` (itself or one of its descendants).
fn followed(el: ElementRef, pred: impl Fn(ElementRef) -> bool) -> bool {
    let mut node = Some(*el);
    while let Some(n) = node {
        for sib in n.next_siblings() {
            if let Some(e) = ElementRef::wrap(sib)
                && (pred(e) || e.descendent_elements().any(&pred))
            {
                return true;
            }
        }
        node = n.parent();
    }
    false
}

/// A block every thread page has below its posts (module docs).
fn is_follower(e: ElementRef) -> bool {
    S_FOLLOWER.matches(&e)
}

/// Hidden by an inline `display:none` or by a class customised templates hide with.
fn is_hidden(e: &scraper::node::Element) -> bool {
    e.attr("style")
        .is_some_and(|s| s.replace(' ', "").contains("display:none"))
        || HIDDEN_CLASSES.iter().any(|c| has_class(e, c))
}

/// Inside the message, quote, signature, comments or ratings of a post (not its header).
fn in_body(e: ElementRef, container: ElementRef) -> bool {
    const BODY_CLASSES: &[&str] = &[
        "t_f",
        "t_fsz",
        "pct",
        "pcb",
        "sign",
        "quote",
        "cm",
        "rate",
        "locked",
        "blockcode",
    ];
    let mut n = e.parent();
    while let Some(p) = n {
        if p.id() == container.id() {
            return false;
        }
        if let Some(pe) = p.value().as_element()
            && (pe.id().is_some_and(|i| i.starts_with("postmessage_"))
                || BODY_CLASSES.iter().any(|c| has_class(pe, c)))
        {
            return true;
        }
        n = p.parent();
    }
    false
}

/// The visible name in an author link: hidden elements (`<em class="display_none">作者：
/// </em>admin`) and label children ending in a colon are not part of it.
fn author_text(a: ElementRef) -> String {
    fn walk(n: body::NodeRef<'_>, out: &mut String, top: bool) {
        for ch in n.children() {
            match ch.value() {
                scraper::Node::Text(t) => out.push_str(t),
                scraper::Node::Element(e) => {
                    if is_hidden(e) || matches!(e.name(), "script" | "style") {
                        continue;
                    }
                    if top && let Some(el) = ElementRef::wrap(ch) {
                        let t = node_text(el);
                        if t.ends_with('：') || t.ends_with(':') {
                            continue; // a label element: `<em>作者：</em>`
                        }
                    }
                    walk(ch, out, false);
                }
                _ => {}
            }
        }
    }
    let mut s = String::new();
    walk(*a, &mut s, true);
    strip_author_label(&s)
}

/// An author link's visible text: whitespace runs joined, a leading `作者：`-like label
/// dropped.
pub(crate) fn strip_author_label(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    for label in ["作者", "楼主", "发帖人", "发表人", "用户名", "会员"] {
        if let Some(rest) = s.strip_prefix(label)
            && let Some(rest) = rest.strip_prefix(['：', ':'])
        {
            return rest.trim().to_string();
        }
    }
    s
}

/// The first number in `s` (as the floor and pager fallbacks read it).
pub(crate) fn first_number(s: &str) -> Option<u32> {
    RE_DIGITS.captures(s).and_then(|c| c[1].parse().ok())
}

/// The viewer's uid from the header script (`discuz_uid = '…'`).
pub(crate) fn viewer_uid(text: &str) -> Option<u64> {
    RE_DISCUZ_UID.captures(text).and_then(|c| c[1].parse().ok())
}

/// The thread id from the page script (`tid = parseInt('…')`).
pub(crate) fn tid_from_script(text: &str) -> Option<u64> {
    RE_TID_SCRIPT.captures(text).and_then(|c| c[1].parse().ok())
}

/// `post_N`: the id of a post container in `#postlist`.
pub(crate) fn is_post_container_id(id: &str) -> bool {
    RE_POST_ID.is_match(id)
}

fn tid_from_links(doc: &Html) -> Option<u64> {
    doc.select(&S_A).find_map(|a| {
        let h = a.attr("href")?;
        if !(h.contains("viewthread") || h.contains("thread-") || h.contains("findpost")) {
            return None;
        }
        let c = RE_TID_URL.captures(h)?;
        c.get(1).or(c.get(2))?.as_str().parse().ok()
    })
}

fn classify_non_thread(doc: &Html, text: &str, closed: bool, ctx: &ParseContext) -> PageError {
    let title = doc
        .select(&S_TITLE)
        .next()
        .map(node_text)
        .unwrap_or_default();
    let bold: Vec<String> = doc.select(&S_B).map(node_text).collect();
    for t in CC_TITLES {
        if title.contains(t) || bold.iter().any(|b| b.contains(t)) {
            return PageError::CcDefence {
                origin: src(ctx),
                title: t.to_string(),
            };
        }
    }
    if text.contains("attackevasive_1") || text.contains("secqsubmit") {
        return PageError::CcDefence {
            origin: src(ctx),
            title: bold.first().cloned().unwrap_or_else(|| "安全问答".into()),
        };
    }
    let login = doc.select(&S_MESSAGELOGIN).next().is_some();
    if let Some(m) = doc.select(&S_MESSAGETEXT).next() {
        let p = m
            .select(&sel("p"))
            .next()
            .map(node_text)
            .filter(|t| !t.is_empty());
        let msg = p.unwrap_or_else(|| node_text(m));
        return classify_message(&ctx.source, "", &msg, login);
    }
    // The login page (`member.php?mod=logging&action=login`): its alert block is the
    // hidden box shown after a login succeeds (「如果您的浏览器没有自动跳转…」), not a message.
    if doc.select(&S_LOGIN_FORM).next().is_some() {
        return PageError::LoginRequired {
            origin: src(ctx),
            message: "论坛登录页（member.php?mod=logging&action=login）：需要先登录".into(),
        };
    }
    if let Some(version) = old_discuz(doc, text) {
        return PageError::UnsupportedVersion {
            origin: src(ctx),
            version,
        };
    }
    // AJAX envelope (`<root><![CDATA[…]]></root>`) or a bare alert block.
    if let Some(a) = doc.select(&S_ALERT).next() {
        return classify_message(&ctx.source, "", &node_text(a), login);
    }
    if text.contains("<root><![CDATA[") {
        let inner = text.split("<![CDATA[").nth(1).unwrap_or("");
        let inner = inner.split("]]>").next().unwrap_or("");
        let frag = Html::parse_fragment(inner);
        let t = node_text(frag.root_element());
        if !t.is_empty() {
            return classify_message(&ctx.source, "", &t, login);
        }
    }
    let lt = title.to_ascii_lowercase();
    let server_markers = [
        "database error",
        "system error",
        "bad gateway",
        "service unavailable",
        "gateway time-out",
        "gateway timeout",
        "internal server error",
        "502",
        "503",
        "504",
    ];
    if let Some(m) = server_markers.iter().find(|m| lt.contains(*m)) {
        return PageError::ServerError {
            origin: src(ctx),
            detail: format!("title 「{title}」 ({m})"),
        };
    }
    if text.contains("Discuz! Database Error") || text.contains("Discuz! System Error") {
        return PageError::ServerError {
            origin: src(ctx),
            detail: snippet(&node_text(doc.root_element())),
        };
    }
    if !closed {
        return PageError::Truncated {
            origin: src(ctx),
            detail: "no #postlist and no closing </html>".into(),
        };
    }
    let what = if title.is_empty() {
        snippet(&node_text(doc.root_element()))
    } else {
        format!("title 「{title}」")
    };
    PageError::NotThreadPage {
        origin: src(ctx),
        detail: what,
    }
}

/// A thread page of Discuz! before X (6.x/7.x): `viewthread.php` links and the same
/// `pid`/`postmessage_` post markup, no `forum.php`. The version from the generator tag
/// or the footer's `Powered by Discuz! <em>6.0.0</em>`, else `6.x`.
fn old_discuz(doc: &Html, text: &str) -> Option<String> {
    let thread_links = doc.select(&S_A).any(|a| {
        a.attr("href")
            .is_some_and(|h| h.contains("viewthread.php?"))
    });
    let posts = doc.select(&S_PID_TABLE).next().is_some() || text.contains("id=\"postmessage_");
    if !thread_links || !posts || text.contains("forum.php?mod=viewthread") {
        return None;
    }
    let version = RE_GENERATOR
        .captures(text)
        .or_else(|| RE_POWERED_BY.captures(text))
        .map(|c| c[1].trim().to_string())
        .filter(|v| !v.starts_with('X'))
        .unwrap_or_else(|| "6.x".into());
    Some(version)
}

fn pagination(doc: &Html) -> (u32, u32) {
    let Some(pg) = doc.select(&S_PG).next() else {
        return (1, 1);
    };
    let page = pg
        .select(&S_PG_STRONG)
        .next()
        .and_then(|s| node_text(s).parse::<u32>().ok())
        .filter(|&p| p > 0)
        .unwrap_or(1);
    let from_label = pg.select(&S_PG_TOTAL).find_map(|s| {
        let t = s.attr("title")?;
        RE_DIGITS.captures(t)?[1].parse::<u32>().ok()
    });
    let total = from_label.unwrap_or_else(|| {
        pg.select(&S_A)
            .filter_map(|a| {
                let t = node_text(a);
                RE_DIGITS
                    .captures(&t)
                    .and_then(|c| c[1].parse::<u32>().ok())
            })
            .max()
            .unwrap_or(page)
    });
    (page, total.max(page))
}

fn first_text(el: ElementRef) -> Option<String> {
    el.text()
        .map(|t| t.replace('\u{a0}', " ").trim().to_string())
        .find(|t| !t.is_empty())
}

fn parse_post(
    c: ElementRef,
    pid: u64,
    ctx: &ParseContext,
    opts: &BodyOpts,
    floor_names: &[String],
    warnings: &mut Vec<ParseWarning>,
) -> Result<PagePost, PageError> {
    let table = c.select(&S_PID_TABLE).next();
    let is_normal = table.is_some_and(|t| has_class(t.value(), "plhin"));
    let floor_link = c
        .select(&S_POSTNUM)
        .next()
        .or_else(|| c.select(&S_PI_FLOOR).next());
    let floor_label = floor_link.map(node_text).unwrap_or_default();

    // Deleted-floor placeholder (§4.4): no plhin, no postnum id, text 无效楼层.
    if !is_normal && c.select(&S_POSTNUM).next().is_none() {
        let body_text = c
            .select(&S_PCT)
            .next()
            .map(node_text)
            .unwrap_or_else(|| node_text(c));
        if body_text.contains("无效楼层") || body_text.contains("该帖已经被删除") {
            let floor = floor_link
                .and_then(|l| l.select(&S_EM).next())
                .and_then(|e| node_text(e).parse().ok())
                .or_else(|| {
                    RE_DIGITS
                        .captures(&floor_label)
                        .and_then(|c| c[1].parse().ok())
                });
            return Ok(PagePost {
                pid: None,
                floor,
                floor_label,
                author: String::new(),
                uid: None,
                time: 0,
                edit: None,
                quote: None,
                html: String::new(),
                text: String::new(),
                red: String::new(),
                large: String::new(),
                locked: None,
                deleted: true,
                duplicate: false,
            });
        }
    }

    // Author and uid (§3.2, §13.9); customised templates: any space link in the header.
    let link = c
        .select(&S_AUTHOR_LEFT)
        .next()
        .or_else(|| c.select(&S_AUTHOR_RIGHT).next())
        .or_else(|| c.select(&S_AUTHOR_CARD).next())
        .or_else(|| {
            c.select(&S_SPACE_LINK).find(|a| {
                a.attr("href").and_then(uid_from_href).is_some()
                    && !in_body(*a, c)
                    && !author_text(*a).is_empty()
            })
        });
    let (author, mut uid) = match link {
        Some(a) => (author_text(a), a.attr("href").and_then(uid_from_href)),
        None => {
            let name = c
                .select(&S_PLS_PI)
                .next()
                .and_then(first_text)
                .or_else(|| c.select(&S_PLC_AUTHI).next().and_then(first_text))
                .map(|n| n.split(' ').next().unwrap_or("").to_string())
                .unwrap_or_default();
            (name, None)
        }
    };
    if author.is_empty() {
        warnings.push(ParseWarning {
            pid: Some(pid),
            floor: shown_floor(&floor_label),
            message: "cannot read the author; stored without a name".into(),
        });
    }
    if uid.is_none() {
        uid = c
            .select(&S_AUTHORID_LINK)
            .find_map(|a| RE_AUTHORID.captures(a.attr("href")?)?[1].parse().ok());
    }
    let uid = uid.filter(|&u| u != 0);

    // Floor (§4.1–4.3).
    let mut duplicate = false;
    let mut floor = None;
    if let Some(l) = floor_link {
        if let Some(copied) = copied_floor(&floor_label) {
            duplicate = true;
            floor = copied;
        } else {
            let em = l.select(&S_EM).next().map(node_text);
            floor = floor_number(em.as_deref(), &floor_label, floor_names);
        }
    }

    // Time (§5): `em#authorposton`, else an absolute time anywhere in the post header.
    let poston = c.select(&S_POSTON).next();
    let time = poston
        .and_then(|em| {
            let title = em
                .select(&S_SPAN_TITLE)
                .next()
                .and_then(|s| s.attr("title"));
            parse_post_time(title, &node_text(em), ctx.fetched_at, ctx.tz)
        })
        .or_else(|| {
            c.select(&S_HEADER_TEXT)
                .filter(|h| !in_body(*h, c))
                .find_map(|h| {
                    let t = node_text(h);
                    let m = RE_DATETIME_IN_TEXT.find(&t)?;
                    super::dtime::parse_absolute(m.as_str(), ctx.tz)
                })
        });
    let time = match time {
        Some(t) => t,
        None => {
            let shown = poston.map(node_text).unwrap_or_default();
            warnings.push(ParseWarning {
                pid: Some(pid),
                floor: shown_floor(&floor_label),
                message: if poston.is_some() {
                    format!(
                        "cannot read the post time 「{shown}」; stored without a time (it \
                         counts for no day until a later fetch reads it)"
                    )
                } else {
                    "no post time (em#authorposton); stored without a time (it counts for \
                     no day until a later fetch reads it)"
                        .into()
                },
            });
            UNKNOWN_TIME
        }
    };

    // Body (§3.4, §6).
    let (html, out, locked) = if let Some(m) = c.select(&S_MESSAGE).next() {
        let out = body::extract(*m, opts);
        let locked = out.lock;
        (m.inner_html(), out, locked)
    } else if let Some(l) = c
        .select(&S_LOCKED)
        .find(|l| !is_moderator_note(&node_text(*l)))
    {
        let t = node_text(l);
        (
            l.inner_html(),
            body::BodyOut::default(),
            Some(body::lock_kind_from_text(&t)),
        )
    } else {
        (
            String::new(),
            body::BodyOut::default(),
            Some(LockKind::Other),
        )
    };
    Ok(PagePost {
        pid: Some(pid),
        floor,
        floor_label,
        author,
        uid,
        time,
        edit: out.edit,
        quote: out.quote,
        html,
        text: out.text,
        red: out.red,
        large: out.large,
        locked,
        deleted: false,
        duplicate,
    })
}

/// The floor a label shows: the number in its `<em>`, else a floor name, its leading
/// digits, its first number.
pub(crate) fn floor_number(em: Option<&str>, label: &str, names: &[String]) -> Option<u32> {
    em.and_then(|e| e.parse().ok())
        .or_else(|| floor_from_name(label, names))
        .or_else(|| {
            let lead: String = label.chars().take_while(|c| c.is_ascii_digit()).collect();
            lead.parse().ok()
        })
        .or_else(|| first_number(label))
}

/// The label of a pinned (`顶 来自 N#`) or 推荐 entry: `Some` of the floor it copies
/// (`None` where the label shows none); `None` for an ordinary floor label.
pub(crate) fn copied_floor(label: &str) -> Option<Option<u32>> {
    if label.contains("来自") {
        Some(
            RE_FROM_FLOOR
                .captures(label)
                .and_then(|c| c.get(1))
                .and_then(|m| m.as_str().parse().ok()),
        )
    } else if label.contains("推荐") {
        Some(None)
    } else {
        None
    }
}

/// A `div.locked` that only tells a moderator the post is masked for others (the message
/// follows it): not the lock of the post.
pub(crate) fn is_moderator_note(locked_text: &str) -> bool {
    locked_text.contains("只有管理员或有管理权限的成员可见")
}

pub(crate) fn floor_from_name(label: &str, names: &[String]) -> Option<u32> {
    let l = label.trim();
    if l.is_empty() {
        return None;
    }
    let strip = |s: &str| {
        let frag = Html::parse_fragment(s);
        node_text(frag.root_element())
    };
    let find = |l: &str| {
        names
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, n)| !n.is_empty() && strip(n) == l)
            .map(|(i, _)| i as u32)
            .or_else(|| {
                STOCK_FLOOR_NAMES
                    .iter()
                    .position(|n| !n.is_empty() && *n == l)
                    .map(|i| i as u32)
            })
    };
    find(l).or_else(|| {
        // A name with the site's suffix after it (`沙发#`, `板凳楼`, `地板 F`).
        let suffix = names.first().map(|s| strip(s)).unwrap_or_default();
        let bare = [suffix.as_str(), "#", "楼", "F", "f"]
            .iter()
            .filter(|s| !s.is_empty())
            .find_map(|s| l.strip_suffix(*s))?;
        find(bare.trim())
    })
}

/// A pinned/推荐 entry whose slot is the post's only appearance is not a duplicate
/// (MARKUP §4.3: a pid never appears twice on a page): when the thread has one page, or
/// when its floor fills a gap among this page's numbered posts.
pub(crate) fn keep_only_copies(posts: &mut [PagePost], total_pages: u32) {
    let normal: Vec<u32> = posts
        .iter()
        .filter(|p| !p.duplicate)
        .filter_map(|p| p.floor)
        .collect();
    let (Some(&lo), Some(&hi)) = (normal.iter().min(), normal.iter().max()) else {
        return;
    };
    for p in posts.iter_mut().filter(|p| p.duplicate && p.pid.is_some()) {
        let in_gap = p
            .floor
            .is_some_and(|f| f > lo && f < hi && !normal.contains(&f));
        if total_pages == 1 || in_gap {
            p.duplicate = false;
        }
    }
}

/// Fill floors the labels did not give: a named floor the lists do not know follows the
/// previous known floor; a single 推荐 entry takes the single gap in page 1's sequence.
pub(crate) fn fill_floors(posts: &mut [PagePost], page: u32, author_filtered: bool) {
    if author_filtered {
        return;
    }
    let mut prev: Option<u32> = None;
    let mut first_normal = true;
    for p in posts.iter_mut() {
        if p.duplicate {
            continue;
        }
        // The first post of page 1 is floor 1 even where a customised template shows no
        // floor link at all (an empty label).
        let first_of_thread = page == 1 && first_normal;
        if p.floor.is_none() && (!p.floor_label.is_empty() || first_of_thread) && !p.deleted {
            p.floor = match prev {
                Some(f) => f.checked_add(1),
                None if page == 1 && first_normal => Some(1),
                None => None,
            };
        }
        first_normal = false;
        if p.floor.is_some() {
            prev = p.floor;
        }
    }
    if page != 1 {
        return;
    }
    let hot: Vec<usize> = posts
        .iter()
        .enumerate()
        .filter(|(_, p)| p.duplicate && p.floor.is_none() && p.floor_label.contains("推荐"))
        .map(|(i, _)| i)
        .collect();
    if hot.len() != 1 {
        return;
    }
    // Known floors, pinned copies included (a pinned reply of page 1 leaves its own gap),
    // but only within the range of the page's own posts: a pinned copy of a later page's
    // reply (顶 来自 12楼 on a page ending at 10, e.g. when a deleted-floor placeholder
    // took a slot) leaves no gap on this page.
    let own = || {
        posts
            .iter()
            .filter(|p| !p.duplicate)
            .filter_map(|p| p.floor)
    };
    let (Some(lo), Some(hi)) = (own().min(), own().max()) else {
        return;
    };
    let mut floors: Vec<u32> = posts
        .iter()
        .filter_map(|p| p.floor)
        .filter(|f| (lo..=hi).contains(f))
        .collect();
    floors.sort_unstable();
    floors.dedup();
    let gaps: Vec<u32> = floors
        .windows(2)
        .filter(|w| w[1].checked_sub(w[0]) == Some(2))
        .map(|w| w[0] + 1)
        .collect();
    let big_gap = floors.windows(2).any(|w| w[1] - w[0] > 2);
    if gaps.len() == 1 && !big_gap {
        posts[hot[0]].floor = Some(gaps[0]);
    }
}
