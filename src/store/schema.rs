//! The database schema and its migrations. `PRAGMA user_version` holds the number of
//! migrations applied; [`MIGRATIONS`] only ever grows (never edit an applied step).

/// Migration `i` takes the schema from version `i` to version `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    r#"
CREATE TABLE threads (
    forum           TEXT    NOT NULL,
    tid             INTEGER NOT NULL,
    title           TEXT    NOT NULL DEFAULT '',
    total_pages     INTEGER NOT NULL DEFAULT 0,
    last_page_seen  INTEGER NOT NULL DEFAULT 0,
    last_fetched_at INTEGER,
    PRIMARY KEY (forum, tid)
);

-- One row per post, keyed by pid (the only stable key). Never deleted.
CREATE TABLE posts (
    forum         TEXT    NOT NULL,
    tid           INTEGER NOT NULL,
    pid           INTEGER NOT NULL,
    floor         INTEGER,            -- the latest floor seen (NULL: never seen as a floor)
    author        TEXT    NOT NULL,
    uid           INTEGER,
    time          INTEGER NOT NULL,   -- post time as first seen
    has_quote     INTEGER NOT NULL DEFAULT 0,
    quote_pid     INTEGER,            -- as the page gave it; resolution happens at read time
    quote_author  TEXT,
    quote_time    INTEGER,
    quote_floor   INTEGER,
    locked        TEXT,               -- LockKind as last seen, NULL when readable
    missing_since INTEGER,            -- gone from its page since then (NULL: present)
    deleted       INTEGER NOT NULL DEFAULT 0, -- a deleted-floor placeholder took its floor
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL,
    PRIMARY KEY (forum, tid, pid)
) WITHOUT ROWID;
CREATE INDEX posts_floor ON posts (forum, tid, floor);

-- Every distinct content seen, seq 0 first. `locked` rows hold what a locked body showed
-- and are superseded (not replaced) by the first readable content.
CREATE TABLE revisions (
    forum       TEXT    NOT NULL,
    tid         INTEGER NOT NULL,
    pid         INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    seen_at     INTEGER NOT NULL,
    hash        TEXT    NOT NULL,
    edit_editor TEXT,
    edit_time   INTEGER,
    html        TEXT    NOT NULL,
    text        TEXT    NOT NULL,
    red         TEXT    NOT NULL,
    large       TEXT    NOT NULL,
    locked      INTEGER NOT NULL DEFAULT 0,
    source      TEXT    NOT NULL,
    PRIMARY KEY (forum, tid, pid, seq)
) WITHOUT ROWID;

-- Each time a pid was seen at a different floor than before.
CREATE TABLE floor_changes (
    forum     TEXT    NOT NULL,
    tid       INTEGER NOT NULL,
    pid       INTEGER NOT NULL,
    old_floor INTEGER,
    new_floor INTEGER,
    seen_at   INTEGER NOT NULL,
    source    TEXT    NOT NULL
);
CREATE INDEX floor_changes_post ON floor_changes (forum, tid, pid);

-- missing / deleted / reappeared, with when it was noticed.
CREATE TABLE presence_log (
    forum  TEXT    NOT NULL,
    tid    INTEGER NOT NULL,
    pid    INTEGER NOT NULL,
    event  TEXT    NOT NULL,
    at     INTEGER NOT NULL,
    source TEXT    NOT NULL
);
CREATE INDEX presence_log_post ON presence_log (forum, tid, pid);

