//! The host's settings on a factory: the `with_*` builder methods, each returning the same
//! factory with one part of its host replaced (coordinator, chat, runner, secrets, limits,
//! approval, application state). Kept apart from `factory.rs`, which builds sessions from
//! specs with these settings.

use std::path::PathBuf;
use std::sync::Arc;

use cy_tools::approval::{ApprovalPolicy, Approver};
use cy_tools::services::{Chat, Coordinator};
use cy_tools::state::AppState;

use super::LocalSessionFactory;
use crate::SubagentRunner;
use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::executor::RunSlots;

impl LocalSessionFactory {
    /// The same factory with another coordinator, shared by every tenant (each sees it
    /// through a [`TenantCoordinator`](crate::TenantCoordinator)).
    #[must_use]
    pub fn with_coordinator(mut self, coordinator: Arc<dyn Coordinator>) -> Self {
        self.host_mut().coordinator = coordinator;
        self.host_mut().tenant_coordinators = None;
        self
    }

    /// The same factory with a coordinator per tenant, from a backend that scopes by tenant
    /// itself (the PostgreSQL store's rows carry their tenant).
    #[must_use]
    pub fn with_tenant_coordinators(
        mut self,
        coordinators: impl Fn(&str) -> Arc<dyn Coordinator> + Send + Sync + 'static,
    ) -> Self {
        self.host_mut().tenant_coordinators = Some(Arc::new(coordinators));
        self
    }

    /// The same factory with another chat, bound to root sessions whose spec asks for one.
    #[must_use]
    pub fn with_chat(mut self, chat: Arc<dyn Chat>) -> Self {
        self.host_mut().chat = chat;
        self
    }

    /// The same factory with the application's agent loop, so `delegate` and `workflow` can
    /// run subagents. Without one, a profile that names a model is run by the
    /// [`with_model_runner`](Self::with_model_runner) runner when there is one; sessions whose
    /// profiles nothing can run get inert delegation tools that tell the model delegation is
    /// unavailable.
    #[must_use]
    pub fn with_runner(mut self, runner: Arc<dyn SubagentRunner>) -> Self {
        self.host_mut().runner = Some(runner);
        self
    }

    /// The same factory running the subagents whose profile names a model with `runner`, when
    /// no runner of the application's own is set ([`with_runner`](Self::with_runner)): the
    /// built-in model loop, `cy_tools_agent::ModelRunner`, which is in a crate above this one
    /// and so is handed in here rather than built here. Profiles that name no model stay
    /// unavailable to it, and a session none of whose profiles names a model gets inert
    /// delegation tools.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use cy_tools::{BoxFuture, services::ServiceError};
    /// use cy_tools_session::{LocalSessionFactory, SubagentRun, SubagentRunner};
    ///
    /// /// Answers every task the same way (a model loop would run it).
    /// struct Echo;
    ///
    /// impl SubagentRunner for Echo {
    ///     fn run<'a>(&'a self, run: SubagentRun<'a>) -> BoxFuture<'a, Result<String, ServiceError>> {
    ///         Box::pin(async move { Ok(format!("done: {}", run.task)) })
    ///     }
    /// }
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let factory = LocalSessionFactory::embedded(dir.path())
    ///     .unwrap()
    ///     .with_model_runner(Arc::new(Echo));
    /// ```
    #[must_use]
    pub fn with_model_runner(mut self, runner: Arc<dyn SubagentRunner>) -> Self {
        self.host_mut().model_runner = Some(runner);
        self
    }

    /// The same factory reading remote-executor tokens with `secrets` (given the variable name
    /// the spec holds) instead of from the process environment. (A model runner reads model
    /// API keys with its own lookup: `cy_tools_agent::ModelRunner::with_secrets`.)
    #[must_use]
    pub fn with_secrets(
        mut self,
        secrets: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.host_mut().secrets = Arc::new(secrets);
        self
    }

    /// The same factory resolving relative workspace folders against `dir` (by default, the
    /// current folder).
    #[must_use]
    pub fn with_base_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.host_mut().base_dir = Some(dir.into());
        self
    }

    /// The same factory building every session (created, resumed, children) with `policy`
    /// as its approval policy, over its spec's `approve`: a host's own setting, such as
    /// `cy-tools mcp --approve`. Set here rather than on a built session
    /// ([`Session::with_approval`](cy_tools::Session::with_approval)), it reaches
    /// everything built with the session's context, the tools a code-mode session's code calls
    /// included.
    #[must_use]
    pub fn with_approval_policy(mut self, policy: ApprovalPolicy) -> Self {
        self.host_mut().approve = Some(policy);
        self
    }

    /// The same factory running `hooks` around every call of every session it builds
    /// (created, resumed, children): a host's setting, never a spec's (see
    /// [`cy_tools::call::hook`]).
    #[must_use]
    pub fn with_hooks(mut self, hooks: cy_tools::call::hook::Hooks) -> Self {
        self.host_mut().hooks = hooks;
        self
    }

    /// The same factory holding every session's results to `limits` (see
    /// [`cy_tools::call::hook::ResultLimits`]).
    #[must_use]
    pub fn with_result_limits(mut self, limits: cy_tools::call::hook::ResultLimits) -> Self {
        self.host_mut().limits = limits;
        self
    }

    /// The same factory building every session (created, resumed, children) to ask `approver`
    /// when a call needs approval and its host names nobody, instead of the session's chat:
    /// a host's own way of asking, such as `cy-tools agent` asking on its terminal. Like
    /// [`with_approval_policy`](Self::with_approval_policy), it reaches the tools a code-mode
    /// session's code calls and the subagents' sessions.
    #[must_use]
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.host_mut().approver = Some(approver);
        self
    }

    /// The same factory with other command limits for the sessions' workspaces.
    #[must_use]
    pub fn with_exec_limits(mut self, limits: ExecLimits) -> Self {
        self.host_mut().exec_limits = limits;
        self
    }

    /// The same factory with its sessions' local code runs capped by `slots` together
    /// ([`RunSlots::for_this_host`] by default).
    #[must_use]
    pub fn with_run_slots(mut self, slots: RunSlots) -> Self {
        self.host_mut().run_slots = slots;
        self
    }

    /// The same factory giving every session it builds (roots, children, resumed sessions)
    /// the application object `value`, which tools take as `State<'_, T>`. One object is shared
    /// by all of them; a second of the same type replaces the first.
    #[must_use]
    pub fn with_state<T: AppState>(self, value: T) -> Self {
        self.with_shared_state(Arc::new(value))
    }

    /// [`with_state`](Self::with_state) for an object the application shares already.
    #[must_use]
    pub fn with_shared_state<T: AppState>(mut self, value: Arc<T>) -> Self {
        let host = self.host_mut();
        host.state = std::mem::take(&mut host.state).insert_shared(value);
        self
    }
}
