//! `McpServer`: the `rmcp` handler over a toolset, and how one is made (the methods it
//! answers are in `handler.rs`, `tools/call` in `call.rs`).

// MCP 2026-07-28 deprecates logging and the resource subscriptions; 2025-11-25 clients use them.
#![allow(deprecated)]

use std::sync::Arc;

use cy_tools::{Session, SessionIdentity, ToolContext, Toolset, dialect::Dialect};
use rmcp::ErrorData;
use rmcp::model::{CacheScope, Implementation, ServerCapabilities, ServerConfig, Tool};
use serde_json::json;
use tokio::runtime::Handle;

use super::ServeError;
use super::call_slots::CallSlots;
use super::catalog::{Declarations, Subscriptions};
use super::logging::ConnectionLevel;
use super::request_state::StateCodec;
use super::unsupported;

/// How long a client may keep a `tools/list` answer (2026-07-28's `ttlMs`): the list never
/// changes while a server runs (unless its host puts new tools in place with
/// [`ToolUpdates`](crate::ToolUpdates): then 0), so this only bounds how late a client sees a
/// redeployed server's new tool set (and a call to a tool gone since is answered with the valid
/// ones).
pub const TOOL_LIST_TTL_MS: u64 = 5 * 60 * 1000;

/// An MCP server (an `rmcp` [`ServerHandler`](rmcp::ServerHandler)) over one session's tools.
///
/// Cloning is cheap: clones share the toolset and its declarations.
#[derive(Clone)]
pub struct McpServer {
    pub(super) inner: Arc<Inner>,
    /// Where calls run, when not on the protocol's own runtime.
    pub(super) call_runtime: Option<Handle>,
    /// The cap on calls running at once, when there is one.
    pub(super) call_slots: Option<CallSlots>,
    /// Who may cache `tools/list` (2026-07-28's `cacheScope`).
    pub(super) list_scope: CacheScope,
    /// Signs and checks the state of approvals asked in the multi-round form; why not, when
    /// no key could be made.
    pub(super) state: Arc<Result<StateCodec, String>>,
    /// Served over stateless HTTP, where no request can reach a 2025-11-25 client mid-call.
    pub(super) stateless: bool,
    /// Served over HTTP, where a 2026-07-28 request is a connection of its own (that protocol
    /// has no sessions), even in the session-bearing mode.
    pub(super) over_http: bool,
    /// Where approval nonces are spent once for every replica: the shared store, if any.
    pub(super) spent_nonces: Option<Arc<dyn cy_tools::approval::SpentNonces>>,
    /// The workspace approval state is bound to, with the tool's session id and tenant.
    pub(super) workspace: Arc<str>,
    /// The level of log messages the connection's client asked for.
    pub(super) log_level: ConnectionLevel,
    /// The resources the connection's client subscribed to.
    pub(super) subscriptions: Subscriptions,
    /// Who the connection's calls ask their client through, made on the first call.
    pub(super) asker: Arc<std::sync::OnceLock<Arc<dyn cy_tools::call::Asker>>>,
    /// Tool search, when on ([`with_tool_search`](Self::with_tool_search)), and what the
    /// connection's searches found.
    pub(super) search: Option<Arc<super::search_tools::SearchTools>>,
    pub(super) found: super::search_tools::Found,
    /// The MCP servers this one fronts (a gateway), whose tools are `{server}__{tool}`.
    pub(super) fronted: Arc<[String]>,
    /// The tools as a host put them in place while the server runs, and the clients to tell
    /// (see [`ToolUpdates`](crate::ToolUpdates)); `None`: those it was made with, always.
    pub(super) live: Option<Arc<super::tool_updates::Live>>,
}

pub(super) struct Inner {
    /// The session every call runs through: the one served ([`McpServer::for_session`]), or
    /// one without a log over the tools given ([`McpServer::new`]).
    pub(super) session: Session,
    /// The MCP declarations, sorted by name: `inventory` gives the registry no order, and
    /// clients (and their caches) expect the same list every time.
    pub(super) declarations: Vec<Tool>,
    /// `` `a`, `b`, `c` ``, for the unknown-tool error.
    names_listed: String,
    /// The session's resources, templates and prompts, as the lists declare them.
    pub(super) catalog: Declarations,
    /// The methods served, for the answer to one that is not.
    pub(super) served: Vec<&'static str>,
    pub(super) info: ServerConfig,
}

