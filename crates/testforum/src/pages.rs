//! What the test forum sends: PC pages, the mobile API, login, redirects, error pages.
//! Shapes follow `shared/discuz/MARKUP.md` (stock X3.4/X3.5 default templates).

use std::fmt::Write as _;
use std::sync::LazyLock;

use chrono::{Datelike, Timelike};
use regex::Regex;
use serde_json::{Map, Value, json};

use super::bbcode::{self, Ctx};
use super::http::{Request, Response, pct_encode};
use super::spec::{FloorMode, Lock, SiteCharset, Version, shanghai};
use super::{Fault, PostRec, State, ThreadRec, Viewer};
use crate::model::Timestamp;

fn local(ts: Timestamp) -> chrono::DateTime<chrono_tz::Tz> {
    crate::time::to_local(ts, shanghai())
}

/// `Y-n-j H:i:s` (the `span[title]` and old absolute times).
pub(crate) fn fmt_full(ts: Timestamp) -> String {
    let d = local(ts);
    format!(
        "{}-{}-{} {:02}:{:02}:{:02}",
        d.year(),
        d.month(),
        d.day(),
        d.hour(),
        d.minute(),
        d.second()
    )
}

/// `Y-n-j H:i` (quote headers, edit notices, API datelines, times with 人性化 off).
pub(crate) fn fmt_short(ts: Timestamp) -> String {
    let d = local(ts);
    format!(
        "{}-{}-{} {:02}:{:02}",
        d.year(),
        d.month(),
        d.day(),
        d.hour(),
        d.minute()
    )
}

fn hm(ts: Timestamp) -> String {
    let d = local(ts);
    format!("{:02}:{:02}", d.hour(), d.minute())
}

/// `dgmdate($t, 'u')`: the relative form, or `None` when the absolute form is shown.
fn relative(ts: Timestamp, now: Timestamp) -> Option<String> {
    let offset = 8 * 3600;
    let today = now - (now + offset).rem_euclid(86400);
    let diff = now - ts;
    if ts >= today {
        if diff > 3600 {
            Some(format!("{}&nbsp;小时前", diff / 3600))
        } else if diff > 1800 {
            Some("半小时前".into())
        } else if diff > 60 {
            Some(format!("{}&nbsp;分钟前", diff / 60))
        } else if diff > 0 {
            Some(format!("{diff}&nbsp;秒前"))
        } else if diff == 0 {
            Some("刚刚".into())
        } else {
            None
        }
    } else {
        let days = (today - ts) / 86400;
        match days {
            0 => Some(format!("昨天&nbsp;{}", hm(ts))),
            1 => Some(format!("前天&nbsp;{}", hm(ts))),
            2..=6 => Some(format!("{}&nbsp;天前", days + 1)),
            _ => None,
        }
    }
}

/// The inside of `em#authorpostonP` after `发表于 `.
fn pc_time(st: &State, ts: Timestamp) -> String {
    if !st.site.human_time {
        return fmt_short(ts);
    }
    match relative(ts, st.now) {
        Some(r) => format!("<span title=\"{}\">{r}</span>", fmt_full(ts)),
        None => fmt_full(ts),
    }
}

/// The API `dateline`.
fn api_time(st: &State, ts: Timestamp) -> String {
    if !st.site.human_time {
        return fmt_short(ts);
    }
    relative(ts, st.now).unwrap_or_else(|| fmt_short(ts))
}

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

static REWRITTEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^/thread-(\d+)-(\d+)-(\d+)\.html$").unwrap());
static FORUM_REWRITTEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^/forum-(\d+)-(\d+)\.html$").unwrap());

pub(crate) fn rewritten_thread(path: &str) -> Option<(u64, u32)> {
    let c = REWRITTEN.captures(path)?;
    Some((c[1].parse().ok()?, c[2].parse().ok()?))
}

/// The viewer as the cookies say (a dead or missing auth = guest).
pub(crate) fn viewer(st: &State, req: &Request) -> Viewer {
    let pre = st.cookiepre();
    let saltkey = req
        .cookie(&format!("{pre}saltkey"))
        .unwrap_or("")
        .to_string();
    let auth = req.cookie(&format!("{pre}auth")).map(str::to_string);
    let uid = auth
        .as_ref()
        .and_then(|a| st.sessions.get(a))
        .filter(|s| s.saltkey == saltkey)
        .map(|s| s.uid)
        .unwrap_or(0);
    Viewer {
        uid,
        name: st.user_name(uid),
        saltkey,
        auth: if uid == 0 { None } else { auth },
    }
}

fn encode(st: &State, s: &str) -> Vec<u8> {
    match st.site.charset {
        SiteCharset::Utf8 => s.as_bytes().to_vec(),
        // Unmappable characters become `&#NNNN;`, as a GBK browser would have stored them.
        SiteCharset::Gbk => encoding_rs::GBK.encode(s).0.into_owned(),
    }
}

fn html_response(st: &State, status: u16, html: &str) -> Response {
    Response::new(
        status,
        &format!("text/html; charset={}", st.site.charset.lower()),
        encode(st, html),
    )
}

/// JSON as Discuz emits it: compact, non-ASCII as `\uXXXX`, `/` as `\/`.
fn json_bytes(v: &Value) -> Vec<u8> {
    let s = serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if c == '/' {
            out.push_str("\\/");
        } else if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u16; 2];
            for u in c.encode_utf16(&mut buf) {
                let _ = write!(out, "\\u{u:04x}");
            }
        }
    }
    out.into_bytes()
}

fn json_response(v: &Value) -> Response {
    Response::new(200, "application/json; charset=utf-8", json_bytes(v))
}

fn set_cookie(name: &str, value: &str, max_age: Option<i64>, http_only: bool) -> String {
    let mut c = format!("{name}={value}");
    if let Some(a) = max_age {
        let _ = write!(c, "; Max-Age={a}");
    }
    c.push_str("; path=/");
    if http_only {
        c.push_str("; HttpOnly");
    }
    c
}

