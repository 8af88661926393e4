//! A spec's code-mode setting, applied: the executor wrapped, the built session attached; and
//! the factory's limits and approval hook for the code's calls.

use std::sync::Arc;

use cy_tools::{
    Session, SessionSpec,
    services::{CodeExecutor, ServiceError},
};

/// What a factory holds every code-mode session's nested calls to.
#[derive(Clone, Default)]
pub(super) struct Settings {
    #[cfg(feature = "code-mode")]
    limits: cy_tools_code_mode::CodeModeLimits,
    #[cfg(feature = "code-mode")]
    approval: Option<Arc<dyn cy_tools_code_mode::ApprovalHook>>,
}

#[cfg(feature = "code-mode")]
impl super::LocalSessionFactory {
    /// The same factory holding the calls that the code of its code-mode sessions makes to
    /// `limits` ([`CodeModeLimits::default`](cy_tools_code_mode::CodeModeLimits::default)
    /// otherwise).
    ///
    /// ```
    /// use cy_tools_code_mode::CodeModeLimits;
    /// use cy_tools_session::LocalSessionFactory;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let factory = LocalSessionFactory::embedded(dir.path())
    ///     .unwrap()
    ///     .with_code_mode_limits(CodeModeLimits { max_calls: 100, ..CodeModeLimits::default() });
    /// ```
    #[must_use]
    pub fn with_code_mode_limits(mut self, limits: cy_tools_code_mode::CodeModeLimits) -> Self {
        self.host_mut().code_mode.limits = limits;
        self
    }

    /// The same factory consulting `hook` before each call the code of its code-mode sessions
    /// makes (every call is allowed otherwise; the toolset's validation applies either way).
    #[must_use]
    pub fn with_code_mode_approval(
        mut self,
        hook: Arc<dyn cy_tools_code_mode::ApprovalHook>,
    ) -> Self {
        self.host_mut().code_mode.approval = Some(hook);
        self
    }
}

/// The executor a session is built with, and what code mode does to the built session.
pub(super) enum Wrapped {
    /// Code mode is off: the executor as the spec gives it.
    Plain(Arc<dyn CodeExecutor>),
    /// Code mode is on: the executor whose runs call the session back.
    #[cfg(feature = "code-mode")]
    CodeMode(Arc<cy_tools_code_mode::CodeModeExecutor>),
}

/// `executor`, wrapped for code mode when `spec` turns it on.
///
/// # Errors
/// [`Unavailable`](cy_tools::services::ServiceErrorKind::Unavailable): the spec turns code mode on and
/// this build has no code mode.
pub(super) fn wrap(
    spec: &SessionSpec,
    executor: Arc<dyn CodeExecutor>,
    settings: &Settings,
) -> Result<Wrapped, ServiceError> {
    if !spec.code_mode && !spec.code_only {
        return Ok(Wrapped::Plain(executor));
    }
    #[cfg(feature = "code-mode")]
    {
        let mut wrapped = cy_tools_code_mode::CodeModeExecutor::new(executor)
            .with_limits(settings.limits.clone())
            .with_code_only(spec.code_only);
        if let Some(hook) = &settings.approval {
            wrapped = wrapped.with_approval(Arc::clone(hook));
        }
        Ok(Wrapped::CodeMode(Arc::new(wrapped)))
    }
    #[cfg(not(feature = "code-mode"))]
    {
        let _ = (executor, settings);
        Err(ServiceError::new(
            cy_tools::services::ServiceErrorKind::Unavailable,
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
