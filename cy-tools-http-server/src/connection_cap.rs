//! The cap on open connections, and who makes room at it.
//!
//! Every accepted connection takes a place; the place is held until its socket closes (after
//! an upgrade too, since the socket then lives on in the code-mode run). At the cap, a new
//! connection evicts the oldest one that has not yet made an authenticated request; if every
//! open connection has, the new one is turned away. So sockets that never show the token, however
//! many, can only push each other out: `/v1/health` and the runs of clients that hold the token
//! always get in.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use cy_tools::CancellationToken;
use hyper::HeaderMap;
use hyper::header::AUTHORIZATION;
use tokio::sync::oneshot;

/// A quarter of the soft open-file limit, at least 16 and at most 1024.
///
/// Each connection holds one file descriptor, but a run needs several more (its pipes, its
/// script, its workspace, a code-mode run's socket), as do the runtime and the listener, so
/// connections get a quarter and the rest stays free: a flood of connections then meets the
/// cap long before the server runs out of descriptors and cannot accept or start a run. At
/// least 16, so even a tiny limit leaves room for a health check and a few clients; at most
/// 1024, since honest clients open one connection per run and a server runs only a handful at
/// once, so more would only be room for idle sockets.
pub fn default_max_connections() -> usize {
    let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    // `None` is no limit at all.
    let quarter = soft.map_or(u64::MAX, |limit| limit / 4);
    usize::try_from(quarter.clamp(16, 1024)).unwrap_or(1024)
}

/// The open connections, oldest first, and how many may be open at once: at the cap, a new
/// connection evicts the oldest one that has not yet made an authenticated request, or is
/// turned away when every open one has.
pub struct ConnectionCap {
    max: usize,
    open: Mutex<Open>,
}

struct Open {
    next_id: u64,
    /// Keyed by an id that only grows, so iteration goes from the oldest connection.
    connections: BTreeMap<u64, Entry>,
}

struct Entry {
    peer: SocketAddr,
    standing: Arc<Standing>,
    evict: CancellationToken,
    /// Ends when the connection's [`Place`] is dropped, that is when its socket is closed.
    closed: oneshot::Receiver<()>,
}

/// Whether a connection has shown the token; its requests set it, the cap reads it. Also
/// whether it sent an `Authorization` line ending in whitespace, which its reads set and its
/// requests read.
#[derive(Debug, Default)]
pub struct Standing {
    authenticated: AtomicBool,
    loose_authorization: AtomicBool,
}

impl Standing {
    /// Marks the connection as one that made an authenticated request; it stays so.
    pub fn authenticate(&self) {
        // A lone flag that guards no other data: no ordering to uphold.
        self.authenticated.store(true, Ordering::Relaxed);
    }

    /// Whether the connection has made an authenticated request.
    pub fn is_authenticated(&self) -> bool {
        self.authenticated.load(Ordering::Relaxed)
    }

    /// Marks the connection as one that sent an `Authorization` header with whitespace after
    /// its value (see [`super::authorization_scan`]); it stays so.
    pub(crate) fn mark_loose_authorization(&self) {
        self.loose_authorization.store(true, Ordering::Relaxed);
    }

    /// Whether the connection ever sent such a header. Its bytes are read before the request
    /// they carry is handed on, so a request sees its own.
    fn sent_loose_authorization(&self) -> bool {
        self.loose_authorization.load(Ordering::Relaxed)
    }

    /// Removes the `Authorization` headers of a request on a connection that ever sent such a
    /// header, so the request is one without a token and every check answers it `401`: what
    /// both servers do to each request before checking its token.
    pub fn forget_loose_authorization(&self, headers: &mut HeaderMap) {
        if self.sent_loose_authorization() {
            headers.remove(AUTHORIZATION);
        }
    }
}

/// A connection let in under the cap.
pub(crate) struct Admitted {
    /// Its place; dropping it (when the socket closes) frees the place.
    pub(crate) place: Place,
    /// Set by its first authenticated request.
    pub(crate) standing: Arc<Standing>,
    /// Cancelled when a newer connection evicts it: the connection is then to be closed.
    pub(crate) evicted: CancellationToken,
}

/// One connection's place under the cap, freed on drop.
pub(crate) struct Place {
    cap: Arc<ConnectionCap>,
    id: u64,
    /// Dropped with the place, which tells an [`Eviction`] waiting on it.
    _closed: oneshot::Sender<()>,
}

impl Drop for Place {
    fn drop(&mut self) {
        // Already gone when the connection was evicted.
        self.cap.lock().connections.remove(&self.id);
    }
}

/// A connection told to close to make room.
pub(crate) struct Eviction {
    /// Where it came from.
    pub(crate) peer: SocketAddr,
    closed: oneshot::Receiver<()>,
}

impl Eviction {
    /// Waits until its socket is closed, for at most `limit`.
    ///
    /// Its place is given away at once, but its socket closes only when its task next runs;
    /// the accept loop waits for that so that a burst of connections cannot hold more sockets
    /// than the cap for long, and so exhaust the file descriptors the cap is there to save.
    pub(crate) async fn closed_within(self, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.closed).await;
    }
}