pub(crate) fn route(st: &mut State, req: &Request) -> Response {
    let pre = st.cookiepre();
    let mut v = viewer(st, req);
    let mut cookies = Vec::new();
    if v.saltkey.is_empty() {
        v.saltkey = st.token(8);
        cookies.push(set_cookie(
            &format!("{pre}saltkey"),
            &v.saltkey,
            Some(2592000),
            true,
        ));
    }
    if v.uid == 0 && req.cookie(&format!("{pre}auth")).is_some() {
        cookies.push(set_cookie(&format!("{pre}auth"), "", Some(0), true));
    }
    if req.q("mobile").as_deref() == Some("no") {
        cookies.push(set_cookie(&format!("{pre}mobile"), "no", Some(3600), false));
    }
    let path = req.path.as_str();
    let mut resp = if let Some((tid, page)) = rewritten_thread(path) {
        thread_page(st, req, &v, tid, page)
    } else if let Some(c) = FORUM_REWRITTEN.captures(path) {
        let fid = c[1].parse().unwrap_or(0);
        forum_page(st, &v, fid)
    } else {
        match path {
            "/forum.php" => match req.q("mod").as_deref() {
                Some("viewthread") => {
                    let tid = req.q_u64("tid").unwrap_or(0);
                    let page = req.q("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                    thread_page(st, req, &v, tid, page)
                }
                Some("redirect") => redirect(st, req),
                Some("forumdisplay") => forum_page(st, &v, req.q_u64("fid").unwrap_or(0)),
                None | Some("") | Some("index") => index_page(st, &v),
                Some(_) => message_page(st, &v, "未定义操作", 200, false),
            },
            "/" | "/index.php" => index_page(st, &v),
            "/api/mobile/index.php" => api(st, req, &mut v, &mut cookies),
            "/member.php" => member(st, req, &mut v, &mut cookies),
            _ => Response::new(
                404,
                "text/html",
                b"<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n".to_vec(),
            ),
        }
    };
    for c in cookies {
        resp.headers.push(("Set-Cookie".into(), c));
    }
    resp
}

pub(crate) fn fault_response(st: &State, req: &Request, v: &Viewer, f: &Fault) -> Response {
    let nginx = |code: u16, text: &str| {
        Response::new(
            code,
            "text/html",
            format!(
                "<html>\r\n<head><title>{code} {text}</title></head>\r\n<body>\r\n<center><h1>{code} {text}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
            )
            .into_bytes(),
        )
    };
    match f {
        Fault::Http500 => nginx(500, "Internal Server Error"),
        Fault::Http503 => nginx(503, "Service Temporarily Unavailable"),
        Fault::CcPage => {
            let html = format!(
                "<html><head><meta charset=\"{}\" /><meta name=\"renderer\" content=\"webkit\" /><title>频繁刷新限制</title></head>\n<body bgcolor=\"#FFFFFF\"><script language=\"JavaScript\">function reload() {{\tdocument.location.reload();}}setTimeout(\"reload()\", 1001);</script>\n<table cellpadding=\"0\" cellspacing=\"0\" border=\"0\" width=\"700\" align=\"center\" height=\"85%\"><tr align=\"center\" valign=\"middle\"><td><table cellpadding=\"10\" cellspacing=\"0\" border=\"0\" width=\"80%\" align=\"center\" style=\"font-family: Verdana, Tahoma; color: #666666; font-size: 11px\"><tr><td valign=\"middle\" align=\"center\" bgcolor=\"#EBEBEB\">\n<br /><br /> <b style=\"font-size: 16px\">频繁刷新限制</b> <br /><br />您访问本站速度过快或者刷新间隔时间小于两秒！请等待页面自动跳转 ...<br /><br />\n</td></tr></table></td></tr></table></body></html>",
                st.site.charset.lower()
            );
            html_response(st, 200, &html)
        }
        Fault::AntiScrape => {
            let target = req.target.trim_start_matches('/');
            let body = format!(
                "<script type=\"text/javascript\">var _0x1a=['\\x5f\\x64\\x73\\x69\\x67\\x6e','{}'];var _0x2b=function(){{return _0x1a[0]+'='+_0x1a[1];}};location.replace('{target}'+(('{target}').indexOf('?')>-1?'&':'?')+_0x2b());</script>",
                &v.formhash()
            );
            html_response(st, 200, &body)
        }
        Fault::LoginRequired => {
            if req.path == "/api/mobile/index.php" {
                login_required_api(st, v)
            } else {
                message_page(st, v, "抱歉，您尚未登录，没有权限访问该版块", 200, true)
            }
        }
        // Stall and Truncated are handled by the connection writer.
        Fault::Stall(_) | Fault::Truncated => nginx(500, "Internal Server Error"),
    }
}

// ---------------------------------------------------------------- page chrome

fn forum_name(st: &State, fid: u64) -> String {
    st.forums
        .iter()
        .find(|f| f.fid == fid)
        .map(|f| f.name.clone())
        .unwrap_or_else(|| "版杀".into())
}

fn header(st: &State, v: &Viewer, title: &str, extra_script: &str) -> String {
    let cs = st.site.charset.lower();
    let meta = match st.site.version {
        Version::X34 => {
            format!("<meta http-equiv=\"Content-Type\" content=\"text/html; charset={cs}\" />")
        }
        Version::X35 => format!("<meta charset=\"{cs}\" />"),
    };
    let um = if v.uid != 0 {
        format!(
            "<div id=\"um\"><div class=\"avt y\"><a href=\"home.php?mod=space&amp;uid={u}\"><img src=\"uc_server/avatar.php?uid={u}&amp;size=small\" /></a></div><p><strong class=\"vwmy\"><a href=\"home.php?mod=space&amp;uid={u}\" target=\"_blank\" title=\"访问我的空间\">{n}</a></strong><span class=\"pipe\">|</span><a href=\"member.php?mod=logging&amp;action=logout&amp;formhash={h}\">退出</a></p></div>",
            u = v.uid,
            n = esc(&v.name),
            h = v.formhash()
        )
    } else {
        "<form method=\"post\" autocomplete=\"off\" id=\"lsform\" action=\"member.php?mod=logging&amp;action=login&amp;loginsubmit=yes&amp;infloat=yes&amp;lssubmit=yes\" onsubmit=\"return lsSubmit();\"><div class=\"fastlg cl\"><span id=\"return_ls\" style=\"display:none\"></span><div class=\"y pns\"><table cellspacing=\"0\" cellpadding=\"0\"><tr><td><label for=\"ls_username\">帐号</label></td><td><input type=\"text\" name=\"username\" id=\"ls_username\" class=\"px vm xg1\" tabindex=\"901\" /></td></tr><tr><td><label for=\"ls_password\">密码</label></td><td><input type=\"password\" name=\"password\" id=\"ls_password\" class=\"px vm\" autocomplete=\"off\" tabindex=\"902\" /></td><td class=\"fastlg_l\"><button type=\"submit\" class=\"pn vm\" tabindex=\"904\" style=\"width: 75px;\"><em>登录</em></button></td></tr></table><input type=\"hidden\" name=\"quickforward\" value=\"yes\" /><input type=\"hidden\" name=\"handlekey\" value=\"ls\" /></div></div></form>".to_string()
    };
    format!(
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">\r\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\r\n<head>\r\n{meta}\r\n<title>{title}</title>\r\n<meta name=\"keywords\" content=\"\" />\r\n<meta name=\"generator\" content=\"Discuz! {ver}\" />\r\n<meta name=\"author\" content=\"Discuz! Team and Comsenz UI Team\" />\r\n<meta name=\"copyright\" content=\"2001-2021 Tencent Cloud.\" />\r\n<link rel=\"stylesheet\" type=\"text/css\" href=\"data/cache/style_1_common.css?Xy1\" />\r\n<script type=\"text/javascript\">var STYLEID = '1', STATICURL = 'static/', IMGDIR = 'static/image/common', VERHASH = 'Xy1', charset = '{cs}', discuz_uid = '{uid}', cookiepre = '{pre}', cookiedomain = '', cookiepath = '/', showusercard = '1', attackevasive = '0', disallowfloat = 'newthread', creditnotice = '1|威望|,2|金钱|,3|贡献|', defaultstyle = '', REPORTURL = '', SITEURL = '{base}', JSPATH = 'static/js/', CSSPATH = 'data/cache/style_', DYNAMICURL = '';</script>\r\n<script src=\"static/js/common.js?Xy1\" type=\"text/javascript\"></script>\r\n{extra_script}</head>\r\n<body id=\"nv_forum\" class=\"pg_viewthread\" onkeydown=\"if(event.keyCode==27) return false;\">\r\n<div id=\"append_parent\"></div><div id=\"ajaxwaitid\"></div>\r\n<div id=\"toptb\" class=\"cl\"><div class=\"wp\"><div class=\"z\"><a href=\"javascript:;\"  onclick=\"setHomepage('{base}');\">设为首页</a></div></div></div>\r\n<div id=\"hd\"><div class=\"wp\"><div class=\"hdc cl\"><h2><a href=\"./\" title=\"{site}\"><img src=\"static/image/common/logo.png\" alt=\"{site}\" border=\"0\" /></a></h2>\r\n{um}\r\n</div></div></div>\r\n<div id=\"wp\" class=\"wp\">\r\n",
        ver = st.site.version.as_str(),
        uid = v.uid,
        pre = st.cookiepre(),
        base = st.base_url,
        site = esc(&st.site.name),
    )
}

fn footer() -> &'static str {
    "</div>\r\n<div id=\"ft\" class=\"wp cl\"><div id=\"flk\" class=\"y\"><p><a href=\"forum.php?mobile=yes\" >手机版</a><span class=\"pipe\">|</span><a href=\"forum.php?mod=misc&action=showdarkroom\" >小黑屋</a></p></div><div id=\"frt\"><p>Powered by <strong><a href=\"https://www.discuz.vip\" target=\"_blank\">Discuz!</a></strong> <em>X3.4</em></p></div></div>\r\n</body>\r\n</html>\r\n"
}

