//! The requests to stop that the long-running commands (`sync`, `run`, `serve`) answer.
//! Unix: Ctrl-C (SIGINT) and SIGTERM (systemd's stop). Windows: Ctrl-C, Ctrl-Break, the
//! console window being closed, logoff and shutdown. Ending a Scheduled Task kills the
//! process without a request; nothing is lost then either, every stored page being committed.

use std::io;

/// The stop requests, listened to from creation on.
pub struct StopRequests {
    #[cfg(unix)]
    streams: [tokio::signal::unix::Signal; 2],
    #[cfg(windows)]
    ctrl_c: tokio::signal::windows::CtrlC,
    #[cfg(windows)]
    ctrl_break: tokio::signal::windows::CtrlBreak,
    #[cfg(windows)]
    close: tokio::signal::windows::CtrlClose,
    #[cfg(windows)]
    logoff: tokio::signal::windows::CtrlLogoff,
    #[cfg(windows)]
    shutdown: tokio::signal::windows::CtrlShutdown,
}

impl StopRequests {
    /// Starts listening (inside a tokio runtime).
    pub fn listen() -> io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Self {
                streams: [
                    signal(SignalKind::interrupt())?,
                    signal(SignalKind::terminate())?,
                ],
            })
        }
        #[cfg(windows)]
        {
            use tokio::signal::windows;
            Ok(Self {
                ctrl_c: windows::ctrl_c()?,
                ctrl_break: windows::ctrl_break()?,
                close: windows::ctrl_close()?,
                logoff: windows::ctrl_logoff()?,
                shutdown: windows::ctrl_shutdown()?,
            })
        }
    }

    /// The next request.
    pub async fn recv(&mut self) {
        #[cfg(unix)]
        {
            let [int, term] = &mut self.streams;
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(windows)]
        {
            tokio::select! {
                _ = self.ctrl_c.recv() => {}
                _ = self.ctrl_break.recv() => {}
                _ = self.close.recv() => {}
                _ = self.logoff.recv() => {}
                _ = self.shutdown.recv() => {}
            }
        }
    }
}

/// The first stop request; without a way to listen (no signal handler could be installed),
/// Ctrl-C alone.
pub async fn first() {
    match StopRequests::listen() {
        Ok(mut requests) => requests.recv().await,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