/// What [`ConnectionCap::admit`] decided about a new connection.
pub(crate) enum Admission {
    /// Let in, with room to spare or after evicting an older connection.
    Admitted(Admitted, Option<Eviction>),
    /// Every open connection is authenticated and the cap is reached: close it at once.
    Full,
}

impl ConnectionCap {
    /// A cap of `max` connections open at once (at least one is always let in).
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(ConnectionCap {
            max,
            open: Mutex::new(Open {
                next_id: 0,
                connections: BTreeMap::new(),
            }),
        })
    }

    /// The most connections open at once.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// Lets a new connection from `peer` in, making room if the cap is reached.
    pub(crate) fn admit(self: &Arc<Self>, peer: SocketAddr) -> Admission {
        let mut open = self.lock();
        let mut evicted = None;
        if open.connections.len() >= self.max {
            match Self::evict_oldest_unauthenticated(&mut open) {
                Some(eviction) => evicted = Some(eviction),
                None => return Admission::Full,
            }
        }
        let id = open.next_id;
        open.next_id += 1;
        let standing = Arc::new(Standing::default());
        let evict = CancellationToken::new();
        let (closing, closed) = oneshot::channel();
        open.connections.insert(
            id,
            Entry {
                peer,
                standing: Arc::clone(&standing),
                evict: evict.clone(),
                closed,
            },
        );
        Admission::Admitted(
            Admitted {
                place: Place {
                    cap: Arc::clone(self),
                    id,
                    _closed: closing,
                },
                standing,
                evicted: evict,
            },
            evicted,
        )
    }

    /// Evicts the oldest connection that has not made an authenticated request, to free its
    /// socket (when accepting fails for want of file descriptors).
    pub(crate) fn make_room(&self) -> Option<Eviction> {
        Self::evict_oldest_unauthenticated(&mut self.lock())
    }

    fn evict_oldest_unauthenticated(open: &mut Open) -> Option<Eviction> {
        let id = open
            .connections
            .iter()
            .find(|(_, entry)| !entry.standing.is_authenticated())
            .map(|(id, _)| *id)?;
        let entry = open.connections.remove(&id)?;
        entry.evict.cancel();
        Some(Eviction {
            peer: entry.peer,
            closed: entry.closed,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Open> {
        // The map stays consistent through any panic: each change is one insert or remove.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    /// The admitted connection, and the peer of the one evicted for it.
    fn admitted(admission: Admission) -> (Admitted, Option<SocketAddr>) {
        match admission {
            Admission::Admitted(admitted, evicted) => {
                (admitted, evicted.map(|eviction| eviction.peer))
            }
            Admission::Full => panic!("refused"),
        }
    }

    #[test]
    fn the_oldest_unauthenticated_connection_makes_room() {
        let cap = ConnectionCap::new(3);
        let (first, none) = admitted(cap.admit(peer(1)));
        assert_eq!(none, None);
        let (second, _) = admitted(cap.admit(peer(2)));
        let (third, _) = admitted(cap.admit(peer(3)));
        first.standing.authenticate();

        // The first is authenticated, so the second, the oldest of the others, goes.
        let (fourth, evicted) = admitted(cap.admit(peer(4)));
        assert_eq!(evicted, Some(peer(2)));
        assert!(second.evicted.is_cancelled());
        assert!(!first.evicted.is_cancelled() && !third.evicted.is_cancelled());

        // Its place, dropped when its socket closes, was already given away.
        drop(second);
        let (_, evicted) = admitted(cap.admit(peer(5)));
        assert_eq!(evicted, Some(peer(3)));

        // A closed connection frees its place without evicting anyone.
        drop(fourth);
        let (_, evicted) = admitted(cap.admit(peer(6)));
        assert_eq!(evicted, None);
    }

    #[test]
    fn when_every_connection_is_authenticated_a_new_one_is_turned_away() {
        let cap = ConnectionCap::new(2);
        let (first, _) = admitted(cap.admit(peer(1)));
        let (second, _) = admitted(cap.admit(peer(2)));
        first.standing.authenticate();
        second.standing.authenticate();
        assert!(matches!(cap.admit(peer(3)), Admission::Full));
        assert!(cap.make_room().is_none());
        assert!(!first.evicted.is_cancelled() && !second.evicted.is_cancelled());
        drop(first);
        let (_, evicted) = admitted(cap.admit(peer(3)));
        assert_eq!(evicted, None);
    }

    #[test]
    fn making_room_evicts_the_oldest_unauthenticated_connection_and_tells_when_it_closed() {
        let cap = ConnectionCap::new(8);
        let (first, _) = admitted(cap.admit(peer(1)));
        let (second, _) = admitted(cap.admit(peer(2)));
        let eviction = cap.make_room().unwrap();
        assert_eq!(eviction.peer, peer(1));
        assert!(first.evicted.is_cancelled() && !second.evicted.is_cancelled());

        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let started = std::time::Instant::now();
        drop(first);
        runtime.block_on(eviction.closed_within(Duration::from_secs(10)));
        assert!(started.elapsed() < Duration::from_secs(5));
        // One whose socket never closes is waited for no longer than asked.
        let eviction = cap.make_room().unwrap();
        assert_eq!(eviction.peer, peer(2));
        runtime.block_on(eviction.closed_within(Duration::from_millis(10)));
        drop(second);
    }
}
