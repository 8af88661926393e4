//! A spec's code-mode setting, applied: the executor wrapped, the built session attached.

use std::sync::Arc;

use cy_tools::{CodeExecutor, ServiceError, Session, SessionSpec};

/// The executor a session is built with, and what code mode does to the built session.
pub(super) enum Wrapped {
    /// Code mode is off: the executor as the spec gives it.
    Plain(Arc<dyn CodeExecutor>),
    /// Code mode is on: the executor whose runs call the session back.
    #[cfg(feature = "code-mode")]
    CodeMode(Arc<crate::code_mode::CodeModeExecutor>),
}

/// `executor`, wrapped for code mode when `spec` turns it on.
///
/// # Errors
/// [`Unavailable`](cy_tools::ServiceErrorKind::Unavailable): the spec turns code mode on and
/// this build has no code mode.
pub(super) fn wrap(
    spec: &SessionSpec,
    executor: Arc<dyn CodeExecutor>,
) -> Result<Wrapped, ServiceError> {
    if !spec.code_mode {
        return Ok(Wrapped::Plain(executor));
    }
    #[cfg(feature = "code-mode")]
    {
        Ok(Wrapped::CodeMode(Arc::new(
            crate::code_mode::CodeModeExecutor::new(executor),
        )))
    }
    #[cfg(not(feature = "code-mode"))]
    {
        drop(executor);
        Err(ServiceError::new(
            cy_tools::ServiceErrorKind::Unavailable,
            format!(
                "session `{}` has code mode on, but this build has no code mode; build `cy-tools-builtin` with its `code-mode` feature, or turn `code_mode` off in the spec",
                spec.id()
            ),
        ))
    }
}

impl Wrapped {
    /// The executor to put in the session's context.
    pub(super) fn executor(&self) -> Arc<dyn CodeExecutor> {
        match self {
            Wrapped::Plain(executor) => Arc::clone(executor),
            #[cfg(feature = "code-mode")]
            Wrapped::CodeMode(executor) => Arc::clone(executor) as Arc<dyn CodeExecutor>,
        }
    }

    /// The built session as it is handed out: in code mode, bound to the executor (which the
    /// session then keeps alive) and with `execute_code` describing the functions.
    pub(super) fn attach(&self, session: Session) -> Result<Session, ServiceError> {
        match self {
            Wrapped::Plain(_) => Ok(session),
            #[cfg(feature = "code-mode")]
            Wrapped::CodeMode(executor) => executor.attach(session),
        }
    }
}
