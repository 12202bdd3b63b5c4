//! Importing saved thread pages (PC HTML, UTF-8/GBK) or mobile-API JSON into the store
//! (`bansha import`; `src/cli/import.rs` handles the arguments and prints each file).
//!
//! Each file is read, parsed and stored on its own: a bad file is reported (naming the file
//! and what was wrong) and stores nothing, and the other files still import. The command
//! exits 2 if any file was bad.
//!
//! A file is not a network response: its errors say what is wrong with the file (`file is
//! empty`, `not a Discuz! page`, `the saved page is incomplete`), never "retry". A page of
//! a thread the game config does not name is not part of the game and is refused unless
//! `--tid` names that thread or `--not-in-game` says to store it anyway. Fields a page
//! could not give (a customised template's time label…) are printed as warnings naming
//! the file and floor; the rest of the page is stored.

use std::path::{Path, PathBuf};

use super::Error;
use crate::discuz::{PageError, Parsed};
use crate::model::Timestamp;
use crate::store::{FetchInfo, PageChanges, SourceKind, Store};

/// One file that was stored.
#[derive(Debug, Clone)]
pub struct Imported {
    pub file: PathBuf,
    pub tid: u64,
    pub page: u32,
    pub total_pages: u32,
    pub posts_seen: usize,
    pub changes: PageChanges,
    /// Fields the page could not give, each naming the file and floor.
    pub warnings: Vec<String>,
}

impl Imported {
    pub fn summary(&self) -> String {
        let c = &self.changes;
        let mut s = format!(
            "{}: thread {} page {}/{}: {} posts ({} new, {} changed, {} missing",
            self.file.display(),
            self.tid,
            self.page,
            self.total_pages,
            self.posts_seen,
            c.new_posts.len(),
            c.changed.len(),
            c.missing.len()
        );
        if !c.reappeared.is_empty() {
            s.push_str(&format!(", {} reappeared", c.reappeared.len()));
        }
        if !c.refloored.is_empty() {
            s.push_str(&format!(", {} moved floor", c.refloored.len()));
        }
        s.push(')');
        s
    }
}

/// Which threads belong to the game, for refusing pages of other threads.
#[derive(Debug, Clone, Default)]
pub struct GameThreads {
    /// The tids the config names ([[day]] discussion/vote/process).
    pub known: Vec<u64>,
    /// The config file, for messages.
    pub config: String,
    /// `--not-in-game`: store pages of any thread.
    pub admit_all: bool,
}

/// A page error worded for a file (no "retry", no "response body"): what is wrong with
/// the file and what to do.
pub fn file_error(e: &PageError) -> String {
    let name = e.source_name();
    match e {
        PageError::Empty { .. } => format!("{name}: file is empty"),
        PageError::Truncated { detail, .. } => {
            format!("{name}: the saved page is incomplete ({detail}); save the page again")
        }
        PageError::CcDefence { title, .. } => format!(
            "{name}: not the thread but the forum's CC-defence page 「{title}」; save the \
             thread page again"
        ),
        PageError::AntiScrape { .. } => format!(
            "{name}: not the thread but the forum's anti-harvest (防采集) script page; open the \
             thread in a browser and save it again"
        ),
        PageError::ServerError { detail, .. } => {
            format!("{name}: not the thread but a server error page: {detail}")
        }
        PageError::NotThreadPage { detail, .. } => {
            format!("{name}: not a Discuz! thread page: {detail}")
        }
        PageError::MalformedJson { detail, .. } => {
            format!("{name}: not a Discuz! page (JSON that does not parse: {detail})")
        }
        PageError::BoardClosed { message, .. } => {
            format!("{name}: the forum's \"site closed\" page: 「{message}」")
        }
        other => other.to_string(),
    }
}