CREATE TABLE fetch_log (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    forum      TEXT    NOT NULL,
    tid        INTEGER NOT NULL,
    source     TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    page       INTEGER NOT NULL,
    fetched_at INTEGER NOT NULL,
    outcome    TEXT    NOT NULL,
    posts_seen INTEGER NOT NULL DEFAULT 0,
    new_posts  INTEGER NOT NULL DEFAULT 0,
    changed    INTEGER NOT NULL DEFAULT 0,
    missing    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX fetch_log_thread ON fetch_log (forum, tid, id);
"#,
    // 2: the fingerprint of the last stored fetch of each page (skip unchanged pages).
    r#"
CREATE TABLE page_fingerprints (
    forum       TEXT    NOT NULL,
    tid         INTEGER NOT NULL,
    kind        TEXT    NOT NULL,   -- html / api
    page        INTEGER NOT NULL,   -- the page asked for
    fingerprint TEXT    NOT NULL,
    served_page INTEGER NOT NULL,   -- the page the forum served (past the end: the last)
    total_pages INTEGER NOT NULL,
    seen_at     INTEGER NOT NULL,
    PRIMARY KEY (forum, tid, kind, page)
) WITHOUT ROWID;
"#,
    // 3: the daemon's paging cursors and recheck cadence, kept between runs (a `sync` from
    // cron every minute must not re-read recent pages each time), and what it learned about
    // the forum's mobile API and PC page size.
    r#"
CREATE TABLE poll_state (
    forum           TEXT    NOT NULL,
    tid             INTEGER NOT NULL,
    pc_page         INTEGER,          -- the last PC page read (the PC polling cursor)
    pc_total        INTEGER,          -- the PC pager's page count then
    api_page        INTEGER,          -- the last mobile-API page read, at api_ppp a page
    api_ppp         INTEGER,          -- the posts per page the API served (its cap)
    api_posts       INTEGER,          -- the thread's posts at the last API read of its end
    last_recheck_at INTEGER,          -- when recent posts were last re-read
    PRIMARY KEY (forum, tid)
) WITHOUT ROWID;

CREATE TABLE forum_state (
    forum          TEXT    NOT NULL PRIMARY KEY,
    api_closed_at  INTEGER,           -- the API refused (closed, missing) then; NULL: usable
    api_closed_why TEXT,
    pc_ppp         INTEGER            -- PC posts per page learned from the pager
) WITHOUT ROWID;
"#,
    // 4: moderation — flags raised on posts, decisions on them, the card ledger, and the
    // phrases a moderator whitelisted for this game (src/store/flags.rs).
    r#"
CREATE TABLE flags (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    forum           TEXT    NOT NULL,
    tid             INTEGER NOT NULL,
    pid             INTEGER NOT NULL,
    floor           INTEGER,
    author          TEXT    NOT NULL,
    post_time       INTEGER NOT NULL,
    category        TEXT    NOT NULL,
    clause          TEXT    NOT NULL,
    card            TEXT    NOT NULL,   -- suggested
    matched         TEXT    NOT NULL,
    excerpt         TEXT    NOT NULL,
    reason          TEXT    NOT NULL,
    rev_hash        TEXT    NOT NULL,   -- the revision it was found in
    styling_checked INTEGER NOT NULL DEFAULT 1,
    created_at      INTEGER NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'open',  -- open / confirmed / dismissed
    decided_by      TEXT,
    decided_at      INTEGER,
    decided_card    TEXT,
    UNIQUE (forum, tid, pid, category)
);
CREATE INDEX flags_post ON flags (forum, tid, pid);

CREATE TABLE cards (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    forum        TEXT    NOT NULL,
    player       TEXT    NOT NULL,
    card         TEXT    NOT NULL,
    flag_id      INTEGER REFERENCES flags (id),
    category     TEXT    NOT NULL,
    clause       TEXT    NOT NULL,
    given_by     TEXT    NOT NULL,
    given_at     INTEGER NOT NULL,
    withdrawn_by TEXT,
    withdrawn_at INTEGER
);
CREATE INDEX cards_player ON cards (forum, player);

CREATE TABLE flag_whitelist (
    forum    TEXT    NOT NULL,
    phrase   TEXT    NOT NULL,
    added_by TEXT    NOT NULL,
    added_at INTEGER NOT NULL,
    PRIMARY KEY (forum, phrase)
) WITHOUT ROWID;
"#,
    // 5: the night engine's timeline — one row per resolved phase (src/store/timeline.rs).
    // Builds before this step created the same table on first use, outside the migrations,
    // so a database at version 4 may already have it (with rows): `IF NOT EXISTS` keeps it
    // as it is (its shape is exactly this one).
    r#"
CREATE TABLE IF NOT EXISTS engine_phases (
    kind     TEXT    NOT NULL,   -- 'night' | 'day'
    number   INTEGER NOT NULL,
    ord      INTEGER NOT NULL,   -- timeline order (StoredPhase::ord)
    input    TEXT    NOT NULL,   -- JSON: bansha_engine::PhaseInput
    result   TEXT    NOT NULL,   -- JSON: the outcome as `bansha night --format json` shows it
    stale    INTEGER NOT NULL DEFAULT 0,
    revision INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (kind, number)
) WITHOUT ROWID;
"#,
    // 6: the revisions the moderation scan has read (src/store/flags.rs): a pass scans only
    // the revisions not listed here (an edit is a new revision, so it is scanned).
    r#"
CREATE TABLE flag_scans (
    forum    TEXT    NOT NULL,
    tid      INTEGER NOT NULL,
    pid      INTEGER NOT NULL,
    rev_hash TEXT    NOT NULL,
    PRIMARY KEY (forum, tid, pid, rev_hash)
) WITHOUT ROWID;
"#,
];

/// The schema version this build writes.
pub fn current_version() -> i64 {
    MIGRATIONS.len() as i64
}
