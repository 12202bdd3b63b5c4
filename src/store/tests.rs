//! Store tests: pages built by hand, each semantic of issue 2 "Store" checked on what the
//! store hands back.

use super::*;
use crate::model::{EditNotice, LockKind, PagePost, QuoteRef, ThreadPage};

const F: &str = "bbs.example.com";
const T0: Timestamp = 1_772_600_000;

fn pp(pid: u64, floor: u32, author: &str, text: &str) -> PagePost {
    PagePost {
        pid: Some(pid),
        floor: Some(floor),
        floor_label: format!("{floor}#"),
        author: author.into(),
        uid: Some(1000 + pid),
        time: T0 + pid as i64 * 60,
        edit: None,
        quote: None,
        html: format!("<div>{text}<font class=\"jammer\">{pid}x</font></div>"),
        text: text.into(),
        red: String::new(),
        large: String::new(),
        locked: None,
        deleted: false,
        duplicate: false,
    }
}

fn page(tid: u64, page: u32, total: u32, posts: Vec<PagePost>) -> ThreadPage {
    ThreadPage {
        tid,
        title: "[075]第二日投票帖".into(),
        page,
        total_pages: total,
        posts,
        author_filtered: false,
        viewer_uid: Some(0),
    }
}

fn info(page: u32, at: Timestamp) -> FetchInfo {
    FetchInfo {
        source: format!("http://bbs.example.com/forum.php?mod=viewthread&tid=7&page={page}"),
        kind: SourceKind::Html,
        page,
        fetched_at: at,
    }
}

/// A thread of `n` posts, pids 100.., floors 1.., `ppp` per page: page `p` (1-based).
fn thread_page(n: u32, ppp: u32, p: u32, skip: &[u64]) -> ThreadPage {
    let all: Vec<PagePost> = (1..=n)
        .map(|f| 100 + f as u64)
        .filter(|pid| !skip.contains(pid))
        .enumerate()
        .map(|(i, pid)| {
            pp(
                pid,
                i as u32 + 1,
                &format!("玩家{}", pid % 7),
                &format!("帖子{pid}"),
            )
        })
        .collect();
    let total = (all.len() as u32).div_ceil(ppp);
    let posts = all
        .into_iter()
        .skip(((p - 1) * ppp) as usize)
        .take(ppp as usize)
        .collect();
    page(7, p, total, posts)
}

fn texts(s: &Store, tid: u64) -> Vec<(Option<u32>, u64, String)> {
    s.posts(F, tid)
        .unwrap()
        .into_iter()
        .map(|p| (p.floor, p.pid, p.current().text.clone()))
        .collect()
}

#[test]
fn stores_posts_and_thread_record() {
    let mut s = Store::open_in_memory().unwrap();
    let ch = s
        .store_page(F, &thread_page(15, 10, 2, &[]), &info(2, T0 + 5000))
        .unwrap();
    assert_eq!(ch.new_posts, (111..=115).collect::<Vec<_>>());
    assert!(ch.changed.is_empty() && ch.missing.is_empty());
    let ch = s
        .store_page(F, &thread_page(15, 10, 1, &[]), &info(1, T0 + 5001))
        .unwrap();
    assert_eq!(ch.new_posts.len(), 10);
    let posts = s.posts(F, 7).unwrap();
    assert_eq!(
        posts.iter().map(|p| p.floor.unwrap()).collect::<Vec<_>>(),
        (1..=15).collect::<Vec<_>>()
    );
    let p = &posts[4];
    assert_eq!(
        (p.pid, p.author.as_str(), p.uid),
        (105, "玩家0", Some(1105))
    );
    assert_eq!(p.time, T0 + 105 * 60);
    assert_eq!(p.revisions.len(), 1);
    assert_eq!(p.first().seen_at, T0 + 5001);
    assert!(!p.edited() && !p.missing());
    let t = s.thread(F, 7).unwrap().unwrap();
    assert_eq!(
        t,
        ThreadRecord {
            tid: 7,
            title: "[075]第二日投票帖".into(),
            total_pages: 2,
            last_page_seen: 2,
            last_pid: Some(115),
            posts: 15,
            last_fetched_at: Some(T0 + 5001),
        }
    );
    assert_eq!(s.thread(F, 8).unwrap(), None);
    assert_eq!(s.thread("other.example.com", 7).unwrap(), None);
    assert!(s.posts("other.example.com", 7).unwrap().is_empty());
    assert_eq!(s.tids(F).unwrap(), vec![7]);
}

#[test]
fn storing_the_same_page_twice_changes_nothing_but_the_fetch_log() {
    let mut s = Store::open_in_memory().unwrap();
    let pg = thread_page(8, 10, 1, &[]);
    s.store_page(F, &pg, &info(1, T0)).unwrap();
    let before = s.posts(F, 7).unwrap();
    let mut again = pg.clone();
    // A fresh render: new jammer noise in the HTML, different whitespace in the text.
    for p in &mut again.posts {
        p.html = p.html.replace("x</font>", "qz</font>");
        p.text = format!("  {}\n", p.text);
    }
    let ch = s.store_page(F, &again, &info(1, T0 + 60)).unwrap();
    assert!(ch.is_empty(), "{ch:?}");
    let ch = s.store_page(F, &pg, &info(1, T0 + 120)).unwrap();
    assert!(ch.is_empty(), "{ch:?}");
    assert_eq!(s.posts(F, 7).unwrap(), before);
    assert!(s.floor_changes(F, 7).unwrap().is_empty());
    assert!(s.presence_log(F, 7).unwrap().is_empty());
    let log = s.fetch_log(F, 7).unwrap();
    assert_eq!(log.len(), 3);
    assert!(log.iter().all(|e| e.outcome == "ok" && e.posts_seen == 8));
    assert_eq!(
        (log[0].new_posts, log[1].new_posts, log[2].new_posts),
        (8, 0, 0)
    );
}

#[test]
fn an_edit_adds_a_revision_and_keeps_the_first_seen_text() {
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(3, 10, 1, &[]);
    pg.posts[1].text = "投 傻树".into();
    s.store_page(F, &pg, &info(1, T0)).unwrap();
    pg.posts[1].text = "投 白色防御者".into();
    pg.posts[1].edit = Some(EditNotice {
        editor: "玩家4".into(),
        time: Some(T0 + 30),
    });
    let ch = s.store_page(F, &pg, &info(1, T0 + 100)).unwrap();
    assert_eq!(ch.changed, vec![102]);
    assert!(ch.new_posts.is_empty());
    // Reverting to the first text is another change, not a return to revision 0.
    pg.posts[1].text = "投 傻树".into();
    pg.posts[1].edit = Some(EditNotice {
        editor: "玩家4".into(),
        time: Some(T0 + 150),
    });
    let ch = s.store_page(F, &pg, &info(1, T0 + 200)).unwrap();
    assert_eq!(ch.changed, vec![102]);
    let p = s.post(F, 7, 102).unwrap().unwrap();
    assert!(p.edited());
    let r: Vec<(&str, Timestamp, Option<Timestamp>)> = p
        .revisions
        .iter()
        .map(|r| {
            (
                r.text.as_str(),
                r.seen_at,
                r.edit.as_ref().and_then(|e| e.time),
            )
        })
        .collect();
    assert_eq!(
        r,
        vec![
            ("投 傻树", T0, None),
            ("投 白色防御者", T0 + 100, Some(T0 + 30)),
            ("投 傻树", T0 + 200, Some(T0 + 150)),
        ]
    );
    assert_eq!(p.first().text, "投 傻树");
    assert_ne!(p.revisions[0].hash, p.revisions[1].hash);
    assert_ne!(
        p.revisions[0].hash, p.revisions[2].hash,
        "edit notice is hashed"
    );
}