/// What kind of binary data `bytes` is, if it is not text.
fn binary_kind(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x1f\x8b", "gzip-compressed data; unpack it first"),
        (b"PK\x03\x04", "a ZIP archive; unpack it first"),
        (b"7z\xbc\xaf\x27\x1c", "a 7z archive; unpack it first"),
        (b"Rar!", "a RAR archive; unpack it first"),
        (b"%PDF", "a PDF document"),
        (b"\x89PNG", "a PNG image"),
        (b"GIF8", "a GIF image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"SQLite format 3\0", "an SQLite database"),
    ];
    if let Some((_, what)) = MAGIC.iter().find(|(m, _)| bytes.starts_with(m)) {
        return Some(what);
    }
    let head = &bytes[..bytes.len().min(8192)];
    let control = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c))
        .count();
    if head.contains(&0) || control * 20 > head.len() {
        return Some("binary data");
    }
    None
}

/// When a file was saved: `--saved-at`, else its modification time.
fn file_time(path: &Path, saved_at: Option<Timestamp>) -> Result<Timestamp, String> {
    if let Some(t) = saved_at {
        return Ok(t);
    }
    let m = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(|e| format!("{}: cannot read its modification time: {e}", path.display()))?;
    match m.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => Ok(d.as_secs() as Timestamp),
        Err(_) => Err(format!(
            "{}: modification time is before 1970; give --saved-at",
            path.display()
        )),
    }
}

/// Pages stored per transaction: a commit is paid per batch, and a batch is reported as
/// soon as it is committed (an import of thousands of files shows progress and never holds
/// more than one batch of summaries).
const BATCH_PAGES: usize = 64;

/// Parsed pages waiting to be stored, at most: the reader threads read and parse this
/// many files ahead of the page being stored (plus the ones they are parsing), and no
/// more, so memory does not grow with the archive.
const READ_AHEAD: usize = 2;

/// Reader threads: each reads and parses every `READERS`-th file, in the order of the
/// files, and the storer takes their pages in the order of the files.
const READERS: usize = 2;

/// What a reader thread hands the storer for one file.
type Ready = Result<(Parsed, Timestamp), String>;

/// Read, parse and store each file, on threads: [`READERS`] reader threads read and parse
/// the files (reader `k` the files `k`, `k + READERS`, …, each in order), at most
/// [`READ_AHEAD`] parsed pages ahead of the store in all, while this thread opens the store
/// with `open` (the readers have started by then) and stores the pages in the order of the
/// files, so an import of any size holds a few files and one batch of summaries in memory.
/// `parse(path, bytes, saved_at)` turns a file into a page (its error text need not name
/// the file; this adds it). Empty and binary files are refused before parsing; a page of a
/// thread outside `game` is refused unless `tid` names it or `game.admit_all`. Each stored
/// file is handed to `report` once its batch is committed, in the order of `files`.
/// Returns one message per bad file, each starting with the file name, in the order of
/// `files`, and the store. Only a failing database (or a failing `report`) stops the
/// whole import; a store that does not open stops it before anything is stored.
#[allow(clippy::too_many_arguments)]
pub fn import_files(
    open: impl FnOnce() -> Result<Store, Error>,
    forum: &str,
    files: &[PathBuf],
    tid: Option<u64>,
    saved_at: Option<Timestamp>,
    game: &GameThreads,
    parse: impl Fn(&Path, &[u8], Timestamp) -> Result<Parsed, String> + Sync,
    report: &mut dyn FnMut(Imported) -> Result<(), Error>,
) -> Result<(Vec<String>, Store), Error> {
    std::thread::scope(|s| {
        // One channel per reader; READ_AHEAD pages wait in them in all.
        let mut pages = Vec::with_capacity(READERS);
        for k in 0..READERS {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Ready>(READ_AHEAD / READERS);
            let parse = &parse;
            std::thread::Builder::new()
                .name(format!("import-reader-{k}"))
                // The stack a main thread has: a deeply nested page is parsed as it was
                // before parsing moved off the main thread.
                .stack_size(READER_STACK)
                .spawn_scoped(s, move || {
                    let mine = files.iter().skip(k).step_by(READERS);
                    read_files(mine, tid, saved_at, game, parse, tx)
                })
                .map_err(|e| Error::runtime(format!("cannot start a file reader: {e}")))?;
            pages.push(rx);
        }
        // The pages in the order of the files: file n from reader n % READERS. A reader
        // sends one answer per file; one that panicked ends the list here, and the scope
        // then re-raises its panic (the import fails, it does not stop short in silence).
        let ready = (0..files.len()).map_while(|n| pages[n % READERS].recv().ok());
        // Dropping the receivers (an error return) stops the readers at their next page.
        let mut store = open()?;
        // A third thread copies each committed batch from the write-ahead log into the
        // file while the next batches are parsed and stored, so that closing the store
        // (which copies what is left) has one batch to copy, not the whole import.
        let (committed, batches) = std::sync::mpsc::sync_channel::<()>(1);
        // Without a copier (an in-memory store, or one that could not be had: only speed is
        // lost), nobody reads `batches` and `after_commit`'s sends are dropped; closing the
        // store copies the whole log, as before.
        let copier = store.checkpointer().unwrap_or_else(|e| {
            tracing::warn!("{e}");
            None
        });
        if let Some(ck) = copier {
            std::thread::Builder::new()
                .name("import-checkpoint".into())
                .spawn_scoped(s, move || {
                    for () in batches {
                        if let Err(e) = ck.checkpoint() {
                            tracing::warn!("{e}");
                            return;
                        }
                    }
                })
                .map_err(|e| Error::runtime(format!("cannot start a thread: {e}")))?;
        }
        // A batch committed while the copier is busy is copied with the next one.
        let after_commit = || {
            let _ = committed.try_send(());
        };
        let failed = store_files(&mut store, forum, files, ready, report, &after_commit);
        // The copier ends (its channel closes) before the store is handed back and closed.
        drop(committed);
        Ok((failed?, store))
    })
}