/// `showmessage()` full page (MARKUP 8.1).
fn message_page(st: &State, v: &Viewer, text: &str, status: u16, login: bool) -> Response {
    let title = format!("提示信息 - {} - Powered by Discuz!", esc(&st.site.name));
    let mut h = header(st, v, &title, "");
    h.push_str("<div id=\"ct\" class=\"wp cl w\">\r\n");
    if login {
        let _ = write!(
            h,
            "<div class=\"nfl\" id=\"main_succeed\" style=\"display: none\"><div class=\"f_c altw\"><div class=\"alert_right\"><p id=\"succeedmessage\"></p><p id=\"succeedlocation\" class=\"alert_btnleft\"></p><p class=\"alert_btnleft\"><a id=\"succeedmessage_href\">如果您的浏览器没有自动跳转，请点击此链接</a></p></div></div></div>\r\n<div class=\"nfl\" id=\"main_message\">\r\n<div class=\"f_c altw\">\r\n<div id=\"messagetext\" class=\"alert_info\">\r\n<p>{text}</p>\r\n</div>\r\n<div id=\"messagelogin\"></div>\r\n<script type=\"text/javascript\">ajaxget('member.php?mod=logging&action=login&infloat=yes&frommessage', 'messagelogin');</script>\r\n</div>\r\n</div>\r\n"
        );
    } else {
        let _ = write!(
            h,
            "<div class=\"nfl\">\r\n<div class=\"f_c altw\">\r\n<div id=\"messagetext\" class=\"alert_error\">\r\n<p>{text}</p>\r\n<script type=\"text/javascript\">\r\nif(history.length > (BROWSER.ie ? 0 : 1)) {{\r\ndocument.write('<p class=\"alert_btnleft\"><a href=\"javascript:history.back()\">[ 点击这里返回上一页 ]</a></p>');\r\n}} else {{\r\ndocument.write('<p class=\"alert_btnleft\"><a href=\"./\">[ {site} 首页 ]</a></p>');\r\n}}\r\n</script>\r\n</div>\r\n</div>\r\n</div>\r\n",
            site = esc(&st.site.name)
        );
    }
    h.push_str("</div>\r\n");
    h.push_str(footer());
    html_response(st, status, &h)
}

fn index_page(st: &State, v: &Viewer) -> Response {
    let title = format!("{} - Powered by Discuz!", esc(&st.site.name));
    let mut h = header(st, v, &title, "");
    h.push_str("<div id=\"ct\" class=\"wp cl\"><div class=\"fl bm\">");
    let mut fids: Vec<u64> = st.threads.values().map(|t| t.fid).collect();
    fids.extend(st.forums.iter().map(|f| f.fid));
    fids.sort();
    fids.dedup();
    for fid in fids {
        let _ = write!(
            h,
            "<h2><a href=\"forum.php?mod=forumdisplay&amp;fid={fid}\">{}</a></h2>",
            esc(&forum_name(st, fid))
        );
    }
    h.push_str("</div></div>\r\n");
    h.push_str(footer());
    html_response(st, 200, &h)
}

// ---------------------------------------------------------------- thread listing

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Normal,
    Placeholder,
    Pinned,
    Hot,
}

struct Entry<'a> {
    p: &'a PostRec,
    /// Stored position (1 = first post).
    position: u32,
    /// Displayed number (floor, or renumbered index on author pages).
    number: Option<u32>,
    kind: Kind,
}

/// All displayable entries of a thread in thread order, numbered per the site mode.
fn listing<'a>(st: &State, t: &'a ThreadRec, authorid: Option<u64>) -> Vec<Entry<'a>> {
    let positioned = t.posts.iter().enumerate().map(|(i, p)| (p, i as u32 + 1));
    let mut out = Vec::new();
    match authorid {
        Some(a) => {
            for (p, pos) in positioned.filter(|(p, _)| !p.deleted && p.uid == a) {
                out.push(Entry {
                    p,
                    position: pos,
                    number: Some(out.len() as u32 + 1),
                    kind: Kind::Normal,
                });
            }
        }
        None if st.site.floor_mode == FloorMode::Position => {
            for (p, pos) in positioned {
                out.push(Entry {
                    p,
                    position: pos,
                    number: Some(pos),
                    kind: if p.deleted {
                        Kind::Placeholder
                    } else {
                        Kind::Normal
                    },
                });
            }
        }
        None => {
            for (p, pos) in positioned.filter(|(p, _)| !p.deleted) {
                out.push(Entry {
                    p,
                    position: pos,
                    number: Some(out.len() as u32 + 1),
                    kind: Kind::Normal,
                });
            }
        }
    }
    out
}

struct PageView<'a> {
    entries: Vec<Entry<'a>>,
    page: u32,
    total: u32,
}

fn paginate<'a>(
    mut list: Vec<Entry<'a>>,
    ppp: u32,
    page: u32,
    descending: bool,
    with_pinned: bool,
    position_mode: bool,
) -> PageView<'a> {
    if descending && list.len() > 1 {
        list[1..].reverse();
    }
    let ppp = ppp.max(1) as usize;
    let total = list.len().div_ceil(ppp).max(1) as u32;
    let page = page.clamp(1, total);
    let start = (page as usize - 1) * ppp;
    let end = (start + ppp).min(list.len());
    let on_page: Vec<u64> = list[start..end].iter().map(|e| e.p.pid).collect();
    let mut pinned = Vec::new();
    let mut hot = Vec::new();
    if with_pinned && page == 1 {
        for e in list.iter().skip(1) {
            if e.kind != Kind::Normal {
                continue;
            }
            if e.p.sticky {
                pinned.push(Entry {
                    p: e.p,
                    position: e.position,
                    // Sequential mode knows the number only for replies on this page.
                    number: e
                        .number
                        .filter(|_| position_mode || on_page.contains(&e.p.pid)),
                    kind: Kind::Pinned,
                });
            } else if e.p.recommend {
                hot.push(Entry {
                    p: e.p,
                    position: e.position,
                    number: None,
                    kind: Kind::Hot,
                });
            }
        }
    }
    let extra: Vec<u64> = pinned.iter().chain(hot.iter()).map(|e| e.p.pid).collect();
    let mut entries = Vec::new();
    let mut it = list.into_iter().skip(start).take(end - start);
    if page == 1
        && let Some(first) = it.next()
    {
        entries.push(first);
        entries.extend(pinned);
        entries.extend(hot);
    }
    entries.extend(it.filter(|e| !(e.kind == Kind::Normal && extra.contains(&e.p.pid))));
    PageView {
        entries,
        page,
        total,
    }
}

// ---------------------------------------------------------------- thread page

fn thread_url(
    st: &State,
    tid: u64,
    page: u32,
    authorid: Option<u64>,
    ordertype: Option<&str>,
) -> String {
    if st.site.rewrite && authorid.is_none() && ordertype.is_none() {
        return format!("thread-{tid}-{page}-1.html");
    }
    let mut u = format!("forum.php?mod=viewthread&amp;tid={tid}&amp;extra=page%3D1");
    if let Some(a) = authorid {
        let _ = write!(u, "&amp;authorid={a}");
    }
    if let Some(o) = ordertype {
        let _ = write!(u, "&amp;ordertype={o}");
    }
    let _ = write!(u, "&amp;page={page}");
    u
}

/// `multi()`: the `div.pg` pager, empty for a single page.
fn pager(cur: u32, total: u32, link: &dyn Fn(u32) -> String) -> String {
    if total <= 1 {
        return String::new();
    }
    let (window, offset) = (10i64, 2i64);
    let (c, n) = (cur as i64, total as i64);
    let (from, to) = if window > n {
        (1, n)
    } else {
        let mut from = c - offset;
        let mut to = from + window - 1;
        if from < 1 {
            to = c + 1 - from;
            from = 1;
            if to - from < window {
                to = window;
            }
        } else if to > n {
            from = n - window + 1;
            to = n;
        }
        (from, to)
    };
    let mut s = String::from("<div class=\"pg\">");
    if c - offset > 1 && n > window {
        let _ = write!(s, "<a href=\"{}\" class=\"first\">1 ...</a>", link(1));
    }
    if c > 1 {
        let _ = write!(
            s,
            "<a href=\"{}\" class=\"prev\">&nbsp;&nbsp;</a>",
            link(cur - 1)
        );
    }
    for i in from..=to {
        if i == c {
            let _ = write!(s, "<strong>{i}</strong>");
        } else {
            let _ = write!(s, "<a href=\"{}\">{i}</a>", link(i as u32));
        }
    }
    if to < n {
        let _ = write!(s, "<a href=\"{}\" class=\"last\">... {n}</a>", link(total));
    }
    let _ = write!(
        s,
        "<label><input type=\"text\" name=\"custompage\" class=\"px\" size=\"2\" title=\"输入页码，按回车快速跳转\" value=\"{cur}\" onkeydown=\"if(event.keyCode==13) {{window.location='forum.php?mod=viewthread&tid=0&amp;extra=page%3D1&amp;page='+this.value;; doane(event);}}\" /><span title=\"共 {n} 页\"> / {n} 页</span></label>"
    );
    if c < n {
        let _ = write!(s, "<a href=\"{}\" class=\"nxt\">下一页</a>", link(cur + 1));
    }
    s.push_str("</div>");
    s
}