#[test]
fn red_text_change_is_a_revision_but_html_noise_is_not() {
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(2, 10, 1, &[]);
    s.store_page(F, &pg, &info(1, T0)).unwrap();
    pg.posts[0].html = "<div>completely different markup</div>".into();
    assert!(s.store_page(F, &pg, &info(1, T0 + 1)).unwrap().is_empty());
    pg.posts[0].red = "帖子101".into();
    assert_eq!(
        s.store_page(F, &pg, &info(1, T0 + 2)).unwrap().changed,
        vec![101]
    );
}

#[test]
fn renumbered_floors_keep_the_pid_record_changes_and_do_not_fake_missing_posts() {
    let mut s = Store::open_in_memory().unwrap();
    // 25 posts, 10 per page.
    for p in 1..=3 {
        s.store_page(F, &thread_page(25, 10, p, &[]), &info(p, T0))
            .unwrap();
    }
    // Floor 3 (pid 103) is deleted; X3.4 renumbers: pid 111 moves from page 2 to page 1.
    // Page 2 is fetched first: it starts at pid 112 now. pid 111 is below its span.
    let p2 = thread_page(25, 10, 2, &[103]);
    assert_eq!(p2.posts[0].pid, Some(112));
    let ch = s.store_page(F, &p2, &info(2, T0 + 100)).unwrap();
    assert!(ch.missing.is_empty(), "{ch:?}");
    assert_eq!(ch.refloored.len(), 10);
    assert_eq!(ch.refloored[0], (112, Some(12), Some(11)));
    // Page 1: pid 103 is inside its span and gone; pid 111 is now floor 10.
    let ch = s
        .store_page(F, &thread_page(25, 10, 1, &[103]), &info(1, T0 + 200))
        .unwrap();
    assert_eq!(ch.missing, vec![103]);
    assert!(ch.refloored.contains(&(111, Some(11), Some(10))));
    assert!(ch.refloored.contains(&(104, Some(4), Some(3))));
    assert!(!ch.refloored.iter().any(|r| r.0 == 101 || r.0 == 102));
    let p = s.post(F, 7, 111).unwrap().unwrap();
    assert_eq!(p.floor, Some(10));
    assert!(!p.missing());
    let gone = s.post(F, 7, 103).unwrap().unwrap();
    assert_eq!(gone.missing_since, Some(T0 + 200));
    assert_eq!(gone.floor, Some(3), "the last floor seen is kept");
    assert_eq!(gone.current().text, "帖子103", "never deleted");
    let changes = s.floor_changes(F, 7).unwrap();
    let h111: Vec<_> = changes.iter().filter(|c| c.pid == 111).collect();
    assert_eq!(h111.len(), 1);
    assert_eq!((h111[0].old_floor, h111[0].new_floor), (Some(11), Some(10)));
    assert_eq!(h111[0].seen_at, T0 + 200);
    // The thread still has 25 stored posts; 24 are present.
    let posts = s.posts(F, 7).unwrap();
    assert_eq!(posts.len(), 25);
    assert_eq!(posts.iter().filter(|p| !p.missing()).count(), 24);
}

#[test]
fn last_page_judges_missing_from_its_first_pid_on() {
    let mut s = Store::open_in_memory().unwrap();
    for p in 1..=2 {
        s.store_page(F, &thread_page(15, 10, p, &[]), &info(p, T0))
            .unwrap();
    }
    // The last post (pid 115) is deleted; page 2 now ends at 114.
    let ch = s
        .store_page(F, &thread_page(15, 10, 2, &[115]), &info(2, T0 + 50))
        .unwrap();
    assert_eq!(ch.missing, vec![115]);
    // A middle page (page 1 of 2) does not judge posts above its last pid.
    let mut s = Store::open_in_memory().unwrap();
    for p in 1..=2 {
        s.store_page(F, &thread_page(15, 10, p, &[]), &info(p, T0))
            .unwrap();
    }
    let mut p1 = thread_page(15, 10, 1, &[]);
    p1.posts.truncate(9); // pid 110 moved to page 2 (someone's view with a different ppp)
    let ch = s.store_page(F, &p1, &info(1, T0 + 50)).unwrap();
    assert!(ch.missing.is_empty(), "{ch:?}");
}

#[test]
fn author_filtered_pages_store_no_floors_and_judge_no_missing() {
    let mut s = Store::open_in_memory().unwrap();
    s.store_page(F, &thread_page(10, 10, 1, &[]), &info(1, T0))
        .unwrap();
    // Only 玩家4's posts (pids 102 and 109), renumbered 1, 2 by the forum.
    let mut pg = page(
        7,
        1,
        1,
        vec![
            pp(102, 1, "玩家4", "帖子102"),
            pp(109, 2, "玩家4", "帖子109"),
            pp(116, 3, "玩家4", "新帖116"),
        ],
    );
    pg.author_filtered = true;
    for p in &mut pg.posts {
        p.floor = None;
    }
    // Even if a parser let a number through, an author-filtered page has no floors.
    pg.posts[2].floor = Some(3);
    let ch = s.store_page(F, &pg, &info(1, T0 + 10)).unwrap();
    assert_eq!(ch.new_posts, vec![116]);
    assert!(ch.missing.is_empty() && ch.refloored.is_empty(), "{ch:?}");
    let posts = s.posts(F, 7).unwrap();
    assert_eq!(posts.len(), 11);
    assert!(posts.iter().all(|p| !p.missing()));
    assert_eq!(s.post(F, 7, 102).unwrap().unwrap().floor, Some(2));
    let last = posts.last().unwrap();
    assert_eq!(
        (last.pid, last.floor),
        (116, None),
        "unknown floor sorts last"
    );
    let t = s.thread(F, 7).unwrap().unwrap();
    assert_eq!((t.total_pages, t.last_page_seen), (1, 1));
    // Seen later on a real page, it gets its floor (recorded as a change from unknown).
    let ch = s
        .store_page(F, &thread_page(16, 20, 1, &[]), &info(1, T0 + 20))
        .unwrap();
    assert!(ch.refloored.contains(&(116, None, Some(16))));
}

#[test]
fn deleted_floor_placeholder_marks_that_floor_deleted_and_is_not_stored() {
    let mut s = Store::open_in_memory().unwrap();
    s.store_page(F, &thread_page(5, 10, 1, &[]), &info(1, T0))
        .unwrap();
    let mut pg = thread_page(5, 10, 1, &[]);
    // X3.5 keeps the floor and shows `无效楼层，该帖已经被删除` with a synthetic pid.
    pg.posts[3] = PagePost {
        pid: Some(9_999_999),
        author: String::new(),
        uid: None,
        html: "无效楼层，该帖已经被删除".into(),
        text: "无效楼层，该帖已经被删除".into(),
        deleted: true,
        ..pg.posts[3].clone()
    };
    let ch = s.store_page(F, &pg, &info(1, T0 + 30)).unwrap();
    assert_eq!(ch.missing, vec![104]);
    assert!(ch.new_posts.is_empty() && ch.changed.is_empty());
    let posts = s.posts(F, 7).unwrap();
    assert_eq!(posts.len(), 5);
    assert!(posts.iter().all(|p| p.pid != 9_999_999));
    let p = s.post(F, 7, 104).unwrap().unwrap();
    assert_eq!(p.missing_since, Some(T0 + 30));
    assert_eq!(p.current().text, "帖子104");
    let ev = s.presence_log(F, 7).unwrap();
    assert_eq!(ev.len(), 1);
    assert_eq!((ev[0].pid, ev[0].event.as_str()), (104, "deleted"));
    // A placeholder with no pid at all, at the last floor.
    let mut pg2 = pg.clone();
    pg2.posts[4].pid = None;
    pg2.posts[4].deleted = true;
    let ch = s.store_page(F, &pg2, &info(1, T0 + 40)).unwrap();
    assert_eq!(ch.missing, vec![105]);
}

