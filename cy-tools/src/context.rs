//! The per-session context tools are bound to.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{
    Capabilities, Capability, Chat, CodeExecutor, Coordinator, ExecutionLog, Sandbox,
    SessionFactory,
};

/// Who a session is: its id, its tenant, and its place in a tree of sessions.
///
/// ```
/// use cy_tools::SessionIdentity;
/// let root = SessionIdentity::root("s-1", "acme");
/// let child = root.child("s-2");
/// assert_eq!(child.lineage, vec!["s-1".to_string()]);
/// assert_eq!(child.depth, 1);
/// assert_eq!(child.tenant, "acme");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SessionIdentity {
    /// This session's id.
    pub session_id: String,
    /// The tenant the session works for; children inherit it.
    pub tenant: String,
    /// Ancestor session ids, root first.
    pub lineage: Vec<String>,
    /// Distance from the root session (the root is 0).
    pub depth: u32,
}

impl SessionIdentity {
    /// A root session's identity.
    pub fn root(session_id: impl Into<String>, tenant: impl Into<String>) -> Self {
        SessionIdentity {
            session_id: session_id.into(),
            tenant: tenant.into(),
            lineage: Vec::new(),
            depth: 0,
        }
    }

    /// The identity of a child of this session: same tenant, lineage extended, one level deeper.
    #[must_use]
    pub fn child(&self, session_id: impl Into<String>) -> Self {
        let mut lineage = self.lineage.clone();
        lineage.push(self.session_id.clone());
        SessionIdentity {
            session_id: session_id.into(),
            tenant: self.tenant.clone(),
            lineage,
            depth: self.depth + 1,
        }
    }
}

/// Everything a session offers its tools: seven fields, one per capability.
///
/// Optional fields are `Option`s, so a narrower session simply lacks them (a subagent has no
/// chat, a session at the maximum depth no factory). A tool never sees this type: its body gets a
/// [`Ctx`](crate::Ctx) narrowed to its declared capabilities.
///
/// ```
/// use std::sync::Arc;
/// use cy_tools::{memory::MemorySandbox, Capability, SessionIdentity, ToolContext};
///
/// let ctx = ToolContext::new(SessionIdentity::root("s-1", "acme"))
///     .with_env(Arc::new(MemorySandbox::new()));
/// assert!(ctx.provides().contains(Capability::Env));
/// assert!(!ctx.provides().contains(Capability::Chat));
/// ```
#[derive(Clone)]
pub struct ToolContext {
    pub(crate) session: SessionIdentity,
    pub(crate) env: Option<Arc<dyn Sandbox>>,
    pub(crate) execute_code: Option<Arc<dyn CodeExecutor>>,
    pub(crate) factory: Option<Arc<dyn SessionFactory>>,
    pub(crate) store: Option<Arc<dyn ExecutionLog>>,
    pub(crate) coordinator: Option<Arc<dyn Coordinator>>,
    pub(crate) chat: Option<Arc<dyn Chat>>,
}

impl ToolContext {
    /// A context with only a session identity; add the services with the `with_*` methods.
    pub fn new(session: SessionIdentity) -> Self {
        ToolContext {
            session,
            env: None,
            execute_code: None,
            factory: None,
            store: None,
            coordinator: None,
            chat: None,
        }
    }

    /// Sets the sandbox view.
    #[must_use]
    pub fn with_env(mut self, env: Arc<dyn Sandbox>) -> Self {
        self.env = Some(env);
        self
    }

    /// Sets the code executor.
    #[must_use]
    pub fn with_executor(mut self, executor: Arc<dyn CodeExecutor>) -> Self {
        self.execute_code = Some(executor);
        self
    }

    /// Sets the child-session factory.
    #[must_use]
    pub fn with_factory(mut self, factory: Arc<dyn SessionFactory>) -> Self {
        self.factory = Some(factory);
        self
    }

    /// Sets the execution log.
    #[must_use]
    pub fn with_store(mut self, store: Arc<dyn ExecutionLog>) -> Self {
        self.store = Some(store);
        self
    }

    /// Sets the coordinator.
    #[must_use]
    pub fn with_coordinator(mut self, coordinator: Arc<dyn Coordinator>) -> Self {
        self.coordinator = Some(coordinator);
        self
    }

    /// Sets the chat.
    #[must_use]
    pub fn with_chat(mut self, chat: Arc<dyn Chat>) -> Self {
        self.chat = Some(chat);
        self
    }

    /// The session's identity.
    pub fn session(&self) -> &SessionIdentity {
        &self.session
    }

    /// The capabilities this context can grant: `session` always, the others when present.
    pub fn provides(&self) -> Capabilities {
        let present = [
            (Capability::Env, self.env.is_some()),
            (Capability::ExecuteCode, self.execute_code.is_some()),
            (Capability::Session, true),
            (Capability::Factory, self.factory.is_some()),
            (Capability::Store, self.store.is_some()),
            (Capability::Coordinator, self.coordinator.is_some()),
            (Capability::Chat, self.chat.is_some()),
        ];
        present
            .into_iter()
            .filter(|(_, here)| *here)
            .map(|(cap, _)| cap)
            .collect()
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("session", &self.session)
            .field("provides", &self.provides().to_string())
            .finish()
    }
}
