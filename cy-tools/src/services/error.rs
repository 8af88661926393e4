//! `ServiceError`: what a session service answers when it cannot do what was asked, with its
//! kind and a message that names the problem and the fix.

use std::fmt;

/// What kind of failure a session service reports; tools map it to the message the model sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ServiceErrorKind {
    /// The named thing does not exist.
    NotFound,
    /// A path or reference points outside what this session may reach.
    OutsideSandbox,
    /// The service refuses the operation.
    PermissionDenied,
    /// The request itself is malformed.
    InvalidInput,
    /// The service is not reachable or not provided here.
    Unavailable,
    /// The operation ran out of time.
    TimedOut,
    /// Anything else.
    Other,
}

/// An error from a session service, with a message that names the problem and the fix.
///
/// ```
/// use cy_tools::services::{ServiceError, ServiceErrorKind};
/// let err = ServiceError::new(ServiceErrorKind::NotFound, "no file `a.txt` in the workspace");
/// assert_eq!(err.kind(), ServiceErrorKind::NotFound);
/// assert_eq!(err.to_string(), "no file `a.txt` in the workspace");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceError {
    kind: ServiceErrorKind,
    message: String,
}

impl ServiceError {
    /// An error of `kind` with a message for the model or the operator.
    pub fn new(kind: ServiceErrorKind, message: impl Into<String>) -> Self {
        ServiceError {
            kind,
            message: message.into(),
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ServiceErrorKind {
        self.kind
    }

    /// The message, without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ServiceError {}
