//! The polling plan: which threads to poll, which pages to fetch, when to wake up and when
//! a day's reports are due. Pure: config, remembered state and a time in, decisions out.

use std::collections::BTreeSet;

use crate::config::Config;
use crate::model::Timestamp;

/// What the daemon remembers about one thread (from the store, plus the last re-read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThreadState {
    pub tid: u64,
    /// The last page stored (None: never fetched).
    pub last_page: Option<u32>,
    /// The total pages the pager showed last time.
    pub total_pages: Option<u32>,
    /// When recent pages were last re-read (None: not since start).
    pub last_recheck_at: Option<Timestamp>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// How many pages before the last one a re-read covers.
    pub recheck_pages: u32,
    /// Seconds between re-reads.
    pub recheck_interval: i64,
}

impl Policy {
    pub fn from_config(cfg: &Config) -> Self {
        Policy {
            recheck_pages: cfg.daemon.recheck_pages,
            recheck_interval: cfg.daemon.recheck_interval_secs as i64,
        }
    }
}

/// The page a poll starts with: the last known page (it is where new posts appear), or
/// page 1 for a thread never fetched (a backfill).
pub fn first_page(st: &ThreadState) -> u32 {
    st.last_page.unwrap_or(1).max(1)
}

/// After fetching a page that says it is `page` of `total`: the next page to fetch, if the
/// pager shows more. (A page past the end silently serves the last page, so only the pager
/// says whether a next page exists.)
pub fn next_page(page: u32, total: u32) -> Option<u32> {
    (page < total).then_some(page + 1)
}

/// Whether this poll should also re-read recent pages.
pub fn recheck_due(st: &ThreadState, now: Timestamp, p: &Policy) -> bool {
    st.last_page.is_some_and(|l| l > 1 || p.recheck_pages > 0)
        && st
            .last_recheck_at
            .is_none_or(|t| now - t >= p.recheck_interval)
}

/// The pages a re-read covers, besides the pages the poll fetched anyway (`fetched`):
/// the `recheck_pages` pages ending at the last page, or every page for the final re-read
/// at 关门.
pub fn recheck_pages(
    last_page: u32,
    p: &Policy,
    final_pass: bool,
    fetched: &BTreeSet<u32>,
) -> Vec<u32> {
    let from = if final_pass {
        1
    } else {
        last_page.saturating_sub(p.recheck_pages).max(1)
    };
    (from..=last_page)
        .filter(|pg| !fetched.contains(pg))
        .collect()
}

/// Start and end (关门) of a day as timestamps; a missing `opens` is the previous day's
/// `closes` (or the beginning of time), a missing `closes` never comes.
fn day_bounds(cfg: &Config, number: u32) -> (Timestamp, Timestamp) {
    let d = cfg.day(number).expect("day exists");
    let opens = d.opens.map(|t| cfg.ts(t)).unwrap_or_else(|| {
        cfg.days
            .iter()
            .filter(|o| o.number < number)
            .max_by_key(|o| o.number)
            .and_then(|o| o.closes)
            .map(|t| cfg.ts(t))
            .unwrap_or(i64::MIN)
    });
    // Ballots are taken until `vote_closes` (排球少年); the day is polled until then.
    let closes = d
        .vote_closes
        .or(d.closes)
        .map(|t| cfg.ts(t))
        .unwrap_or(i64::MAX);
    (opens, closes)
}

/// The day whose window (opens .. closes + grace) holds `now`.
pub fn current_day(cfg: &Config, now: Timestamp) -> Option<u32> {
    let grace = cfg.daemon.grace_secs as i64;
    cfg.days
        .iter()
        .filter(|d| {
            let (o, c) = day_bounds(cfg, d.number);
            o <= now && now < c.saturating_add(grace)
        })
        .map(|d| d.number)
        .max()
}

/// The threads to poll at `now`: those of the current and the previous day, or every
/// configured thread when `now` is outside every day. Sorted, no duplicates.
pub fn active_threads(cfg: &Config, now: Timestamp) -> Vec<u64> {
    let days: Vec<u32> = match current_day(cfg, now) {
        Some(cur) => {
            let prev = cfg.days.iter().map(|d| d.number).filter(|&n| n < cur).max();
            std::iter::once(cur).chain(prev).collect()
        }
        None => cfg.days.iter().map(|d| d.number).collect(),
    };
    let set: BTreeSet<u64> = cfg
        .threads()
        .into_iter()
        .filter(|(d, _, _)| days.contains(d))
        .map(|(_, _, t)| t)
        .collect();
    set.into_iter().collect()
}

