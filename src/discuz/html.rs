//! PC thread pages (`forum.php?mod=viewthread`, MARKUP §3–§8).
//!
//! Classification before posts (§13.4): empty body, anti-harvest script, CC-defence page,
//! `#messagetext` message page, server error page, page without `#postlist`. A page is
//! **truncated** when its text has no closing `</html>` (Discuz always ends a page with
//! it; a connection cut mid-transfer loses it), whatever else it contains.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use scraper::{ElementRef, Html, Selector};

use crate::model::{LockKind, PagePost, ThreadPage};

use super::body::{self, BodyOpts, has_class, node_text};
use super::dtime::parse_post_time;
use super::{PageError, ParseContext, classify_message, decode};

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
selector!(S_POSTON, "em[id^=\"authorposton\"]");
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
static RE_AUTHORID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"authorid=(\d+)").unwrap());
static RE_FROM_FLOOR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"来自\s*(\d+)?").unwrap());
static RE_DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(\d+)").unwrap());
static RE_POST_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^post_(\d+)$").unwrap());

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

fn uid_from_href(h: &str) -> Option<u64> {
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
pub fn parse_html_with_floor_names(
    bytes: &[u8],
    ctx: &ParseContext,
    floor_names: &[String],
) -> Result<ThreadPage, PageError> {
    let text = decode(bytes, ctx.charset, None);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return Err(PageError::Empty { origin: src(ctx) });
    }
    let lower_head: String = trimmed
        .chars()
        .take(2048)
        .collect::<String>()
        .to_ascii_lowercase();
    let closed = tail(trimmed, 4096).to_ascii_lowercase().contains("</html>");
    if !lower_head.contains("<html")
        && lower_head.starts_with("<script")
        && trimmed.contains("location")
    {
        return Err(PageError::AntiScrape { origin: src(ctx) });
    }
    let doc = Html::parse_document(trimmed);
    let Some(postlist) = doc.select(&S_POSTLIST).next() else {
        return Err(classify_non_thread(&doc, trimmed, closed, ctx));
    };
    if !closed {
        return Err(PageError::Truncated {
            origin: src(ctx),
            detail: "no closing </html>".into(),
        });
    }

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
    if containers.is_empty() {
        return Err(PageError::Malformed {
            origin: src(ctx),
            detail: "#postlist holds no post (div#post_N); a thread always has its first post"
                .into(),
        });
    }
    let opts = BodyOpts {
        judge_size: true,
        tz: ctx.tz,
    };
    let mut posts = Vec::with_capacity(containers.len());
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
        let mut p = parse_post(c, pid, ctx, &opts, floor_names)?;
        if let Some(pid) = p.pid
            && !seen.insert(pid)
        {
            p.duplicate = true;
        }
        posts.push(p);
    }
    fill_floors(&mut posts, page, author_filtered);
    if !author_filtered {
        keep_only_copies(&mut posts, total_pages);
    }
    if author_filtered {
        for p in &mut posts {
            p.floor = None;
        }
    }
    Ok(ThreadPage {
        tid,
        title,
        page,
        total_pages,
        posts,
        author_filtered,
        viewer_uid,
    })
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

    // Author and uid (§3.2, §13.9).
    let link = c
        .select(&S_AUTHOR_LEFT)
        .next()
        .or_else(|| c.select(&S_AUTHOR_RIGHT).next())
        .or_else(|| c.select(&S_AUTHOR_CARD).next());
    let (author, mut uid) = match link {
        Some(a) => (node_text(a), a.attr("href").and_then(uid_from_href)),
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
        if floor_label.contains("来自") {
            duplicate = true;
            floor = RE_FROM_FLOOR
                .captures(&floor_label)
                .and_then(|c| c.get(1))
                .and_then(|m| m.as_str().parse().ok());
        } else if floor_label.contains("推荐") {
            duplicate = true;
        } else {
            floor = l
                .select(&S_EM)
                .next()
                .and_then(|e| node_text(e).parse().ok())
                .or_else(|| floor_from_name(&floor_label, floor_names))
                .or_else(|| {
                    let lead: String = floor_label
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    lead.parse().ok()
                })
                .or_else(|| {
                    RE_DIGITS
                        .captures(&floor_label)
                        .and_then(|c| c[1].parse().ok())
                });
        }
    }

    // Time (§5).
    let time = match c.select(&S_POSTON).next() {
        Some(em) => {
            let title = em
                .select(&S_SPAN_TITLE)
                .next()
                .and_then(|s| s.attr("title"));
            let t = node_text(em);
            parse_post_time(title, &t, ctx.fetched_at, ctx.tz).ok_or_else(|| {
                PageError::Malformed {
                    origin: src(ctx),
                    detail: format!(
                        "post {pid} (floor {floor_label}): cannot read the post time 「{t}」"
                    ),
                }
            })?
        }
        None => {
            return Err(PageError::Malformed {
                origin: src(ctx),
                detail: format!(
                    "post {pid} (floor {floor_label}): no post time (em#authorposton{pid})"
                ),
            });
        }
    };

    // Body (§3.4, §6).
    let (html, out, locked) = if let Some(m) = c.select(&S_MESSAGE).next() {
        let out = body::extract(*m, opts);
        let locked = out.lock;
        (m.inner_html(), out, locked)
    } else if let Some(l) = c
        .select(&S_LOCKED)
        .find(|l| !node_text(*l).contains("只有管理员或有管理权限的成员可见"))
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

fn floor_from_name(label: &str, names: &[String]) -> Option<u32> {
    let l = label.trim();
    if l.is_empty() {
        return None;
    }
    let strip = |s: &str| {
        let frag = Html::parse_fragment(s);
        node_text(frag.root_element())
    };
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
}

/// A pinned/推荐 entry whose slot is the post's only appearance is not a duplicate
/// (MARKUP §4.3: a pid never appears twice on a page): when the thread has one page, or
/// when its floor fills a gap among this page's numbered posts.
fn keep_only_copies(posts: &mut [PagePost], total_pages: u32) {
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
fn fill_floors(posts: &mut [PagePost], page: u32, author_filtered: bool) {
    if author_filtered {
        return;
    }
    let mut prev: Option<u32> = None;
    let mut first_normal = true;
    for p in posts.iter_mut() {
        if p.duplicate {
            continue;
        }
        if p.floor.is_none() && !p.floor_label.is_empty() && !p.deleted {
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
