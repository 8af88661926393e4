//! `McpServers`: the MCP servers of one session, started together, and their tools bound to it.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, RwLock, Weak};

use cy_tools::binding::bind_tool;
use cy_tools::definition::Definition;
use cy_tools::session::McpServerSpec;
use cy_tools::{BoundTool, ToolContext};
use cy_tools_sandbox::SandboxView;
use rmcp::model::Tool;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch};

use crate::connection::Server;
use crate::definition::{Made, McpToolDefinition, definition};
use crate::error::McpClientError;
use crate::names::{Taken, names_tool, session_name};
use crate::upstream::ListChanged;

/// The MCP servers of one session and the tools it takes from them. Cloning shares them; the
/// servers are killed when the last clone is dropped (with the session's context, which holds
/// one as its state).
#[derive(Clone)]
pub struct McpServers {
    inner: Arc<Inner>,
}

struct Inner {
    servers: Vec<Arc<Server>>,
    tools: RwLock<Tools>,
    /// How many times the session's server tools changed since they were started.
    changes: watch::Sender<u64>,
}

/// The servers' tools as they listed them last, and the session's tools made of them.
struct Tools {
    /// Each server's list, in the servers' order.
    listed: Vec<Vec<Tool>>,
    tools: Vec<&'static McpToolDefinition>,
    report: Vec<String>,
}

