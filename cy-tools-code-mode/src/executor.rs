//! `CodeModeExecutor`: an executor whose runs may call the session's tools back.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};

use cy_tools::{
    BoxFuture, Session, Toolset,
    services::{CodeExecutor, CodeOptions, ServiceError, ServiceErrorKind, ShellResult},
};

use super::approval::{AllowAll, ApprovalHook};
use super::broker::Broker;
use super::dispatch::{Dispatcher, Served};
use super::limits::CodeModeLimits;
use super::module;
use super::tools_module::ToolsModule;

/// Wraps a code executor so that each run gets a private SDK channel to the session's tools:
/// `import cy_sdk; cy_sdk.call("read_file", path="a.txt")`. Around a local executor
/// (`cy-tools-sandbox`'s `LocalExecutor`) the channel is opened here and handed to the run as
/// an inherited descriptor; around an executor that [relays SDK
/// calls](CodeExecutor::relays_sdk_calls) (`cy-tools-remote`'s `RemoteExecutor`) the calls
/// come back over its connection. Either way they are answered here.
///
/// Each run can `import cy_sdk` and call the tools as typed functions of `cy_sdk.tools`,
/// generated from the session's toolset ([`ToolsModule`]), or by name with `cy_sdk.call`.
///
/// Build the session's context with this executor, build the toolset, then
/// [`attach`](Self::attach) the session (or [`bind`](Self::bind) it and keep it alive
/// yourself):
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use cy_tools::{CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry};
/// use cy_tools_code_mode::CodeModeExecutor;
/// use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "hello").unwrap();
/// let env: Arc<dyn cy_tools::services::Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
/// let executor = Arc::new(CodeModeExecutor::new(Arc::new(LocalExecutor::new(Arc::clone(&env)))));
/// let context = ToolContext::new(SessionIdentity::root("s-1", "t"))
///     .with_env(env)
///     .with_executor(executor.clone());
/// let tools = ToolRegistry::linked().unwrap().build(&["execute_code", "read_file"], &context);
/// let session = executor.attach(Session::new(Arc::new(context), tools)).unwrap();
/// // The model is told about the module in `execute_code`'s description.
/// assert!(session.tools().get("execute_code").unwrap().description().contains("- read_file(path, *, limit=None, offset=1): "));
///
/// let code = "import cy_sdk\nprint(cy_sdk.tools.read_file('a.txt').upper())";
/// let call = ToolCall::new("c1", serde_json::json!({ "code": code }));
/// let result = session.execute("execute_code", call, &CancellationToken::new()).await;
/// assert!(result.text_content().contains("HELLO"), "{}", result.text_content());
/// # });
/// ```
pub struct CodeModeExecutor {
    inner: Arc<dyn CodeExecutor>,
    session: OnceLock<Weak<Session>>,
    /// The session's `cy_sdk.tools`, made when it is bound, and the folder it is written to.
    module: OnceLock<(Arc<ToolsModule>, PathBuf)>,
    limits: CodeModeLimits,
    approval: Arc<dyn ApprovalHook>,
    code_only: bool,
}

impl CodeModeExecutor {
    /// Code mode around `inner`, under [`CodeModeLimits::default`], allowing every call.
    pub fn new(inner: Arc<dyn CodeExecutor>) -> Self {
        CodeModeExecutor {
            inner,
            session: OnceLock::new(),
            module: OnceLock::new(),
            limits: CodeModeLimits::default(),
            approval: Arc::new(AllowAll),
            code_only: false,
        }
    }

    /// The same executor in code-only mode: the session [`attach`](Self::attach) gives back
    /// declares `execute_code` alone to the model (and to MCP clients), described with how to
    /// discover the tools from the code; every other tool of the session is reached from the
    /// code only (`cy_sdk.tools`, `cy_sdk.servers.<server>`), so hundreds of tools cost the
    /// model one definition.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use cy_tools::{Session, SessionIdentity, ToolContext, ToolRegistry};
    /// # use cy_tools_code_mode::CodeModeExecutor;
    /// # use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let env: Arc<dyn cy_tools::services::Sandbox> = Arc::new(LocalSandbox::new(dir.path()).unwrap().env());
    /// let executor = Arc::new(
    ///     CodeModeExecutor::new(Arc::new(LocalExecutor::new(Arc::clone(&env)))).with_code_only(true),
    /// );
    /// let context = ToolContext::new(SessionIdentity::root("s-1", "t"))
    ///     .with_env(env)
    ///     .with_executor(executor.clone());
    /// let tools = ToolRegistry::linked().unwrap().build(&["execute_code", "read_file"], &context);
    /// let session = executor.attach(Session::new(Arc::new(context), tools)).unwrap();
    /// assert_eq!(session.tools().names(), ["execute_code"]);
    /// assert_eq!(executor.tools_module().unwrap().functions(), ["read_file"]);
    /// ```
    #[must_use]
    pub fn with_code_only(mut self, code_only: bool) -> Self {
        self.code_only = code_only;
        self
    }

