//! A cap on the tool calls running at once; the rest wait their turn, in the order they came.
//!
//! A client may send any number of `tools/call` requests without waiting for answers, and
//! `rmcp` starts a handler for each at once: 300 `terminal` calls were 300 shells, each with
//! its own process budget. With the cap, a call past it waits (its cancellation still
//! answered) until one running ends.

use std::sync::Arc;

use cy_tools::CancellationToken;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Tool calls an MCP server over stdio runs at once unless told otherwise.
pub const DEFAULT_MAX_CONCURRENT_CALLS: usize = 16;

impl super::server::McpServer {
    /// The same server, running at most `max` calls at once (at least 1): a call past the cap
    /// waits, first come first served, until one running ends; its cancellation is still
    /// honoured while it waits. Over stdio a server without its own cap gets
    /// [`DEFAULT_MAX_CONCURRENT_CALLS`].
    #[must_use]
    pub fn with_max_concurrent_calls(mut self, max: usize) -> Self {
        self.call_slots = Some(CallSlots::new(max));
        self
    }

    /// The same server with [`DEFAULT_MAX_CONCURRENT_CALLS`] unless it has a cap already.
    pub(super) fn with_default_call_cap(self) -> Self {
        match self.call_slots {
            Some(_) => self,
            None => self.with_max_concurrent_calls(DEFAULT_MAX_CONCURRENT_CALLS),
        }
    }
}

/// The slots calls take while they run; clones share them.
#[derive(Clone, Debug)]
pub(super) struct CallSlots {
    slots: Arc<Semaphore>,
    max: usize,
}

impl CallSlots {
    /// `max` slots (at least 1, at most what a semaphore can count).
    pub(super) fn new(max: usize) -> Self {
        let max = max.clamp(1, Semaphore::MAX_PERMITS);
        CallSlots {
            slots: Arc::new(Semaphore::new(max)),
            max,
        }
    }

    /// How many calls may run at once.
    pub(super) fn max(&self) -> usize {
        self.max
    }

    /// A free slot now, if there is one: most calls find one, and need no waiting future.
    /// The semaphore is fair, so a free slot means nobody is waiting ahead of this call.
    pub(super) fn try_take(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.slots).try_acquire_owned().ok()
    }

    /// A slot, held until dropped, once one is free (first come, first served); `None` when
    /// `cancel` fires first, so a cancelled call leaves the queue at once.
    pub(super) async fn take(&self, cancel: &CancellationToken) -> Option<OwnedSemaphorePermit> {
        tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            permit = Arc::clone(&self.slots).acquire_owned() => permit.ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_call_past_the_cap_waits_and_a_cancelled_one_leaves() {
        let slots = CallSlots::new(1);
        let never = CancellationToken::new();
        let first = slots.take(&never).await.unwrap();
        let waiting = slots.take(&never);
        tokio::pin!(waiting);
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(50), &mut waiting)
                .await
                .is_err(),
            "a second call ran beside the first"
        );
        let cancelled = CancellationToken::new();
        cancelled.cancel();
        assert!(slots.take(&cancelled).await.is_none());
        drop(first);
        assert!(waiting.await.is_some());
        assert_eq!(CallSlots::new(0).max(), 1);
    }
}
