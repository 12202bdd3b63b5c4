//! Page fingerprints: a cheap hash of a fetched thread page with the parts that change on
//! every render removed, so the daemon can skip parsing and storing a page that has not
//! changed since the last fetch of the same (forum, tid, page).
//!
//! Correctness never depends on the fingerprint being clever: anything that is not known
//! to be noise is hashed, so at worst an unchanged page is parsed again. What is dropped:
//!
//! * PC HTML: everything outside `<title>`, the viewer (`discuz_uid = 'U'`) and the region
//!   from `div#pgt` (top pager) to `div#postlistreply` (or the footer `div#ft`); inside it,
//!   jammer noise (`<font class="jammer">…</font>`, `<span style="display:none">…</span>`),
//!   the relative-time text of `<span title="…">` (the title, which holds the absolute
//!   time, is kept), the view/reply counters (`<span class="xi1">N</span>`) and formhash
//!   values. A page without `discuz_uid`, `div#pgt` or `div#postlist` gets no fingerprint.
//! * Mobile-API JSON: `Variables` and `Message` are hashed without `formhash`, `saltkey`,
//!   `auth`, `notice`, the thread's `views`, and a post's display `dateline` when its
//!   `dbdateline` is there. A response without `Variables` gets no fingerprint.

use ring::digest::{Context, SHA256};

/// The fingerprint of one page, with the viewer it showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// Hex SHA-256 of the normalised page.
    pub hash: String,
    /// `discuz_uid` / `member_uid` (0: a guest).
    pub viewer_uid: Option<u64>,
}

