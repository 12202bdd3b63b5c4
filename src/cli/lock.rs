//! One `sync`/`run` per database at a time: an exclusive lock on `<db>.lock`, held for the
//! whole run. The operating system releases it when the process ends, however it ends
//! (a crash or `kill -9` leaves no stale lock). The file says who holds it.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::CliError;

/// Held for as long as it lives.
#[derive(Debug)]
pub struct DbLock {
    _file: std::fs::File,
}

/// The lock file of a database.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_os_string();
    s.push(".lock");
    PathBuf::from(s)
}

/// Take the database's lock for `command` (`sync`, `run`), or fail (exit 2) saying who
/// holds it.
pub fn acquire(db: &Path, command: &str, started: &str) -> Result<DbLock, CliError> {
    let path = lock_path(db);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| {
            CliError::Runtime(format!(
                "{}: cannot create the lock file: {e}",
                path.display()
            ))
        })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = if holder.is_empty() {
                "another bansha process".to_string()
            } else {
                holder.replace('\n', ", ")
            };
            return Err(CliError::Input(format!(
                "{}: the database is in use by {who}; one `bansha sync`/`bansha run` per \
                 database at a time (the lock is {})",
                db.display(),
                path.display()
            )));
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(CliError::Runtime(format!(
                "{}: cannot lock: {e}",
                path.display()
            )));
        }
    }
    let me = format!(
        "pid {} (`bansha {command}`, started {started})\n",
        std::process::id()
    );
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = file.write_all(me.as_bytes());
    let _ = file.flush();
    Ok(DbLock { _file: file })
}