/// The threads of one day.
pub fn day_threads(cfg: &Config, day: u32) -> Vec<u64> {
    let set: BTreeSet<u64> = cfg
        .threads()
        .into_iter()
        .filter(|(d, _, _)| *d == day)
        .map(|(_, _, t)| t)
        .collect();
    set.into_iter().collect()
}

/// Seconds until the next poll: tighter in the last hour before a 关门.
pub fn poll_interval(cfg: &Config, now: Timestamp) -> i64 {
    let final_hour = cfg.days.iter().any(|d| {
        d.vote_closes
            .or(d.closes)
            .map(|c| cfg.ts(c))
            .is_some_and(|c| now < c && c - now <= 3600)
    });
    if final_hour {
        cfg.daemon.final_hour_interval_secs as i64
    } else {
        cfg.daemon.poll_interval_secs as i64
    }
}

/// Days whose 关门 + grace has passed and whose reports are not yet written.
pub fn reports_due(cfg: &Config, now: Timestamp, written: &BTreeSet<u32>) -> Vec<u32> {
    let grace = cfg.daemon.grace_secs as i64;
    let mut v: Vec<u32> = cfg
        .days
        .iter()
        .filter(|d| !written.contains(&d.number))
        .filter(|d| {
            d.vote_closes
                .or(d.closes)
                .is_some_and(|c| now >= cfg.ts(c) + grace)
        })
        .map(|d| d.number)
        .collect();
    v.sort();
    v
}

/// When to wake next: after the poll interval, or earlier when a day's reports fall due
/// (关门 + grace) or the final hour begins. Reports that fell due during the pass just made
/// (a long pass, a postponed final re-read) are tried again at the final hour's interval,
/// not left for the next ordinary poll.
pub fn next_wake(cfg: &Config, now: Timestamp, written: &BTreeSet<u32>) -> Timestamp {
    let grace = cfg.daemon.grace_secs as i64;
    let mut wake = now + poll_interval(cfg, now).max(1);
    if !reports_due(cfg, now, written).is_empty() {
        wake = wake.min(now + (cfg.daemon.final_hour_interval_secs as i64).max(1));
    }
    for d in &cfg.days {
        let Some(c) = d.vote_closes.or(d.closes).map(|c| cfg.ts(c)) else {
            continue;
        };
        for t in [c - 3600, c, c + grace] {
            if t > now && t < wake && (t != c + grace || !written.contains(&d.number)) {
                wake = t;
            }
        }
    }
    wake
}

// ------------------------------------------------------------ API and PC pages (issue 13)
//
// The mobile API reads a thread in a handful of requests (a large `ppp`) but strips
// `[size]`; PC pages show everything at 10 posts a request. The hybrid: the API for bulk
// reads, PC pages for the newest page and for the posts the API cannot vouch for.

/// Whether an API message body shows styling that survives the API (colour, background,
/// bold, a style attribute). A poster who enlarges text usually colours or bolds it too,
/// so these are the posts whose PC page is read to judge font size. The quote header
/// (`div.reply_wrap` with its grey `font`) does not count.
pub fn api_body_styled(html: &str) -> bool {
    let mut own = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find("<div class=\"reply_wrap\">") {
        own.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = match rest.find("</div>") {
            Some(end) => &rest[end + "</div>".len()..],
            None => "",
        };
    }
    own.push_str(rest);
    let low = own.to_ascii_lowercase();
    ["<font", "<span style", " style=", "<strong", "<b>", "<big"]
        .iter()
        .any(|m| low.contains(m))
}

/// The PC page holding the post at `index` (0-based, in thread order) at `ppp` a page.
pub fn pc_page_of(index: usize, ppp: u32) -> u32 {
    (index / ppp.max(1) as usize) as u32 + 1
}

/// The PC posts per page that agrees with a thread of `count` posts filling `total` PC
/// pages: `current` if it fits, else the smallest that does.
pub fn learn_pc_ppp(count: usize, total: u32, current: u32) -> u32 {
    if count == 0 || total == 0 {
        return current;
    }
    let c = count as u64;
    let t = total as u64;
    let lo = c.div_ceil(t);
    let fits = |p: u64| p >= lo && (t == 1 || (t - 1) * p < c);
    if fits(current as u64) {
        current
    } else {
        lo.min(u32::MAX as u64) as u32
    }
}

/// The API pages (at `ppp` a page) holding the newest `window` of a thread's `count` posts.
pub fn api_pages_for_recent(count: u32, ppp: u32, window: u32) -> std::ops::RangeInclusive<u32> {
    let ppp = ppp.max(1);
    let last = count.div_ceil(ppp).max(1);
    let first_index = count.saturating_sub(window.max(1));
    (first_index / ppp + 1).min(last)..=last
}

