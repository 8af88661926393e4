//! `Session`: a toolset bound to its context, whose calls are recorded in the context's log.

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use tokio_util::either::Either;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, Span};

use super::spec::SessionSpec;
use crate::approval::Approval;
use crate::binding::{BoundTool, SessionIdentity, ToolContext, ToolRegistry, Toolset};
use crate::call::{ToolCall, ToolResult, trace};
use crate::catalog::Catalog;
use crate::services::{ExecutionLog, LogEntry, Sandbox, ServiceError, ServiceErrorKind};

/// A live session: its tools bound to its context, the spec it was built from (when a factory
/// built it), and the parent's call that started it (for a subagent).
///
/// There is one session type for roots and children: a session factory builds both, and a
/// tool that starts a child (`delegate`) gets the same type back. It lives here, beside the
/// [`ChildSessionFactory`](crate::services::ChildSessionFactory) trait that returns it, so the core can hand
/// children to tools without knowing any backend.
///
/// Every call made through [`execute`](Self::execute) is recorded in the context's execution
/// log (when it has one): session, tool, arguments, result, error flag, timings, and the call
/// that caused it. Cloning is cheap and shares everything.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use cy_tools::{CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, Toolset, memory::MemoryLog};
///
/// let log = Arc::new(MemoryLog::new());
/// let context = Arc::new(ToolContext::new(SessionIdentity::root("s-1", "acme")).with_log(log));
/// let session = Session::new(context, Toolset::default());
/// let result = session.execute("nope", ToolCall::new("c1", serde_json::json!({})), &CancellationToken::new()).await;
/// assert!(result.is_error);
/// let entries = session.entries().await.unwrap();
/// assert_eq!((entries[0].tool.as_str(), entries[0].result.is_error), ("nope", true));
/// # });
/// ```
#[derive(Clone)]
pub struct Session {
    context: Arc<ToolContext>,
    tools: Toolset,
    /// Its resources and prompts, bound to the same context.
    catalog: Catalog,
    spec: Option<Arc<SessionSpec>>,
    parent_call: Option<String>,
    /// What must live as long as any clone of this session does (see
    /// [`with_keep_alive`](Self::with_keep_alive)).
    keep_alive: Option<Arc<dyn Any + Send + Sync>>,
}

