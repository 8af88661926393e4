//! The SQLite store spends an MCP server's approval nonces
//! ([`SpentNonces`](cy_tools::approval::SpentNonces)) once for every replica that opens the same
//! file, in the `spent_nonces` table.

use cy_tools::approval::SpentNonces;
use cy_tools::{BoxFuture, services::ServiceError};
use rusqlite::params;

use super::SqliteStore;

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
