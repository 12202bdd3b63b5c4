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
    let (fast, slow) = both_paths(bytes, &ctx(name), &[]);
    let Some(fast) = fast else {
        return false;
    };
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
    true
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
        "<p><div>x</div></p>",
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
