//! Integration tests: pages in the shapes real forums and browsers produce (issue 11).
//!
//! The fixtures in `tests/fixtures/discuz/` named below were written by hand after real
//! Discuz! X3.2–X3.4 templates (stock `viewthread_node.htm` and customised ones: renamed
//! labels, hidden label elements, extra wrappers, `p#authorposton`), browser saves (DOM
//! dumps without `<html>`, "web page, complete" with rewritten links, UTF-8 saves that
//! keep `charset=gbk`) and API error envelopes with HTML messages. Every expected value
//! below was read off the fixture by hand, not copied from parser output.

use std::path::PathBuf;

use bansha::config::Charset;
use bansha::discuz::{self, PageError, ParseContext, Parsed};
use bansha::model::{PagePost, ThreadPage};
use bansha::time::parse_local;

const SH: chrono_tz::Tz = chrono_tz::Asia::Shanghai;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/discuz")
        .join(name);
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
        fetched_at: at("2022-02-13 12:00:00"),
        tz: SH,
        charset: Charset::Auto,
    }
}

fn parsed(name: &str) -> Parsed {
    discuz::parse_page_with_warnings(&fixture(name), &ctx(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// One expected post: pid, author, uid, floor, time ("" = unknown), text.
type Want<'a> = (u64, &'a str, Option<u64>, Option<u32>, &'a str, &'a str);

fn check_posts(name: &str, page: &ThreadPage, want: &[Want]) {
    let got: Vec<&PagePost> = page
        .posts
        .iter()
        .filter(|p| !p.duplicate && !p.deleted)
        .collect();
    assert_eq!(
        got.iter().map(|p| p.pid.unwrap()).collect::<Vec<_>>(),
        want.iter().map(|w| w.0).collect::<Vec<_>>(),
        "{name}: pids in page order"
    );
    for (p, w) in got.iter().zip(want) {
        let what = format!("{name} pid {}", w.0);
        assert_eq!(p.author, w.1, "{what}: author");
        assert_eq!(p.uid, w.2, "{what}: uid");
        assert_eq!(p.floor, w.3, "{what}: floor");
        let time = if w.4.is_empty() {
            discuz::UNKNOWN_TIME
        } else {
            at(w.4)
        };
        assert_eq!(p.time, time, "{what}: time");
        assert_eq!(p.text, w.5, "{what}: text");
    }
}

// ---------------------------------------------------------------- customised template

#[test]
fn customised_template_with_renamed_labels_hidden_elements_and_wrappers() {
    let name = "custom-template-x34.html";
    let Parsed { page, warnings } = parsed(name);
    assert_eq!((page.tid, page.page, page.total_pages), (7101, 1, 2));
    assert_eq!(page.title, "[088]月下杀人夜 第一天讨论帖");
    assert_eq!(page.viewer_uid, Some(3));
    check_posts(
        name,
        &page,
        &[
            (
                880101,
                "admin",
                Some(1),
                Some(1),
                "2022-02-12 23:58:16",
                "第一天讨论开始，23:00 关门。\n请勿贴脸。",
            ),
            (
                880105,
                "夜莺",
                Some(37),
                Some(2),
                "2022-02-13 00:03:41",
                "沙发。我是好人。",
            ),
            (
                880107,
                "青梅煮酒",
                Some(52),
                Some(3),
                "2022-02-13 00:10:05",
                "好人不会这么急着说自己是好人。",
            ),
            (
                880112,
                "路人丁",
                Some(64),
                Some(4),
                "",
                "投票对象：夜莺\n投票理由：抢沙发",
            ),
            (
                880113,
                "夜莺",
                Some(37),
                Some(5),
                "2022-02-13 01:20",
                "改票\n投票对象：路人丁",
            ),
        ],
    );
    assert_eq!(page.posts[0].red, "23:00 关门");
    assert_eq!(
        page.posts[2].quote.as_ref().and_then(|q| q.pid),
        Some(880105)
    );
    let edit = page.posts[4].edit.as_ref().expect("edit notice");
    assert_eq!(
        (edit.editor.as_str(), edit.time),
        ("夜莺", Some(at("2022-02-13 01:25")))
    );
    // The one unreadable time costs that field, with a warning naming the floor.
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].to_string();
    assert!(
        w.contains("地板#") && w.contains("880112") && w.contains("很久以前"),
        "{w}"
    );
}
