//! The fast path reads every page it accepts exactly as the html5ever path does.

use super::*;
use crate::discuz::html::both_paths;
use bansha_testforum::{
    ForumInfo, ForumSpec, Lock, PostSpec, SiteCharset, TestForum, ThreadSpec, UserSpec, Version,
};

#[path = "../../../benches/support/thread.rs"]
mod thread;

fn ctx(source: &str) -> ParseContext {
    ParseContext::new(source, 1709308800)
}

/// Parse through both paths; true when the fast path accepted the page (and agreed).
fn same(name: &str, bytes: &[u8]) -> bool {
    read_alike(name, bytes).is_some()
}

/// Parse through both paths; when the fast path accepted the page (and agreed), the
/// number of its posts it left to html5ever one by one.
fn read_alike(name: &str, bytes: &[u8]) -> Option<usize> {
    let (fast, slow) = both_paths(bytes, &ctx(name), &[]);
    let FastRead {
        parsed: fast,
        posts_declined,
    } = fast?;
    let slow =
        slow.unwrap_or_else(|e| panic!("{name}: the fast path read a page html5ever refuses: {e}"));
    assert_eq!(fast.warnings, slow.warnings, "{name}");
    assert_eq!(fast.page.tid, slow.page.tid, "{name}");
    assert_eq!(fast.page.title, slow.page.title, "{name}");
    assert_eq!(
        (fast.page.page, fast.page.total_pages, fast.page.viewer_uid),
        (slow.page.page, slow.page.total_pages, slow.page.viewer_uid),
        "{name}"
    );
    assert_eq!(fast.page.posts.len(), slow.page.posts.len(), "{name}");
    for (f, s) in fast.page.posts.iter().zip(&slow.page.posts) {
        assert_eq!(f, s, "{name}: pid {:?}", s.pid);
    }
    assert_eq!(fast.page, slow.page, "{name}");
    Some(posts_declined)
}

fn get(forum: &TestForum, target: &str) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(forum.addr()).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let at = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    buf.split_off(at + 4)
}

fn spec(version: Version, charset: SiteCharset, human_time: bool, jammer: bool) -> ForumSpec {
    let names = ["导演", "傻树", "白色防御者", "甲", "乙"];
    let mut s = ForumSpec::default();
    s.site.version = version;
    s.site.charset = charset;
    s.site.human_time = human_time;
    s.site.jammer = jammer;
    s.site.now = Some("2026-03-02 10:00".into());
    s.users = names
        .iter()
        .enumerate()
        .map(|(i, n)| UserSpec {
            uid: 401 + i as u64,
            name: n.to_string(),
            password: None,
        })
        .collect();
    s.forums = vec![ForumInfo {
        fid: 2,
        name: "版杀".into(),
    }];
    let messages = [
        "投票对象：[color=Red][size=5]乙[/size][/color]\n投票理由：[b]发言[/b]有问题 & <script>x</script>",
        "[quote]被引用[/quote]\n同意楼上 &amp; [url=forum.php?mod=viewthread&tid=7]链接[/url]",
        "[font=黑体][color=#ff3333]红字[/color][/font][size=2]小字[/size] 1 < 2 > 0",
        "[list][*]一[*]二[/list][align=center]居中[/align][code]let x = 1;[/code]",
        "[table][tr][td]格子[/td][td]二[/td][/tr][/table][hide]藏[/hide]",
        "普通发言。\n\n第二段\t有空格　全角空格",
    ];
    let posts = (0..34)
        .map(|i| {
            let mut p = PostSpec::new(
                names[i % names.len()],
                &format!("2026-03-0{} {:02}:{:02}", 1 + i / 20, i % 24, (i * 7) % 60),
                messages[i % messages.len()],
            );
            if i % 7 == 3 {
                p.reply_to = Some(i as u32 - 1);
            }
            if i % 9 == 4 {
                p.edited = Some(format!("2026-03-02 0{}:30", i % 9));
            }
            if i == 12 {
                p.deleted = true;
            }
            if i == 17 {
                p.locked = Some(Lock::Banned);
            }
            if i == 21 {
                p.sticky = true;
            }
            p
        })
        .collect();
    s.threads = vec![ThreadSpec {
        tid: 4001,
        fid: 2,
        subject: "D1 讨论帖 <&>".into(),
        posts,
    }];
    s
}

