//! `LocalSessionFactory`: sessions from specs and the host's infrastructure.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cy_tools::approval::{Approval, ApprovalPolicy, Approver};
use cy_tools::catalog::ResourceUpdates;
use cy_tools::memory::MemoryCoordinator;
use cy_tools::state::StateMap;
use cy_tools::{
    SessionSpec, ToolContext, ToolRegistry,
    services::{
        Chat, CodeExecutor, Coordinator, ExecutionLog, Sandbox, ServiceError, ServiceErrorKind,
    },
    session::{ExecutorSpec, SpecStore},
};

use super::children::ChildFactory;
use super::code_mode;
use super::compose::{self, Extras};
use super::rules::{check_spec, invalid};
use super::tree_coordinator::TreeCoordinator;
use super::{KeyedLog, LocalChat, SubagentRunner, TenantCoordinator};
use super::{host_files, workspace};
use crate::store::SqliteStore;
use cy_tools::Session;
use cy_tools::approval::SpentNonces;
use cy_tools_sandbox::executor::{LocalExecutor, PythonRunner, RunSlots};
use cy_tools_sandbox::{ExecLimits, LocalSandbox};

mod mcp;
mod narrow;
mod settings;
mod spawn;

type Secrets = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;
type TenantCoordinators = Arc<dyn Fn(&str) -> Arc<dyn Coordinator> + Send + Sync>;

/// Builds sessions from [`SessionSpec`]s with the host's infrastructure: the tool registry,
/// the store of specs and calls, the coordinator, the chat and (optionally) the application's
/// agent loop for subagents.
///
/// * [`create`](Self::create) stores a new root session's spec and builds it;
/// * [`resume`](Self::resume) rebuilds a stored session, in this process or any other that has
///   the same registry: same tool names, same schemas, same order, same workspace, and its log
///   goes on where it stopped;
/// * [`spawn_child`](Self::spawn_child) makes a narrower child of a session from one of its
///   subagent profiles.
///
/// Each session's context gets: its workspace (`env`: the folder the spec names, or, when the
/// spec has a [`workspace_host`](SessionSpec::workspace_host), a
/// [`RemoteSandbox`](cy_tools_remote::RemoteSandbox) on that execution host; a new
/// session whose code runs on a control server gets its workspace there, so its file tools,
/// `terminal`, `process` and code share one folder), an executor from the spec, its
/// identity, a [`KeyedLog`] (`store`), the coordinator seen through its tenant
/// ([`TenantCoordinator`]), the chat when the spec asks for one
/// and the session is a root, and a factory for children when it may start subagents. With
/// the spec's [`code_mode`](SessionSpec::code_mode) on, its executor (local or remote) is
/// wrapped in a [`CodeModeExecutor`](cy_tools_code_mode::CodeModeExecutor), so the code
/// `execute_code` runs may call the session's other tools through `cy_sdk.tools`.
///
/// ```
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools::{CancellationToken, SessionSpec, ToolCall};
/// use cy_tools_session::LocalSessionFactory;
///
/// let dir = tempfile::tempdir().unwrap();
/// let factory = LocalSessionFactory::embedded(dir.path().join("state")).unwrap();
/// let spec = SessionSpec::root("s-1", "acme", dir.path().join("w").to_str().unwrap())
///     .with_tools(["write_file", "read_file"]);
/// let session = factory.create(spec).await.unwrap();
/// assert_eq!(session.tools().names(), ["execute_code", "write_file", "read_file"]);
/// let call = ToolCall::new("c1", serde_json::json!({"path": "a.txt", "content": "hi"}));
/// assert!(!session.execute("write_file", call, &CancellationToken::new()).await.is_error);
///
/// let again = factory.resume("s-1").await.unwrap();
/// assert_eq!(again.entries().await.unwrap().len(), 1);
/// # });
/// ```
#[derive(Clone)]
pub struct LocalSessionFactory {
    host: Arc<Host>,
}

