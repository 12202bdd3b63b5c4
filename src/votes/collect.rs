//! Tally phase 1: the day's ballot-shaped posts (first-seen text) and the 代投 the director
//! recorded, in time order; edited posts and unreadable posts are noted for the director.

use super::ballot::{misspelled_label, parse_ballot};
use super::tally::{Ctx, EditedPost, lock_zh, where_};
use crate::config::Event;
use crate::model::{Post, QuoteRef, Timestamp};
use crate::report::findpost_url;

/// A ballot before judging.
pub(super) struct Entry {
    pub voter: String,
    pub change: bool,
    pub proxy: bool,
    pub written: Option<String>,
    pub message: String,
    pub floor: Option<u32>,
    pub pid: Option<u64>,
    pub ts: Timestamp,
    pub quote: Option<QuoteRef>,
    pub edited: bool,
    pub url: Option<String>,
    /// The label as written, when the post is shaped like a ballot but its label is not a
    /// ballot key (`投票对像：`): listed, judged invalid.
    pub misspelled: Option<String>,
}

pub(super) struct Collected {
    pub entries: Vec<Entry>,
    pub edited_posts: Vec<EditedPost>,
    pub notes: Vec<String>,
}

pub(super) fn collect(cx: &Ctx, posts: &[Post]) -> Collected {
    let base_url = &cx.cfg.forum.base_url;
    let mut notes = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut edited_posts = Vec::new();
    for p in posts {
        if p.time > cx.as_of {
            continue;
        }
        let url = findpost_url(base_url, p.tid, p.pid);
        if p.edited() {
            edited_posts.push(EditedPost {
                author: p.author.clone(),
                floor: p.floor,
                pid: p.pid,
                first_seen_edited: p.revisions[0].edit.is_some(),
                revisions: p.revisions.iter().map(|r| r.text.clone()).collect(),
                url: url.clone(),
            });
        }
        if let Some(lock) = p.locked {
            notes.push(format!(
                "{} {} 的帖子内容不可见（{}），未作为投票读取 — {url}",
                where_(p.floor),
                p.author,
                lock_zh(lock)
            ));
            continue;
        }
        let text = &p.first().text;
        let Some(b) = parse_ballot(text) else {
            if let Some(m) = misspelled_label(text) {
                entries.push(Entry {
                    voter: p.author.clone(),
                    change: false,
                    proxy: false,
                    written: Some(m.written),
                    message: String::new(),
                    floor: p.floor,
                    pid: Some(p.pid),
                    ts: p.time,
                    quote: p.quote.clone(),
                    edited: p.edited(),
                    url: Some(url),
                    misspelled: Some(m.label),
                });
            }
            continue;
        };
        entries.push(Entry {
            voter: p.author.clone(),
            change: b.change,
            proxy: false,
            written: b.target,
            message: b.reason,
            floor: p.floor,
            pid: Some(p.pid),
            ts: p.time,
            quote: p.quote.clone(),
            edited: p.edited(),
            url: Some(url),
            misspelled: None,
        });
    }
    for e in &cx.cfg.events {
        if let Event::ProxyVote {
            day: d,
            voter,
            target,
            at,
        } = e
            && *d == cx.day
        {
            let ts = cx.cfg.ts(*at);
            if ts > cx.as_of {
                continue;
            }
            entries.push(Entry {
                voter: voter.clone(),
                change: false,
                proxy: true,
                written: if target == "弃权" {
                    None
                } else {
                    Some(target.clone())
                },
                message: String::new(),
                floor: None,
                pid: None,
                ts,
                quote: None,
                edited: false,
                url: None,
                misspelled: None,
            });
        }
    }
    entries.sort_by_key(|e| (e.ts, e.floor.unwrap_or(u32::MAX), e.pid.unwrap_or(u64::MAX)));
    Collected {
        entries,
        edited_posts,
        notes,
    }
}
