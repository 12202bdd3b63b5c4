//! The game's timeline as the engine keeps it: each resolved phase (a night, a confirmed
//! day outcome) with its input and its result, one row per phase. Re-resolving a phase
//! replaces its row and marks every later phase stale (its stored result may no longer
//! follow from the new history). The table `engine_phases` is schema step 5
//! (`schema.rs`).

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};

/// One stored phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPhase {
    pub kind: String,
    pub number: u32,
    pub input: String,
    pub result: String,
    pub stale: bool,
    /// How many times this phase was resolved.
    pub revision: u32,
}

impl StoredPhase {
    /// The timeline position of a phase: `2·n` for day n; a night sits just after its day
    /// (`2·n + 1`), or just before it where the rule set's night n precedes day n
    /// (`night_before_day`: `2·n − 1`).
    pub fn ord(kind: &str, number: u32, night_before_day: bool) -> i64 {
        let n = number as i64 * 2;
        match (kind == "night", night_before_day) {
            (false, _) => n,
            (true, false) => n + 1,
            (true, true) => n - 1,
        }
    }
}

impl Store {
    /// Store (or replace) a phase's input and result; every later phase becomes stale.
    /// Returns the phases marked stale by this call.
    pub fn put_phase(
        &mut self,
        kind: &str,
        number: u32,
        night_before_day: bool,
        input: &str,
        result: &str,
    ) -> Result<Vec<(String, u32)>, StoreError> {
        let ord = StoredPhase::ord(kind, number, night_before_day);
        let db = self.db.clone();
        let e = |source| StoreError::Sqlite {
            db: db.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(e)?;
        let rev: Option<i64> = tx
            .query_row(
                "SELECT revision FROM engine_phases WHERE kind = ?1 AND number = ?2",
                params![kind, number],
                |r| r.get(0),
            )
            .optional()
            .map_err(e)?;
        tx.execute(
            "INSERT OR REPLACE INTO engine_phases (kind, number, ord, input, result, stale, revision)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)",
            params![kind, number, ord, input, result, rev.unwrap_or(0) + 1],
        )
        .map_err(e)?;
        let mut stale = Vec::new();
        {
            let mut st = tx
                .prepare("SELECT kind, number FROM engine_phases WHERE ord > ?1 AND stale = 0 ORDER BY ord")
                .map_err(e)?;
            let rows = st
                .query_map(params![ord], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?))
                })
                .map_err(e)?;
            for r in rows {
                stale.push(r.map_err(e)?);
            }
        }
        tx.execute(
            "UPDATE engine_phases SET stale = 1 WHERE ord > ?1",
            params![ord],
        )
        .map_err(e)?;
        tx.commit().map_err(e)?;
        Ok(stale)
    }

    /// Every stored phase in timeline order (night N after day N).
    pub fn phases(&self) -> Result<Vec<StoredPhase>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT kind, number, input, result, stale, revision FROM engine_phases ORDER BY ord")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(StoredPhase {
                    kind: r.get(0)?,
                    number: r.get(1)?,
                    input: r.get(2)?,
                    result: r.get(3)?,
                    stale: r.get::<_, i64>(4)? != 0,
                    revision: r.get(5)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn re_resolving_a_night_replaces_it_and_marks_later_phases_stale() {
        let mut s = Store::open_in_memory().unwrap();
        s.put_phase("night", 0, false, "{}", "r0").unwrap();
        s.put_phase("day", 1, false, "{}", "d1").unwrap();
        s.put_phase("night", 1, false, "{}", "n1").unwrap();
        s.put_phase("day", 2, false, "{}", "d2").unwrap();
        let stale = s.put_phase("night", 1, false, "{}", "n1b").unwrap();
        assert_eq!(stale, vec![("day".to_string(), 2)]);
        let p = s.phases().unwrap();
        let got: Vec<(&str, u32, &str, bool, u32)> = p
            .iter()
            .map(|x| {
                (
                    x.kind.as_str(),
                    x.number,
                    x.result.as_str(),
                    x.stale,
                    x.revision,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("night", 0, "r0", false, 1),
                ("day", 1, "d1", false, 1),
                ("night", 1, "n1b", false, 2),
                ("day", 2, "d2", true, 1),
            ]
        );
    }

    #[test]
    fn a_night_before_its_day_sorts_before_it() {
        // 075: 开局 (night 0), day 1, night 1, day 2.
        let o = |k, n| StoredPhase::ord(k, n, false);
        assert!(o("night", 0) < o("day", 1) && o("day", 1) < o("night", 1));
        assert!(o("night", 1) < o("day", 2));
        // 灵族杀: night 1, day 1, night 2, day 2.
        let o = |k, n| StoredPhase::ord(k, n, true);
        assert!(o("night", 1) < o("day", 1) && o("day", 1) < o("night", 2));
        assert!(o("night", 2) < o("day", 2));
    }
}