/// Inner HTML of `a#postnumP` for an ordinary floor `n`.
fn floor_label(st: &State, n: u32) -> String {
    if let Some(name) = st
        .site
        .floor_names
        .get(n as usize - 1)
        .filter(|s| !s.is_empty())
    {
        return if name.is_ascii() {
            format!("<sup>{}</sup>", esc(name))
        } else {
            esc(name)
        };
    }
    let sfx = &st.site.floor_suffix;
    if sfx.is_ascii() {
        format!("<em>{n}</em><sup>{}</sup>", esc(sfx))
    } else {
        format!("<em>{n}</em>{}", esc(sfx))
    }
}

/// A reply shorter than the water threshold (10 characters of text).
fn is_water(e: &Entry) -> bool {
    static TAG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\[/?[a-z]+(?:=[^\]]*)?\]").unwrap());
    e.position > 1
        && e.p.lock.is_none()
        && TAG
            .replace_all(&e.p.message, "")
            .chars()
            .filter(|c| !c.is_whitespace())
            .count()
            < 10
}

fn locked_html(lock: Lock, pid: u64) -> String {
    match lock {
        Lock::Banned => {
            "<div class=\"locked\">提示: <em>作者被禁止或删除 内容自动屏蔽</em></div>".into()
        }
        Lock::Blocked => "<div class=\"locked\">提示: <em>该帖被管理员或版主屏蔽</em></div>".into(),
        Lock::AuthorOnly => "<div class=\"locked\">此帖仅作者可见</div>".into(),
        Lock::Password => format!(
            "<div class=\"locked\">本帖为密码帖 ，请输入密码<input type=\"text\" id=\"postpw_{pid}\" class=\"vm\" />&nbsp;<button class=\"pn pnc vm\" type=\"submit\" onclick=\"submitpostpw({pid});\"><strong>提交</strong></button></div>"
        ),
        Lock::Pending => String::new(),
    }
}

fn api_locked_text(lock: Lock) -> &'static str {
    match lock {
        Lock::Banned => "提示: <em>作者被禁止或删除 内容自动屏蔽</em>",
        Lock::Blocked => "提示: <em>该帖被管理员或版主屏蔽</em>",
        Lock::AuthorOnly => "该帖仅作者可见",
        Lock::Password => "本帖为密码帖 ，请输入密码",
        Lock::Pending => "<span class=\"xg1\">待审核</span>",
    }
}

struct ThreadCtx<'a> {
    t: &'a ThreadRec,
    authorid: Option<u64>,
    op_uid: u64,
}

fn post_html(st: &State, v: &Viewer, tc: &ThreadCtx, e: &Entry, prev_pid: u64) -> String {
    let tid = tc.t.tid;
    let fid = tc.t.fid;
    if e.kind == Kind::Placeholder {
        // Deleted floor: synthetic pid, no plhin, no author, no time.
        let pid = prev_pid + 1;
        return format!(
            "<div id=\"post_{pid}\" ><table id=\"pid{pid}\" summary=\"pid{pid}\" cellspacing=\"0\" cellpadding=\"0\">\r\n<tbody><tr>\r\n<td class=\"pls\"></td>\r\n<td class=\"plc\">\r\n<div class=\"pi\"><strong><a>{}</a></strong></div>\r\n<div class=\"pct\">无效楼层，该帖已经被删除</div>\r\n</td>\r\n</tr><tr class=\"ad\"><td class=\"pls\"></td><td class=\"plc\"></td></tr></tbody>\r\n</table></div>\r\n",
            floor_label(st, e.number.unwrap_or(e.position))
        );
    }
    let p = e.p;
    let pid = p.pid;
    let uid = p.uid;
    let name = esc(&p.author);
    let x35 = st.site.version == Version::X35;
    let sfx = &st.site.floor_suffix;
    let label = match e.kind {
        Kind::Pinned => {
            let icon = if x35 {
                "<em title=\"置顶回复\" class=\"replystick vm\">顶</em>"
            } else {
                "<img src =\"static/image/common/settop.png\" title=\"置顶回复\" class=\"vm\" />"
            };
            let n = e.number.map(|n| n.to_string()).unwrap_or_default();
            format!("{icon} 来自 {n}{}", esc(sfx))
        }
        Kind::Hot => "推荐".to_string(),
        _ => floor_label(st, e.number.unwrap_or(e.position)),
    };
    let floor_href = if e.position == 1 {
        format!("forum.php?mod=viewthread&tid={tid}")
    } else {
        format!("forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}")
    };
    let op_mark = if e.position > 1 && uid == tc.op_uid {
        if x35 {
            format!(
                "<em class=\"authicn fico-person fic4 fnmr vm\" id=\"authicon{pid}\" title=\"楼主\"></em>&nbsp;楼主<span class=\"pipe\">|</span>"
            )
        } else {
            format!(
                "<img class=\"authicn vm\" id=\"authicon{pid}\" src=\"static/image/common/ico_lz.png\" />&nbsp;楼主<span class=\"pipe\">|</span>"
            )
        }
    } else {
        format!(
            "<img class=\"authicn vm\" id=\"authicon{pid}\" src=\"static/image/common/online_member.gif\" />"
        )
    };
    let only_author = if tc.authorid.is_some() {
        format!(
            "<a href=\"forum.php?mod=viewthread&amp;tid={tid}&amp;page=1\" rel=\"nofollow\">显示全部楼层</a>"
        )
    } else {
        format!(
            "<a href=\"forum.php?mod=viewthread&amp;tid={tid}&amp;page=1&amp;authorid={uid}\" rel=\"nofollow\">只看该作者</a>"
        )
    };
    let body = match p.lock {
        Some(Lock::Pending) => format!(
            "<div class=\"t_fsz\">\r\n<table cellspacing=\"0\" cellpadding=\"0\"><tr><td class=\"t_f\" id=\"postmessage_{pid}\">\r\n<span class=\"xg1\">待审核</span></td></tr></table>\r\n</div>"
        ),
        Some(l) => locked_html(l, pid),
        None => {
            let ctx = Ctx {
                pc: true,
                version: st.site.version,
                base_url: &st.base_url,
                show_hidden: v.uid != 0,
                fid,
                tid,
                jammer: (p.jammer && v.uid != p.uid).then_some(pid),
            };
            format!(
                "<div class=\"t_fsz\">\r\n<table cellspacing=\"0\" cellpadding=\"0\"><tr><td class=\"t_f\" id=\"postmessage_{pid}\">\r\n{}</td></tr></table>\r\n</div>",
                bbcode::render(&p.message, &ctx)
            )
        }
    };
    let style = if st.site.hide_water && is_water(e) {
        " style=\"display:none;\""
    } else {
        " "
    };
    let favatar_class = if x35 { "pls cl favatar" } else { "pls favatar" };
    let reply_param = if e.position == 1 {
        "reppost"
    } else {
        "repquote"
    };
    format!(
        "<div id=\"post_{pid}\"{style}>\r\n<table id=\"pid{pid}\" class=\"plhin\" summary=\"pid{pid}\" cellspacing=\"0\" cellpadding=\"0\">\r\n<tr>\r\n<td class=\"pls\" rowspan=\"2\">\r\n<div id=\"favatar{pid}\" class=\"{favatar_class}\">\r\n<div class=\"pi\">\r\n<div class=\"authi\"><a href=\"home.php?mod=space&amp;uid={uid}\" target=\"_blank\" class=\"xw1\">{name}</a>\r\n</div>\r\n</div>\r\n<div class=\"p_pop blk bui card_gender_0\" id=\"userinfo{pid}\" style=\"display: none; margin-top: -11px;\">\r\n<div class=\"m z\"><div id=\"userinfo{pid}_ma\"></div></div>\r\n<div class=\"i y\"><div><strong><a href=\"home.php?mod=space&amp;uid={uid}\" target=\"_blank\" class=\"xi2\">{name}</a></strong></div></div>\r\n</div>\r\n<div><div class=\"avatar\" onmouseover=\"showauthor(this, 'userinfo{pid}')\"><a href=\"home.php?mod=space&amp;uid={uid}\" class=\"avtm\" target=\"_blank\"><img src=\"uc_server/avatar.php?uid={uid}&amp;size=middle\" /></a></div></div>\r\n<p><em><a href=\"home.php?mod=spacecp&amp;ac=usergroup&amp;gid=10\" target=\"_blank\">新手上路</a></em></p>\r\n</div>\r\n</td>\r\n<td class=\"plc\">\r\n<div class=\"pi\">\r\n<strong>\r\n<a href=\"{floor_href}\"  id=\"postnum{pid}\" onclick=\"setCopy(this.href, '帖子地址复制成功');return false;\">\r\n{label}</a>\r\n</strong>\r\n<div class=\"pti\">\r\n<div class=\"pdbt\">\r\n</div>\r\n<div class=\"authi\">\r\n{op_mark}\r\n<em id=\"authorposton{pid}\">发表于 {time}</em>\r\n<span class=\"pipe\">|</span>\r\n{only_author}\r\n</div>\r\n</div>\r\n</div><div class=\"pct\"><div class=\"pcb\">\r\n{body}\r\n<div id=\"comment_{pid}\" class=\"cm\">\r\n</div>\r\n<div id=\"post_rate_div_{pid}\"></div>\r\n</div>\r\n</div>\r\n</td></tr>\r\n<tr><td class=\"plc plm\">\r\n</td>\r\n</tr>\r\n<tr id=\"_postposition{pid}\"></tr>\r\n<tr>\r\n<td class=\"pls\"></td>\r\n<td class=\"plc\" style=\"overflow:visible;\">\r\n<div class=\"po hin\">\r\n<div class=\"pob cl\">\r\n<em>\r\n<a class=\"fastre\" href=\"forum.php?mod=post&amp;action=reply&amp;fid={fid}&amp;tid={tid}&amp;{reply_param}={pid}&amp;extra=page%3D1&amp;page=1\" onclick=\"showWindow('reply', this.href)\">回复</a>\r\n</em>\r\n<p>\r\n<a href=\"javascript:;\" onclick=\"showWindow('miscreport{pid}', 'misc.php?mod=report&rtype=post&rid={pid}&tid={tid}&fid={fid}', 'get', -1);return false;\">举报</a>\r\n</p>\r\n</div>\r\n</div>\r\n</td>\r\n</tr>\r\n<tr class=\"ad\">\r\n<td class=\"pls\">\r\n</td>\r\n<td class=\"plc\">\r\n</td>\r\n</tr>\r\n</table>\r\n</div>",
        time = pc_time(st, p.time),
    )
}

