//! `SessionSpec`: the durable record a session is rebuilt from. Names and settings, never code.

use serde::de::{DeserializeSeed, Deserializer, Error as _};
use serde::{Deserialize, Serialize};

use super::execution::{ExecutorSpec, WorkspaceHost};
use super::mcp_server::McpServerSpec;
use super::subagent::SubagentProfile;
use crate::approval::ApprovalPolicy;
use crate::binding::SessionIdentity;

/// Everything needed to rebuild a session in any process that has the registry: who it is,
/// where it works, which tools it has (by name), how its code runs, whether it has a chat,
/// whether its code may call its tools back (code mode), which subagents it may start and how
/// deep the tree may grow.
///
/// It holds names and settings only, so it round-trips through JSON and a database row.
/// Secrets are not in it either: a remote executor names the environment variable its token
/// is read from.
///
/// ```
/// use cy_tools::{SessionSpec, session::{ExecutorSpec, SubagentProfile}};
///
/// let spec = SessionSpec::root("s-1", "acme", "/srv/work/s-1")
///     .with_tools(["read_file", "write_file"])
///     .with_chat(true)
///     .with_subagent(SubagentProfile::new("researcher", ["read_file"]))
///     .with_max_depth(2);
/// let json = serde_json::to_string(&spec).unwrap();
/// let back: SessionSpec = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, spec);
/// assert_eq!(back.executor, ExecutorSpec::default());
///
/// // A spec written before approvals existed loads, and asks for none.
/// let old: SessionSpec = serde_json::from_str(
///     r#"{"identity": {"session_id": "s-0", "tenant": "acme", "lineage": [], "depth": 0}, "workspace": "/w"}"#,
/// ).unwrap();
/// assert_eq!(old.approve, cy_tools::approval::ApprovalPolicy::None);
///
/// // Written by a person, a root's identity may be two fields: `session_id` and `tenant`.
/// let written: SessionSpec = serde_json::from_str(
///     r#"{"session_id": "s-1", "tenant": "acme", "workspace": "/srv/work/s-1", "tools": ["read_file"]}"#,
/// ).unwrap();
/// assert_eq!(written, SessionSpec::root("s-1", "acme", "/srv/work/s-1").with_tools(["read_file"]));
///
/// // Hooks are the host's: a spec that declares one is refused.
/// let err = serde_json::from_str::<SessionSpec>(
///     r#"{"session_id": "s-1", "tenant": "acme", "workspace": "/w", "hooks": {"pre": "rm -rf /"}}"#,
/// ).unwrap_err();
/// assert!(err.to_string().starts_with("unknown field `hooks`"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, try_from = "SpecForm")]
pub struct SessionSpec {
    /// Id, tenant and lineage (the ancestors' ids, root first) with the depth.
    pub identity: SessionIdentity,
    /// The session's workspace folder on the host. A child's lies inside its parent's. With
    /// a [`workspace_host`](Self::workspace_host), the path the session's tools name it by
    /// (`/workspace/...`), not a folder of the worker.
    pub workspace: String,
    /// Where the workspace lives when it is not a folder on the worker: a workspace on an
    /// execution host, which every tool of the session uses, on whichever worker it is
    /// resumed. Absent (as in every spec stored before it existed), the local folder
    /// [`workspace`](Self::workspace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_host: Option<WorkspaceHost>,
    /// The tools the session asked for, by registry name, in order. `execute_code`, the chat
    /// tools and the delegation tools are added by the factory in order whether or
    /// not they are listed.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The resources the session offers (by registry name, in order), served by its MCP
    /// server beside its tools; not written when none, so older specs read as they did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// The prompts the session offers, by registry name, in order; not written when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<String>,
    /// How `execute_code` runs code.
    #[serde(default)]
    pub executor: ExecutorSpec,
    /// Whether the session is bound to a chat (only root sessions can be).
    #[serde(default)]
    pub chat: bool,
    /// Code mode: the code `execute_code` runs may call the session's other tools, as Python
    /// functions of a module generated from them (`cy_sdk.tools.read_file(path)`), each call
    /// validated, approved and logged like the model's own. Off by default; a spec stored
    /// before the setting existed loads with it off, and one with it off is stored without it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub code_mode: bool,
    /// Code-only mode (implies [`code_mode`](Self::code_mode)): the model is declared
    /// `execute_code` alone, described with how to discover the tools from the code
    /// (`cy_sdk.search`, `cy_sdk.describe`, `cy_sdk.sources`); the session's other tools are
    /// reached from the code only. For sessions with hundreds of tools. Off by default, and
    /// not written when off.
    #[serde(default, skip_serializing_if = "is_false")]
    pub code_only: bool,
    /// The subagents the session may start, by profile name.
    #[serde(default)]
    pub subagents: Vec<SubagentProfile>,
    /// The deepest a session in this tree may be (the root is 0): a session at this depth
    /// gets no factory and starts no subagents.
    #[serde(default = "default_max_depth")]
    pub max_depth: u32,
    /// Which of the session's calls a person must approve before they run (asked in its chat
    /// unless its host asks another way); `none` when left out, so older specs load unchanged,
    /// and not written when `none`, so a spec that asks nothing reads as it did before.
    #[serde(default, skip_serializing_if = "ApprovalPolicy::is_none")]
    pub approve: ApprovalPolicy,
    /// The MCP servers whose tools the session uses (`{server}__{tool}`), started confined in
    /// its sandbox by `cy-tools-mcp-client`; not written when none, so older specs read as
    /// they did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServerSpec>,
}

