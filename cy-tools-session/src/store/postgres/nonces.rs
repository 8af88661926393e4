//! Approval nonces spent in PostgreSQL, once for every worker of the tenant (see
//! `store::nonces`).

use cy_tools::{BoxFuture, services::ServiceError};

use super::TenantStore;
use cy_tools::approval::SpentNonces;

impl SpentNonces for TenantStore {
    fn spend<'a>(
        &'a self,
        nonce: &'a str,
        expires_ms: u64,
    ) -> BoxFuture<'a, Result<bool, ServiceError>> {
        Box::pin(self.spend_nonce(nonce, expires_ms))
    }
}

impl TenantStore {
    async fn spend_nonce(&self, nonce: &str, expires_ms: u64) -> Result<bool, ServiceError> {
        let key = self.shared.keys.next();
        let expires = i64::try_from(expires_ms).unwrap_or(i64::MAX);
        let now = super::now_ms();
        let (pool, tenant, key) = (&self.shared.pool, &*self.tenant, &key);
        let spender: String = self
            .shared
            .target
            .retry("spending an approval nonce", move || async move {
                let client = pool.get().await?;
                // Expired nonces can never be presented again: forgetting them bounds the table.
                client
                    .execute(
                        "DELETE FROM cy_spent_nonces WHERE expires_ms <= $1",
                        &[&now],
                    )
                    .await?;
                // One statement: the insert, or, when another spent it first, who did. The
                // key tells a retry after a lost answer that the row is its own.
                let row = client
                    .query_one(
                        "WITH spent AS (
                             INSERT INTO cy_spent_nonces (tenant, nonce, spend_key, expires_ms)
                             VALUES ($1, $2, $3, $4)
                             ON CONFLICT (tenant, nonce) DO NOTHING
                             RETURNING spend_key
                         )
                         SELECT spend_key FROM spent
                         UNION ALL
                         SELECT spend_key FROM cy_spent_nonces WHERE tenant = $1 AND nonce = $2
                         LIMIT 1",
                        &[&tenant, &nonce, key, &expires],
                    )
                    .await?;
                Ok(row.try_get::<_, String>(0)?)
            })
            .await?;
        Ok(spender == *key)
    }
}
