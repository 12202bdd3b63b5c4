//! Resolving a quote without a findpost link to the pid it quotes. Pure: posts in, pids out.
//!
//! A quote header reads `X 发表于 2026-3-4 10:05` (minute precision, so the quoted post's
//! time lies in `[t, t + 59]` unless the header had seconds), and the legacy reply form reads
//! `回复 5# X` (a floor as it was when the reply was written: floors renumber, so every floor
//! a post has ever held counts). A quote resolves only when exactly one earlier post fits;
//! an ambiguous quote stays unresolved rather than guessing.

use std::collections::HashMap;

use crate::model::{Post, QuoteRef};

/// Resolve each post's quote pid in place where it is missing and exactly one post fits.
/// `old_floors` lists (pid, floor) pairs the pid held before its current floor.
pub fn resolve_quotes(posts: &mut [Post], old_floors: &[(u64, u32)]) {
    let mut floors: HashMap<u32, Vec<usize>> = HashMap::new();
    let index: HashMap<u64, usize> = posts.iter().enumerate().map(|(i, p)| (p.pid, i)).collect();
    for (i, p) in posts.iter().enumerate() {
        if let Some(f) = p.floor {
            floors.entry(f).or_default().push(i);
        }
    }
    for &(pid, f) in old_floors {
        if let Some(&i) = index.get(&pid) {
            let v = floors.entry(f).or_default();
            if !v.contains(&i) {
                v.push(i);
            }
        }
    }
    let mut by_author: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, p) in posts.iter().enumerate() {
        by_author.entry(p.author.as_str()).or_default().push(i);
    }
    let mut resolved = Vec::new();
    for (i, p) in posts.iter().enumerate() {
        let Some(q) = &p.quote else { continue };
        if q.pid.is_some() {
            continue;
        }
        if let Some(pid) = resolve_one(posts, i, q, &floors, &by_author) {
            resolved.push((i, pid));
        }
    }
    for (i, pid) in resolved {
        if let Some(q) = posts[i].quote.as_mut() {
            q.pid = Some(pid);
        }
    }
}