#[test]
fn fast_path_reads_every_page_as_html5ever_does() {
    let mut accepted = Vec::new();
    let mut declined = Vec::new();
    // The saved pages in the fixtures.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/discuz");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html" || e == "htm"))
        .collect();
    files.sort();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(f).unwrap();
        if same(&name, &bytes) {
            accepted.push(name);
        } else {
            declined.push(name);
        }
    }
    // The test forum's pages, X3.4 and X3.5, UTF-8 and GBK, relative times, jammer.
    for (version, charset, human, jammer) in [
        (Version::X34, SiteCharset::Utf8, true, false),
        (Version::X35, SiteCharset::Utf8, false, true),
        (Version::X34, SiteCharset::Gbk, true, true),
    ] {
        let forum = TestForum::start(spec(version, charset, human, jammer)).unwrap();
        for page in 1..=4 {
            let name = format!("{version:?} {charset:?} page {page}");
            let bytes = get(
                &forum,
                &format!("/forum.php?mod=viewthread&tid=4001&page={page}"),
            );
            if same(&name, &bytes) {
                accepted.push(name);
            } else {
                declined.push(name);
            }
        }
    }
    // The benches' pages: every one on the fast path.
    let t = thread::BENCH;
    for page in [1, 2, 3, 100, 200] {
        assert!(same(&format!("bench pc page {page}"), &t.pc_page(page)));
        assert!(same(
            &format!("bench saved page {page}"),
            &t.saved_page(page)
        ));
    }
    eprintln!("fast path: accepted {accepted:?}; declined {declined:?}");
    for must in [
        "saved-complete-chrome.html",
        "thread-x32-gbk.html",
        "utf8-declares-gbk.html",
        "X34 Utf8 page 3",
        "X35 Utf8 page 4",
        "X34 Gbk page 3",
    ] {
        assert!(
            accepted.iter().any(|a| a == must),
            "{must} should take the fast path (declined: {declined:?})"
        );
    }
}

#[test]
fn builder_declines_what_it_does_not_implement() {
    for html in [
        "<div><b>x</div></b>",
        "<table>text<tr><td>x</td></tr></table>",
        "<a href=x><a href=y>z</a></a>",
        "<div>&copy 2024</div>",
        "<div>&#128;</div>",
        "<ul><li>a<li>b</ul>",
        "<select><option>a</select>",
        "<div>\0</div>",
        "<div class=\"x\"",
        "<![CDATA[x]]>",
    ] {
        assert!(build(html).is_none(), "{html}");
    }
    // What it builds, it builds as html5ever does: the stock templates' tables and the
    // paragraph an attachment tooltip closes.
    for html in [
        "<div class=\"tns\"><table cellspacing=\"0\"><th><p><a href=\"x\">4</a></p>主题</th><th>1</th><td><p>3</p>积分</td></table></div>",
        "<table class=\"ratl\">\n<tr>\n<th>a</th>\n</tr>\n<tbody class=\"ratl_l\"><tr id=\"r\"><td>b</td></tr>\n</tbody>\n</table>",
        "<table><tr><td>a</td><tr><td>b</td></table>",
        "<table><tbody><tr><td>a</td></tr></tbody><tbody><td>b</td></tbody></table>",
        "<p class=\"attnm\"><a href=\"x\">f.zip</a>\n<div class=\"tip\">t</div>\n</p><p>1 KB</p>",
        "<p>a<p>b</p><hr />c</p>",
    ] {
        let d = build(html).unwrap_or_else(|| panic!("declined {html}"));
        let ours = NodeRef { dom: &d, id: 0 }.inner_html();
        let theirs = scraper::Html::parse_document(html).root_element().html();
        assert_eq!(ours, theirs, "{html}");
    }
    let d = build("<table>\n<tr><td class=\"t_f\" id=\"m\">a&amp;b&nbsp;<br />\r\n<font color=\"Red\" size=\"5\">红</font><!--c--></td></tr></table>").unwrap();
    let doc = NodeRef { dom: &d, id: 0 };
    let td = first(doc, |e| e.is("td")).unwrap();
    // The implied tbody, CRLF as LF, attributes serialized sorted, as html5ever does.
    assert!(td.parent().unwrap().parent().unwrap().is("tbody"));
    assert_eq!(
        td.inner_html(),
        "a&amp;b&nbsp;<br>\n<font color=\"Red\" size=\"5\">红</font><!--c-->"
    );
}

#[test]
fn tag_flags_are_the_lists() {
    let lists = [
        (SPECIAL, SPECIAL_F),
        (CLOSES_P, CLOSES_P_F),
        (DECLINED, DECLINED_F),
        (VOID, VOID_F),
        (HEADINGS, HEADING_F),
    ];
    for (list, bit) in lists {
        for n in list {
            assert!(tag_flags(n) & bit != 0, "{n}");
        }
    }
    for n in ["div", "font", "td", "br", "span", "x-custom"] {
        let want = lists
            .iter()
            .filter(|(l, _)| l.contains(&n))
            .fold(0, |a, (_, b)| a | b);
        assert_eq!(tag_flags(n), want, "{n}");
    }
}

#[test]
fn common_references_read_as_the_table_reads_them() {
    for &(name, c) in COMMON_REFS {
        assert_eq!(entity(name), Some((c as u32, 0)), "&{name}");
        let text = format!("x&{name}y");
        assert_eq!(decode_text(&text).as_deref(), Some(&*format!("x{c}y")));
    }
}