fn default_max_depth() -> u32 {
    2
}

/// A spec as it may be written: its identity nested (as a spec is stored) or, for a root, as
/// `session_id` and `tenant` beside the other fields (as a person writes one).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecForm {
    #[serde(default)]
    identity: Option<SessionIdentity>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    tenant: Option<String>,
    #[serde(default)]
    workspace: Option<String>,
    #[serde(default)]
    workspace_host: Option<WorkspaceHost>,
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    resources: Vec<String>,
    #[serde(default)]
    prompts: Vec<String>,
    #[serde(default)]
    executor: ExecutorSpec,
    #[serde(default)]
    chat: bool,
    #[serde(default)]
    code_mode: bool,
    #[serde(default)]
    code_only: bool,
    #[serde(default)]
    subagents: Vec<SubagentProfile>,
    #[serde(default = "default_max_depth")]
    max_depth: u32,
    #[serde(default)]
    approve: ApprovalPolicy,
    #[serde(default)]
    mcp_servers: Vec<McpServerSpec>,
}

/// Why a spec cannot carry hooks (a spec naming `hooks` is refused as an unknown field; a host
/// reading a person's spec says this instead).
pub const NO_HOOKS: &str = "a session spec cannot declare hooks: a hook runs on the host, and a spec is carried by a store to other workers, so hooks are the host's setting (`cy-tools mcp --pre-tool-hook`, `ToolContext::with_hook`); remove `hooks` from the spec";

impl TryFrom<SpecForm> for SessionSpec {
    type Error = String;

    fn try_from(form: SpecForm) -> Result<Self, String> {
        form.into_spec(None)
    }
}

