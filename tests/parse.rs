//! Integration tests: parse (golden pages).
//!
//! Fixture pages in `tests/fixtures/discuz/` were written by hand from the real renderings
//! in MARKUP.md (full page skeletons). Every expected value below was worked out from the
//! markup by reading the fixture, not copied from parser output.

use std::path::PathBuf;

use bansha::config::Charset;
use bansha::discuz::{self, PageError, ParseContext};
use bansha::model::{LockKind, PagePost, QuoteRef, ThreadPage};
use bansha::time::parse_local;

const SH: chrono_tz::Tz = chrono_tz::Asia::Shanghai;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/discuz")
}

fn fixture(name: &str) -> Vec<u8> {
    let p = fixture_dir().join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn at(s: &str) -> i64 {
    parse_local(s, SH).unwrap()
}

fn ctx(source: &str) -> ParseContext {
    ParseContext {
        source: source.to_string(),
        tid: None,
        page: None,
        fetched_at: at("2024-03-03 09:00:00"),
        tz: SH,
        charset: Charset::Auto,
    }
}

fn page(name: &str) -> ThreadPage {
    discuz::parse_page(&fixture(name), &ctx(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn post(p: &ThreadPage, pid: u64) -> &PagePost {
    p.posts
        .iter()
        .find(|x| x.pid == Some(pid))
        .unwrap_or_else(|| panic!("no pid {pid}"))
}

fn err(name: &str) -> PageError {
    match discuz::parse_page(&fixture(name), &ctx(name)) {
        Ok(p) => panic!("{name} parsed as a page with {} posts", p.posts.len()),
        Err(e) => {
            assert!(
                e.to_string().contains(name),
                "error does not name the source: {e}"
            );
            e
        }
    }
}

#[test]
fn page1_header_pager_login_and_order() {
    let p = page("thread-5001-p1.html");
    assert_eq!(p.tid, 5001);
    assert_eq!(p.title, "【第三届】狼人杀 第一天 讨论帖 & 投票");
    assert_eq!((p.page, p.total_pages), (1, 3));
    assert_eq!(p.viewer_uid, Some(446740));
    assert!(!p.author_filtered);
    let pids: Vec<Option<u64>> = p.posts.iter().map(|x| x.pid).collect();
    let want: Vec<Option<u64>> = [1001, 1005, 1003, 1002, 1004, 1006, 1007, 1008, 1009, 1010]
        .into_iter()
        .map(Some)
        .collect();
    assert_eq!(pids, want);
}

#[test]
fn page1_first_post_edit_notice_tooltip_red_and_large() {
    let p = page("thread-5001-p1.html");
    let f = post(&p, 1001);
    assert_eq!((f.floor, f.floor_label.as_str()), (Some(1), "1#"));
    assert_eq!((f.author.as_str(), f.uid), ("张三", Some(100)));
    assert_eq!(f.time, at("2024-03-02 08:18:40"));
    let e = f.edit.as_ref().unwrap();
    assert_eq!(
        (e.editor.as_str(), e.time),
        ("张三", Some(at("2024-03-02 09:01")))
    );
    assert_eq!(
        f.text,
        "第一天开始\n投票格式：投票对象：X号\n截止时间：今晚 22:00"
    );
    assert_eq!(f.red, "第一天开始\n今晚 22:00");
    assert_eq!(f.large, "第一天开始");
    assert!(f.html.contains("pstatus"), "html keeps the served markup");
    assert!(!f.duplicate && !f.deleted && f.locked.is_none() && f.quote.is_none());
}

#[test]
fn page1_pinned_and_hot_duplicates() {
    let p = page("thread-5001-p1.html");
    let pinned = post(&p, 1005);
    assert!(
        !pinned.duplicate,
        "floor 5 is missing from page 1's numbers: this is its only copy"
    );
    assert_eq!(pinned.floor, Some(5), "来自 5# gives the real floor");
    assert_eq!(pinned.floor_label, "来自 5#");
    assert_eq!((pinned.author.as_str(), pinned.uid), ("王五", Some(105)));
    let hot = post(&p, 1003);
    assert!(
        !hot.duplicate,
        "the gap at 3 makes the 推荐 slot its only copy"
    );
    assert_eq!(hot.floor_label, "推荐");
    assert_eq!(
        hot.floor,
        Some(3),
        "the single gap in page 1's numbers is the hot reply's floor"
    );
}

#[test]
fn page1_hidden_water_post_with_quote_jammer_and_styles() {
    let p = page("thread-5001-p1.html");
    let v = post(&p, 1002);
    assert_eq!(
        (v.floor, v.author.as_str(), v.uid),
        (Some(2), "李四", Some(101))
    );
    assert_eq!(v.time, at("2024-03-02 08:32:16"));
    assert_eq!(
        v.quote,
        Some(QuoteRef {
            pid: Some(1001),
            author: Some("张三".into()),
            time: Some(at("2024-03-02 08:18")),
            floor: None
        })
    );
    assert_eq!(v.text, "投票对象：7号\n投票理由：发言有问题\n大字和普通");
    assert_eq!(v.red, "7号", "red inside the quote does not count");
    assert_eq!(v.large, "7号\n大字");
    assert!(v.html.contains("jammer"), "html is kept as served");
}

#[test]
fn page1_locked_bodies_and_special_authors() {
    let p = page("thread-5001-p1.html");
    let cases = [
        (1004, 4, "孙七", Some(104), LockKind::BannedAuthor),
        (1006, 6, "周八", Some(106), LockKind::AuthorOnly),
        (1008, 8, "郑十", Some(108), LockKind::Pending),
        (1009, 9, "匿名", None, LockKind::Password),
        (1010, 10, "旧账号", Some(110), LockKind::ModeratorBlocked),
    ];
    for (pid, floor, author, uid, lock) in cases {
        let x = post(&p, pid);
        assert_eq!(x.floor, Some(floor), "pid {pid}");
        assert_eq!(x.author, author, "pid {pid}");
        assert_eq!(x.uid, uid, "pid {pid}");
        assert_eq!(x.locked, Some(lock), "pid {pid}");
        assert_eq!(x.text, "", "pid {pid}: locked bodies have no text");
        assert!(!x.deleted);
    }
    assert_eq!(post(&p, 1004).time, at("2024-03-01 23:59"));
    assert_eq!(post(&p, 1006).time, at("2024-03-02 10:20:05"));
    let legacy = post(&p, 1008).quote.clone().unwrap();
    assert_eq!(
        legacy,
        QuoteRef {
            pid: Some(1007),
            author: Some("吴九".into()),
            time: None,
            floor: Some(7)
        }
    );
}

#[test]
fn page1_touch_quote_without_link_matches_by_author_and_time() {
    let p = page("thread-5001-p1.html");
    let x = post(&p, 1007);
    assert_eq!(
        x.quote,
        Some(QuoteRef {
            pid: None,
            author: Some("李四".into()),
            time: Some(at("2024-03-02 08:32")),
            floor: None
        })
    );
    assert_eq!(x.text, "跟票 7号");
    assert_eq!(x.red, "7号");
}

// ---------------------------------------------------------------- mobile API (captured)

/// The captured real responses, copied (with their README and licence) from
/// shared/discuz/captured so the tests never depend on anything outside the repository.
fn captured(name: &str) -> Vec<u8> {
    fixture(&format!("captured/{name}"))
}

#[test]
fn captured_viewthread_parses_two_posts() {
    let name = "captured/s1-viewthread-1.json";
    let p = discuz::parse_page(&captured("s1-viewthread-1.json"), &ctx(name)).unwrap();
    assert_eq!(p.tid, 1814693);
    assert_eq!(p.title, "固态硬盘 内存");
    assert_eq!((p.page, p.total_pages), (1, 1));
    assert_eq!(p.viewer_uid, Some(206905));
    assert_eq!(p.posts.len(), 2);
    let a = &p.posts[0];
    assert_eq!(a.pid, Some(42787580));
    assert_eq!(
        (a.floor, a.floor_label.as_str()),
        (Some(1), "楼主"),
        "cache_custominfo_postno[1]"
    );
    assert_eq!(
        (a.author.as_str(), a.uid, a.time),
        ("sonic3908", Some(137121), 1551626855)
    );
    assert_eq!(
        (a.text.as_str(), a.html.as_str()),
        ("", ""),
        "no `message` key"
    );
    assert!(a.locked.is_none());
    let b = &p.posts[1];
    assert_eq!(b.pid, Some(42787586));
    assert_eq!((b.floor, b.floor_label.as_str()), (Some(2), "2#"));
    assert_eq!(b.time, 1551626899, "dbdateline, not the formatted dateline");
    assert!(b.text.starts_with("for手机用户：闪迪SSD PLUS 120G全新未拆"));
    assert_eq!(b.large, "", "size is never judged from API HTML");
}

#[test]
fn captured_viewthread_error_is_thread_missing() {
    let name = "captured/s1-viewthread-error.json";
    let e = discuz::parse_page(&captured("s1-viewthread-error.json"), &ctx(name)).unwrap_err();
    assert!(matches!(e, PageError::ThreadMissing { .. }), "{e:?}");
    assert!(e.is_gone() && !e.is_retryable() && !e.is_login_problem());
    let msg = e.to_string();
    assert!(
        msg.contains(name) && msg.contains("抱歉，指定的主题不存在或已被删除或正在被审核"),
        "{msg}"
    );
}

#[test]
fn captured_forumdisplay_lists_fifty_threads_each() {
    for (file, missing_lastposter, escaped) in [
        (
            "s1-forumdisplay-1.json",
            1585959u64,
            Some("辉夜大小姐想让我告白 真人电影化 平野紫耀&桥本环奈"),
        ),
        ("s1-forumdisplay-2.json", 542565, None),
    ] {
        let list = discuz::parse_forumdisplay(&captured(file), &ctx(file)).unwrap();
        assert_eq!(list.len(), 50, "{file}");
        let t = list.iter().find(|t| t.tid == missing_lastposter).unwrap();
        assert!(!t.subject.is_empty() && t.time > 0);
        if let Some(s) = escaped {
            assert!(
                list.iter().any(|t| t.subject == s),
                "subjects are unescaped"
            );
        }
    }
    let list = discuz::parse_forumdisplay(&captured("s1-forumdisplay-2.json"), &ctx("f2")).unwrap();
    let last = list.last().unwrap();
    assert_eq!(
        (
            last.tid,
            last.subject.as_str(),
            last.author.as_str(),
            last.author_uid,
            last.time,
            last.replies
        ),
        (
            1815424,
            "康宁正在研发柔性玻璃产品",
            "月神侠",
            Some(26068),
            1551927304,
            14
        )
    );
    let e = discuz::parse_forumdisplay(&captured("s1-viewthread-error.json"), &ctx("err.json"))
        .unwrap_err();
    assert!(e.is_gone(), "{e:?}");
}

// ---------------------------------------------------------------- error pages

#[test]
fn message_pages_map_to_their_own_errors() {
    let e = err("msg-thread-missing.html");
    assert!(
        matches!(e, PageError::ThreadMissing { .. }) && e.is_gone(),
        "{e:?}"
    );
    let e = err("msg-login-required.html");
    assert!(e.is_login_problem() && !e.is_gone(), "{e:?}");
    for name in ["msg-no-permission.html", "msg-readperm.html"] {
        let e = err(name);
        assert!(
            matches!(e, PageError::NoPermission { .. }) && e.is_gone(),
            "{name}: {e:?}"
        );
    }
    let e = err("msg-readperm.html");
    assert!(
        e.to_string().contains("阅读权限高于 100"),
        "the forum's words are quoted: {e}"
    );
    let e = err("msg-banned.html");
    assert!(
        matches!(e, PageError::Banned { .. }) && e.is_gone(),
        "{e:?}"
    );
    let e = err("msg-closed.html");
    assert!(
        matches!(e, PageError::BoardClosed { .. }) && e.is_retryable(),
        "{e:?}"
    );
    let e = err("msg-undefined-action.html");
    assert!(matches!(e, PageError::ForumMessage { .. }), "{e:?}");
    assert!(!e.is_gone() && !e.is_retryable() && !e.is_login_problem());
}

#[test]
fn defence_and_challenge_pages_are_retryable_errors() {
    for (name, title) in [
        ("cc-refresh.html", "频繁刷新限制"),
        ("cc-reload.html", "页面重载开启"),
    ] {
        let e = err(name);
        assert!(
            matches!(&e, PageError::CcDefence { title: t, .. } if t == title),
            "{e:?}"
        );
        assert!(e.is_retryable() && !e.is_gone());
    }
    let e = err("anti-scrape.html");
    assert!(
        matches!(e, PageError::AntiScrape { .. }) && e.is_retryable(),
        "{e:?}"
    );
    let e = err("cdn-challenge.html");
    assert!(
        matches!(e, PageError::NotThreadPage { .. }) && e.is_retryable(),
        "{e:?}"
    );
    let e = err("server-error.html");
    assert!(
        matches!(e, PageError::ServerError { .. }) && e.is_retryable(),
        "{e:?}"
    );
}

#[test]
fn truncated_and_empty_pages_are_errors_never_short_pages() {
    let full = fixture("thread-5001-p1.html");
    let s = String::from_utf8(full.clone()).unwrap();
    // Cut inside the post list, inside the last post, right after the last post (before
    // `#postlistreply`), and before the post list. (A cut after the post list, which only
    // loses the footer's `</html>`, is a complete page: see `ends_after_the_post_list`.)
    let last_post = s.find("<div id=\"post_1010\"").unwrap();
    let after_last = s.find("<div id='hiddenpoststip'>").unwrap();
    for cut in [full.len() / 2, last_post + 200, after_last, 3000] {
        let e = discuz::parse_page(&full[..cut], &ctx("cut.html")).unwrap_err();
        assert!(
            matches!(e, PageError::Truncated { .. }) && e.is_retryable(),
            "cut {cut}: {e:?}"
        );
        assert!(e.to_string().contains("cut.html"));
    }
    let (a, b) = (
        s.find("<div id=\"post_1001\"").unwrap(),
        s.find("<div id='hiddenpoststip'>").unwrap(),
    );
    let no_posts = format!("{}{}", &s[..a], &s[b..]);
    let e = discuz::parse_page(no_posts.as_bytes(), &ctx("np.html")).unwrap_err();
    assert!(
        matches!(e, PageError::Malformed { .. }),
        "a post list without posts: {e:?}"
    );
    for empty in [&b""[..], b"  \r\n", b"\xEF\xBB\xBF\n"] {
        let e = discuz::parse_page(empty, &ctx("empty")).unwrap_err();
        assert!(
            matches!(e, PageError::Empty { .. }) && e.is_retryable(),
            "{e:?}"
        );
    }
}

#[test]
fn api_errors_and_malformed_json() {
    let c = ctx("https://bbs.example.com/api/mobile/index.php?version=4&module=viewthread&tid=9");
    type Case<'a> = (&'a [u8], fn(&PageError) -> bool);
    let cases: [Case; 6] = [
        (b"{\"Version\":\"4\",\"Variables\":{\"postlist\":[", |e| matches!(e, PageError::MalformedJson { .. })),
        (b"{not json", |e| matches!(e, PageError::MalformedJson { .. })),
        (b"{\"error\":\"mobile_is_closed\"}", |e| matches!(e, PageError::ApiError { .. })),
        (b"[]", |e| matches!(e, PageError::ApiError { .. })),
        (
            "{\"Variables\":{\"member_uid\":\"0\",\"postlist\":[]},\"Message\":{\"messageval\":\"viewperm_login_nopermission//1\",\"messagestr\":\"抱歉，您尚未登录，没有权限访问该版块\"}}".as_bytes(),
            |e| e.is_login_problem(),
        ),
        (b"{\"Variables\":{\"postlist\":[]}}", |e| matches!(e, PageError::Malformed { .. })),
    ];
    for (bytes, ok) in cases {
        let e = discuz::parse_page(bytes, &c).unwrap_err();
        assert!(ok(&e), "{}: {e:?}", String::from_utf8_lossy(bytes));
        assert!(e.to_string().contains("module=viewthread&tid=9"), "{e}");
    }
}

// ---------------------------------------------------------------- GBK page 2, relative times

#[test]
fn gbk_page2_decodes_and_reads_relative_times() {
    let raw = fixture("thread-5001-p2-gbk.html");
    assert!(
        std::str::from_utf8(&raw).is_err(),
        "the fixture really is GBK"
    );
    let p = page("thread-5001-p2-gbk.html");
    assert_eq!((p.tid, p.page, p.total_pages), (5001, 2, 3));
    assert_eq!(p.title, "【第三届】狼人杀 第一天 讨论帖");
    assert_eq!(p.viewer_uid, Some(0), "discuz_uid = '0': logged out");
    let now = at("2024-03-03 09:00:00");
    let want = [
        (Some(1011), 11, now),                       // 刚刚
        (Some(1012), 12, now - 42),                  // 42 秒前
        (Some(1013), 13, now - 180),                 // 3 分钟前
        (Some(1014), 14, now - 1800),                // 半小时前
        (Some(1015), 15, now - 5 * 3600),            // 5 小时前
        (Some(1017), 17, at("2024-03-01 21:15")),    // 前天 21:15
        (Some(1018), 18, at("2024-02-27 09:00:00")), // 5 天前: fetch time of day
        (Some(1019), 19, at("2024-03-02 21:15:07")), // span title wins over 昨天
        (Some(1020), 20, at("2024-03-02 22:00:01")), // Y-m-d with seconds
    ];
    for (pid, floor, time) in want {
        let x = p.posts.iter().find(|x| x.pid == pid).unwrap();
        assert_eq!((x.floor, x.time), (Some(floor), time), "pid {pid:?}");
    }
    assert_eq!(p.posts.len(), 10);
}

#[test]
fn gbk_page2_placeholder_bodies_and_styles() {
    let p = page("thread-5001-p2-gbk.html");
    let del = &p.posts[5];
    assert!(del.deleted, "rush-thread placeholder");
    assert_eq!(
        (del.pid, del.floor),
        (None, Some(16)),
        "synthetic pid ignored, floor kept"
    );
    assert_eq!(
        post(&p, 1015).text,
        "过",
        "the real post sharing the synthetic pid is intact"
    );
    let a = post(&p, 1011);
    assert_eq!(
        a.text, "投 𠮷先生\n理由：直觉",
        "numeric reference decoded, jammer dropped"
    );
    assert_eq!((a.author.as_str(), a.uid), ("钱一", Some(111)));
    let b = post(&p, 1012);
    let e = b.edit.as_ref().unwrap();
    assert_eq!(
        (e.editor.as_str(), e.time),
        ("孔二", Some(at("2024-03-03 08:59")))
    );
    assert_eq!(
        (b.text.as_str(), b.red.as_str(), b.large.as_str()),
        ("投 3号", "投 3号", "投 3号")
    );
    let c = post(&p, 1013);
    assert_eq!(
        (c.text.as_str(), c.locked),
        ("公开部分", Some(LockKind::Hidden))
    );
    let d = post(&p, 1014);
    assert_eq!(
        (d.text.as_str(), d.red.as_str(), d.large.as_str()),
        ("橙色赭色普通", "", "")
    );
    let q = post(&p, 1019);
    assert_eq!(
        q.quote,
        Some(QuoteRef {
            pid: Some(1012),
            author: Some("孔二".into()),
            time: Some(at("2024-03-03 08:59")),
            floor: None
        })
    );
    assert_eq!(
        (q.text.as_str(), q.large.as_str(), q.red.as_str()),
        ("反对", "反对", "")
    );
}

#[test]
fn gbk_page_with_explicit_charset_and_wrong_guess() {
    let raw = fixture("thread-5001-p2-gbk.html");
    let mut c = ctx("p2");
    c.charset = Charset::Gbk;
    assert_eq!(
        discuz::parse_page(&raw, &c).unwrap().posts[0].author,
        "钱一"
    );
    assert!(discuz::decode(&raw, Charset::Auto, Some("text/html; charset=GBK")).contains("钱一"));
}

// ---------------------------------------------------------------- custom floor names, X3.5

#[test]
fn custom_floor_names_single_page_x35() {
    let p = page("custom-floors-x35.html");
    assert_eq!(
        (p.tid, p.page, p.total_pages),
        (6001, 1, 1),
        "no pager: page 1 of 1"
    );
    assert_eq!(p.viewer_uid, Some(9));
    let got: Vec<(u64, Option<u32>, &str, bool)> = p
        .posts
        .iter()
        .map(|x| (x.pid.unwrap(), x.floor, x.floor_label.as_str(), x.duplicate))
        .collect();
    assert_eq!(
        got,
        vec![
            (2001, Some(1), "楼主", false),
            (2005, Some(4), "顶 来自 4楼", false), // one-page thread: the only copy
            (2002, Some(2), "沙发", false),
            (2003, Some(3), "板凳", false),
            (2006, Some(5), "5楼", false),
            (2007, Some(6), "6楼", false),
            (2008, Some(7), "幸运七", false), // unknown name: follows floor 6
        ]
    );
    assert_eq!(
        post(&p, 2001).time,
        at("2024-05-03 21:15"),
        "no seconds when 人性化时间 is off"
    );
    assert_eq!(post(&p, 2003).text, "投 4", "&nbsp; runs become spaces");
    assert_eq!(post(&p, 2006).large, "投 5", "font size +2 = 5");
    assert_eq!(
        (post(&p, 2005).author.as_str(), post(&p, 2005).uid),
        ("置顶君", Some(905))
    );
}

#[test]
fn custom_floor_name_list_from_the_site() {
    let names: Vec<String> = ["楼", "楼主", "沙发", "板凳", "地板", "", "", "幸运七"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut raw = fixture("custom-floors-x35.html");
    // Drop floor 6 so that only the list can place 幸运七.
    let s = String::from_utf8(raw.clone()).unwrap();
    let start = s.find("<div id=\"post_2007\"").unwrap();
    let end = s.find("<div id=\"post_2008\"").unwrap();
    raw = format!("{}{}", &s[..start], &s[end..]).into_bytes();
    let p = discuz::parse_html_with_floor_names(&raw, &ctx("cf"), &names).unwrap();
    assert_eq!(post(&p, 2008).floor, Some(7));
    let p = discuz::parse_html(&raw, &ctx("cf")).unwrap();
    assert_eq!(
        post(&p, 2008).floor,
        Some(6),
        "without the list: derived from the previous floor"
    );
}

// ---------------------------------------------------------------- author-filtered

#[test]
fn author_filtered_page_never_yields_floors() {
    let p = page("author-filtered.html");
    assert!(
        p.author_filtered,
        "detected from the page (显示全部楼层), not the file name"
    );
    assert_eq!(p.posts.len(), 3);
    for (x, label) in p.posts.iter().zip(["1#", "2#", "3#"]) {
        assert_eq!(x.floor, None, "renumbered positions are not floors");
        assert_eq!(x.floor_label, label);
        assert_eq!((x.author.as_str(), x.uid), ("李四", Some(101)));
    }
    assert_eq!(post(&p, 1025).text, "改票：8号");
    assert_eq!(post(&p, 1002).time, at("2024-03-02 08:32:16"));
    // A page whose URL says authorid= is author-filtered even with no other sign.
    let p = discuz::parse_page(
        &fixture("custom-floors-x35.html"),
        &ctx("https://x/forum.php?mod=viewthread&tid=6001&authorid=901"),
    )
    .unwrap();
    assert!(p.author_filtered && p.posts.iter().all(|x| x.floor.is_none()));
}

// ---------------------------------------------------------------- mobile API v4 (hand-written)

#[test]
fn api_v4_bom_positions_locks_quotes_and_lenient_types() {
    let mut c = ctx(
        "https://bbs.example.com/api/mobile/index.php?version=4&module=viewthread&tid=7001&page=2&ppp=3",
    );
    c.page = Some(2);
    let p = discuz::parse_page(&fixture("api-7001-v4-bom.json"), &c).unwrap();
    assert_eq!(
        (p.tid, p.page, p.total_pages),
        (7001, 2, 3),
        "ceil(maxposition 8 / ppp 3)"
    );
    assert_eq!(p.title, "第二天 投票帖 & 进程");
    assert_eq!(
        p.viewer_uid,
        Some(0),
        "member_uid 0: guest, the login is gone"
    );
    let a = post(&p, 3004);
    assert_eq!(
        (a.floor, a.floor_label.as_str(), a.time),
        (Some(4), "4#", 1714741200)
    );
    assert_eq!(
        a.quote,
        Some(QuoteRef {
            pid: Some(3002),
            author: Some("乙".into()),
            time: Some(at("2024-05-03 20:30")),
            floor: None
        })
    );
    assert_eq!(
        (a.text.as_str(), a.red.as_str(), a.large.as_str()),
        ("投 9号", "投 9号", "")
    );
    let b = post(&p, 3005);
    assert_eq!(b.floor, Some(6), "position wins over the sequential number");
    assert_eq!(b.floor_label, "5#");
    assert_eq!(
        b.time,
        at("2024-03-03 09:00:00") - 180,
        "no dbdateline: relative dateline"
    );
    assert_eq!(
        (b.locked, b.text.as_str()),
        (Some(LockKind::BannedAuthor), "")
    );
    let d = post(&p, 3006);
    assert_eq!(
        (d.author.as_str(), d.uid, d.locked),
        ("匿名", None, Some(LockKind::AuthorOnly))
    );
    let e = post(&p, 3007);
    assert_eq!(e.text, "投 8");
    let ed = e.edit.as_ref().unwrap();
    assert_eq!(
        (ed.editor.as_str(), ed.time),
        ("丁", Some(at("2024-05-03 22:00")))
    );
}

#[test]
fn api_and_html_views_of_one_thread_agree() {
    let html = page("custom-floors-x35.html");
    let api = page("api-6001-v4.json");
    assert_eq!(
        (api.tid, api.title.as_str()),
        (html.tid, html.title.as_str())
    );
    let normal: Vec<&PagePost> = html.posts.iter().filter(|p| !p.duplicate).collect();
    assert_eq!(api.posts.len(), normal.len());
    for h in normal {
        let a = post(&api, h.pid.unwrap());
        assert_eq!(
            (a.floor, &a.author, a.uid, a.time),
            (h.floor, &h.author, h.uid, h.time),
            "pid {:?}",
            h.pid
        );
        // Labels are diagnostics and differ by design (顶 来自 4楼 vs 地板).
        // The API deletes runs of two or more &nbsp; (MARKUP §10.5): compare without spaces.
        let strip = |s: &str| s.split_whitespace().collect::<String>();
        assert_eq!(strip(&a.text), strip(&h.text), "pid {:?}", h.pid);
        assert_eq!(a.red, h.red);
    }
}

// ---------------------------------------------------------------- property tests

mod props {
    use super::*;
    use proptest::prelude::*;

    fn seeds() -> Vec<Vec<u8>> {
        [
            "thread-5001-p1.html",
            "thread-5001-p2-gbk.html",
            "custom-floors-x35.html",
            "api-7001-v4-bom.json",
            "captured/s1-viewthread-1.json",
            "msg-login-required.html",
        ]
        .iter()
        .map(|n| fixture(n))
        .collect()
    }

    fn check(bytes: &[u8]) {
        let c = ctx("prop://input");
        match discuz::parse_page(bytes, &c) {
            Ok(p) => {
                for x in &p.posts {
                    assert!(x.pid.is_some() || x.deleted, "only placeholders lack a pid");
                }
            }
            Err(e) => assert!(
                e.to_string().contains("prop://input"),
                "error must name the source: {e}"
            ),
        }
        let _ = discuz::parse_forumdisplay(bytes, &c);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            check(&bytes);
        }

        #[test]
        fn truncated_fixtures_never_panic(which in 0usize..6, frac in 0.0f64..1.0) {
            let s = &seeds()[which];
            let cut = (s.len() as f64 * frac) as usize;
            check(&s[..cut]);
        }

        #[test]
        fn mutated_fixtures_never_panic(
            which in 0usize..6,
            edits in proptest::collection::vec((0.0f64..1.0, any::<u8>(), 0usize..40), 1..8),
        ) {
            let mut s = seeds()[which].clone();
            for (pos, byte, del) in edits {
                if s.is_empty() { break; }
                let at = ((s.len() - 1) as f64 * pos) as usize;
                if del > 30 {
                    let end = (at + del).min(s.len());
                    s.drain(at..end);
                } else {
                    s[at] = byte;
                }
            }
            check(&s);
        }
    }
}

// ---------------------------------------------------------------- the project's test forum

mod on_testforum {
    use super::*;
    use bansha_testforum::TestForum;
    use bansha_testforum::spec::{ForumSpec, SiteCharset, Version};
    use std::io::{Read, Write};
    use std::net::TcpStream;

    fn get(f: &TestForum, target: &str, cookies: &str) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(f.addr()).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        let head = format!(
            "GET {target} HTTP/1.1\r\nHost: {}\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0\r\nCookie: {cookies}\r\nConnection: close\r\n\r\n",
            f.addr()
        );
        s.write_all(head.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("header end");
        let status = String::from_utf8_lossy(&raw[..split])
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap();
        (status, raw[split + 4..].to_vec())
    }

    /// Every page of every demo thread, on UTF-8/GBK × X3.4/X3.5 × human/absolute
    /// times × jammer: the PC view parses, and agrees with the API view post by post.
    #[test]
    fn demo_forum_html_and_api_views_parse_and_agree() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/demo-forum.toml");
        let base = ForumSpec::load(&path).unwrap();
        let variants = [
            (SiteCharset::Utf8, Version::X34, true, false),
            (SiteCharset::Gbk, Version::X35, false, true),
        ];
        for (charset, version, human, jammer) in variants {
            let mut spec = base.clone();
            spec.site.charset = charset;
            spec.site.version = version;
            spec.site.human_time = human;
            spec.site.jammer = jammer;
            let label = format!("{charset:?}/{version:?}/human={human}/jammer={jammer}");
            let f = TestForum::start(spec.clone()).unwrap();
            let (salt, auth) = f.login_session(1);
            let pre = f.cookie_prefix();
            let cookies = format!("{pre}saltkey={salt}; {pre}auth={auth}");
            let ppp = spec.site.ppp;
            let mut compared = 0;
            for t in &spec.threads {
                let mut page = 1;
                let mut total = 1;
                while page <= total {
                    let url = format!(
                        "/forum.php?mod=viewthread&tid={}&page={page}&mobile=no&ordertype=2",
                        t.tid
                    );
                    let (status, body) = get(&f, &url, &cookies);
                    assert_eq!(status, 200, "{label} {url}");
                    let mut c = ctx(&url);
                    c.fetched_at = f.now();
                    let h =
                        discuz::parse_page(&body, &c).unwrap_or_else(|e| panic!("{label}: {e}"));
                    assert_eq!((h.tid, h.page), (t.tid, page), "{label} {url}");
                    assert_eq!(h.viewer_uid, Some(1), "{label}: logged in");
                    total = h.total_pages;
                    let api_url = format!(
                        "/api/mobile/index.php?version=4&module=viewthread&tid={}&page={page}&ppp={ppp}&ordertype=2",
                        t.tid
                    );
                    let (status, body) = get(&f, &api_url, &cookies);
                    assert_eq!(status, 200, "{label} {api_url}");
                    let mut c = ctx(&api_url);
                    c.page = Some(page);
                    c.fetched_at = f.now();
                    let a =
                        discuz::parse_page(&body, &c).unwrap_or_else(|e| panic!("{label}: {e}"));
                    assert_eq!(
                        (a.tid, a.title.as_str()),
                        (h.tid, h.title.as_str()),
                        "{label}"
                    );
                    for hp in h.posts.iter().filter(|p| !p.duplicate && !p.deleted) {
                        let pid = hp.pid.unwrap();
                        let ap = a
                            .posts
                            .iter()
                            .find(|p| p.pid == Some(pid))
                            .unwrap_or_else(|| panic!("{label}: pid {pid} not in API page {page}"));
                        let ctx_s = format!("{label} tid {} pid {pid}", t.tid);
                        assert_eq!((&ap.author, ap.uid), (&hp.author, hp.uid), "{ctx_s}");
                        if human {
                            assert_eq!(ap.time, hp.time, "{ctx_s}");
                        } else {
                            assert_eq!(
                                ap.time / 60,
                                hp.time / 60,
                                "{ctx_s}: minutes (no seconds shown)"
                            );
                        }
                        assert_eq!(ap.floor, hp.floor, "{ctx_s}");
                        let strip = |s: &str| s.split_whitespace().collect::<String>();
                        assert_eq!(strip(&ap.text), strip(&hp.text), "{ctx_s}");
                        assert_eq!(ap.red, hp.red, "{ctx_s}");
                        assert_eq!(ap.locked, hp.locked, "{ctx_s}");
                        assert_eq!(
                            ap.quote.as_ref().map(|q| q.pid),
                            hp.quote.as_ref().map(|q| q.pid),
                            "{ctx_s}"
                        );
                        compared += 1;
                    }
                    page += 1;
                }
            }
            let in_spec: usize = spec.threads.iter().map(|t| t.posts.len()).sum();
            assert_eq!(
                compared, in_spec,
                "{label}: every post of the demo forum compared"
            );
        }
    }
}

#[test]
fn ajax_envelopes_are_classified_too() {
    let e = err("ajax-not-loggedin-gbk.xml");
    assert!(e.is_login_problem(), "{e:?}");
    assert!(
        e.to_string().contains("抱歉，您尚未登录，无法进行此操作"),
        "GBK CDATA decoded: {e}"
    );
    let e = err("ajax-cc.xml");
    assert!(
        matches!(e, PageError::CcDefence { .. }) && e.is_retryable(),
        "{e:?}"
    );
}

#[test]
fn pinned_reply_from_a_later_page_stays_a_duplicate() {
    let s = String::from_utf8(fixture("thread-5001-p1.html")).unwrap();
    assert!(s.contains(" 来自 5#"));
    let moved = s.replace(" 来自 5#", " 来自 25#");
    let p = discuz::parse_page(moved.as_bytes(), &ctx("moved.html")).unwrap();
    let pinned = post(&p, 1005);
    assert_eq!(
        (pinned.floor, pinned.duplicate),
        (Some(25), true),
        "shown again on page 3"
    );
    let hot = post(&p, 1003);
    assert_eq!(
        (hot.floor, hot.duplicate),
        (None, true),
        "two gaps (3, 5): the hot reply's floor is unknown"
    );
}
