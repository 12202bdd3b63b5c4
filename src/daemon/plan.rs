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
/// (关门 + grace) or the final hour begins.
pub fn next_wake(cfg: &Config, now: Timestamp, written: &BTreeSet<u32>) -> Timestamp {
    let grace = cfg.daemon.grace_secs as i64;
    let mut wake = now + poll_interval(cfg, now).max(1);
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
        let none = BTreeSet::new();
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
        let done: BTreeSet<u32> = [2].into();
        assert_eq!(
            next_wake(&c, at(&c, "2026-03-05 21:01"), &done),
            at(&c, "2026-03-05 21:06")
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
}