impl SpecForm {
    /// The spec, with what it leaves out taken from `defaults` when given.
    fn into_spec(self, defaults: Option<&SpecDefaults<'_>>) -> Result<SessionSpec, String> {
        let default_id = defaults.map(|d| d.session_id.to_string());
        let default_tenant = defaults.map(|d| d.tenant.to_string());
        let identity = match (self.identity, self.session_id, self.tenant) {
            (Some(identity), None, None) => identity,
            (Some(_), _, _) => {
                return Err(
                    "the spec has `identity` and also `session_id` or `tenant`; give one: `identity`, or (for a root session) `session_id` and `tenant`"
                        .to_string(),
                );
            }
            (None, session_id, tenant) => {
                match (session_id.or(default_id), tenant.or(default_tenant)) {
                    (Some(session_id), Some(tenant)) => SessionIdentity::root(session_id, tenant),
                    (None, _) => {
                        return Err(
                        "missing field `identity`: give it, or (for a root session) `session_id` and `tenant`"
                            .to_string(),
                    );
                    }
                    (Some(_), None) => {
                        return Err(
                        "the spec has `session_id` but no `tenant`: name the tenant the session works for"
                            .to_string(),
                    );
                    }
                }
            }
        };
        let Some(workspace) = self.workspace.or(defaults.map(|d| d.workspace.to_string())) else {
            return Err("missing field `workspace`".to_string());
        };
        for (i, server) in self.mcp_servers.iter().enumerate() {
            if let Some(problem) = server.problem() {
                return Err(problem);
            }
            if self.mcp_servers[..i].iter().any(|s| s.name == server.name) {
                return Err(format!(
                    "two MCP servers are named `{}`; give each its own name (it prefixes its tools)",
                    server.name
                ));
            }
        }
        Ok(SessionSpec {
            identity,
            workspace,
            workspace_host: self.workspace_host,
            tools: self.tools,
            resources: self.resources,
            prompts: self.prompts,
            executor: self.executor,
            chat: self.chat,
            code_mode: self.code_mode,
            code_only: self.code_only,
            subagents: self.subagents,
            max_depth: self.max_depth,
            approve: self.approve,
            mcp_servers: self.mcp_servers,
        })
    }
}

/// What a spec written by a person may leave out, taken from here when it is read: a root's
/// id and tenant, and its workspace. Read a spec with it as a [`DeserializeSeed`] (as the
/// command line reads `--spec` files); errors keep the file's line and column.
///
/// ```
/// use serde::de::DeserializeSeed;
/// use cy_tools::session::SpecDefaults;
///
/// let defaults = SpecDefaults { session_id: "cli", tenant: "local", workspace: "." };
/// let mut json = serde_json::Deserializer::from_str(r#"{"tools": ["read_file"]}"#);
/// let spec = defaults.deserialize(&mut json).unwrap();
/// assert_eq!(spec.identity.session_id, "cli");
/// assert_eq!((spec.workspace.as_str(), spec.tools.as_slice()), (".", &["read_file".to_string()][..]));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SpecDefaults<'a> {
    /// The session id of a spec that gives no identity.
    pub session_id: &'a str,
    /// The tenant of a spec that gives no identity or no tenant.
    pub tenant: &'a str,
    /// The workspace of a spec that gives none.
    pub workspace: &'a str,
}