impl Session {
    /// A session of the linked tools named in `tools`, in that order, bound to `context`:
    /// every name must be registered and bind, or the error says which did not and why.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use cy_tools::prelude::*;
    ///
    /// /// Multiplies two integers.
    /// #[tool(read_only)]
    /// async fn times(/** The first. */ a: i64, /** The second. */ b: i64) -> String {
    ///     (a * b).to_string()
    /// }
    ///
    /// let session = Session::linked(ToolContext::local(), &["times"]).unwrap();
    /// assert_eq!(session.call("times", serde_json::json!({"a": 2, "b": 3})).await.to_string(), "6");
    ///
    /// let err = Session::linked(ToolContext::local(), &["time"]).unwrap_err();
    /// assert!(err.to_string().contains("`time`: no tool is registered under this name"));
    /// # });
    /// ```
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) naming each tool left out (unknown, or
    /// needing a capability or state the context lacks) and why; [`Other`](ServiceErrorKind::Other)
    /// when two linked tools share a name.
    pub fn linked<S: AsRef<str>>(
        context: ToolContext,
        tools: &[S],
    ) -> Result<Session, ServiceError> {
        let registry = ToolRegistry::linked().map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Other,
                format!("cannot make the session: {err}"),
            )
            .with_source(err)
        })?;
        let context = Arc::new(context);
        let tools = registry.try_build(tools, &context).map_err(|report| {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!("cannot make the session: {report}"),
            )
            .with_source(report)
        })?;
        Ok(Session::new(context, tools))
    }

    /// The session whose tools `tools` are bound to `context`.
    pub fn new(context: Arc<ToolContext>, tools: Toolset) -> Self {
        Session {
            context,
            tools,
            catalog: Catalog::default(),
            spec: None,
            parent_call: None,
            keep_alive: None,
        }
    }

    /// The same session, keeping `value` alive as long as it or any clone of it is.
    ///
    /// A service in the session's context that calls the session back (code mode's executor)
    /// can hold only a weak reference to it: the session's tools hold the context, so a strong
    /// one would be a cycle that is never freed. The session builder gives that service a
    /// session to point at and hands it here, so the session the application holds is what
    /// keeps it alive.
    #[must_use]
    pub fn with_keep_alive(mut self, value: Arc<dyn Any + Send + Sync>) -> Self {
        self.keep_alive = Some(value);
        self
    }

    /// The same session with only `tools` (say, a subset of its own): the context, spec,
    /// parent call and what it keeps alive stay.
    ///
    /// This narrows what a caller of [`execute`](Self::execute) reaches, not what the context's
    /// services were built with: the code of a session in code mode still calls the tools its
    /// session was built with. To serve a code-mode session with fewer tools, build it with
    /// those alone (`cy_tools_builtin`'s `LocalSessionFactory::resume_within`).
    #[must_use]
    pub fn with_tools(mut self, tools: Toolset) -> Self {
        self.tools = tools;
        self
    }

    /// The same session, built from `spec`.
    #[must_use]
    pub fn with_spec(mut self, spec: Arc<SessionSpec>) -> Self {
        self.spec = Some(spec);
        self
    }

    /// The same session, started by the parent's call `call` (recorded with each of its calls).
    #[must_use]
    pub fn with_parent_call(mut self, call: impl Into<String>) -> Self {
        self.parent_call = Some(call.into());
        self
    }

    /// The same session, its calls asking for approval as `approval` says (a host's setting
    /// over the spec's: `cy-tools mcp --approve`). The tools are bound again, to a copy of the
    /// context with these settings; the log, the workspace and the rest are shared.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use cy_tools::approval::{Approval, ApprovalPolicy};
    /// use cy_tools::{Session, SessionIdentity, ToolContext, Toolset};
    ///
    /// let session = Session::new(Arc::new(ToolContext::new(SessionIdentity::root("s", "t"))), Toolset::default());
    /// let asking = session.with_approval(Approval::new(ApprovalPolicy::All));
    /// assert_eq!(asking.context().approval().policy, ApprovalPolicy::All);
    /// ```
    #[must_use]
    pub fn with_approval(self, approval: Approval) -> Self {
        let context = Arc::new((*self.context).clone().with_approval(approval));
        let tools = self
            .tools
            .iter()
            .filter_map(|tool| match tool.rebind(&context) {
                Ok(tool) => Some(tool),
                // It was bound to the same services a moment ago: only a bug gets here.
                Err(err) => {
                    tracing::error!(tool = tool.name(), "could not bind the tool again: {err}");
                    None
                }
            })
            .collect();
        Session {
            context,
            tools: Toolset::new(tools),
            ..self
        }
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.context.session().session_id
    }

    /// Who it is: id, tenant, lineage, depth.
    pub fn identity(&self) -> &SessionIdentity {
        self.context.session()
    }

    /// The spec it was built from, when a factory built it.
    pub fn spec(&self) -> Option<&Arc<SessionSpec>> {
        self.spec.as_ref()
    }

    /// Its tools, in order.
    pub fn tools(&self) -> &Toolset {
        &self.tools
    }

    /// Its resources and prompts.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The same session with `catalog` as its resources and prompts (bound to its context:
    /// [`CatalogRegistry::build`](crate::catalog::CatalogRegistry::build) with
    /// [`context`](Self::context)).
    ///
    /// ```
    /// use cy_tools::prelude::*;
    /// use cy_tools::catalog::Catalog;
    ///
    /// /// The house rules.
    /// #[resource(uri = "house://rules")]
    /// async fn house_rules() -> &'static str { "Be kind." }
    ///
    /// let session = Session::linked(ToolContext::local(), &[] as &[&str]).unwrap();
    /// let catalog = Catalog::linked(session.context(), &["house_rules"], &[] as &[&str]).unwrap();
    /// let session = session.with_catalog(catalog);
    /// assert_eq!(session.catalog().resources()[0].name(), "house_rules");
    /// ```
    #[must_use]
    pub fn with_catalog(mut self, catalog: Catalog) -> Self {
        self.catalog = catalog;
        self
    }

    /// The context its tools are bound to, to bind more tools to the same session.
    pub fn context(&self) -> &Arc<ToolContext> {
        &self.context
    }

    /// Its workspace, as its tools see it, when it has one.
    pub fn env(&self) -> Option<&Arc<dyn Sandbox>> {
        self.context.fields.env.as_ref()
    }

    /// Where its calls are recorded, when it has an execution log.
    pub fn log(&self) -> Option<&Arc<dyn ExecutionLog>> {
        self.context.fields.log.as_ref()
    }

    /// The parent's call that started this session, for a subagent.
    pub fn parent_call(&self) -> Option<&str> {
        self.parent_call.as_deref()
    }

    /// Runs tool `name` once with `arguments`, as a model would call it: the call gets a fresh
    /// id and its own cancellation (for a call a host cancels, see [`execute`](Self::execute)).
    /// Never fails: an unknown tool, invalid arguments and the tool's own failures are error
    /// results, which say what to do.
    pub async fn call(&self, name: &str, arguments: serde_json::Value) -> ToolResult {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = format!("call-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        self.execute(
            name,
            ToolCall::new(id, arguments),
            &CancellationToken::new(),
        )
        .await
    }

    /// Runs one call of tool `name` and records it. Never fails: an unknown tool, invalid
    /// arguments and the tool's own failures are error results the model can act on.
    pub async fn execute(
        &self,
        name: &str,
        call: ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let tool = self.tools.get(name);
        self.record(self.parent_call.as_deref(), name, tool, call, cancel)
            .await
    }

    /// Runs one call of `tool`, one of this session's that the host looked up already (in
    /// [`tools`](Self::tools): an MCP server reads its annotations before the call), and
    /// records it: the same path as [`execute`](Self::execute) without a second lookup.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use cy_tools::prelude::*;
    /// use cy_tools::{CancellationToken, ToolCall, memory::MemoryLog};
    ///
    /// /// Answers pong.
    /// #[tool(read_only)]
    /// async fn ping_looked_up() -> &'static str { "pong" }
    ///
    /// let log = Arc::new(MemoryLog::new());
    /// let session = Session::linked(ToolContext::local().with_log(log), &["ping_looked_up"]).unwrap();
    /// let tool = session.tools().get("ping_looked_up").unwrap();
    /// let call = ToolCall::new("c-1", serde_json::json!({}));
    /// assert_eq!(session.execute_tool(tool, call, &CancellationToken::new()).await.to_string(), "pong");
    /// assert_eq!(session.entries().await.unwrap()[0].tool, "ping_looked_up");
    /// # });
    /// ```
    pub fn execute_tool<'a>(
        &'a self,
        tool: &'a BoundTool,
        call: ToolCall,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        self.record(
            self.parent_call.as_deref(),
            tool.name(),
            Some(tool),
            call,
            cancel,
        )
    }

    /// Runs one call that another call of this session made (code run by `execute_code`
    /// calling a tool back), recorded under that call, `caused_by`.
    pub async fn execute_nested(
        &self,
        caused_by: &str,
        name: &str,
        call: ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let tool = self.tools.get(name);
        self.record(Some(caused_by), name, tool, call, cancel).await
    }

    /// This session's recorded calls, oldest first (those of earlier processes included); none
    /// without an execution log.
    ///
    /// # Errors
    /// The log cannot be read.
    pub async fn entries(&self) -> Result<Vec<LogEntry>, ServiceError> {
        match self.log() {
            Some(log) => log.entries(self.id()).await,
            None => Ok(Vec::new()),
        }
    }

    /// The call's result is returned whatever happens to the record: the call has already had
    /// its effect, so a log that cannot be written is reported to the host (a `tracing` error),
    /// not to the model.
    ///
    /// This is the one path every host's call takes to a tool's body (MCP, the CLI, the model
    /// loop, code mode's nested calls): `tool` is what the name found, looked up once. So it is
    /// where a call's span is made (see [`trace`](crate::call::trace)), a child of the span
    /// the host runs it in.
    ///
    /// A plain function: what the call needs is decided here, and a call that is neither traced
    /// nor recorded is the tool's own future, nothing around it. Hosts move a call's future
    /// before it runs (into a task, into `block_on`), so every byte a wrapper adds is copied on
    /// every call; the traced and recorded paths are boxed instead.
    fn record<'a>(
        &'a self,
        parent_call: Option<&'a str>,
        name: &'a str,
        tool: Option<&'a BoundTool>,
        call: ToolCall,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        let span = trace::call_span(self.identity(), name, &call);
        match (span.is_disabled(), self.log(), tool) {
            (true, None, Some(tool)) => Either::Left(tool.execute(call, cancel)),
            _ => Either::Right(Box::pin(self.recorded(
                span,
                parent_call,
                name,
                tool,
                call,
                cancel,
            ))),
        }
    }

    /// A call that is traced, recorded, or of a tool the session does not have.
    async fn recorded(
        &self,
        span: Span,
        parent_call: Option<&str>,
        name: &str,
        tool: Option<&BoundTool>,
        call: ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let run = async {
            match (self.log(), tool) {
                (None, Some(tool)) => tool.execute(call, cancel).await,
                (None, None) => self.tools.unknown(name),
                (Some(log), tool) => {
                    self.logged(log, parent_call, name, tool, call, cancel)
                        .await
                }
            }
        };
        if span.is_disabled() {
            return run.await;
        }
        let result = run.instrument(span.clone()).await;
        trace::record_outcome(&span, &result);
        result
    }

    async fn logged(
        &self,
        log: &Arc<dyn ExecutionLog>,
        parent_call: Option<&str>,
        name: &str,
        tool: Option<&BoundTool>,
        call: ToolCall,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let started_at_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let started = Instant::now();
        let call_id = call.id.clone();
        let arguments = call.arguments.clone();
        let result = match tool {
            Some(tool) => tool.execute(call, cancel).await,
            None => self.tools.unknown(name),
        };
        let entry = LogEntry {
            session_id: self.id().to_string(),
            call_id,
            parent_call: parent_call.map(str::to_string),
            tool: name.to_string(),
            arguments,
            result: result.clone(),
            started_at_ms,
            duration_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        };
        if let Err(err) = log.record(entry).await {
            tracing::error!(
                session = self.id(),
                tool = name,
                "the execution log could not record a call: {err}"
            );
        }
        result
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("identity", self.identity())
            .field("tools", &self.tools.names())
            .field("env", &self.env().map(|env| env.describe()))
            .field("parent_call", &self.parent_call)
            .finish()
    }
}