#[derive(Clone)]
pub(super) struct Host {
    registry: Arc<ToolRegistry>,
    specs: Arc<dyn SpecStore>,
    log: Arc<dyn ExecutionLog>,
    coordinator: Arc<dyn Coordinator>,
    /// The coordinator of one tenant, when the backend scopes by tenant itself; otherwise
    /// `coordinator` seen through a [`TenantCoordinator`].
    tenant_coordinators: Option<TenantCoordinators>,
    chat: Arc<dyn Chat>,
    runner: Option<Arc<dyn SubagentRunner>>,
    /// The runner of profiles that name a model, when there is no `runner` (the model loop,
    /// which lives in a crate above this one and is handed in).
    model_runner: Option<Arc<dyn SubagentRunner>>,
    secrets: Secrets,
    base_dir: Option<PathBuf>,
    exec_limits: ExecLimits,
    run_slots: RunSlots,
    state: StateMap,
    /// The approval policy of every session built, over its spec's `approve` (a host's
    /// setting, such as `cy-tools mcp --approve`).
    approve: Option<ApprovalPolicy>,
    /// Who every session built asks when a call's host names nobody (else its chat).
    approver: Option<Arc<dyn Approver>>,
    /// The hooks around every call of every session built.
    pub(super) hooks: cy_tools::call::hook::Hooks,
    /// The result limits of every session built.
    pub(super) limits: cy_tools::call::hook::ResultLimits,
    /// Limits and approval of the nested calls of sessions in code mode.
    pub(super) code_mode: code_mode::Settings,
    /// The embedded store's folder, which no workspace may contain (see [`host_files`]).
    store_dir: Option<PathBuf>,
    /// Where an MCP server of these sessions spends approval nonces: the store, when it has
    /// the table (see [`spent_nonces`](LocalSessionFactory::spent_nonces)).
    pub(super) spent_nonces: Option<Arc<dyn SpentNonces>>,
}

impl LocalSessionFactory {
    /// A factory over `registry`, keeping specs in `specs` and calls in `log`, with an
    /// in-process coordinator, an in-memory [`LocalChat`], no subagent runner, and tokens read
    /// from the process environment.
    pub fn new(
        registry: Arc<ToolRegistry>,
        specs: Arc<dyn SpecStore>,
        log: Arc<dyn ExecutionLog>,
    ) -> Self {
        LocalSessionFactory {
            host: Arc::new(Host {
                registry,
                specs,
                log,
                coordinator: Arc::new(MemoryCoordinator::new()),
                tenant_coordinators: None,
                chat: Arc::new(LocalChat::in_memory()),
                runner: None,
                model_runner: None,
                secrets: Arc::new(|name| std::env::var(name).ok()),
                base_dir: None,
                exec_limits: ExecLimits::default(),
                run_slots: RunSlots::for_this_host(),
                state: StateMap::new(),
                approve: None,
                approver: None,
                hooks: cy_tools::call::hook::Hooks::default(),
                limits: cy_tools::call::hook::ResultLimits::default(),
                code_mode: code_mode::Settings::default(),
                store_dir: None,
                spent_nonces: None,
            }),
        }
    }

    /// A factory over one SQLite store (specs and calls).
    pub fn with_sqlite(registry: Arc<ToolRegistry>, store: SqliteStore) -> Self {
        let store = Arc::new(store);
        let mut factory = LocalSessionFactory::new(registry, store.clone(), store.clone());
        factory.host_mut().spent_nonces = Some(store);
        factory
    }

