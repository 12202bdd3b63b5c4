//! Benchmark: store (run with `cargo bench --bench store`).
//!
//! A 2,000-post thread as 200 pages of 10, stored into a fresh file database (one
//! transaction per page, WAL), then the same 200 pages again (the idempotent re-poll path),
//! then one `posts()` read of the whole thread. Parsing is not included (see the parse bench).

use std::time::Instant;

use bansha::model::{PagePost, ThreadPage};
use bansha::store::{FetchInfo, SourceKind, Store};

const POSTS: u32 = 2000;
const PPP: u32 = 10;

fn pages() -> Vec<ThreadPage> {
    let total = POSTS / PPP;
    (1..=total)
        .map(|p| ThreadPage {
            tid: 1002,
            title: "[075]第二日讨论帖".into(),
            page: p,
            total_pages: total,
            author_filtered: false,
            viewer_uid: Some(0),
            posts: (0..PPP)
                .map(|k| {
                    let floor = (p - 1) * PPP + k + 1;
                    let pid = 500_000 + floor as u64 * 3;
                    let text = format!(
                        "第{floor}楼：我觉得{}号发言有问题，投票给{}号。理由如下：{}",
                        floor % 17,
                        floor % 13,
                        "昨天的发言前后矛盾，".repeat(8)
                    );
                    PagePost {
                        pid: Some(pid),
                        floor: Some(floor),
                        floor_label: format!("{floor}#"),
                        author: format!("玩家{}", floor % 20),
                        uid: Some(1000 + (floor % 20) as u64),
                        time: 1_772_589_600 + floor as i64 * 37,
                        edit: None,
                        quote: None,
                        html: format!(
                            "<div class=\"t_fsz\"><td class=\"t_f\" id=\"postmessage_{pid}\">{text}\
                             <font class=\"jammer\">a{pid}b</font><br />\r\n</td></div>"
                        ),
                        text,
                        red: if floor.is_multiple_of(10) {
                            format!("投{}号", floor % 13)
                        } else {
                            String::new()
                        },
                        large: String::new(),
                        locked: None,
                        deleted: false,
                        duplicate: false,
                    }
                })
                .collect(),
        })
        .collect()
}

fn main() {
    let dir = std::env::temp_dir().join(format!("bansha-bench-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bench.sqlite");
    let pages = pages();
    let mut store = Store::open(&path).expect("open");
    let info = |p: u32| FetchInfo {
        source: format!("http://127.0.0.1/forum.php?mod=viewthread&tid=1002&page={p}"),
        kind: SourceKind::Html,
        page: p,
        fetched_at: 1_772_600_000,
    };

    let t = Instant::now();
    for pg in &pages {
        let ch = store
            .store_page("bench", pg, &info(pg.page))
            .expect("store");
        assert_eq!(ch.new_posts.len(), PPP as usize);
    }
    let first = t.elapsed().as_secs_f64();

    let t = Instant::now();
    for pg in &pages {
        let ch = store
            .store_page("bench", pg, &info(pg.page))
            .expect("store");
        assert!(ch.is_empty());
    }
    let again = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let posts = store.posts("bench", 1002).expect("posts");
    let read = t.elapsed().as_secs_f64();
    assert_eq!(posts.len(), POSTS as usize);

    let n = POSTS as f64;
    let np = pages.len();
    println!(
        "store: first store of {POSTS} posts / {np} pages: {:.3} s ({:.0} posts/s, {:.0} pages/s)",
        first,
        n / first,
        np as f64 / first
    );
    println!(
        "store: re-store of the same {np} pages (no changes): {:.3} s ({:.0} posts/s)",
        again,
        n / again
    );
    println!(
        "store: posts() read of {POSTS} posts: {:.3} s ({:.0} posts/s)",
        read,
        n / read
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