fn thread_page(st: &mut State, req: &Request, v: &Viewer, tid: u64, page: u32) -> Response {
    if st.site.login_required && v.uid == 0 {
        return message_page(st, v, "抱歉，您尚未登录，没有权限访问该版块", 200, true);
    }
    let Some(t) = st.threads.get_mut(&tid) else {
        let status = if st.site.version == Version::X35 {
            404
        } else {
            200
        };
        return message_page(
            st,
            v,
            "抱歉，指定的主题不存在或已被删除或正在被审核",
            status,
            false,
        );
    };
    t.views += 1;
    let st: &State = st;
    let t = &st.threads[&tid];
    let authorid = req.q_u64("authorid").filter(|a| *a != 0);
    if let Some(a) = authorid
        && !t.posts.iter().any(|p| p.uid == a && !p.deleted)
    {
        return message_page(st, v, "未定义操作", 200, false);
    }
    let ordertype = req.q("ordertype").filter(|o| o == "1" || o == "2");
    let descending = ordertype.as_deref() == Some("1");
    let list = listing(st, t, authorid);
    let view = paginate(
        list,
        st.site.ppp,
        page,
        descending,
        authorid.is_none(),
        st.site.floor_mode == FloorMode::Position,
    );
    let tc = ThreadCtx {
        t,
        authorid,
        op_uid: t.posts[0].uid,
    };
    let forum = forum_name(st, t.fid);
    let subject = esc(&t.subject);
    let title = if page > 1 {
        format!(
            "{subject} - 第{page}页 - {} - {} - Powered by Discuz!",
            esc(&forum),
            esc(&st.site.name)
        )
    } else {
        format!(
            "{subject} - {} - {} - Powered by Discuz!",
            esc(&forum),
            esc(&st.site.name)
        )
    };
    let script = format!(
        "<script type=\"text/javascript\">var fid = parseInt('{}'), tid = parseInt('{tid}');</script>\r\n",
        t.fid
    );
    let mut h = header(st, v, &title, &script);
    let link = |n: u32| thread_url(st, tid, n, authorid, ordertype.as_deref());
    let pg = pager(view.page, view.total, &link);
    let _ = write!(
        h,
        "<div id=\"pt\" class=\"bm cl\"><div class=\"z\"><a href=\"./\" class=\"nvhm\" title=\"首页\">{site}</a><em>&raquo;</em><a href=\"forum.php\">论坛</a> <em>&rsaquo;</em> <a href=\"forum.php?mod=forumdisplay&amp;fid={fid}\">{forum}</a> <em>&rsaquo;</em> <a href=\"{first}\">{subject}</a></div></div>\r\n<div id=\"ct\" class=\"wp cl\">\r\n<div id=\"pgt\" class=\"pgs mbm cl \">\r\n<div class=\"pgt\">{pg}</div>\r\n<span class=\"y pgb\"><a href=\"forum.php?mod=forumdisplay&amp;fid={fid}\">返回列表</a></span>\r\n</div>\r\n",
        site = esc(&st.site.name),
        fid = t.fid,
        forum = esc(&forum),
        first = thread_url(st, tid, 1, None, None),
    );
    let side = if view.page == 1 {
        format!(
            "<div class=\"hm ptn\"><span class=\"xg1\">查看:</span> <span class=\"xi1\">{}</span><span class=\"pipe\">|</span><span class=\"xg1\">回复:</span> <span class=\"xi1\">{}</span></div>",
            t.views,
            t.posts.iter().filter(|p| !p.deleted).count() - 1
        )
    } else {
        format!(
            "<div id=\"tath\" class=\"cl\">楼主: <a href=\"home.php?mod=space&amp;uid={}\" title=\"{n}\">{n}</a></div>",
            tc.op_uid,
            n = esc(&t.posts[0].author)
        )
    };
    let _ = write!(
        h,
        "<div id=\"postlist\" class=\"pl bm\">\r\n<table cellspacing=\"0\" cellpadding=\"0\">\r\n<tr>\r\n<td class=\"pls ptn pbn\">\r\n{side}\r\n</td>\r\n<td class=\"plc ptm pbn vwthd\">\r\n<h1 class=\"ts\">\r\n<span id=\"thread_subject\">{subject}</span>\r\n</h1>\r\n<span class=\"xg1\">\r\n<a href=\"{first}\" onclick=\"return copyThreadUrl(this, '{site}')\" >[复制链接]</a>\r\n</span>\r\n</td>\r\n</tr>\r\n</table>\r\n<table cellspacing=\"0\" cellpadding=\"0\" class=\"ad\">\r\n<tr>\r\n<td class=\"pls\">\r\n</td>\r\n<td class=\"plc\">\r\n</td>\r\n</tr>\r\n</table>",
        first = thread_url(st, tid, 1, None, None),
        site = esc(&st.site.name),
    );
    let mut prev = 0;
    for e in &view.entries {
        h.push_str(&post_html(st, v, &tc, e, prev));
        if e.kind != Kind::Placeholder {
            prev = e.p.pid;
        } else {
            prev += 1;
        }
    }
    if st.site.hide_water
        && view
            .entries
            .iter()
            .any(|e| e.kind != Kind::Placeholder && is_water(e))
    {
        h.push_str("<div id='hiddenpoststip'><a href='javascript:display_blocked_post();'>还有一些帖子被系统自动隐藏，点此展开</a></div>\r\n<div id=\"hiddenposts\"></div>\r\n");
    }
    h.push_str("<div id=\"postlistreply\" class=\"pl\"><div id=\"post_new\" class=\"viewthread_table\" style=\"display: none\"></div></div>\r\n</div>\r\n");
    if view.page < view.total {
        let _ = write!(
            h,
            "<div class=\"pgbtn\"><a href=\"{}\" hidefocus=\"true\" class=\"bm_h\">下一页 &raquo;</a></div>\r\n",
            link(view.page + 1)
        );
    }
    let _ = write!(
        h,
        "<div class=\"pgs mtm mbm cl\">\r\n{pg}\r\n<span class=\"pgb y\"><a href=\"forum.php?mod=forumdisplay&amp;fid={}\">返回列表</a></span>\r\n</div>\r\n",
        t.fid
    );
    let _ = write!(
        h,
        "<form method=\"post\" autocomplete=\"off\" id=\"fastpostform\" action=\"forum.php?mod=post&amp;action=reply&amp;fid={}&amp;tid={tid}&amp;extra=page%3D1&amp;replysubmit=yes\"><input type=\"hidden\" name=\"formhash\" value=\"{}\" /></form>\r\n</div>\r\n",
        t.fid,
        v.formhash()
    );
    h.push_str(footer());
    html_response(st, 200, &h)
}