    /// Whether the model is given `execute_code` alone ([`with_code_only`](Self::with_code_only)).
    pub fn code_only(&self) -> bool {
        self.code_only
    }

    /// The same executor under other limits.
    #[must_use]
    pub fn with_limits(mut self, limits: CodeModeLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The same executor consulting `hook` before each call.
    #[must_use]
    pub fn with_approval(mut self, hook: Arc<dyn ApprovalHook>) -> Self {
        self.approval = hook;
        self
    }

    /// The limits calls are held to.
    pub fn limits(&self) -> &CodeModeLimits {
        &self.limits
    }

    /// Binds the session the code calls back into (once, after its toolset is built): its
    /// tools, and its log, where nested calls are recorded under the `execute_code` call that
    /// made them.
    ///
    /// The executor keeps only a weak reference, because the session's toolset holds the
    /// executor (through `execute_code`'s context) and a strong link both ways would never be
    /// freed: keep `session` alive as long as the session is in use.
    ///
    /// The `cy_sdk.tools` module of the session's tools is generated here (or taken from the
    /// cache of toolsets) and written to its folder.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) when it is already bound;
    /// [`Unavailable`](ServiceErrorKind::Unavailable) when the module's folder cannot be
    /// written.
    pub fn bind(&self, session: &Arc<Session>) -> Result<(), ServiceError> {
        let tools = ToolsModule::of(session.tools(), self.limits.allow_nesting);
        let dir = module::folder(tools.source())?;
        self.session.set(Arc::downgrade(session)).map_err(|_| {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                "this code-mode executor is already bound to a session; build one executor per session",
            )
        })?;
        let _ = self.module.set((tools, dir));
        Ok(())
    }

    /// Binds `session` (built with this executor in its context) and gives back the session to
    /// use: the same, with `execute_code` described to the model with the functions its code
    /// may call, keeping what the executor points at alive as long as it or a clone of it is
    /// (see [`Session::with_keep_alive`]). What a session factory does for a spec with code
    /// mode on.
    ///
    /// # Errors
    /// As [`bind`](Self::bind).
    pub fn attach(&self, session: Session) -> Result<Session, ServiceError> {
        let module = ToolsModule::of(session.tools(), self.limits.allow_nesting);
        let tools: Toolset = Toolset::new(
            session
                .tools()
                .iter()
                .map(|tool| {
                    if tool.name() == "execute_code" {
                        let description = format!("{}{}", tool.description(), module.summary());
                        tool.clone().with_description(description)
                    } else {
                        tool.clone()
                    }
                })
                .collect(),
        );
        let session = session.with_tools(tools);
        let shared = Arc::new(session.clone());
        self.bind(&shared)?;
        let session = if self.code_only {
            // The model's view: `execute_code` alone; the code's view (`shared`): every tool.
            let only = session
                .tools()
                .iter()
                .filter(|tool| tool.name() == "execute_code")
                .cloned()
                .collect();
            session.with_tools(Toolset::new(only))
        } else {
            session
        };
        Ok(session.with_keep_alive(shared))
    }

    /// The `cy_sdk.tools` module of the bound session.
    pub fn tools_module(&self) -> Option<&Arc<ToolsModule>> {
        self.module.get().map(|(module, _)| module)
    }

    async fn run(&self, code: &str, mut options: CodeOptions) -> Result<ShellResult, ServiceError> {
        let session = self
            .session
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| {
                ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    "code mode has no session to call back into: bind the executor with `CodeModeExecutor::bind` after building the toolset, and keep that `Session` alive",
                )
            })?;
        let (module, dir) = self.module.get().cloned().ok_or_else(|| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                "code mode has no module for its session: bind the executor with `CodeModeExecutor::bind` first",
            )
        })?;
        let dispatcher = Arc::new(Dispatcher::new(Served {
            session: (*session).clone(),
            module,
            parent_call: options.call_id.clone(),
            limits: self.limits.clone(),
            approval: Arc::clone(&self.approval),
            cancel: options.cancel.clone(),
            approver: options.approver.clone(),
            asker: options.asker.clone(),
        }));
        drop(session);
        if self.inner.relays_sdk_calls() {
            // The code runs on another host; its executor relays the calls back here.
            options.sdk = Some(dispatcher);
            return self.inner.execute(code, options).await;
        }
        let broker = Broker::open(dispatcher, self.limits.max_payload_bytes, dir)?;
        broker.prepare(&mut options);
        let result = self.inner.execute(code, options).await;
        // Closed as soon as the run ends: the channel and its folder.
        drop(broker);
        result
    }
}

impl CodeExecutor for CodeModeExecutor {
    fn execute<'a>(
        &'a self,
        code: &'a str,
        options: CodeOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>> {
        Box::pin(self.run(code, options))
    }
}

impl std::fmt::Debug for CodeModeExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeModeExecutor")
            .field("limits", &self.limits)
            .field(
                "bound",
                &self.session.get().is_some_and(|w| w.strong_count() > 0),
            )
            .field("code_only", &self.code_only)
            .finish_non_exhaustive()
    }
}