impl Inner {
    /// The declarations and catalog of `session`, served.
    pub(super) fn of(session: Session) -> Result<Inner, ServeError> {
        let tools = session.tools();
        let mut declarations = Vec::with_capacity(tools.len());
        for tool in tools {
            let declaration_error =
                |message: String, source: Box<dyn std::error::Error + Send + Sync>| {
                    ServeError::Declaration {
                        tool: tool.name().to_string(),
                        message,
                        source,
                    }
                };
            let value = Dialect::Mcp
                .export(tool)
                .map_err(|err| declaration_error(err.to_string(), err.into()))?;
            let declaration: Tool = serde_json::from_value(value).map_err(|err| {
                declaration_error(format!("not an MCP `Tool`: {err}"), err.into())
            })?;
            declarations.push(declaration);
        }
        declarations.sort_by(|a, b| a.name.cmp(&b.name));
        let names_listed = if declarations.is_empty() {
            "none".to_string()
        } else {
            declarations
                .iter()
                .map(|d| format!("`{}`", d.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let catalog = Declarations::of(session.catalog())?;
        let served = unsupported::served(catalog.has_resources(), !catalog.prompts.is_empty());
        let mut implementation = Implementation::new("cy-tools", env!("CARGO_PKG_VERSION"));
        implementation.title = Some("cy-tools".to_string());
        let info = ServerConfig::new(capabilities(&catalog)).with_server_info(implementation);
        Ok(Inner {
            session,
            declarations,
            names_listed,
            catalog,
            served,
            info,
        })
    }
}

impl McpServer {
    /// A server over `tools`, declaring each as [`Dialect::Mcp`] exports it; its calls are not
    /// recorded (see [`for_session`](Self::for_session)).
    ///
    /// # Errors
    /// [`ServeError::Declaration`] when a tool's declaration is not a valid MCP `Tool`.
    pub fn new(tools: Toolset) -> Result<Self, ServeError> {
        // A session of its own, without a log: every call takes the session's one path.
        let identity = tools.iter().next().map_or_else(
            || SessionIdentity::root("mcp", ""),
            |tool| tool.session().clone(),
        );
        let session = Session::new(Arc::new(ToolContext::new(identity)), tools);
        McpServer::over(session, String::new())
    }

    /// A server over `session`'s tools whose every call goes through the session, so it is
    /// recorded in the session's execution log.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn for_session(session: Session) -> Result<Self, ServeError> {
        let workspace = session_workspace(&session);
        McpServer::over(session, workspace)
    }

    fn over(session: Session, workspace: String) -> Result<Self, ServeError> {
        Ok(McpServer {
            inner: Arc::new(Inner::of(session)?),
            call_runtime: None,
            call_slots: None,
            list_scope: CacheScope::Public,
            state: Arc::new(StateCodec::random()),
            stateless: false,
            over_http: false,
            spent_nonces: None,
            workspace: workspace.into(),
            log_level: ConnectionLevel::default(),
            subscriptions: Subscriptions::default(),
            asker: Arc::default(),
            search: None,
            found: super::search_tools::Found::default(),
            fronted: Arc::from([]),
            live: None,
        })
    }

    /// The same server, telling 2026-07-28 clients that its `tools/list` answer is theirs only
    /// (`cacheScope: "private"`), for a server that only token holders may reach; by default
    /// it is `"public"`, since the list is the same for every caller.
    #[must_use]
    pub fn with_private_tool_list(mut self) -> Self {
        self.list_scope = CacheScope::Private;
        self
    }

    /// A clone for one more connection (a session of the session-bearing HTTP mode): the same
    /// session and settings, with the connection's own log level and subscriptions.
    #[cfg(feature = "http")]
    pub(crate) fn for_connection(&self) -> Self {
        McpServer {
            log_level: ConnectionLevel::default(),
            subscriptions: Subscriptions::default(),
            asker: Arc::default(),
            found: super::search_tools::Found::default(),
            over_http: true,
            ..self.clone()
        }
    }

    /// The same server, knowing it answers each request on its own (stateless HTTP).
    #[cfg(feature = "http")]
    pub(crate) fn stateless(mut self) -> Self {
        self.stateless = true;
        self.over_http = true;
        self
    }

    /// The tools served when the server was made, as `tools/list` declares them (sorted by
    /// name); a host's [`ToolUpdates`](crate::ToolUpdates) may have put others in place since.
    pub fn declarations(&self) -> &[Tool] {
        &self.inner.declarations
    }

    /// `Ok` when `method` is one this server serves, else the answer saying what it serves.
    pub(super) fn serves(&self, method: &str) -> Result<(), ErrorData> {
        if self.inner.served.contains(&method) {
            Ok(())
        } else {
            Err(unsupported::method(method, &self.inner.served))
        }
    }

    pub(super) fn unknown_tool(&self, name: &str) -> ErrorData {
        let inner = self.current();
        let valid: Vec<&str> = inner.declarations.iter().map(|d| &*d.name).collect();
        ErrorData::invalid_params(
            format!(
                "unknown tool `{name}`; valid tools are {}",
                inner.names_listed
            ),
            Some(json!({ "tool": name, "valid_tools": valid })),
        )
    }
}

/// What the server offers: tools and logging always; resources (with subscriptions), prompts
/// and completions when the session has any.
fn capabilities(catalog: &Declarations) -> ServerCapabilities {
    let mut capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_logging()
        .build();
    let has_resources = catalog.has_resources();
    if has_resources {
        let mut resources = rmcp::model::ResourcesCapability::default();
        resources.subscribe = Some(true);
        capabilities.resources = Some(resources);
    }
    if !catalog.prompts.is_empty() {
        capabilities.prompts = Some(rmcp::model::PromptsCapability::default());
    }
    if has_resources || !catalog.prompts.is_empty() {
        capabilities.completions = Some(serde_json::Map::new());
    }
    capabilities
}

/// The workspace of `session` as approval state names it: its execution host and folder, or
/// its folder.
fn session_workspace(session: &Session) -> String {
    if let Some(spec) = session.spec() {
        return match &spec.workspace_host {
            Some(host) => format!(
                "{} {} {}",
                host.url,
                host.name,
                host.folder.as_deref().unwrap_or("")
            ),
            None => spec.workspace.clone(),
        };
    }
    session
        .env()
        .and_then(|env| env.resolve_path(".").ok())
        .map(|path| path.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("tools", &self.inner.session.tools().names())
            .finish()
    }
}
