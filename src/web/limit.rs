//! Wrong tokens at `/login`: counted per client and in total over a window; past either
//! limit sign-ins are refused (429) without looking at the token until the window ends.
//! The log gets one line when a client (or the whole server) starts being refused, and
//! the first wrong token of a window, never one line per attempt.

use std::collections::HashMap;
use std::net::IpAddr;

use crate::model::Timestamp;

/// The window over which wrong tokens are counted, in seconds.
pub const WINDOW_SECS: i64 = 600;
/// Wrong tokens one client may send in a window.
pub const PER_CLIENT: u32 = 10;
/// Wrong tokens all clients together may send in a window.
pub const GLOBAL: u32 = 100;
/// Clients remembered at once (the oldest windows are forgotten first).
pub const MAX_CLIENTS: usize = 4096;

#[derive(Debug, Clone, Copy)]
struct Window {
    start: Timestamp,
    failures: u32,
}

impl Window {
    fn at(&mut self, now: Timestamp) -> &mut Self {
        if now >= self.start + WINDOW_SECS {
            *self = Window {
                start: now,
                failures: 0,
            };
        }
        self
    }
}

/// Why a sign-in is not even tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    Client { retry_at: Timestamp },
    Global { retry_at: Timestamp },
}

/// What to log about a wrong token (at most one line per client or for the server per
/// window).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLine {
    None,
    FirstFailure,
    ClientLimited,
    GlobalLimited,
}

#[derive(Default)]
pub struct LoginLimiter {
    clients: HashMap<IpAddr, Window>,
    global: Option<Window>,
}

impl LoginLimiter {
    /// Whether `client` may try a token at `now`.
    pub fn check(&mut self, client: IpAddr, now: Timestamp) -> Result<(), Limited> {
        if let Some(g) = self.global.as_mut().map(|g| g.at(now))
            && g.failures >= GLOBAL
        {
            return Err(Limited::Global {
                retry_at: g.start + WINDOW_SECS,
            });
        }
        if let Some(w) = self.clients.get_mut(&client).map(|w| w.at(now))
            && w.failures >= PER_CLIENT
        {
            return Err(Limited::Client {
                retry_at: w.start + WINDOW_SECS,
            });
        }
        Ok(())
    }

    /// Count a wrong token from `client`; what to log about it.
    pub fn failed(&mut self, client: IpAddr, now: Timestamp) -> LogLine {
        if !self.clients.contains_key(&client) && self.clients.len() >= MAX_CLIENTS {
            self.clients.retain(|_, w| now < w.start + WINDOW_SECS);
            if self.clients.len() >= MAX_CLIENTS
                && let Some(oldest) = self.clients.iter().min_by_key(|(_, w)| w.start)
            {
                let k = *oldest.0;
                self.clients.remove(&k);
            }
        }
        let g = self
            .global
            .get_or_insert(Window {
                start: now,
                failures: 0,
            })
            .at(now);
        g.failures += 1;
        let global_now_limited = g.failures == GLOBAL;
        let w = self
            .clients
            .entry(client)
            .or_insert(Window {
                start: now,
                failures: 0,
            })
            .at(now);
        w.failures += 1;
        if global_now_limited {
            LogLine::GlobalLimited
        } else if w.failures == PER_CLIENT {
            LogLine::ClientLimited
        } else if w.failures == 1 {
            LogLine::FirstFailure
        } else {
            LogLine::None
        }
    }

    pub fn clients(&self) -> usize {
        self.clients.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(n: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, n])
    }

    #[test]
    fn one_client_is_refused_after_its_limit_until_the_window_ends() {
        let mut l = LoginLimiter::default();
        let mut lines = vec![];
        for _ in 0..PER_CLIENT {
            assert_eq!(l.check(ip(1), 0), Ok(()));
            lines.push(l.failed(ip(1), 0));
        }
        assert_eq!(
            l.check(ip(1), 5),
            Err(Limited::Client {
                retry_at: WINDOW_SECS
            })
        );
        assert_eq!(l.check(ip(2), 5), Ok(()), "another client is not affected");
        assert_eq!(l.check(ip(1), WINDOW_SECS), Ok(()), "a new window");
        let logged = lines.iter().filter(|x| **x != LogLine::None).count();
        assert_eq!(logged, 2, "{lines:?}");
    }

    #[test]
    fn many_clients_together_reach_the_global_limit() {
        let mut l = LoginLimiter::default();
        let mut n = 0u32;
        'outer: for c in 0..=255u8 {
            for _ in 0..3 {
                if l.check(ip(c), 1).is_err() {
                    break 'outer;
                }
                l.failed(ip(c), 1);
                n += 1;
            }
        }
        assert_eq!(n, GLOBAL);
        assert!(matches!(l.check(ip(250), 2), Err(Limited::Global { .. })));
    }

    #[test]
    fn the_clients_remembered_are_bounded() {
        let mut l = LoginLimiter::default();
        for i in 0..(MAX_CLIENTS as u32 + 50) {
            let a = IpAddr::from(i.to_be_bytes());
            l.failed(a, 0);
            l.global = None;
        }
        assert!(l.clients() <= MAX_CLIENTS);
    }
}
