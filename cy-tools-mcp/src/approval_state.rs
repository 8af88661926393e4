//! Where an MCP server's approval state (2026-07-28's `requestState`) is bound, signed and
//! spent: the workspace it names, the key every replica shares, the store that spends its
//! nonces once.

use std::sync::Arc;

use super::ServeError;
use super::request_state::{STATE_KEY_ENV, StateCodec};
use super::server::McpServer;

impl McpServer {
    /// The same server, binding the approval state it signs to `workspace` (with the called
    /// tool's session id and tenant): an answer given here is refused by a server of the same
    /// key over another workspace. [`for_session`](Self::for_session) names the session's.
    #[must_use]
    pub fn with_workspace(mut self, workspace: impl Into<String>) -> Self {
        self.workspace = workspace.into().into();
        self
    }

    /// The same server, spending the nonce of each approval state it accepts in `nonces`
    /// before the call runs, so that of the replicas sharing that store (and the state key)
    /// exactly one runs an answer, even while its call still runs elsewhere. Without it each
    /// server spends nonces in its own memory only (see the README).
    #[must_use]
    pub fn with_spent_nonces(mut self, nonces: Arc<dyn cy_tools::approval::SpentNonces>) -> Self {
        self.spent_nonces = Some(nonces);
        self
    }

    /// The same server, signing the state of approvals asked in 2026-07-28's multi-round form
    /// with `key` (at least 32 bytes), so that any replica given the same key can finish a call
    /// another one asked about. Without it each server signs with a random key of its own, and
    /// only it can.
    ///
    /// # Errors
    /// The key is shorter than 32 bytes; the message says how to make one.
    pub fn with_state_key(mut self, key: &[u8]) -> Result<Self, ServeError> {
        self.state = Arc::new(Ok(
            StateCodec::new(key).map_err(|message| ServeError::Configuration { message })?
        ));
        Ok(self)
    }

    /// The same server with the state key from the environment variable
    /// `CY_TOOLS_MCP_STATE_KEY` when it is set (see [`with_state_key`](Self::with_state_key)).
    ///
    /// # Errors
    /// The variable is set to a key shorter than 32 bytes, or is not UTF-8.
    pub fn with_state_key_from_env(self) -> Result<Self, ServeError> {
        match std::env::var(STATE_KEY_ENV) {
            Ok(key) => self.with_state_key(key.as_bytes()),
            Err(std::env::VarError::NotPresent) => Ok(self),
            Err(std::env::VarError::NotUnicode(_)) => Err(ServeError::Configuration {
                message: format!(
                    "`{STATE_KEY_ENV}` is not valid UTF-8; set it to a long secret of printable ASCII, such as the output of `openssl rand -hex 32`, the same on every replica"
                ),
            }),
        }
    }
}
