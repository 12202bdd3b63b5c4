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
    assert!(pinned.duplicate);
    assert_eq!(pinned.floor, Some(5), "来自 5# gives the real floor");
    assert_eq!(pinned.floor_label, "来自 5#");
    assert_eq!((pinned.author.as_str(), pinned.uid), ("王五", Some(105)));
    let hot = post(&p, 1003);
    assert!(hot.duplicate);
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
    // Cut inside the post list, after the closing </html> is lost, and just before it.
    for cut in [full.len() / 2, full.len() - 20, 3000] {
        let e = discuz::parse_page(&full[..cut], &ctx("cut.html")).unwrap_err();
        assert!(
            matches!(e, PageError::Truncated { .. }) && e.is_retryable(),
            "cut {cut}: {e:?}"
        );
        assert!(e.to_string().contains("cut.html"));
    }
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