/// A reader thread's stack: the 8 MiB of a Linux main thread.
const READER_STACK: usize = 8 << 20;

/// A reader thread of [`import_files`]: each of its files read, checked and parsed, in
/// order, until its files end or the storer stops listening.
fn read_files<'a>(
    files: impl Iterator<Item = &'a PathBuf>,
    tid: Option<u64>,
    saved_at: Option<Timestamp>,
    game: &GameThreads,
    parse: &impl Fn(&Path, &[u8], Timestamp) -> Result<Parsed, String>,
    tx: std::sync::mpsc::SyncSender<Ready>,
) {
    for file in files {
        if tx
            .send(read_file(file, tid, saved_at, game, parse))
            .is_err()
        {
            return;
        }
    }
}

/// One file read, checked and parsed, or the message saying why it is not imported.
fn read_file(
    file: &Path,
    tid: Option<u64>,
    saved_at: Option<Timestamp>,
    game: &GameThreads,
    parse: &impl Fn(&Path, &[u8], Timestamp) -> Result<Parsed, String>,
) -> Result<(Parsed, Timestamp), String> {
    let name = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|e| format!("{name}: cannot read: {e}"))?;
    if crate::discuz::strip_bom_ws(&bytes).is_empty() {
        return Err(format!("{name}: file is empty"));
    }
    if let Some(what) = binary_kind(&bytes) {
        return Err(format!("{name}: not a Discuz! page ({what})"));
    }
    let at = file_time(file, saved_at)?;
    let parsed = match parse(file, &bytes, at) {
        Ok(p) => p,
        Err(e) if e.contains(&name) => return Err(e),
        Err(e) => return Err(format!("{name}: {e}")),
    };
    drop(bytes);
    let page = &parsed.page;
    if let Some(t) = tid
        && page.tid != t
    {
        return Err(format!(
            "{name}: the page is thread {}, but --tid says {t}",
            page.tid
        ));
    }
    if page.tid == 0 {
        return Err(format!(
            "{name}: the page does not say which thread it is; give --tid"
        ));
    }
    if !game.admit_all && tid.is_none() && !game.known.contains(&page.tid) {
        return Err(format!(
            "{name}: thread {} is not part of this game ({} does not name it in a \
             [[day]]); nothing stored. To store it anyway give --tid {} or --not-in-game",
            page.tid, game.config, page.tid
        ));
    }
    Ok((parsed, at))
}

