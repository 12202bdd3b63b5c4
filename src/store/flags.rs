//! Moderation rows: flags (one per post and category, never deleted), the decisions on
//! them, the cards given, and the game's whitelisted phrases.

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError, i, u};
use crate::model::Timestamp;

/// A flag to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFlag {
    pub tid: u64,
    pub pid: u64,
    pub floor: Option<u32>,
    pub author: String,
    pub post_time: Timestamp,
    pub category: String,
    pub clause: String,
    pub card: String,
    pub matched: String,
    pub excerpt: String,
    pub reason: String,
    pub rev_hash: String,
    pub styling_checked: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagRow {
    pub id: i64,
    pub flag: NewFlag,
    pub created_at: Timestamp,
    pub status: String,
    pub decided_by: Option<String>,
    pub decided_at: Option<Timestamp>,
    pub decided_card: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardRow {
    pub id: i64,
    pub player: String,
    pub card: String,
    pub flag_id: Option<i64>,
    pub category: String,
    pub clause: String,
    pub given_by: String,
    pub given_at: Timestamp,
    pub withdrawn_by: Option<String>,
    pub withdrawn_at: Option<Timestamp>,
}

const FLAG_COLS: &str = "id, tid, pid, floor, author, post_time, category, clause, card, matched,
     excerpt, reason, rev_hash, styling_checked, created_at, status, decided_by, decided_at,
     decided_card";

fn flag_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FlagRow> {
    Ok(FlagRow {
        id: r.get(0)?,
        flag: NewFlag {
            tid: u(r.get(1)?),
            pid: u(r.get(2)?),
            floor: r.get::<_, Option<i64>>(3)?.map(|f| f as u32),
            author: r.get(4)?,
            post_time: r.get(5)?,
            category: r.get(6)?,
            clause: r.get(7)?,
            card: r.get(8)?,
            matched: r.get(9)?,
            excerpt: r.get(10)?,
            reason: r.get(11)?,
            rev_hash: r.get(12)?,
            styling_checked: r.get(13)?,
        },
        created_at: r.get(14)?,
        status: r.get(15)?,
        decided_by: r.get(16)?,
        decided_at: r.get(17)?,
        decided_card: r.get(18)?,
    })
}

impl Store {
    /// Record a flag unless the post already has one of that category (open or decided):
    /// the new flag's id, or None.
    pub fn insert_flag(
        &mut self,
        forum: &str,
        f: &NewFlag,
        at: Timestamp,
    ) -> Result<Option<i64>, StoreError> {
        let n = self
            .conn
            .execute(
                "INSERT OR IGNORE INTO flags (forum, tid, pid, floor, author, post_time, category,
                     clause, card, matched, excerpt, reason, rev_hash, styling_checked, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                params![
                    forum,
                    i(f.tid),
                    i(f.pid),
                    f.floor,
                    f.author,
                    f.post_time,
                    f.category,
                    f.clause,
                    f.card,
                    f.matched,
                    f.excerpt,
                    f.reason,
                    f.rev_hash,
                    f.styling_checked,
                    at
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok((n == 1).then(|| self.conn.last_insert_rowid()))
    }

    /// The revisions of thread `tid` the moderation scan has read: `(pid, rev_hash)`.
    pub fn scanned_revisions(
        &self,
        forum: &str,
        tid: u64,
    ) -> Result<std::collections::HashSet<(u64, String)>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT pid, rev_hash FROM flag_scans WHERE forum = ?1 AND tid = ?2")
            .map_err(|e| self.err(e))?;
        st.query_map(params![forum, i(tid)], |r| {
            Ok((u(r.get::<_, i64>(0)?), r.get::<_, String>(1)?))
        })
        .and_then(|r| r.collect())
        .map_err(|e| self.err(e))
    }

    /// Record that the scan has read these revisions of thread `tid` (after their flags
    /// are stored: a crash in between only costs a rescan, and flags are never doubled).
    pub fn mark_scanned(
        &mut self,
        forum: &str,
        tid: u64,
        revs: &[(u64, String)],
    ) -> Result<(), StoreError> {
        if revs.is_empty() {
            return Ok(());
        }
        let db = self.db.clone();
        let sq = |source| StoreError::Sqlite {
            db: db.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sq)?;
        {
            let mut st = tx
                .prepare(
                    "INSERT OR IGNORE INTO flag_scans (forum, tid, pid, rev_hash)
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sq)?;
            for (pid, hash) in revs {
                st.execute(params![forum, i(tid), i(*pid), hash])
                    .map_err(sq)?;
            }
        }
        tx.commit().map_err(sq)
    }

    /// Every flag of the forum, oldest first.
    pub fn flags(&self, forum: &str) -> Result<Vec<FlagRow>, StoreError> {
        let q = format!("SELECT {FLAG_COLS} FROM flags WHERE forum = ?1 ORDER BY id");
        let mut st = self.conn.prepare(&q).map_err(|e| self.err(e))?;
        st.query_map(params![forum], flag_row)
            .and_then(|r| r.collect())
            .map_err(|e| self.err(e))
    }

    pub fn flag(&self, forum: &str, id: i64) -> Result<Option<FlagRow>, StoreError> {
        let q = format!("SELECT {FLAG_COLS} FROM flags WHERE forum = ?1 AND id = ?2");
        self.conn
            .query_row(&q, params![forum, id], flag_row)
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Decide an open flag (confirmed with a card, or dismissed), and for a confirmation
    /// record the card, in one transaction. Returns the card's id. Refuses (Invalid) a flag
    /// that is not open: nothing changes.
    #[allow(clippy::too_many_arguments)]
    pub fn decide_flag(
        &mut self,
        forum: &str,
        id: i64,
        status: &str,
        card: Option<&str>,
        by: &str,
        at: Timestamp,
        whitelist: Option<&str>,
    ) -> Result<Option<i64>, StoreError> {
        let db = self.db.clone();
        let sq = |source| StoreError::Sqlite {
            db: db.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sq)?;
        let n = tx
            .execute(
                "UPDATE flags SET status = ?3, decided_by = ?4, decided_at = ?5, decided_card = ?6
                 WHERE forum = ?1 AND id = ?2 AND status = 'open'",
                params![forum, id, status, by, at, card],
            )
            .map_err(sq)?;
        if n != 1 {
            return Err(StoreError::Invalid {
                db: self.db.clone(),
                what: format!("flag {id} is not open"),
            });
        }
        let mut card_id = None;
        if let Some(c) = card {
            tx.execute(
                "INSERT INTO cards (forum, player, card, flag_id, category, clause, given_by, given_at)
                 SELECT forum, author, ?3, id, category, clause, ?4, ?5 FROM flags
                 WHERE forum = ?1 AND id = ?2",
                params![forum, id, c, by, at],
            )
            .map_err(sq)?;
            card_id = Some(tx.last_insert_rowid());
        }
        if let Some(p) = whitelist {
            tx.execute(
                "INSERT OR IGNORE INTO flag_whitelist (forum, phrase, added_by, added_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![forum, p, by, at],
            )
            .map_err(sq)?;
        }
        tx.commit().map_err(sq)?;
        Ok(card_id)
    }

    /// Open again a confirmed flag whose every card was withdrawn (the director overruled
    /// the decision, so it can be decided anew); whether it was reopened. Its withdrawn
    /// cards stay in the ledger as withdrawn.
    pub fn reopen_withdrawn_flag(&mut self, forum: &str, id: i64) -> Result<bool, StoreError> {
        let n = self
            .conn
            .execute(
                "UPDATE flags SET status = 'open', decided_by = NULL, decided_at = NULL,
                     decided_card = NULL
                 WHERE forum = ?1 AND id = ?2 AND status = 'confirmed'
                   AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.forum = flags.forum
                                   AND c.flag_id = flags.id AND c.withdrawn_at IS NULL)",
                params![forum, id],
            )
            .map_err(|e| self.err(e))?;
        Ok(n == 1)
    }

    /// A card not raised from a flag (潜水 from the activity report, a director's ruling).
    #[allow(clippy::too_many_arguments)]
    pub fn add_card(
        &mut self,
        forum: &str,
        player: &str,
        card: &str,
        category: &str,
        clause: &str,
        by: &str,
        at: Timestamp,
    ) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO cards (forum, player, card, category, clause, given_by, given_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![forum, player, card, category, clause, by, at],
            )
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Withdraw a card (the director overrules). Refuses a card that does not exist or is
    /// already withdrawn.
    pub fn withdraw_card(
        &mut self,
        forum: &str,
        id: i64,
        by: &str,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        let n = self
            .conn
            .execute(
                "UPDATE cards SET withdrawn_by = ?3, withdrawn_at = ?4
                 WHERE forum = ?1 AND id = ?2 AND withdrawn_at IS NULL",
                params![forum, id, by, at],
            )
            .map_err(|e| self.err(e))?;
        if n != 1 {
            return Err(StoreError::Invalid {
                db: self.db.clone(),
                what: format!("card {id} does not exist or is already withdrawn"),
            });
        }
        Ok(())
    }

    /// Every card of the forum (withdrawn ones too), oldest first.
    pub fn cards(&self, forum: &str) -> Result<Vec<CardRow>, StoreError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT id, player, card, flag_id, category, clause, given_by, given_at,
                        withdrawn_by, withdrawn_at
                 FROM cards WHERE forum = ?1 ORDER BY given_at, id",
            )
            .map_err(|e| self.err(e))?;
        st.query_map(params![forum], |r| {
            Ok(CardRow {
                id: r.get(0)?,
                player: r.get(1)?,
                card: r.get(2)?,
                flag_id: r.get(3)?,
                category: r.get(4)?,
                clause: r.get(5)?,
                given_by: r.get(6)?,
                given_at: r.get(7)?,
                withdrawn_by: r.get(8)?,
                withdrawn_at: r.get(9)?,
            })
        })
        .and_then(|r| r.collect())
        .map_err(|e| self.err(e))
    }

    /// The phrases whitelisted for this game.
    pub fn flag_whitelist(&self, forum: &str) -> Result<Vec<String>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT phrase FROM flag_whitelist WHERE forum = ?1 ORDER BY phrase")
            .map_err(|e| self.err(e))?;
        st.query_map(params![forum], |r| r.get(0))
            .and_then(|r| r.collect())
            .map_err(|e| self.err(e))
    }

    /// Hashes of a thread's revisions fetched through the mobile API (or imported from its
    /// JSON) with no enlarged text: their styling could not be checked ([size] is stripped).
    pub fn unstyled_revisions(
        &self,
        forum: &str,
        tid: u64,
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT hash FROM revisions WHERE forum = ?1 AND tid = ?2 AND large = ''
                 AND (source LIKE '%api/mobile/%' OR source LIKE '%.json')",
            )
            .map_err(|e| self.err(e))?;
        st.query_map(params![forum, i(tid)], |r| r.get(0))
            .and_then(|r| r.collect())
            .map_err(|e| self.err(e))
    }
}