fn resolve_one(
    posts: &[Post],
    me: usize,
    q: &QuoteRef,
    floors: &HashMap<u32, Vec<usize>>,
    by_author: &HashMap<&str, Vec<usize>>,
) -> Option<u64> {
    let my_pid = posts[me].pid;
    let earlier = |i: &usize| *i != me && posts[*i].pid < my_pid;
    let author_ok = |i: &usize| q.author.as_deref().is_none_or(|a| posts[*i].author == a);
    if let (Some(a), Some(t)) = (q.author.as_deref(), q.time) {
        let found: Vec<usize> = by_author
            .get(a)
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|i| earlier(i) && (t..=t + 59).contains(&posts[*i].time))
                    .collect()
            })
            .unwrap_or_default();
        // An exact time match wins over others in the same minute.
        let exact: Vec<usize> = found
            .iter()
            .copied()
            .filter(|i| posts[*i].time == t)
            .collect();
        if let [i] = exact.as_slice() {
            return Some(posts[*i].pid);
        }
        if let [i] = found.as_slice() {
            return Some(posts[*i].pid);
        }
        if !found.is_empty() {
            return None;
        }
    }
    if let Some(f) = q.floor {
        let found: Vec<usize> = floors
            .get(&f)
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|i| earlier(i) && author_ok(i))
                    .collect()
            })
            .unwrap_or_default();
        if let [i] = found.as_slice() {
            return Some(posts[*i].pid);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Revision;

    fn post(pid: u64, floor: u32, author: &str, time: i64, quote: Option<QuoteRef>) -> Post {
        Post {
            tid: 1,
            pid,
            floor: Some(floor),
            author: author.into(),
            uid: None,
            time,
            quote,
            revisions: vec![Revision {
                seen_at: 0,
                hash: String::new(),
                edit: None,
                html: String::new(),
                text: String::new(),
                red: String::new(),
                large: String::new(),
            }],
            missing_since: None,
            locked: None,
        }
    }

    fn q(author: Option<&str>, time: Option<i64>, floor: Option<u32>) -> Option<QuoteRef> {
        Some(QuoteRef {
            pid: None,
            author: author.map(Into::into),
            time,
            floor,
        })
    }

    #[test]
    fn author_and_minute_time_resolve_to_the_one_post_in_that_minute() {
        let mut v = vec![
            post(10, 1, "甲", 1_000_037, None),
            post(11, 2, "乙", 1_000_050, None),
            post(
                12,
                3,
                "乙",
                1_000_000 + 120,
                q(Some("甲"), Some(1_000_020), None),
            ),
        ];
        // 1_000_020 is not a minute start here; the window is [t, t+59] all the same.
        resolve_quotes(&mut v, &[]);
        assert_eq!(v[2].quote.as_ref().unwrap().pid, Some(10));
    }

    #[test]
    fn two_posts_by_the_author_in_the_same_minute_stay_unresolved() {
        let mut v = vec![
            post(10, 1, "甲", 1_000_010, None),
            post(11, 2, "甲", 1_000_030, None),
            post(12, 3, "乙", 1_000_200, q(Some("甲"), Some(1_000_000), None)),
        ];
        resolve_quotes(&mut v, &[]);
        assert_eq!(v[2].quote.as_ref().unwrap().pid, None);
    }

    #[test]
    fn legacy_reply_floor_uses_old_floors_after_renumbering() {
        // pid 11 was floor 3 when 乙 wrote `回复 3# 丙`; a deletion moved it to floor 2.
        let mut v = vec![
            post(10, 1, "甲", 100, None),
            post(11, 2, "丙", 200, None),
            post(13, 3, "乙", 300, q(Some("丙"), None, Some(3))),
        ];
        resolve_quotes(&mut v, &[(11, 3)]);
        assert_eq!(v[2].quote.as_ref().unwrap().pid, Some(11));
        // Without the history, floor 3 is 乙's own post (and the author does not match).
        let mut w = v.clone();
        w[2].quote.as_mut().unwrap().pid = None;
        resolve_quotes(&mut w, &[]);
        assert_eq!(w[2].quote.as_ref().unwrap().pid, None);
    }

    #[test]
    fn a_quote_never_resolves_to_a_later_post() {
        let mut v = vec![
            post(10, 1, "乙", 100, q(Some("甲"), Some(200), None)),
            post(11, 2, "甲", 200, None),
        ];
        resolve_quotes(&mut v, &[]);
        assert_eq!(v[0].quote.as_ref().unwrap().pid, None);
    }

    #[test]
    fn a_findpost_pid_is_kept_as_is() {
        let mut v = vec![
            post(10, 1, "甲", 100, None),
            post(11, 2, "乙", 200, q(Some("甲"), Some(100), None)),
        ];
        v[1].quote.as_mut().unwrap().pid = Some(999);
        resolve_quotes(&mut v, &[]);
        assert_eq!(v[1].quote.as_ref().unwrap().pid, Some(999));
    }

    /// The minute window is `[t, t + 59]`, an exact time wins within it, a quote whose
    /// author and time fit no post falls back to its floor, and a floor-only quote never
    /// resolves to the quoting post itself.
    #[test]
    fn window_exact_time_floor_fallback_and_floor_only_quotes() {
        let t = 1_000_000;
        let mut v = vec![
            post(10, 1, "甲", t + 30, None),
            post(11, 2, "甲", t + 3600, None),
            post(12, 3, "乙", t + 4000, q(Some("甲"), Some(t), None)),
        ];
        resolve_quotes(&mut v, &[]);
        assert_eq!(v[2].quote.as_ref().unwrap().pid, Some(10), "window");
        let mut v = vec![
            post(10, 1, "甲", t, None),
            post(11, 2, "甲", t + 30, None),
            post(12, 3, "乙", t + 100, q(Some("甲"), Some(t), None)),
        ];
        resolve_quotes(&mut v, &[]);
        assert_eq!(v[2].quote.as_ref().unwrap().pid, Some(10), "exact time");
        let mut v = vec![
            post(10, 1, "甲", t - 1000, None),
            post(12, 2, "乙", t + 100, q(Some("甲"), Some(t), Some(1))),
        ];
        resolve_quotes(&mut v, &[]);
        assert_eq!(v[1].quote.as_ref().unwrap().pid, Some(10), "floor fallback");
        let mut v = vec![
            post(10, 1, "甲", 100, None),
            post(11, 2, "丙", 200, None),
            post(12, 3, "乙", 300, q(None, None, Some(3))),
        ];
        resolve_quotes(&mut v, &[(11, 3)]);
        assert_eq!(v[2].quote.as_ref().unwrap().pid, Some(11), "floor only");
    }
}
