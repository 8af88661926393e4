//! The per-session context tools are bound to.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::approval::Approval;
use crate::call::hook::{CallHook, Hooks, ResultLimits};
use crate::capability::{Capabilities, Capability, capability_table};
use crate::services::{
    Chat, ChildSessionFactory, CodeExecutor, Coordinator, ExecutionLog, Sandbox,
};
use crate::state::{AppState, StateMap, StateType};

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

/// Everything a session offers its tools: one field per capability, and the application's
/// shared objects by type ([`with_state`](Self::with_state)).
///
/// Optional fields are `Option`s, so a narrower session simply lacks them (a subagent has no
/// chat, a session at the maximum depth no factory). A tool never sees this type: its body gets a
/// [`Ctx`](crate::Ctx) narrowed to its declared capabilities.
///
/// ```
/// use std::sync::Arc;
/// use cy_tools::{SessionIdentity, ToolContext, capability::Capability, memory::MemorySandbox};
///
/// let ctx = ToolContext::new(SessionIdentity::root("s-1", "acme"))
///     .with_env(Arc::new(MemorySandbox::new()));
/// assert!(ctx.provides().contains(Capability::Env));
/// assert!(!ctx.provides().contains(Capability::Chat));
/// ```
#[derive(Clone)]
pub struct ToolContext {
    pub(crate) fields: Fields,
    pub(crate) state: StateMap,
    pub(crate) approval: Approval,
    pub(crate) hooks: Hooks,
    pub(crate) limits: ResultLimits,
}

/// What the context holds for a capability of each kind.
macro_rules! held_type {
    (identity($ty:ident)) => { $ty };
    (service($ty:ident, $setter:ident)) => { Option<Arc<dyn $ty>> };
}

/// A new context's value for a capability of each kind.
macro_rules! held_initial {
    (identity($ty:ident), $identity:ident) => {
        $identity
    };
    (service($ty:ident, $setter:ident), $identity:ident) => {
        None
    };
}

/// Whether a capability of each kind is there.
macro_rules! held_present {
    (identity($ty:ident), $field:expr) => {
        true
    };
    (service($ty:ident, $setter:ident), $field:expr) => {
        $field.is_some()
    };
}

/// The setter of a service capability (an identity is given to [`ToolContext::new`]).
macro_rules! held_setter {
    (identity($ty:ident), $name:ident, $doc:literal) => {};
    (service($ty:ident, $setter:ident), $name:ident, $doc:literal) => {
        #[doc = concat!("Provides the `", stringify!($name), "` capability. ", $doc)]
        #[must_use]
        pub fn $setter(mut self, service: Arc<dyn $ty>) -> Self {
            self.fields.$name = Some(service);
            self
        }
    };
}

macro_rules! define_context {
    ($($variant:ident $name:ident $kind:ident($($held:tt)*) $doc:literal $missing:literal;)*) => {
        /// The capability fields, one per row of the capability table.
        #[derive(Clone)]
        pub(crate) struct Fields {
            $( pub(crate) $name: held_type!($kind($($held)*)), )*
        }

        impl ToolContext {
    /// A context for a session of this process alone, with safe defaults: a fresh id
    /// (`local-...`), tenant `local`, no services (add them with the `with_*` methods).
    ///
    /// ```
    /// let a = cy_tools::ToolContext::local();
    /// let b = cy_tools::ToolContext::local();
    /// assert_eq!(a.session().tenant, "local");
    /// assert_ne!(a.session().session_id, b.session().session_id);
    /// ```
    pub fn local() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        ToolContext::new(SessionIdentity::root(
            format!("local-{}-{n}", std::process::id()),
            "local",
        ))
    }

            /// A context with only a session identity; add the services with the `with_*`
            /// methods.
            pub fn new(session: SessionIdentity) -> Self {
                ToolContext {
                    fields: Fields {
                        $( $name: held_initial!($kind($($held)*), session), )*
                    },
                    state: StateMap::default(),
                    approval: Approval::default(),
                    hooks: Hooks::default(),
                    limits: ResultLimits::default(),
                }
            }

            $( held_setter!($kind($($held)*), $name, $doc); )*

            /// The capabilities this context can grant: `session` always, the others when
            /// present.
            pub fn provides(&self) -> Capabilities {
                Capabilities::NONE
                    $( .with_if(Capability::$variant, held_present!($kind($($held)*), self.fields.$name)) )*
            }
        }
    };
}

capability_table!(define_context);

impl ToolContext {
    /// The session's identity.
    pub fn session(&self) -> &SessionIdentity {
        &self.fields.session
    }

    /// Sets which calls of this session need a person's approval, and who is asked (see
    /// [`approval`](crate::approval)). By default none do.
    #[must_use]
    pub fn with_approval(mut self, approval: Approval) -> Self {
        self.approval = approval;
        self
    }

    /// The session's approval settings.
    pub fn approval(&self) -> &Approval {
        &self.approval
    }

    /// Adds `hook` after the session's others: every call of the session goes through it
    /// (see [`hook`](crate::call::hook)). A host's setting, never a spec's.
    #[must_use]
    pub fn with_hook(mut self, hook: Arc<dyn CallHook>) -> Self {
        self.hooks = self.hooks.with(hook);
        self
    }

    /// Sets all of the session's hooks (and how long each may take).
    #[must_use]
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// The session's hooks.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// Sets how much of one call's result reaches its caller (see [`ResultLimits`]).
    #[must_use]
    pub fn with_result_limits(mut self, limits: ResultLimits) -> Self {
        self.limits = limits;
        self
    }

    /// How much of one call's result reaches its caller.
    pub fn result_limits(&self) -> &ResultLimits {
        &self.limits
    }