/// The storing half of [`import_files`]: the readers' pages (in the order of `files`)
/// stored in batches of [`BATCH_PAGES`], each batch reported once committed.
fn store_files(
    store: &mut Store,
    forum: &str,
    files: &[PathBuf],
    ready: impl Iterator<Item = Ready>,
    report: &mut dyn FnMut(Imported) -> Result<(), Error>,
    after_commit: &dyn Fn(),
) -> Result<Vec<String>, Error> {
    let mut failed = Vec::new();
    let mut pending: Vec<Imported> = Vec::new();
    let mut batch = store.batch().map_err(Error::runtime)?;
    for (n, ready) in ready.enumerate() {
        let (Parsed { page, warnings }, at) = match ready {
            Ok(r) => r,
            Err(e) => {
                failed.push(e);
                continue;
            }
        };
        let file = &files[n];
        let name = file.display().to_string();
        let info = FetchInfo {
            source: name.clone(),
            kind: SourceKind::File,
            page: page.page,
            fetched_at: at,
        };
        let changes = batch
            .store_page(forum, &page, &info)
            .map_err(Error::runtime)?;
        pending.push(Imported {
            file: file.clone(),
            tid: page.tid,
            page: page.page,
            total_pages: page.total_pages,
            posts_seen: page
                .posts
                .iter()
                .filter(|p| p.pid.is_some() && !p.deleted && !p.duplicate)
                .count(),
            changes,
            warnings: warnings.iter().map(|w| format!("{name}: {w}")).collect(),
        });
        if batch.pages() >= BATCH_PAGES {
            batch.commit().map_err(Error::runtime)?;
            after_commit();
            for r in pending.drain(..) {
                report(r)?;
            }
            batch = store.batch().map_err(Error::runtime)?;
        }
    }
    batch.commit().map_err(Error::runtime)?;
    for r in pending.drain(..) {
        report(r)?;
    }
    Ok(failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{PagePost, ThreadPage};

    fn page(n: u32) -> Parsed {
        let post = PagePost {
            pid: Some(1000 + n as u64),
            floor: Some(n),
            floor_label: format!("{n}#"),
            author: "甲".into(),
            uid: Some(7),
            time: 1_700_000_000 + n as i64,
            edit: None,
            quote: None,
            html: "投票".into(),
            text: "投票".into(),
            red: String::new(),
            large: String::new(),
            locked: None,
            deleted: false,
            duplicate: false,
        };
        Parsed {
            page: ThreadPage {
                tid: 5,
                title: "t".into(),
                page: n,
                total_pages: 1000,
                posts: vec![post],
                author_filtered: false,
                viewer_uid: None,
            },
            warnings: Vec::new(),
        }
    }

    /// An empty folder for one test's files.
    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bansha-import-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A game of thread 5, the thread of [`page`].
    fn game() -> GameThreads {
        GameThreads {
            known: vec![5],
            config: "game.toml".into(),
            admit_all: false,
        }
    }

    fn in_memory() -> Result<Store, Error> {
        Ok(Store::open_in_memory().unwrap())
    }

    /// Regression guard for whole-archive buffering, and for the pipeline: each reader
    /// reads its files in order, a file only after the reader's one before it is parsed
    /// (each file here is written by the parse of the file [`READERS`] before it, so reading
    /// out of order fails); while a batch is being reported the readers parse exactly
    /// [`READ_AHEAD`] + [`READERS`] pages past it and then wait (they are ahead, and
    /// bounded); the first batch is reported before the last file is read; the pages are
    /// stored and reported in the order of the files.
    #[test]
    fn import_reads_a_bounded_number_of_files_ahead_and_reports_each_batch_when_committed() {
        let dir = folder("stream");
        let n = BATCH_PAGES as u32 * 2 + 3;
        let files: Vec<PathBuf> = (1..=n).map(|i| dir.join(format!("p{i}.html"))).collect();
        for (i, f) in files.iter().take(READERS).enumerate() {
            std::fs::write(f, format!("<html>{}</html>", i + 1)).unwrap();
        }
        let events = std::sync::Mutex::new(Vec::new());
        let game = game();
        // The furthest page the readers may parse while page BATCH_PAGES is reported.
        let furthest = BATCH_PAGES + READ_AHEAD + READERS;
        let (reached, ahead) = std::sync::mpsc::channel::<()>();
        let parse = |path: &Path, _: &[u8], _| {
            let i: usize = files.iter().position(|f| f == path).unwrap();
            events.lock().unwrap().push(format!("parse {}", i + 1));
            if let Some(next) = files.get(i + READERS) {
                std::fs::write(next, format!("<html>{}</html>", i + 1 + READERS)).unwrap();
            }
            if i + 1 == furthest {
                reached.send(()).unwrap();
            }
            Ok(page(i as u32 + 1))
        };
        let mut reported = Vec::new();
        let mut report = |r: Imported| {
            if r.page as usize == BATCH_PAGES {
                // The readers get this far on their own while this thread reports, and
                // no further.
                ahead
                    .recv_timeout(std::time::Duration::from_secs(60))
                    .expect("the readers parse ahead while a batch is reported");
                let ev = events.lock().unwrap();
                assert!(!ev.contains(&format!("parse {}", furthest + 1)), "{ev:?}");
            }
            events.lock().unwrap().push(format!("report {}", r.page));
            reported.push(r.page);
            Ok(())
        };
        let (failed, store) = import_files(
            in_memory,
            "f",
            &files,
            None,
            Some(1),
            &game,
            parse,
            &mut report,
        )
        .unwrap();
        assert!(failed.is_empty(), "{failed:?}");
        let ev = events.into_inner().unwrap();
        let at = |e: &str| ev.iter().position(|x| x == e).unwrap();
        assert!(at("report 1") < at(&format!("parse {n}")), "{ev:?}");
        assert!(at(&format!("report {BATCH_PAGES}")) < at(&format!("parse {}", furthest + 1)));
        assert_eq!(reported, (1..=n).collect::<Vec<_>>());
        assert_eq!(store.posts("f", 5).unwrap().len(), n as usize);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The store is opened while the readers already read: `open` here waits until the first
    /// file has been parsed (it would wait forever if the readers started after it).
    #[test]
    fn import_parses_while_the_store_opens() {
        let dir = folder("open");
        let files: Vec<PathBuf> = (1..=3).map(|i| dir.join(format!("p{i}.html"))).collect();
        for f in &files {
            std::fs::write(f, "<html></html>").unwrap();
        }
        let game = game();
        let (parsed, first) = std::sync::mpsc::channel::<()>();
        let parse = |path: &Path, _: &[u8], _| {
            let i = files.iter().position(|f| f == path).unwrap();
            let _ = parsed.send(());
            Ok(page(i as u32 + 1))
        };
        let open = || {
            first
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("a file is parsed before the store is open");
            Ok(Store::open_in_memory().unwrap())
        };
        let (failed, store) =
            import_files(open, "f", &files, None, Some(1), &game, parse, &mut |_| {
                Ok(())
            })
            .unwrap();
        assert!(failed.is_empty(), "{failed:?}");
        assert_eq!(store.posts("f", 5).unwrap().len(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// With several readers, bad files are still reported in the order of the files, and
    /// the good ones stored and reported in that order.
    #[test]
    fn import_with_several_readers_keeps_the_order_of_the_files() {
        let dir = folder("order");
        let files: Vec<PathBuf> = (1..=9).map(|i| dir.join(format!("p{i}.html"))).collect();
        for (i, f) in files.iter().enumerate() {
            // Files 2, 5 and 6 are empty: refused before parsing.
            let empty = matches!(i + 1, 2 | 5 | 6);
            std::fs::write(f, if empty { "" } else { "<html></html>" }).unwrap();
        }
        let game = game();
        let parse = |path: &Path, _: &[u8], _| {
            let i = files.iter().position(|f| f == path).unwrap();
            // The first reader's files take longer, so the other reader runs ahead.
            if i % READERS == 0 {
                std::thread::yield_now();
            }
            Ok(page(i as u32 + 1))
        };
        let mut reported = Vec::new();
        let (failed, _) = import_files(
            in_memory,
            "f",
            &files,
            None,
            Some(1),
            &game,
            parse,
            &mut |r: Imported| {
                reported.push(r.page);
                Ok(())
            },
        )
        .unwrap();
        let named: Vec<&str> = failed
            .iter()
            .map(|e| e.split(": ").next().unwrap().rsplit('/').next().unwrap())
            .collect();
        assert_eq!(named, ["p2.html", "p5.html", "p6.html"], "{failed:?}");
        assert_eq!(reported, [1, 3, 4, 7, 8, 9]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
