//! The daemon's paging state between runs (schema step 3): per thread the PC and API
//! cursors and when recent posts were last re-read; per forum whether the mobile API
//! refused and the PC page size learned from the pager.

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError, i};
use crate::model::Timestamp;

/// Where the daemon stands in one thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PollState {
    /// The last PC page read and the pager's page count then.
    pub pc_page: Option<u32>,
    pub pc_total: Option<u32>,
    /// The last mobile-API page read, at `api_ppp` posts a page.
    pub api_page: Option<u32>,
    pub api_ppp: Option<u32>,
    /// The thread's post count at the last API read of its last page.
    pub api_posts: Option<u32>,
    /// When recent posts were last re-read (edits, deletions).
    pub last_recheck_at: Option<Timestamp>,
}

/// What the daemon learned about a forum.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForumState {
    /// The mobile API refused (closed, missing, not JSON) at this time, and why.
    pub api_closed: Option<(Timestamp, String)>,
    /// PC posts per page, learned from the pager.
    pub pc_ppp: Option<u32>,
}

fn opt_u32(v: Option<i64>) -> Option<u32> {
    v.and_then(|x| u32::try_from(x).ok())
}

impl Store {
    /// The paging state of a thread (None: the daemon never started reading it).
    pub fn poll_state(&self, forum: &str, tid: u64) -> Result<Option<PollState>, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT pc_page, pc_total, api_page, api_ppp, api_posts, last_recheck_at FROM poll_state
                 WHERE forum = ?1 AND tid = ?2",
            )
            .and_then(|mut st| {
                st.query_row(params![forum, i(tid)], |r| {
                    Ok(PollState {
                        pc_page: opt_u32(r.get(0)?),
                        pc_total: opt_u32(r.get(1)?),
                        api_page: opt_u32(r.get(2)?),
                        api_ppp: opt_u32(r.get(3)?),
                        api_posts: opt_u32(r.get(4)?),
                        last_recheck_at: r.get(5)?,
                    })
                })
                .optional()
            })
            .map_err(|e| self.err(e))
    }

    /// Replace the paging state of a thread.
    pub fn set_poll_state(
        &mut self,
        forum: &str,
        tid: u64,
        s: &PollState,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO poll_state
                 (forum, tid, pc_page, pc_total, api_page, api_ppp, api_posts, last_recheck_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    forum,
                    i(tid),
                    s.pc_page,
                    s.pc_total,
                    s.api_page,
                    s.api_ppp,
                    s.api_posts,
                    s.last_recheck_at
                ])
            })
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Move a thread's live cursor (PC or API pages) after each page read, so a crash in
    /// the middle of a long read resumes where it stopped. Other columns stay.
    pub fn set_poll_cursor(
        &mut self,
        forum: &str,
        tid: u64,
        api: bool,
        page: u32,
        total_or_ppp: u32,
    ) -> Result<(), StoreError> {
        let sql = if api {
            "INSERT INTO poll_state (forum, tid, api_page, api_ppp) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (forum, tid) DO UPDATE SET api_page = ?3, api_ppp = ?4"
        } else {
            "INSERT INTO poll_state (forum, tid, pc_page, pc_total) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (forum, tid) DO UPDATE SET pc_page = ?3, pc_total = ?4"
        };
        self.conn
            .prepare_cached(sql)
            .and_then(|mut st| st.execute(params![forum, i(tid), page, total_or_ppp]))
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// What the daemon learned about a forum (all unknown for a new one).
    pub fn forum_state(&self, forum: &str) -> Result<ForumState, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT api_closed_at, api_closed_why, pc_ppp FROM forum_state WHERE forum = ?1",
            )
            .and_then(|mut st| {
                st.query_row(params![forum], |r| {
                    let at: Option<i64> = r.get(0)?;
                    let why: Option<String> = r.get(1)?;
                    Ok(ForumState {
                        api_closed: at.map(|t| (t, why.unwrap_or_default())),
                        pc_ppp: opt_u32(r.get(2)?),
                    })
                })
                .optional()
            })
            .map(Option::unwrap_or_default)
            .map_err(|e| self.err(e))
    }

    /// Replace what the daemon learned about a forum.
    pub fn set_forum_state(&mut self, forum: &str, s: &ForumState) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO forum_state (forum, api_closed_at, api_closed_why, pc_ppp)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    forum,
                    s.api_closed.as_ref().map(|c| c.0),
                    s.api_closed.as_ref().map(|c| c.1.clone()),
                    s.pc_ppp
                ])
            })
            .map_err(|e| self.err(e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_and_forum_state_round_trip_and_survive_reopening() {
        let dir = std::env::temp_dir().join(format!(
            "bansha-paging-{}-{}",
            std::process::id(),
            fastrand::u64(..)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("g.sqlite");
        let st = PollState {
            pc_page: Some(200),
            pc_total: Some(200),
            api_page: Some(2),
            api_ppp: Some(1000),
            api_posts: Some(2000),
            last_recheck_at: Some(1_772_596_800),
        };
        {
            let mut s = Store::open(&db).unwrap();
            assert_eq!(s.poll_state("f", 7).unwrap(), None);
            assert_eq!(s.forum_state("f").unwrap(), ForumState::default());
            s.set_poll_state("f", 7, &st).unwrap();
            s.set_forum_state(
                "f",
                &ForumState {
                    api_closed: Some((5, "mobile_is_closed".into())),
                    pc_ppp: Some(20),
                },
            )
            .unwrap();
        }
        let mut s = Store::open(&db).unwrap();
        assert_eq!(s.poll_state("f", 7).unwrap(), Some(st));
        s.set_poll_cursor("f", 7, false, 201, 201).unwrap();
        s.set_poll_cursor("f", 9, true, 3, 30).unwrap();
        let moved = s.poll_state("f", 7).unwrap().unwrap();
        assert_eq!((moved.pc_page, moved.pc_total), (Some(201), Some(201)));
        assert_eq!(moved.last_recheck_at, st.last_recheck_at);
        let fresh = s.poll_state("f", 9).unwrap().unwrap();
        assert_eq!(
            (fresh.api_page, fresh.api_ppp, fresh.pc_page),
            (Some(3), Some(30), None)
        );
        s.set_poll_state("f", 7, &st).unwrap();
        assert_eq!(s.poll_state("f", 8).unwrap(), None);
        let fs = s.forum_state("f").unwrap();
        assert_eq!(fs.api_closed, Some((5, "mobile_is_closed".into())));
        assert_eq!(fs.pc_ppp, Some(20));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