impl<'de> DeserializeSeed<'de> for SpecDefaults<'_> {
    type Value = SessionSpec;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<SessionSpec, D::Error> {
        SpecForm::deserialize(deserializer)?
            .into_spec(Some(&self))
            .map_err(D::Error::custom)
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_false(value: &bool) -> bool {
    !*value
}

impl SessionSpec {
    /// A root session's spec: no tools besides the ones always added, the default local
    /// executor, no chat, no subagents, maximum depth 2.
    pub fn root(
        session_id: impl Into<String>,
        tenant: impl Into<String>,
        workspace: impl Into<String>,
    ) -> Self {
        SessionSpec {
            identity: SessionIdentity::root(session_id, tenant),
            workspace: workspace.into(),
            workspace_host: None,
            tools: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
            executor: ExecutorSpec::default(),
            chat: false,
            code_mode: false,
            code_only: false,
            subagents: Vec::new(),
            max_depth: default_max_depth(),
            approve: ApprovalPolicy::None,
            mcp_servers: Vec::new(),
        }
    }

    /// The same spec with another approval policy.
    #[must_use]
    pub fn with_approve(mut self, approve: ApprovalPolicy) -> Self {
        self.approve = approve;
        self
    }

    /// The same spec with these tool names.
    #[must_use]
    pub fn with_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// The same spec offering these resources, by registry name.
    ///
    /// ```
    /// use cy_tools::SessionSpec;
    /// let spec = SessionSpec::root("s-1", "acme", "/w").with_resources(["house_rules"]).with_prompts(["review"]);
    /// let json = serde_json::to_value(&spec).unwrap();
    /// assert_eq!((json["resources"][0].as_str(), json["prompts"][0].as_str()), (Some("house_rules"), Some("review")));
    /// // A spec without them is written as before.
    /// assert!(serde_json::to_value(SessionSpec::root("s", "t", "/w")).unwrap().get("resources").is_none());
    /// ```
    #[must_use]
    pub fn with_resources<S: Into<String>>(
        mut self,
        resources: impl IntoIterator<Item = S>,
    ) -> Self {
        self.resources = resources.into_iter().map(Into::into).collect();
        self
    }

    /// The same spec offering these prompts, by registry name.
    #[must_use]
    pub fn with_prompts<S: Into<String>>(mut self, prompts: impl IntoIterator<Item = S>) -> Self {
        self.prompts = prompts.into_iter().map(Into::into).collect();
        self
    }

    /// The same spec with this executor.
    #[must_use]
    pub fn with_executor(mut self, executor: ExecutorSpec) -> Self {
        self.executor = executor;
        self
    }

    /// The same spec with its workspace on an execution host.
    #[must_use]
    pub fn with_workspace_host(mut self, host: WorkspaceHost) -> Self {
        self.workspace_host = Some(host);
        self
    }

    /// The same spec with or without a chat.
    #[must_use]
    pub fn with_chat(mut self, chat: bool) -> Self {
        self.chat = chat;
        self
    }

    /// The same spec with code mode on or off: when on, the code `execute_code` runs may call
    /// the session's other tools.
    ///
    /// ```
    /// use cy_tools::SessionSpec;
    ///
    /// let spec = SessionSpec::root("s-1", "acme", "/srv/work/s-1").with_code_mode(true);
    /// let json = serde_json::to_value(&spec).unwrap();
    /// assert_eq!(json["code_mode"], true);
    /// // Off, the setting is not written, and a spec without it loads with it off.
    /// let off = serde_json::to_value(spec.with_code_mode(false)).unwrap();
    /// assert!(off.get("code_mode").is_none());
    /// let back: SessionSpec = serde_json::from_value(off).unwrap();
    /// assert!(!back.code_mode);
    /// ```
    #[must_use]
    pub fn with_code_mode(mut self, code_mode: bool) -> Self {
        self.code_mode = code_mode;
        self
    }

    /// The same spec with code-only mode on or off (see [`code_only`](Self::code_only)).
    ///
    /// ```
    /// use cy_tools::SessionSpec;
    ///
    /// let spec = SessionSpec::root("s-1", "acme", "/srv/work/s-1").with_code_only(true);
    /// let json = serde_json::to_value(&spec).unwrap();
    /// assert_eq!(json["code_only"], true);
    /// let off = serde_json::to_value(spec.with_code_only(false)).unwrap();
    /// assert!(off.get("code_only").is_none());
    /// ```
    #[must_use]
    pub fn with_code_only(mut self, code_only: bool) -> Self {
        self.code_only = code_only;
        self
    }

    /// The same spec with one more subagent profile.
    #[must_use]
    pub fn with_subagent(mut self, profile: SubagentProfile) -> Self {
        self.subagents.push(profile);
        self
    }

    /// The same spec with another maximum depth.
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.identity.session_id
    }

    /// The subagent profile named `name`.
    pub fn subagent(&self, name: &str) -> Option<&SubagentProfile> {
        self.subagents.iter().find(|p| p.name == name)
    }

    /// Whether sessions of this spec may start subagents: it declares some and is above the
    /// maximum depth.
    pub fn can_delegate(&self) -> bool {
        !self.subagents.is_empty() && self.identity.depth < self.max_depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec as the code before `workspace_host` wrote it still loads, with no host, and
    /// is written back the same.
    #[test]
    fn a_spec_stored_before_workspace_hosts_loads() {
        let old = r#"{"identity":{"session_id":"s-old","tenant":"acme","lineage":[],"depth":0},"workspace":"/srv/w","tools":["read_file"],"executor":{"kind":"remote","url":"http://127.0.0.1:8700","token_var":"CY_CONTROL_TOKEN"},"chat":false,"subagents":[],"max_depth":2}"#;
        let spec: SessionSpec = serde_json::from_str(old).unwrap();
        assert_eq!(spec.workspace_host, None);
        assert_eq!(serde_json::to_string(&spec).unwrap(), old);
    }
}