/// The tool lists of lazy servers read in this process, by what makes a server list what it
/// lists (its entry without its choice of tools, timeouts and trust; the workspace; the values
/// of the variables it receives): a lazy server whose list is here is bound from it and
/// started at its first call.
static LISTED: LazyLock<Mutex<HashMap<[u8; 32], Vec<Tool>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The most lists [`LISTED`] keeps: a process serving many workspaces forgets some (their
/// next build starts the server to list it again) rather than grow without bound.
const LISTED_MAX: usize = 256;

/// Keeps `tools` as the list of a lazy server's `key`.
fn remember(key: [u8; 32], tools: &[Tool]) {
    let mut listed = LISTED.lock().unwrap_or_else(|e| e.into_inner());
    if listed.len() >= LISTED_MAX
        && !listed.contains_key(&key)
        && let Some(some) = listed.keys().next().copied()
    {
        listed.remove(&some);
    }
    listed.insert(key, tools.to_vec());
}

/// What `spec`'s server in `view` lists its tools by, for [`LISTED`].
fn listing_key(spec: &McpServerSpec, view: &SandboxView) -> [u8; 32] {
    let server = McpServerSpec {
        name: String::new(),
        tools: None,
        trust_annotations: false,
        startup_timeout_secs: None,
        call_timeout_secs: None,
        lazy: false,
        ..spec.clone()
    };
    let mut key = Sha256::new();
    key.update(
        serde_json::to_string(&server)
            .unwrap_or_default()
            .as_bytes(),
    );
    key.update([0]);
    key.update(view.host_path().as_os_str().as_encoded_bytes());
    for var in spec.env.iter().chain(&spec.bearer_env) {
        key.update([0]);
        key.update(std::env::var_os(var).unwrap_or_default().as_encoded_bytes());
    }
    key.finalize().into()
}

impl McpServers {
    /// Starts every server of `specs` at once, each confined in `view` (the session's
    /// sandbox), and lists their tools: the session's tools are then known, with their names
    /// (`{server}__{tool}`) and schemas. A `lazy` server whose tools were listed before in
    /// this process (by an earlier start of the same entry in the same workspace: the same
    /// session resumed, narrowed or spawning a child) is not started: its tools are bound from
    /// that list, and it starts at its first call.
    ///
    /// # Errors
    /// A server's entry is wrong, it cannot be started or does not list its tools in time, or
    /// the spec names a tool it does not have: the error names the server and what to do.
    pub async fn start(
        specs: &[McpServerSpec],
        view: &SandboxView,
    ) -> Result<McpServers, McpClientError> {
        for (i, spec) in specs.iter().enumerate() {
            if let Some(problem) = spec.problem() {
                return Err(McpClientError::new(problem));
            }
            if specs[..i].iter().any(|s| s.name == spec.name) {
                return Err(McpClientError::new(format!(
                    "two MCP servers are named `{}`; give each its own name",
                    spec.name
                )));
            }
        }
        let (list_changed, asked) = mpsc::unbounded_channel();
        let servers: Vec<Arc<Server>> = specs
            .iter()
            .enumerate()
            .map(|(index, spec)| {
                let told = ListChanged {
                    index,
                    to: list_changed.clone(),
                };
                Arc::new(Server::new(spec.clone(), view.clone(), told))
            })
            .collect();
        drop(list_changed);
        let keys: Vec<[u8; 32]> = specs.iter().map(|s| listing_key(s, view)).collect();
        let mut listed = vec![None; servers.len()];
        {
            let known = LISTED.lock().unwrap_or_else(|e| e.into_inner());
            for (i, spec) in specs.iter().enumerate() {
                if spec.lazy {
                    listed[i] = known.get(&keys[i]).cloned();
                }
            }
        }
        // In parallel: a session waits for its slowest server, not for their sum.
        let mut listing = tokio::task::JoinSet::new();
        for (i, server) in servers.iter().enumerate() {
            if listed[i].is_some() {
                continue;
            }
            let server = Arc::clone(server);
            listing.spawn(async move { (i, server.list_tools().await) });
        }
        while let Some(done) = listing.join_next().await {
            let (i, tools) = done.map_err(|err| {
                McpClientError::new(format!("starting an MCP server failed inside ({err})"))
            })?;
            let tools = tools.map_err(McpClientError::new)?;
            if specs[i].lazy {
                remember(keys[i], &tools);
            }
            listed[i] = Some(tools);
        }
        let listed: Vec<Vec<Tool>> = listed.into_iter().map(Option::unwrap_or_default).collect();
        let (tools, report) = session_tools(&servers, &listed, true)?;
        let inner = Arc::new(Inner {
            servers,
            tools: RwLock::new(Tools {
                listed,
                tools,
                report,
            }),
            changes: watch::Sender::new(0),
        });
        tokio::spawn(refresh(Arc::downgrade(&inner), keys, asked));
        Ok(McpServers { inner })
    }

    /// The session's names of the servers' tools, in order, as the servers list them now.
    pub fn tool_names(&self) -> impl Iterator<Item = &'static str> + use<> {
        let names: Vec<&'static str> = self.tools().iter().map(|t| t.meta_name()).collect();
        names.into_iter()
    }

    /// The servers' tools as definitions, in order, as the servers list them now, for a host
    /// that binds tools itself (a session factory's extras): a session's context must hold
    /// these servers as its state.
    pub fn definitions(&self) -> impl Iterator<Item = &'static dyn Definition> + use<> {
        let tools: Vec<&'static dyn Definition> = self
            .tools()
            .into_iter()
            .map(|tool| -> &'static dyn Definition { tool })
            .collect();
        tools.into_iter()
    }

    /// What the session should know about its server tools: those passed on unchecked, and
    /// why; after a server's list changed, the tools its entry names that it no longer has.
    pub fn report(&self) -> Vec<String> {
        self.inner
            .tools
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .report
            .clone()
    }

    /// Tells a host when the servers' tools change: a server said its list changed
    /// (`notifications/tools/list_changed`) or was started again, its tools were listed again
    /// (every page), and the session's tools made of them differ (a tool added or gone, a
    /// schema, description or annotations changed). The value counts the changes since the
    /// servers started; [`changed`](watch::Receiver::changed) fails once the servers are
    /// dropped.
    ///
    /// Tools already bound keep working: a call checks its arguments against the tool's
    /// schema as listed now, and a call to a tool the server no longer lists answers an error
    /// naming the tool and the server. What a host shows its model or clients (names,
    /// descriptions, schemas) is the bound tools', so a host that serves them binds again:
    /// [`bind`](Self::bind) (or [`definitions`](Self::definitions)) gives the tools as listed
    /// now, and `Session::with_tools` puts them in place; an MCP server of its own then sends
    /// its clients `notifications/tools/list_changed`. A session built by `cy-tools-session`'s
    /// factory holds its servers as its context's state:
    /// `session.context().state::<McpServers>()`.
    ///
    /// ```no_run
    /// # async fn run(servers: cy_tools_mcp_client::McpServers, session: cy_tools::Session)
    /// # -> Result<(), Box<dyn std::error::Error>> {
    /// use cy_tools::Toolset;
    ///
    /// let mut changes = servers.changes();
    /// let mut session = session;
    /// while changes.changed().await.is_ok() {
    ///     // The session's own tools stay; its server tools are bound as listed now.
    ///     let own: Vec<_> = session
    ///         .tools()
    ///         .iter()
    ///         .filter(|t| !servers.owns(t.name()))
    ///         .cloned()
    ///         .collect();
    ///     let taken: Vec<&str> = own.iter().map(|t| t.name()).collect();
    ///     let mut tools = servers.bind(session.context(), &taken)?;
    ///     tools.splice(0..0, own);
    ///     session = session.with_tools(Toolset::new(tools));
    ///     // … and tell the session's clients (`notifications/tools/list_changed`).
    /// }
    /// # Ok(()) }
    /// ```
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Whether `name` is a session name these servers give (`{server}__{tool}` of one of
    /// them), whether or not the server still lists that tool: so a host that binds again
    /// can tell the servers' tools from the session's others.
    pub fn owns(&self, name: &str) -> bool {
        name.split_once("__")
            .is_some_and(|(server, _)| self.server(server).is_some())
    }

    /// The session's server tools as listed now.
    fn tools(&self) -> Vec<&'static McpToolDefinition> {
        self.inner
            .tools
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .tools
            .clone()
    }

    /// The definition of `server`'s tool `tool` as the server lists it now; `None` when it
    /// lists it no more.
    pub(crate) fn current(&self, server: &str, tool: &str) -> Option<&'static McpToolDefinition> {
        self.inner
            .tools
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .tools
            .iter()
            .find(|t| t.server == server && t.tool == tool)
            .copied()
    }

    /// The server named `name`.
    pub(crate) fn server(&self, name: &str) -> Option<&Server> {
        self.inner
            .servers
            .iter()
            .find(|s| s.spec.name == name)
            .map(AsRef::as_ref)
    }

    /// The servers' tools bound to `context`, which must hold these servers as its state
    /// (`ToolContext::with_state(servers.clone())`). `taken` are the session's other tools'
    /// names: a server tool never shadows one.
    ///
    /// # Errors
    /// A server tool's name is taken, or the context lacks the servers.
    pub fn bind(
        &self,
        context: &Arc<ToolContext>,
        taken: &[&str],
    ) -> Result<Vec<BoundTool>, McpClientError> {
        let others = Taken::of(taken.iter().copied());
        let tools = self.tools();
        let mut bound = Vec::with_capacity(tools.len());
        for tool in &tools {
            let name = tool.meta_name();
            if others.holds(name) {
                return Err(McpClientError::new(format!(
                    "MCP server `{}`'s tool `{}` would be named `{name}`, which another tool of the session already is; rename the server",
                    tool.server, tool.tool
                )));
            }
            bound.push(bind_tool(*tool, Arc::clone(context)).map_err(|err| {
                McpClientError::new(format!(
                    "`{name}` could not be bound ({err}); build the session's context with `with_state(servers.clone())`"
                ))
            })?);
        }
        Ok(bound)
    }
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field(
                "servers",
                &self
                    .inner
                    .servers
                    .iter()
                    .map(|s| &s.spec.name)
                    .collect::<Vec<_>>(),
            )
            .field("tools", &self.tool_names().collect::<Vec<_>>())
            .finish()
    }
}

