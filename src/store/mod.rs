//! The SQLite post store: posts keyed by (forum, tid, pid), revisions, missing marks, fetch log.
//!
//! What it promises (issue 2, "Store"):
//! - The pid is the only stable key. Floors change (stock X3.4 renumbers after a deletion):
//!   the latest floor is kept and every change is recorded in `floor_changes`.
//! - Storing a page is one transaction and idempotent: the same page twice changes nothing
//!   but adds a fetch-log row.
//! - Nothing is lost: the first-seen content is kept; a changed content adds a revision.
//!   The content hash covers the cleaned text, the red text and the edit notice (whitespace
//!   runs collapsed) — not the raw HTML, which carries per-render jammer noise, relative
//!   attachment times and download counts, and not the enlarged text, which the mobile API
//!   cannot show (an HTML fetch fills it in on the revision it belongs to).
//! - A post gone from its page is marked missing (never deleted), and un-marked when it
//!   comes back; both are logged in `presence_log`. Missing-ness is judged only for stored
//!   pids inside the fetched page's pid span (the last page: from its first pid on), and
//!   never from author-filtered pages.
//! - A locked body (banned author, 仅作者可见…) never adds a revision over readable content.
//! - A decoding error is not an edit (issue 11): content that is only a mis-decoding of the
//!   latest revision (UTF-8 read as GBK — 鎶曠エ for 投票 — or replacement characters
//!   where the stored text has characters) adds no revision; a stored revision that is
//!   exactly the mis-decoding of the content now seen (written before the charset was
//!   judged from the bytes) is corrected in place. See [`decoding_error_of`].
//! - A post stored with an unknown time (`discuz::UNKNOWN_TIME`, 0) gets its time from the
//!   first later page that shows it.

mod flags;
mod paging;
mod quote;
mod schema;
mod timeline;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

use ring::digest::{Context, SHA256};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use crate::model::{
    EditNotice, LockKind, PagePost, Post, QuoteRef, Revision, ThreadPage, Timestamp,
};

pub use flags::{CardRow, FlagRow, NewFlag};
pub use paging::{ForumState, PollState};
pub use quote::resolve_quotes;
pub use timeline::StoredPhase;

/// The schema version this build writes (the number of migrations).
pub const SCHEMA_VERSION: i64 = schema::MIGRATIONS.len() as i64;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{db}: cannot open the database: {source}")]
    Open {
        db: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "{db}: the database has schema version {found}, newer than this bansha understands \
         ({supported}); use a newer bansha"
    )]
    TooNew {
        db: String,
        found: i64,
        supported: i64,
    },
    #[error("{db}: migrating the schema to version {version}: {source}")]
    Migrate {
        db: String,
        version: i64,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{db}: {source}")]
    Sqlite {
        db: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{db}: {what}")]
    Invalid { db: String, what: String },
}

/// Where a page came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// A PC page fetched over HTTP.
    Html,
    /// A mobile-API JSON response fetched over HTTP.
    Api,
    /// A saved file (`bansha import`).
    File,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Html => "html",
            SourceKind::Api => "api",
            SourceKind::File => "file",
        }
    }
    fn parse(s: &str) -> SourceKind {
        match s {
            "html" => SourceKind::Html,
            "api" => SourceKind::Api,
            _ => SourceKind::File,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchInfo {
    /// URL or file path.
    pub source: String,
    pub kind: SourceKind,
    pub page: u32,
    pub fetched_at: Timestamp,
}

/// What storing one page changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageChanges {
    pub new_posts: Vec<u64>,
    /// Posts whose content changed (a new revision).
    pub changed: Vec<u64>,
    /// Posts newly marked missing (gone from the page, or their floor shown deleted).
    pub missing: Vec<u64>,
    /// Posts that were missing and are back.
    pub reappeared: Vec<u64>,
    /// (pid, old floor, new floor) for each floor change.
    pub refloored: Vec<(u64, Option<u32>, Option<u32>)>,
}

impl PageChanges {
    pub fn is_empty(&self) -> bool {
        self.new_posts.is_empty()
            && self.changed.is_empty()
            && self.missing.is_empty()
            && self.reappeared.is_empty()
            && self.refloored.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadRecord {
    pub tid: u64,
    pub title: String,
    pub total_pages: u32,
    pub last_page_seen: u32,
    pub last_pid: Option<u64>,
    /// Posts stored for this thread (missing ones included).
    pub posts: u32,
    pub last_fetched_at: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchLogEntry {
    pub id: i64,
    pub tid: u64,
    pub source: String,
    pub kind: SourceKind,
    pub page: u32,
    pub fetched_at: Timestamp,
    /// `ok`, or what went wrong.
    pub outcome: String,
    pub posts_seen: u32,
    pub new_posts: u32,
    pub changed: u32,
    pub missing: u32,
}

/// The fingerprint of a stored page and what the forum served for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFingerprint {
    pub fingerprint: String,
    pub served_page: u32,
    pub total_pages: u32,
}

/// One floor change of a post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FloorChange {
    pub pid: u64,
    pub old_floor: Option<u32>,
    pub new_floor: Option<u32>,
    pub seen_at: Timestamp,
    pub source: String,
}

/// One presence event of a post: `missing`, `deleted` or `reappeared`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresenceEvent {
    pub pid: u64,
    pub event: String,
    pub at: Timestamp,
    pub source: String,
}

pub struct Store {
    conn: Connection,
    /// The database file, for error messages.
    db: String,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("db", &self.db).finish()
    }
}

