//! The accept loop: each connection is let in under the [`ConnectionCap`], served by hyper
//! with a header timeout, and marked authenticated once one of its requests shows the token.
//!
//! `axum::serve` has neither a header timeout nor a cap, so sockets that send half a head, or
//! nothing, stayed open for good; under a low open-file limit enough of them stopped the server
//! from accepting anything, its health check included.

use std::error::Error as StdError;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::body::{Body, Incoming};
use hyper::server::conn::http1;
use hyper::service::Service;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use super::authorization_scan::AuthorizationScan;
use super::connection_cap::{Admission, Admitted, ConnectionCap, Place, Standing};
use super::standing_timer::StandingTimer;

/// How long the loop waits after an accept error before trying again: long enough not to spin
/// on a condition that lasts (no file descriptors left), short enough to go unnoticed.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// How often, at most, a repeated warning about the cap is logged.
const REPORT_EVERY: Duration = Duration::from_secs(10);

/// How connections are let in and read.
pub struct Listening {
    /// Longest wait for a request head (see the servers' `header_timeout`).
    pub header_timeout: Duration,
    /// The cap on open connections, shared by everything this listener accepts.
    pub cap: Arc<ConnectionCap>,
}

/// Accepts and serves connections for as long as the future is polled, each with the service
/// `service_for(peer, standing)` makes for it; that service marks `standing` authenticated
/// when a request shows the token.
///
/// Accept errors do not end it: a connection that failed before it was accepted is skipped,
/// and anything else (such as running out of file descriptors) is logged and retried after
/// a short backoff (100 ms), having first closed the oldest unauthenticated connection if file
/// descriptors are what ran out. While it runs it keeps one standing timer, so the header
/// timer of each request does not wake the runtime's driver thread.
///
/// # Errors
/// None in practice: the loop runs until the future is dropped; the `io::Result` leaves room
/// for a listener that cannot accept at all.
pub async fn accept_loop<F, S, B>(
    listener: TcpListener,
    listening: Listening,
    service_for: F,
) -> io::Result<()>
where
    F: Fn(SocketAddr, Arc<Standing>) -> S,
    S: Service<Request<Incoming>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let Listening {
        header_timeout,
        cap,
    } = listening;
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let mut evictions = Throttled::default();
    let mut refusals = Throttled::default();
    let mut failures = Throttled::default();
    // Keeps the header timer of each request from waking the runtime's driver (see its
    // module); polled here, so it lives exactly as long as the server.
    let mut standing = StandingTimer::new(header_timeout);
    loop {
        let accepted = tokio::select! {
            biased;
            accepted = listener.accept() => accepted,
            () = standing.fired() => continue,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(err) => {
                accept_failed(&err, &cap, &mut failures).await;
                continue;
            }
        };
        let (admitted, eviction) = match cap.admit(peer) {
            Admission::Admitted(admitted, eviction) => (admitted, eviction),
            Admission::Full => {
                tracing::debug!(%peer, "refused a connection: the cap is reached");
                if let Some(count) = refusals.hit() {
                    tracing::warn!(
                        %peer,
                        count,
                        "refused {count} connections (counted since the last such warning, which comes at most every {} s): {} are open, this server's `max_connections`, and each has made an authenticated request; raise `max_connections` if its clients need more",
                        REPORT_EVERY.as_secs(),
                        cap.max()
                    );
                }
                continue;
            }
        };
        let service = service_for(peer, Arc::clone(&admitted.standing));
        tokio::spawn(serve(builder.clone(), stream, peer, admitted, service));
        if let Some(eviction) = eviction {
            tracing::debug!(%peer, evicted = %eviction.peer, "closed a connection to make room");
            if let Some(count) = evictions.hit() {
                tracing::warn!(
                    %peer,
                    count,
                    "{} connections open, this server's `max_connections`: closed {count} that had made no authenticated request, oldest first, to let new ones in (counted since the last such warning, which comes at most every {} s); many idle connections are an attack or a leak, or `max_connections` is too low",
                    cap.max(),
                    REPORT_EVERY.as_secs()
                );
            }
            eviction.closed_within(ACCEPT_BACKOFF).await;
        }
    }
}

