//! Spent approval nonces, shared by every replica that opens the same store: an MCP server's
//! signed approval state (`requestState`) runs one call, on whichever replica spends it first.
//!
//! Why a row and not a look in the execution log: the log holds a call once it has finished,
//! so an answer replayed on another replica while the first call still ran was accepted. A
//! row inserted before the call runs, under a unique key, is spent by exactly one replica.

use cy_tools::{BoxFuture, ServiceError};
use rusqlite::params;

use super::SqliteStore;

/// Where approval nonces are spent, once: a store replicas share.
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

impl SpentNonces for SqliteStore {
    fn spend<'a>(
        &'a self,
        nonce: &'a str,
        expires_ms: u64,
    ) -> BoxFuture<'a, Result<bool, ServiceError>> {
        let nonce = nonce.to_string();
        let expires = i64::try_from(expires_ms).unwrap_or(i64::MAX);
        Box::pin(self.with_conn("spending an approval nonce", move |conn| {
            // Expired nonces can never be presented again: forgetting them bounds the table.
            conn.execute(
                "DELETE FROM spent_nonces WHERE expires_ms <= ?1",
                params![super::sqlite::now_ms()],
            )?;
            // One statement, so two processes on the same file cannot both insert it.
            let inserted = conn.execute(
                "INSERT OR IGNORE INTO spent_nonces (nonce, expires_ms) VALUES (?1, ?2)",
                params![nonce, expires],
            )?;
            Ok(inserted == 1)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_nonce_is_spent_once_across_stores_on_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = SqliteStore::open(dir.path().join("s.db")).unwrap();
        let b = SqliteStore::open(dir.path().join("s.db")).unwrap();
        let later = u64::try_from(super::super::sqlite::now_ms()).unwrap() + 60_000;
        assert!(a.spend("n-1", later).await.unwrap());
        assert!(!b.spend("n-1", later).await.unwrap());
        assert!(!a.spend("n-1", later).await.unwrap());
        assert!(b.spend("n-2", later).await.unwrap());
        // An expired row is forgotten: its state is refused as expired before it gets here.
        assert!(a.spend("n-3", 1).await.unwrap());
        assert!(b.spend("n-3", later).await.unwrap());
    }
}
