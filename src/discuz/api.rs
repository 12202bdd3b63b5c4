//! Mobile API JSON (`api/mobile/index.php`, MARKUP §10).
//!
//! Read leniently: every scalar may be a string or a number, keys with empty values are
//! missing, `[]` stands for an empty object, `null` for absent. The JSON is UTF-8 even on
//! GBK sites, possibly after a BOM or whitespace.

use std::collections::HashSet;

use serde_json::Value;

use crate::model::{LockKind, PagePost, ThreadPage};

use super::body::{self, BodyOpts};
use super::dtime::parse_post_time;
use super::{
    MESSAGE_MAX, PageError, ParseContext, ParseWarning, Parsed, ThreadSummary, UNKNOWN_TIME,
    classify_message, log_warnings, one_line, strip_bom_ws, unescape_html,
};

fn src(ctx: &ParseContext) -> String {
    ctx.source.clone()
}

/// A scalar as a string (strings as is, numbers/bools printed; null/objects → None).
fn sv(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "1".into() } else { String::new() }),
        _ => None,
    }
}

fn nv<T: std::str::FromStr>(v: Option<&Value>) -> Option<T> {
    sv(v).and_then(|s| s.trim().parse().ok())
}

fn parse_json(bytes: &[u8], ctx: &ParseContext) -> Result<Value, PageError> {
    let body = strip_bom_ws(bytes);
    if body.is_empty() {
        return Err(PageError::Empty { origin: src(ctx) });
    }
    let text = String::from_utf8_lossy(body);
    serde_json::from_str::<Value>(&text).map_err(|e| {
        let detail = if e.is_eof() {
            format!("{e} (response cut off?)")
        } else {
            e.to_string()
        };
        PageError::MalformedJson {
            origin: src(ctx),
            detail,
        }
    })
}

/// Top-level `error`, and a `Message` when `has_data` is false.
fn check_envelope(v: &Value, ctx: &ParseContext, has_data: bool) -> Result<(), PageError> {
    if !v.is_object() {
        return Err(PageError::ApiError {
            origin: src(ctx),
            code: format!(
                "answer is not a JSON object: {}",
                v.to_string().chars().take(40).collect::<String>()
            ),
        });
    }
    if let Some(code) = sv(v.get("error")) {
        let code = one_line(&code, MESSAGE_MAX);
        if code.contains("board_closed") {
            return Err(PageError::BoardClosed {
                origin: src(ctx),
                message: code,
            });
        }
        return Err(PageError::ApiError {
            origin: src(ctx),
            code,
        });
    }
    if !has_data && let Some(m) = v.get("Message") {
        let key = sv(m.get("messageval")).unwrap_or_default();
        let text = sv(m.get("messagestr")).unwrap_or_default();
        if !key.is_empty() || !text.is_empty() {
            return Err(classify_message(
                &ctx.source,
                &key,
                &unescape_html(&text),
                false,
            ));
        }
    }
    Ok(())
}

/// Parse a `module=viewthread` answer. Unreadable fields are logged as warnings.
pub fn parse_api(bytes: &[u8], ctx: &ParseContext) -> Result<ThreadPage, PageError> {
    parse_api_with_warnings(bytes, ctx).map(|p| log_warnings(p, ctx))
}