/// Logs an accept error and waits before the next try, making room first if file descriptors
/// ran out (the connection waiting in the backlog then gets the one freed).
async fn accept_failed(err: &io::Error, cap: &ConnectionCap, failures: &mut Throttled) {
    if matches!(
        err.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    ) {
        // The peer gave up before it was accepted: nothing wrong here.
        tracing::debug!("a connection closed before it was accepted: {err}");
        return;
    }
    let out_of_files = [rustix::io::Errno::MFILE, rustix::io::Errno::NFILE]
        .iter()
        .any(|errno| err.raw_os_error() == Some(errno.raw_os_error()));
    let eviction = out_of_files.then(|| cap.make_room()).flatten();
    if let Some(count) = failures.hit() {
        tracing::warn!(
            count,
            "cannot accept a connection: {err} ({count} failures since the last such warning, which comes at most every {} s); {}",
            REPORT_EVERY.as_secs(),
            if eviction.is_some() {
                "closing the oldest connection that made no authenticated request to free a file descriptor, and retrying; lower `max_connections` or raise the open-file limit (`ulimit -n`)"
            } else {
                "retrying shortly"
            }
        );
    }
    match eviction {
        Some(eviction) => eviction.closed_within(ACCEPT_BACKOFF).await,
        None => tokio::time::sleep(ACCEPT_BACKOFF).await,
    }
}

/// Serves one connection until it closes, is closed by hyper (its head was not complete within
/// the header timeout), or is evicted to make room. Dropping the connection drops the request
/// in flight on it, which is how a client that goes away stops its call.
async fn serve<S, B>(
    builder: http1::Builder,
    stream: TcpStream,
    peer: SocketAddr,
    admitted: Admitted,
    service: S,
) where
    S: Service<Request<Incoming>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let Admitted {
        place,
        evicted,
        standing,
    } = admitted;
    let stream = TokioIo::new(PlacedStream {
        stream,
        _place: place,
        standing,
        scan: AuthorizationScan::default(),
    });
    let connection = builder.serve_connection(stream, service).with_upgrades();
    tokio::select! {
        served = connection => match served {
            Ok(()) => {}
            Err(err) if err.is_timeout() => tracing::debug!(
                %peer,
                "closed a connection that sent no complete request head within `header_timeout`"
            ),
            Err(err) => tracing::debug!(%peer, "connection ended: {err}"),
        },
        // Dropping the connection closes its socket.
        () = evicted.cancelled() => tracing::debug!(%peer, "closed to make room for a newer connection"),
    }
}

/// Counts a repeated event and says when to log it: the first time, then at most once per
/// [`REPORT_EVERY`], so a flood of connections cannot flood the log as well.
#[derive(Default)]
struct Throttled {
    count: u64,
    last: Option<Instant>,
}

impl Throttled {
    /// Counts one event; `Some(events since the last report)` when it is time to report.
    fn hit(&mut self) -> Option<u64> {
        self.count += 1;
        if self.last.is_some_and(|last| last.elapsed() < REPORT_EVERY) {
            return None;
        }
        self.last = Some(Instant::now());
        Some(std::mem::take(&mut self.count))
    }
}

/// A connection's socket together with its place under the cap, so the place is held exactly
/// as long as the socket is open, including after an upgrade hands the socket to a code-mode
/// run; and the scan of what it reads for an `Authorization` line ending in whitespace.
struct PlacedStream {
    stream: TcpStream,
    _place: Place,
    standing: Arc<Standing>,
    scan: AuthorizationScan,
}

impl AsyncRead for PlacedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && self.scan.feed(&buf.filled()[before..]) {
            self.standing.mark_loose_authorization();
        }
        read
    }
}

impl AsyncWrite for PlacedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
