//! Connections, bounded: at most [`MAX_CONNECTIONS`] at once (accepting waits for one to
//! end), at most [`PER_CLIENT`] from one address (more are closed at once), and a
//! connection that sends nothing for `idle` is closed (a half-open connection, a client
//! that sends half a request head and stops).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

pub const MAX_CONNECTIONS: usize = 256;
pub const PER_CLIENT: usize = 32;

/// The client's address, for the sign-in limits.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub IpAddr);

impl Connected<IncomingStream<'_, Bounded>> for ClientAddr {
    fn connect_info(s: IncomingStream<'_, Bounded>) -> Self {
        ClientAddr(s.remote_addr().ip())
    }
}

pub struct Bounded {
    inner: TcpListener,
    permits: Arc<Semaphore>,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
    idle: Duration,
}

impl Bounded {
    pub fn new(inner: TcpListener, idle: Duration) -> Bounded {
        Bounded {
            inner,
            permits: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            open: Arc::new(Mutex::new(HashMap::new())),
            idle,
        }
    }
}

/// One of a client's open connections; the count goes down when it is dropped.
struct Slot {
    ip: IpAddr,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut m) = self.open.lock()
            && let Some(n) = m.get_mut(&self.ip)
        {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.ip);
            }
        }
    }
}

impl Listener for Bounded {
    type Io = Guarded;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Guarded, SocketAddr) {
        loop {
            let Ok(permit) = self.permits.clone().acquire_owned().await else {
                continue;
            };
            let (stream, addr) = match self.inner.accept().await {
                Ok(x) => x,
                Err(e) => {
                    tracing::debug!("web: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let ip = addr.ip();
            let admitted = self.open.lock().is_ok_and(|mut m| {
                let n = m.entry(ip).or_insert(0);
                if *n >= PER_CLIENT {
                    false
                } else {
                    *n += 1;
                    true
                }
            });
            if !admitted {
                drop(stream);
                continue;
            }
            let slot = Slot {
                ip,
                open: self.open.clone(),
            };
            return (
                Guarded {
                    io: stream,
                    idle: self.idle,
                    timer: Box::pin(tokio::time::sleep(self.idle)),
                    _permit: permit,
                    _slot: slot,
                },
                addr,
            );
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection whose reads fail once it has been silent for `idle`.
pub struct Guarded {
    io: TcpStream,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
    _permit: OwnedSemaphorePermit,
    _slot: Slot,
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = &mut *self;
        match Pin::new(&mut me.io).poll_read(cx, buf) {
            Poll::Ready(r) => {
                let deadline = Instant::now() + me.idle;
                me.timer.as_mut().reset(deadline);
                Poll::Ready(r)
            }
            Poll::Pending => match me.timer.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "connection idle",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