fn redirect(st: &State, req: &Request) -> Response {
    let tid = req.q_u64("ptid").or_else(|| req.q_u64("tid")).unwrap_or(0);
    let Some(t) = st.threads.get(&tid) else {
        return Response::redirect(301, &format!("forum.php?mod=viewthread&tid={tid}"));
    };
    let list = listing(st, t, None);
    let ppp = st.site.ppp as usize;
    if req.q("goto").as_deref() == Some("lastpost") {
        let page = list.len().div_ceil(ppp).max(1);
        return Response::redirect(
            301,
            &format!("forum.php?mod=viewthread&tid={tid}&page={page}#lastpost"),
        );
    }
    if let Some(no) = req.q_u64("postno") {
        let page = (no.max(1) as usize - 1) / ppp + 1;
        return Response::redirect(
            301,
            &format!("forum.php?mod=viewthread&tid={tid}&page={page}"),
        );
    }
    let pid = req.q_u64("pid").unwrap_or(0);
    match list
        .iter()
        .position(|e| e.p.pid == pid && e.kind == Kind::Normal)
    {
        Some(i) => Response::redirect(
            301,
            &format!(
                "forum.php?mod=viewthread&tid={tid}&page={}#pid{pid}",
                i / ppp + 1
            ),
        ),
        None => Response::redirect(301, &format!("forum.php?mod=viewthread&tid={tid}")),
    }
}

fn forum_page(st: &State, v: &Viewer, fid: u64) -> Response {
    let threads: Vec<&ThreadRec> = st.threads.values().filter(|t| t.fid == fid).collect();
    if threads.is_empty() && !st.forums.iter().any(|f| f.fid == fid) {
        return message_page(st, v, "抱歉，指定的版块不存在", 200, false);
    }
    let name = forum_name(st, fid);
    let title = format!(
        "{} - {} - Powered by Discuz!",
        esc(&name),
        esc(&st.site.name)
    );
    let mut h = header(st, v, &title, "");
    let _ = write!(
        h,
        "<div id=\"ct\" class=\"wp cl\"><div class=\"bm_h cl\"><h1 class=\"xs2\"><a href=\"forum.php?mod=forumdisplay&amp;fid={fid}\">{}</a></h1></div>\r\n<div id=\"threadlist\" class=\"tl bm bmw\"><form method=\"post\" autocomplete=\"off\" name=\"moderate\" id=\"moderate\" action=\"forum.php?mod=topicadmin&amp;action=moderate&amp;fid={fid}&amp;infloat=yes&amp;nopost=yes\"><table summary=\"forum_{fid}\" cellspacing=\"0\" cellpadding=\"0\" id=\"threadlisttableid\">\r\n",
        esc(&name)
    );
    for t in threads.iter().rev() {
        let first = &t.posts[0];
        let last = t.posts.iter().rev().find(|p| !p.deleted).unwrap_or(first);
        let _ = write!(
            h,
            "<tbody id=\"normalthread_{tid}\">\r\n<tr>\r\n<td class=\"icn\"><a href=\"{url}\" title=\"有新回复 - 新窗口打开\" target=\"_blank\"><img src=\"static/image/common/folder_new.gif\" /></a></td>\r\n<th class=\"new\">\r\n<a href=\"{url}\" onclick=\"atarget(this)\" class=\"s xst\">{subj}</a>\r\n</th>\r\n<td class=\"by\"><cite><a href=\"home.php?mod=space&amp;uid={uid}\" c=\"1\">{author}</a></cite><em><span>{date}</span></em></td>\r\n<td class=\"num\"><a href=\"{url}\" class=\"xi2\">{replies}</a><em>{views}</em></td>\r\n<td class=\"by\"><cite><a href=\"home.php?mod=space&username={lp}\" c=\"1\">{lpn}</a></cite><em><a href=\"forum.php?mod=redirect&tid={tid}&goto=lastpost#lastpost\">{lt}</a></em></td>\r\n</tr>\r\n</tbody>\r\n",
            tid = t.tid,
            url = thread_url(st, t.tid, 1, None, None),
            subj = esc(&t.subject),
            uid = first.uid,
            author = esc(&first.author),
            date = fmt_short(first.time),
            replies = t.posts.iter().filter(|p| !p.deleted).count() - 1,
            views = t.views,
            lp = pct_encode(last.author.as_bytes()),
            lpn = esc(&last.author),
            lt = fmt_short(last.time),
        );
    }
    h.push_str("</table></form></div></div>\r\n");
    h.push_str(footer());
    html_response(st, 200, &h)
}

// ---------------------------------------------------------------- mobile API

fn envelope(
    st: &State,
    v: &Viewer,
    vars: Map<String, Value>,
    message: Option<(&str, &str)>,
) -> Value {
    let mut all = Map::new();
    all.insert("cookiepre".into(), json!(st.cookiepre()));
    all.insert(
        "auth".into(),
        v.auth.as_ref().map(|a| json!(a)).unwrap_or(Value::Null),
    );
    all.insert("saltkey".into(), json!(v.saltkey));
    all.insert("member_uid".into(), json!(v.uid.to_string()));
    all.insert("member_username".into(), json!(v.name));
    all.insert(
        "member_avatar".into(),
        json!(format!(
            "{}uc_server/avatar.php?uid={}&size=small",
            st.base_url, v.uid
        )),
    );
    all.insert("groupid".into(), json!(if v.uid == 0 { "7" } else { "10" }));
    all.insert("formhash".into(), json!(v.formhash()));
    all.insert("ismoderator".into(), Value::Null);
    all.insert(
        "readaccess".into(),
        json!(if v.uid == 0 { "1" } else { "10" }),
    );
    all.insert(
        "notice".into(),
        json!({"newpush": "0", "newpm": "0", "newprompt": "0", "newmypost": "0"}),
    );
    for (k, val) in vars {
        all.insert(k, val);
    }
    let mut top = Map::new();
    top.insert("Version".into(), json!("4"));
    top.insert("Charset".into(), json!(st.site.charset.upper()));
    top.insert("Variables".into(), Value::Object(all));
    if let Some((val, s)) = message {
        top.insert(
            "Message".into(),
            json!({"messageval": val, "messagestr": s}),
        );
    }
    Value::Object(top)
}

fn custominfo_postno(st: &State) -> Value {
    let sfx = &st.site.floor_suffix;
    let mut v = vec![if sfx.is_ascii() {
        format!("<sup>{sfx}</sup>")
    } else {
        sfx.clone()
    }];
    v.extend(st.site.floor_names.iter().cloned());
    if st.site.floor_names.is_empty() {
        v.push(String::new());
    }
    json!(v)
}

fn rewrite_settings(st: &State, vars: &mut Map<String, Value>) {
    vars.insert(
        "setting_rewriterule".into(),
        json!({
            "forum_forumdisplay": "forum-{fid}-{page}.html",
            "forum_viewthread": "thread-{tid}-{page}-{prevpage}.html",
            "home_space": "space-{user}-{value}.html",
        }),
    );
    vars.insert(
        "setting_rewritestatus".into(),
        if st.site.rewrite {
            json!(["forum_forumdisplay", "forum_viewthread"])
        } else {
            json!("")
        },
    );
}

fn login_required_api(st: &State, v: &Viewer) -> Response {
    let mut vars = Map::new();
    vars.insert("thread".into(), json!({"lastpost": "1970-1-1 08:00"}));
    vars.insert("fid".into(), json!("0"));
    vars.insert("postlist".into(), json!([]));
    json_response(&envelope(
        st,
        v,
        vars,
        Some((
            if v.uid == 0 {
                "viewperm_login_nopermission//1"
            } else {
                "viewperm_login_nopermission"
            },
            "抱歉，您尚未登录，没有权限访问该版块",
        )),
    ))
}