#[test]
fn duplicates_are_ignored_for_floors_content_and_missing() {
    let mut s = Store::open_in_memory().unwrap();
    for p in 1..=3 {
        s.store_page(F, &thread_page(25, 10, p, &[]), &info(p, T0))
            .unwrap();
    }
    // Page 1 with a 推荐 copy of pid 124 (page 3) on top: no floor, shortened text.
    let mut p1 = thread_page(25, 10, 1, &[]);
    let mut dup = pp(124, 1, "玩家5", "帖子1…");
    dup.floor = None;
    dup.duplicate = true;
    p1.posts.insert(0, dup);
    let ch = s.store_page(F, &p1, &info(1, T0 + 10)).unwrap();
    assert!(ch.is_empty(), "{ch:?}");
    let p = s.post(F, 7, 124).unwrap().unwrap();
    assert_eq!((p.floor, p.revisions.len()), (Some(24), 1));
    assert_eq!(s.fetch_log(F, 7).unwrap().last().unwrap().posts_seen, 10);
}

#[test]
fn a_missing_post_that_comes_back_is_unmarked_and_logged() {
    let mut s = Store::open_in_memory().unwrap();
    s.store_page(F, &thread_page(5, 10, 1, &[]), &info(1, T0))
        .unwrap();
    let ch = s
        .store_page(F, &thread_page(5, 10, 1, &[103]), &info(1, T0 + 10))
        .unwrap();
    assert_eq!(ch.missing, vec![103]);
    // Still gone: not re-marked, the first noticed time stays.
    let ch = s
        .store_page(F, &thread_page(5, 10, 1, &[103]), &info(1, T0 + 20))
        .unwrap();
    assert!(ch.missing.is_empty(), "{ch:?}");
    assert_eq!(
        s.post(F, 7, 103).unwrap().unwrap().missing_since,
        Some(T0 + 10)
    );
    // Restored by a moderator.
    let ch = s
        .store_page(F, &thread_page(5, 10, 1, &[]), &info(1, T0 + 30))
        .unwrap();
    assert_eq!(ch.reappeared, vec![103]);
    assert!(!s.post(F, 7, 103).unwrap().unwrap().missing());
    let ev: Vec<(u64, String, Timestamp)> = s
        .presence_log(F, 7)
        .unwrap()
        .into_iter()
        .map(|e| (e.pid, e.event, e.at))
        .collect();
    assert_eq!(
        ev,
        vec![
            (103, "missing".into(), T0 + 10),
            (103, "reappeared".into(), T0 + 30)
        ]
    );
}

#[test]
fn a_locked_body_never_empties_the_text() {
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(3, 10, 1, &[]);
    s.store_page(F, &pg, &info(1, T0)).unwrap();
    // The author gets banned: `提示: 作者被禁止或删除 内容自动屏蔽`.
    pg.posts[2].locked = Some(LockKind::BannedAuthor);
    pg.posts[2].text = String::new();
    pg.posts[2].html = "<div class=\"locked\">提示: 作者被禁止或删除 内容自动屏蔽</div>".into();
    let ch = s.store_page(F, &pg, &info(1, T0 + 10)).unwrap();
    assert!(ch.is_empty(), "{ch:?}");
    let p = s.post(F, 7, 103).unwrap().unwrap();
    assert_eq!(p.locked, Some(LockKind::BannedAuthor));
    assert_eq!(p.revisions.len(), 1);
    assert_eq!(p.current().text, "帖子103");
    // Unbanned with the same text: unlocked, still one revision.
    pg.posts[2] = thread_page(3, 10, 1, &[]).posts[2].clone();
    assert!(s.store_page(F, &pg, &info(1, T0 + 20)).unwrap().is_empty());
    let p = s.post(F, 7, 103).unwrap().unwrap();
    assert_eq!((p.locked, p.revisions.len()), (None, 1));
}

#[test]
fn a_post_first_seen_locked_gets_its_real_content_as_first_revision() {
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(2, 10, 1, &[]);
    pg.posts[1].locked = Some(LockKind::Pending);
    pg.posts[1].text = String::new();
    let ch = s.store_page(F, &pg, &info(1, T0)).unwrap();
    assert_eq!(ch.new_posts, vec![101, 102]);
    let p = s.post(F, 7, 102).unwrap().unwrap();
    assert_eq!(p.revisions.len(), 1, "a stored post always has content");
    assert_eq!(p.locked, Some(LockKind::Pending));
    // Approved: the readable text becomes the first (judged) revision.
    let pg = thread_page(2, 10, 1, &[]);
    let ch = s.store_page(F, &pg, &info(1, T0 + 60)).unwrap();
    assert_eq!(ch.changed, vec![102]);
    let p = s.post(F, 7, 102).unwrap().unwrap();
    assert_eq!(p.locked, None);
    assert_eq!(p.revisions.len(), 1);
    assert_eq!(p.first().text, "帖子102");
    assert_eq!(p.first().seen_at, T0 + 60);
    assert!(!p.edited());
}

#[test]
fn enlarged_text_from_html_fills_in_an_api_revision() {
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(1, 10, 1, &[]);
    let mut api = info(1, T0);
    api.kind = SourceKind::Api;
    s.store_page(F, &pg, &api).unwrap();
    pg.posts[0].large = "帖子101".into();
    assert!(s.store_page(F, &pg, &info(1, T0 + 5)).unwrap().is_empty());
    let p = s.post(F, 7, 101).unwrap().unwrap();
    assert_eq!(
        (p.revisions.len(), p.first().large.as_str()),
        (1, "帖子101")
    );
    // And the API view again does not erase it.
    pg.posts[0].large = String::new();
    assert!(s.store_page(F, &pg, &api).unwrap().is_empty());
    assert_eq!(s.post(F, 7, 101).unwrap().unwrap().first().large, "帖子101");
}

#[test]
fn a_failure_mid_page_stores_nothing_of_it() {
    let mut s = Store::open_in_memory().unwrap();
    s.store_page(F, &thread_page(3, 10, 1, &[]), &info(1, T0))
        .unwrap();
    // Make the database fail on the fourth post of the next page, after three were written.
    s.conn
        .execute_batch(
            "CREATE TRIGGER boom BEFORE INSERT ON posts WHEN NEW.pid = 106
             BEGIN SELECT RAISE(ABORT, 'disk gone'); END;",
        )
        .unwrap();
    let mut pg = thread_page(6, 10, 1, &[]);
    pg.posts[0].text = "改过的帖子101".into();
    let err = s.store_page(F, &pg, &info(1, T0 + 10)).unwrap_err();
    assert!(err.to_string().contains(":memory:"), "{err}");
    assert!(err.to_string().contains("disk gone"), "{err}");
    assert_eq!(
        texts(&s, 7),
        vec![
            (Some(1), 101, "帖子101".into()),
            (Some(2), 102, "帖子102".into()),
            (Some(3), 103, "帖子103".into()),
        ]
    );
    assert_eq!(s.fetch_log(F, 7).unwrap().len(), 1);
    s.conn.execute_batch("DROP TRIGGER boom").unwrap();
    let ch = s.store_page(F, &pg, &info(1, T0 + 20)).unwrap();
    assert_eq!((ch.new_posts.len(), ch.changed.clone()), (3, vec![101]));
}