/// The session's tools made of the servers' lists, and what to report about them. `strict`
/// (at start): a tool the entry names that the server lacks, or a schema no tool can take,
/// is an error; after a change, it is left out and reported.
fn session_tools(
    servers: &[Arc<Server>],
    listed: &[Vec<Tool>],
    strict: bool,
) -> Result<(Vec<&'static McpToolDefinition>, Vec<String>), McpClientError> {
    let mut tools = Vec::new();
    let mut report = Vec::new();
    let mut taken = Taken::default();
    for (server, listed) in servers.iter().zip(listed) {
        let spec = &server.spec;
        for wanted in spec.tools.iter().flatten() {
            if listed
                .iter()
                .any(|t| names_tool(&spec.name, wanted, &t.name))
            {
                continue;
            }
            let known: Vec<String> = listed.iter().map(|t| format!("`{}`", t.name)).collect();
            let message = format!(
                "MCP server `{}` has no tool `{wanted}` (its tools are {}); fix the server's `tools` in the spec",
                spec.name,
                known.join(", ")
            );
            if strict {
                return Err(McpClientError::new(message));
            }
            report.push(message);
        }
        for tool in listed {
            if spec
                .tools
                .as_ref()
                .is_some_and(|w| !w.iter().any(|n| names_tool(&spec.name, n, &tool.name)))
            {
                continue;
            }
            let mut name = session_name(&spec.name, &tool.name);
            if taken.holds(&name) {
                // Two of its tools clean up to one name: the later one gets a digest.
                name = session_name(&spec.name, &format!("{}\u{0}", tool.name));
            }
            taken.take(name.clone());
            let made = match definition(&Made {
                server: &spec.name,
                session_name: &name,
                tool,
                trust_annotations: spec.trust_annotations,
                timeout: spec.call_timeout(),
            }) {
                Ok(made) => made,
                Err(err) if strict => return Err(McpClientError::new(err)),
                Err(err) => {
                    report.push(format!("{err}; it is left out"));
                    continue;
                }
            };
            if let Some(why) = &made.unchecked {
                report.push(format!(
                    "`{name}`: its arguments go to MCP server `{}` unchecked, since its schema cannot be checked here ({why})",
                    spec.name
                ));
            }
            tools.push(made);
        }
    }
    Ok((tools, report))
}