/// `<html>`, `<head>` and `<body>` tags make no element of their own (the implied ones
/// have no attributes): a page cut right after its `<body …>` still builds, and every
/// element's attributes can be read.
#[test]
fn a_page_cut_after_its_body_tag_builds_with_readable_attributes() {
    for html in [
        "<html lang=\"zh\"><body class=\"pg_viewthread\">",
        "<html><head><title>t</title></head><body id=\"nv_forum\" class=\"pg\">",
    ] {
        let d = build(html).unwrap();
        let doc = NodeRef { dom: &d, id: 0 };
        assert!(first(doc, |e| e.is("body")).is_some(), "{html}");
        assert!(doc.elements().all(|e| e.attrs().is_empty()), "{html}");
    }
}

/// The short-text scan finds what `memchr3` finds, on both sides of its 32-byte switch.
#[test]
fn the_short_text_scan_finds_the_first_reference_cr_or_nul_as_memchr3_does() {
    for len in 0..70usize {
        for at in 0..=len {
            for c in [b'&', b'\r', 0, b'a'] {
                let mut b = vec![b'x'; len];
                if at < len {
                    b[at] = c;
                }
                assert_eq!(
                    super::special(&b),
                    memchr::memchr3(b'&', b'\r', 0, &b),
                    "{len} {at} {c}"
                );
            }
        }
    }
}

/// Issue 22: every page shaped like the stock X3.4/X3.5 templates (the test forum's pages,
/// which render the numbercard, medals, group icons, online marks, signatures, 评分 logs,
/// 点评, 回帖奖励, polls, attachments and image lists, edit notices, 楼主/沙发 and custom
/// floor names, ads between posts; the benches' 200 pages; the stock fixture) is read by
/// the fast path with no post left to html5ever.
#[test]
fn stock_pages_take_the_fast_path_with_no_post_declined() {
    let fixture = "stock-x34-parts.html";
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/discuz");
    let mut pages = vec![(
        fixture.to_string(),
        std::fs::read(dir.join(fixture)).unwrap(),
    )];
    for (version, charset, human, jammer) in [
        (Version::X34, SiteCharset::Utf8, true, false),
        (Version::X35, SiteCharset::Utf8, false, true),
        (Version::X34, SiteCharset::Gbk, true, true),
    ] {
        let mut spec = spec(version, charset, human, jammer);
        spec.site.floor_names = vec!["楼主".into(), "沙发".into(), "板凳".into()];
        let forum = TestForum::start(spec).unwrap();
        for page in 1..=4 {
            let target = format!("/forum.php?mod=viewthread&tid=4001&page={page}");
            pages.push((
                format!("{version:?} {charset:?} page {page}"),
                get(&forum, &target),
            ));
        }
    }
    let t = thread::BENCH;
    for page in 1..=t.pages {
        pages.push((format!("bench saved page {page}"), t.saved_page(page)));
    }
    let mut declines = Vec::new();
    for (name, bytes) in &pages {
        // Both paths on a sample (html5ever is slow in a debug build), the fast one on all.
        let sampled = !name.starts_with("bench") || name.ends_with(" 1") || name.ends_with("00");
        let declined = if sampled {
            read_alike(name, bytes)
        } else {
            let text = String::from_utf8_lossy(bytes);
            parse(text.trim(), true, &ctx(name), &[]).map(|r| r.posts_declined)
        };
        if declined != Some(0) {
            let (fast, _) = both_paths(bytes, &ctx(name), &[]);
            eprintln!("{name}: {:?}", fast.map(|f| f.posts_declined));
        }
        match declined {
            Some(0) => {}
            Some(n) => declines.push(format!("{name}: {n} posts")),
            None => declines.push(format!("{name}: the whole page")),
        }
    }
    assert_eq!(declines, Vec::<String>::new(), "declined on stock pages");
}

/// Issue 22: a post the fast path cannot read declines that post alone: the rest of the
/// page stays on the fast path, and the page reads as html5ever reads it.
#[test]
fn an_odd_post_declines_that_post_not_the_page() {
    let t = thread::BENCH;
    let page = String::from_utf8(t.saved_page(2)).unwrap();
    let pid = t.pid_base + 12;
    // A tree this builder does not build (`<pre>`) inside one post's message…
    let cell = format!("id=\"postmessage_{pid}\">");
    assert!(page.contains(&cell));
    let odd_tree = page.replacen(&cell, &format!("{cell}<pre>代码\n块</pre>"), 1);
    assert_eq!(read_alike("odd tree", odd_tree.as_bytes()), Some(1));
    // …and a post not in the stock shape (no `plhin`, a customised header).
    let table = format!("id=\"pid{pid}\" class=\"plhin\"");
    assert!(page.contains(&table));
    let odd_shape = page.replacen(&table, &format!("id=\"pid{pid}\" class=\"vt_table\""), 1);
    assert_eq!(read_alike("odd shape", odd_shape.as_bytes()), Some(1));
}
