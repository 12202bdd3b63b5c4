//! `bansha posts`: what the store holds, per thread, by floor.

use std::fmt::Write as _;

use chrono_tz::Tz;
use serde_json::{Value, json};

use super::*;
use crate::config::Config;
use crate::model::Post;
use crate::report::{bbcode_escape, findpost_url};
use crate::store::{Store, lock_str};
use crate::time::format_local;

pub fn run(a: &PostsArgs) -> CliResult {
    let cfg = load_config(&a.config)?;
    let store = guard::open_store(&cfg)?;
    let tids = select_tids(&cfg, &store, a.tid, a.day)?;
    let forum = cfg.forum_key();
    let mut threads = Vec::new();
    for tid in tids {
        let title = store
            .thread(&forum, tid)
            .map_err(CliError::runtime)?
            .map(|t| t.title)
            .unwrap_or_default();
        let posts = store.posts(&forum, tid).map_err(CliError::runtime)?;
        threads.push((tid, title, posts));
    }
    if threads.iter().all(|t| t.2.is_empty()) {
        let names: Vec<String> = threads.iter().map(|t| format!("thread {}", t.0)).collect();
        return Err(CliError::Input(format!(
            "{}: no stored pages for {}; run `bansha sync --config {c}` or `bansha import \
             --config {c} --tid TID SAVED-PAGES` first",
            cfg.db_path().display(),
            if names.is_empty() {
                "any thread".to_string()
            } else {
                names.join(", ")
            },
            c = cfg.path.display()
        )));
    }
    let out = match a.format.format {
        Format::Json => {
            let all: Vec<&Post> = threads.iter().flat_map(|t| t.2.iter()).collect();
            serde_json::to_string_pretty(&posts_json(&all, cfg.tz)).map_err(CliError::runtime)?
        }
        Format::Text => posts_text(&threads, cfg.tz),
        Format::Bbcode => posts_bbcode(&threads, &cfg.forum.base_url, cfg.tz),
    };
    emit(&format!("{}\n", out.trim_end()))
}

/// `--tid`, `--day`, both (the tid must belong to the day), or every thread the config
/// names plus every thread stored for this forum.
fn select_tids(
    cfg: &Config,
    store: &Store,
    tid: Option<u64>,
    day: Option<u32>,
) -> Result<Vec<u64>, CliError> {
    let day_tids = match day {
        None => None,
        Some(n) => {
            let Some(d) = cfg.day(n) else {
                return Err(CliError::Input(format!(
                    "{}: day {n} is not in the config ([[day]] number = {n})",
                    cfg.path.display()
                )));
            };
            let mut v: Vec<u64> = d.discussion.clone();
            v.extend(d.vote);
            v.extend(d.process);
            Some(v)
        }
    };
    let mut tids = match (tid, day_tids) {
        (Some(t), Some(v)) => {
            if !v.contains(&t) {
                return Err(CliError::Input(format!(
                    "{}: thread {t} is not one of day {}'s threads ({})",
                    cfg.path.display(),
                    day.unwrap_or_default(),
                    v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
                )));
            }
            vec![t]
        }
        (Some(t), None) => vec![t],
        (None, Some(v)) => v,
        (None, None) => {
            let mut v: Vec<u64> = cfg.threads().into_iter().map(|t| t.2).collect();
            v.extend(store.tids(&cfg.forum_key()).map_err(CliError::runtime)?);
            v
        }
    };
    tids.sort_unstable();
    tids.dedup();
    Ok(tids)
}

/// The contract's `posts` JSON (plus `missing_since`, `locked`, `revisions_detail`).
pub fn posts_json(posts: &[&Post], tz: Tz) -> Value {
    Value::Array(
        posts
            .iter()
            .map(|p| {
                let cur = p.current();
                let revs: Vec<Value> = p
                    .revisions
                    .iter()
                    .map(|r| {
                        json!({
                            "seen_at": format_local(r.seen_at, tz),
                            "hash": r.hash,
                            "edit": r.edit.as_ref().map(|e| json!({
                                "editor": e.editor,
                                "time": e.time.map(|t| format_local(t, tz)),
                            })),
                            "text": r.text,
                            "red": r.red,
                            "large": r.large,
                        })
                    })
                    .collect();
                json!({
                    "tid": p.tid,
                    "pid": p.pid,
                    "floor": p.floor,
                    "author": p.author,
                    "uid": p.uid,
                    "time": format_local(p.time, tz),
                    "quote_pid": p.quote.as_ref().and_then(|q| q.pid),
                    "text": cur.text,
                    "red": cur.red,
                    "large": cur.large,
                    "edited": p.edited(),
                    "missing": p.missing(),
                    "missing_since": p.missing_since.map(|t| format_local(t, tz)),
                    "locked": p.locked.map(lock_str),
                    "revisions": p.revisions.len(),
                    "revisions_detail": revs,
                })
            })
            .collect(),
    )
}

fn indent(s: &str, pad: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        let _ = writeln!(out, "{pad}{line}");
    }
    out
}