/// Lists a server's tools again whenever it asks (its list changed, or it was started
/// again), and updates the session's tools when they differ, telling the hosts that watch.
/// Ends with the servers.
async fn refresh(
    inner: Weak<Inner>,
    keys: Vec<[u8; 32]>,
    mut asked: mpsc::UnboundedReceiver<usize>,
) {
    while let Some(first) = asked.recv().await {
        // Several notes in a row are one listing.
        let mut which = vec![first];
        while let Ok(more) = asked.try_recv() {
            if !which.contains(&more) {
                which.push(more);
            }
        }
        let Some(inner) = inner.upgrade() else {
            return;
        };
        for i in which {
            let server = &inner.servers[i];
            let listed = match server.list_tools().await {
                Ok(listed) => listed,
                Err(err) => {
                    tracing::warn!(server = server.spec.name, %err, "MCP server's tools could not be listed again; keeping its last list");
                    continue;
                }
            };
            if server.spec.lazy {
                remember(keys[i], &listed);
            }
            let mut tools = inner.tools.write().unwrap_or_else(|e| e.into_inner());
            tools.listed[i] = listed;
            let Ok((made, report)) = session_tools(&inner.servers, &tools.listed, false) else {
                continue;
            };
            let same = made.len() == tools.tools.len()
                && made
                    .iter()
                    .zip(&tools.tools)
                    .all(|(a, b)| std::ptr::eq(*a, *b));
            tools.tools = made;
            tools.report = report;
            drop(tools);
            if !same {
                tracing::info!(
                    server = server.spec.name,
                    "the session's tools of an MCP server changed"
                );
                inner.changes.send_modify(|n| *n += 1);
            }
        }
    }
}