/// The content hash of a revision (see the module docs for what it covers).
pub fn content_hash(text: &str, red: &str, edit: Option<&EditNotice>) -> String {
    /// The words of `s` joined by single spaces (whitespace runs collapsed), hashed
    /// without building the joined string.
    fn norm(h: &mut Context, s: &str) {
        for (i, w) in s.split_whitespace().enumerate() {
            if i > 0 {
                h.update(b" ");
            }
            h.update(w.as_bytes());
        }
    }
    let mut h = Context::new(&SHA256);
    h.update(b"bansha-rev-1\0");
    norm(&mut h, text);
    h.update(b"\0");
    norm(&mut h, red);
    h.update(b"\0");
    if let Some(e) = edit {
        h.update(e.editor.as_bytes());
        h.update(b"\0");
        if let Some(t) = e.time {
            h.update(t.to_string().as_bytes());
        }
    }
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let out = h.finish();
    let mut s = String::with_capacity(64);
    for &b in out.as_ref() {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

pub fn lock_str(k: LockKind) -> &'static str {
    match k {
        LockKind::BannedAuthor => "banned-author",
        LockKind::ModeratorBlocked => "moderator-blocked",
        LockKind::AuthorOnly => "author-only",
        LockKind::Password => "password",
        LockKind::Hidden => "hidden",
        LockKind::Pending => "pending",
        LockKind::Other => "other",
    }
}

fn lock_parse(s: &str) -> LockKind {
    match s {
        "banned-author" => LockKind::BannedAuthor,
        "moderator-blocked" => LockKind::ModeratorBlocked,
        "author-only" => LockKind::AuthorOnly,
        "password" => LockKind::Password,
        "hidden" => LockKind::Hidden,
        "pending" => LockKind::Pending,
        _ => LockKind::Other,
    }
}

/// The database's folder, when it does not exist.
fn missing_folder(path: &Path) -> Option<String> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty())?;
    (!parent.is_dir()).then(|| {
        format!(
            "the folder `{}` does not exist (create it, or fix `db` in the game config)",
            parent.display()
        )
    })
}

/// Why bansha cannot write the database or create files beside it (SQLite's -wal and
/// -shm files), if it cannot: a read-only mount, file or folder permissions.
fn unwritable(path: &Path) -> Option<String> {
    if path.exists()
        && let Err(e) = std::fs::OpenOptions::new().append(true).open(path)
    {
        return Some(format!(
            "cannot write the database: {e} (a read-only mount or file permissions?)"
        ));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let probe = dir.join(format!(".bansha-write-probe-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            None
        }
        Err(e) => Some(format!(
            "cannot create files in the folder `{}`: {e} (SQLite writes its -wal and -shm \
             files beside the database; a read-only mount or folder permissions?)",
            dir.display()
        )),
    }
}

/// A path for an SQLite `file:` URI (`?`, `#` and `%` escaped).
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
    out
}

fn i(v: u64) -> i64 {
    v as i64
}

fn u(v: i64) -> u64 {
    v as u64
}

fn u32_opt(v: Option<i64>) -> Option<u32> {
    v.map(|x| x as u32)
}

/// The stored state of one post that storing a page compares against.
#[derive(Clone)]
struct Existing {
    floor: Option<u32>,
    missing_since: Option<Timestamp>,
    has_quote: bool,
    author: String,
}

struct LatestRevision {
    seq: i64,
    hash: String,
    text: String,
    large: String,
    locked: bool,
    any_readable: bool,
}

fn norm_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How `bad` relates to `good` when it is only a decoding error of the same content:
/// `Some(true)` when exact (`good`'s UTF-8 read as GB18030, or its GBK read as UTF-8, is
/// `bad`), `Some(false)` when approximate (`bad` has U+FFFD replacement
/// characters where `good` has characters, and agrees with it everywhere else), `None`
/// when the two differ in content.
pub fn decoding_error_of(bad: &str, good: &str) -> Option<bool> {
    const R: char = '\u{fffd}';
    let (bad, good) = (norm_ws(bad), norm_ws(good));
    if bad == good || good.contains(R) || good.is_ascii() {
        return None;
    }
    // Exact: `good` mis-decoded either way is `bad`.
    let as_gbk = encoding_rs::GB18030
        .decode_without_bom_handling(good.as_bytes())
        .0;
    let (gbk_bytes, _, _) = encoding_rs::GB18030.encode(&good);
    // (A clean UTF-8 reading is the right one: GBK read as UTF-8 only counts when lossy.)
    if norm_ws(&as_gbk) == bad
        || (bad.contains(R) && norm_ws(&String::from_utf8_lossy(&gbk_bytes)) == bad)
    {
        return Some(true);
    }
    let (bytes, _, unmappable) = encoding_rs::GB18030.encode(&bad);
    if !unmappable && !bad.contains(R) && std::str::from_utf8(&bytes) == Ok(good.as_str()) {
        return Some(true);
    }
    let lossy = String::from_utf8_lossy(&bytes);
    if replaced_from(&bad, &good) || (bad.contains(R) && replaced_from(&lossy, &good)) {
        return Some(false);
    }
    None
}

/// `bad` is `good` with some characters lost to U+FFFD: every run of replacement
/// characters stands for at least one character of `good`, and the text between the
/// runs is `good`'s, in order.
fn replaced_from(bad: &str, good: &str) -> bool {
    const R: char = '\u{fffd}';
    if !bad.contains(R) {
        return false;
    }
    let pieces: Vec<&str> = bad.split(R).filter(|p| !p.is_empty()).collect();
    // Mostly replacement characters says nothing about the content.
    let kept: usize = pieces.iter().map(|p| p.chars().count()).sum();
    let runs = bad.split(|c| c != R).filter(|r| !r.is_empty()).count();
    if kept < runs.max(1) {
        return false;
    }
    let starts = !bad.starts_with(R);
    let ends = !bad.ends_with(R);
    let mut rest = good;
    for (k, piece) in pieces.iter().enumerate() {
        if k == 0 && starts {
            match rest.strip_prefix(piece) {
                Some(r) => rest = r,
                None => return false,
            }
            continue;
        }
        // A run stands before this piece: at least one character of `good`.
        let mut chars = rest.chars();
        if chars.next().is_none() {
            return false;
        }
        let after = chars.as_str();
        let found = if k == pieces.len() - 1 && ends {
            after.ends_with(piece).then(|| after.len() - piece.len())
        } else {
            after.find(piece)
        };
        match found {
            Some(j) => rest = &after[j + piece.len()..],
            None => return false,
        }
    }
    // A trailing run stands for at least one character.
    ends || !rest.is_empty()
}

/// Switch the file to WAL. The switch needs the file to itself, and SQLite answers BUSY at
/// once (without the busy handler) while another process opens the same fresh file, so
/// it is retried for as long as the busy timeout; a file already in WAL answers at once.
fn wal_mode(conn: &Connection) -> Result<String, rusqlite::Error> {
    retry_busy(BUSY_TIMEOUT, || {
        conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
    })
}

/// Run `attempt` again (15 ms apart) while it answers BUSY, for at most `timeout`; then its
/// last answer stands. Any other answer is returned at once.
fn retry_busy<T>(
    timeout: Duration,
    mut attempt: impl FnMut() -> Result<T, rusqlite::Error>,
) -> Result<T, rusqlite::Error> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        match attempt() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(15));
            }
            r => return r,
        }
    }
}