/// For people: each thread, then each post with its revisions.
pub fn posts_text(threads: &[(u64, String, Vec<Post>)], tz: Tz) -> String {
    let mut out = String::new();
    for (tid, title, posts) in threads {
        let _ = writeln!(out, "== 帖子 {tid} {title} ({} posts) ==", posts.len());
        for p in posts {
            let floor = p
                .floor
                .map(|f| format!("{f}#"))
                .unwrap_or_else(|| "?#".into());
            let _ = write!(
                out,
                "{floor} {} {} pid {}",
                p.author,
                format_local(p.time, tz),
                p.pid
            );
            if let Some(q) = p.quote.as_ref().and_then(|q| q.pid) {
                let _ = write!(out, " quotes pid {q}");
            }
            if let Some(t) = p.missing_since {
                let _ = write!(out, " [missing since {}]", format_local(t, tz));
            }
            if let Some(k) = p.locked {
                let _ = write!(out, " [locked: {}]", lock_str(k));
            }
            if p.edited() {
                let _ = write!(out, " [edited]");
            }
            out.push('\n');
            for (n, r) in p.revisions.iter().enumerate() {
                if p.revisions.len() > 1 {
                    let _ = write!(
                        out,
                        "  -- revision {} seen {}",
                        n + 1,
                        format_local(r.seen_at, tz)
                    );
                    if let Some(e) = &r.edit {
                        let _ = write!(out, ", edited by {}", e.editor);
                        if let Some(t) = e.time {
                            let _ = write!(out, " at {}", format_local(t, tz));
                        }
                    }
                    out.push('\n');
                }
                out.push_str(&indent(&r.text, "    "));
                if !r.red.is_empty() {
                    out.push_str(&indent(&r.red, "    red: "));
                }
                if !r.large.is_empty() {
                    out.push_str(&indent(&r.large, "    large: "));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// A BBCode listing with findpost links (player text made inert).
pub fn posts_bbcode(threads: &[(u64, String, Vec<Post>)], base_url: &str, tz: Tz) -> String {
    let mut out = String::new();
    for (tid, title, posts) in threads {
        let _ = writeln!(out, "[b]{}[/b]", bbcode_escape(&format!("{tid} {title}")));
        for p in posts {
            let floor = p
                .floor
                .map(|f| format!("{f}#"))
                .unwrap_or_else(|| "?#".into());
            let mut flags = String::new();
            if p.missing() {
                flags.push_str(" （已删除）");
            }
            if p.edited() {
                flags.push_str(" （已编辑）");
            }
            let _ = writeln!(
                out,
                "[url={}]{floor}[/url] {} {}{flags}：{}",
                findpost_url(base_url, *tid, p.pid),
                bbcode_escape(&p.author),
                format_local(p.time, tz),
                bbcode_escape(&p.current().text.replace('\n', " "))
            );
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EditNotice, Revision};

    fn rev(text: &str, seen_at: i64, edit: Option<EditNotice>) -> Revision {
        Revision {
            seen_at,
            hash: format!("h{seen_at}"),
            edit,
            html: String::new(),
            text: text.into(),
            red: String::new(),
            large: String::new(),
        }
    }

    fn sample() -> Post {
        Post {
            tid: 1002,
            pid: 555,
            floor: Some(5),
            author: "傻树".into(),
            uid: Some(101),
            // 2026-03-04 10:00:00 +08:00
            time: 1_772_589_600,
            quote: None,
            revisions: vec![
                rev("投 [b]白色防御者[/b]", 1_772_589_660, None),
                rev(
                    "投 弃权",
                    1_772_589_720,
                    Some(EditNotice {
                        editor: "傻树".into(),
                        time: Some(1_772_589_700),
                    }),
                ),
            ],
            missing_since: None,
            locked: None,
        }
    }

    #[test]
    fn json_has_the_contract_keys_with_current_text() {
        let tz: Tz = "Asia/Shanghai".parse().unwrap();
        let p = sample();
        let v = posts_json(&[&p], tz);
        let o = &v[0];
        for k in [
            "tid",
            "pid",
            "floor",
            "author",
            "uid",
            "time",
            "quote_pid",
            "text",
            "red",
            "large",
            "edited",
            "missing",
            "revisions",
        ] {
            assert!(o.get(k).is_some(), "missing key {k}");
        }
        assert_eq!(o["time"], "2026-03-04 10:00:00");
        assert_eq!(o["text"], "投 弃权");
        assert_eq!(o["revisions"], 2);
        assert_eq!(o["edited"], true);
        assert_eq!(o["missing"], false);
        assert_eq!(o["quote_pid"], Value::Null);
        assert_eq!(o["revisions_detail"][0]["text"], "投 [b]白色防御者[/b]");
        assert_eq!(
            o["revisions_detail"][1]["edit"]["time"],
            "2026-03-04 10:01:40"
        );
    }

    #[test]
    fn text_shows_every_revision_and_bbcode_is_inert() {
        let tz: Tz = "Asia/Shanghai".parse().unwrap();
        let threads = vec![(1002, "投票帖".to_string(), vec![sample()])];
        let t = posts_text(&threads, tz);
        assert!(
            t.contains("5# 傻树 2026-03-04 10:00:00 pid 555 [edited]"),
            "{t}"
        );
        assert!(t.contains("revision 1 seen 2026-03-04 10:01:00"), "{t}");
        assert!(
            t.contains(
                "revision 2 seen 2026-03-04 10:02:00, edited by 傻树 at 2026-03-04 10:01:40"
            ),
            "{t}"
        );
        assert!(t.contains("    投 [b]白色防御者[/b]\n"), "{t}");
        let b = posts_bbcode(&threads, "http://bbs.example.com/", tz);
        assert!(b.contains("pid=555"), "{b}");
        assert!(!b.contains("[b]白色"), "{b}");
    }
}
