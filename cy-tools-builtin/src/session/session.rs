//! `Session`: a bound toolset whose calls are recorded.

use std::sync::Arc;

use cy_tools::{
    CancellationToken, ChildSession, ExecutionLog, LogEntry, Sandbox, ServiceError,
    SessionIdentity, SessionSpec, ToolCall, ToolContext, ToolResult, Toolset, execute_recorded,
};

/// A live session: its spec, its tools bound to its context, and its execution log.
///
/// Every call made through [`execute`](Self::execute) is recorded (session, tool, arguments,
/// result, error flag, timings, and the parent's call for a subagent). Cloning is cheap and
/// shares everything.
#[derive(Clone)]
pub struct Session {
    pub(super) spec: Arc<SessionSpec>,
    pub(super) tools: Toolset,
    pub(super) context: Arc<ToolContext>,
    pub(super) env: Arc<dyn Sandbox>,
    pub(super) log: Arc<dyn ExecutionLog>,
    pub(super) parent_call: Option<String>,
}

impl Session {
    /// The session's id.
    pub fn id(&self) -> &str {
        self.spec.id()
    }

    /// The spec it was built from (and is stored as).
    pub fn spec(&self) -> &SessionSpec {
        &self.spec
    }

    /// Who it is: id, tenant, lineage, depth.
    pub fn identity(&self) -> &SessionIdentity {
        &self.spec.identity
    }

    /// Its tools, in the seed's order.
    pub fn tools(&self) -> &Toolset {
        &self.tools
    }

    /// The context its tools are bound to, to bind more tools to the same session.
    pub fn context(&self) -> &Arc<ToolContext> {
        &self.context
    }

    /// Its workspace, as its tools see it.
    pub fn env(&self) -> &Arc<dyn Sandbox> {
        &self.env
    }

    /// The parent's call that started this session, for a subagent.
    pub fn parent_call(&self) -> Option<&str> {
        self.parent_call.as_deref()
    }

    /// Runs one call of tool `name` and records it. Never fails: an unknown tool, invalid
    /// arguments and the tool's own failures are error results the model can act on.
    pub async fn execute(
        &self,
        name: &str,
        call: ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        execute_recorded(
            &self.tools,
            &*self.log,
            self.id(),
            self.parent_call.as_deref(),
            name,
            call,
            cancel,
        )
        .await
    }

    /// This session's recorded calls, oldest first (those of earlier processes included).
    ///
    /// # Errors
    /// The store cannot be read.
    pub async fn entries(&self) -> Result<Vec<LogEntry>, ServiceError> {
        self.log.entries(self.id()).await
    }

    /// The session as the core's [`ChildSession`].
    pub fn to_child_session(&self) -> ChildSession {
        ChildSession {
            identity: self.spec.identity.clone(),
            tools: self.tools.clone(),
            log: Some(Arc::clone(&self.log)),
            parent_call: self.parent_call.clone(),
        }
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("identity", &self.spec.identity)
            .field("tools", &self.tools.names())
            .field("env", &self.env.describe())
            .field("parent_call", &self.parent_call)
            .finish()
    }
}