    /// The embedded default: every tool linked into the binary, `state_dir/sessions.db` for
    /// specs and calls and `state_dir/chat.jsonl` for the chat.
    ///
    /// # Errors
    /// The folder, the database or the chat file cannot be opened, or two linked tools share a
    /// name.
    pub fn embedded(state_dir: impl AsRef<Path>) -> Result<Self, ServiceError> {
        let dir = state_dir.as_ref();
        std::fs::create_dir_all(dir).map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Other,
                format!(
                    "cannot create the state folder `{}`: {err}; pass a folder on a writable disk this process may write to",
                    dir.display()
                ),
            )
        })?;
        let registry = ToolRegistry::linked()
            .map_err(|err| ServiceError::new(ServiceErrorKind::Other, err.to_string()))?;
        let store = SqliteStore::open(dir.join("sessions.db"))?;
        let chat = LocalChat::open(dir.join("chat.jsonl"))?;
        let mut factory =
            LocalSessionFactory::with_sqlite(Arc::new(registry), store).with_chat(Arc::new(chat));
        factory.host_mut().store_dir = Some(dir.to_path_buf());
        Ok(factory)
    }

    pub(super) fn host_mut(&mut self) -> &mut Host {
        Arc::make_mut(&mut self.host)
    }

    /// The registry tools are resolved in.
    pub fn registry(&self) -> &ToolRegistry {
        &self.host.registry
    }

    /// The execution log of every session (unkeyed).
    pub fn log(&self) -> &Arc<dyn ExecutionLog> {
        &self.host.log
    }

    /// The coordinator as the sessions of `tenant` see it: the application signals a session
    /// (or waits for one of its signals) through this.
    pub fn coordinator(&self, tenant: &str) -> Arc<dyn Coordinator> {
        if let Some(coordinators) = &self.host.tenant_coordinators {
            return coordinators(tenant);
        }
        Arc::new(TenantCoordinator::new(
            Arc::clone(&self.host.coordinator),
            tenant,
        ))
    }

    /// The store of specs.
    pub fn specs(&self) -> &Arc<dyn SpecStore> {
        &self.host.specs
    }

    /// Creates a root session: checks the spec, stores it (a relative workspace is stored
    /// resolved, so any process finds the same folder) and builds it.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) for a malformed spec (naming the field
    /// and the fix), a child spec (children are made with [`spawn_child`](Self::spawn_child)),
    /// or an id already stored; the workspace, executor or store failing.
    pub async fn create(&self, spec: SessionSpec) -> Result<Session, ServiceError> {
        self.create_with(spec, Extras::new()).await
    }

    /// [`create`](Self::create), with `extras`: tools (and objects) for this session only,
    /// placed after the spec's tools (see [`compose`](super::compose)). They are not stored:
    /// [`resume_with`](Self::resume_with) takes them again.
    ///
    /// # Errors
    /// As [`create`](Self::create); [`InvalidInput`](ServiceErrorKind::InvalidInput) when an
    /// extra's name is taken or the session lacks a capability or object it needs.
    ///
    /// [`Extras`] shows one.
    pub async fn create_with(
        &self,
        mut spec: SessionSpec,
        extras: Extras,
    ) -> Result<Session, ServiceError> {
        workspace::settle(&mut spec);
        check_spec(&spec)?;
        if !spec.identity.lineage.is_empty() {
            return Err(invalid(format!(
                "spec `{}` is a child's (its lineage is not empty); create the root and start children from it with `spawn_child`, or resume the child by id",
                spec.id()
            )));
        }
        if spec.workspace_host.is_none() {
            let root = self.workspace_path(&spec.workspace);
            spec.workspace = root.to_string_lossy().into_owned();
        }
        let env = self.open_env(&spec)?;
        let extras = self.with_mcp_servers(&spec, extras).await?;
        // Built before it is stored, so a spec that cannot be built (an executor without its
        // token, say) leaves nothing behind and can be fixed and created again.
        let spec = Arc::new(spec);
        let session = self.build(Arc::clone(&spec), env, None, &extras)?;
        self.host.specs.insert_spec(&spec).await?;
        Ok(session)
    }

    /// Rebuilds the stored session `session_id`: the same toolset from the stored spec, its
    /// workspace as it was left, its log continued.
    ///
    /// # Errors
    /// [`NotFound`](ServiceErrorKind::NotFound) when no such session is stored; the workspace,
    /// executor or store failing.
    pub async fn resume(&self, session_id: &str) -> Result<Session, ServiceError> {
        self.resume_with(session_id, Extras::new()).await
    }

    /// [`resume`](Self::resume), with `extras` for this build of the session: the extras of
    /// an earlier build are not stored, so a resumed session has those its resumer passes.
    ///
    /// # Errors
    /// As [`resume`](Self::resume) and [`create_with`](Self::create_with).
    pub async fn resume_with(
        &self,
        session_id: &str,
        extras: Extras,
    ) -> Result<Session, ServiceError> {
        let spec = self.stored_spec(session_id).await?;
        let env = self.open_env(&spec)?;
        let extras = self.with_mcp_servers(&spec, extras).await?;
        self.build(Arc::new(spec), env, None, &extras)
    }

    /// The stored spec of `session_id`, or an error saying there is none and what to do.
    async fn stored_spec(&self, session_id: &str) -> Result<SessionSpec, ServiceError> {
        self.host.specs.load_spec(session_id).await?.ok_or_else(|| {
            ServiceError::new(
                ServiceErrorKind::NotFound,
                format!(
                    "no session `{session_id}` in the store; check the id, or create the session first"
                ),
            )
        })
    }

    fn workspace_path(&self, workspace: &str) -> PathBuf {
        let path = Path::new(workspace);
        match (&self.host.base_dir, path.is_absolute()) {
            (Some(base), false) => base.join(path),
            (None, false) => std::env::current_dir()
                .map(|cwd| cwd.join(path))
                .unwrap_or_else(|_| path.to_path_buf()),
            (_, true) => path.to_path_buf(),
        }
    }

    /// The session's workspace: on its execution host, or its folder here.
    fn open_env(&self, spec: &SessionSpec) -> Result<Arc<dyn Sandbox>, ServiceError> {
        match &spec.workspace_host {
            Some(host) => workspace::open_remote(host, spec.id(), &*self.host.secrets),
            None => self.open_workspace(Path::new(&spec.workspace)),
        }
    }

    fn open_workspace(&self, path: &Path) -> Result<Arc<dyn Sandbox>, ServiceError> {
        if let Some(store) = &self.host.store_dir {
            host_files::store_outside(path, store)?;
        }
        let sandbox = LocalSandbox::new(path).map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Other,
                format!(
                    "cannot open the workspace folder `{}`: {err}; check that it can be created and written",
                    path.display()
                ),
            )
        })?;
        Ok(Arc::new(
            sandbox.with_limits(self.host.exec_limits.clone()).env(),
        ))
    }

    fn executor(
        &self,
        spec: &SessionSpec,
        env: &Arc<dyn Sandbox>,
    ) -> Result<Arc<dyn CodeExecutor>, ServiceError> {
        Ok(match &spec.executor {
            ExecutorSpec::Local { command } => Arc::new(
                LocalExecutor::new(Arc::clone(env))
                    .with_python(PythonRunner::for_limits(&self.host.exec_limits))
                    .with_command(command.clone())?
                    .with_slots(self.host.run_slots.clone()),
            ),
            #[cfg(not(feature = "remote"))]
            ExecutorSpec::Remote { url, .. } => {
                return Err(ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "session `{}` runs its code on the control server `{url}`, but this build has no remote executor; build `cy-tools-builtin` with its `remote` feature",
                        spec.id()
                    ),
                ));
            }
            #[cfg(feature = "remote")]
            ExecutorSpec::Remote { url, token_var } => {
                let token = (self.host.secrets)(token_var).ok_or_else(|| {
                    ServiceError::new(
                        ServiceErrorKind::InvalidInput,
                        format!(
                            "session `{}` runs code on `{url}` with the token in `{token_var}`, which is not set; set that environment variable (or give the factory a secrets lookup)",
                            spec.id()
                        ),
                    )
                })?;
                let (name, folder) = workspace::executor_place(spec, url);
                let executor = cy_tools_remote::RemoteExecutor::new(url, name, token)?;
                Arc::new(match folder {
                    Some(folder) => executor.with_scope(folder),
                    None => executor,
                })
            }
        })
    }

    /// The approval settings of a session of `spec`: the host's policy and approver over the
    /// spec's.
    fn approval(&self, spec: &SessionSpec) -> Approval {
        let approval = Approval::new(self.host.approve.unwrap_or(spec.approve));
        match &self.host.approver {
            Some(approver) => approval.with_approver(Arc::clone(approver)),
            None => approval,
        }
    }

    /// The context of `spec` and its tools, in order (see [`compose`](super::compose)).
    fn build(
        &self,
        spec: Arc<SessionSpec>,
        env: Arc<dyn Sandbox>,
        parent_call: Option<String>,
        extras: &Extras,
    ) -> Result<Session, ServiceError> {
        self.build_within(spec, env, parent_call, extras, None)
    }

    /// [`build`](Self::build), keeping of the planned tools only those named in `only` (when
    /// given): before binding, so that in code mode the session its code calls back into, and
    /// the module and description it is shown, have those tools and no others.
    fn build_within(
        &self,
        spec: Arc<SessionSpec>,
        env: Arc<dyn Sandbox>,
        parent_call: Option<String>,
        extras: &Extras,
        only: Option<&[String]>,
    ) -> Result<Session, ServiceError> {
        let log: Arc<dyn ExecutionLog> =
            Arc::new(KeyedLog::new(Arc::clone(&self.host.log), spec.id()));
        let executor = self.executor(&spec, &env)?;
        let code_mode = code_mode::wrap(&spec, executor, &self.host.code_mode)?;
        let mut context = ToolContext::new(spec.identity.clone())
            .with_env(Arc::clone(&env))
            .with_executor(code_mode.executor())
            .with_log(Arc::clone(&log))
            .with_coordinator(self.session_coordinator(&spec))
            .with_state_map(&self.host.state)
            .with_state_map(extras.state())
            .with_hooks(self.host.hooks.clone())
            .with_result_limits(self.host.limits.clone())
            .with_approval(self.approval(&spec));
        // The hub its resources announce changes on, which its tools reach as state (one the
        // application gave stays).
        if context.state::<ResourceUpdates>().is_none() {
            context = context.with_state(ResourceUpdates::default());
        }
        // Only a root talks to people; subagents get no chat, hence no messaging tools.
        let chat_bound = spec.chat && spec.identity.lineage.is_empty();
        if chat_bound {
            context = context.with_chat(Arc::clone(&self.host.chat));
        }
        if spec.can_delegate() {
            context = context.with_factory(Arc::new(ChildFactory {
                factory: self.clone(),
                parent: Arc::clone(&spec),
                parent_env: Arc::clone(&env),
            }));
        }
        let chat_tools = if chat_bound {
            self.host.chat.tools(&context)
        } else {
            Vec::new()
        };
        let context = Arc::new(context);
        let mut plan = compose::plan(&spec, &chat_tools, extras).map_err(invalid)?;
        if let Some(only) = only {
            plan.retain(|planned| only.iter().any(|name| name == planned.name));
        }
        let tools = compose::bind(
            &plan,
            &self.host.registry,
            &context,
            self.can_run_subagents(&spec),
        )
        .map_err(invalid)?;
        // Names nothing is registered under, or that cannot bind, are left out with a warning,
        // as tools are.
        let (catalog, _left_out) =
            self.host
                .registry
                .catalog()
                .build(&spec.resources, &spec.prompts, &context);
        let session = Session::new(context, tools)
            .with_catalog(catalog)
            .with_spec(spec);
        let session = match parent_call {
            Some(call) => session.with_parent_call(call),
            None => session,
        };
        code_mode.attach(session)
    }

    /// The coordinator a session's tools see: its tenant's; a subagent's also confined to its
    /// tree and knowing its siblings by name.
    fn session_coordinator(&self, spec: &Arc<SessionSpec>) -> Arc<dyn Coordinator> {
        let tenant = self.coordinator(&spec.identity.tenant);
        if spec.identity.lineage.is_empty() {
            return tenant;
        }
        Arc::new(TreeCoordinator::new(
            tenant,
            Arc::clone(&self.host.specs),
            Arc::clone(spec),
        ))
    }
}

impl std::fmt::Debug for LocalSessionFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalSessionFactory")
            .field("tools", &self.host.registry.len())
            .field("runner", &self.host.runner.is_some())
            .field("model_runner", &self.host.model_runner.is_some())
            .finish()
    }
}