#[test]
fn fetch_failures_are_logged_without_touching_posts() {
    let mut s = Store::open_in_memory().unwrap();
    s.store_page(F, &thread_page(3, 10, 1, &[]), &info(1, T0))
        .unwrap();
    let before = s.posts(F, 7).unwrap();
    s.log_fetch_failure(F, 7, &info(2, T0 + 5), "HTTP 503")
        .unwrap();
    assert_eq!(s.posts(F, 7).unwrap(), before);
    let log = s.fetch_log(F, 7).unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(
        (
            log[1].outcome.as_str(),
            log[1].page,
            log[1].fetched_at,
            log[1].kind,
            log[1].posts_seen
        ),
        ("HTTP 503", 2, T0 + 5, SourceKind::Html, 0)
    );
    assert!(log[1].source.ends_with("page=2"));
    assert!(log[0].id < log[1].id);
}

#[test]
fn quotes_without_pid_resolve_from_stored_posts() {
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(4, 10, 1, &[]);
    // 104 quotes 102 by author + minute-precision time; 103 quotes by findpost pid.
    let t102 = pg.posts[1].time;
    pg.posts[3].quote = Some(QuoteRef {
        pid: None,
        author: Some(pg.posts[1].author.clone()),
        time: Some(t102 - t102 % 60),
        floor: None,
    });
    pg.posts[2].quote = Some(QuoteRef {
        pid: Some(101),
        author: None,
        time: None,
        floor: None,
    });
    s.store_page(F, &pg, &info(1, T0)).unwrap();
    let posts = s.posts(F, 7).unwrap();
    assert_eq!(posts[3].quote.as_ref().unwrap().pid, Some(102));
    assert_eq!(posts[2].quote.as_ref().unwrap().pid, Some(101));
    assert_eq!(posts[0].quote, None);
}