/// [`parse_api`], handing back the fields it could not read (a post whose `dbdateline`
/// is missing and whose `dateline` is unreadable keeps [`UNKNOWN_TIME`]).
pub fn parse_api_with_warnings(bytes: &[u8], ctx: &ParseContext) -> Result<Parsed, PageError> {
    let v = parse_json(bytes, ctx)?;
    let vars = v.get("Variables");
    let postlist = vars
        .and_then(|x| x.get("postlist"))
        .and_then(Value::as_array);
    let has_posts = postlist.is_some_and(|p| !p.is_empty());
    check_envelope(&v, ctx, has_posts)?;
    let Some(vars) = vars.filter(|x| x.is_object()) else {
        return Err(PageError::Malformed {
            origin: src(ctx),
            detail: "API answer without `Variables`".into(),
        });
    };
    let Some(postlist) = postlist.filter(|p| !p.is_empty()) else {
        return Err(PageError::Malformed {
            origin: src(ctx),
            detail: "API answer with no posts in `Variables.postlist` and no `Message`".into(),
        });
    };
    let thread = vars.get("thread");
    let th = |k: &str| thread.and_then(|t| t.get(k));
    let tid = ctx
        .tid
        .or_else(|| nv(th("tid")))
        .or_else(|| nv(postlist[0].get("tid")))
        .ok_or_else(|| PageError::Malformed {
            origin: src(ctx),
            detail: "no thread id (`thread.tid`)".into(),
        })?;
    let title = unescape_html(&sv(th("subject")).unwrap_or_default());
    let ppp: u32 = nv(vars.get("ppp"))
        .filter(|&p| p > 0)
        .unwrap_or(postlist.len().max(1) as u32);
    let replies: u32 = nv(th("replies")).unwrap_or(0);
    let maxpos: u32 = nv(th("maxposition")).unwrap_or(0);
    let count = maxpos
        .max(replies.saturating_add(1))
        .max(postlist.len() as u32);
    let total_pages = count.div_ceil(ppp).max(1);
    let page = nv::<u32>(vars.get("page"))
        .or(ctx.page)
        .unwrap_or(1)
        .clamp(1, total_pages);
    let author_filtered = ctx.source.contains("authorid=");
    let viewer_uid = nv(vars.get("member_uid"));
    let names: Vec<String> = vars
        .get("cache_custominfo_postno")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|x| sv(Some(x)).unwrap_or_default()).collect())
        .unwrap_or_default();
    let suffix = names
        .first()
        .map(|s| {
            let f = scraper::Html::parse_fragment(s);
            body::node_text(f.root_element())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "#".into());

    let opts = BodyOpts {
        judge_size: false,
        tz: ctx.tz,
    };
    let mut posts = Vec::with_capacity(postlist.len());
    let mut warnings = Vec::new();
    let mut seen = HashSet::new();
    for (i, item) in postlist.iter().enumerate() {
        let pid: u64 = nv(item.get("pid")).ok_or_else(|| PageError::Malformed {
            origin: src(ctx),
            detail: format!("postlist[{i}]: no `pid`"),
        })?;
        let author = unescape_html(&sv(item.get("author")).unwrap_or_default());
        let uid = nv::<u64>(item.get("authorid")).filter(|&u| u != 0);
        let number: Option<u32> = nv(item.get("number"));
        let time = match nv::<i64>(item.get("dbdateline")) {
            Some(t) => t,
            None => {
                let d = unescape_html(&sv(item.get("dateline")).unwrap_or_default());
                parse_post_time(None, &d, ctx.fetched_at, ctx.tz).unwrap_or_else(|| {
                    warnings.push(ParseWarning {
                        pid: Some(pid),
                        floor: number.map_or_else(|| format!("postlist[{i}]"), |n| n.to_string()),
                        message: format!(
                            "cannot read the post time (no dbdateline, dateline 「{d}」); stored \
                             without a time (it counts for no day until a later fetch reads it)"
                        ),
                    });
                    UNKNOWN_TIME
                })
            }
        };
        let position: Option<u32> = nv::<u32>(item.get("position")).filter(|&p| p > 0);
        let floor = if author_filtered {
            None
        } else {
            position.or(number)
        };
        let floor_label = match number {
            Some(n) => match names.get(n as usize).filter(|s| !s.is_empty() && n > 0) {
                Some(name) => name.clone(),
                None => format!("{n}{suffix}"),
            },
            None => String::new(),
        };
        let html = sv(item.get("message")).unwrap_or_default();
        let out = if html.is_empty() {
            body::BodyOut::default()
        } else {
            let frag = scraper::Html::parse_fragment(&html);
            body::extract(*frag.root_element(), &opts)
        };
        let mut out = out;
        let status: u32 = nv(item.get("status")).unwrap_or(0);
        let mut locked = out.lock;
        if locked.is_none() {
            locked = api_lock(&out.text);
            if locked.is_some() {
                out.text.clear();
                out.red.clear();
            }
        }
        if locked.is_none() && status & 1 == 1 && out.text.is_empty() {
            locked = Some(LockKind::ModeratorBlocked);
        }
        let duplicate = !seen.insert(pid);
        posts.push(PagePost {
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
            large: String::new(),
            locked,
            deleted: false,
            duplicate,
        });
    }
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

/// The lock strings the API puts in place of a message (MARKUP §10.5).
fn api_lock(text: &str) -> Option<LockKind> {
    let t = text.trim();
    if t.chars().count() > 60 || t.contains("只有管理员或有管理权限的成员可见") {
        return None;
    }
    if t.starts_with("提示") && (t.contains("作者被禁止或删除") || t.contains("被管理员或版主屏蔽"))
    {
        return Some(body::lock_kind_from_text(t));
    }
    if t == "该帖仅作者可见" || t == "此帖仅作者可见" {
        return Some(LockKind::AuthorOnly);
    }
    if t.starts_with("本帖为密码帖") {
        return Some(LockKind::Password);
    }
    None
}

/// Parse a `module=forumdisplay` answer into its thread list (pinned threads included).
pub fn parse_forumdisplay(
    bytes: &[u8],
    ctx: &ParseContext,
) -> Result<Vec<ThreadSummary>, PageError> {
    let v = parse_json(bytes, ctx)?;
    let list = v.get("Variables").and_then(|x| x.get("forum_threadlist"));
    let has_data = list.is_some_and(|l| l.as_array().is_some_and(|a| !a.is_empty()));
    check_envelope(&v, ctx, has_data)?;
    let list = match list {
        Some(Value::Array(a)) => a.as_slice(),
        Some(Value::Object(o)) if o.is_empty() => &[],
        _ => {
            return Err(PageError::Malformed {
                origin: src(ctx),
                detail: "forumdisplay answer without `Variables.forum_threadlist`".into(),
            });
        }
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let tid: u64 = nv(item.get("tid")).ok_or_else(|| PageError::Malformed {
            origin: src(ctx),
            detail: format!("forum_threadlist[{i}]: no `tid`"),
        })?;
        let time = match nv::<i64>(item.get("dbdateline")) {
            Some(t) => t,
            None => {
                let d = unescape_html(&sv(item.get("dateline")).unwrap_or_default());
                parse_post_time(None, &d, ctx.fetched_at, ctx.tz).ok_or_else(|| {
                    PageError::Malformed {
                        origin: src(ctx),
                        detail: format!(
                            "forum_threadlist[{i}] (tid {tid}): cannot read the time 「{d}」"
                        ),
                    }
                })?
            }
        };
        out.push(ThreadSummary {
            tid,
            subject: unescape_html(&sv(item.get("subject")).unwrap_or_default()),
            author: unescape_html(&sv(item.get("author")).unwrap_or_default()),
            author_uid: nv::<u64>(item.get("authorid")).filter(|&u| u != 0),
            time,
            replies: nv(item.get("replies")).unwrap_or(0),
        });
    }
    Ok(out)
}