/// The page size of a new database. `revisions` is a WITHOUT ROWID table, whose rows are
/// kept whole in a page only up to about a quarter of it (≈ 1,000 bytes of 4 KiB, SQLite's
/// default; ≈ 4,000 of 16 KiB); a post's row over that spills its tail into a page of its
/// own. With 4 KiB pages most posts' rows spilled, and a database took about three times
/// the bytes of what it holds, each written twice (the write-ahead log, then the file).
const PAGE_SIZE: u32 = 16384;

/// How long a connection waits for another's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection of its own that copies the committed pages of a store's write-ahead log
/// into its database file (see [`Store::checkpointer`]). A passive checkpoint: it never waits
/// for a lock and never blocks the writer or a reader; it copies only what is committed, so
/// durability is what it was.
pub struct Checkpointer {
    conn: Connection,
    db: String,
}

impl Checkpointer {
    /// Copy what the log holds that the file does not yet; returns the log's frames and how
    /// many of them are now in the file.
    pub fn checkpoint(&self) -> Result<(i64, i64), StoreError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((r.get(1)?, r.get(2)?))
            })
            .map_err(|source| StoreError::Sqlite {
                db: self.db.clone(),
                source,
            })
    }
}

impl Store {
    /// Open (creating if needed) the database file, apply migrations, turn on WAL. A
    /// missing folder, a read-only file or a folder bansha cannot write in (a read-only
    /// mount) is an error naming the path and the problem.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let db = path.display().to_string();
        if let Some(what) = missing_folder(path) {
            return Err(StoreError::Invalid { db, what });
        }
        let conn = Connection::open(path).map_err(|source| StoreError::Open {
            db: db.clone(),
            source,
        });
        let store = conn.and_then(|conn| Self::init(conn, db.clone(), true));
        let store = match store {
            Ok(s) if s.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) => {
                return Err(StoreError::Invalid {
                    db,
                    what: unwritable(path).unwrap_or_else(|| "the database is read-only".into()),
                });
            }
            Ok(s) => s,
            Err(e) => {
                return Err(match unwritable(path) {
                    Some(what) => StoreError::Invalid { db, what },
                    None => e,
                });
            }
        };
        Ok(store)
    }

    /// Open a database that must already exist, for reading only (the report commands):
    /// never creates a file, never writes. A path with no database is an error that says
    /// so (a typo'd `game.db` must not report every player with 0 posts). A database on a
    /// read-only mount is read as it stands. An older schema is migrated first when the
    /// file is writable.
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        let db = path.display().to_string();
        if let Some(what) = missing_folder(path) {
            return Err(StoreError::Invalid { db, what });
        }
        if !path.is_file() {
            return Err(StoreError::Invalid {
                db,
                what: "no such database (check `db` in the game config for a typo, or run \
                       `bansha sync` or `bansha import` first)"
                    .into(),
            });
        }
        use rusqlite::OpenFlags;
        let ro = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let open_err = |source| StoreError::Open {
            db: db.clone(),
            source,
        };
        let probe = |conn: &Connection| -> rusqlite::Result<i64> {
            conn.query_row("PRAGMA user_version", [], |r| r.get(0))
        };
        let conn = match Connection::open_with_flags(path, ro) {
            Ok(c) if probe(&c).is_ok() => c,
            _ => {
                // A WAL database in a folder bansha cannot write in (no -shm file can be
                // made): read the file as it stands.
                let uri = format!("file:{}?immutable=1", uri_path(path));
                let c = Connection::open_with_flags(uri, ro | OpenFlags::SQLITE_OPEN_URI)
                    .map_err(open_err)?;
                probe(&c).map_err(open_err)?;
                c
            }
        };
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(open_err)?;
        let found = probe(&conn).map_err(open_err)?;
        let supported = schema::current_version();
        if found > supported {
            return Err(StoreError::TooNew {
                db,
                found,
                supported,
            });
        }
        if found == 0 {
            return Err(StoreError::Invalid {
                db,
                what: "not a bansha database (no schema); check `db` in the game config".into(),
            });
        }
        if found < supported {
            drop(conn);
            return Store::open(path);
        }
        Ok(Store { conn, db })
    }

    /// A private in-memory database (tests, the demo).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let db = ":memory:".to_string();
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Open {
            db: db.clone(),
            source,
        })?;
        Self::init(conn, db, false)
    }

    fn init(conn: Connection, db: String, wal: bool) -> Result<Store, StoreError> {
        let open_err = |source| StoreError::Open {
            db: db.clone(),
            source,
        };
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
        // A new database file is made with 16 KiB pages (a file that exists keeps its
        // own: the pragma changes nothing there).
        conn.execute_batch(&format!("PRAGMA page_size = {PAGE_SIZE}"))
            .map_err(open_err)?;
        if wal {
            let mode = wal_mode(&conn).map_err(open_err)?;
            if !mode.eq_ignore_ascii_case("wal") {
                tracing::warn!("{db}: journal mode is {mode}, not WAL");
            }
            // In WAL mode, NORMAL keeps every commit atomic; only a power cut can lose the
            // last commits, never half of one.
            conn.execute_batch("PRAGMA synchronous = NORMAL")
                .map_err(open_err)?;
        }
        conn.execute_batch("PRAGMA foreign_keys = ON")
            .map_err(open_err)?;
        let mut store = Store { conn, db };
        store.migrate()?;
        Ok(store)
    }

    /// Bring the schema up to [`schema::current_version`]. Safe when several processes open
    /// the same fresh file at once: the steps run in one IMMEDIATE transaction (the write
    /// lock is taken before anything is read) that re-reads `user_version` under that lock,
    /// so a step another process applied meanwhile is skipped, never applied twice.
    fn migrate(&mut self) -> Result<(), StoreError> {
        let supported = schema::current_version();
        // Each pass applies the steps left or finds the work done: more passes than steps means
        // the version does not move (an error, never a spin).
        for _ in 0..=schema::MIGRATIONS.len() {
            // Fast path: an up-to-date database needs no write lock at all.
            let found = self.schema_version()?;
            if found < 0 {
                return Err(StoreError::Invalid {
                    db: self.db.clone(),
                    what: format!("schema version {found} is not one bansha writes"),
                });
            }
            if found > supported {
                return Err(StoreError::TooNew {
                    db: self.db.clone(),
                    found,
                    supported,
                });
            }
            if found == supported {
                return Ok(());
            }
            let db = self.db.clone();
            let merr = |version, source| StoreError::Migrate {
                db: db.clone(),
                version,
                source,
            };
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| merr(found + 1, e))?;
            // Under the write lock: the version as it is now, not as it was read above.
            let found: i64 = tx
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(|e| merr(found + 1, e))?;
            if found >= supported {
                // Another process finished the migration first; re-check (TooNew) above.
                tx.commit().map_err(|e| merr(found, e))?;
                continue;
            }
            // Every step still to apply, in one transaction (one commit: a fresh database
            // is created in one write instead of one per step); a failing step rolls back
            // the whole run and is named.
            for step in found..supported {
                tx.execute_batch(schema::MIGRATIONS[step as usize])
                    .map_err(|e| merr(step + 1, e))?;
            }
            tx.pragma_update(None, "user_version", supported)
                .map_err(|e| merr(supported, e))?;
            tx.commit().map_err(|e| merr(supported, e))?;
        }
        Err(StoreError::Invalid {
            db: self.db.clone(),
            what: format!("the schema version does not reach {supported}"),
        })
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// SQLite's `data_version` of this connection: it changes whenever another connection
    /// (the daemon) commits to the database. The web page's change counter.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// The database file name (for messages).
    pub fn db_name(&self) -> &str {
        &self.db
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            db: self.db.clone(),
            source,
        }
    }

    /// Store one parsed page: one writer transaction, all of it or none. Idempotent.
    pub fn store_page(
        &mut self,
        forum: &str,
        page: &ThreadPage,
        info: &FetchInfo,
    ) -> Result<PageChanges, StoreError> {
        let mut batch = self.batch()?;
        let changes = batch.store_page(forum, page, info)?;
        batch.commit()?;
        Ok(changes)
    }

    /// For a bulk import on this connection: let the write-ahead log grow to 8,192 pages
    /// (32 MB) before SQLite copies it into the database, instead of 1,000. Fewer
    /// checkpoints copy each rewritten page fewer times; durability is unchanged (every
    /// commit is in the log, and a checkpoint only moves committed pages).
    pub fn bulk_checkpoints(&self) -> Result<(), StoreError> {
        self.conn
            .query_row("PRAGMA wal_autocheckpoint = 8192", [], |_| Ok(()))
            .map_err(|e| self.err(e))
    }

    /// A second connection to this store's file, for copying committed pages of the
    /// write-ahead log into the database on another thread while this connection goes on
    /// writing ([`Checkpointer::checkpoint`]). `None` for an in-memory store or a file not in
    /// WAL mode (nothing to copy).
    pub fn checkpointer(&self) -> Result<Option<Checkpointer>, StoreError> {
        let path = match self.conn.path() {
            Some(p) if !p.is_empty() => p.to_string(),
            _ => return Ok(None),
        };
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Ok(None);
        }
        use rusqlite::OpenFlags;
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| self.err(e))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| self.err(e))?;
        Ok(Some(Checkpointer {
            conn,
            db: self.db.clone(),
        }))
    }

    /// One writer transaction for several pages ([`PageBatch::store_page`] each, then
    /// [`PageBatch::commit`]): what an import of many files uses, so that a commit is paid
    /// per batch, not per page. Dropped without a commit, it stores none of them.
    pub fn batch(&mut self) -> Result<PageBatch<'_>, StoreError> {
        let Store { conn, db } = self;
        let tx = conn.transaction().map_err(|source| StoreError::Sqlite {
            db: db.clone(),
            source,
        })?;
        Ok(PageBatch { tx, db, pages: 0 })
    }

    /// Record a failed fetch (outcome text) in the fetch log; never touches posts.
    pub fn log_fetch_failure(
        &mut self,
        forum: &str,
        tid: u64,
        info: &FetchInfo,
        outcome: &str,
    ) -> Result<(), StoreError> {
        let outcome = if outcome.trim().is_empty() || outcome == "ok" {
            format!("failed: {outcome}")
        } else {
            outcome.to_string()
        };
        self.conn
            .execute(
                "INSERT INTO fetch_log (forum, tid, source, kind, page, fetched_at, outcome)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    forum,
                    i(tid),
                    info.source,
                    info.kind.as_str(),
                    info.page,
                    info.fetched_at,
                    outcome
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// `(total_pages, last_page_seen)` of a stored thread: the cheap lookup the daemon makes
    /// on every poll (no post counts).
    pub fn thread_pages(&self, forum: &str, tid: u64) -> Result<Option<(u32, u32)>, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT total_pages, last_page_seen FROM threads WHERE forum = ?1 AND tid = ?2",
            )
            .and_then(|mut st| {
                st.query_row(params![forum, i(tid)], |r| {
                    Ok((r.get::<_, i64>(0)? as u32, r.get::<_, i64>(1)? as u32))
                })
                .optional()
            })
            .map_err(|e| self.err(e))
    }

    /// The fingerprint of the last stored fetch of `page` (as asked for) of a thread.
    pub fn page_fingerprint(
        &self,
        forum: &str,
        tid: u64,
        kind: SourceKind,
        page: u32,
    ) -> Result<Option<PageFingerprint>, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT fingerprint, served_page, total_pages FROM page_fingerprints
                 WHERE forum = ?1 AND tid = ?2 AND kind = ?3 AND page = ?4",
            )
            .and_then(|mut st| {
                st.query_row(params![forum, i(tid), kind.as_str(), page], |r| {
                    Ok(PageFingerprint {
                        fingerprint: r.get(0)?,
                        served_page: r.get(1)?,
                        total_pages: r.get(2)?,
                    })
                })
                .optional()
            })
            .map_err(|e| self.err(e))
    }

    /// Remember the fingerprint of a page just stored (after [`Store::store_page`]).
    pub fn set_page_fingerprint(
        &mut self,
        forum: &str,
        tid: u64,
        kind: SourceKind,
        page: u32,
        fp: &PageFingerprint,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO page_fingerprints
                 (forum, tid, kind, page, fingerprint, served_page, total_pages, seen_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    forum,
                    i(tid),
                    kind.as_str(),
                    page,
                    fp.fingerprint,
                    fp.served_page,
                    fp.total_pages,
                    at
                ])
            })
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Record a fetch whose page matched its fingerprint (outcome `unchanged`, nothing
    /// parsed or stored) and the thread's last fetch time.
    pub fn log_fetch_unchanged(
        &mut self,
        forum: &str,
        tid: u64,
        info: &FetchInfo,
    ) -> Result<(), StoreError> {
        let db = self.db.clone();
        let sq = |source| StoreError::Sqlite {
            db: db.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sq)?;
        tx.prepare_cached(
            "INSERT INTO fetch_log (forum, tid, source, kind, page, fetched_at, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'unchanged')",
        )
        .and_then(|mut st| {
            st.execute(params![
                forum,
                i(tid),
                info.source,
                info.kind.as_str(),
                info.page,
                info.fetched_at
            ])
        })
        .map_err(sq)?;
        tx.prepare_cached("UPDATE threads SET last_fetched_at = ?3 WHERE forum = ?1 AND tid = ?2")
            .and_then(|mut st| st.execute(params![forum, i(tid), info.fetched_at]))
            .map_err(sq)?;
        tx.commit().map_err(sq)?;
        Ok(())
    }

    /// Every stored post of a thread, by floor (posts never seen at a floor last), then pid.
    /// Quotes without a pid are resolved against the thread's posts where exactly one fits.
    pub fn posts(&self, forum: &str, tid: u64) -> Result<Vec<Post>, StoreError> {
        self.read_posts(forum, tid).map_err(|e| self.err(e))
    }

    fn read_posts(&self, forum: &str, tid: u64) -> rusqlite::Result<Vec<Post>> {
        let mut revs: HashMap<u64, (Vec<Revision>, Vec<Revision>)> = HashMap::new();
        let mut st = self.conn.prepare_cached(
            "SELECT pid, seen_at, hash, edit_editor, edit_time, html, text, red, large, locked
             FROM revisions WHERE forum = ?1 AND tid = ?2 ORDER BY pid, seq",
        )?;
        let rows = st.query_map(params![forum, i(tid)], |r| {
            let editor: Option<String> = r.get(3)?;
            let edit_time: Option<i64> = r.get(4)?;
            Ok((
                u(r.get(0)?),
                r.get::<_, bool>(9)?,
                Revision {
                    seen_at: r.get(1)?,
                    hash: r.get(2)?,
                    edit: editor.map(|editor| EditNotice {
                        editor,
                        time: edit_time,
                    }),
                    html: r.get(5)?,
                    text: r.get(6)?,
                    red: r.get(7)?,
                    large: r.get(8)?,
                },
            ))
        })?;
        for row in rows {
            let (pid, locked, rev) = row?;
            let e = revs.entry(pid).or_default();
            if locked {
                e.1.push(rev);
            } else {
                e.0.push(rev);
            }
        }
        let mut st = self.conn.prepare_cached(
            "SELECT pid, floor, author, uid, time, has_quote, quote_pid, quote_author,
                    quote_time, quote_floor, locked, missing_since
             FROM posts WHERE forum = ?1 AND tid = ?2",
        )?;
        let mut posts = Vec::new();
        let rows = st.query_map(params![forum, i(tid)], |r| {
            let pid = u(r.get(0)?);
            let has_quote: bool = r.get(5)?;
            let quote = has_quote
                .then(|| -> rusqlite::Result<QuoteRef> {
                    Ok(QuoteRef {
                        pid: r.get::<_, Option<i64>>(6)?.map(u),
                        author: r.get(7)?,
                        time: r.get(8)?,
                        floor: u32_opt(r.get(9)?),
                    })
                })
                .transpose()?;
            Ok(Post {
                tid,
                pid,
                floor: u32_opt(r.get(1)?),
                author: r.get(2)?,
                uid: r.get::<_, Option<i64>>(3)?.map(u),
                time: r.get(4)?,
                quote,
                revisions: Vec::new(),
                missing_since: r.get(11)?,
                locked: r.get::<_, Option<String>>(10)?.map(|s| lock_parse(&s)),
            })
        })?;
        for row in rows {
            let mut p = row?;
            if let Some((readable, locked)) = revs.remove(&p.pid) {
                // Placeholder revisions of a locked body only stand in until real content
                // is seen; they stay in the database.
                p.revisions = if readable.is_empty() {
                    locked
                } else {
                    readable
                };
            }
            if p.revisions.is_empty() {
                // Cannot happen through store_page; refuse to hand out a post without content.
                return Err(rusqlite::Error::InvalidQuery);
            }
            posts.push(p);
        }
        let mut st = self
            .conn
            .prepare_cached("SELECT pid, old_floor FROM floor_changes WHERE forum = ?1 AND tid = ?2 AND old_floor IS NOT NULL")?;
        let old: Vec<(u64, u32)> = st
            .query_map(params![forum, i(tid)], |r| {
                Ok((u(r.get(0)?), r.get::<_, i64>(1)? as u32))
            })?
            .collect::<rusqlite::Result<_>>()?;
        resolve_quotes(&mut posts, &old);
        posts.sort_by_key(|p| (p.floor.is_none(), p.floor, p.pid));
        Ok(posts)
    }

    /// One stored post.
    pub fn post(&self, forum: &str, tid: u64, pid: u64) -> Result<Option<Post>, StoreError> {
        Ok(self.posts(forum, tid)?.into_iter().find(|p| p.pid == pid))
    }

    /// The thread's bookkeeping, if anything was ever stored for it.
    pub fn thread(&self, forum: &str, tid: u64) -> Result<Option<ThreadRecord>, StoreError> {
        self.conn
            .query_row(
                "SELECT t.title, t.total_pages, t.last_page_seen, t.last_fetched_at,
                        (SELECT MAX(pid) FROM posts p WHERE p.forum = t.forum AND p.tid = t.tid),
                        (SELECT COUNT(*) FROM posts p WHERE p.forum = t.forum AND p.tid = t.tid)
                 FROM threads t WHERE t.forum = ?1 AND t.tid = ?2",
                params![forum, i(tid)],
                |r| {
                    Ok(ThreadRecord {
                        tid,
                        title: r.get(0)?,
                        total_pages: r.get::<_, i64>(1)? as u32,
                        last_page_seen: r.get::<_, i64>(2)? as u32,
                        last_fetched_at: r.get(3)?,
                        last_pid: r.get::<_, Option<i64>>(4)?.map(u),
                        posts: r.get::<_, i64>(5)? as u32,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Every thread id stored for this forum, ascending.
    pub fn tids(&self, forum: &str) -> Result<Vec<u64>, StoreError> {
        let run = || -> rusqlite::Result<Vec<u64>> {
            let mut st = self
                .conn
                .prepare("SELECT tid FROM threads WHERE forum = ?1 ORDER BY tid")?;
            st.query_map([forum], |r| Ok(u(r.get(0)?)))?.collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// The fetch log of a thread, oldest first.
    pub fn fetch_log(&self, forum: &str, tid: u64) -> Result<Vec<FetchLogEntry>, StoreError> {
        let run = || -> rusqlite::Result<Vec<FetchLogEntry>> {
            let mut st = self.conn.prepare_cached(
                "SELECT id, source, kind, page, fetched_at, outcome, posts_seen, new_posts,
                        changed, missing
                 FROM fetch_log WHERE forum = ?1 AND tid = ?2 ORDER BY id",
            )?;
            st.query_map(params![forum, i(tid)], |r| {
                Ok(FetchLogEntry {
                    id: r.get(0)?,
                    tid,
                    source: r.get(1)?,
                    kind: SourceKind::parse(&r.get::<_, String>(2)?),
                    page: r.get::<_, i64>(3)? as u32,
                    fetched_at: r.get(4)?,
                    outcome: r.get(5)?,
                    posts_seen: r.get::<_, i64>(6)? as u32,
                    new_posts: r.get::<_, i64>(7)? as u32,
                    changed: r.get::<_, i64>(8)? as u32,
                    missing: r.get::<_, i64>(9)? as u32,
                })
            })?
            .collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// Every floor change recorded for a thread, oldest first.
    pub fn floor_changes(&self, forum: &str, tid: u64) -> Result<Vec<FloorChange>, StoreError> {
        let run = || -> rusqlite::Result<Vec<FloorChange>> {
            let mut st = self.conn.prepare_cached(
                "SELECT pid, old_floor, new_floor, seen_at, source FROM floor_changes
                 WHERE forum = ?1 AND tid = ?2 ORDER BY rowid",
            )?;
            st.query_map(params![forum, i(tid)], |r| {
                Ok(FloorChange {
                    pid: u(r.get(0)?),
                    old_floor: u32_opt(r.get(1)?),
                    new_floor: u32_opt(r.get(2)?),
                    seen_at: r.get(3)?,
                    source: r.get(4)?,
                })
            })?
            .collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// Every missing / deleted / reappeared event recorded for a thread, oldest first.
    pub fn presence_log(&self, forum: &str, tid: u64) -> Result<Vec<PresenceEvent>, StoreError> {
        let run = || -> rusqlite::Result<Vec<PresenceEvent>> {
            let mut st = self.conn.prepare_cached(
                "SELECT pid, event, at, source FROM presence_log
                 WHERE forum = ?1 AND tid = ?2 ORDER BY rowid",
            )?;
            st.query_map(params![forum, i(tid)], |r| {
                Ok(PresenceEvent {
                    pid: u(r.get(0)?),
                    event: r.get(1)?,
                    at: r.get(2)?,
                    source: r.get(3)?,
                })
            })?
            .collect()
        };
        run().map_err(|e| self.err(e))
    }
}

/// Pages stored in one transaction (see [`Store::batch`]).
pub struct PageBatch<'a> {
    tx: Transaction<'a>,
    db: &'a str,
    pages: usize,
}

impl PageBatch<'_> {
    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            db: self.db.to_string(),
            source,
        }
    }

    /// Store one parsed page in this batch (all of it or, on an error, none of the batch).
    pub fn store_page(
        &mut self,
        forum: &str,
        page: &ThreadPage,
        info: &FetchInfo,
    ) -> Result<PageChanges, StoreError> {
        if page.tid == 0 {
            return Err(StoreError::Invalid {
                db: self.db.to_string(),
                what: format!("{}: the page has no thread id", info.source),
            });
        }
        let changes = store_page_tx(&self.tx, forum, page, info).map_err(|e| self.err(e))?;
        self.pages += 1;
        Ok(changes)
    }

    /// Pages stored in this batch so far.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// Make the batch's pages durable (all of them or none).
    pub fn commit(self) -> Result<(), StoreError> {
        let db = self.db;
        self.tx.commit().map_err(|source| StoreError::Sqlite {
            db: db.to_string(),
            source,
        })
    }
}

fn store_page_tx(
    tx: &Transaction<'_>,
    forum: &str,
    page: &ThreadPage,
    info: &FetchInfo,
) -> rusqlite::Result<PageChanges> {
    let tid = i(page.tid);
    let at = info.fetched_at;
    let src = info.source.as_str();
    let mut ch = PageChanges::default();

    upsert_thread(tx, forum, page, at)?;

    // The stored posts in this page's pid span, read once before anything of the page is
    // stored: which of its posts are new, and (below) which stored ones it no longer
    // shows. The span: its lowest pid to its highest (to the end on the last page). An
    // author-filtered page skips others' pids, so its posts are looked up one by one.
    let shown = page
        .posts
        .iter()
        .filter(|pp| !pp.duplicate && !pp.deleted)
        .filter_map(|pp| pp.pid);
    let span = match (shown.clone().min(), shown.max()) {
        (Some(lo), Some(hi)) if !page.author_filtered => {
            let hi = if page.page >= page.total_pages {
                u64::MAX >> 1
            } else {
                hi
            };
            Some(stored_in_span(tx, forum, tid, lo, hi)?)
        }
        _ => None,
    };
    let found = |pid: u64| -> rusqlite::Result<Option<Existing>> {
        match &span {
            Some(rows) => Ok(rows
                .binary_search_by_key(&pid, |(p, _)| *p)
                .ok()
                .map(|i| rows[i].1.clone())),
            None => existing(tx, forum, tid, pid),
        }
    };

    let mut seen: Vec<u64> = Vec::new();
    let mut seen_set: HashSet<u64> = HashSet::new();
    let mut placeholder_floors: Vec<u32> = Vec::new();
    for pp in &page.posts {
        if pp.duplicate {
            // A pinned/推荐 copy: the original is on its own page.
            continue;
        }
        let pid = match pp.pid {
            Some(pid) if !pp.deleted => pid,
            _ => {
                if !page.author_filtered
                    && let Some(f) = pp.floor
                {
                    placeholder_floors.push(f);
                }
                continue;
            }
        };
        if !seen_set.insert(pid) {
            continue;
        }
        seen.push(pid);
        let floor = if page.author_filtered { None } else { pp.floor };
        match found(pid)? {
            None => {
                insert_post(tx, forum, tid, pid, pp, floor, at)?;
                insert_revision(tx, forum, tid, pid, 0, pp, at, src)?;
                ch.new_posts.push(pid);
            }
            Some(ex) => {
                update_post(tx, forum, tid, pid, pp, &ex, floor, at, src, &mut ch)?;
            }
        }
    }

    // Deleted-floor placeholders: the post last seen at that floor is gone.
    let mut marked: HashSet<u64> = HashSet::new();
    for f in placeholder_floors {
        let mut st = tx.prepare_cached(
            "SELECT pid FROM posts WHERE forum = ?1 AND tid = ?2 AND floor = ?3
             AND missing_since IS NULL",
        )?;
        let pids: Vec<u64> = st
            .query_map(params![forum, tid, f], |r| Ok(u(r.get(0)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for pid in pids {
            if seen_set.contains(&pid) {
                continue;
            }
            mark_missing(tx, forum, tid, pid, at, src, true)?;
            ch.missing.push(pid);
            marked.insert(pid);
        }
    }

    // Missing-ness: stored pids inside this page's pid span that the page no longer shows
    // (and that were present: the page's own posts and the placeholders' are the only ones
    // this page changed since the span was read).
    for (pid, ex) in span.iter().flatten() {
        if ex.missing_since.is_none() && !seen_set.contains(pid) && !marked.contains(pid) {
            mark_missing(tx, forum, tid, *pid, at, src, false)?;
            ch.missing.push(*pid);
        }
    }

    tx.prepare_cached(
        "INSERT INTO fetch_log (forum, tid, source, kind, page, fetched_at, outcome, posts_seen,
                                new_posts, changed, missing)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'ok', ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        forum,
        tid,
        src,
        info.kind.as_str(),
        page.page,
        at,
        seen.len() as i64,
        ch.new_posts.len() as i64,
        ch.changed.len() as i64,
        ch.missing.len() as i64
    ])?;
    Ok(ch)
}

fn upsert_thread(
    tx: &Transaction<'_>,
    forum: &str,
    page: &ThreadPage,
    at: Timestamp,
) -> rusqlite::Result<()> {
    let tid = i(page.tid);
    tx.prepare_cached("INSERT OR IGNORE INTO threads (forum, tid) VALUES (?1, ?2)")?
        .execute(params![forum, tid])?;
    let stored_title: String = tx
        .prepare_cached("SELECT title FROM threads WHERE forum = ?1 AND tid = ?2")?
        .query_row(params![forum, tid], |r| r.get(0))?;
    if !page.title.trim().is_empty()
        && page.title != stored_title
        && decoding_error_of(&page.title, &stored_title).is_none()
    {
        tx.prepare_cached("UPDATE threads SET title = ?3 WHERE forum = ?1 AND tid = ?2")?
            .execute(params![forum, tid, page.title])?;
    }
    if !page.author_filtered {
        // The pager's page count is the latest truth; the last page seen never exceeds it.
        let total = page.total_pages.max(1);
        tx.prepare_cached(
            "UPDATE threads SET total_pages = ?3,
                 last_page_seen = MIN(MAX(last_page_seen, ?4), ?3)
             WHERE forum = ?1 AND tid = ?2",
        )?
        .execute(params![forum, tid, total, page.page])?;
    }
    tx.prepare_cached(
        "UPDATE threads SET last_fetched_at = MAX(COALESCE(last_fetched_at, ?3), ?3)
         WHERE forum = ?1 AND tid = ?2",
    )?
    .execute(params![forum, tid, at])?;
    Ok(())
}

fn existing(
    tx: &Transaction<'_>,
    forum: &str,
    tid: i64,
    pid: u64,
) -> rusqlite::Result<Option<Existing>> {
    let mut st = tx.prepare_cached(
        "SELECT floor, missing_since, has_quote, author FROM posts
         WHERE forum = ?1 AND tid = ?2 AND pid = ?3",
    )?;
    st.query_row(params![forum, tid, i(pid)], |r| existing_row(r, 0))
        .optional()
}

/// An [`Existing`] from a row whose columns `floor, missing_since, has_quote, author`
/// start at `first`.
fn existing_row(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Existing> {
    Ok(Existing {
        floor: u32_opt(r.get(first)?),
        missing_since: r.get(first + 1)?,
        has_quote: r.get(first + 2)?,
        author: r.get(first + 3)?,
    })
}

/// The stored posts of a thread with pids in `lo..=hi`, by pid.
fn stored_in_span(
    tx: &Transaction<'_>,
    forum: &str,
    tid: i64,
    lo: u64,
    hi: u64,
) -> rusqlite::Result<Vec<(u64, Existing)>> {
    let mut st = tx.prepare_cached(
        "SELECT pid, floor, missing_since, has_quote, author FROM posts
         WHERE forum = ?1 AND tid = ?2 AND pid BETWEEN ?3 AND ?4 ORDER BY pid",
    )?;
    st.query_map(params![forum, tid, i(lo), i(hi)], |r| {
        Ok((u(r.get(0)?), existing_row(r, 1)?))
    })?
    .collect()
}

fn insert_post(
    tx: &Transaction<'_>,
    forum: &str,
    tid: i64,
    pid: u64,
    pp: &PagePost,
    floor: Option<u32>,
    at: Timestamp,
) -> rusqlite::Result<()> {
    let q = pp.quote.as_ref();
    let mut st = tx.prepare_cached(
        "INSERT INTO posts (forum, tid, pid, floor, author, uid, time, has_quote, quote_pid,
                            quote_author, quote_time, quote_floor, locked, first_seen, last_seen)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14)",
    )?;
    st.execute(params![
        forum,
        tid,
        i(pid),
        floor,
        pp.author,
        pp.uid.map(i),
        pp.time,
        q.is_some(),
        q.and_then(|q| q.pid).map(i),
        q.and_then(|q| q.author.clone()),
        q.and_then(|q| q.time),
        q.and_then(|q| q.floor),
        pp.locked.map(lock_str),
        at
    ])?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn insert_revision(
    tx: &Transaction<'_>,
    forum: &str,
    tid: i64,
    pid: u64,
    seq: i64,
    pp: &PagePost,
    at: Timestamp,
    src: &str,
) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached(
        "INSERT INTO revisions (forum, tid, pid, seq, seen_at, hash, edit_editor, edit_time,
                                html, text, red, large, locked, source)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
    st.execute(params![
        forum,
        tid,
        i(pid),
        seq,
        at,
        content_hash(&pp.text, &pp.red, pp.edit.as_ref()),
        pp.edit.as_ref().map(|e| e.editor.clone()),
        pp.edit.as_ref().and_then(|e| e.time),
        pp.html,
        pp.text,
        pp.red,
        pp.large,
        pp.locked.is_some(),
        src
    ])?;
    Ok(())
}

fn latest_revision(
    tx: &Transaction<'_>,
    forum: &str,
    tid: i64,
    pid: u64,
) -> rusqlite::Result<Option<LatestRevision>> {
    let mut st = tx.prepare_cached(
        "SELECT seq, hash, large, locked,
                EXISTS (SELECT 1 FROM revisions r2 WHERE r2.forum = r.forum AND r2.tid = r.tid
                        AND r2.pid = r.pid AND r2.locked = 0),
                text
         FROM revisions r WHERE forum = ?1 AND tid = ?2 AND pid = ?3
         ORDER BY seq DESC LIMIT 1",
    )?;
    st.query_row(params![forum, tid, i(pid)], |r| {
        Ok(LatestRevision {
            seq: r.get(0)?,
            hash: r.get(1)?,
            large: r.get(2)?,
            locked: r.get(3)?,
            any_readable: r.get(4)?,
            text: r.get(5)?,
        })
    })
    .optional()
}

#[allow(clippy::too_many_arguments)]
fn update_post(
    tx: &Transaction<'_>,
    forum: &str,
    tid: i64,
    pid: u64,
    pp: &PagePost,
    ex: &Existing,
    floor: Option<u32>,
    at: Timestamp,
    src: &str,
    ch: &mut PageChanges,
) -> rusqlite::Result<()> {
    // Floors: keep the latest, record every change. Pages that do not tell leave it alone.
    if let Some(f) = floor
        && ex.floor != Some(f)
    {
        tx.execute(
            "UPDATE posts SET floor = ?4 WHERE forum = ?1 AND tid = ?2 AND pid = ?3",
            params![forum, tid, i(pid), f],
        )?;
        tx.execute(
            "INSERT INTO floor_changes (forum, tid, pid, old_floor, new_floor, seen_at, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![forum, tid, i(pid), ex.floor, f, at, src],
        )?;
        ch.refloored.push((pid, ex.floor, Some(f)));
    }
    if ex.missing_since.is_some() {
        tx.execute(
            "UPDATE posts SET missing_since = NULL, deleted = 0
             WHERE forum = ?1 AND tid = ?2 AND pid = ?3",
            params![forum, tid, i(pid)],
        )?;
        tx.execute(
            "INSERT INTO presence_log (forum, tid, pid, event, at, source)
             VALUES (?1, ?2, ?3, 'reappeared', ?4, ?5)",
            params![forum, tid, i(pid), at, src],
        )?;
        ch.reappeared.push(pid);
    }

    // Content.
    let hash = content_hash(&pp.text, &pp.red, pp.edit.as_ref());
    let latest = latest_revision(tx, forum, tid, pid)?;
    let mut new_content = false;
    match latest {
        None => {
            insert_revision(tx, forum, tid, pid, 0, pp, at, src)?;
            new_content = true;
        }
        Some(l) => {
            if pp.locked.is_some() {
                // A locked body never adds a revision: the content is unavailable, not
                // changed. (A post first seen locked already has its placeholder revision.)
            } else if !l.locked && l.hash != hash && decoding_error_of(&pp.text, &l.text).is_some()
            {
                // Only a decoding error of the stored content: not an edit.
                tracing::warn!(
                    "{src}: pid {pid}: the text differs from the stored one only by a \
                     decoding error (wrong charset); no revision added"
                );
            } else if !l.locked
                && l.hash != hash
                && decoding_error_of(&l.text, &pp.text) == Some(true)
            {
                // The stored revision was a mis-decoding of this content: correct it.
                tx.execute(
                    "UPDATE revisions SET hash = ?5, html = ?6, text = ?7, red = ?8, large = ?9
                     WHERE forum = ?1 AND tid = ?2 AND pid = ?3 AND seq = ?4",
                    params![
                        forum,
                        tid,
                        i(pid),
                        l.seq,
                        hash,
                        pp.html,
                        pp.text,
                        pp.red,
                        pp.large
                    ],
                )?;
                new_content = true;
            } else if l.locked || !l.any_readable || l.hash != hash {
                insert_revision(tx, forum, tid, pid, l.seq + 1, pp, at, src)?;
                new_content = true;
            } else if l.large.is_empty() && !pp.large.is_empty() {
                // Same content seen through a source that shows font sizes.
                tx.execute(
                    "UPDATE revisions SET large = ?5
                     WHERE forum = ?1 AND tid = ?2 AND pid = ?3 AND seq = ?4",
                    params![forum, tid, i(pid), l.seq, pp.large],
                )?;
            }
        }
    }
    if new_content {
        ch.changed.push(pid);
    }

    // Metadata: latest author/uid/lock state; the quote follows the latest content.
    let q = pp.quote.as_ref();
    let update_quote = new_content || (!ex.has_quote && q.is_some());
    // A mis-decoded name is not a rename; an unknown time (0) is filled in when known.
    let author = if decoding_error_of(&pp.author, &ex.author).is_some() {
        ""
    } else {
        pp.author.as_str()
    };
    let mut st = tx.prepare_cached(
        "UPDATE posts SET author = CASE WHEN ?4 = '' THEN author ELSE ?4 END,
             uid = COALESCE(?5, uid), locked = ?6, last_seen = MAX(last_seen, ?7),
             time = CASE WHEN time = 0 THEN ?8 ELSE time END
         WHERE forum = ?1 AND tid = ?2 AND pid = ?3",
    )?;
    st.execute(params![
        forum,
        tid,
        i(pid),
        author,
        pp.uid.map(i),
        pp.locked.map(lock_str),
        at,
        pp.time
    ])?;
    if update_quote {
        tx.execute(
            "UPDATE posts SET has_quote = ?4, quote_pid = ?5, quote_author = ?6,
                 quote_time = ?7, quote_floor = ?8
             WHERE forum = ?1 AND tid = ?2 AND pid = ?3",
            params![
                forum,
                tid,
                i(pid),
                q.is_some(),
                q.and_then(|q| q.pid).map(i),
                q.and_then(|q| q.author.clone()),
                q.and_then(|q| q.time),
                q.and_then(|q| q.floor)
            ],
        )?;
    }
    Ok(())
}

fn mark_missing(
    tx: &Transaction<'_>,
    forum: &str,
    tid: i64,
    pid: u64,
    at: Timestamp,
    src: &str,
    deleted: bool,
) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE posts SET missing_since = ?4, deleted = ?5
         WHERE forum = ?1 AND tid = ?2 AND pid = ?3",
        params![forum, tid, i(pid), at, deleted],
    )?;
    tx.execute(
        "INSERT INTO presence_log (forum, tid, pid, event, at, source)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            forum,
            tid,
            i(pid),
            if deleted { "deleted" } else { "missing" },
            at,
            src
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests;
