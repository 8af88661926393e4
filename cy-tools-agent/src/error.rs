//! `AgentError`: what stops a run other than its answer or a limit.

use std::fmt;

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// Why a run failed: its configuration, or the model API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentError {
    kind: AgentErrorKind,
    message: String,
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
        }
    }

    pub(crate) fn provider(message: impl Into<String>) -> Self {
        AgentError {
            kind: AgentErrorKind::Provider,
            message: message.into(),
        }
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

impl std::error::Error for AgentError {}

impl From<AgentError> for ServiceError {
    fn from(err: AgentError) -> Self {
        let kind = match err.kind {
            AgentErrorKind::Usage => ServiceErrorKind::InvalidInput,
            AgentErrorKind::Provider => ServiceErrorKind::Unavailable,
        };
        ServiceError::new(kind, err.message)
    }
}
