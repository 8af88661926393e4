//! Resuming a stored session with fewer tools than it was stored with: what a host does when
//! it serves a stored session under a narrower spec or a tool list of its own (`cy-tools mcp
//! --tools`, a spec file whose `tools` leaves some out).
//!
//! Why at build time and not by filtering the built session's toolset: in code mode the code
//! `execute_code` runs calls back into the session its executor was bound to, typed module and
//! raw channel alike. Filtering afterwards would hide tools from the model and leave them
//! callable from code; building with the narrower list binds the executor to it.

use std::sync::Arc;

use cy_tools::services::ServiceError;

use super::LocalSessionFactory;
use crate::compose::Extras;
use cy_tools::Session;
use cy_tools::approval::SpentNonces;

impl LocalSessionFactory {
    /// [`resume`](Self::resume), the session built with only those of its tools that `only`
    /// names, in the stored order: the stored spec is never widened (a name in `only` that the
    /// session does not have is left out, and the caller can compare the built toolset with
    /// what it asked for), nor changed in the store. In code mode, the code reaches these tools
    /// and no others, and `execute_code` describes only them; `execute_code` itself is kept
    /// only when `only` names it.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
    /// use cy_tools::SessionSpec;
    /// use cy_tools_session::LocalSessionFactory;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let factory = LocalSessionFactory::embedded(dir.path().join("state")).unwrap();
    /// let spec = SessionSpec::root("s-1", "acme", dir.path().join("w").to_str().unwrap())
    ///     .with_tools(["read_file", "write_file"]);
    /// factory.create(spec).await.unwrap();
    /// let only = ["execute_code".to_string(), "read_file".to_string(), "terminal".to_string()];
    /// let session = factory.resume_within("s-1", &only).await.unwrap();
    /// assert_eq!(session.tools().names(), ["execute_code", "read_file"]);
    /// // The store keeps the session as it was created.
    /// let session = factory.resume("s-1").await.unwrap();
    /// assert_eq!(session.tools().names(), ["execute_code", "read_file", "write_file"]);
    /// # });
    /// ```
    ///
    /// # Errors
    /// As [`resume`](Self::resume).
    pub async fn resume_within(
        &self,
        session_id: &str,
        only: &[String],
    ) -> Result<Session, ServiceError> {
        let spec = self.stored_spec(session_id).await?;
        let env = self.open_env(&spec)?;
        let extras = self.with_mcp_servers(&spec, Extras::new()).await?;
        self.build_within(Arc::new(spec), env, None, &extras, Some(only))
    }

    /// Where the approval nonces of an MCP server serving these sessions are spent once for
    /// every replica that opens the same store: the SQLite or PostgreSQL store; `None` for
    /// stores that have no such table, where each server spends them in its own memory.
    pub fn spent_nonces(&self) -> Option<Arc<dyn SpentNonces>> {
        self.host.spent_nonces.clone()
    }

    /// The same factory spending approval nonces in `nonces` (see
    /// [`spent_nonces`](Self::spent_nonces)).
    #[must_use]
    pub fn with_spent_nonces(mut self, nonces: Arc<dyn SpentNonces>) -> Self {
        self.host_mut().spent_nonces = Some(nonces);
        self
    }
}