fn api(st: &mut State, req: &Request, v: &mut Viewer, cookies: &mut Vec<String>) -> Response {
    if st.site.api_closed {
        // The plugin's switch is off: every module, the probe included, answers this.
        return json_response(&json!({"error": "mobile_is_closed"}));
    }
    if req.query.iter().any(|(k, _)| k == "check") {
        return json_response(&json!({
            "discuzversion": st.site.version.as_str(),
            "charset": st.site.charset.lower(),
            "version": "4",
            "pluginversion": "1.4.8",
            "oemversion": "0",
            "regname": "register",
            "qqconnect": "0",
            "sitename": st.site.name,
            "mysiteid": "",
            "ucenterurl": format!("{}uc_server", st.base_url),
            "setting": {},
            "extends": {},
        }));
    }
    match req.q("module").as_deref() {
        Some("viewthread") => api_viewthread(st, req, v),
        Some("forumdisplay") => api_forumdisplay(st, req, v),
        Some("login") => api_login(st, req, v, cookies),
        _ => json_response(&json!({"error": "module_not_exists"})),
    }
}

fn api_viewthread(st: &mut State, req: &Request, v: &Viewer) -> Response {
    if st.site.login_required && v.uid == 0 {
        return login_required_api(st, v);
    }
    let tid = req.q_u64("tid").unwrap_or(0);
    let Some(t) = st.threads.get_mut(&tid) else {
        let mut vars = Map::new();
        vars.insert("thread".into(), json!({"lastpost": "1970-1-1 08:00"}));
        vars.insert("fid".into(), json!("0"));
        vars.insert("postlist".into(), json!([]));
        vars.insert("allowpostcomment".into(), json!(["1"]));
        vars.insert("comments".into(), json!([]));
        vars.insert("commentcount".into(), json!([]));
        vars.insert("ppp".into(), json!(st.site.ppp.to_string()));
        rewrite_settings(st, &mut vars);
        vars.insert("forum_threadpay".into(), Value::Null);
        vars.insert("cache_custominfo_postno".into(), custominfo_postno(st));
        vars.insert("forum".into(), json!({"password": "0"}));
        return json_response(&envelope(
            st,
            v,
            vars,
            Some((
                "thread_nonexistence",
                "抱歉，指定的主题不存在或已被删除或正在被审核",
            )),
        ));
    };
    t.views += 1;
    let st: &State = st;
    let t = &st.threads[&tid];
    let default_ppp = st.site.api_ppp.unwrap_or(match st.site.version {
        Version::X34 => 5,
        Version::X35 => 10,
    });
    let ppp = req
        .q("ppp")
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|p| *p > 0)
        .unwrap_or(default_ppp)
        .min(st.site.api_ppp_max.unwrap_or(u32::MAX));
    let page = req.q("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    let authorid = req.q_u64("authorid").filter(|a| *a != 0);
    let descending = req.q("ordertype").as_deref() == Some("1");
    let mut list = listing(st, t, authorid);
    list.retain(|e| e.kind == Kind::Normal);
    let view = paginate(list, ppp, page, descending, false, false);
    let first = &t.posts[0];
    let last = t.posts.iter().rev().find(|p| !p.deleted).unwrap_or(first);
    let replies = t.posts.iter().filter(|p| !p.deleted).count() - 1;
    let subjectenc = pct_encode(&encode(st, &t.subject));
    let thread = json!({
        "tid": t.tid.to_string(),
        "fid": t.fid.to_string(),
        "posttableid": "0",
        "typeid": "0",
        "sortid": "0",
        "readperm": "0",
        "price": "0",
        "author": first.author,
        "authorid": first.uid.to_string(),
        "subject": esc(&t.subject),
        "dateline": first.time.to_string(),
        "lastpost": fmt_short(last.time),
        "lastposter": last.author,
        "views": t.views.to_string(),
        "replies": replies.to_string(),
        "displayorder": "0",
        "highlight": "0",
        "digest": "0",
        "rate": "0",
        "special": "0",
        "attachment": "0",
        "moderated": "0",
        "closed": "0",
        "stickreply": if t.posts.iter().any(|p| p.sticky) { "1" } else { "0" },
        "recommends": "0",
        "heats": "0",
        "status": "32",
        "maxposition": t.posts.len().to_string(),
        "comments": "0",
        "hidden": "0",
        "allreplies": replies.to_string(),
        "is_archived": "",
        "subjectenc": subjectenc,
        "short_subject": esc(&t.subject),
        "ordertype": "0",
        "recommend": "0",
    });
    let mut postlist = Vec::new();
    for e in &view.entries {
        let p = e.p;
        let mut item = Map::new();
        let s = |x: &dyn ToString| Value::String(x.to_string());
        item.insert("pid".into(), s(&p.pid));
        item.insert("tid".into(), s(&t.tid));
        item.insert("first".into(), s(&if e.position == 1 { 1 } else { 0 }));
        item.insert("author".into(), s(&p.author));
        item.insert("authorid".into(), s(&p.uid));
        item.insert("dateline".into(), s(&api_time(st, p.time)));
        let message = match p.lock {
            Some(l) => api_locked_text(l).to_string(),
            None => {
                let ctx = Ctx {
                    pc: false,
                    version: st.site.version,
                    base_url: &st.base_url,
                    show_hidden: v.uid != 0,
                    fid: t.fid,
                    tid: t.tid,
                    jammer: None,
                };
                bbcode::render(&p.message, &ctx)
            }
        };
        if !message.is_empty() {
            item.insert("message".into(), s(&message));
        }
        item.insert("anonymous".into(), s(&0));
        item.insert("attachment".into(), s(&0));
        let status =
            if p.lock == Some(Lock::Blocked) { 1 } else { 0 } + if is_water(e) { 1024 } else { 0 };
        item.insert("status".into(), s(&status));
        item.insert("replycredit".into(), s(&0));
        item.insert("position".into(), s(&e.position));
        item.insert("username".into(), s(&p.author));
        item.insert("adminid".into(), s(&0));
        item.insert("groupid".into(), s(&10));
        item.insert("memberstatus".into(), s(&0));
        item.insert("number".into(), s(&e.number.unwrap_or(e.position)));
        item.insert("dbdateline".into(), s(&p.time));
        item.insert("groupiconid".into(), s(&"member"));
        postlist.push(Value::Object(item));
    }
    let mut vars = Map::new();
    vars.insert("thread".into(), thread);
    vars.insert("fid".into(), json!(t.fid.to_string()));
    vars.insert("postlist".into(), Value::Array(postlist));
    vars.insert("allowpostcomment".into(), json!(["1"]));
    vars.insert("comments".into(), json!([]));
    vars.insert("commentcount".into(), json!([]));
    vars.insert("ppp".into(), json!(ppp.to_string()));
    rewrite_settings(st, &mut vars);
    vars.insert("forum_threadpay".into(), json!(""));
    vars.insert("cache_custominfo_postno".into(), custominfo_postno(st));
    vars.insert("forum".into(), json!({"password": "0"}));
    json_response(&envelope(st, v, vars, None))
}