#[test]
fn file_database_uses_wal_and_migrations_and_refuses_newer_schemas() {
    let dir = std::env::temp_dir().join(format!("bansha-store-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.sqlite");
    let _ = std::fs::remove_file(&path);
    {
        let mut s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), schema::current_version());
        let mode: String = s
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        s.store_page(F, &thread_page(3, 10, 1, &[]), &info(1, T0))
            .unwrap();
    }
    {
        // Reopening keeps the data and does not re-run migrations.
        let s = Store::open(&path).unwrap();
        assert_eq!(s.posts(F, 7).unwrap().len(), 3);
        s.conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let err = Store::open(&path).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{msg}");
    assert!(msg.contains("game.sqlite"), "{msg}");
    // An unopenable path names the file.
    let err = Store::open(&dir.join("no/such/dir/x.sqlite")).unwrap_err();
    assert!(err.to_string().contains("x.sqlite"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Posts of a kilobyte or more (HTML and text) are kept in the pages of `revisions`, not
/// each with a page of spill of its own: the file grows by less than twice what it holds.
/// (With SQLite's default 4 KiB pages, over three times.) A file that exists keeps its
/// page size.
#[test]
fn a_new_database_keeps_posts_of_a_kilobyte_or_more_within_its_pages() {
    let dir = std::env::temp_dir().join(format!("bansha-store-pages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.sqlite");
    let mut s = Store::open(&path).unwrap();
    let pages = |s: &Store| -> i64 {
        s.conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap()
    };
    let page_size: i64 = s
        .conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    let before = pages(&s);
    let mut held = 0;
    for p in 1..=10u32 {
        let posts: Vec<PagePost> = (0..10u64)
            .map(|k| {
                let pid = u64::from(p) * 10 + k;
                let mut post = pp(pid, (p - 1) * 10 + k as u32 + 1, "甲", &"投票 ".repeat(40));
                post.html = format!("<div>{}</div>", "<br>\n投票给 7 号".repeat(45));
                held += post.html.len() + post.text.len();
                post
            })
            .collect();
        s.store_page(F, &page(7, p, 10, posts), &info(p, T0))
            .unwrap();
    }
    let grown = (pages(&s) - before) * page_size;
    assert!(
        grown < held as i64 * 2,
        "{held} bytes of posts grew the file by {grown} bytes ({page_size}-byte pages)"
    );
    drop(s);
    // An existing file with other pages keeps them and opens as before.
    let old = dir.join("old.sqlite");
    {
        let c = Connection::open(&old).unwrap();
        c.execute_batch("PRAGMA page_size = 4096; CREATE TABLE x (y);")
            .unwrap();
    }
    let s = Store::open(&old).unwrap();
    let size: i64 = s
        .conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    assert_eq!(size, 4096);
    assert_eq!(s.schema_version().unwrap(), schema::current_version());
    drop(s);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_connections_on_one_file_see_each_others_commits() {
    let dir = std::env::temp_dir().join(format!("bansha-store-test2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shared.sqlite");
    let _ = std::fs::remove_file(&path);
    let mut w = Store::open(&path).unwrap();
    let r = Store::open(&path).unwrap();
    w.store_page(F, &thread_page(2, 10, 1, &[]), &info(1, T0))
        .unwrap();
    assert_eq!(r.posts(F, 7).unwrap().len(), 2);
    drop((w, r));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_page_without_thread_id_is_refused() {
    let mut s = Store::open_in_memory().unwrap();
    let pg = page(0, 1, 1, vec![pp(1, 1, "甲", "x")]);
    let err = s.store_page(F, &pg, &info(1, T0)).unwrap_err();
    assert!(err.to_string().contains("no thread id"), "{err}");
}

#[test]
fn content_hash_ignores_whitespace_layout_only() {
    let a = content_hash("投 傻树\n理由：发言", "", None);
    assert_eq!(a, content_hash("  投  傻树 理由：发言\r\n", "", None));
    assert_ne!(a, content_hash("投 傻树理由：发言", "", None));
    assert_ne!(a, content_hash("投 傻树\n理由：发言", "傻树", None));
    assert_eq!(a.len(), 64);
}

/// Stored revisions keep their hashes across the switch from the sha2 crate to ring's SHA-256
/// (a different hash would show every stored post as edited on the next sync). The expected
/// value is `printf 'bansha-rev-1\0投 傻树 理由：发言\0\0' | sha256sum`.
#[test]
fn revision_hashes_stored_before_the_sha2_to_ring_switch_still_match() {
    assert_eq!(
        content_hash("投 傻树\n理由：发言", "", None),
        "9772476f2d3ae95698d9517c51f5c566c93dd867364d8ccc28cc43502d2c817d"
    );
}

#[test]
fn page_fingerprints_are_kept_per_page_and_kind_and_unchanged_fetches_are_logged() {
    let mut s = Store::open_in_memory().unwrap();
    s.store_page(F, &thread_page(3, 10, 1, &[]), &info(1, T0))
        .unwrap();
    assert_eq!(s.page_fingerprint(F, 7, SourceKind::Html, 1).unwrap(), None);
    let fp = |h: &str, served: u32| PageFingerprint {
        fingerprint: h.into(),
        served_page: served,
        total_pages: 2,
    };
    s.set_page_fingerprint(F, 7, SourceKind::Html, 1, &fp("aa", 1), T0)
        .unwrap();
    s.set_page_fingerprint(F, 7, SourceKind::Html, 9, &fp("bb", 2), T0)
        .unwrap();
    s.set_page_fingerprint(F, 7, SourceKind::Html, 1, &fp("cc", 1), T0 + 5)
        .unwrap();
    assert_eq!(
        s.page_fingerprint(F, 7, SourceKind::Html, 1).unwrap(),
        Some(fp("cc", 1)),
        "the newest replaces the old"
    );
    assert_eq!(
        s.page_fingerprint(F, 7, SourceKind::Html, 9).unwrap(),
        Some(fp("bb", 2))
    );
    assert_eq!(s.page_fingerprint(F, 7, SourceKind::Api, 1).unwrap(), None);
    assert_eq!(s.page_fingerprint(F, 8, SourceKind::Html, 1).unwrap(), None);
    assert_eq!(s.thread_pages(F, 7).unwrap(), Some((1, 1)));
    assert_eq!(s.thread_pages(F, 8).unwrap(), None);

    let posts_before = s.posts(F, 7).unwrap();
    s.log_fetch_unchanged(F, 7, &info(1, T0 + 60)).unwrap();
    let log = s.fetch_log(F, 7).unwrap();
    let last = log.last().unwrap();
    assert_eq!(last.outcome, "unchanged");
    assert_eq!(
        (last.page, last.fetched_at, last.posts_seen),
        (1, T0 + 60, 0)
    );
    assert_eq!(
        s.thread(F, 7).unwrap().unwrap().last_fetched_at,
        Some(T0 + 60)
    );
    assert_eq!(s.posts(F, 7).unwrap(), posts_before, "posts untouched");
}

// ---------------------------------------------------------------- decoding errors (issue 11)

/// UTF-8 bytes read as GB18030: what a page stored before the charset was judged from
/// the bytes looked like.
fn mojibake(s: &str) -> String {
    encoding_rs::GB18030
        .decode_without_bom_handling(s.as_bytes())
        .0
        .into_owned()
}

#[test]
fn decoding_error_of_tells_mis_decodings_from_edits() {
    let good = "投票对象：小红\n投票理由：发言有问题";
    assert_eq!(decoding_error_of(&mojibake(good), good), Some(true));
    assert_eq!(decoding_error_of(good, &mojibake(good)), None);
    let (gbk, _, _) = encoding_rs::GBK.encode(good);
    let lossy = String::from_utf8_lossy(&gbk).into_owned();
    assert_eq!(decoding_error_of(&lossy, good), Some(true));
    assert_eq!(
        decoding_error_of("投票对象：小\u{fffd}", "投票对象：小红"),
        Some(false)
    );
    // Real edits are edits.
    assert_eq!(decoding_error_of("投票对象：小蓝", "投票对象：小红"), None);
    assert_eq!(decoding_error_of("改票 \u{fffd}", "投票对象：小红"), None);
    assert_eq!(decoding_error_of("vote A", "vote B"), None);
    assert_eq!(decoding_error_of(good, good), None);
}

#[test]
fn a_decoding_error_never_becomes_a_revision() {
    let mut s = Store::open_in_memory().unwrap();
    let good = "投票对象：小红";
    // A correct fetch, then one decoded with the wrong charset: no edit.
    s.store_page(
        F,
        &page(7, 1, 1, vec![pp(101, 1, "傻树", good)]),
        &info(1, T0),
    )
    .unwrap();
    let mut bad = pp(101, 1, &mojibake("傻树"), &mojibake(good));
    bad.html = mojibake(&bad.html);
    let ch = s
        .store_page(F, &page(7, 1, 1, vec![bad]), &info(1, T0 + 60))
        .unwrap();
    assert!(ch.changed.is_empty(), "{ch:?}");
    let p = s.post(F, 7, 101).unwrap().unwrap();
    assert_eq!((p.revisions.len(), p.author.as_str()), (1, "傻树"));
    assert_eq!(p.first().text, good);
    let mut garbled = page(7, 1, 1, vec![pp(101, 1, "傻树", good)]);
    garbled.title = mojibake(&garbled.title);
    s.store_page(F, &garbled, &info(1, T0 + 120)).unwrap();
    assert_eq!(s.thread(F, 7).unwrap().unwrap().title, "[075]第二日投票帖");
}

#[test]
fn a_stored_mis_decoding_is_corrected_by_the_next_correct_fetch() {
    // Regression: a UTF-8 save declaring gbk was stored as mojibake, and every later
    // correct fetch recorded every post as edited, permanently.
    let mut s = Store::open_in_memory().unwrap();
    let good = "投票对象：小红";
    s.store_page(
        F,
        &page(
            7,
            1,
            1,
            vec![pp(101, 1, &mojibake("傻树"), &mojibake(good))],
        ),
        &info(1, T0),
    )
    .unwrap();
    s.store_page(
        F,
        &page(7, 1, 1, vec![pp(101, 1, "傻树", good)]),
        &info(1, T0 + 60),
    )
    .unwrap();
    let p = s.post(F, 7, 101).unwrap().unwrap();
    assert_eq!(p.revisions.len(), 1, "{:?}", p.revisions);
    assert_eq!((p.first().text.as_str(), p.author.as_str()), (good, "傻树"));
    assert_eq!(
        p.first().seen_at,
        T0,
        "first seen when the garbled copy came"
    );
    // And a real edit after that is still an edit.
    s.store_page(
        F,
        &page(7, 1, 1, vec![pp(101, 1, "傻树", "投票对象：小蓝")]),
        &info(1, T0 + 120),
    )
    .unwrap();
    assert_eq!(s.post(F, 7, 101).unwrap().unwrap().revisions.len(), 2);
}

#[test]
fn an_unknown_post_time_is_filled_in_by_a_later_page() {
    let mut s = Store::open_in_memory().unwrap();
    let mut p = pp(101, 1, "傻树", "投票对象：小红");
    let known = p.time;
    p.time = crate::discuz::UNKNOWN_TIME;
    s.store_page(F, &page(7, 1, 1, vec![p.clone()]), &info(1, T0))
        .unwrap();
    assert_eq!(s.post(F, 7, 101).unwrap().unwrap().time, 0);
    p.time = known;
    s.store_page(F, &page(7, 1, 1, vec![p.clone()]), &info(1, T0 + 60))
        .unwrap();
    assert_eq!(s.post(F, 7, 101).unwrap().unwrap().time, known);
    // A known time is never replaced.
    p.time = known + 3600;
    s.store_page(F, &page(7, 1, 1, vec![p]), &info(1, T0 + 120))
        .unwrap();
    assert_eq!(s.post(F, 7, 101).unwrap().unwrap().time, known);
}

/// Regression (issue 16): `migrate` read `user_version` outside its transaction, so two
/// openers of a fresh file both ran migration 1 and the loser died with "table threads
/// already exists". Many openers released at once by a barrier, several rounds.
#[test]
fn concurrent_openers_of_a_fresh_file_all_migrate_it_once() {
    let dir = std::env::temp_dir().join(format!("bansha-store-race-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for round in 0..5 {
        let path = dir.join(format!("race-{round}.sqlite"));
        let _ = std::fs::remove_file(&path);
        let n = 8;
        let barrier = std::sync::Barrier::new(n);
        let results: Vec<Result<i64, String>> = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..n)
                .map(|_| {
                    sc.spawn(|| {
                        barrier.wait();
                        Store::open(&path)
                            .and_then(|s| s.schema_version())
                            .map_err(|e| e.to_string())
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in &results {
            assert_eq!(
                r.as_ref(),
                Ok(&schema::current_version()),
                "round {round}: {results:?}"
            );
        }
        let mut s = Store::open(&path).unwrap();
        s.store_page(F, &thread_page(2, 10, 1, &[]), &info(1, T0))
            .unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_negative_schema_version_is_refused_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("bansha-store-neg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("neg.sqlite");
    let _ = std::fs::remove_file(&path);
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", -1)
        .unwrap();
    let err = Store::open(&path).unwrap_err().to_string();
    assert!(err.contains("neg.sqlite") && err.contains("-1"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `engine_phases` table exactly as builds before schema step 5 created it on first use
/// (`CREATE TABLE IF NOT EXISTS` in timeline.rs), outside the migrations.
const OLD_ENGINE_PHASES: &str = r#"
CREATE TABLE IF NOT EXISTS engine_phases (
    kind     TEXT    NOT NULL,   -- 'night' | 'day'
    number   INTEGER NOT NULL,
    ord      INTEGER NOT NULL,   -- timeline order: number * 2 + (night ? 1 : 0)
    input    TEXT    NOT NULL,   -- JSON: bansha_engine::PhaseInput
    result   TEXT    NOT NULL,   -- JSON: the outcome as `bansha night --format json` shows it
    stale    INTEGER NOT NULL DEFAULT 0,
    revision INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (kind, number)
) WITHOUT ROWID;
"#;

/// A database at schema version 4, as the build before step 5 left it.
fn version_4_database(path: &std::path::Path, with_engine_phases: bool) {
    let _ = std::fs::remove_file(path);
    let c = Connection::open(path).unwrap();
    for step in &schema::MIGRATIONS[..4] {
        c.execute_batch(step).unwrap();
    }
    c.pragma_update(None, "user_version", 4).unwrap();
    if with_engine_phases {
        c.execute_batch(OLD_ENGINE_PHASES).unwrap();
        c.execute(
            "INSERT INTO engine_phases (kind, number, ord, input, result, stale, revision)
             VALUES ('night', 1, 3, '{\"n\":1}', 'r1', 0, 2), ('day', 2, 4, '{}', 'd2', 1, 1)",
            [],
        )
        .unwrap();
    }
}

/// Schema step 5 makes `engine_phases` a migration. A version-4 database that the old code
/// already gave the table (with phases in it) migrates cleanly and keeps every row; one
/// without it gains the table.
#[test]
fn a_version_4_database_with_the_old_engine_phases_table_migrates_to_5_keeping_its_rows() {
    assert!(schema::current_version() >= 5);
    let dir = std::env::temp_dir().join(format!("bansha-store-v4-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("v4.sqlite");
    version_4_database(&path, true);
    {
        let mut s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), schema::current_version());
        let p = s.phases().unwrap();
        let got: Vec<(&str, u32, &str, &str, bool, u32)> = p
            .iter()
            .map(|x| {
                let k = (x.kind.as_str(), x.number, x.input.as_str());
                (k.0, k.1, k.2, x.result.as_str(), x.stale, x.revision)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("night", 1, "{\"n\":1}", "r1", false, 2),
                ("day", 2, "{}", "d2", true, 1)
            ]
        );
        // The migrated table works as before.
        s.put_phase("night", 1, false, "{}", "r1b").unwrap();
        assert_eq!(s.phases().unwrap()[0].revision, 3);
    }
    // The read-only opener migrates an older file the same way.
    version_4_database(&path, true);
    let s = Store::open_existing(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), schema::current_version());
    assert_eq!(s.phases().unwrap().len(), 2);
    drop(s);
    // Without the old table: step 5 creates it.
    version_4_database(&path, false);
    let s = Store::open(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), schema::current_version());
    assert!(s.phases().unwrap().is_empty());
    drop(s);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Many processes opening one version-4 database (old `engine_phases` included) at once:
/// step 5 runs once, under the write lock, and every opener ends at the current version.
#[test]
fn concurrent_openers_of_a_version_4_database_all_end_at_5() {
    let dir = std::env::temp_dir().join(format!("bansha-store-v4race-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for round in 0..4 {
        let path = dir.join(format!("v4race-{round}.sqlite"));
        version_4_database(&path, round % 2 == 0);
        let n = 6;
        let barrier = std::sync::Barrier::new(n);
        let results: Vec<Result<(i64, usize), String>> = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..n)
                .map(|_| {
                    sc.spawn(|| {
                        barrier.wait();
                        Store::open(&path)
                            .and_then(|s| Ok((s.schema_version()?, s.phases()?.len())))
                            .map_err(|e| e.to_string())
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let rows = if round % 2 == 0 { 2 } else { 0 };
        for r in &results {
            assert_eq!(
                r.as_ref(),
                Ok(&(schema::current_version(), rows)),
                "round {round}: {results:?}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scratch folder for one test (removed by the test at its end).
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bansha-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn each_source_kind_and_lock_kind_reads_back_as_stored() {
    let mut s = Store::open_in_memory().unwrap();
    let kinds = [
        LockKind::BannedAuthor,
        LockKind::ModeratorBlocked,
        LockKind::AuthorOnly,
        LockKind::Password,
        LockKind::Hidden,
        LockKind::Pending,
        LockKind::Other,
    ];
    let mut pg = thread_page(kinds.len() as u32, 10, 1, &[]);
    for (p, k) in pg.posts.iter_mut().zip(kinds) {
        p.locked = Some(k);
        p.text = String::new();
    }
    let mut at = info(1, T0);
    for (n, kind) in [SourceKind::Html, SourceKind::Api, SourceKind::File]
        .into_iter()
        .enumerate()
    {
        at.kind = kind;
        at.fetched_at = T0 + n as i64;
        s.store_page(F, &pg, &at).unwrap();
    }
    let got: Vec<Option<LockKind>> = s.posts(F, 7).unwrap().iter().map(|p| p.locked).collect();
    assert_eq!(got, kinds.map(Some).to_vec());
    let logged: Vec<SourceKind> = s.fetch_log(F, 7).unwrap().iter().map(|e| e.kind).collect();
    assert_eq!(
        logged,
        vec![SourceKind::Html, SourceKind::Api, SourceKind::File]
    );
}

#[test]
fn page_changes_are_empty_only_when_no_list_has_an_entry() {
    assert!(PageChanges::default().is_empty());
    for k in 0..5 {
        let mut c = PageChanges::default();
        match k {
            0 => c.new_posts.push(1),
            1 => c.changed.push(1),
            2 => c.missing.push(1),
            3 => c.reappeared.push(1),
            _ => c.refloored.push((1, Some(1), Some(2))),
        }
        assert!(!c.is_empty(), "{c:?}");
    }
}

#[test]
fn a_fetch_failure_without_a_reason_or_saying_ok_is_logged_as_failed() {
    let mut s = Store::open_in_memory().unwrap();
    s.log_fetch_failure(F, 7, &info(1, T0), "  ").unwrap();
    s.log_fetch_failure(F, 7, &info(1, T0 + 1), "ok").unwrap();
    let got: Vec<String> = s
        .fetch_log(F, 7)
        .unwrap()
        .into_iter()
        .map(|e| e.outcome)
        .collect();
    assert_eq!(
        got,
        vec!["failed:   ".to_string(), "failed: ok".to_string()]
    );
}

#[test]
fn a_batch_counts_its_pages_and_stores_them_only_on_commit() {
    let mut s = Store::open_in_memory().unwrap();
    {
        let mut b = s.batch().unwrap();
        b.store_page(F, &thread_page(12, 10, 1, &[]), &info(1, T0))
            .unwrap();
        // Dropped without a commit: nothing stored.
    }
    assert!(s.posts(F, 7).unwrap().is_empty());
    let mut b = s.batch().unwrap();
    assert_eq!(b.pages(), 0);
    b.store_page(F, &thread_page(12, 10, 1, &[]), &info(1, T0))
        .unwrap();
    b.store_page(F, &thread_page(12, 10, 2, &[]), &info(2, T0))
        .unwrap();
    assert_eq!(b.pages(), 2);
    b.commit().unwrap();
    assert_eq!(s.posts(F, 7).unwrap().len(), 12);
}

/// The web page's change counter: another connection's commit changes it, nothing else does.
#[test]
fn data_version_changes_when_another_connection_commits() {
    let dir = scratch("dv");
    let path = dir.join("dv.sqlite");
    let mut w = Store::open(&path).unwrap();
    let r = Store::open(&path).unwrap();
    let v0 = r.data_version().unwrap();
    assert_eq!(r.data_version().unwrap(), v0);
    w.store_page(F, &thread_page(2, 10, 1, &[]), &info(1, T0))
        .unwrap();
    let v1 = r.data_version().unwrap();
    assert_ne!(v1, v0);
    w.store_page(F, &thread_page(3, 10, 1, &[]), &info(1, T0 + 60))
        .unwrap();
    assert_ne!(r.data_version().unwrap(), v1);
    assert_eq!(r.db_name(), path.display().to_string());
    assert_eq!(Store::open_in_memory().unwrap().db_name(), ":memory:");
    drop((w, r));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bulk_checkpoints_let_the_log_grow_to_8192_pages() {
    let dir = scratch("ckpt");
    let s = Store::open(&dir.join("c.sqlite")).unwrap();
    let pages = |s: &Store| -> i64 {
        s.conn
            .query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(pages(&s), 1000);
    s.bulk_checkpoints().unwrap();
    assert_eq!(pages(&s), 8192);
    drop(s);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `open` and `open_existing` name the problem: a missing folder, no database file, a file
/// that is no bansha database, a newer schema. `open_existing` of a current file reads it
/// read-only, and sees what a writer commits after it opened.
#[test]
fn open_existing_refuses_what_is_no_current_database_and_reads_the_rest_read_only() {
    let dir = scratch("openx");
    let missing = dir.join("no/such/x.sqlite");
    for err in [
        Store::open(&missing).unwrap_err(),
        Store::open_existing(&missing).unwrap_err(),
    ] {
        let msg = err.to_string();
        assert!(msg.contains("does not exist"), "{msg}");
        assert!(msg.contains("x.sqlite"), "{msg}");
    }
    let path = dir.join("game.sqlite");
    let msg = Store::open_existing(&path).unwrap_err().to_string();
    assert!(msg.contains("no such database"), "{msg}");
    assert!(!path.exists());

    let plain = dir.join("plain.sqlite");
    Connection::open(&plain)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let msg = Store::open_existing(&plain).unwrap_err().to_string();
    assert!(msg.contains("not a bansha database"), "{msg}");

    let mut w = Store::open(&path).unwrap();
    w.store_page(F, &thread_page(2, 10, 1, &[]), &info(1, T0))
        .unwrap();
    let r = Store::open_existing(&path).unwrap();
    assert!(r.conn.is_readonly(rusqlite::MAIN_DB).unwrap());
    assert_eq!(r.schema_version().unwrap(), schema::current_version());
    assert_eq!(r.posts(F, 7).unwrap().len(), 2);
    w.store_page(F, &thread_page(3, 10, 1, &[]), &info(1, T0 + 60))
        .unwrap();
    assert_eq!(r.posts(F, 7).unwrap().len(), 3);
    drop(r);

    w.conn.pragma_update(None, "user_version", 99).unwrap();
    let err = Store::open_existing(&path).unwrap_err();
    assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{err}");
    drop(w);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A folder no one may create files in (even root: `/proc`) is named as the problem.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_without_room_for_the_wal_files_is_named() {
    let msg = Store::open(std::path::Path::new("/proc/bansha-no-such.sqlite"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("cannot create files in the folder `/proc`"),
        "{msg}"
    );
}

/// `replaced_from(bad, good)`: every run of U+FFFD in `bad` stands for at least one
/// character of `good`, the text between the runs is `good`'s in order, and the text
/// outside the runs is `good`'s start and end.
#[test]
fn replaced_from_needs_each_run_to_stand_for_a_character_and_the_rest_to_agree() {
    const R: &str = "\u{fffd}";
    let cases: &[(String, &str, bool)] = &[
        // A trailing run: something of `good` must be left for it.
        (format!("小{R}"), "小红", true),
        (format!("小红{R}"), "小红", false),
        // A leading run.
        (format!("{R}红"), "小红", true),
        (format!("{R}小红"), "小红", false),
        // A run inside: one character or more, never none.
        (format!("投{R}对象"), "投票对象", true),
        (format!("投{R}象"), "投票对象", true),
        (format!("投{R}票对象"), "投票对象", false),
        // The text after the last run is `good`'s end, not only somewhere in it.
        (format!("投{R}对"), "投票对象", false),
        (format!("投{R}对"), "投票对象对", true),
        // A piece before a trailing run is found, and consumed.
        (format!("投{R}对{R}"), "投票对象", true),
        (format!("投{R}对{R}"), "投票对", false),
        // Several runs.
        (format!("甲{R}乙{R}丙"), "甲一乙二丙", true),
        (format!("甲{R}乙{R}丙"), "甲一乙丙", false),
        (format!("甲{R}乙{R}丙"), "甲一乙二丁", false),
        (format!("甲{R}乙{R}丙"), "乙一乙二丙", false),
        // More runs than kept characters says nothing; no run is no replacement.
        (format!("{R}小{R}"), "大小红", false),
        (format!("{R}{R}"), "小红", false),
        ("小红".to_string(), "小红", false),
        ("小蓝".to_string(), "小红", false),
    ];
    for (bad, good, want) in cases {
        assert_eq!(replaced_from(bad, good), *want, "{bad:?} from {good:?}");
    }
}

#[test]
fn decoding_error_of_never_takes_a_damaged_or_ascii_text_for_the_good_one() {
    // The stored text itself has replacement characters: it is no reference.
    assert_eq!(decoding_error_of("投票\u{fffd}", "投票\u{fffd}对象"), None);
    // Plain ASCII has no charset to get wrong: a U+FFFD there is an edit.
    assert_eq!(decoding_error_of("vote \u{fffd}", "vote B"), None);
    // An approximate match keeps its place: the rest of the text must agree.
    assert_eq!(
        decoding_error_of("投票对象：\u{fffd}红", "投票对象：小红"),
        Some(false)
    );
    assert_eq!(
        decoding_error_of("投票对象：\u{fffd}蓝", "投票对象：小红"),
        None
    );
}

/// A renamed thread takes the new title; a page that shows none (blank) keeps the stored one.
#[test]
fn a_new_thread_title_replaces_the_stored_one_and_a_blank_one_does_not() {
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(2, 10, 1, &[]);
    s.store_page(F, &pg, &info(1, T0)).unwrap();
    pg.title = "[075]第二日投票帖（已截止）".into();
    s.store_page(F, &pg, &info(1, T0 + 60)).unwrap();
    let title = |s: &Store| s.thread(F, 7).unwrap().unwrap().title;
    assert_eq!(title(&s), "[075]第二日投票帖（已截止）");
    pg.title = "  ".into();
    s.store_page(F, &pg, &info(1, T0 + 120)).unwrap();
    assert_eq!(title(&s), "[075]第二日投票帖（已截止）");
}

/// The stored quote follows the post's latest content: a page that first shows a quote for
/// unchanged content fills it in, another quote on the same content changes nothing, and an
/// edit brings its own quote.
#[test]
fn a_post_s_quote_follows_its_latest_content() {
    let q = |pid: u64| QuoteRef {
        pid: Some(pid),
        author: None,
        time: None,
        floor: None,
    };
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(3, 10, 1, &[]);
    s.store_page(F, &pg, &info(1, T0)).unwrap();
    let quote = |s: &Store| s.post(F, 7, 103).unwrap().unwrap().quote;
    assert_eq!(quote(&s), None);
    pg.posts[2].quote = Some(q(101));
    assert!(
        s.store_page(F, &pg, &info(1, T0 + 60))
            .unwrap()
            .changed
            .is_empty()
    );
    assert_eq!(quote(&s), Some(q(101)));
    pg.posts[2].quote = Some(q(102));
    assert!(
        s.store_page(F, &pg, &info(1, T0 + 120))
            .unwrap()
            .changed
            .is_empty()
    );
    assert_eq!(quote(&s), Some(q(101)));
    pg.posts[2].text = "帖子103（改）".into();
    assert_eq!(
        s.store_page(F, &pg, &info(1, T0 + 180)).unwrap().changed,
        vec![103]
    );
    assert_eq!(quote(&s), Some(q(102)));
}

/// The path in the `file:` URI of the read-as-it-stands fallback escapes what a URI reserves.
#[test]
fn a_file_uri_path_escapes_question_marks_hashes_and_percents() {
    assert_eq!(
        uri_path(std::path::Path::new("/srv/游戏?1#2%3/game.db")),
        "/srv/游戏%3f1%232%253/game.db"
    );
}

fn busy() -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY), None)
}

/// The WAL switch answers BUSY at once while another process opens the same fresh file:
/// BUSY is retried until the timeout, then stands; any other answer is final at once.
#[test]
fn a_busy_answer_is_retried_until_the_timeout_and_nothing_else_is() {
    let mut n = 0;
    let r = retry_busy(Duration::from_secs(10), || {
        n += 1;
        if n < 3 { Err(busy()) } else { Ok(n) }
    });
    assert_eq!(r, Ok(3));
    let mut n = 0;
    let r = retry_busy(Duration::ZERO, || {
        n += 1;
        Err::<(), _>(busy())
    });
    assert_eq!((r, n), (Err(busy()), 1));
    let mut n = 0;
    let r = retry_busy(Duration::from_secs(10), || {
        n += 1;
        Err::<(), _>(rusqlite::Error::InvalidQuery)
    });
    assert_eq!((r, n), (Err(rusqlite::Error::InvalidQuery), 1));
}

/// A revision's enlarged text is filled in once, when the stored one has none; a later view
/// of the same content with other enlarged text does not rewrite the stored revision.
#[test]
fn stored_enlarged_text_is_filled_in_never_rewritten() {
    let mut s = Store::open_in_memory().unwrap();
    let mut pg = thread_page(1, 10, 1, &[]);
    pg.posts[0].large = "帖子101".into();
    s.store_page(F, &pg, &info(1, T0)).unwrap();
    pg.posts[0].large = "帖子".into();
    assert!(s.store_page(F, &pg, &info(1, T0 + 5)).unwrap().is_empty());
    let p = s.post(F, 7, 101).unwrap().unwrap();
    assert_eq!(
        (p.revisions.len(), p.first().large.as_str()),
        (1, "帖子101")
    );
}

/// The import's background copier: a second connection that copies what this one
/// committed from the write-ahead log into the file, while this one stays open (so that
/// closing the store has little left to copy). An in-memory store has nothing to copy.
#[test]
fn a_checkpointer_copies_committed_pages_into_the_file_while_the_store_stays_open() {
    assert!(
        Store::open_in_memory()
            .unwrap()
            .checkpointer()
            .unwrap()
            .is_none()
    );
    let dir = std::env::temp_dir().join(format!("bansha-store-ckpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.sqlite");
    let mut s = Store::open(&path).unwrap();
    s.bulk_checkpoints().unwrap();
    let ck = s.checkpointer().unwrap().expect("a file in WAL mode");
    let file_len = || std::fs::metadata(&path).unwrap().len();
    let mut batch = s.batch().unwrap();
    for p in 1..=3u32 {
        let posts: Vec<PagePost> = (0..10u64)
            .map(|k| {
                let pid = u64::from(p) * 10 + k;
                pp(pid, (p - 1) * 10 + k as u32 + 1, "甲", &"投票 ".repeat(200))
            })
            .collect();
        batch
            .store_page(F, &page(7, p, 10, posts), &info(p, T0))
            .unwrap();
    }
    batch.commit().unwrap();
    let before = file_len();
    let (frames, copied) = ck.checkpoint().unwrap();
    assert!(frames > 0, "the commit is in the log");
    assert_eq!(copied, frames, "every committed frame is copied");
    assert!(file_len() > before, "the file grew from {before} bytes");
    // The store goes on writing and reading as before.
    assert_eq!(s.posts(F, 7).unwrap().len(), 30);
    drop(ck);
    drop(s);
    let s = Store::open_existing(&path).unwrap();
    assert_eq!(s.posts(F, 7).unwrap().len(), 30);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `content_hash` hashes, word by word, the very bytes of the joined text: the words of each
/// part joined by single spaces, parts ended by `\0`, then the edit notice, for long posts,
/// long words, and edits with and without a time.
#[test]
fn content_hash_hashes_the_same_bytes_as_the_joined_text() {
    fn joined(text: &str, red: &str, edit: Option<&EditNotice>) -> String {
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut b = format!("bansha-rev-1\0{}\0{}\0", words(text), words(red));
        if let Some(e) = edit {
            b.push_str(&e.editor);
            b.push('\0');
            if let Some(t) = e.time {
                b.push_str(&t.to_string());
            }
        }
        let d = ring::digest::digest(&ring::digest::SHA256, b.as_bytes());
        d.as_ref().iter().map(|x| format!("{x:02x}")).collect()
    }
    let long_word = "长".repeat(3000);
    let texts = [
        String::new(),
        "投 傻树\n理由：发言".to_string(),
        "投票 给 7 号\r\n".repeat(900),
        format!("a {long_word} b"),
        format!("{}{long_word}", "x ".repeat(2040)),
    ];
    let edits = [
        None,
        Some(EditNotice {
            editor: "甲".into(),
            time: Some(1_700_000_000),
        }),
        Some(EditNotice {
            editor: "乙".repeat(2100),
            time: None,
        }),
    ];
    for t in &texts {
        for r in ["", "红 字", &long_word] {
            for e in &edits {
                assert_eq!(content_hash(t, r, e.as_ref()), joined(t, r, e.as_ref()));
            }
        }
    }
}