/// A page number at `old_ppp` a page, for the same posts at `new_ppp` a page (the site's
/// API cap changed).
pub fn rescale_page(page: u32, old_ppp: u32, new_ppp: u32) -> u32 {
    let first_index = (page.max(1) as u64 - 1) * old_ppp.max(1) as u64;
    (first_index / new_ppp.max(1) as u64) as u32 + 1
}

/// PC pages for API-read posts at these indices, sorted, without those already read.
pub fn pc_pages_for(indices: &[usize], ppp: u32, read: &BTreeSet<u32>) -> Vec<u32> {
    let set: BTreeSet<u32> = indices
        .iter()
        .map(|&i| pc_page_of(i, ppp))
        .filter(|p| !read.contains(p))
        .collect();
    set.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn cfg() -> Config {
        Config::from_str(
            Path::new("g.toml"),
            r#"
[forum]
base_url = "http://127.0.0.1:1/"
[daemon]
poll_interval_secs = 300
final_hour_interval_secs = 60
grace_secs = 120
[game]
name = "g"
rules = "r.toml"
[[day]]
number = 1
discussion = [11]
vote = 12
opens = "2026-03-03 09:00"
closes = "2026-03-04 21:00"
[[day]]
number = 2
discussion = [21, 22]
vote = 23
process = 24
opens = "2026-03-04 21:00"
closes = "2026-03-05 21:00"
[[day]]
number = 3
discussion = [31]
vote = 32
opens = "2026-03-05 21:00"
closes = "2026-03-06 21:00"
"#,
        )
        .unwrap()
    }

    fn at(c: &Config, s: &str) -> Timestamp {
        crate::time::parse_local(s, c.tz).unwrap()
    }

    #[test]
    fn polls_current_and_previous_day_only() {
        let c = cfg();
        assert_eq!(
            active_threads(&c, at(&c, "2026-03-05 10:00")),
            vec![11, 12, 21, 22, 23, 24]
        );
        assert_eq!(active_threads(&c, at(&c, "2026-03-03 10:00")), vec![11, 12]);
    }

    #[test]
    fn grace_keeps_the_closing_day_current() {
        let c = cfg();
        // 21:01 on day 2's close: day 3 has opened but day 2 is within grace; day 3 wins as
        // current and day 2 is its previous day, so both are polled.
        assert_eq!(current_day(&c, at(&c, "2026-03-05 21:01")), Some(3));
        assert!(active_threads(&c, at(&c, "2026-03-05 21:01")).contains(&23));
        // After the last day closes (plus grace) nothing is current: everything is polled.
        let all = active_threads(&c, at(&c, "2026-03-08 10:00"));
        assert_eq!(all.len(), 8);
        assert_eq!(current_day(&c, at(&c, "2026-03-06 21:01")), Some(3));
        assert_eq!(current_day(&c, at(&c, "2026-03-06 21:02")), None);
    }

    #[test]
    fn interval_tightens_in_the_last_hour() {
        let c = cfg();
        assert_eq!(poll_interval(&c, at(&c, "2026-03-05 10:00")), 300);
        assert_eq!(poll_interval(&c, at(&c, "2026-03-05 20:30")), 60);
        assert_eq!(poll_interval(&c, at(&c, "2026-03-05 21:00")), 300);
    }

    #[test]
    fn wake_lands_on_final_hour_close_and_grace() {
        let c = cfg();
        // Day 1's reports are written (day 2 is the one closing).
        let none: BTreeSet<u32> = [1].into();
        assert_eq!(
            next_wake(&c, at(&c, "2026-03-05 19:58"), &none),
            at(&c, "2026-03-05 20:00")
        );
        assert_eq!(
            next_wake(&c, at(&c, "2026-03-05 20:59:30"), &none),
            at(&c, "2026-03-05 21:00")
        );
        assert_eq!(
            next_wake(&c, at(&c, "2026-03-05 21:01"), &none),
            at(&c, "2026-03-05 21:02")
        );
        let done: BTreeSet<u32> = [1, 2].into();
        assert_eq!(
            next_wake(&c, at(&c, "2026-03-05 21:01"), &done),
            at(&c, "2026-03-05 21:06")
        );
    }

    #[test]
    fn reports_that_fell_due_during_a_pass_are_not_left_for_the_next_poll() {
        // The pass ended after 关门 + grace with day 2's reports unwritten: retried at the
        // final hour's interval (60 s), not the ordinary 300 s.
        let c = cfg();
        assert_eq!(
            next_wake(&c, at(&c, "2026-03-05 21:03"), &[1].into()),
            at(&c, "2026-03-05 21:04")
        );
        let done: BTreeSet<u32> = [1, 2].into();
        assert_eq!(
            next_wake(&c, at(&c, "2026-03-05 21:03"), &done),
            at(&c, "2026-03-05 21:08")
        );
    }

    #[test]
    fn reports_fall_due_after_grace_once() {
        let c = cfg();
        let none = BTreeSet::new();
        assert!(reports_due(&c, at(&c, "2026-03-05 21:01"), &none) == vec![1]);
        assert_eq!(
            reports_due(&c, at(&c, "2026-03-05 21:02"), &none),
            vec![1, 2]
        );
        let done: BTreeSet<u32> = [1, 2].into();
        assert!(reports_due(&c, at(&c, "2026-03-05 22:00"), &done).is_empty());
    }

    #[test]
    fn pages_follow_the_pager_and_start_at_the_last_known() {
        let fresh = ThreadState {
            tid: 1,
            ..Default::default()
        };
        assert_eq!(first_page(&fresh), 1);
        let known = ThreadState {
            tid: 1,
            last_page: Some(7),
            total_pages: Some(7),
            last_recheck_at: None,
        };
        assert_eq!(first_page(&known), 7);
        assert_eq!(next_page(7, 7), None);
        assert_eq!(next_page(7, 9), Some(8));
    }

    #[test]
    fn recheck_covers_recent_pages_on_a_slow_cadence() {
        let p = Policy {
            recheck_pages: 3,
            recheck_interval: 1800,
        };
        let mut st = ThreadState {
            tid: 1,
            last_page: Some(7),
            total_pages: Some(7),
            last_recheck_at: Some(1000),
        };
        assert!(!recheck_due(&st, 2000, &p));
        assert!(recheck_due(&st, 2800, &p));
        st.last_recheck_at = None;
        assert!(recheck_due(&st, 0, &p));
        let fetched: BTreeSet<u32> = [7].into();
        assert_eq!(recheck_pages(7, &p, false, &fetched), vec![4, 5, 6]);
        assert_eq!(recheck_pages(2, &p, false, &fetched), vec![1, 2]);
        assert_eq!(recheck_pages(4, &p, true, &[4].into()), vec![1, 2, 3]);
        let never = ThreadState {
            tid: 1,
            ..Default::default()
        };
        assert!(!recheck_due(&never, 0, &p));
    }

    #[test]
    fn styling_that_survives_the_api_marks_a_post_for_its_pc_page() {
        assert!(api_body_styled("投票对象：<font color=\"Red\">乙</font>"));
        assert!(api_body_styled("<strong>大字</strong>"));
        assert!(api_body_styled(
            "<font style=\"background-color:yellow\">x</font>"
        ));
        assert!(!api_body_styled("投票对象：乙<br />\r\n理由：发言"));
        // The quote header's grey font is the API's own markup, not the poster's.
        let quoted = "<div class=\"reply_wrap\"><a href=\"x\"><font color=\"#999999\">甲 发表于 2026-3-4 09:00</font></a><br />\r\n原文</div><br />\r\n回复";
        assert!(!api_body_styled(quoted));
        assert!(api_body_styled(&format!(
            "{quoted}<font color=\"red\">红</font>"
        )));
    }

    #[test]
    fn pc_pages_of_api_posts_and_the_learned_page_size() {
        assert_eq!(pc_page_of(0, 10), 1);
        assert_eq!(pc_page_of(9, 10), 1);
        assert_eq!(pc_page_of(10, 10), 2);
        assert_eq!(pc_page_of(1999, 10), 200);
        assert_eq!(
            pc_pages_for(&[3, 5, 17, 1999], 10, &[200].into()),
            vec![1, 2]
        );
        assert_eq!(learn_pc_ppp(2000, 200, 10), 10);
        assert_eq!(learn_pc_ppp(2000, 100, 10), 20);
        assert_eq!(learn_pc_ppp(2001, 101, 20), 20);
        assert_eq!(learn_pc_ppp(7, 1, 10), 10);
        assert_eq!(learn_pc_ppp(0, 0, 10), 10);
    }

    #[test]
    fn recent_posts_span_one_api_page_unless_the_window_straddles() {
        assert_eq!(api_pages_for_recent(2000, 1000, 30), 2..=2);
        assert_eq!(api_pages_for_recent(1010, 1000, 30), 1..=2);
        assert_eq!(api_pages_for_recent(20, 1000, 30), 1..=1);
        assert_eq!(api_pages_for_recent(300, 30, 30), 10..=10);
        assert_eq!(rescale_page(2, 1000, 30), 34);
        assert_eq!(rescale_page(34, 30, 1000), 1);
        assert_eq!(rescale_page(1, 1000, 30), 1);
    }
}