fn api_forumdisplay(st: &State, req: &Request, v: &Viewer) -> Response {
    let fid = req.q_u64("fid").unwrap_or(0);
    let threads: Vec<&ThreadRec> = st.threads.values().filter(|t| t.fid == fid).collect();
    if threads.is_empty() && !st.forums.iter().any(|f| f.fid == fid) {
        let mut vars = Map::new();
        vars.insert("forum".into(), json!({"password": "0"}));
        return json_response(&envelope(
            st,
            v,
            vars,
            Some(("forum_nonexistence", "抱歉，指定的版块不存在")),
        ));
    }
    let tpp = req
        .q("tpp")
        .and_then(|p| p.parse::<usize>().ok())
        .filter(|p| *p > 0)
        .unwrap_or(20);
    let page = req
        .q("page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let mut list = Vec::new();
    for t in threads.iter().rev().skip((page - 1) * tpp).take(tpp) {
        let first = &t.posts[0];
        let last = t.posts.iter().rev().find(|p| !p.deleted).unwrap_or(first);
        list.push(json!({
            "tid": t.tid.to_string(),
            "readperm": "0",
            "author": first.author,
            "authorid": first.uid.to_string(),
            "subject": esc(&t.subject),
            "dateline": api_time(st, first.time),
            "lastpost": api_time(st, last.time),
            "lastposter": last.author,
            "views": t.views.to_string(),
            "replies": (t.posts.iter().filter(|p| !p.deleted).count() - 1).to_string(),
            "digest": "0",
            "attachment": "0",
            "dbdateline": first.time.to_string(),
            "dblastpost": last.time.to_string(),
            "special": "0",
            "displayorder": "0",
            "typeid": "0",
            "recommend": "0",
        }));
    }
    let total_posts: usize = threads
        .iter()
        .map(|t| t.posts.iter().filter(|p| !p.deleted).count())
        .sum();
    let mut vars = Map::new();
    vars.insert(
        "forum".into(),
        json!({
            "fid": fid.to_string(),
            "fup": "1",
            "name": forum_name(st, fid),
            "threads": threads.len().to_string(),
            "posts": total_posts.to_string(),
            "rules": "",
            "autoclose": "0",
            "password": "0",
            "threadcount": threads.len().to_string(),
        }),
    );
    vars.insert(
        "group".into(),
        json!({"groupid": if v.uid == 0 { "7" } else { "10" }, "grouptitle": if v.uid == 0 { "游客" } else { "新手上路" }}),
    );
    vars.insert("forum_threadlist".into(), Value::Array(list));
    vars.insert("sublist".into(), json!([]));
    vars.insert("tpp".into(), json!(tpp.to_string()));
    vars.insert("page".into(), json!(page.to_string()));
    json_response(&envelope(st, v, vars, None))
}

/// Decode form/query bytes: UTF-8 when `charset=utf-8` was sent, else the site charset.
fn decode_input(st: &State, req: &Request, b: &[u8]) -> String {
    if req
        .q("charset")
        .is_some_and(|c| c.eq_ignore_ascii_case("utf-8"))
    {
        return String::from_utf8_lossy(b).into_owned();
    }
    match st.site.charset {
        SiteCharset::Utf8 => String::from_utf8_lossy(b).into_owned(),
        SiteCharset::Gbk => encoding_rs::GB18030.decode(b).0.into_owned(),
    }
}

/// Check credentials; on success start a session and queue its cookies.
fn try_login(
    st: &mut State,
    req: &Request,
    v: &mut Viewer,
    cookies: &mut Vec<String>,
) -> Result<(), (&'static str, String)> {
    let mut fields = req.form();
    fields.extend(req.query.iter().cloned());
    let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, b)| b.clone());
    let username = get("username")
        .map(|b| decode_input(st, req, &b))
        .unwrap_or_default();
    let password = get("password")
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let user = st
        .users
        .iter()
        .find(|u| u.name == username)
        .filter(|u| u.password.as_deref() == Some(password.as_str()))
        .cloned();
    let Some(user) = user else {
        return Err(("login_invalid", "登录失败，您还可以尝试 4 次".into()));
    };
    let pre = st.cookiepre();
    let (saltkey, auth) = st.new_session(user.uid, Some(v.saltkey.clone()));
    cookies.retain(|c| !c.starts_with(&format!("{pre}auth=")));
    cookies.push(set_cookie(
        &format!("{pre}auth"),
        &auth,
        Some(2592000),
        req.path != "/api/mobile/index.php",
    ));
    v.uid = user.uid;
    v.name = user.name.clone();
    v.saltkey = saltkey;
    v.auth = Some(auth);
    Ok(())
}

fn api_login(st: &mut State, req: &Request, v: &mut Viewer, cookies: &mut Vec<String>) -> Response {
    if req.q("mlogout").is_some() {
        if let Some(a) = &v.auth {
            st.sessions.remove(a);
        }
        cookies.push(set_cookie(
            &format!("{}auth", st.cookiepre()),
            "",
            Some(0),
            false,
        ));
        return json_response(&json!([]));
    }
    if req.q("loginsubmit").as_deref() != Some("yes") || req.method != "POST" {
        return json_response(&envelope(st, v, Map::new(), None));
    }
    match try_login(st, req, v, cookies) {
        Ok(()) => {
            let msg = format!("欢迎您回来，新手上路 {}，现在将转入登录前页面", v.name);
            json_response(&envelope(st, v, Map::new(), Some(("login_succeed", &msg))))
        }
        Err((val, text)) => json_response(&envelope(st, v, Map::new(), Some((val, &text)))),
    }
}

fn member(st: &mut State, req: &Request, v: &mut Viewer, cookies: &mut Vec<String>) -> Response {
    if req.q("mod").as_deref() != Some("logging") {
        return message_page(st, v, "未定义操作", 200, false);
    }
    match req.q("action").as_deref() {
        Some("logout") => {
            if let Some(a) = &v.auth {
                st.sessions.remove(a);
            }
            cookies.push(set_cookie(
                &format!("{}auth", st.cookiepre()),
                "",
                Some(0),
                true,
            ));
            let guest = Viewer {
                uid: 0,
                name: String::new(),
                saltkey: v.saltkey.clone(),
                auth: None,
            };
            message_page(
                st,
                &guest,
                "您已退出站点，现在将以游客身份转入退出前页面，请稍候……",
                200,
                false,
            )
        }
        Some("login") if req.q("loginsubmit").as_deref() == Some("yes") && req.method == "POST" => {
            let ajax = req.q("inajax").as_deref() == Some("1");
            let result = try_login(st, req, v, cookies);
            let text = match &result {
                Ok(()) => format!("欢迎您回来，新手上路 {}，现在将转入登录前页面", v.name),
                Err((_, t)) => t.clone(),
            };
            if ajax {
                let cs = st.site.charset.lower();
                let body = match result {
                    Ok(()) => format!(
                        "<?xml version=\"1.0\" encoding=\"{cs}\"?>\r\n<root><![CDATA[<script type=\"text/javascript\" reload=\"1\">window.location.href='{}forum.php';</script>]]></root>",
                        st.base_url
                    ),
                    Err(_) => format!(
                        "<?xml version=\"1.0\" encoding=\"{cs}\"?>\r\n<root><![CDATA[<div class=\"alert_error\">{text}</div>]]></root>"
                    ),
                };
                Response::new(200, &format!("text/xml; charset={cs}"), encode(st, &body))
            } else {
                message_page(st, v, &text, 200, false)
            }
        }
        Some("login") => message_page(st, v, "请输入用户名和密码登录", 200, true),
        _ => message_page(st, v, "未定义操作", 200, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_follow_dgmdate() {
        let now = crate::time::parse_local("2026-03-05 12:00:00", shanghai()).unwrap();
        assert_eq!(relative(now, now).as_deref(), Some("刚刚"));
        assert_eq!(relative(now - 42, now).as_deref(), Some("42&nbsp;秒前"));
        assert_eq!(relative(now - 180, now).as_deref(), Some("3&nbsp;分钟前"));
        assert_eq!(relative(now - 2000, now).as_deref(), Some("半小时前"));
        assert_eq!(
            relative(now - 5 * 3600, now).as_deref(),
            Some("5&nbsp;小时前")
        );
        assert_eq!(
            relative(now - 86400 + 3600, now).as_deref(),
            Some("昨天&nbsp;13:00")
        );
        assert_eq!(
            relative(now - 2 * 86400, now).as_deref(),
            Some("前天&nbsp;12:00")
        );
        assert_eq!(
            relative(now - 4 * 86400, now).as_deref(),
            Some("4&nbsp;天前")
        );
        assert_eq!(relative(now - 30 * 86400, now), None);
        assert_eq!(relative(now + 10, now), None);
        assert_eq!(fmt_full(now - 30 * 86400), "2026-2-3 12:00:00");
    }

    #[test]
    fn pager_window_matches_multi() {
        let link = |n: u32| format!("p{n}");
        assert_eq!(pager(1, 1, &link), "");
        let p = pager(5, 48, &link);
        assert!(p.contains("class=\"first\">1 ...</a>"), "{p}");
        assert!(p.contains("<strong>5</strong>"));
        assert!(p.contains("<a href=\"p3\">3</a>") && p.contains("<a href=\"p12\">12</a>"));
        assert!(p.contains("class=\"last\">... 48</a>") && p.contains("共 48 页"));
        assert!(p.contains("<a href=\"p6\" class=\"nxt\">"));
        let last = pager(3, 3, &link);
        assert!(!last.contains("nxt") && !last.contains("first"), "{last}");
    }

    #[test]
    fn json_escapes_like_php() {
        assert_eq!(
            json_bytes(&json!({"a": "楼主/𝄞"})),
            br#"{"a":"\u697c\u4e3b\/\ud834\udd1e"}"#.to_vec()
        );
    }
}
