//! The SQLite post store: posts keyed by (forum, tid, pid), revisions, missing marks, fetch log.
