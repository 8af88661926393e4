//! Tools put in place while the server runs: a host whose session's tools change (a gateway
//! whose upstream server's list changed) hands the server the session with its new tools, and
//! the server's clients are told with `notifications/tools/list_changed` where the transport
//! carries notifications (stdio, the session-bearing HTTP mode). A stateless HTTP client is not
//! told: its next `tools/list` answers the new list (and a 2026-07-28 client is told not to keep
//! it, `ttlMs: 0`).

use std::ops::Deref;
use std::sync::{Arc, Mutex, RwLock};

use cy_tools::Session;
use rmcp::RoleServer;
use rmcp::service::Peer;

use super::ServeError;
use super::server::{Inner, McpServer, TOOL_LIST_TTL_MS};

/// The tools a running server serves now, and the connections to tell when they change.
pub(crate) struct Live {
    current: RwLock<Arc<Inner>>,
    /// The connections that carry notifications, as they initialized.
    peers: Mutex<Vec<Peer<RoleServer>>>,
}

/// A handle on a running [`McpServer`]'s tools, from
/// [`McpServer::with_tool_updates`]: [`replace`](Self::replace) puts a session's new tools in
/// place for every connection and tells the clients. Cloning shares it.
///
/// ```no_run
/// # async fn run(session: cy_tools::Session, changed: cy_tools::Session)
/// # -> Result<(), cy_tools_mcp::ServeError> {
/// let (server, updates) = cy_tools_mcp::McpServer::for_session(session)?.with_tool_updates();
/// tokio::spawn(cy_tools_mcp::serve_stdio(server));
/// // … the session's tools changed:
/// let told = updates.replace(changed).await?;
/// println!("{told} clients told");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct ToolUpdates {
    live: Arc<Live>,
}

impl ToolUpdates {
    /// Serves `session` (the same session with its tools changed) from now on: calls and
    /// `tools/list` take its tools, and every connection that carries notifications is sent
    /// `notifications/tools/list_changed`. Returns how many were told (those closed since are
    /// forgotten).
    ///
    /// # Errors
    /// [`ServeError::Declaration`] when a tool's declaration is not a valid MCP `Tool`: the
    /// tools served stay as they were.
    pub async fn replace(&self, session: Session) -> Result<usize, ServeError> {
        let inner = Arc::new(Inner::of(session)?);
        *self.live.current.write().unwrap_or_else(|e| e.into_inner()) = inner;
        let peers = std::mem::take(&mut *self.live.peers.lock().unwrap_or_else(|e| e.into_inner()));
        let mut told = Vec::with_capacity(peers.len());
        for peer in peers {
            match peer.notify_tool_list_changed().await {
                Ok(()) => told.push(peer),
                Err(err) => tracing::debug!("a client gone is not told of the new tools: {err}"),
            }
        }
        let count = told.len();
        // Those that initialized meanwhile were added under the lock: kept beside these.
        self.live
            .peers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(told);
        Ok(count)
    }
}

/// The tools a call or a list takes: the server's own, or those put in place since.
pub(crate) enum Current<'a> {
    Made(&'a Inner),
    Live(Arc<Inner>),
}

impl Deref for Current<'_> {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        match self {
            Current::Made(inner) => inner,
            Current::Live(inner) => inner,
        }
    }
}

impl McpServer {
    /// The same server, whose tools the returned handle replaces while it runs (see
    /// [`ToolUpdates`]); it declares `tools.listChanged` to clients it can tell. Every clone
    /// (each connection of the session-bearing HTTP mode) serves the tools put in place last.
    #[must_use]
    pub fn with_tool_updates(mut self) -> (Self, ToolUpdates) {
        let live = Arc::new(Live {
            current: RwLock::new(Arc::clone(&self.inner)),
            peers: Mutex::new(Vec::new()),
        });
        self.live = Some(Arc::clone(&live));
        (self, ToolUpdates { live })
    }

    /// The tools served now.
    pub(crate) fn current(&self) -> Current<'_> {
        match &self.live {
            None => Current::Made(&self.inner),
            Some(live) => Current::Live(Arc::clone(
                &live.current.read().unwrap_or_else(|e| e.into_inner()),
            )),
        }
    }

    /// The tools served now, shared (what a search indexes; a call takes [`current`](Self::current),
    /// which spares the count's increment when nothing can replace them).
    pub(crate) fn current_inner(&self) -> Arc<Inner> {
        match &self.live {
            None => Arc::clone(&self.inner),
            Some(live) => Arc::clone(&live.current.read().unwrap_or_else(|e| e.into_inner())),
        }
    }

    /// How long a 2026-07-28 client may keep a `tools/list` answer: not at all when the tools
    /// can change and it cannot be told.
    pub(crate) fn list_ttl_ms(&self) -> u64 {
        if self.live.is_some() {
            0
        } else {
            TOOL_LIST_TTL_MS
        }
    }

    /// Remembers `peer`, a connection that carries notifications, to tell it when the tools
    /// change (nothing without [`with_tool_updates`](Self::with_tool_updates), nor over
    /// stateless HTTP).
    pub(crate) fn listen_for_tool_changes(&self, peer: Peer<RoleServer>) {
        if let Some(live) = &self.live
            && !self.stateless
        {
            live.peers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(peer);
        }
    }
}
