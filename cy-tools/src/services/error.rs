//! `ServiceError`: what a session service answers when it cannot do what was asked, with its
//! kind and a message that names the problem and the fix.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

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

/// An error from a session service, with a message that names the problem and the fix, and
/// (for the operator's logs) the error of another crate it came from, as its
/// [`source`](Error::source).
///
/// ```
/// use std::error::Error as _;
/// use cy_tools::services::{ServiceError, ServiceErrorKind};
///
/// let err = ServiceError::new(ServiceErrorKind::NotFound, "no file `a.txt` in the workspace");
/// assert_eq!(err.kind(), ServiceErrorKind::NotFound);
/// assert_eq!(err.to_string(), "no file `a.txt` in the workspace");
///
/// let io = std::io::Error::from(std::io::ErrorKind::NotFound);
/// let err = err.with_source(io);
/// assert_eq!(err.source().unwrap().to_string(), "entity not found");
/// ```
#[derive(Clone, Debug)]
pub struct ServiceError {
    kind: ServiceErrorKind,
    message: String,
    source: Option<Arc<dyn Error + Send + Sync>>,
}

impl ServiceError {
    /// An error of `kind` with a message for the model or the operator.
    pub fn new(kind: ServiceErrorKind, message: impl Into<String>) -> Self {
        ServiceError {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// The same error, caused by `source` (any error, or a boxed one): the message stays what
    /// the model reads, and `source` is kept whole for whoever walks the chain (a log, a
    /// debugger).
    #[must_use]
    pub fn with_source(mut self, source: impl Into<Box<dyn Error + Send + Sync>>) -> Self {
        self.source = Some(Arc::from(source.into()));
        self
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

impl Error for ServiceError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

/// Two errors are equal when they say the same (kind and message): the source is for
/// diagnosis, and errors of other crates cannot be compared.
impl PartialEq for ServiceError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Eq for ServiceError {}