fn hex(d: &[u8]) -> String {
    let mut s = String::with_capacity(d.len() * 2);
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from >= hay.len() || needle.is_empty() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The fingerprint of a PC thread page (`forum.php?mod=viewthread`).
pub fn html(body: &[u8]) -> Option<Fingerprint> {
    const UID: &[u8] = b"discuz_uid = '";
    let u = find(body, UID, 0)? + UID.len();
    let ue = u + body[u..].iter().position(|&b| b == b'\'')?;
    let viewer_uid = std::str::from_utf8(&body[u..ue]).ok()?.parse::<u64>().ok();
    let start = find(body, b"<div id=\"pgt\"", 0)?;
    find(body, b"<div id=\"postlist\"", start)?;
    let end = find(body, b"<div id=\"postlistreply\"", start)
        .or_else(|| find(body, b"<div id=\"ft\"", start))
        .unwrap_or(body.len());
    let mut h = Context::new(&SHA256);
    h.update(b"bansha-page-html-1\0");
    h.update(&body[u..ue]);
    h.update(b"\0");
    if let Some(t) = find(&body[..start], b"<title>", 0)
        && let Some(te) = find(&body[..start], b"</title>", t)
    {
        h.update(&body[t..te]);
    }
    h.update(b"\0");
    normalize_into(&mut h, &body[start..end]);
    Some(Fingerprint {
        hash: hex(h.finish().as_ref()),
        viewer_uid,
    })
}

fn starts_with_ci(s: &[u8], at: usize, p: &[u8]) -> bool {
    s.len() >= at + p.len() && s[at..at + p.len()].eq_ignore_ascii_case(p)
}

/// Hash `s` leaving out per-render noise.
fn normalize_into(h: &mut Context, s: &[u8]) {
    let mut run = 0;
    let mut i = 0;
    while i < s.len() {
        let skip = match s[i] {
            b'<' => noise_tag(s, i),
            b'h' if s[i..].starts_with(b"hash=") => {
                let v = i + 5;
                let e = v + s[v..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric())
                    .count();
                Some((v, e))
            }
            b'n' if s[i..].starts_with(b"name=\"formhash\" value=\"") => {
                let v = i + 23;
                s[v..].iter().position(|&b| b == b'"').map(|p| (v, v + p))
            }
            _ => None,
        };
        match skip {
            Some((keep_end, resume)) if resume > i => {
                h.update(&s[run..keep_end]);
                run = resume;
                i = resume;
            }
            _ => i += 1,
        }
    }
    h.update(&s[run..]);
}

/// At a `<`: `(keep_end, resume)` when noise follows — bytes up to `keep_end` are kept,
/// those from `keep_end` to `resume` dropped.
fn noise_tag(s: &[u8], i: usize) -> Option<(usize, usize)> {
    let close = |tag: &[u8], from: usize| find(s, tag, from).map(|p| p + tag.len());
    if starts_with_ci(s, i, b"<font class=\"jammer\">") {
        return Some((i, close(b"</font>", i)?));
    }
    if starts_with_ci(s, i, b"<span style=\"display:none\">")
        || starts_with_ci(s, i, b"<span style=\"display: none\">")
        || starts_with_ci(s, i, b"<span style=\"display:none;\">")
    {
        return Some((i, close(b"</span>", i)?));
    }
    if s[i..].starts_with(b"<span title=\"") {
        // Keep the tag (the absolute time); drop plain text up to `</span>`.
        let gt = i + s[i..].iter().position(|&b| b == b'>')? + 1;
        let end = find(s, b"</span>", gt)?;
        if s[gt..end].contains(&b'<') {
            return None;
        }
        return Some((gt, end));
    }
    if s[i..].starts_with(b"<span class=\"xi1\">") {
        let v = i + 18;
        let n = s[v..].iter().take_while(|b| b.is_ascii_digit()).count();
        if n > 0 && s[v + n..].starts_with(b"</span>") {
            return Some((v, v + n));
        }
    }
    None
}

/// The fingerprint of a mobile-API `viewthread` response.
pub fn api(body: &[u8]) -> Option<Fingerprint> {
    let mut v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let vars = v.get_mut("Variables")?.as_object_mut()?;
    let viewer_uid = match vars.get("member_uid") {
        Some(serde_json::Value::String(s)) => s.parse().ok(),
        Some(serde_json::Value::Number(n)) => n.as_u64(),
        _ => None,
    };
    for k in ["formhash", "saltkey", "auth", "notice"] {
        vars.remove(k);
    }
    if let Some(t) = vars.get_mut("thread").and_then(|t| t.as_object_mut()) {
        t.remove("views");
    }
    if let Some(list) = vars.get_mut("postlist").and_then(|p| p.as_array_mut()) {
        for p in list.iter_mut().filter_map(|p| p.as_object_mut()) {
            if p.contains_key("dbdateline") {
                p.remove("dateline");
            }
        }
    }
    let mut h = Context::new(&SHA256);
    h.update(b"bansha-page-api-1\0");
    h.update(&serde_json::to_vec(&v.get("Variables")).ok()?);
    h.update(b"\0");
    h.update(&serde_json::to_vec(&v.get("Message")).ok()?);
    Some(Fingerprint {
        hash: hex(h.finish().as_ref()),
        viewer_uid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(uid: &str, views: u32, rel: &str, jam: &str, body: &str) -> String {
        format!(
            "<html><head><title>D1 讨论帖 - 版杀</title><script>var charset = 'utf-8', discuz_uid = '{uid}', cookiepre = 'x';</script></head><body>\
             <a href=\"member.php?mod=logging&amp;action=logout&amp;formhash=ab12cd34\">退出</a>\
             <div id=\"pgt\"><div class=\"pg\"><strong>1</strong><a href=\"p2\">2</a></div></div>\
             <div id=\"postlist\"><div class=\"hm ptn\"><span class=\"xg1\">查看:</span> <span class=\"xi1\">{views}</span></div>\
             <em id=\"authorposton1\">发表于 <span title=\"2026-3-4 11:57\">{rel}</span></em>\
             <td class=\"t_f\" id=\"postmessage_1\">{body}<font class=\"jammer\">{jam}</font></td>\
             <a href=\"forum.php?mod=misc&amp;hash=ff00{views}\">支持</a>\
             <div id=\"postlistreply\"></div></div><div id=\"ft\">GMT+8, 2026-3-4 12:0{views}</div></body></html>"
        )
    }

    #[test]
    fn html_ignores_per_render_noise() {
        let a = html(page("7", 1, "3&nbsp;分钟前", "x1", "投票给甲").as_bytes()).unwrap();
        let b = html(page("7", 2, "4&nbsp;分钟前", "q9", "投票给甲").as_bytes()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.viewer_uid, Some(7));
    }

    #[test]
    fn html_changes_with_content_viewer_and_pager() {
        let a = html(page("7", 1, "刚刚", "x", "投票给甲").as_bytes()).unwrap();
        let edit = html(page("7", 1, "刚刚", "x", "投票给乙").as_bytes()).unwrap();
        assert_ne!(a.hash, edit.hash);
        let guest = html(page("0", 1, "刚刚", "x", "投票给甲").as_bytes()).unwrap();
        assert_ne!(a.hash, guest.hash);
        assert_eq!(guest.viewer_uid, Some(0));
        let p = page("7", 1, "刚刚", "x", "投票给甲").replace(
            "<a href=\"p2\">2</a>",
            "<a href=\"p2\">2</a><a href=\"p3\">3</a>",
        );
        assert_ne!(a.hash, html(p.as_bytes()).unwrap().hash);
        // A changed absolute time (in the span's title) counts.
        let p = page("7", 1, "刚刚", "x", "投票给甲").replace("11:57", "11:58");
        assert_ne!(a.hash, html(p.as_bytes()).unwrap().hash);
    }

    #[test]
    fn html_without_the_page_markers_has_no_fingerprint() {
        assert!(html(b"<div id=\"messagetext\">\xe6\x8a\xb1\xe6\xad\x89</div>").is_none());
        let p = page("7", 1, "刚刚", "x", "a").replace("id=\"postlist\"", "id=\"other\"");
        assert!(html(p.as_bytes()).is_none());
    }

    #[test]
    fn api_ignores_volatile_keys_only() {
        let j = |uid: &str, views: u32, fh: &str, msg: &str, date: &str| {
            format!(
                r#"{{"Version":"4","Variables":{{"member_uid":"{uid}","formhash":"{fh}","notice":{{"newpm":"{views}"}},"thread":{{"tid":"5","views":"{views}","replies":"1"}},"postlist":[{{"pid":"9","message":"{msg}","dateline":"{date}","dbdateline":"1772596000"}}],"ppp":"10"}}}}"#
            )
        };
        let a = api(j("7", 1, "aa", "投甲", "3&nbsp;分钟前").as_bytes()).unwrap();
        let b = api(j("7", 9, "bb", "投甲", "4&nbsp;分钟前").as_bytes()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.viewer_uid, Some(7));
        assert_ne!(
            a.hash,
            api(j("7", 1, "aa", "投乙", "刚刚").as_bytes())
                .unwrap()
                .hash
        );
        let guest = api(j("0", 1, "aa", "投甲", "刚刚").as_bytes()).unwrap();
        assert_ne!(a.hash, guest.hash);
        assert_eq!(guest.viewer_uid, Some(0));
        assert!(api(b"<html>not json</html>").is_none());
    }
}
