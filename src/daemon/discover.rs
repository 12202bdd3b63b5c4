//! Optional discovery of each day's threads: list a board (`module=forumdisplay`, `fid`)
//! and pick the threads whose title matches `title_pattern`, so the director does not have
//! to edit the config every day. Pure: thread list + pattern + config in, changes out.

use regex::Regex;

use crate::config::{Config, Day, LocalTime, ThreadKind};
use crate::discuz::ThreadSummary;
use crate::model::Timestamp;

/// A day thread found on the board and not yet in the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub day: u32,
    pub kind: ThreadKind,
    pub tid: u64,
    pub subject: String,
    /// When the thread was started (its first post).
    pub time: Timestamp,
}

/// What kind of day thread a title names: 投票 → vote, 进程/加速/延时 → process, else
/// discussion.
pub fn kind_of(subject: &str) -> ThreadKind {
    if subject.contains("投票") {
        ThreadKind::Vote
    } else if ["进程", "加速", "延时"].iter().any(|w| subject.contains(w)) {
        ThreadKind::Process
    } else {
        ThreadKind::Discussion
    }
}

/// The day number from a title: the `day` capture group, else the first group, else the
/// first run of digits in the match. Full-width digits count.
pub fn day_of(subject: &str, pattern: &Regex) -> Option<u32> {
    let caps = pattern.captures(subject)?;
    let m = caps
        .name("day")
        .or_else(|| caps.get(1))
        .or_else(|| caps.get(0))?;
    let digits: String = m
        .as_str()
        .chars()
        .filter_map(|c| match c {
            '0'..='9' => Some(c),
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32),
            _ => None,
        })
        .collect();
    digits.parse().ok()
}

/// The threads of `list` that match `pattern` and that the config does not name yet.
pub fn new_threads(cfg: &Config, list: &[ThreadSummary], pattern: &Regex) -> Vec<Found> {
    let known: Vec<u64> = cfg.threads().into_iter().map(|(_, _, t)| t).collect();
    let mut v: Vec<Found> = list
        .iter()
        .filter(|t| !known.contains(&t.tid))
        .filter_map(|t| {
            Some(Found {
                day: day_of(&t.subject, pattern)?,
                kind: kind_of(&t.subject),
                tid: t.tid,
                subject: t.subject.clone(),
                time: t.time,
            })
        })
        .collect();
    v.sort_by_key(|f| f.tid);
    v.dedup_by_key(|f| f.tid);
    v
}

/// Add a found thread to the in-memory config. A new day opens when its first thread was
/// started and has no 关门 until the director sets one. Returns false when the slot is
/// taken (a second vote thread for a day): the director decides.
pub fn add_to_config(cfg: &mut Config, f: &Found) -> bool {
    if cfg.day(f.day).is_none() {
        let opens = LocalTime(crate::time::to_local(f.time, cfg.tz).naive_local());
        cfg.days.push(Day {
            number: f.day,
            discussion: Vec::new(),
            vote: None,
            process: None,
            opens: Some(opens),
            closes: None,
            vote_closes: None,
        });
        cfg.days.sort_by_key(|d| d.number);
    }
    let day = cfg
        .days
        .iter_mut()
        .find(|d| d.number == f.day)
        .expect("just added");
    match f.kind {
        ThreadKind::Discussion => {
            day.discussion.push(f.tid);
            true
        }
        ThreadKind::Vote if day.vote.is_none() => {
            day.vote = Some(f.tid);
            true
        }
        ThreadKind::Process if day.process.is_none() => {
            day.process = Some(f.tid);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn summary(tid: u64, subject: &str) -> ThreadSummary {
        ThreadSummary {
            tid,
            subject: subject.into(),
            author: "导演".into(),
            author_uid: Some(1),
            time: 1_772_600_000,
            replies: 0,
        }
    }

    #[test]
    fn finds_new_day_threads_by_title() {
        let mut cfg = Config::from_str(
            Path::new("g.toml"),
            "[forum]\nbase_url = \"http://h/\"\n[game]\nname = \"g\"\nrules = \"r\"\n\
             [[day]]\nnumber = 1\ndiscussion = [10]\nvote = 11\n",
        )
        .unwrap();
        let re = Regex::new(r"\[075\]\s*D(?P<day>\d+)").unwrap();
        let list = vec![
            summary(10, "[075] D1 讨论帖"),
            summary(20, "[075] D2 讨论帖"),
            summary(21, "[075] D2 投票帖"),
            summary(22, "[075] D2 加速延时申请"),
            summary(30, "[076] D2 讨论帖"),
            summary(31, "闲聊"),
        ];
        let found = new_threads(&cfg, &list, &re);
        assert_eq!(
            found
                .iter()
                .map(|f| (f.day, f.kind, f.tid))
                .collect::<Vec<_>>(),
            vec![
                (2, ThreadKind::Discussion, 20),
                (2, ThreadKind::Vote, 21),
                (2, ThreadKind::Process, 22)
            ]
        );
        for f in &found {
            assert!(add_to_config(&mut cfg, f));
        }
        let d2 = cfg.day(2).unwrap();
        assert_eq!(
            (d2.discussion.clone(), d2.vote, d2.process),
            (vec![20], Some(21), Some(22))
        );
        assert!(d2.opens.is_some() && d2.closes.is_none());
        // A second vote thread for day 2 is not taken silently.
        let dup = Found {
            tid: 23,
            ..found[1].clone()
        };
        assert!(!add_to_config(&mut cfg, &dup));
        assert!(new_threads(&cfg, &list, &re).is_empty());
    }

    #[test]
    fn day_number_from_group_or_digits() {
        let re = Regex::new(r"第(\S+)天").unwrap();
        assert_eq!(day_of("【版杀】第３天 讨论", &re), Some(3));
        assert_eq!(day_of("第12天", &re), Some(12));
        assert_eq!(day_of("第X天", &re), None);
    }
}