    /// Adds an application object that tools reach by its type: a tool that takes
    /// `State<'_, T>` (or a definition that declares it with
    /// [`needs_state`](crate::definition::ToolDefinition::needs_state)) gets this value. A second value of
    /// the same type replaces the first.
    ///
    /// ```
    /// use cy_tools::{SessionIdentity, ToolContext, state::StateType};
    ///
    /// struct Db { url: String }
    /// let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
    ///     .with_state(Db { url: "postgres://db".into() });
    /// assert!(context.has_state(StateType::of::<Db>()));
    /// assert_eq!(context.state::<Db>().unwrap().url, "postgres://db");
    /// ```
    #[must_use]
    pub fn with_state<T: AppState>(self, value: T) -> Self {
        self.with_shared_state(Arc::new(value))
    }

    /// [`with_state`](Self::with_state) for a value already shared (one pool for every
    /// session of an application).
    #[must_use]
    pub fn with_shared_state<T: AppState>(mut self, value: Arc<T>) -> Self {
        self.state = self.state.with(StateType::of::<T>(), value);
        self
    }

    /// Adds every object of `state` (the objects an application gives all its sessions).
    #[must_use]
    pub fn with_state_map(mut self, state: &StateMap) -> Self {
        self.state = self.state.merged(state);
        self
    }

    /// The application object of type `T`, when the context has one.
    pub fn state<T: 'static>(&self) -> Option<&T> {
        self.state.get::<T>()
    }

    /// Whether the context has an object of type `ty`.
    pub fn has_state(&self, ty: StateType) -> bool {
        self.state.contains(ty)
    }

    /// The application objects the context holds.
    pub fn state_map(&self) -> &StateMap {
        &self.state
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("session", self.session())
            .field("provides", &self.provides().to_string())
            .field("state", &self.state)
            .field("approval", &self.approval)
            .finish()
    }
}

/// A context as binding takes it: owned or borrowed (put in a new `Arc`; cloning a context
/// only counts references) or already shared, as a [`Session`](crate::Session) holds it.
///
/// ```
/// use std::sync::Arc;
/// use cy_tools::{SessionIdentity, ToolContext, ToolRegistry};
///
/// let registry = ToolRegistry::new();
/// let context = Arc::new(ToolContext::new(SessionIdentity::root("s-1", "acme")));
/// assert!(registry.build(&["a"], &context).is_empty());
/// assert!(registry.build(&["a"], &*context).is_empty());
/// ```
pub trait IntoSharedContext {
    /// The context, shared.
    fn into_shared(self) -> Arc<ToolContext>;
}

impl IntoSharedContext for ToolContext {
    fn into_shared(self) -> Arc<ToolContext> {
        Arc::new(self)
    }
}

impl IntoSharedContext for &ToolContext {
    fn into_shared(self) -> Arc<ToolContext> {
        Arc::new(self.clone())
    }
}

impl IntoSharedContext for Arc<ToolContext> {
    fn into_shared(self) -> Arc<ToolContext> {
        self
    }
}

impl IntoSharedContext for &Arc<ToolContext> {
    fn into_shared(self) -> Arc<ToolContext> {
        Arc::clone(self)
    }
}

/// A session's context as a bound tool hands it to its definition's
/// [`start`](crate::definition::Definition::start): binding checked that it provides every
/// capability and state type that definition declares, so a call does not check again. Only
/// a [`BoundTool`](crate::BoundTool) makes one, and only for the definition it was bound from.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use cy_tools::binding::{BindError, BoundContext, bind_tool};
/// use cy_tools::capability::Capabilities;
/// use cy_tools::definition::{Definition, Schema, ToolMeta};
/// use cy_tools::{BoxFuture, CallInfo, CancellationToken, SessionIdentity, ToolCall, ToolContext, ToolResult, call::ArgsError};
/// use serde_json::{Map, Value};
///
/// /// A hand-made kind of tool reads the session it runs in from the context it is given.
/// struct WhoAmI(ToolMeta, Schema);
/// impl Definition for WhoAmI {
///     fn meta(&self) -> &ToolMeta { &self.0 }
///     fn capabilities(&self) -> Capabilities { Capabilities::NONE }
///     fn schema(&self) -> Result<&Schema, BindError> { Ok(&self.1) }
///     fn start<'a>(&'a self, context: BoundContext<'a>, _: Map<String, Value>, _: CallInfo<'a>)
///         -> Result<BoxFuture<'a, ToolResult>, ArgsError> {
///         let session = context.get().session().session_id.clone();
///         Ok(Box::pin(async move { ToolResult::text(session) }))
///     }
/// }
///
/// let schema = Schema::canonical(serde_json::json!({"type": "object"})).unwrap();
/// let who: &'static WhoAmI = Box::leak(Box::new(WhoAmI(ToolMeta::new("who_am_i", "Says the session."), schema)));
/// let tool = bind_tool(who, ToolContext::new(SessionIdentity::root("s-7", "acme"))).unwrap();
/// let call = ToolCall::new("c-1", serde_json::json!({}));
/// assert_eq!(tool.execute(call, &CancellationToken::new()).await.to_string(), "s-7");
/// # });
/// ```
#[derive(Clone, Copy)]
pub struct BoundContext<'a> {
    context: &'a ToolContext,
}

impl<'a> BoundContext<'a> {
    /// Only binding vouches for a context.
    pub(crate) fn new(context: &'a ToolContext) -> Self {
        BoundContext { context }
    }

    /// The context itself.
    pub fn get(&self) -> &'a ToolContext {
        self.context
    }
}

impl std::fmt::Debug for BoundContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BoundContext")
            .field(&self.context.session().session_id)
            .finish()
    }
}
