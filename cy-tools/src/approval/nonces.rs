//! Spent approval nonces: where an answer to an approval question that travels with the
//! client (an MCP server's signed `requestState`) is spent once, on whichever replica of the
//! server presents it first.
//!
//! Why a row in a shared store and not a look in the execution log: the log holds a call once
//! it has finished, so an answer replayed on another replica while the first call still ran
//! would be accepted. A row inserted before the call runs, under a unique key, is spent by
//! exactly one replica. The trait is here, beside the approval it serves, so a server can use a
//! store and a store can offer itself without either knowing the other.

use crate::BoxFuture;
use crate::services::ServiceError;

/// Where approval nonces are spent, once: a store replicas share.
///
/// ```
/// use std::collections::HashSet;
/// use std::sync::Mutex;
/// use cy_tools::BoxFuture;
/// use cy_tools::approval::SpentNonces;
/// use cy_tools::services::ServiceError;
///
/// /// Spent nonces of one process (replicas would need a shared store).
/// #[derive(Default)]
/// struct InMemory(Mutex<HashSet<String>>);
///
/// impl SpentNonces for InMemory {
///     fn spend<'a>(&'a self, nonce: &'a str, _expires_ms: u64) -> BoxFuture<'a, Result<bool, ServiceError>> {
///         let fresh = self.0.lock().unwrap().insert(nonce.to_string());
///         Box::pin(std::future::ready(Ok(fresh)))
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let nonces = InMemory::default();
/// assert!(nonces.spend("n-1", u64::MAX).await.unwrap());
/// assert!(!nonces.spend("n-1", u64::MAX).await.unwrap());
/// # });
/// ```
pub trait SpentNonces: Send + Sync {
    /// Spends `nonce`, which must stay spent until `expires_ms` (milliseconds since the Unix
    /// epoch; after that its state is refused as expired anyway, and the row may go). `true`
    /// when this call spent it, `false` when it was spent already, by anyone.
    ///
    /// # Errors
    /// The store cannot be written; the caller must then not run the call.
    fn spend<'a>(
        &'a self,
        nonce: &'a str,
        expires_ms: u64,
    ) -> BoxFuture<'a, Result<bool, ServiceError>>;
}
