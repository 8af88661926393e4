//! `ResourceUpdates`: where a session says that a resource changed, for every subscriber (an
//! MCP connection whose client subscribed to it).

use std::sync::Arc;

use tokio::sync::broadcast;

/// How many updates a slow listener may fall behind before it misses some (it is told how
/// many it missed, in its log).
const BACKLOG: usize = 256;

/// The session's resource change announcements: [`updated`](Self::updated) says the resource
/// at a URI changed, and every [`listen`](Self::listen)er hears it. Cloning shares it.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use cy_tools::catalog::ResourceUpdates;
/// let updates = ResourceUpdates::default();
/// let mut listener = updates.listen();
/// updates.updated("test://watched-resource");
/// assert_eq!(listener.next().await.as_deref(), Some("test://watched-resource"));
/// # });
/// ```
#[derive(Clone)]
pub struct ResourceUpdates {
    sender: broadcast::Sender<Arc<str>>,
}

impl Default for ResourceUpdates {
    fn default() -> Self {
        ResourceUpdates {
            sender: broadcast::channel(BACKLOG).0,
        }
    }
}

impl ResourceUpdates {
    /// Says the resource at `uri` changed (nothing happens when nobody listens).
    pub fn updated(&self, uri: &str) {
        let _ = self.sender.send(Arc::from(uri));
    }

    /// A listener hearing every update said from now on.
    pub fn listen(&self) -> UpdateListener {
        UpdateListener {
            receiver: self.sender.subscribe(),
        }
    }
}

impl std::fmt::Debug for ResourceUpdates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceUpdates")
            .field("listeners", &self.sender.receiver_count())
            .finish()
    }
}

/// One listener of a session's [`ResourceUpdates`].
#[derive(Debug)]
pub struct UpdateListener {
    receiver: broadcast::Receiver<Arc<str>>,
}

impl UpdateListener {
    /// The next updated URI; `None` once the session's announcements are gone.
    pub async fn next(&mut self) -> Option<Arc<str>> {
        loop {
            match self.receiver.recv().await {
                Ok(uri) => return Some(uri),
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(
                        missed,
                        "a resource-update listener fell behind and missed {missed} updates; subscribers may re-read their resources"
                    );
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}
