//! `AgentError`: what stops a run other than its answer or a limit.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// Why a run failed: its configuration, or the model API; the error of another crate it came
/// from (a connection's, a TLS handshake's, a body's) is its [`source`](Error::source).
#[derive(Clone, Debug)]
pub struct AgentError {
    kind: AgentErrorKind,
    message: String,
    source: Option<Arc<dyn Error + Send + Sync>>,
}

/// What kind of failure an [`AgentError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentErrorKind {
    /// The run was set up wrong: no key, a bad base URL, a tool that cannot be declared.
    Usage,
    /// The API refused the request, answered something that is not its format, or could not be
    /// reached (after the retries, for the statuses that are retried).
    Provider,
}

impl AgentError {
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        AgentError {
            kind: AgentErrorKind::Usage,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn provider(message: impl Into<String>) -> Self {
        AgentError {
            kind: AgentErrorKind::Provider,
            message: message.into(),
            source: None,
        }
    }

    /// The same error, caused by `source`.
    #[must_use]
    pub(crate) fn with_source(mut self, source: impl Into<Box<dyn Error + Send + Sync>>) -> Self {
        self.source = Some(Arc::from(source.into()));
        self
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> AgentErrorKind {
        self.kind
    }
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for AgentError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

/// Two errors are equal when they say the same: the source is for diagnosis.
impl PartialEq for AgentError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Eq for AgentError {}

impl From<AgentError> for ServiceError {
    fn from(err: AgentError) -> Self {
        let kind = match err.kind {
            AgentErrorKind::Usage => ServiceErrorKind::InvalidInput,
            AgentErrorKind::Provider => ServiceErrorKind::Unavailable,
        };
        ServiceError::new(kind, err.message.clone()).with_source(err)
    }
}

impl From<cy_tools_http_client::HttpSetupError> for AgentError {
    /// A client that cannot be set up is the operator's setting to fix: a usage error.
    fn from(err: cy_tools_http_client::HttpSetupError) -> Self {
        AgentError::usage(err.to_string())
    }
}
