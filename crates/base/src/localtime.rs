//! Local wall-clock times as unix seconds and back (bansha re-exports these from
//! `bansha::time`; the test forum renders and parses its times with them).

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone};
use chrono_tz::Tz;

use crate::Timestamp;

/// Parse `YYYY-MM-DD HH:MM[:SS]` (also `Y-n-j`, `/` separators) as a local wall-clock time.
pub fn parse_naive(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim().replace('/', "-");
    for fmt in ["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(&s, fmt) {
            return Some(t);
        }
    }
    NaiveDate::parse_from_str(&s, "%Y-%m-%d")
        .ok()
        .map(|d| d.and_hms_opt(0, 0, 0).unwrap())
}

/// A local wall-clock time in `tz` as a timestamp. Ambiguous times (DST folds) take the
/// earlier instant; times in a DST gap are shifted forward an hour.
pub fn local_to_ts(t: NaiveDateTime, tz: Tz) -> Timestamp {
    match tz.from_local_datetime(&t) {
        chrono::LocalResult::Single(d) => d.timestamp(),
        chrono::LocalResult::Ambiguous(a, _) => a.timestamp(),
        chrono::LocalResult::None => tz
            .from_local_datetime(&(t + chrono::Duration::hours(1)))
            .earliest()
            .map(|d| d.timestamp())
            .unwrap_or_else(|| t.and_utc().timestamp()),
    }
}

/// Parse a user-given local time string into a timestamp.
pub fn parse_local(s: &str, tz: Tz) -> Option<Timestamp> {
    parse_naive(s).map(|t| local_to_ts(t, tz))
}

pub fn to_local(ts: Timestamp, tz: Tz) -> DateTime<Tz> {
    tz.timestamp_opt(ts, 0)
        .single()
        .unwrap_or_else(|| tz.timestamp_opt(0, 0).unwrap())
}
