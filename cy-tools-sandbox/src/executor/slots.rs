//! `RunSlots`: how many code runs a host lets go at once, across all its sessions.

use std::sync::Arc;
use std::time::Duration;

use cy_tools::{
    CancellationToken,
    services::{ServiceError, ServiceErrorKind},
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A host-wide cap on code runs at once, shared by every executor holding a clone.
///
/// Without one, a thousand sessions each starting a run put a thousand interpreters on the
/// host's cores, and every run slows until they all time out. A run beyond the cap waits for a
/// slot, for at most its own timeout (then it is refused with what to do), and gets its whole
/// timeout once it runs. `cy_tools_session::LocalSessionFactory` gives all
/// its sessions one set, [`RunSlots::for_this_host`] by default.
///
/// ```
/// use cy_tools_sandbox::executor::RunSlots;
///
/// let slots = RunSlots::new(4);
/// let shared = slots.clone(); // the same four slots
/// assert_eq!((slots.size(), shared.available()), (4, 4));
/// assert_eq!(RunSlots::new(0).size(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct RunSlots {
    semaphore: Arc<Semaphore>,
    size: usize,
}

impl RunSlots {
    /// `size` slots (at least one).
    pub fn new(size: usize) -> Self {
        let size = size.max(1);
        RunSlots {
            semaphore: Arc::new(Semaphore::new(size)),
            size,
        }
    }

    /// Four slots per core this process may use: runs mostly wait on I/O or start up, and
    /// beyond that they only share the cores more thinly.
    pub fn for_this_host() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        RunSlots::new(cores * 4)
    }

    /// How many runs may go at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// How many slots are free now.
    pub fn available(&self) -> usize {
        self.semaphore.available_permits()
    }

    /// A slot, waited for up to `wait`, or until `cancel`.
    pub(crate) async fn acquire(
        &self,
        wait: Duration,
        cancel: &CancellationToken,
    ) -> Result<OwnedSemaphorePermit, ServiceError> {
        let slot = Arc::clone(&self.semaphore).acquire_owned();
        tokio::select! {
            slot = tokio::time::timeout(wait, slot) => match slot {
                Ok(Ok(permit)) => Ok(permit),
                // The semaphore is never closed; said anyway rather than unwrapped.
                Ok(Err(_)) => Err(ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    "the host stopped taking code runs; retry on a running host",
                )),
                Err(_) => Err(ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "all {} code-run slots of this host stayed busy for {} ms (other sessions' runs), so the code did not run; run it again in a moment, or give the host more run slots",
                        self.size,
                        wait.as_millis()
                    ),
                )),
            },
            () = cancel.cancelled() => Err(ServiceError::new(
                ServiceErrorKind::Other,
                "the run was cancelled while it waited for a free run slot; nothing of it ran",
            )),
        }
    }
}
