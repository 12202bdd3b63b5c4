//! Conversions between unix timestamps and the game's local wall-clock time.
//! Everything inside bansha is a [`Timestamp`]; these functions are the edges.

use chrono_tz::Tz;

use crate::model::Timestamp;

pub use bansha_base::localtime::{local_to_ts, parse_local, parse_naive, to_local};

/// The clock, injected so that tests never read the wall clock.
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        chrono::Utc::now().timestamp()
    }
}

/// The environment variable that sets where the clock of `bansha sync`, `run` and `tally`
/// starts: a local time (`YYYY-MM-DD HH:MM[:SS]`, the game's timezone) or `@` and unix
/// seconds. From there it runs at real speed, and the report commands the daemon starts
/// inherit it. For replaying a finished game and for tests; unset, the real clock.
pub const CLOCK_START_ENV: &str = "BANSHA_CLOCK_START";

/// A clock that starts at a given moment and then runs at real speed.
#[derive(Debug, Clone, Copy)]
pub struct OffsetClock {
    offset: i64,
}

impl OffsetClock {
    pub fn starting_at(t: Timestamp) -> Self {
        OffsetClock {
            offset: t - SystemClock.now(),
        }
    }
}

impl Clock for OffsetClock {
    fn now(&self) -> Timestamp {
        SystemClock.now() + self.offset
    }
}

/// Parse a [`CLOCK_START_ENV`] value.
pub fn parse_clock_start(v: &str, tz: Tz) -> Option<Timestamp> {
    let v = v.trim();
    match v.strip_prefix('@') {
        Some(secs) => secs.parse().ok(),
        None => parse_local(v, tz),
    }
}

/// The clock a command runs on: [`SystemClock`], or an [`OffsetClock`] when
/// [`CLOCK_START_ENV`] is set (an unparsable value is an error naming the variable).
pub fn process_clock(tz: Tz) -> Result<std::sync::Arc<dyn Clock>, String> {
    match std::env::var(CLOCK_START_ENV) {
        Err(_) => Ok(std::sync::Arc::new(SystemClock)),
        Ok(v) => parse_clock_start(&v, tz)
            .map(|t| std::sync::Arc::new(OffsetClock::starting_at(t)) as std::sync::Arc<dyn Clock>)
            .ok_or_else(|| {
                format!(
                    "{CLOCK_START_ENV}={v:?}: not a time (`YYYY-MM-DD HH:MM[:SS]` in the game's timezone, or `@` and unix seconds)"
                )
            }),
    }
}

/// A clock tests set by hand.
#[derive(Debug, Default)]
pub struct ManualClock(pub std::sync::atomic::AtomicI64);

impl ManualClock {
    pub fn new(t: Timestamp) -> Self {
        ManualClock(std::sync::atomic::AtomicI64::new(t))
    }
    pub fn set(&self, t: Timestamp) {
        self.0.store(t, std::sync::atomic::Ordering::SeqCst)
    }
    pub fn advance(&self, secs: i64) {
        self.0.fetch_add(secs, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// `YYYY-MM-DD HH:MM:SS` in `tz`.
pub fn format_local(ts: Timestamp, tz: Tz) -> String {
    to_local(ts, tz).format("%Y-%m-%d %H:%M:%S").to_string()
}

/// `YYYY-MM-DD HH:MM` in `tz` (reports for people).
pub fn format_local_short(ts: Timestamp, tz: Tz) -> String {
    to_local(ts, tz).format("%Y-%m-%d %H:%M").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shanghai_round_trip() {
        let tz: Tz = "Asia/Shanghai".parse().unwrap();
        let ts = parse_local("2026-03-04 09:00", tz).unwrap();
        assert_eq!(ts, 1772586000);
        assert_eq!(format_local(ts, tz), "2026-03-04 09:00:00");
        assert_eq!(parse_local("2026-3-4 9:00:00", tz), Some(ts));
        assert_eq!(parse_local("nonsense", tz), None);
    }

    #[test]
    fn clock_start_is_a_local_time_or_unix_seconds() {
        let tz: Tz = "Asia/Shanghai".parse().unwrap();
        assert_eq!(parse_clock_start("2026-03-04 09:00", tz), Some(1772586000));
        assert_eq!(parse_clock_start(" @1772586000 ", tz), Some(1772586000));
        assert_eq!(parse_clock_start("@soon", tz), None);
        assert_eq!(parse_clock_start("tomorrow", tz), None);
        // OffsetClock itself runs on the real clock: the daemon tests that start the binary
        // with BANSHA_CLOCK_START exercise it (no unit test reads the wall clock).
    }
}
